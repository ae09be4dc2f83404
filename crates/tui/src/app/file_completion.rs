//! `@file` completion: while the word at the cursor starts with `@`, the popup lists the
//! workspace's files matching the rest of it; Tab or Enter puts the chosen path in its place.
//!
//! The file list is read off the event loop ([`Request::ListFiles`]) and kept for the session,
//! listed again when the popup opens and the list is older than [`REFRESH_AFTER`]. Searching it
//! happens here, per keystroke: 1-3 ms for 50,000 paths, well under a frame
//! (docs/performance.md).

use super::{App, Request};
use crate::bottom::composer::CursorWord;
use crate::bottom::file_popup::FilePopup;
use crate::bottom::popup::Popup;
use cairn_core::file_search::FileIndex;
use crossterm::event::{KeyCode, KeyEvent};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A file list older than this is listed again when the popup opens: files come and go while
/// the model works, but walking a big tree on every `@` would be wasted.
const REFRESH_AFTER: Duration = Duration::from_secs(10);

/// The workspace's files and what the user did with the popup.
#[derive(Debug, Default)]
pub(super) struct FileCompletion {
    /// The latest list and when it arrived.
    index: Option<(Arc<FileIndex>, Instant)>,
    /// When a listing was asked for that has not arrived yet.
    requested_at: Option<Instant>,
    /// Where the `@` word starts (row, column) that Esc closed the popup on: it stays closed
    /// while the cursor is in that word.
    dismissed: Option<(usize, usize)>,
}

impl App {
    /// The workspace the files are listed from: the session's directory, else where cairn
    /// started.
    fn workspace_root(&self) -> Option<PathBuf> {
        self.session
            .as_ref()
            .map(|s| s.cwd.clone())
            .or_else(|| self.cwd.clone())
    }

    /// The `@` word at the cursor and the query after its `@`.
    fn at_word(&self) -> Option<(CursorWord, String)> {
        let word = self.composer.word_before_cursor();
        let query = word.text.strip_prefix('@')?.to_string();
        Some((word, query))
    }

    /// Open, update or close the file popup after the composer changed (the slash popup
    /// does not apply). `may_open` is false for pasted text, so a paste that happens to hold
    /// `@word` and a line break cannot have its Enter taken by the popup.
    pub(super) fn sync_file_popup(&mut self, may_open: bool) {
        let Some((word, query)) = self.at_word() else {
            self.files.dismissed = None;
            self.popup = None;
            return;
        };
        let here = (word.row, word.start);
        if self.files.dismissed.is_some_and(|d| d != here) {
            self.files.dismissed = None;
        }
        if !may_open || self.files.dismissed.is_some() {
            self.popup = None;
            return;
        }
        let index = self
            .files
            .index
            .as_ref()
            .map(|(index, _)| Arc::clone(index));
        match &mut self.popup {
            Some(Popup::File(popup)) => popup.update(&query, index.as_deref()),
            _ => {
                self.popup = Some(Popup::File(FilePopup::new(&query, index.as_deref())));
                self.refresh_files();
            }
        }
    }

    /// Ask for the file list unless a recent one is there or on its way.
    fn refresh_files(&mut self) {
        let recent = |at: Instant| self.now.saturating_duration_since(at) < REFRESH_AFTER;
        let fresh = self.files.index.as_ref().is_some_and(|(_, at)| recent(*at));
        let coming = self.files.requested_at.is_some_and(recent);
        if fresh || coming {
            return;
        }
        let Some(root) = self.workspace_root() else {
            return;
        };
        self.files.requested_at = Some(self.now);
        self.requests.push(Request::ListFiles { root });
    }

    /// The file list arrived: keep it, and search it if the popup is open.
    pub(super) fn handle_files_listed(&mut self, root: PathBuf, index: Arc<FileIndex>) {
        if self.workspace_root().as_ref() != Some(&root) {
            // Listed for a session that has since been replaced.
            return;
        }
        self.files.requested_at = None;
        if let Some(Popup::File(popup)) = &mut self.popup {
            let query = popup.query().to_string();
            popup.update(&query, Some(&index));
        }
        self.files.index = Some((index, self.now));
    }

    /// Keys for the file popup. Returns true when used.
    pub(super) fn handle_file_popup_key(&mut self, key: KeyEvent) -> bool {
        let Some(Popup::File(popup)) = &mut self.popup else {
            return false;
        };
        let plain = key.modifiers.is_empty();
        match key.code {
            KeyCode::Up if plain => popup.move_selection(false),
            KeyCode::Down if plain => popup.move_selection(true),
            KeyCode::Tab | KeyCode::Enter if plain => {
                let Some(path) = popup.selected_path().map(str::to_string) else {
                    // Nothing to insert: Tab does nothing, and Enter sends the message as
                    // typed (an `@name` that is no file, say).
                    return key.code == KeyCode::Tab;
                };
                self.insert_file(&path);
            }
            KeyCode::Esc => {
                self.files.dismissed = self.at_word().map(|(word, _)| (word.row, word.start));
                self.popup = None;
            }
            _ => return false,
        }
        true
    }

    /// Put `path` in place of the `@` word, followed by a space. A path holding whitespace is
    /// put in double quotes, so the model reads it as one path.
    fn insert_file(&mut self, path: &str) {
        self.popup = None;
        let Some((word, _)) = self.at_word() else {
            return;
        };
        let text = if path.contains(char::is_whitespace) {
            format!("\"{path}\" ")
        } else {
            format!("{path} ")
        };
        self.composer.replace_word(&word, &text);
        self.typed_at = Some(self.now);
    }
}

//! The `@file` popup above the composer: workspace files matching the word after `@`, best
//! first, with the matched letters highlighted.

use crate::strings;
use crate::theme;
use cairn_core::file_search::{FileIndex, FileMatch};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Rows the popup shows at most (and matches it keeps).
pub const MAX_ROWS: usize = 8;

/// The popup state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePopup {
    /// The text after `@`.
    query: String,
    /// `None` until the workspace's file list has arrived.
    matches: Option<Vec<FileMatch>>,
    selected: usize,
}

impl FilePopup {
    /// The popup for `query`, searched in `index` when the file list is there.
    pub fn new(query: &str, index: Option<&FileIndex>) -> Self {
        let mut popup = Self {
            query: String::new(),
            matches: None,
            selected: 0,
        };
        popup.update(query, index);
        popup
    }

    /// Search again for `query` (typing went on, or the file list arrived), keeping the
    /// selected path highlighted when it still matches.
    pub fn update(&mut self, query: &str, index: Option<&FileIndex>) {
        let keep = self.selected_path().map(str::to_string);
        self.query = query.to_string();
        self.matches = index.map(|index| index.search(query, MAX_ROWS));
        self.selected = keep
            .and_then(|path| self.matches()?.iter().position(|m| m.path == path))
            .unwrap_or(0);
    }

    fn matches(&self) -> Option<&[FileMatch]> {
        self.matches.as_deref()
    }

    /// The text after `@` the popup was searched for.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// The highlighted path.
    pub fn selected_path(&self) -> Option<&str> {
        self.matches()?.get(self.selected).map(|m| m.path.as_str())
    }

    /// Move the highlight, wrapping around.
    pub fn move_selection(&mut self, down: bool) {
        let n = self.matches().map_or(0, <[FileMatch]>::len);
        if n == 0 {
            return;
        }
        self.selected = if down {
            (self.selected + 1) % n
        } else {
            (self.selected + n - 1) % n
        };
    }

    /// Rows needed.
    pub fn desired_height(&self) -> u16 {
        self.matches().map_or(1, |m| m.len().clamp(1, MAX_ROWS)) as u16
    }

    /// Draw.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let matches = match self.matches() {
            None => {
                let line = Line::from(Span::styled(strings::FILES_LOADING, theme::dim()));
                buf.set_line(area.x, area.y, &line, area.width);
                return;
            }
            Some([]) => {
                let line = Line::from(Span::styled(
                    strings::no_files_match(&self.query),
                    theme::dim(),
                ));
                buf.set_line(area.x, area.y, &line, area.width);
                return;
            }
            Some(matches) => matches,
        };
        // Keep the highlight in the rows the layout could give (fewer than asked for when
        // the terminal is short).
        let rows = usize::from(area.height).clamp(1, MAX_ROWS);
        let start = self.selected.saturating_sub(rows - 1);
        for (row, (i, found)) in matches
            .iter()
            .enumerate()
            .skip(start)
            .take(usize::from(area.height))
            .enumerate()
        {
            let selected = i == self.selected;
            let marker = if selected { "› " } else { "  " };
            let mut spans = vec![Span::styled(marker, theme::selected())];
            spans.extend(path_spans(found, selected));
            buf.set_line(area.x, area.y + row as u16, &Line::from(spans), area.width);
        }
    }
}

/// `found`'s path in runs of matched and unmatched characters.
fn path_spans(found: &FileMatch, selected: bool) -> Vec<Span<'static>> {
    let base = if selected {
        theme::selected()
    } else {
        Style::new()
    };
    let hit = base.patch(theme::file_match());
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut marks = found.positions.iter().peekable();
    let mut run = String::new();
    let mut run_is_hit = false;
    for (i, c) in found.path.char_indices() {
        let is_hit = marks.next_if_eq(&&i).is_some();
        if is_hit != run_is_hit && !run.is_empty() {
            let style = if run_is_hit { hit } else { base };
            spans.push(Span::styled(std::mem::take(&mut run), style));
        }
        run_is_hit = is_hit;
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, if run_is_hit { hit } else { base }));
    }
    spans
}

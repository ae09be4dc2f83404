//! The `@file` popup above the composer: workspace files matching the word after `@`, best
//! first, with the matched letters highlighted.

use crate::strings;
use crate::theme;
use cairn_core::file_search::{FileIndex, FileMatch};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

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
            let room = usize::from(area.width).saturating_sub(marker.len());
            spans.extend(path_spans(found, selected, room));
            buf.set_line(area.x, area.y + row as u16, &Line::from(spans), area.width);
        }
    }
}

/// `found`'s path in runs of matched and unmatched characters, in at most `room` columns.
/// A path too long loses its start, not its file name (what the user is matching).
fn path_spans(found: &FileMatch, selected: bool, room: usize) -> Vec<Span<'static>> {
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
    let mut width = UnicodeWidthStr::width(found.path.as_str());
    let mut skip_to = 0;
    if width > room {
        spans.push(Span::styled("…", base.patch(theme::dim())));
        for (i, c) in found.path.char_indices() {
            // One column is the ellipsis.
            if width < room {
                skip_to = i;
                break;
            }
            width -= UnicodeWidthChar::width(c).unwrap_or(0);
            skip_to = i + c.len_utf8();
        }
    }
    for (i, c) in found.path.char_indices() {
        if i < skip_to {
            marks.next_if(|&&m| m == i);
            continue;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn text(spans: &[Span<'static>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn a_long_path_keeps_its_file_name_and_its_highlights() {
        let path = "crates/tui/src/bottom/file_popup.rs";
        let at = path.find("popup").unwrap();
        let found = FileMatch {
            path: path.to_string(),
            positions: (at..at + 5).collect(),
            kind: cairn_core::file_search::MatchKind::BasenameSubstring,
        };
        let spans = path_spans(&found, false, 16);
        assert_eq!(text(&spans), "…m/file_popup.rs");
        let hit: String = spans
            .iter()
            .filter(|s| s.style == Style::new().patch(theme::file_match()))
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(hit, "popup");
        assert_eq!(text(&path_spans(&found, false, 80)), path);
    }
}

//! The transcript: history cells, their wrapped lines cached per width, and the scroll state.
//!
//! Layout (wrapping) happens in [`Transcript::prepare`], called from the app's state-changing
//! side before a frame, and only for cells that changed. Rendering finds the first visible cell
//! by binary search over the cells' start lines and copies only the visible lines, so a frame
//! costs what the viewport shows, not what the transcript holds.

use crate::history::{HistoryCell, RenderOptions};
use crate::theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

struct Entry {
    cell: HistoryCell,
    lines: Vec<Line<'static>>,
    dirty: bool,
}

impl Entry {
    /// Lines on screen: the cell's lines and a blank line after it (none for an empty cell).
    fn height(&self) -> usize {
        if self.lines.is_empty() {
            0
        } else {
            self.lines.len() + 1
        }
    }
}

/// Where the viewport is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scroll {
    /// Stick to the bottom: new output stays visible.
    Follow,
    /// The user scrolled up: keep this line at the top while output grows below.
    Top(usize),
}

/// The transcript.
pub struct Transcript {
    entries: Vec<Entry>,
    /// Start line of each entry.
    starts: Vec<usize>,
    total: usize,
    width: u16,
    viewport: u16,
    options: RenderOptions,
    /// Lowest index whose layout or start may be stale.
    dirty_from: Option<usize>,
    scroll: Scroll,
    /// A cell to bring to the top of the view once it is laid out.
    reveal: Option<usize>,
}

impl Default for Transcript {
    fn default() -> Self {
        Self::new()
    }
}

impl Transcript {
    /// An empty transcript.
    pub fn new() -> Self {
        Self {
            entries: Vec::new(),
            starts: Vec::new(),
            total: 0,
            width: 0,
            viewport: 0,
            options: RenderOptions::default(),
            dirty_from: None,
            scroll: Scroll::Follow,
            reveal: None,
        }
    }

    fn mark_dirty(&mut self, index: usize) {
        if let Some(entry) = self.entries.get_mut(index) {
            entry.dirty = true;
        }
        self.dirty_from = Some(self.dirty_from.map_or(index, |d| d.min(index)));
    }

    /// Append a cell; returns its index.
    pub fn push(&mut self, cell: HistoryCell) -> usize {
        self.entries.push(Entry {
            cell,
            lines: Vec::new(),
            dirty: true,
        });
        self.starts.push(self.total);
        let index = self.entries.len() - 1;
        self.mark_dirty(index);
        index
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no cells.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A cell, to read.
    pub fn cell(&self, index: usize) -> Option<&HistoryCell> {
        self.entries.get(index).map(|e| &e.cell)
    }

    /// A cell, to change; its layout is redone before the next frame.
    pub fn cell_mut(&mut self, index: usize) -> Option<&mut HistoryCell> {
        if index >= self.entries.len() {
            return None;
        }
        self.mark_dirty(index);
        self.entries.get_mut(index).map(|e| &mut e.cell)
    }

    /// Change a cell through `f`; its layout is redone only when `f` returns true (a
    /// streamed delta without a newline changes nothing on screen).
    pub fn update_cell(&mut self, index: usize, f: impl FnOnce(&mut HistoryCell) -> bool) {
        let Some(entry) = self.entries.get_mut(index) else {
            return;
        };
        if f(&mut entry.cell) {
            self.mark_dirty(index);
        }
    }

    /// Iterate over the cells.
    pub fn cells(&self) -> impl Iterator<Item = &HistoryCell> {
        self.entries.iter().map(|e| &e.cell)
    }

    /// Remove every cell.
    pub fn clear(&mut self) {
        *self = Self {
            width: self.width,
            viewport: self.viewport,
            options: self.options,
            ..Self::new()
        };
    }

    /// Set how cells render (expanded or not); every cell is laid out again.
    pub fn set_options(&mut self, options: RenderOptions) {
        if options != self.options {
            self.options = options;
            if !self.entries.is_empty() {
                for entry in &mut self.entries {
                    entry.dirty = true;
                }
                self.dirty_from = Some(0);
            }
        }
    }

    /// Current render options.
    pub fn options(&self) -> RenderOptions {
        self.options
    }

    /// Lay out changed cells for `width` and remember the viewport height.
    pub fn prepare(&mut self, width: u16, viewport: u16) {
        self.viewport = viewport;
        // Scrolled up and the width changes: every line number moves, so remember the cell
        // (and line in it) at the top and find it again after re-wrapping.
        let mut anchor = None;
        if width != self.width {
            if let Scroll::Top(_) = self.scroll {
                let top = self.top();
                let index = self.starts.partition_point(|&s| s <= top).saturating_sub(1);
                let offset = top.saturating_sub(self.starts.get(index).copied().unwrap_or(0));
                anchor = Some((index, offset));
            }
            self.width = width;
            for entry in &mut self.entries {
                entry.dirty = true;
            }
            if !self.entries.is_empty() {
                self.dirty_from = Some(0);
            }
        }
        let Some(from) = self.dirty_from.take() else {
            self.apply_reveal();
            return;
        };
        let mut line = if from == 0 { 0 } else { self.starts[from] };
        for (index, entry) in self.entries.iter_mut().enumerate().skip(from) {
            if entry.dirty {
                entry.lines = entry.cell.display_lines(width, self.options);
                entry.dirty = false;
            }
            self.starts[index] = line;
            line += entry.height();
        }
        self.total = line;
        if let Some((index, offset)) = anchor
            && let Some(entry) = self.entries.get(index)
        {
            let offset = offset.min(entry.height().saturating_sub(1));
            self.scroll = Scroll::Top(self.starts[index] + offset);
        }
        self.apply_reveal();
    }

    /// Bring the cell at `index` to the top of the view (as far as the transcript reaches),
    /// once it is laid out: a plan opened from /plans is read from its heading.
    pub fn reveal(&mut self, index: usize) {
        self.reveal = Some(index);
    }

    fn apply_reveal(&mut self) {
        let Some(index) = self.reveal.take() else {
            return;
        };
        if let Some(&start) = self.starts.get(index) {
            self.scroll = if start >= self.max_top() {
                Scroll::Follow
            } else {
                Scroll::Top(start)
            };
        }
    }

    /// Total lines after layout.
    pub fn total_lines(&self) -> usize {
        self.total
    }

    fn max_top(&self) -> usize {
        self.total.saturating_sub(usize::from(self.viewport))
    }

    /// The first line in view.
    pub fn top(&self) -> usize {
        match self.scroll {
            Scroll::Follow => self.max_top(),
            Scroll::Top(top) => top.min(self.max_top()),
        }
    }

    /// Lines below the viewport (0 while following the bottom).
    pub fn lines_below(&self) -> usize {
        self.total
            .saturating_sub(self.top() + usize::from(self.viewport))
    }

    /// True while new output stays in view.
    pub fn is_following(&self) -> bool {
        self.scroll == Scroll::Follow
    }

    /// Scroll up by `n` lines.
    pub fn scroll_up(&mut self, n: usize) {
        self.reveal = None;
        self.scroll = Scroll::Top(self.top().saturating_sub(n));
    }

    /// Scroll down by `n` lines; reaching the bottom follows new output again.
    pub fn scroll_down(&mut self, n: usize) {
        self.reveal = None;
        let top = self.top() + n;
        self.scroll = if top >= self.max_top() {
            Scroll::Follow
        } else {
            Scroll::Top(top)
        };
    }

    /// Jump to the first line.
    pub fn scroll_to_top(&mut self) {
        self.reveal = None;
        self.scroll = if self.max_top() == 0 {
            Scroll::Follow
        } else {
            Scroll::Top(0)
        };
    }

    /// Jump to the bottom and follow new output.
    pub fn scroll_to_bottom(&mut self) {
        self.reveal = None;
        self.scroll = Scroll::Follow;
    }

    /// Page size for PgUp/PgDn.
    pub fn page(&self) -> usize {
        usize::from(self.viewport.saturating_sub(2)).max(1)
    }

    /// Draw the visible lines into `area`. Layout must be current ([`Transcript::prepare`]).
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 || self.entries.is_empty() {
            return;
        }
        let top = self.top();
        // The last entry starting at or before `top`.
        let mut index = self.starts.partition_point(|&s| s <= top).saturating_sub(1);
        let mut y = area.y;
        let bottom = area.y + area.height;
        let mut offset = top.saturating_sub(self.starts.get(index).copied().unwrap_or(0));
        while y < bottom && index < self.entries.len() {
            let entry = &self.entries[index];
            let height = entry.height();
            while offset < height && y < bottom {
                if let Some(line) = entry.lines.get(offset) {
                    buf.set_line(area.x, y, line, area.width);
                }
                offset += 1;
                y += 1;
            }
            index += 1;
            offset = 0;
        }
        let below = self.lines_below();
        if below > 0 {
            let text = crate::strings::lines_below(below);
            let width = text.chars().count() as u16;
            if width < area.width {
                let x = area.x + area.width - width;
                buf.set_line(
                    x,
                    bottom - 1,
                    &Line::from(Span::styled(text, theme::key_hint().patch(theme::bold()))),
                    width,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transcript_with(n: usize) -> Transcript {
        let mut t = Transcript::new();
        for i in 0..n {
            t.push(HistoryCell::Notice(format!("notice {i}")));
        }
        t.prepare(40, 10);
        t
    }

    fn screen(t: &Transcript) -> Vec<String> {
        let area = Rect::new(0, 0, 40, 10);
        let mut buf = Buffer::empty(area);
        t.render(area, &mut buf);
        (0..10)
            .map(|y| {
                (0..40)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn follows_the_bottom_until_scrolled_up() {
        let mut t = transcript_with(20);
        assert_eq!(t.total_lines(), 40);
        assert!(screen(&t)[8].contains("notice 19"));
        t.scroll_up(10);
        assert!(!t.is_following());
        let top_before = t.top();
        t.push(HistoryCell::Notice("new".into()));
        t.prepare(40, 10);
        assert_eq!(
            t.top(),
            top_before,
            "scrolled view stays put while output grows"
        );
        t.scroll_down(1000);
        assert!(t.is_following());
        assert!(screen(&t)[8].contains("new"));
    }

    #[test]
    fn home_and_end_jump() {
        let mut t = transcript_with(20);
        t.scroll_to_top();
        assert_eq!(screen(&t)[0], "• notice 0");
        t.scroll_to_bottom();
        assert!(t.is_following());
    }

    #[test]
    fn changed_cells_are_laid_out_again_and_resize_rewraps() {
        let mut t = transcript_with(2);
        if let Some(HistoryCell::Notice(text)) = t.cell_mut(0) {
            *text = "a much longer notice that will need to wrap at this width".into();
        }
        t.prepare(40, 10);
        assert_eq!(t.total_lines(), 3 + 2);
        t.prepare(20, 10);
        assert!(t.total_lines() > 5);
    }

    #[test]
    fn resizing_while_scrolled_up_keeps_the_same_text_at_the_top() {
        let mut t = Transcript::new();
        for i in 0..30 {
            t.push(HistoryCell::Notice(format!(
                "notice {i} with enough words to wrap onto more lines when narrow"
            )));
        }
        t.prepare(80, 10);
        t.scroll_to_top();
        t.scroll_down(20);
        let before = screen(&t)[0].clone();
        assert!(before.starts_with("• notice 10 "), "{before}");
        t.prepare(30, 10);
        let after = screen(&t);
        assert!(after[0].starts_with("• notice 10 "), "{after:?}");
        t.prepare(80, 10);
        assert_eq!(screen(&t)[0], before);
        assert!(!t.is_following());
    }

    #[test]
    fn a_revealed_cell_comes_to_the_top_once_laid_out() {
        let mut t = transcript_with(20);
        let index = t.push(HistoryCell::Notice("heading".into()));
        for i in 0..20 {
            t.push(HistoryCell::Notice(format!("body {i}")));
        }
        t.reveal(index);
        t.prepare(40, 10);
        assert_eq!(screen(&t)[0], "• heading");
        assert!(!t.is_following());
        // Near the end there is nothing to scroll: the view keeps following.
        let last = t.push(HistoryCell::Notice("short".into()));
        t.reveal(last);
        t.prepare(40, 10);
        assert!(t.is_following());
    }
}

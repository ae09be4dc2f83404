//! The slash-command popup above the composer: fuzzy-filtered as you type.

use crate::slash::{self, SlashCommand};
use crate::strings;
use crate::theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Rows the popup shows at most.
const MAX_ROWS: usize = 10;

/// The popup state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlashPopup {
    matches: Vec<SlashCommand>,
    selected: usize,
}

impl SlashPopup {
    /// The popup for composer text `text`, or `None` when it is not a command being typed.
    pub fn for_text(text: &str) -> Option<Self> {
        let query = text.strip_prefix('/')?;
        if query.contains(char::is_whitespace) || query.contains('/') {
            return None;
        }
        Some(Self {
            matches: slash::filter(query),
            selected: 0,
        })
    }

    /// Update to new composer text, keeping the selection when it still matches.
    pub fn update(&mut self, text: &str) -> bool {
        let Some(next) = Self::for_text(text) else {
            return false;
        };
        let keep = self.selected_command();
        self.matches = next.matches;
        self.selected = keep
            .and_then(|cmd| self.matches.iter().position(|&m| m == cmd))
            .unwrap_or(0);
        true
    }

    /// The highlighted command.
    pub fn selected_command(&self) -> Option<SlashCommand> {
        self.matches.get(self.selected).copied()
    }

    /// Matching commands, best first.
    pub fn matches(&self) -> &[SlashCommand] {
        &self.matches
    }

    /// Move the highlight.
    pub fn move_selection(&mut self, down: bool) {
        if self.matches.is_empty() {
            return;
        }
        let n = self.matches.len();
        self.selected = if down {
            (self.selected + 1) % n
        } else {
            (self.selected + n - 1) % n
        };
    }

    /// Rows needed.
    pub fn desired_height(&self) -> u16 {
        self.matches.len().clamp(1, MAX_ROWS) as u16
    }

    /// Draw.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        if self.matches.is_empty() {
            buf.set_line(
                area.x,
                area.y,
                &Line::from(Span::styled(strings::NO_MATCHING_COMMAND, theme::dim())),
                area.width,
            );
            return;
        }
        // Keep the highlight in the rows the layout could give (fewer than asked for when
        // the terminal is short).
        let rows = usize::from(area.height).clamp(1, MAX_ROWS);
        let start = self.selected.saturating_sub(rows - 1);
        for (row, (i, cmd)) in self
            .matches
            .iter()
            .enumerate()
            .skip(start)
            .take(usize::from(area.height))
            .enumerate()
        {
            let selected = i == self.selected;
            let name_style = if selected {
                theme::selected()
            } else {
                Style::new()
            };
            let marker = if selected { "› " } else { "  " };
            let line = Line::from(vec![
                Span::styled(marker, theme::selected()),
                Span::styled(format!("/{:<11}", cmd.name()), name_style),
                Span::styled(cmd.description(), theme::dim()),
            ]);
            buf.set_line(area.x, area.y + row as u16, &line, area.width);
        }
    }
}

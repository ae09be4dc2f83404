//! The popup above the composer: slash commands or `@` files, never both at once.

use super::file_popup::FilePopup;
use super::slash_popup::SlashPopup;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// Which popup is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Popup {
    /// Completing a slash command.
    Slash(SlashPopup),
    /// Completing a file after `@`.
    File(FilePopup),
}

impl Popup {
    /// Rows needed.
    pub fn desired_height(&self) -> u16 {
        match self {
            Self::Slash(popup) => popup.desired_height(),
            Self::File(popup) => popup.desired_height(),
        }
    }

    /// Draw.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        match self {
            Self::Slash(popup) => popup.render(area, buf),
            Self::File(popup) => popup.render(area, buf),
        }
    }
}

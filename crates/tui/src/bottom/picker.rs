//! What the pickers (sessions, models) share: a filter typed over a list, the selection kept
//! in view, and the framed box with its filter line. Each picker keeps what it lists, how it
//! matches and how a row looks.

use crate::strings;
use crate::theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};
use unicode_width::UnicodeWidthStr;

/// The filter and the selection over a picker's items.
#[derive(Debug, Default)]
pub struct FilteredList {
    /// What the user typed.
    pub query: String,
    /// Indices of the items matching `query`, in the order shown.
    pub matches: Vec<usize>,
    /// Index into `matches`.
    pub selected: usize,
    /// First match shown.
    pub scroll: usize,
}

/// What a key did to a [`FilteredList`].
#[derive(Debug, PartialEq, Eq)]
pub enum ListKey {
    /// The filter text changed: the picker matches again.
    QueryChanged,
    /// The selection moved (or the key needed nothing).
    Handled,
    /// Not a filter or movement key: the picker's own (Enter, Esc, …).
    Unhandled,
}

impl FilteredList {
    /// Typing, Backspace and Ctrl+U edit the filter; arrows, PgUp/PgDn, Home and End move.
    pub fn handle_key(&mut self, key: KeyEvent) -> ListKey {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('u') if ctrl => {
                self.query.clear();
                return ListKey::QueryChanged;
            }
            KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => {
                self.query.push(c);
                return ListKey::QueryChanged;
            }
            KeyCode::Backspace if self.query.pop().is_some() => return ListKey::QueryChanged,
            KeyCode::Backspace => {}
            KeyCode::Up => self.move_by(-1),
            KeyCode::Down => self.move_by(1),
            KeyCode::PageUp => self.move_by(-10),
            KeyCode::PageDown => self.move_by(10),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.move_by(isize::MAX),
            _ => return ListKey::Unhandled,
        }
        ListKey::Handled
    }

    /// New matches: the selection starts over at the best one.
    pub fn set_matches(&mut self, matches: Vec<usize>) {
        self.matches = matches;
        self.selected = 0;
        self.scroll = 0;
    }

    /// Move the selection by `delta` rows, within the matches.
    pub fn move_by(&mut self, delta: isize) {
        let last = self.matches.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
    }

    /// The selected item's index, if anything matches.
    pub fn highlighted(&self) -> Option<usize> {
        self.matches.get(self.selected).copied()
    }

    /// Scroll so the selection is among the `visible` rows shown.
    pub fn keep_in_view(&mut self, visible: usize) {
        if self.selected < self.scroll {
            self.scroll = self.selected;
        } else if self.selected >= self.scroll + visible {
            self.scroll = self.selected + 1 - visible;
        }
    }

    /// The first match to draw in `visible` rows: the kept scroll, clamped again in case the
    /// area shrank since it was kept.
    pub fn first_shown(&self, visible: usize) -> usize {
        self.scroll
            .min(self.selected)
            .max((self.selected + 1).saturating_sub(visible))
    }
}

/// A picker's frame, titled `title`.
pub fn block(title: &str) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme::review_border())
        .title(Span::styled(
            format!(" {title} "),
            theme::review_border().patch(theme::bold()),
        ))
}

/// "Filter: <text>" with `count` ("3 of 12") flush right, `width` columns wide. `text` gets
/// the columns left for the filter text (or the placeholder).
pub fn filter_line(
    count: String,
    width: usize,
    text: impl FnOnce(usize) -> Vec<Span<'static>>,
) -> Line<'static> {
    let label = strings::PICKER_FILTER_LABEL;
    let mut spans = vec![Span::styled(label, theme::key_hint())];
    let room = width.saturating_sub(label.width() + count.width() + 2);
    spans.extend(text(room));
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    if !count.is_empty() && used + count.width() < width {
        spans.push(Span::raw(" ".repeat(width - used - count.width())));
        spans.push(Span::styled(count, theme::dim()));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn keys_edit_the_filter_or_move_within_the_matches() {
        let mut list = FilteredList::default();
        list.set_matches(vec![4, 7, 9]);
        assert_eq!(
            list.handle_key(key(KeyCode::Char('a'))),
            ListKey::QueryChanged
        );
        assert_eq!(list.handle_key(key(KeyCode::End)), ListKey::Handled);
        assert_eq!(list.highlighted(), Some(9));
        assert_eq!(list.handle_key(key(KeyCode::Down)), ListKey::Handled);
        assert_eq!(list.selected, 2, "stays on the last match");
        assert_eq!(
            list.handle_key(key(KeyCode::Backspace)),
            ListKey::QueryChanged
        );
        assert_eq!(list.handle_key(key(KeyCode::Backspace)), ListKey::Handled);
        assert_eq!(list.handle_key(key(KeyCode::Enter)), ListKey::Unhandled);
        list.keep_in_view(2);
        assert_eq!((list.scroll, list.first_shown(1)), (1, 2));
    }
}

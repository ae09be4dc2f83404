//! The composer: ratatui-textarea behind our own type, so the rest of the app sees only
//! "submitted", "changed" or "not mine".

use crate::strings;
use crate::theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::Widget;
use ratatui_textarea::{CursorMove, TextArea, WrapMode};
use unicode_width::UnicodeWidthStr;

/// Most rows the composer grows to.
const MAX_ROWS: u16 = 10;
/// Width of the `› ` prompt column.
const PROMPT_WIDTH: u16 = 2;

/// What the composer did with a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerResult {
    /// Enter with text: the text, already cleared from the composer.
    Submitted(String),
    /// The key was used (text or cursor changed).
    Handled,
    /// Not a composer key.
    Ignored,
}

/// The word being typed: where it starts and its text up to the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorWord {
    /// Line of the cursor.
    pub row: usize,
    /// Character column where the word starts.
    pub start: usize,
    /// The word's characters before the cursor.
    pub text: String,
}

/// The message input.
pub struct Composer {
    textarea: TextArea<'static>,
    /// Earlier submissions, oldest first.
    history: Vec<String>,
    /// Position while browsing history.
    history_index: Option<usize>,
    /// What was typed before browsing started.
    draft: String,
}

impl Default for Composer {
    fn default() -> Self {
        Self::new()
    }
}

impl Composer {
    /// An empty composer.
    pub fn new() -> Self {
        Self {
            textarea: new_textarea(Vec::new()),
            history: Vec::new(),
            history_index: None,
            draft: String::new(),
        }
    }

    /// The text.
    pub fn text(&self) -> String {
        self.textarea.lines().join("\n")
    }

    /// True when nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.textarea.is_empty()
    }

    /// Replace the text, cursor at the end.
    pub fn set_text(&mut self, text: &str) {
        let lines = text.split('\n').map(str::to_string).collect();
        self.textarea = new_textarea(lines);
        self.textarea.move_cursor(CursorMove::Bottom);
        self.textarea.move_cursor(CursorMove::End);
    }

    /// Remove all text.
    pub fn clear(&mut self) {
        self.set_text("");
        self.history_index = None;
    }

    /// Insert pasted text as one edit, however large.
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.textarea.insert_str(text);
        self.history_index = None;
    }

    /// The run of non-whitespace characters that ends at the cursor (empty right after
    /// whitespace), for completing the word being typed.
    pub fn word_before_cursor(&self) -> CursorWord {
        let (row, col) = (self.textarea.cursor().0, self.textarea.cursor().1);
        let line = self.textarea.lines().get(row).map_or("", String::as_str);
        let before: Vec<char> = line.chars().take(col).collect();
        let start = before
            .iter()
            .rposition(|c| c.is_whitespace())
            .map_or(0, |i| i + 1);
        CursorWord {
            row,
            start,
            text: before[start..].iter().collect(),
        }
    }

    /// Replace `word` and whatever non-whitespace follows it on its line (the rest of the
    /// word the cursor is in) with `text`, leaving the cursor after it. Returns false when
    /// `word` no longer fits the text.
    pub fn replace_word(&mut self, word: &CursorWord, text: &str) -> bool {
        let Some(line) = self.textarea.lines().get(word.row) else {
            return false;
        };
        let len = line
            .chars()
            .skip(word.start)
            .take_while(|c| !c.is_whitespace())
            .count();
        // A completion's trailing space is not doubled when a space already follows.
        let space_follows = line
            .chars()
            .nth(word.start + len)
            .is_some_and(char::is_whitespace);
        let (text, step_over) = match text.strip_suffix(' ') {
            Some(trimmed) if space_follows => (trimmed, true),
            _ => (text, false),
        };
        // Cursor positions are u16 in the textarea's API.
        let (Ok(row), Ok(col)) = (u16::try_from(word.row), u16::try_from(word.start)) else {
            return false;
        };
        self.textarea.move_cursor(CursorMove::Jump(row, col));
        self.textarea.delete_str(len);
        self.textarea.insert_str(text);
        if step_over {
            self.textarea.move_cursor(CursorMove::Forward);
        }
        self.history_index = None;
        true
    }

    /// Remember a submitted message for Up/Down recall.
    pub fn remember(&mut self, text: &str) {
        if self.history.last().map(String::as_str) != Some(text) && !text.trim().is_empty() {
            self.history.push(text.to_string());
        }
        self.history_index = None;
    }

    /// Handle a key.
    pub fn handle_key(&mut self, key: KeyEvent) -> ComposerResult {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let newline = key
            .modifiers
            .intersects(KeyModifiers::SHIFT | KeyModifiers::ALT);
        match key.code {
            KeyCode::Enter if !newline && !ctrl => {
                let text = self.text();
                if text.trim().is_empty() {
                    return ComposerResult::Handled;
                }
                self.remember(&text);
                self.clear();
                ComposerResult::Submitted(text)
            }
            KeyCode::Enter => {
                self.textarea.insert_newline();
                ComposerResult::Handled
            }
            KeyCode::Char('j') if ctrl => {
                self.textarea.insert_newline();
                ComposerResult::Handled
            }
            KeyCode::Up if key.modifiers.is_empty() && self.textarea.cursor().0 == 0 => {
                self.recall_older();
                ComposerResult::Handled
            }
            KeyCode::Down
                if key.modifiers.is_empty()
                    && self.textarea.cursor().0 + 1 >= self.textarea.lines().len() =>
            {
                self.recall_newer();
                ComposerResult::Handled
            }
            // Keys the app owns even while typing.
            KeyCode::Esc | KeyCode::PageUp | KeyCode::PageDown | KeyCode::Tab => {
                ComposerResult::Ignored
            }
            KeyCode::Char('c' | 't' | 'o') if ctrl => ComposerResult::Ignored,
            // Ctrl+D quits from an empty composer (the app's); with text it deletes forward.
            KeyCode::Char('d') if ctrl && self.is_empty() => ComposerResult::Ignored,
            // Shell and readline habits: Ctrl+U deletes to the start of the line; undo is
            // Ctrl+Z (redo Ctrl+R).
            KeyCode::Char('u') if ctrl => {
                self.textarea.delete_line_by_head();
                ComposerResult::Handled
            }
            KeyCode::Char('z') if ctrl => {
                self.textarea.undo();
                ComposerResult::Handled
            }
            _ => {
                self.textarea.input(key);
                ComposerResult::Handled
            }
        }
    }

    fn recall_older(&mut self) {
        if self.history.is_empty() {
            return;
        }
        let index = match self.history_index {
            None => {
                self.draft = self.text();
                self.history.len() - 1
            }
            Some(0) => 0,
            Some(i) => i - 1,
        };
        self.history_index = Some(index);
        let text = self.history[index].clone();
        self.set_text(&text);
        self.history_index = Some(index);
    }

    fn recall_newer(&mut self) {
        let Some(index) = self.history_index else {
            return;
        };
        if index + 1 < self.history.len() {
            let text = self.history[index + 1].clone();
            self.set_text(&text);
            self.history_index = Some(index + 1);
        } else {
            let draft = std::mem::take(&mut self.draft);
            self.set_text(&draft);
            self.history_index = None;
        }
    }

    /// Rows needed at `width` (wrapped text), between 1 and 10.
    pub fn desired_height(&self, width: u16) -> u16 {
        let inner = usize::from(width.saturating_sub(PROMPT_WIDTH + 1)).max(1);
        let rows: usize = self
            .textarea
            .lines()
            .iter()
            .map(|l| l.width().div_ceil(inner).max(1))
            .sum();
        (rows as u16).clamp(1, MAX_ROWS)
    }

    /// Choose the placeholder for a composer `width` columns wide: the hint naming `/`, `@`
    /// and `!` where it fits whole, the short one otherwise (a cut-off hint reads as a bug).
    pub fn prepare(&mut self, width: u16) {
        let room = usize::from(width.saturating_sub(PROMPT_WIDTH + 1));
        let text = if strings::COMPOSER_PLACEHOLDER.width() <= room {
            strings::COMPOSER_PLACEHOLDER
        } else {
            strings::COMPOSER_PLACEHOLDER_SHORT
        };
        if self.textarea.placeholder_text() != text {
            self.textarea.set_placeholder_text(text);
        }
    }

    /// Draw the prompt and the text.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        if area.width <= PROMPT_WIDTH || area.height == 0 {
            return;
        }
        buf.set_span(
            area.x,
            area.y,
            &Span::styled("› ", theme::prompt_glyph()),
            PROMPT_WIDTH,
        );
        let text_area = Rect {
            x: area.x + PROMPT_WIDTH,
            width: area.width - PROMPT_WIDTH,
            ..area
        };
        (&self.textarea).render(text_area, buf);
    }
}

fn new_textarea(lines: Vec<String>) -> TextArea<'static> {
    let mut textarea = TextArea::new(lines);
    textarea.set_wrap_mode(WrapMode::WordOrGlyph);
    textarea.set_cursor_line_style(Style::new());
    textarea.set_placeholder_text(strings::COMPOSER_PLACEHOLDER);
    textarea.set_placeholder_style(theme::dim());
    textarea
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn type_str(c: &mut Composer, s: &str) {
        for ch in s.chars() {
            c.handle_key(key(KeyCode::Char(ch)));
        }
    }

    #[test]
    fn enter_submits_and_shift_enter_adds_a_line() {
        let mut c = Composer::new();
        type_str(&mut c, "hi");
        c.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT));
        c.handle_key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::CONTROL));
        type_str(&mut c, "there");
        assert_eq!(c.text(), "hi\n\nthere");
        assert_eq!(
            c.handle_key(key(KeyCode::Enter)),
            ComposerResult::Submitted("hi\n\nthere".into())
        );
        assert!(c.is_empty());
        assert_eq!(c.handle_key(key(KeyCode::Enter)), ComposerResult::Handled);
    }

    #[test]
    fn up_and_down_recall_history_and_restore_the_draft() {
        let mut c = Composer::new();
        for m in ["first", "second"] {
            type_str(&mut c, m);
            c.handle_key(key(KeyCode::Enter));
        }
        type_str(&mut c, "draft");
        c.handle_key(key(KeyCode::Up));
        assert_eq!(c.text(), "second");
        c.handle_key(key(KeyCode::Up));
        assert_eq!(c.text(), "first");
        c.handle_key(key(KeyCode::Down));
        assert_eq!(c.text(), "second");
        c.handle_key(key(KeyCode::Down));
        assert_eq!(c.text(), "draft");
    }

    #[test]
    fn paste_is_one_edit() {
        let mut c = Composer::new();
        let big = "line\n".repeat(1000);
        c.paste(&big);
        assert_eq!(c.text(), big);
        c.handle_key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL));
        assert!(c.is_empty(), "one undo removes the whole paste");
    }

    #[test]
    fn ctrl_u_deletes_to_the_start_of_the_line_and_ctrl_z_undoes_it() {
        let mut c = Composer::new();
        type_str(&mut c, "first line");
        c.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT));
        type_str(&mut c, "second line");
        for _ in 0.."line".len() {
            c.handle_key(key(KeyCode::Left));
        }
        c.handle_key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert_eq!(c.text(), "first line\nline");
        c.handle_key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL));
        assert_eq!(c.text(), "first line\nsecond line");
    }

    #[test]
    fn the_word_before_the_cursor_is_replaced_whole() {
        let mut c = Composer::new();
        type_str(&mut c, "see @src/ma");
        c.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT));
        type_str(&mut c, "and @mainXY tail");
        for _ in 0.."XY tail".len() {
            c.handle_key(key(KeyCode::Left));
        }
        let word = c.word_before_cursor();
        assert_eq!(
            word,
            CursorWord {
                row: 1,
                start: 4,
                text: "@main".into()
            }
        );
        assert!(c.replace_word(&word, "src/main.rs "));
        assert_eq!(c.text(), "see @src/ma\nand src/main.rs tail");
        assert_eq!(c.word_before_cursor().text, "");
        c.handle_key(key(KeyCode::Home));
        assert_eq!(c.word_before_cursor().text, "");
    }

    #[test]
    fn ctrl_d_deletes_forward_in_text_and_is_the_apps_when_empty() {
        let mut c = Composer::new();
        let ctrl_d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL);
        assert_eq!(c.handle_key(ctrl_d), ComposerResult::Ignored);
        type_str(&mut c, "ab");
        c.handle_key(key(KeyCode::Left));
        assert_eq!(c.handle_key(ctrl_d), ComposerResult::Handled);
        assert_eq!(c.text(), "a");
    }
}

//! The ask_user_question overlay: one question at a time; an option is chosen with the arrow
//! keys or its number (a digit alone in the input), anything else typed is the answer.
//!
//! A digit never answers by itself: "2 tries" typed quickly must stay a typed answer, so the
//! choice is made on Enter, when the whole input is one digit.

use super::{View, ViewResult};
use crate::app_event::{AppEvent, AppEventSender};
use crate::strings;
use crate::theme;
use crate::wrap::wrap_text;
use cairn_protocol::UserQuestion;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use std::any::Any;

/// The overlay.
pub struct QuestionView {
    call_id: String,
    questions: Vec<UserQuestion>,
    answers: Vec<String>,
    input: String,
    /// The option the arrow keys point at in the current question.
    selected: usize,
}

impl QuestionView {
    /// An overlay for the questions of call `call_id`.
    pub fn new(call_id: String, questions: Vec<UserQuestion>) -> Self {
        Self {
            call_id,
            questions,
            answers: Vec::new(),
            input: String::new(),
            selected: 0,
        }
    }

    /// The option Enter would choose: the one whose number is the whole input, else (input
    /// empty) the one the arrows point at; `None` while a free answer is typed.
    fn chosen(&self) -> Option<usize> {
        let options = self.current()?.options.len();
        if options == 0 {
            return None;
        }
        if self.input.is_empty() {
            return Some(self.selected.min(options - 1));
        }
        let mut chars = self.input.chars();
        match (chars.next(), chars.next()) {
            (Some(d @ '1'..='9'), None) => {
                let index = (d as usize) - ('1' as usize);
                (index < options).then_some(index)
            }
            _ => None,
        }
    }

    fn current(&self) -> Option<&UserQuestion> {
        self.questions.get(self.answers.len())
    }

    /// Arrows move among the options while no free answer is typed (a lone digit was a
    /// choice, so it gives way to the arrows).
    fn move_selection(&mut self, down: bool) {
        let options = self.current().map_or(0, |q| q.options.len());
        let Some(from) = self.chosen() else {
            return;
        };
        self.selected = if down {
            (from + 1) % options
        } else {
            (from + options - 1) % options
        };
        self.input.clear();
    }

    fn answer(&mut self, answer: String, tx: &AppEventSender) -> ViewResult {
        self.answers.push(answer);
        self.input.clear();
        self.selected = 0;
        if self.answers.len() < self.questions.len() {
            return ViewResult::Consumed;
        }
        tx.send(AppEvent::QuestionsAnswered {
            call_id: self.call_id.clone(),
            questions: self.questions.iter().map(|q| q.question.clone()).collect(),
            answers: std::mem::take(&mut self.answers),
        });
        ViewResult::Close
    }

    fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let Some(question) = self.current() else {
            return Vec::new();
        };
        let mut lines = wrap_text(&question.question, theme::bold(), width, &[], &[]);
        let chosen = self.chosen();
        for (i, option) in question.options.iter().enumerate() {
            let (marker, style) = if chosen == Some(i) {
                ("› ", theme::selected())
            } else {
                ("  ", Style::new())
            };
            lines.extend(wrap_text(
                option,
                style,
                width,
                &[
                    Span::styled(marker, theme::selected()),
                    Span::styled(format!("{}. ", i + 1), theme::selected()),
                ],
                &[Span::raw("     ")],
            ));
        }
        lines.push(Line::default());
        lines.extend(wrap_text(
            &format!("{}▏", self.input),
            Style::new(),
            width,
            &[Span::styled("› ", theme::prompt_glyph())],
            &[Span::raw("  ")],
        ));
        let footer = if question.options.is_empty() {
            strings::QUESTION_FOOTER_FREE
        } else {
            strings::QUESTION_FOOTER_OPTIONS
        };
        lines.extend(wrap_text(footer, theme::key_hint(), width, &[], &[]));
        lines
    }
}

impl View for QuestionView {
    fn handle_key(&mut self, key: KeyEvent, tx: &AppEventSender) -> ViewResult {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let options = self
            .current()
            .map(|q| q.options.clone())
            .unwrap_or_default();
        match key.code {
            // Ctrl+C interrupts the task: let the app have it.
            KeyCode::Char('c') if ctrl => ViewResult::Ignored,
            KeyCode::Up => {
                self.move_selection(false);
                ViewResult::Consumed
            }
            KeyCode::Down | KeyCode::Tab => {
                self.move_selection(true);
                ViewResult::Consumed
            }
            KeyCode::Enter => {
                if let Some(option) = self.chosen().and_then(|i| options.get(i)) {
                    return self.answer(option.clone(), tx);
                }
                let typed = self.input.trim().to_string();
                if typed.is_empty() {
                    ViewResult::Consumed
                } else {
                    self.answer(typed, tx)
                }
            }
            KeyCode::Esc => self.answer(strings::QUESTION_SKIPPED.to_string(), tx),
            KeyCode::Backspace => {
                self.input.pop();
                ViewResult::Consumed
            }
            KeyCode::Char(c) if !ctrl => {
                self.input.push(c);
                ViewResult::Consumed
            }
            _ => ViewResult::Consumed,
        }
    }

    fn handle_paste(&mut self, text: &str) -> ViewResult {
        self.input.push_str(&text.replace(['\n', '\r'], " "));
        ViewResult::Consumed
    }

    fn desired_height(&self, width: u16, max: u16) -> u16 {
        let inner = usize::from(width.saturating_sub(4)).max(8);
        ((self.lines(inner).len() + 2) as u16).min(max)
    }

    fn render(&self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let title = strings::question_title(self.answers.len(), self.questions.len());
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::overlay_border())
            .title(Span::styled(
                format!(" {title} "),
                theme::overlay_border().patch(theme::bold()),
            ));
        let inner = block.inner(area);
        block.render(area, buf);
        let inner = Rect {
            x: inner.x + 1,
            width: inner.width.saturating_sub(2),
            ..inner
        };
        let lines = self.lines(usize::from(inner.width).max(8));
        let skip = lines.len().saturating_sub(usize::from(inner.height));
        for (i, line) in lines.iter().skip(skip).enumerate() {
            buf.set_line(inner.x, inner.y + i as u16, line, inner.width);
        }
    }

    fn belongs_to_task(&self) -> bool {
        true
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

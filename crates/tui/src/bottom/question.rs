//! The ask_user_question overlay: one question at a time, options by number keys or a typed
//! answer.

use super::{View, ViewResult};
use crate::app_event::{AppEvent, AppEventSender};
use crate::strings;
use crate::theme;
use crate::wrap::wrap_text;
use cairn_protocol::{Op, UserQuestion};
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
}

impl QuestionView {
    /// An overlay for the questions of call `call_id`.
    pub fn new(call_id: String, questions: Vec<UserQuestion>) -> Self {
        Self {
            call_id,
            questions,
            answers: Vec::new(),
            input: String::new(),
        }
    }

    fn current(&self) -> Option<&UserQuestion> {
        self.questions.get(self.answers.len())
    }

    fn answer(&mut self, answer: String, tx: &AppEventSender) -> ViewResult {
        self.answers.push(answer);
        self.input.clear();
        if self.answers.len() < self.questions.len() {
            return ViewResult::Consumed;
        }
        tx.send(AppEvent::Op(Op::UserQuestionAnswer {
            call_id: self.call_id.clone(),
            answers: std::mem::take(&mut self.answers),
        }));
        ViewResult::Close
    }

    fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let Some(question) = self.current() else {
            return Vec::new();
        };
        let mut lines = wrap_text(&question.question, theme::bold(), width, &[], &[]);
        for (i, option) in question.options.iter().enumerate() {
            lines.extend(wrap_text(
                option,
                Style::new(),
                width,
                &[Span::styled(format!("  {}. ", i + 1), theme::selected())],
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
            KeyCode::Char(d @ '1'..='9') if self.input.is_empty() && !options.is_empty() => {
                let index = (d as usize) - ('1' as usize);
                match options.get(index) {
                    Some(option) => self.answer(option.clone(), tx),
                    None => ViewResult::Consumed,
                }
            }
            KeyCode::Enter => {
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

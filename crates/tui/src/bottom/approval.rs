//! The approval overlay for exec and patch requests. Requests that arrive while one is open
//! queue behind it.

use super::{View, ViewResult};
use crate::app_event::{AppEvent, AppEventSender};
use crate::history::tool::diff_lines;
use crate::strings;
use crate::theme;
use crate::wrap::wrap_text;
use cairn_protocol::{Op, ReviewDecision};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use std::any::Any;
use std::collections::VecDeque;
use std::path::PathBuf;

/// Most diff lines shown in the overlay (the transcript has the whole diff).
const MAX_DIFF_LINES: usize = 200;

/// What needs approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalKind {
    /// A command.
    Exec {
        /// The command.
        command: String,
        /// Where it would run.
        cwd: PathBuf,
    },
    /// File changes.
    Patch {
        /// Unified diff.
        diff: String,
    },
}

/// One approval request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// The call waiting for the answer.
    pub call_id: String,
    /// The describe() sentence.
    pub description: String,
    /// Command or diff.
    pub kind: ApprovalKind,
}

/// The overlay.
pub struct ApprovalView {
    queue: VecDeque<ApprovalRequest>,
    /// Some while the user types a denial message.
    feedback: Option<String>,
}

impl ApprovalView {
    /// An overlay showing `request`.
    pub fn new(request: ApprovalRequest) -> Self {
        Self {
            queue: VecDeque::from([request]),
            feedback: None,
        }
    }

    /// Queue another request behind the open one.
    pub fn enqueue(&mut self, request: ApprovalRequest) {
        self.queue.push_back(request);
    }

    /// Requests waiting, including the one shown.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    fn decide(&mut self, decision: ReviewDecision, tx: &AppEventSender) -> ViewResult {
        self.feedback = None;
        let Some(request) = self.queue.pop_front() else {
            return ViewResult::Close;
        };
        let abort = decision == ReviewDecision::Abort;
        let call_id = request.call_id;
        let op = match request.kind {
            ApprovalKind::Exec { .. } => Op::ExecApproval { call_id, decision },
            ApprovalKind::Patch { .. } => Op::PatchApproval { call_id, decision },
        };
        tx.send(AppEvent::Op(op));
        if abort {
            // The task stops; the calls behind this one will never run.
            self.queue.clear();
        }
        if self.queue.is_empty() {
            ViewResult::Close
        } else {
            ViewResult::Consumed
        }
    }

    fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let Some(request) = self.queue.front() else {
            return Vec::new();
        };
        let mut lines = wrap_text(&request.description, theme::bold(), width, &[], &[]);
        lines.push(Line::default());
        match &request.kind {
            ApprovalKind::Exec { command, cwd } => {
                lines.extend(wrap_text(
                    command,
                    Style::new(),
                    width,
                    &[Span::styled("$ ", theme::dim())],
                    &[Span::raw("  ")],
                ));
                lines.extend(wrap_text(
                    &strings::runs_in(cwd),
                    theme::dim(),
                    width,
                    &[Span::raw("  ")],
                    &[Span::raw("  ")],
                ));
            }
            ApprovalKind::Patch { diff } => {
                let capped: String = diff
                    .lines()
                    .take(MAX_DIFF_LINES)
                    .collect::<Vec<_>>()
                    .join("\n");
                let hidden = diff.lines().count().saturating_sub(MAX_DIFF_LINES);
                let mut d = diff_lines(&capped, width, true);
                for line in &mut d {
                    // diff_lines indents for the transcript; the overlay has its own border.
                    if let Some(first) = line.spans.first_mut()
                        && first.content == "    "
                    {
                        first.content = "".into();
                    }
                }
                lines.extend(d);
                if hidden > 0 {
                    lines.push(Line::from(Span::styled(
                        strings::more_lines(hidden),
                        theme::dim(),
                    )));
                }
            }
        }
        lines.push(Line::default());
        match &self.feedback {
            Some(text) => {
                lines.extend(wrap_text(
                    &format!("{text}▏"),
                    Style::new(),
                    width,
                    &[Span::styled(
                        strings::APPROVAL_FEEDBACK_PROMPT,
                        theme::warning(),
                    )],
                    &[],
                ));
                lines.extend(wrap_text(
                    strings::APPROVAL_FEEDBACK_KEYS,
                    theme::key_hint(),
                    width,
                    &[],
                    &[],
                ));
            }
            None => lines.extend(wrap_text(
                strings::APPROVAL_KEYS,
                theme::key_hint(),
                width,
                &[],
                &[],
            )),
        }
        lines
    }

    fn title(&self) -> String {
        let base = match self.queue.front().map(|r| &r.kind) {
            Some(ApprovalKind::Patch { .. }) => strings::APPROVE_PATCH_TITLE,
            _ => strings::APPROVE_EXEC_TITLE,
        };
        if self.queue.len() > 1 {
            format!(" {base}{} ", strings::more_waiting(self.queue.len() - 1))
        } else {
            format!(" {base} ")
        }
    }
}

impl View for ApprovalView {
    fn handle_key(&mut self, key: KeyEvent, tx: &AppEventSender) -> ViewResult {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return self.decide(ReviewDecision::Abort, tx);
        }
        if let Some(text) = &mut self.feedback {
            match key.code {
                KeyCode::Enter => {
                    let feedback = Some(text.trim().to_string()).filter(|t| !t.is_empty());
                    return self.decide(ReviewDecision::Denied { feedback }, tx);
                }
                KeyCode::Esc => return self.decide(ReviewDecision::Denied { feedback: None }, tx),
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Char(c) if !ctrl => text.push(c),
                _ => {}
            }
            return ViewResult::Consumed;
        }
        match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => self.decide(ReviewDecision::Approved, tx),
            KeyCode::Char('a') | KeyCode::Char('A') => {
                self.decide(ReviewDecision::ApprovedForSession, tx)
            }
            KeyCode::Char('n') | KeyCode::Char('N') => {
                self.feedback = Some(String::new());
                ViewResult::Consumed
            }
            KeyCode::Esc => self.decide(ReviewDecision::Denied { feedback: None }, tx),
            // Modal: nothing else reaches the composer while a decision is pending.
            _ => ViewResult::Consumed,
        }
    }

    fn handle_paste(&mut self, text: &str) -> ViewResult {
        if let Some(feedback) = &mut self.feedback {
            feedback.push_str(&text.replace(['\n', '\r'], " "));
        }
        ViewResult::Consumed
    }

    fn desired_height(&self, width: u16, max: u16) -> u16 {
        let inner = usize::from(width.saturating_sub(4)).max(8);
        ((self.lines(inner).len() + 2) as u16).min(max)
    }

    fn render(&self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::overlay_border())
            .title(Span::styled(
                self.title(),
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
        // Keep the key line visible: when the content is too tall, cut from the middle.
        let rows = usize::from(inner.height);
        let shown: Vec<&Line<'static>> = if lines.len() <= rows {
            lines.iter().collect()
        } else {
            let tail = 3.min(rows);
            let head = rows - tail;
            lines[..head]
                .iter()
                .chain(lines[lines.len() - tail..].iter())
                .collect()
        };
        for (i, line) in shown.into_iter().enumerate() {
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

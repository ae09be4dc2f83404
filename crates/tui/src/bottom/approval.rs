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
use unicode_width::UnicodeWidthStr;

/// Most diff lines shown in the overlay (the transcript has the whole diff, ctrl+o expands it).
const MAX_DIFF_LINES: usize = 2000;

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
    /// Reads outside the workspace, or of a secret.
    Read {
        /// What would be read.
        paths: Vec<PathBuf>,
    },
    /// A call of an MCP server's tool.
    Mcp {
        /// The server's config name.
        server: String,
        /// The server's name for the tool.
        tool: String,
        /// The JSON arguments.
        arguments: String,
        /// The server's `readOnlyHint`: shown, not trusted.
        read_only_hint: Option<bool>,
    },
    /// A web fetch from a host not in `[tools.web] allowed_hosts`.
    Fetch {
        /// The full URL.
        url: String,
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
    /// What `a` approves for the session, in words; `None`: `a` is not offered.
    pub for_session: Option<String>,
    /// A command prefix `p` approves for the session; `None`: `p` is not offered.
    pub session_prefix: Option<String>,
    /// Why this request is asked whatever the policy, shown in warning colours.
    pub reason: Option<String>,
}

/// The overlay. A command or diff taller than the overlay scrolls (Up/Down, PgUp/PgDn,
/// Home/End, wheel) under a fixed key line, so nothing is approved unseen.
pub struct ApprovalView {
    queue: VecDeque<ApprovalRequest>,
    /// Some while the user types a denial message.
    feedback: Option<String>,
    /// The shown request's lines, laid out in [`View::prepare`] for `body_width`.
    body: Vec<Line<'static>>,
    /// Width `body` was laid out for (0: stale).
    body_width: usize,
    /// First body line in view.
    scroll: usize,
    /// Body rows that fit in the overlay.
    body_rows: usize,
}

impl ApprovalView {
    /// An overlay showing `request`.
    pub fn new(request: ApprovalRequest) -> Self {
        Self {
            queue: VecDeque::from([request]),
            feedback: None,
            body: Vec::new(),
            body_width: 0,
            scroll: 0,
            body_rows: 0,
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
        // The next request starts at its top.
        self.body_width = 0;
        self.scroll = 0;
        let abort = decision == ReviewDecision::Abort;
        let call_id = request.call_id;
        let op = match request.kind {
            ApprovalKind::Exec { .. } => Op::ExecApproval { call_id, decision },
            ApprovalKind::Patch { .. } => Op::PatchApproval { call_id, decision },
            ApprovalKind::Read { .. } => Op::ReadApproval { call_id, decision },
            ApprovalKind::Mcp { .. } => Op::McpToolApproval { call_id, decision },
            ApprovalKind::Fetch { .. } => Op::WebFetchApproval { call_id, decision },
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

    /// The request: its sentence and the command or diff (the part that scrolls).
    fn body_lines(&self, width: usize) -> Vec<Line<'static>> {
        let Some(request) = self.queue.front() else {
            return Vec::new();
        };
        let mut lines = wrap_text(&request.description, theme::bold(), width, &[], &[]);
        if let Some(reason) = &request.reason {
            lines.extend(wrap_text(
                &strings::always_asked(reason),
                theme::warning(),
                width,
                &[],
                &[],
            ));
        }
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
            ApprovalKind::Fetch { url } => {
                // The whole URL, wrapped, never cut: a query string can carry data out.
                lines.extend(wrap_text(
                    url,
                    Style::new(),
                    width,
                    &[Span::styled(strings::READ_PATH_BULLET, theme::dim())],
                    &[Span::raw("  ")],
                ));
                lines.extend(wrap_text(
                    strings::FETCH_URL_NOTE,
                    theme::dim(),
                    width,
                    &[],
                    &[],
                ));
            }
            ApprovalKind::Read { paths } => {
                for path in paths {
                    lines.extend(wrap_text(
                        &path.display().to_string(),
                        Style::new(),
                        width,
                        &[Span::styled(strings::READ_PATH_BULLET, theme::dim())],
                        &[Span::raw("  ")],
                    ));
                }
            }
            ApprovalKind::Mcp {
                server,
                tool,
                arguments,
                read_only_hint,
            } => {
                for (label, text) in [
                    (strings::MCP_SERVER_LABEL, server.as_str()),
                    (strings::MCP_TOOL_LABEL, tool.as_str()),
                ] {
                    lines.extend(wrap_text(
                        text,
                        Style::new(),
                        width,
                        &[Span::styled(label, theme::dim())],
                        &[Span::raw("  ")],
                    ));
                }
                // Before the arguments, which may scroll: what the server claims, and that
                // it does not decide anything.
                lines.extend(wrap_text(
                    strings::mcp_read_only_hint(*read_only_hint),
                    theme::dim(),
                    width,
                    &[],
                    &[],
                ));
                lines.push(Line::from(Span::styled(
                    strings::MCP_ARGUMENTS_LABEL,
                    theme::dim(),
                )));
                for line in pretty_json(arguments).lines() {
                    lines.extend(wrap_text(
                        line,
                        Style::new(),
                        width,
                        &[Span::raw("  ")],
                        &[Span::raw("    ")],
                    ));
                }
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
        lines
    }

    /// The rows under the request that always stay in view: the keys or the feedback line.
    fn footer_lines(&self, width: usize) -> Vec<Line<'static>> {
        let mut lines = vec![Line::default()];
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
            None => {
                let request = self.queue.front();
                let keys = strings::approval_keys(
                    request.and_then(|r| r.for_session.as_deref()),
                    request.and_then(|r| r.session_prefix.as_deref()),
                );
                for line in keys {
                    lines.extend(wrap_text(&line, theme::key_hint(), width, &[], &[]));
                }
            }
        }
        lines
    }

    fn offers_session(&self) -> bool {
        self.queue.front().is_some_and(|r| r.for_session.is_some())
    }

    fn offered_prefix(&self) -> Option<String> {
        self.queue.front().and_then(|r| r.session_prefix.clone())
    }

    fn inner_width(width: u16) -> usize {
        usize::from(width.saturating_sub(4)).max(8)
    }

    fn max_scroll(&self) -> usize {
        self.body.len().saturating_sub(self.body_rows)
    }

    fn page(&self) -> i64 {
        self.body_rows.saturating_sub(1).max(1) as i64
    }

    fn scroll_by(&mut self, delta: i64) -> ViewResult {
        let next = (self.scroll as i64).saturating_add(delta).max(0) as usize;
        self.scroll = next.min(self.max_scroll());
        ViewResult::Consumed
    }

    fn title(&self) -> String {
        let base = match self.queue.front().map(|r| &r.kind) {
            Some(ApprovalKind::Patch { .. }) => strings::APPROVE_PATCH_TITLE,
            Some(ApprovalKind::Read { .. }) => strings::APPROVE_READ_TITLE,
            Some(ApprovalKind::Mcp { .. }) => strings::APPROVE_MCP_TITLE,
            Some(ApprovalKind::Fetch { .. }) => strings::APPROVE_FETCH_TITLE,
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
        // Ctrl+T (pinned plan) and Ctrl+O (expand output) stay the app's: hiding the plan
        // makes room for a long command, expanding shows the whole diff in the transcript.
        if ctrl && matches!(key.code, KeyCode::Char('t') | KeyCode::Char('o')) {
            return ViewResult::Ignored;
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
            KeyCode::Char('a') | KeyCode::Char('A') if self.offers_session() => {
                self.decide(ReviewDecision::ApprovedForSession, tx)
            }
            KeyCode::Char('p') | KeyCode::Char('P') => match self.offered_prefix() {
                Some(prefix) => {
                    self.decide(ReviewDecision::ApprovedPrefixForSession { prefix }, tx)
                }
                None => ViewResult::Consumed,
            },
            KeyCode::Char('n') | KeyCode::Char('N') => {
                self.feedback = Some(String::new());
                ViewResult::Consumed
            }
            KeyCode::Esc => self.decide(ReviewDecision::Denied { feedback: None }, tx),
            KeyCode::Up | KeyCode::Char('k') => self.scroll_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll_by(1),
            KeyCode::PageUp => self.scroll_by(-self.page()),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll_by(self.page()),
            KeyCode::Home => self.scroll_by(i64::MIN / 2),
            KeyCode::End => self.scroll_by(i64::MAX / 2),
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

    fn handle_scroll(&mut self, lines: i32) -> bool {
        self.scroll_by(i64::from(lines));
        true
    }

    fn prepare(&mut self, area: Rect) {
        let width = Self::inner_width(area.width);
        if self.body_width != width {
            self.body = self.body_lines(width);
            self.body_width = width;
        }
        let inside = usize::from(area.height.saturating_sub(2));
        self.body_rows = inside.saturating_sub(self.footer_lines(width).len());
        self.scroll = self.scroll.min(self.max_scroll());
    }

    fn desired_height(&self, width: u16, max: u16) -> u16 {
        let inner = Self::inner_width(width);
        let body = if self.body_width == inner {
            self.body.len()
        } else {
            self.body_lines(inner).len()
        };
        ((body + self.footer_lines(inner).len() + 2) as u16).min(max)
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
        let footer = self.footer_lines(self.body_width.max(8));
        // The keys stay visible; the request scrolls above them.
        let footer_rows = footer.len().min(usize::from(inner.height));
        let body_rows = usize::from(inner.height) - footer_rows;
        let end = (self.scroll + body_rows).min(self.body.len());
        let shown = self.body[self.scroll.min(end)..end].iter();
        let rows = inner.y..inner.bottom();
        for (y, line) in rows.zip(shown) {
            buf.set_line(inner.x, y, line, inner.width);
        }
        let footer_top = inner.bottom() - footer_rows as u16;
        for (y, line) in (footer_top..inner.bottom()).zip(&footer) {
            buf.set_line(inner.x, y, line, inner.width);
        }
        if self.body.len() > body_rows && area.height > 0 {
            let position =
                strings::approval_scroll_position((self.scroll + 1).min(end), end, self.body.len());
            let width = position.width() as u16;
            if width + 4 <= area.width {
                buf.set_line(
                    area.right() - width - 2,
                    area.bottom() - 1,
                    &Line::from(Span::styled(position, theme::key_hint())),
                    width,
                );
            }
        }
    }

    fn belongs_to_task(&self) -> bool {
        true
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// The model's JSON arguments, indented for reading; the raw text when they do not parse.
fn pretty_json(arguments: &str) -> String {
    serde_json::from_str::<serde_json::Value>(arguments)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| arguments.to_string())
}

//! The application state: transcript, bottom pane, status, and what the session reported.
//!
//! State changes only in the `handle_*` methods (input.rs, core_events.rs, commands.rs) and in
//! [`App::handle_frame`], which lays out what changed before a frame. [`App::render`] borrows
//! (`&self`) and does no I/O. The app talks to the core only through an [`OpSink`], so tests
//! drive it with scripted events and a recording sink, without a terminal or a session.

mod commands;
mod core_events;
mod delegates;
mod file_completion;
mod input;
mod models;
mod resume;

use crate::app_event::AppEventSender;
use crate::bottom::View;
use crate::bottom::composer::Composer;
use crate::bottom::popup::Popup;
use crate::delegate::DelegateTree;
use crate::delegate::panel::panel_lines;
use crate::history::plan::pinned_lines;
use crate::status::{SPINNER_FRAME_MS, StatusLine};
use crate::strings;
use crate::theme;
use crate::transcript::Transcript;
use crate::wrap::wrap_text;
use cairn_protocol::{ApprovalPolicy, Op, Plan, SessionConfiguredEvent, TokenUsage};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use unicode_width::UnicodeWidthStr;

/// Where ops for the core go. The real one wraps the session's submission sender.
pub trait OpSink: Send {
    /// Submit `op`; returns the submission id its events will carry.
    fn submit(&mut self, op: Op) -> String;
}

/// Something only the event loop can do (it owns the terminal and the session).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Leave cairn.
    Quit,
    /// Shut the session down and start a new one with the same config.
    NewSession,
    /// Suspend the TUI and open the plan file in the user's editor.
    EditPlan(PathBuf),
    /// List the saved sessions off the event loop; the answer is
    /// [`crate::app_event::AppEvent::SessionsListed`].
    ListSessions,
    /// Load the agents for /agents off the event loop, for a session in `cwd`; the answer
    /// is [`crate::app_event::AppEvent::AgentsListed`].
    ListAgents {
        /// The session's working directory (its `.cairn/agents`), when known.
        cwd: Option<PathBuf>,
    },
    /// List the workspace's files for the `@` popup off the event loop; the answer is
    /// [`crate::app_event::AppEvent::FilesListed`].
    ListFiles {
        /// The workspace root.
        root: PathBuf,
    },
    /// Open the saved session at `path` (started in `cwd`); once it runs, shut the current
    /// one down and continue it. If it cannot be opened, [`App::handle_resume_failed`].
    ResumeSession {
        /// The session file.
        path: PathBuf,
        /// Its working directory.
        cwd: PathBuf,
    },
}

/// How long a first Ctrl+C waits for the second.
pub const QUIT_WINDOW: Duration = Duration::from_secs(2);
/// Most steps the pinned plan shows.
const PINNED_MAX_STEPS: usize = 5;
/// Most steps the pinned plan shows while the delegate tree is shown too.
const PINNED_SHARED_STEPS: usize = 3;
/// Most run rows of the delegate tree.
const DELEGATE_MAX_ROWS: usize = 6;
/// Most queued messages listed above the composer.
const QUEUED_MAX_ROWS: usize = 3;
/// Typing that recent counts as "the user is typing" when a dialog opens.
const TYPING_WINDOW: Duration = Duration::from_secs(1);
/// How long a dialog that opened under the user's fingers leaves typed keys to the composer,
/// so a word being typed ("any", "yes") cannot answer it.
const TYPING_GRACE: Duration = Duration::from_millis(600);

struct RunningTask {
    /// Submission id of the message that started it, when this front end sent it.
    id: Option<String>,
    started: Instant,
}

/// Where each part of the screen goes for one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct AppLayout {
    transcript: Rect,
    queued: Rect,
    pinned: Rect,
    delegates: Rect,
    hint: Rect,
    popup: Rect,
    bottom: Rect,
    status: Rect,
    fullscreen: Option<Rect>,
}

/// Session settings the user chose in this TUI (/model, /approvals).
#[derive(Debug, Clone, Default)]
struct SessionChoices {
    model: Option<String>,
    approval_policy: Option<ApprovalPolicy>,
}

/// The TUI's state.
pub struct App {
    ops: Box<dyn OpSink>,
    tx: AppEventSender,
    now: Instant,
    size: (u16, u16),
    session: Option<SessionConfiguredEvent>,
    model: String,
    approval_policy: ApprovalPolicy,
    transcript: Transcript,
    composer: Composer,
    popup: Option<Popup>,
    /// The workspace's files for the `@` popup.
    files: file_completion::FileCompletion,
    views: Vec<Box<dyn View>>,
    task: Option<RunningTask>,
    queued: Vec<String>,
    plan_mode: Option<PathBuf>,
    pending_plan_request: Option<String>,
    leaving_plan_mode: bool,
    latest_plan: Option<Plan>,
    pinned_visible: bool,
    tokens: Option<TokenUsage>,
    retry: Option<String>,
    quit_armed_at: Option<Instant>,
    /// Last key that went into the composer.
    typed_at: Option<Instant>,
    /// When the dialog on top (approval, question, plan review) opened while the user typed.
    dialog_opened_while_typing: Option<Instant>,
    streaming: Option<usize>,
    reasoning: Option<usize>,
    tool_cells: HashMap<String, usize>,
    hidden_calls: HashSet<String>,
    requests: Vec<Request>,
    /// A prompt from the command line, sent once the session is configured.
    initial_prompt: Option<String>,
    /// `$CAIRN_HOME`, for /plans.
    cairn_home: Option<PathBuf>,
    /// Where cairn was started: the session picker lists its sessions first.
    cwd: Option<PathBuf>,
    /// What /model and /approvals chose; /new starts its session with them.
    choices: SessionChoices,
    /// No session runs yet (`cairn resume` opened the picker first): closing the picker
    /// starts one.
    awaiting_session: bool,
    /// Delegated runs: the tree above the composer and each run's transcript.
    delegates: DelegateTree,
    /// A resumed transcript is being replayed (times in it are not now).
    replaying: bool,
    /// Tells a paste without bracketed paste from typing.
    paste_burst: crate::paste_burst::PasteBurst,
    /// Feedback sent with a rejected plan, shown after "Plan rejected…".
    rejection_feedback: Option<String>,
}

impl App {
    /// A new app sending ops to `ops` and view events to `tx`, for a terminal of `size`.
    pub fn new(ops: Box<dyn OpSink>, tx: AppEventSender, size: (u16, u16), now: Instant) -> Self {
        Self {
            ops,
            tx,
            now,
            size,
            session: None,
            model: String::new(),
            approval_policy: ApprovalPolicy::default(),
            transcript: Transcript::new(),
            composer: Composer::new(),
            popup: None,
            files: Default::default(),
            views: Vec::new(),
            task: None,
            queued: Vec::new(),
            plan_mode: None,
            pending_plan_request: None,
            leaving_plan_mode: false,
            latest_plan: None,
            pinned_visible: true,
            tokens: None,
            retry: None,
            quit_armed_at: None,
            typed_at: None,
            dialog_opened_while_typing: None,
            streaming: None,
            reasoning: None,
            tool_cells: HashMap::new(),
            hidden_calls: HashSet::new(),
            requests: Vec::new(),
            initial_prompt: None,
            cairn_home: None,
            cwd: None,
            choices: SessionChoices::default(),
            awaiting_session: false,
            delegates: DelegateTree::new(),
            replaying: false,
            paste_burst: Default::default(),
            rejection_feedback: None,
        }
    }

    /// Where stored plans live (`$CAIRN_HOME`), for /plans.
    pub fn set_cairn_home(&mut self, home: PathBuf) {
        self.cairn_home = Some(home);
    }

    /// Where cairn was started, for the session picker.
    pub fn set_cwd(&mut self, cwd: PathBuf) {
        self.cwd = Some(cwd);
    }

    /// Submit `prompt` as soon as the session reports it is configured.
    pub fn submit_when_ready(&mut self, prompt: String) {
        self.initial_prompt = Some(prompt);
    }

    /// Send an op straight to the core (the loop's shutdown).
    pub fn submit_op(&mut self, op: Op) {
        self.ops.submit(op);
    }

    /// Start over with a new session's op sink (/new, /resume). The composer history is kept.
    pub fn reset_session(&mut self, ops: Box<dyn OpSink>) {
        let composer = std::mem::take(&mut self.composer);
        let pinned_visible = self.pinned_visible;
        let (tx, size, now) = (self.tx.clone(), self.size, self.now);
        let home = self.cairn_home.take();
        let cwd = self.cwd.take();
        let choices = std::mem::take(&mut self.choices);
        *self = Self::new(ops, tx, size, now);
        self.cairn_home = home;
        self.cwd = cwd;
        self.choices = choices;
        self.composer = composer;
        self.composer.clear();
        self.pinned_visible = pinned_visible;
    }

    /// The configuration for /new: `config` with the model and approval policy chosen with
    /// /model and /approvals in this TUI, so a new session does not undo them.
    pub fn new_session_config(&self, config: &cairn_core::Config) -> cairn_core::Config {
        let mut config = config.clone();
        if let Some(model) = &self.choices.model {
            config.model = model.clone();
        }
        if let Some(policy) = self.choices.approval_policy {
            config.approval_policy = policy;
        }
        config
    }

    /// Set the clock (the loop does this before every handler and frame).
    pub fn set_now(&mut self, now: Instant) {
        self.now = now;
    }

    /// Take the requests only the event loop can serve.
    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.requests)
    }

    /// True while a task runs.
    pub fn is_working(&self) -> bool {
        self.task.is_some()
    }

    /// What to print once the terminal is restored: the tokens used and the command that
    /// resumes this session. `None` when no model request was made (nothing to resume).
    pub fn exit_summary(&self) -> Option<String> {
        let session = self.session.as_ref()?;
        let tokens = self.tokens.as_ref()?;
        Some(strings::exit_summary(
            &strings::compact_count(tokens.total_tokens),
            &session.conversation_id,
        ))
    }

    /// True while plan mode is on.
    pub fn in_plan_mode(&self) -> bool {
        self.plan_mode.is_some()
    }

    /// The composer's text.
    pub fn composer_text(&self) -> String {
        self.composer.text()
    }

    /// When the spinners started: the task's, else the live delegate group's. Both
    /// spinners turn on this one clock, so they never ask for frames at two paces.
    fn spinner_epoch(&self) -> Option<Instant> {
        self.task
            .as_ref()
            .map(|t| t.started)
            .or_else(|| self.delegates.live_since())
    }

    /// The spinner frame now.
    fn spinner_frame(&self) -> usize {
        self.spinner_epoch().map_or(0, |epoch| {
            (self.now.saturating_duration_since(epoch).as_millis() / SPINNER_FRAME_MS) as usize
        })
    }

    /// When the next frame is due without any event (spinners, Ctrl+C hint expiry).
    pub fn next_frame_deadline(&self) -> Option<Instant> {
        let spinner = self.spinner_epoch().map(|epoch| {
            let elapsed = self.now.saturating_duration_since(epoch).as_millis();
            let next = (elapsed / SPINNER_FRAME_MS + 1) * SPINNER_FRAME_MS;
            epoch + Duration::from_millis(next as u64)
        });
        let quit = self
            .quit_armed_at
            .map(|t| t + QUIT_WINDOW)
            .filter(|t| *t > self.now);
        match (spinner, quit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Open a dialog the running task waits for (approval, question, plan review).
    fn open_dialog(&mut self, view: Box<dyn View>) {
        self.popup = None;
        self.views.push(view);
        let typing = self
            .typed_at
            .is_some_and(|t| self.now.saturating_duration_since(t) < TYPING_WINDOW);
        self.dialog_opened_while_typing = typing.then_some(self.now);
    }

    /// True while keys typed into the composer just before a dialog opened keep going there.
    fn typing_grace(&self) -> bool {
        self.dialog_opened_while_typing
            .is_some_and(|t| self.now.saturating_duration_since(t) < TYPING_GRACE)
    }

    fn ctrl_c_armed(&self) -> bool {
        self.quit_armed_at
            .is_some_and(|t| self.now.saturating_duration_since(t) < QUIT_WINDOW)
    }

    /// Steps the pinned plan shows: fewer while the delegate tree shares the space.
    fn pinned_max_steps(&self) -> usize {
        if self.delegates.shown_len() > 0 {
            PINNED_SHARED_STEPS
        } else {
            PINNED_MAX_STEPS
        }
    }

    fn delegate_panel_height(&self) -> u16 {
        match self.delegates.shown_len() {
            0 => 0,
            runs => (runs.min(DELEGATE_MAX_ROWS) + 1) as u16,
        }
    }

    /// The user hid a plan that would be pinned (Ctrl+T): one row says it is there.
    fn plan_hidden(&self) -> bool {
        !self.pinned_visible
            && self.task.is_some()
            && self
                .latest_plan
                .as_ref()
                .is_some_and(|p| !p.plan.is_empty())
    }

    fn pinned_plan(&self) -> Option<&Plan> {
        if !self.pinned_visible || self.task.is_none() {
            return None;
        }
        self.latest_plan.as_ref().filter(|p| !p.plan.is_empty())
    }

    /// The plan-mode hint: one row when it fits; otherwise broken after the file name (and
    /// each part wrapped), so the file name is never cut off.
    fn plan_mode_hint(&self, width: u16) -> Vec<Line<'static>> {
        let Some(path) = &self.plan_mode else {
            return Vec::new();
        };
        let width = usize::from(width).max(8);
        let style = theme::plan_mode_hint();
        let whole = strings::plan_mode_hint(path);
        if whole.width() <= width {
            return vec![Line::from(Span::styled(whole, style))];
        }
        strings::plan_mode_hint_parts(path)
            .iter()
            .flat_map(|part| wrap_text(part, style, width, &[], &[]))
            .collect()
    }

    fn layout(&self, area: Rect) -> AppLayout {
        let mut layout = AppLayout::default();
        if area.height == 0 {
            return layout;
        }
        layout.status = Rect {
            y: area.y + area.height - 1,
            height: 1,
            ..area
        };
        let above = area.height - 1;
        let row = |y: u16, h: u16| Rect {
            x: area.x,
            y,
            width: area.width,
            height: h,
        };
        if let Some(view) = self.views.last().filter(|v| v.fullscreen()) {
            // A view shorter than the screen sits above the status line, the transcript
            // above it.
            let h = view.desired_height(area.width, above).min(above);
            layout.transcript = row(area.y, above - h);
            layout.fullscreen = Some(row(area.y + above - h, h));
            return layout;
        }
        let max_bottom = (above * 2 / 3).max(3).min(above);
        let bottom_h = match self.views.last() {
            Some(view) => view.desired_height(area.width, max_bottom),
            None => (self.composer.desired_height(area.width) + 1).min(max_bottom),
        };
        let mut budget = above.saturating_sub(bottom_h);
        let mut take = |wanted: u16| {
            let h = wanted.min(budget.saturating_sub(1));
            budget -= h;
            h
        };
        let popup_h = match (&self.popup, self.views.is_empty()) {
            (Some(popup), true) => take(popup.desired_height()),
            _ => 0,
        };
        let hint_h = take(self.plan_mode_hint(area.width).len() as u16);
        let delegates_h = take(self.delegate_panel_height());
        let max_steps = self.pinned_max_steps();
        let pinned_h = take(match self.pinned_plan() {
            Some(p) => (p.plan.len().min(max_steps) + 1) as u16,
            None => u16::from(self.plan_hidden()),
        });
        let queued_h = take(self.queued.len().min(QUEUED_MAX_ROWS) as u16);
        let transcript_h = budget;
        let mut y = area.y;
        for (slot, h) in [
            (&mut layout.transcript, transcript_h),
            (&mut layout.queued, queued_h),
            (&mut layout.pinned, pinned_h),
            (&mut layout.delegates, delegates_h),
            (&mut layout.hint, hint_h),
            (&mut layout.popup, popup_h),
            (&mut layout.bottom, bottom_h),
        ] {
            *slot = row(y, h);
            y += h;
        }
        layout
    }

    /// The frame about to be drawn: lay out what changed for the current size (wrapping
    /// changed cells, sizing views). Call before every [`App::render`].
    pub fn handle_frame(&mut self) {
        let area = Rect::new(0, 0, self.size.0, self.size.1);
        let layout = self.layout(area);
        self.transcript
            .prepare(layout.transcript.width, layout.transcript.height);
        self.composer.prepare(area.width);
        if let Some(view) = self.views.last_mut() {
            let target = layout.fullscreen.unwrap_or(layout.bottom);
            view.prepare(target);
        }
    }

    /// Draw the whole screen into `buf`. Pure: no state changes, no I/O.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let layout = self.layout(area);
        self.status_line().render(layout.status, buf);
        if let (Some(rect), Some(view)) = (layout.fullscreen, self.views.last()) {
            self.transcript.render(layout.transcript, buf);
            view.render(rect, buf);
            return;
        }
        self.transcript.render(layout.transcript, buf);
        let skip = self
            .queued
            .len()
            .saturating_sub(usize::from(layout.queued.height));
        for (i, text) in self.queued.iter().skip(skip).enumerate() {
            let first = text.lines().next().unwrap_or_default();
            let line = Line::from(Span::styled(strings::queued(first), theme::dim()));
            buf.set_line(
                layout.queued.x,
                layout.queued.y + i as u16,
                &line,
                layout.queued.width,
            );
        }
        if self.plan_hidden() && layout.pinned.height > 0 {
            let line = Line::from(Span::styled(strings::PINNED_HIDDEN, theme::dim()));
            buf.set_line(layout.pinned.x, layout.pinned.y, &line, layout.pinned.width);
        }
        if let Some(plan) = self.pinned_plan() {
            let lines = pinned_lines(
                plan,
                usize::from(layout.pinned.width),
                self.pinned_max_steps(),
            );
            for (i, line) in lines
                .iter()
                .take(usize::from(layout.pinned.height))
                .enumerate()
            {
                buf.set_line(
                    layout.pinned.x,
                    layout.pinned.y + i as u16,
                    line,
                    layout.pinned.width,
                );
            }
        }
        if layout.delegates.height > 0 {
            let rows = usize::from(layout.delegates.height - 1);
            let lines = panel_lines(
                &self.delegates,
                usize::from(layout.delegates.width),
                self.now,
                self.spinner_frame(),
                rows,
            );
            for (y, line) in (layout.delegates.y..layout.delegates.bottom()).zip(&lines) {
                buf.set_line(layout.delegates.x, y, line, layout.delegates.width);
            }
        }
        let hint = self.plan_mode_hint(layout.hint.width);
        for (y, line) in (layout.hint.y..layout.hint.bottom()).zip(&hint) {
            buf.set_line(layout.hint.x, y, line, layout.hint.width);
        }
        if let Some(popup) = &self.popup
            && layout.popup.height > 0
        {
            popup.render(layout.popup, buf);
        }
        match self.views.last() {
            Some(view) => view.render(layout.bottom, buf),
            None if layout.bottom.height > 0 => {
                let rule = "─".repeat(usize::from(layout.bottom.width));
                buf.set_line(
                    layout.bottom.x,
                    layout.bottom.y,
                    &Line::from(Span::styled(rule, theme::dim())),
                    layout.bottom.width,
                );
                let text = Rect {
                    y: layout.bottom.y + 1,
                    height: layout.bottom.height - 1,
                    ..layout.bottom
                };
                self.composer.render(text, buf);
            }
            None => {}
        }
    }

    fn status_line(&self) -> StatusLine<'_> {
        let working = self.task.as_ref().map(|t| {
            let elapsed = self.now.saturating_duration_since(t.started);
            (elapsed.as_secs(), self.spinner_frame())
        });
        StatusLine {
            plan_mode: self.plan_mode.is_some(),
            working,
            ctrl_c_armed: self.ctrl_c_armed(),
            retry: self.retry.as_deref(),
            tokens: self.tokens,
            provider: self.session.as_ref().and_then(|s| s.provider.as_deref()),
            configured: self.session.is_some(),
            model: &self.model,
        }
    }
}

#[cfg(test)]
mod tests;

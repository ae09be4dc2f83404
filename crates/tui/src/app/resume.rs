//! Resuming saved sessions: the picker (`cairn resume`, `/resume`) and what becomes of the
//! choice. Listing and opening sessions read files, so the event loop does both off the
//! render path ([`Request::ListSessions`], [`Request::ResumeSession`]); the app only shows.

use super::{App, Request};
use crate::bottom::session_picker::{PickerContext, SessionPickerView};
use crate::history::HistoryCell;
use crate::strings;
use cairn_core::rollout::listing::SessionSummary;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

impl App {
    /// Start with the session picker and no session (`cairn resume`): a choice opens that
    /// session, Esc starts a fresh one.
    pub fn pick_session_at_launch(&mut self) {
        self.awaiting_session = true;
        self.open_session_picker();
    }

    /// True while no session runs (the launch picker is open).
    pub fn awaiting_session(&self) -> bool {
        self.awaiting_session
    }

    /// A chosen session could not be opened (open in another process, unreadable). The
    /// current session goes on; without one, the picker opens again with the reason.
    pub fn handle_resume_failed(&mut self, message: String) {
        let text = strings::resume_failed(message.trim_end_matches('.'), !self.awaiting_session);
        self.transcript.push(HistoryCell::Error(text.clone()));
        self.transcript.scroll_to_bottom();
        if self.awaiting_session {
            self.open_session_picker();
            if let Some(picker) = self.picker_mut() {
                picker.set_error(text);
            }
        }
    }

    /// Open the picker and ask the loop for the sessions (/resume).
    pub(super) fn open_session_picker(&mut self) {
        self.popup = None;
        self.views.push(Box::new(SessionPickerView::loading()));
        self.requests.push(Request::ListSessions);
    }

    /// The listing arrived: fill the picker, if it is still open.
    pub(super) fn handle_sessions_listed(&mut self, sessions: Vec<SessionSummary>) {
        let ctx = PickerContext {
            here: self
                .cwd
                .clone()
                .or_else(|| self.session.as_ref().map(|s| s.cwd.clone())),
            current: self.session.as_ref().map(|s| s.conversation_id.clone()),
            now: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            home: std::env::var_os("HOME").map(PathBuf::from),
        };
        if let Some(picker) = self.picker_mut() {
            picker.set_sessions(sessions, &ctx);
        }
    }

    /// The user chose a session in the picker.
    pub(super) fn handle_session_chosen(&mut self, summary: SessionSummary) {
        let current = self.session.as_ref().map(|s| s.conversation_id.as_str());
        if current == Some(summary.id.as_str()) {
            // The picker leaves it out; a stale listing must not reopen it either.
            self.notice(strings::ALREADY_THIS_SESSION.to_string());
            return;
        }
        if self.task.is_some() {
            self.transcript
                .push(HistoryCell::Error(strings::disabled_during_task("resume")));
            return;
        }
        self.notice(strings::opening_session(&summary.id));
        self.requests.push(Request::ResumeSession {
            path: summary.path,
            cwd: summary.cwd,
        });
    }

    /// The picker closed without a choice: at launch, a fresh session starts.
    pub(super) fn handle_picker_dismissed(&mut self) {
        if std::mem::take(&mut self.awaiting_session) {
            self.requests.push(Request::NewSession);
        }
    }

    fn picker_mut(&mut self) -> Option<&mut SessionPickerView> {
        self.views
            .iter_mut()
            .rev()
            .find_map(|v| v.as_any_mut().downcast_mut::<SessionPickerView>())
    }
}

//! The typed internal event queue (gitui's `queue.rs`): views and the composer report what
//! the user decided here instead of holding references into the app.

use crate::agents::AgentsListing;
use crate::slash::SlashCommand;
use cairn_core::file_search::FileIndex;
use cairn_core::rollout::listing::SessionSummary;
use cairn_protocol::Op;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Something a view asks the app to do.
#[derive(Debug, Clone, PartialEq)]
pub enum AppEvent {
    /// Send this op to the core.
    Op(Op),
    /// The user decided on the plan in the review widget.
    PlanDecision {
        /// Approve and leave plan mode.
        approved: bool,
        /// Message to the model.
        feedback: Option<String>,
    },
    /// The user answered every question of an ask_user_question call.
    QuestionsAnswered {
        /// The call being answered.
        call_id: String,
        /// The questions, in order.
        questions: Vec<String>,
        /// One answer per question.
        answers: Vec<String>,
    },
    /// Open the plan file in the user's editor.
    EditPlan(PathBuf),
    /// Show the stored plan with this id in the transcript (/plans).
    ShowPlan(String),
    /// Run a slash command picked in the popup.
    RunCommand(SlashCommand, String),
    /// The saved sessions, listed off the event loop for the session picker.
    SessionsListed(Vec<SessionSummary>),
    /// The user chose this session in the picker.
    ResumeSession(SessionSummary),
    /// The session picker closed without a choice.
    PickerDismissed,
    /// The agents for /agents, loaded off the event loop.
    AgentsListed(AgentsListing),
    /// The workspace's files for the `@` popup, listed off the event loop.
    FilesListed {
        /// The root they were listed in (a result for an older session's root is dropped).
        root: PathBuf,
        /// The paths, ready to search.
        index: Arc<FileIndex>,
    },
}

/// Cloneable sender of [`AppEvent`]s.
#[derive(Debug, Clone)]
pub struct AppEventSender(mpsc::UnboundedSender<AppEvent>);

impl AppEventSender {
    /// A sender and its receiver.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<AppEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self(tx), rx)
    }

    /// Queue an event. A closed receiver means the app is shutting down: ignored.
    pub fn send(&self, event: AppEvent) {
        let _ = self.0.send(event);
    }
}

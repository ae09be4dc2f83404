//! The session log: every session is an append-only JSONL file
//! `$CAIRN_HOME/sessions/YYYY/MM/DD/<conversation-id>.jsonl`, so a quit or a crash loses
//! nothing and `cairn resume` continues where it stopped.
//!
//! The first line is [`SessionMeta`]; then one [`LogLine`] per history item, per event the
//! transcript or the session state needs (messages, tool calls, plan updates, plan mode,
//! token counts, compactions) and a [`StateSnapshot`] whenever plan mode, the current plan or
//! a turn count changes. [`recorder`] writes it from a thread of its own; [`reader`] reads it
//! back into the same history and state types; [`listing`] lists sessions from the head and
//! tail of each file only.

pub mod listing;
pub mod reader;
pub mod recorder;

use crate::history::ResponseItem;
use crate::plan_mode::PlanModeState;
use cairn_protocol::{EventMsg, TokenUsage};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub use reader::{LoadedSession, load};
pub use recorder::{LockError, Recorder};

/// The first line of a session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionMeta {
    /// Conversation id (uuid v7).
    pub id: String,
    /// Working directory.
    pub cwd: PathBuf,
    /// Model at the start.
    pub model: String,
    /// Provider id, if one was configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// `chat`, `responses` or `anthropic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire_api: Option<String>,
    /// cairn's version.
    pub cairn_version: String,
    /// Git branch of `cwd`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
    /// Git head commit of `cwd`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_head: Option<String>,
    /// RFC 3339.
    pub started_at: String,
}

/// Plan-mode state as logged (everything but the conversation id, which the meta holds).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanModeSnapshot {
    /// Plan mode on.
    pub active: bool,
    /// Plan file of the current or last period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_file_path: Option<PathBuf>,
    /// Plan file of the period before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_plan_file: Option<PathBuf>,
    /// A plan of this session was approved.
    #[serde(default)]
    pub has_exited: bool,
    /// The re-entry reminder is still to be sent.
    #[serde(default)]
    pub reentry_reminder_pending: bool,
    /// The current or last period's plan was approved.
    #[serde(default)]
    pub period_approved: bool,
}

impl PlanModeSnapshot {
    /// The loggable part of `state`.
    pub fn of(state: &PlanModeState) -> Self {
        Self {
            active: state.active,
            plan_file_path: state.plan_file_path.clone(),
            previous_plan_file: state.previous_plan_file.clone(),
            has_exited: state.has_exited,
            reentry_reminder_pending: state.reentry_reminder_pending,
            period_approved: state.period_approved,
        }
    }

    /// Back into a state for `conversation_id`.
    pub fn restore(&self, conversation_id: &str) -> PlanModeState {
        PlanModeState {
            active: self.active,
            plan_file_path: self.plan_file_path.clone(),
            previous_plan_file: self.previous_plan_file.clone(),
            has_exited: self.has_exited,
            conversation_id: conversation_id.to_string(),
            reentry_reminder_pending: self.reentry_reminder_pending,
            period_approved: self.period_approved,
        }
    }
}

/// The session state that is not history, logged whenever it changes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StateSnapshot {
    /// Plan mode.
    pub plan_mode: PlanModeSnapshot,
    /// Id of the current structured plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_plan: Option<String>,
    /// Tasks (user messages) run so far.
    #[serde(default)]
    pub turns: u64,
    /// One line for session pickers: "plan mode", "3/5 steps", ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_status: Option<String>,
    /// Token counts so far.
    #[serde(default)]
    pub usage: TokenUsage,
}

/// One line of a session file after the meta.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogLine {
    /// The meta line (first line of the file).
    Meta(SessionMeta),
    /// A history item.
    Item {
        /// The item.
        item: ResponseItem,
    },
    /// An event the transcript or the state needs on resume.
    Event {
        /// The event.
        msg: EventMsg,
    },
    /// The state after a change.
    State(StateSnapshot),
    /// Compaction replaced the history with `history`.
    Compacted {
        /// The new history, whole.
        history: Vec<ResponseItem>,
    },
}

/// Which events the log keeps: what re-renders the transcript and restores the state.
/// Deltas are left out; the complete messages carry the same text.
pub fn keeps(msg: &EventMsg) -> bool {
    matches!(
        msg,
        EventMsg::UserMessage { .. }
            | EventMsg::AgentMessage { .. }
            | EventMsg::ToolCallBegin { .. }
            | EventMsg::ToolCallEnd { .. }
            | EventMsg::PatchApplied { .. }
            | EventMsg::PlanUpdate(_)
            | EventMsg::PlanModeEntered { .. }
            | EventMsg::PlanModeExited { .. }
            | EventMsg::TokenCount(_)
            | EventMsg::ContextCompacted { .. }
            | EventMsg::Error { .. }
            | EventMsg::TurnAborted { .. }
            | EventMsg::DelegateStarted { .. }
            | EventMsg::DelegateEvent { .. }
            | EventMsg::DelegateCompleted { .. }
            | EventMsg::DelegateFailed { .. }
    )
}

/// `$CAIRN_HOME/sessions`.
pub fn sessions_dir(cairn_home: &Path) -> PathBuf {
    cairn_home.join("sessions")
}

/// `sessions/YYYY/MM/DD/<id>.jsonl` for a session started at `started` (UTC).
pub fn session_path(
    sessions_dir: &Path,
    started: chrono::DateTime<chrono::Utc>,
    conversation_id: &str,
) -> PathBuf {
    sessions_dir
        .join(format!("{:04}", chrono::Datelike::year(&started)))
        .join(format!("{:02}", chrono::Datelike::month(&started)))
        .join(format!("{:02}", chrono::Datelike::day(&started)))
        .join(format!("{conversation_id}.jsonl"))
}

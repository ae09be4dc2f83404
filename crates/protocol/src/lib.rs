//! cairn's core/front-end protocol.
//!
//! A front end sends [`Submission`]s (an id and an [`Op`]) and receives [`Event`]s (the id of
//! the submission that caused it and an [`EventMsg`]). Both are serde-tagged with
//! `"type"` in snake_case; `cairn exec --json` writes one [`Event`] per line, so the names and
//! fields here are a stable interface (see docs/protocol.md).

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub mod mcp;
pub mod models;
pub mod plan;
pub mod shown;
pub mod tense;

pub use mcp::{McpServerState, McpServerStatus, McpToolStatus};
pub use models::ModelInfo;
pub use plan::{
    CompletionStatus, Plan, PlanCompletion, PlanItem, PlanStatus, PlanStep, PlanStepStatus,
    StepStatus, UpdatePlanArgs,
};

/// Something a front end asks the core to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    /// Chosen by the front end; echoed in the id of every event the submission causes.
    pub id: String,
    /// What to do.
    pub op: Op,
}

/// The operations a front end can submit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Op {
    /// A user message; starts a task (or is queued by the front end while one runs).
    UserInput {
        /// The message text.
        text: String,
    },
    /// Stop the running task: cancel the stream and running tools.
    Interrupt,
    /// Answer to an [`EventMsg::ExecApprovalRequest`].
    ExecApproval {
        /// The `call_id` of the request being answered.
        call_id: String,
        /// The user's decision.
        decision: ReviewDecision,
    },
    /// Answer to an [`EventMsg::PatchApprovalRequest`].
    PatchApproval {
        /// The `call_id` of the request being answered.
        call_id: String,
        /// The user's decision.
        decision: ReviewDecision,
    },
    /// Answer to an [`EventMsg::ReadApprovalRequest`].
    ReadApproval {
        /// The `call_id` of the request being answered.
        call_id: String,
        /// The user's decision.
        decision: ReviewDecision,
    },
    /// Answer to an [`EventMsg::McpToolApprovalRequest`].
    McpToolApproval {
        /// The `call_id` of the request being answered.
        call_id: String,
        /// The user's decision.
        decision: ReviewDecision,
    },
    /// Answer to an [`EventMsg::WebFetchApprovalRequest`].
    WebFetchApproval {
        /// The `call_id` of the request being answered.
        call_id: String,
        /// The user's decision.
        decision: ReviewDecision,
    },
    /// Ask for the MCP servers' status; answered with [`EventMsg::McpServers`] (`/mcp`).
    ListMcpServers,
    /// Ask which models the current provider offers; answered with
    /// [`EventMsg::ModelsListed`] (`/model` without a name). Served while a task runs too.
    ListModels,
    /// Enter (`active: true`) or leave plan mode. Only a user can send this.
    SetPlanMode {
        /// Whether plan mode should be on.
        active: bool,
    },
    /// The user's answer to an [`EventMsg::PlanModeExitRequest`].
    PlanModeApproval {
        /// True to approve the plan and leave plan mode.
        approved: bool,
        /// Optional message to the model (mostly with a rejection).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feedback: Option<String>,
    },
    /// Put the plan file to the user again (`/plan review`), e.g. after an interrupt closed
    /// the review. Answered with [`EventMsg::PlanModeExitRequest`], or an error when plan mode
    /// is off, a turn is running or the plan file is missing. The user's
    /// [`Op::PlanModeApproval`] then starts a task that tells the model the decision.
    ReviewPlan,
    /// A shell command the user typed (`!cmd`). It runs as a `shell` tool call through plan
    /// mode, the approval policy and the sandbox, as a model's call would; its output is
    /// added to the conversation for the model's next turn. Starts a task of its own.
    UserShellCommand {
        /// The command line, run with `bash -c`.
        command: String,
    },
    /// The user's answer to an [`EventMsg::PlanApprovalRequest`] (a structured plan under
    /// `[tools] require_plan_approval`).
    PlanApproval {
        /// The `call_id` of the request being answered.
        call_id: String,
        /// True to approve the plan.
        approved: bool,
        /// Optional message to the model (mostly with a rejection).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feedback: Option<String>,
    },
    /// The user's answers to an [`EventMsg::UserQuestionRequest`].
    UserQuestionAnswer {
        /// The `call_id` of the question being answered.
        call_id: String,
        /// One answer per question, in order.
        answers: Vec<String>,
    },
    /// Change settings for the following turns.
    OverrideTurnContext {
        /// New model name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        /// New approval policy.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        approval_policy: Option<ApprovalPolicy>,
    },
    /// Summarise the older conversation now to free context (`/compact [focus]`).
    Compact {
        /// What the summary should keep in particular.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        focus: Option<String>,
    },
    /// End the session; the core answers with [`EventMsg::ShutdownComplete`] once the session
    /// log is on disk.
    Shutdown,
}

/// When mutating tool calls need the user's approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalPolicy {
    /// Ask before every mutating call.
    Untrusted,
    /// Run workspace edits and known-safe commands; ask for everything else.
    #[default]
    OnRequest,
    /// Never ask.
    Never,
}

impl ApprovalPolicy {
    /// The name used in config files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Untrusted => "untrusted",
            Self::OnRequest => "on-request",
            Self::Never => "never",
        }
    }
}

/// A user's answer to an approval request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReviewDecision {
    /// Run this call.
    Approved,
    /// Run this call and do not ask again this session for what the request's `for_session`
    /// said: the exact same command (whitespace-normalised), or the same files.
    ApprovedForSession,
    /// Run this call and do not ask again this session for commands starting with `prefix`,
    /// which must be the request's `session_prefix` (anything else approves this call only).
    ApprovedPrefixForSession {
        /// The whole-word command prefix the user picked.
        prefix: String,
    },
    /// Do not run it; the model is told the user declined.
    Denied {
        /// Optional message passed on to the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feedback: Option<String>,
    },
    /// Do not run it and stop the turn.
    Abort,
}

/// Something the core reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Id of the submission that caused this event (empty for session-level events).
    pub id: String,
    /// What happened.
    pub msg: EventMsg,
}

/// The events the core emits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventMsg {
    /// First event of a session: what it runs with.
    SessionConfigured(SessionConfiguredEvent),
    /// A task (one user message and everything it causes) started.
    TaskStarted,
    /// The user's message that started the task (front ends that show their own input may
    /// ignore it; a resumed transcript shows it).
    UserMessage {
        /// The message text.
        text: String,
    },
    /// The session continues a logged one: these events re-render its transcript, in order.
    /// Sent right after `session_configured`.
    SessionResumed {
        /// The session file.
        path: PathBuf,
        /// Transcript events (messages, tool calls, plan updates, plan mode, token counts).
        replay: Vec<EventMsg>,
    },
    /// A delegated sub-agent run started (`delegate_agent`).
    DelegateStarted {
        /// Id of this run.
        run_id: String,
        /// The run that delegated it, when a sub-agent delegated further.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_run_id: Option<String>,
        /// The agent's id.
        agent_id: String,
        /// What it was asked.
        prompt: String,
    },
    /// A piece of a delegated run's answer.
    DelegateDelta {
        /// The run.
        run_id: String,
        /// Text to append.
        text: String,
    },
    /// Something a delegated run did (a tool call, a plan update, a message), tagged with it.
    DelegateEvent {
        /// The run.
        run_id: String,
        /// The run's own event.
        event: Box<EventMsg>,
    },
    /// A delegated run finished.
    DelegateCompleted {
        /// The run.
        run_id: String,
        /// Its final answer.
        summary: String,
        /// How long it ran.
        duration_ms: u64,
    },
    /// A delegated run failed (error, timeout, interrupt, turn limit).
    DelegateFailed {
        /// The run.
        run_id: String,
        /// Why, in words.
        error: String,
    },
    /// The older conversation was replaced by a summary to free context.
    ContextCompacted {
        /// Estimated tokens of the history before.
        tokens_before: u64,
        /// Estimated tokens after.
        tokens_after: u64,
    },
    /// A piece of the assistant's answer. After a [`EventMsg::StreamError`] the current
    /// message restarts: front ends drop the deltas received since the last complete message.
    AgentMessageDelta {
        /// The text to append.
        delta: String,
    },
    /// A complete assistant message.
    AgentMessage {
        /// The whole text.
        message: String,
    },
    /// A piece of the model's reasoning summary.
    ReasoningDelta {
        /// The text to append.
        delta: String,
    },
    /// A tool call is about to run.
    ToolCallBegin {
        /// The model's id for the call.
        call_id: String,
        /// Tool name.
        name: String,
        /// The raw JSON arguments the model sent.
        arguments: String,
        /// One line saying what the call does (the tool's `describe()`).
        description: String,
    },
    /// A tool call finished.
    ToolCallEnd {
        /// The model's id for the call.
        call_id: String,
        /// Tool name.
        name: String,
        /// What the model receives.
        output: String,
        /// False when the call failed or was refused.
        success: bool,
        /// How long it ran.
        duration_ms: u64,
    },
    /// A file change (write_file, edit_file, apply_patch) was applied; sent before its
    /// [`EventMsg::ToolCallEnd`].
    PatchApplied {
        /// The tool call that made the change.
        call_id: String,
        /// The unified diff that was applied.
        diff: String,
        /// True when the approval policy allowed the change without asking, so the user has
        /// not seen the diff yet.
        auto_approved: bool,
    },
    /// A command needs the user's approval; answer with [`Op::ExecApproval`].
    ExecApprovalRequest {
        /// The tool call waiting for the answer.
        call_id: String,
        /// The command as the model wrote it.
        command: String,
        /// Where it would run.
        cwd: PathBuf,
        /// The tool's one-sentence description ("Would run `cargo test` in crates/core").
        description: String,
        /// What [`ReviewDecision::ApprovedForSession`] would cover, in words ("this exact
        /// command"); absent when this request cannot be approved for the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        for_session: Option<String>,
        /// A whole-word prefix of the command the user may approve for the session instead
        /// ([`ReviewDecision::ApprovedPrefixForSession`]); absent when none is offered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_prefix: Option<String>,
        /// Why this call is asked under every policy but `never` (cairn's settings, a
        /// start-up file, a secret), when it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A file change needs the user's approval; answer with [`Op::PatchApproval`].
    PatchApprovalRequest {
        /// The tool call waiting for the answer.
        call_id: String,
        /// The files that would change.
        paths: Vec<PathBuf>,
        /// Unified diff of the change.
        diff: String,
        /// The tool's one-sentence description ("Would edit src/lib.rs (+3 -1)").
        description: String,
        /// What [`ReviewDecision::ApprovedForSession`] would cover, in words; absent when
        /// this request cannot be approved for the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        for_session: Option<String>,
        /// Why this change is asked under every policy but `never`, when it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A read outside the workspace (or of a secret) needs the user's approval; answer with
    /// [`Op::ReadApproval`].
    ReadApprovalRequest {
        /// The tool call waiting for the answer.
        call_id: String,
        /// The files or directories that would be read.
        paths: Vec<PathBuf>,
        /// The tool's one-sentence description ("Would read /etc/hosts").
        description: String,
        /// What [`ReviewDecision::ApprovedForSession`] would cover, in words; absent when
        /// this request cannot be approved for the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        for_session: Option<String>,
        /// Why this read is asked under every policy but `never` (a secret), when it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A call of an MCP server's tool needs the user's approval; answer with
    /// [`Op::McpToolApproval`].
    McpToolApprovalRequest {
        /// The tool call waiting for the answer.
        call_id: String,
        /// The `[mcp_servers.<name>]` name of the server.
        server: String,
        /// The server's own name for the tool.
        tool: String,
        /// The JSON arguments the model sent.
        arguments: String,
        /// One sentence saying what the call would do.
        description: String,
        /// The server's `readOnlyHint` for the tool: shown to the user, never trusted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        read_only_hint: Option<bool>,
        /// What [`ReviewDecision::ApprovedForSession`] would cover, in words; absent when
        /// this request cannot be approved for the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        for_session: Option<String>,
    },
    /// A `web_fetch` of a host not in `[tools.web] allowed_hosts` needs the user's approval
    /// (under `untrusted`); answer with [`Op::WebFetchApproval`].
    WebFetchApprovalRequest {
        /// The tool call waiting for the answer.
        call_id: String,
        /// The full URL that would be fetched.
        url: String,
        /// Its host (what approving for the session covers).
        host: String,
        /// One sentence saying what the call would do.
        description: String,
        /// What [`ReviewDecision::ApprovedForSession`] would cover, in words ("fetches from
        /// docs.rs"); absent when this request cannot be approved for the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        for_session: Option<String>,
    },
    /// The model asks the user questions; answer with [`Op::UserQuestionAnswer`].
    UserQuestionRequest {
        /// The tool call waiting for the answer.
        call_id: String,
        /// The questions.
        questions: Vec<UserQuestion>,
    },
    /// The plan changed; carries the whole plan.
    PlanUpdate(Plan),
    /// Plan mode is on.
    PlanModeEntered {
        /// The only file the model may write until the plan is approved.
        plan_file_path: PathBuf,
    },
    /// The model finished its plan and waits for [`Op::PlanModeApproval`].
    PlanModeExitRequest {
        /// The plan as written.
        plan_content: String,
        /// Where it is.
        plan_file_path: PathBuf,
    },
    /// A structured plan (`create_plan`, or a `revise` that changed its steps) waits for the
    /// user's [`Op::PlanApproval`] before the model may work on it (`[tools]
    /// require_plan_approval = true`).
    PlanApprovalRequest {
        /// The tool call waiting for the answer.
        call_id: String,
        /// The plan's id.
        plan_id: String,
        /// The plan as Markdown.
        plan_content: String,
        /// The plan document (what `e` opens in the editor).
        plan_file_path: PathBuf,
    },
    /// The plan review ended: approved (plan mode ended), sent back (still planning), or
    /// the user left plan mode without approving.
    PlanModeExited {
        /// Whether the user approved.
        approved: bool,
        /// Whether plan mode is still on: true only when the plan was sent back. (Absent in
        /// session logs written before it existed.)
        #[serde(default)]
        active: bool,
    },
    /// Token use after a model response.
    TokenCount(TokenUsage),
    /// A transient failure; the core retries.
    StreamError {
        /// What went wrong and what happens next ("Reconnecting... 2/5").
        message: String,
    },
    /// Information for the user that is neither an answer nor an error.
    Notice {
        /// The text.
        message: String,
    },
    /// A failure that ended the turn (or a request that could not be served).
    Error {
        /// One clear sentence: what failed and what to check.
        message: String,
    },
    /// The task was interrupted or aborted.
    TurnAborted {
        /// Why.
        reason: TurnAbortReason,
    },
    /// The task ended normally.
    TaskComplete {
        /// The last assistant message, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_agent_message: Option<String>,
    },
    /// The MCP servers' status, in name order (the answer to [`Op::ListMcpServers`]).
    McpServers {
        /// Every configured server.
        servers: Vec<McpServerStatus>,
    },
    /// The models the current provider offers (the answer to [`Op::ListModels`]).
    ModelsListed {
        /// The model the session uses now.
        current: String,
        /// The current model first, then the session's recently used models, the configured
        /// ones (config.toml, agents) and the server's list, each id once. When the server
        /// could not be asked, only the models known locally.
        models: Vec<ModelInfo>,
        /// Why the server's list is missing, in words a user can act on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// The session ended after [`Op::Shutdown`].
    ShutdownComplete,
}

/// Why a task stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnAbortReason {
    /// The user interrupted.
    Interrupted,
    /// The user answered an approval with abort.
    ApprovalAborted,
}

/// One question of `ask_user_question`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserQuestion {
    /// The question.
    pub question: String,
    /// Suggested answers; the user may also type their own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

/// What a session runs with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionConfiguredEvent {
    /// Id of the conversation (uuid v7).
    pub conversation_id: String,
    /// Model name.
    pub model: String,
    /// Provider key, or `None` when none is configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Working directory.
    pub cwd: PathBuf,
    /// Approval policy in force.
    pub approval_policy: ApprovalPolicy,
    /// `checklist` or `structured`.
    pub planning: String,
}

/// Token accounting for one response and the session so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Prompt tokens of the last request.
    pub input_tokens: u64,
    /// Completion tokens of the last response.
    pub output_tokens: u64,
    /// Sum of input and output tokens over the session.
    pub total_tokens: u64,
    /// The model's context window, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_tagged_snake_case() {
        let event = Event {
            id: "1".into(),
            msg: EventMsg::AgentMessageDelta { delta: "hi".into() },
        };
        assert_eq!(
            serde_json::to_string(&event).unwrap(),
            r#"{"id":"1","msg":{"type":"agent_message_delta","delta":"hi"}}"#
        );
        let plan = Event {
            id: "1".into(),
            msg: EventMsg::PlanUpdate(Plan::default()),
        };
        assert_eq!(
            serde_json::to_string(&plan).unwrap(),
            r#"{"id":"1","msg":{"type":"plan_update","plan":[]}}"#
        );
    }

    #[test]
    fn plan_mode_exited_says_whether_plan_mode_is_still_on() {
        let sent_back = EventMsg::PlanModeExited {
            approved: false,
            active: true,
        };
        assert_eq!(
            serde_json::to_string(&sent_back).unwrap(),
            r#"{"type":"plan_mode_exited","approved":false,"active":true}"#
        );
        // Session logs written before `active` existed still load.
        let old: EventMsg =
            serde_json::from_str(r#"{"type":"plan_mode_exited","approved":true}"#).unwrap();
        assert_eq!(
            old,
            EventMsg::PlanModeExited {
                approved: true,
                active: false
            }
        );
    }

    #[test]
    fn ops_round_trip() {
        let sub = Submission {
            id: "7".into(),
            op: Op::ExecApproval {
                call_id: "c".into(),
                decision: ReviewDecision::Denied { feedback: None },
            },
        };
        let text = serde_json::to_string(&sub).unwrap();
        assert_eq!(
            text,
            r#"{"id":"7","op":{"type":"exec_approval","call_id":"c","decision":{"type":"denied"}}}"#
        );
        assert_eq!(serde_json::from_str::<Submission>(&text).unwrap(), sub);
    }
}

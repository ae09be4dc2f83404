//! State shared by the submission loop, the running task and tool calls.

use crate::approval::ApprovalCache;
use crate::client::{ModelClient, client_for};
use crate::config::{Config, probe_ollama};
use crate::history::History;
use crate::plan_mode::PlanModeState;
use crate::plans::PlanStore;
use crate::rollout::{PlanModeSnapshot, Recorder, StateSnapshot};
use cairn_protocol::{ApprovalPolicy, Plan, ReviewDecision, TokenUsage};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::oneshot;

/// Settings the user can change between turns.
#[derive(Debug, Clone)]
pub struct TurnSettings {
    /// Model name.
    pub model: String,
    /// Approval policy.
    pub approval_policy: ApprovalPolicy,
}

/// A user's answer to something a tool call waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Approval decision.
    Review(ReviewDecision),
    /// Answers to `ask_user_question`.
    Answers(Vec<String>),
    /// Plan-mode approval.
    PlanDecision {
        /// Approved or not.
        approved: bool,
        /// Message to the model.
        feedback: Option<String>,
    },
}

/// What a reply answers. Plan approval has its own key, so no call id a model chooses can
/// collide with it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ReplyKey {
    /// An approval request or a question of the tool call with this id.
    Call(String),
    /// The plan-mode exit request.
    PlanApproval,
}

/// Tool calls waiting for the user.
#[derive(Debug, Default)]
pub struct Replies {
    waiting: Mutex<HashMap<ReplyKey, oneshot::Sender<Reply>>>,
}

impl Replies {
    /// Wait for the reply to `key`. Returns `None` when something already waits for it (a
    /// second call may not take over the first one's answer).
    pub fn register(&self, key: ReplyKey) -> Option<oneshot::Receiver<Reply>> {
        let mut waiting = lock(&self.waiting);
        if waiting.get(&key).is_some_and(|tx| !tx.is_closed()) {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        waiting.insert(key, tx);
        Some(rx)
    }

    /// Deliver a reply; false when nothing waits for `key`.
    pub fn resolve(&self, key: &ReplyKey, reply: Reply) -> bool {
        match lock(&self.waiting).remove(key) {
            Some(tx) => tx.send(reply).is_ok(),
            None => false,
        }
    }

    /// Whether something waits for `key`.
    pub fn is_waiting(&self, key: &ReplyKey) -> bool {
        lock(&self.waiting)
            .get(key)
            .is_some_and(|tx| !tx.is_closed())
    }

    /// Forget everything waiting (the task ended).
    pub fn clear(&self) {
        lock(&self.waiting).clear();
    }
}

/// Lock a mutex, recovering the data if a panicking thread poisoned it.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A provider found by local detection after the session started.
pub struct Detected {
    /// Its client.
    pub client: Arc<dyn ModelClient>,
    /// The line telling the user what was found.
    pub notice: String,
}

/// Session state behind an `Arc`.
pub struct SessionShared {
    /// Configuration the session started with.
    pub config: Config,
    /// The model client, `None` when no provider is configured.
    pub client: Option<Arc<dyn ModelClient>>,
    /// Result of looking for a local provider when none was configured; use
    /// [`SessionShared::model_client`] rather than reading this.
    pub detected: tokio::sync::OnceCell<Option<Detected>>,
    /// False for `cairn exec`: nobody can answer approvals or questions.
    pub interactive: bool,
    /// Conversation id (uuid v7).
    pub conversation_id: String,
    /// Model and approval policy.
    pub settings: Mutex<TurnSettings>,
    /// The conversation.
    pub history: Mutex<History>,
    /// Plan mode.
    pub plan_mode: Mutex<PlanModeState>,
    /// Tool calls waiting for the user.
    pub replies: Arc<Replies>,
    /// Keys approved for the session.
    pub approvals: Mutex<ApprovalCache>,
    /// Stored plans.
    pub plans: PlanStore,
    /// Id of the session's current structured plan.
    pub current_plan: Mutex<Option<String>>,
    /// Token use so far.
    pub usage: Mutex<TokenUsage>,
    /// The last checklist or structured plan shown (kept by the event sink).
    pub last_plan: Arc<Mutex<Option<Plan>>>,
    /// The session log, when there is one.
    pub recorder: Option<Recorder>,
    /// Tasks started so far.
    pub turns: AtomicU64,
    /// The state last written to the session log.
    logged_state: Mutex<Option<StateSnapshot>>,
    /// The last usage report (input + output tokens) and the history length it covered.
    pub usage_mark: Mutex<Option<(u64, usize)>>,
    /// Where this session stands in a tree of delegated runs.
    pub delegation: Delegation,
    /// Commands the sandbox blocked in this session (normalised text -> what they tried to
    /// touch): only these may be re-run without it, each time with the user's approval.
    pub sandbox_denials: Mutex<HashMap<String, String>>,
    /// The MCP servers, when any are configured (shared with delegated runs).
    pub mcp: Option<Arc<crate::mcp::McpManager>>,
    /// Models this session used before switching away from them, latest first (offered by
    /// `list_models`).
    pub recent_models: Mutex<Vec<String>>,
}

/// A session's place in the delegation tree: the agents it may delegate to, how deep it is,
/// and the restrictions it inherited.
#[derive(Debug, Clone)]
pub struct Delegation {
    /// Agents `delegate_agent` may run.
    pub agents: Arc<crate::agents::AgentRegistry>,
    /// 0 for the user's session, 1 for its delegates, ...
    pub depth: usize,
    /// Set for a delegated run.
    pub run: Option<RunInfo>,
    /// Delegated runs now running in the whole tree (shared by every session of the tree).
    pub running: Arc<std::sync::atomic::AtomicUsize>,
    /// Only read-only tools, enforced by the dispatcher.
    pub read_only: bool,
    /// Tools this session may use at all (its parent's, intersected with its agent's);
    /// `None` for the user's session.
    pub allowed_tools: Option<Arc<std::collections::HashSet<String>>>,
    /// Run ids handed out in this tree.
    pub next_run: Arc<AtomicU64>,
}

impl Delegation {
    /// The user's own session.
    pub fn root(config: &Config) -> Self {
        Self {
            agents: Arc::new(crate::agents::AgentRegistry::load(config)),
            depth: 0,
            run: None,
            running: Arc::new(std::sync::atomic::AtomicUsize::new(0)),
            read_only: false,
            allowed_tools: None,
            next_run: Arc::new(AtomicU64::new(1)),
        }
    }
}

/// Who a delegated run is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunInfo {
    /// Its id.
    pub run_id: String,
    /// The run that delegated it.
    pub parent_run_id: Option<String>,
    /// Agent ids from the user's session down to it ("explore", "general/explore").
    pub agent_path: String,
}

impl SessionShared {
    /// New state for `config`, not logged.
    pub fn new(config: Config, client: Option<Arc<dyn ModelClient>>, interactive: bool) -> Self {
        let id = uuid::Uuid::now_v7().to_string();
        Self::with_log(config, client, interactive, id, None)
    }

    /// New state for conversation `conversation_id`, logged by `recorder`.
    pub fn with_log(
        config: Config,
        client: Option<Arc<dyn ModelClient>>,
        interactive: bool,
        conversation_id: String,
        recorder: Option<Recorder>,
    ) -> Self {
        let settings = TurnSettings {
            model: config.model.clone(),
            approval_policy: config.approval_policy,
        };
        let plans = PlanStore::new(config.plans_dir());
        Self {
            plan_mode: Mutex::new(PlanModeState::new(conversation_id.clone())),
            conversation_id,
            client,
            detected: tokio::sync::OnceCell::new(),
            interactive,
            settings: Mutex::new(settings),
            history: Mutex::new(History::new(Vec::new(), recorder.clone())),
            replies: Arc::new(Replies::default()),
            approvals: Mutex::new(ApprovalCache::default()),
            plans,
            current_plan: Mutex::new(None),
            usage: Mutex::new(TokenUsage {
                context_window: crate::compact::window::context_window(
                    &config.model,
                    config.model_context_window,
                ),
                ..TokenUsage::default()
            }),
            last_plan: Arc::new(Mutex::new(None)),
            recorder,
            turns: AtomicU64::new(0),
            logged_state: Mutex::new(None),
            usage_mark: Mutex::new(None),
            delegation: Delegation::root(&config),
            sandbox_denials: Mutex::new(HashMap::new()),
            mcp: None,
            recent_models: Mutex::new(Vec::new()),
            config,
        }
    }

    /// True when `tool` is an MCP tool the user configured read-only: offered in plan mode
    /// and to read-only runs, run without asking.
    pub fn mcp_read_only(&self, tool: &str) -> bool {
        self.mcp.as_ref().is_some_and(|m| m.is_read_only(tool))
    }

    /// The current model's context window, when known.
    pub fn context_window(&self) -> Option<u64> {
        crate::compact::window::context_window(
            &self.settings().model,
            self.config.model_context_window,
        )
    }

    /// The state the session log would record now.
    pub fn snapshot(&self) -> StateSnapshot {
        let plan_mode = PlanModeSnapshot::of(&lock(&self.plan_mode));
        let plan_status = if plan_mode.active {
            Some("plan mode".to_string())
        } else {
            lock(&self.last_plan).as_ref().and_then(|plan| {
                let total = plan.plan.len();
                let done = plan
                    .plan
                    .iter()
                    .filter(|s| s.status == cairn_protocol::PlanStepStatus::Completed)
                    .count();
                (total > 0).then(|| format!("{done}/{total} steps"))
            })
        };
        StateSnapshot {
            plan_mode,
            current_plan: lock(&self.current_plan).clone(),
            turns: self.turns.load(Ordering::Relaxed),
            plan_status,
            usage: *lock(&self.usage),
        }
    }

    /// Log the state if it changed since it was last logged.
    pub fn record_state(&self) {
        let Some(recorder) = &self.recorder else {
            return;
        };
        let now = self.snapshot();
        let mut logged = lock(&self.logged_state);
        if logged.as_ref() != Some(&now) {
            recorder.state(now.clone());
            *logged = Some(now);
        }
    }

    /// Mark `state` as already in the log (a resumed session).
    pub fn set_logged_state(&self, state: StateSnapshot) {
        *lock(&self.logged_state) = Some(state);
    }

    /// Current settings.
    pub fn settings(&self) -> TurnSettings {
        lock(&self.settings).clone()
    }

    /// The client to talk to: the configured one, else whatever local detection finds
    /// (waiting for a detection already under way).
    pub async fn model_client(&self) -> Option<Arc<dyn ModelClient>> {
        if let Some(client) = &self.client {
            return Some(client.clone());
        }
        self.detect_local().await.map(|d| d.client.clone())
    }

    /// Look for a local Ollama once, if the config asks for it; later callers get the first
    /// caller's result. Switches the session's model to one the server has installed.
    pub async fn detect_local(&self) -> Option<&Detected> {
        if self.client.is_some() || !self.config.detect_local {
            return None;
        }
        let detected = self.detected.get_or_init(|| async {
            let found = probe_ollama(&self.config).await?;
            lock(&self.settings).model = found.model.clone();
            let mut config = self.config.clone();
            found.apply(&mut config);
            Some(Detected {
                client: client_for(&config, &found.provider),
                notice: found.notice(),
            })
        });
        detected.await.as_ref()
    }
}

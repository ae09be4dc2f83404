//! State shared by the submission loop, the running task and tool calls.

use crate::approval::ApprovalCache;
use crate::client::{ModelClient, client_for};
use crate::config::{Config, probe_ollama};
use crate::history::ResponseItem;
use crate::plan_mode::PlanModeState;
use crate::plans::PlanStore;
use cairn_protocol::{ApprovalPolicy, ReviewDecision, TokenUsage};
use std::collections::HashMap;
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
    pub history: Mutex<Vec<ResponseItem>>,
    /// Plan mode.
    pub plan_mode: Mutex<PlanModeState>,
    /// Tool calls waiting for the user.
    pub replies: Replies,
    /// Keys approved for the session.
    pub approvals: Mutex<ApprovalCache>,
    /// Stored plans.
    pub plans: PlanStore,
    /// Id of the session's current structured plan.
    pub current_plan: Mutex<Option<String>>,
    /// Token use so far.
    pub usage: Mutex<TokenUsage>,
}

impl SessionShared {
    /// New state for `config`.
    pub fn new(config: Config, client: Option<Arc<dyn ModelClient>>, interactive: bool) -> Self {
        let conversation_id = uuid::Uuid::now_v7().to_string();
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
            history: Mutex::new(Vec::new()),
            replies: Replies::default(),
            approvals: Mutex::new(ApprovalCache::default()),
            plans,
            current_plan: Mutex::new(None),
            usage: Mutex::new(TokenUsage::default()),
            config,
        }
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

//! The session: a tokio task behind a submission queue and an event queue.
//!
//! [`spawn`] starts it and returns a [`SessionHandle`]. The submission loop owns the queue;
//! each user message runs as a task (see [`task`]) while the loop keeps serving interrupts,
//! approvals and answers. Messages that arrive during a task run after it, in order.

pub(crate) mod delegate;
mod dispatch;
mod models;
mod plan_review;
pub mod shared;
mod submission;
mod task;
mod user_shell;

use crate::client::client_for;
use crate::config::{Config, HistoryPersistence, NO_PROVIDER_GUIDANCE};
use crate::history::History;
use crate::rollout::{self, LoadedSession, LockError, Recorder, SessionMeta};
use crate::tools::ToolRegistry;
use cairn_protocol::{Event, EventMsg, Op, Plan, SessionConfiguredEvent, Submission};
use shared::{SessionShared, lock};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::mpsc;

/// Sends events tagged with a submission id. Every event passes here, so this is also where
/// the session log and the session's view of the current plan see them.
#[derive(Debug, Clone)]
pub struct EventSink {
    tx: mpsc::UnboundedSender<Event>,
    recorder: Option<Recorder>,
    last_plan: Option<Arc<std::sync::Mutex<Option<Plan>>>>,
    /// Set for a delegated run: its events reach the parent's front end tagged with it.
    run_id: Option<String>,
}

impl EventSink {
    /// A sink and the receiver of its events.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<Event>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            Self {
                tx,
                recorder: None,
                last_plan: None,
                run_id: None,
            },
            rx,
        )
    }

    /// This sink, also logging to `shared`'s session log and keeping its last plan.
    fn observed_by(mut self, shared: &SessionShared) -> Self {
        self.recorder = shared.recorder.clone();
        self.last_plan = Some(shared.last_plan.clone());
        self
    }

    /// The sink of a delegated run `run_id` of `child`: its events go to this sink's front
    /// end (and log), tagged with the run; its plan is its own.
    pub(crate) fn for_delegate(&self, run_id: &str, child: &SessionShared) -> Self {
        Self {
            tx: self.tx.clone(),
            recorder: self.recorder.clone(),
            last_plan: Some(child.last_plan.clone()),
            run_id: Some(run_id.to_string()),
        }
    }

    /// This sink without the session log: for what concerns only this run of cairn.
    fn unlogged(&self) -> Self {
        Self {
            recorder: None,
            ..self.clone()
        }
    }

    /// Send `msg` for submission `id`. A closed receiver is ignored: the front end has gone.
    pub fn send(&self, id: &str, msg: EventMsg) {
        if let EventMsg::PlanUpdate(plan) = &msg
            && let Some(last) = &self.last_plan
        {
            *lock(last) = Some(plan.clone());
        }
        let msg = match &self.run_id {
            Some(run_id) => match delegate::tag(run_id, msg) {
                Some(msg) => msg,
                None => return,
            },
            None => msg,
        };
        if let Some(recorder) = &self.recorder {
            recorder.event(&msg);
        }
        let _ = self.tx.send(Event {
            id: id.to_string(),
            msg,
        });
    }
}

/// How the front end runs the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionOptions {
    /// False for `cairn exec`: approvals that need a human are denied and questions get a
    /// fixed answer.
    pub interactive: bool,
}

/// The front end's end of a session.
pub struct SessionHandle {
    submissions: mpsc::UnboundedSender<Submission>,
    /// Events from the core, in order.
    pub events: mpsc::UnboundedReceiver<Event>,
    next_id: AtomicU64,
    /// The conversation id.
    pub conversation_id: String,
}

impl SessionHandle {
    /// Submit `op`; returns the submission id its events will carry.
    pub fn submit(&self, op: Op) -> String {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed).to_string();
        let _ = self.submissions.send(Submission { id: id.clone(), op });
        id
    }

    /// A cloneable sender, for front ends that submit from several places.
    pub fn sender(&self) -> SubmissionSender {
        SubmissionSender {
            tx: self.submissions.clone(),
        }
    }
}

/// A cloneable submission sender with caller-chosen ids.
#[derive(Debug, Clone)]
pub struct SubmissionSender {
    tx: mpsc::UnboundedSender<Submission>,
}

impl SubmissionSender {
    /// Submit with an explicit id.
    pub fn send(&self, submission: Submission) {
        let _ = self.tx.send(submission);
    }
}

/// Start a new session for `config`, logged under `$CAIRN_HOME/sessions` unless
/// `[history] persistence = "none"`. Must be called inside a tokio runtime.
pub fn spawn(config: Config, options: SessionOptions) -> SessionHandle {
    let conversation_id = uuid::Uuid::now_v7().to_string();
    let mut notices = Vec::new();
    let recorder = if config.history_persistence == HistoryPersistence::SaveAll {
        let started = chrono::Utc::now();
        let path = rollout::session_path(
            &rollout::sessions_dir(&config.cairn_home),
            started,
            &conversation_id,
        );
        match Recorder::create(&path, session_meta(&config, &conversation_id, started)) {
            Ok(recorder) => Some(recorder),
            Err(err) => {
                notices.push(format!(
                    "This session is not being saved: {err}. Check that CAIRN_HOME is writable."
                ));
                None
            }
        }
    } else {
        None
    };
    let shared = SessionShared::with_log(
        config.clone(),
        client_of(&config),
        options.interactive,
        conversation_id,
        recorder,
    );
    start(shared, Resumed::default(), notices)
}

/// Continue the logged session `loaded`: the same history (byte for byte), plan mode, plan
/// file, checklist or structured plan and token counts. Fails when another process has the
/// session open.
pub fn resume(
    config: Config,
    options: SessionOptions,
    loaded: LoadedSession,
) -> Result<SessionHandle, LockError> {
    let conversation_id = loaded
        .meta
        .as_ref()
        .map(|m| m.id.clone())
        .unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    let recorder = if config.history_persistence == HistoryPersistence::SaveAll {
        Some(Recorder::append(&loaded.path)?)
    } else {
        None
    };
    let shared = SessionShared::with_log(
        config.clone(),
        client_of(&config),
        options.interactive,
        conversation_id.clone(),
        recorder.clone(),
    );
    *lock(&shared.history) = History::new(loaded.history, recorder.clone());
    if let Some(recorder) = &recorder {
        for item in &loaded.repaired {
            recorder.item(item);
        }
    }
    *lock(&shared.plan_mode) = loaded.state.plan_mode.restore(&conversation_id);
    *lock(&shared.current_plan) = loaded.state.current_plan.clone();
    *lock(&shared.usage) = loaded.usage;
    *lock(&shared.last_plan) = loaded.plan.clone();
    shared
        .turns
        .store(loaded.state.turns, std::sync::atomic::Ordering::Relaxed);
    shared.set_logged_state(loaded.state.clone());
    let resumed = Resumed {
        path: Some(loaded.path),
        replay: loaded.replay,
    };
    Ok(start(shared, resumed, loaded.warnings))
}

/// What a resumed session shows first.
#[derive(Default)]
struct Resumed {
    path: Option<std::path::PathBuf>,
    replay: Vec<EventMsg>,
}

fn client_of(config: &Config) -> Option<Arc<dyn crate::client::ModelClient>> {
    config
        .provider
        .as_ref()
        .map(|provider| client_for(config, provider))
}

fn session_meta(config: &Config, id: &str, started: chrono::DateTime<chrono::Utc>) -> SessionMeta {
    SessionMeta {
        id: id.to_string(),
        cwd: config.cwd.clone(),
        model: config.model.clone(),
        provider: config.provider.as_ref().map(|p| p.id.clone()),
        wire_api: config
            .provider
            .as_ref()
            .map(|p| p.wire_api.as_str().to_string()),
        cairn_version: env!("CARGO_PKG_VERSION").to_string(),
        git_branch: None,
        git_head: None,
        started_at: started.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
    }
}

fn start(mut shared: SessionShared, resumed: Resumed, notices: Vec<String>) -> SessionHandle {
    let (sub_tx, sub_rx) = mpsc::unbounded_channel();
    let (events, event_rx) = EventSink::channel();
    let events = events.observed_by(&shared);
    if !shared.config.mcp_servers.is_empty() {
        // Started now, in the background; a turn waits only for servers still starting.
        // Their reports are about this run, so they stay out of the session log.
        shared.mcp = Some(crate::mcp::McpManager::start(
            &shared.config.mcp_servers,
            events.unlogged(),
        ));
    }
    let registry = Arc::new(ToolRegistry::for_session(
        &shared.config,
        &shared.delegation,
    ));
    let shared = Arc::new(shared);
    let conversation_id = shared.conversation_id.clone();
    tokio::spawn(async move {
        configure(&shared, &events, resumed, notices);
        submission::run(shared, registry, sub_rx, events).await;
    });
    SessionHandle {
        submissions: sub_tx,
        events: event_rx,
        next_id: AtomicU64::new(1),
        conversation_id,
    }
}

/// The first events: `session_configured`, the resumed transcript, notices.
fn configure(
    shared: &Arc<SessionShared>,
    events: &EventSink,
    resumed: Resumed,
    notices: Vec<String>,
) {
    let config = &shared.config;
    // Sent straight to the front end: the log already holds these.
    let direct = EventSink {
        recorder: None,
        ..events.clone()
    };
    direct.send(
        "",
        EventMsg::SessionConfigured(SessionConfiguredEvent {
            conversation_id: shared.conversation_id.clone(),
            model: shared.settings().model,
            provider: config.provider.as_ref().map(|p| p.id.clone()),
            cwd: config.cwd.clone(),
            approval_policy: config.approval_policy,
            planning: config.planning.as_str().to_string(),
        }),
    );
    if let Some(path) = resumed.path {
        direct.send(
            "",
            EventMsg::SessionResumed {
                path,
                replay: resumed.replay,
            },
        );
    }
    for message in notices {
        direct.send("", EventMsg::Notice { message });
    }
    if config.provider.is_none() {
        if config.detect_local {
            tokio::spawn(announce_local_provider(shared.clone(), events.clone()));
        } else {
            direct.send(
                "",
                EventMsg::Notice {
                    message: NO_PROVIDER_GUIDANCE.to_string(),
                },
            );
        }
    }
}

/// Look for a local provider off the start-up path and say what came of it.
async fn announce_local_provider(shared: Arc<SessionShared>, events: EventSink) {
    let message = match shared.detect_local().await {
        Some(found) => found.notice.clone(),
        None => NO_PROVIDER_GUIDANCE.to_string(),
    };
    events.send("", EventMsg::Notice { message });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::providers::{ProviderToml, resolve};
    use crate::tools::{ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec};
    use async_trait::async_trait;
    use cairn_mock_model::{MockResponse, MockServer, chat};
    use std::collections::BTreeMap;
    use std::time::Duration;

    struct PanickingTool;

    #[async_trait]
    impl ToolHandler for PanickingTool {
        fn spec(&self) -> ToolSpec {
            ToolSpec {
                name: "crash".into(),
                description: "panics".into(),
                parameters: serde_json::json!({"type": "object"}),
            }
        }
        fn describe(&self, _arguments: &str) -> String {
            "Would crash".into()
        }
        async fn handle(&self, _call: &ToolCall, _ctx: &ToolContext) -> Result<String, ToolError> {
            let empty: Vec<String> = Vec::new();
            Ok(empty[1].clone())
        }
    }

    #[tokio::test]
    async fn a_panicking_tool_ends_its_task_with_an_error_and_the_session_goes_on() {
        let server = MockServer::start(vec![
            MockResponse::sse(chat::tool_calls(&[("c1", "crash", serde_json::json!({}))])),
            MockResponse::sse(chat::text("still here")),
        ])
        .await;
        let home = tempfile::tempdir().unwrap();
        let mut config = Config::for_test(home.path(), home.path());
        let mut providers = BTreeMap::new();
        providers.insert(
            "mock".to_string(),
            ProviderToml {
                base_url: Some(server.base_url()),
                ..ProviderToml::default()
            },
        );
        config.provider = Some(resolve("mock", &providers, &|_| None).unwrap());
        let client = config.provider.as_ref().map(|p| client_for(&config, p));
        let mut builder = ToolRegistry::builder();
        builder.register(PanickingTool);
        let registry = Arc::new(builder.build());
        let shared = Arc::new(SessionShared::new(config, client, true));
        let (sub_tx, sub_rx) = mpsc::unbounded_channel();
        let (events, mut event_rx) = EventSink::channel();
        tokio::spawn(submission::run(shared, registry, sub_rx, events));
        for (id, text) in [("1", "crash please"), ("2", "hello?")] {
            sub_tx
                .send(Submission {
                    id: id.into(),
                    op: Op::UserInput { text: text.into() },
                })
                .unwrap();
        }
        let mut ends = Vec::new();
        while ends.len() < 2 {
            let event = tokio::time::timeout(Duration::from_secs(10), event_rx.recv())
                .await
                .expect("the session hung")
                .unwrap();
            match event.msg {
                EventMsg::Error { message } => ends.push((event.id, message)),
                EventMsg::TaskComplete { last_agent_message } => {
                    ends.push((event.id, last_agent_message.unwrap_or_default()))
                }
                _ => {}
            }
        }
        assert_eq!(ends[0].0, "1");
        assert!(ends[0].1.contains("internal error"), "{}", ends[0].1);
        assert_eq!(ends[1], ("2".to_string(), "still here".to_string()));
        // The crashed call was answered, so the second request is valid.
        server.assert_no_violations();
    }
}

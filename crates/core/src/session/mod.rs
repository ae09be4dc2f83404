//! The session: a tokio task behind a submission queue and an event queue.
//!
//! [`spawn`] starts it and returns a [`SessionHandle`]. The submission loop owns the queue;
//! each user message runs as a task (see [`task`]) while the loop keeps serving interrupts,
//! approvals and answers. Messages that arrive during a task run after it, in order.

mod dispatch;
pub mod shared;
mod task;

use crate::client::client_for;
use crate::config::{Config, NO_PROVIDER_GUIDANCE};
use crate::tools::ToolRegistry;
use cairn_protocol::{Event, EventMsg, Op, SessionConfiguredEvent, Submission, TurnAbortReason};
use shared::{Reply, ReplyKey, SessionShared, lock};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Sends events tagged with a submission id.
#[derive(Debug, Clone)]
pub struct EventSink(mpsc::UnboundedSender<Event>);

impl EventSink {
    /// A sink and the receiver of its events.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<Event>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self(tx), rx)
    }

    /// Send `msg` for submission `id`. A closed receiver is ignored: the front end has gone.
    pub fn send(&self, id: &str, msg: EventMsg) {
        let _ = self.0.send(Event {
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

/// Start a session for `config`. Must be called inside a tokio runtime.
pub fn spawn(config: Config, options: SessionOptions) -> SessionHandle {
    let (sub_tx, sub_rx) = mpsc::unbounded_channel();
    let (events, event_rx) = EventSink::channel();
    let client = config
        .provider
        .as_ref()
        .map(|provider| client_for(&config, provider));
    let registry = Arc::new(ToolRegistry::for_config(&config));
    let shared = Arc::new(SessionShared::new(config, client, options.interactive));
    let conversation_id = shared.conversation_id.clone();
    tokio::spawn(submission_loop(shared, registry, sub_rx, events));
    SessionHandle {
        submissions: sub_tx,
        events: event_rx,
        next_id: AtomicU64::new(1),
        conversation_id,
    }
}

struct RunningTask {
    cancel: CancellationToken,
}

async fn submission_loop(
    shared: Arc<SessionShared>,
    registry: Arc<ToolRegistry>,
    mut submissions: mpsc::UnboundedReceiver<Submission>,
    events: EventSink,
) {
    let config = &shared.config;
    events.send(
        "",
        EventMsg::SessionConfigured(SessionConfiguredEvent {
            conversation_id: shared.conversation_id.clone(),
            model: config.model.clone(),
            provider: config.provider.as_ref().map(|p| p.id.clone()),
            cwd: config.cwd.clone(),
            approval_policy: config.approval_policy,
            planning: config.planning.as_str().to_string(),
        }),
    );
    if config.provider.is_none() {
        if config.detect_local {
            tokio::spawn(announce_local_provider(shared.clone(), events.clone()));
        } else {
            events.send(
                "",
                EventMsg::Notice {
                    message: NO_PROVIDER_GUIDANCE.to_string(),
                },
            );
        }
    }

    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<TaskEnd>();
    let mut running: Option<RunningTask> = None;
    let mut queued: VecDeque<(String, String)> = VecDeque::new();

    loop {
        tokio::select! {
            // A finished task is handled before any submission that was sent after seeing its
            // end, so nothing is judged against a task that already ended.
            biased;
            Some(TaskEnd { sub_id, msg }) = done_rx.recv() => {
                running = None;
                shared.replies.clear();
                // The loop emits the terminal event itself, after clearing `running` and before
                // the next task starts, so events of consecutive tasks never interleave.
                events.send(&sub_id, msg);
                if let Some((id, text)) = queued.pop_front() {
                    running = Some(start_task(&shared, &registry, &events, &done_tx, id, text));
                }
            }
            submission = submissions.recv() => {
                let Some(Submission { id, op }) = submission else {
                    // Front end gone: stop whatever runs and end.
                    if let Some(task) = running.take() {
                        task.cancel.cancel();
                    }
                    break;
                };
                match op {
                    Op::UserInput { text } => {
                        if running.is_some() {
                            queued.push_back((id, text));
                        } else {
                            running = Some(start_task(&shared, &registry, &events, &done_tx, id, text));
                        }
                    }
                    Op::Interrupt => {
                        // Messages queued behind the task are dropped with it; each still gets
                        // its terminal event so no front end waits for it forever.
                        for (queued_id, _) in queued.drain(..) {
                            events.send(&queued_id, EventMsg::TurnAborted { reason: TurnAbortReason::Interrupted });
                        }
                        if let Some(task) = &running {
                            task.cancel.cancel();
                        }
                    }
                    Op::ExecApproval { call_id, decision }
                    | Op::PatchApproval { call_id, decision }
                    | Op::ReadApproval { call_id, decision } => {
                        shared.replies.resolve(&ReplyKey::Call(call_id), Reply::Review(decision));
                    }
                    Op::UserQuestionAnswer { call_id, answers } => {
                        shared.replies.resolve(&ReplyKey::Call(call_id), Reply::Answers(answers));
                    }
                    Op::PlanModeApproval { approved, feedback } => {
                        let delivered = shared
                            .replies
                            .resolve(&ReplyKey::PlanApproval, Reply::PlanDecision { approved, feedback });
                        if !delivered {
                            events.send(&id, EventMsg::Error {
                                message: "No plan is waiting for approval.".to_string(),
                            });
                        }
                    }
                    Op::SetPlanMode { active } => {
                        set_plan_mode(&shared, &events, &id, active, running.is_some());
                    }
                    Op::OverrideTurnContext { model, approval_policy } => {
                        let mut settings = lock(&shared.settings);
                        if let Some(model) = model {
                            settings.model = model;
                        }
                        if let Some(policy) = approval_policy {
                            settings.approval_policy = policy;
                        }
                    }
                    Op::Shutdown => {
                        if let Some(task) = running.take() {
                            task.cancel.cancel();
                        }
                        events.send(&id, EventMsg::ShutdownComplete);
                        break;
                    }
                }
            }
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

/// How a task ended: its id and its terminal event, emitted by the submission loop.
struct TaskEnd {
    sub_id: String,
    msg: EventMsg,
}

fn start_task(
    shared: &Arc<SessionShared>,
    registry: &Arc<ToolRegistry>,
    events: &EventSink,
    done: &mpsc::UnboundedSender<TaskEnd>,
    sub_id: String,
    text: String,
) -> RunningTask {
    let cancel = CancellationToken::new();
    let task = task::Task {
        shared: shared.clone(),
        registry: registry.clone(),
        events: events.clone(),
        sub_id: sub_id.clone(),
        cancel: cancel.clone(),
    };
    let done = done.clone();
    let shared = shared.clone();
    tokio::spawn(async move {
        // The task runs in its own tokio task so a panicking tool ends the task with an error
        // instead of leaving the session "working" forever.
        let msg = match tokio::spawn(task.run(text)).await {
            Ok(msg) => msg,
            Err(err) => {
                tracing::error!(%err, "task crashed");
                task::close_open_calls(
                    &shared,
                    "This call crashed inside cairn and did not finish.",
                );
                EventMsg::Error {
                    message: "cairn hit an internal error and stopped this task; details are in $CAIRN_HOME/logs/cairn.log. Your conversation is kept: send another message to go on.".to_string(),
                }
            }
        };
        let _ = done.send(TaskEnd {
            sub_id: sub_id.clone(),
            msg,
        });
    });
    RunningTask { cancel }
}

fn set_plan_mode(
    shared: &SessionShared,
    events: &EventSink,
    id: &str,
    active: bool,
    task_running: bool,
) {
    if task_running {
        events.send(
            id,
            EventMsg::Error {
                message: "'/plan' is disabled while a task is in progress.".to_string(),
            },
        );
        return;
    }
    let mut state = lock(&shared.plan_mode);
    if active {
        match state.enter(&shared.config.plans_dir(), time::OffsetDateTime::now_utc()) {
            Ok(plan_file_path) => {
                events.send(id, EventMsg::PlanModeEntered { plan_file_path });
            }
            Err(message) => events.send(id, EventMsg::Error { message }),
        }
    } else if state.active {
        state.leave();
        events.send(id, EventMsg::PlanModeExited { approved: false });
    }
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
        tokio::spawn(submission_loop(shared, registry, sub_rx, events));
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

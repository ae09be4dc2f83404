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
use cairn_protocol::{Event, EventMsg, Op, SessionConfiguredEvent, Submission};
use shared::{Reply, SessionShared, lock};
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
    sub_id: String,
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

    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<()>();
    let mut running: Option<RunningTask> = None;
    let mut queued: VecDeque<(String, String)> = VecDeque::new();

    loop {
        tokio::select! {
            Some(()) = done_rx.recv() => {
                running = None;
                shared.replies.clear();
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
                        queued.clear();
                        if let Some(task) = &running {
                            task.cancel.cancel();
                        }
                    }
                    Op::ExecApproval { call_id, decision } | Op::PatchApproval { call_id, decision } => {
                        shared.replies.resolve(&call_id, Reply::Review(decision));
                    }
                    Op::UserQuestionAnswer { call_id, answers } => {
                        shared.replies.resolve(&call_id, Reply::Answers(answers));
                    }
                    Op::PlanModeApproval { approved, feedback } => {
                        let delivered = shared
                            .replies
                            .resolve(crate::plan_mode::APPROVAL_REPLY_KEY, Reply::PlanDecision { approved, feedback });
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

fn start_task(
    shared: &Arc<SessionShared>,
    registry: &Arc<ToolRegistry>,
    events: &EventSink,
    done: &mpsc::UnboundedSender<()>,
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
    tokio::spawn(async move {
        task.run(text).await;
        let _ = done.send(());
    });
    RunningTask { cancel, sub_id }
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

impl RunningTask {
    #[allow(dead_code)]
    fn id(&self) -> &str {
        &self.sub_id
    }
}

//! The submission loop: serves ops in order, runs one task at a time and queues the rest.
//!
//! Approvals, answers and interrupts are served while a task runs; messages, `!` commands
//! and compactions that arrive meanwhile run after it, in order. Each task runs in a tokio
//! task of its own and reports its terminal event back here, so events of consecutive tasks
//! never interleave.

use super::shared::{Reply, ReplyKey, SessionShared, lock};
use super::task::{self, TaskInput};
use super::{EventSink, models, plan_review};
use crate::tools::ToolRegistry;
use cairn_protocol::{EventMsg, Op, Submission, TurnAbortReason};
use std::collections::VecDeque;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Answer to a decision with nothing waiting for it.
const NOTHING_WAITING: &str = "No plan is waiting for approval.";

struct RunningTask {
    cancel: CancellationToken,
}

/// How a task ended: its id and its terminal event, emitted by the submission loop.
struct TaskEnd {
    sub_id: String,
    msg: EventMsg,
}

/// Whether the loop goes on after an op.
enum Flow {
    Continue,
    Stop,
}

struct SubmissionLoop {
    shared: Arc<SessionShared>,
    registry: Arc<ToolRegistry>,
    events: EventSink,
    done: mpsc::UnboundedSender<TaskEnd>,
    running: Option<RunningTask>,
    queued: VecDeque<(String, TaskInput)>,
    /// A review the user reopened with `/plan review`: no call waits for it. Any task that
    /// starts, and any plan-mode change, drops it, so a decision never applies to a state
    /// other than the one the user was shown.
    reopened: Option<plan_review::ReopenedReview>,
}

/// Serve `submissions` until the front end goes away or shuts the session down.
pub(super) async fn run(
    shared: Arc<SessionShared>,
    registry: Arc<ToolRegistry>,
    mut submissions: mpsc::UnboundedReceiver<Submission>,
    events: EventSink,
) {
    let (done, mut done_rx) = mpsc::unbounded_channel::<TaskEnd>();
    let mut state = SubmissionLoop {
        shared,
        registry,
        events,
        done,
        running: None,
        queued: VecDeque::new(),
        reopened: None,
    };
    loop {
        tokio::select! {
            // A finished task is handled before any submission that was sent after seeing its
            // end, so nothing is judged against a task that already ended.
            biased;
            Some(end) = done_rx.recv() => state.task_ended(end),
            submission = submissions.recv() => {
                let Some(Submission { id, op }) = submission else {
                    // Front end gone: stop whatever runs and end.
                    state.stop().await;
                    break;
                };
                if let Flow::Stop = state.handle(id, op).await {
                    break;
                }
            }
        }
    }
}

impl SubmissionLoop {
    fn task_ended(&mut self, TaskEnd { sub_id, msg }: TaskEnd) {
        self.running = None;
        self.shared.replies.clear();
        // The loop emits the terminal event itself, after clearing `running` and before the
        // next task starts, so events of consecutive tasks never interleave.
        self.events.send(&sub_id, msg);
        self.shared.record_state();
        if let Some(recorder) = &self.shared.recorder {
            recorder.sync();
        }
        if let Some((id, input)) = self.queued.pop_front() {
            self.running = Some(self.start_task(id, input));
        }
    }

    /// Start `input` now, or after the running task.
    fn enqueue(&mut self, id: String, input: TaskInput) {
        self.reopened = None;
        if self.running.is_some() {
            self.queued.push_back((id, input));
        } else {
            self.running = Some(self.start_task(id, input));
        }
    }

    fn error(&self, id: &str, message: impl Into<String>) {
        self.events.send(
            id,
            EventMsg::Error {
                message: message.into(),
            },
        );
    }

    async fn stop(&mut self) {
        if let Some(task) = self.running.take() {
            task.cancel.cancel();
        }
        self.shared.record_state();
        if let Some(recorder) = &self.shared.recorder {
            recorder.close().await;
        }
    }

    async fn handle(&mut self, id: String, op: Op) -> Flow {
        let shared = self.shared.clone();
        match op {
            Op::UserInput { text } => self.enqueue(id, TaskInput::User(text)),
            Op::UserShellCommand { command } => self.enqueue(id, TaskInput::UserShell(command)),
            Op::Compact { focus } => self.enqueue(id, TaskInput::Compact(focus)),
            Op::ReviewPlan => match plan_review::reopen(&shared, self.running.is_some()) {
                Ok((review, request)) => {
                    self.reopened = Some(review);
                    self.events.send(&id, request);
                }
                Err(message) => self.error(&id, message),
            },
            Op::Interrupt => {
                // Messages queued behind the task are dropped with it; each still gets its
                // terminal event so no front end waits for it forever.
                for (queued_id, _) in self.queued.drain(..) {
                    self.events.send(
                        &queued_id,
                        EventMsg::TurnAborted {
                            reason: TurnAbortReason::Interrupted,
                        },
                    );
                }
                if let Some(task) = &self.running {
                    task.cancel.cancel();
                }
            }
            Op::ExecApproval { call_id, decision }
            | Op::PatchApproval { call_id, decision }
            | Op::ReadApproval { call_id, decision }
            | Op::McpToolApproval { call_id, decision }
            | Op::WebFetchApproval { call_id, decision } => {
                shared
                    .replies
                    .resolve(&ReplyKey::Call(call_id), Reply::Review(decision));
            }
            Op::UserQuestionAnswer { call_id, answers } => {
                shared
                    .replies
                    .resolve(&ReplyKey::Call(call_id), Reply::Answers(answers));
            }
            Op::PlanModeApproval { approved, feedback } => {
                self.plan_decision(id, approved, feedback)
            }
            Op::PlanApproval {
                call_id,
                approved,
                feedback,
            } => {
                let delivered = shared.replies.resolve(
                    &ReplyKey::Call(call_id),
                    Reply::PlanDecision { approved, feedback },
                );
                if !delivered {
                    self.error(&id, NOTHING_WAITING);
                }
            }
            Op::ListMcpServers => {
                let servers = shared.mcp.as_ref().map(|m| m.status()).unwrap_or_default();
                self.events
                    .unlogged()
                    .send(&id, EventMsg::McpServers { servers });
            }
            Op::ListModels => models::spawn_listing(shared, self.events.clone(), id),
            Op::SetPlanMode { active } => {
                // Leaving (or entering) plan mode answers a reopened review: no plan is
                // approved behind the user's back later.
                self.reopened = None;
                set_plan_mode(&shared, &self.events, &id, active, self.running.is_some());
            }
            Op::OverrideTurnContext {
                model,
                approval_policy,
            } => {
                let mut settings = lock(&shared.settings);
                if let Some(model) = model
                    && model != settings.model
                {
                    let previous = std::mem::replace(&mut settings.model, model);
                    models::remember(&shared, previous);
                }
                if let Some(policy) = approval_policy {
                    settings.approval_policy = policy;
                }
            }
            Op::Shutdown => {
                self.stop().await;
                self.events.send(&id, EventMsg::ShutdownComplete);
                return Flow::Stop;
            }
        }
        Flow::Continue
    }

    /// The user's decision on the plan: to the `exit_plan_mode` call waiting for it, or on a
    /// reopened review, applied here and told to the model in a task of its own.
    fn plan_decision(&mut self, id: String, approved: bool, feedback: Option<String>) {
        let delivered = self.shared.replies.resolve(
            &ReplyKey::PlanApproval,
            Reply::PlanDecision {
                approved,
                feedback: feedback.clone(),
            },
        );
        if delivered {
            self.reopened = None;
            return;
        }
        let Some(review) = self.reopened.take() else {
            self.error(&id, NOTHING_WAITING);
            return;
        };
        match plan_review::decide(&self.shared, &review, approved, feedback.as_deref()) {
            Ok((event, tell)) => {
                self.events.send(&id, event);
                self.shared.record_state();
                if let Some(text) = tell {
                    self.enqueue(id, TaskInput::PlanDecision(text));
                }
            }
            Err(message) => self.error(&id, message),
        }
    }

    fn start_task(&self, sub_id: String, input: TaskInput) -> RunningTask {
        let cancel = CancellationToken::new();
        let task = task::Task {
            shared: self.shared.clone(),
            registry: self.registry.clone(),
            events: self.events.clone(),
            sub_id: sub_id.clone(),
            cancel: cancel.clone(),
            role: None,
            max_rounds: None,
        };
        let done = self.done.clone();
        let shared = self.shared.clone();
        tokio::spawn(async move {
            // The task runs in its own tokio task so a panicking tool ends the task with an error
            // instead of leaving the session "working" forever.
            let msg = match tokio::spawn(task.run(input)).await {
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
        match state.enter(&shared.config.plans_dir(), chrono::Utc::now()) {
            Ok(plan_file_path) => {
                events.send(id, EventMsg::PlanModeEntered { plan_file_path });
                // Say why the shell is missing while planning, so nobody wonders.
                if crate::plan_mode::shell::availability(&shared.config).is_err() {
                    let message = crate::plan_mode::shell::notice(&shared.config);
                    events.send(id, EventMsg::Notice { message });
                }
            }
            Err(message) => events.send(id, EventMsg::Error { message }),
        }
    } else if state.active {
        state.leave();
        events.send(
            id,
            EventMsg::PlanModeExited {
                approved: false,
                active: false,
            },
        );
    }
    drop(state);
    shared.record_state();
}

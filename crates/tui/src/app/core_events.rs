//! Events from the core: each changes the transcript, the bottom pane or the status.

use super::{App, RunningTask};
use crate::bottom::approval::{ApprovalKind, ApprovalRequest, ApprovalView};
use crate::bottom::plan_review::PlanReviewView;
use crate::bottom::question::QuestionView;
use crate::history::tool::PLAN_TOOLS;
use crate::history::{HistoryCell, SessionHeader, ToolCallCell, ToolState};
use crate::markdown::stream::StreamingMarkdown;
use crate::strings;
use cairn_protocol::{Event, EventMsg, Op, TurnAbortReason};

impl App {
    /// Handle one event from the core.
    pub fn handle_core_event(&mut self, event: Event) {
        let Event { id, msg } = event;
        match msg {
            EventMsg::SessionConfigured(configured) => {
                self.model = configured.model.clone();
                self.approval_policy = configured.approval_policy;
                self.transcript.push(HistoryCell::Header(SessionHeader {
                    model: configured.model.clone(),
                    provider: configured.provider.clone(),
                    cwd: configured.cwd.clone(),
                }));
                self.session = Some(configured);
                if let Some(prompt) = self.initial_prompt.take() {
                    self.submit_text(&prompt);
                }
            }
            EventMsg::TaskStarted => {
                if self.task.is_none() {
                    self.task = Some(RunningTask {
                        id: Some(id),
                        started: self.now,
                    });
                }
            }
            EventMsg::AgentMessageDelta { delta } => {
                self.retry = None;
                self.reasoning = None;
                let index = match self.streaming {
                    Some(index) => index,
                    None => {
                        let index = self
                            .transcript
                            .push(HistoryCell::Assistant(StreamingMarkdown::new()));
                        self.streaming = Some(index);
                        index
                    }
                };
                self.transcript.update_cell(index, |cell| match cell {
                    HistoryCell::Assistant(md) => md.push(&delta),
                    _ => false,
                });
            }
            EventMsg::AgentMessage { message } => {
                self.reasoning = None;
                match self.streaming.take() {
                    Some(index) => self.transcript.update_cell(index, |cell| {
                        if let HistoryCell::Assistant(md) = cell {
                            md.finish(Some(&message));
                        }
                        true
                    }),
                    None => {
                        self.transcript
                            .push(HistoryCell::Assistant(StreamingMarkdown::complete(
                                &message,
                            )));
                    }
                }
            }
            EventMsg::ReasoningDelta { delta } => {
                let index = match self.reasoning {
                    Some(index) => index,
                    None => {
                        let index = self.transcript.push(HistoryCell::Reasoning(String::new()));
                        self.reasoning = Some(index);
                        index
                    }
                };
                self.transcript.update_cell(index, |cell| {
                    if let HistoryCell::Reasoning(text) = cell {
                        text.push_str(&delta);
                    }
                    true
                });
            }
            EventMsg::ToolCallBegin {
                call_id,
                name,
                description,
                ..
            } => {
                self.finish_streaming();
                if PLAN_TOOLS.contains(&name.as_str()) {
                    self.hidden_calls.insert(call_id);
                    return;
                }
                let index = self.transcript.push(HistoryCell::ToolCall(ToolCallCell {
                    call_id: call_id.clone(),
                    name,
                    description,
                    state: ToolState::Running,
                }));
                self.tool_cells.insert(call_id, index);
            }
            EventMsg::ToolCallEnd {
                call_id,
                name,
                output,
                success,
                duration_ms,
            } => {
                let state = ToolState::finished(&name, success, duration_ms, output);
                if self.hidden_calls.remove(&call_id) {
                    if !success {
                        self.transcript.push(HistoryCell::ToolCall(ToolCallCell {
                            call_id,
                            name,
                            description: String::new(),
                            state,
                        }));
                    }
                    return;
                }
                match self.tool_cells.remove(&call_id) {
                    Some(index) => self.transcript.update_cell(index, |cell| {
                        if let HistoryCell::ToolCall(call) = cell {
                            call.state = state;
                        }
                        true
                    }),
                    None => {
                        self.transcript.push(HistoryCell::ToolCall(ToolCallCell {
                            call_id,
                            name,
                            description: String::new(),
                            state,
                        }));
                    }
                }
            }
            EventMsg::PatchApplied {
                diff,
                auto_approved,
                ..
            } => {
                // A diff the user approved is on screen already.
                if auto_approved {
                    self.transcript.push(HistoryCell::AppliedDiff(diff));
                }
            }
            EventMsg::ExecApprovalRequest {
                call_id,
                command,
                cwd,
                description,
                for_session,
                session_prefix,
                reason,
            } => self.open_approval(ApprovalRequest {
                call_id,
                description,
                kind: ApprovalKind::Exec { command, cwd },
                for_session,
                session_prefix,
                reason,
            }),
            EventMsg::PatchApprovalRequest {
                call_id,
                diff,
                description,
                for_session,
                reason,
                ..
            } => {
                self.transcript.push(HistoryCell::Diff {
                    title: description.clone(),
                    diff: diff.clone(),
                });
                self.open_approval(ApprovalRequest {
                    call_id,
                    description,
                    kind: ApprovalKind::Patch { diff },
                    for_session,
                    session_prefix: None,
                    reason,
                });
            }
            EventMsg::ReadApprovalRequest {
                call_id,
                paths,
                description,
                for_session,
                reason,
            } => self.open_approval(ApprovalRequest {
                call_id,
                description,
                kind: ApprovalKind::Read { paths },
                for_session,
                session_prefix: None,
                reason,
            }),
            EventMsg::McpToolApprovalRequest {
                call_id,
                server,
                tool,
                arguments,
                description,
                read_only_hint,
                for_session,
            } => self.open_approval(ApprovalRequest {
                call_id,
                description,
                kind: ApprovalKind::Mcp {
                    server,
                    tool,
                    arguments,
                    read_only_hint,
                },
                for_session,
                session_prefix: None,
                reason: None,
            }),
            EventMsg::WebFetchApprovalRequest {
                call_id,
                url,
                description,
                for_session,
                ..
            } => self.open_approval(ApprovalRequest {
                call_id,
                description,
                kind: ApprovalKind::Fetch { url },
                for_session,
                session_prefix: None,
                reason: None,
            }),
            EventMsg::McpServers { servers } => self.notice(crate::mcp::text(&servers)),
            EventMsg::ModelsListed {
                current,
                models,
                error,
            } => self.handle_models_listed(current, models, error),
            EventMsg::UserQuestionRequest { call_id, questions } => {
                if questions.is_empty() {
                    // Nothing to ask: answer at once so the model does not wait forever.
                    self.ops.submit(Op::UserQuestionAnswer {
                        call_id,
                        answers: Vec::new(),
                    });
                    return;
                }
                self.open_dialog(Box::new(QuestionView::new(call_id, questions)));
            }
            EventMsg::PlanUpdate(plan) => {
                self.transcript.push(HistoryCell::Plan(plan.clone()));
                self.latest_plan = Some(plan);
            }
            EventMsg::PlanModeEntered { plan_file_path } => {
                self.notice(strings::entered_plan_mode(&plan_file_path));
                self.plan_mode = Some(plan_file_path);
                if let Some(request) = self.pending_plan_request.take() {
                    self.send_user_message(request);
                }
            }
            EventMsg::PlanModeExitRequest {
                plan_content,
                plan_file_path,
            } => {
                self.close_plan_review();
                self.open_dialog(Box::new(PlanReviewView::new(plan_content, plan_file_path)));
            }
            EventMsg::PlanApprovalRequest {
                call_id,
                plan_content,
                plan_file_path,
                ..
            } => {
                self.close_plan_review();
                self.open_dialog(Box::new(PlanReviewView::for_structured_plan(
                    plan_content,
                    plan_file_path,
                    call_id,
                )));
            }
            EventMsg::PlanModeExited { approved, active } => {
                self.close_plan_review();
                let leaving = std::mem::take(&mut self.leaving_plan_mode);
                if approved {
                    self.plan_mode = None;
                    self.notice(strings::PLAN_APPROVED.to_string());
                } else if !active || leaving {
                    self.plan_mode = None;
                    self.notice(strings::PLAN_MODE_LEFT.to_string());
                } else {
                    self.notice(strings::PLAN_REJECTED.to_string());
                }
                if let Some(feedback) = self.rejection_feedback.take() {
                    self.transcript.push(HistoryCell::User(feedback));
                }
            }
            EventMsg::TokenCount(usage) => self.tokens = Some(usage),
            EventMsg::StreamError { message } => {
                // The stream restarts from scratch: drop what it sent so far.
                if let Some(index) = self.streaming {
                    self.transcript.update_cell(index, |cell| {
                        *cell = HistoryCell::Assistant(StreamingMarkdown::new());
                        true
                    });
                }
                if let Some(index) = self.reasoning {
                    self.transcript.update_cell(index, |cell| {
                        *cell = HistoryCell::Reasoning(String::new());
                        true
                    });
                }
                self.retry = Some(message);
            }
            EventMsg::Notice { message } => {
                self.transcript.push(HistoryCell::Notice(message));
            }
            EventMsg::Error { message } => {
                self.finish_streaming();
                self.transcript.push(HistoryCell::Error(message));
                let ends_task = self
                    .task
                    .as_ref()
                    .is_some_and(|t| t.id.as_deref() == Some(id.as_str()));
                if ends_task {
                    self.end_task(false);
                }
            }
            EventMsg::TurnAborted { reason } => {
                self.finish_streaming();
                let text = match reason {
                    TurnAbortReason::Interrupted => strings::INTERRUPTED,
                    TurnAbortReason::ApprovalAborted => strings::APPROVAL_ABORTED,
                };
                self.transcript.push(HistoryCell::Error(text.to_string()));
                // The review closes with its turn; the plan is still there to be reviewed.
                let review_open = self
                    .views
                    .iter_mut()
                    .any(|v| v.as_any_mut().is::<PlanReviewView>());
                if review_open {
                    self.notice(strings::PLAN_REVIEW_CLOSED.to_string());
                }
                self.end_task(true);
            }
            EventMsg::TaskComplete { .. } => {
                self.finish_streaming();
                self.end_task(false);
            }
            EventMsg::ShutdownComplete => {}
            // The TUI shows what the user typed as they send it.
            EventMsg::UserMessage { .. } => {}
            EventMsg::SessionResumed { path, replay } => self.replay(&path, replay),
            msg @ (EventMsg::DelegateStarted { .. }
            | EventMsg::DelegateDelta { .. }
            | EventMsg::DelegateEvent { .. }
            | EventMsg::DelegateCompleted { .. }
            | EventMsg::DelegateFailed { .. }) => self.handle_delegate_event(msg),
            EventMsg::ContextCompacted {
                tokens_before,
                tokens_after,
            } => {
                self.transcript
                    .push(HistoryCell::Notice(strings::context_compacted(
                        tokens_before,
                        tokens_after,
                    )));
                // Until the next request reports real counts, the context left is the
                // compacted history's estimate, not the pre-compaction figure.
                if let Some(tokens) = &mut self.tokens {
                    tokens.input_tokens = tokens_after;
                    tokens.output_tokens = 0;
                }
            }
        }
    }

    /// Re-render a resumed session's transcript as it was: the same events through the same
    /// handlers, with the user's messages from the log.
    fn replay(&mut self, path: &std::path::Path, replay: Vec<EventMsg>) {
        self.replaying = true;
        for msg in replay {
            match msg {
                EventMsg::UserMessage { text } => {
                    self.finish_streaming();
                    self.transcript.push(HistoryCell::User(text));
                }
                msg => self.handle_core_event(Event {
                    id: String::new(),
                    msg,
                }),
            }
        }
        self.finish_streaming();
        self.abandon_delegates();
        self.replaying = false;
        self.task = None;
        self.transcript
            .push(HistoryCell::Notice(strings::resumed_from(path)));
    }

    fn open_approval(&mut self, request: ApprovalRequest) {
        self.note_run_approval(&request.call_id, &request.description);
        for view in self.views.iter_mut().rev() {
            if let Some(approval) = view.as_any_mut().downcast_mut::<ApprovalView>() {
                approval.enqueue(request);
                return;
            }
        }
        self.open_dialog(Box::new(ApprovalView::new(request)));
    }

    fn close_plan_review(&mut self) {
        self.views
            .retain_mut(|v| v.as_any_mut().downcast_mut::<PlanReviewView>().is_none());
    }

    /// The streamed message and reasoning are over (tool call, end of task).
    fn finish_streaming(&mut self) {
        self.reasoning = None;
        if let Some(index) = self.streaming.take() {
            self.transcript.update_cell(index, |cell| {
                if let HistoryCell::Assistant(md) = cell {
                    md.finish(None);
                }
                true
            });
        }
    }

    fn end_task(&mut self, aborted: bool) {
        self.task = None;
        self.abandon_delegates();
        self.retry = None;
        self.views.retain(|v| !v.belongs_to_task());
        self.tool_cells.clear();
        self.hidden_calls.clear();
        if self.queued.is_empty() {
            return;
        }
        if aborted {
            // After an interrupt the user decides again: queued messages go back to the
            // composer. A queued `!` command does not: joined with other text it would run
            // as one shell command. It stays in the composer's history (↑).
            let (commands, messages): (Vec<String>, Vec<String>) = std::mem::take(&mut self.queued)
                .into_iter()
                .partition(|t| t.trim_start().starts_with('!'));
            for command in commands {
                self.notice(strings::queued_command_not_run(command.trim()));
            }
            if messages.is_empty() {
                return;
            }
            let mut text = messages.join("\n\n");
            if !self.composer.is_empty() {
                text.push_str("\n\n");
                text.push_str(&self.composer.text());
            }
            self.queued.clear();
            self.composer.set_text(&text);
        } else {
            let next = self.queued.remove(0);
            self.send_message(next);
        }
    }
}

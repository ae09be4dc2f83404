//! One task: a user message and the model/tool round trips it causes.
//!
//! Each round trip builds a request (instructions, history, reminders, the tools the current
//! mode allows), streams the answer with retries, then runs the tool calls it contained. Tool
//! calls run only after their stream completed, so a retried stream never repeats a side
//! effect. The task ends when the model answers without tool calls.

use super::EventSink;
use super::dispatch::{self, CallOutcome, Origin};
use super::shared::{SessionShared, lock};
use crate::client::retry::backoff;
use crate::client::{ClientError, ModelRequest, ResponseEvent};
use crate::compact;
use crate::config::NO_PROVIDER_GUIDANCE;
use crate::history::ResponseItem;
use crate::model_family::{ModelFamily, is_edit_tool};
use crate::plan_mode::{filter, reminder};
use crate::prompt;
use crate::tools::{ToolCall, ToolContext, ToolRegistry, names};
use cairn_protocol::{EventMsg, TokenUsage, TurnAbortReason};
use futures::StreamExt;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio_util::sync::CancellationToken;

/// A response's items and its usage report (input and output tokens), if it had one.
type Streamed = (Vec<ResponseItem>, Option<(u64, u64)>);

/// A task ends with exactly one of `task_complete`, `turn_aborted` or `error`.
pub(super) struct Task {
    pub shared: Arc<SessionShared>,
    pub registry: Arc<ToolRegistry>,
    pub events: EventSink,
    pub sub_id: String,
    pub cancel: CancellationToken,
    /// A delegated agent's instructions, added to cairn's own.
    pub role: Option<String>,
    /// Most model round trips (a delegated run's turn limit).
    pub max_rounds: Option<usize>,
}

/// Why the task stopped before the model finished.
pub(super) enum Stop {
    Aborted(TurnAbortReason),
    Failed(String),
}

/// What a task was started for.
pub(super) enum TaskInput {
    /// A user message.
    User(String),
    /// `/compact [focus]`.
    Compact(Option<String>),
    /// `!cmd`: a shell command the user typed.
    UserShell(String),
    /// What the model is told of the user's decision on a review reopened with
    /// `/plan review` (already applied).
    PlanDecision(String),
}

/// Why a stream produced no response.
enum StreamFailure {
    Stop(Stop),
    /// The request did not fit the model's context window.
    ContextLength(String),
}

impl From<Stop> for StreamFailure {
    fn from(stop: Stop) -> Self {
        Self::Stop(stop)
    }
}

impl Task {
    pub(super) fn emit(&self, msg: EventMsg) {
        self.events.send(&self.sub_id, msg);
    }

    /// Run the task; returns its terminal event, which the submission loop emits.
    pub async fn run(mut self, input: TaskInput) -> EventMsg {
        self.emit(EventMsg::TaskStarted);
        // What the model is told, and whether the user typed it (shown as their message).
        let (text, typed) = match input {
            TaskInput::User(text) => (text, true),
            // The user's own command needs no model.
            TaskInput::UserShell(command) => return self.run_user_shell(&command).await,
            // The decision holds even if no model can be told about it yet.
            // The submission loop applied the decision; the model hears of it now.
            TaskInput::PlanDecision(text) => (text, false),
            TaskInput::Compact(focus) => {
                if self.shared.model_client().await.is_none() {
                    return EventMsg::Error {
                        message: NO_PROVIDER_GUIDANCE.to_string(),
                    };
                }
                return match self.compact(focus.as_deref()).await {
                    Ok(()) => EventMsg::TaskComplete {
                        last_agent_message: None,
                    },
                    Err(Stop::Aborted(reason)) => EventMsg::TurnAborted { reason },
                    Err(Stop::Failed(message)) => EventMsg::Error { message },
                };
            }
        };
        if self.shared.model_client().await.is_none() {
            return EventMsg::Error {
                message: NO_PROVIDER_GUIDANCE.to_string(),
            };
        }
        if typed {
            self.emit(EventMsg::UserMessage { text: text.clone() });
        }
        self.shared.turns.fetch_add(1, Ordering::Relaxed);
        self.push_reentry_reminder();
        lock(&self.shared.history).push(ResponseItem::user(text));
        self.shared.record_state();
        if !self.add_mcp_tools().await {
            close_open_calls(
                &self.shared,
                "This call was not run: the user interrupted the turn.",
            );
            return EventMsg::TurnAborted {
                reason: TurnAbortReason::Interrupted,
            };
        }
        match self.run_turns().await {
            Ok(last) => EventMsg::TaskComplete {
                last_agent_message: last,
            },
            Err(Stop::Aborted(reason)) => {
                close_open_calls(
                    &self.shared,
                    "This call was not run: the user interrupted the turn.",
                );
                EventMsg::TurnAborted { reason }
            }
            Err(Stop::Failed(message)) => {
                close_open_calls(
                    &self.shared,
                    "This call was not run because the turn failed.",
                );
                EventMsg::Error { message }
            }
        }
    }

    /// Offer the tools of the MCP servers for this task, first waiting for servers still
    /// starting (each within its start-up timeout). False when the user interrupted the wait.
    async fn add_mcp_tools(&mut self) -> bool {
        let Some(mcp) = self.shared.mcp.clone() else {
            return true;
        };
        if !mcp.wait_for_startup(&self.cancel).await {
            return false;
        }
        self.registry = Arc::new(self.registry.with_mcp(&mcp, &self.shared.delegation));
        true
    }

    /// After re-entering plan mode, the first request names the previous plan once. It is
    /// kept in history so later requests keep that context.
    fn push_reentry_reminder(&self) {
        let mut state = lock(&self.shared.plan_mode);
        if !(state.active && state.reentry_reminder_pending) {
            return;
        }
        if let (Some(previous), Some(current)) = (&state.previous_plan_file, &state.plan_file_path)
        {
            let text = reminder::reentry(previous, current);
            lock(&self.shared.history).push(ResponseItem::user(text));
        }
        state.reentry_reminder_pending = false;
    }

    async fn run_turns(&self) -> Result<Option<String>, Stop> {
        let mut last_message = None;
        // Chosen once per task, like the instructions: a model switch applies from the next
        // message on.
        let settings = self.shared.settings();
        let family = self.shared.config.family_for(&settings.model);
        let offered: Vec<&str> = self
            .registry
            .offered_specs(family)
            .map(|spec| spec.name.as_str())
            .collect();
        // Read once per task: AGENTS.md edits apply from the next message on.
        let mut instructions = prompt::system_prompt(&self.shared.config, family, &offered);
        if let Some(role) = &self.role {
            instructions.push_str("\n\n# Your role as a sub-agent\n\n");
            instructions.push_str(role);
        }
        let mut rounds = 0usize;
        // A request that did not fit is compacted and sent once more, never twice.
        let mut compacted_for_length = false;
        loop {
            rounds += 1;
            if self.max_rounds.is_some_and(|max| rounds > max) {
                return Err(Stop::Failed(format!(
                    "The run reached its limit of {} model round trips ([multi_agent] max_turns) before finishing.",
                    rounds - 1
                )));
            }
            crate::plans::reminder::push_if_due(&self.shared);
            if self.compaction_due(&instructions) {
                self.compact(None).await?;
            }
            let request = self.build_request(&instructions, family);
            let (items, usage) = match self.stream_with_retries(&request, false).await {
                Ok(done) => done,
                Err(StreamFailure::Stop(stop)) => return Err(stop),
                Err(StreamFailure::ContextLength(message)) => {
                    if compacted_for_length {
                        return Err(Stop::Failed(format!(
                            "{message}. cairn compacted the conversation and it still does not fit; shorten the request or use a model with a larger window."
                        )));
                    }
                    compacted_for_length = true;
                    self.compact(None).await?;
                    continue;
                }
            };
            compacted_for_length = false;
            let mut calls = Vec::new();
            {
                let mut history = lock(&self.shared.history);
                for item in &items {
                    match item {
                        ResponseItem::Message { text, .. } => last_message = Some(text.clone()),
                        ResponseItem::FunctionCall {
                            call_id,
                            name,
                            arguments,
                        } => calls.push(ToolCall {
                            call_id: call_id.clone(),
                            name: name.clone(),
                            arguments: arguments.clone(),
                        }),
                        ResponseItem::Reasoning { .. }
                        | ResponseItem::FunctionCallOutput { .. } => {}
                    }
                }
                history.extend(items);
                if let Some((input, output)) = usage {
                    *lock(&self.shared.usage_mark) = Some((input + output, history.len()));
                }
            }
            if calls.is_empty() {
                return Ok(last_message);
            }
            self.run_calls(calls).await?;
        }
    }

    fn build_request(&self, instructions: &str, family: ModelFamily) -> ModelRequest {
        let settings = self.shared.settings();
        let mut input = lock(&self.shared.history).items().to_vec();
        let plan_file = lock(&self.shared.plan_mode)
            .active_plan_file()
            .map(|p| p.to_path_buf());
        if let Some(plan_file) = &plan_file {
            // The plan file is written with whichever edit tools this model is offered.
            let edit_tools: Vec<&str> = self
                .registry
                .offered_specs(family)
                .map(|spec| spec.name.as_str())
                .filter(|name| is_edit_tool(name) && filter::is_offered(name))
                .collect();
            input.push(ResponseItem::user(reminder::instructions(
                plan_file,
                plan_file.exists(),
                &edit_tools,
            )));
            // Where the read-only sandbox is enforced the shell is the one exception.
            if let Some(note) = crate::plan_mode::shell::reminder(&self.shared.config) {
                input.push(ResponseItem::user(note));
            }
        }
        let tools = self
            .registry
            .offered_specs(family)
            .filter(|spec| match &plan_file {
                Some(_) => {
                    filter::is_offered_with(&spec.name, &self.shared.config)
                        || self.shared.mcp_read_only(&spec.name)
                }
                // exit_plan_mode means nothing outside plan mode; do not tempt the model.
                None => spec.name != names::EXIT_PLAN_MODE,
            })
            .cloned()
            .collect();
        ModelRequest {
            model: settings.model,
            instructions: instructions.to_string(),
            input,
            tools,
        }
    }

    /// Stream one response, retrying transient failures from scratch. Deltas go to the front
    /// end as they arrive; a `stream_error` tells it to drop the partial message.
    /// `quiet` streams without showing anything (the summary call of a compaction).
    async fn stream_with_retries(
        &self,
        request: &ModelRequest,
        quiet: bool,
    ) -> Result<Streamed, StreamFailure> {
        let Some(client) = self.shared.model_client().await else {
            return Err(Stop::Failed(NO_PROVIDER_GUIDANCE.to_string()).into());
        };
        let provider = client.provider().clone();
        let mut attempt = 0u32;
        loop {
            let result = tokio::select! {
                _ = self.cancel.cancelled() => return Err(Stop::Aborted(TurnAbortReason::Interrupted).into()),
                result = self.stream_once(client.as_ref(), request, quiet) => result,
            };
            let (error, streamed) = match result {
                Ok(done) => return Ok(done),
                Err(pair) => pair,
            };
            if matches!(error, ClientError::ContextLengthExceeded) {
                return Err(StreamFailure::ContextLength(error.to_string()));
            }
            // Requests that never streamed and streams that broke off have separate budgets.
            let budget = if streamed {
                provider.stream_max_retries
            } else {
                provider.request_max_retries
            };
            if !error.is_retryable() || attempt >= budget {
                return Err(Stop::Failed(gave_up(&error, attempt)).into());
            }
            attempt += 1;
            let delay = backoff(attempt, &error);
            tracing::warn!(%error, attempt, ?delay, "retrying model request");
            self.emit(EventMsg::StreamError {
                message: format!(
                    "{error}. Reconnecting... {attempt}/{budget} (in {:.1}s)",
                    delay.as_secs_f64()
                ),
            });
            tokio::select! {
                _ = self.cancel.cancelled() => return Err(Stop::Aborted(TurnAbortReason::Interrupted).into()),
                _ = tokio::time::sleep(delay) => {}
            }
        }
    }

    /// One attempt. On failure also says whether any event had arrived.
    async fn stream_once(
        &self,
        client: &dyn crate::client::ModelClient,
        request: &ModelRequest,
        quiet: bool,
    ) -> Result<Streamed, (ClientError, bool)> {
        let mut stream = client.stream(request).await.map_err(|e| (e, false))?;
        let mut items = Vec::new();
        let mut streamed = false;
        while let Some(event) = stream.next().await {
            let event = event.map_err(|e| (e, streamed))?;
            streamed = true;
            match event {
                ResponseEvent::OutputTextDelta(_) | ResponseEvent::ReasoningDelta(_) if quiet => {}
                ResponseEvent::OutputTextDelta(delta) => {
                    self.emit(EventMsg::AgentMessageDelta { delta })
                }
                ResponseEvent::ReasoningDelta(delta) => {
                    self.emit(EventMsg::ReasoningDelta { delta })
                }
                ResponseEvent::OutputItemDone(item) => items.push(item),
                ResponseEvent::Completed { usage } => {
                    if quiet {
                        return Ok((items, None));
                    }
                    let usage = usage.map(|u| {
                        self.record_usage(u.input_tokens, u.output_tokens);
                        (u.input_tokens, u.output_tokens)
                    });
                    for item in &items {
                        if let ResponseItem::Message { text, .. } = item {
                            self.emit(EventMsg::AgentMessage {
                                message: text.clone(),
                            });
                        }
                    }
                    return Ok((items, usage));
                }
            }
        }
        Err((ClientError::Incomplete, streamed))
    }

    /// Tokens the next request would carry: the last usage report plus an estimate of what
    /// was added since (an estimate of everything before the first report).
    fn context_tokens(&self, instructions: &str) -> u64 {
        let history = lock(&self.shared.history);
        let mark = *lock(&self.shared.usage_mark);
        match mark {
            Some((tokens, len)) if len <= history.len() => {
                tokens + compact::estimate_tokens(&history[len..])
            }
            _ => compact::estimate_tokens(&history) + (instructions.len() as u64).div_ceil(4),
        }
    }

    fn compaction_due(&self, instructions: &str) -> bool {
        let Some(window) = self.shared.context_window() else {
            return false;
        };
        self.context_tokens(instructions)
            > compact::limit(window, self.shared.config.compact_threshold)
    }

    /// Replace the older conversation with a summary written by the model, keeping the
    /// recent user messages and the pinned plan state. A failure leaves the history as it was
    /// and ends the task with an error saying so.
    async fn compact(&self, focus: Option<&str>) -> Result<(), Stop> {
        let old = lock(&self.shared.history).items().to_vec();
        let instructions = compact::SUMMARY_INSTRUCTIONS;
        let tokens_before = self.context_tokens(instructions);
        let mut input = old.clone();
        input.push(ResponseItem::user(compact::summary_request(focus)));
        let request = ModelRequest {
            model: self.shared.settings().model,
            instructions: instructions.to_string(),
            input,
            tools: Vec::new(),
        };
        let failed = |why: &str| {
            Stop::Failed(format!(
                "Compaction failed: {why}. The conversation was left as it was."
            ))
        };
        let items = match self.stream_with_retries(&request, true).await {
            Ok((items, _)) => items,
            Err(StreamFailure::Stop(Stop::Failed(message))) => return Err(failed(&message)),
            Err(StreamFailure::Stop(stop)) => return Err(stop),
            Err(StreamFailure::ContextLength(message)) => return Err(failed(&message)),
        };
        let summary = items
            .iter()
            .filter_map(|item| match item {
                ResponseItem::Message { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n");
        if summary.trim().is_empty() {
            return Err(failed("the model returned no summary"));
        }
        let pinned = compact::Pinned::gather(
            &lock(&self.shared.plan_mode),
            lock(&self.shared.last_plan).clone(),
        );
        let new = compact::rebuild(&old, &summary, &pinned);
        let tokens_after = compact::estimate_tokens(&new);
        lock(&self.shared.history).replace(new);
        *lock(&self.shared.usage_mark) = None;
        self.emit(EventMsg::ContextCompacted {
            tokens_before,
            tokens_after,
        });
        Ok(())
    }

    fn record_usage(&self, input: u64, output: u64) {
        let usage = {
            let mut total = lock(&self.shared.usage);
            *total = TokenUsage {
                input_tokens: input,
                output_tokens: output,
                total_tokens: total.total_tokens + input + output,
                context_window: total.context_window,
            };
            *total
        };
        self.emit(EventMsg::TokenCount(usage));
    }

    /// Run the calls of one response. Consecutive read-only calls run concurrently; a call
    /// that changes things or waits for the user runs alone, in order. Every call that ran has
    /// its own output in history, in call order, even when it stops the turn.
    async fn run_calls(&self, calls: Vec<ToolCall>) -> Result<(), Stop> {
        let mut index = 0;
        while index < calls.len() {
            let mut end = index + 1;
            if !self.registry.runs_alone(&calls[index].name) {
                while end < calls.len() && !self.registry.runs_alone(&calls[end].name) {
                    end += 1;
                }
            }
            let batch = &calls[index..end];
            let outcomes = futures::future::join_all(batch.iter().map(|call| {
                let ctx = self.context_for(call);
                let registry = self.registry.clone();
                async move { dispatch::run_call(call, &ctx, &registry, Origin::Model).await }
            }))
            .await;
            let mut stop = None;
            {
                let mut history = lock(&self.shared.history);
                for (call, outcome) in batch.iter().zip(outcomes) {
                    let CallOutcome {
                        output,
                        success,
                        stop: call_stop,
                    } = outcome;
                    history.push(ResponseItem::FunctionCallOutput {
                        call_id: call.call_id.clone(),
                        output,
                        success,
                    });
                    if stop.is_none() {
                        stop = call_stop;
                    }
                }
            }
            self.shared.record_state();
            if let Some(stop) = stop {
                return Err(stop);
            }
            if self.cancel.is_cancelled() {
                return Err(Stop::Aborted(TurnAbortReason::Interrupted));
            }
            index = end;
        }
        Ok(())
    }

    pub(super) fn context_for(&self, call: &ToolCall) -> ToolContext {
        ToolContext {
            sub_id: self.sub_id.clone(),
            call_id: call.call_id.clone(),
            cwd: self.shared.config.cwd.clone(),
            events: self.events.clone(),
            cancel: self.cancel.clone(),
            shared: self.shared.clone(),
        }
    }
}

/// Answer every call in history that has no output yet, so the next request is valid.
pub(super) fn close_open_calls(shared: &SessionShared, text: &str) {
    let mut history = lock(&shared.history);
    let answered: std::collections::HashSet<String> = history
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput { call_id, .. } => Some(call_id.clone()),
            _ => None,
        })
        .collect();
    let open: Vec<String> = history
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCall { call_id, .. } if !answered.contains(call_id) => {
                Some(call_id.clone())
            }
            _ => None,
        })
        .collect();
    for call_id in open {
        history.push(ResponseItem::FunctionCallOutput {
            call_id,
            output: text.to_string(),
            success: false,
        });
    }
}

/// The final error of a model request: after retries, it says how many were made, so the
/// user knows the failure was not a one-off.
fn gave_up(error: &ClientError, retries: u32) -> String {
    match retries {
        0 => error.to_string(),
        1 => format!("{error}. Gave up after 1 retry."),
        n => format!("{error}. Gave up after {n} retries."),
    }
}

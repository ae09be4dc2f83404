//! One task: a user message and the model/tool round trips it causes.
//!
//! Each round trip builds a request (instructions, history, reminders, the tools the current
//! mode allows), streams the answer with retries, then runs the tool calls it contained. Tool
//! calls run only after their stream completed, so a retried stream never repeats a side
//! effect. The task ends when the model answers without tool calls.

use super::EventSink;
use super::dispatch::{self, CallOutcome};
use super::shared::{SessionShared, lock};
use crate::client::retry::backoff;
use crate::client::{ClientError, ModelRequest, ResponseEvent};
use crate::config::NO_PROVIDER_GUIDANCE;
use crate::history::ResponseItem;
use crate::plan_mode::{filter, reminder};
use crate::prompt;
use crate::tools::{ToolCall, ToolContext, ToolRegistry, names};
use cairn_protocol::{EventMsg, TokenUsage, TurnAbortReason};
use futures::StreamExt;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A task ends with exactly one of `task_complete`, `turn_aborted` or `error`.
pub(super) struct Task {
    pub shared: Arc<SessionShared>,
    pub registry: Arc<ToolRegistry>,
    pub events: EventSink,
    pub sub_id: String,
    pub cancel: CancellationToken,
}

/// Why the task stopped before the model finished.
pub(super) enum Stop {
    Aborted(TurnAbortReason),
    Failed(String),
}

impl Task {
    fn emit(&self, msg: EventMsg) {
        self.events.send(&self.sub_id, msg);
    }

    /// Run the task; returns its terminal event, which the submission loop emits.
    pub async fn run(self, text: String) -> EventMsg {
        self.emit(EventMsg::TaskStarted);
        if self.shared.model_client().await.is_none() {
            return EventMsg::Error {
                message: NO_PROVIDER_GUIDANCE.to_string(),
            };
        }
        self.push_reentry_reminder();
        lock(&self.shared.history).push(ResponseItem::user(text));
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
        // Read once per task: AGENTS.md edits apply from the next message on.
        let instructions = prompt::system_prompt(&self.shared.config);
        loop {
            crate::plans::reminder::push_if_due(&self.shared);
            let request = self.build_request(&instructions);
            let items = self.stream_with_retries(&request).await?;
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
            }
            if calls.is_empty() {
                return Ok(last_message);
            }
            self.run_calls(calls).await?;
        }
    }

    fn build_request(&self, instructions: &str) -> ModelRequest {
        let settings = self.shared.settings();
        let mut input = lock(&self.shared.history).clone();
        let plan_file = lock(&self.shared.plan_mode)
            .active_plan_file()
            .map(|p| p.to_path_buf());
        if let Some(plan_file) = &plan_file {
            input.push(ResponseItem::user(reminder::instructions(
                plan_file,
                plan_file.exists(),
            )));
        }
        let tools = self
            .registry
            .specs()
            .filter(|spec| match &plan_file {
                Some(_) => filter::is_offered(&spec.name),
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
    async fn stream_with_retries(&self, request: &ModelRequest) -> Result<Vec<ResponseItem>, Stop> {
        let Some(client) = self.shared.model_client().await else {
            return Err(Stop::Failed(NO_PROVIDER_GUIDANCE.to_string()));
        };
        let provider = client.provider().clone();
        let mut attempt = 0u32;
        loop {
            let result = tokio::select! {
                _ = self.cancel.cancelled() => return Err(Stop::Aborted(TurnAbortReason::Interrupted)),
                result = self.stream_once(client.as_ref(), request) => result,
            };
            let (error, streamed) = match result {
                Ok(items) => return Ok(items),
                Err(pair) => pair,
            };
            // Requests that never streamed and streams that broke off have separate budgets.
            let budget = if streamed {
                provider.stream_max_retries
            } else {
                provider.request_max_retries
            };
            if !error.is_retryable() || attempt >= budget {
                return Err(Stop::Failed(error.to_string()));
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
                _ = self.cancel.cancelled() => return Err(Stop::Aborted(TurnAbortReason::Interrupted)),
                _ = tokio::time::sleep(delay) => {}
            }
        }
    }

    /// One attempt. On failure also says whether any event had arrived.
    async fn stream_once(
        &self,
        client: &dyn crate::client::ModelClient,
        request: &ModelRequest,
    ) -> Result<Vec<ResponseItem>, (ClientError, bool)> {
        let mut stream = client.stream(request).await.map_err(|e| (e, false))?;
        let mut items = Vec::new();
        let mut streamed = false;
        while let Some(event) = stream.next().await {
            let event = event.map_err(|e| (e, streamed))?;
            streamed = true;
            match event {
                ResponseEvent::OutputTextDelta(delta) => {
                    self.emit(EventMsg::AgentMessageDelta { delta })
                }
                ResponseEvent::ReasoningDelta(delta) => {
                    self.emit(EventMsg::ReasoningDelta { delta })
                }
                ResponseEvent::OutputItemDone(item) => items.push(item),
                ResponseEvent::Completed { usage } => {
                    if let Some(usage) = usage {
                        self.record_usage(usage.input_tokens, usage.output_tokens);
                    }
                    for item in &items {
                        if let ResponseItem::Message { text, .. } = item {
                            self.emit(EventMsg::AgentMessage {
                                message: text.clone(),
                            });
                        }
                    }
                    return Ok(items);
                }
            }
        }
        Err((ClientError::Incomplete, streamed))
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
                async move { dispatch::run_call(call, &ctx, &registry).await }
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

    fn context_for(&self, call: &ToolCall) -> ToolContext {
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

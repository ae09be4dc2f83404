//! OpenAI Chat Completions streams (`POST /v1/chat/completions` with `stream: true`).
//!
//! Every event is data-only: `data: {"object":"chat.completion.chunk",...}`; text and
//! tool-call arguments arrive as fragments in `choices[0].delta`, a chunk with
//! `finish_reason` closes the choice, an optional chunk with empty `choices` carries `usage`
//! (as with `stream_options.include_usage`), and `data: [DONE]` ends the stream.

use crate::response::{MockResponse, SseEvent, split_pieces};
use serde_json::{Value, json};

/// How many deltas a text or an argument string is split into.
const PIECES: usize = 3;

/// A Chat Completions stream: optional reasoning, text, tool calls, usage.
#[derive(Debug, Clone, Default)]
pub struct ChatStream {
    reasoning: Option<String>,
    text: Option<String>,
    tool_calls: Vec<(String, String, String)>,
    usage: Option<(u64, u64)>,
    finish_reason: Option<String>,
}

impl ChatStream {
    /// An empty stream (role chunk, finish chunk, `[DONE]`).
    pub fn new() -> Self {
        Self::default()
    }

    /// Streams `text` as `reasoning_content` deltas before the answer (DeepSeek, vLLM style).
    pub fn reasoning(mut self, text: impl Into<String>) -> Self {
        self.reasoning = Some(text.into());
        self
    }

    /// Streams `text` as `content` deltas.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    /// Adds a function tool call whose JSON `arguments` are streamed in several fragments.
    pub fn tool_call(mut self, id: &str, name: &str, arguments: &Value) -> Self {
        self.tool_calls
            .push((id.to_string(), name.to_string(), arguments.to_string()));
        self
    }

    /// Like [`ChatStream::tool_call`] with the raw argument string (may be invalid JSON).
    pub fn tool_call_raw(mut self, id: &str, name: &str, arguments: &str) -> Self {
        self.tool_calls
            .push((id.to_string(), name.to_string(), arguments.to_string()));
        self
    }

    /// Adds a usage chunk before `[DONE]`.
    pub fn usage(mut self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        self.usage = Some((prompt_tokens, completion_tokens));
        self
    }

    /// Overrides the finish reason (default `tool_calls` when there are calls, else `stop`),
    /// e.g. `length` for a truncated answer.
    pub fn finish_reason(mut self, reason: impl Into<String>) -> Self {
        self.finish_reason = Some(reason.into());
        self
    }

    /// The events in wire order.
    pub fn build(self) -> Vec<SseEvent> {
        let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
        for piece in self.reasoning.as_deref().map(pieces).unwrap_or_default() {
            events.push(chunk(json!({ "reasoning_content": piece }), None));
        }
        for piece in self.text.as_deref().map(pieces).unwrap_or_default() {
            events.push(chunk(json!({ "content": piece }), None));
        }
        for (index, (id, name, arguments)) in self.tool_calls.iter().enumerate() {
            events.push(chunk(
                json!({"tool_calls": [{
                    "index": index,
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }]}),
                None,
            ));
            for piece in pieces(arguments) {
                events.push(chunk(
                    json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                    None,
                ));
            }
        }
        let finish = self.finish_reason.unwrap_or_else(|| {
            if self.tool_calls.is_empty() {
                "stop"
            } else {
                "tool_calls"
            }
            .to_string()
        });
        events.push(chunk(json!({}), Some(&finish)));
        if let Some((prompt, completion)) = self.usage {
            let mut usage_chunk = envelope(json!([]));
            usage_chunk["usage"] = json!({
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            });
            events.push(SseEvent::data(usage_chunk.to_string()));
        }
        events.push(done());
        events
    }
}

/// A text answer streamed in several `content` deltas, finish reason `stop`.
pub fn text(text: &str) -> Vec<SseEvent> {
    ChatStream::new().text(text).build()
}

/// Tool calls `(id, name, arguments)` with arguments split over several deltas, finish
/// reason `tool_calls`.
pub fn tool_calls(calls: &[(&str, &str, Value)]) -> Vec<SseEvent> {
    calls
        .iter()
        .fold(ChatStream::new(), |stream, (id, name, args)| {
            stream.tool_call(id, name, args)
        })
        .build()
}

/// A whole response answering with one tool call: what most scenario scripts need.
pub fn call_response(id: &str, name: &str, arguments: Value) -> MockResponse {
    MockResponse::sse(tool_calls(&[(id, name, arguments)]))
}

/// A whole response answering with `text`.
pub fn text_response(text_: &str) -> MockResponse {
    MockResponse::sse(text(text_))
}

/// The terminating `data: [DONE]` event.
pub fn done() -> SseEvent {
    SseEvent::data("[DONE]")
}

/// An OpenAI-style error body: `{"error":{"message","type","param":null,"code"}}`, for
/// [`crate::MockResponse::error`] (e.g. status 429 with type `rate_limit_exceeded`).
pub fn error_body(message: &str, kind: &str) -> String {
    json!({"error": {"message": message, "type": kind, "param": null, "code": kind}}).to_string()
}

/// An error sent inside the stream as a data event, as some OpenAI-compatible servers do
/// when generation fails after the 200 status went out.
pub fn stream_error(message: &str) -> SseEvent {
    SseEvent::data(json!({"error": {"message": message, "type": "server_error"}}).to_string())
}

fn pieces(text: &str) -> Vec<String> {
    split_pieces(text, PIECES)
}

fn envelope(choices: Value) -> Value {
    json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "mock-model",
        "choices": choices,
    })
}

fn chunk(delta: Value, finish_reason: Option<&str>) -> SseEvent {
    let choice = json!({
        "index": 0,
        "delta": delta,
        "logprobs": null,
        "finish_reason": finish_reason,
    });
    SseEvent::data(envelope(json!([choice])).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payloads(events: &[SseEvent]) -> Vec<Value> {
        events
            .iter()
            .filter(|e| e.data != "[DONE]")
            .map(|e| serde_json::from_str(&e.data).unwrap())
            .collect()
    }

    #[test]
    fn text_streams_in_several_deltas_then_stop_and_done() {
        let events = text("Hello there");
        assert_eq!(events.last().unwrap().data, "[DONE]");
        let chunks = payloads(&events);
        let deltas: Vec<&str> = chunks
            .iter()
            .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
            .filter(|s| !s.is_empty())
            .collect();
        assert!(deltas.len() > 1);
        assert_eq!(deltas.concat(), "Hello there");
        assert_eq!(
            chunks.last().unwrap()["choices"][0]["finish_reason"],
            "stop"
        );
        assert!(events.iter().all(|e| e.event.is_none()));
    }

    #[test]
    fn tool_call_arguments_reassemble_to_the_json() {
        let args = json!({"plan": [{"step": "a", "status": "pending"}]});
        let chunks = payloads(&tool_calls(&[("call_1", "update_plan", args.clone())]));
        let calls: Vec<&Value> = chunks
            .iter()
            .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0))
            .collect();
        assert_eq!(calls[0]["id"], "call_1");
        assert_eq!(calls[0]["function"]["name"], "update_plan");
        assert!(calls.len() > 2);
        let joined: String = calls
            .iter()
            .filter_map(|c| c["function"]["arguments"].as_str())
            .collect();
        assert_eq!(serde_json::from_str::<Value>(&joined).unwrap(), args);
        assert_eq!(
            chunks.last().unwrap()["choices"][0]["finish_reason"],
            "tool_calls"
        );
    }

    #[test]
    fn usage_chunk_has_empty_choices() {
        let chunks = payloads(&ChatStream::new().text("x").usage(10, 2).build());
        let usage = chunks.last().unwrap();
        assert_eq!(usage["choices"], json!([]));
        assert_eq!(usage["usage"]["total_tokens"], 12);
    }
}

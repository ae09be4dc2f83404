//! Anthropic Messages API streams (`POST /v1/messages` with `stream: true`).
//!
//! Named events: `message_start` (with input usage), per content block
//! `content_block_start` / `content_block_delta`* / `content_block_stop`, a `ping` after the
//! first block starts, `message_delta` with `stop_reason` and output usage, `message_stop`.

use crate::response::{SseEvent, split_pieces};
use serde_json::{Value, json};

const PIECES: usize = 3;

#[derive(Debug, Clone)]
enum Block {
    Thinking {
        thinking: String,
        signature: String,
    },
    Text(String),
    ToolUse {
        id: String,
        name: String,
        input: String,
    },
}

/// A Messages API stream: content blocks in the order added.
#[derive(Debug, Clone)]
pub struct MessageStream {
    blocks: Vec<Block>,
    usage: (u64, u64),
    stop_reason: Option<String>,
}

impl Default for MessageStream {
    fn default() -> Self {
        Self {
            blocks: Vec::new(),
            usage: (100, 10),
            stop_reason: None,
        }
    }
}

impl MessageStream {
    /// An empty stream; usage 100 in / 10 out.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a thinking block (`thinking_delta`s, then one `signature_delta`).
    pub fn thinking(mut self, thinking: impl Into<String>, signature: impl Into<String>) -> Self {
        self.blocks.push(Block::Thinking {
            thinking: thinking.into(),
            signature: signature.into(),
        });
        self
    }

    /// Adds a text block streamed as `text_delta`s.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.blocks.push(Block::Text(text.into()));
        self
    }

    /// Adds a `tool_use` block whose input streams as `input_json_delta` pieces.
    pub fn tool_use(self, id: &str, name: &str, input: &Value) -> Self {
        self.tool_use_raw(id, name, &input.to_string())
    }

    /// Like [`MessageStream::tool_use`] with raw (possibly invalid) input JSON text.
    pub fn tool_use_raw(mut self, id: &str, name: &str, input: &str) -> Self {
        self.blocks.push(Block::ToolUse {
            id: id.to_string(),
            name: name.to_string(),
            input: input.to_string(),
        });
        self
    }

    /// Sets input tokens (in `message_start`) and output tokens (in `message_delta`).
    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage = (input_tokens, output_tokens);
        self
    }

    /// Overrides the stop reason (default `tool_use` with tool blocks, else `end_turn`),
    /// e.g. `max_tokens`.
    pub fn stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    /// The events through `message_stop`.
    pub fn build(self) -> Vec<SseEvent> {
        let mut events = self.start_and_blocks();
        let has_tool_use = self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }));
        let stop_reason = self
            .stop_reason
            .unwrap_or_else(|| if has_tool_use { "tool_use" } else { "end_turn" }.to_string());
        events.push(event(
            "message_delta",
            json!({
                "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                "usage": {"output_tokens": self.usage.1},
            }),
        ));
        events.push(event("message_stop", json!({})));
        events
    }

    /// The events of the blocks followed by an `error` event instead of the message end: a
    /// stream the API aborts part way (for example `overloaded_error`).
    pub fn build_error(self, kind: &str, message: &str) -> Vec<SseEvent> {
        let mut events = self.start_and_blocks();
        events.push(error(kind, message));
        events
    }

    fn start_and_blocks(&self) -> Vec<SseEvent> {
        let mut events = vec![event(
            "message_start",
            json!({"message": {
                "id": "msg_mock",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "mock-model",
                "stop_reason": null,
                "stop_sequence": null,
                "usage": {
                    "input_tokens": self.usage.0,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                    "output_tokens": 1,
                },
            }}),
        )];
        for (index, block) in self.blocks.iter().enumerate() {
            block_events(&mut events, index, block);
            if index == 0 {
                // The API sends its first ping right after the first block opens.
                events.insert(2, event("ping", json!({})));
            }
        }
        if self.blocks.is_empty() {
            events.push(event("ping", json!({})));
        }
        events
    }
}

fn block_events(events: &mut Vec<SseEvent>, index: usize, block: &Block) {
    let (start, deltas) = match block {
        Block::Thinking {
            thinking,
            signature,
        } => {
            let mut deltas: Vec<Value> = split_pieces(thinking, PIECES)
                .into_iter()
                .map(|piece| json!({"type": "thinking_delta", "thinking": piece}))
                .collect();
            deltas.push(json!({"type": "signature_delta", "signature": signature}));
            (
                json!({"type": "thinking", "thinking": "", "signature": ""}),
                deltas,
            )
        }
        Block::Text(text) => (
            json!({"type": "text", "text": ""}),
            split_pieces(text, PIECES)
                .into_iter()
                .map(|piece| json!({"type": "text_delta", "text": piece}))
                .collect(),
        ),
        Block::ToolUse { id, name, input } => {
            // The API opens with an empty fragment, then sends the input in pieces.
            let pieces = std::iter::once(String::new()).chain(split_pieces(input, PIECES));
            (
                json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                pieces
                    .map(|piece| json!({"type": "input_json_delta", "partial_json": piece}))
                    .collect(),
            )
        }
    };
    events.push(event(
        "content_block_start",
        json!({"index": index, "content_block": start}),
    ));
    for delta in deltas {
        events.push(event(
            "content_block_delta",
            json!({"index": index, "delta": delta}),
        ));
    }
    events.push(event("content_block_stop", json!({ "index": index })));
}

/// A text answer in one text block, stop reason `end_turn`.
pub fn text(text: &str) -> Vec<SseEvent> {
    MessageStream::new().text(text).build()
}

/// `tool_use` blocks `(id, name, input)`, stop reason `tool_use`.
pub fn tool_uses(calls: &[(&str, &str, Value)]) -> Vec<SseEvent> {
    calls
        .iter()
        .fold(MessageStream::new(), |stream, (id, name, input)| {
            stream.tool_use(id, name, input)
        })
        .build()
}

/// An `error` event, e.g. `error("overloaded_error", "Overloaded")`.
pub fn error(kind: &str, message: &str) -> SseEvent {
    SseEvent::named("error", error_body(kind, message))
}

/// The JSON error body Anthropic sends with an HTTP error status (and in `error` events):
/// `{"type":"error","error":{"type":kind,"message":message}}`.
pub fn error_body(kind: &str, message: &str) -> String {
    json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
}

fn event(kind: &str, mut data: Value) -> SseEvent {
    data["type"] = json!(kind);
    SseEvent::named(kind, data.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(events: &[SseEvent]) -> Vec<Value> {
        events
            .iter()
            .map(|e| {
                let data: Value = serde_json::from_str(&e.data).unwrap();
                assert_eq!(data["type"].as_str(), e.event.as_deref());
                data
            })
            .collect()
    }

    #[test]
    fn text_stream_follows_the_message_lifecycle() {
        let events = parsed(&text("Hello"));
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(
            kinds[..3],
            ["message_start", "content_block_start", "ping"],
            "{kinds:?}"
        );
        assert_eq!(kinds[kinds.len() - 2..], ["message_delta", "message_stop"]);
        assert_eq!(events[0]["message"]["usage"]["input_tokens"], 100);
        let text: String = events
            .iter()
            .filter(|e| e["delta"]["type"] == "text_delta")
            .map(|e| e["delta"]["text"].as_str().unwrap())
            .collect();
        assert_eq!(text, "Hello");
        assert_eq!(events[events.len() - 2]["delta"]["stop_reason"], "end_turn");
    }

    #[test]
    fn tool_use_input_reassembles_and_thinking_has_signature() {
        let input = json!({"plan": [{"step": "x"}]});
        let events = parsed(
            &MessageStream::new()
                .thinking("hmm", "sig")
                .tool_use("toolu_1", "update_plan", &input)
                .build(),
        );
        let partial: String = events
            .iter()
            .filter(|e| e["delta"]["type"] == "input_json_delta")
            .map(|e| e["delta"]["partial_json"].as_str().unwrap())
            .collect();
        assert_eq!(serde_json::from_str::<Value>(&partial).unwrap(), input);
        assert!(events.iter().any(|e| e["delta"]["signature"] == "sig"));
        let start = events
            .iter()
            .find(|e| e["content_block"]["type"] == "tool_use")
            .unwrap();
        assert_eq!(start["index"], 1);
        assert_eq!(start["content_block"]["id"], "toolu_1");
        assert_eq!(events[events.len() - 2]["delta"]["stop_reason"], "tool_use");
    }

    #[test]
    fn error_event_has_nested_error_type() {
        let event = error("overloaded_error", "Overloaded");
        assert_eq!(event.event.as_deref(), Some("error"));
        let data: Value = serde_json::from_str(&event.data).unwrap();
        assert_eq!(data["error"]["type"], "overloaded_error");
    }
}

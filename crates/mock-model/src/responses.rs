//! OpenAI Responses API streams (`POST /v1/responses` with `stream: true`).
//!
//! Every event is named and its data repeats the name in `type`, with a running
//! `sequence_number`: `response.created`, `response.in_progress`, then per output item
//! `response.output_item.added` ... `response.output_item.done`, and finally
//! `response.completed` carrying every item and the usage (or `response.failed`).

use crate::response::{SseEvent, split_pieces};
use serde_json::{Value, json};

const PIECES: usize = 3;
const RESPONSE_ID: &str = "resp_mock";

#[derive(Debug, Clone)]
enum Item {
    Reasoning(String),
    Message(String),
    FunctionCall {
        call_id: String,
        name: String,
        arguments: String,
    },
}

/// A Responses API stream: output items in the order added, then `response.completed`.
#[derive(Debug, Clone)]
pub struct ResponseStream {
    items: Vec<Item>,
    usage: (u64, u64),
}

impl Default for ResponseStream {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            usage: (100, 10),
        }
    }
}

/// Writes events with the running sequence number.
struct Writer {
    events: Vec<SseEvent>,
    sequence: u64,
}

impl Writer {
    fn emit(&mut self, kind: &str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        self.events.push(SseEvent::named(kind, data.to_string()));
    }
}

impl ResponseStream {
    /// An empty stream (created, in_progress, completed); usage 100 in / 10 out.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a reasoning item whose summary streams as `response.reasoning_summary_text.delta`.
    pub fn reasoning(mut self, summary: impl Into<String>) -> Self {
        self.items.push(Item::Reasoning(summary.into()));
        self
    }

    /// Adds an assistant message whose text streams as `response.output_text.delta`.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.items.push(Item::Message(text.into()));
        self
    }

    /// Adds a `function_call` item; its arguments stream as
    /// `response.function_call_arguments.delta` fragments.
    pub fn function_call(self, call_id: &str, name: &str, arguments: &Value) -> Self {
        self.function_call_raw(call_id, name, &arguments.to_string())
    }

    /// Like [`ResponseStream::function_call`] with a raw (possibly invalid) argument string.
    pub fn function_call_raw(mut self, call_id: &str, name: &str, arguments: &str) -> Self {
        self.items.push(Item::FunctionCall {
            call_id: call_id.to_string(),
            name: name.to_string(),
            arguments: arguments.to_string(),
        });
        self
    }

    /// Sets the usage reported in `response.completed`.
    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage = (input_tokens, output_tokens);
        self
    }

    /// The events up to and including `response.completed`.
    pub fn build(self) -> Vec<SseEvent> {
        let mut w = self.open();
        let done = self.items_events(&mut w);
        let mut response = response_object("completed", done);
        response["usage"] = usage_json(self.usage);
        w.emit("response.completed", json!({ "response": response }));
        w.events
    }

    /// The events of the items, then `response.failed` with `code` and `message` instead of
    /// `response.completed`: a generation that fails part way.
    pub fn build_failed(self, code: &str, message: &str) -> Vec<SseEvent> {
        let mut w = self.open();
        let done = self.items_events(&mut w);
        let mut response = response_object("failed", done);
        response["error"] = json!({"code": code, "message": message});
        w.emit("response.failed", json!({ "response": response }));
        w.events
    }

    fn open(&self) -> Writer {
        let mut w = Writer {
            events: Vec::new(),
            sequence: 0,
        };
        let created = response_object("in_progress", Vec::new());
        w.emit("response.created", json!({ "response": created }));
        w.emit("response.in_progress", json!({ "response": created }));
        w
    }

    /// Emits every item's events; returns the finished items for the final response.
    fn items_events(&self, w: &mut Writer) -> Vec<Value> {
        let mut done = Vec::new();
        for (index, item) in self.items.iter().enumerate() {
            let item = match item {
                Item::Reasoning(summary) => reasoning_events(w, index, summary),
                Item::Message(text) => message_events(w, index, text),
                Item::FunctionCall {
                    call_id,
                    name,
                    arguments,
                } => function_call_events(w, index, call_id, name, arguments),
            };
            done.push(item);
        }
        done
    }
}

fn reasoning_events(w: &mut Writer, index: usize, summary: &str) -> Value {
    let id = format!("rs_mock_{index}");
    let ids = json!({"item_id": id, "output_index": index, "summary_index": 0});
    w.emit(
        "response.output_item.added",
        json!({"output_index": index, "item": {"id": id, "type": "reasoning", "summary": []}}),
    );
    w.emit(
        "response.reasoning_summary_part.added",
        merge(&ids, json!({"part": {"type": "summary_text", "text": ""}})),
    );
    for piece in split_pieces(summary, PIECES) {
        w.emit(
            "response.reasoning_summary_text.delta",
            merge(&ids, json!({ "delta": piece })),
        );
    }
    w.emit(
        "response.reasoning_summary_text.done",
        merge(&ids, json!({ "text": summary })),
    );
    w.emit(
        "response.reasoning_summary_part.done",
        merge(
            &ids,
            json!({"part": {"type": "summary_text", "text": summary}}),
        ),
    );
    let item = json!({
        "id": id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": summary}],
    });
    w.emit(
        "response.output_item.done",
        json!({"output_index": index, "item": item}),
    );
    item
}

fn message_events(w: &mut Writer, index: usize, text: &str) -> Value {
    let id = format!("msg_mock_{index}");
    let ids = json!({"item_id": id, "output_index": index, "content_index": 0});
    w.emit(
        "response.output_item.added",
        json!({"output_index": index, "item": {
            "id": id, "type": "message", "status": "in_progress", "role": "assistant",
            "content": [],
        }}),
    );
    w.emit(
        "response.content_part.added",
        merge(
            &ids,
            json!({"part": {"type": "output_text", "text": "", "annotations": []}}),
        ),
    );
    for piece in split_pieces(text, PIECES) {
        w.emit(
            "response.output_text.delta",
            merge(&ids, json!({"delta": piece, "logprobs": []})),
        );
    }
    w.emit(
        "response.output_text.done",
        merge(&ids, json!({"text": text, "logprobs": []})),
    );
    let part = json!({"type": "output_text", "text": text, "annotations": []});
    w.emit(
        "response.content_part.done",
        merge(&ids, json!({ "part": part })),
    );
    let item = json!({
        "id": id, "type": "message", "status": "completed", "role": "assistant",
        "content": [part],
    });
    w.emit(
        "response.output_item.done",
        json!({"output_index": index, "item": item}),
    );
    item
}

fn function_call_events(
    w: &mut Writer,
    index: usize,
    call_id: &str,
    name: &str,
    arguments: &str,
) -> Value {
    let id = format!("fc_mock_{index}");
    let ids = json!({"item_id": id, "output_index": index});
    w.emit(
        "response.output_item.added",
        json!({"output_index": index, "item": {
            "id": id, "type": "function_call", "status": "in_progress",
            "arguments": "", "call_id": call_id, "name": name,
        }}),
    );
    for piece in split_pieces(arguments, PIECES) {
        w.emit(
            "response.function_call_arguments.delta",
            merge(&ids, json!({ "delta": piece })),
        );
    }
    w.emit(
        "response.function_call_arguments.done",
        merge(&ids, json!({ "arguments": arguments })),
    );
    let item = json!({
        "id": id, "type": "function_call", "status": "completed",
        "arguments": arguments, "call_id": call_id, "name": name,
    });
    w.emit(
        "response.output_item.done",
        json!({"output_index": index, "item": item}),
    );
    item
}

/// A text answer: one message item streamed in several deltas, then `response.completed`.
pub fn text(text: &str) -> Vec<SseEvent> {
    ResponseStream::new().text(text).build()
}

/// Function calls `(call_id, name, arguments)`, then `response.completed`.
pub fn function_calls(calls: &[(&str, &str, Value)]) -> Vec<SseEvent> {
    calls
        .iter()
        .fold(ResponseStream::new(), |stream, (id, name, args)| {
            stream.function_call(id, name, args)
        })
        .build()
}

/// `response.created` then `response.failed` with `code` and `message` (for example
/// `server_error`, or `context_length_exceeded`).
pub fn failed(code: &str, message: &str) -> Vec<SseEvent> {
    ResponseStream::new().build_failed(code, message)
}

/// A bare `error` event as the API sends mid-stream (for example code
/// `rate_limit_exceeded`).
pub fn error(code: &str, message: &str) -> SseEvent {
    let data = json!({
        "type": "error", "code": code, "message": message, "param": null, "sequence_number": 0,
    });
    SseEvent::named("error", data.to_string())
}

fn response_object(status: &str, output: Vec<Value>) -> Value {
    json!({
        "id": RESPONSE_ID,
        "object": "response",
        "created_at": 0,
        "status": status,
        "error": null,
        "incomplete_details": null,
        "model": "mock-model",
        "output": output,
        "usage": null,
    })
}

fn usage_json((input, output): (u64, u64)) -> Value {
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input + output,
    })
}

/// `base` with the fields of `extra` added.
fn merge(base: &Value, extra: Value) -> Value {
    let mut out = base.clone();
    if let (Some(out), Value::Object(extra)) = (out.as_object_mut(), extra) {
        out.extend(extra);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(events: &[SseEvent]) -> Vec<Value> {
        events
            .iter()
            .map(|e| {
                let data: Value = serde_json::from_str(&e.data).unwrap();
                assert_eq!(
                    data["type"].as_str(),
                    e.event.as_deref(),
                    "event name = type"
                );
                data
            })
            .collect()
    }

    #[test]
    fn text_stream_has_lifecycle_and_deltas() {
        let events = parsed(
            &ResponseStream::new()
                .reasoning("think")
                .text("Hello")
                .build(),
        );
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(kinds[0], "response.created");
        assert_eq!(*kinds.last().unwrap(), "response.completed");
        let text: String = events
            .iter()
            .filter(|e| e["type"] == "response.output_text.delta")
            .map(|e| e["delta"].as_str().unwrap())
            .collect();
        assert_eq!(text, "Hello");
        assert!(kinds.contains(&"response.reasoning_summary_text.delta"));
        let completed = events.last().unwrap();
        assert_eq!(completed["response"]["output"].as_array().unwrap().len(), 2);
        assert_eq!(completed["response"]["usage"]["total_tokens"], 110);
        let seqs: Vec<u64> = events
            .iter()
            .map(|e| e["sequence_number"].as_u64().unwrap())
            .collect();
        assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1));
    }

    #[test]
    fn function_call_item_done_carries_call_id_and_arguments() {
        let args = json!({"plan": []});
        let events = parsed(&function_calls(&[("call_1", "update_plan", args.clone())]));
        let done = events
            .iter()
            .find(|e| e["type"] == "response.output_item.done")
            .unwrap();
        assert_eq!(done["item"]["call_id"], "call_1");
        assert_eq!(done["item"]["name"], "update_plan");
        let arguments: Value =
            serde_json::from_str(done["item"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(arguments, args);
    }

    #[test]
    fn failed_ends_with_response_failed_and_error() {
        let events = parsed(&failed("server_error", "boom"));
        let last = events.last().unwrap();
        assert_eq!(last["type"], "response.failed");
        assert_eq!(last["response"]["status"], "failed");
        assert_eq!(last["response"]["error"]["message"], "boom");
        let error: Value =
            serde_json::from_str(&error("rate_limit_exceeded", "slow").data).unwrap();
        assert_eq!(error["code"], "rate_limit_exceeded");
    }
}

//! A scripted model server on `127.0.0.1` speaking real HTTP/1.1 and server-sent events, for
//! cairn's scenario tests, the black-box tests of the `cairn` binary, and benchmarks.
//!
//! # In tests
//!
//! ```no_run
//! use cairn_mock_model::{MockResponse, MockServer, chat};
//! use serde_json::json;
//!
//! # async fn demo() {
//! let server = MockServer::start(vec![
//!     MockResponse::sse(chat::tool_calls(&[("call_1", "update_plan", json!({"plan": []}))])),
//!     MockResponse::sse(chat::text("Done.")),
//! ])
//! .await;
//! // Point the client at server.base_url() ("http://127.0.0.1:PORT/v1") and run a turn...
//! let requests = server.requests();
//! assert_eq!(requests[1].json()["messages"][2]["role"], "tool");
//! server.assert_no_violations();
//! # }
//! ```
//!
//! Each POST (any path) takes the next scripted [`MockResponse`]; when none is left the
//! answer is `500` with `{"error":{"message":"mock: no scripted response left for request N"}}`
//! (N counts all requests from 1). A `GET` of a path ending in `/models` gets the model list
//! ([`DEFAULT_MODELS`] unless [`MockServer::set_models`] or [`MockServer::set_models_answer`]
//! says otherwise; Anthropic's shape when the request carries `anthropic-version`). Other
//! methods get `404`; neither takes anything from the queue.
//! Every request is recorded ([`MockServer::requests`]) and checked: tool outputs must
//! answer a call made earlier in the same request and every call must be answered
//! (Chat `tool_calls`/`tool_call_id`, Responses `function_call`/`function_call_output` by
//! `call_id`, Anthropic `tool_use`/`tool_result`); problems are listed by
//! [`MockServer::violations`].
//!
//! Bodies go out chunk by chunk (HTTP chunked encoding), each chunk after its delay and
//! [`Gate`]; [`MockResponse::cut`] and [`MockResponse::stall`] end a body with a transport
//! error instead of a clean end, and [`MockResponse::disconnect`] closes the connection
//! without any answer. The [`chat`], [`responses`] and [`anthropic`] modules build
//! the event streams those APIs send.
//!
//! # The `cairn-mock-model` binary
//!
//! `cairn-mock-model --script FILE [--port N]` serves a script on `127.0.0.1:N` (default 0,
//! a free port), prints `READY http://127.0.0.1:PORT/v1` as its first stdout line, and
//! serves until killed. Request check violations are printed to stderr as `VIOLATION ...`.
//!
//! The script is JSON:
//!
//! ```json
//! {
//!   "wire": "chat",
//!   "responses": [
//!     {"text": "Let me plan.", "reasoning": "optional thinking", "delay_ms": 5},
//!     {"tool_calls": [{"id": "c1", "name": "update_plan", "arguments": {"plan": []}}]},
//!     {"status": 500, "body": "{\"error\":{\"message\":\"boom\"}}"},
//!     {"repeat": 50, "items": [
//!       {"tool_calls": [{"id": "c", "name": "update_plan", "arguments": {"plan": []}}]}
//!     ]},
//!     {"text": "All done."}
//!   ]
//! }
//! ```
//!
//! - `wire`: `"chat"`, `"responses"` or `"anthropic"`; every answer uses that format.
//! - `models` (optional): the ids `GET /v1/models` lists, e.g. `["gpt-5.1", "qwen3-coder"]`.
//! - `{"text": S}`: a streamed text answer. `{"tool_calls": [{"id","name","arguments"}]}`:
//!   streamed tool calls (`arguments` is any JSON, default `{}`). Both take an optional
//!   `"reasoning"` (reasoning deltas / summary / thinking block before the answer).
//! - `{"status": N, "body": B}`: a plain HTTP answer; a string body is sent as is, any
//!   other JSON value serialized.
//! - `{"repeat": N, "items": [...]}`: the items N times in a row. Inside a repeat, tool call
//!   ids get `_K` appended (K = 1..N) so call ids stay unique across the conversation.
//! - `"delay_ms"` on a text, tool_calls or status item: wait that long before each chunk.
//! - `"cut_after": K` on such an item: send only its first K chunks (SSE events), then
//!   abort the connection, as a server dying mid-stream.

pub mod anthropic;
pub mod chat;
mod checks;
mod models;
mod record;
mod response;
pub mod responses;
pub mod script;
mod server;

pub use models::DEFAULT_MODELS;
pub use record::RecordedRequest;
pub use response::{Chunk, Fault, Gate, MockResponse, SseEvent};
pub use script::{Script, ScriptError, Wire};
pub use server::MockServer;

//! Anthropic Messages API (`POST {base_url}/messages`, `stream: true`).
//!
//! History maps onto alternating user/assistant messages made of content blocks: text,
//! `tool_use` (assistant), `tool_result` (user; consecutive results share one message) and
//! `thinking` blocks carried back with their signature. In the stream, a tool call's JSON
//! arrives as `input_json_delta` fragments appended to one buffer and handed on once, at
//! `content_block_stop`.

use super::sse::{SseDecoder, SseEvent, decode, parse_event};
use super::{
    Auth, ClientError, ModelClient, ModelRequest, ResponseEvent, ResponseStream, Usage, endpoint,
    send,
};
use crate::config::ProviderInfo;
use crate::history::ResponseItem;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::collections::VecDeque;

mod request;
pub use request::{request_body, thinking_budget};

/// `provider_data["format"]` of thinking blocks this module produced.
pub const FORMAT: &str = "anthropic";

/// The API version cairn speaks.
pub const API_VERSION: &str = "2023-06-01";

/// Client for `wire_api = "anthropic"`.
pub struct AnthropicClient {
    provider: ProviderInfo,
    http: reqwest::Client,
    reasoning_effort: Option<String>,
}

impl AnthropicClient {
    /// A client for `provider`; `reasoning_effort` turns on extended thinking (see
    /// [`thinking_budget`]).
    pub fn new(
        provider: ProviderInfo,
        http: reqwest::Client,
        reasoning_effort: Option<String>,
    ) -> Self {
        Self {
            provider,
            http,
            reasoning_effort,
        }
    }
}

#[async_trait]
impl ModelClient for AnthropicClient {
    async fn stream(&self, request: &ModelRequest) -> Result<ResponseStream, ClientError> {
        let url = endpoint(&self.provider, "messages");
        let budget = thinking_budget(self.reasoning_effort.as_deref(), self.provider.max_tokens);
        let body = request_body(request, self.provider.max_tokens, budget).to_string();
        let response = send(
            &self.http,
            &self.provider,
            &url,
            &request.model,
            Auth::XApiKey,
            &[("anthropic-version", API_VERSION)],
            body,
        )
        .await?;
        Ok(decode(
            response.bytes_stream(),
            AnthropicDecoder::default(),
            self.provider.idle_timeout,
        ))
    }

    fn provider(&self) -> &ProviderInfo {
        &self.provider
    }

    async fn list_models(&self) -> Result<Vec<cairn_protocol::ModelInfo>, ClientError> {
        // The API pages its list (20 by default); one page of the maximum holds them all.
        super::models::list(
            &self.http,
            &self.provider,
            Auth::XApiKey,
            &[("anthropic-version", API_VERSION)],
            Some("limit=1000"),
        )
        .await
    }
}

// Typed event shapes; deltas borrow their text.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    index: Option<usize>,
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default)]
    content_block: Option<BlockStart>,
    #[serde(default)]
    message: Option<MessageStart>,
    #[serde(default)]
    usage: Option<EventUsage>,
    #[serde(default)]
    error: Option<ErrorBody>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(default, rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    signature: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct BlockStart {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    signature: Option<String>,
    #[serde(default)]
    data: Option<String>,
}

#[derive(Deserialize)]
struct MessageStart {
    #[serde(default)]
    usage: Option<EventUsage>,
}

#[derive(Deserialize)]
struct EventUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct ErrorBody {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

const HANDLED: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "error",
];

/// One content block being streamed.
enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    Thinking {
        text: String,
        signature: String,
    },
    Redacted(String),
    Ignored,
}

/// State machine over Messages stream events.
#[derive(Default)]
pub struct AnthropicDecoder {
    blocks: Vec<Option<Block>>,
    usage: Option<Usage>,
    completed: bool,
}

impl AnthropicDecoder {
    fn block(&mut self, index: Option<usize>) -> Result<&mut Option<Block>, ClientError> {
        let index = index.unwrap_or(0);
        if index > 1024 {
            return Err(ClientError::Protocol(format!(
                "content block index {index} is out of range"
            )));
        }
        if self.blocks.len() <= index {
            self.blocks.resize_with(index + 1, || None);
        }
        Ok(&mut self.blocks[index])
    }

    fn on_usage(&mut self, usage: EventUsage) {
        let total = self.usage.get_or_insert_with(Usage::default);
        // Cached prompt tokens are reported apart from `input_tokens`; all of them fill the
        // context window.
        let input = [
            usage.input_tokens,
            usage.cache_creation_input_tokens,
            usage.cache_read_input_tokens,
        ];
        if input.iter().any(Option::is_some) {
            total.input_tokens = input.iter().flatten().sum();
        }
        if let Some(output) = usage.output_tokens {
            total.output_tokens = output;
        }
    }

    fn on_delta(
        &mut self,
        index: Option<usize>,
        delta: Delta<'_>,
        out: &mut VecDeque<ResponseEvent>,
    ) -> Result<(), ClientError> {
        let block = self.block(index)?;
        match (delta.kind.as_deref(), block) {
            (Some("text_delta"), Some(Block::Text(text))) => {
                if let Some(delta) = delta.text.filter(|d| !d.is_empty()) {
                    text.push_str(&delta);
                    out.push_back(ResponseEvent::OutputTextDelta(delta.into_owned()));
                }
            }
            (Some("input_json_delta"), Some(Block::ToolUse { json, .. })) => {
                if let Some(part) = delta.partial_json {
                    json.push_str(&part);
                }
            }
            (Some("thinking_delta"), Some(Block::Thinking { text, .. })) => {
                if let Some(delta) = delta.thinking.filter(|d| !d.is_empty()) {
                    text.push_str(&delta);
                    out.push_back(ResponseEvent::ReasoningDelta(delta.into_owned()));
                }
            }
            (Some("signature_delta"), Some(Block::Thinking { signature, .. })) => {
                if let Some(part) = delta.signature {
                    signature.push_str(&part);
                }
            }
            (_, None) => {
                return Err(ClientError::Protocol(format!(
                    "a delta arrived for content block {} before it started",
                    index.unwrap_or(0)
                )));
            }
            // Other delta kinds (citations, ...) and kinds cairn does not keep.
            _ => {}
        }
        Ok(())
    }
}

fn start_block(start: BlockStart) -> Block {
    match start.kind.as_str() {
        "text" => Block::Text(start.text.unwrap_or_default()),
        "tool_use" => Block::ToolUse {
            id: start.id.unwrap_or_default(),
            name: start.name.unwrap_or_default(),
            // The stream normally starts with `input: {}` and sends the JSON as deltas; a
            // server that sends the whole input up front sends no deltas.
            json: match start.input {
                Some(Value::Object(map)) if !map.is_empty() => Value::Object(map).to_string(),
                _ => String::new(),
            },
        },
        "thinking" => Block::Thinking {
            text: start.thinking.unwrap_or_default(),
            signature: start.signature.unwrap_or_default(),
        },
        "redacted_thinking" => Block::Redacted(start.data.unwrap_or_default()),
        _ => Block::Ignored,
    }
}

fn finished_item(block: Block) -> Option<ResponseItem> {
    match block {
        Block::Text(text) => (!text.is_empty()).then(|| ResponseItem::assistant(text)),
        Block::ToolUse { id, name, json } => Some(ResponseItem::FunctionCall {
            call_id: id,
            name,
            arguments: if json.trim().is_empty() {
                "{}".to_string()
            } else {
                json
            },
        }),
        Block::Thinking { text, signature } => Some(ResponseItem::Reasoning {
            text,
            provider_data: Some(json!({"format": FORMAT, "signature": signature})),
        }),
        Block::Redacted(data) => Some(ResponseItem::Reasoning {
            text: String::new(),
            provider_data: Some(json!({"format": FORMAT, "redacted": data})),
        }),
        Block::Ignored => None,
    }
}

impl SseDecoder for AnthropicDecoder {
    fn on_event(
        &mut self,
        event: &SseEvent<'_>,
        out: &mut VecDeque<ResponseEvent>,
    ) -> Result<(), ClientError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(());
        }
        let Some(event) = parse_event::<Event<'_>>(data, HANDLED)? else {
            return Ok(());
        };
        match event.kind.as_ref() {
            "content_block_delta" => {
                if let Some(delta) = event.delta {
                    self.on_delta(event.index, delta, out)?;
                }
            }
            "content_block_start" => {
                let block = event.content_block.map(start_block);
                *self.block(event.index)? = Some(block.unwrap_or(Block::Ignored));
            }
            "content_block_stop" => {
                if let Some(item) = self.block(event.index)?.take().and_then(finished_item) {
                    out.push_back(ResponseEvent::OutputItemDone(item));
                }
            }
            "message_start" => {
                if let Some(usage) = event.message.and_then(|m| m.usage) {
                    self.on_usage(usage);
                }
            }
            "message_delta" => {
                if let Some(usage) = event.usage {
                    self.on_usage(usage);
                }
            }
            "message_stop" => {
                self.completed = true;
                out.push_back(ResponseEvent::Completed { usage: self.usage });
            }
            "error" => {
                let error = event.error;
                let kind = error.as_ref().and_then(|e| e.kind.as_deref());
                let message = error.as_ref().and_then(|e| e.message.as_deref());
                return Err(ClientError::from_stream_error(kind, message.unwrap_or("")));
            }
            // `ping` and anything newer than this code.
            _ => {}
        }
        Ok(())
    }

    fn on_end(&mut self, _out: &mut VecDeque<ResponseEvent>) -> Result<(), ClientError> {
        if self.completed {
            Ok(())
        } else {
            Err(ClientError::Incomplete)
        }
    }
}

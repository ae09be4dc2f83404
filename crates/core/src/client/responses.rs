//! OpenAI Responses API (`POST {base_url}/responses`, `stream: true`, `store: false`).
//!
//! Nothing is stored server-side, so every request carries the whole conversation. Reasoning
//! items come back with `encrypted_content` (requested via `include`) and are sent back in
//! order, which lets a reasoning model continue its chain of thought across tool calls.
//! Finished output items arrive whole in `response.output_item.done`, so tool-call arguments
//! are never assembled from deltas here.

use super::sse::{SseDecoder, SseEvent, decode, parse_event};
use super::{
    Auth, ClientError, ModelClient, ModelRequest, ResponseEvent, ResponseStream, Usage, endpoint,
    send,
};
use crate::config::ProviderInfo;
use crate::history::{ResponseItem, Role};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::collections::VecDeque;

/// `provider_data["format"]` of reasoning items this module produced.
pub const FORMAT: &str = "responses";

/// Client for `wire_api = "responses"`.
pub struct ResponsesClient {
    provider: ProviderInfo,
    http: reqwest::Client,
    reasoning_effort: Option<String>,
}

impl ResponsesClient {
    /// A client for `provider`; `reasoning_effort` becomes `reasoning.effort` when set.
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
impl ModelClient for ResponsesClient {
    async fn stream(&self, request: &ModelRequest) -> Result<ResponseStream, ClientError> {
        let url = endpoint(&self.provider, "responses");
        let body = request_body(request, self.reasoning_effort.as_deref()).to_string();
        let response = send(
            &self.http,
            &self.provider,
            &url,
            &request.model,
            Auth::Bearer,
            &[],
            body,
        )
        .await?;
        Ok(decode(
            response.bytes_stream(),
            ResponsesDecoder::default(),
            self.provider.idle_timeout,
        ))
    }

    fn provider(&self) -> &ProviderInfo {
        &self.provider
    }

    async fn list_models(&self) -> Result<Vec<cairn_protocol::ModelInfo>, ClientError> {
        super::models::list(&self.http, &self.provider, Auth::Bearer, &[], None).await
    }
}

/// Models that reject reasoning parameters (`include: reasoning.encrypted_content` is an
/// error for them). Everything else is assumed to reason, as current OpenAI models do.
fn is_reasoning_model(model: &str) -> bool {
    let model = model.rsplit('/').next().unwrap_or(model);
    !["gpt-4", "gpt-3.5", "chatgpt-4o"]
        .iter()
        .any(|prefix| model.starts_with(prefix))
}

/// The Responses API's `reasoning.effort` for `reasoning_effort`: a level as it is, a token
/// budget (which only Anthropic takes directly) as the level whose budget is nearest.
fn effort_level(effort: &str) -> &str {
    match effort.trim().parse::<u32>() {
        Ok(tokens) if tokens < 1_024 => "minimal",
        Ok(tokens) if tokens <= 6_000 => "low",
        Ok(tokens) if tokens <= 20_000 => "medium",
        Ok(_) => "high",
        Err(_) => effort,
    }
}

/// The JSON body for a request.
pub fn request_body(request: &ModelRequest, reasoning_effort: Option<&str>) -> Value {
    let input: Vec<Value> = request.input.iter().filter_map(input_item).collect();
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|t| {
            // `[tools.web] search = "provider"`: the server's own search tool.
            if t.parameters
                .get(crate::tools::handlers::web_search::HOSTED_MARKER)
                .is_some()
            {
                return json!({"type": t.name});
            }
            json!({
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": super::schema::portable(&t.parameters),
            })
        })
        .collect();
    let mut body = json!({
        "model": request.model,
        "instructions": request.instructions,
        "input": input,
        "stream": true,
        "store": false,
    });
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
        body["tool_choice"] = json!("auto");
    }
    if is_reasoning_model(&request.model) {
        body["include"] = json!(["reasoning.encrypted_content"]);
        if let Some(effort) = reasoning_effort.map(effort_level) {
            body["reasoning"] = json!({"effort": effort, "summary": "auto"});
        }
    }
    body
}

/// One history item as a Responses input item. Reasoning goes back only when it came from
/// this wire format with its encrypted content: without it the server cannot use it, and with
/// `store: false` an id alone refers to nothing.
fn input_item(item: &ResponseItem) -> Option<Value> {
    Some(match item {
        ResponseItem::Message {
            role: Role::User,
            text,
        } => json!({
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": text}],
        }),
        ResponseItem::Message {
            role: Role::Assistant,
            text,
        } => json!({
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text}],
        }),
        ResponseItem::Reasoning {
            text,
            provider_data,
        } => {
            let data = provider_data.as_ref()?;
            if data.get("format").and_then(Value::as_str) != Some(FORMAT) {
                return None;
            }
            let encrypted = data.get("encrypted_content").and_then(Value::as_str)?;
            let summary = match data.get("summary") {
                Some(Value::Array(parts)) => Value::Array(parts.clone()),
                _ if text.is_empty() => json!([]),
                _ => json!([{"type": "summary_text", "text": text}]),
            };
            json!({
                "type": "reasoning",
                "summary": summary,
                "encrypted_content": encrypted,
            })
        }
        ResponseItem::FunctionCall {
            call_id,
            name,
            arguments,
        } => json!({
            "type": "function_call",
            "call_id": call_id,
            "name": name,
            "arguments": arguments,
        }),
        ResponseItem::FunctionCallOutput {
            call_id, output, ..
        } => json!({
            "type": "function_call_output",
            "call_id": call_id,
            "output": output,
        }),
    })
}

// Typed event shapes. Deltas are the bulk of a stream: they borrow their text and skip every
// other field without building a JSON tree.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    delta: Option<Cow<'a, str>>,
    #[serde(default)]
    summary_index: Option<u64>,
    #[serde(default)]
    item: Option<OutputItem>,
    #[serde(default)]
    response: Option<ResponseBody>,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    error: Option<ErrorBody>,
}

#[derive(Deserialize)]
struct OutputItem {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    content: Option<Vec<ContentPart>>,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
    #[serde(default)]
    summary: Option<Vec<Value>>,
    #[serde(default)]
    encrypted_content: Option<String>,
}

#[derive(Deserialize)]
struct ContentPart {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
}

#[derive(Deserialize)]
struct ResponseBody {
    #[serde(default)]
    usage: Option<ResponseUsage>,
    #[serde(default)]
    error: Option<ErrorBody>,
    #[serde(default)]
    incomplete_details: Option<IncompleteDetails>,
}

#[derive(Deserialize)]
struct ResponseUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct ErrorBody {
    #[serde(default)]
    code: Option<String>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
struct IncompleteDetails {
    #[serde(default)]
    reason: Option<String>,
}

/// Event types this decoder acts on; a malformed one of these is an error, a malformed
/// anything-else is ignored like any unknown event.
const HANDLED: &[&str] = &[
    "response.output_text.delta",
    "response.reasoning_summary_text.delta",
    "response.reasoning_text.delta",
    "response.reasoning_summary_part.added",
    "response.output_item.done",
    "response.completed",
    "response.failed",
    "response.incomplete",
    "error",
];

/// State machine over Responses stream events.
#[derive(Default)]
pub struct ResponsesDecoder {
    completed: bool,
}

impl SseDecoder for ResponsesDecoder {
    fn on_event(
        &mut self,
        event: &SseEvent<'_>,
        out: &mut VecDeque<ResponseEvent>,
    ) -> Result<(), ClientError> {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let Some(event) = parse_event::<Event<'_>>(data, HANDLED)? else {
            return Ok(());
        };
        match event.kind.as_ref() {
            "response.output_text.delta" => {
                if let Some(delta) = event.delta.filter(|d| !d.is_empty()) {
                    out.push_back(ResponseEvent::OutputTextDelta(delta.into_owned()));
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                if let Some(delta) = event.delta.filter(|d| !d.is_empty()) {
                    out.push_back(ResponseEvent::ReasoningDelta(delta.into_owned()));
                }
            }
            // Summary sections are separate paragraphs; keep them apart on screen.
            "response.reasoning_summary_part.added"
                if event.summary_index.is_some_and(|i| i > 0) =>
            {
                out.push_back(ResponseEvent::ReasoningDelta("\n\n".into()));
            }
            "response.output_item.done" => {
                if let Some(item) = event.item.and_then(history_item) {
                    out.push_back(ResponseEvent::OutputItemDone(item));
                }
            }
            "response.completed" => {
                let usage = event.response.and_then(|r| r.usage).map(|u| Usage {
                    input_tokens: u.input_tokens.unwrap_or(0),
                    output_tokens: u.output_tokens.unwrap_or(0),
                });
                self.completed = true;
                out.push_back(ResponseEvent::Completed { usage });
            }
            "response.failed" => {
                let error = event.response.and_then(|r| r.error);
                return Err(failure(error.as_ref(), None, None));
            }
            "response.incomplete" => {
                let reason = event
                    .response
                    .and_then(|r| r.incomplete_details)
                    .and_then(|d| d.reason)
                    .unwrap_or_else(|| "unknown".into());
                return Err(incomplete(&reason));
            }
            "error" => {
                return Err(failure(
                    event.error.as_ref(),
                    event.code.as_deref(),
                    event.message.as_deref(),
                ));
            }
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

fn failure(error: Option<&ErrorBody>, code: Option<&str>, message: Option<&str>) -> ClientError {
    let code = code
        .or_else(|| error.and_then(|e| e.code.as_deref()))
        .or_else(|| error.and_then(|e| e.kind.as_deref()));
    let message = message
        .or_else(|| error.and_then(|e| e.message.as_deref()))
        .unwrap_or("");
    ClientError::from_stream_error(code, message)
}

fn incomplete(reason: &str) -> ClientError {
    let message = match reason {
        "max_output_tokens" => {
            "the model stopped because it reached its output token limit; ask for a shorter answer or split the task".to_string()
        }
        "content_filter" => "the server's content filter stopped the response".to_string(),
        other => format!("the server ended the response early ({other})"),
    };
    ClientError::Stream {
        message,
        retryable: false,
        retry_after: None,
    }
}

/// A finished output item as history; `None` for kinds cairn does not keep.
fn history_item(item: OutputItem) -> Option<ResponseItem> {
    match item.kind.as_str() {
        "message" => {
            let text: String = item
                .content
                .unwrap_or_default()
                .into_iter()
                .filter_map(|part| part.text.or(part.refusal))
                .collect();
            (!text.is_empty()).then(|| ResponseItem::assistant(text))
        }
        "function_call" => Some(ResponseItem::FunctionCall {
            call_id: item.call_id.or(item.id).unwrap_or_default(),
            name: item.name.unwrap_or_default(),
            arguments: item.arguments.unwrap_or_default(),
        }),
        "reasoning" => {
            let summary = item.summary.unwrap_or_default();
            let mut texts: Vec<&str> = summary
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            let content: Vec<String>;
            if texts.is_empty() {
                content = item
                    .content
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|part| part.text)
                    .collect();
                texts = content.iter().map(String::as_str).collect();
            }
            let text = texts.join("\n\n");
            let mut data = json!({"format": FORMAT, "summary": summary});
            if let Some(id) = item.id {
                data["id"] = json!(id);
            }
            if let Some(encrypted) = item.encrypted_content {
                data["encrypted_content"] = json!(encrypted);
            }
            Some(ResponseItem::Reasoning {
                text,
                provider_data: Some(data),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolSpec;

    fn request(input: Vec<ResponseItem>) -> ModelRequest {
        ModelRequest {
            model: "gpt-5.1".into(),
            instructions: "sys".into(),
            input,
            tools: vec![ToolSpec {
                name: "update_plan".into(),
                description: "Updates the plan".into(),
                parameters: json!({"type": "object", "properties": {}}),
            }],
        }
    }

    #[test]
    fn history_becomes_input_items_with_reasoning_carried_forward() {
        let input = vec![
            ResponseItem::user("hi"),
            ResponseItem::Reasoning {
                text: "thinking".into(),
                provider_data: Some(json!({
                    "format": "responses",
                    "id": "rs_1",
                    "summary": [{"type": "summary_text", "text": "thinking"}],
                    "encrypted_content": "gAAA",
                })),
            },
            // Reasoning from another wire format or without encrypted content cannot be sent.
            ResponseItem::Reasoning {
                text: "other".into(),
                provider_data: Some(json!({"format": "anthropic", "signature": "s"})),
            },
            ResponseItem::Reasoning {
                text: "plain".into(),
                provider_data: None,
            },
            ResponseItem::FunctionCall {
                call_id: "call_1".into(),
                name: "update_plan".into(),
                arguments: "{\"plan\":[]}".into(),
            },
            ResponseItem::FunctionCallOutput {
                call_id: "call_1".into(),
                output: "Plan updated".into(),
                success: true,
            },
            ResponseItem::assistant("done"),
        ];
        let body = request_body(&request(input), Some("high"));
        assert_eq!(
            body["input"],
            json!([
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                {"type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking"}], "encrypted_content": "gAAA"},
                {"type": "function_call", "call_id": "call_1", "name": "update_plan", "arguments": "{\"plan\":[]}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "Plan updated"},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]},
            ])
        );
        assert_eq!(
            body["tools"],
            json!([{
                "type": "function",
                "name": "update_plan",
                "description": "Updates the plan",
                "parameters": {"type": "object", "properties": {}},
            }])
        );
        assert_eq!(body["instructions"], "sys");
        assert_eq!(body["stream"], true);
        assert_eq!(body["store"], false);
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
        assert_eq!(
            body["reasoning"],
            json!({"effort": "high", "summary": "auto"})
        );
    }

    #[test]
    fn reasoning_parameters_only_when_they_apply() {
        let body = request_body(&request(vec![]), None);
        assert!(body.get("reasoning").is_none());
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
        let mut old = request(vec![]);
        old.model = "gpt-4.1".into();
        let body = request_body(&old, Some("high"));
        assert!(body.get("reasoning").is_none() && body.get("include").is_none());
    }

    #[test]
    fn a_token_budget_becomes_the_nearest_effort_level() {
        for (budget, level) in [
            ("500", "minimal"),
            ("4096", "low"),
            ("8000", "medium"),
            ("32000", "high"),
        ] {
            let body = request_body(&request(vec![]), Some(budget));
            assert_eq!(body["reasoning"]["effort"], level, "{budget}");
        }
    }

    #[test]
    fn reasoning_item_keeps_what_the_next_request_needs() {
        let item: OutputItem = serde_json::from_value(json!({
            "type": "reasoning",
            "id": "rs_1",
            "summary": [
                {"type": "summary_text", "text": "a"},
                {"type": "summary_text", "text": "b"},
            ],
            "encrypted_content": "gAAA",
        }))
        .unwrap();
        let item = history_item(item).unwrap();
        let ResponseItem::Reasoning {
            text,
            provider_data,
        } = &item
        else {
            panic!("not reasoning: {item:?}");
        };
        assert_eq!(text, "a\n\nb");
        assert_eq!(provider_data.as_ref().unwrap()["encrypted_content"], "gAAA");
        let sent = input_item(&item).unwrap();
        assert_eq!(sent["summary"].as_array().unwrap().len(), 2);
        assert!(
            sent.get("id").is_none(),
            "ids refer to nothing with store=false"
        );
    }
}

//! OpenAI Chat Completions (`POST {base_url}/chat/completions`, `stream: true`).
//!
//! Spoken by OpenAI, Ollama, vLLM, llama.cpp, LM Studio and OpenRouter. Tool-call arguments
//! arrive as string fragments per call index; they are appended to one buffer per call and
//! handed on once, when the stream completes, so assembly is linear in the stream size.

use super::sse::{SseDecoder, SseEvent, decode};
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

/// Client for `wire_api = "chat"`.
pub struct ChatClient {
    provider: ProviderInfo,
    http: reqwest::Client,
}

impl ChatClient {
    /// A client for `provider` using `http` for connections.
    pub fn new(provider: ProviderInfo, http: reqwest::Client) -> Self {
        Self { provider, http }
    }
}

#[async_trait]
impl ModelClient for ChatClient {
    async fn stream(&self, request: &ModelRequest) -> Result<ResponseStream, ClientError> {
        let url = endpoint(&self.provider, "chat/completions");
        let body = request_body(request).to_string();
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
            ChatDecoder::default(),
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

/// The JSON body for a request.
pub fn request_body(request: &ModelRequest) -> Value {
    let mut messages = vec![json!({"role": "system", "content": request.instructions})];
    for item in &request.input {
        match item {
            ResponseItem::Message { role, text } => {
                let role = match role {
                    Role::User => "user",
                    Role::Assistant => "assistant",
                };
                messages.push(json!({"role": role, "content": text}));
            }
            ResponseItem::FunctionCall {
                call_id,
                name,
                arguments,
            } => {
                let call = json!({
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                });
                // Calls of one response belong to one assistant message; attach to the
                // previous assistant message when there is one and it has no text after calls.
                let attached = messages.last_mut().and_then(|last| {
                    (last["role"] == "assistant").then_some(())?;
                    let calls = last
                        .as_object_mut()?
                        .entry("tool_calls")
                        .or_insert_with(|| json!([]));
                    calls.as_array_mut()?.push(call.clone());
                    Some(())
                });
                if attached.is_none() {
                    messages
                        .push(json!({"role": "assistant", "content": null, "tool_calls": [call]}));
                }
            }
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            } => {
                messages.push(json!({"role": "tool", "tool_call_id": call_id, "content": output}));
            }
            ResponseItem::Reasoning { .. } => {}
        }
    }
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": super::schema::portable(&t.parameters),
                    }
                })
            })
            .collect();
        body["tool_choice"] = json!("auto");
    }
    body
}

#[derive(Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// An id for a call the server sent without one. Unique per session, so history never holds
/// two calls with the same id (outputs are matched to calls by id).
fn fallback_call_id(index: usize) -> String {
    let unique = uuid::Uuid::new_v4().simple().to_string();
    format!("call_{index}_{}", &unique[..12])
}

/// State machine over Chat Completions chunks.
#[derive(Default)]
pub struct ChatDecoder {
    text: String,
    reasoning: String,
    calls: Vec<PartialCall>,
    usage: Option<Usage>,
    finished: bool,
    completed: bool,
}

impl ChatDecoder {
    fn on_delta(
        &mut self,
        delta: Delta<'_>,
        out: &mut VecDeque<ResponseEvent>,
    ) -> Result<(), ClientError> {
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            self.text.push_str(&text);
            out.push_back(ResponseEvent::OutputTextDelta(text.into_owned()));
        }
        if let Some(text) = delta
            .reasoning_content
            .or(delta.reasoning)
            .filter(|t| !t.is_empty())
        {
            self.reasoning.push_str(&text);
            out.push_back(ResponseEvent::ReasoningDelta(text.into_owned()));
        }
        for call in delta.tool_calls.into_iter().flatten() {
            let new_id = call.id.as_deref().filter(|id| !id.is_empty());
            let index = match call.index {
                Some(index) => index as usize,
                // Some servers (Ollama, Gemini's compatible endpoint) send parallel calls
                // without `index`: a new id starts a new call, fragments continue the last.
                None => match (new_id, self.calls.last()) {
                    (Some(id), Some(last)) if last.id.as_deref() != Some(id) => self.calls.len(),
                    _ => self.calls.len().saturating_sub(1),
                },
            };
            if index > 1024 {
                return Err(ClientError::Protocol(format!(
                    "tool call index {index} is out of range"
                )));
            }
            if self.calls.len() <= index {
                self.calls.resize_with(index + 1, PartialCall::default);
            }
            let slot = &mut self.calls[index];
            if let Some(id) = new_id {
                slot.id = Some(id.to_string());
            }
            if let Some(function) = call.function {
                if let Some(name) = function.name {
                    slot.name.push_str(&name);
                }
                if let Some(args) = function.arguments {
                    slot.arguments.push_str(&args);
                }
            }
        }
        Ok(())
    }

    fn complete(&mut self, out: &mut VecDeque<ResponseEvent>) {
        if self.completed {
            return;
        }
        self.completed = true;
        if !self.reasoning.is_empty() {
            out.push_back(ResponseEvent::OutputItemDone(ResponseItem::Reasoning {
                text: std::mem::take(&mut self.reasoning),
                provider_data: None,
            }));
        }
        if !self.text.is_empty() {
            out.push_back(ResponseEvent::OutputItemDone(ResponseItem::assistant(
                std::mem::take(&mut self.text),
            )));
        }
        for (index, call) in std::mem::take(&mut self.calls).into_iter().enumerate() {
            if call.name.is_empty() && call.arguments.is_empty() {
                continue;
            }
            out.push_back(ResponseEvent::OutputItemDone(ResponseItem::FunctionCall {
                call_id: call.id.unwrap_or_else(|| fallback_call_id(index)),
                name: call.name,
                arguments: call.arguments,
            }));
        }
        out.push_back(ResponseEvent::Completed { usage: self.usage });
    }
}

// The chunk shapes, typed and borrowing from the event so a delta costs one small parse and
// no intermediate JSON tree; `Cow` borrows unless the text contained escapes.
#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: Vec<Choice<'a>>,
    #[serde(default)]
    usage: Option<ChunkUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_calls: Option<Vec<ToolCallDelta<'a>>>,
}

#[derive(Deserialize)]
struct ToolCallDelta<'a> {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    function: Option<FunctionDelta<'a>>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    arguments: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ChunkUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
}

impl SseDecoder for ChatDecoder {
    fn on_event(
        &mut self,
        event: &SseEvent<'_>,
        out: &mut VecDeque<ResponseEvent>,
    ) -> Result<(), ClientError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(());
        }
        if data == "[DONE]" {
            self.complete(out);
            return Ok(());
        }
        let chunk: Chunk<'_> = serde_json::from_str(data)
            .map_err(|e| ClientError::Protocol(format!("bad chunk JSON ({e})")))?;
        if let Some(error) = chunk.error {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("unknown error");
            let code = error
                .get("code")
                .or_else(|| error.get("type"))
                .and_then(Value::as_str);
            return Err(ClientError::from_stream_error(code, message));
        }
        if let Some(usage) = chunk.usage {
            self.usage = Some(Usage {
                input_tokens: usage.prompt_tokens.unwrap_or(0),
                output_tokens: usage.completion_tokens.unwrap_or(0),
            });
        }
        let Some(choice) = chunk.choices.into_iter().next() else {
            return Ok(());
        };
        if let Some(delta) = choice.delta {
            self.on_delta(delta, out)?;
        }
        if choice.finish_reason.is_some() {
            self.finished = true;
        }
        Ok(())
    }

    fn on_end(&mut self, out: &mut VecDeque<ResponseEvent>) -> Result<(), ClientError> {
        // Some servers omit `[DONE]`; a finish_reason means the response was complete.
        if self.finished {
            self.complete(out);
        }
        if self.completed {
            Ok(())
        } else {
            Err(ClientError::Incomplete)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::sse::decode_chunks;

    const STREAM: &str = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo \u{e9}\"}}]}\r\n\r\n",
        ": keep-alive comment\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"update_plan\",\"arguments\":\"{\\\"pl\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"an\\\":[]}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5}}\n\n",
        "data: [DONE]\n\n",
    );

    fn expected() -> Vec<ResponseEvent> {
        vec![
            ResponseEvent::OutputTextDelta("Hel".into()),
            ResponseEvent::OutputTextDelta("lo \u{e9}".into()),
            ResponseEvent::OutputItemDone(ResponseItem::assistant("Hello \u{e9}")),
            ResponseEvent::OutputItemDone(ResponseItem::FunctionCall {
                call_id: "call_a".into(),
                name: "update_plan".into(),
                arguments: "{\"plan\":[]}".into(),
            }),
            ResponseEvent::Completed {
                usage: Some(Usage {
                    input_tokens: 10,
                    output_tokens: 5,
                }),
            },
        ]
    }

    #[tokio::test]
    async fn decodes_text_and_tool_calls_split_at_every_byte() {
        let bytes = STREAM.as_bytes();
        for split in 0..bytes.len() {
            let chunks = vec![bytes[..split].to_vec(), bytes[split..].to_vec()];
            let events: Vec<_> = decode_chunks(chunks, ChatDecoder::default())
                .await
                .into_iter()
                .map(|e| e.unwrap())
                .collect();
            assert_eq!(events, expected(), "split at byte {split}");
        }
    }

    #[tokio::test]
    async fn parallel_calls_without_index_stay_apart() {
        let stream = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"call_1\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"\\\"a\\\"}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"call_2\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"b\\\"}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let events = decode_chunks(vec![stream.as_bytes().to_vec()], ChatDecoder::default()).await;
        let calls: Vec<(String, String, String)> = events
            .into_iter()
            .filter_map(|e| match e.unwrap() {
                ResponseEvent::OutputItemDone(ResponseItem::FunctionCall {
                    call_id,
                    name,
                    arguments,
                }) => Some((call_id, name, arguments)),
                _ => None,
            })
            .collect();
        assert_eq!(
            calls,
            vec![
                (
                    "call_1".into(),
                    "read_file".into(),
                    "{\"path\":\"a\"}".into()
                ),
                (
                    "call_2".into(),
                    "read_file".into(),
                    "{\"path\":\"b\"}".into()
                ),
            ]
        );
    }

    #[tokio::test]
    async fn stream_cut_before_done_is_incomplete() {
        let cut = &STREAM[..STREAM.find("finish_reason").unwrap() - 40];
        let events = decode_chunks(vec![cut.as_bytes().to_vec()], ChatDecoder::default()).await;
        assert_eq!(events.last(), Some(&Err(ClientError::Incomplete)));
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, Ok(ResponseEvent::OutputItemDone(_)))),
            "no item may be handed on from an incomplete stream"
        );
    }

    #[test]
    fn history_becomes_chat_messages() {
        let request = ModelRequest {
            model: "m".into(),
            instructions: "sys".into(),
            input: vec![
                ResponseItem::user("hi"),
                ResponseItem::FunctionCall {
                    call_id: "c1".into(),
                    name: "think".into(),
                    arguments: "{}".into(),
                },
                ResponseItem::FunctionCall {
                    call_id: "c2".into(),
                    name: "think".into(),
                    arguments: "{}".into(),
                },
                ResponseItem::FunctionCallOutput {
                    call_id: "c1".into(),
                    output: "ok".into(),
                    success: true,
                },
            ],
            tools: vec![],
        };
        let body = request_body(&request);
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 4);
        assert_eq!(messages[2]["tool_calls"].as_array().unwrap().len(), 2);
        assert_eq!(messages[3]["role"], "tool");
        assert!(body.get("tools").is_none());
    }
}

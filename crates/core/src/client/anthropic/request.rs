//! History -> the Messages request body: alternating user/assistant messages of content
//! blocks, the system prompt and tools, extended thinking when configured.

use super::FORMAT;
use crate::client::ModelRequest;
use crate::history::{ResponseItem, Role};
use serde_json::{Value, json};

/// Extended-thinking budget for a `reasoning_effort`: `low` 4k, `medium` 10k, `high` 32k
/// tokens (or a number of tokens given directly), always leaving at least 1024 tokens of
/// `max_tokens` for the answer. `None` (thinking off) for `minimal`, unknown values, or when
/// `max_tokens` is too small for the API's 1024-token minimum.
pub fn thinking_budget(effort: Option<&str>, max_tokens: u32) -> Option<u32> {
    let wanted = match effort?.trim() {
        "low" => 4_096,
        "medium" => 10_000,
        "high" => 32_000,
        other => other.parse().ok()?,
    };
    let budget = wanted.min(max_tokens.saturating_sub(1024));
    (budget >= 1024).then_some(budget)
}

/// The JSON body for a request.
pub fn request_body(request: &ModelRequest, max_tokens: u32, thinking: Option<u32>) -> Value {
    let mut messages = Messages::default();
    for item in &request.input {
        match item {
            ResponseItem::Message { role, text } => {
                // The API rejects empty text blocks.
                if !text.trim().is_empty() {
                    messages.push(*role, json!({"type": "text", "text": text}));
                }
            }
            ResponseItem::Reasoning {
                text,
                provider_data,
            } => {
                // Thinking goes back only when thinking is on and it is Anthropic's own,
                // signed block; the server verifies the signature.
                let data = provider_data
                    .as_ref()
                    .filter(|d| d.get("format").and_then(Value::as_str) == Some(FORMAT));
                let Some(data) = data.filter(|_| thinking.is_some()) else {
                    continue;
                };
                if let Some(redacted) = data.get("redacted").and_then(Value::as_str) {
                    messages.push(
                        Role::Assistant,
                        json!({"type": "redacted_thinking", "data": redacted}),
                    );
                } else if let Some(signature) = data.get("signature").and_then(Value::as_str) {
                    messages.push(
                        Role::Assistant,
                        json!({"type": "thinking", "thinking": text, "signature": signature}),
                    );
                }
            }
            ResponseItem::FunctionCall {
                call_id,
                name,
                arguments,
            } => {
                // `input` must be an object; arguments the model garbled go back as `{}` and
                // the tool's own error (already in history) tells the model what went wrong.
                let input = serde_json::from_str::<Value>(arguments)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| json!({}));
                messages.push(
                    Role::Assistant,
                    json!({"type": "tool_use", "id": call_id, "name": name, "input": input}),
                );
            }
            ResponseItem::FunctionCallOutput {
                call_id,
                output,
                success,
            } => {
                let content = if output.is_empty() {
                    "(no output)"
                } else {
                    output
                };
                let mut block =
                    json!({"type": "tool_result", "tool_use_id": call_id, "content": content});
                if !success {
                    block["is_error"] = json!(true);
                }
                messages.push(Role::User, block);
            }
        }
    }
    let mut messages = messages.0;
    // Cache the conversation prefix: tools and system prompt, and everything up to the newest
    // user turn, which the next request of an agent loop repeats.
    if let Some(last) = messages.last_mut()
        && last["role"] == "user"
        && let Some(block) = last["content"].as_array_mut().and_then(|c| c.last_mut())
    {
        block["cache_control"] = json!({"type": "ephemeral"});
    }
    let mut body = json!({
        "model": request.model,
        "max_tokens": max_tokens,
        "system": [{
            "type": "text",
            "text": request.instructions,
            "cache_control": {"type": "ephemeral"},
        }],
        "messages": messages,
        "stream": true,
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "input_schema": input_schema(&t.parameters),
                })
            })
            .collect();
    }
    if let Some(budget) = thinking {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
    }
    body
}

/// Messages under construction: a block of the same role as the last message joins it, which
/// puts consecutive tool results in one user message as the API requires.
#[derive(Default)]
struct Messages(Vec<Value>);

impl Messages {
    fn push(&mut self, role: Role, block: Value) {
        let role = match role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        if let Some(last) = self.0.last_mut()
            && last["role"] == role
            && let Some(content) = last["content"].as_array_mut()
        {
            content.push(block);
            return;
        }
        self.0.push(json!({"role": role, "content": [block]}));
    }
}

/// A tool's schema as Anthropic takes it: the API refuses `anyOf`, `oneOf` and `allOf` at the
/// top level, so they are dropped there (the handler checks the same rules and answers the
/// model in words when a call breaks them).
fn input_schema(parameters: &serde_json::Value) -> serde_json::Value {
    crate::client::schema::portable(parameters)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolSpec;

    fn request(input: Vec<ResponseItem>) -> ModelRequest {
        ModelRequest {
            model: "claude-sonnet-4-5".into(),
            instructions: "sys".into(),
            input,
            tools: vec![ToolSpec {
                name: "update_plan".into(),
                description: "Updates the plan".into(),
                parameters: json!({"type": "object"}),
            }],
        }
    }

    #[test]
    fn top_level_any_of_is_dropped_and_nested_kept() {
        let schema = json!({
            "type": "object",
            "properties": {"batch": {"type": "array", "items": {"anyOf": [{"type": "string"}]}}},
            "anyOf": [{"required": ["agent_id"]}, {"required": ["batch"]}],
            "additionalProperties": false
        });
        let out = input_schema(&schema);
        assert!(out.get("anyOf").is_none());
        assert_eq!(out["properties"], schema["properties"]);
        assert_eq!(out["additionalProperties"], false);
    }

    fn history() -> Vec<ResponseItem> {
        vec![
            ResponseItem::user("plan it"),
            ResponseItem::Reasoning {
                text: "let me think".into(),
                provider_data: Some(json!({"format": "anthropic", "signature": "sig=="})),
            },
            ResponseItem::Reasoning {
                text: "from elsewhere".into(),
                provider_data: Some(json!({"format": "responses", "encrypted_content": "x"})),
            },
            ResponseItem::assistant("On it."),
            ResponseItem::FunctionCall {
                call_id: "toolu_1".into(),
                name: "update_plan".into(),
                arguments: "{\"plan\":[]}".into(),
            },
            ResponseItem::FunctionCall {
                call_id: "toolu_2".into(),
                name: "think".into(),
                arguments: "not json".into(),
            },
            ResponseItem::FunctionCallOutput {
                call_id: "toolu_1".into(),
                output: "Plan updated".into(),
                success: true,
            },
            ResponseItem::FunctionCallOutput {
                call_id: "toolu_2".into(),
                output: "bad arguments".into(),
                success: false,
            },
        ]
    }

    #[test]
    fn history_becomes_messages_with_grouped_tool_results_and_signed_thinking() {
        let body = request_body(&request(history()), 8192, Some(4096));
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "plan it"}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "let me think", "signature": "sig=="},
                    {"type": "text", "text": "On it."},
                    {"type": "tool_use", "id": "toolu_1", "name": "update_plan", "input": {"plan": []}},
                    {"type": "tool_use", "id": "toolu_2", "name": "think", "input": {}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Plan updated"},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "bad arguments",
                     "is_error": true, "cache_control": {"type": "ephemeral"}},
                ]},
            ])
        );
        assert_eq!(body["max_tokens"], 8192);
        assert_eq!(body["stream"], true);
        assert_eq!(body["system"][0]["text"], "sys");
        assert_eq!(
            body["tools"],
            json!([{"name": "update_plan", "description": "Updates the plan", "input_schema": {"type": "object"}}])
        );
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 4096})
        );
    }

    #[test]
    fn thinking_blocks_stay_home_when_thinking_is_off() {
        let body = request_body(&request(history()), 8192, None);
        let assistant = body["messages"][1]["content"].as_array().unwrap();
        assert!(assistant.iter().all(|b| b["type"] != "thinking"));
        assert!(body.get("thinking").is_none());
    }

    #[test]
    fn thinking_budget_fits_under_max_tokens() {
        assert_eq!(thinking_budget(None, 16_384), None);
        assert_eq!(thinking_budget(Some("minimal"), 16_384), None);
        assert_eq!(thinking_budget(Some("low"), 16_384), Some(4_096));
        assert_eq!(thinking_budget(Some("high"), 16_384), Some(15_360));
        assert_eq!(thinking_budget(Some("2000"), 16_384), Some(2_000));
        assert_eq!(thinking_budget(Some("high"), 1_500), None);
    }
}

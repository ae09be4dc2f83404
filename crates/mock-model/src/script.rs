//! The JSON script format of the `cairn-mock-model` binary (documented in the crate docs).

use crate::response::MockResponse;
use crate::{anthropic, chat, responses};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// Why a script could not be loaded; the message names the offending item.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// The file could not be read.
    #[error("cannot read script {path}: {source}")]
    Read {
        /// The script path as given.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error("script is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The JSON does not follow the script format.
    #[error("script {at}: {message}")]
    Invalid {
        /// Where in the script, e.g. `responses[2].tool_calls[0]`.
        at: String,
        /// What is wrong and what is expected.
        message: String,
    },
}

/// Which wire format the scripted answers use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions.
    Chat,
    /// OpenAI Responses API.
    Responses,
    /// Anthropic Messages API.
    Anthropic,
}

/// A parsed script: the wire format and the expanded response queue.
#[derive(Debug, Clone)]
pub struct Script {
    /// The wire format of every answer.
    pub wire: Wire,
    /// The responses in the order requests get them (repeats expanded).
    pub responses: Vec<MockResponse>,
    /// What `GET /v1/models` lists, when the script says.
    pub models: Option<Vec<String>>,
}

/// One tool call of a `tool_calls` item.
struct Call {
    id: String,
    name: String,
    arguments: Value,
}

impl Script {
    /// Reads and parses the script at `path`.
    pub fn load(path: &Path) -> Result<Script, ScriptError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text)
    }

    /// Parses a script from its JSON text.
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        let root: Value = serde_json::from_str(text)?;
        let wire = match root.get("wire").and_then(Value::as_str) {
            Some("chat") => Wire::Chat,
            Some("responses") => Wire::Responses,
            Some("anthropic") => Wire::Anthropic,
            other => {
                return Err(invalid(
                    "wire",
                    format!(
                        "expected \"chat\", \"responses\" or \"anthropic\", found {}",
                        show(other)
                    ),
                ));
            }
        };
        let items = root
            .get("responses")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("responses", "expected an array of response items"))?;
        let mut responses = Vec::new();
        expand(wire, items, "responses", "", &mut responses)?;
        let models = match root.get("models") {
            None => None,
            Some(Value::Array(ids)) => Some(
                ids.iter()
                    .map(|id| id.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| invalid("models", "expected an array of model ids (strings)"))?,
            ),
            Some(_) => {
                return Err(invalid(
                    "models",
                    "expected an array of model ids (strings)",
                ));
            }
        };
        Ok(Script {
            wire,
            responses,
            models,
        })
    }
}

fn expand(
    wire: Wire,
    items: &[Value],
    at: &str,
    id_suffix: &str,
    out: &mut Vec<MockResponse>,
) -> Result<(), ScriptError> {
    for (i, item) in items.iter().enumerate() {
        let at = format!("{at}[{i}]");
        if let Some(count) = item.get("repeat") {
            let count = count
                .as_u64()
                .ok_or_else(|| invalid(&at, "\"repeat\" must be a non-negative integer"))?;
            let inner = item
                .get("items")
                .and_then(Value::as_array)
                .ok_or_else(|| invalid(&at, "\"repeat\" needs an \"items\" array"))?;
            for k in 1..=count {
                // Unique call ids per copy, so histories never hold two calls with one id.
                let suffix = format!("{id_suffix}_{k}");
                expand(wire, inner, &format!("{at}.items"), &suffix, out)?;
            }
            continue;
        }
        out.push(item_response(wire, item, &at, id_suffix)?);
    }
    Ok(())
}

fn item_response(
    wire: Wire,
    item: &Value,
    at: &str,
    id_suffix: &str,
) -> Result<MockResponse, ScriptError> {
    let delay = match item.get("delay_ms") {
        None => None,
        Some(ms) => Some(Duration::from_millis(ms.as_u64().ok_or_else(|| {
            invalid(at, "\"delay_ms\" must be a non-negative integer")
        })?)),
    };
    let reasoning = item.get("reasoning").and_then(Value::as_str);
    let response = if let Some(status) = item.get("status") {
        let status = status
            .as_u64()
            .and_then(|s| u16::try_from(s).ok())
            .filter(|s| (100..=999).contains(s))
            .ok_or_else(|| invalid(at, "\"status\" must be an HTTP status code"))?;
        let body = match item.get("body") {
            None => String::new(),
            Some(Value::String(text)) => text.clone(),
            Some(json) => json.to_string(),
        };
        MockResponse::error(status, body)
    } else if let Some(text) = item.get("text") {
        let text = text
            .as_str()
            .ok_or_else(|| invalid(at, "\"text\" must be a string"))?;
        MockResponse::sse(text_events(wire, reasoning, text))
    } else if let Some(calls) = item.get("tool_calls") {
        let calls = parse_calls(calls, &format!("{at}.tool_calls"), id_suffix)?;
        MockResponse::sse(call_events(wire, reasoning, &calls))
    } else {
        return Err(invalid(
            at,
            "expected one of {\"text\":...}, {\"tool_calls\":[...]}, {\"status\":N,\"body\":...} \
             or {\"repeat\":N,\"items\":[...]}",
        ));
    };
    let response = match delay {
        Some(delay) => response.with_chunk_delay(delay),
        None => response,
    };
    Ok(match item.get("cut_after") {
        None => response,
        Some(n) => {
            let n = n
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| invalid(at, "\"cut_after\" must be a non-negative integer"))?;
            response.cut_after(n)
        }
    })
}

fn parse_calls(calls: &Value, at: &str, id_suffix: &str) -> Result<Vec<Call>, ScriptError> {
    let calls = calls
        .as_array()
        .ok_or_else(|| invalid(at, "expected an array of {\"id\",\"name\",\"arguments\"}"))?;
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let at = format!("{at}[{i}]");
            let field = |name: &str| {
                call.get(name)
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| invalid(&at, format!("\"{name}\" must be a string")))
            };
            Ok(Call {
                id: format!("{}{id_suffix}", field("id")?),
                name: field("name")?,
                arguments: call
                    .get("arguments")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Default::default())),
            })
        })
        .collect()
}

fn text_events(wire: Wire, reasoning: Option<&str>, text: &str) -> Vec<crate::SseEvent> {
    match wire {
        Wire::Chat => {
            let stream = chat::ChatStream::new();
            let stream = match reasoning {
                Some(r) => stream.reasoning(r),
                None => stream,
            };
            stream.text(text).usage(100, 10).build()
        }
        Wire::Responses => {
            let stream = responses::ResponseStream::new();
            let stream = match reasoning {
                Some(r) => stream.reasoning(r),
                None => stream,
            };
            stream.text(text).build()
        }
        Wire::Anthropic => {
            let stream = anthropic::MessageStream::new();
            let stream = match reasoning {
                Some(r) => stream.thinking(r, "mock-signature"),
                None => stream,
            };
            stream.text(text).build()
        }
    }
}

fn call_events(wire: Wire, reasoning: Option<&str>, calls: &[Call]) -> Vec<crate::SseEvent> {
    match wire {
        Wire::Chat => {
            let mut stream = chat::ChatStream::new();
            if let Some(r) = reasoning {
                stream = stream.reasoning(r);
            }
            for call in calls {
                stream = stream.tool_call(&call.id, &call.name, &call.arguments);
            }
            stream.usage(100, 10).build()
        }
        Wire::Responses => {
            let mut stream = responses::ResponseStream::new();
            if let Some(r) = reasoning {
                stream = stream.reasoning(r);
            }
            for call in calls {
                stream = stream.function_call(&call.id, &call.name, &call.arguments);
            }
            stream.build()
        }
        Wire::Anthropic => {
            let mut stream = anthropic::MessageStream::new();
            if let Some(r) = reasoning {
                stream = stream.thinking(r, "mock-signature");
            }
            for call in calls {
                stream = stream.tool_use(&call.id, &call.name, &call.arguments);
            }
            stream.build()
        }
    }
}

fn invalid(at: &str, message: impl Into<String>) -> ScriptError {
    ScriptError::Invalid {
        at: at.to_string(),
        message: message.into(),
    }
}

fn show(value: Option<&str>) -> String {
    value.map_or_else(|| "nothing".to_string(), |v| format!("{v:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeat_expands_copies_with_unique_call_ids() {
        let script = Script::parse(
            r#"{"wire":"chat","responses":[
                {"repeat":3,"items":[
                    {"tool_calls":[{"id":"c1","name":"update_plan","arguments":{"plan":[]}}]}]},
                {"text":"done","delay_ms":2}]}"#,
        )
        .unwrap();
        assert_eq!(script.wire, Wire::Chat);
        assert_eq!(script.responses.len(), 4);
        assert!(script.responses[0].body_text().contains("\"id\":\"c1_1\""));
        assert!(script.responses[2].body_text().contains("\"id\":\"c1_3\""));
        let last = &script.responses[3];
        assert!(last.body_text().contains("done") || last.body_text().contains("do"));
        assert!(
            last.chunks
                .iter()
                .all(|c| c.delay == Duration::from_millis(2))
        );
    }

    #[test]
    fn each_wire_streams_its_own_events() {
        let item = r#"[{"text":"hi","reasoning":"r"},{"tool_calls":[{"id":"c","name":"f"}]}]"#;
        let body = |wire: &str, i: usize| {
            let script = Script::parse(&format!(r#"{{"wire":"{wire}","responses":{item}}}"#));
            script.unwrap().responses[i].body_text()
        };
        assert!(body("chat", 0).contains("\"reasoning_content\""));
        assert!(body("chat", 1).contains("\"finish_reason\":\"tool_calls\""));
        assert!(body("responses", 0).contains("event: response.reasoning_summary_text.delta"));
        assert!(body("responses", 1).contains("\"call_id\":\"c\""));
        assert!(body("anthropic", 0).contains("\"thinking_delta\""));
        assert!(body("anthropic", 1).contains("\"stop_reason\":\"tool_use\""));
    }

    #[test]
    fn models_are_a_list_of_ids() {
        let script = Script::parse(r#"{"wire":"chat","responses":[],"models":["a","b"]}"#).unwrap();
        assert_eq!(script.models, Some(vec!["a".to_string(), "b".to_string()]));
        let err = Script::parse(r#"{"wire":"chat","responses":[],"models":[1]}"#).unwrap_err();
        assert!(err.to_string().contains("models"), "{err}");
    }

    #[test]
    fn cut_after_truncates_and_cuts() {
        let script =
            Script::parse(r#"{"wire":"chat","responses":[{"text":"abc","cut_after":2}]}"#).unwrap();
        assert_eq!(script.responses[0].chunks.len(), 2);
        assert_eq!(script.responses[0].fault, Some(crate::Fault::Cut));
    }

    #[test]
    fn status_item_becomes_error_response() {
        let script =
            Script::parse(r#"{"wire":"anthropic","responses":[{"status":529,"body":{"x":1}}]}"#)
                .unwrap();
        assert_eq!(script.responses[0].status, 529);
        assert_eq!(script.responses[0].body_text(), r#"{"x":1}"#);
    }

    #[test]
    fn bad_item_names_its_place() {
        let err = Script::parse(r#"{"wire":"chat","responses":[{"text":"a"},{"txt":"b"}]}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("script responses[1]: expected one of"),
            "{err}"
        );
        let err = Script::parse(r#"{"wire":"grpc","responses":[]}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "script wire: expected \"chat\", \"responses\" or \"anthropic\", found \"grpc\""
        );
    }
}

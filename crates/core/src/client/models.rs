//! `GET {base_url}/models`: the models a provider's server offers, for `/model`'s picker.
//!
//! OpenAI, Ollama, LM Studio, vLLM, llama.cpp and OpenRouter answer
//! `{"data":[{"id":...}]}`; Anthropic answers the same shape with a `display_name`, one page at
//! a time (so one large page is asked for). Extra fields some servers add (OpenRouter's
//! `name` and `context_length`) are kept when present.

use super::error::key_hint;
use super::{Auth, ClientError, add_headers, endpoint, error_body};
use crate::config::ProviderInfo;
use cairn_protocol::ModelInfo;
use serde_json::Value;
use std::time::Duration;

/// How long the whole listing may take: someone is looking at "Loading models…".
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// Parts of an id that mark a model the chat and agent APIs cannot use (OpenAI lists its
/// embedding, speech, image and moderation models with the others).
const NOT_FOR_CHAT: &[&str] = &[
    "embed",
    "whisper",
    "tts",
    "transcribe",
    "dall-e",
    "gpt-image",
    "moderation",
    "davinci",
    "babbage",
];

/// Ask `provider`'s server for its models. `query` is appended to the URL (`limit=1000`).
pub(crate) async fn list(
    http: &reqwest::Client,
    provider: &ProviderInfo,
    auth: Auth,
    defaults: &[(&str, &str)],
    query: Option<&str>,
) -> Result<Vec<ModelInfo>, ClientError> {
    let url = endpoint(provider, "models");
    let full = match query {
        Some(query) => format!("{url}?{query}"),
        None => url.clone(),
    };
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        "accept",
        reqwest::header::HeaderValue::from_static("application/json"),
    );
    add_headers(&mut headers, provider, auth, defaults)?;
    let ask = async {
        let response = http
            .get(&full)
            .headers(headers)
            .send()
            .await
            .map_err(|e| ClientError::from_reqwest(provider, &url, &e))?;
        let status = response.status();
        if !status.is_success() {
            let head = response.headers().clone();
            let body = error_body(response, TIMEOUT).await;
            return Err(status_error(provider, &url, status.as_u16(), &head, &body));
        }
        let body = response
            .bytes()
            .await
            .map_err(|e| ClientError::from_reqwest(provider, &url, &e))?;
        parse(&body).ok_or_else(|| ClientError::Transport {
            message: format!(
                "{url} did not answer with a list of models; check providers.{}.base_url",
                provider.id
            ),
            retryable: false,
        })
    };
    match tokio::time::timeout(TIMEOUT, ask).await {
        Ok(result) => result,
        Err(_) => Err(ClientError::Transport {
            message: format!(
                "{url} did not answer within {} s: is the {} server running? Check providers.{}.base_url",
                TIMEOUT.as_secs(),
                provider.name,
                provider.id
            ),
            retryable: false,
        }),
    }
}

/// The client's sentence for a non-2xx answer, except where a listing differs from a turn:
/// no model is involved, and a server may simply not list its models.
fn status_error(
    provider: &ProviderInfo,
    url: &str,
    status: u16,
    headers: &reqwest::header::HeaderMap,
    body: &str,
) -> ClientError {
    let message = match status {
        403 => format!(
            "{url} refused access (403 Forbidden): {}",
            key_hint(provider)
        ),
        404 => format!(
            "{url} was not found (404): this server may not list its models; check providers.{}.base_url, or type a model name",
            provider.id
        ),
        _ => return ClientError::from_status(provider, url, "", status, headers, body),
    };
    ClientError::Http {
        status,
        message,
        retry_after: None,
        retryable: false,
    }
}

/// The models of a `{"data":[...]}` answer, in the server's order, without the ones chat
/// cannot use; `None` when the body is not such a list.
fn parse(body: &[u8]) -> Option<Vec<ModelInfo>> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let data = value.get("data")?.as_array()?;
    let text = |entry: &Value, key: &str| {
        entry
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            // Shown in the terminal: a server must not get escape sequences onto it.
            .filter(|s| !s.is_empty() && !s.chars().any(char::is_control))
            .map(str::to_string)
    };
    let models = data
        .iter()
        .filter_map(|entry| {
            let id = text(entry, "id")?;
            let lower = id.to_ascii_lowercase();
            if NOT_FOR_CHAT.iter().any(|part| lower.contains(part)) {
                return None;
            }
            let display_name = text(entry, "display_name")
                .or_else(|| text(entry, "name"))
                .filter(|name| *name != id);
            let context_window = ["context_window", "context_length", "max_context_length"]
                .iter()
                .find_map(|key| entry.get(*key).and_then(Value::as_u64));
            Some(ModelInfo {
                display_name,
                context_window,
                ..ModelInfo::new(id)
            })
        })
        .collect();
    Some(models)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_of_openai_anthropic_and_openrouter_become_model_infos() {
        let openai = br#"{"object":"list","data":[
            {"id":"gpt-5.1","object":"model","owned_by":"system"},
            {"id":"text-embedding-3-small","object":"model"},
            {"id":"whisper-1","object":"model"},
            {"id":"o3","object":"model"}]}"#;
        let ids: Vec<String> = parse(openai).unwrap().into_iter().map(|m| m.id).collect();
        assert_eq!(ids, ["gpt-5.1", "o3"]);

        let anthropic = br#"{"data":[{"type":"model","id":"claude-sonnet-4-5-20250929",
            "display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"}],
            "has_more":false}"#;
        let models = parse(anthropic).unwrap();
        assert_eq!(models[0].display_name.as_deref(), Some("Claude Sonnet 4.5"));

        let openrouter = br#"{"data":[{"id":"qwen/qwen3-coder","name":"Qwen: Qwen3 Coder",
            "context_length":262144},{"name":"no id"}]}"#;
        let models = parse(openrouter).unwrap();
        assert_eq!(models.len(), 1);
        assert_eq!(models[0].context_window, Some(262_144));
    }

    #[test]
    fn ids_and_names_with_control_characters_never_reach_the_terminal() {
        let hostile = br#"{"data":[{"id":"evil\u001b[2J"},{"id":"ok","name":"bad\u0007name"}]}"#;
        let models = parse(hostile).unwrap();
        assert_eq!(models.len(), 1);
        assert_eq!(models[0].id, "ok");
        assert_eq!(models[0].display_name, None);
    }

    #[test]
    fn anything_but_a_list_is_not_a_list() {
        assert!(parse(b"<html>proxy login</html>").is_none());
        assert!(parse(br#"{"models":[]}"#).is_none());
        assert_eq!(parse(br#"{"data":[]}"#), Some(Vec::new()));
    }
}

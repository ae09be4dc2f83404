//! Client errors, classified once: retryable or not, and a sentence a user can act on.

use crate::config::ProviderInfo;
use std::time::Duration;

/// Why a model request failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    /// The server answered with a non-2xx status.
    #[error("{message}")]
    Http {
        /// HTTP status.
        status: u16,
        /// Full sentence for the user.
        message: String,
        /// From Retry-After / retry-after-ms, when given.
        retry_after: Option<Duration>,
        /// True for 408, 409, 429 (unless out of quota) and 5xx.
        retryable: bool,
    },
    /// Could not connect, or the connection broke.
    #[error("{message}")]
    Transport {
        /// Full sentence for the user.
        message: String,
        /// Whether trying again may help (every transport failure so far: a refused
        /// connection is retried too, since a local server may be restarting).
        retryable: bool,
    },
    /// The stream sent nothing for longer than the idle timeout.
    #[error("the model stream sent nothing for {0:?}; the server may be overloaded")]
    IdleTimeout(Duration),
    /// The stream ended before the response was complete.
    #[error("the model stream ended before the response was complete")]
    Incomplete,
    /// The server reported an error inside the stream.
    #[error("{message}")]
    Stream {
        /// Full sentence for the user.
        message: String,
        /// Whether trying again may help.
        retryable: bool,
        /// The delay the server asked for ("try again in 1.5s"), when it gave one.
        retry_after: Option<Duration>,
    },
    /// The conversation no longer fits the model's context window.
    #[error(
        "the conversation is longer than the model's context window; start a new session (/new) or use a model with a larger window"
    )]
    ContextLengthExceeded,
    /// The stream carried something that is not the wire format.
    #[error("could not understand the model stream: {0}")]
    Protocol(String),
}

impl ClientError {
    /// Whether the session should try the request again.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Http { retryable, .. }
            | Self::Transport { retryable, .. }
            | Self::Stream { retryable, .. } => *retryable,
            Self::IdleTimeout(_) | Self::Incomplete => true,
            Self::ContextLengthExceeded | Self::Protocol(_) => false,
        }
    }

    /// The server's requested delay, if it gave one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Http { retry_after, .. } | Self::Stream { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Classify a non-2xx answer. `body` is the response body (possibly an HTML page from a
    /// proxy); only a short excerpt of it reaches the message.
    pub fn from_status(
        provider: &ProviderInfo,
        url: &str,
        model: &str,
        status: u16,
        headers: &reqwest::header::HeaderMap,
        body: &str,
    ) -> Self {
        let detail = error_detail(body);
        let lower = body.to_ascii_lowercase();
        if lower.contains("context_length_exceeded")
            || lower.contains("maximum context length")
            || lower.contains("prompt is too long")
        {
            return Self::ContextLengthExceeded;
        }
        let out_of_quota = lower.contains("insufficient_quota");
        let key_hint = key_hint(provider);
        let message = match status {
            400 => format!("{url} rejected the request (400 Bad Request): {detail}"),
            401 => format!("{url} rejected the API key (401 Unauthorized): {key_hint}"),
            403 => format!(
                "{url} refused access (403 Forbidden): {key_hint} and that it may use model `{model}`"
            ),
            404 => format!(
                "{url} was not found (404): check providers.{}.base_url and that model `{model}` exists there",
                provider.id
            ),
            429 if out_of_quota => format!(
                "{url} says the account is out of quota (429 insufficient_quota): check billing for {}",
                provider.name
            ),
            429 => format!("{url} is rate limiting requests (429): {detail}"),
            529 => format!("{url} is overloaded (529): {detail}"),
            s => format!("{url} answered {s}: {detail}"),
        };
        let retryable =
            matches!(status, 408 | 409 | 429 | 500..=599) && !out_of_quota && status != 501;
        Self::Http {
            status,
            message,
            retry_after: retry_after(headers),
            retryable,
        }
    }

    /// Classify an error the server reported inside a stream (Responses' `response.failed` and
    /// `error` events, Anthropic's `error` event, a Chat Completions `error` chunk) by its code.
    ///
    /// Unknown codes count as transient: the stream retry budget bounds the cost of being wrong.
    pub fn from_stream_error(code: Option<&str>, message: &str) -> Self {
        let code = code.unwrap_or("");
        let lower = message.to_ascii_lowercase();
        if code == "context_length_exceeded"
            || lower.contains("context window")
            || lower.contains("maximum context length")
            || lower.contains("prompt is too long")
        {
            return Self::ContextLengthExceeded;
        }
        let message = if message.is_empty() {
            "no details given"
        } else {
            message
        };
        let (text, retryable) = match code {
            "insufficient_quota" => (
                format!(
                    "the account is out of quota ({code}): {message}; check your plan and billing"
                ),
                false,
            ),
            "rate_limit_exceeded" | "rate_limit_error" => (
                format!("the server is rate limiting requests: {message}"),
                true,
            ),
            "overloaded_error" => (format!("the server is overloaded: {message}"), true),
            "invalid_prompt"
            | "invalid_request_error"
            | "invalid_request"
            | "authentication_error"
            | "permission_error"
            | "not_found_error"
            | "request_too_large"
            | "invalid_api_key"
            | "model_not_found" => (
                format!("the server rejected the request ({code}): {message}"),
                false,
            ),
            "" => (
                format!("the server reported an error mid-stream: {message}"),
                true,
            ),
            _ => (
                format!("the server reported an error mid-stream ({code}): {message}"),
                true,
            ),
        };
        Self::Stream {
            message: text,
            retryable,
            retry_after: retryable.then(|| delay_in_message(&lower)).flatten(),
        }
    }

    /// Classify a reqwest failure to send or read.
    pub fn from_reqwest(provider: &ProviderInfo, url: &str, err: &reqwest::Error) -> Self {
        let refused = is_connection_refused(err);
        let message = if refused {
            format!(
                "could not connect to {url} (connection refused): is the {} server running? Check providers.{}.base_url",
                provider.name, provider.id
            )
        } else if err.is_connect() {
            format!(
                "could not connect to {url}: {}; check the network and providers.{}.base_url",
                root_cause(err),
                provider.id
            )
        } else if err.is_timeout() {
            format!("{url} timed out: {}", root_cause(err))
        } else {
            format!("connection to {url} failed: {}", root_cause(err))
        };
        // A refused connection is retried like any transient failure: a local server
        // (Ollama, llama.cpp) restarting refuses for a moment. The budget keeps it short.
        Self::Transport {
            message,
            retryable: true,
        }
    }
}

/// What to check when the server refuses the key.
pub(crate) fn key_hint(provider: &ProviderInfo) -> String {
    match &provider.env_key {
        Some(var) => format!("check that {var} holds a valid key"),
        None => format!(
            "this provider has no env_key; set providers.{}.env_key if the server needs a key",
            provider.id
        ),
    }
}

fn is_connection_refused(err: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return true;
        }
        source = e.source();
    }
    false
}

fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    let mut last = err;
    while let Some(next) = last.source() {
        last = next;
    }
    last.to_string()
}

/// The server's own error message from a JSON body, or a short excerpt of anything else.
fn error_detail(body: &str) -> String {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(body) {
        let message = value
            .pointer("/error/message")
            .or_else(|| value.pointer("/message"))
            .or_else(|| value.pointer("/error"))
            .and_then(|v| v.as_str());
        if let Some(m) = message {
            return m.to_string();
        }
    }
    let trimmed = body.trim();
    if trimmed.starts_with('<') {
        return "the server answered with an HTML page (a proxy or the wrong base_url?)".into();
    }
    let excerpt: String = trimmed.chars().take(200).collect();
    if excerpt.is_empty() {
        "no details given".into()
    } else {
        excerpt
    }
}

/// OpenAI's rate-limit messages say "Please try again in 1.5s" (or "in 250ms").
fn delay_in_message(lower: &str) -> Option<Duration> {
    let rest = &lower[lower.find("try again in ")? + "try again in ".len()..];
    let number_len = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let value: f64 = rest[..number_len].parse().ok()?;
    let unit = rest[number_len..].trim_start();
    let millis = if unit.starts_with("ms") {
        value
    } else if unit.starts_with('s') {
        value * 1000.0
    } else {
        return None;
    };
    Some(Duration::from_millis(millis.max(0.0) as u64))
}

/// Parse `retry-after-ms` (milliseconds) or `Retry-After` (seconds, or an HTTP date).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        return Some(Duration::from_millis(ms.max(0.0) as u64));
    }
    let value = get("retry-after")?.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return Some(Duration::from_millis((seconds.max(0.0) * 1000.0) as u64));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::providers::resolve;
    use reqwest::header::{HeaderMap, HeaderValue};
    use std::collections::BTreeMap;

    fn openai() -> ProviderInfo {
        resolve("openai", &BTreeMap::new(), &|_| None).unwrap()
    }

    #[test]
    fn unauthorized_names_the_env_var_and_is_not_retried() {
        let err = ClientError::from_status(
            &openai(),
            "http://x/v1/chat/completions",
            "m",
            401,
            &HeaderMap::new(),
            r#"{"error":{"message":"bad key"}}"#,
        );
        assert!(!err.is_retryable());
        assert!(err.to_string().contains("OPENAI_API_KEY"), "{err}");
    }

    #[test]
    fn rate_limit_honours_retry_after_and_quota_is_final() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("2"));
        let err = ClientError::from_status(&openai(), "u", "m", 429, &headers, "{}");
        assert!(err.is_retryable());
        assert_eq!(err.retry_after(), Some(Duration::from_secs(2)));
        let quota = ClientError::from_status(
            &openai(),
            "u",
            "m",
            429,
            &HeaderMap::new(),
            r#"{"error":{"code":"insufficient_quota","message":"x"}}"#,
        );
        assert!(!quota.is_retryable());
    }

    #[test]
    fn retry_after_may_be_an_http_date() {
        let mut headers = HeaderMap::new();
        let when = std::time::SystemTime::now() + Duration::from_secs(30);
        headers.insert(
            "retry-after",
            HeaderValue::from_str(&httpdate::fmt_http_date(when)).unwrap(),
        );
        let err = ClientError::from_status(&openai(), "u", "m", 503, &headers, "{}");
        let delay = err.retry_after().expect("a delay from the date");
        assert!(
            delay >= Duration::from_secs(25) && delay <= Duration::from_secs(31),
            "{delay:?}"
        );
    }

    #[test]
    fn html_error_page_is_summarised() {
        let err = ClientError::from_status(
            &openai(),
            "u",
            "m",
            502,
            &HeaderMap::new(),
            "<html><body>Bad gateway</body></html>",
        );
        assert!(err.is_retryable());
        assert!(err.to_string().contains("HTML page"), "{err}");
    }

    #[test]
    fn stream_error_codes_are_classified() {
        assert_eq!(
            ClientError::from_stream_error(Some("context_length_exceeded"), "too long"),
            ClientError::ContextLengthExceeded
        );
        let quota = ClientError::from_stream_error(Some("insufficient_quota"), "pay up");
        assert!(!quota.is_retryable());
        assert!(quota.to_string().contains("billing"), "{quota}");
        let limited = ClientError::from_stream_error(
            Some("rate_limit_exceeded"),
            "Rate limit reached. Please try again in 1.5s. Visit ...",
        );
        assert!(limited.is_retryable());
        assert_eq!(limited.retry_after(), Some(Duration::from_millis(1500)));
        let ms = ClientError::from_stream_error(Some("rate_limit_exceeded"), "try again in 250ms");
        assert_eq!(ms.retry_after(), Some(Duration::from_millis(250)));
        assert!(
            ClientError::from_stream_error(Some("overloaded_error"), "Overloaded").is_retryable()
        );
        assert!(ClientError::from_stream_error(Some("server_error"), "oops").is_retryable());
        assert!(!ClientError::from_stream_error(Some("invalid_prompt"), "no").is_retryable());
    }

    #[test]
    fn overloaded_529_is_retried() {
        let err = ClientError::from_status(
            &openai(),
            "u",
            "m",
            529,
            &HeaderMap::new(),
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert!(err.is_retryable());
        assert!(
            err.to_string().contains("overloaded (529): Overloaded"),
            "{err}"
        );
    }

    #[test]
    fn context_length_is_reported_as_such() {
        let err = ClientError::from_status(
            &openai(),
            "u",
            "m",
            400,
            &HeaderMap::new(),
            r#"{"error":{"code":"context_length_exceeded"}}"#,
        );
        assert_eq!(err, ClientError::ContextLengthExceeded);
    }
}

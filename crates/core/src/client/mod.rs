//! Model clients: one module per wire format behind the [`ModelClient`] trait.
//!
//! A client turns a [`ModelRequest`] into one HTTP request and its SSE body into
//! [`ResponseEvent`]s. It does not retry: the session owns retries (see [`retry`]), because a
//! retried stream must be discarded whole and the front ends told so.

pub mod anthropic;
pub mod chat_completions;
pub mod error;
pub mod http;
pub mod models;
pub mod responses;
pub mod retry;
pub mod schema;
pub mod sse;

use crate::config::{Config, ProviderInfo, WireApi};
use crate::history::ResponseItem;
use crate::tools::ToolSpec;
use async_trait::async_trait;
pub use error::ClientError;
use futures::Stream;
use std::pin::Pin;
use std::sync::Arc;

/// Everything one model request needs, independent of the wire format.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    /// Model name.
    pub model: String,
    /// System prompt.
    pub instructions: String,
    /// Conversation so far.
    pub input: Vec<ResponseItem>,
    /// Tools the model may call.
    pub tools: Vec<ToolSpec>,
}

/// Token use reported by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
}

/// What a response stream yields.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseEvent {
    /// A piece of the answer text.
    OutputTextDelta(String),
    /// A piece of reasoning text.
    ReasoningDelta(String),
    /// A finished output item (message, reasoning, or a tool call with complete arguments).
    OutputItemDone(ResponseItem),
    /// The response ended normally.
    Completed {
        /// Token use, when the server reported it.
        usage: Option<Usage>,
    },
}

/// A stream of response events; it ends after [`ResponseEvent::Completed`] or an error.
pub type ResponseStream = Pin<Box<dyn Stream<Item = Result<ResponseEvent, ClientError>> + Send>>;

/// One wire format's client.
#[async_trait]
pub trait ModelClient: Send + Sync {
    /// Send the request and return the event stream once the server answered 2xx.
    async fn stream(&self, request: &ModelRequest) -> Result<ResponseStream, ClientError>;

    /// The provider this client talks to.
    fn provider(&self) -> &ProviderInfo;

    /// The models the provider's server lists (see [`models`]), with the client's own HTTP
    /// client and authentication. Clients that cannot ask say so.
    async fn list_models(&self) -> Result<Vec<cairn_protocol::ModelInfo>, ClientError> {
        Err(ClientError::Transport {
            message: "this client cannot list the server's models".to_string(),
            retryable: false,
        })
    }
}

/// Build the client for the configured provider.
pub fn client_for(config: &Config, provider: &ProviderInfo) -> Arc<dyn ModelClient> {
    let http = http_client(provider);
    match provider.wire_api {
        WireApi::Chat => Arc::new(chat_completions::ChatClient::new(provider.clone(), http)),
        WireApi::Responses => Arc::new(responses::ResponsesClient::new(
            provider.clone(),
            http,
            config.reasoning_effort.clone(),
        )),
        WireApi::Anthropic => Arc::new(anthropic::AnthropicClient::new(
            provider.clone(),
            http,
            config.reasoning_effort.clone(),
        )),
    }
}

/// One HTTP client per provider: connection reuse across turns matters for latency.
fn http_client(provider: &ProviderInfo) -> reqwest::Client {
    http::builder()
        .connect_timeout(provider.connect_timeout)
        .user_agent(concat!("cairn/", env!("CARGO_PKG_VERSION")))
        .build()
        .unwrap_or_else(|_| reqwest::Client::new())
}

/// Join a provider base URL and an endpoint path.
pub(crate) fn endpoint(provider: &ProviderInfo, path: &str) -> String {
    format!("{}/{}", provider.base_url, path.trim_start_matches('/'))
}

/// How a wire format authenticates.
pub(crate) enum Auth {
    /// `Authorization: Bearer KEY` (OpenAI and compatible servers).
    Bearer,
    /// `x-api-key: KEY` (Anthropic).
    XApiKey,
}

/// POST `body` to `url` and return the response once the server answered 2xx.
///
/// `defaults` are the wire format's own headers; the provider's `headers` table replaces any
/// of them by name, so a proxy or a beta header can be configured without code. Waiting for
/// the response head is bounded by the idle timeout: a server that accepts the connection and
/// then says nothing must not hang the session.
pub(crate) async fn send(
    http: &reqwest::Client,
    provider: &ProviderInfo,
    url: &str,
    model: &str,
    auth: Auth,
    defaults: &[(&str, &str)],
    body: String,
) -> Result<reqwest::Response, ClientError> {
    use reqwest::header::{HeaderMap, HeaderValue};
    let mut headers = HeaderMap::new();
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    headers.insert("accept", HeaderValue::from_static("text/event-stream"));
    add_headers(&mut headers, provider, auth, defaults)?;
    let request = http.post(url).headers(headers).body(body).send();
    let response = match tokio::time::timeout(provider.idle_timeout, request).await {
        Ok(result) => result.map_err(|e| ClientError::from_reqwest(provider, url, &e))?,
        Err(_) => return Err(ClientError::IdleTimeout(provider.idle_timeout)),
    };
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let headers = response.headers().clone();
    let body = error_body(response, provider.idle_timeout).await;
    Err(ClientError::from_status(
        provider,
        url,
        model,
        status.as_u16(),
        &headers,
        &body,
    ))
}

/// Add the wire format's `defaults`, the API key as `auth` sends it, then the provider's
/// `headers` table, each replacing what `headers` already holds by name.
pub(crate) fn add_headers(
    headers: &mut reqwest::header::HeaderMap,
    provider: &ProviderInfo,
    auth: Auth,
    defaults: &[(&str, &str)],
) -> Result<(), ClientError> {
    use reqwest::header::{HeaderName, HeaderValue};
    let key = provider.api_key.as_deref().map(|k| match auth {
        Auth::Bearer => ("authorization", format!("Bearer {k}")),
        Auth::XApiKey => ("x-api-key", k.to_string()),
    });
    let configured = provider
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()));
    let key = key.as_ref().map(|(n, v)| (*n, v.as_str()));
    for (name, value) in defaults.iter().copied().chain(key).chain(configured) {
        let bad = |what: &str| ClientError::Transport {
            message: format!(
                "providers.{}.headers has an invalid header {what} for `{name}`; fix it in config.toml",
                provider.id
            ),
            retryable: false,
        };
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad("name"))?;
        let value = HeaderValue::from_str(value).map_err(|_| bad("value"))?;
        headers.insert(name, value);
    }
    Ok(())
}

/// The start of an error response's body: enough for the server's message, bounded in size
/// and time so a huge or stalled error page cannot hold the session.
pub(crate) async fn error_body(response: reqwest::Response, idle: std::time::Duration) -> String {
    use futures::StreamExt;
    const LIMIT: usize = 64 * 1024;
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while body.len() < LIMIT {
        match tokio::time::timeout(idle, chunks.next()).await {
            Ok(Some(Ok(chunk))) => body.extend_from_slice(&chunk),
            _ => break,
        }
    }
    body.truncate(LIMIT);
    String::from_utf8_lossy(&body).into_owned()
}

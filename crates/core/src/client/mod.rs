//! Model clients: one module per wire format behind the [`ModelClient`] trait.
//!
//! A client turns a [`ModelRequest`] into one HTTP request and its SSE body into
//! [`ResponseEvent`]s. It does not retry: the session owns retries (see [`retry`]), because a
//! retried stream must be discarded whole and the front ends told so.

pub mod anthropic;
pub mod chat_completions;
pub mod error;
pub mod responses;
pub mod retry;
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
        WireApi::Anthropic => Arc::new(anthropic::AnthropicClient::new(provider.clone(), http)),
    }
}

/// One HTTP client per provider: connection reuse across turns matters for latency.
fn http_client(provider: &ProviderInfo) -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(provider.connect_timeout)
        .user_agent(concat!("cairn/", env!("CARGO_PKG_VERSION")))
        .build()
        .unwrap_or_else(|_| reqwest::Client::new())
}

/// Join a provider base URL and an endpoint path.
pub(crate) fn endpoint(provider: &ProviderInfo, path: &str) -> String {
    format!("{}/{}", provider.base_url, path.trim_start_matches('/'))
}

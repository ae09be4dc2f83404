//! Anthropic Messages API (`POST {base_url}/messages`). Filled in by the providers issue.

use super::{ClientError, ModelClient, ModelRequest, ResponseStream};
use crate::config::ProviderInfo;
use async_trait::async_trait;

/// Client for `wire_api = "anthropic"`.
pub struct AnthropicClient {
    provider: ProviderInfo,
    #[allow(dead_code)]
    http: reqwest::Client,
}

impl AnthropicClient {
    /// A client for `provider`.
    pub fn new(provider: ProviderInfo, http: reqwest::Client) -> Self {
        Self { provider, http }
    }
}

#[async_trait]
impl ModelClient for AnthropicClient {
    async fn stream(&self, _request: &ModelRequest) -> Result<ResponseStream, ClientError> {
        Err(ClientError::Protocol(
            "wire_api \"anthropic\" is not supported yet; use \"chat\"".into(),
        ))
    }

    fn provider(&self) -> &ProviderInfo {
        &self.provider
    }
}

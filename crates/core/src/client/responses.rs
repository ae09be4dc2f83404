//! OpenAI Responses API (`POST {base_url}/responses`). Filled in by the providers issue.

use super::{ClientError, ModelClient, ModelRequest, ResponseStream};
use crate::config::ProviderInfo;
use async_trait::async_trait;

/// Client for `wire_api = "responses"`.
pub struct ResponsesClient {
    provider: ProviderInfo,
    #[allow(dead_code)]
    http: reqwest::Client,
    #[allow(dead_code)]
    reasoning_effort: Option<String>,
}

impl ResponsesClient {
    /// A client for `provider`.
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
    async fn stream(&self, _request: &ModelRequest) -> Result<ResponseStream, ClientError> {
        Err(ClientError::Protocol(
            "wire_api \"responses\" is not supported yet; use \"chat\"".into(),
        ))
    }

    fn provider(&self) -> &ProviderInfo {
        &self.provider
    }
}

//! `web_search`: search the web through the backend `[tools.web] search` names. Registered
//! only when one is configured.
//!
//! With `search = "provider"` the tool is the Responses API's hosted `web_search`: the spec
//! carries [`HOSTED_MARKER`], the Responses client sends `{"type": "web_search"}` in its
//! place, and the server searches. The tool still goes through the registry, so plan mode,
//! delegation and the per-family tool lists treat it like any other.

use crate::config::SearchSettings;
use crate::tools::{
    ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names, parse_args,
};
use crate::web::search::{self, DEFAULT_RESULTS, MAX_RESULTS};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

/// Key in a spec's `parameters` that marks a tool the provider runs itself.
pub const HOSTED_MARKER: &str = "x-cairn-hosted";

/// Handler of `web_search` for the Brave, Tavily and SearXNG backends.
pub struct WebSearchHandler {
    settings: SearchSettings,
}

impl WebSearchHandler {
    /// A handler querying `settings`' backend.
    pub fn new(settings: SearchSettings) -> Self {
        Self { settings }
    }
}

#[derive(Debug, Deserialize)]
struct Args {
    query: String,
    max_results: Option<u64>,
}

fn spec(parameters: serde_json::Value) -> ToolSpec {
    ToolSpec {
        name: names::WEB_SEARCH.to_string(),
        description: format!(
            "Search the web. Use it to find documentation, a library's API, or what an error message means; then read the best result with web_fetch.\n\nReturns a numbered list of results (title, URL, snippet), {DEFAULT_RESULTS} by default. Example: {{\"query\": \"tokio JoinSet abort_all\"}}"
        ),
        parameters,
    }
}

fn parameters() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to search for"},
            "max_results": {"type": "integer", "description": format!("How many results (default {DEFAULT_RESULTS}, at most {MAX_RESULTS})")}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

fn describe(arguments: &str) -> String {
    match args_value(arguments)["query"].as_str() {
        Some(query) => format!("Would search the web for \"{query}\""),
        None => "Would search the web".to_string(),
    }
}

#[async_trait]
impl ToolHandler for WebSearchHandler {
    fn spec(&self) -> ToolSpec {
        spec(parameters())
    }

    fn describe(&self, arguments: &str) -> String {
        describe(arguments)
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: Args = parse_args(&call.arguments)?;
        let query = args.query.trim();
        if query.is_empty() {
            return Err(ToolError::RespondToModel(
                "query is empty; say what to search for.".to_string(),
            ));
        }
        let max = args
            .max_results
            .map_or(DEFAULT_RESULTS, |n| (n as usize).clamp(1, MAX_RESULTS));
        let hits = search::search(&ctx.config().web, &self.settings, query, max)
            .await
            .map_err(ToolError::RespondToModel)?;
        Ok(search::render(query, &hits))
    }
}

/// `web_search` as the provider's hosted tool (Responses API).
pub struct ProviderWebSearchHandler;

#[async_trait]
impl ToolHandler for ProviderWebSearchHandler {
    fn spec(&self) -> ToolSpec {
        let mut parameters = parameters();
        parameters[HOSTED_MARKER] = json!(true);
        spec(parameters)
    }

    fn describe(&self, arguments: &str) -> String {
        describe(arguments)
    }

    async fn handle(&self, _call: &ToolCall, _ctx: &ToolContext) -> Result<String, ToolError> {
        Err(ToolError::RespondToModel(
            "web_search is run by the model provider itself here; it cannot be called as a function. Continue without it.".to_string(),
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use crate::client::{ModelRequest, responses};
    use crate::config::{Config, SearchBackend, SearchSettings, providers};
    use crate::model_family::ModelFamily;
    use crate::tools::{ToolRegistry, names};
    use std::collections::BTreeMap;

    fn config(provider: &str, backend: Option<SearchBackend>) -> Config {
        let dir = std::env::temp_dir();
        let mut config = Config::for_test(&dir, &dir);
        config.provider = Some(providers::resolve(provider, &BTreeMap::new(), &|_| None).unwrap());
        config.web.search = backend.map(|backend| SearchSettings {
            backend,
            url: "http://127.0.0.1:9".into(),
            api_key_env: None,
            api_key: None,
        });
        config
    }

    fn offered(config: &Config) -> Vec<String> {
        ToolRegistry::for_config(config)
            .offered_specs(ModelFamily::Gpt)
            .map(|s| s.name.clone())
            .collect()
    }

    #[test]
    fn web_search_is_absent_without_a_backend_and_present_with_one() {
        let none = offered(&config("openai", None));
        assert!(none.contains(&names::WEB_FETCH.to_string()));
        assert!(!none.contains(&names::WEB_SEARCH.to_string()));
        for backend in [
            SearchBackend::Brave,
            SearchBackend::Tavily,
            SearchBackend::Searxng,
        ] {
            assert!(
                offered(&config("ollama", Some(backend))).contains(&names::WEB_SEARCH.to_string())
            );
        }
    }

    #[test]
    fn provider_search_is_the_hosted_tool_on_the_responses_api_only() {
        let chat = config("ollama", Some(SearchBackend::Provider));
        assert!(!offered(&chat).contains(&names::WEB_SEARCH.to_string()));
        let config = config("openai", Some(SearchBackend::Provider));
        let registry = ToolRegistry::for_config(&config);
        let request = ModelRequest {
            model: "gpt-5.1".into(),
            instructions: String::new(),
            input: Vec::new(),
            tools: registry.offered_specs(ModelFamily::Gpt).cloned().collect(),
        };
        let body = responses::request_body(&request, None);
        let tools = body["tools"].as_array().unwrap();
        assert!(
            tools.contains(&serde_json::json!({"type": "web_search"})),
            "{tools:?}"
        );
        assert!(
            tools
                .iter()
                .any(|t| t["name"] == "web_fetch" && t["type"] == "function")
        );
    }
}

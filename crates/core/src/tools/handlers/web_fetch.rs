//! `web_fetch`: read a web page as text (HTML as Markdown). The engine is
//! [`crate::web::fetch`]; this file decides what the user approves.
//!
//! A fetch can carry data out in its URL, so a host not in `[tools.web] allowed_hosts` is
//! put to the approval policy: `untrusted` asks (showing the full URL), `on-request` runs it.
//! A redirect to another host is followed only if that host would not need asking; else the
//! model is told to fetch the new URL itself, which goes through the same check.

use crate::approval::{self, SessionScope};
use crate::config::web::WEB_MAX_BYTES_LIMIT;
use crate::session::shared::lock;
use crate::tools::{
    ApprovalKind, ApprovalRequest, ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec,
    args_value, names, parse_args,
};
use crate::web::fetch::{self, MAX_REDIRECTS};
use async_trait::async_trait;
use reqwest::Url;
use serde::Deserialize;
use serde_json::json;

/// Handler of `web_fetch`.
pub struct WebFetchHandler;

#[derive(Debug, Deserialize)]
struct Args {
    url: String,
    max_bytes: Option<u64>,
}

/// What approving a fetch of `url` means.
fn fetch_request(url: &Url) -> ApprovalRequest {
    let host = url.host_str().unwrap_or_default().to_string();
    ApprovalRequest {
        kind: ApprovalKind::Fetch {
            url: url.to_string(),
            host: host.clone(),
        },
        description: format!("Would fetch {url}"),
        session: SessionScope {
            keys: vec![format!("fetch:{host}")],
            label: Some(format!("fetches from {host}")),
            prefix: None,
            commands: None,
        },
        // on-request fetches without asking; untrusted asks (it runs only known-safe
        // commands unasked).
        known_safe: true,
        protected: None,
    }
}

fn parse_url(raw: &str) -> Result<Url, ToolError> {
    fetch::parse_url(raw).map_err(ToolError::RespondToModel)
}

#[async_trait]
impl ToolHandler for WebFetchHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::WEB_FETCH.to_string(),
            description: format!(
                "Fetch a web page (http or https) and return its text: HTML as Markdown without scripts, styles and navigation; JSON, Markdown and plain text as they are. Use it to read documentation, an API reference, an issue or a changelog the user or a search result pointed to. Binary content (images, PDFs, archives) is refused. Follows at most {MAX_REDIRECTS} redirects. Addresses on the user's machine or local network are refused.\n\nReturns the final URL, the content type and the text, cut after max_bytes (default {} bytes) with a note saying so. Example: {{\"url\": \"https://docs.rs/serde/latest/serde/\"}}",
                crate::config::web::DEFAULT_WEB_MAX_BYTES
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "url": {"type": "string", "description": "The full http:// or https:// URL to fetch"},
                    "max_bytes": {"type": "integer", "description": format!("Most bytes of text to return (default {}, at most {WEB_MAX_BYTES_LIMIT})", crate::config::web::DEFAULT_WEB_MAX_BYTES)}
                },
                "required": ["url"],
                "additionalProperties": false
            }),
        }
    }

    fn describe(&self, arguments: &str) -> String {
        match args_value(arguments)["url"].as_str() {
            Some(url) => format!("Would fetch {url}"),
            None => "Would fetch a web page".to_string(),
        }
    }

    fn approval(
        &self,
        arguments: &str,
        ctx: &ToolContext,
    ) -> Result<Option<ApprovalRequest>, ToolError> {
        let args: Args = parse_args(arguments)?;
        let url = parse_url(&args.url)?;
        let host = url.host_str().unwrap_or_default();
        if ctx.config().web.host_allowed(host) {
            return Ok(None);
        }
        Ok(Some(fetch_request(&url)))
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: Args = parse_args(&call.arguments)?;
        let url = parse_url(&args.url)?;
        let web = &ctx.config().web;
        let max_bytes = args.max_bytes.map_or(web.max_bytes, |n| {
            (n as usize).clamp(1, WEB_MAX_BYTES_LIMIT)
        });
        let shared = ctx.shared.clone();
        // A redirect to another host runs only where a fetch of it would run unasked.
        let hop_allowed = move |next: &Url| {
            let host = next.host_str().unwrap_or_default();
            if shared.config.web.host_allowed(host) {
                return Ok(());
            }
            let policy = shared.settings().approval_policy;
            let request = fetch_request(next);
            if approval::must_ask(policy, &request, &lock(&shared.approvals)) {
                return Err(format!(
                    "The page redirected to {next}, on another host ({host}), which needs the user's approval. To follow it, call web_fetch with that URL (the user will be asked)."
                ));
            }
            Ok(())
        };
        let requested = url.to_string();
        let fetched = fetch::fetch(web, url, max_bytes, &hop_allowed)
            .await
            .map_err(ToolError::RespondToModel)?;
        Ok(fetched.render(&requested))
    }
}

#[cfg(test)]
#[path = "web_fetch_tests.rs"]
mod tests;

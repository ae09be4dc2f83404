//! An MCP server's tool as one more [`ToolHandler`]: the dispatcher decides plan mode and
//! approval exactly as for built-in tools, from what the user configured.

use super::manager::{McpManager, McpToolEntry};
use crate::approval::SessionScope;
use crate::tools::{
    ApprovalKind, ApprovalRequest, ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec,
};
use async_trait::async_trait;
use rmcp::model::JsonObject;
use std::sync::Arc;

/// Longest argument text quoted in a one-line description.
const DESCRIBED_ARGS: usize = 160;

/// Calls one tool of one MCP server.
pub struct McpToolHandler {
    manager: Arc<McpManager>,
    entry: Arc<McpToolEntry>,
}

impl McpToolHandler {
    pub(super) fn new(manager: Arc<McpManager>, entry: Arc<McpToolEntry>) -> Self {
        Self { manager, entry }
    }

    /// The tool as listed.
    pub fn entry(&self) -> &McpToolEntry {
        &self.entry
    }
}

/// The arguments as the JSON object `tools/call` takes; empty text is no arguments.
fn arguments_object(arguments: &str) -> Result<Option<JsonObject>, ToolError> {
    if arguments.trim().is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<serde_json::Value>(arguments) {
        Ok(serde_json::Value::Object(object)) => Ok(Some(object)),
        Ok(_) => Err(ToolError::RespondToModel(
            "failed to parse function arguments: MCP tools take a JSON object".to_string(),
        )),
        Err(e) => Err(ToolError::RespondToModel(format!(
            "failed to parse function arguments: {e}"
        ))),
    }
}

#[async_trait]
impl ToolHandler for McpToolHandler {
    fn spec(&self) -> ToolSpec {
        self.entry.spec.clone()
    }

    /// Only the user's config makes a tool read-only; `readOnlyHint` is the server's word.
    fn is_mutating(&self) -> bool {
        !self.entry.read_only
    }

    fn describe(&self, arguments: &str) -> String {
        let args = arguments.trim();
        let shown = if args.is_empty() || args == "{}" {
            "no arguments".to_string()
        } else if args.chars().count() > DESCRIBED_ARGS {
            let cut: String = args.chars().take(DESCRIBED_ARGS).collect();
            format!("{cut}…")
        } else {
            args.to_string()
        };
        format!(
            "Would call `{}` on MCP server `{}` with {shown}",
            self.entry.tool, self.entry.server_name
        )
    }

    /// Tools the user configured read-only run unasked; every other call is put to the
    /// policy like a command: the server may do anything with it.
    fn approval(
        &self,
        arguments: &str,
        _ctx: &ToolContext,
    ) -> Result<Option<ApprovalRequest>, ToolError> {
        arguments_object(arguments)?;
        if self.entry.read_only {
            return Ok(None);
        }
        Ok(Some(ApprovalRequest {
            kind: ApprovalKind::Mcp {
                server: self.entry.server_name.clone(),
                tool: self.entry.tool.clone(),
                arguments: arguments.to_string(),
                read_only_hint: self.entry.read_only_hint,
            },
            description: self.describe(arguments),
            session: SessionScope {
                keys: vec![format!("mcp:{}", self.entry.spec.name)],
                label: Some(format!(
                    "every call of `{}` on `{}`",
                    self.entry.tool, self.entry.server_name
                )),
                ..SessionScope::none()
            },
            known_safe: false,
            protected: None,
        }))
    }

    async fn handle(&self, call: &ToolCall, _ctx: &ToolContext) -> Result<String, ToolError> {
        let arguments = arguments_object(&call.arguments)?;
        self.manager.call(&self.entry, arguments).await
    }
}

//! What front ends are told about MCP servers (`/mcp`, `mcp_status`).

use serde::{Deserialize, Serialize};

/// Where a server stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpServerState {
    /// `enabled = false`: configured, never started.
    Disabled,
    /// Starting or listing its tools.
    Starting,
    /// Running; its tools are offered.
    Ready,
    /// Failed to start, or stopped; `error` says why. Its tools are not offered.
    Failed,
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerStatus {
    /// The `[mcp_servers.<name>]` name.
    pub name: String,
    /// The command line (stdio) or URL (streamable HTTP).
    pub transport: String,
    /// Where it stands.
    pub state: McpServerState,
    /// The tools offered to the model, when ready.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<McpToolStatus>,
    /// Why it failed; for a ready server, the last call that failed at it (a timeout, a
    /// refused call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One tool a server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpToolStatus {
    /// The name the model calls (`mcp__<server>__<tool>`).
    pub name: String,
    /// The server's own name for it.
    pub tool: String,
    /// Read-only by the user's config: offered in plan mode, run without asking under
    /// `on-request`.
    pub read_only: bool,
    /// The server's `readOnlyHint` annotation, shown but never trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
}

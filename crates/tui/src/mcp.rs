//! `/mcp`: the MCP servers' status, tools and last error, as one notice.

use crate::strings;
use cairn_protocol::{McpServerState, McpServerStatus};

/// The status as a notice: per server its state and command line, then its tools (marked
/// read-only by config, and with the server's own hint) or why it failed.
pub fn text(servers: &[McpServerStatus]) -> String {
    if servers.is_empty() {
        return strings::MCP_NONE.to_string();
    }
    let mut text = strings::mcp_heading(servers.len());
    for server in servers {
        let state = match server.state {
            McpServerState::Disabled => strings::MCP_DISABLED,
            McpServerState::Starting => strings::MCP_STARTING,
            McpServerState::Ready => strings::MCP_READY,
            McpServerState::Failed => strings::MCP_FAILED,
        };
        text.push_str(&format!(
            "\n  {} · {state} · {}",
            server.name, server.transport
        ));
        if server.state == McpServerState::Ready && server.tools.is_empty() {
            text.push_str(&format!("\n    {}", strings::MCP_NO_TOOLS));
        }
        for tool in &server.tools {
            text.push_str(&format!(
                "\n    {}{}",
                tool.name,
                strings::mcp_tool_marks(tool.read_only, tool.read_only_hint)
            ));
        }
        if let Some(error) = &server.error {
            for (i, line) in error.lines().enumerate() {
                let lead = if i == 0 {
                    strings::MCP_ERROR_LEAD
                } else {
                    "      "
                };
                text.push_str(&format!("\n    {lead}{line}"));
            }
        }
    }
    text
}

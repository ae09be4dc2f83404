//! The MCP client: tools from Model Context Protocol servers (`[mcp_servers.<name>]`,
//! docs/mcp.md), reached through the official SDK, `rmcp`.
//!
//! [`McpManager`] starts the servers off the start-up path and keeps their state; each
//! listed tool becomes an [`McpToolHandler`] that the session adds to its tool registry at the
//! start of a turn. Plan mode and approvals are decided by the dispatcher, as for every tool:
//! an MCP tool is mutating unless the user configured it read-only.

mod connect;
mod handler;
mod manager;
pub mod naming;
pub mod output;
pub mod schema;

pub use handler::McpToolHandler;
pub use manager::{McpManager, McpToolEntry};

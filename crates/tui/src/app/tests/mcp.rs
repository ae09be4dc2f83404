//! MCP in the TUI: the approval overlay shows server, tool and arguments; `/mcp` shows each
//! server's status, tools and last error.

use super::Harness;
use cairn_protocol::{
    EventMsg, McpServerState, McpServerStatus, McpToolStatus, Op, ReviewDecision,
};
use crossterm::event::KeyCode;

#[test]
fn an_mcp_call_is_approved_in_an_overlay_showing_server_tool_and_arguments() {
    let mut h = Harness::configured(90, 24);
    h.submit("write the notes");
    h.event_id(
        "op-1",
        EventMsg::McpToolApprovalRequest {
            call_id: "m1".into(),
            server: "fs".into(),
            tool: "write_file".into(),
            arguments: r#"{"path":"/w/notes.txt","content":"hi"}"#.into(),
            description: "Would call `write_file` on MCP server `fs` with {...}".into(),
            read_only_hint: Some(true),
            for_session: Some("every call of `write_file` on `fs`".into()),
        },
    );
    let screen = h.render();
    for expected in [
        "Allow this MCP tool call?",
        "server  fs",
        "tool    write_file",
        "\"path\": \"/w/notes.txt\"",
        "cairn does not take its word",
    ] {
        assert!(screen.contains(expected), "{expected}:\n{screen}");
    }
    h.key(KeyCode::Char('y'));
    assert_eq!(
        h.last_op(),
        Some(Op::McpToolApproval {
            call_id: "m1".into(),
            decision: ReviewDecision::Approved,
        })
    );
}

#[test]
fn slash_mcp_asks_the_core_and_shows_status_tools_and_errors() {
    let mut h = Harness::configured(100, 24);
    h.submit("/mcp");
    assert_eq!(h.last_op(), Some(Op::ListMcpServers));
    h.event(EventMsg::McpServers {
        servers: vec![
            McpServerStatus {
                name: "fs".into(),
                transport: "npx -y @modelcontextprotocol/server-filesystem /w".into(),
                state: McpServerState::Ready,
                tools: vec![
                    McpToolStatus {
                        name: "mcp__fs__read_text_file".into(),
                        tool: "read_text_file".into(),
                        read_only: true,
                        read_only_hint: Some(true),
                    },
                    McpToolStatus {
                        name: "mcp__fs__write_file".into(),
                        tool: "write_file".into(),
                        read_only: false,
                        read_only_hint: Some(false),
                    },
                ],
                error: None,
            },
            McpServerStatus {
                name: "db".into(),
                transport: "db-server".into(),
                state: McpServerState::Failed,
                tools: Vec::new(),
                error: Some("it exited before answering `initialize`".into()),
            },
        ],
    });
    let screen = h.render();
    for expected in [
        "MCP servers (2):",
        "fs · ready · npx -y @modelcontextprotocol/server-filesystem /w",
        "mcp__fs__read_text_file · read-only (config) · server hint: read-only",
        "mcp__fs__write_file · asks before running · server hint: changes things",
        "db · failed · db-server",
        "error: it exited before answering `initialize`",
    ] {
        assert!(screen.contains(expected), "{expected}:\n{screen}");
    }
}

//! MCP servers in a session of the real core: approvals with server, tool and arguments,
//! interrupting a call, `/mcp` status, and delegated runs. Uses the reference servers in
//! tests/mcp-servers (`npm ci --prefix tests/mcp-servers`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_core::Config;
use cairn_core::config::mcp::{McpServerToml, resolve_server};
use cairn_mock_model::{MockResponse, chat};
use cairn_protocol::{EventMsg, McpServerState, Op, ReviewDecision, TurnAbortReason};
use common::{Setup, start_with};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The entry script of reference server `package`; fails with what to run when it is missing.
fn server_script(package: &str) -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp-servers/node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    assert!(
        script.exists(),
        "{} is missing: install the MCP test servers with `npm ci --prefix tests/mcp-servers` (needs node and npm)",
        script.display()
    );
    script
}

fn server(name: &str, toml: McpServerToml, cwd: &Path) -> cairn_core::config::McpServerConfig {
    resolve_server(name, &toml, cwd, &|_| None).unwrap()
}

/// The filesystem server over the session's workspace, two tools read-only; a server that
/// exits at start.
fn with_servers(config: &mut Config) {
    let cwd = config.cwd.clone();
    config.mcp_servers = vec![
        server(
            "broken",
            McpServerToml {
                command: Some("sh".into()),
                args: vec!["-c".into(), "echo no token configured >&2; exit 1".into()],
                ..McpServerToml::default()
            },
            &cwd,
        ),
        server(
            "fs",
            McpServerToml {
                command: Some("node".into()),
                args: vec![
                    server_script("server-filesystem").display().to_string(),
                    cwd.display().to_string(),
                ],
                read_only_tools: Some(vec!["read_text_file".into(), "list_directory".into()]),
                ..McpServerToml::default()
            },
            &cwd,
        ),
    ];
}

fn with_everything(config: &mut Config) {
    let cwd = config.cwd.clone();
    config.mcp_servers = vec![server(
        "everything",
        McpServerToml {
            command: Some("node".into()),
            args: vec![server_script("server-everything").display().to_string()],
            ..McpServerToml::default()
        },
        &cwd,
    )];
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_write_asks_with_server_tool_and_arguments_and_runs_when_approved() {
    let mut h = start_with(
        vec![],
        Setup {
            configure: Some(with_servers),
            ..Setup::default()
        },
    )
    .await;
    let target = h.cwd().join("out.txt");
    let args = json!({"path": target.display().to_string(), "content": "approved\n"});
    h.server.push(chat::call_response(
        "w",
        "mcp__fs__write_file",
        args.clone(),
    ));
    h.server.push(chat::text_response("Written."));
    h.session.submit(Op::UserInput {
        text: "write it".into(),
    });
    let events = h
        .until(|m| matches!(m, EventMsg::McpToolApprovalRequest { .. }))
        .await;
    let Some(EventMsg::McpToolApprovalRequest {
        call_id,
        server,
        tool,
        arguments,
        description,
        for_session,
        ..
    }) = events.last().cloned()
    else {
        unreachable!()
    };
    assert_eq!((server.as_str(), tool.as_str()), ("fs", "write_file"));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&arguments).unwrap(),
        args
    );
    assert!(description.contains("write_file") && description.contains("`fs`"));
    assert!(for_session.is_some());
    assert!(!target.exists(), "ran before approval");
    // The failed server was reported once, before the turn's request.
    let reports = common::count(
        &h.events.iter().map(|e| e.msg.clone()).collect::<Vec<_>>(),
        |m| matches!(m, EventMsg::Notice { message } if message.contains("MCP server 'broken' failed to start")),
    );
    assert_eq!(reports, 1);
    h.session.submit(Op::McpToolApproval {
        call_id,
        decision: ReviewDecision::Approved,
    });
    let end = h.until_task_end().await;
    assert!(
        matches!(end.last(), Some(EventMsg::TaskComplete { .. })),
        "{end:?}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "approved\n");
    h.server.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_status_lists_tools_read_only_marks_hints_and_why_a_server_failed() {
    let mut h = start_with(
        vec![MockResponse::sse(chat::text("hi"))],
        Setup {
            configure: Some(with_servers),
            ..Setup::default()
        },
    )
    .await;
    // A turn waits for start-up; after it, every server has settled.
    h.run("hello").await;
    h.session.submit(Op::ListMcpServers);
    let events = h.until(|m| matches!(m, EventMsg::McpServers { .. })).await;
    let Some(EventMsg::McpServers { servers }) = events.last().cloned() else {
        unreachable!()
    };
    let names: Vec<_> = servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["broken", "fs"]);
    assert_eq!(servers[0].state, McpServerState::Failed);
    let error = servers[0].error.clone().unwrap();
    assert!(error.contains("no token configured"), "{error}");
    assert_eq!(servers[1].state, McpServerState::Ready);
    let tool = |name: &str| {
        servers[1]
            .tools
            .iter()
            .find(|t| t.tool == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert!(tool("read_text_file").read_only);
    assert_eq!(tool("read_text_file").name, "mcp__fs__read_text_file");
    // The server says get_file_info only reads; cairn shows it and does not take its word.
    let info = tool("get_file_info");
    assert_eq!(info.read_only_hint, Some(true));
    assert!(!info.read_only);
    assert!(!tool("write_file").read_only);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_cancels_a_running_mcp_call() {
    let mut h = start_with(
        vec![],
        Setup {
            configure: Some(with_everything),
            policy: cairn_protocol::ApprovalPolicy::Never,
            ..Setup::default()
        },
    )
    .await;
    h.server.push(chat::call_response(
        "slow",
        "mcp__everything__trigger-long-running-operation",
        json!({"duration": 30, "steps": 3}),
    ));
    h.server.push(chat::text_response("unused"));
    h.session.submit(Op::UserInput {
        text: "run the slow one".into(),
    });
    h.until(|m| matches!(m, EventMsg::ToolCallBegin { .. }))
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let interrupted = Instant::now();
    h.session.submit(Op::Interrupt);
    let end = h.until_task_end().await;
    assert!(
        matches!(
            end.last(),
            Some(EventMsg::TurnAborted {
                reason: TurnAbortReason::Interrupted
            })
        ),
        "{end:?}"
    );
    assert!(
        interrupted.elapsed() < Duration::from_secs(3),
        "{:?}",
        interrupted.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delegated_runs_get_mcp_tools_as_their_agent_allows() {
    let mut h = start_with(
        vec![
            chat::call_response(
                "d",
                "delegate_agent",
                json!({"batch": [
                    {"agent_id": "explore", "prompt": "explore-run: look"},
                    {"agent_id": "general", "prompt": "general-run: change"}
                ]}),
            ),
            chat::text_response("one"),
            chat::text_response("two"),
            chat::text_response("both done"),
        ],
        Setup {
            configure: Some(with_servers),
            ..Setup::default()
        },
    )
    .await;
    let events = h.run("delegate").await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{events:?}"
    );
    let tools_of_run = |marker: &str| -> Vec<String> {
        let body = h
            .server
            .requests()
            .iter()
            .map(|r| r.json())
            .find(|b| b["messages"].to_string().contains(marker))
            .unwrap_or_else(|| panic!("no request of {marker}"));
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_string())
            .collect()
    };
    let parent = h.offered_tools(0);
    assert!(parent.contains(&"mcp__fs__write_file".to_string()));
    // explore is read-only: only the tools the user configured read-only.
    let explore = tools_of_run("explore-run");
    assert!(
        explore.contains(&"mcp__fs__read_text_file".to_string()),
        "{explore:?}"
    );
    assert!(
        !explore.contains(&"mcp__fs__write_file".to_string()),
        "{explore:?}"
    );
    assert!(
        !explore.contains(&"mcp__fs__get_file_info".to_string()),
        "{explore:?}"
    );
    // general inherits every tool of its parent.
    let general = tools_of_run("general-run");
    assert!(
        general.contains(&"mcp__fs__write_file".to_string()),
        "{general:?}"
    );
    h.server.assert_no_violations();
}

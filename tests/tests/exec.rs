//! `cairn exec` end to end: the built binary against the loopback mock model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_e2e::{cairn, mock_provider_args, output, texts};
use cairn_mock_model::{MockResponse, MockServer, chat};
use cairn_protocol::{Event, EventMsg};
use serde_json::json;
use std::io::Write;
use std::process::Stdio;

fn dirs() -> (tempfile::TempDir, tempfile::TempDir) {
    (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap())
}

fn plan_args() -> serde_json::Value {
    json!({"explanation": "Roadmap", "plan": [
        {"step": "Read the code", "status": "completed"},
        {"step": "Answer", "status": "in_progress"}
    ]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_streams_the_answer_and_shows_the_plan() {
    let server = MockServer::start(vec![
        MockResponse::sse(chat::tool_calls(&[("call_1", "update_plan", plan_args())])),
        MockResponse::sse(chat::text("There are two files here.")),
    ])
    .await;
    let (home, work) = dirs();
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("exec")
        .args(mock_provider_args(&server.base_url()))
        .arg("list the files here");
    let out = output(cmd).await;
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "stderr: {stderr}");
    assert_eq!(stdout.trim_end(), "There are two files here.");
    assert!(stderr.contains("Updated Plan"), "{stderr}");
    assert!(stderr.contains("✔ Read the code"), "{stderr}");
    assert!(stderr.contains("□ Answer"), "{stderr}");
    let second = server.requests()[1].json();
    let tool = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()
        .clone();
    assert_eq!(tool["content"], "Plan updated");
    server.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_json_writes_only_protocol_events() {
    let server = MockServer::start(vec![
        MockResponse::sse(chat::tool_calls(&[("call_1", "update_plan", plan_args())])),
        MockResponse::sse(chat::text("Done.")),
    ])
    .await;
    let (home, work) = dirs();
    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["exec", "--json"])
        .args(mock_provider_args(&server.base_url()))
        .arg("go");
    let out = output(cmd).await;
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "stderr: {stderr}");
    let events: Vec<Event> = stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not an event: {line:?}: {e}"))
        })
        .collect();
    assert!(matches!(
        events.first().map(|e| &e.msg),
        Some(EventMsg::SessionConfigured(_))
    ));
    assert!(matches!(
        events.last().map(|e| &e.msg),
        Some(EventMsg::TaskComplete { .. })
    ));
    let plan_line = stdout.lines().find(|l| l.contains("plan_update")).unwrap();
    let value: serde_json::Value = serde_json::from_str(plan_line).unwrap();
    assert_eq!(value["msg"]["type"], "plan_update");
    assert_eq!(value["msg"]["plan"][0]["status"], "completed");
    assert_eq!(value["msg"]["explanation"], "Roadmap");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_unauthorized_exits_1_with_a_clear_error() {
    let server = MockServer::start(vec![MockResponse::error(
        401,
        r#"{"error":{"message":"bad key"}}"#,
    )])
    .await;
    let (home, work) = dirs();
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("exec")
        .args(mock_provider_args(&server.base_url()))
        .args(["-c", "providers.mock.env_key=\"MOCK_KEY\""])
        .arg("hi");
    let out = output(cmd).await;
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("401 Unauthorized"), "{stderr}");
    assert!(stderr.contains("MOCK_KEY"), "{stderr}");
    assert_eq!(server.requests().len(), 1, "401 must not be retried");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_connection_refused_is_retried_then_names_the_url_and_the_retries() {
    // Bind then drop a listener to get a port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let (home, work) = dirs();
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("exec")
        .args(mock_provider_args(&url))
        .args(["-c", "providers.mock.request_max_retries=2"])
        .arg("hi");
    let out = output(cmd).await;
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("connection refused"), "{stderr}");
    assert!(stderr.contains(&url), "{stderr}");
    // A local server may be restarting: refused connections are retried like other
    // transient failures, and the final error says so.
    assert!(stderr.contains("Reconnecting... 1/2"), "{stderr}");
    assert!(stderr.contains("Reconnecting... 2/2"), "{stderr}");
    assert!(stderr.contains("Gave up after 2 retries."), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_without_provider_says_how_to_configure_one() {
    let (home, work) = dirs();
    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["exec", "hi"]);
    let out = output(cmd).await;
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("No model provider configured"), "{stderr}");
    assert!(stderr.contains("OPENAI_API_KEY"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_config_file_exits_2_naming_file_line_and_key() {
    let (home, work) = dirs();
    let path = home.path().join("config.toml");
    std::fs::write(&path, "model = \"m\"\n[tools]\nplanning = \"freestyle\"\n").unwrap();
    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["exec", "hi"]);
    let out = output(cmd).await;
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(stderr.contains("line 3"), "{stderr}");
    assert!(stderr.contains("freestyle"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_reads_the_prompt_from_stdin_and_rejects_an_empty_one() {
    let server = MockServer::start(vec![MockResponse::sse(chat::text("ok"))]).await;
    let (home, work) = dirs();
    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["exec", "-"])
        .args(mock_provider_args(&server.base_url()));
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = tokio::task::spawn_blocking(move || {
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"prompt from stdin")
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert!(out.status.success());
    let body = server.requests()[0].json().to_string();
    assert!(body.contains("prompt from stdin"));

    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["exec", "   "]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.contains("the prompt is empty"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_and_help() {
    let (home, work) = dirs();
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("--version");
    let out = output(cmd).await;
    assert!(out.status.success());
    assert!(texts(&out).0.starts_with("cairn "));
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("--help");
    let out = output(cmd).await;
    let (stdout, _) = texts(&out);
    assert!(stdout.contains("exec"), "{stdout}");
    // (`--approve-plan` no longer needs `--plan`: it also approves structured plans under
    // `[tools] require_plan_approval`; see structured_plan_approval.rs.)
    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["exec", "--no-such-flag", "x"]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(2), "bad usage exits 2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_providers_shows_the_choice_and_why() {
    let (home, work) = dirs();
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("--list-providers").env("OPENAI_API_KEY", "sk-test");
    let out = output(cmd).await;
    let (stdout, _) = texts(&out);
    assert!(out.status.success());
    assert!(stdout.contains("OPENAI_API_KEY is set"), "{stdout}");
    assert!(stdout.contains("ollama"), "{stdout}");
}

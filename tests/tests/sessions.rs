//! Sessions that survive: the log `cairn exec` writes, `exec --resume`, `cairn sessions list`,
//! the lock against a second process, and resuming after `kill -9` mid-turn.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_e2e::{cairn, mock_provider_args, output, texts, tool_output};
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

async fn exec(
    server: &MockServer,
    home: &Path,
    work: &Path,
    extra: &[&str],
) -> (i32, String, String) {
    let mut cmd = cairn(home, work);
    cmd.arg("exec")
        .args(mock_provider_args(&server.base_url()))
        .args(extra);
    let out = output(cmd).await;
    let (stdout, stderr) = texts(&out);
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

async fn sessions(home: &Path, work: &Path) -> Vec<Value> {
    let mut cmd = cairn(home, work);
    cmd.args(["sessions", "list", "--json"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{:?}", texts(&out));
    texts(&out)
        .0
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The `messages` of the `n`th request (0-based), as JSON.
fn messages(server: &MockServer, n: usize) -> Vec<Value> {
    server.requests()[n].json()["messages"]
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_resume_continues_the_conversation_with_the_same_history() {
    let server = MockServer::start(vec![
        call("c1", "shell", json!({"command": "echo from-the-first-run"})),
        text("First answer."),
        text("Second answer."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = exec(
        &server,
        home.path(),
        work.path(),
        &["--approval", "never", "first task"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "First answer.");
    let listed = sessions(home.path(), work.path()).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["first_prompt"], "first task");
    assert_eq!(listed[0]["turns"], 1);
    let id = listed[0]["id"].as_str().unwrap().to_string();

    let (code, stdout, stderr) = exec(
        &server,
        home.path(),
        work.path(),
        &["--resume", "last", "second task"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "Second answer.");
    // The resumed request carries the first run's last request and answer, byte for byte,
    // then the new message: a provider's prompt cache still hits.
    let before = messages(&server, 1);
    let after = messages(&server, 2);
    assert_eq!(&after[..before.len()], &before[..]);
    assert_eq!(after[before.len()]["content"], "First answer.");
    assert_eq!(after.last().unwrap()["content"], "second task");
    assert!(tool_output(&server, "c1").contains("from-the-first-run"));
    server.assert_no_violations();

    let listed = sessions(home.path(), work.path()).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["turns"], 2);
    // A unique prefix of the id works too.
    let server2 = MockServer::start(vec![text("Third answer.")]).await;
    let (code, stdout, stderr) = exec(
        &server2,
        home.path(),
        work.path(),
        &["--resume", &id[..13], "third task"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "Third answer.");
    let (code, _, stderr) = exec(
        &server2,
        home.path(),
        work.path(),
        &["--resume", "nope", "x"],
    )
    .await;
    assert_eq!(code, 1);
    assert!(stderr.contains("no session matches `nope`"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn persistence_none_writes_nothing() {
    let server = MockServer::start(vec![text("Done.")]).await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let (code, _, stderr) = exec(
        &server,
        home.path(),
        work.path(),
        &["-c", "history.persistence=\"none\"", "hi"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(!home.path().join("sessions").exists());
}

fn session_file(home: &Path) -> Option<PathBuf> {
    let mut found = None;
    let mut stack = vec![home.join("sessions")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                found = Some(path);
            }
        }
    }
    found
}

/// Wait (bounded) until `check` holds.
async fn until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_open_elsewhere_is_refused_and_a_killed_one_resumes_repaired() {
    let server = MockServer::start(vec![
        call("slow", "shell", json!({"command": "sleep 30"})),
        text("Carrying on."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut first = cairn(home.path(), work.path());
    first
        .arg("exec")
        .args(mock_provider_args(&server.base_url()))
        .args(["--approval", "never", "start something slow"]);
    let mut child = first.spawn().unwrap();
    until("the call to be logged", || {
        session_file(home.path())
            .and_then(|p| std::fs::read_to_string(p).ok())
            .is_some_and(|t| t.contains("\"call_id\":\"slow\""))
    })
    .await;

    // A second process may not append to the same session.
    let (code, _, stderr) = exec(
        &server,
        home.path(),
        work.path(),
        &["--resume", "last", "x"],
    )
    .await;
    assert_eq!(code, 1);
    assert!(
        stderr.contains("is open in another cairn process (pid"),
        "{stderr}"
    );
    assert!(stderr.contains(&child.id().to_string()), "{stderr}");

    // kill -9 mid-call, and a torn line as a crash mid-write leaves.
    child.kill().unwrap();
    child.wait().unwrap();
    let path = session_file(home.path()).unwrap();
    let mut log = std::fs::read_to_string(&path).unwrap();
    log.push_str("{\"type\":\"item\",\"item\":{\"type\":\"mess");
    std::fs::write(&path, log).unwrap();

    let (code, stdout, stderr) = exec(
        &server,
        home.path(),
        work.path(),
        &["--resume", "last", "go on"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "Carrying on.");
    assert!(
        stderr.contains("was cut off"),
        "the torn line is reported: {stderr}"
    );
    // The orphan call got an output before the next request: the validator is satisfied.
    server.assert_no_violations();
    let output = tool_output(&server, "slow");
    assert!(output.contains("interrupted"), "{output}");
    // And the repaired log reads back cleanly after the resumed run.
    let log = std::fs::read_to_string(&path).unwrap();
    assert!(log.ends_with('\n'));
}

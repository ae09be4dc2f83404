//! `cairn exec` with tools that change the workspace, and with plan mode.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_e2e::{cairn, mock_provider_args, output, plan_path_from, texts, tool_output};
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use serde_json::{Value, json};
use std::path::Path;

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_never_creates_edits_patches_deletes_and_runs() {
    let patch = "*** Begin Patch\n*** Add File: added.txt\n+added by patch\n*** Update File: notes.txt\n@@\n-first draft\n+second draft\n*** Delete File: old.txt\n*** End Patch\n";
    let server = MockServer::start(vec![
        call("w", "write_file", json!({"path": "notes.txt", "content": "first draft\n"})),
        call("e_bad", "edit_file", json!({"path": "notes.txt", "old_string": "frist draft", "new_string": "x"})),
        call("e", "edit_file", json!({"path": "notes.txt", "old_string": "first draft", "new_string": "first draft, edited"})),
        call("e2", "edit_file", json!({"path": "notes.txt", "old_string": "first draft, edited", "new_string": "first draft"})),
        call("p", "apply_patch", json!({"input": patch})),
        call("s", "shell", json!({"command": "cat notes.txt added.txt; echo exit-ok"})),
        text("All done."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("old.txt"), "remove me\n").unwrap();
    let (code, stdout, stderr) = exec(
        &server,
        home.path(),
        work.path(),
        &["--approval", "never", "do it all"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "All done.");
    let missing = tool_output(&server, "e_bad");
    assert!(
        missing.contains("first draft"),
        "absent old_string should show the closest line: {missing}"
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("notes.txt")).unwrap(),
        "second draft\n"
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("added.txt")).unwrap(),
        "added by patch\n"
    );
    assert!(!work.path().join("old.txt").exists());
    let shell = tool_output(&server, "s");
    assert!(
        shell.contains("second draft") && shell.contains("exit-ok"),
        "{shell}"
    );
    server.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untrusted_exec_denies_and_tells_the_model() {
    let server = MockServer::start(vec![
        call("s", "shell", json!({"command": "touch should-not-exist"})),
        text("I could not run it."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let (code, _, stderr) = exec(
        &server,
        home.path(),
        work.path(),
        &["--approval", "untrusted", "touch it"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(!work.path().join("should-not-exist").exists());
    assert!(tool_output(&server, "s").contains("--approval never"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_plan_stops_at_the_plan_and_changes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("lib.rs"), "fn a() {}\n").unwrap();
    // First the model tries to edit a source file (refused), then writes the plan.
    let server = MockServer::start(vec![call(
        "bad",
        "edit_file",
        json!({"path": "lib.rs", "old_string": "a", "new_string": "b"}),
    )])
    .await;
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("exec")
        .args(mock_provider_args(&server.base_url()))
        .args(["--plan", "rename a to b"]);
    let handle = tokio::task::spawn_blocking(move || cmd.output().unwrap());
    let plan_path = plan_path_from(&server.wait_for_requests(1).await[0]);
    server.push(call(
        "w",
        "write_file",
        json!({"path": plan_path, "content": "# Rename\n\n1. Rename a to b in lib.rs\n"}),
    ));
    server.push(call("x", "exit_plan_mode", json!({})));
    let out = handle.await.unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("1. Rename a to b in lib.rs"),
        "the plan is printed: {stdout}"
    );
    assert!(tool_output(&server, "bad").contains("is not allowed in plan mode"));
    assert_eq!(
        std::fs::read_to_string(work.path().join("lib.rs")).unwrap(),
        "fn a() {}\n"
    );
    assert!(Path::new(&plan_path).exists());

    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["plans", "list", "--json"]);
    let listed: Value = serde_json::from_slice(&output(cmd).await.stdout).unwrap();
    let entry = &listed.as_array().unwrap()[0];
    assert_eq!(entry["status"], "draft");
    assert_eq!(entry["title"], "Rename");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_plan_with_approve_plan_implements_it() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("lib.rs"), "fn a() {}\n").unwrap();
    let server = MockServer::start(vec![call("r", "read_file", json!({"path": "lib.rs"}))]).await;
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("exec")
        .args(mock_provider_args(&server.base_url()))
        .args(["--plan", "--approve-plan", "rename a to b"]);
    let handle = tokio::task::spawn_blocking(move || cmd.output().unwrap());
    let plan_path = plan_path_from(&server.wait_for_requests(1).await[0]);
    server.push(call(
        "w",
        "write_file",
        json!({"path": plan_path, "content": "# Rename\n\n1. Rename a to b\n"}),
    ));
    server.push(call("x", "exit_plan_mode", json!({})));
    server.push(call(
        "e",
        "edit_file",
        json!({"path": "lib.rs", "old_string": "fn a", "new_string": "fn b"}),
    ));
    server.push(text("Renamed."));
    let out = handle.await.unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("Renamed."), "{stdout}");
    assert_eq!(
        tool_output(&server, "x"),
        "Plan approved. You can now start implementing the plan."
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("lib.rs")).unwrap(),
        "fn b() {}\n"
    );
    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["plans", "list", "--json"]);
    let listed: Value = serde_json::from_slice(&output(cmd).await.stdout).unwrap();
    assert_eq!(listed[0]["status"], "approved");
    server.assert_no_violations();
}

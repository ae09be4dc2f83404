//! `/plan review` and `!cmd` in the real binary, in a pseudo-terminal, against the loopback
//! mock model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// Not every helper of the harness is used here.
#[allow(dead_code)]
mod pty;

use cairn_e2e::{mock_provider_args, plan_path_from};
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use pty::Tui;
use serde_json::json;

const REVIEW_FOOTER: &str = "[Enter] Approve  [Esc] Reject  [↑↓] Scroll  [e] Edit  [f] Feedback";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_closed_by_an_interrupt_reopens_with_plan_review_and_approval_implements() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("lib.rs"), "fn a() {}\n").unwrap();
    let server = MockServer::start(vec![call("r", "read_file", json!({"path": "lib.rs"}))]).await;
    let mut tui = Tui::start(
        home.path(),
        work.path(),
        &mock_provider_args(&server.base_url()),
    );
    tui.wait_for_text("Ask cairn anything").await;
    tui.submit("/plan rename a to b");
    tui.wait_for_text(" PLAN MODE ").await;
    let plan_path = plan_path_from(&server.wait_for_requests(1).await[0]);
    server.push(call(
        "w",
        "write_file",
        json!({"path": plan_path, "content": "# Rename a to b\n\n1. Rename it\n"}),
    ));
    server.push(call("x", "exit_plan_mode", json!({})));
    tui.wait_for_text(REVIEW_FOOTER).await;

    tui.send("\x03"); // Ctrl+C interrupts the turn, and the review closes with it.
    let screen = tui
        .wait_for_text("Type /plan review to open it again.")
        .await;
    assert!(!screen.contains(REVIEW_FOOTER), "{screen}");
    assert!(screen.contains(" PLAN MODE "), "{screen}");

    tui.submit("/plan review");
    let review = tui.wait_for_text(REVIEW_FOOTER).await;
    assert!(review.contains("Rename a to b"), "{review}");
    server.push(call(
        "e",
        "edit_file",
        json!({"path": "lib.rs", "old_string": "fn a", "new_string": "fn b"}),
    ));
    server.push(text("Renamed a to b."));
    tui.send("\r");
    let screen = tui.wait_for_text("Renamed a to b.").await;
    assert!(screen.contains("Plan approved."), "{screen}");
    assert!(!screen.contains(" PLAN MODE "), "{screen}");
    assert_eq!(
        std::fs::read_to_string(work.path().join("lib.rs")).unwrap(),
        "fn b() {}\n"
    );
    let told = server.requests().last().unwrap().json().to_string();
    assert!(
        told.contains("Plan approved. You can now start implementing the plan."),
        "{told}"
    );
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bang_command_runs_in_the_workspace_and_the_model_sees_its_output() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("note.txt"), "a-note-from-the-user\n").unwrap();
    let server = MockServer::start(vec![text("The note says hello.")]).await;
    let mut tui = Tui::start(
        home.path(),
        work.path(),
        &mock_provider_args(&server.base_url()),
    );
    tui.wait_for_text("Ask cairn anything").await;
    tui.submit("!cat note.txt");
    let screen = tui.wait_for_text("Ran `cat note.txt`").await;
    assert!(screen.contains("a-note-from-the-user"), "{screen}");
    assert!(server.requests().is_empty(), "a ! command asks no model");
    tui.submit("what does the note say?");
    tui.wait_for_text("The note says hello.").await;
    let sent = server.requests()[0].json().to_string();
    assert!(sent.contains("<user_shell_command>"), "{sent}");
    assert!(sent.contains("a-note-from-the-user"), "{sent}");
    tui.quit().await;
}

//! `@file` completion in the real TUI: typing `@` and a query in a temporary workspace opens
//! the popup with its files, and Down + Tab puts the chosen path in the composer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// This file uses only part of the harness (it never resizes).
#[allow(dead_code)]
mod pty;

use cairn_e2e::mock_provider_args;
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::text_response as text;
use pty::Tui;
use std::time::Duration;

/// Type `text` a key at a time at a person's pace: keys closer than a few milliseconds are
/// taken for a paste, which never opens the popup.
async fn type_slowly(tui: &mut Tui, text: &str) {
    for c in text.chars() {
        tui.send(&c.to_string());
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_query_completes_a_workspace_path_in_the_composer() {
    let server = MockServer::start(vec![text("Read it.")]).await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    for path in [
        "Makefile",
        "src/main.rs",
        "docs/manual.md",
        "target/mainframe",
    ] {
        let path = work.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }
    std::fs::write(work.path().join(".gitignore"), "target/\n").unwrap();
    let mut tui = Tui::start(
        home.path(),
        work.path(),
        &mock_provider_args(&server.base_url()),
    );
    tui.wait_for_text("Ask cairn anything").await;
    tui.wait_for_text("mock/").await;
    type_slowly(&mut tui, "look at @ma").await;
    let popup = tui.wait_for_text("docs/manual.md").await;
    assert!(popup.contains("› Makefile"), "best first: {popup}");
    assert!(popup.contains("  src/main.rs"), "{popup}");
    assert!(!popup.contains("mainframe"), "gitignored: {popup}");
    tui.send("\x1b[B");
    tokio::time::sleep(Duration::from_millis(40)).await;
    tui.send("\t");
    let completed = tui.wait_for_text("› look at src/main.rs").await;
    assert!(
        !completed.contains("Makefile"),
        "the popup closed: {completed}"
    );
    tokio::time::sleep(Duration::from_millis(40)).await;
    tui.submit("please");
    tui.wait_for_text("Read it.").await;
    let turn = server
        .requests()
        .into_iter()
        .find(|r| r.method == "POST")
        .expect("the message was sent");
    let body = turn.json().to_string();
    assert!(body.contains("look at src/main.rs please"), "{body}");
    server.assert_no_violations();
    tui.quit().await;
}

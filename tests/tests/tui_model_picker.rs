//! `/model` in the real TUI against the mock model: the picker lists the server's models, one
//! is chosen, and the next message goes out with its id.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// This file uses only part of the harness (it never resizes).
#[allow(dead_code)]
mod pty;

use cairn_e2e::mock_provider_args;
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::text_response as text;
use pty::Tui;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_model_picks_a_listed_model_and_the_next_request_uses_it() {
    let server = MockServer::start(vec![text("Answered by the new model.")]).await;
    server.set_models(["gpt-5.1-mini", "qwen3-coder:30b"]);
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut tui = Tui::start(
        home.path(),
        work.path(),
        &mock_provider_args(&server.base_url()),
    );
    tui.wait_for_text("Ask cairn anything").await;
    tui.wait_for_text("mock/").await;
    tui.submit("/model");
    let picker = tui.wait_for_text("qwen3-coder:30b").await;
    assert!(picker.contains("Switch model"), "{picker}");
    assert!(picker.contains("gpt-5.1-mini"), "{picker}");
    assert!(picker.contains("● current"), "{picker}");
    tui.send("qwen");
    tui.wait_for_text("1 of 3").await;
    tokio::time::sleep(Duration::from_millis(40)).await;
    tui.send("\r");
    let switched = tui.wait_for_text("mock/qwen3-coder:30b").await;
    assert!(
        !switched.contains("Switch model"),
        "the picker closed: {switched}"
    );
    tui.submit("hello");
    tui.wait_for_text("Answered by the new model.").await;
    let requests = server.requests();
    assert!(
        requests
            .iter()
            .any(|r| r.method == "GET" && r.path == "/v1/models"),
        "the picker asked the server: {requests:?}"
    );
    let turn = requests
        .iter()
        .find(|r| r.method == "POST")
        .expect("the message was sent");
    assert_eq!(turn.json()["model"], "qwen3-coder:30b");
    server.assert_no_violations();
    tui.quit().await;
}

//! The same multi-tool scenario through `cairn exec` over each wire format.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_e2e::{cairn, output, texts};
use cairn_mock_model::{MockResponse, MockServer, anthropic, chat, responses};
use serde_json::{Value, json};

/// (call id, tool, arguments) of the scenario: plan, read, list, write, plan again.
fn scenario() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        (
            "c1",
            "update_plan",
            json!({"plan": [
                {"step": "Read the notes", "status": "in_progress"},
                {"step": "Write the summary", "status": "pending"}
            ]}),
        ),
        ("c2", "read_file", json!({"path": "notes.txt"})),
        ("c3", "list_dir", json!({})),
        (
            "c4",
            "write_file",
            json!({"path": "summary.txt", "content": "two notes\n"}),
        ),
        (
            "c5",
            "update_plan",
            json!({"plan": [
                {"step": "Read the notes", "status": "completed"},
                {"step": "Write the summary", "status": "completed"}
            ]}),
        ),
    ]
}

fn script(wire: &str) -> Vec<MockResponse> {
    let mut out: Vec<MockResponse> = scenario()
        .into_iter()
        .map(|(id, name, args)| {
            MockResponse::sse(match wire {
                "chat" => chat::tool_calls(&[(id, name, args)]),
                "responses" => responses::function_calls(&[(id, name, args)]),
                _ => anthropic::tool_uses(&[(id, name, args)]),
            })
        })
        .collect();
    out.push(MockResponse::sse(match wire {
        "chat" => chat::text("Summary written."),
        "responses" => responses::text("Summary written."),
        _ => anthropic::text("Summary written."),
    }));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_scenario_completes_over_every_wire_format() {
    for wire in ["chat", "responses", "anthropic"] {
        let server = MockServer::start(script(wire)).await;
        let home = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        std::fs::write(work.path().join("notes.txt"), "note one\nnote two\n").unwrap();
        let mut cmd = cairn(home.path(), work.path());
        cmd.args(["exec", "--approval", "never", "-c", "provider=\"mock\""])
            .arg("-c")
            .arg(format!("providers.mock.base_url=\"{}\"", server.base_url()))
            .arg("-c")
            .arg(format!("providers.mock.wire_api=\"{wire}\""))
            .arg("summarise the notes");
        let out = output(cmd).await;
        let (stdout, stderr) = texts(&out);
        assert!(out.status.success(), "{wire}: {stderr}");
        assert_eq!(stdout.trim(), "Summary written.", "{wire}");
        assert!(stderr.contains("✔ Write the summary"), "{wire}: {stderr}");
        assert_eq!(
            std::fs::read_to_string(work.path().join("summary.txt")).unwrap(),
            "two notes\n",
            "{wire}"
        );
        let requests = server.requests();
        assert_eq!(requests.len(), 6, "{wire}");
        // The file's content reached the model in the request after read_file.
        assert!(requests[2].body_text().contains("note two"), "{wire}");
        server.assert_no_violations();
    }
}

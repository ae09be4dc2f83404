//! Delegation through the real binary: a scripted parent delegates a batch of two explore runs
//! to a scripted child model (its own provider) and answers with their findings.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_e2e::{cairn, mock_provider_args, output, texts, tool_output};
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_delegates_a_batch_of_explore_runs_to_a_child_model_and_uses_their_findings() {
    let parent = MockServer::start(vec![
        call(
            "d",
            "delegate_agent",
            json!({"batch": [
                {"agent_id": "explore", "prompt": "Where is the config loaded?"},
                {"agent_id": "explore", "prompt": "Where are errors printed?"}
            ]}),
        ),
        text("The config is loaded in config.rs and errors are printed in main.rs."),
    ])
    .await;
    let child = MockServer::start(vec![
        call("r", "read_file", json!({"path": "notes.txt"})),
        text("Finding: see notes.txt."),
        text("Finding: nothing else."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        work.path().join("notes.txt"),
        "config.rs loads; main.rs prints\n",
    )
    .unwrap();
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("exec")
        .args(mock_provider_args(&parent.base_url()))
        .args([
            "-c",
            "multi_agent.agents.explore.provider=\"child\"",
            "-c",
            &format!("providers.child.base_url=\"{}\"", child.base_url()),
            "-c",
            "providers.child.wire_api=\"chat\"",
            "--json",
            "find things out",
        ]);
    let out = output(cmd).await;
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["msg"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types.iter().filter(|t| **t == "delegate_started").count(),
        2
    );
    assert_eq!(
        types.iter().filter(|t| **t == "delegate_completed").count(),
        2
    );
    // The child's read was reported, tagged with its run.
    assert!(events.iter().any(|e| e["msg"]["type"] == "delegate_event"
        && e["msg"]["event"]["type"] == "tool_call_end"
        && e["msg"]["event"]["name"] == "read_file"));
    // Both findings reached the parent model in the call's result.
    let result: Value = serde_json::from_str(&tool_output(&parent, "d")).unwrap();
    assert_eq!(result["status"], "ok");
    let mut summaries: Vec<&str> = result["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["summary"].as_str().unwrap())
        .collect();
    summaries.sort();
    assert_eq!(
        summaries,
        ["Finding: nothing else.", "Finding: see notes.txt."]
    );
    // The children talked to the child model only, with read-only tools.
    assert_eq!(parent.requests().len(), 2);
    assert_eq!(child.requests().len(), 3);
    for request in child.requests() {
        // By name: descriptions may mention other tools.
        let names: Vec<String> = request.json()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_string())
            .collect();
        // No editing tool; the shell, where offered, runs read-only commands under the
        // read-only sandbox (see docs/sandbox.md).
        assert!(
            !names
                .iter()
                .any(|n| ["write_file", "edit_file", "apply_patch"].contains(&n.as_str())),
            "{names:?}"
        );
    }
    parent.assert_no_violations();
    child.assert_no_violations();
    let last = events.last().unwrap();
    assert_eq!(last["msg"]["type"], "task_complete");
}

//! `[tools] require_plan_approval` in `cairn exec`: `--approve-plan` approves the structured
//! plan and the model works on it; without it the call is refused with how to allow it and
//! the plan stays a draft.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_e2e::{cairn, mock_provider_args, output, texts, tool_output};
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use serde_json::json;

async fn run(extra: &[&str]) -> (MockServer, String, String, tempfile::TempDir, bool) {
    let server = MockServer::start(vec![
        call(
            "p",
            "create_plan",
            json!({"goal": "Rename a to b", "steps": [
                {"step_number": 1, "description": "Rename the function"},
                {"step_number": 2, "description": "Run the tests", "is_verification": true}
            ]}),
        ),
        call(
            "s",
            "update_plan",
            json!({"action": "start_step", "step_number": 1}),
        ),
        text("finished"),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("exec")
        .args(mock_provider_args(&server.base_url()))
        .args([
            "-c",
            "tools.planning=\"structured\"",
            "-c",
            "tools.require_plan_approval=true",
        ])
        .args(extra)
        .arg("rename a to b");
    let out = output(cmd).await;
    let (stdout, stderr) = texts(&out);
    let ok = out.status.success();
    (server, stdout, stderr, home, ok)
}

fn plan_status(home: &std::path::Path) -> String {
    let mut cmd = std::process::Command::new(cairn_e2e::cairn_bin());
    cmd.env("CAIRN_HOME", home).args(["plans", "list"]);
    String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_approve_plan_the_plan_is_approved_and_worked_on() {
    let (server, _, stderr, home, ok) = run(&["--approve-plan"]).await;
    assert!(ok, "{stderr}");
    assert!(stderr.contains("Plan for review"), "{stderr}");
    assert!(
        stderr.contains("Plan approved (--approve-plan)."),
        "{stderr}"
    );
    let created = tool_output(&server, "p");
    assert!(
        created.contains("The user approved plan plan-"),
        "{created}"
    );
    assert!(tool_output(&server, "s").contains("**Step 1**: Started"));
    let listing = plan_status(home.path());
    assert!(listing.contains("in_progress"), "{listing}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_approve_plan_the_call_is_denied_with_how_to_allow_it() {
    let (server, _, stderr, home, ok) = run(&["--json"]).await;
    assert!(ok, "{stderr}");
    let created = tool_output(&server, "p");
    assert!(
        created.contains("no user is available to approve it (cairn exec)"),
        "{created}"
    );
    assert!(created.contains("--approve-plan"), "{created}");
    assert!(created.contains("require_plan_approval"), "{created}");
    let refused = tool_output(&server, "s");
    assert!(
        refused.contains("is a draft the user has not approved"),
        "{refused}"
    );
    let listing = plan_status(home.path());
    assert!(listing.contains("draft"), "{listing}");
}

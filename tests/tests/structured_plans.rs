//! Structured planning end to end: a scripted model drives create_plan / update_plan /
//! complete_plan through `cairn exec`, and `cairn plans` shows the stored result.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_core::plans::document::render_body;
use cairn_e2e::{cairn, mock_provider_args, output, texts};
use cairn_mock_model::chat::call_response as call;
use cairn_mock_model::{MockResponse, MockServer, chat};
use cairn_protocol::{
    CompletionStatus, Event, EventMsg, Plan, PlanStatus, PlanStep, PlanStepStatus,
};
use serde_json::{Value, json};

fn step(number: u32, text: &str, status: PlanStepStatus) -> PlanStep {
    PlanStep {
        number: Some(number),
        ..PlanStep::new(text, status)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_plan_lifecycle_is_stored_and_listed() {
    let mut revised = Plan {
        title: Some("Add retries".into()),
        plan: vec![
            step(1, "Write a failing test", PlanStepStatus::Completed),
            step(2, "Implement retries", PlanStepStatus::Failed),
            step(3, "Update the docs", PlanStepStatus::Skipped),
            step(4, "Retry with backoff instead", PlanStepStatus::Pending),
        ],
        ..Plan::default()
    };
    revised.plan[0].result = Some("fails as expected".into());
    revised.plan[1].reason = Some("the client has no hook".into());
    revised.plan[2].reason = Some("nothing user-visible changed".into());

    let server = MockServer::start(vec![
        call("c1", "create_plan", json!({"goal": "Add retries", "steps": [
            {"step_number": 1, "description": "Write a failing test"},
            {"step_number": 2, "description": "Implement retries", "depends_on": [1]},
            {"step_number": 3, "description": "Update the docs", "is_verification": false}
        ], "verification_approach": "cargo test"})),
        call("c2", "update_plan", json!({"action": "start_step", "step_number": 1})),
        call("c3", "update_plan", json!({"action": "complete_step", "step_number": 1, "result": "fails as expected"})),
        call("c4", "update_plan", json!({"action": "fail_step", "step_number": 2, "reason": "the client has no hook"})),
        call("c5", "update_plan", json!({"action": "skip_step", "step_number": 3, "reason": "nothing user-visible changed"})),
        call("c6", "update_plan", json!({"action": "revise", "description": "add a step to retry with backoff"})),
        // The revise action's own model call answers with the whole revised document.
        MockResponse::sse(chat::text(&render_body(&revised))),
        call("c7", "complete_plan", json!({"status": "partial_success", "summary": "Test written; retries need a hook", "steps_completed": 1, "steps_failed": 1, "steps_skipped": 1})),
        MockResponse::sse(chat::text("Done.")),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["exec", "--json", "-c", "tools.planning=\"structured\""])
        .args(mock_provider_args(&server.base_url()))
        .arg("add retries");
    let out = output(cmd).await;
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "stderr: {stderr}\nstdout: {stdout}");
    server.assert_no_violations();

    let plans: Vec<Plan> = stdout
        .lines()
        .map(|l| serde_json::from_str::<Event>(l).unwrap())
        .filter_map(|e| match e.msg {
            EventMsg::PlanUpdate(plan) => Some(plan),
            _ => None,
        })
        .collect();
    assert_eq!(plans.len(), 7, "one plan_update per change");
    let last = plans.last().unwrap();
    let id = last.id.clone().expect("structured plans carry an id");
    assert_eq!(last.plan.len(), 4);
    assert_eq!(last.plan[3].step, "Retry with backoff instead");
    assert_eq!(
        last.completion.as_ref().unwrap().status,
        CompletionStatus::PartialSuccess
    );
    // The stored status follows complete_plan's status.
    assert_eq!(last.status, Some(PlanStatus::PartialSuccess));
    assert_eq!(last.progress(), (1, 4), "only completed steps are done");

    // Exact tool texts reached the model.
    let body = |i: usize| server.requests()[i].json().to_string();
    assert!(body(2).contains("**Step 1**: Started"));
    assert!(body(3).contains("**Step 1**: Completed\\nResult: fails as expected"));
    assert!(body(4).contains("**Step 2**: Failed\\nReason: the client has no hook"));
    assert!(body(5).contains("**Step 3**: Skipped"));
    assert!(body(1).contains("## Execution Plan Created"));

    // `cairn plans list` and `show` read the same stored document.
    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["plans", "list", "--json"]);
    let listed: Value = serde_json::from_slice(&output(cmd).await.stdout).unwrap();
    let entry = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id.as_str())
        .unwrap();
    assert_eq!(entry["title"], "Add retries");
    assert_eq!(entry["status"], "partial_success");
    assert_eq!(
        (entry["done"].as_u64(), entry["total"].as_u64()),
        (Some(1), Some(4)),
        "failed and skipped steps are not done"
    );
    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["plans", "list"]);
    let (table, _) = texts(&output(cmd).await);
    let row = table
        .lines()
        .find(|l| l.contains("Add retries"))
        .unwrap_or_else(|| panic!("no row in:\n{table}"));
    assert!(
        row.contains("partial_success") && row.contains("1/4"),
        "{row}"
    );

    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["plans", "show", &id[..id.len() - 2]]);
    let out = output(cmd).await;
    let (shown, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    for needle in [
        "- [x] 1. Write a failing test",
        "- [!] 2. Implement retries",
        "- [-] 3. Update the docs",
        "- [ ] 4. Retry with backoff instead",
    ] {
        assert!(shown.contains(needle), "missing {needle:?} in:\n{shown}");
    }

    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["plans", "show", "no-such-plan"]);
    let out = output(cmd).await;
    assert_eq!(out.status.code(), Some(1));
}

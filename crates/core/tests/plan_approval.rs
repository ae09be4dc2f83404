//! Structured plan approval through the protocol (`[tools] require_plan_approval`): the plan
//! waits for `plan_approval`; approval marks it approved, rejection keeps it a draft with the
//! user's feedback, and a draft's steps cannot be worked on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_core::Config;
use cairn_core::config::PlanningStyle;
use cairn_core::plans::PlanStore;
use cairn_mock_model::chat;
use cairn_protocol::{EventMsg, Op, PlanStatus};
use common::{Harness, Setup, start_with};
use serde_json::json;

fn require_approval(config: &mut Config) {
    config.require_plan_approval = true;
}

async fn harness(interactive: bool) -> Harness {
    start_with(
        vec![],
        Setup {
            planning: PlanningStyle::Structured,
            interactive,
            configure: Some(require_approval),
            ..Setup::default()
        },
    )
    .await
}

fn create_call() -> cairn_mock_model::MockResponse {
    chat::call_response(
        "p",
        "create_plan",
        json!({"goal": "Ship it", "steps": [
            {"step_number": 1, "description": "Write the code"},
            {"step_number": 2, "description": "Run the tests", "is_verification": true}
        ]}),
    )
}

/// Run until the plan approval request; returns (call_id, plan_id, content).
async fn until_request(h: &mut Harness) -> (String, String, String) {
    let events = h
        .until(|m| matches!(m, EventMsg::PlanApprovalRequest { .. }))
        .await;
    let Some(EventMsg::PlanApprovalRequest {
        call_id,
        plan_id,
        plan_content,
        plan_file_path,
    }) = events.last().cloned()
    else {
        unreachable!()
    };
    assert!(plan_file_path.ends_with(format!("{plan_id}.md")));
    (call_id, plan_id, plan_content)
}

fn status(h: &Harness, id: &str) -> PlanStatus {
    PlanStore::in_home(h.home.path()).load(id).unwrap().status()
}

#[tokio::test]
async fn an_approved_plan_is_marked_approved_before_the_model_hears_back() {
    let mut h = harness(true).await;
    h.server.push(create_call());
    h.server.push(chat::call_response(
        "s",
        "update_plan",
        json!({"action": "start_step", "step_number": 1}),
    ));
    h.server.push(chat::text_response("Started."));
    h.session.submit(Op::UserInput {
        text: "plan it".into(),
    });
    let (call_id, plan_id, content) = until_request(&mut h).await;
    assert!(
        content.contains("Write the code") && content.contains("Run the tests"),
        "{content}"
    );
    // Nothing went back to the model yet, and the plan is a draft.
    assert_eq!(h.server.requests().len(), 1);
    assert_eq!(status(&h, &plan_id), PlanStatus::Draft);
    h.session.submit(Op::PlanApproval {
        call_id,
        approved: true,
        feedback: None,
    });
    let end = h.until_task_end().await;
    assert!(
        matches!(end.last(), Some(EventMsg::TaskComplete { .. })),
        "{end:?}"
    );
    let out = h.tool_output(1, "p");
    assert!(out.contains("Plan is ready."), "{out}");
    assert!(
        out.ends_with(&format!(
            "The user approved plan {plan_id}. Work on it now."
        )),
        "{out}"
    );
    assert!(h.tool_output(2, "s").contains("**Step 1**: Started"));
    assert_eq!(status(&h, &plan_id), PlanStatus::InProgress);
    h.server.assert_no_violations();
}

#[tokio::test]
async fn a_rejected_plan_stays_a_draft_and_its_steps_cannot_start() {
    let mut h = harness(true).await;
    h.server.push(create_call());
    h.server.push(chat::call_response(
        "s",
        "update_plan",
        json!({"action": "start_step", "step_number": 1}),
    ));
    h.server.push(chat::text_response("I will revise it."));
    h.session.submit(Op::UserInput {
        text: "plan it".into(),
    });
    let (call_id, plan_id, _) = until_request(&mut h).await;
    h.session.submit(Op::PlanApproval {
        call_id,
        approved: false,
        feedback: Some("Add a migration step first".into()),
    });
    h.until_task_end().await;
    let out = h.tool_output(1, "p");
    assert!(
        out.contains("Plan is a draft: the user did not approve it."),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "The user rejected plan {plan_id}; it stays a draft"
        )),
        "{out}"
    );
    assert!(
        out.ends_with("User feedback: Add a migration step first"),
        "{out}"
    );
    let refused = h.tool_output(2, "s");
    assert!(
        refused.contains("is a draft the user has not approved"),
        "{refused}"
    );
    assert_eq!(status(&h, &plan_id), PlanStatus::Draft);
}

#[tokio::test]
async fn an_edit_made_during_review_reaches_the_model() {
    let mut h = harness(true).await;
    h.server.push(create_call());
    h.server.push(chat::text_response("Following your plan."));
    h.session.submit(Op::UserInput {
        text: "plan it".into(),
    });
    let (call_id, plan_id, _) = until_request(&mut h).await;
    // What `e` does: the user changes the document in an editor.
    let path = PlanStore::in_home(h.home.path()).path_of(&plan_id);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("Write the code", "Write the code behind a flag"),
    )
    .unwrap();
    h.session.submit(Op::PlanApproval {
        call_id,
        approved: true,
        feedback: None,
    });
    h.until_task_end().await;
    let out = h.tool_output(1, "p");
    assert!(
        out.contains("The user edited the plan before approving it"),
        "{out}"
    );
    assert!(
        out.contains("+1. [ ] Write the code behind a flag")
            || out.contains("Write the code behind a flag"),
        "{out}"
    );
    assert_eq!(status(&h, &plan_id), PlanStatus::Approved);
}

#[tokio::test]
async fn headless_without_approval_the_plan_is_refused_with_how_to_allow_it() {
    let mut h = harness(false).await;
    h.server.push(create_call());
    h.server.push(chat::text_response("Here is the plan."));
    h.session.submit(Op::UserInput {
        text: "plan it".into(),
    });
    let (call_id, plan_id, _) = until_request(&mut h).await;
    // What `cairn exec` without --approve-plan answers.
    h.session.submit(Op::PlanApproval {
        call_id,
        approved: false,
        feedback: None,
    });
    h.until_task_end().await;
    let out = h.tool_output(1, "p");
    assert!(
        out.contains("no user is available to approve it (cairn exec)"),
        "{out}"
    );
    assert!(out.contains("--approve-plan"), "{out}");
    assert_eq!(status(&h, &plan_id), PlanStatus::Draft);
}

#[tokio::test]
async fn without_the_setting_create_plan_does_not_wait() {
    let mut h = start_with(
        vec![],
        Setup {
            planning: PlanningStyle::Structured,
            ..Setup::default()
        },
    )
    .await;
    h.server.push(create_call());
    h.server.push(chat::text_response("ok"));
    let events = h.run("plan it").await;
    assert_eq!(
        common::count(&events, |m| matches!(
            m,
            EventMsg::PlanApprovalRequest { .. }
        )),
        0
    );
}

//! `/plan review`: a review closed by an interrupt can be put to the user again, and the
//! user's decision reaches the model as exit_plan_mode's answer would have.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_core::plans::PlanStore;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use cairn_protocol::{EventMsg, Op, PlanStatus, TurnAbortReason};
use common::{Harness, start};
use serde_json::json;
use std::path::Path;

const PLAN: &str = "# Plan\n\n1. Change answer to 43\n";

/// The model writes the plan and asks for approval; the user interrupts the review.
async fn plan_then_interrupt(h: &mut Harness, plan: &Path) {
    std::fs::create_dir_all(h.cwd().join("src")).unwrap();
    std::fs::write(
        h.cwd().join("src/lib.rs"),
        "pub fn answer() -> u32 { 42 }\n",
    )
    .unwrap();
    h.server.push(call(
        "w",
        "write_file",
        json!({"path": plan, "content": PLAN}),
    ));
    h.server.push(call("x", "exit_plan_mode", json!({})));
    h.session.submit(Op::UserInput {
        text: "plan the change".into(),
    });
    h.until(|e| matches!(e, EventMsg::PlanModeExitRequest { .. }))
        .await;
    h.session.submit(Op::Interrupt);
    let events = h.until_task_end().await;
    assert_eq!(
        events.last(),
        Some(&EventMsg::TurnAborted {
            reason: TurnAbortReason::Interrupted
        })
    );
}

/// Ask for the review again; returns the request the user is shown.
async fn reopen(h: &mut Harness) -> EventMsg {
    h.session.submit(Op::ReviewPlan);
    let events = h
        .until(|e| {
            matches!(
                e,
                EventMsg::PlanModeExitRequest { .. } | EventMsg::Error { .. }
            )
        })
        .await;
    events.last().cloned().unwrap()
}

async fn error_of(h: &mut Harness, op: Op) -> String {
    h.session.submit(op);
    match h
        .until(|e| matches!(e, EventMsg::Error { .. }))
        .await
        .last()
    {
        Some(EventMsg::Error { message }) => message.clone(),
        other => panic!("expected an error, got {other:?}"),
    }
}

/// The user messages of request `index` (Chat format).
fn user_messages(h: &Harness, index: usize) -> Vec<String> {
    h.server.requests()[index].json()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn an_interrupted_review_reopens_and_approval_starts_the_implementation() {
    let mut h = start(vec![]).await;
    let plan = h.enter_plan_mode().await;
    plan_then_interrupt(&mut h, &plan).await;

    assert_eq!(
        reopen(&mut h).await,
        EventMsg::PlanModeExitRequest {
            plan_content: PLAN.to_string(),
            plan_file_path: plan.clone(),
        }
    );
    h.server.push(call(
        "edit",
        "edit_file",
        json!({"path": "src/lib.rs", "old_string": "42", "new_string": "43"}),
    ));
    h.server.push(text("Implemented."));
    h.session.submit(Op::PlanModeApproval {
        approved: true,
        feedback: None,
    });
    let events = h.until_task_end().await;
    // The decision is applied at once, then a turn tells the model.
    assert_eq!(
        events[..2],
        [
            EventMsg::PlanModeExited {
                approved: true,
                active: false
            },
            EventMsg::TaskStarted
        ],
        "{events:?}"
    );
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{events:?}"
    );
    // The model is told in the words exit_plan_mode would have used, and may now write.
    let first = h.server.requests().len() - 2;
    assert_eq!(
        user_messages(&h, first).last().map(String::as_str),
        Some("Plan approved. You can now start implementing the plan.")
    );
    assert_eq!(
        std::fs::read_to_string(h.cwd().join("src/lib.rs")).unwrap(),
        "pub fn answer() -> u32 { 43 }\n"
    );
    let store = PlanStore::in_home(h.home.path());
    let listed = store.list().unwrap().plans;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].status, PlanStatus::Approved);
    // Nothing is waiting any more.
    assert_eq!(
        error_of(
            &mut h,
            Op::PlanModeApproval {
                approved: true,
                feedback: None
            }
        )
        .await,
        "No plan is waiting for approval."
    );
    h.server.assert_no_violations();
}

#[tokio::test]
async fn a_reopened_plan_edited_and_sent_back_keeps_plan_mode_and_passes_feedback() {
    let mut h = start(vec![]).await;
    let plan = h.enter_plan_mode().await;
    plan_then_interrupt(&mut h, &plan).await;
    reopen(&mut h).await;
    h.server.push(call(
        "edit",
        "edit_file",
        json!({"path": "src/lib.rs", "old_string": "42", "new_string": "43"}),
    ));
    h.server.push(text("Refining."));
    h.session.submit(Op::PlanModeApproval {
        approved: false,
        feedback: Some("Also update the docs".into()),
    });
    let events = h.until_task_end().await;
    assert!(
        events.contains(&EventMsg::PlanModeExited {
            approved: false,
            active: true
        }),
        "{events:?}"
    );
    // Still in plan mode, so the plan-mode reminder follows the decision.
    let told = user_messages(&h, h.server.requests().len() - 2);
    assert_eq!(
        told[told.len() - 2],
        "Plan rejected. Please continue refining the plan.\n\nUser feedback: Also update the docs"
    );
    // Still planning: the edit was refused and the file is unchanged.
    assert_eq!(
        std::fs::read_to_string(h.cwd().join("src/lib.rs")).unwrap(),
        "pub fn answer() -> u32 { 42 }\n"
    );
}

#[tokio::test]
async fn an_edit_made_during_a_reopened_review_reaches_the_model() {
    let mut h = start(vec![]).await;
    let plan = h.enter_plan_mode().await;
    plan_then_interrupt(&mut h, &plan).await;
    reopen(&mut h).await;
    std::fs::write(&plan, "# Plan\n\n1. Change answer to 44\n").unwrap();
    h.server.push(text("ok"));
    h.session.submit(Op::PlanModeApproval {
        approved: true,
        feedback: None,
    });
    h.until_task_end().await;
    let told = user_messages(&h, h.server.requests().len() - 1);
    let told = told.last().unwrap();
    assert!(
        told.starts_with(
            "Plan approved. You can now start implementing the plan.\n\nThe user edited the plan"
        ),
        "{told}"
    );
    assert!(
        told.contains("-1. Change answer to 43\n+1. Change answer to 44"),
        "{told}"
    );
}

#[tokio::test]
async fn reopening_needs_plan_mode_a_plan_file_and_no_running_turn() {
    let mut h = start(vec![]).await;
    let off = error_of(&mut h, Op::ReviewPlan).await;
    assert!(off.starts_with("Plan mode is off"), "{off}");

    let plan = h.enter_plan_mode().await;
    let missing = error_of(&mut h, Op::ReviewPlan).await;
    assert!(
        missing.starts_with("There is no plan to review yet")
            && missing.contains(&plan.display().to_string()),
        "{missing}"
    );

    // While exit_plan_mode itself waits, the review is already open.
    std::fs::write(&plan, PLAN).unwrap();
    h.server.push(call("x", "exit_plan_mode", json!({})));
    h.session.submit(Op::UserInput { text: "ask".into() });
    h.until(|e| matches!(e, EventMsg::PlanModeExitRequest { .. }))
        .await;
    assert_eq!(
        error_of(&mut h, Op::ReviewPlan).await,
        "The plan is already waiting for your review."
    );
    h.session.submit(Op::Interrupt);
    h.until_task_end().await;
}

#[tokio::test]
async fn leaving_plan_mode_drops_a_reopened_review() {
    let mut h = start(vec![]).await;
    let plan = h.enter_plan_mode().await;
    plan_then_interrupt(&mut h, &plan).await;
    reopen(&mut h).await;
    h.session.submit(Op::SetPlanMode { active: false });
    h.until(|e| matches!(e, EventMsg::PlanModeExited { .. }))
        .await;
    assert_eq!(
        error_of(
            &mut h,
            Op::PlanModeApproval {
                approved: true,
                feedback: None
            }
        )
        .await,
        "No plan is waiting for approval."
    );
    let listed = PlanStore::in_home(h.home.path()).list().unwrap().plans;
    assert_ne!(listed[0].status, PlanStatus::Approved);
}

#[tokio::test]
async fn a_reopened_plan_sent_back_without_a_word_costs_no_model_call() {
    let mut h = start(vec![]).await;
    let plan = h.enter_plan_mode().await;
    plan_then_interrupt(&mut h, &plan).await;
    let before = h.server.requests().len();
    reopen(&mut h).await;
    h.session.submit(Op::PlanModeApproval {
        approved: false,
        feedback: None,
    });
    let events = h
        .until(|e| matches!(e, EventMsg::PlanModeExited { .. }))
        .await;
    assert_eq!(
        events.last(),
        Some(&EventMsg::PlanModeExited {
            approved: false,
            active: true
        })
    );
    // The model hears of it with the user's next message.
    h.server.push(text("Refining."));
    h.run("split step 1 in two").await;
    assert_eq!(h.server.requests().len(), before + 1);
    let told = user_messages(&h, before);
    let n = told.len();
    assert_eq!(
        told[n - 3..n - 1],
        [
            "Plan rejected. Please continue refining the plan.".to_string(),
            "split step 1 in two".to_string()
        ],
        "{told:?}"
    );
}

#[tokio::test]
async fn a_turn_started_after_reopening_drops_the_review() {
    let mut h = start(vec![]).await;
    let plan = h.enter_plan_mode().await;
    plan_then_interrupt(&mut h, &plan).await;
    reopen(&mut h).await;
    // Not possible from the TUI (the review is modal), but the protocol allows it: the
    // model may rewrite the plan during this turn, so the old review must not approve it.
    h.server.push(text("Still planning."));
    h.run("one more thing").await;
    assert_eq!(
        error_of(
            &mut h,
            Op::PlanModeApproval {
                approved: true,
                feedback: None
            }
        )
        .await,
        "No plan is waiting for approval."
    );
    let listed = PlanStore::in_home(h.home.path()).list().unwrap().plans;
    assert_ne!(listed[0].status, PlanStatus::Approved);
}

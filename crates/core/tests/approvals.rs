//! Approval round trips through the protocol: requests out, decisions in, and what the model
//! is told.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_mock_model::MockResponse;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use cairn_protocol::{ApprovalPolicy, EventMsg, Op, ReviewDecision, TurnAbortReason};
use common::{Harness, Setup, count, start_with};
use serde_json::json;

async fn harness(
    policy: ApprovalPolicy,
    interactive: bool,
    responses: Vec<MockResponse>,
) -> Harness {
    start_with(
        responses,
        Setup {
            policy,
            interactive,
            ..Setup::default()
        },
    )
    .await
}

/// Wait for the next approval request; returns its call id and description.
async fn next_request(h: &mut Harness) -> (String, String) {
    let events = h
        .until(|e| {
            matches!(
                e,
                EventMsg::ExecApprovalRequest { .. }
                    | EventMsg::PatchApprovalRequest { .. }
                    | EventMsg::TaskComplete { .. }
                    | EventMsg::Error { .. }
            )
        })
        .await;
    match events.last() {
        Some(EventMsg::ExecApprovalRequest {
            call_id,
            description,
            ..
        })
        | Some(EventMsg::PatchApprovalRequest {
            call_id,
            description,
            ..
        }) => (call_id.clone(), description.clone()),
        other => panic!("expected an approval request, got {other:?}"),
    }
}

#[tokio::test]
async fn untrusted_asks_and_approval_runs_the_command() {
    let mut h = harness(
        ApprovalPolicy::Untrusted,
        true,
        vec![
            call("c1", "shell", json!({"command": "printf approved-run"})),
            text("ok"),
        ],
    )
    .await;
    h.session.submit(Op::UserInput {
        text: "run it".into(),
    });
    let (call_id, description) = next_request(&mut h).await;
    assert_eq!(call_id, "c1");
    assert!(
        description.starts_with("Would run `printf approved-run`"),
        "{description}"
    );
    h.session.submit(Op::ExecApproval {
        call_id,
        decision: ReviewDecision::Approved,
    });
    let events = h.until_task_end().await;
    assert!(matches!(events.last(), Some(EventMsg::TaskComplete { .. })));
    assert!(h.tool_output(1, "c1").contains("approved-run"));
    h.server.assert_no_violations();
}

#[tokio::test]
async fn denial_tells_the_model_and_nothing_runs() {
    let mut h = harness(
        ApprovalPolicy::Untrusted,
        true,
        vec![
            call("c1", "shell", json!({"command": "touch created-by-shell"})),
            text("ok"),
        ],
    )
    .await;
    h.session.submit(Op::UserInput {
        text: "run it".into(),
    });
    let (call_id, _) = next_request(&mut h).await;
    h.session.submit(Op::ExecApproval {
        call_id,
        decision: ReviewDecision::Denied {
            feedback: Some("use the Makefile".into()),
        },
    });
    h.until_task_end().await;
    let output = h.tool_output(1, "c1");
    assert!(
        output.starts_with("The user declined this call, so it was not run."),
        "{output}"
    );
    assert!(output.contains("Do not retry the same call"), "{output}");
    assert!(
        output.ends_with("User feedback: use the Makefile"),
        "{output}"
    );
    assert!(!h.cwd().join("created-by-shell").exists());
}

#[tokio::test]
async fn approved_for_session_is_not_asked_again() {
    let mut h = harness(
        ApprovalPolicy::Untrusted,
        true,
        vec![
            call("c1", "shell", json!({"command": "printf one"})),
            call("c2", "shell", json!({"command": "printf one"})),
            text("ok"),
        ],
    )
    .await;
    h.session.submit(Op::UserInput {
        text: "run twice".into(),
    });
    let (call_id, _) = next_request(&mut h).await;
    h.session.submit(Op::ExecApproval {
        call_id,
        decision: ReviewDecision::ApprovedForSession,
    });
    let events = h.until_task_end().await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{events:?}"
    );
    assert_eq!(
        count(
            &h.events.iter().map(|e| e.msg.clone()).collect::<Vec<_>>(),
            |e| matches!(e, EventMsg::ExecApprovalRequest { .. })
        ),
        1
    );
    assert!(h.tool_output(2, "c2").contains("one"));
}

#[tokio::test]
async fn abort_stops_the_turn() {
    let mut h = harness(
        ApprovalPolicy::Untrusted,
        true,
        vec![call("c1", "shell", json!({"command": "printf never"}))],
    )
    .await;
    h.session.submit(Op::UserInput {
        text: "run it".into(),
    });
    let (call_id, _) = next_request(&mut h).await;
    h.session.submit(Op::ExecApproval {
        call_id,
        decision: ReviewDecision::Abort,
    });
    let events = h.until_task_end().await;
    assert!(matches!(
        events.last(),
        Some(EventMsg::TurnAborted {
            reason: TurnAbortReason::ApprovalAborted
        })
    ));
    assert_eq!(h.server.requests().len(), 1);
}

#[tokio::test]
async fn headless_run_denies_and_says_how_to_allow() {
    let mut h = harness(
        ApprovalPolicy::Untrusted,
        false,
        vec![
            call("c1", "shell", json!({"command": "touch nope"})),
            text("ok"),
        ],
    )
    .await;
    let events = h.run("run it").await;
    assert!(matches!(events.last(), Some(EventMsg::TaskComplete { .. })));
    assert_eq!(
        count(&events, |e| matches!(
            e,
            EventMsg::ExecApprovalRequest { .. }
        )),
        0
    );
    let output = h.tool_output(1, "c1");
    assert!(
        output.contains("no user is available to approve it"),
        "{output}"
    );
    assert!(output.contains("--approval never"), "{output}");
    assert!(!h.cwd().join("nope").exists());
}

#[tokio::test]
async fn on_request_runs_read_only_commands_and_asks_for_the_rest() {
    let mut h = harness(
        ApprovalPolicy::OnRequest,
        true,
        vec![
            call("c1", "shell", json!({"command": "ls"})),
            call("c2", "shell", json!({"command": "touch made"})),
            text("ok"),
        ],
    )
    .await;
    h.session.submit(Op::UserInput {
        text: "look then touch".into(),
    });
    let (call_id, description) = next_request(&mut h).await;
    assert_eq!(call_id, "c2", "ls must not be asked about ({description})");
    h.session.submit(Op::ExecApproval {
        call_id,
        decision: ReviewDecision::Approved,
    });
    h.until_task_end().await;
    assert!(h.cwd().join("made").exists());
}

#[tokio::test]
async fn writes_outside_the_workspace_ask_under_on_request() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x.txt");
    let mut h = harness(
        ApprovalPolicy::OnRequest,
        true,
        vec![
            call(
                "c1",
                "write_file",
                json!({"path": "inside.txt", "content": "a\n"}),
            ),
            call(
                "c2",
                "write_file",
                json!({"path": target, "content": "b\n"}),
            ),
            text("ok"),
        ],
    )
    .await;
    h.session.submit(Op::UserInput {
        text: "write".into(),
    });
    let (call_id, description) = next_request(&mut h).await;
    assert_eq!(call_id, "c2", "{description}");
    assert!(
        h.cwd().join("inside.txt").exists(),
        "inside the workspace runs without asking"
    );
    h.session.submit(Op::PatchApproval {
        call_id,
        decision: ReviewDecision::Denied { feedback: None },
    });
    h.until_task_end().await;
    assert!(!target.exists());
}

#[tokio::test]
async fn an_applied_change_reports_its_diff_and_whether_anyone_saw_it() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x.txt");
    let mut h = harness(
        ApprovalPolicy::OnRequest,
        true,
        vec![
            call(
                "c1",
                "write_file",
                json!({"path": "inside.txt", "content": "a\n"}),
            ),
            call(
                "c2",
                "write_file",
                json!({"path": target, "content": "b\n"}),
            ),
            text("ok"),
        ],
    )
    .await;
    h.session.submit(Op::UserInput {
        text: "write".into(),
    });
    let (call_id, _) = next_request(&mut h).await;
    h.session.submit(Op::PatchApproval {
        call_id,
        decision: ReviewDecision::Approved,
    });
    h.until_task_end().await;
    let applied: Vec<(String, String, bool)> = h
        .events
        .iter()
        .filter_map(|e| match &e.msg {
            EventMsg::PatchApplied {
                call_id,
                diff,
                auto_approved,
            } => Some((call_id.clone(), diff.clone(), *auto_approved)),
            _ => None,
        })
        .collect();
    assert_eq!(applied.len(), 2, "{applied:?}");
    assert_eq!(applied[0].0, "c1");
    assert!(
        applied[0].2,
        "the policy allowed the workspace write unasked"
    );
    assert!(
        applied[0].1.contains("+++ b/inside.txt\n"),
        "{}",
        applied[0].1
    );
    assert!(applied[0].1.contains("+a"), "{}", applied[0].1);
    assert_eq!(applied[1].0, "c2");
    assert!(!applied[1].2, "the user saw and approved this diff");
    // Each comes before its call's end, so a front end can put it under the call.
    let position = |pred: &dyn Fn(&EventMsg) -> bool| h.events.iter().position(|e| pred(&e.msg));
    let applied_at =
        position(&|m| matches!(m, EventMsg::PatchApplied { call_id, .. } if call_id == "c1"));
    let ended_at =
        position(&|m| matches!(m, EventMsg::ToolCallEnd { call_id, .. } if call_id == "c1"));
    assert!(applied_at < ended_at);
}

//! Delegation: `delegate_agent` runs child sessions of the same core, bounded, tagged, and never
//! allowed more than their parent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_mock_model::MockResponse;
use cairn_mock_model::chat::{self, call_response as call, text_response as text};
use cairn_protocol::{ApprovalPolicy, EventMsg, Op, ReviewDecision, TurnAbortReason};
use common::{Harness, Setup, count, start, start_with};
use serde_json::{Value, json};
use std::time::Duration;

fn bodies(h: &Harness) -> Vec<Value> {
    h.server.requests().iter().map(|r| r.json()).collect()
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn is_child(body: &Value) -> bool {
    body.to_string().contains("Your role as a sub-agent")
}

/// The JSON result of the delegate_agent call `call_id`.
fn result(h: &Harness, call_id: &str) -> Value {
    let last = h.server.requests().len() - 1;
    serde_json::from_str(&h.tool_output(last, call_id)).unwrap()
}

#[tokio::test]
async fn a_batch_of_explore_runs_returns_both_summaries_and_children_only_read() {
    let mut h = start(vec![
        call(
            "d",
            "delegate_agent",
            json!({"batch": [
                {"agent_id": "explore", "prompt": "Where is the parser?"},
                {"agent_id": "explore", "prompt": "Where are the tests?", "context": {"hints": ["look in tests/"]}}
            ]}),
        ),
        text("Finding one."),
        text("Finding two."),
        text("Both found."),
    ])
    .await;
    let events = h.run("investigate").await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{events:?}"
    );
    let out = result(&h, "d");
    assert_eq!(out["status"], "ok");
    let runs = out["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let mut summaries: Vec<&str> = runs
        .iter()
        .map(|r| r["summary"].as_str().unwrap())
        .collect();
    summaries.sort();
    assert_eq!(summaries, ["Finding one.", "Finding two."]);
    assert!(
        runs.iter()
            .all(|r| r["agent_id"] == "explore" && r["duration_ms"].is_u64())
    );
    assert_ne!(runs[0]["run_id"], runs[1]["run_id"]);

    let bodies = bodies(&h);
    let children: Vec<&Value> = bodies.iter().filter(|b| is_child(b)).collect();
    assert_eq!(children.len(), 2);
    for child in &children {
        let tools = tool_names(child);
        assert!(tools.contains(&"read_file".to_string()), "{tools:?}");
        for forbidden in [
            "shell",
            "write_file",
            "edit_file",
            "apply_patch",
            "ask_user_question",
        ] {
            assert!(
                !tools.contains(&forbidden.to_string()),
                "{forbidden} offered: {tools:?}"
            );
        }
        assert!(child.to_string().contains("exploration sub-agent"));
    }
    assert!(
        children
            .iter()
            .any(|c| c.to_string().contains("- look in tests/"))
    );
    // Events: each run starts, ends, and is named; the parent's call ends after its runs.
    assert_eq!(
        count(
            &events,
            |e| matches!(e, EventMsg::DelegateStarted { agent_id, .. } if agent_id == "explore")
        ),
        2
    );
    assert_eq!(
        count(&events, |e| matches!(e, EventMsg::DelegateCompleted { .. })),
        2
    );
    let last_completed = events
        .iter()
        .rposition(|e| matches!(e, EventMsg::DelegateCompleted { .. }))
        .unwrap();
    let call_end = events
        .iter()
        .position(|e| matches!(e, EventMsg::ToolCallEnd { call_id, .. } if call_id == "d"))
        .unwrap();
    assert!(last_completed < call_end);
    h.server.assert_no_violations();
}

#[tokio::test]
async fn in_plan_mode_children_stay_read_only_and_change_nothing() {
    let mut h = start(vec![]).await;
    h.session.submit(Op::SetPlanMode { active: true });
    h.until(|e| matches!(e, EventMsg::PlanModeEntered { .. }))
        .await;
    std::fs::write(h.cwd().join("keep.txt"), "original\n").unwrap();
    for response in [
        call(
            "g",
            "delegate_agent",
            json!({"agent_id": "general", "prompt": "edit keep.txt"}),
        ),
        call(
            "e",
            "delegate_agent",
            json!({"agent_id": "explore", "prompt": "look"}),
        ),
        // The explore child tries to write anyway.
        MockResponse::sse(chat::tool_calls(&[
            (
                "w",
                "write_file",
                json!({"path": "keep.txt", "content": "changed\n"}),
            ),
            ("s", "shell", json!({"command": "echo changed > keep.txt"})),
        ])),
        text("Could not write."),
        text("Planned."),
    ] {
        h.server.push(response);
    }
    let events = h.run("plan it").await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{events:?}"
    );
    let requests = h.server.requests();
    let refused = h.tool_output(1, "g");
    assert!(
        refused.contains("only read-only agents can be delegated"),
        "{refused}"
    );
    // The child's own refusals.
    let child_second = requests
        .iter()
        .map(|r| r.json())
        .filter(is_child)
        .nth(1)
        .unwrap()
        .to_string();
    assert!(
        child_second.contains("not available to this agent"),
        "{child_second}"
    );
    assert_eq!(
        std::fs::read_to_string(h.cwd().join("keep.txt")).unwrap(),
        "original\n"
    );
    h.server.assert_no_violations();
}

#[tokio::test]
async fn beyond_the_concurrency_cap_calls_are_refused_with_delegate_in_progress() {
    let calls: Vec<(String, String, Value)> = (0..7)
        .map(|i| {
            (
                format!("d{i}"),
                "delegate_agent".to_string(),
                json!({"agent_id": "explore", "prompt": format!("question {i}")}),
            )
        })
        .collect();
    let refs: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.clone()))
        .collect();
    let mut responses = vec![MockResponse::sse(chat::tool_calls(&refs))];
    for i in 0..5 {
        responses.push(text(&format!("answer {i}")));
    }
    responses.push(text("Done."));
    let mut h = start(responses).await;
    let events = h.run("ask seven things").await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{events:?}"
    );
    let last = h.server.requests().len() - 1;
    let outputs: Vec<String> = (0..7)
        .map(|i| h.tool_output(last, &format!("d{i}")))
        .collect();
    let refused = outputs
        .iter()
        .filter(|o| o.contains("DelegateInProgress"))
        .count();
    assert_eq!(refused, 2, "{outputs:#?}");
    assert!(
        outputs
            .iter()
            .any(|o| o.contains("max_concurrent_delegates = 5"))
    );
    assert_eq!(
        count(&events, |e| matches!(e, EventMsg::DelegateStarted { .. })),
        5
    );
}

#[tokio::test]
async fn at_the_depth_limit_a_child_is_not_offered_delegation_and_cannot_call_it() {
    let mut h = start_with(
        vec![
            call(
                "d",
                "delegate_agent",
                json!({"agent_id": "general", "prompt": "do it"}),
            ),
            call(
                "dd",
                "delegate_agent",
                json!({"agent_id": "explore", "prompt": "deeper"}),
            ),
            text("child done"),
            text("parent done"),
        ],
        Setup {
            policy: ApprovalPolicy::Never,
            configure: Some(|c| c.multi_agent.max_depth = 1),
            ..Setup::default()
        },
    )
    .await;
    h.run("go").await;
    let bodies = bodies(&h);
    assert!(tool_names(&bodies[0]).contains(&"delegate_agent".to_string()));
    let child = &bodies[1];
    assert!(is_child(child));
    assert!(!tool_names(child).contains(&"delegate_agent".to_string()));
    assert!(
        bodies[2]
            .to_string()
            .contains("not available to this agent")
    );
}

#[tokio::test]
async fn a_childs_approval_is_asked_through_the_parent_and_names_the_agent() {
    let mut h = start_with(
        vec![
            call(
                "d",
                "delegate_agent",
                json!({"agent_id": "general", "prompt": "run it"}),
            ),
            call(
                "c1",
                "shell",
                json!({"command": "mkdir made-by-child && echo from-the-child"}),
            ),
            text("ran it"),
            text("all done"),
        ],
        Setup {
            policy: ApprovalPolicy::Untrusted,
            ..Setup::default()
        },
    )
    .await;
    h.session.submit(Op::UserInput { text: "go".into() });
    let events = h
        .until(|e| matches!(e, EventMsg::ExecApprovalRequest { .. }))
        .await;
    let Some(EventMsg::ExecApprovalRequest {
        call_id,
        description,
        ..
    }) = events.last()
    else {
        unreachable!()
    };
    assert_eq!(call_id, "run-1:c1");
    assert_eq!(
        description,
        "[general] Would run `mkdir made-by-child && echo from-the-child`"
    );
    h.session.submit(Op::ExecApproval {
        call_id: call_id.clone(),
        decision: ReviewDecision::Approved,
    });
    let events = h.until_task_end().await;
    assert!(matches!(events.last(), Some(EventMsg::TaskComplete { .. })));
    let child_output = h.tool_output(2, "c1");
    assert!(child_output.contains("from-the-child"), "{child_output}");
    // The child's tool call reached the front end tagged with its run.
    assert!(
        events.iter().any(|e| matches!(e,
        EventMsg::DelegateEvent { run_id, event } if run_id == "run-1"
            && matches!(event.as_ref(), EventMsg::ToolCallEnd { call_id, .. } if call_id == "c1")))
    );
}

#[tokio::test]
async fn interrupting_the_parent_cancels_its_children() {
    let mut h = start(vec![
        call(
            "d",
            "delegate_agent",
            json!({"agent_id": "explore", "prompt": "slow"}),
        ),
        MockResponse::sse(chat::text("never")).stall(Duration::from_secs(60)),
    ])
    .await;
    h.session.submit(Op::UserInput { text: "go".into() });
    h.until(|e| matches!(e, EventMsg::DelegateStarted { .. }))
        .await;
    // Let the child's request reach the server.
    h.server.wait_for_requests(2).await;
    h.session.submit(Op::Interrupt);
    let events = h.until_task_end().await;
    assert!(
        matches!(
            events.last(),
            Some(EventMsg::TurnAborted {
                reason: TurnAbortReason::Interrupted
            })
        ),
        "{events:?}"
    );
    assert!(events.iter().any(
        |e| matches!(e, EventMsg::DelegateFailed { error, .. } if error.contains("interrupted"))
    ));
    assert_eq!(h.server.requests().len(), 2);
}

#[tokio::test]
async fn without_delegation_the_tool_does_not_exist() {
    let mut h = start_with(
        vec![
            call(
                "d",
                "delegate_agent",
                json!({"agent_id": "explore", "prompt": "x"}),
            ),
            text("ok"),
        ],
        Setup {
            configure: Some(|c| c.multi_agent.enabled = false),
            ..Setup::default()
        },
    )
    .await;
    h.run("go").await;
    assert!(!tool_names(&bodies(&h)[0]).contains(&"delegate_agent".to_string()));
    assert!(
        h.tool_output(1, "d")
            .starts_with("Unknown tool 'delegate_agent'")
    );
}

#[tokio::test]
async fn an_unknown_agent_is_answered_with_the_list() {
    let mut h = start(vec![
        call(
            "d",
            "delegate_agent",
            json!({"agent_id": "wizard", "prompt": "x"}),
        ),
        text("ok"),
    ])
    .await;
    h.run("go").await;
    let out = h.tool_output(1, "d");
    assert_eq!(
        out,
        "Unknown agent `wizard`. Available agents: explore, general, plan."
    );
}

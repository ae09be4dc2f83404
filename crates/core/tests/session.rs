//! Core scenarios against the mock model: events out, and the exact requests sent back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_mock_model::{Gate, MockResponse, chat};
use cairn_protocol::{EventMsg, Op, PlanStepStatus, TurnAbortReason};
use common::{count, start};
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn update_plan_round_trip_emits_event_and_answers_plan_updated() {
    let args = json!({"explanation": "Roadmap", "plan": [
        {"step": "Set up project", "status": "completed"},
        {"step": "Implement feature", "status": "in_progress"}
    ]});
    let mut h = start(vec![
        MockResponse::sse(chat::tool_calls(&[("call_1", "update_plan", args)])),
        MockResponse::sse(chat::text("All set.")),
    ])
    .await;
    let events = h.run("plan it").await;
    let plan = events
        .iter()
        .find_map(|e| match e {
            EventMsg::PlanUpdate(plan) => Some(plan.clone()),
            _ => None,
        })
        .expect("plan_update event");
    assert_eq!(plan.explanation.as_deref(), Some("Roadmap"));
    assert_eq!(plan.plan[0].step, "Set up project");
    assert_eq!(plan.plan[0].status, PlanStepStatus::Completed);
    assert_eq!(plan.plan[1].status, PlanStepStatus::InProgress);
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { last_agent_message: Some(m) }) if m == "All set.")
    );
    assert_eq!(h.tool_output(1, "call_1"), "Plan updated");
    h.server.assert_no_violations();
}

#[tokio::test]
async fn malformed_update_plan_returns_parse_error_and_no_event() {
    let mut h = start(vec![
        MockResponse::sse(chat::tool_calls(&[(
            "call_1",
            "update_plan",
            json!({"explanation": "Oops"}),
        )])),
        MockResponse::sse(chat::text("Sorry.")),
    ])
    .await;
    let events = h.run("plan it").await;
    assert_eq!(count(&events, |e| matches!(e, EventMsg::PlanUpdate(_))), 0);
    let output = h.tool_output(1, "call_1");
    assert!(
        output.starts_with("failed to parse function arguments: missing field `plan`"),
        "{output}"
    );
    h.server.assert_no_violations();
}

#[tokio::test]
async fn unknown_tool_gets_a_clear_message() {
    let mut h = start(vec![
        MockResponse::sse(chat::tool_calls(&[("call_1", "frobnicate", json!({}))])),
        MockResponse::sse(chat::text("ok")),
    ])
    .await;
    let events = h.run("go").await;
    assert!(matches!(events.last(), Some(EventMsg::TaskComplete { .. })));
    let output = h.tool_output(1, "call_1");
    assert!(
        output.starts_with("Unknown tool 'frobnicate'. Available tools: "),
        "{output}"
    );
    assert!(output.contains("update_plan"), "{output}");
}

#[tokio::test]
async fn server_error_is_retried_then_succeeds() {
    let mut h = start(vec![
        MockResponse::error(500, r#"{"error":{"message":"boom"}}"#),
        MockResponse::sse(chat::text("Recovered.")),
    ])
    .await;
    let events = h.run("hi").await;
    let retry = events
        .iter()
        .find_map(|e| match e {
            EventMsg::StreamError { message } => Some(message.clone()),
            _ => None,
        })
        .expect("stream_error event");
    assert!(retry.contains("Reconnecting... 1/4"), "{retry}");
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { last_agent_message: Some(m) }) if m == "Recovered.")
    );
    assert_eq!(h.server.requests().len(), 2);
}

#[tokio::test]
async fn stream_cut_mid_answer_is_retried_without_duplicating_text() {
    let mut h = start(vec![
        MockResponse::sse(chat::text("Hello there, this is a long answer")).cut_after(2),
        MockResponse::sse(chat::text("Hello there, this is a long answer")),
    ])
    .await;
    let events = h.run("hi").await;
    assert_eq!(
        count(&events, |e| matches!(e, EventMsg::StreamError { .. })),
        1
    );
    let messages: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            EventMsg::AgentMessage { message } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(messages, ["Hello there, this is a long answer"]);
    // History sent back holds the answer once.
    assert!(matches!(events.last(), Some(EventMsg::TaskComplete { .. })));
}

#[tokio::test]
async fn stream_cut_mid_tool_arguments_runs_the_tool_once() {
    let args = json!({"plan": [{"step": "a", "status": "pending"}]});
    let mut h = start(vec![
        MockResponse::sse(chat::tool_calls(&[("call_1", "update_plan", args.clone())]))
            .cut_after(2),
        MockResponse::sse(chat::tool_calls(&[("call_1", "update_plan", args)])),
        MockResponse::sse(chat::text("done")),
    ])
    .await;
    let events = h.run("go").await;
    assert_eq!(count(&events, |e| matches!(e, EventMsg::PlanUpdate(_))), 1);
    assert_eq!(
        count(&events, |e| matches!(e, EventMsg::ToolCallBegin { .. })),
        1
    );
    assert_eq!(h.server.requests().len(), 3);
    h.server.assert_no_violations();
}

#[tokio::test]
async fn unauthorized_is_reported_once_and_not_retried() {
    let mut h = start(vec![MockResponse::error(
        401,
        r#"{"error":{"message":"Incorrect API key provided"}}"#,
    )])
    .await;
    let events = h.run("hi").await;
    let Some(EventMsg::Error { message }) = events.last() else {
        panic!("expected error, got {events:?}");
    };
    assert!(message.contains("401 Unauthorized"), "{message}");
    assert!(message.contains(&h.server.base_url()), "{message}");
    assert_eq!(h.server.requests().len(), 1);
}

#[tokio::test]
async fn interrupt_cancels_a_stalled_stream() {
    // The gate is never opened: the stream stops after its first chunks and waits.
    let gate = Gate::new();
    let mut h = start(vec![
        MockResponse::sse(chat::text("This answer never finishes")).gate_at(2, &gate),
    ])
    .await;
    h.session.submit(Op::UserInput { text: "hi".into() });
    h.until(|e| matches!(e, EventMsg::AgentMessageDelta { .. }))
        .await;
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
}

#[tokio::test]
async fn normal_mode_offers_planning_but_not_exit_plan_mode() {
    let mut h = start(vec![MockResponse::sse(chat::text("hi"))]).await;
    h.run("hi").await;
    let tools = h.offered_tools(0);
    assert!(tools.contains(&"update_plan".to_string()), "{tools:?}");
    assert!(tools.contains(&"read_file".to_string()) || tools.contains(&"think".to_string()));
    assert!(!tools.contains(&"exit_plan_mode".to_string()), "{tools:?}");
    let system = &h.server.requests()[0].json()["messages"][0]["content"];
    assert!(system.as_str().unwrap().contains("Working directory:"));
}

#[tokio::test]
async fn messages_sent_during_a_task_run_after_it() {
    let mut h = start(vec![
        MockResponse::sse(chat::text("first")).with_chunk_delay(Duration::from_millis(20)),
        MockResponse::sse(chat::text("second")),
    ])
    .await;
    h.session.submit(Op::UserInput { text: "one".into() });
    h.session.submit(Op::UserInput { text: "two".into() });
    h.until_task_end().await;
    let events = h.until_task_end().await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { last_agent_message: Some(m) }) if m == "second")
    );
    let second = h.server.requests()[1].json();
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(messages.last().unwrap()["content"], "two");
}

#[tokio::test]
async fn ops_sent_right_after_a_task_ends_see_no_running_task() {
    // The terminal event is emitted only after the session stopped counting the task as
    // running, so a front end that reacts to it is never told a task is in progress.
    let mut responses = Vec::new();
    for _ in 0..20 {
        responses.push(MockResponse::sse(chat::text("ok")));
    }
    let mut h = start(responses).await;
    for round in 0..20 {
        h.run("hi").await;
        h.session.submit(Op::SetPlanMode {
            active: round % 2 == 0,
        });
        let msg = h.next().await;
        assert!(
            matches!(
                msg,
                EventMsg::PlanModeEntered { .. } | EventMsg::PlanModeExited { .. }
            ),
            "round {round}: {msg:?}"
        );
    }
}

#[tokio::test]
async fn interrupt_ends_queued_messages_too() {
    let gate = Gate::new();
    let mut h = start(vec![
        MockResponse::sse(chat::text("This answer never finishes")).gate_at(2, &gate),
    ])
    .await;
    let first = h.session.submit(Op::UserInput { text: "one".into() });
    let queued = h.session.submit(Op::UserInput { text: "two".into() });
    h.until(|e| matches!(e, EventMsg::AgentMessageDelta { .. }))
        .await;
    h.session.submit(Op::Interrupt);
    let mut ended = Vec::new();
    while ended.len() < 2 {
        let msg = h.next().await;
        if matches!(msg, EventMsg::TurnAborted { .. }) {
            ended.push(h.events.last().unwrap().id.clone());
        }
    }
    ended.sort();
    let mut expected = vec![first, queued];
    expected.sort();
    assert_eq!(ended, expected);
    assert_eq!(
        h.server.requests().len(),
        1,
        "the queued message was not sent"
    );
}

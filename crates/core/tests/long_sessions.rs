//! Long sessions: compaction that keeps the plan, `/compact`, the context-window error, and
//! resuming a logged session with its state.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_mock_model::chat::{ChatStream, call_response as call, text_response as text};
use cairn_mock_model::{MockResponse, MockServer};
use cairn_protocol::{EventMsg, Op};
use common::{Harness, Setup, config_for, count, start_with};
use serde_json::{Value, json};
use std::path::PathBuf;

const PLAN_TEXT: &str = "# Plan\n\nPINNED-PLAN-TEXT: touch every file, then report.\n";

/// A tool call whose response reports `prompt_tokens` used: the test decides when the
/// context fills, not the estimate.
fn call_using(id: &str, tokens: u64) -> MockResponse {
    MockResponse::sse(
        ChatStream::new()
            .tool_call(
                id,
                "shell",
                &json!({"command": format!("echo output-of-{id}")}),
            )
            .usage(tokens, 50)
            .build(),
    )
}

fn is_summary_call(body: &Value) -> bool {
    body["tools"].as_array().is_none_or(|t| t.is_empty())
        && body.to_string().contains("hand-off summary")
}

async fn enter_plan_mode(h: &mut Harness) -> PathBuf {
    h.session.submit(Op::SetPlanMode { active: true });
    let events = h
        .until(|e| matches!(e, EventMsg::PlanModeEntered { .. }))
        .await;
    match events.last() {
        Some(EventMsg::PlanModeEntered { plan_file_path }) => plan_file_path.clone(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_task_four_windows_long_finishes_with_its_approved_plan_in_every_request() {
    let mut h = start_with(
        vec![],
        Setup {
            context_window: Some(10_000),
            ..Setup::default()
        },
    )
    .await;
    let plan = enter_plan_mode(&mut h).await;
    h.server.push(call(
        "w",
        "write_file",
        json!({"path": plan, "content": PLAN_TEXT}),
    ));
    h.server.push(call("x", "exit_plan_mode", json!({})));
    h.session.submit(Op::UserInput {
        text: "do the long task".into(),
    });
    h.until(|e| matches!(e, EventMsg::PlanModeExitRequest { .. }))
        .await;
    // Limit: (10000 - 2500) * 0.8 = 6000 tokens. Each cycle of three calls reports 2k, 4k,
    // then 6.5k tokens, so the request after it is compacted first: four cycles.
    h.server.push(call(
        "p",
        "update_plan",
        json!({"plan": [{"step": "PINNED-STEP touch files", "status": "in_progress"}]}),
    ));
    for cycle in 0..4 {
        for (i, tokens) in [2_000, 4_000, 6_500].into_iter().enumerate() {
            h.server.push(call_using(&format!("c{cycle}_{i}"), tokens));
        }
        h.server
            .push(text(&format!("SUMMARY-{cycle}: touched files so far.")));
    }
    h.server.push(text("All files touched."));
    h.session.submit(Op::PlanModeApproval {
        approved: true,
        feedback: None,
    });
    let events = h.until_task_end().await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{:?}",
        events.last()
    );
    assert_eq!(
        count(&events, |e| matches!(e, EventMsg::ContextCompacted { .. })),
        4
    );
    h.server.assert_no_violations();

    let requests: Vec<Value> = h.server.requests().iter().map(|r| r.json()).collect();
    let summaries: Vec<usize> = (0..requests.len())
        .filter(|&i| is_summary_call(&requests[i]))
        .collect();
    assert_eq!(summaries.len(), 4, "one summary call per compaction");
    // The approval is request 2 (after write and exit); every request after it carries the
    // approved plan verbatim, and after the first compaction it also carries the checklist.
    for (i, body) in requests.iter().enumerate().skip(2) {
        let text = body.to_string();
        assert!(
            text.contains("PINNED-PLAN-TEXT"),
            "request {i} lost the plan"
        );
        if i > summaries[0] {
            assert!(
                text.contains("PINNED-STEP touch files"),
                "request {i} lost the checklist"
            );
        }
    }
    for (n, &s) in summaries.iter().enumerate() {
        let next = requests[s + 1].to_string();
        assert!(
            next.contains(&format!("SUMMARY-{n}")),
            "summary {n} not carried"
        );
        // The compacted turns are gone: no call of the cycle before survives.
        assert!(!next.contains(&format!("output-of-c{n}_0")), "{next}");
        assert!(!next.contains("\"tool_call_id\":\"w\""), "{next}");
        // The user's request survives as it was.
        assert!(next.contains("do the long task"));
    }
}

#[tokio::test]
async fn compact_by_hand_passes_the_focus_and_a_failure_is_reported_as_failure() {
    let mut h = start_with(
        vec![text("One."), text("Summary written.")],
        Setup::default(),
    )
    .await;
    h.run("first").await;
    h.session.submit(Op::Compact {
        focus: Some("the parser changes".into()),
    });
    let events = h.until_task_end().await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{events:?}"
    );
    assert_eq!(
        count(&events, |e| matches!(e, EventMsg::ContextCompacted { .. })),
        1
    );
    let summary = h.server.requests()[1].json().to_string();
    assert!(
        summary.contains("focus on: the parser changes"),
        "{summary}"
    );

    // An empty summary is a failure, and the history stays as it was.
    h.server.push(text(""));
    h.server.push(text("Still here."));
    h.session.submit(Op::Compact { focus: None });
    let events = h.until_task_end().await;
    match events.last() {
        Some(EventMsg::Error { message }) => {
            assert!(message.starts_with("Compaction failed"), "{message}");
            assert!(message.contains("left as it was"), "{message}");
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    assert_eq!(
        count(&events, |e| matches!(e, EventMsg::ContextCompacted { .. })),
        0
    );
    h.run("go on").await;
    let last = h.server.requests().last().unwrap().json().to_string();
    assert!(
        last.contains("Summary written."),
        "the first compaction stays: {last}"
    );
}

#[tokio::test]
async fn context_length_exceeded_compacts_and_succeeds() {
    let mut h = start_with(
        vec![
            MockResponse::error(
                400,
                r#"{"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 8192 tokens."}}"#,
            ),
            text("A summary."),
            text("Fits now."),
        ],
        Setup::default(),
    )
    .await;
    let events = h.run("a big request").await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { last_agent_message: Some(m) }) if m == "Fits now."),
        "{events:?}"
    );
    let retried = h.server.requests()[2].json().to_string();
    assert!(retried.contains("A summary."), "{retried}");
    assert!(retried.contains("a big request"));
}

#[tokio::test]
async fn a_resumed_session_has_the_same_history_plan_mode_plan_file_and_checklist() {
    let setup = || Setup {
        persist: true,
        ..Setup::default()
    };
    let mut h = start_with(
        vec![
            call(
                "p",
                "update_plan",
                json!({"plan": [{"step": "Read the code", "status": "in_progress"}]}),
            ),
            text("Looked around."),
            text("Planned."),
        ],
        setup(),
    )
    .await;
    h.run("look around").await;
    let plan = enter_plan_mode(&mut h).await;
    h.run("plan something").await;
    let id = h.session.submit(Op::Shutdown);
    h.until(|e| matches!(e, EventMsg::ShutdownComplete)).await;
    let _ = id;

    let sessions = cairn_core::rollout::listing::list(&h.home.path().join("sessions"));
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].turns, 2);
    assert_eq!(sessions[0].plan_status.as_deref(), Some("plan mode"));
    let loaded = cairn_core::rollout::load(&sessions[0].path).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);

    let server = MockServer::start(vec![text("Continuing.")]).await;
    let config = config_for(&server, h.home.path(), &h.cwd(), &setup());
    let mut resumed = cairn_core::resume(
        config,
        cairn_core::SessionOptions { interactive: true },
        loaded,
    )
    .unwrap();
    let mut replay = None;
    while replay.is_none() {
        let event = resumed.events.recv().await.unwrap();
        if let EventMsg::SessionResumed { replay: r, .. } = event.msg {
            replay = Some(r);
        }
    }
    let replay = replay.unwrap();
    assert!(
        replay
            .iter()
            .any(|e| matches!(e, EventMsg::UserMessage { text } if text == "plan something"))
    );
    assert!(replay.iter().any(|e| matches!(e, EventMsg::PlanUpdate(_))));
    assert!(replay.iter().any(
        |e| matches!(e, EventMsg::PlanModeEntered { plan_file_path } if *plan_file_path == plan)
    ));

    resumed.submit(Op::UserInput {
        text: "go on".into(),
    });
    loop {
        let event = resumed.events.recv().await.unwrap();
        if matches!(
            event.msg,
            EventMsg::TaskComplete { .. } | EventMsg::Error { .. }
        ) {
            break;
        }
    }
    // The same history byte for byte (the plan-mode reminder, recomputed per request, is
    // the last message of each and names the same plan file).
    let before = h.server.requests().last().unwrap().json()["messages"].clone();
    let after = server.requests()[0].json()["messages"].clone();
    let before = before.as_array().unwrap();
    let after = after.as_array().unwrap();
    let kept = before.len() - 1;
    assert_eq!(&after[..kept], &before[..kept]);
    assert_eq!(after[kept]["content"], "Planned.");
    assert_eq!(after[kept + 1]["content"], "go on");
    assert_eq!(
        after.last().unwrap(),
        before.last().unwrap(),
        "same plan-mode reminder"
    );
    assert!(
        after
            .last()
            .unwrap()
            .to_string()
            .contains(&plan.display().to_string())
    );
    // Still in plan mode: the same (read-only) tools are offered.
    let last = h.server.requests().len() - 1;
    assert_eq!(
        h.server.requests()[last].json()["tools"],
        server.requests()[0].json()["tools"]
    );
}

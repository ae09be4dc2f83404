//! `!cmd`: a command the user types runs through the same dispatcher as the model's calls
//! (plan mode, approval policy, sandbox), and its output joins the conversation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_mock_model::chat::text_response as text;
use cairn_protocol::{ApprovalPolicy, EventMsg, Op, ReviewDecision};
use common::{Harness, Setup, start, start_with};

async fn run_command(h: &mut Harness, command: &str) -> Vec<EventMsg> {
    h.session.submit(Op::UserShellCommand {
        command: command.into(),
    });
    h.until_task_end().await
}

/// The output of the shell call among `events`, and whether it succeeded.
fn shell_end(events: &[EventMsg]) -> (String, bool) {
    events
        .iter()
        .find_map(|e| match e {
            EventMsg::ToolCallEnd {
                name,
                output,
                success,
                ..
            } if name == "shell" => Some((output.clone(), *success)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no shell call in {events:?}"))
}

#[tokio::test]
async fn a_user_command_runs_without_the_model_and_the_model_sees_it_next_turn() {
    let mut h = start(vec![text("I see the greeting.")]).await;
    // A read-only command, which on-request runs without asking.
    std::fs::write(h.cwd().join("note.txt"), "hello-from-the-user\n").unwrap();
    let events = run_command(&mut h, "cat note.txt").await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{events:?}"
    );
    let (output, success) = shell_end(&events);
    assert!(success, "{output}");
    assert!(output.contains("hello-from-the-user"), "{output}");
    assert!(
        h.server.requests().is_empty(),
        "a user command asks no model"
    );

    h.run("what did it print?").await;
    let body = h.server.requests()[0].json();
    let users: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect();
    let shared = users
        .iter()
        .find(|m| m.starts_with("<user_shell_command>"))
        .unwrap_or_else(|| panic!("the command is not in the request: {users:?}"));
    assert!(
        shared.contains("<command>\ncat note.txt\n</command>"),
        "{shared}"
    );
    assert!(
        shared.contains("hello-from-the-user\n</result>"),
        "{shared}"
    );
    assert_eq!(users.last(), Some(&"what did it print?"));
    h.server.assert_no_violations();
}

#[tokio::test]
async fn a_user_command_is_put_to_the_approval_policy_like_the_models() {
    let mut h = start_with(
        vec![],
        Setup {
            policy: ApprovalPolicy::Untrusted,
            ..Setup::default()
        },
    )
    .await;
    h.session.submit(Op::UserShellCommand {
        command: "touch made-by-user".into(),
    });
    let events = h
        .until(|e| {
            matches!(
                e,
                EventMsg::ExecApprovalRequest { .. } | EventMsg::TaskComplete { .. }
            )
        })
        .await;
    let Some(EventMsg::ExecApprovalRequest {
        call_id,
        command,
        for_session,
        session_prefix,
        ..
    }) = events.last()
    else {
        panic!("expected an approval request, got {events:?}");
    };
    assert!(command.contains("touch made-by-user"), "{command:?}");
    // Approving your own command is never remembered for the model's later calls.
    assert_eq!((for_session, session_prefix), (&None, &None));
    h.session.submit(Op::ExecApproval {
        call_id: call_id.clone(),
        decision: ReviewDecision::Denied { feedback: None },
    });
    let events = h.until_task_end().await;
    let (_, success) = shell_end(&events);
    assert!(!success);
    assert!(!h.cwd().join("made-by-user").exists());
    // A command that did not run is not part of the conversation.
    h.server.push(text("ok"));
    h.run("next").await;
    let sent = h.server.requests()[0].json().to_string();
    assert!(!sent.contains("user_shell_command"), "{sent}");
}

#[tokio::test]
async fn plan_mode_refuses_a_writing_user_command() {
    let mut h = start(vec![]).await;
    h.session.submit(Op::SetPlanMode { active: true });
    h.until(|e| matches!(e, EventMsg::PlanModeEntered { .. }))
        .await;
    let events = run_command(&mut h, "touch made-in-plan-mode").await;
    let (output, success) = shell_end(&events);
    assert!(!success, "{output}");
    assert!(output.contains("plan mode"), "{output}");
    assert!(!h.cwd().join("made-in-plan-mode").exists());
}

#[tokio::test]
async fn an_empty_user_command_says_what_to_type() {
    let mut h = start(vec![]).await;
    let events = run_command(&mut h, "  ").await;
    assert_eq!(
        events.last(),
        Some(&EventMsg::Error {
            message: "Type a command after `!`, for example `!git status`.".into()
        })
    );
}

//! The file and shell tools end to end through the session: what they ask, what they do,
//! and what the model reads back (the policy round trips themselves are in approvals.rs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_mock_model::{MockResponse, chat};
use cairn_protocol::{ApprovalPolicy, EventMsg, Op, ReviewDecision};
use common::{Setup, count, start, start_with};
use serde_json::json;

fn call(id: &str, tool: &str, args: serde_json::Value) -> MockResponse {
    MockResponse::sse(chat::tool_calls(&[(id, tool, args)]))
}

fn done() -> MockResponse {
    MockResponse::sse(chat::text("Done."))
}

fn asked(events: &[EventMsg]) -> usize {
    count(events, |e| {
        matches!(
            e,
            EventMsg::ExecApprovalRequest { .. } | EventMsg::PatchApprovalRequest { .. }
        )
    })
}

#[tokio::test]
async fn on_request_runs_workspace_edits_and_read_only_commands_without_asking() {
    let mut h = start(vec![
        call(
            "c1",
            "write_file",
            json!({"path": "src/new.rs", "content": "fn a() {}\n"}),
        ),
        call(
            "c2",
            "shell",
            json!({"command": "ls src && cat src/new.rs"}),
        ),
        done(),
    ])
    .await;
    let events = h.run("go").await;
    assert_eq!(asked(&events), 0);
    assert_eq!(
        h.tool_output(1, "c1"),
        "Created src/new.rs (10 bytes, 1 line)."
    );
    let shell = h.tool_output(2, "c2");
    assert!(shell.starts_with("Exit code: 0\n"), "{shell}");
    assert!(shell.contains("new.rs\nfn a() {}"), "{shell}");
    h.server.assert_no_violations();
}

#[tokio::test]
async fn approved_command_runs_and_session_approval_covers_the_exact_command() {
    let mut h = start(vec![
        call(
            "c1",
            "shell",
            json!({"command": "touch one && echo made one"}),
        ),
        call("c2", "shell", json!({"command": "touch two"})),
        call(
            "c3",
            "shell",
            json!({"command": "touch   one &&  echo made one"}),
        ),
        done(),
    ])
    .await;
    h.session.submit(Op::UserInput { text: "go".into() });
    let events = h
        .until(|e| matches!(e, EventMsg::ExecApprovalRequest { .. }))
        .await;
    let Some(EventMsg::ExecApprovalRequest {
        call_id,
        command,
        cwd,
        description,
        for_session,
        session_prefix,
        reason,
    }) = events.last()
    else {
        unreachable!()
    };
    assert_eq!(for_session.as_deref(), Some("this exact command"));
    assert_eq!(
        session_prefix, &None,
        "touch has no subcommands to generalise"
    );
    assert_eq!(reason, &None);
    assert_eq!(call_id, "c1");
    assert_eq!(command, "touch one && echo made one");
    assert_eq!(cwd, &h.cwd());
    assert_eq!(description, "Would run `touch one && echo made one`");
    h.session.submit(Op::ExecApproval {
        call_id: "c1".into(),
        decision: ReviewDecision::ApprovedForSession,
    });
    // `touch two` is another command, so it is asked; the same command with other spacing
    // is not.
    let events = h
        .until(|e| matches!(e, EventMsg::ExecApprovalRequest { .. }))
        .await;
    assert!(
        matches!(events.last(), Some(EventMsg::ExecApprovalRequest { call_id, .. }) if call_id == "c2")
    );
    h.session.submit(Op::ExecApproval {
        call_id: "c2".into(),
        decision: ReviewDecision::Approved,
    });
    let events = h.until_task_end().await;
    assert_eq!(
        asked(&events),
        0,
        "the command was approved for the session"
    );
    assert!(h.cwd().join("one").exists() && h.cwd().join("two").exists());
    assert!(h.tool_output(1, "c1").contains("made one"));
    h.server.assert_no_violations();
}

#[tokio::test]
async fn denied_patch_tells_the_model_and_writes_nothing() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("notes.txt");
    let mut h = start(vec![
        call(
            "c1",
            "write_file",
            json!({"path": target, "content": "x\n"}),
        ),
        done(),
    ])
    .await;
    h.session.submit(Op::UserInput { text: "go".into() });
    let events = h
        .until(|e| matches!(e, EventMsg::PatchApprovalRequest { .. }))
        .await;
    let Some(EventMsg::PatchApprovalRequest {
        paths,
        diff,
        description,
        ..
    }) = events.last()
    else {
        unreachable!()
    };
    assert_eq!(paths, &vec![target.clone()]);
    assert!(diff.contains("+x"), "{diff}");
    assert_eq!(
        description,
        &format!("Would write {} (1 line)", target.display())
    );
    h.session.submit(Op::PatchApproval {
        call_id: "c1".into(),
        decision: ReviewDecision::Denied {
            feedback: Some("not there".into()),
        },
    });
    h.until_task_end().await;
    let output = h.tool_output(1, "c1");
    assert!(
        output.starts_with("The user declined this call, so it was not run."),
        "{output}"
    );
    assert!(output.ends_with("User feedback: not there"));
    assert!(!target.exists());
}

#[tokio::test]
async fn headless_untrusted_denies_and_never_runs_everything() {
    let untrusted = Setup {
        policy: ApprovalPolicy::Untrusted,
        interactive: false,
        ..Setup::default()
    };
    let mut h = start_with(
        vec![
            call(
                "c1",
                "edit_file",
                json!({"path": "a.txt", "old_string": "a", "new_string": "b"}),
            ),
            done(),
        ],
        untrusted,
    )
    .await;
    std::fs::write(h.cwd().join("a.txt"), "a\n").unwrap();
    let events = h.run("go").await;
    assert_eq!(asked(&events), 0);
    let output = h.tool_output(1, "c1");
    assert!(
        output.starts_with("This call needs the user's approval, but no user is available"),
        "{output}"
    );
    assert!(output.contains("Would edit a.txt (+1 -1)"), "{output}");
    assert_eq!(
        std::fs::read_to_string(h.cwd().join("a.txt")).unwrap(),
        "a\n"
    );

    let never = Setup {
        policy: ApprovalPolicy::Never,
        interactive: false,
        ..Setup::default()
    };
    let patch = "*** Begin Patch\n*** Add File: b.txt\n+new\n*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch";
    let mut h = start_with(
        vec![
            call("c1", "apply_patch", json!({"input": patch})),
            call(
                "c2",
                "shell",
                json!({"command": "rm b.txt && echo removed"}),
            ),
            done(),
        ],
        never,
    )
    .await;
    std::fs::write(h.cwd().join("a.txt"), "a\n").unwrap();
    let events = h.run("go").await;
    assert_eq!(asked(&events), 0);
    assert_eq!(
        h.tool_output(1, "c1"),
        "Success. Updated the following files:\nA b.txt\nM a.txt"
    );
    assert!(h.tool_output(2, "c2").contains("removed"));
    assert_eq!(
        std::fs::read_to_string(h.cwd().join("a.txt")).unwrap(),
        "A\n"
    );
    assert!(!h.cwd().join("b.txt").exists());
}

#[tokio::test]
async fn failures_reach_the_model_as_messages() {
    let mut h = start(vec![
        call(
            "c1",
            "edit_file",
            json!({"path": "a.txt", "old_string": "zzz", "new_string": "y"}),
        ),
        call(
            "c2",
            "write_file",
            json!({"path": ".git/config", "content": "x"}),
        ),
        call("c3", "read_file", json!({"path": "missing.rs"})),
        done(),
    ])
    .await;
    std::fs::write(h.cwd().join("a.txt"), "a\n").unwrap();
    let events = h.run("go").await;
    assert_eq!(
        asked(&events),
        0,
        "bad calls are answered before anyone is asked"
    );
    assert!(
        h.tool_output(1, "c1")
            .starts_with("old_string was not found in a.txt.")
    );
    assert!(
        h.tool_output(2, "c2")
            .starts_with("Refusing to write .git/config")
    );
    assert!(
        h.tool_output(3, "c3")
            .starts_with("File not found: missing.rs.")
    );
    h.server.assert_no_violations();
}

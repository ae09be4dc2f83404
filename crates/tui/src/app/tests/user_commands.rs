//! `/plan review` after an interrupt, and `!cmd`.

use super::*;
use crate::strings;

const PLAN_FILE: &str = "/h/plans/conv-1_20261123_090000.md";

fn review_request() -> EventMsg {
    EventMsg::PlanModeExitRequest {
        plan_content: "# Plan\n\n1. Add a cache\n".into(),
        plan_file_path: PathBuf::from(PLAN_FILE),
    }
}

/// Plan mode on, a turn running and its plan put to the user.
fn reviewing(h: &mut Harness) {
    h.submit("/plan");
    h.event_id(
        "op-1",
        EventMsg::PlanModeEntered {
            plan_file_path: PathBuf::from(PLAN_FILE),
        },
    );
    h.submit("plan a cache");
    h.event_id("op-2", EventMsg::TaskStarted);
    h.event_id("op-2", review_request());
    assert!(h.render().contains("Plan Review"));
}

#[test]
fn an_interrupt_closes_the_review_and_plan_review_reopens_it() {
    let mut h = Harness::configured(80, 24);
    reviewing(&mut h);
    h.ctrl('c');
    assert_eq!(h.last_op(), Some(Op::Interrupt));
    h.event_id(
        "op-2",
        EventMsg::TurnAborted {
            reason: TurnAbortReason::Interrupted,
        },
    );
    let screen = h.render();
    assert!(!screen.contains("Plan Review"), "{screen}");
    assert!(
        screen.contains("Type /plan review to open it again."),
        "{screen}"
    );

    h.submit("/plan review");
    assert_eq!(h.last_op(), Some(Op::ReviewPlan));
    h.event_id("op-4", review_request());
    assert!(h.render().contains("Plan Review"));
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::PlanModeApproval {
            approved: true,
            feedback: None
        })
    );
    // The core starts a task that tells the model; the app shows it working.
    h.at(10.0);
    h.event_id("op-5", EventMsg::TaskStarted);
    h.event_id(
        "op-5",
        EventMsg::PlanModeExited {
            approved: true,
            active: false,
        },
    );
    let screen = h.render();
    assert!(screen.contains("Working"), "{screen}");
    assert!(screen.contains(strings::PLAN_APPROVED), "{screen}");
    assert!(!screen.contains("PLAN MODE"), "{screen}");
}

#[test]
fn plan_review_outside_plan_mode_says_there_is_nothing_to_review() {
    let mut h = Harness::configured(80, 24);
    h.submit("/plan review");
    assert_eq!(h.last_op(), None);
    assert!(
        h.render()
            .contains("Not in plan mode, so no plan is waiting for review.")
    );
}

#[test]
fn a_bang_command_goes_to_the_core_as_a_shell_command() {
    let mut h = Harness::configured(80, 24);
    h.submit("!git status --short");
    assert_eq!(
        h.last_op(),
        Some(Op::UserShellCommand {
            command: "git status --short".into()
        })
    );
    h.event_id("op-1", EventMsg::TaskStarted);
    h.event_id(
        "op-1",
        EventMsg::ToolCallBegin {
            call_id: "user_shell_1".into(),
            name: "shell".into(),
            arguments: r#"{"command":"git status --short"}"#.into(),
            description: "Would run `git status --short`".into(),
        },
    );
    h.event_id(
        "op-1",
        EventMsg::ToolCallEnd {
            call_id: "user_shell_1".into(),
            name: "shell".into(),
            output: "Exit code: 0\nDuration: 3ms\n M src/lib.rs\n".into(),
            success: true,
            duration_ms: 3,
        },
    );
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    let screen = h.render();
    assert!(screen.contains("!git status --short"), "{screen}");
    assert!(screen.contains("Ran `git status --short`"), "{screen}");
    assert!(!screen.contains("Working"), "{screen}");
}

#[test]
fn a_bang_alone_says_what_to_type_and_sends_nothing() {
    let mut h = Harness::configured(80, 24);
    h.submit("!");
    assert_eq!(h.last_op(), None);
    assert!(h.render().contains("Type a shell command after !"));
}

#[test]
fn a_bang_command_typed_during_a_turn_runs_after_it() {
    let mut h = Harness::configured(80, 24);
    h.submit("fix the parser");
    h.event_id("op-1", EventMsg::TaskStarted);
    h.submit("!cargo test");
    assert_eq!(h.ops().len(), 1, "queued, not sent: {:?}", h.ops());
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    assert_eq!(
        h.last_op(),
        Some(Op::UserShellCommand {
            command: "cargo test".into()
        })
    );
}

#[test]
fn after_an_interrupt_a_queued_bang_command_is_not_joined_to_queued_messages() {
    let mut h = Harness::configured(80, 24);
    h.submit("fix the parser");
    h.event_id("op-1", EventMsg::TaskStarted);
    h.submit("!cargo test");
    h.submit("then fix the failures");
    h.event_id(
        "op-1",
        EventMsg::TurnAborted {
            reason: TurnAbortReason::Interrupted,
        },
    );
    assert_eq!(h.app.composer_text(), "then fix the failures");
    assert!(
        h.render()
            .contains("Not run, the turn was interrupted: !cargo test (press ↑ to recall it)")
    );
    assert_eq!(h.ops().len(), 1, "nothing else was sent: {:?}", h.ops());
}

#[test]
fn help_names_plan_review_file_completion_and_bang_commands() {
    let mut h = Harness::configured(100, 60);
    h.submit("/help");
    let screen = h.render();
    for needle in [
        "/plan review reopen the plan review after an interrupt",
        "@path        complete a file path",
        "!command     run a shell command yourself",
    ] {
        assert!(screen.contains(needle), "{needle} missing:\n{screen}");
    }
}

#[test]
fn the_placeholder_names_slash_at_and_bang_where_it_fits_whole() {
    let mut h = Harness::configured(80, 24);
    assert!(
        h.render()
            .contains("Ask cairn anything · / commands · @ files · ! shell")
    );
    h.resize(40, 24);
    let screen = h.render();
    assert!(screen.contains("›  Ask cairn anything\n"), "{screen}");
    assert!(!screen.contains("· / comm"), "{screen}");
}

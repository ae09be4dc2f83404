//! Conversations: streaming, plans, queueing, interrupting, tool calls.

use super::*;

#[test]
fn streamed_answer_renders_complete_lines_only_and_task_ends() {
    let mut h = Harness::configured(60, 16);
    h.submit("explain the parser");
    assert_eq!(
        h.ops(),
        vec![Op::UserInput {
            text: "explain the parser".into()
        }]
    );
    h.event_id("op-1", EventMsg::TaskStarted);
    h.event_id("op-1", delta("The parser is **incre"));
    let screen = h.render();
    assert!(
        !screen.contains("The parser"),
        "half a line is not shown:\n{screen}"
    );
    h.event_id("op-1", delta("mental**.\nSecond line"));
    let screen = h.render();
    assert!(screen.contains("• The parser is incremental."), "{screen}");
    assert!(!screen.contains("Second line"));
    h.at(12.4);
    insta::assert_snapshot!("streaming_working", h.render());
    h.event_id(
        "op-1",
        EventMsg::AgentMessage {
            message: "The parser is **incremental**.\nSecond line.".into(),
        },
    );
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    let screen = h.render();
    assert!(screen.contains("Second line."));
    assert!(!screen.contains("Working"));
    assert!(!h.app.is_working());
}

#[test]
fn stream_error_drops_the_partial_message() {
    let mut h = Harness::configured(60, 12);
    h.submit("hi");
    h.event_id("op-1", delta("partial answer that will be retried\n"));
    assert!(h.render().contains("partial answer"));
    h.event_id(
        "op-1",
        EventMsg::StreamError {
            message: "Connection reset. Reconnecting... 1/5".into(),
        },
    );
    let screen = h.render();
    assert!(!screen.contains("partial answer"), "{screen}");
    assert!(screen.contains("Reconnecting... 1/5"));
    h.event_id("op-1", delta("fresh answer\n"));
    let screen = h.render();
    assert!(screen.contains("• fresh answer"));
    assert!(!screen.contains("Reconnecting"));
}

#[test]
fn plan_updates_render_a_checklist_and_a_pinned_plan() {
    let mut h = Harness::configured(70, 24);
    h.submit("do it");
    h.event_id(
        "op-1",
        EventMsg::PlanUpdate(plan(&[
            ("Read the code", PlanStepStatus::Completed),
            ("Fix the bug", PlanStepStatus::InProgress),
            ("Run the tests", PlanStepStatus::Pending),
        ])),
    );
    let screen = h.render();
    insta::assert_snapshot!("plan_checklist_pinned", screen);
    assert!(screen.contains("Plan · 1 of 3 done"));
    // Styles of DESIGN.md §7.
    let done = h.style_of("Read the code").unwrap();
    assert!(
        done.add_modifier
            .contains(ratatui::style::Modifier::CROSSED_OUT)
    );
    let current = h.style_of("Fix the bug").unwrap();
    assert_eq!(current.fg, Some(ratatui::style::Color::Cyan));
    assert!(
        current
            .add_modifier
            .contains(ratatui::style::Modifier::BOLD)
    );
    h.ctrl('t');
    assert!(
        !h.render().contains("1 of 3 done"),
        "Ctrl+T hides the pinned plan"
    );
    h.ctrl('t');
    assert!(h.render().contains("1 of 3 done"));
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    assert!(
        !h.render().contains("1 of 3 done"),
        "pinned only while a task runs"
    );
}

#[test]
fn messages_typed_during_a_task_are_queued_and_sent_when_it_ends() {
    let mut h = Harness::configured(60, 14);
    h.submit("first");
    h.submit("second");
    assert_eq!(h.ops().len(), 1, "second waits");
    assert!(h.render().contains("↳ queued: second"));
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    assert_eq!(
        h.last_op(),
        Some(Op::UserInput {
            text: "second".into()
        })
    );
    assert!(h.app.is_working());
}

#[test]
fn esc_interrupts_and_queued_text_returns_to_the_composer() {
    let mut h = Harness::configured(60, 14);
    h.submit("first");
    h.submit("second");
    h.key(KeyCode::Esc);
    assert_eq!(h.last_op(), Some(Op::Interrupt));
    h.event_id(
        "op-1",
        EventMsg::TurnAborted {
            reason: TurnAbortReason::Interrupted,
        },
    );
    assert!(!h.app.is_working());
    assert_eq!(h.app.composer_text(), "second");
    assert!(h.render().contains("Interrupted."));
}

#[test]
fn ctrl_c_interrupts_then_a_second_within_two_seconds_quits() {
    let mut h = Harness::configured(60, 10);
    h.submit("work");
    h.at(1.0);
    h.ctrl('c');
    assert_eq!(h.last_op(), Some(Op::Interrupt));
    assert!(h.render().contains("Press Ctrl+C again to quit"));
    assert!(h.requests.is_empty());
    h.at(3.5);
    assert!(!h.render().contains("Press Ctrl+C again"), "hint expires");
    h.ctrl('c');
    assert!(h.requests.is_empty(), "more than 2 s apart: no quit");
    h.at(4.0);
    h.ctrl('c');
    assert_eq!(h.requests, vec![Request::Quit]);
}

#[test]
fn ctrl_c_when_idle_clears_the_composer_first() {
    let mut h = Harness::configured(60, 10);
    h.type_str("draft");
    h.ctrl('c');
    assert_eq!(h.app.composer_text(), "");
    assert!(h.ops().is_empty());
}

#[test]
fn no_provider_notice_then_error_cell_and_nothing_hangs() {
    let mut h = Harness::new(80, 14);
    h.event(EventMsg::SessionConfigured(SessionConfiguredEvent {
        conversation_id: "c".into(),
        model: "gpt-5.1".into(),
        provider: None,
        cwd: PathBuf::from("/w"),
        approval_policy: ApprovalPolicy::OnRequest,
        planning: "checklist".into(),
    }));
    let guidance = "No model provider configured: set OPENAI_API_KEY.";
    h.event(EventMsg::Notice {
        message: guidance.into(),
    });
    h.submit("hello");
    h.event_id("op-1", EventMsg::TaskStarted);
    h.event_id(
        "op-1",
        EventMsg::Error {
            message: guidance.into(),
        },
    );
    assert!(!h.app.is_working());
    insta::assert_snapshot!("no_provider", h.render());
}

#[test]
fn tool_calls_show_name_description_and_output() {
    let mut h = Harness::configured(70, 20);
    h.submit("run");
    h.event_id(
        "op-1",
        EventMsg::ToolCallBegin {
            call_id: "t1".into(),
            name: "shell".into(),
            arguments: "{}".into(),
            description: "Would run `seq 1 8` in .".into(),
        },
    );
    assert!(h.render().contains("• shell · Running `seq 1 8` in ."));
    h.event_id(
        "op-1",
        EventMsg::ToolCallEnd {
            call_id: "t1".into(),
            name: "shell".into(),
            output: "1\n2\n3\n4\n5\n6\n7\n8\n".into(),
            success: true,
            duration_ms: 12,
        },
    );
    let screen = h.render();
    assert!(
        screen.contains("• shell · Ran `seq 1 8` in . (12ms)"),
        "{screen}"
    );
    assert!(!screen.contains("Would"), "{screen}");
    assert!(screen.contains("… +3 lines (ctrl+o to expand)"), "{screen}");
    assert!(!screen.contains("    2"));
    h.ctrl('o');
    assert!(h.render().contains("    2"), "expanded");
    // update_plan calls are shown by their plan cell only.
    h.event_id(
        "op-1",
        EventMsg::ToolCallBegin {
            call_id: "t2".into(),
            name: "update_plan".into(),
            arguments: "{}".into(),
            description: "Would update the plan".into(),
        },
    );
    let screen = h.render();
    assert!(
        !screen.contains("update the plan") && !screen.contains("Updating the plan"),
        "{screen}"
    );
}

#[test]
fn paste_goes_to_the_composer_in_one_piece() {
    let mut h = Harness::configured(60, 10);
    h.app.handle_paste("line one\nline two");
    h.settle();
    assert_eq!(h.app.composer_text(), "line one\nline two");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::UserInput {
            text: "line one\nline two".into()
        })
    );
}

#[test]
fn initial_prompt_is_sent_once_the_session_is_configured() {
    let mut h = Harness::new(60, 10);
    h.app.submit_when_ready("hello from argv".into());
    assert!(h.ops().is_empty());
    h.event(EventMsg::SessionConfigured(SessionConfiguredEvent {
        conversation_id: "c".into(),
        model: "m".into(),
        provider: Some("mock".into()),
        cwd: PathBuf::from("/w"),
        approval_policy: ApprovalPolicy::OnRequest,
        planning: "checklist".into(),
    }));
    assert_eq!(
        h.ops(),
        vec![Op::UserInput {
            text: "hello from argv".into()
        }]
    );
}

//! Approval, question and plan review overlays.

use super::*;

fn exec_request(call_id: &str, command: &str) -> EventMsg {
    EventMsg::ExecApprovalRequest {
        call_id: call_id.into(),
        command: command.into(),
        cwd: PathBuf::from("/work/project"),
        description: format!("Would run `{command}` in ."),
        for_session: Some("this exact command".into()),
        session_prefix: command
            .starts_with("cargo ")
            .then(|| command.split(' ').take(2).collect::<Vec<_>>().join(" ")),
        reason: None,
    }
}

#[test]
fn approval_overlay_says_what_the_session_answers_cover() {
    let mut h = Harness::configured(100, 20);
    h.submit("test it");
    h.event_id("op-1", exec_request("c1", "cargo test -p core"));
    let screen = h.render();
    assert!(
        screen.contains("[a] Yes, and don't ask again this session for this exact command"),
        "{screen}"
    );
    assert!(
        screen.contains(
            "[p] Yes, and don't ask again this session for commands starting with `cargo test`"
        ),
        "{screen}"
    );
    h.key(KeyCode::Char('p'));
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c1".into(),
            decision: ReviewDecision::ApprovedPrefixForSession {
                prefix: "cargo test".into()
            }
        })
    );
    // No prefix on offer: `p` does nothing, `a` approves the exact command.
    h.event_id("op-1", exec_request("c2", "rm build.log"));
    let screen = h.render();
    assert!(!screen.contains("[p]"), "{screen}");
    h.key(KeyCode::Char('p'));
    assert!(h.render().contains("rm build.log"), "p must not answer");
    h.key(KeyCode::Char('a'));
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c2".into(),
            decision: ReviewDecision::ApprovedForSession
        })
    );
}

#[test]
fn an_always_asked_request_offers_no_session_answer_and_says_why() {
    let mut h = Harness::configured(100, 20);
    h.submit("configure");
    h.event_id(
        "op-1",
        EventMsg::PatchApprovalRequest {
            call_id: "p1".into(),
            paths: vec![PathBuf::from("/home/u/.cairn/config.toml")],
            diff: "--- a/config.toml\n+++ b/config.toml\n@@ -0,0 +1 @@\n+approval_policy = \"never\"\n".into(),
            description: "Would edit /home/u/.cairn/config.toml (+1 -0)".into(),
            for_session: None,
            reason: Some("It changes cairn's own settings.".into()),
        },
    );
    let screen = h.render();
    assert!(
        screen.contains("Always asked: It changes cairn's own settings."),
        "{screen}"
    );
    assert!(!screen.contains("[a]"), "{screen}");
    h.key(KeyCode::Char('a'));
    assert!(
        h.last_op()
            .is_none_or(|op| !matches!(op, Op::PatchApproval { .. }))
    );
    h.key(KeyCode::Char('y'));
    assert_eq!(
        h.last_op(),
        Some(Op::PatchApproval {
            call_id: "p1".into(),
            decision: ReviewDecision::Approved
        })
    );
}

#[test]
fn a_read_outside_the_workspace_is_answered_with_a_read_approval() {
    let mut h = Harness::configured(90, 20);
    h.submit("look");
    h.event_id(
        "op-1",
        EventMsg::ReadApprovalRequest {
            call_id: "r1".into(),
            paths: vec![PathBuf::from("/etc/hosts")],
            description: "Would read /etc/hosts".into(),
            for_session: Some("reads of /etc/hosts".into()),
            reason: None,
        },
    );
    let screen = h.render();
    assert!(
        screen.contains("Allow this read outside the workspace?"),
        "{screen}"
    );
    assert!(screen.contains("• /etc/hosts"), "{screen}");
    h.key(KeyCode::Char('a'));
    assert_eq!(
        h.last_op(),
        Some(Op::ReadApproval {
            call_id: "r1".into(),
            decision: ReviewDecision::ApprovedForSession
        })
    );
}

#[test]
fn approval_overlay_approves_and_queues_further_requests() {
    let mut h = Harness::configured(80, 20);
    h.submit("build it");
    h.event_id("op-1", exec_request("c1", "cargo build"));
    h.event_id("op-1", exec_request("c2", "rm -rf target"));
    insta::assert_snapshot!("approval_exec_queued", h.render());
    h.type_str("hello");
    assert_eq!(
        h.app.composer_text(),
        "",
        "keys do not leak into the composer"
    );
    h.key(KeyCode::Char('y'));
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c1".into(),
            decision: ReviewDecision::Approved
        })
    );
    let screen = h.render();
    assert!(
        screen.contains("rm -rf target"),
        "second request shows next:\n{screen}"
    );
    h.key(KeyCode::Char('n'));
    h.type_str("too dangerous");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c2".into(),
            decision: ReviewDecision::Denied {
                feedback: Some("too dangerous".into())
            }
        })
    );
    assert!(h.render().contains("› "), "composer is back");
}

#[test]
fn a_dialog_that_opens_while_the_user_types_is_not_answered_by_the_typing() {
    let mut h = Harness::configured(80, 20);
    h.submit("build it");
    h.at(5.0);
    h.type_str("and th");
    // The approval arrives mid-word; "any" would otherwise approve for the whole session.
    h.event_id("op-1", exec_request("c1", "rm -rf build"));
    h.at(5.2);
    h.type_str("en any tests");
    h.key(KeyCode::Enter);
    assert_eq!(h.ops().len(), 1, "nothing was decided: {:?}", h.ops());
    assert!(
        h.render().contains("Allow this command?"),
        "the dialog waits"
    );
    assert!(
        h.render().contains("↳ queued: and then any tests"),
        "the typing became the queued message it was meant to be"
    );
    // Once the user had time to see the dialog, its keys work.
    h.at(6.0);
    h.key(KeyCode::Char('n'));
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c1".into(),
            decision: ReviewDecision::Denied { feedback: None }
        })
    );
    // A dialog that opens while the user waits (even right after sending a message)
    // answers to its keys at once.
    h.at(20.0);
    h.submit("one more thing");
    h.event_id("op-1", exec_request("c2", "ls"));
    h.key(KeyCode::Char('y'));
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c2".into(),
            decision: ReviewDecision::Approved
        })
    );
}

#[test]
fn approval_overlay_session_esc_and_abort() {
    let mut h = Harness::configured(80, 20);
    h.submit("x");
    h.event_id("op-1", exec_request("c1", "ls"));
    h.key(KeyCode::Char('a'));
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c1".into(),
            decision: ReviewDecision::ApprovedForSession
        })
    );
    h.event_id("op-1", exec_request("c2", "ls"));
    h.key(KeyCode::Esc);
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c2".into(),
            decision: ReviewDecision::Denied { feedback: None }
        })
    );
    assert!(
        h.app.is_working(),
        "Esc in the overlay denies; it does not interrupt"
    );
    h.event_id("op-1", exec_request("c3", "ls"));
    h.ctrl('c');
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c3".into(),
            decision: ReviewDecision::Abort
        })
    );
}

#[test]
fn patch_approval_shows_a_coloured_diff() {
    let mut h = Harness::configured(70, 24);
    h.submit("edit");
    h.event_id(
        "op-1",
        EventMsg::PatchApprovalRequest {
            call_id: "p1".into(),
            paths: vec![PathBuf::from("src/lib.rs")],
            diff: "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,2 +1,2 @@\n fn main() {\n-    old();\n+    new();\n".into(),
            description: "Would edit src/lib.rs (+1 -1)".into(),
            for_session: Some("edits to src/lib.rs".into()),
            reason: None,
        },
    );
    insta::assert_snapshot!("approval_patch", h.render());
    assert_eq!(
        h.style_of("+    new();").unwrap().fg,
        Some(ratatui::style::Color::Green)
    );
    h.key(KeyCode::Char('y'));
    assert_eq!(
        h.last_op(),
        Some(Op::PatchApproval {
            call_id: "p1".into(),
            decision: ReviewDecision::Approved
        })
    );
}

#[test]
fn a_big_diff_scrolls_in_the_approval_overlay_under_fixed_keys() {
    let mut h = Harness::configured(100, 30);
    h.submit("write it");
    let mut diff = String::from("--- /dev/null\n+++ b/out/file.txt\n@@ -0,0 +1,120 @@\n");
    for i in 0..120 {
        diff.push_str(&format!("+line {i}\n"));
    }
    h.event_id(
        "op-1",
        EventMsg::PatchApprovalRequest {
            call_id: "p1".into(),
            paths: vec![PathBuf::from("/tmp/out/file.txt")],
            diff,
            description: "Would write /tmp/out/file.txt (120 lines)".into(),
            for_session: Some("edits to /tmp/out/file.txt".into()),
            reason: None,
        },
    );
    let screen = h.render();
    assert!(screen.contains("│ +line 0 "), "{screen}");
    assert!(!screen.contains("+line 119"), "{screen}");
    assert!(
        screen.contains("of 125 · [↑↓ PgUp PgDn] Scroll"),
        "{screen}"
    );
    assert!(screen.contains("[y] Yes"), "{screen}");
    h.key(KeyCode::PageDown);
    let screen = h.render();
    assert!(!screen.contains("│ +line 0 "), "{screen}");
    h.key(KeyCode::End);
    let screen = h.render();
    assert!(
        screen.contains("+line 119"),
        "the last line is reachable:\n{screen}"
    );
    assert!(
        screen.contains("[y] Yes"),
        "the keys stay in view:\n{screen}"
    );
    insta::assert_snapshot!("approval_big_diff_end", screen);
    h.app.handle_wheel(-1);
    assert!(
        !h.render().contains("+line 119"),
        "the wheel scrolls the overlay"
    );
    h.key(KeyCode::Home);
    assert!(
        h.render()
            .contains("│ Would write /tmp/out/file.txt (120 lines) ")
    );
    h.key(KeyCode::Char('y'));
    assert_eq!(
        h.last_op(),
        Some(Op::PatchApproval {
            call_id: "p1".into(),
            decision: ReviewDecision::Approved
        })
    );
}

#[test]
fn ctrl_t_hides_the_pinned_plan_while_an_approval_is_open() {
    let mut h = Harness::configured(80, 24);
    h.submit("work");
    h.event_id(
        "op-1",
        EventMsg::PlanUpdate(plan(&[
            ("Read", PlanStepStatus::Completed),
            ("Write", PlanStepStatus::InProgress),
        ])),
    );
    h.event_id("op-1", exec_request("c1", "cargo test"));
    assert!(h.render().contains("Plan · 1 of 2 done"));
    h.ctrl('t');
    let screen = h.render();
    assert!(!screen.contains("Plan · 1 of 2 done"), "{screen}");
    assert!(screen.contains("Allow this command?"), "{screen}");
    assert!(h.ops().len() == 1, "no decision: {:?}", h.ops());
    h.ctrl('t');
    assert!(h.render().contains("Plan · 1 of 2 done"));
}

#[test]
fn a_long_command_is_shown_whole_in_a_small_terminal() {
    let mut h = Harness::configured(50, 14);
    h.submit("run");
    let command = (0..30)
        .map(|i| format!("arg{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    h.event_id(
        "op-1",
        exec_request("c1", &format!("echo {command} && echo end")),
    );
    assert!(h.render().contains("[y] Yes"));
    h.key(KeyCode::End);
    let screen = h.render();
    assert!(screen.contains("&& echo end"), "{screen}");
    assert!(screen.contains("[y] Yes"), "{screen}");
}

#[test]
fn approval_overlays_close_when_the_task_ends() {
    let mut h = Harness::configured(80, 20);
    h.submit("x");
    h.event_id("op-1", exec_request("c1", "ls"));
    h.event_id(
        "op-1",
        EventMsg::TurnAborted {
            reason: TurnAbortReason::Interrupted,
        },
    );
    h.type_str("typing works");
    assert_eq!(h.app.composer_text(), "typing works");
}

#[test]
fn question_overlay_answers_by_number_or_text() {
    let mut h = Harness::configured(70, 20);
    h.submit("plan");
    h.event_id(
        "op-1",
        EventMsg::UserQuestionRequest {
            call_id: "q1".into(),
            questions: vec![
                UserQuestion {
                    question: "Which database?".into(),
                    options: vec!["Postgres".into(), "SQLite".into()],
                },
                UserQuestion {
                    question: "Anything else?".into(),
                    options: vec![],
                },
            ],
        },
    );
    insta::assert_snapshot!("question_overlay", h.render());
    h.key(KeyCode::Char('2'));
    h.key(KeyCode::Enter);
    assert!(h.render().contains("Anything else?"));
    h.type_str("keep it small");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::UserQuestionAnswer {
            call_id: "q1".into(),
            answers: vec!["SQLite".into(), "keep it small".into()]
        })
    );
}

fn long_plan() -> String {
    let mut text = String::from("# Plan: add a cache\n\n## Steps\n\n");
    for i in 1..=30 {
        text.push_str(&format!("{i}. Step number {i} with `code`\n"));
    }
    text.push_str("\n## Verification\n\nRun **all** the tests.\n");
    text
}

fn open_review(h: &mut Harness) {
    h.submit("/plan");
    h.event_id(
        "op-1",
        EventMsg::PlanModeEntered {
            plan_file_path: PathBuf::from("/h/plans/conv-1_20261122_030405.md"),
        },
    );
    h.submit("make a plan");
    h.event_id(
        "op-2",
        EventMsg::PlanModeExitRequest {
            plan_content: long_plan(),
            plan_file_path: PathBuf::from("/h/plans/conv-1_20261122_030405.md"),
        },
    );
}

#[test]
fn plan_review_scrolls_from_the_start_and_enter_approves() {
    let mut h = Harness::configured(80, 20);
    open_review(&mut h);
    let screen = h.render();
    insta::assert_snapshot!("plan_review", screen);
    assert!(screen.contains("Plan Review - conv-1_20261122_030405.md"));
    assert!(screen.contains("[Enter] Approve  [Esc] Reject  [↑↓] Scroll  [e] Edit  [f] Feedback"));
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    assert!(
        !h.render().contains("Plan: add a cache"),
        "scrolled by two lines"
    );
    h.key(KeyCode::End);
    assert!(h.render().contains("Run all the tests."));
    h.key(KeyCode::Home);
    assert!(h.render().contains("Plan: add a cache"));
    h.key(KeyCode::PageDown);
    assert!(!h.render().contains("Plan: add a cache"));
    h.app
        .handle_terminal_event(crossterm::event::Event::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollUp,
            column: 0,
            row: 0,
            modifiers: KeyModifiers::NONE,
        }));
    h.key(KeyCode::Home);
    h.type_str("x");
    assert_eq!(h.app.composer_text(), "", "nothing reaches the composer");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::PlanModeApproval {
            approved: true,
            feedback: None
        })
    );
    h.event_id(
        "op-2",
        EventMsg::PlanModeExited {
            approved: true,
            active: false,
        },
    );
    let screen = h.render();
    assert!(screen.contains(" NORMAL "));
    assert!(screen.contains("Plan approved. Exiting plan mode."));
    assert!(!h.app.in_plan_mode());
}

#[test]
fn plan_review_keys_and_long_feedback_wrap_in_a_narrow_terminal() {
    let mut h = Harness::configured(60, 20);
    open_review(&mut h);
    let screen = h.render();
    assert!(
        screen.contains(
            "│ [Enter] Approve  [Esc] Reject  [↑↓] Scroll  [e] Edit     │\n│ [f] Feedback"
        ),
        "every key stays readable:\n{screen}"
    );
    h.key(KeyCode::End);
    assert!(
        h.render().contains("Run all the tests."),
        "the end is reachable"
    );
    h.key(KeyCode::Char('f'));
    h.type_str("split the cache step in two and measure the hit rate before and after");
    let screen = h.render();
    insta::assert_snapshot!("plan_review_feedback_60", screen);
    assert!(screen.contains("before and after▏"), "{screen}");
    assert!(screen.contains("[Esc] Cancel"), "{screen}");
}

#[test]
fn plan_review_title_and_working_line_stay_readable_at_40_columns() {
    let mut h = Harness::configured(40, 16);
    open_review(&mut h);
    let screen = h.render();
    insta::assert_snapshot!("plan_review_40", screen);
    let first = screen.lines().next().unwrap_or_default();
    assert!(first.starts_with("┌ Plan Review - conv-1_"), "{first}");
    assert!(first.contains("0405.md "), "the name's end stays: {first}");
    assert!(screen.contains("Working (0s)"), "{screen}");
}

#[test]
fn plan_review_esc_rejects_and_f_sends_feedback() {
    let mut h = Harness::configured(80, 20);
    open_review(&mut h);
    h.key(KeyCode::Esc);
    assert_eq!(
        h.last_op(),
        Some(Op::PlanModeApproval {
            approved: false,
            feedback: None
        })
    );
    h.event_id(
        "op-2",
        EventMsg::PlanModeExited {
            approved: false,
            active: true,
        },
    );
    assert!(h.app.in_plan_mode(), "rejection keeps plan mode");
    assert!(
        h.render()
            .contains("Plan rejected. Continuing in plan mode.")
    );
    h.event_id(
        "op-2",
        EventMsg::PlanModeExitRequest {
            plan_content: "v2".into(),
            plan_file_path: PathBuf::from("/h/plans/p.md"),
        },
    );
    h.key(KeyCode::Char('f'));
    h.type_str("split step 2");
    assert!(h.render().contains("Feedback: split step 2"));
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::PlanModeApproval {
            approved: false,
            feedback: Some("split step 2".into())
        })
    );
}

#[test]
fn plan_review_closes_when_the_task_is_interrupted() {
    let mut h = Harness::configured(80, 20);
    open_review(&mut h);
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
        h.app.in_plan_mode(),
        "interrupting does not leave plan mode"
    );
}

#[test]
fn plan_review_e_asks_the_loop_to_edit_and_shows_the_edited_plan() {
    let mut h = Harness::configured(80, 20);
    open_review(&mut h);
    h.key(KeyCode::Char('e'));
    assert_eq!(
        h.requests,
        vec![Request::EditPlan(PathBuf::from(
            "/h/plans/conv-1_20261122_030405.md"
        ))]
    );
    h.app
        .handle_plan_edited(Ok("# Edited plan\n\nOnly one step.\n".into()));
    let screen = h.render();
    assert!(screen.contains("Edited plan"), "{screen}");
    assert!(screen.contains("Plan Review - "));
    h.app
        .handle_plan_edited(Err("Could not run the editor: boom".into()));
    h.key(KeyCode::Enter);
    assert!(h.render().contains("Could not run the editor: boom"));
}

#[test]
fn an_empty_question_list_is_answered_at_once() {
    let mut h = Harness::configured(70, 12);
    h.submit("x");
    h.event_id(
        "op-1",
        EventMsg::UserQuestionRequest {
            call_id: "q0".into(),
            questions: vec![],
        },
    );
    assert_eq!(
        h.last_op(),
        Some(Op::UserQuestionAnswer {
            call_id: "q0".into(),
            answers: vec![]
        })
    );
    h.type_str("free");
    assert_eq!(h.app.composer_text(), "free");
}

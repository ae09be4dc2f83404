//! What a first hands-on session found (issue 18): keys that behave as in a shell, pastes
//! without bracketed paste, applied diffs, plan progress, Plan Review's size, the order of
//! feedback, retries in the status line, and /approvals with a bad value.

use super::*;
use crate::paste_burst::BURST_GAP;
use cairn_protocol::PlanStatus;
use crossterm::event::Event as TermEvent;

fn status_row(h: &mut Harness) -> String {
    h.render().lines().last().unwrap_or_default().to_string()
}

#[test]
fn ctrl_c_on_a_draft_clears_it_without_arming_quit() {
    let mut h = Harness::configured(60, 10);
    h.type_str("draft");
    h.ctrl('c');
    assert_eq!(h.app.composer_text(), "");
    assert!(
        !h.render().contains("Press Ctrl+C again"),
        "a draft does not arm quit"
    );
    h.ctrl('c');
    assert!(h.requests.is_empty(), "the first Ctrl+C on empty only arms");
    assert!(h.render().contains("Press Ctrl+C again to quit"));
    h.ctrl('c');
    assert_eq!(h.requests, vec![Request::Quit]);
}

#[test]
fn ctrl_d_quits_only_from_an_empty_composer() {
    let mut h = Harness::configured(60, 10);
    h.type_str("ab");
    h.key(KeyCode::Left);
    h.ctrl('d');
    assert_eq!(
        h.app.composer_text(),
        "a",
        "with text Ctrl+D deletes forward"
    );
    assert!(h.requests.is_empty());
    h.key(KeyCode::Backspace);
    h.ctrl('d');
    assert_eq!(h.requests, vec![Request::Quit]);
}

#[test]
fn ctrl_u_deletes_to_the_start_of_the_line() {
    let mut h = Harness::configured(60, 10);
    h.type_str("keep this");
    h.key_mod(KeyCode::Enter, KeyModifiers::SHIFT);
    h.type_str("drop this");
    h.ctrl('u');
    assert_eq!(h.app.composer_text(), "keep this\n");
}

/// Keys as the terminal delivers them, `gap` apart.
fn feed(h: &mut Harness, text: &str, start: f64, gap: Duration) {
    for (i, c) in text.chars().enumerate() {
        h.app
            .set_now(h.t0 + Duration::from_secs_f64(start) + gap * i as u32);
        let code = if c == '\n' {
            KeyCode::Enter
        } else {
            KeyCode::Char(c)
        };
        h.app
            .handle_terminal_event(TermEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
        h.settle();
    }
}

#[test]
fn a_paste_without_bracketed_paste_stays_one_message() {
    let mut h = Harness::configured(60, 12);
    feed(
        &mut h,
        "first line\nsecond line\n",
        1.0,
        Duration::from_micros(300),
    );
    assert!(h.ops().is_empty(), "nothing was sent: {:?}", h.ops());
    assert_eq!(h.app.composer_text(), "first line\nsecond line\n");
    // The user's own Enter, well after the burst, sends it whole.
    feed(&mut h, "\n", 2.0, BURST_GAP);
    assert_eq!(
        h.ops(),
        vec![Op::UserInput {
            text: "first line\nsecond line\n".into()
        }]
    );
}

#[test]
fn typing_at_human_speed_still_sends_on_enter() {
    let mut h = Harness::configured(60, 12);
    feed(&mut h, "hi\n", 1.0, Duration::from_millis(60));
    assert_eq!(h.ops(), vec![Op::UserInput { text: "hi".into() }]);
}

#[test]
fn an_auto_approved_edit_shows_its_diff_collapsed_until_ctrl_o() {
    let mut h = Harness::configured(72, 40);
    h.submit("edit it");
    h.event_id(
        "op-1",
        EventMsg::ToolCallBegin {
            call_id: "e1".into(),
            name: "edit_file".into(),
            arguments: "{}".into(),
            description: "Would edit src/lib.rs (+14 -1)".into(),
        },
    );
    let mut diff = String::from(
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,16 @@\n pub fn answer() -> u32 {\n-    42\n",
    );
    for i in 0..14 {
        diff.push_str(&format!(
            "+    let step_{i} = {i}; // a line long enough to wrap at seventy-two columns\n"
        ));
    }
    diff.push_str(" }\n");
    h.event_id(
        "op-1",
        EventMsg::PatchApplied {
            call_id: "e1".into(),
            diff: diff.clone(),
            auto_approved: true,
        },
    );
    h.event_id(
        "op-1",
        EventMsg::ToolCallEnd {
            call_id: "e1".into(),
            name: "edit_file".into(),
            output: "Edited src/lib.rs: 1 replacement (+14 -1 lines).".into(),
            success: true,
            duration_ms: 3,
        },
    );
    insta::assert_snapshot!("auto_approved_diff_collapsed", h.render());
    h.ctrl('o');
    let screen = h.render();
    assert!(screen.contains("let step_13 = 13;"), "{screen}");
    assert!(!screen.contains("ctrl+o to expand"), "{screen}");
}

#[test]
fn a_diff_the_user_approved_is_not_shown_twice() {
    let mut h = Harness::configured(72, 30);
    h.submit("edit it");
    h.event_id(
        "op-1",
        EventMsg::PatchApplied {
            call_id: "e1".into(),
            diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n".into(),
            auto_approved: false,
        },
    );
    assert!(!h.render().contains("+b"));
}

#[test]
fn pinned_plan_counts_completed_steps_only() {
    let mut h = Harness::configured(70, 20);
    h.submit("go");
    let mut plan = plan(&[
        ("Write the test", PlanStepStatus::Completed),
        ("Implement", PlanStepStatus::Completed),
        ("Port fixtures", PlanStepStatus::Failed),
        ("Benchmark", PlanStepStatus::Skipped),
    ]);
    plan.id = Some("plan-1a2b3c4d".into());
    plan.status = Some(PlanStatus::PartialSuccess);
    h.event_id("op-1", EventMsg::PlanUpdate(plan));
    let screen = h.render();
    assert!(screen.contains("Plan · 2 of 4 done"), "{screen}");
    assert!(!screen.contains("4 of 4"), "{screen}");
}

fn open_short_review(h: &mut Harness) {
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
            plan_content: "# Plan\n\n1. Read the parser\n2. Cache it\n".into(),
            plan_file_path: PathBuf::from("/h/plans/conv-1_20261122_030405.md"),
        },
    );
}

#[test]
fn plan_review_is_as_tall_as_a_short_plan() {
    let mut h = Harness::configured(80, 24);
    open_short_review(&mut h);
    let screen = h.render();
    insta::assert_snapshot!("plan_review_short", screen);
    assert!(
        screen.contains("› make a plan"),
        "the transcript stays in view"
    );
}

#[test]
fn plan_review_footer_never_counts_backwards_at_tiny_sizes() {
    let mut h = Harness::configured(80, 20);
    open_short_review(&mut h);
    for (width, height) in [(20, 6), (12, 4), (30, 5), (50, 8)] {
        h.resize(width, height);
        h.key(KeyCode::End);
        let screen = h.render();
        for line in screen.lines() {
            if let Some((first, rest)) = line.split_once('-')
                && let Some((last, _)) = rest.split_once(" of ")
                && let (Ok(first), Ok(last)) = (
                    first.rsplit(' ').next().unwrap_or("").parse::<usize>(),
                    last.trim().parse::<usize>(),
                )
            {
                assert!(first <= last, "{width}x{height}:\n{screen}");
            }
        }
    }
}

#[test]
fn feedback_shows_after_plan_rejected() {
    let mut h = Harness::configured(80, 24);
    open_short_review(&mut h);
    h.key(KeyCode::Char('f'));
    h.type_str("split step 2");
    h.key(KeyCode::Enter);
    h.event_id(
        "op-2",
        EventMsg::PlanModeExited {
            approved: false,
            active: true,
        },
    );
    let screen = h.render();
    let rejected = screen.find("Plan rejected.").expect("rejection notice");
    let feedback = screen.find("› split step 2").expect("feedback shown");
    assert!(rejected < feedback, "{screen}");
}

#[test]
fn approvals_with_a_bad_value_says_it_is_invalid() {
    let mut h = Harness::configured(100, 20);
    h.submit("/approvals bogus");
    let screen = h.render();
    assert!(
        screen.contains("'bogus' is not an approval policy; the policy is unchanged."),
        "{screen}"
    );
    assert!(h.ops().is_empty(), "nothing changed: {:?}", h.ops());
}

#[test]
fn the_retry_count_survives_80_columns() {
    let mut h = Harness::configured(80, 8);
    h.submit("hi");
    h.event_id(
        "op-1",
        EventMsg::StreamError {
            message: "connection to http://127.0.0.1:11434/v1/chat/completions failed: connection reset by peer. Reconnecting... 2/5 (in 0.4s)".into(),
        },
    );
    let status = status_row(&mut h);
    assert!(status.contains("Reconnecting... 2/5 (in 0.4s)"), "{status}");
    assert!(status.contains("connection to"), "{status}");
}

#[test]
fn a_hidden_pinned_plan_leaves_a_row_saying_so() {
    let mut h = Harness::configured(70, 20);
    h.submit("go");
    h.event_id(
        "op-1",
        EventMsg::PlanUpdate(plan(&[
            ("Read", PlanStepStatus::Completed),
            ("Write", PlanStepStatus::InProgress),
        ])),
    );
    assert!(h.render().contains("Plan · 1 of 2 done"));
    h.ctrl('t');
    let screen = h.render();
    assert!(!screen.contains("Plan · 1 of 2 done"), "{screen}");
    assert!(
        screen.contains("▸ Plan hidden (ctrl+t to show)"),
        "{screen}"
    );
    h.ctrl('t');
    assert!(!h.render().contains("Plan hidden"));
}

#[test]
fn the_exit_summary_names_the_resume_command_once_the_model_was_asked() {
    let mut h = Harness::configured(70, 20);
    assert_eq!(h.app.exit_summary(), None, "nothing to resume yet");
    h.submit("hi");
    h.event_id(
        "op-1",
        EventMsg::TokenCount(TokenUsage {
            input_tokens: 1200,
            output_tokens: 300,
            total_tokens: 1500,
            context_window: None,
        }),
    );
    assert_eq!(
        h.app.exit_summary().as_deref(),
        Some("Token usage: 1.5k total\nTo continue this session, run: cairn resume conv-1")
    );
}

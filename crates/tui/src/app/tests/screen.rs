//! Whole-screen layout: ready screen, status line states, scrolling, resizing, frames.

use super::*;

#[test]
fn ready_screen_shows_header_composer_and_normal_badge() {
    let mut h = Harness::configured(80, 12);
    insta::assert_snapshot!("ready_screen", h.render());
}

#[test]
fn transcript_scrolls_with_keys_and_wheel() {
    let mut h = Harness::configured(60, 12);
    for i in 0..40 {
        h.event(EventMsg::Notice {
            message: format!("line {i}"),
        });
    }
    assert!(h.render().contains("line 39"));
    h.key(KeyCode::PageUp);
    let screen = h.render();
    assert!(!screen.contains("line 39"));
    assert!(screen.contains("more lines (End)"));
    h.event(EventMsg::Notice {
        message: "line 40".into(),
    });
    assert!(
        !h.render().contains("line 40"),
        "scrolled up: new output does not yank the view"
    );
    h.key(KeyCode::End);
    assert!(h.render().contains("line 40"));
    h.app.handle_wheel(-1);
    assert!(!h.render().contains("line 40"));
    h.key(KeyCode::Home);
    assert!(h.render().contains("cairn (v"));
}

#[test]
fn resize_reflows_without_leftovers() {
    let mut h = Harness::configured(80, 12);
    h.event(EventMsg::Notice {
        message: "a fairly long notice that needs wrapping when the terminal gets narrow".into(),
    });
    h.render();
    h.resize(30, 14);
    insta::assert_snapshot!("resized_narrow", h.render());
}

#[test]
fn status_line_states() {
    let mut h = Harness::configured(90, 6);
    let status = |h: &mut Harness| h.render().lines().last().unwrap_or_default().to_string();
    insta::assert_snapshot!("status_idle", status(&mut h));
    h.submit("go");
    h.event_id(
        "op-1",
        EventMsg::TokenCount(TokenUsage {
            input_tokens: 1200,
            output_tokens: 300,
            total_tokens: 15_300,
            context_window: Some(128_000),
        }),
    );
    h.at(12.0);
    insta::assert_snapshot!("status_working_tokens", status(&mut h));
    h.ctrl('c');
    insta::assert_snapshot!("status_ctrl_c", status(&mut h));
    h.event_id(
        "op-1",
        EventMsg::TurnAborted {
            reason: TurnAbortReason::Interrupted,
        },
    );
    h.submit("/plan");
    h.event_id(
        "op-2",
        EventMsg::PlanModeEntered {
            plan_file_path: PathBuf::from("/p/x.md"),
        },
    );
    h.at(20.0);
    insta::assert_snapshot!("status_plan_mode", status(&mut h));
}

#[test]
fn frames_are_only_due_while_something_moves() {
    let mut h = Harness::configured(60, 10);
    assert_eq!(h.app.next_frame_deadline(), None, "idle: no frames");
    h.submit("go");
    assert!(
        h.app.next_frame_deadline().is_some(),
        "spinner while working"
    );
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    assert_eq!(h.app.next_frame_deadline(), None);
}

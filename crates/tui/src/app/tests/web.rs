//! Issue 14 in the TUI: a web fetch's approval shows the whole URL; a structured plan waiting
//! for approval opens the plan review widget (Enter, Esc, f, e).

use super::Harness;
use crate::app::Request;
use cairn_protocol::{EventMsg, Op, ReviewDecision};
use crossterm::event::KeyCode;
use std::path::PathBuf;

#[test]
fn a_web_fetch_is_approved_in_an_overlay_showing_the_full_url() {
    let mut h = Harness::configured(70, 24);
    h.submit("read the docs");
    let url =
        "https://example.org/a/very/long/path/to/a/page?q=some-query-text&token=abcdef0123456789";
    h.event_id(
        "op-1",
        EventMsg::WebFetchApprovalRequest {
            call_id: "w1".into(),
            url: url.into(),
            host: "example.org".into(),
            description: format!("Would fetch {url}"),
            for_session: Some("fetches from example.org".into()),
        },
    );
    let screen = h.render();
    assert!(screen.contains("Allow this web fetch?"), "{screen}");
    // Wrapped, never cut: every part of the address is on screen.
    let flat: String = screen.split_whitespace().collect();
    for part in ["example.org/a/very/long/path", "token=abcdef0123456789"] {
        assert!(flat.contains(part), "{part}:\n{screen}");
    }
    h.key(KeyCode::Char('a'));
    assert_eq!(
        h.last_op(),
        Some(Op::WebFetchApproval {
            call_id: "w1".into(),
            decision: ReviewDecision::ApprovedForSession,
        })
    );
}

fn open_structured_review(h: &mut Harness) {
    h.submit("plan the rename");
    h.event_id(
        "op-1",
        EventMsg::PlanApprovalRequest {
            call_id: "p1".into(),
            plan_id: "plan-0a1b2c3d".into(),
            plan_content: "# Rename a to b\n\n1. [ ] Rename the function\n2. [ ] Run the tests\n"
                .into(),
            plan_file_path: PathBuf::from("/h/plans/plan-0a1b2c3d.md"),
        },
    );
}

fn plan_approval(approved: bool, feedback: Option<&str>) -> Option<Op> {
    Some(Op::PlanApproval {
        call_id: "p1".into(),
        approved,
        feedback: feedback.map(str::to_string),
    })
}

#[test]
fn a_structured_plan_opens_the_plan_review_and_enter_approves_it() {
    let mut h = Harness::configured(80, 20);
    open_structured_review(&mut h);
    let screen = h.render();
    assert!(
        screen.contains("Plan Review - plan-0a1b2c3d.md"),
        "{screen}"
    );
    assert!(screen.contains("Rename the function"), "{screen}");
    h.key(KeyCode::Enter);
    assert_eq!(h.last_op(), plan_approval(true, None));
    assert!(!h.render().contains("Plan Review"));
}

#[test]
fn esc_rejects_a_structured_plan_and_f_rejects_it_with_feedback() {
    let mut h = Harness::configured(80, 20);
    open_structured_review(&mut h);
    h.key(KeyCode::Esc);
    assert_eq!(h.last_op(), plan_approval(false, None));
    open_structured_review(&mut h);
    h.key(KeyCode::Char('f'));
    h.type_str("add a migration step");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        plan_approval(false, Some("add a migration step"))
    );
}

#[test]
fn e_edits_the_structured_plan_document_before_deciding() {
    let mut h = Harness::configured(80, 20);
    open_structured_review(&mut h);
    h.key(KeyCode::Char('e'));
    assert_eq!(
        h.requests,
        vec![Request::EditPlan(PathBuf::from(
            "/h/plans/plan-0a1b2c3d.md"
        ))]
    );
    h.app.handle_plan_edited(Ok(
        "# Rename a to b\n\n1. [ ] Rename it behind a flag\n".into()
    ));
    assert!(h.render().contains("Rename it behind a flag"));
    h.key(KeyCode::Enter);
    assert_eq!(h.last_op(), plan_approval(true, None));
}

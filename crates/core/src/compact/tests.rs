use super::*;
use cairn_protocol::PlanStep;

fn step(text: &str, status: PlanStepStatus) -> PlanStep {
    serde_json::from_value(serde_json::json!({"step": text, "status": status})).unwrap()
}

#[test]
fn rebuild_keeps_recent_user_messages_summary_and_pinned_state_only() {
    let old = vec![
        ResponseItem::user("first task"),
        ResponseItem::assistant("working on it"),
        ResponseItem::FunctionCall {
            call_id: "c1".into(),
            name: "shell".into(),
            arguments: "{}".into(),
        },
        ResponseItem::FunctionCallOutput {
            call_id: "c1".into(),
            output: "lots of output".into(),
            success: true,
        },
        ResponseItem::user("second task"),
    ];
    let plan = Plan {
        plan: vec![
            step("read code", PlanStepStatus::Completed),
            step("change it", PlanStepStatus::InProgress),
        ],
        ..Plan::default()
    };
    let pinned = Pinned {
        approved_plan: Some(("/p/plan.md".into(), "# Plan\n1. do it\n".into())),
        plan: Some(plan),
        plan_mode_file: None,
    };
    let new = rebuild(&old, "the summary", &pinned);
    assert_eq!(new[0], ResponseItem::user("first task"));
    assert_eq!(new[1], ResponseItem::user("second task"));
    assert_eq!(
        new[2],
        ResponseItem::user(format!("{SUMMARY_PREFIX}the summary"))
    );
    let ResponseItem::Message { text, .. } = &new[3] else {
        panic!("pinned message expected");
    };
    assert!(text.contains("# Plan\n1. do it\n"), "{text}");
    assert!(
        text.contains("1. [completed] read code\n2. [in_progress] change it"),
        "{text}"
    );
    assert_eq!(new.len(), 4);
    // A second compaction replaces the first summary and pinned block.
    let again = rebuild(&new, "newer", &pinned);
    assert_eq!(again.len(), 4);
    assert_eq!(
        again[2],
        ResponseItem::user(format!("{SUMMARY_PREFIX}newer"))
    );
}

#[test]
fn limit_reserves_room_for_the_answer() {
    assert_eq!(limit(100_000, 0.8), ((100_000 - 8_192) as f64 * 0.8) as u64);
    assert_eq!(limit(8_000, 1.0), 6_000);
}

#[test]
fn the_focus_reaches_the_summary_request() {
    assert!(summary_request(Some("the parser")).ends_with("focus on: the parser"));
    assert!(!summary_request(Some("  ")).contains("focus"));
}

#[test]
fn a_long_message_or_command_output_does_not_crowd_out_the_user_s_requests() {
    let old = vec![
        ResponseItem::user("first task"),
        ResponseItem::user("x".repeat(RECENT_USER_CHARS + 1)),
        ResponseItem::user(format!("{USER_SHELL_PREFIX}\n<command>\nls\n</command>")),
        ResponseItem::user("second task"),
    ];
    let new = rebuild(&old, "the summary", &Pinned::default());
    assert_eq!(new[0], ResponseItem::user("first task"));
    assert_eq!(new[1], ResponseItem::user("second task"));
    assert_eq!(new.len(), 3);
}

//! Slash commands and plan mode.

use super::*;

#[test]
fn slash_popup_filters_completes_and_runs() {
    let mut h = Harness::configured(70, 16);
    h.type_str("/");
    insta::assert_snapshot!("slash_popup_all", h.render());
    h.type_str("st");
    let screen = h.render();
    assert!(screen.contains("/status"));
    assert!(!screen.contains("/quit"));
    h.key(KeyCode::Esc);
    assert!(!h.render().contains("/status "), "Esc closes the popup");
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Backspace);
    h.type_str("pl");
    h.key(KeyCode::Down);
    h.key(KeyCode::Tab);
    assert_eq!(h.app.composer_text(), "/plans");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.composer_text(), "");
    h.type_str("/mo");
    h.key(KeyCode::Tab);
    assert_eq!(h.app.composer_text(), "/model ");
    h.submit("bigger-model");
    assert_eq!(
        h.last_op(),
        Some(Op::OverrideTurnContext {
            model: Some("bigger-model".into()),
            approval_policy: None
        })
    );
    assert!(h.render().contains("mock/bigger-model"));
}

#[test]
fn commands_that_cannot_run_during_a_task_say_so() {
    let mut h = Harness::configured(80, 14);
    h.submit("work");
    h.submit("/plan");
    h.submit("/new");
    let screen = h.render();
    assert!(
        screen.contains("'/plan' is disabled while a task is in progress."),
        "{screen}"
    );
    assert!(screen.contains("'/new' is disabled while a task is in progress."));
    assert_eq!(h.ops().len(), 1);
    assert!(h.requests.is_empty());
    h.submit("/status");
    assert!(h.render().contains("provider     mock"));
}

#[test]
fn unknown_commands_and_quit_new() {
    let mut h = Harness::configured(80, 12);
    h.submit("/frobnicate");
    assert!(h.render().contains("Unknown command '/frobnicate'"));
    h.submit("/new");
    h.submit("/quit");
    assert_eq!(h.requests, vec![Request::NewSession, Request::Quit]);
}

#[test]
fn new_keeps_the_model_and_approvals_chosen_in_this_tui() {
    let mut h = Harness::configured(80, 14);
    let dir = tempfile::tempdir().unwrap();
    let config = cairn_core::Config::for_test(dir.path(), dir.path());
    let fresh = h.app.new_session_config(&config);
    assert_eq!(
        (fresh.model.as_str(), fresh.approval_policy),
        ("test-model", ApprovalPolicy::OnRequest),
        "nothing chosen: the configuration as it is"
    );
    h.submit("/model gpt-5.1-mini");
    h.submit("/approvals never");
    h.submit("/new");
    assert_eq!(h.requests, vec![Request::NewSession]);
    // The loop starts the new session and resets the app; the choices stay.
    h.app.reset_session(Box::new(RecordingOps::default()));
    let next = h.app.new_session_config(&config);
    assert_eq!(
        (next.model.as_str(), next.approval_policy),
        ("gpt-5.1-mini", ApprovalPolicy::Never)
    );
}

#[test]
fn approvals_command_switches_policy() {
    let mut h = Harness::configured(80, 14);
    h.submit("/approvals");
    assert!(h.render().contains("Approval policy: on-request"));
    h.submit("/approvals untrusted");
    assert_eq!(
        h.last_op(),
        Some(Op::OverrideTurnContext {
            model: None,
            approval_policy: Some(ApprovalPolicy::Untrusted)
        })
    );
}

#[test]
fn plan_command_enters_plan_mode_and_shows_badge_and_hint() {
    let mut h = Harness::configured(110, 20);
    h.submit("/plan add caching");
    assert_eq!(h.ops(), vec![Op::SetPlanMode { active: true }]);
    let path = PathBuf::from("/home/u/.cairn/plans/conv-1_20261122_030405.md");
    h.event_id(
        "op-1",
        EventMsg::PlanModeEntered {
            plan_file_path: path.clone(),
        },
    );
    assert_eq!(
        h.last_op(),
        Some(Op::UserInput {
            text: "add caching".into()
        })
    );
    let screen = h.render();
    assert!(screen.contains(
        "📋 Plan Mode | File: conv-1_20261122_030405.md | Use read-only tools, then call exit_plan_mode"
    ), "{screen}");
    assert!(screen.contains(" PLAN MODE "));
    assert!(screen.contains("Entered plan mode."));
    let badge = h.style_of("PLAN MODE").unwrap();
    assert_eq!(badge.bg, Some(ratatui::style::Color::Yellow));
    h.event_id(
        "op-2",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    h.submit("/plan");
    assert!(h.render().contains("Already in plan mode."));
    assert_eq!(h.ops().len(), 2);

    // `/plan off` leaves without approving; the badge returns to NORMAL.
    h.submit("/plan off");
    assert_eq!(h.last_op(), Some(Op::SetPlanMode { active: false }));
    h.event_id(
        "op-3",
        EventMsg::PlanModeExited {
            approved: false,
            active: false,
        },
    );
    let screen = h.render();
    assert!(screen.contains("Left plan mode."), "{screen}");
    assert!(
        screen.contains(" NORMAL ") && !screen.contains(" PLAN MODE "),
        "{screen}"
    );
    h.submit("/plan off");
    assert!(h.render().contains("Not in plan mode."));
}

#[test]
fn plans_command_lists_stored_plans_and_shows_one() {
    let home = tempfile::tempdir().unwrap();
    let mut h = Harness::configured(90, 24);
    h.app.set_cairn_home(home.path().to_path_buf());
    h.submit("/plans");
    assert!(
        h.render().contains("No plans yet."),
        "empty store explains itself"
    );
    let store = cairn_core::plans::PlanStore::in_home(home.path());
    let doc = store
        .create(
            Plan {
                title: Some("Cache the parser".into()),
                plan: vec![
                    PlanStep::new("Read", PlanStepStatus::Completed),
                    PlanStep::new("Write", PlanStepStatus::Pending),
                ],
                ..Plan::default()
            },
            Some("conv-1"),
        )
        .unwrap();
    h.submit("/plans");
    let screen = h.render();
    assert!(screen.contains("Stored plans"), "{screen}");
    assert!(
        screen.contains("Cache the parser  draft · 1 of 2 done"),
        "{screen}"
    );
    h.key(KeyCode::Enter);
    let screen = h.render();
    assert!(
        screen.contains(&format!("Plan {} · Cache the parser · draft", doc.id())),
        "{screen}"
    );
    assert!(screen.contains("✔ 1. Read"), "{screen}");
}

#[test]
fn plans_list_rows_keep_status_progress_and_age_when_the_title_is_long() {
    let home = tempfile::tempdir().unwrap();
    let mut h = Harness::configured(70, 16);
    h.app.set_cairn_home(home.path().to_path_buf());
    let store = cairn_core::plans::PlanStore::in_home(home.path());
    let doc = store
        .create(
            Plan {
                title: Some(
                    "Add retries to the HTTP client with exponential backoff and jitter".into(),
                ),
                plan: vec![
                    PlanStep::new("Read", PlanStepStatus::Completed),
                    PlanStep::new("Write", PlanStepStatus::Pending),
                ],
                ..Plan::default()
            },
            Some("conv-1"),
        )
        .unwrap();
    h.submit("/plans");
    let screen = h.render();
    assert!(
        screen.contains("│› Add retries to the HTTP client…  draft · 1 of 2 done · just now "),
        "{screen}"
    );
    h.resize(160, 16);
    let screen = h.render();
    assert!(
        screen.contains(&format!(
            "› Add retries to the HTTP client with exponential backoff and jitter  draft · 1 of 2 done · just now · {}",
            doc.id()
        )),
        "wide enough for the whole title and the id:\n{screen}"
    );
}

#[test]
fn a_long_plan_opened_from_plans_is_shown_from_its_heading() {
    let home = tempfile::tempdir().unwrap();
    let mut h = Harness::configured(70, 16);
    h.app.set_cairn_home(home.path().to_path_buf());
    let store = cairn_core::plans::PlanStore::in_home(home.path());
    let steps = (1..=30)
        .map(|i| PlanStep::new(format!("Step {i}"), PlanStepStatus::Pending))
        .collect();
    let doc = store
        .create(
            Plan {
                title: Some("Thirty steps".into()),
                plan: steps,
                ..Plan::default()
            },
            Some("conv-1"),
        )
        .unwrap();
    h.submit("/plans");
    h.key(KeyCode::Enter);
    let screen = h.render();
    assert!(
        screen.starts_with(&format!("• Plan {} · Thirty steps · draft\n", doc.id())),
        "{screen}"
    );
    assert!(screen.contains("□ 1. Step 1"), "{screen}");
    h.key(KeyCode::End);
    assert!(h.render().contains("□ 30. Step 30"));
}

/// The bottom rows of the screen from the hint down, for snapshots.
fn bottom_rows(screen: &str, rows: usize) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    lines[lines.len().saturating_sub(rows)..].join("\n")
}

#[test]
fn plan_mode_hint_with_a_real_file_name_stays_readable_when_narrow() {
    // A real plan file name: a uuid v7 and a timestamp, about 60 columns on its own.
    let name = "01a201a6-1e66-74ae-b021-913fe8404d22_20261122_050634.md";
    let mut h = Harness::configured(100, 16);
    h.event_id(
        "op-1",
        EventMsg::PlanModeEntered {
            plan_file_path: PathBuf::from("/home/u/.cairn/plans").join(name),
        },
    );
    let screen = h.render();
    assert!(
        screen.contains(&format!(
            "📋 Plan Mode | File: {name} |\nUse read-only tools, then call exit_plan_mode\n"
        )),
        "broken after the file name, nothing cut off:\n{screen}"
    );
    insta::assert_snapshot!("plan_mode_hint_100", bottom_rows(&screen, 5));
    h.resize(60, 16);
    let screen = h.render();
    assert!(
        screen.contains(name),
        "the name is whole at 60 columns:\n{screen}"
    );
    insta::assert_snapshot!("plan_mode_hint_60", bottom_rows(&screen, 7));
    // Wide enough: the exact one-line text of the spec.
    h.resize(140, 16);
    let screen = h.render();
    assert!(screen.contains(&format!(
        "📋 Plan Mode | File: {name} | Use read-only tools, then call exit_plan_mode\n"
    )));
}

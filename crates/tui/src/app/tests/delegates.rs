//! The delegate tree: the live panel above the composer, its keys (Ctrl+G, Up/Down, Enter,
//! Esc) next to the composer's own Up/Down history, one run's transcript overlay, the history
//! cell a finished group collapses into, approvals of a delegated run, and a resumed session.

use super::*;

fn started(run_id: &str, parent: Option<&str>, agent_id: &str, prompt: &str) -> EventMsg {
    EventMsg::DelegateStarted {
        run_id: run_id.into(),
        parent_run_id: parent.map(str::to_string),
        agent_id: agent_id.into(),
        prompt: prompt.into(),
    }
}

fn run_event(run_id: &str, event: EventMsg) -> EventMsg {
    EventMsg::DelegateEvent {
        run_id: run_id.into(),
        event: Box::new(event),
    }
}

fn run_delta(run_id: &str, text: &str) -> EventMsg {
    EventMsg::DelegateDelta {
        run_id: run_id.into(),
        text: text.into(),
    }
}

fn completed(run_id: &str, summary: &str, duration_ms: u64) -> EventMsg {
    EventMsg::DelegateCompleted {
        run_id: run_id.into(),
        summary: summary.into(),
        duration_ms,
    }
}

fn failed(run_id: &str, error: &str) -> EventMsg {
    EventMsg::DelegateFailed {
        run_id: run_id.into(),
        error: error.into(),
    }
}

fn tool_begin(call_id: &str, name: &str, description: &str) -> EventMsg {
    EventMsg::ToolCallBegin {
        call_id: call_id.into(),
        name: name.into(),
        arguments: "{}".into(),
        description: description.into(),
    }
}

fn tool_end(call_id: &str, name: &str, output: &str) -> EventMsg {
    EventMsg::ToolCallEnd {
        call_id: call_id.into(),
        name: name.into(),
        output: output.into(),
        success: true,
        duration_ms: 12,
    }
}

/// The events of a three-level tree in the middle of its work, as the core sends them:
/// two explore runs at depth 0, the first delegating a plan run (depth 1) which delegates an
/// explore run (depth 2); one run has a checklist step in progress, one reads a file, one
/// streams text. The session's task started at 0 s.
fn three_levels() -> Vec<(f64, EventMsg)> {
    vec![
        (
            0.5,
            tool_begin("d1", "delegate_agent", "Delegate to explore ×2"),
        ),
        (
            0.6,
            started("run-1", None, "explore", "Where is the config loaded?"),
        ),
        (
            0.6,
            started("run-2", None, "explore", "Where are errors printed?"),
        ),
        (
            1.0,
            run_event(
                "run-1",
                EventMsg::PlanUpdate(plan(&[
                    ("List the crates", PlanStepStatus::Completed),
                    ("Trace Config::load", PlanStepStatus::InProgress),
                ])),
            ),
        ),
        (
            1.2,
            started(
                "run-3",
                Some("run-1"),
                "plan",
                "Plan how loading could be cached",
            ),
        ),
        (
            1.5,
            started(
                "run-4",
                Some("run-3"),
                "explore",
                "Find every caller of Config::load",
            ),
        ),
        (
            2.0,
            run_event(
                "run-4",
                tool_begin("r1", "grep_files", "Search for `Config::load` in crates"),
            ),
        ),
        (2.5, run_delta("run-2", "Errors go through ")),
        (
            2.6,
            run_delta("run-2", "`report()` in main.rs\nand the TUI's "),
        ),
        (2.7, run_delta("run-2", "error cell")),
    ]
}

/// A configured harness whose task runs three levels of delegated runs, at 5.2 s.
fn live_tree(width: u16, height: u16) -> Harness {
    let mut h = Harness::configured(width, height);
    h.submit("investigate the config");
    h.event_id("op-1", EventMsg::TaskStarted);
    for (at, msg) in three_levels() {
        h.at(at);
        h.event_id("op-1", msg);
    }
    h.at(5.2);
    h
}

/// Finish every run of [`live_tree`]; the deepest one fails.
fn finish_all(h: &mut Harness) {
    h.at(6.0);
    h.event_id("op-1", failed("run-4", "Timed out after 120 s."));
    h.event_id(
        "op-1",
        completed(
            "run-3",
            "1. Cache the parsed file\n2. Invalidate on change",
            4_800,
        ),
    );
    h.event_id(
        "op-1",
        completed(
            "run-1",
            "Config is loaded in `crates/core/src/config/mod.rs` by `Config::load`.",
            5_400,
        ),
    );
    h.event_id(
        "op-1",
        completed(
            "run-2",
            "Errors are printed by `report()` in main.rs and the TUI's error cell.",
            2_300,
        ),
    );
}

#[test]
fn live_tree_of_three_levels_indents_each_depth_by_two_spaces() {
    let mut h = live_tree(100, 30);
    let screen = h.render();
    insta::assert_snapshot!("delegate_tree_three_levels", screen);
    let row = |agent: &str, activity: &str| {
        screen
            .lines()
            .find(|l| l.contains(activity))
            .unwrap_or_else(|| panic!("no row for {agent}:\n{screen}"))
            .to_string()
    };
    // Indent: the marker column, then two spaces per depth, then the glyph.
    let depth_of = |line: &str| (line.chars().skip(1).take_while(|c| *c == ' ').count()) / 2;
    assert_eq!(depth_of(&row("run-1", "Trace Config::load")), 0);
    assert_eq!(depth_of(&row("run-3", "Plan how loading")), 1);
    assert_eq!(depth_of(&row("run-4", "Search for `Config::load`")), 2);
    assert_eq!(depth_of(&row("run-2", "error cell")), 0);
    assert!(screen.contains("Agents · 4 of 4 running"), "{screen}");
    assert!(
        screen.contains("ctrl+g to select"),
        "the key hint: {screen}"
    );
}

#[test]
fn finished_runs_show_their_glyph_and_duration_until_the_group_ends() {
    let mut h = live_tree(100, 30);
    h.event_id("op-1", failed("run-4", "Timed out after 120 s."));
    h.event_id(
        "op-1",
        completed("run-2", "Errors: report() in main.rs", 2_300),
    );
    let screen = h.render();
    assert!(screen.contains("Agents · 2 of 4 running"), "{screen}");
    let line = |needle: &str| {
        screen
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle}:\n{screen}"))
            .to_string()
    };
    assert!(
        line("Timed out").contains("✗ explore 3.7s · Timed out"),
        "{screen}"
    );
    assert!(
        line("Errors: report()").contains("✔ explore 2.3s · Errors: report() in main.rs"),
        "{screen}"
    );
    assert_eq!(
        h.style_of("✗ explore").and_then(|s| s.fg),
        crate::theme::error().fg
    );
}

#[test]
fn up_and_down_recall_history_until_ctrl_g_gives_the_tree_the_keys() {
    let mut h = live_tree(100, 30);
    // The composer's history recall is untouched by the tree.
    h.key(KeyCode::Up);
    assert_eq!(h.app.composer_text(), "investigate the config");
    h.key(KeyCode::Down);
    assert_eq!(h.app.composer_text(), "");

    h.ctrl('g');
    let screen = h.render();
    assert!(
        screen.contains("↑↓ select · enter open · esc back"),
        "{screen}"
    );
    assert!(
        screen.contains("› ⠋ explore") || screen.contains("›"),
        "{screen}"
    );
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    assert_eq!(h.app.composer_text(), "", "Up/Down moved the selection");
    let screen = h.render();
    let selected = screen
        .lines()
        .find(|l| l.starts_with('›') && !l.contains("investigate"))
        .unwrap_or_else(|| panic!("no selected row:\n{screen}"));
    assert!(selected.contains("explore"), "{selected}");
    assert!(selected.contains("Search for `Config::load`"), "{selected}");

    // Esc gives the keys back without interrupting the task.
    let ops = h.ops().len();
    h.key(KeyCode::Esc);
    assert_eq!(h.ops().len(), ops, "Esc in the tree does not interrupt");
    assert!(h.render().contains("ctrl+g to select"));
    h.key(KeyCode::Up);
    assert_eq!(h.app.composer_text(), "investigate the config");

    // Typing gives the keys back and goes to the composer.
    h.key(KeyCode::Down);
    h.ctrl('g');
    h.type_str("hi");
    assert_eq!(h.app.composer_text(), "hi");
    assert!(h.render().contains("ctrl+g to select"));
}

#[test]
fn enter_opens_the_selected_runs_transcript_which_follows_it_and_esc_closes() {
    let mut h = live_tree(100, 30);
    h.ctrl('g');
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    h.event_id(
        "op-1",
        run_event(
            "run-4",
            tool_end(
                "r1",
                "grep_files",
                "crates/core/src/session/mod.rs:41: Config::load(&home)?\ncrates/cli/src/main.rs:88: Config::load(&home)?",
            ),
        ),
    );
    h.event_id("op-1", run_delta("run-4", "Two callers: the session and "));
    let screen = h.render();
    insta::assert_snapshot!("delegate_run_overlay", screen);
    assert!(
        screen.contains("explore · run-4 · running…"),
        "the title names the run: {screen}"
    );
    assert!(screen.contains("› Find every caller of Config::load"));

    h.key(KeyCode::Esc);
    let screen = h.render();
    assert!(!screen.contains("run-4 · running"), "{screen}");
    assert!(screen.contains("Agents · 4 of 4 running"), "{screen}");
    assert!(
        screen.contains("↑↓ select · enter open · esc back"),
        "the tree keeps the keys after the overlay closes: {screen}"
    );
    assert_eq!(
        h.ops()
            .iter()
            .filter(|op| matches!(op, Op::Interrupt))
            .count(),
        0,
        "Esc closed the overlay, it did not interrupt"
    );
}

#[test]
fn a_finished_run_opens_at_its_start_and_shows_how_it_ended() {
    let mut h = live_tree(100, 40);
    h.event_id(
        "op-1",
        completed("run-2", "Errors: report() in main.rs", 2_300),
    );
    h.ctrl('g');
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    let screen = h.render();
    assert!(screen.contains("explore · run-2 · ✔ 2.3s"), "{screen}");
    assert!(screen.contains("› Where are errors printed?"), "{screen}");
    assert!(screen.contains("Finished in 2.3s"), "{screen}");
    assert!(screen.contains("Errors: report() in main.rs"), "{screen}");
}

#[test]
fn a_finished_group_collapses_into_a_history_cell_with_the_summaries() {
    let mut h = live_tree(100, 30);
    finish_all(&mut h);
    h.event_id(
        "op-1",
        tool_end("d1", "delegate_agent", r#"{"status":"ok","runs":[]}"#),
    );
    h.event_id(
        "op-1",
        EventMsg::AgentMessage {
            message: "Config loads in config/mod.rs; errors print in main.rs.".into(),
        },
    );
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    let screen = h.render();
    insta::assert_snapshot!("delegation_cell_collapsed", screen);
    assert!(!screen.contains("Agents ·"), "the panel is gone: {screen}");
    assert!(screen.contains("Delegated 4 runs · 1 failed"), "{screen}");

    h.ctrl('o');
    let screen = h.render();
    insta::assert_snapshot!("delegation_cell_expanded", screen);
    assert!(screen.contains("2. Invalidate on change"), "{screen}");

    // The finished group can still be browsed and opened.
    h.ctrl('g');
    let screen = h.render();
    assert!(screen.contains("Agents · 4 finished"), "{screen}");
    h.key(KeyCode::Enter);
    assert!(h.render().contains("explore · run-1 · ✔ 5.4s"));
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);
    assert!(!h.render().contains("Agents ·"));
}

#[test]
fn a_childs_approval_is_asked_in_the_approval_overlay_labelled_with_its_agent_path() {
    let mut h = live_tree(100, 30);
    h.event_id(
        "op-1",
        EventMsg::ExecApprovalRequest {
            call_id: "run-3:c7".into(),
            command: "cargo metadata".into(),
            cwd: PathBuf::from("/work/project"),
            description: "[explore/plan] Would run `cargo metadata` in .".into(),
            for_session: Some("this exact command".into()),
            session_prefix: None,
            reason: None,
        },
    );
    let screen = h.render();
    insta::assert_snapshot!("delegate_approval", screen);
    assert!(
        screen.contains("[explore/plan] Would run `cargo metadata` in ."),
        "{screen}"
    );
    assert!(
        screen.contains("waiting for approval: Would run `cargo metadata`"),
        "the run's row says it waits: {screen}"
    );
    h.key(KeyCode::Char('y'));
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "run-3:c7".into(),
            decision: ReviewDecision::Approved
        })
    );
}

#[test]
fn an_interrupted_task_ends_its_unreported_runs_as_failed() {
    let mut h = live_tree(100, 30);
    h.event_id(
        "op-1",
        EventMsg::TurnAborted {
            reason: TurnAbortReason::Interrupted,
        },
    );
    let screen = h.render();
    assert!(!screen.contains("Agents ·"), "{screen}");
    assert!(screen.contains("Delegated 4 runs · 4 failed"), "{screen}");
    assert!(screen.contains("The run did not report an end"), "{screen}");
}

#[test]
fn a_resumed_session_shows_its_finished_delegations() {
    let mut replay = vec![EventMsg::UserMessage {
        text: "investigate the config".into(),
    }];
    replay.extend(
        three_levels()
            .into_iter()
            .map(|(_, msg)| msg)
            // The log keeps no deltas.
            .filter(|m| !matches!(m, EventMsg::DelegateDelta { .. })),
    );
    replay.extend([
        failed("run-4", "Timed out after 120 s."),
        completed("run-3", "1. Cache the parsed file", 4_800),
        completed("run-1", "Config is loaded by `Config::load`.", 5_400),
        completed("run-2", "Errors are printed by `report()`.", 2_300),
        tool_end("d1", "delegate_agent", r#"{"status":"ok","runs":[]}"#),
        EventMsg::AgentMessage {
            message: "Done.".into(),
        },
    ]);
    let mut h = Harness::configured(100, 30);
    h.event(EventMsg::SessionResumed {
        path: PathBuf::from("/data/cairn/sessions/2026/03/04/conv-1.jsonl"),
        replay,
    });
    let screen = h.render();
    assert!(screen.contains("Delegated 4 runs · 1 failed"), "{screen}");
    assert!(
        screen.contains("✔ explore 5.4s · Config is loaded by `Config::load`."),
        "{screen}"
    );
    // A failed run's time is not in the log.
    assert!(
        screen.contains("✗ explore · Timed out after 120 s."),
        "{screen}"
    );
    assert!(!screen.contains("Agents ·"), "no live panel: {screen}");
    // The replayed group can be browsed and its transcripts opened.
    h.ctrl('g');
    h.key(KeyCode::Enter);
    let screen = h.render();
    assert!(screen.contains("explore · run-1 · ✔ 5.4s"), "{screen}");
    assert!(screen.contains("Trace Config::load"), "{screen}");
}

#[test]
fn a_resumed_log_that_stops_mid_run_ends_the_run_as_unfinished() {
    let mut h = Harness::configured(100, 30);
    h.event(EventMsg::SessionResumed {
        path: PathBuf::from("/data/cairn/sessions/2026/03/04/conv-1.jsonl"),
        replay: vec![
            EventMsg::UserMessage {
                text: "look".into(),
            },
            started("run-1", None, "explore", "look around"),
        ],
    });
    let screen = h.render();
    assert!(screen.contains("Delegated 1 run · 1 failed"), "{screen}");
    assert!(
        screen.contains("The session log ends before this run did."),
        "{screen}"
    );
}

#[test]
fn ctrl_g_without_runs_says_how_the_tree_appears() {
    let mut h = Harness::configured(100, 20);
    h.ctrl('g');
    let screen = h.render();
    assert!(screen.contains("No delegated runs yet."), "{screen}");
    h.key(KeyCode::Up);
    assert_eq!(h.app.composer_text(), "");
}

#[test]
fn the_tree_overlay_and_cell_fit_40_columns() {
    let mut h = live_tree(40, 24);
    let screen = h.render();
    insta::assert_snapshot!("delegate_tree_40", screen);
    assert!(screen.lines().all(|l| l.chars().count() <= 40), "{screen}");
    assert!(screen.contains("ctrl+g"), "the key hint stays: {screen}");

    h.ctrl('g');
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    let screen = h.render();
    insta::assert_snapshot!("delegate_run_overlay_40", screen);
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);

    finish_all(&mut h);
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    let screen = h.render();
    insta::assert_snapshot!("delegation_cell_40", screen);
    h.ctrl('o');
    h.render();
}

#[test]
fn tiny_terminals_never_panic() {
    for (width, height) in [(1, 1), (2, 3), (8, 4), (12, 6), (20, 8), (40, 3), (40, 12)] {
        let mut h = live_tree(width, height);
        h.render();
        h.ctrl('g');
        h.key(KeyCode::Down);
        h.render();
        h.key(KeyCode::Enter);
        h.event_id("op-1", run_delta("run-4", "more text to lay out"));
        h.render();
        h.key(KeyCode::Esc);
        h.key(KeyCode::Esc);
        finish_all(&mut h);
        h.render();
        h.ctrl('o');
        h.render();
        h.resize(width.saturating_add(30), height.saturating_add(10));
        h.render();
    }
}

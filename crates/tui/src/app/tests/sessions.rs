//! Long sessions: the session picker (/resume, `cairn resume`), a resumed transcript, /compact
//! and the context left in the status line.

use super::*;
use cairn_core::rollout::listing::SessionSummary;
use std::time::{SystemTime, UNIX_EPOCH};

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn session(
    id: &str,
    cwd: &str,
    prompt: Option<&str>,
    turns: u64,
    plan_status: Option<&str>,
    age_secs: u64,
) -> SessionSummary {
    SessionSummary {
        id: id.into(),
        path: PathBuf::from(format!("/data/cairn/sessions/2026/03/04/{id}.jsonl")),
        cwd: PathBuf::from(cwd),
        model: "gpt-5.1".into(),
        started_at: "2026-03-04T10:00:00Z".into(),
        updated_at: now() - age_secs,
        first_prompt: prompt.map(str::to_string),
        turns,
        plan_status: plan_status.map(str::to_string),
    }
}

/// Sessions as the listing gives them: most recent first. The harness's own session
/// (`conv-1`) and one with nothing in it are among them.
fn listed() -> Vec<SessionSummary> {
    vec![
        session(
            "conv-1",
            "/work/project",
            Some("this very session"),
            1,
            None,
            10,
        ),
        session("0197-empty", "/work/project", None, 0, None, 60),
        session(
            "0196-api",
            "/srv/services/payments-api",
            Some(
                "Add retries to the payment client and log every failed attempt with its status code",
            ),
            7,
            Some("3/5 steps"),
            300,
        ),
        session(
            "0195-parser",
            "/work/project",
            Some("Fix the parser bug in the tokenizer"),
            4,
            Some("plan mode"),
            2 * 3600,
        ),
        session(
            "0194-docs",
            "/work/project",
            Some("Write the README tour"),
            1,
            None,
            3 * 86_400,
        ),
    ]
}

fn open_picker(h: &mut Harness) {
    h.submit("/resume");
    assert_eq!(h.requests, vec![Request::ListSessions]);
    h.requests.clear();
    assert!(h.render().contains("Listing saved sessions…"));
    h.app.handle_app_event(AppEvent::SessionsListed(listed()));
    h.settle();
}

#[test]
fn resume_picker_lists_sessions_here_first_and_filters() {
    let mut h = Harness::configured(120, 16);
    open_picker(&mut h);
    let screen = h.render();
    insta::assert_snapshot!("resume_picker_120", screen);
    assert!(
        !screen.contains("this very session"),
        "the open session is not offered"
    );
    assert!(!screen.contains("0197-empty") && !screen.contains("(no prompt yet)"));
    // This directory's sessions first, then the others, each most recent first.
    let parser = screen.find("Fix the parser bug").unwrap();
    let docs = screen.find("Write the README tour").unwrap();
    let api = screen.find("Add retries").unwrap();
    assert!(parser < docs && docs < api, "{screen}");
    assert!(screen.contains("3 of 3"));

    // Typing filters by directory, prompt, model or id; every word must match.
    h.type_str("payments");
    let screen = h.render();
    assert!(
        screen.contains("1 of 3") && screen.contains("Add retries"),
        "{screen}"
    );
    assert!(!screen.contains("Fix the parser bug"));
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_str("0194");
    assert!(h.render().contains("Write the README tour"));
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_str("readme nothing");
    let screen = h.render();
    assert!(
        screen.contains("No session matches \"readme nothing\""),
        "{screen}"
    );
    h.key(KeyCode::Enter);
    assert!(h.requests.is_empty(), "Enter without a match does nothing");
    for _ in 0.."readme nothing".len() {
        h.key(KeyCode::Backspace);
    }

    // Up/Down move; Enter opens the highlighted session.
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    h.key(KeyCode::Up);
    h.key(KeyCode::Enter);
    assert_eq!(
        h.requests,
        vec![Request::ResumeSession {
            path: PathBuf::from("/data/cairn/sessions/2026/03/04/0194-docs.jsonl"),
            cwd: PathBuf::from("/work/project"),
        }]
    );
    let screen = h.render();
    assert!(!screen.contains("Resume a session"), "the picker closed");
    assert!(screen.contains("Opening session 0194-docs…"), "{screen}");
}

#[test]
fn resume_picker_rows_fit_narrow_terminals_and_survive_resizes() {
    let mut h = Harness::configured(60, 18);
    open_picker(&mut h);
    h.key(KeyCode::Down);
    insta::assert_snapshot!("resume_picker_60", h.render());
    h.resize(40, 18);
    let screen = h.render();
    insta::assert_snapshot!("resume_picker_40", screen);
    // Two rows a session: the prompt, then age, directory and the rest, cut at the edge.
    assert!(screen.contains("› Write the README tour"), "{screen}");
    assert!(
        screen.contains("3d ago · /work/project · 1 turn · g…"),
        "{screen}"
    );
    h.type_str("work");
    h.resize(120, 18);
    let screen = h.render();
    assert!(
        screen.contains("Filter: work"),
        "the filter survives: {screen}"
    );
    assert!(screen.contains("2 of 3"), "{screen}");
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    assert!(
        matches!(&h.requests[..], [Request::ResumeSession { path, .. }] if path.ends_with("0194-docs.jsonl")),
        "{:?}",
        h.requests
    );
}

#[test]
fn a_short_terminal_scrolls_the_picker_to_the_selection() {
    let mut h = Harness::configured(60, 9);
    h.submit("/resume");
    let many = (0..12)
        .map(|i| {
            session(
                &format!("s{i:02}"),
                "/work/project",
                Some(&format!("task number {i}")),
                1,
                None,
                60 * (i + 1),
            )
        })
        .collect();
    h.app.handle_app_event(AppEvent::SessionsListed(many));
    for _ in 0..7 {
        h.key(KeyCode::Down);
    }
    let screen = h.render();
    assert!(screen.contains("› task number 7"), "{screen}");
    assert!(!screen.contains("task number 0"), "{screen}");
    h.key(KeyCode::Home);
    assert!(h.render().contains("› task number 0"));
}

#[test]
fn esc_closes_the_picker_and_the_launch_picker_then_starts_a_fresh_session() {
    let mut h = Harness::configured(80, 16);
    open_picker(&mut h);
    h.key(KeyCode::Esc);
    assert!(
        h.requests.is_empty(),
        "/resume then Esc: this session goes on"
    );
    let screen = h.render();
    assert!(!screen.contains("Resume a session"));
    assert!(screen.contains("Ask cairn anything"));

    // `cairn resume`: the picker comes first and no session runs until it closes.
    let mut h = Harness::new(80, 16);
    h.app.pick_session_at_launch();
    h.settle();
    assert!(h.app.awaiting_session());
    assert_eq!(h.requests, vec![Request::ListSessions]);
    h.app.handle_app_event(AppEvent::SessionsListed(listed()));
    let screen = h.render();
    assert!(screen.contains("Resume a session"), "{screen}");
    assert!(
        screen.contains("this very session"),
        "no session is open yet: all are offered"
    );
    h.key(KeyCode::Esc);
    assert_eq!(h.requests, vec![Request::ListSessions, Request::NewSession]);
    assert!(!h.app.awaiting_session());
}

#[test]
fn a_session_that_cannot_be_opened_says_why_and_this_one_goes_on() {
    let busy = "session /data/cairn/sessions/2026/03/04/0194-docs.jsonl is open in another cairn process (pid 4242, cairn); close it there first, or resume another session";
    let mut h = Harness::configured(100, 16);
    open_picker(&mut h);
    h.key(KeyCode::Enter);
    h.app.handle_resume_failed(busy.to_string());
    let screen = h.render();
    assert!(screen.contains("Could not resume: session"), "{screen}");
    assert!(screen.contains("(pid 4242, cairn)"), "{screen}");
    assert!(screen.contains("This session goes on."), "{screen}");
    assert!(
        screen.contains("Ask cairn anything"),
        "the composer is back: {screen}"
    );
    h.submit("carry on");
    assert_eq!(
        h.last_op(),
        Some(Op::UserInput {
            text: "carry on".into()
        })
    );

    // At launch there is no session to go on with: the picker opens again and says why.
    let mut h = Harness::new(100, 16);
    h.app.pick_session_at_launch();
    h.app.handle_app_event(AppEvent::SessionsListed(listed()));
    h.key(KeyCode::Enter);
    h.requests.clear();
    h.app.handle_resume_failed(busy.to_string());
    h.settle();
    assert_eq!(h.requests, vec![Request::ListSessions]);
    let screen = h.render();
    assert!(screen.contains("Resume a session"), "{screen}");
    assert!(screen.contains("Could not resume: session"), "{screen}");
}

#[test]
fn resume_and_compact_wait_for_the_running_task() {
    let mut h = Harness::configured(80, 14);
    h.submit("work");
    h.submit("/resume");
    h.submit("/compact");
    let screen = h.render();
    assert!(screen.contains("'/resume' is disabled while a task is in progress."));
    assert!(screen.contains("'/compact' is disabled while a task is in progress."));
    assert_eq!(h.ops().len(), 1);
    assert!(h.requests.is_empty());
}

#[test]
fn compact_sends_its_focus_and_shows_the_result() {
    let mut h = Harness::configured(100, 16);
    h.submit("/compact focus");
    assert_eq!(
        h.last_op(),
        Some(Op::Compact {
            focus: Some("focus".into())
        })
    );
    assert!(h.app.is_working(), "compaction runs as a task");
    h.event_id("op-1", EventMsg::TaskStarted);
    h.event_id(
        "op-1",
        EventMsg::ContextCompacted {
            tokens_before: 90_000,
            tokens_after: 12_000,
        },
    );
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    let screen = h.render();
    assert!(
        screen.contains("Compacting the conversation (focus: focus)…"),
        "{screen}"
    );
    assert!(screen.contains("Context compacted"), "{screen}");
    assert!(!h.app.is_working());

    // Without an argument, no focus; a failure is shown as one and ends the task.
    h.submit("/compact");
    assert_eq!(h.last_op(), Some(Op::Compact { focus: None }));
    h.event_id(
        "op-2",
        EventMsg::Error {
            message: "Compaction failed: the model returned no summary. The conversation was left as it was.".into(),
        },
    );
    assert!(h.render().contains("■ Compaction failed"));
    assert!(!h.app.is_working());
}

#[test]
fn compaction_updates_the_context_left() {
    let mut h = Harness::configured(100, 8);
    h.submit("go");
    h.event_id(
        "op-1",
        EventMsg::TokenCount(TokenUsage {
            input_tokens: 100_000,
            output_tokens: 2_000,
            total_tokens: 250_000,
            context_window: Some(128_000),
        }),
    );
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    assert!(h.render().contains("21% context left"));
    h.submit("/compact");
    h.event_id(
        "op-2",
        EventMsg::ContextCompacted {
            tokens_before: 102_000,
            tokens_after: 12_800,
        },
    );
    assert!(h.render().contains("90% context left"));
}

#[test]
fn status_line_keeps_the_context_left_readable_at_80_and_40_columns() {
    let mut h = Harness::configured(80, 6);
    let status = |h: &mut Harness| h.render().lines().last().unwrap_or_default().to_string();
    h.submit("go");
    h.event_id(
        "op-1",
        EventMsg::TokenCount(TokenUsage {
            input_tokens: 40_000,
            output_tokens: 8_640,
            total_tokens: 1_234_567,
            context_window: Some(128_000),
        }),
    );
    h.at(65.0);
    insta::assert_snapshot!("status_working_80", status(&mut h));
    h.resize(40, 6);
    insta::assert_snapshot!("status_working_40", status(&mut h));
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    h.resize(80, 6);
    insta::assert_snapshot!("status_idle_80", status(&mut h));
    h.resize(40, 6);
    insta::assert_snapshot!("status_idle_40", status(&mut h));
    for width in [40u16, 80] {
        h.resize(width, 6);
        assert!(status(&mut h).contains("62% context left"), "at {width}");
    }
    h.resize(20, 6);
    assert!(status(&mut h).contains("62% left"));
}

fn update_plan_call(call_id: &str) -> [EventMsg; 2] {
    [
        EventMsg::ToolCallBegin {
            call_id: call_id.into(),
            name: "update_plan".into(),
            arguments: "{}".into(),
            description: "Update the plan".into(),
        },
        EventMsg::ToolCallEnd {
            call_id: call_id.into(),
            name: "update_plan".into(),
            output: "Plan updated".into(),
            success: true,
            duration_ms: 1,
        },
    ]
}

/// What a session showed live and what its log replays: the same events, less the deltas,
/// with the user's messages from the log.
fn scripted_session() -> (Harness, Vec<EventMsg>) {
    let steps = [
        ("Read the code", PlanStepStatus::Completed),
        ("Fix the bug", PlanStepStatus::InProgress),
    ];
    let shell_begin = EventMsg::ToolCallBegin {
        call_id: "s1".into(),
        name: "shell".into(),
        arguments: r#"{"command":"cargo test"}"#.into(),
        description: "Run `cargo test`".into(),
    };
    let shell_end = EventMsg::ToolCallEnd {
        call_id: "s1".into(),
        name: "shell".into(),
        output: "running 3 tests\ntest result: ok. 3 passed".into(),
        success: true,
        duration_ms: 1234,
    };
    let answer = "Fixed **the parser**:\n\n- the tokenizer keeps quotes\n- tests pass";
    let usage = EventMsg::TokenCount(TokenUsage {
        input_tokens: 30_000,
        output_tokens: 1_000,
        total_tokens: 31_000,
        context_window: Some(100_000),
    });
    let plan_file = PathBuf::from("/data/cairn/plans/conv-1_20260304_100000.md");

    let mut live = Harness::configured(100, 60);
    live.submit("fix the parser");
    live.event_id("op-1", EventMsg::TaskStarted);
    live.event_id(
        "op-1",
        EventMsg::UserMessage {
            text: "fix the parser".into(),
        },
    );
    let [begin, end] = update_plan_call("p1");
    live.event_id("op-1", begin.clone());
    live.event_id("op-1", EventMsg::PlanUpdate(plan(&steps)));
    live.event_id("op-1", end.clone());
    live.event_id("op-1", shell_begin.clone());
    live.event_id("op-1", shell_end.clone());
    for piece in [
        "Fixed **the pa",
        "rser**:\n\n- the tokenizer",
        " keeps quotes\n- tests pass",
    ] {
        live.event_id("op-1", delta(piece));
    }
    live.event_id(
        "op-1",
        EventMsg::AgentMessage {
            message: answer.into(),
        },
    );
    live.event_id("op-1", usage.clone());
    live.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: Some(answer.into()),
        },
    );
    live.submit("/plan");
    live.event_id(
        "op-2",
        EventMsg::PlanModeEntered {
            plan_file_path: plan_file.clone(),
        },
    );

    let replay = vec![
        EventMsg::UserMessage {
            text: "fix the parser".into(),
        },
        begin,
        EventMsg::PlanUpdate(plan(&steps)),
        end,
        shell_begin,
        shell_end,
        EventMsg::AgentMessage {
            message: answer.into(),
        },
        usage,
        EventMsg::PlanModeEntered {
            plan_file_path: plan_file,
        },
    ];
    (live, replay)
}

/// The transcript rows of a screen: everything above the plan-mode hint.
fn transcript_rows(screen: &str) -> Vec<String> {
    let mut rows: Vec<String> = screen
        .lines()
        .take_while(|l| !l.starts_with("📋") && !l.starts_with('─'))
        .map(str::to_string)
        .collect();
    while rows.last().is_some_and(|r| r.is_empty()) {
        rows.pop();
    }
    rows
}

#[test]
fn a_resumed_transcript_renders_as_the_live_session_did() {
    let (mut live, replay) = scripted_session();
    let live_screen = live.render();

    let mut resumed = Harness::configured(100, 60);
    resumed.event(EventMsg::SessionResumed {
        path: PathBuf::from("/data/cairn/sessions/2026/03/04/conv-1.jsonl"),
        replay,
    });
    let resumed_screen = resumed.render();

    let live_rows = transcript_rows(&live_screen);
    let resumed_rows = transcript_rows(&resumed_screen);
    assert!(live_rows.len() > 15, "{live_screen}");
    assert_eq!(
        resumed_rows[..live_rows.len()],
        live_rows[..],
        "live:\n{live_screen}\nresumed:\n{resumed_screen}"
    );
    let rest = resumed_rows[live_rows.len()..].join("\n");
    assert!(
        rest.contains("Resumed session from /data/cairn/sessions/2026/03/04/conv-1.jsonl"),
        "{resumed_screen}"
    );
    // Plan mode, its hint, the tokens and the model: the rows below the transcript match.
    let below = |s: &str| {
        s.lines()
            .skip_while(|l| !l.starts_with("📋"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(below(&live_screen), below(&resumed_screen));
    assert!(resumed_screen.contains(" PLAN MODE "), "{resumed_screen}");
    assert!(
        resumed_screen.contains("69% context left"),
        "{resumed_screen}"
    );
    assert!(!resumed.app.is_working(), "a replay leaves no task running");
    assert!(resumed.app.in_plan_mode());

    // The checklist is restored: the next task pins it, as it would have been live.
    resumed.submit("go on");
    let screen = resumed.render();
    assert!(screen.contains("Plan · 1 of 2 done"), "{screen}");
}

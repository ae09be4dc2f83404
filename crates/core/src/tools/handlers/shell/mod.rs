//! `shell`: run a command through `bash -lc` in its own process group. The whole group is
//! killed on timeout, on interrupt, when the call is dropped, and when the command finishes
//! (so background children never outlive the call). Output is captured head and tail.

mod capture;

use super::paths;
use crate::approval::{Access, SessionScope, classifier, command_paths};
use crate::tools::{
    ApprovalKind, ApprovalRequest, ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec,
    args_value, names, parse_args,
};
use async_trait::async_trait;
use capture::Capture;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde::Deserialize;
use serde_json::json;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

const DEFAULT_TIMEOUT_MS: u64 = 120_000;
const MAX_TIMEOUT_MS: u64 = 30 * 60 * 1000;
/// Bytes kept from the start and from the end of each stream.
const HEAD_BYTES: usize = 16 * 1024;
const TAIL_BYTES: usize = 16 * 1024;
/// After the command ends, how long to wait for output still in the pipes. Only a process
/// that left the group (setsid) can hold them open longer.
const DRAIN_WAIT: Duration = Duration::from_secs(2);
/// Longest command text quoted in a one-line description.
const DESCRIBE_CHARS: usize = 120;

/// Handler of `shell`.
pub struct ShellHandler;

#[derive(Deserialize)]
struct ShellArgs {
    command: String,
    workdir: Option<String>,
    timeout_ms: Option<u64>,
}

#[async_trait]
impl ToolHandler for ShellHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::SHELL.to_string(),
            description: format!(
                "Run a shell command with `bash -lc` and get its exit code and output (stdout and stderr; long output keeps the start and the end). Runs in the working directory unless `workdir` is given. Times out after {} s unless `timeout_ms` says otherwise; on timeout the command and everything it started are killed. Background processes are stopped when the command ends. stdin is empty, so avoid interactive programs. Prefer read_file, list_dir, glob_files and grep_files for reading and searching.",
                DEFAULT_TIMEOUT_MS / 1000
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command line, as typed in bash."},
                    "workdir": {"type": "string", "description": "Directory to run in, relative to the working directory or absolute. Default: the working directory."},
                    "timeout_ms": {"type": "integer", "minimum": 1, "description": "Timeout in milliseconds. Default 120000."}
                },
                "required": ["command"],
                "additionalProperties": false
            }),
        }
    }

    fn is_mutating(&self) -> bool {
        true
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        let command = args["command"].as_str().unwrap_or("");
        sentence(command, args["workdir"].as_str())
    }

    fn approval(
        &self,
        arguments: &str,
        ctx: &ToolContext,
    ) -> Result<Option<ApprovalRequest>, ToolError> {
        let args: ShellArgs = parse_args(arguments)?;
        let workdir = workdir(&args, &ctx.cwd)?;
        let shown = (workdir != ctx.cwd).then(|| paths::display(&workdir, &ctx.cwd));
        let access = Access::new(ctx.config(), &ctx.cwd);
        let named = command_paths::assess(&args.command, &workdir, &access);
        let known_safe = classifier::is_known_safe(&args.command)
            && access.in_workspace(&workdir)
            && !named.reads_outside
            && named.protected.is_none();
        let session = match named.protected {
            Some(_) => SessionScope::none(),
            None => SessionScope::exec(&args.command),
        };
        Ok(Some(ApprovalRequest {
            description: sentence(&args.command, shown.as_deref()),
            session,
            known_safe,
            protected: named.protected.map(String::from),
            kind: ApprovalKind::Exec {
                command: args.command,
                cwd: workdir,
            },
        }))
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: ShellArgs = parse_args(&call.arguments)?;
        if args.command.trim().is_empty() {
            return Err(ToolError::RespondToModel(
                "`command` is empty; give the command line to run.".into(),
            ));
        }
        let workdir = workdir(&args, &ctx.cwd)?;
        let timeout = Duration::from_millis(
            args.timeout_ms
                .unwrap_or(DEFAULT_TIMEOUT_MS)
                .clamp(1, MAX_TIMEOUT_MS),
        );
        run(&args.command, &workdir, timeout, ctx).await
    }
}

/// "Would run `cmd` in dir": the first line of the command, shortened.
fn sentence(command: &str, workdir: Option<&str>) -> String {
    let first = command.trim().lines().next().unwrap_or("");
    let mut shown: String = first.chars().take(DESCRIBE_CHARS).collect();
    if shown.len() < command.trim().len() {
        shown.push_str(" …");
    }
    match workdir {
        Some(dir) if !dir.is_empty() && dir != "." => format!("Would run `{shown}` in {dir}"),
        _ => format!("Would run `{shown}`"),
    }
}

fn workdir(args: &ShellArgs, cwd: &Path) -> Result<PathBuf, ToolError> {
    let Some(raw) = args.workdir.as_deref() else {
        return Ok(cwd.to_path_buf());
    };
    let dir = paths::resolve(cwd, raw)?;
    if !dir.is_dir() {
        return Err(ToolError::RespondToModel(format!(
            "workdir {} does not exist or is not a directory.",
            paths::display(&dir, cwd)
        )));
    }
    Ok(dir)
}

/// Kills the process group when dropped, so a dropped or failed call leaves nothing behind.
struct GroupGuard(Pid);

impl GroupGuard {
    fn kill(&self) {
        // ESRCH (already gone) is the expected outcome for a finished command.
        let _ = killpg(self.0, Signal::SIGKILL);
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// How the wait ended.
enum Ending {
    Exited(ExitStatus),
    TimedOut,
    Interrupted,
}

async fn run(
    command: &str,
    workdir: &Path,
    timeout: Duration,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let started = Instant::now();
    let mut child = Command::new("bash")
        .arg("-lc")
        .arg(command)
        .current_dir(workdir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat")
        // A repository planted by file writes (a bare repo's `config` with core.fsmonitor or
        // diff.external) must not make a "read-only" git command run its code.
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "safe.bareRepository")
        .env("GIT_CONFIG_VALUE_0", "explicit")
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ToolError::RespondToModel(format!("Could not start bash: {e}")))?;
    let pid = child
        .id()
        .ok_or_else(|| ToolError::RespondToModel("The command exited before it started.".into()))?;
    let guard = GroupGuard(Pid::from_raw(pid as i32));
    let stdout = Arc::new(Mutex::new(Capture::new(HEAD_BYTES, TAIL_BYTES)));
    let stderr = Arc::new(Mutex::new(Capture::new(HEAD_BYTES, TAIL_BYTES)));
    let readers = [
        child.stdout.take().map(|p| drain(p, stdout.clone())),
        child.stderr.take().map(|p| drain(p, stderr.clone())),
    ];

    let ending = tokio::select! {
        status = child.wait() => match status {
            Ok(status) => Ending::Exited(status),
            Err(e) => return Err(ToolError::RespondToModel(format!("Waiting for the command failed: {e}"))),
        },
        _ = tokio::time::sleep(timeout) => Ending::TimedOut,
        _ = ctx.cancel.cancelled() => Ending::Interrupted,
    };
    // Whatever happened, nothing the command started may keep running.
    guard.kill();
    if !matches!(ending, Ending::Exited(_)) {
        let _ = child.wait().await;
    }
    for mut reader in readers.into_iter().flatten() {
        // A daemon that escaped the group may hold the pipes open: stop reading, do not leak.
        if tokio::time::timeout(DRAIN_WAIT, &mut reader).await.is_err() {
            reader.abort();
        }
    }
    let elapsed = started.elapsed();
    let output = render_output(&stdout, &stderr);
    match ending {
        Ending::Exited(status) => Ok(format!(
            "Exit code: {}\nDuration: {}\n{output}",
            exit_text(status),
            seconds(elapsed)
        )),
        Ending::TimedOut => Err(ToolError::RespondToModel(format!(
            "Timed out after {}: the command and every process it started were killed. Run it with a larger timeout_ms if it needs longer, or in smaller steps.\n{output}",
            seconds(timeout)
        ))),
        Ending::Interrupted => Err(ToolError::RespondToModel(format!(
            "Interrupted by the user after {}; the command and every process it started were stopped.\n{output}",
            seconds(elapsed)
        ))),
    }
}

/// Read a pipe to its end into `capture`, in a task of its own so the pipes never fill up
/// while the command runs.
fn drain(
    mut pipe: impl AsyncRead + Unpin + Send + 'static,
    capture: Arc<Mutex<Capture>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match pipe.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => capture
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(&buf[..n]),
            }
        }
    })
}

fn render_output(stdout: &Mutex<Capture>, stderr: &Mutex<Capture>) -> String {
    let stdout = stdout.lock().unwrap_or_else(|p| p.into_inner());
    let stderr = stderr.lock().unwrap_or_else(|p| p.into_inner());
    if stdout.is_empty() && stderr.is_empty() {
        return "Output: (none)".to_string();
    }
    let mut sections = Vec::new();
    for (title, capture) in [("Output", &*stdout), ("Stderr", &*stderr)] {
        if !capture.is_empty() {
            let body = capture.render();
            sections.push(format!(
                "{title}:\n{}",
                body.strip_suffix('\n').unwrap_or(&body)
            ));
        }
    }
    sections.join("\n")
}

fn exit_text(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => code.to_string(),
        (None, Some(signal)) => format!("none (killed by signal {signal})"),
        (None, None) => "unknown".to_string(),
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

#[cfg(test)]
mod tests;

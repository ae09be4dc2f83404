//! `shell`: run a command through `bash -c` (`-lc` when `[tools.shell] login` is set). The
//! command runs under the launcher (`launcher.rs`), in a process group of its own; when the call
//! ends, times out, is interrupted or dropped, the launcher kills every process the command
//! started, including those that left the group, and cairn kills the group as a backstop.
//! Output is captured head and tail.
//!
//! Commands run inside the kernel sandbox (`crate::sandbox`) whose policy [`sandbox_policy`]
//! picks: read-only in plan mode and for read-only delegated runs, `[sandbox] mode` otherwise.
//! A command the sandbox blocked may be re-run without it (`unsandboxed: true`) only after the
//! user approves that exact command, every time.

mod capture;
pub mod launcher;
mod reaper;

use super::paths;
use crate::approval::{Access, SessionScope, classifier, command_paths};
use crate::sandbox::{Policy, Spec, denial};
use crate::session::shared::lock;
use crate::tools::{
    ApprovalKind, ApprovalRequest, ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec,
    args_value, names, parse_args,
};
use async_trait::async_trait;
use cairn_protocol::ApprovalPolicy;
use capture::Capture;
use launcher::Via;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use serde::Deserialize;
use serde_json::json;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};

const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Bytes kept from the start and from the end of each stream.
const HEAD_BYTES: usize = 16 * 1024;
const TAIL_BYTES: usize = 16 * 1024;
/// After the command ends, how long to wait for output still in the pipes. Only a process
/// that left the group (setsid) without the launcher there to kill it can hold them open
/// longer.
const DRAIN_WAIT: Duration = Duration::from_secs(2);
/// How long the launcher gets to kill what the command started before cairn kills its
/// process group (and with it the launcher).
const LAUNCHER_GRACE: Duration = Duration::from_millis(500);
/// Longest command text quoted in a one-line description.
const DESCRIBE_CHARS: usize = 120;

/// Handler of `shell`.
pub struct ShellHandler;

#[derive(Deserialize)]
struct ShellArgs {
    command: String,
    workdir: Option<String>,
    timeout_ms: Option<u64>,
    /// Re-run a command the sandbox blocked, without it (asks the user every time).
    #[serde(default)]
    unsandboxed: bool,
}

#[async_trait]
impl ToolHandler for ShellHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::SHELL.to_string(),
            description: format!(
                "Run a shell command with `bash -c` and get its exit code and output (stdout and stderr; long output keeps the start and the end). Runs in the working directory unless `workdir` is given. Times out after {} s unless `timeout_ms` says otherwise, up to the user's limit ([tools.shell] max_timeout_ms, {} minutes unless configured); on timeout the command and everything it started are killed. Background processes, daemons included, are stopped when the command ends. stdin is empty and there is no terminal: use non-interactive forms (`-y`, `git --no-pager`, no editors, pagers or password prompts). Use it for builds, tests, git and running programs; prefer read_file, list_dir, glob_files and grep_files for reading and searching, and the edit tools for changing files.\n\nReturns `Exit code: <n>` and the output; a command that timed out or was stopped says so. Example: {{\"command\": \"cargo test -p parser -- --nocapture round_trip\", \"timeout_ms\": 600000}}",
                DEFAULT_TIMEOUT_MS / 1000,
                crate::config::DEFAULT_SHELL_MAX_TIMEOUT_MS / 60_000
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command line, as typed in bash."},
                    "workdir": {"type": "string", "description": "Directory to run in, relative to the working directory or absolute. Default: the working directory."},
                    "timeout_ms": {"type": "integer", "minimum": 1, "description": "Timeout in milliseconds. Default 120000; capped by the user's [tools.shell] max_timeout_ms."},
                    "unsandboxed": {"type": "boolean", "description": "Only to re-run the exact command the sandbox just blocked, without the sandbox. The user is asked every time and may refuse; never use it to avoid the sandbox in advance."}
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
        let policy = sandbox_policy(ctx).map_err(ToolError::RespondToModel)?;
        if args.unsandboxed && policy.is_some() {
            return escalation(&args, workdir, shown.as_deref(), policy, ctx).map(Some);
        }
        let access = Access::new(ctx.config(), &ctx.cwd);
        let named = command_paths::assess(&args.command, &workdir, &access);
        // Under the read-only sandbox a command cannot write whatever it runs, so the wider
        // read-only list applies (cargo metadata, cargo tree).
        let reads_only = match policy {
            Some(Policy::ReadOnly) => classifier::is_read_only_when_sandboxed(&args.command),
            _ => classifier::is_known_safe(&args.command),
        };
        let known_safe = reads_only
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
        let limit = TimeLimit::new(args.timeout_ms, ctx.config().shell.max_timeout_ms);
        let mut policy = sandbox_policy(ctx).map_err(ToolError::RespondToModel)?;
        if args.unsandboxed && policy.is_some() {
            // The approval asked for exactly this; it is used up now.
            let key = denial_key(&args.command);
            if lock(&ctx.shared.sandbox_denials).remove(&key).is_none() {
                return Err(ToolError::RespondToModel(not_denied_text()));
            }
            policy = None;
        }
        run(&args.command, &workdir, &limit, policy, ctx).await
    }
}

/// The sandbox policy of a shell call: read-only in plan mode and for read-only delegated
/// runs (whose parent was in plan mode or whose agent only reads), `[sandbox] mode`
/// otherwise. `Err` when the command must not run at all.
pub fn sandbox_policy(ctx: &ToolContext) -> Result<Option<Policy>, String> {
    let settings = &ctx.config().sandbox;
    let plan_mode = lock(&ctx.shared.plan_mode).active;
    if plan_mode || ctx.shared.delegation.read_only {
        return settings
            .read_only_available()
            .map(|()| Some(Policy::ReadOnly))
            .map_err(|why| format!("The shell is not available here: it runs only under the read-only sandbox, which cannot be used: {why}."));
    }
    settings.outside_plan_mode()
}

/// The approval request for re-running a blocked command without the sandbox: asked every
/// time, under every policy, never for the session.
fn escalation(
    args: &ShellArgs,
    workdir: PathBuf,
    shown: Option<&str>,
    policy: Option<Policy>,
    ctx: &ToolContext,
) -> Result<ApprovalRequest, ToolError> {
    if policy == Some(Policy::ReadOnly) {
        return Err(ToolError::RespondToModel(
            "In plan mode (and in read-only runs) commands run only inside the read-only sandbox; `unsandboxed` is not available. Plan the change instead.".into(),
        ));
    }
    let Some(touched) = lock(&ctx.shared.sandbox_denials)
        .get(&denial_key(&args.command))
        .cloned()
    else {
        return Err(ToolError::RespondToModel(not_denied_text()));
    };
    if ctx.shared.settings().approval_policy == ApprovalPolicy::Never {
        return Err(ToolError::RespondToModel(
            "The sandbox blocked this command, and with --approval never nobody is asked, so it cannot be re-run without the sandbox. Work inside the workspace instead; the user can set [sandbox] mode = \"off\" to run commands without the sandbox.".into(),
        ));
    }
    Ok(ApprovalRequest {
        description: format!("{} WITHOUT the sandbox", sentence(&args.command, shown)),
        session: SessionScope::none(),
        known_safe: false,
        protected: Some(format!(
            "The sandbox blocked this command: {touched}. Approving runs it once more without the sandbox, with your full rights."
        )),
        kind: ApprovalKind::Exec {
            command: args.command.clone(),
            cwd: workdir,
        },
    })
}

fn not_denied_text() -> String {
    "`unsandboxed` only re-runs a command the sandbox has just blocked in this session; run the command normally first (it runs inside the sandbox).".into()
}

/// How a denied command is remembered: whitespace-normalised, as the user sees it.
fn denial_key(command: &str) -> String {
    command.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A call's timeout: what the model asked for, within the user's cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TimeLimit {
    timeout: Duration,
    /// `[tools.shell] max_timeout_ms`, when it lowered what the model asked for.
    capped_at: Option<Duration>,
}

impl TimeLimit {
    fn new(asked_ms: Option<u64>, max_ms: u64) -> Self {
        let max_ms = max_ms.max(1);
        let ms = asked_ms.unwrap_or(DEFAULT_TIMEOUT_MS).clamp(1, max_ms);
        Self {
            timeout: Duration::from_millis(ms),
            // The default silently fits a smaller cap; only the model's own ask is reported.
            capped_at: asked_ms
                .is_some_and(|asked| asked > max_ms)
                .then(|| Duration::from_millis(max_ms)),
        }
    }

    /// The sentence telling the model its timeout was lowered, if it was.
    fn note(&self) -> Option<String> {
        self.capped_at.map(|cap| {
            format!(
                "The timeout was capped at {} by [tools.shell] max_timeout_ms.",
                whole_seconds(cap)
            )
        })
    }
}

/// "600 s", or "1.5 s" when not a whole number of seconds.
fn whole_seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        seconds(d)
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

/// The command's processes: the launcher (or bash) leads a process group of its own. Unless
/// [`ProcessTree::finished`] ran, dropping it stops everything, so a dropped or failed call
/// leaves nothing behind.
struct ProcessTree {
    leader: Pid,
    via: Via,
    armed: bool,
}

impl ProcessTree {
    /// Stop a command that is still running: the launcher first, which kills every
    /// descendant, then the whole group.
    async fn stop(&mut self, child: &mut Child) {
        if self.via == Via::Launcher {
            let _ = kill(self.leader, Signal::SIGTERM);
            let _ = tokio::time::timeout(LAUNCHER_GRACE, child.wait()).await;
        }
        self.finished();
        let _ = child.wait().await;
    }

    /// The leader has ended: kill what may remain of the group (with the launcher, nothing
    /// should) and disarm the drop.
    fn finished(&mut self) {
        // ESRCH (already gone) is the expected outcome.
        let _ = killpg(self.leader, Signal::SIGKILL);
        self.armed = false;
    }
}

impl Drop for ProcessTree {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        match self.via {
            Via::Direct => {
                let _ = killpg(self.leader, Signal::SIGKILL);
            }
            Via::Launcher => {
                // Killing the group at once would kill the launcher before it reached the
                // processes that left the group; a drop cannot wait, so a thread does.
                let leader = self.leader;
                let _ = kill(leader, Signal::SIGTERM);
                std::thread::spawn(move || {
                    let deadline = Instant::now() + LAUNCHER_GRACE;
                    while Instant::now() < deadline && running(leader) {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    let _ = killpg(leader, Signal::SIGKILL);
                });
            }
        }
    }
}

/// True while `pid` exists and has not ended (a zombie has).
fn running(pid: Pid) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
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
    limit: &TimeLimit,
    policy: Option<Policy>,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let started = Instant::now();
    // The private temporary directory lives as long as this call: removed when it drops.
    let tmp = match policy {
        Some(_) => Some(
            tempfile::Builder::new()
                .prefix("cairn-sandbox-")
                .tempdir()
                .map_err(|e| ToolError::RespondToModel(format!("Could not create the command's temporary directory: {e}. Check that the system temporary directory is writable.")))?,
        ),
        None => None,
    };
    let spec = policy.zip(tmp.as_ref()).map(|(policy, tmp)| {
        Spec::new(
            policy,
            &ctx.cwd,
            &ctx.config().cairn_home,
            tmp.path(),
            ctx.config().sandbox.network,
        )
    });
    let (mut program, via) = launcher::command(command, ctx.config().shell.login, spec.as_ref())
        .map_err(ToolError::RespondToModel)?;
    if let Some(tmp) = &tmp {
        program.env("TMPDIR", tmp.path());
    }
    let mut child = Command::from(program)
        .current_dir(workdir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        // The launcher is stopped by `ProcessTree`: a SIGKILL would leave it no time to clean.
        .kill_on_drop(via == Via::Direct)
        .spawn()
        .map_err(|e| ToolError::RespondToModel(format!("Could not start bash: {e}")))?;
    let pid = child
        .id()
        .ok_or_else(|| ToolError::RespondToModel("The command exited before it started.".into()))?;
    let mut tree = ProcessTree {
        leader: Pid::from_raw(pid as i32),
        via,
        armed: true,
    };
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
        _ = tokio::time::sleep(limit.timeout) => Ending::TimedOut,
        _ = ctx.cancel.cancelled() => Ending::Interrupted,
    };
    // Whatever happened, nothing the command started may keep running.
    match ending {
        Ending::Exited(_) => tree.finished(),
        Ending::TimedOut | Ending::Interrupted => tree.stop(&mut child).await,
    }
    for mut reader in readers.into_iter().flatten() {
        // Without the launcher, a daemon that escaped the group may hold the pipes open: stop
        // reading, do not leak.
        if tokio::time::timeout(DRAIN_WAIT, &mut reader).await.is_err() {
            reader.abort();
        }
    }
    let elapsed = started.elapsed();
    let mut output = render_output(&stdout, &stderr);
    if let Some(spec) = &spec
        && let Some(blocked) = denial::find(&lock(&stderr).render())
    {
        output.push_str(&denial_note(spec, &blocked));
        lock(&ctx.shared.sandbox_denials).insert(denial_key(command), blocked.what());
    }
    let note = limit.note();
    match ending {
        Ending::Exited(status) => Ok(format!(
            "Exit code: {}\nDuration: {}\n{}{output}",
            exit_text(status),
            seconds(elapsed),
            note.map(|n| format!("{n}\n")).unwrap_or_default(),
        )),
        Ending::TimedOut => Err(ToolError::RespondToModel(format!(
            "Timed out after {}: the command and every process it started were killed. {}\n{output}",
            seconds(limit.timeout),
            note.map_or(
                "Run it with a larger timeout_ms if it needs longer, or in smaller steps.".into(),
                |n| format!("{n} Run it in smaller steps."),
            ),
        ))),
        Ending::Interrupted => Err(ToolError::RespondToModel(format!(
            "Interrupted by the user after {}; the command and every process it started were stopped.\n{output}",
            seconds(elapsed)
        ))),
    }
}

/// What the model reads after a command the sandbox seems to have blocked.
fn denial_note(spec: &Spec, blocked: &denial::Denial) -> String {
    let next = match spec.policy {
        Policy::ReadOnly => "Plan mode only reads: leave this step to the plan.",
        Policy::WorkspaceWrite => {
            "If the command must do this, call shell again with the same command and \"unsandboxed\": true; the user will be asked to approve running it without the sandbox."
        }
    };
    format!(
        "\nSandbox: this command ran in cairn's {}, and it seems to have been blocked: {}. {next}",
        spec.summary(),
        blocked.what()
    )
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

//! The shell launcher: the `cairn` binary re-executed as a small helper between cairn and
//! `bash`. It is where a shell command is set up before it runs: its environment, and the
//! kernel sandbox it applies to itself before starting bash (`crate::sandbox::enforce`), so
//! every process of the command inherits it. It also makes sure nothing the command started
//! outlives the call: as a child subreaper it adopts every orphan, even one that left the
//! process group with `setsid`, and kills them all when bash ends, when cairn asks, or when
//! cairn dies (see `reaper`).
//!
//! cairn starts it as
//! `<cairn> __cairn-shell-launcher <cairn pid> <plain|login> <sandbox spec JSON | -> <command>`;
//! both ends of that argument list live in this file.

use super::reaper;
use crate::sandbox::Spec;
use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// First argument that turns the `cairn` binary into the launcher.
const FLAG: &str = "__cairn-shell-launcher";

/// The executable to re-run as launcher, set once this process has been found able to serve.
static LAUNCHER: OnceLock<PathBuf> = OnceLock::new();

/// Call first thing in `main`, before argument parsing and before any thread starts.
///
/// When the process was started as the launcher, runs the command and exits with its status;
/// this function then never returns. Otherwise it records that this binary can serve as
/// launcher, so the shell tool runs its commands through it, and returns.
pub fn run_if_requested() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() == Some(OsStr::new(FLAG)) {
        std::process::exit(reaper::serve(Request::parse(args)));
    }
    // `/proc/self/exe` rather than the path we were started by: it still names this very
    // binary after an upgrade replaced the file, so both ends always speak the same protocol.
    let exe = Path::new("/proc/self/exe");
    if exe.exists() {
        let _ = LAUNCHER.set(exe.to_path_buf());
    }
}

/// True when shell commands run under the launcher, which is what applies the sandbox.
pub fn is_available() -> bool {
    LAUNCHER.get().is_some()
}

/// Use `exe` (a `cairn` binary) as the launcher of this process. For embedders and tests that
/// are not the `cairn` binary but want its launcher, and with it the sandbox.
#[doc(hidden)]
pub fn use_executable(exe: PathBuf) {
    let _ = LAUNCHER.set(exe);
}

/// How a shell command is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Via {
    /// Through the launcher, which kills every descendant when the call ends.
    Launcher,
    /// `bash` directly, in its own process group. Only where no launcher was recorded: core's
    /// own tests run inside a test binary that cannot serve as one. There, a process that
    /// leaves the group (`setsid`) can outlive the call; the `cairn` binary always has one.
    Direct,
}

/// The command that runs `command` in a shell, and how it is run. The caller adds the working
/// directory, the output pipes and the process group.
///
/// With a `sandbox` spec and no launcher there is nothing to apply it: an error, never an
/// unsandboxed run.
pub(super) fn command(
    command: &str,
    login: bool,
    sandbox: Option<&Spec>,
) -> Result<(Command, Via), String> {
    match LAUNCHER.get() {
        Some(exe) => {
            let spec = match sandbox {
                Some(spec) => serde_json::to_string(spec)
                    .map_err(|e| format!("could not write the sandbox spec: {e}"))?,
                None => "-".to_string(),
            };
            let mut launcher = Command::new(exe);
            launcher
                .arg0("cairn")
                .arg(FLAG)
                .arg(std::process::id().to_string())
                .arg(if login { "login" } else { "plain" })
                .arg(spec)
                .arg(command)
                .stdin(Stdio::null());
            Ok((launcher, Via::Launcher))
        }
        None if sandbox.is_some() => Err(
            "this process cannot run cairn's shell launcher, so the sandbox cannot be applied and the command was not run".into(),
        ),
        None => Ok((bash(command, login), Via::Direct)),
    }
}

/// `bash -c COMMAND` (`-lc` for a login shell) with the environment every command gets.
/// stdin is empty; stdout, stderr and the working directory are inherited.
pub(super) fn bash(command: &str, login: bool) -> Command {
    let mut bash = Command::new("bash");
    bash.arg(if login { "-lc" } else { "-c" })
        .arg(command)
        .stdin(Stdio::null())
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat")
        // A repository planted by file writes (a bare repo's `config` with core.fsmonitor or
        // diff.external) must not make a "read-only" git command run its code.
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "safe.bareRepository")
        .env("GIT_CONFIG_VALUE_0", "explicit");
    bash
}

/// What the launcher was asked to run.
pub(super) struct Request {
    /// cairn's pid: when our parent is no longer this process, cairn is gone.
    pub parent: i32,
    /// `bash -lc` rather than `bash -c`.
    pub login: bool,
    /// The sandbox to apply before bash starts, if any.
    pub sandbox: Option<Spec>,
    /// The command line.
    pub command: String,
}

impl Request {
    /// The arguments after the flag, as [`command`] wrote them.
    fn parse(mut args: impl Iterator<Item = OsString>) -> Result<Self, String> {
        let mut next = |what: &str| {
            args.next()
                .and_then(|a| a.into_string().ok())
                .ok_or_else(|| format!("the launcher's {what} is missing or not UTF-8"))
        };
        let parent = next("parent pid")?
            .parse()
            .map_err(|_| "the launcher's parent pid is not a number".to_string())?;
        let login = match next("shell mode")?.as_str() {
            "login" => true,
            "plain" => false,
            other => return Err(format!("unknown shell mode {other:?}")),
        };
        let sandbox = match next("sandbox spec")?.as_str() {
            "-" => None,
            json => Some(
                serde_json::from_str(json)
                    .map_err(|e| format!("the launcher's sandbox spec is not valid: {e}"))?,
            ),
        };
        let command = next("command")?;
        Ok(Self {
            parent,
            login,
            sandbox,
            command,
        })
    }
}

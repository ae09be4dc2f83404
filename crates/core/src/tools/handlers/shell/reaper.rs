//! The launcher's body: run bash as a child subreaper, then kill whatever it left behind.
//!
//! Every orphan among the command's descendants is re-parented to the nearest subreaper, this
//! process, so when bash ends (or cairn asks us to stop, or cairn dies) repeatedly killing our
//! direct children reaches them all, `setsid` daemons included.

use super::launcher::{self, Request};
use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, poll};
use nix::sys::prctl;
use nix::sys::signal::{SigSet, Signal, kill, raise};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, getpid, getppid};
use std::io::Write;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

/// How often we check that cairn is still there while the command runs. cairn's death sends
/// no signal we can rely on: PR_SET_PDEATHSIG follows the thread that spawned us, a tokio
/// worker, not the process.
const PARENT_CHECK: Duration = Duration::from_millis(200);
/// Longest time spent killing descendants, so a fork bomb cannot keep the launcher forever.
const KILL_BUDGET: Duration = Duration::from_secs(3);
/// Between two rounds of killing: time for killed children to end and report it.
const KILL_ROUND: Duration = Duration::from_millis(20);

/// Signals that tell the launcher to stop the command. cairn sends SIGTERM.
const STOP_SIGNALS: [Signal; 3] = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP];

/// How the command's run ended.
#[derive(Debug, Clone, Copy)]
enum Ending {
    /// bash exited with this code.
    Exited(i32),
    /// bash was killed by this signal.
    Signaled(Signal),
    /// We stopped it (told to, or cairn went away); exit with this code.
    Stopped(i32),
}

/// Run the request and return the launcher's exit code.
pub(super) fn serve(request: Result<Request, String>) -> i32 {
    let request = match request {
        Ok(request) => request,
        Err(err) => return fail(&err, 2),
    };
    // Should this fail (a kernel before 3.4), orphans go to init; cairn's kill of the process
    // group still reaches everything that stayed in it.
    let _ = prctl::set_child_subreaper(true);
    let mut mask = SigSet::empty();
    mask.add(Signal::SIGCHLD);
    for signal in STOP_SIGNALS {
        mask.add(signal);
    }
    // Blocked signals queue on the signalfd instead of interrupting us. bash starts with an
    // empty mask: std resets it when spawning.
    let signals = match mask
        .thread_block()
        .and_then(|()| SignalFd::with_flags(&mask, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC))
    {
        Ok(signals) => signals,
        Err(err) => return fail(&format!("could not watch signals: {err}"), 126),
    };
    // After the signal set-up (which needs nothing the sandbox forbids), before bash: every
    // process of the command starts inside it, and a sandbox that cannot be applied means
    // nothing runs.
    if let Some(spec) = &request.sandbox
        && let Err(err) = crate::sandbox::enforce::apply(spec)
    {
        return fail(&format!("the sandbox could not be applied: {err}"), 126);
    }
    let bash = match launcher::bash(&request.command, request.login).spawn() {
        Ok(child) => Pid::from_raw(child.id() as i32),
        Err(err) => return fail(&format!("Could not start bash: {err}"), 127),
    };
    let ending = supervise(bash, Pid::from_raw(request.parent), &signals);
    kill_descendants(&signals);
    match ending {
        Ending::Exited(code) | Ending::Stopped(code) => code,
        Ending::Signaled(signal) => die_like(signal),
    }
}

/// Wait for bash to end, reaping adopted orphans on the way, unless told to stop first.
fn supervise(bash: Pid, parent: Pid, signals: &SignalFd) -> Ending {
    loop {
        let mut ended = None;
        let children_left = reap(bash, &mut ended);
        if let Some(ending) = ended {
            return ending;
        }
        if !children_left {
            // bash is our child until we reap it; this cannot happen, but must not spin.
            return Ending::Stopped(1);
        }
        if getppid() != parent {
            // cairn is gone; nobody reads the exit code.
            return Ending::Stopped(128 + Signal::SIGHUP as i32);
        }
        if let Some(signal) = next_signals(signals, PARENT_CHECK) {
            return Ending::Stopped(128 + signal as i32);
        }
    }
}

/// Reap every child that has ended, noting bash's status in `ended`. False once we have no
/// child left.
fn reap(bash: Pid, ended: &mut Option<Ending>) -> bool {
    loop {
        match waitpid(None, Some(WaitPidFlag::WNOHANG | WaitPidFlag::__WALL)) {
            Ok(WaitStatus::StillAlive) => return true,
            Ok(WaitStatus::Exited(pid, code)) if pid == bash => *ended = Some(Ending::Exited(code)),
            Ok(WaitStatus::Signaled(pid, signal, _)) if pid == bash => {
                *ended = Some(Ending::Signaled(signal));
            }
            Ok(_) | Err(Errno::EINTR) => {}
            Err(_) => return false,
        }
    }
}

/// Wait up to `timeout` for signals and take them all; the first that asks us to stop.
fn next_signals(signals: &SignalFd, timeout: Duration) -> Option<Signal> {
    let mut fds = [PollFd::new(signals.as_fd(), PollFlags::POLLIN)];
    let millis = u16::try_from(timeout.as_millis()).unwrap_or(u16::MAX);
    // An error (EINTR) only shortens the wait; the caller loops.
    let _ = poll(&mut fds, millis);
    let mut stop = None;
    while let Ok(Some(info)) = signals.read_signal() {
        let signal = i32::try_from(info.ssi_signo)
            .ok()
            .and_then(|n| Signal::try_from(n).ok());
        if let Some(signal) = signal.filter(|s| STOP_SIGNALS.contains(s)) {
            stop.get_or_insert(signal);
        }
    }
    stop
}

/// Kill every descendant: SIGKILL our direct children, reap them, and repeat as their own
/// children are re-parented to us, until none is left or the budget is spent.
fn kill_descendants(signals: &SignalFd) {
    let me = getpid();
    let deadline = Instant::now() + KILL_BUDGET;
    // Usually nothing is left: the first reap says so without a look at /proc.
    while reap(me, &mut None) && Instant::now() < deadline {
        for child in children(me) {
            // Safe from pid reuse: a child's pid stays ours until we reap it.
            let _ = kill(child, Signal::SIGKILL);
        }
        // Killed children end asynchronously; each end wakes us with SIGCHLD.
        let _ = next_signals(signals, KILL_ROUND);
    }
}

/// Our direct children.
fn children(me: Pid) -> Vec<Pid> {
    // The kernel's list (CONFIG_PROC_CHILDREN) is cheap but may miss a child that is being
    // re-parented right now; scanning /proc works everywhere.
    let listed: Vec<Pid> = std::fs::read_to_string(format!("/proc/{me}/task/{me}/children"))
        .map(|list| {
            list.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .map(Pid::from_raw)
                .collect()
        })
        .unwrap_or_default();
    if !listed.is_empty() {
        return listed;
    }
    let Ok(proc) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    proc.flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| parent_of(pid) == Some(me.as_raw()))
        .map(Pid::from_raw)
        .collect()
}

/// The parent pid of `pid`, from /proc/<pid>/stat ("pid (comm) state ppid ...").
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(") ")?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// End the way bash ended, so cairn reports "killed by signal N" as it does without us.
fn die_like(signal: Signal) -> i32 {
    // No core file of ours: bash has left its own if the system keeps them.
    let _ = prctl::set_dumpable(false);
    let mut only = SigSet::empty();
    only.add(signal);
    let _ = only.thread_unblock();
    let _ = raise(signal);
    // Still alive: this process ignores the signal (a Rust program ignores SIGPIPE). Say it
    // the way a shell does.
    128 + signal as i32
}

/// Report a failure on stderr, which cairn shows the model as the command's output.
fn fail(message: &str, code: i32) -> i32 {
    let _ = writeln!(std::io::stderr(), "cairn shell launcher: {message}");
    code
}

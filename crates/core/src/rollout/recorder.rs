//! Writing the session log: a thread of its own fed by a channel, so the session loop never
//! waits on the disk. Each line is written with one `write` as it arrives (nothing sits in a
//! user-space buffer), the file is synced at the end of every turn, and an exclusive
//! advisory lock (`flock`) keeps a second process from appending to the same session.

use super::{LogLine, SessionMeta, StateSnapshot};
use crate::history::ResponseItem;
use cairn_protocol::EventMsg;
use nix::fcntl::{Flock, FlockArg};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use tokio::sync::{mpsc, oneshot};

/// What the writer thread is asked to do.
enum Command {
    Line(Box<LogLine>),
    /// fsync; the sender, if any, is told when it is done.
    Sync(Option<oneshot::Sender<()>>),
    /// fsync, close (unlocking the session) and stop; the sender is told when it is done.
    Close(oneshot::Sender<()>),
}

/// The session loop's end of the log. Cloning is cheap; the file is closed (and unlocked)
/// when the last clone is dropped and the writer has drained its queue.
#[derive(Debug, Clone)]
pub struct Recorder {
    tx: mpsc::UnboundedSender<Command>,
    path: PathBuf,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Line(_) => "Line",
            Self::Sync(_) => "Sync",
            Self::Close(_) => "Close",
        })
    }
}

/// Why a session log could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the session's lock.
    #[error(
        "session {path} is open in another cairn process{holder}; close it there first, or resume another session"
    )]
    Busy {
        /// The session file.
        path: PathBuf,
        /// " (pid 1234, cairn)" when the holder could be found.
        holder: String,
    },
    /// The file could not be created or opened.
    #[error("could not open the session log {path}: {source}")]
    Io {
        /// The session file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
}

impl Recorder {
    /// Start a new session file at `path` whose first line is `meta` (the writer adds the git
    /// branch and head of `meta.cwd`, off the session's start-up path).
    pub fn create(path: &Path, meta: SessionMeta) -> Result<Self, LockError> {
        let io = |source| LockError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        let locked = lock(file, path)?;
        Ok(Self::start(locked, path, Some(meta)))
    }

    /// Append to the existing session file at `path` (resume). A torn last line (a crash
    /// mid-write) is ended first, so the next line does not run into it.
    pub fn append(path: &Path) -> Result<Self, LockError> {
        let io = |source| LockError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        let mut locked = lock(file, path)?;
        if !ends_with_newline(&locked).map_err(io)? {
            locked.write_all(b"\n").map_err(io)?;
        }
        Ok(Self::start(locked, path, None))
    }

    fn start(file: Flock<File>, path: &Path, meta: Option<SessionMeta>) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let shown = path.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("cairn-session-log".into())
            .spawn(move || write_loop(file, &shown, meta, rx));
        if let Err(err) = spawned {
            tracing::error!(%err, "could not start the session log writer");
        }
        Self {
            tx,
            path: path.to_path_buf(),
        }
    }

    /// The session file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Log a history item.
    pub fn item(&self, item: &ResponseItem) {
        self.line(LogLine::Item { item: item.clone() });
    }

    /// Log an event, if it is one the log keeps. A long tool output is kept as its start and
    /// end: the history item holds it whole, the transcript shows only so much.
    pub fn event(&self, msg: &EventMsg) {
        if !super::keeps(msg) {
            return;
        }
        let mut msg = msg.clone();
        if let EventMsg::ToolCallEnd { output, .. } = &mut msg {
            shorten(output);
        }
        self.line(LogLine::Event { msg });
    }

    /// Log the state.
    pub fn state(&self, snapshot: StateSnapshot) {
        self.line(LogLine::State(snapshot));
    }

    /// Log that compaction replaced the history.
    pub fn compacted(&self, history: &[ResponseItem]) {
        self.line(LogLine::Compacted {
            history: history.to_vec(),
        });
    }

    fn line(&self, line: LogLine) {
        // A closed channel means the writer failed and said so in the log file; the session
        // goes on without a log rather than failing the user's work.
        let _ = self.tx.send(Command::Line(Box::new(line)));
    }

    /// Sync the file without waiting (end of a turn).
    pub fn sync(&self) {
        let _ = self.tx.send(Command::Sync(None));
    }

    /// Write everything queued so far, sync and close the file, releasing the session's lock
    /// at once (the session is ending). Lines sent afterwards are dropped.
    pub async fn close(&self) {
        let (ack, done) = oneshot::channel();
        if self.tx.send(Command::Close(ack)).is_ok() {
            let _ = done.await;
        }
    }

    /// Write everything queued so far and sync; returns when it is on disk.
    pub async fn flush(&self) {
        let (ack, done) = oneshot::channel();
        if self.tx.send(Command::Sync(Some(ack))).is_ok() {
            let _ = done.await;
        }
    }
}

/// Most bytes of a tool output kept in a logged `tool_call_end` (half from each end).
const MAX_LOGGED_OUTPUT: usize = 16 * 1024;

fn shorten(output: &mut String) {
    if output.len() <= MAX_LOGGED_OUTPUT {
        return;
    }
    let half = MAX_LOGGED_OUTPUT / 2;
    let mut head_end = half;
    while !output.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = output.len() - half;
    while !output.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let cut = tail_start - head_end;
    *output = format!(
        "{}\n[… {cut} bytes not kept in the session log …]\n{}",
        &output[..head_end],
        &output[tail_start..]
    );
}

fn ends_with_newline(file: &File) -> std::io::Result<bool> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(true);
    }
    let mut last = [0u8; 1];
    file.read_exact_at(&mut last, len - 1)?;
    Ok(last[0] == b'\n')
}

fn lock(file: File, path: &Path) -> Result<Flock<File>, LockError> {
    let inode = file.metadata().map(|m| m.ino()).ok();
    Flock::lock(file, FlockArg::LockExclusiveNonblock).map_err(|(_, errno)| {
        if errno == nix::errno::Errno::EWOULDBLOCK {
            LockError::Busy {
                path: path.to_path_buf(),
                holder: inode.and_then(lock_holder).unwrap_or_default(),
            }
        } else {
            LockError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::from(errno),
            }
        }
    })
}

/// " (pid N, name)" of the process holding a `flock` on the file with inode `inode`, from
/// `/proc/locks` (Linux); `None` when it cannot be told.
fn lock_holder(inode: u64) -> Option<String> {
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    let pid = locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // "1: FLOCK  ADVISORY  WRITE 1234 00:2e:5678 0 EOF"
        let kind = fields.get(1)?;
        let pid = fields.get(4)?;
        let ino = fields.get(5)?.rsplit(':').next()?.parse::<u64>().ok()?;
        (*kind == "FLOCK" && ino == inode).then(|| pid.to_string())
    })?;
    let name = std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|n| n.trim().to_string())
        .unwrap_or_default();
    Some(if name.is_empty() {
        format!(" (pid {pid})")
    } else {
        format!(" (pid {pid}, {name})")
    })
}

fn write_loop(
    mut file: Flock<File>,
    path: &Path,
    meta: Option<SessionMeta>,
    mut rx: mpsc::UnboundedReceiver<Command>,
) {
    if let Some(mut meta) = meta {
        let (branch, head) = git_state(&meta.cwd);
        meta.git_branch = branch;
        meta.git_head = head;
        if !write_line(&mut file, path, &LogLine::Meta(meta)) {
            return;
        }
    }
    while let Some(command) = rx.blocking_recv() {
        match command {
            Command::Line(line) => {
                if !write_line(&mut file, path, &line) {
                    return;
                }
            }
            Command::Sync(ack) => {
                if let Err(err) = file.sync_data() {
                    tracing::warn!(%err, path = %path.display(), "could not sync the session log");
                }
                if let Some(ack) = ack {
                    let _ = ack.send(());
                }
            }
            Command::Close(ack) => {
                let _ = file.sync_data();
                drop(file);
                let _ = ack.send(());
                return;
            }
        }
    }
    let _ = file.sync_data();
}

/// Write one line with a single `write_all`; false (and a log entry) when the disk refuses,
/// after which the session goes on unlogged.
fn write_line(file: &mut File, path: &Path, line: &LogLine) -> bool {
    let mut bytes = match serde_json::to_vec(line) {
        Ok(bytes) => bytes,
        Err(err) => {
            tracing::error!(%err, "a session log line could not be encoded; skipped");
            return true;
        }
    };
    bytes.push(b'\n');
    if let Err(err) = file.write_all(&bytes) {
        tracing::error!(%err, path = %path.display(), "writing the session log failed; the rest of this session is not logged");
        return false;
    }
    true
}

/// Branch and head commit of the repository containing `cwd`, read from `.git` directly
/// (no `git` process on the start-up path).
fn git_state(cwd: &Path) -> (Option<String>, Option<String>) {
    let Some(git_dir) = cwd.ancestors().map(|d| d.join(".git")).find(|g| g.is_dir()) else {
        return (None, None);
    };
    let Ok(head) = std::fs::read_to_string(git_dir.join("HEAD")) else {
        return (None, None);
    };
    let head = head.trim();
    match head.strip_prefix("ref: ") {
        Some(reference) => {
            let branch = reference.strip_prefix("refs/heads/").unwrap_or(reference);
            let commit = std::fs::read_to_string(git_dir.join(reference))
                .ok()
                .map(|c| c.trim().to_string())
                .or_else(|| packed_ref(&git_dir, reference));
            (Some(branch.to_string()), commit)
        }
        None => (None, Some(head.to_string())),
    }
}

fn packed_ref(git_dir: &Path, reference: &str) -> Option<String> {
    let packed = std::fs::read_to_string(git_dir.join("packed-refs")).ok()?;
    packed.lines().find_map(|line| {
        let (commit, name) = line.split_once(' ')?;
        (name == reference).then(|| commit.to_string())
    })
}

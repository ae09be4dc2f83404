//! Listing sessions for `cairn sessions list`, `cairn resume` and the picker. Only the head of
//! each file (the meta line and the first prompt) and its tail (the last state snapshot) are
//! read, so listing costs the same whatever the sessions' sizes.

use super::{LogLine, SessionMeta, StateSnapshot};
use cairn_protocol::EventMsg;
use serde::Serialize;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Bytes read from the start of a file for the meta line and the first prompt.
const HEAD_BYTES: u64 = 64 * 1024;
/// Bytes read from the end of a file for the last state snapshot.
const TAIL_BYTES: u64 = 64 * 1024;

/// One session as pickers show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSummary {
    /// Conversation id.
    pub id: String,
    /// The file.
    pub path: PathBuf,
    /// Working directory.
    pub cwd: PathBuf,
    /// Model at the start.
    pub model: String,
    /// RFC 3339 start time.
    pub started_at: String,
    /// Last write, seconds since the Unix epoch.
    pub updated_at: u64,
    /// The first user message (its first line, shortened).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_prompt: Option<String>,
    /// Tasks run.
    pub turns: u64,
    /// "plan mode", "3/5 steps", ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_status: Option<String>,
}

/// Every session under `sessions_dir`, most recently updated first. Unreadable files are
/// left out.
pub fn list(sessions_dir: &Path) -> Vec<SessionSummary> {
    let mut files = Vec::new();
    collect(sessions_dir, 0, &mut files);
    let mut sessions: Vec<SessionSummary> = files.iter().filter_map(|p| summarize(p)).collect();
    sessions.sort_by(|a, b| {
        b.updated_at
            .cmp(&a.updated_at)
            .then_with(|| b.id.cmp(&a.id))
    });
    sessions
}

/// Why a session could not be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FindError {
    /// Nothing matched.
    #[error("no session matches `{0}`; `cairn sessions list` shows them")]
    NotFound(String),
    /// More than one matched.
    #[error("`{query}` matches {count} sessions; give more of the id")]
    Ambiguous {
        /// What was asked.
        query: String,
        /// How many matched.
        count: usize,
    },
    /// `--last` with no session in this directory.
    #[error("no session was started in {0}; `cairn sessions list` shows the others")]
    NoneHere(PathBuf),
}

/// The session whose id is `query` or starts with it.
pub fn find(sessions: &[SessionSummary], query: &str) -> Result<SessionSummary, FindError> {
    let query = query.trim();
    if let Some(exact) = sessions.iter().find(|s| s.id == query) {
        return Ok(exact.clone());
    }
    let matches: Vec<&SessionSummary> = sessions
        .iter()
        .filter(|s| !query.is_empty() && s.id.starts_with(query))
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(FindError::NotFound(query.to_string())),
        many => Err(FindError::Ambiguous {
            query: query.to_string(),
            count: many.len(),
        }),
    }
}

/// The most recently updated session started in `cwd` that has something in it (a TUI opened
/// and quit at once leaves an empty one).
pub fn latest_in(sessions: &[SessionSummary], cwd: &Path) -> Result<SessionSummary, FindError> {
    sessions
        .iter()
        .find(|s| s.cwd == cwd && (s.turns > 0 || s.first_prompt.is_some()))
        .cloned()
        .ok_or_else(|| FindError::NoneHere(cwd.to_path_buf()))
}

/// `sessions/YYYY/MM/DD/*.jsonl`: three directory levels, then files.
fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if depth < 3 && kind.is_dir() {
            collect(&path, depth + 1, out);
        } else if depth == 3 && kind.is_file() && path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

/// The summary of one file from its head and tail.
pub fn summarize(path: &Path) -> Option<SessionSummary> {
    let mut file = std::fs::File::open(path).ok()?;
    let meta_fs = file.metadata().ok()?;
    let updated_at = meta_fs
        .modified()
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let (meta, first_prompt) = head(&mut file)?;
    let state = tail(&mut file, meta_fs.len()).unwrap_or_default();
    Some(SessionSummary {
        id: meta.id,
        path: path.to_path_buf(),
        cwd: meta.cwd,
        model: meta.model,
        started_at: meta.started_at,
        updated_at,
        first_prompt,
        turns: state.turns,
        plan_status: state.plan_status,
    })
}

fn head(file: &mut std::fs::File) -> Option<(SessionMeta, Option<String>)> {
    let mut reader = BufReader::new(file.by_ref().take(HEAD_BYTES));
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let LogLine::Meta(meta) = serde_json::from_str(line.trim_end()).ok()? else {
        return None;
    };
    let mut first_prompt = None;
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // Cheap test before parsing: most lines are not the user's message.
        if !line.contains("\"user_message\"") {
            continue;
        }
        if let Ok(LogLine::Event {
            msg: EventMsg::UserMessage { text },
        }) = serde_json::from_str(line.trim_end())
        {
            first_prompt = Some(shorten(&text));
            break;
        }
    }
    Some((meta, first_prompt))
}

/// The last state snapshot: the last 8 KB are read first (a snapshot ends every turn, so it
/// is almost always there), then up to [`TAIL_BYTES`].
fn tail(file: &mut std::fs::File, len: u64) -> Option<StateSnapshot> {
    [8 * 1024, TAIL_BYTES]
        .into_iter()
        .find_map(|window| last_state_in(file, len, window))
}

fn last_state_in(file: &mut std::fs::File, len: u64, window: u64) -> Option<StateSnapshot> {
    let start = len.saturating_sub(window);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::with_capacity(window as usize);
    file.take(window).read_to_end(&mut bytes).ok()?;
    let marker = b"\n{\"type\":\"state\"";
    let mut end = bytes.len();
    while let Some(at) = memchr::memmem::rfind(&bytes[..end], marker) {
        let line_start = at + 1;
        let line_end =
            memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |n| line_start + n);
        if let Ok(LogLine::State(state)) = serde_json::from_slice(&bytes[line_start..line_end]) {
            return Some(state);
        }
        end = at;
    }
    None
}

/// The first line of `text`, at most 80 characters.
fn shorten(text: &str) -> String {
    let first = text.trim().lines().next().unwrap_or("");
    let mut out: String = first.chars().take(80).collect();
    if out.len() < first.len() || text.trim().lines().nth(1).is_some() {
        out.push('…');
    }
    out
}

//! Reading a session log back: a streaming reader that tolerates what crashes and newer
//! versions leave behind. A torn or garbled line is skipped with a warning naming the file and
//! line; a line of a type this version does not know is skipped silently; a tool call without
//! an output (cairn stopped mid-call) gets an "interrupted" output, so the provider never sees
//! an orphan call.

use super::{LogLine, SessionMeta, StateSnapshot};
use crate::history::ResponseItem;
use cairn_protocol::shown::shown_output;
use cairn_protocol::{EventMsg, Plan, TokenUsage};
use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// The output given to a call the log shows started but never answered.
pub const INTERRUPTED_OUTPUT: &str = "This call was interrupted: cairn stopped before it finished, so its result is unknown. Check its effects before running it again.";

/// A session read back from its log.
#[derive(Debug, Clone, Default)]
pub struct LoadedSession {
    /// The file.
    pub path: PathBuf,
    /// Its first line.
    pub meta: Option<SessionMeta>,
    /// The conversation, as the next request will carry it.
    pub history: Vec<ResponseItem>,
    /// The last state snapshot.
    pub state: StateSnapshot,
    /// The last checklist or structured plan shown.
    pub plan: Option<Plan>,
    /// Token counts at the end.
    pub usage: TokenUsage,
    /// Events that re-render the transcript, in order.
    pub replay: Vec<EventMsg>,
    /// Calls answered with [`INTERRUPTED_OUTPUT`] while loading (to be logged on resume).
    pub repaired: Vec<ResponseItem>,
    /// What was skipped, in words for the user.
    pub warnings: Vec<String>,
}

/// Why a session could not be loaded at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("could not read the session log {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The first line is not a cairn session meta line.
    #[error("{0} is not a cairn session log (its first line is not a session header)")]
    NotASession(PathBuf),
}

/// Read the session log at `path`.
pub fn load(path: &Path) -> Result<LoadedSession, LoadError> {
    let file = std::fs::File::open(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read(BufReader::with_capacity(256 * 1024, file), path)
}

/// Read a session log from `reader` (`path` names it in warnings).
pub fn read(mut reader: impl BufRead, path: &Path) -> Result<LoadedSession, LoadError> {
    let mut session = LoadedSession {
        path: path.to_path_buf(),
        ..LoadedSession::default()
    };
    let mut buf = Vec::new();
    let mut number = 0usize;
    let mut skipped = 0usize;
    loop {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| LoadError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        if read == 0 {
            break;
        }
        number += 1;
        let text = trim_line(&buf);
        if text.is_empty() {
            continue;
        }
        match serde_json::from_slice::<LogLine>(text) {
            Ok(line) => {
                if number == 1 && !matches!(line, LogLine::Meta(_)) {
                    return Err(LoadError::NotASession(path.to_path_buf()));
                }
                apply(&mut session, line);
            }
            Err(_) if number == 1 => return Err(LoadError::NotASession(path.to_path_buf())),
            Err(_) if is_unknown_type(text) => {}
            Err(_) => {
                skipped += 1;
                if skipped == 1 {
                    let torn = if buf.last() == Some(&b'\n') {
                        "is not valid"
                    } else {
                        "was cut off (cairn stopped while writing it)"
                    };
                    session.warnings.push(format!(
                        "{}: line {number} {torn} and was skipped",
                        path.display()
                    ));
                }
            }
        }
    }
    if skipped > 1 {
        session.warnings.push(format!(
            "{}: {} more unreadable lines were skipped",
            path.display(),
            skipped - 1
        ));
    }
    repair_open_calls(&mut session);
    Ok(session)
}

fn trim_line(buf: &[u8]) -> &[u8] {
    let mut end = buf.len();
    while end > 0 && matches!(buf[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &buf[..end]
}

/// A well-formed JSON object whose `type` this version does not know (written by a newer
/// cairn): skipped without a warning.
fn is_unknown_type(text: &[u8]) -> bool {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_slice(text) else {
        return false;
    };
    match map.get("type").and_then(|t| t.as_str()) {
        Some("meta" | "item" | "state" | "compacted") => false,
        // An event line of an unknown event type is a newer version's too.
        Some("event") => map
            .get("msg")
            .is_some_and(|m| serde_json::from_value::<EventMsg>(m.clone()).is_err()),
        Some(_) => true,
        None => false,
    }
}

fn apply(session: &mut LoadedSession, line: LogLine) {
    match line {
        LogLine::Meta(meta) => {
            if session.meta.is_none() {
                session.meta = Some(meta);
            }
        }
        LogLine::Item { item } => {
            if let ResponseItem::Reasoning { text, .. } = &item
                && !text.is_empty()
            {
                session.replay.push(EventMsg::ReasoningDelta {
                    delta: text.clone(),
                });
            }
            session.history.push(item);
        }
        LogLine::Event { mut msg } => {
            match &mut msg {
                EventMsg::PlanUpdate(plan) => session.plan = Some(plan.clone()),
                EventMsg::TokenCount(usage) => session.usage = *usage,
                // The replay is for a transcript: the model's copy of the output is in the
                // history, so only what a transcript shows is kept a second time.
                EventMsg::ToolCallEnd {
                    name,
                    success,
                    output,
                    ..
                } => *output = shown_output(name, *success, std::mem::take(output)),
                _ => {}
            }
            session.replay.push(msg);
        }
        LogLine::State(state) => session.state = state,
        LogLine::Compacted { history } => session.history = history,
    }
}

/// Answer every call without an output, right after the call's own response.
fn repair_open_calls(session: &mut LoadedSession) {
    let answered: HashSet<&str> = session
        .history
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    let open: Vec<String> = session
        .history
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCall { call_id, .. } if !answered.contains(call_id.as_str()) => {
                Some(call_id.clone())
            }
            _ => None,
        })
        .collect();
    for call_id in open {
        let output = ResponseItem::FunctionCallOutput {
            call_id,
            output: INTERRUPTED_OUTPUT.to_string(),
            success: false,
        };
        session.history.push(output.clone());
        session.repaired.push(output);
    }
}

#[cfg(test)]
mod tests;

//! One delegated run's own transcript, built from its tagged events: what the run overlay
//! shows. The tree keeps one per run; an open overlay keeps a copy that gets the same updates.

use crate::history::tool::PLAN_TOOLS;
use crate::history::{ToolCallCell, ToolState};
use cairn_protocol::{EventMsg, Plan};

/// Where a run stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    /// Still running.
    Running,
    /// Finished with a final answer.
    Completed {
        /// The final answer.
        summary: String,
        /// How long it ran.
        duration_ms: u64,
    },
    /// Failed, timed out or was interrupted.
    Failed {
        /// Why, in words.
        error: String,
        /// How long it ran, when known (a resumed transcript does not know).
        duration_ms: Option<u64>,
    },
}

impl RunStatus {
    /// True once the run ended.
    pub fn is_finished(&self) -> bool {
        !matches!(self, Self::Running)
    }
}

/// One entry of a run's transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEntry {
    /// A message of the run's model; `done` is false while it streams.
    Text {
        /// The text so far.
        text: String,
        /// The whole message arrived.
        done: bool,
    },
    /// A tool call and, once done, its output.
    Tool(ToolCallCell),
    /// The run's own checklist.
    Plan(Plan),
    /// Information.
    Notice(String),
    /// A failure inside the run.
    Error(String),
}

/// Something that happened to a run.
#[derive(Debug, Clone, Copy)]
pub enum RunUpdate<'a> {
    /// A piece of its answer.
    Delta(&'a str),
    /// One of its own events (tool calls, plan updates, messages, errors).
    Event(&'a EventMsg),
    /// It finished.
    Completed {
        /// Its final answer.
        summary: &'a str,
        /// How long it ran.
        duration_ms: u64,
    },
    /// It failed.
    Failed {
        /// Why.
        error: &'a str,
        /// How long it ran, when known.
        duration_ms: Option<u64>,
    },
}

/// A run's transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct RunLog {
    /// The run's id.
    pub run_id: String,
    /// The agent.
    pub agent_id: String,
    /// What it was asked.
    pub prompt: String,
    /// Running or how it ended.
    pub status: RunStatus,
    /// What it did, in order.
    pub entries: Vec<RunEntry>,
}

impl RunLog {
    /// A run that just started.
    pub fn new(run_id: String, agent_id: String, prompt: String) -> Self {
        Self {
            run_id,
            agent_id,
            prompt,
            status: RunStatus::Running,
            entries: Vec::new(),
        }
    }

    /// Apply `update`. A finished run takes no more updates (an interrupt may report a run
    /// twice). Returns the first entry whose look may have changed (`entries.len()` when
    /// only the end did), so a view lays out again only from there; `None` when nothing
    /// changed.
    pub fn apply(&mut self, update: RunUpdate<'_>) -> Option<usize> {
        if self.status.is_finished() {
            return None;
        }
        let len = self.entries.len();
        let last = len.saturating_sub(1);
        let changed = match update {
            RunUpdate::Delta(delta) => match self.entries.last_mut() {
                Some(RunEntry::Text { text, done: false }) => {
                    text.push_str(delta);
                    last
                }
                _ => {
                    self.entries.push(RunEntry::Text {
                        text: delta.to_string(),
                        done: false,
                    });
                    len
                }
            },
            RunUpdate::Event(msg) => self.apply_event(msg)?,
            RunUpdate::Completed {
                summary,
                duration_ms,
            } => {
                let changed = self.finish_text().unwrap_or(len);
                self.status = RunStatus::Completed {
                    summary: summary.to_string(),
                    duration_ms,
                };
                changed
            }
            RunUpdate::Failed { error, duration_ms } => {
                let changed = self.finish_text().unwrap_or(len);
                self.status = RunStatus::Failed {
                    error: error.to_string(),
                    duration_ms,
                };
                changed
            }
        };
        Some(changed)
    }

    fn apply_event(&mut self, msg: &EventMsg) -> Option<usize> {
        let len = self.entries.len();
        match msg {
            EventMsg::AgentMessage { message } => match self.entries.last_mut() {
                Some(RunEntry::Text { text, done }) if !*done => {
                    text.clone_from(message);
                    *done = true;
                    Some(len - 1)
                }
                _ => {
                    self.entries.push(RunEntry::Text {
                        text: message.clone(),
                        done: true,
                    });
                    Some(len)
                }
            },
            EventMsg::ToolCallBegin {
                call_id,
                name,
                description,
                ..
            } => {
                let finished = self.finish_text();
                if !PLAN_TOOLS.contains(&name.as_str()) {
                    self.entries.push(RunEntry::Tool(ToolCallCell {
                        call_id: call_id.clone(),
                        name: name.clone(),
                        description: description.clone(),
                        state: ToolState::Running,
                    }));
                }
                finished.or((self.entries.len() > len).then_some(len))
            }
            EventMsg::ToolCallEnd {
                call_id,
                name,
                output,
                success,
                duration_ms,
            } => {
                let state = ToolState::Done {
                    success: *success,
                    duration_ms: *duration_ms,
                    output: output.clone(),
                };
                let open = self
                    .entries
                    .iter_mut()
                    .enumerate()
                    .rev()
                    .find_map(|(i, e)| match e {
                        RunEntry::Tool(cell) if cell.call_id == *call_id => Some((i, cell)),
                        _ => None,
                    });
                match open {
                    Some((i, cell)) => {
                        cell.state = state;
                        Some(i)
                    }
                    // A plan tool shows its checklist instead, unless it failed.
                    None if PLAN_TOOLS.contains(&name.as_str()) && *success => None,
                    None => {
                        self.entries.push(RunEntry::Tool(ToolCallCell {
                            call_id: call_id.clone(),
                            name: name.clone(),
                            description: String::new(),
                            state,
                        }));
                        Some(len)
                    }
                }
            }
            EventMsg::PlanUpdate(plan) => {
                self.entries.push(RunEntry::Plan(plan.clone()));
                Some(len)
            }
            // The stream restarts from scratch: what it sent so far is dropped.
            EventMsg::StreamError { .. } => match self.entries.last() {
                Some(RunEntry::Text { done: false, .. }) => {
                    self.entries.pop();
                    Some(len - 1)
                }
                _ => None,
            },
            EventMsg::Notice { message } => {
                self.entries.push(RunEntry::Notice(message.clone()));
                Some(len)
            }
            EventMsg::Error { message } => {
                self.entries.push(RunEntry::Error(message.clone()));
                Some(len)
            }
            _ => None,
        }
    }

    /// The streaming message is complete; its index, when there was one.
    fn finish_text(&mut self) -> Option<usize> {
        let last = self.entries.len().checked_sub(1)?;
        match self.entries.last_mut() {
            Some(RunEntry::Text { done, .. }) if !*done => {
                *done = true;
                Some(last)
            }
            _ => None,
        }
    }

    /// The last non-empty line of the run's latest message, if its latest entry is one.
    pub fn last_text_line(&self) -> Option<&str> {
        match self.entries.last() {
            Some(RunEntry::Text { text, .. }) => {
                text.lines().rev().map(str::trim).find(|l| !l.is_empty())
            }
            _ => None,
        }
    }

    /// Its final answer or error, once it ended.
    pub fn outcome(&self) -> Option<(bool, &str)> {
        match &self.status {
            RunStatus::Running => None,
            RunStatus::Completed { summary, .. } => Some((true, summary)),
            RunStatus::Failed { error, .. } => Some((false, error)),
        }
    }

    /// How long it ran, once it ended and when known.
    pub fn duration_ms(&self) -> Option<u64> {
        match &self.status {
            RunStatus::Running => None,
            RunStatus::Completed { duration_ms, .. } => Some(*duration_ms),
            RunStatus::Failed { duration_ms, .. } => *duration_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn begin(call_id: &str, name: &str) -> EventMsg {
        EventMsg::ToolCallBegin {
            call_id: call_id.into(),
            name: name.into(),
            arguments: "{}".into(),
            description: format!("{name} things"),
        }
    }

    fn end(call_id: &str, name: &str, success: bool) -> EventMsg {
        EventMsg::ToolCallEnd {
            call_id: call_id.into(),
            name: name.into(),
            output: "out".into(),
            success,
            duration_ms: 3,
        }
    }

    #[test]
    fn deltas_stream_into_one_message_that_the_final_message_replaces() {
        let mut log = RunLog::new("run-1".into(), "explore".into(), "look".into());
        log.apply(RunUpdate::Delta("Looking at "));
        log.apply(RunUpdate::Delta("the code\nand the t"));
        assert_eq!(log.last_text_line(), Some("and the t"));
        let message = EventMsg::AgentMessage {
            message: "Found it.".into(),
        };
        log.apply(RunUpdate::Event(&message));
        assert_eq!(
            log.entries,
            vec![RunEntry::Text {
                text: "Found it.".into(),
                done: true
            }]
        );
    }

    #[test]
    fn tool_calls_end_in_place_and_plan_tools_hide_unless_they_fail() {
        let mut log = RunLog::new("run-1".into(), "explore".into(), "look".into());
        for msg in [
            begin("a", "read_file"),
            begin("p", "update_plan"),
            end("p", "update_plan", true),
            end("a", "read_file", true),
            begin("q", "update_plan"),
            end("q", "update_plan", false),
        ] {
            log.apply(RunUpdate::Event(&msg));
        }
        assert_eq!(log.entries.len(), 2, "{:?}", log.entries);
        let RunEntry::Tool(read) = &log.entries[0] else {
            panic!("{:?}", log.entries);
        };
        assert!(matches!(read.state, ToolState::Done { success: true, .. }));
        let RunEntry::Tool(plan) = &log.entries[1] else {
            panic!("{:?}", log.entries);
        };
        assert_eq!(plan.name, "update_plan");
    }

    #[test]
    fn a_finished_run_takes_no_more_updates() {
        let mut log = RunLog::new("run-1".into(), "explore".into(), "look".into());
        log.apply(RunUpdate::Completed {
            summary: "done",
            duration_ms: 10,
        });
        log.apply(RunUpdate::Failed {
            error: "interrupted",
            duration_ms: None,
        });
        assert_eq!(log.outcome(), Some((true, "done")));
        assert_eq!(log.duration_ms(), Some(10));
    }
}

//! Delegated runs as the TUI sees them: the tree of runs started by `delegate_agent` (nested
//! through `parent_run_id`), what each is doing, and each one's transcript.
//!
//! Runs come in groups: a group starts with the first run while none is live and ends when
//! all of its runs (children included) have finished; it then collapses into one history cell.
//! While a group is live, the panel above the composer shows it (panel.rs); the last finished
//! group can be browsed again with the tree key.

pub mod log;
pub mod panel;

use crate::history::delegation::{DelegationCell, DelegationRow};
use cairn_protocol::{EventMsg, PlanStepStatus};
use log::{RunLog, RunUpdate};
use std::collections::HashMap;
use std::ops::Range;
use std::time::Instant;

/// What a run is doing, as the panel shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Activity {
    /// Nothing reported yet.
    #[default]
    Starting,
    /// A tool call (its description).
    Tool(String),
    /// The step in progress of its own checklist.
    Step(String),
    /// Its streaming text: the panel shows the last line.
    Text,
    /// A call waits for the user's approval (its description).
    Waiting(String),
}

/// One run.
#[derive(Debug, Clone)]
pub struct Run {
    /// Its transcript, status and identity.
    pub log: RunLog,
    /// Depth in the tree (0 for a run the session delegated).
    pub depth: usize,
    /// When the TUI heard it start.
    pub started: Instant,
    /// What it is doing.
    pub activity: Activity,
    parent: Option<usize>,
}

/// Every delegated run of the session and the group on screen.
#[derive(Debug, Default)]
pub struct DelegateTree {
    runs: Vec<Run>,
    /// Run id to index; a later run with the same id (a resumed session numbers from 1
    /// again) takes the id over.
    by_id: HashMap<String, usize>,
    /// Start of the live group (`runs[start..]`), while one is.
    live: Option<usize>,
    /// The last group that finished.
    last_group: Option<Range<usize>>,
    /// Display order (tree order) of the group on screen: run indices.
    order: Vec<usize>,
    /// The panel has the keys (Up/Down/Enter/Esc).
    focused: bool,
    /// Position in `order` of the selected run.
    selected: usize,
}

impl DelegateTree {
    /// No runs.
    pub fn new() -> Self {
        Self::default()
    }

    /// A run started.
    pub fn start(
        &mut self,
        run_id: String,
        parent_run_id: Option<&str>,
        agent_id: String,
        prompt: String,
        now: Instant,
    ) {
        let start = match self.live {
            Some(start) => start,
            None => {
                // A new group: a finished one being browsed gives way to it.
                self.selected = 0;
                self.live = Some(self.runs.len());
                self.runs.len()
            }
        };
        let parent = parent_run_id
            .and_then(|id| self.by_id.get(id).copied())
            .filter(|&p| p >= start);
        let depth = parent.map_or(0, |p| self.runs[p].depth + 1);
        let index = self.runs.len();
        self.by_id.insert(run_id.clone(), index);
        self.runs.push(Run {
            log: RunLog::new(run_id, agent_id, prompt),
            depth,
            started: now,
            activity: Activity::Starting,
            parent,
        });
        self.order = self.tree_order(start..self.runs.len());
    }

    /// The index of run `run_id`, if known.
    pub fn index_of(&self, run_id: &str) -> Option<usize> {
        self.by_id.get(run_id).copied()
    }

    /// A run by index.
    pub fn run(&self, index: usize) -> Option<&Run> {
        self.runs.get(index)
    }

    /// Apply `update` to run `index`; returns true when it changed anything.
    pub fn update(&mut self, index: usize, update: RunUpdate<'_>) -> bool {
        let Some(run) = self.runs.get_mut(index) else {
            return false;
        };
        if run.log.status.is_finished() {
            return false;
        }
        run.log.apply(update);
        match update {
            RunUpdate::Delta(_) => run.activity = Activity::Text,
            RunUpdate::Event(msg) => {
                if let Some(activity) = activity_of(msg, &run.activity) {
                    run.activity = activity;
                }
            }
            RunUpdate::Completed { .. } | RunUpdate::Failed { .. } => {}
        }
        true
    }

    /// A call of run `index` waits for the user's approval.
    pub fn waiting(&mut self, index: usize, description: &str) {
        if let Some(run) = self.runs.get_mut(index)
            && !run.log.status.is_finished()
        {
            // The description already names the agent path: keep the part after it.
            let text = description
                .strip_prefix('[')
                .and_then(|rest| rest.split_once("] ").map(|(_, d)| d))
                .unwrap_or(description);
            run.activity = Activity::Waiting(text.to_string());
        }
    }

    /// When the live group has ended, close it: its history cell.
    pub fn settle(&mut self) -> Option<DelegationCell> {
        let start = self.live?;
        if self.runs[start..]
            .iter()
            .any(|r| !r.log.status.is_finished())
        {
            return None;
        }
        self.live = None;
        let group = start..self.runs.len();
        self.last_group = Some(group.clone());
        if !self.focused {
            self.order.clear();
        }
        Some(self.cell(group))
    }

    /// Runs still running in the live group end as failed with `error` (the task ended
    /// without reporting them, or a resumed log stops before they did); the group closes.
    pub fn abandon(&mut self, error: &str, now: Option<Instant>) -> Option<DelegationCell> {
        let start = self.live?;
        for run in &mut self.runs[start..] {
            let duration_ms =
                now.map(|now| now.saturating_duration_since(run.started).as_millis() as u64);
            run.log.apply(RunUpdate::Failed { error, duration_ms });
        }
        self.settle()
    }

    fn cell(&self, group: Range<usize>) -> DelegationCell {
        let rows = self
            .tree_order(group)
            .into_iter()
            .map(|i| {
                let run = &self.runs[i];
                let (ok, text) = run.log.outcome().unwrap_or((false, ""));
                DelegationRow {
                    depth: run.depth,
                    agent_id: run.log.agent_id.clone(),
                    prompt: run.log.prompt.clone(),
                    ok,
                    duration_ms: run.log.duration_ms(),
                    text: text.to_string(),
                }
            })
            .collect();
        DelegationCell { rows }
    }

    /// Runs of `group` in tree order: each run followed by its children, in start order.
    fn tree_order(&self, group: Range<usize>) -> Vec<usize> {
        let mut order = Vec::with_capacity(group.len());
        let mut stack: Vec<usize> = group
            .clone()
            .rev()
            .filter(|&i| self.runs[i].parent.is_none_or(|p| !group.contains(&p)))
            .collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(
                group
                    .clone()
                    .rev()
                    .filter(|&c| self.runs[c].parent == Some(i)),
            );
        }
        order
    }

    /// True while some run of the live group runs.
    pub fn is_live(&self) -> bool {
        self.live.is_some()
    }

    /// When the live group's first run started (the spinner's clock).
    pub fn live_since(&self) -> Option<Instant> {
        self.live
            .and_then(|start| self.runs.get(start))
            .map(|r| r.started)
    }

    /// The runs the panel shows, in tree order; empty when it is hidden.
    pub fn shown(&self) -> impl Iterator<Item = &Run> {
        self.order.iter().filter_map(|&i| self.runs.get(i))
    }

    /// Rows of runs the panel shows.
    pub fn shown_len(&self) -> usize {
        self.order.len()
    }

    /// True while the panel has the keys.
    pub fn is_focused(&self) -> bool {
        self.focused
    }

    /// Position of the selected run among the shown ones.
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// Give the panel the keys: the live group, else the last finished one. False when there
    /// is nothing to show.
    pub fn focus(&mut self) -> bool {
        if self.live.is_none() {
            let Some(group) = self.last_group.clone() else {
                return false;
            };
            self.order = self.tree_order(group);
            self.selected = 0;
        }
        if self.order.is_empty() {
            return false;
        }
        self.focused = true;
        self.selected = self.selected.min(self.order.len() - 1);
        true
    }

    /// Give the keys back; a finished group's panel goes away.
    pub fn unfocus(&mut self) {
        self.focused = false;
        if self.live.is_none() {
            self.order.clear();
        }
    }

    /// Move the selection by `delta` rows.
    pub fn move_selection(&mut self, delta: isize) {
        let last = self.order.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
    }

    /// The index of the selected run.
    pub fn selected_index(&self) -> Option<usize> {
        self.order.get(self.selected).copied()
    }
}

/// What an event of a run says it is doing now; `None` leaves the activity as it was.
fn activity_of(msg: &EventMsg, current: &Activity) -> Option<Activity> {
    match msg {
        EventMsg::AgentMessage { .. } => Some(Activity::Text),
        EventMsg::ToolCallBegin {
            name, description, ..
        } if !crate::history::tool::PLAN_TOOLS.contains(&name.as_str()) => {
            let text = if description.is_empty() {
                name.clone()
            } else {
                // The call is under way: "Reading src/a.rs", not the approval's "Would read".
                cairn_protocol::tense::tool_sentence(
                    description,
                    cairn_protocol::tense::Tense::Progressive,
                )
            };
            Some(Activity::Tool(text))
        }
        EventMsg::ToolCallEnd { .. } => match current {
            // Answered: back to the call itself.
            Activity::Waiting(text) => Some(Activity::Tool(text.clone())),
            _ => None,
        },
        EventMsg::PlanUpdate(plan) => plan
            .plan
            .iter()
            .find(|s| s.status == PlanStepStatus::InProgress)
            .map(|s| Activity::Step(s.step.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(tree: &DelegateTree) -> Vec<(usize, String)> {
        tree.shown()
            .map(|r| (r.depth, r.log.run_id.clone()))
            .collect()
    }

    #[test]
    fn runs_are_shown_in_tree_order_and_the_group_closes_when_all_ended() {
        let now = Instant::now();
        let mut tree = DelegateTree::new();
        tree.start("run-1".into(), None, "explore".into(), "a".into(), now);
        tree.start("run-2".into(), None, "explore".into(), "b".into(), now);
        tree.start(
            "run-3".into(),
            Some("run-1"),
            "plan".into(),
            "c".into(),
            now,
        );
        assert_eq!(
            ids(&tree),
            vec![
                (0, "run-1".to_string()),
                (1, "run-3".to_string()),
                (0, "run-2".to_string())
            ]
        );
        for (i, run_id) in ["run-3", "run-1"].iter().enumerate() {
            let index = tree.index_of(run_id).unwrap();
            tree.update(
                index,
                RunUpdate::Completed {
                    summary: "ok",
                    duration_ms: i as u64,
                },
            );
            assert!(tree.settle().is_none());
        }
        let index = tree.index_of("run-2").unwrap();
        tree.update(
            index,
            RunUpdate::Failed {
                error: "boom",
                duration_ms: Some(5),
            },
        );
        let cell = tree.settle().unwrap();
        assert_eq!(cell.rows.len(), 3);
        assert_eq!(cell.rows[1].depth, 1);
        assert!(!cell.rows[2].ok);
        assert!(!tree.is_live());
        assert_eq!(tree.shown_len(), 0, "the panel goes away");
        assert!(tree.focus(), "the finished group can be browsed");
        assert_eq!(tree.shown_len(), 3);
        tree.unfocus();
        assert_eq!(tree.shown_len(), 0);
    }
}

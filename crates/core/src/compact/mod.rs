//! Context compaction: when the next request would not fit, one model call summarises the
//! older conversation into a hand-off summary, and the history becomes that summary, the most
//! recent user messages, and the pinned state, re-injected verbatim and never summarised: the
//! approved plan, the current checklist or structured plan, and plan mode with its plan file.

pub mod window;

use crate::history::{ResponseItem, Role};
use crate::plan_mode::PlanModeState;
use cairn_protocol::{Plan, PlanStepStatus};
use std::path::Path;

/// Instructions of the summary call.
pub const SUMMARY_INSTRUCTIONS: &str = include_str!("summary_prompt.md");

/// What opens the summary in the new history.
pub const SUMMARY_PREFIX: &str = "The conversation so far was compacted to save context. This is the hand-off summary written from it; continue the work from here.\n\n";

/// How the output of a user's `!` command starts in history.
pub const USER_SHELL_PREFIX: &str = "<user_shell_command>";

/// What opens the pinned state in the new history.
pub const PINNED_PREFIX: &str =
    "Kept verbatim through compaction (cairn re-injects this; it is current):";

/// Most characters of recent user messages carried over as they were.
const RECENT_USER_CHARS: usize = 20_000;

/// Tokens kept free for the model's answer when judging whether a request fits.
pub const ANSWER_RESERVE: u64 = 8_192;

/// A rough token count: four bytes a token, as tokenizers average on code and prose.
pub fn estimate_tokens(items: &[ResponseItem]) -> u64 {
    let bytes: usize = items
        .iter()
        .map(|item| match item {
            ResponseItem::Message { text, .. } => text.len() + 8,
            ResponseItem::Reasoning { text, .. } => text.len(),
            ResponseItem::FunctionCall {
                name, arguments, ..
            } => name.len() + arguments.len() + 16,
            ResponseItem::FunctionCallOutput { output, .. } => output.len() + 8,
        })
        .sum();
    (bytes as u64).div_ceil(4)
}

/// The request size at which to compact: `threshold` of the window less the answer's room.
pub fn limit(window: u64, threshold: f64) -> u64 {
    let usable = window.saturating_sub(ANSWER_RESERVE.min(window / 4));
    (usable as f64 * threshold) as u64
}

/// The user's request for the summary, with the focus they gave `/compact`, if any.
pub fn summary_request(focus: Option<&str>) -> String {
    let mut text = "Write the hand-off summary of the conversation above now, following your instructions. Do not call tools.".to_string();
    if let Some(focus) = focus.map(str::trim).filter(|f| !f.is_empty()) {
        text.push_str("\n\nThe user asks the summary to focus on: ");
        text.push_str(focus);
    }
    text
}

/// The state that survives compaction verbatim.
#[derive(Debug, Clone, Default)]
pub struct Pinned {
    /// Text of the approved plan-mode plan (and its file), if one was approved.
    pub approved_plan: Option<(String, String)>,
    /// The current checklist or structured plan.
    pub plan: Option<Plan>,
    /// Plan mode on, with its plan file.
    pub plan_mode_file: Option<String>,
}

impl Pinned {
    /// Gather the pinned state of a session.
    pub fn gather(plan_mode: &PlanModeState, plan: Option<Plan>) -> Self {
        let approved_plan = (!plan_mode.active && plan_mode.period_approved)
            .then_some(plan_mode.plan_file_path.as_deref())
            .flatten()
            .and_then(|path| read_plan(path).map(|text| (path.display().to_string(), text)));
        Self {
            approved_plan,
            plan,
            plan_mode_file: plan_mode
                .active_plan_file()
                .map(|p| p.display().to_string()),
        }
    }

    /// The pinned state as one message, `None` when there is nothing to pin.
    pub fn message(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(file) = &self.plan_mode_file {
            parts.push(format!(
                "## Plan mode\nPlan mode is ON. You may only read, and write the plan file {file}. Finish the plan there and call exit_plan_mode for the user's approval."
            ));
        }
        if let Some((file, text)) = &self.approved_plan {
            parts.push(format!(
                "## The approved plan ({file})\nThe user approved this plan; implement it.\n\n{text}"
            ));
        }
        if let Some(plan) = &self.plan
            && !plan.plan.is_empty()
        {
            parts.push(format!("## Current plan\n{}", render_plan(plan)));
        }
        (!parts.is_empty()).then(|| format!("{PINNED_PREFIX}\n\n{}", parts.join("\n\n")))
    }
}

/// The plan file's text; never blocks on a FIFO swapped in for it.
fn read_plan(path: &Path) -> Option<String> {
    crate::plans::regular_file::read_to_string(path).ok()
}

/// A checklist or structured plan as text, with each step's status.
pub fn render_plan(plan: &Plan) -> String {
    let mut out = String::new();
    if let Some(id) = &plan.id {
        out.push_str(&format!("id: {id}\n"));
    }
    if let Some(title) = &plan.title {
        out.push_str(&format!("title: {title}\n"));
    }
    if let Some(explanation) = &plan.explanation {
        out.push_str(&format!("{explanation}\n"));
    }
    for (i, step) in plan.plan.iter().enumerate() {
        let status = match step.status {
            PlanStepStatus::Pending => "pending",
            PlanStepStatus::InProgress => "in_progress",
            PlanStepStatus::Completed => "completed",
            PlanStepStatus::Failed => "failed",
            PlanStepStatus::Skipped => "skipped",
        };
        out.push_str(&format!("{}. [{status}] {}\n", i + 1, step.step));
    }
    out
}

/// The history after compaction: the most recent user messages as they were (at most
/// [`RECENT_USER_CHARS`], newest kept), the summary, and the pinned state.
pub fn rebuild(old: &[ResponseItem], summary: &str, pinned: &Pinned) -> Vec<ResponseItem> {
    let mut recent = Vec::new();
    let mut budget = RECENT_USER_CHARS;
    for item in old.iter().rev() {
        if let ResponseItem::Message {
            role: Role::User,
            text,
        } = item
        {
            // Earlier summaries and pinned blocks are replaced, not carried; the output of a
            // `!` command is context the summary covers, not something the user asked.
            if text.starts_with(SUMMARY_PREFIX)
                || text.starts_with(PINNED_PREFIX)
                || text.starts_with(USER_SHELL_PREFIX)
            {
                continue;
            }
            // One long message (a pasted log) must not crowd out every shorter one before it.
            if text.len() > budget {
                continue;
            }
            budget -= text.len();
            recent.push(item.clone());
        }
    }
    recent.reverse();
    let mut history = recent;
    history.push(ResponseItem::user(format!(
        "{SUMMARY_PREFIX}{}",
        summary.trim()
    )));
    if let Some(message) = pinned.message() {
        history.push(ResponseItem::user(message));
    }
    history
}

#[cfg(test)]
mod tests;

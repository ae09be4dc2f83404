//! The structured plan document: a [`PlanDocument`] rendered as Markdown, and parsed back.
//!
//! ```text
//! ---
//! id: plan-1a2b3c4d
//! title: "Add a --json flag"
//! status: in_progress
//! created: 2026-11-22T03:04:05Z
//! updated: 2026-11-22T03:10:00Z
//! conversation: 0193...
//! ---
//!
//! # Add a --json flag
//!
//! Objective, free text.
//!
//! ## Approach
//!
//! - Verification: cargo test
//! - Rollback: git checkout the touched files
//! - Estimated tool calls: 8
//!
//! ## Steps
//!
//! - [x] 1. Read the CLI entry point
//!   - Tools: read_file
//!   - Result: found the clap derive in main.rs
//! - [~] 2. Add the flag
//!   - Depends on: 1
//! - [ ] 3. Run the tests
//!   - Success criteria: all tests pass
//!   - Verification step
//!
//! ## Notes
//!
//! - The CLI has no integration tests yet.
//!
//! ## Completion
//!
//! - Status: success
//! - Summary: ...
//! ```
//!
//! Markers: `[ ]` pending, `[~]` in progress, `[x]` completed, `[-]` skipped, `[!]` failed.
//! A value running over several lines continues on lines indented to its item's text.

mod parse;

pub use parse::{parse, parse_revision};

use super::PlanDocument;
use super::front_matter;
use cairn_protocol::{Plan, PlanStatus, PlanStepStatus};

/// Why a document did not parse; the message names the line when it can.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DocumentError(pub String);

pub(super) const APPROACH: &str = "## Approach";
pub(super) const STEPS: &str = "## Steps";
pub(super) const NOTES: &str = "## Notes";
pub(super) const COMPLETION: &str = "## Completion";
pub(super) const SECTIONS: [&str; 4] = [APPROACH, STEPS, NOTES, COMPLETION];

/// How the document format is explained to the model that revises a plan.
pub const FORMAT_GUIDE: &str = "\
The document format:
- Optional front matter between `---` lines (id, title, status, created, updated, conversation).
- `# Title` on the first line of the body, then the objective as free text.
- Optional `## Approach` section with list items `- Verification: ...`, `- Rollback: ...`, `- Estimated tool calls: N`.
- A `## Steps` section (required) with one line per step: `- [ ] 1. Description`. Markers: `[ ]` pending, `[~]` in progress, `[x]` completed, `[-]` skipped, `[!]` failed. Number the steps 1, 2, 3, ... in order.
- Under a step, optional detail lines indented by two spaces: `  - Tools: read_file, shell`, `  - Success criteria: ...`, `  - Depends on: 1, 2`, `  - Verification step`, `  - Result: ...`, `  - Reason: ...`.
- Optional `## Notes` section with `- note` items and optional `## Completion` section (`- Status: success|partial_success|failed`, `- Summary: ...`, `- Steps completed: N`, `- Steps failed: N`, `- Steps skipped: N`, `- Issue: ...`, `- Recommendations: ...`).
- A value longer than one line continues on lines indented to the start of its text.";

/// The checkbox marker of `status`, e.g. `[~]`.
pub fn marker(status: PlanStepStatus) -> &'static str {
    match status {
        PlanStepStatus::Pending => "[ ]",
        PlanStepStatus::InProgress => "[~]",
        PlanStepStatus::Completed => "[x]",
        PlanStepStatus::Skipped => "[-]",
        PlanStepStatus::Failed => "[!]",
    }
}

/// Parse a plan status as written in front matter.
pub fn parse_plan_status(text: &str) -> Option<PlanStatus> {
    [
        PlanStatus::Draft,
        PlanStatus::Approved,
        PlanStatus::InProgress,
        PlanStatus::Completed,
        PlanStatus::PartialSuccess,
        PlanStatus::Failed,
    ]
    .into_iter()
    .find(|s| s.as_str() == text.trim())
}

/// Append `prefix` + `value`, continuing further lines of `value` at `indent` spaces.
fn push_value(out: &mut String, prefix: &str, value: &str, indent: usize) {
    out.push_str(prefix);
    let mut lines = value.split('\n');
    out.push_str(lines.next().unwrap_or_default());
    out.push('\n');
    for line in lines {
        if !line.is_empty() {
            out.push_str(&" ".repeat(indent));
            out.push_str(line);
        }
        out.push('\n');
    }
}

/// Render `doc` as a Markdown document.
pub fn render(doc: &PlanDocument) -> String {
    let plan = &doc.plan;
    let title = plan.title.clone().unwrap_or_default();
    let mut fields = Vec::new();
    if let Some(id) = &plan.id {
        fields.push(("id", id.clone(), false));
    }
    fields.push(("title", title.clone(), true));
    fields.push(("status", doc.status().as_str().to_string(), false));
    fields.push(("created", front_matter::format_time(doc.created), false));
    fields.push(("updated", front_matter::format_time(doc.updated), false));
    if let Some(conversation) = &doc.conversation {
        fields.push(("conversation", conversation.clone(), false));
    }
    let mut out = front_matter::render(&fields);
    out.push('\n');
    out.push_str(&render_body(plan));
    out
}

/// The document body (no front matter): what the model reads and revises.
pub fn render_body(plan: &Plan) -> String {
    let title = plan.title.as_deref().unwrap_or_default();
    // The front matter keeps the exact title; the heading must stay one line.
    let mut out = format!("# {}\n", title.replace(['\n', '\r'], " "));
    if let Some(objective) = plan.explanation.as_deref().filter(|s| !s.is_empty()) {
        out.push('\n');
        for line in objective.split('\n') {
            // A line that reads as a section heading would end the objective early.
            if SECTIONS.contains(&line.trim_end()) {
                out.push(' ');
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    if plan.verification_approach.is_some()
        || plan.rollback_strategy.is_some()
        || plan.estimated_tool_calls.is_some()
    {
        out.push_str(&format!("\n{APPROACH}\n\n"));
        if let Some(v) = &plan.verification_approach {
            push_value(&mut out, "- Verification: ", v, 2);
        }
        if let Some(r) = &plan.rollback_strategy {
            push_value(&mut out, "- Rollback: ", r, 2);
        }
        if let Some(n) = plan.estimated_tool_calls {
            out.push_str(&format!("- Estimated tool calls: {n}\n"));
        }
    }
    out.push_str(&format!("\n{STEPS}\n\n"));
    for (index, step) in plan.plan.iter().enumerate() {
        let number = step.number.unwrap_or(index as u32 + 1);
        push_value(
            &mut out,
            &format!("- {} {number}. ", marker(step.status)),
            &step.step,
            6,
        );
        if !step.tools_to_use.is_empty() {
            out.push_str(&format!("  - Tools: {}\n", step.tools_to_use.join(", ")));
        }
        if let Some(c) = &step.success_criteria {
            push_value(&mut out, "  - Success criteria: ", c, 4);
        }
        if !step.depends_on.is_empty() {
            let deps: Vec<String> = step.depends_on.iter().map(u32::to_string).collect();
            out.push_str(&format!("  - Depends on: {}\n", deps.join(", ")));
        }
        if step.is_verification {
            out.push_str("  - Verification step\n");
        }
        if let Some(r) = &step.result {
            push_value(&mut out, "  - Result: ", r, 4);
        }
        if let Some(r) = &step.reason {
            push_value(&mut out, "  - Reason: ", r, 4);
        }
    }
    if !plan.notes.is_empty() {
        out.push_str(&format!("\n{NOTES}\n\n"));
        for note in &plan.notes {
            push_value(&mut out, "- ", note, 2);
        }
    }
    if let Some(c) = &plan.completion {
        out.push_str(&format!("\n{COMPLETION}\n\n"));
        out.push_str(&format!("- Status: {}\n", c.status.as_str()));
        push_value(&mut out, "- Summary: ", &c.summary, 2);
        for (label, count) in [
            ("Steps completed", c.steps_completed),
            ("Steps failed", c.steps_failed),
            ("Steps skipped", c.steps_skipped),
        ] {
            if let Some(count) = count {
                out.push_str(&format!("- {label}: {count}\n"));
            }
        }
        for issue in &c.issues_encountered {
            push_value(&mut out, "- Issue: ", issue, 2);
        }
        if let Some(r) = &c.recommendations {
            push_value(&mut out, "- Recommendations: ", r, 2);
        }
    }
    out
}

#[cfg(test)]
mod tests;

//! The plan checklist cell and the pinned plan: glyphs and styles of DESIGN.md §7.

use crate::strings;
use crate::theme;
use crate::wrap::{wrap_spans, wrap_text};
use cairn_protocol::{CompletionStatus, Plan, PlanStep, PlanStepStatus};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Glyph and style of a step status.
pub fn step_glyph(status: PlanStepStatus) -> (&'static str, Style) {
    match status {
        PlanStepStatus::Completed => ("✔", theme::step_completed()),
        PlanStepStatus::InProgress => ("□", theme::step_in_progress()),
        PlanStepStatus::Pending => ("□", theme::step_pending()),
        PlanStepStatus::Failed => ("✗", theme::step_failed()),
        PlanStepStatus::Skipped => ("–", theme::step_skipped()),
    }
}

/// The text spans of one step (without glyph): number, text, verification mark, dependencies.
fn step_spans(step: &PlanStep, style: Style) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    if let Some(n) = step.number {
        spans.push(Span::styled(format!("{n}. "), style));
    }
    spans.push(Span::styled(step.step.clone(), style));
    if step.is_verification {
        spans.push(Span::styled(strings::VERIFY_MARK, theme::verification()));
    }
    if !step.depends_on.is_empty() {
        let deps: Vec<String> = step.depends_on.iter().map(u32::to_string).collect();
        spans.push(Span::styled(strings::step_after(&deps), theme::dim()));
    }
    spans
}

/// Lines of one step at `width`, with `indent` before the glyph.
fn step_lines(
    step: &PlanStep,
    width: usize,
    first: &[Span<'static>],
    rest: &str,
) -> Vec<Line<'static>> {
    let (glyph, style) = step_glyph(step.status);
    let mut first_prefix = first.to_vec();
    // The glyph keeps the status colour but is never crossed out.
    first_prefix.push(Span::styled(format!("{glyph} "), theme::glyph(style)));
    let rest_prefix = vec![Span::raw(format!("{rest}  "))];
    let mut lines = wrap_spans(&step_spans(step, style), width, &first_prefix, &rest_prefix);
    let detail_first = [Span::styled(format!("{rest}  ↳ "), theme::dim())];
    let detail_rest = [Span::raw(format!("{rest}    "))];
    for detail in [&step.result, &step.reason].into_iter().flatten() {
        lines.extend(wrap_text(
            detail,
            theme::dim(),
            width,
            &detail_first,
            &detail_rest,
        ));
    }
    lines
}

/// The plan cell: "Updated Plan" for a checklist update, "Plan" for a stored (structured)
/// plan, which is created, updated, completed or shown by /plans under its title.
pub fn plan_cell_lines(plan: &Plan, width: usize) -> Vec<Line<'static>> {
    let label = if plan.id.is_some() {
        strings::STORED_PLAN
    } else {
        strings::UPDATED_PLAN
    };
    let mut header = vec![
        Span::styled("• ", theme::bullet()),
        Span::styled(label, theme::bold()),
    ];
    if let Some(title) = &plan.title {
        header.push(Span::styled(format!(" · {title}"), theme::bold()));
    }
    let mut lines = wrap_spans(&header, width, &[], &[Span::raw("  ")]);
    let mut first = Some(Span::styled("  └ ", theme::dim()));
    let rest = "    ";
    if let Some(explanation) = plan.explanation.as_deref().filter(|e| !e.trim().is_empty()) {
        let prefix = vec![first.take().unwrap_or_else(|| Span::raw(rest))];
        lines.extend(wrap_text(
            explanation.trim(),
            theme::plan_explanation(),
            width,
            &prefix,
            &[Span::raw(rest)],
        ));
    }
    if plan.plan.is_empty() {
        let prefix = vec![first.take().unwrap_or_else(|| Span::raw(rest))];
        lines.extend(wrap_text(
            strings::NO_STEPS,
            theme::dim(),
            width,
            &prefix,
            &[],
        ));
    }
    for step in &plan.plan {
        let prefix = vec![first.take().unwrap_or_else(|| Span::raw(rest))];
        lines.extend(step_lines(step, width, &prefix, rest));
    }
    for note in &plan.notes {
        lines.extend(wrap_text(
            &strings::plan_note(note),
            theme::dim(),
            width,
            &[Span::raw(rest)],
            &[Span::raw(rest)],
        ));
    }
    if let Some(completion) = &plan.completion {
        lines.extend(completion_card(plan, completion, width));
    }
    lines
}

fn completion_card(
    plan: &Plan,
    completion: &cairn_protocol::PlanCompletion,
    width: usize,
) -> Vec<Line<'static>> {
    let (label, style) = match completion.status {
        CompletionStatus::Success => (strings::PLAN_COMPLETED, theme::success()),
        CompletionStatus::PartialSuccess => (strings::PLAN_PARTLY_COMPLETED, theme::warning()),
        CompletionStatus::Failed => (strings::PLAN_FAILED, theme::error()),
    };
    let count = |status: PlanStepStatus| plan.plan.iter().filter(|s| s.status == status).count();
    let done = completion
        .steps_completed
        .map_or(count(PlanStepStatus::Completed), |n| n as usize);
    let failed = completion
        .steps_failed
        .map_or(count(PlanStepStatus::Failed), |n| n as usize);
    let skipped = completion
        .steps_skipped
        .map_or(count(PlanStepStatus::Skipped), |n| n as usize);
    let bar = [Span::styled("  │ ", style)];
    let mut lines = wrap_spans(
        &[
            Span::styled(label, style.patch(theme::bold())),
            Span::styled(
                strings::completion_counts(done, failed, skipped),
                theme::dim(),
            ),
        ],
        width,
        &[Span::styled("  ╭ ", style)],
        &bar,
    );
    if !completion.summary.trim().is_empty() {
        lines.extend(wrap_text(
            completion.summary.trim(),
            Style::new(),
            width,
            &bar,
            &bar,
        ));
    }
    for issue in &completion.issues_encountered {
        lines.extend(wrap_text(
            &strings::plan_issue(issue),
            theme::warning(),
            width,
            &bar,
            &bar,
        ));
    }
    if let Some(rec) = &completion.recommendations {
        lines.extend(wrap_text(
            &strings::plan_next(rec),
            theme::dim(),
            width,
            &bar,
            &bar,
        ));
    }
    lines.push(Line::from(Span::styled("  ╰", style)));
    lines
}

/// The pinned plan above the composer: a title with "n of m done" and a window of at most
/// `max_steps` steps around the step in progress (else the first unfinished one).
pub fn pinned_lines(plan: &Plan, width: usize, max_steps: usize) -> Vec<Line<'static>> {
    let (done, total) = plan.progress();
    let mut lines = vec![Line::from(vec![
        Span::styled(strings::pinned_plan_title(done, total), theme::bold()),
        Span::styled(format!("  ({})", strings::PINNED_HIDE_HINT), theme::dim()),
    ])];
    // A step left pending earlier must not hide the one being worked on.
    let focus = plan
        .plan
        .iter()
        .position(|s| s.status == PlanStepStatus::InProgress)
        .or_else(|| plan.plan.iter().position(|s| !s.status.is_settled()))
        .unwrap_or(plan.plan.len().saturating_sub(1));
    let start = focus
        .saturating_sub(1)
        .min(plan.plan.len().saturating_sub(max_steps));
    for step in plan.plan.iter().skip(start).take(max_steps) {
        let (glyph, style) = step_glyph(step.status);
        let mut spans = vec![Span::styled(format!(" {glyph} "), theme::glyph(style))];
        spans.extend(step_spans(step, style));
        lines.push(crate::wrap::truncate_line(Line::from(spans), width));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn pinned_plan_shows_the_step_in_progress_even_after_a_pending_one() {
        use PlanStepStatus::*;
        let statuses = [
            Completed, Completed, Pending, Completed, Completed, Completed, Completed, InProgress,
            Pending, Pending,
        ];
        let plan = Plan {
            plan: statuses
                .iter()
                .enumerate()
                .map(|(i, status)| PlanStep::new(format!("step {}", i + 1), *status))
                .collect(),
            ..Plan::default()
        };
        let lines = texts(&pinned_lines(&plan, 60, 5));
        assert_eq!(lines[0], "Plan · 6 of 10 done  (ctrl+t to hide)");
        assert!(lines.contains(&" □ step 8".to_string()), "{lines:?}");
        assert_eq!(lines.len(), 6);
    }
}

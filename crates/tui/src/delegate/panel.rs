//! The delegate tree above the composer: a title with the tree key, then one row per run —
//! two spaces of indent per depth, status glyph (spinner / ✔ / ✗), agent id, elapsed time,
//! and what it is doing (tool call, checklist step, last line of its text) or how it ended.
//! Rows are cut to the width by display width, never wrapped, so the panel keeps its height.

use super::{Activity, DelegateTree, Run};
use crate::history::tool::as_terminal_shows;
use crate::status::SPINNER;
use crate::strings;
use crate::theme;
use crate::wrap::truncate_with_ellipsis;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::time::Instant;

/// The panel's lines at `width`: the title and at most `max_runs` rows (a window that keeps
/// the selection, or else the first running run, in view).
pub fn panel_lines(
    tree: &DelegateTree,
    width: usize,
    now: Instant,
    frame: usize,
    max_runs: usize,
) -> Vec<Line<'static>> {
    let total = tree.shown_len();
    if total == 0 {
        return Vec::new();
    }
    let running = tree.shown().filter(|r| !r.log.status.is_finished()).count();
    let mut lines = vec![title(tree.is_focused(), running, total, width)];
    let max_runs = max_runs.max(1);
    let anchor = if tree.is_focused() {
        tree.selected()
    } else {
        tree.shown()
            .position(|r| !r.log.status.is_finished())
            .unwrap_or(0)
    };
    let start = anchor
        .saturating_sub(max_runs / 2)
        .min(total.saturating_sub(max_runs));
    for (position, run) in tree.shown().enumerate().skip(start).take(max_runs) {
        let selected = tree.is_focused() && position == tree.selected();
        lines.push(truncate_with_ellipsis(
            run_row(run, selected, now, frame),
            width,
        ));
    }
    lines
}

/// The title with the keys; on a narrow screen a short form, so the keys stay in view.
fn title(focused: bool, running: usize, total: usize, width: usize) -> Line<'static> {
    let line = |title: String, hint: &str| {
        Line::from(vec![
            Span::styled(title, theme::bold()),
            Span::styled(format!("  ({hint})"), theme::dim()),
        ])
    };
    let (hint, short_hint) = if focused {
        (
            strings::DELEGATES_FOCUSED_HINT,
            strings::DELEGATES_FOCUSED_HINT_SHORT,
        )
    } else {
        (strings::DELEGATES_HINT, strings::DELEGATES_HINT_SHORT)
    };
    let full = line(strings::delegates_title(running, total), hint);
    if full.width() <= width {
        return full;
    }
    truncate_with_ellipsis(
        line(strings::delegates_title_short(running, total), short_hint),
        width,
    )
}

fn run_row(run: &Run, selected: bool, now: Instant, frame: usize) -> Line<'static> {
    let marker = if selected {
        Span::styled("›", theme::selected())
    } else {
        Span::raw(" ")
    };
    let (glyph, glyph_style) = match run.log.outcome() {
        None => (SPINNER[frame % SPINNER.len()], theme::working()),
        Some((true, _)) => ("✔", theme::success()),
        Some((false, _)) => ("✗", theme::error()),
    };
    let elapsed = match run.log.outcome() {
        None => strings::format_elapsed(now.saturating_duration_since(run.started).as_secs()),
        Some(_) => run
            .log
            .duration_ms()
            .map(strings::duration)
            .unwrap_or_default(),
    };
    let id_style = if selected {
        theme::selected()
    } else {
        theme::bold()
    };
    let mut spans = vec![
        marker,
        Span::raw("  ".repeat(run.depth)),
        Span::styled(format!("{glyph} "), glyph_style),
        Span::styled(run.log.agent_id.clone(), id_style),
    ];
    if !elapsed.is_empty() {
        spans.push(Span::styled(format!(" {elapsed}"), theme::dim()));
    }
    let (prefix, text, style) = activity(run);
    if !text.is_empty() {
        spans.push(Span::styled(" · ", theme::dim()));
        if let Some(prefix) = prefix {
            spans.push(prefix);
        }
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

/// What the row says after the time: how the run ended, else what it is doing.
fn activity(run: &Run) -> (Option<Span<'static>>, String, Style) {
    if let Some((ok, text)) = run.log.outcome() {
        let style = if ok { theme::dim() } else { theme::error() };
        return (None, first_line(text), style);
    }
    match &run.activity {
        Activity::Starting => (None, first_line(&run.log.prompt), theme::dim()),
        Activity::Tool(description) => (None, first_line(description), Style::new()),
        Activity::Step(step) => (
            Some(Span::styled("□ ", theme::step_in_progress())),
            first_line(step),
            theme::step_in_progress(),
        ),
        Activity::Text => (
            None,
            run.log.last_text_line().map(first_line).unwrap_or_default(),
            theme::reasoning(),
        ),
        Activity::Waiting(description) => (
            None,
            strings::delegate_waiting(&first_line(description)),
            theme::warning(),
        ),
    }
}

/// The first non-empty line of `text`, as a terminal would show it.
pub fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    as_terminal_shows(line).replace('\t', " ")
}

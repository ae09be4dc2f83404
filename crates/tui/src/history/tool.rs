//! Tool call cells (one line: name and describe()), command output and diffs.

use crate::strings;
use crate::theme;
use crate::wrap::{wrap_spans, wrap_text};
use cairn_core::tools::names;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Lines of output shown while a cell is collapsed.
const COLLAPSED_OUTPUT_LINES: usize = 5;
/// Lines of a diff shown while collapsed.
const COLLAPSED_DIFF_LINES: usize = 40;
/// Lines of a failure message shown.
const FAILURE_LINES: usize = 3;

/// Where a tool call stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolState {
    /// Still running.
    Running,
    /// Finished.
    Done {
        /// False when the call failed or was refused.
        success: bool,
        /// How long it ran.
        duration_ms: u64,
        /// What the model received.
        output: String,
    },
}

/// One tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallCell {
    /// The model's id for the call.
    pub call_id: String,
    /// Tool name.
    pub name: String,
    /// The describe() sentence.
    pub description: String,
    /// Running or done.
    pub state: ToolState,
}

impl ToolCallCell {
    /// Lines at `width`; `expanded` shows all output.
    pub fn lines(&self, width: usize, expanded: bool) -> Vec<Line<'static>> {
        let (bullet_style, suffix) = match &self.state {
            ToolState::Running => (theme::dim(), None),
            ToolState::Done {
                success: true,
                duration_ms,
                ..
            } => (theme::success(), Some(strings::duration(*duration_ms))),
            ToolState::Done {
                success: false,
                duration_ms,
                ..
            } => (
                theme::error(),
                Some(format!("failed, {}", strings::duration(*duration_ms))),
            ),
        };
        let mut spans = vec![
            Span::styled("• ", bullet_style),
            Span::styled(self.name.clone(), theme::tool_name()),
        ];
        if !self.description.is_empty() {
            spans.push(Span::styled(" · ", theme::dim()));
            spans.push(Span::raw(self.description.clone()));
        }
        if let Some(suffix) = suffix {
            spans.push(Span::styled(format!(" ({suffix})"), theme::dim()));
        }
        let mut lines = wrap_spans(&spans, width, &[], &[Span::raw("  ")]);
        if let ToolState::Done {
            success, output, ..
        } = &self.state
        {
            if self.name == names::SHELL {
                lines.extend(output_lines(output, width, expanded, Style::new()));
            } else if looks_like_diff(output) {
                lines.extend(diff_lines(output, width, expanded));
            } else if !success {
                let text: Vec<&str> = output.lines().take(FAILURE_LINES).collect();
                lines.extend(output_lines(&text.join("\n"), width, true, theme::error()));
            }
        }
        lines
    }
}

/// Output under a call: `└` then the last lines, or all when expanded.
pub fn output_lines(
    output: &str,
    width: usize,
    expanded: bool,
    style: Style,
) -> Vec<Line<'static>> {
    let text = output.trim_end_matches('\n');
    if text.is_empty() {
        return Vec::new();
    }
    let all: Vec<&str> = text.split('\n').collect();
    let (hidden, shown) = if expanded || all.len() <= COLLAPSED_OUTPUT_LINES {
        (0, &all[..])
    } else {
        let cut = all.len() - COLLAPSED_OUTPUT_LINES;
        (cut, &all[cut..])
    };
    let mut lines = Vec::new();
    let mut first = Some(Span::styled("  └ ", theme::dim()));
    let rest = [Span::raw("    ")];
    if hidden > 0 {
        let prefix = vec![first.take().unwrap_or_else(|| rest[0].clone())];
        lines.extend(wrap_text(
            &strings::more_lines(hidden),
            theme::dim(),
            width,
            &prefix,
            &rest,
        ));
    }
    for line in shown {
        let prefix = vec![first.take().unwrap_or_else(|| rest[0].clone())];
        lines.extend(wrap_text(
            line,
            style.patch(theme::dim()),
            width,
            &prefix,
            &rest,
        ));
    }
    lines
}

/// True for text that contains a unified diff hunk.
pub fn looks_like_diff(text: &str) -> bool {
    text.starts_with("@@") || text.contains("\n@@ ") || text.starts_with("--- ")
}

/// Style of one diff line.
fn diff_style(line: &str) -> Style {
    if line.starts_with("+++") || line.starts_with("---") {
        theme::diff_header()
    } else if line.starts_with("@@") {
        theme::diff_hunk()
    } else if line.starts_with('+') {
        theme::diff_added()
    } else if line.starts_with('-') {
        theme::diff_removed()
    } else {
        Style::new()
    }
}

/// A coloured unified diff, indented under its cell.
pub fn diff_lines(diff: &str, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let all: Vec<&str> = diff.trim_end_matches('\n').split('\n').collect();
    let shown = if expanded {
        all.len()
    } else {
        all.len().min(COLLAPSED_DIFF_LINES)
    };
    let prefix = [Span::raw("    ")];
    let mut lines = Vec::new();
    for line in &all[..shown] {
        lines.extend(wrap_text(line, diff_style(line), width, &prefix, &prefix));
    }
    if shown < all.len() {
        lines.extend(wrap_text(
            &strings::more_lines(all.len() - shown),
            theme::dim(),
            width,
            &prefix,
            &prefix,
        ));
    }
    lines
}

/// A diff cell: a title (the describe() sentence) and the coloured diff.
pub fn diff_cell_lines(
    title: &str,
    diff: &str,
    width: usize,
    expanded: bool,
) -> Vec<Line<'static>> {
    let mut lines = wrap_spans(
        &[
            Span::styled("• ", theme::warning()),
            Span::styled(title.to_string(), theme::bold()),
        ],
        width,
        &[],
        &[Span::raw("  ")],
    );
    lines.extend(diff_lines(diff, width, expanded));
    lines
}

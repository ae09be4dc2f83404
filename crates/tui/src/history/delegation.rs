//! The cell a finished group of delegated runs collapses into: one line per run (glyph, agent
//! id, duration, first line of its summary or error), indented by depth; expanded (Ctrl+O),
//! each run's prompt and whole summary as Markdown.

use crate::delegate::panel::first_line;
use crate::markdown::{self, highlight::HighlightCache};
use crate::strings;
use crate::theme;
use crate::wrap::{truncate_with_ellipsis, wrap_text};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// One finished run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelegationRow {
    /// Depth in the tree.
    pub depth: usize,
    /// The agent.
    pub agent_id: String,
    /// What it was asked.
    pub prompt: String,
    /// True when it completed, false when it failed.
    pub ok: bool,
    /// How long it ran, when known.
    pub duration_ms: Option<u64>,
    /// Its summary, or why it failed.
    pub text: String,
}

/// A finished group of runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelegationCell {
    /// The runs in tree order.
    pub rows: Vec<DelegationRow>,
}

impl DelegationCell {
    /// Lines at `width`; `expanded` shows prompts and whole summaries.
    pub fn lines(&self, width: usize, expanded: bool) -> Vec<Line<'static>> {
        let failed = self.rows.iter().filter(|r| !r.ok).count();
        let mut header = vec![
            Span::styled("• ", theme::bullet()),
            Span::styled(
                strings::delegated_runs(self.rows.len(), failed),
                theme::bold(),
            ),
        ];
        if !expanded {
            header.push(Span::styled(
                format!(" ({})", strings::DELEGATION_EXPAND_HINT),
                theme::dim(),
            ));
        }
        let mut lines = vec![truncate_with_ellipsis(Line::from(header), width)];
        let mut cache = HighlightCache::default();
        for row in &self.rows {
            let indent = "  ".repeat(row.depth + 1);
            let (glyph, style) = if row.ok {
                ("✔", theme::success())
            } else {
                ("✗", theme::error())
            };
            let mut spans = vec![
                Span::raw(indent.clone()),
                Span::styled(format!("{glyph} "), style),
                Span::styled(row.agent_id.clone(), theme::bold()),
            ];
            if let Some(ms) = row.duration_ms {
                spans.push(Span::styled(
                    format!(" {}", strings::duration(ms)),
                    theme::dim(),
                ));
            }
            if !expanded {
                let text = first_line(&row.text);
                if !text.is_empty() {
                    let text_style = if row.ok { Style::new() } else { theme::error() };
                    spans.push(Span::styled(" · ", theme::dim()));
                    spans.push(Span::styled(text, text_style));
                }
                lines.push(truncate_with_ellipsis(Line::from(spans), width));
                continue;
            }
            lines.push(truncate_with_ellipsis(Line::from(spans), width));
            let body = format!("{indent}  ");
            lines.extend(wrap_text(
                row.prompt.trim(),
                theme::user_message(),
                width,
                &[Span::styled(format!("{body}› "), theme::prompt_glyph())],
                &[Span::raw(format!("{body}  "))],
            ));
            if !row.ok {
                lines.extend(wrap_text(
                    row.text.trim(),
                    theme::error(),
                    width,
                    &[Span::raw(body.clone())],
                    &[Span::raw(body.clone())],
                ));
                continue;
            }
            let inner = width.saturating_sub(body.len()).max(8);
            for line in markdown::render(row.text.trim(), inner, true, &mut cache) {
                let mut spans = vec![Span::raw(body.clone())];
                spans.extend(line.spans);
                lines.push(Line::from(spans));
            }
        }
        lines
    }
}

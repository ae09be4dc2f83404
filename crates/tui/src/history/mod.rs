//! History cells: the entries of the transcript.
//!
//! A cell knows how to turn itself into lines for a width ([`HistoryCell::display_lines`]);
//! the transcript caches those lines per width, so a frame never re-wraps anything.

pub mod delegation;
pub mod plan;
pub mod tool;

use crate::markdown::stream::StreamingMarkdown;
use crate::strings;
use crate::theme;
use crate::wrap::{wrap_spans, wrap_text};
use cairn_protocol::Plan;
pub use delegation::DelegationCell;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::path::PathBuf;
pub use tool::{ToolCallCell, ToolState};

/// Lines of reasoning shown while collapsed.
const COLLAPSED_REASONING_LINES: usize = 3;

/// What the session runs with, shown at the top of the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionHeader {
    /// Model name.
    pub model: String,
    /// Provider key, if any.
    pub provider: Option<String>,
    /// Working directory.
    pub cwd: PathBuf,
}

/// One transcript entry.
#[derive(Debug)]
pub enum HistoryCell {
    /// Session header.
    Header(SessionHeader),
    /// A message the user sent.
    User(String),
    /// An assistant message (Markdown, perhaps still streaming).
    Assistant(StreamingMarkdown),
    /// The model's reasoning summary.
    Reasoning(String),
    /// A tool call and, once done, its output.
    ToolCall(ToolCallCell),
    /// A proposed or applied file change.
    Diff {
        /// The describe() sentence.
        title: String,
        /// Unified diff.
        diff: String,
    },
    /// The diff of a change applied without asking (shown under its tool call).
    AppliedDiff(String),
    /// The user's answers to ask_user_question: (question, answer) pairs.
    Answers(Vec<(String, String)>),
    /// A plan checklist.
    Plan(Plan),
    /// A finished group of delegated runs.
    Delegation(DelegationCell),
    /// Information for the user.
    Notice(String),
    /// A failure.
    Error(String),
}

/// Settings that affect how cells render.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Show reasoning and output in full.
    pub expanded: bool,
}

impl HistoryCell {
    /// The cell's lines at `width` columns.
    pub fn display_lines(&mut self, width: u16, options: RenderOptions) -> Vec<Line<'static>> {
        let width = usize::from(width).max(8);
        match self {
            Self::Header(header) => header_lines(header, width),
            Self::User(text) => wrap_text(
                text,
                theme::user_message(),
                width,
                &[Span::styled("› ", theme::prompt_glyph())],
                &[Span::raw("  ")],
            ),
            Self::Assistant(md) => {
                let body = md.render(width - 2);
                prefix_lines(body, Span::styled("• ", theme::bullet()), Span::raw("  "))
            }
            Self::Reasoning(text) => reasoning_lines(text, width, options.expanded),
            Self::ToolCall(cell) => cell.lines(width, options.expanded),
            Self::Diff { title, diff } => {
                tool::diff_cell_lines(title, diff, width, options.expanded)
            }
            Self::AppliedDiff(diff) => tool::applied_diff_lines(diff, width, options.expanded),
            Self::Answers(pairs) => answer_lines(pairs, width),
            Self::Plan(plan) => plan::plan_cell_lines(plan, width),
            Self::Delegation(cell) => cell.lines(width, options.expanded),
            Self::Notice(text) => wrap_text(
                text,
                Style::new(),
                width,
                &[Span::styled("• ", theme::notice())],
                &[Span::raw("  ")],
            ),
            Self::Error(text) => wrap_text(
                text,
                theme::error(),
                width,
                &[Span::styled("■ ", theme::error())],
                &[Span::raw("  ")],
            ),
        }
    }
}

fn prefix_lines(
    lines: Vec<Line<'static>>,
    first: Span<'static>,
    rest: Span<'static>,
) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            let mut spans = Vec::with_capacity(line.spans.len() + 1);
            spans.push(if i == 0 { first.clone() } else { rest.clone() });
            spans.extend(line.spans);
            Line::from(spans)
        })
        .collect()
}

fn header_lines(header: &SessionHeader, width: usize) -> Vec<Line<'static>> {
    let (provider, provider_style) = match header.provider.as_deref() {
        Some(provider) => (provider, Style::new()),
        None => (strings::HEADER_NO_PROVIDER, theme::warning()),
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(">_ ", theme::dim()),
        Span::styled(strings::APP_NAME, theme::bold()),
        Span::styled(format!(" (v{})", env!("CARGO_PKG_VERSION")), theme::dim()),
    ])];
    lines.extend(wrap_spans(
        &[
            Span::styled("model: ", theme::dim()),
            Span::raw(header.model.clone()),
            Span::styled("  provider: ", theme::dim()),
            Span::styled(provider.to_string(), provider_style),
        ],
        width,
        &[Span::raw("   ")],
        &[Span::raw("   ")],
    ));
    lines.extend(wrap_spans(
        &[
            Span::styled("directory: ", theme::dim()),
            Span::raw(header.cwd.display().to_string()),
        ],
        width,
        &[Span::raw("   ")],
        &[Span::raw("   ")],
    ));
    lines
}

/// Each question dim after a bullet, the user's answer below it.
fn answer_lines(pairs: &[(String, String)], width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (question, answer) in pairs {
        lines.extend(wrap_text(
            question,
            theme::dim(),
            width,
            &[Span::styled("• ", theme::bullet())],
            &[Span::raw("  ")],
        ));
        let (answer, style) = if answer == strings::QUESTION_SKIPPED {
            (strings::QUESTION_SKIPPED_SHOWN, theme::dim())
        } else {
            (answer.as_str(), theme::user_message())
        };
        lines.extend(wrap_text(
            answer,
            style,
            width,
            &[Span::styled("  ↳ ", theme::prompt_glyph())],
            &[Span::raw("    ")],
        ));
    }
    lines
}

fn reasoning_lines(text: &str, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(vec![
        Span::styled("• ", theme::bullet()),
        Span::styled(strings::REASONING, theme::reasoning()),
    ])];
    let body = wrap_text(
        text.trim(),
        theme::reasoning(),
        width,
        &[Span::raw("  ")],
        &[Span::raw("  ")],
    );
    if expanded || body.len() <= COLLAPSED_REASONING_LINES {
        lines.extend(body);
    } else {
        let hidden = body.len() - COLLAPSED_REASONING_LINES;
        lines.extend(body.into_iter().take(COLLAPSED_REASONING_LINES));
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(strings::more_lines(hidden), theme::dim()),
        ]));
    }
    lines
}

#[cfg(test)]
mod tests;

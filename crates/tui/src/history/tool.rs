//! Tool call cells (one line: name and what the call does, in the tense of the moment),
//! command output and diffs.

use crate::strings;
use crate::theme;
use crate::wrap::{wrap_spans, wrap_text};
use cairn_core::tools::names;
pub use cairn_protocol::shown::looks_like_diff;
use cairn_protocol::shown::{FAILURE_LINES, shown_output};
use cairn_protocol::tense::{Tense, tool_sentence};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Lines of output shown while a cell is collapsed.
const COLLAPSED_OUTPUT_LINES: usize = 5;
/// Lines of a diff shown while collapsed.
const COLLAPSED_DIFF_LINES: usize = 40;
/// Lines of an auto-approved change's diff shown while collapsed (it was never reviewed, so
/// it shows; a long one gives way to the conversation until Ctrl+O).
const COLLAPSED_APPLIED_DIFF_LINES: usize = 12;

/// Tools whose result a plan cell shows; their call cells would only repeat it.
pub const PLAN_TOOLS: [&str; 3] = [names::UPDATE_PLAN, names::CREATE_PLAN, names::COMPLETE_PLAN];

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

impl ToolState {
    /// A finished call as the transcript keeps it: only the output its cell can show (see
    /// [`cairn_protocol::shown`]).
    pub fn finished(name: &str, success: bool, duration_ms: u64, output: String) -> Self {
        Self::Done {
            success,
            duration_ms,
            output: shown_output(name, success, output),
        }
    }
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
        let shell = match &self.state {
            ToolState::Done { output, .. } if self.name == names::SHELL => {
                Some(split_shell_output(output))
            }
            _ => None,
        };
        let failed_exit = shell
            .as_ref()
            .and_then(|(code, _)| code.as_deref())
            .filter(|code| *code != "0");
        let (bullet_style, suffix) = match &self.state {
            ToolState::Running => (theme::dim(), None),
            ToolState::Done {
                success: true,
                duration_ms,
                ..
            } => match failed_exit {
                Some(_) => (theme::error(), Some(strings::duration(*duration_ms))),
                None => (theme::success(), Some(strings::duration(*duration_ms))),
            },
            ToolState::Done {
                success: false,
                duration_ms,
                ..
            } => (theme::error(), Some(strings::call_failed(*duration_ms))),
        };
        let mut spans = vec![
            Span::styled("• ", bullet_style),
            Span::styled(self.name.clone(), theme::tool_name()),
        ];
        // The dry-run sentence belongs to approval prompts: here the call runs or ran.
        let tense = match &self.state {
            ToolState::Running => Tense::Progressive,
            ToolState::Done { success: true, .. } => Tense::Past,
            ToolState::Done { success: false, .. } => Tense::Imperative,
        };
        let mut sentence = tool_sentence(&self.description, tense);
        let mut suffix = suffix.map(|s| format!(" ({s})"));
        // "Wrote a.rs (4 lines, 3ms)" rather than two parentheses in a row.
        if failed_exit.is_none()
            && let Some(s) = &suffix
            && sentence.ends_with(')')
        {
            sentence.pop();
            sentence.push_str(&format!(", {}", &s[2..]));
            suffix = None;
        }
        if !sentence.is_empty() {
            spans.push(Span::styled(" · ", theme::dim()));
            spans.push(Span::raw(sentence));
        }
        if let Some(code) = failed_exit {
            spans.push(Span::styled(" · ", theme::dim()));
            spans.push(Span::styled(strings::exit_code(code), theme::error()));
        }
        if let Some(suffix) = suffix {
            spans.push(Span::styled(suffix, theme::dim()));
        }
        let mut lines = wrap_spans(&spans, width, &[], &[Span::raw("  ")]);
        if let ToolState::Done {
            success, output, ..
        } = &self.state
        {
            if let Some((_, body)) = &shell {
                lines.extend(output_lines(body, width, expanded, Style::new()));
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

/// The shell tool's output ("Exit code: N", "Duration: …", "Output:" then the text) split
/// into the exit code and what the command printed. Other text is returned whole.
pub fn split_shell_output(output: &str) -> (Option<String>, String) {
    let Some(rest) = output.strip_prefix("Exit code: ") else {
        return (None, output.to_string());
    };
    let (code, mut rest) = rest.split_once('\n').unwrap_or((rest, ""));
    if rest.starts_with("Duration: ") {
        rest = rest.split_once('\n').map_or("", |(_, r)| r);
    }
    let body = if rest.starts_with("Output: (none)") {
        rest.split_once('\n').map_or("", |(_, r)| r)
    } else if let Some(body) = rest.strip_prefix("Output:\n") {
        body
    } else {
        rest
    };
    (Some(code.trim().to_string()), body.to_string())
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
            &as_terminal_shows(line),
            style.patch(theme::dim()),
            width,
            &prefix,
            &rest,
        ));
    }
    lines
}

/// One line of program output as a terminal would show it: colour and cursor escape
/// sequences removed (tools that force colour would otherwise show `[31m` junk), only the
/// text after the last carriage return kept (progress bars redraw their line), and other
/// control characters dropped. Tabs stay.
pub fn as_terminal_shows(line: &str) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let line = line.rsplit('\r').next().unwrap_or(line);
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates up to a final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC (titles, hyperlinks): up to BEL or ESC \.
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
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
    diff_lines_up_to(diff, width, expanded, COLLAPSED_DIFF_LINES)
}

/// The diff of a change the policy applied without asking, under its tool call.
pub fn applied_diff_lines(diff: &str, width: usize, expanded: bool) -> Vec<Line<'static>> {
    diff_lines_up_to(diff, width, expanded, COLLAPSED_APPLIED_DIFF_LINES)
}

fn diff_lines_up_to(
    diff: &str,
    width: usize,
    expanded: bool,
    collapsed: usize,
) -> Vec<Line<'static>> {
    let all: Vec<&str> = diff.trim_end_matches('\n').split('\n').collect();
    let shown = if expanded {
        all.len()
    } else {
        all.len().min(collapsed)
    };
    let prefix = [Span::raw("    ")];
    let mut lines = Vec::new();
    for line in &all[..shown] {
        // A wrapped line continues under its own code, past the +/- column and the indent.
        let body = line.get(1..).unwrap_or("");
        let indent = body.len() - body.trim_start().len();
        let hang = (1 + indent).min(width.saturating_sub(4) / 2);
        let rest = [Span::raw(" ".repeat(4 + hang))];
        lines.extend(wrap_text(line, diff_style(line), width, &prefix, &rest));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_output_header_is_folded_into_the_exit_code() {
        assert_eq!(
            split_shell_output("Exit code: 0\nDuration: 0.1 s\nOutput:\n1\n2"),
            (Some("0".into()), "1\n2".into())
        );
        assert_eq!(
            split_shell_output("Exit code: 2\nDuration: 0.0 s\nOutput: (none)"),
            (Some("2".into()), String::new())
        );
        assert_eq!(
            split_shell_output("Exit code: 1\nDuration: 0.0 s\nStderr:\nboom"),
            (Some("1".into()), "Stderr:\nboom".into())
        );
        assert_eq!(
            split_shell_output("The user declined this call"),
            (None, "The user declined this call".into())
        );
    }
}

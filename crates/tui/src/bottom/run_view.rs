//! One delegated run's transcript over the whole screen: its prompt, messages, tool calls
//! with their output, checklists, and how it ended. It keeps following the run while it is
//! open (the app forwards the run's updates) and scrolls; Esc closes it.

use super::{View, ViewResult};
use crate::app_event::AppEventSender;
use crate::delegate::log::{RunEntry, RunLog, RunStatus, RunUpdate};
use crate::history::tool::{looks_like_diff, output_lines};
use crate::history::{HistoryCell, RenderOptions};
use crate::markdown::stream::StreamingMarkdown;
use crate::strings;
use crate::theme;
use crate::wrap::{wrap_spans, wrap_text};
use cairn_core::tools::names;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use std::any::Any;
use unicode_width::UnicodeWidthStr;

/// The overlay.
pub struct RunView {
    /// The run's index in the app's tree (ids may repeat across a resume).
    index: usize,
    log: RunLog,
    /// The transcript laid out for `width`: the prompt, each entry, then how the run stands.
    lines: Vec<Line<'static>>,
    /// Where each laid-out entry starts in `lines`; the rest is the end part.
    entry_starts: Vec<usize>,
    /// Width `lines` were laid out for (0: none yet).
    width: u16,
    /// Where the end part (how the run stands) starts in `lines`.
    end_start: usize,
    /// Entries from this one on (and the end part) must be laid out again; `None`: none.
    stale_from: Option<usize>,
    expanded: bool,
    scroll: usize,
    viewport: usize,
    /// At the bottom: new output stays in view.
    follow: bool,
}

impl RunView {
    /// An overlay for run `index`, showing `log` (a copy of the tree's). A running run opens
    /// at its newest output and follows it; a finished one opens at its prompt.
    pub fn new(index: usize, log: RunLog) -> Self {
        let follow = !log.status.is_finished();
        Self {
            index,
            log,
            lines: Vec::new(),
            entry_starts: Vec::new(),
            end_start: 0,
            width: 0,
            stale_from: Some(0),
            expanded: false,
            scroll: 0,
            viewport: 1,
            follow,
        }
    }

    /// The run's index in the tree.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The run did something: shown at the next frame. Only what changed is laid out again,
    /// so a long run streaming costs what its newest entry holds, not its whole transcript.
    pub fn apply(&mut self, update: RunUpdate<'_>) {
        if let Some(changed) = self.log.apply(update) {
            self.stale_from = Some(self.stale_from.map_or(changed, |s| s.min(changed)));
        }
    }

    /// Lay out what is stale at `width`.
    fn layout(&mut self, width: u16) {
        if width != self.width {
            self.width = width;
            self.stale_from = Some(0);
        }
        let Some(from) = self.stale_from.take() else {
            return;
        };
        let width = usize::from(width).max(8);
        let from = from.min(self.entry_starts.len());
        if from == 0 {
            self.lines = prompt_lines(&self.log, width);
        } else {
            let start = self
                .entry_starts
                .get(from)
                .copied()
                .unwrap_or(self.end_start);
            self.lines.truncate(start);
        }
        self.entry_starts.truncate(from);
        for entry in &self.log.entries[self.entry_starts.len()..] {
            self.entry_starts.push(self.lines.len());
            self.lines.push(Line::default());
            self.lines.extend(entry_lines(entry, width, self.expanded));
        }
        self.end_start = self.lines.len();
        self.lines
            .extend(end_lines(&self.log, width, self.expanded));
    }

    fn max_scroll(&self) -> usize {
        self.lines.len().saturating_sub(self.viewport)
    }

    fn scroll_by(&mut self, delta: i64) {
        let next = (self.scroll as i64).saturating_add(delta).max(0) as usize;
        self.scroll = next.min(self.max_scroll());
        self.follow = self.scroll >= self.max_scroll();
    }

    fn areas(area: Rect) -> (Rect, Rect) {
        let inner = Rect {
            x: area.x + 2,
            y: area.y + 1,
            width: area.width.saturating_sub(4),
            height: area.height.saturating_sub(2),
        };
        let footer_rows = 1.min(inner.height);
        let body = Rect {
            height: inner.height.saturating_sub(footer_rows + 1),
            ..inner
        };
        let footer = Rect {
            y: inner.y + inner.height - footer_rows,
            height: footer_rows,
            ..inner
        };
        (body, footer)
    }

    fn status_text(&self) -> String {
        match &self.log.status {
            RunStatus::Running => strings::RUN_RUNNING.to_string(),
            RunStatus::Completed { duration_ms, .. } => {
                format!("✔ {}", strings::duration(*duration_ms))
            }
            RunStatus::Failed { duration_ms, .. } => match duration_ms {
                Some(ms) => format!("✗ {}", strings::duration(*ms)),
                None => "✗".to_string(),
            },
        }
    }
}

/// The run's prompt, first.
fn prompt_lines(log: &RunLog, width: usize) -> Vec<Line<'static>> {
    wrap_text(
        log.prompt.trim(),
        theme::user_message(),
        width,
        &[Span::styled("› ", theme::prompt_glyph())],
        &[Span::raw("  ")],
    )
}

/// One entry of the run's transcript at `width`.
fn entry_lines(entry: &RunEntry, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let options = RenderOptions { expanded };
    match entry {
        RunEntry::Text { text, done } => {
            let mut md = StreamingMarkdown::new();
            md.push(text);
            if *done {
                md.finish(None);
            }
            HistoryCell::Assistant(md).display_lines(width as u16, options)
        }
        RunEntry::Tool(call) => {
            let mut lines = call.lines(width, expanded);
            // The transcript shows only shell output and diffs; here every result is part of
            // what the run did.
            if let crate::history::ToolState::Done {
                success: true,
                output,
                ..
            } = &call.state
                && call.name != names::SHELL
                && !looks_like_diff(output)
            {
                lines.extend(output_lines(output, width, expanded, Style::new()));
            }
            lines
        }
        RunEntry::Plan(plan) => crate::history::plan::plan_cell_lines(plan, width),
        RunEntry::Notice(text) => {
            HistoryCell::Notice(text.clone()).display_lines(width as u16, options)
        }
        RunEntry::Error(text) => {
            HistoryCell::Error(text.clone()).display_lines(width as u16, options)
        }
    }
}

/// How the run stands, last: running, or how it ended (with its summary unless its last
/// message already showed it).
fn end_lines(log: &RunLog, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let options = RenderOptions { expanded };
    let mut lines = vec![Line::default()];
    match &log.status {
        RunStatus::Running => {
            lines.push(Line::from(Span::styled(strings::RUN_RUNNING, theme::dim())))
        }
        RunStatus::Completed {
            summary,
            duration_ms,
        } => {
            let duration = strings::duration(*duration_ms);
            lines.extend(wrap_spans(
                &[
                    Span::styled("✔ ", theme::success()),
                    Span::styled(strings::run_finished(Some(&duration)), theme::bold()),
                ],
                width,
                &[],
                &[Span::raw("  ")],
            ));
            let last_text = log.entries.iter().rev().find_map(|e| match e {
                RunEntry::Text { text, .. } => Some(text.trim()),
                _ => None,
            });
            if last_text != Some(summary.trim()) {
                let md = StreamingMarkdown::complete(summary);
                lines.extend(HistoryCell::Assistant(md).display_lines(width as u16, options));
            }
        }
        RunStatus::Failed { error, .. } => lines.extend(wrap_text(
            &strings::run_failed(error),
            theme::error(),
            width,
            &[Span::styled("✗ ", theme::error())],
            &[Span::raw("  ")],
        )),
    }
    lines
}

/// The run's whole transcript at `width`, as the overlay lays it out.
pub fn run_lines(log: &RunLog, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let width = width.max(8);
    let mut lines = prompt_lines(log, width);
    for entry in &log.entries {
        lines.push(Line::default());
        lines.extend(entry_lines(entry, width, expanded));
    }
    lines.extend(end_lines(log, width, expanded));
    lines
}

impl View for RunView {
    fn handle_key(&mut self, key: KeyEvent, _tx: &AppEventSender) -> ViewResult {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let page = self.viewport.saturating_sub(1).max(1) as i64;
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return ViewResult::Close,
            // Ctrl+C reaches the app (interrupt, quit).
            KeyCode::Char('c') if ctrl => return ViewResult::Ignored,
            KeyCode::Char('o') => {
                self.expanded = !self.expanded;
                self.stale_from = Some(0);
            }
            KeyCode::Up | KeyCode::Char('k') => self.scroll_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll_by(1),
            KeyCode::PageUp => self.scroll_by(-page),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll_by(page),
            KeyCode::Home | KeyCode::Char('g') => self.scroll_by(i64::MIN / 2),
            KeyCode::End | KeyCode::Char('G') => self.scroll_by(i64::MAX / 2),
            _ => {}
        }
        ViewResult::Consumed
    }

    fn handle_scroll(&mut self, lines: i32) -> bool {
        self.scroll_by(i64::from(lines));
        true
    }

    fn prepare(&mut self, area: Rect) {
        let (body, _) = Self::areas(area);
        self.viewport = usize::from(body.height).max(1);
        self.layout(body.width);
        if self.follow {
            self.scroll = self.max_scroll();
        }
        self.scroll = self.scroll.min(self.max_scroll());
    }

    fn desired_height(&self, _width: u16, max: u16) -> u16 {
        max
    }

    fn render(&self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let (body, footer) = Self::areas(area);
        let end = (self.scroll + usize::from(body.height)).min(self.lines.len());
        let position = format!(
            " {}-{} of {} ",
            (self.scroll + 1).min(end),
            end,
            self.lines.len()
        );
        let title =
            strings::run_view_title(&self.log.agent_id, &self.log.run_id, &self.status_text());
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::review_border())
            .title(Span::styled(
                title,
                theme::review_border().patch(theme::bold()),
            ))
            .title_bottom(Line::from(Span::styled(position, theme::dim())).right_aligned());
        block.render(area, buf);
        for (i, line) in self.lines[self.scroll.min(end)..end].iter().enumerate() {
            buf.set_line(body.x, body.y + i as u16, line, body.width);
        }
        if footer.height > 0 {
            let keys = if strings::RUN_VIEW_FOOTER.width() <= usize::from(footer.width) {
                strings::RUN_VIEW_FOOTER
            } else {
                strings::RUN_VIEW_FOOTER_SHORT
            };
            buf.set_line(
                footer.x,
                footer.y,
                &Line::from(Span::styled(keys, theme::key_hint())),
                footer.width,
            );
        }
    }

    fn fullscreen(&self) -> bool {
        true
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cairn_protocol::{EventMsg, PlanStep, PlanStepStatus};

    fn text_of(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn laying_out_only_what_changed_gives_the_same_lines_as_laying_out_everything() {
        let area = Rect::new(0, 0, 60, 30);
        let (body, _) = RunView::areas(area);
        let mut view = RunView::new(
            0,
            RunLog::new("run-1".into(), "explore".into(), "look".into()),
        );
        let begin = EventMsg::ToolCallBegin {
            call_id: "c1".into(),
            name: "read_file".into(),
            arguments: "{}".into(),
            description: "Read src/main.rs".into(),
        };
        let end = EventMsg::ToolCallEnd {
            call_id: "c1".into(),
            name: "read_file".into(),
            output: "fn main() {}\n".into(),
            success: true,
            duration_ms: 3,
        };
        let plan = EventMsg::PlanUpdate(cairn_protocol::Plan {
            plan: vec![PlanStep::new("Read main", PlanStepStatus::InProgress)],
            ..Default::default()
        });
        let message = EventMsg::AgentMessage {
            message: "It starts in `main`.\n\nDone.".into(),
        };
        let updates = [
            RunUpdate::Delta("Looking "),
            RunUpdate::Delta("at main\n"),
            RunUpdate::Event(&plan),
            RunUpdate::Event(&begin),
            RunUpdate::Delta("Reading "),
            RunUpdate::Event(&end),
            RunUpdate::Delta("It starts "),
            RunUpdate::Event(&message),
            RunUpdate::Completed {
                summary: "It starts in `main`.\n\nDone.",
                duration_ms: 40,
            },
        ];
        for update in updates {
            view.apply(update);
            view.prepare(area);
            assert_eq!(
                text_of(&view.lines),
                text_of(&run_lines(&view.log, usize::from(body.width), false)),
                "after {update:?}"
            );
        }
        view.prepare(Rect::new(0, 0, 30, 30));
        let (narrow, _) = RunView::areas(Rect::new(0, 0, 30, 30));
        assert_eq!(
            text_of(&view.lines),
            text_of(&run_lines(&view.log, usize::from(narrow.width), false))
        );
    }
}

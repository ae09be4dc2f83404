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

/// The overlay.
pub struct RunView {
    /// The run's index in the app's tree (ids may repeat across a resume).
    index: usize,
    log: RunLog,
    lines: Vec<Line<'static>>,
    /// Width `lines` were laid out for (0: stale).
    width: u16,
    expanded: bool,
    scroll: usize,
    viewport: usize,
    /// At the bottom: new output stays in view.
    follow: bool,
}

impl RunView {
    /// An overlay for run `index`, showing `log` (a copy of the tree's).
    pub fn new(index: usize, log: RunLog) -> Self {
        Self {
            index,
            log,
            lines: Vec::new(),
            width: 0,
            expanded: false,
            scroll: 0,
            viewport: 1,
            follow: false,
        }
    }

    /// The run's index in the tree.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The run did something: shown at the next frame.
    pub fn apply(&mut self, update: RunUpdate<'_>) {
        self.log.apply(update);
        self.width = 0;
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

/// The run's transcript at `width`.
pub fn run_lines(log: &RunLog, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let width = width.max(8);
    let options = RenderOptions { expanded };
    let mut lines = wrap_text(
        log.prompt.trim(),
        theme::user_message(),
        width,
        &[Span::styled("› ", theme::prompt_glyph())],
        &[Span::raw("  ")],
    );
    let mut last_text = None;
    for entry in &log.entries {
        lines.push(Line::default());
        match entry {
            RunEntry::Text { text, done } => {
                let mut md = StreamingMarkdown::new();
                md.push(text);
                if *done {
                    md.finish(None);
                }
                lines.extend(HistoryCell::Assistant(md).display_lines(width as u16, options));
                last_text = Some(text.trim());
            }
            RunEntry::Tool(call) => {
                lines.extend(call.lines(width, expanded));
                // The transcript shows only shell output and diffs; here every result is
                // part of what the run did.
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
            }
            RunEntry::Plan(plan) => {
                lines.extend(crate::history::plan::plan_cell_lines(plan, width))
            }
            RunEntry::Notice(text) => {
                lines.extend(HistoryCell::Notice(text.clone()).display_lines(width as u16, options))
            }
            RunEntry::Error(text) => {
                lines.extend(HistoryCell::Error(text.clone()).display_lines(width as u16, options))
            }
        }
    }
    lines.push(Line::default());
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
            // The summary is the last message, already shown; show it only when it is not.
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
                self.width = 0;
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
        if self.width != body.width {
            self.width = body.width;
            self.lines = run_lines(&self.log, usize::from(body.width), self.expanded);
        }
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
            buf.set_line(
                footer.x,
                footer.y,
                &Line::from(Span::styled(strings::RUN_VIEW_FOOTER, theme::key_hint())),
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

//! The plan review widget: the plan-mode plan rendered as Markdown, scrollable from the moment
//! it opens, with Enter (approve), Esc (reject), f (reject with feedback) and e (edit).

use super::{View, ViewResult};
use crate::app_event::{AppEvent, AppEventSender};
use crate::markdown::{self, highlight::HighlightCache};
use crate::strings;
use crate::theme;
use crate::wrap::wrap_spans;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use std::any::Any;
use std::path::PathBuf;

/// The widget.
pub struct PlanReviewView {
    path: PathBuf,
    content: String,
    lines: Vec<Line<'static>>,
    /// Width the lines were rendered for (0: not yet).
    laid_out_width: u16,
    cache: HighlightCache,
    scroll: usize,
    viewport: usize,
    /// Some while the user types feedback.
    feedback: Option<String>,
    /// Set for a structured plan (`[tools] require_plan_approval`): the call waiting for the
    /// decision, answered with `plan_approval` instead of `plan_mode_approval`.
    call_id: Option<String>,
}

impl PlanReviewView {
    /// A widget for the plan in `content`, stored at `path`.
    pub fn new(content: String, path: PathBuf) -> Self {
        Self {
            path,
            content,
            lines: Vec::new(),
            laid_out_width: 0,
            cache: HighlightCache::default(),
            scroll: 0,
            viewport: 1,
            feedback: None,
            call_id: None,
        }
    }

    /// A widget for the structured plan in `content` (stored at `path`) that the call
    /// `call_id` waits on.
    pub fn for_structured_plan(content: String, path: PathBuf, call_id: String) -> Self {
        Self {
            call_id: Some(call_id),
            ..Self::new(content, path)
        }
    }

    /// The plan file.
    pub fn path(&self) -> &PathBuf {
        &self.path
    }

    /// Show an edited plan (after `e`).
    pub fn set_content(&mut self, content: String) {
        self.content = content;
        self.laid_out_width = 0;
    }

    /// First visible line.
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    fn max_scroll(&self) -> usize {
        self.lines.len().saturating_sub(self.viewport)
    }

    fn scroll_by(&mut self, delta: i64) {
        let next = (self.scroll as i64 + delta).max(0) as usize;
        self.scroll = next.min(self.max_scroll());
    }

    fn decide(&self, approved: bool, feedback: Option<String>, tx: &AppEventSender) -> ViewResult {
        match &self.call_id {
            Some(call_id) => tx.send(AppEvent::Op(cairn_protocol::Op::PlanApproval {
                call_id: call_id.clone(),
                approved,
                feedback,
            })),
            None => tx.send(AppEvent::PlanDecision { approved, feedback }),
        }
        ViewResult::Close
    }

    /// Areas inside the border: the plan, and the footer's `footer_rows` rows at the bottom
    /// (a blank row between them).
    fn inner_areas(area: Rect, footer_rows: u16) -> (Rect, Rect) {
        let inner = Rect {
            x: area.x + 2,
            y: area.y + 1,
            width: area.width.saturating_sub(4),
            height: area.height.saturating_sub(2),
        };
        let footer_rows = footer_rows.min(inner.height);
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

    /// The keys, or the feedback being typed and its keys, wrapped to `width`.
    fn footer_lines(&self, width: u16) -> Vec<Line<'static>> {
        let width = usize::from(width).max(8);
        let spans = match &self.feedback {
            Some(text) => vec![
                Span::styled(strings::PLAN_REVIEW_FEEDBACK_PROMPT, theme::warning()),
                Span::styled(format!("{text}▏"), Style::new()),
                Span::styled(
                    format!("  {}", strings::PLAN_REVIEW_FEEDBACK_FOOTER),
                    theme::key_hint(),
                ),
            ],
            None => vec![Span::styled(strings::PLAN_REVIEW_FOOTER, theme::key_hint())],
        };
        wrap_spans(&spans, width, &[], &[])
    }

    fn areas(&self, area: Rect) -> (Rect, Rect) {
        let inner_width = area.width.saturating_sub(4);
        Self::inner_areas(area, self.footer_lines(inner_width).len() as u16)
    }
}

impl View for PlanReviewView {
    fn handle_key(&mut self, key: KeyEvent, tx: &AppEventSender) -> ViewResult {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if let Some(text) = &mut self.feedback {
            match key.code {
                KeyCode::Enter => {
                    let feedback = Some(text.trim().to_string()).filter(|t| !t.is_empty());
                    return self.decide(false, feedback, tx);
                }
                KeyCode::Esc => self.feedback = None,
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Char(c) if !ctrl => text.push(c),
                _ => {}
            }
            return ViewResult::Consumed;
        }
        let page = self.viewport.saturating_sub(1).max(1) as i64;
        match key.code {
            KeyCode::Enter => return self.decide(true, None, tx),
            KeyCode::Esc => return self.decide(false, None, tx),
            KeyCode::Char('f') | KeyCode::Char('F') if !ctrl => self.feedback = Some(String::new()),
            KeyCode::Char('e') | KeyCode::Char('E') if !ctrl => {
                tx.send(AppEvent::EditPlan(self.path.clone()))
            }
            KeyCode::Up | KeyCode::Char('k') => self.scroll_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll_by(1),
            KeyCode::PageUp => self.scroll_by(-page),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll_by(page),
            KeyCode::Home | KeyCode::Char('g') => self.scroll = 0,
            KeyCode::End | KeyCode::Char('G') => self.scroll = self.max_scroll(),
            // Ctrl+C reaches the app (interrupt); everything else stays here.
            KeyCode::Char('c') if ctrl => return ViewResult::Ignored,
            _ => {}
        }
        ViewResult::Consumed
    }

    fn handle_paste(&mut self, text: &str) -> ViewResult {
        if let Some(feedback) = &mut self.feedback {
            feedback.push_str(&text.replace(['\n', '\r'], " "));
        }
        ViewResult::Consumed
    }

    fn handle_scroll(&mut self, lines: i32) -> bool {
        self.scroll_by(i64::from(lines));
        true
    }

    fn prepare(&mut self, area: Rect) {
        let (body, _) = self.areas(area);
        self.viewport = usize::from(body.height).max(1);
        if self.laid_out_width != body.width {
            self.laid_out_width = body.width;
            self.lines = markdown::render(
                &self.content,
                usize::from(body.width).max(8),
                true,
                &mut self.cache,
            );
        }
        self.scroll = self.scroll.min(self.max_scroll());
    }

    /// As tall as the plan needs (a short plan leaves the transcript in view), at most the
    /// whole screen.
    fn desired_height(&self, width: u16, max: u16) -> u16 {
        let inner_width = width.saturating_sub(4);
        let footer_rows = self.footer_lines(inner_width).len();
        let rows = if self.laid_out_width == inner_width {
            self.lines.len()
        } else {
            // Not laid out at this width yet (first frame, resize, edit): count now.
            markdown::render(
                &self.content,
                usize::from(inner_width).max(8),
                true,
                &mut HighlightCache::default(),
            )
            .len()
        };
        let chrome = 2 + 1 + footer_rows;
        u16::try_from(rows.max(1) + chrome)
            .unwrap_or(u16::MAX)
            .min(max)
    }

    fn render(&self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        // Corners and the spaces around the title take four columns.
        let title = fitted_title(&self.path, usize::from(area.width).saturating_sub(4));
        let (body, footer) = self.areas(area);
        let end = (self.scroll + usize::from(body.height)).min(self.lines.len());
        let first = (self.scroll + 1).min(end);
        let mut block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::review_border())
            .title(Span::styled(
                format!(" {title} "),
                theme::review_border().patch(theme::bold()),
            ));
        // Where the view is, while any of the plan shows and some of it does not.
        if first >= 1 && (first > 1 || end < self.lines.len()) {
            let position = strings::plan_review_position(first, end, self.lines.len());
            block = block
                .title_bottom(Line::from(Span::styled(position, theme::dim())).right_aligned());
        }
        block.render(area, buf);
        for (i, line) in self.lines[self.scroll.min(end)..end].iter().enumerate() {
            buf.set_line(body.x, body.y + i as u16, line, body.width);
        }
        for (y, line) in (footer.y..footer.bottom()).zip(self.footer_lines(footer.width)) {
            buf.set_line(footer.x, y, &line, footer.width);
        }
    }

    fn fullscreen(&self) -> bool {
        true
    }

    /// exit_plan_mode waits inside the task; once the task is gone nothing can be decided.
    fn belongs_to_task(&self) -> bool {
        true
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// The title in at most `width` columns: the plan file's name loses its middle before
/// anything else, so a narrow screen still reads "Plan Review - conv…_030405.md".
fn fitted_title(path: &std::path::Path, width: usize) -> String {
    let full = strings::plan_review_title(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(prefix) = full.strip_suffix(name.as_str()) else {
        return full;
    };
    let room = width.saturating_sub(unicode_width::UnicodeWidthStr::width(prefix));
    // Too narrow for a useful part of the name: let the border clip it.
    if room < 8 {
        return full;
    }
    format!("{prefix}{}", crate::wrap::truncate_middle(&name, room))
}

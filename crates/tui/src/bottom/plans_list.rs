//! The /plans list: stored plans, newest first; Enter shows one in the transcript.

use super::{View, ViewResult};
use crate::app_event::{AppEvent, AppEventSender};
use crate::strings;
use crate::theme;
use cairn_core::plans::{PlanSummary, listing};
use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use std::any::Any;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Narrowest a title gets before the row is simply cut at the edge.
const MIN_TITLE_WIDTH: usize = 12;

/// The list.
pub struct PlansListView {
    plans: Vec<PlanSummary>,
    /// "5m ago" for each plan, computed when the list opened.
    updated: Vec<String>,
    skipped: usize,
    selected: usize,
}

impl PlansListView {
    /// A list of `plans` seen at `now`; `skipped` documents could not be read.
    pub fn new(plans: Vec<PlanSummary>, skipped: usize, now: DateTime<Utc>) -> Self {
        let updated = plans
            .iter()
            .map(|p| listing::relative_time(p.updated, now))
            .collect();
        Self {
            plans,
            updated,
            skipped,
            selected: 0,
        }
    }

    /// One row fitted to `width`: the status, progress and age always show; a long title is
    /// shortened with `…` rather than pushing them off the edge, and the id comes last, only
    /// when there is room (Enter shows it with the plan).
    fn row(&self, index: usize, plan: &PlanSummary, width: usize) -> Line<'static> {
        let selected = index == self.selected;
        let marker = if selected { "› " } else { "  " };
        let title_style = if selected {
            theme::selected()
        } else {
            Style::new()
        };
        let meta = format!(
            "  {} · {} · {}",
            plan.status.as_str(),
            strings::plan_progress(plan.done, plan.total),
            self.updated.get(index).map(String::as_str).unwrap_or(""),
        );
        let id = format!(" · {}", plan.id);
        let avail = width.saturating_sub(marker.len());
        let title = plan.title.replace(['\n', '\r'], " ");
        let (title_w, meta_w) = (title.width(), meta.width());
        let (title, id) = if title_w + meta_w + id.width() <= avail {
            (title, id)
        } else if title_w + meta_w <= avail {
            (title, String::new())
        } else {
            let room = avail.saturating_sub(meta_w).max(MIN_TITLE_WIDTH);
            (shorten(&title, room), String::new())
        };
        Line::from(vec![
            Span::styled(marker, theme::selected()),
            Span::styled(title, title_style),
            Span::styled(meta + &id, theme::dim()),
        ])
    }
}

/// `text` cut to `width` columns, ending in `…` when cut (no space before it).
fn shorten(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    let mut out = out.trim_end().to_string();
    out.push('…');
    out
}

impl View for PlansListView {
    fn handle_key(&mut self, key: KeyEvent, tx: &AppEventSender) -> ViewResult {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => {
                self.selected = (self.selected + 1).min(self.plans.len().saturating_sub(1));
            }
            KeyCode::Enter => {
                if let Some(plan) = self.plans.get(self.selected) {
                    tx.send(AppEvent::ShowPlan(plan.id.clone()));
                }
                return ViewResult::Close;
            }
            KeyCode::Esc => return ViewResult::Close,
            KeyCode::Char('c') if ctrl => return ViewResult::Ignored,
            _ => {}
        }
        ViewResult::Consumed
    }

    fn desired_height(&self, _width: u16, max: u16) -> u16 {
        ((self.plans.len() + 2 + usize::from(self.skipped > 0) + 1) as u16).min(max)
    }

    fn render(&self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::review_border())
            .title(Span::styled(
                format!(" {} ", strings::PLANS_HEADER),
                theme::review_border().patch(theme::bold()),
            ));
        let inner = block.inner(area);
        block.render(area, buf);
        let rows = usize::from(inner.height.saturating_sub(1));
        let start = self.selected.saturating_sub(rows.saturating_sub(1));
        for (y, (i, plan)) in (inner.y..).zip(self.plans.iter().enumerate().skip(start).take(rows))
        {
            let row = self.row(i, plan, usize::from(inner.width));
            buf.set_line(inner.x, y, &row, inner.width);
        }
        let mut footer = vec![Span::styled(strings::PLANS_FOOTER, theme::key_hint())];
        if self.skipped > 0 {
            footer.push(Span::styled(
                format!("  {}", strings::plans_skipped(self.skipped)),
                theme::warning(),
            ));
        }
        if inner.height > 0 {
            buf.set_line(
                inner.x,
                inner.y + inner.height - 1,
                &Line::from(footer),
                inner.width,
            );
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

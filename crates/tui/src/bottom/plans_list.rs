//! The /plans list: stored plans, newest first; Enter shows one in the transcript.

use super::{View, ViewResult};
use crate::app_event::{AppEvent, AppEventSender};
use crate::strings;
use crate::theme;
use cairn_core::plans::PlanSummary;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use std::any::Any;

/// The list.
pub struct PlansListView {
    plans: Vec<PlanSummary>,
    skipped: usize,
    selected: usize,
}

impl PlansListView {
    /// A list of `plans`; `skipped` documents could not be read.
    pub fn new(plans: Vec<PlanSummary>, skipped: usize) -> Self {
        Self {
            plans,
            skipped,
            selected: 0,
        }
    }

    fn row(&self, index: usize, plan: &PlanSummary) -> Line<'static> {
        let selected = index == self.selected;
        let marker = if selected { "› " } else { "  " };
        let title_style = if selected {
            theme::selected()
        } else {
            Style::new()
        };
        Line::from(vec![
            Span::styled(marker, theme::selected()),
            Span::styled(plan.title.clone(), title_style),
            Span::styled(
                format!(
                    "  {} · {} · {}",
                    plan.status.as_str(),
                    strings::plan_progress(plan.done, plan.total),
                    plan.id
                ),
                theme::dim(),
            ),
        ])
    }
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
            buf.set_line(inner.x, y, &self.row(i, plan), inner.width);
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

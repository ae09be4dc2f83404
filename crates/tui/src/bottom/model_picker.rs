//! The model picker (`/model` without a name): the models the core listed, the current one
//! first and marked; typing filters, Enter switches, Esc closes with nothing changed.
//!
//! The list arrives as `models_listed` (the core asks the provider's server off its loop);
//! until then the picker says it is loading. A name nobody listed can still be typed: when
//! the filter matches nothing, Enter uses the typed text.

use super::picker::{self, FilteredList, ListKey};
use super::{View, ViewResult};
use crate::app_event::{AppEvent, AppEventSender};
use crate::slash::{SlashCommand, fuzzy_score};
use crate::strings;
use crate::theme;
use crate::wrap::{truncate_middle, truncate_with_ellipsis};
use cairn_protocol::ModelInfo;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Widget};
use std::any::Any;
use unicode_width::UnicodeWidthStr;

/// Rows inside the border besides the list: the filter and the footer.
const CHROME_ROWS: usize = 2;
/// Most list rows the picker asks for; more scroll.
const MAX_LIST_ROWS: usize = 12;

/// The picker.
pub struct ModelPickerView {
    /// The model the session uses (marked, and listed first).
    current: String,
    /// `None` until the core answered.
    models: Option<Vec<ModelInfo>>,
    /// Why the server's list is missing.
    error: Option<String>,
    /// The filter over `models` (matches best first).
    list: FilteredList,
    /// Width of the family column (the longest family listed), so the columns line up.
    family_width: usize,
}

impl ModelPickerView {
    /// A picker waiting for the core's list; `current` is the model in use.
    pub fn loading(current: &str) -> Self {
        Self {
            current: current.to_string(),
            models: None,
            error: None,
            list: FilteredList::default(),
            family_width: 0,
        }
    }

    /// The core's answer arrived: show `models` (the current one first, added if the core
    /// left it out) and `error`, if the server could not be asked.
    pub fn set_models(
        &mut self,
        current: String,
        mut models: Vec<ModelInfo>,
        error: Option<String>,
    ) {
        match models.iter().position(|m| m.id == current) {
            Some(0) => {}
            Some(at) => {
                let model = models.remove(at);
                models.insert(0, model);
            }
            None if current.is_empty() => {}
            None => models.insert(0, ModelInfo::new(current.clone())),
        }
        self.family_width = models
            .iter()
            .filter_map(|m| m.family.as_deref())
            .map(UnicodeWidthStr::width)
            .max()
            .unwrap_or(0);
        self.current = current;
        self.models = Some(models);
        self.error = error;
        self.refilter();
    }

    /// What Enter would switch to: the highlighted model, or the typed text when no listed
    /// model matches it.
    pub fn chosen(&self) -> Option<String> {
        if let Some(model) = self.highlighted() {
            return Some(model.id.clone());
        }
        let typed = self.list.query.trim();
        (!typed.is_empty()).then(|| typed.to_string())
    }

    fn highlighted(&self) -> Option<&ModelInfo> {
        self.models.as_ref()?.get(self.list.highlighted()?)
    }

    fn refilter(&mut self) {
        let query = self.list.query.trim();
        let mut scored: Vec<(i32, usize)> = self
            .models
            .iter()
            .flatten()
            .enumerate()
            .filter_map(|(i, m)| {
                let by_name = m
                    .display_name
                    .as_deref()
                    .and_then(|n| fuzzy_score(n, query));
                let score = fuzzy_score(&m.id, query).max(by_name)?;
                Some((score, i))
            })
            .collect();
        // Stable: with nothing typed (all scores equal) the core's order holds.
        scored.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
        self.list
            .set_matches(scored.into_iter().map(|(_, i)| i).collect());
    }

    /// Rows inside the border above the list: the filter, and the error when there is one.
    fn head_rows(&self) -> usize {
        1 + usize::from(self.error.is_some())
    }

    /// List rows that fit inside `inner`.
    fn visible(&self, inner: Rect) -> usize {
        usize::from(inner.height)
            .saturating_sub(self.head_rows() + 1)
            .max(1)
    }

    /// Rows the list part wants: the models, or one message (two when offering the typed
    /// text).
    fn list_rows(&self) -> usize {
        match &self.models {
            Some(_) if !self.list.matches.is_empty() => self.list.matches.len().min(MAX_LIST_ROWS),
            _ if self.list.query.trim().is_empty() => 1,
            _ => 2,
        }
    }

    fn block() -> Block<'static> {
        picker::block(strings::MODEL_PICKER_TITLE)
    }

    fn filter_line(&self, width: usize) -> Line<'static> {
        let count = match &self.models {
            Some(models) => strings::picker_count(self.list.matches.len(), models.len()),
            None => String::new(),
        };
        let query = &self.list.query;
        picker::filter_line(count, width, |room| {
            if query.is_empty() {
                let placeholder = Line::from(Span::styled(
                    strings::MODEL_PICKER_PLACEHOLDER,
                    theme::dim(),
                ));
                truncate_with_ellipsis(placeholder, room).spans
            } else {
                vec![Span::raw(truncate_middle(query, room))]
            }
        })
    }

    /// One model's row at `width`: the id on the left; on the right the current mark, the
    /// context window and the family. Details give way, least useful first, before the id is
    /// shortened.
    fn row(&self, model: &ModelInfo, selected: bool, width: usize) -> Line<'static> {
        let marker = if selected { "› " } else { "  " };
        let id_style = if selected {
            theme::selected()
        } else {
            Style::new()
        };
        let is_current = model.id == self.current;
        let current = is_current.then(|| {
            (
                strings::MODEL_PICKER_CURRENT.to_string(),
                theme::model_current(),
            )
        });
        let window = model
            .context_window
            .map(|n| (strings::context_size(n), theme::dim()));
        let family = model
            .family
            .as_deref()
            .map(|f| (format!("{f:<0$}", self.family_width), theme::dim()));
        // Richest first: the window goes first, then the family; the current mark stays.
        let choices = [
            vec![current.clone(), window, family.clone()],
            vec![current.clone(), family],
            vec![current],
        ];
        let details_width = |details: &[(String, Style)]| -> usize {
            details.iter().map(|(t, _)| t.width() + 2).sum()
        };
        let room = width.saturating_sub(marker.width());
        let mut details: Vec<(String, Style)> = Vec::new();
        for choice in choices {
            details = choice.into_iter().flatten().collect();
            if model.id.width() + details_width(&details) <= room {
                break;
            }
        }
        let right = details_width(&details);
        let id = truncate_middle(&model.id, room.saturating_sub(right));
        let mut spans = vec![
            Span::styled(marker, theme::selected()),
            Span::styled(id.clone(), id_style),
        ];
        let mut free = room.saturating_sub(id.width() + right);
        if let Some(name) = &model.display_name
            && free >= 8
        {
            let name = truncate_middle(name, free - 2);
            free -= name.width() + 2;
            spans.push(Span::styled(format!("  {name}"), theme::dim()));
        }
        spans.push(Span::raw(" ".repeat(free)));
        for (text, style) in details {
            spans.push(Span::raw("  "));
            spans.push(Span::styled(text, style));
        }
        truncate_with_ellipsis(Line::from(spans), width)
    }

    /// The rows shown instead of models: loading, nothing listed, or the typed text offered.
    fn message_lines(&self) -> Option<Vec<Line<'static>>> {
        let typed = self.list.query.trim();
        let offer = || {
            Line::from(vec![
                Span::styled("› ", theme::selected()),
                Span::styled(strings::model_picker_use_typed(typed), theme::selected()),
            ])
        };
        let message = |text: &str| Line::from(Span::styled(text.to_string(), theme::dim()));
        let lines = match &self.models {
            None if typed.is_empty() => vec![message(strings::MODEL_PICKER_LOADING)],
            None => vec![message(strings::MODEL_PICKER_LOADING), offer()],
            Some(_) if !self.list.matches.is_empty() => return None,
            Some(_) if typed.is_empty() => vec![message(strings::MODEL_PICKER_EMPTY)],
            Some(_) => vec![
                offer(),
                message(&format!("  {}", strings::MODEL_PICKER_NOT_LISTED)),
            ],
        };
        Some(lines)
    }
}

impl ModelPickerView {
    /// Keys the filter does not take: Enter switches, Esc closes.
    fn handle_own_key(&self, key: KeyEvent, tx: &AppEventSender) -> ViewResult {
        match key.code {
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                ViewResult::Ignored
            }
            KeyCode::Enter => {
                let Some(model) = self.chosen() else {
                    return ViewResult::Consumed;
                };
                // Choosing the model in use changes nothing: no op, no notice.
                if model != self.current {
                    // The same path as `/model <name>`, so both behave alike.
                    tx.send(AppEvent::RunCommand(SlashCommand::Model, model));
                }
                ViewResult::Close
            }
            KeyCode::Esc => ViewResult::Close,
            _ => ViewResult::Consumed,
        }
    }
}

impl View for ModelPickerView {
    fn handle_key(&mut self, key: KeyEvent, tx: &AppEventSender) -> ViewResult {
        match self.list.handle_key(key) {
            ListKey::QueryChanged => self.refilter(),
            ListKey::Handled => {}
            ListKey::Unhandled => return self.handle_own_key(key, tx),
        }
        ViewResult::Consumed
    }

    fn handle_paste(&mut self, text: &str) -> ViewResult {
        self.list
            .query
            .push_str(text.trim().lines().next().unwrap_or(""));
        self.refilter();
        ViewResult::Consumed
    }

    fn handle_scroll(&mut self, lines: i32) -> bool {
        self.list.move_by(lines.signum() as isize);
        true
    }

    fn prepare(&mut self, area: Rect) {
        let visible = self.visible(Self::block().inner(area));
        self.list.keep_in_view(visible);
    }

    fn desired_height(&self, _width: u16, max: u16) -> u16 {
        let rows = 2 + CHROME_ROWS + usize::from(self.error.is_some()) + self.list_rows();
        (rows as u16).min(max)
    }

    fn render(&self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let block = Self::block();
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height == 0 || inner.width == 0 {
            return;
        }
        let width = usize::from(inner.width);
        buf.set_line(inner.x, inner.y, &self.filter_line(width), inner.width);
        let footer_y = inner.y + inner.height - 1;
        if inner.height > 1 {
            let footer = truncate_with_ellipsis(
                Line::from(Span::styled(
                    strings::MODEL_PICKER_FOOTER,
                    theme::key_hint(),
                )),
                width,
            );
            buf.set_line(inner.x, footer_y, &footer, inner.width);
        }
        let mut y = inner.y + 1;
        if let Some(error) = &self.error
            && y < footer_y
        {
            let line = truncate_with_ellipsis(
                Line::from(Span::styled(
                    strings::model_picker_error(error),
                    theme::warning(),
                )),
                width,
            );
            buf.set_line(inner.x, y, &line, inner.width);
            y += 1;
        }
        if let Some(lines) = self.message_lines() {
            for line in lines {
                if y >= footer_y {
                    break;
                }
                buf.set_line(
                    inner.x,
                    y,
                    &truncate_with_ellipsis(line, width),
                    inner.width,
                );
                y += 1;
            }
            return;
        }
        let Some(models) = &self.models else {
            return;
        };
        // `prepare` keeps the selection in view; clamp again in case the area shrank since.
        let visible = self.visible(inner);
        let scroll = self.list.first_shown(visible);
        for (i, &index) in self.list.matches.iter().enumerate().skip(scroll) {
            if y >= footer_y {
                break;
            }
            let Some(model) = models.get(index) else {
                continue;
            };
            buf.set_line(
                inner.x,
                y,
                &self.row(model, i == self.list.selected, width),
                inner.width,
            );
            y += 1;
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

//! The model picker (`/model` without a name): the models the core listed, the current one
//! first and marked; typing filters, Enter switches, Esc closes with nothing changed.
//!
//! The list arrives as `models_listed` (the core asks the provider's server off its loop);
//! until then the picker says it is loading. A name nobody listed can still be typed: when
//! the filter matches nothing, Enter uses the typed text.

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
use ratatui::widgets::{Block, Borders, Clear, Widget};
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
    query: String,
    /// Indices into `models` matching `query`, best first.
    matches: Vec<usize>,
    /// Index into `matches`.
    selected: usize,
    /// First match shown.
    scroll: usize,
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
            query: String::new(),
            matches: Vec::new(),
            selected: 0,
            scroll: 0,
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
        let typed = self.query.trim();
        (!typed.is_empty()).then(|| typed.to_string())
    }

    fn highlighted(&self) -> Option<&ModelInfo> {
        let index = *self.matches.get(self.selected)?;
        self.models.as_ref()?.get(index)
    }

    fn refilter(&mut self) {
        let query = self.query.trim();
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
        self.matches = scored.into_iter().map(|(_, i)| i).collect();
        self.selected = 0;
        self.scroll = 0;
    }

    fn move_by(&mut self, delta: isize) {
        let last = self.matches.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
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
            Some(_) if !self.matches.is_empty() => self.matches.len().min(MAX_LIST_ROWS),
            _ if self.query.trim().is_empty() => 1,
            _ => 2,
        }
    }

    fn block() -> Block<'static> {
        Block::default()
            .borders(Borders::ALL)
            .border_style(theme::review_border())
            .title(Span::styled(
                format!(" {} ", strings::MODEL_PICKER_TITLE),
                theme::review_border().patch(theme::bold()),
            ))
    }

    fn filter_line(&self, width: usize) -> Line<'static> {
        let count = match &self.models {
            Some(models) => strings::picker_count(self.matches.len(), models.len()),
            None => String::new(),
        };
        let label = strings::PICKER_FILTER_LABEL;
        let mut spans = vec![Span::styled(label, theme::key_hint())];
        let room = width.saturating_sub(label.width() + count.width() + 2);
        if self.query.is_empty() {
            let placeholder = Line::from(Span::styled(
                strings::MODEL_PICKER_PLACEHOLDER,
                theme::dim(),
            ));
            spans.extend(truncate_with_ellipsis(placeholder, room).spans);
        } else {
            spans.push(Span::raw(truncate_middle(&self.query, room)));
        }
        let used: usize = spans.iter().map(|s| s.content.width()).sum();
        if !count.is_empty() && used + count.width() < width {
            spans.push(Span::raw(" ".repeat(width - used - count.width())));
            spans.push(Span::styled(count, theme::dim()));
        }
        Line::from(spans)
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
        let typed = self.query.trim();
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
            Some(_) if !self.matches.is_empty() => return None,
            Some(_) if typed.is_empty() => vec![message(strings::MODEL_PICKER_EMPTY)],
            Some(_) => vec![
                offer(),
                message(&format!("  {}", strings::MODEL_PICKER_NOT_LISTED)),
            ],
        };
        Some(lines)
    }
}

impl View for ModelPickerView {
    fn handle_key(&mut self, key: KeyEvent, tx: &AppEventSender) -> ViewResult {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => return ViewResult::Ignored,
            KeyCode::Char('u') if ctrl => {
                self.query.clear();
                self.refilter();
            }
            KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => {
                self.query.push(c);
                self.refilter();
            }
            KeyCode::Backspace if self.query.pop().is_some() => self.refilter(),
            KeyCode::Up => self.move_by(-1),
            KeyCode::Down => self.move_by(1),
            KeyCode::PageUp => self.move_by(-10),
            KeyCode::PageDown => self.move_by(10),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.move_by(isize::MAX),
            KeyCode::Enter => {
                let Some(model) = self.chosen() else {
                    return ViewResult::Consumed;
                };
                // Choosing the model in use changes nothing: no op, no notice.
                if model != self.current {
                    // The same path as `/model <name>`, so both behave alike.
                    tx.send(AppEvent::RunCommand(SlashCommand::Model, model));
                }
                return ViewResult::Close;
            }
            KeyCode::Esc => return ViewResult::Close,
            _ => {}
        }
        ViewResult::Consumed
    }

    fn handle_paste(&mut self, text: &str) -> ViewResult {
        self.query
            .push_str(text.trim().lines().next().unwrap_or(""));
        self.refilter();
        ViewResult::Consumed
    }

    fn handle_scroll(&mut self, lines: i32) -> bool {
        self.move_by(lines.signum() as isize);
        true
    }

    fn prepare(&mut self, area: Rect) {
        let visible = self.visible(Self::block().inner(area));
        if self.selected < self.scroll {
            self.scroll = self.selected;
        } else if self.selected >= self.scroll + visible {
            self.scroll = self.selected + 1 - visible;
        }
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
        let scroll = self
            .scroll
            .min(self.selected)
            .max((self.selected + 1).saturating_sub(visible));
        for (i, &index) in self.matches.iter().enumerate().skip(scroll) {
            if y >= footer_y {
                break;
            }
            let Some(model) = models.get(index) else {
                continue;
            };
            buf.set_line(
                inner.x,
                y,
                &self.row(model, i == self.selected, width),
                inner.width,
            );
            y += 1;
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

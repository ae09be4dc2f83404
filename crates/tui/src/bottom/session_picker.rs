//! The session picker (`cairn resume`, `/resume`): saved sessions, those of the working
//! directory first; typing filters by id, directory, prompt or model; Enter resumes one.
//!
//! The sessions arrive listed (the event loop reads the files off the render path); until
//! then the picker says it is loading. Everything shown is computed when they arrive, so a
//! frame only cuts rows to the width.

use super::picker::{self, FilteredList, ListKey};
use super::{View, ViewResult};
use crate::app_event::{AppEvent, AppEventSender};
use crate::strings;
use crate::theme;
use cairn_core::rollout::listing::SessionSummary;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Widget};
use std::any::Any;
use std::path::{Path, PathBuf};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// From this inner width on, a session takes one row (a table); below, two rows.
const WIDE: usize = 96;
/// Widest the directory column of the table gets.
const MAX_DIR_WIDTH: usize = 32;
/// Rows around the list: filter, blank, footer.
const CHROME_ROWS: usize = 3;

/// What the picker needs to know about where it runs.
#[derive(Debug, Clone, Default)]
pub struct PickerContext {
    /// The working directory: its sessions come first.
    pub here: Option<PathBuf>,
    /// The session open in this process: never offered.
    pub current: Option<String>,
    /// Now, seconds since the Unix epoch (for "5m ago").
    pub now: u64,
    /// The home directory, shown as `~`.
    pub home: Option<PathBuf>,
}

/// One session, with what its row shows.
struct Entry {
    summary: SessionSummary,
    age: String,
    dir: String,
    here: bool,
    /// Lowercase id, directory, prompt and model, for filtering.
    haystack: String,
}

/// The picker.
pub struct SessionPickerView {
    /// `None` while the listing runs.
    entries: Option<Vec<Entry>>,
    /// The filter over `entries`.
    list: FilteredList,
    /// Why the last choice could not be opened.
    error: Option<String>,
    /// Width of the table's directory column (the widest directory, within bounds), so the
    /// columns line up and do not move while filtering.
    dir_width: usize,
}

impl Default for SessionPickerView {
    fn default() -> Self {
        Self::loading()
    }
}

impl SessionPickerView {
    /// A picker waiting for the listing.
    pub fn loading() -> Self {
        Self {
            entries: None,
            list: FilteredList::default(),
            error: None,
            dir_width: 0,
        }
    }

    /// Show `error` above the list (a choice that could not be opened).
    pub fn set_error(&mut self, error: String) {
        self.error = Some(error);
    }

    /// The listed sessions arrived. Sessions with nothing to resume (no message, no plan)
    /// and the current one are left out; the working directory's come first, each group most
    /// recent first.
    pub fn set_sessions(&mut self, sessions: Vec<SessionSummary>, ctx: &PickerContext) {
        let mut entries: Vec<Entry> = sessions
            .into_iter()
            .filter(|s| ctx.current.as_deref() != Some(s.id.as_str()))
            .filter(|s| s.turns > 0 || s.first_prompt.is_some() || s.plan_status.is_some())
            .map(|summary| {
                let dir = display_dir(&summary.cwd, ctx.home.as_deref());
                let haystack = format!(
                    "{}\n{}\n{}\n{}",
                    summary.id,
                    summary.cwd.display(),
                    summary.first_prompt.as_deref().unwrap_or(""),
                    summary.model
                )
                .to_lowercase();
                Entry {
                    age: strings::age(ctx.now.saturating_sub(summary.updated_at)),
                    here: ctx.here.as_deref() == Some(summary.cwd.as_path()),
                    dir,
                    haystack,
                    summary,
                }
            })
            .collect();
        // Stable: the listing's recency order holds within each group.
        entries.sort_by_key(|e| !e.here);
        self.dir_width = entries
            .iter()
            .map(|e| e.dir.width())
            .max()
            .unwrap_or(0)
            .clamp(8, MAX_DIR_WIDTH);
        self.entries = Some(entries);
        self.refilter();
    }

    /// The highlighted session.
    pub fn selected(&self) -> Option<&SessionSummary> {
        let entries = self.entries.as_ref()?;
        entries.get(self.list.highlighted()?).map(|e| &e.summary)
    }

    /// The filter text.
    pub fn query(&self) -> &str {
        &self.list.query
    }

    fn refilter(&mut self) {
        let terms: Vec<String> = self
            .list
            .query
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let matches = self
            .entries
            .iter()
            .flatten()
            .enumerate()
            .filter(|(_, e)| terms.iter().all(|t| e.haystack.contains(t.as_str())))
            .map(|(i, _)| i)
            .collect();
        self.list.set_matches(matches);
    }

    /// Rows one session takes at `width`.
    fn rows_per_entry(width: usize) -> usize {
        if width >= WIDE { 1 } else { 2 }
    }

    /// Sessions that fit in `area` (inside the border).
    fn visible(inner: Rect) -> usize {
        let rows = usize::from(inner.height).saturating_sub(CHROME_ROWS);
        (rows / Self::rows_per_entry(usize::from(inner.width))).max(1)
    }

    fn block() -> Block<'static> {
        picker::block(strings::PICKER_TITLE)
    }

    fn filter_line(&self, width: usize) -> Line<'static> {
        let count = match &self.entries {
            Some(entries) => strings::picker_count(self.list.matches.len(), entries.len()),
            None => String::new(),
        };
        let query = &self.list.query;
        picker::filter_line(count, width, |room| {
            if query.is_empty() {
                vec![Span::styled(
                    ellipsize(strings::PICKER_PLACEHOLDER, room),
                    theme::dim(),
                )]
            } else {
                // The end of a long filter is what is being typed: keep it.
                vec![Span::raw(ellipsize_left(query, room))]
            }
        })
    }

    /// The rows of one session at `width`.
    fn entry_lines(&self, entry: &Entry, selected: bool, width: usize) -> Vec<Line<'static>> {
        let marker = if selected { "› " } else { "  " };
        let prompt_style = if selected {
            theme::selected()
        } else {
            Style::new()
        };
        let s = &entry.summary;
        let prompt = s
            .first_prompt
            .as_deref()
            .unwrap_or(strings::PICKER_NO_PROMPT)
            .replace(['\n', '\r'], " ");
        let mut details = Vec::new();
        if let Some(status) = &s.plan_status {
            details.push(status.clone());
        }
        details.push(strings::turns(s.turns));
        let meta = format!("{} · {}", s.model, details.join(" · "));
        let dir_style = if entry.here {
            theme::bold()
        } else {
            Style::new()
        };
        if width >= WIDE {
            let age = format!("{:>8}  ", entry.age);
            let dir = pad(
                &ellipsize_left(&entry.dir, self.dir_width),
                self.dir_width + 2,
            );
            let meta = format!("  {meta}");
            let fixed = marker.width() + age.width() + dir.width() + meta.width();
            let room = width.saturating_sub(fixed);
            let prompt = pad(&ellipsize(&prompt, room), room);
            return vec![Line::from(vec![
                Span::styled(marker, theme::selected()),
                Span::styled(age, theme::dim()),
                Span::styled(dir, dir_style),
                Span::styled(prompt, prompt_style),
                Span::styled(meta, theme::dim()),
            ])];
        }
        // Narrow: the model goes last, the first thing to be cut at the edge.
        let room = width.saturating_sub(2);
        let head = format!("{} · ", entry.age);
        details.push(s.model.clone());
        let tail = format!(" · {}", details.join(" · "));
        // The directory gives way, from its start, down to a third of the row.
        let dir_room = room
            .saturating_sub(head.width() + tail.width())
            .max(entry.dir.width().min((room / 3).max(16)));
        let details = ellipsize(
            &format!("{head}{}{tail}", ellipsize_left(&entry.dir, dir_room)),
            room,
        );
        vec![
            Line::from(vec![
                Span::styled(marker, theme::selected()),
                Span::styled(ellipsize(&prompt, room), prompt_style),
            ]),
            Line::from(vec![Span::raw("  "), Span::styled(details, theme::dim())]),
        ]
    }
}

impl SessionPickerView {
    /// Keys the filter does not take: Enter resumes, Esc closes.
    fn handle_own_key(&self, key: KeyEvent, tx: &AppEventSender) -> ViewResult {
        match key.code {
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                ViewResult::Ignored
            }
            KeyCode::Enter => match self.selected() {
                Some(summary) => {
                    tx.send(AppEvent::ResumeSession(summary.clone()));
                    ViewResult::Close
                }
                None => ViewResult::Consumed,
            },
            KeyCode::Esc => {
                tx.send(AppEvent::PickerDismissed);
                ViewResult::Close
            }
            _ => ViewResult::Consumed,
        }
    }
}

impl View for SessionPickerView {
    fn handle_key(&mut self, key: KeyEvent, tx: &AppEventSender) -> ViewResult {
        match self.list.handle_key(key) {
            ListKey::QueryChanged => self.refilter(),
            ListKey::Handled => {}
            ListKey::Unhandled => return self.handle_own_key(key, tx),
        }
        ViewResult::Consumed
    }

    fn handle_paste(&mut self, text: &str) -> ViewResult {
        self.list.query.push_str(&text.replace(['\n', '\r'], " "));
        self.refilter();
        ViewResult::Consumed
    }

    fn handle_scroll(&mut self, lines: i32) -> bool {
        self.list.move_by(lines.signum() as isize);
        true
    }

    fn prepare(&mut self, area: Rect) {
        self.list
            .keep_in_view(Self::visible(Self::block().inner(area)));
    }

    fn desired_height(&self, _width: u16, max: u16) -> u16 {
        max
    }

    fn fullscreen(&self) -> bool {
        true
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
            let footer = Line::from(Span::styled(
                ellipsize(strings::PICKER_FOOTER, width),
                theme::key_hint(),
            ));
            buf.set_line(inner.x, footer_y, &footer, inner.width);
        }
        let mut y = inner.y + 2;
        if let Some(error) = &self.error
            && y < footer_y
        {
            let line = Line::from(Span::styled(ellipsize(error, width), theme::error()));
            buf.set_line(inner.x, y, &line, inner.width);
            y += 2;
        }
        let message = match &self.entries {
            None => Some(strings::PICKER_LOADING.to_string()),
            Some(entries) if entries.is_empty() => Some(strings::PICKER_EMPTY.to_string()),
            Some(_) if self.list.matches.is_empty() => {
                Some(strings::picker_no_match(&self.list.query))
            }
            Some(_) => None,
        };
        if let Some(message) = message {
            if y < footer_y {
                let line = Line::from(Span::styled(ellipsize(&message, width), theme::dim()));
                buf.set_line(inner.x, y, &line, inner.width);
            }
            return;
        }
        let Some(entries) = &self.entries else {
            return;
        };
        // `prepare` keeps the selection in view; clamp again in case the area shrank since.
        let visible = Self::visible(inner);
        let scroll = self.list.first_shown(visible);
        for (i, &index) in self.list.matches.iter().enumerate().skip(scroll) {
            let Some(entry) = entries.get(index) else {
                continue;
            };
            let lines = self.entry_lines(entry, i == self.list.selected, width);
            if y + lines.len() as u16 > footer_y {
                break;
            }
            for line in &lines {
                buf.set_line(inner.x, y, line, inner.width);
                y += 1;
            }
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// `~/src/cairn` for a directory under the home directory.
fn display_dir(dir: &Path, home: Option<&Path>) -> String {
    if let Some(home) = home
        && let Ok(rest) = dir.strip_prefix(home)
        && !home.as_os_str().is_empty()
    {
        if rest.as_os_str().is_empty() {
            return "~".to_string();
        }
        return format!("~/{}", rest.display());
    }
    dir.display().to_string()
}

/// `text` cut to `width` columns, ending in `…` when cut.
fn ellipsize(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
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
    out.push('…');
    out
}

/// `text` cut to `width` columns from the start, beginning with `…` when cut (paths: the
/// end names the directory).
fn ellipsize_left(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut kept = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        kept.push(c);
    }
    let kept: String = kept.into_iter().rev().collect();
    // Cut a path between its components when one boundary is left: `…/payments-api`.
    let kept = match kept.find('/') {
        Some(at) if at > 0 && at + 1 < kept.len() => &kept[at..],
        _ => kept.as_str(),
    };
    format!("…{kept}")
}

/// `text` padded with spaces to `width` columns.
fn pad(text: &str, width: usize) -> String {
    let w = text.width();
    format!("{text}{}", " ".repeat(width.saturating_sub(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ellipsis_keeps_the_width() {
        assert_eq!(ellipsize("hello world", 6), "hello…");
        assert_eq!(ellipsize("hello", 6), "hello");
        assert_eq!(ellipsize_left("/home/me/src/cairn", 8), "…/cairn");
        assert_eq!(ellipsize_left("/home/me/src/cairn", 11), "…/src/cairn");
        assert_eq!(ellipsize_left("/srv/long-service-name", 8), "…ce-name");
        assert_eq!(ellipsize_left("/a", 8), "/a");
    }

    #[test]
    fn home_is_shown_as_a_tilde() {
        let home = Path::new("/home/me");
        assert_eq!(
            display_dir(Path::new("/home/me/src/x"), Some(home)),
            "~/src/x"
        );
        assert_eq!(display_dir(Path::new("/home/me"), Some(home)), "~");
        assert_eq!(display_dir(Path::new("/srv/x"), Some(home)), "/srv/x");
    }
}

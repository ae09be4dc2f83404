//! The status line: mode badge, "Working" with a spinner, token use, provider/model.

use crate::strings;
use crate::theme;
use crate::wrap::spans_width;
use cairn_protocol::TokenUsage;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Spinner frames, one per 80 ms.
pub const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// Time per spinner frame.
pub const SPINNER_FRAME_MS: u128 = 80;

/// Everything the status line shows.
#[derive(Debug, Clone, Default)]
pub struct StatusLine<'a> {
    /// Plan mode on.
    pub plan_mode: bool,
    /// Seconds since the task started and the spinner frame, while a task runs.
    pub working: Option<(u64, usize)>,
    /// A second Ctrl+C would quit.
    pub ctrl_c_armed: bool,
    /// A retry message from the core.
    pub retry: Option<&'a str>,
    /// Token use.
    pub tokens: Option<TokenUsage>,
    /// Provider key.
    pub provider: Option<&'a str>,
    /// False until the session said what it runs with; nothing is claimed before that (a
    /// first frame must not say "no provider" for a configured one).
    pub configured: bool,
    /// Model name.
    pub model: &'a str,
}

/// A retry message cut to `room` columns: the error's words give way first, so
/// "Reconnecting... n/m" (how far the retries are) stays visible.
fn fit_retry(retry: &str, room: usize) -> String {
    if retry.width() <= room {
        return retry.to_string();
    }
    let Some(at) = retry.find("Reconnecting") else {
        return truncate(retry, room);
    };
    let tail = &retry[at..];
    let tail_width = tail.width();
    if tail_width + 2 > room {
        return truncate(tail, room);
    }
    let head = truncate(retry[..at].trim_end(), room - tail_width - 1);
    format!("{head} {tail}")
}

/// `text` cut to `width` columns, ending in `…` when cut.
fn truncate(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
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

impl StatusLine<'_> {
    /// Draw into one row.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 {
            return;
        }
        let (badge, badge_style) = if self.plan_mode {
            (strings::BADGE_PLAN_MODE, theme::badge_plan_mode())
        } else {
            (strings::BADGE_NORMAL, theme::badge_normal())
        };
        let mut left = vec![Span::styled(badge, badge_style), Span::raw(" ")];
        let mut short_left = None;
        // One message at a time, most urgent first: the quit hint, a retry, then "Working".
        if self.ctrl_c_armed {
            left.push(Span::styled(strings::CTRL_C_AGAIN, theme::warning()));
        } else if let Some((secs, frame)) = self.working {
            left.push(Span::styled(
                format!("{} ", SPINNER[frame % SPINNER.len()]),
                theme::working(),
            ));
            match self.retry {
                Some(retry) => {
                    let room = usize::from(area.width).saturating_sub(spans_width(&left) + 1);
                    left.push(Span::styled(fit_retry(retry, room), theme::warning()));
                }
                None => {
                    let mut short = left.clone();
                    short.push(Span::styled(strings::working_short(secs), theme::working()));
                    short_left = Some(short);
                    left.push(Span::styled(strings::working(secs), theme::working()));
                }
            }
        } else if let Some(retry) = self.retry {
            let room = usize::from(area.width).saturating_sub(spans_width(&left) + 1);
            left.push(Span::styled(fit_retry(retry, room), theme::warning()));
        }

        // The right side gives way as the terminal narrows: first the token total, then the
        // provider and model, then words; the context left stays as long as anything does.
        let rights = self.right_sides();
        let width = usize::from(area.width);
        let fits = |l: &[Span<'_>], r: &[Span<'_>]| {
            r.is_empty() || spans_width(l) + spans_width(r) < width
        };
        let keeps_tokens = |r: &&Vec<Span<'static>>| self.tokens.is_none() || !r.is_empty();
        let empty = Vec::new();
        let (left, right) = rights
            .iter()
            .filter(keeps_tokens)
            .find(|r| fits(&left, r) && spans_width(&left) <= width)
            .map(|r| (&left, r))
            .or_else(|| {
                let short = short_left.as_ref()?;
                rights.iter().find(|r| fits(short, r)).map(|r| (short, r))
            })
            .unwrap_or((&left, &empty));

        buf.set_line(area.x, area.y, &Line::from(left.clone()), area.width);
        if !right.is_empty() {
            let right_width = spans_width(right);
            let x = area.x + area.width - right_width as u16;
            buf.set_line(x, area.y, &Line::from(right.clone()), right_width as u16);
        }
    }

    /// The right side, from the fullest to nothing.
    fn right_sides(&self) -> Vec<Vec<Span<'static>>> {
        let dim = |text: String| Span::styled(text, theme::dim());
        let model = self.configured.then(|| {
            let provider = self.provider.unwrap_or(strings::NO_PROVIDER);
            format!("{provider}/{}", self.model)
        });
        let with_model = |mut spans: Vec<Span<'static>>| {
            if let Some(model) = &model {
                spans.push(dim(" · ".to_string()));
                spans.push(dim(model.clone()));
            }
            spans.push(Span::raw(" "));
            spans
        };
        let mut sides = Vec::new();
        match self.tokens {
            Some(tokens) => {
                let total = strings::compact_count(tokens.total_tokens);
                let left = tokens
                    .context_window
                    .filter(|w| *w > 0)
                    .map(|w| (tokens.input_tokens + tokens.output_tokens) * 100 / w)
                    .map(|used| 100u64.saturating_sub(used));
                match left {
                    Some(left) => {
                        let context = strings::context_left(left);
                        sides.push(with_model(vec![
                            dim(strings::tokens_total(&total)),
                            dim(" · ".to_string()),
                            dim(context.clone()),
                        ]));
                        sides.push(with_model(vec![dim(context.clone())]));
                        sides.push(vec![dim(context), Span::raw(" ")]);
                        sides.push(vec![dim(strings::context_left_short(left)), Span::raw(" ")]);
                    }
                    None => {
                        sides.push(with_model(vec![dim(strings::tokens_total(&total))]));
                        sides.push(vec![dim(strings::tokens_total(&total)), Span::raw(" ")]);
                    }
                }
            }
            None => {
                if let Some(model) = &model {
                    sides.push(vec![dim(model.clone()), Span::raw(" ")]);
                }
            }
        }
        sides.push(Vec::new());
        sides
    }
}

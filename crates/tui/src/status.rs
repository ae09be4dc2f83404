//! The status line: mode badge, "Working" with a spinner, token use, provider/model.

use crate::strings;
use crate::theme;
use crate::wrap::spans_width;
use cairn_protocol::TokenUsage;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

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
        // One message at a time, most urgent first: the quit hint, a retry, then "Working".
        if self.ctrl_c_armed {
            left.push(Span::styled(strings::CTRL_C_AGAIN, theme::warning()));
        } else if let Some((secs, frame)) = self.working {
            left.push(Span::styled(
                format!("{} ", SPINNER[frame % SPINNER.len()]),
                theme::working(),
            ));
            match self.retry {
                Some(retry) => left.push(Span::styled(retry.to_string(), theme::warning())),
                None => left.push(Span::styled(strings::working(secs), theme::working())),
            }
        } else if let Some(retry) = self.retry {
            left.push(Span::styled(retry.to_string(), theme::warning()));
        }

        let mut right = Vec::new();
        if let Some(tokens) = self.tokens {
            let percent = tokens
                .context_window
                .filter(|w| *w > 0)
                .map(|w| (tokens.input_tokens + tokens.output_tokens) * 100 / w);
            right.push(Span::styled(
                strings::tokens(tokens.total_tokens, percent),
                theme::dim(),
            ));
            right.push(Span::styled(" · ", theme::dim()));
        }
        if self.configured {
            let provider = self.provider.unwrap_or(strings::NO_PROVIDER);
            right.push(Span::styled(
                format!("{provider}/{}", self.model),
                theme::dim(),
            ));
            right.push(Span::raw(" "));
        }

        let left_width = spans_width(&left);
        let right_width = spans_width(&right);
        buf.set_line(area.x, area.y, &Line::from(left), area.width);
        if left_width + right_width < usize::from(area.width) {
            let x = area.x + area.width - right_width as u16;
            buf.set_line(x, area.y, &Line::from(right), right_width as u16);
        }
    }
}

//! Every colour and text style of the TUI, in one place (gitui's `ui/style.rs`).

use ratatui::style::{Color, Modifier, Style};

/// Dim text (secondary information).
pub fn dim() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

/// Bold text.
pub fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

/// The user's own messages.
pub fn user_message() -> Style {
    Style::new().fg(Color::Cyan)
}

/// The `›` before user messages and in the composer.
pub fn prompt_glyph() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

/// The bullet in front of a cell.
pub fn bullet() -> Style {
    dim()
}

/// A successful tool call's bullet.
pub fn success() -> Style {
    Style::new().fg(Color::Green)
}

/// A failed tool call, an error cell.
pub fn error() -> Style {
    Style::new().fg(Color::Red)
}

/// Warnings and retry messages.
pub fn warning() -> Style {
    Style::new().fg(Color::Yellow)
}

/// Notices.
pub fn notice() -> Style {
    Style::new().fg(Color::Magenta)
}

/// Tool names.
pub fn tool_name() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

/// Reasoning text.
pub fn reasoning() -> Style {
    Style::new().add_modifier(Modifier::DIM | Modifier::ITALIC)
}

/// Plan step: completed (dim, crossed out).
pub fn step_completed() -> Style {
    Style::new().add_modifier(Modifier::DIM | Modifier::CROSSED_OUT)
}

/// Plan step: in progress (cyan, bold).
pub fn step_in_progress() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

/// Plan step: pending (dim).
pub fn step_pending() -> Style {
    dim()
}

/// Plan step: failed.
pub fn step_failed() -> Style {
    Style::new().fg(Color::Red)
}

/// Plan step: skipped.
pub fn step_skipped() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

/// Verification mark on a structured step.
pub fn verification() -> Style {
    Style::new().fg(Color::Magenta)
}

/// Plan explanation.
pub fn plan_explanation() -> Style {
    Style::new().add_modifier(Modifier::DIM | Modifier::ITALIC)
}

/// ` NORMAL ` badge: black on green.
pub fn badge_normal() -> Style {
    Style::new().fg(Color::Black).bg(Color::Green)
}

/// ` PLAN MODE ` badge: black on yellow.
pub fn badge_plan_mode() -> Style {
    Style::new().fg(Color::Black).bg(Color::Yellow)
}

/// The plan-mode hint above the composer.
pub fn plan_mode_hint() -> Style {
    Style::new().fg(Color::Yellow)
}

/// The spinner and "Working" text.
pub fn working() -> Style {
    Style::new().fg(Color::Cyan)
}

/// Overlay borders (approval, question).
pub fn overlay_border() -> Style {
    Style::new().fg(Color::Yellow)
}

/// Plan review border (cyan, spec §7.3).
pub fn review_border() -> Style {
    Style::new().fg(Color::Cyan)
}

/// Key hints in footers.
pub fn key_hint() -> Style {
    Style::new().fg(Color::DarkGray)
}

/// The selected row of a popup.
pub fn selected() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

/// The letters of a path that the `@` file query matched.
pub fn file_match() -> Style {
    Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
}

/// The model picker's mark of the model in use.
pub fn model_current() -> Style {
    Style::new().fg(Color::Green)
}

/// Diff: added line.
pub fn diff_added() -> Style {
    Style::new().fg(Color::Green)
}

/// Diff: removed line.
pub fn diff_removed() -> Style {
    Style::new().fg(Color::Red)
}

/// Diff: hunk header.
pub fn diff_hunk() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::DIM)
}

/// Diff: file header.
pub fn diff_header() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

/// Markdown: inline code.
pub fn inline_code() -> Style {
    Style::new().fg(Color::Cyan)
}

/// Markdown: code block text without highlighting.
pub fn code_block() -> Style {
    Style::new().fg(Color::Gray)
}

/// Markdown: link text.
pub fn link() -> Style {
    Style::new()
        .fg(Color::Cyan)
        .add_modifier(Modifier::UNDERLINED)
}

/// Markdown: link target.
pub fn link_url() -> Style {
    Style::new().fg(Color::Blue).add_modifier(Modifier::DIM)
}

/// Markdown: heading of a level.
pub fn heading(level: u8) -> Style {
    match level {
        1 => Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        2 => Style::new().add_modifier(Modifier::BOLD),
        _ => Style::new().add_modifier(Modifier::BOLD | Modifier::ITALIC),
    }
}

/// Markdown: block quote marker and text.
pub fn block_quote() -> Style {
    Style::new().fg(Color::Green)
}

/// Markdown: list markers.
pub fn list_marker() -> Style {
    Style::new().fg(Color::LightBlue)
}

/// Markdown: horizontal rule.
pub fn rule() -> Style {
    dim()
}

/// Markdown: emphasis.
pub fn emphasis() -> Style {
    Style::new().add_modifier(Modifier::ITALIC)
}

/// Markdown: strong emphasis.
pub fn strong() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

/// Markdown: strikethrough.
pub fn strikethrough() -> Style {
    Style::new().add_modifier(Modifier::CROSSED_OUT)
}

/// A highlighted code token (colour from the syntect theme).
pub fn syntax(r: u8, g: u8, b: u8) -> Style {
    Style::new().fg(Color::Rgb(r, g, b))
}

/// A status glyph keeps its step's colour but is never crossed out.
pub fn glyph(step: Style) -> Style {
    step.remove_modifier(Modifier::CROSSED_OUT)
}

/// Name of the syntect theme used for code blocks.
pub const SYNTAX_THEME: &str = "base16-ocean.dark";

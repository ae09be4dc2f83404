//! Word wrapping of styled text.
//!
//! History cells wrap their lines once per width and cache the result, so this runs when a
//! cell changes or the terminal is resized, never per frame.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Display width of a line.
pub fn line_width(line: &Line<'_>) -> usize {
    line.spans.iter().map(|s| s.content.width()).sum()
}

/// Display width of a list of spans.
pub fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| s.content.width()).sum()
}

/// Wrap `spans` (one logical line, no newlines) to `width` columns. The first output line
/// starts with `first_prefix`, the following ones with `rest_prefix`.
pub fn wrap_spans(
    spans: &[Span<'_>],
    width: usize,
    first_prefix: &[Span<'static>],
    rest_prefix: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut out = LineBuilder::new(width, first_prefix, rest_prefix);
    for span in spans {
        let text = expand_tabs(&span.content);
        let mut start = 0;
        let mut in_space: Option<bool> = None;
        for (i, c) in text.char_indices() {
            let space = c == ' ';
            if in_space.is_some_and(|prev| prev != space) {
                out.push_token(&text[start..i], span.style, in_space == Some(true));
                start = i;
            }
            in_space = Some(space);
        }
        if start < text.len() {
            out.push_token(&text[start..], span.style, in_space == Some(true));
        }
    }
    out.finish()
}

/// Wrap plain text that may contain newlines, with one style.
pub fn wrap_text(
    text: &str,
    style: Style,
    width: usize,
    first_prefix: &[Span<'static>],
    rest_prefix: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let first = if i == 0 { first_prefix } else { rest_prefix };
        lines.extend(wrap_spans(
            &[Span::styled(raw.to_string(), style)],
            width,
            first,
            rest_prefix,
        ));
    }
    lines
}

/// Cut a line to `width` columns (no wrapping), for code and previews.
pub fn truncate_line(line: Line<'static>, width: usize) -> Line<'static> {
    if line_width(&line) <= width {
        return line;
    }
    let mut used = 0;
    let mut spans = Vec::new();
    for span in line.spans {
        let w = span.content.width();
        if used + w <= width {
            used += w;
            spans.push(span);
            continue;
        }
        let mut cut = String::new();
        for c in span.content.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > width {
                break;
            }
            used += cw;
            cut.push(c);
        }
        spans.push(Span::styled(cut, span.style));
        break;
    }
    Line::from(spans).style(line.style)
}

/// Cut a line to `width` columns, ending with `…` when something was cut (one-line rows
/// whose end may matter: the delegate tree, the delegation cell).
pub fn truncate_with_ellipsis(line: Line<'static>, width: usize) -> Line<'static> {
    if line_width(&line) <= width || width == 0 {
        return truncate_line(line, width);
    }
    let mut cut = truncate_line(line, width - 1);
    let style = cut.spans.last().map(|s| s.style).unwrap_or_default();
    cut.spans.push(Span::styled("…", style));
    cut
}

/// `text` cut to `width` columns by replacing its middle with `…`, keeping both ends (file
/// names: the start says what, the end says when and which kind).
pub fn truncate_middle(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let room = width.saturating_sub(1);
    let tail_room = room / 2 + room % 2;
    let head_room = room - tail_room;
    let take = |chars: &mut dyn Iterator<Item = char>, room: usize| {
        let mut used = 0;
        let mut out = Vec::new();
        for c in chars {
            let w = c.width().unwrap_or(0);
            if used + w > room {
                break;
            }
            used += w;
            out.push(c);
        }
        out
    };
    let head = take(&mut text.chars(), head_room);
    let mut tail = take(&mut text.chars().rev(), tail_room);
    tail.reverse();
    let mut out: String = head.into_iter().collect();
    out.push('…');
    out.extend(tail);
    out
}

fn expand_tabs(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\t') || text.contains('\r') {
        std::borrow::Cow::Owned(text.replace('\t', "    ").replace('\r', ""))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

struct LineBuilder<'p> {
    lines: Vec<Line<'static>>,
    current: Vec<Span<'static>>,
    used: usize,
    avail_first: usize,
    avail_rest: usize,
    rest_prefix: &'p [Span<'static>],
    /// True once the current line is a continuation of a wrapped one.
    continued: bool,
    /// Number of prefix spans at the start of `current` (never merged into).
    prefix_len: usize,
    /// Spaces waiting for the word after them.
    pending: Vec<(String, Style)>,
}

impl<'p> LineBuilder<'p> {
    fn new(width: usize, first_prefix: &[Span<'static>], rest_prefix: &'p [Span<'static>]) -> Self {
        let avail_first = width.saturating_sub(spans_width(first_prefix)).max(1);
        let avail_rest = width.saturating_sub(spans_width(rest_prefix)).max(1);
        Self {
            lines: Vec::new(),
            current: first_prefix.to_vec(),
            used: 0,
            avail_first,
            avail_rest,
            rest_prefix,
            continued: false,
            prefix_len: first_prefix.len(),
            pending: Vec::new(),
        }
    }

    fn avail(&self) -> usize {
        if self.lines.is_empty() {
            self.avail_first
        } else {
            self.avail_rest
        }
    }

    fn break_line(&mut self) {
        let line = std::mem::replace(&mut self.current, self.rest_prefix.to_vec());
        self.lines.push(Line::from(line));
        self.used = 0;
        self.continued = true;
        self.prefix_len = self.rest_prefix.len();
    }

    fn append(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        self.used += text.width();
        // Merge with the previous span of the same style: fewer spans, cheaper frames.
        let mergeable = self.current.len() > self.prefix_len;
        if let Some(last) = self.current.last_mut()
            && mergeable
            && last.style == style
        {
            last.content.to_mut().push_str(text);
            return;
        }
        self.current.push(Span::styled(text.to_string(), style));
    }

    fn push_token(&mut self, token: &str, style: Style, is_space: bool) {
        if is_space {
            // Spaces wait for the next word: none at the end of a wrapped line, none at the
            // start of a continuation line.
            if !(self.used == 0 && self.continued) {
                self.pending.push((token.to_string(), style));
            }
            return;
        }
        let w = token.width();
        let pending_w: usize = self.pending.iter().map(|(t, _)| t.width()).sum();
        if self.used + pending_w + w <= self.avail() {
            self.flush_pending();
            self.append(token, style);
            return;
        }
        if w <= self.avail_rest && self.used + pending_w > 0 {
            self.pending.clear();
            self.break_line();
            self.append(token, style);
            return;
        }
        if self.used + pending_w < self.avail() {
            self.flush_pending();
        } else {
            self.pending.clear();
        }
        // A word longer than a line: break it by characters.
        let mut chunk = String::new();
        for c in token.chars() {
            let cw = c.width().unwrap_or(0);
            if self.used + chunk.width() + cw > self.avail() {
                let piece = std::mem::take(&mut chunk);
                self.append(&piece, style);
                self.break_line();
            }
            chunk.push(c);
        }
        self.append(&chunk, style);
    }

    fn flush_pending(&mut self) {
        for (text, style) in std::mem::take(&mut self.pending) {
            self.append(&text, style);
        }
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        let line = std::mem::take(&mut self.current);
        self.lines.push(Line::from(line));
        self.lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn wraps_at_word_boundaries_with_prefixes() {
        let lines = wrap_text(
            "the quick brown fox jumps",
            Style::new(),
            12,
            &[Span::raw("- ")],
            &[Span::raw("  ")],
        );
        assert_eq!(texts(&lines), vec!["- the quick", "  brown fox", "  jumps"]);
    }

    #[test]
    fn breaks_words_longer_than_the_width() {
        let lines = wrap_text("abcdefghij", Style::new(), 4, &[], &[]);
        assert_eq!(texts(&lines), vec!["abcd", "efgh", "ij"]);
    }

    #[test]
    fn keeps_empty_lines_and_wide_characters() {
        let lines = wrap_text("a\n\n日本語です", Style::new(), 4, &[], &[]);
        assert_eq!(texts(&lines), vec!["a", "", "日本", "語で", "す"]);
        for line in &lines {
            assert!(line_width(line) <= 4);
        }
    }

    #[test]
    fn truncates_wide_characters_with_an_ellipsis() {
        let line = truncate_with_ellipsis(Line::from("日本語のテキスト"), 7);
        assert_eq!(texts(std::slice::from_ref(&line)), vec!["日本語…"]);
        assert!(line_width(&line) <= 7);
        let short = truncate_with_ellipsis(Line::from("abc"), 7);
        assert_eq!(texts(&[short]), vec!["abc"]);
    }

    #[test]
    fn truncates_in_the_middle_keeping_both_ends() {
        assert_eq!(
            truncate_middle("conv-1_20261122_030405.md", 22),
            "conv-1_202…2_030405.md"
        );
        assert_eq!(truncate_middle("short.md", 22), "short.md");
        let cut = truncate_middle("日本語のファイル名.md", 9);
        assert!(cut.width() <= 9, "{cut}");
        assert!(cut.ends_with(".md") && cut.starts_with("日本"), "{cut}");
    }

    #[test]
    fn truncates_to_width() {
        let line = truncate_line(Line::from("hello world"), 5);
        assert_eq!(texts(&[line]), vec!["hello"]);
    }
}

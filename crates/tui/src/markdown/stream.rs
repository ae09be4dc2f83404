//! A Markdown message that arrives in pieces.
//!
//! Only complete lines are rendered while the message streams: the text after the last
//! newline waits until its line is finished, so the screen never shows Markdown that changes
//! meaning one delta later.

use super::highlight::HighlightCache;
use super::render;
use ratatui::text::Line;

/// The source of one assistant message and its rendering state.
#[derive(Debug, Default)]
pub struct StreamingMarkdown {
    source: String,
    complete: bool,
    cache: HighlightCache,
}

impl StreamingMarkdown {
    /// An empty, still streaming message.
    pub fn new() -> Self {
        Self::default()
    }

    /// A complete message.
    pub fn complete(text: &str) -> Self {
        Self {
            source: text.to_string(),
            complete: true,
            cache: HighlightCache::default(),
        }
    }

    /// Append a delta. Returns true when the renderable part changed (a line was completed).
    pub fn push(&mut self, delta: &str) -> bool {
        self.source.push_str(delta);
        delta.contains('\n')
    }

    /// Replace the text with the final message and stop streaming.
    pub fn finish(&mut self, text: Option<&str>) {
        if let Some(text) = text {
            self.source.clear();
            self.source.push_str(text);
        }
        self.complete = true;
    }

    /// True once the whole message arrived.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Everything received so far.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The part that is rendered now: everything when complete, else the complete lines,
    /// less a table row that may still become a table's header.
    pub fn renderable(&self) -> &str {
        if self.complete {
            &self.source
        } else {
            &self.source[..stable_end(&self.source)]
        }
    }

    /// Render the renderable part at `width`.
    pub fn render(&mut self, width: usize) -> Vec<Line<'static>> {
        let complete = self.complete;
        let src = if complete {
            self.source.as_str()
        } else {
            &self.source[..stable_end(&self.source)]
        };
        if src.trim().is_empty() {
            return Vec::new();
        }
        render(src, width, complete, &mut self.cache)
    }
}

/// Where the stable part of a streaming message ends: after its last newline, except that a
/// last line starting with `|` after a line that does not is held back, because the next line
/// decides whether it is a paragraph or a table's header (shown as text, then as a table).
fn stable_end(source: &str) -> usize {
    let Some(last_newline) = source.rfind('\n') else {
        return 0;
    };
    let complete = &source[..last_newline];
    let line_start = complete.rfind('\n').map_or(0, |i| i + 1);
    let is_row = |line: &str| line.trim_start().starts_with('|');
    if is_row(&complete[line_start..]) {
        let before = &complete[..line_start.saturating_sub(1)];
        let previous = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
        if line_start == 0 || !is_row(previous) {
            return line_start;
        }
    }
    last_newline + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::plain;

    #[test]
    fn only_complete_lines_render_while_streaming() {
        let mut md = StreamingMarkdown::new();
        assert!(!md.push("Hello **wor"));
        assert!(md.render(40).is_empty());
        assert!(md.push("ld**\nand more"));
        assert_eq!(plain(&md.render(40)), vec!["Hello world"]);
        md.finish(None);
        assert_eq!(plain(&md.render(40)), vec!["Hello world and more"]);
    }

    #[test]
    fn final_message_replaces_the_streamed_text() {
        let mut md = StreamingMarkdown::new();
        md.push("partial\n");
        md.finish(Some("the whole answer"));
        assert_eq!(plain(&md.render(40)), vec!["the whole answer"]);
    }

    #[test]
    fn a_table_header_waits_for_its_delimiter_row() {
        let mut md = StreamingMarkdown::new();
        md.push("Results:\n\n| name | value |\n");
        assert_eq!(
            plain(&md.render(40)),
            vec!["Results:"],
            "not shown as text first"
        );
        md.push("|---|---|\n");
        let table = plain(&md.render(40));
        assert_eq!(table, vec!["Results:", "", "name │ value", "─────┼──────"]);
        md.push("| a | 1 |\n");
        assert_eq!(
            plain(&md.render(40)),
            vec!["Results:", "", "name │ value", "─────┼──────", "a    │ 1"],
            "body rows show as they arrive"
        );
        md.push("\nDone.");
        md.finish(None);
        assert_eq!(plain(&md.render(40)).last().unwrap(), "Done.");
    }
}

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

    /// The part that is rendered now: everything when complete, else up to the last newline.
    pub fn renderable(&self) -> &str {
        if self.complete {
            &self.source
        } else {
            match self.source.rfind('\n') {
                Some(i) => &self.source[..=i],
                None => "",
            }
        }
    }

    /// Render the renderable part at `width`.
    pub fn render(&mut self, width: usize) -> Vec<Line<'static>> {
        let complete = self.complete;
        let src = if complete {
            self.source.as_str()
        } else {
            match self.source.rfind('\n') {
                Some(i) => &self.source[..=i],
                None => "",
            }
        };
        if src.trim().is_empty() {
            return Vec::new();
        }
        render(src, width, complete, &mut self.cache)
    }
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
}

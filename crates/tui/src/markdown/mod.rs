//! Markdown to styled, wrapped lines (pulldown-cmark).
//!
//! [`render`] turns a document into lines for one width. [`stream::StreamingMarkdown`] feeds it
//! only the complete lines of a message that is still arriving, so a half-written construct
//! (an unfinished `**bold` or table row) never flickers on screen.

pub mod highlight;
pub mod stream;
mod table;

use crate::strings;
use crate::theme;
use crate::wrap::{spans_width, wrap_spans};
use highlight::HighlightCache;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use table::Table;

/// Render `src` at `width` columns. `complete` is false while the message still streams: a
/// code block that reaches the end of `src` may still be open and is shown unhighlighted.
pub fn render(
    src: &str,
    width: usize,
    complete: bool,
    cache: &mut HighlightCache,
) -> Vec<Line<'static>> {
    let mut renderer = Renderer {
        width: width.max(4),
        out: Vec::new(),
        inline: Vec::new(),
        styles: vec![Style::new()],
        containers: Vec::new(),
        lists: Vec::new(),
        pending_blank: false,
        code: None,
        links: Vec::new(),
        cache,
        table: None,
    };
    let options =
        Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS;
    for (event, range) in Parser::new_ext(src, options).into_offset_iter() {
        renderer.event(event, !complete && range.end >= src.trim_end().len());
    }
    renderer.flush_inline();
    renderer.out
}

enum Container {
    Quote,
    Item { marker: Span<'static>, used: bool },
}

struct CodeBlock {
    lang: String,
    text: String,
    maybe_open: bool,
}

struct Renderer<'c> {
    width: usize,
    out: Vec<Line<'static>>,
    inline: Vec<Span<'static>>,
    styles: Vec<Style>,
    containers: Vec<Container>,
    /// Next number of each open list (`None` for bullets).
    lists: Vec<Option<u64>>,
    pending_blank: bool,
    code: Option<CodeBlock>,
    /// Open links: destination and the index of the first span of their text.
    links: Vec<(String, usize)>,
    cache: &'c mut HighlightCache,
    /// The table being collected; it is laid out when it ends.
    table: Option<Table>,
}

impl Renderer<'_> {
    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, add: Style) {
        let next = self.style().patch(add);
        self.styles.push(next);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn event(&mut self, event: Event<'_>, at_end: bool) {
        match event {
            Event::Start(tag) => self.start(tag, at_end),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => {
                if let Some(code) = &mut self.code {
                    code.text.push_str(&text);
                } else {
                    let style = self.style();
                    for (i, part) in text.split('\n').enumerate() {
                        if i > 0 {
                            self.flush_inline();
                        }
                        if !part.is_empty() {
                            self.inline.push(Span::styled(part.to_string(), style));
                        }
                    }
                }
            }
            Event::Code(code) => {
                let style = self.style().patch(theme::inline_code());
                self.inline.push(Span::styled(code.into_string(), style));
            }
            Event::SoftBreak => {
                let style = self.style();
                self.inline.push(Span::styled(" ", style));
            }
            Event::HardBreak => self.flush_inline(),
            Event::Rule => {
                self.begin_block();
                let width = self.width.saturating_sub(self.prefix_width()).max(1);
                self.inline
                    .push(Span::styled("─".repeat(width.min(80)), theme::rule()));
                self.flush_inline();
                self.pending_blank = true;
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                let style = self.style();
                for (i, part) in html.trim_end_matches('\n').split('\n').enumerate() {
                    if i > 0 {
                        self.flush_inline();
                    }
                    self.inline.push(Span::styled(part.to_string(), style));
                }
            }
            Event::TaskListMarker(checked) => {
                let mark = if checked { "[x] " } else { "[ ] " };
                self.inline.push(Span::styled(mark, theme::list_marker()));
            }
            Event::FootnoteReference(label) => {
                self.inline.push(Span::raw(format!("[^{label}]")));
            }
            Event::InlineMath(text) | Event::DisplayMath(text) => {
                self.inline.push(Span::raw(text.into_string()));
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>, at_end: bool) {
        match tag {
            Tag::Paragraph => self.begin_block(),
            Tag::Heading { level, .. } => {
                self.begin_block();
                self.push_style(theme::heading(heading_level(level)));
            }
            Tag::BlockQuote(_) => {
                self.flush_inline();
                self.begin_block();
                self.containers.push(Container::Quote);
                self.push_style(theme::block_quote());
            }
            Tag::CodeBlock(kind) => {
                self.flush_inline();
                self.begin_block();
                let lang = match kind {
                    CodeBlockKind::Fenced(lang) => lang.into_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(CodeBlock {
                    lang,
                    text: String::new(),
                    maybe_open: at_end,
                });
            }
            Tag::List(start) => {
                self.flush_inline();
                if self.lists.is_empty() {
                    self.begin_block();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush_inline();
                let depth = self.lists.len();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let text = format!("{n}. ");
                        *n += 1;
                        text
                    }
                    _ => if depth % 2 == 1 { "• " } else { "◦ " }.to_string(),
                };
                self.containers.push(Container::Item {
                    marker: Span::styled(marker, theme::list_marker()),
                    used: false,
                });
            }
            Tag::Emphasis => self.push_style(theme::emphasis()),
            Tag::Strong => self.push_style(theme::strong()),
            Tag::Strikethrough => self.push_style(theme::strikethrough()),
            Tag::Link { dest_url, .. } => {
                self.links.push((dest_url.into_string(), self.inline.len()));
                self.push_style(theme::link());
            }
            Tag::Image { dest_url, .. } => {
                self.links.push((dest_url.into_string(), self.inline.len()));
                self.inline
                    .push(Span::styled(strings::IMAGE_OPEN, theme::dim()));
                self.push_style(theme::dim());
            }
            Tag::Table(aligns) => {
                self.flush_inline();
                self.begin_block();
                self.table = Some(Table::new(aligns));
            }
            Tag::TableHead | Tag::TableRow | Tag::TableCell => {}
            Tag::HtmlBlock => self.begin_block(),
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_)
            | Tag::Superscript
            | Tag::Subscript => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => {
                self.flush_inline();
                self.pending_blank = true;
            }
            TagEnd::Heading(_) => {
                self.flush_inline();
                self.pop_style();
                self.pending_blank = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush_inline();
                self.containers.pop();
                self.pop_style();
                self.pending_blank = true;
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    self.emit_code(code);
                }
                self.pending_blank = true;
            }
            TagEnd::List(_) => {
                self.flush_inline();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.pending_blank = true;
                }
            }
            TagEnd::Item => {
                self.flush_inline();
                // Blank lines between items come only from loose lists (their paragraphs).
                self.containers.pop();
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Link => {
                self.pop_style();
                if let Some((url, start)) = self.links.pop() {
                    let text: String = self.inline[start.min(self.inline.len())..]
                        .iter()
                        .map(|s| s.content.as_ref())
                        .collect();
                    if !url.is_empty() && !url.starts_with('#') && text != url {
                        self.inline
                            .push(Span::styled(format!(" ({url})"), theme::link_url()));
                    }
                }
            }
            TagEnd::Image => {
                self.pop_style();
                self.links.pop();
                self.inline.push(Span::styled("]", theme::dim()));
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    let (first, rest) = self.prefixes();
                    self.out.extend(table.render(self.width, &first, &rest));
                    self.mark_items_used();
                }
                self.pending_blank = true;
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(table) = &mut self.table {
                    table.end_row(tag == TagEnd::TableHead);
                }
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                if let Some(table) = &mut self.table {
                    table.push_cell(cell);
                }
            }
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_)
            | TagEnd::Superscript
            | TagEnd::Subscript => {}
        }
    }

    fn begin_block(&mut self) {
        if self.pending_blank && !self.out.is_empty() {
            let prefix = self.quote_prefix();
            self.out.push(Line::from(prefix));
        }
        self.pending_blank = false;
    }

    /// Only the quote bars: what a blank line between blocks carries.
    fn quote_prefix(&self) -> Vec<Span<'static>> {
        self.containers
            .iter()
            .filter(|c| matches!(c, Container::Quote))
            .map(|_| Span::styled("│ ", theme::block_quote()))
            .collect()
    }

    fn prefix_width(&self) -> usize {
        spans_width(&self.prefixes().1)
    }

    /// Prefix of the next block's first line and of the lines after it.
    fn prefixes(&self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut first = Vec::new();
        let mut rest = Vec::new();
        for container in &self.containers {
            match container {
                Container::Quote => {
                    first.push(Span::styled("│ ", theme::block_quote()));
                    rest.push(Span::styled("│ ", theme::block_quote()));
                }
                Container::Item { marker, used } => {
                    let pad = " ".repeat(marker.content.chars().count());
                    if *used {
                        first.push(Span::raw(pad.clone()));
                    } else {
                        first.push(marker.clone());
                    }
                    rest.push(Span::raw(pad));
                }
            }
        }
        (first, rest)
    }

    fn mark_items_used(&mut self) {
        for container in &mut self.containers {
            if let Container::Item { used, .. } = container {
                *used = true;
            }
        }
    }

    fn flush_inline(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.inline);
        let (first, rest) = self.prefixes();
        self.out
            .extend(wrap_spans(&spans, self.width, &first, &rest));
        self.mark_items_used();
    }

    fn emit_code(&mut self, code: CodeBlock) {
        let text = code.text.strip_suffix('\n').unwrap_or(&code.text);
        // A block still streaming is coloured line by line as it arrives (its lines are
        // complete), so it does not flash from plain to coloured when its fence closes.
        let highlighted = if code.maybe_open {
            self.cache.highlight_open(&code.lang, &code.text)
        } else {
            self.cache.highlight(&code.lang, text)
        };
        let lines: Vec<Line<'static>> = highlighted.unwrap_or_else(|| {
            text.split('\n')
                .map(|l| Line::from(Span::styled(l.to_string(), theme::code_block())))
                .collect()
        });
        for line in lines {
            let (mut first, mut rest) = self.prefixes();
            first.push(Span::raw("  "));
            // A wrapped code line continues at its own indent, not at the margin.
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            let indent = text.len() - text.trim_start().len();
            let hang = indent.min(self.width / 2);
            rest.push(Span::raw(" ".repeat(2 + hang)));
            if line.spans.is_empty() {
                self.out.push(Line::from(first));
            } else {
                self.out
                    .extend(wrap_spans(&line.spans, self.width, &first, &rest));
            }
            self.mark_items_used();
        }
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The text of rendered lines, for tests.
#[cfg(test)]
pub(crate) fn plain(lines: &[Line<'_>]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Modifier;

    fn md(src: &str, width: usize) -> Vec<String> {
        plain(&render(src, width, true, &mut HighlightCache::default()))
    }

    #[test]
    fn paragraphs_headings_and_lists() {
        let out = md(
            "# Title\n\nSome *text* here.\n\n- one\n- two\n  - nested\n\n1. first\n2. second\n",
            40,
        );
        assert_eq!(
            out,
            vec![
                "Title",
                "",
                "Some text here.",
                "",
                "• one",
                "• two",
                "  ◦ nested",
                "",
                "1. first",
                "2. second",
            ]
        );
    }

    #[test]
    fn list_items_wrap_under_their_text() {
        let out = md("- alpha beta gamma delta\n", 12);
        assert_eq!(out, vec!["• alpha beta", "  gamma", "  delta"]);
    }

    #[test]
    fn code_blocks_quotes_and_links() {
        let out = md(
            "> quoted line\n\n```\nlet x = 1;\n```\n\nSee [docs](https://x.io) and `code`.\n",
            60,
        );
        assert_eq!(
            out,
            vec![
                "│ quoted line",
                "",
                "  let x = 1;",
                "",
                "See docs (https://x.io) and code.",
            ]
        );
    }

    #[test]
    fn emphasis_is_styled() {
        let lines = render("**bold** _it_", 40, true, &mut HighlightCache::default());
        let bold = &lines[0].spans[0];
        assert_eq!(bold.content, "bold");
        assert!(bold.style.add_modifier.contains(Modifier::BOLD));
        let it = lines[0].spans.iter().find(|s| s.content == "it").unwrap();
        assert!(it.style.add_modifier.contains(Modifier::ITALIC));
    }

    #[test]
    fn a_wrapped_code_line_keeps_its_indent() {
        let lines = md(
            "```\nfn f() {\n        let value = compute(first_argument, second_argument);\n}\n```\n",
            40,
        );
        assert_eq!(lines[1], "          let value =");
        assert_eq!(lines[2], "          compute(first_argument,");
        assert_eq!(lines[3], "          second_argument);", "{lines:?}");
    }

    #[test]
    fn open_code_block_is_highlighted_while_streaming_as_it_will_be_when_closed() {
        let mut cache = HighlightCache::default();
        let streamed = "```rust\nfn main() {\n    let x = \"s\"; // c\n";
        let open = render(streamed, 40, false, &mut cache);
        assert_eq!(
            plain(&open),
            vec!["  fn main() {", "      let x = \"s\"; // c"]
        );
        assert!(open[0].spans.len() > 2, "tokens get their own colours");
        assert_ne!(open[0].spans[1].style, theme::code_block());
        let more = render(&format!("{streamed}}}\n"), 40, false, &mut cache);
        assert_eq!(&more[..2], &open[..], "lines already shown do not change");
        let closed = render(
            &format!("{streamed}}}\n```\n"),
            40,
            true,
            &mut HighlightCache::default(),
        );
        assert_eq!(closed, more, "closing the fence changes nothing on screen");
    }
}

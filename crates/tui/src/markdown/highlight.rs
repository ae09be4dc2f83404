//! Syntax highlighting of code blocks with syntect.
//!
//! The syntax and theme sets are loaded on the first code block that needs them, never on the
//! start-up path: loading them costs tens of milliseconds and megabytes a plain chat does not
//! need.

use crate::theme;
use ratatui::text::{Line, Span};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;
use syntect::easy::HighlightLines;
use syntect::highlighting::{HighlightState, Theme, ThemeSet};
use syntect::parsing::{ParseState, SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// Blocks larger than this are shown plain: highlighting is linear but slow per byte.
const MAX_HIGHLIGHT_BYTES: usize = 256 * 1024;

struct Assets {
    syntaxes: SyntaxSet,
    theme: Option<Theme>,
}

static ASSETS: OnceLock<Assets> = OnceLock::new();

fn assets() -> &'static Assets {
    ASSETS.get_or_init(|| {
        let syntaxes = SyntaxSet::load_defaults_newlines();
        let mut themes = ThemeSet::load_defaults();
        let theme = themes.themes.remove(theme::SYNTAX_THEME);
        Assets { syntaxes, theme }
    })
}

/// Whether the syntax set has been loaded (for the start-up test).
pub fn is_loaded() -> bool {
    ASSETS.get().is_some()
}

/// Highlighted code blocks, keyed by language and text, so re-rendering a streamed message
/// does not highlight the same block again.
#[derive(Debug, Default)]
pub struct HighlightCache {
    blocks: HashMap<u64, Vec<Line<'static>>>,
    /// The block still streaming: highlighted up to `text`, continued from `state` as lines
    /// arrive, so it is coloured from its first line without re-highlighting its start.
    open: Option<OpenBlock>,
}

#[derive(Debug)]
struct OpenBlock {
    lang: String,
    text: String,
    lines: Vec<Line<'static>>,
    state: (HighlightState, ParseState),
}

impl HighlightCache {
    /// The lines of `code` in `lang`, or `None` when the language is unknown.
    pub fn highlight(&mut self, lang: &str, code: &str) -> Option<Vec<Line<'static>>> {
        let lang = lang.split([' ', ',', '{']).next().unwrap_or("").trim();
        if lang.is_empty() || code.len() > MAX_HIGHLIGHT_BYTES {
            return None;
        }
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        lang.hash(&mut hasher);
        code.hash(&mut hasher);
        let key = hasher.finish();
        if let Some(lines) = self.blocks.get(&key) {
            return Some(lines.clone());
        }
        let lines = highlight_uncached(lang, code)?;
        self.blocks.insert(key, lines.clone());
        Some(lines)
    }
}

impl HighlightCache {
    /// The lines of a code block that is still streaming; `code` holds complete lines only
    /// (each ends in a newline), so what is coloured now stays as it is when more arrives.
    /// `None` when the language is unknown.
    pub fn highlight_open(&mut self, lang: &str, code: &str) -> Option<Vec<Line<'static>>> {
        let lang = lang.split([' ', ',', '{']).next().unwrap_or("").trim();
        if lang.is_empty() || code.len() > MAX_HIGHLIGHT_BYTES {
            return None;
        }
        let assets = assets();
        let theme = assets.theme.as_ref()?;
        let continues = self
            .open
            .as_ref()
            .is_some_and(|o| o.lang == lang && code.starts_with(&o.text));
        let mut block = match self.open.take() {
            Some(block) if continues => block,
            _ => {
                let syntax = find_syntax(assets, lang)?;
                let fresh = HighlightLines::new(syntax, theme);
                OpenBlock {
                    lang: lang.to_string(),
                    text: String::new(),
                    lines: Vec::new(),
                    state: fresh.state(),
                }
            }
        };
        let (highlight_state, parse_state) = block.state;
        let mut highlighter = HighlightLines::from_state(theme, highlight_state, parse_state);
        for line in LinesWithEndings::from(&code[block.text.len()..]) {
            block.lines.push(highlight_line(&mut highlighter, line)?);
        }
        block.state = highlighter.state();
        block.text = code.to_string();
        let lines = block.lines.clone();
        self.open = Some(block);
        Some(lines)
    }
}

fn find_syntax<'a>(assets: &'a Assets, lang: &str) -> Option<&'a SyntaxReference> {
    assets
        .syntaxes
        .find_syntax_by_token(lang)
        .or_else(|| assets.syntaxes.find_syntax_by_extension(lang))
}

fn highlight_line(highlighter: &mut HighlightLines<'_>, line: &str) -> Option<Line<'static>> {
    let ranges = highlighter.highlight_line(line, &assets().syntaxes).ok()?;
    let spans: Vec<Span<'static>> = ranges
        .into_iter()
        .filter_map(|(style, text)| {
            let text = text.trim_end_matches(['\n', '\r']);
            (!text.is_empty()).then(|| {
                let fg = style.foreground;
                Span::styled(text.to_string(), theme::syntax(fg.r, fg.g, fg.b))
            })
        })
        .collect();
    Some(Line::from(spans))
}

fn highlight_uncached(lang: &str, code: &str) -> Option<Vec<Line<'static>>> {
    let assets = assets();
    let theme = assets.theme.as_ref()?;
    let mut highlighter = HighlightLines::new(find_syntax(assets, lang)?, theme);
    LinesWithEndings::from(code)
        .map(|line| highlight_line(&mut highlighter, line))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlights_known_languages_and_caches() {
        let mut cache = HighlightCache::default();
        let lines = cache.highlight("rust", "fn main() {}\n").unwrap();
        assert_eq!(lines.len(), 1);
        assert!(lines[0].spans.len() > 1, "tokens get their own colours");
        assert_eq!(cache.blocks.len(), 1);
        assert!(cache.highlight("no-such-language", "x").is_none());
    }
}

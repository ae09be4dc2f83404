//! The small front matter of plan documents: `key: value` lines between two `---` fences.
//!
//! Values are written raw, except strings that may hold anything (titles), which are written
//! as JSON strings; a JSON string is also a valid YAML double-quoted scalar, so other tools
//! read the same value.

use chrono::{DateTime, SecondsFormat, Utc};

/// Front matter split from a document.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FrontMatter {
    /// `(key, value)` pairs in file order, values already unquoted.
    pub fields: Vec<(String, String)>,
}

impl FrontMatter {
    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Split `text` into its front matter and body. The body is the exact bytes after the
/// closing fence's line, so callers can rewrite the front matter and keep the body.
///
/// Text counts as front matter only when it opens with `---` and every non-blank line up to
/// the closing `---` is `key: value`; a document opening with a Markdown rule is left alone.
pub fn split(text: &str) -> Option<(FrontMatter, &str)> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut fields = Vec::new();
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        offset += line.len();
        if content.trim_end() == "---" {
            return Some((FrontMatter { fields }, &rest[offset..]));
        }
        if content.trim().is_empty() {
            continue;
        }
        let (key, value) = content.split_once(':')?;
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return None;
        }
        fields.push((key.to_string(), unquote(value.trim())));
    }
    None
}

fn unquote(value: &str) -> String {
    if value.starts_with('"')
        && let Ok(parsed) = serde_json::from_str::<String>(value)
    {
        return parsed;
    }
    value.to_string()
}

/// Render front matter (with both fences and a trailing newline). Values for which
/// `quoted` is true are written as JSON strings.
pub fn render(fields: &[(&str, String, bool)]) -> String {
    let mut out = String::from("---\n");
    for (key, value, quoted) in fields {
        out.push_str(key);
        out.push_str(": ");
        if *quoted {
            out.push_str(&quote(value));
        } else {
            out.push_str(value);
        }
        out.push('\n');
    }
    out.push_str("---\n");
    out
}

/// `value` as a JSON string literal.
pub fn quote(value: &str) -> String {
    serde_json::Value::String(value.to_string()).to_string()
}

/// RFC 3339 text of `time`.
pub fn format_time(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// Parse an RFC 3339 timestamp.
pub fn parse_time(text: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(text.trim())
        .map(|time| time.with_timezone(&Utc))
        .map_err(|e| format!("'{text}' is not an RFC 3339 timestamp ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_the_body_byte_for_byte() {
        let text = "---\nid: a\ntitle: \"Say \\\"hi\\\": now\"\n---\n# Body\r\n\n- [ ] x\n";
        let (fm, body) = split(text).unwrap();
        assert_eq!(fm.get("id"), Some("a"));
        assert_eq!(fm.get("title"), Some("Say \"hi\": now"));
        assert_eq!(body, "# Body\r\n\n- [ ] x\n");
    }

    #[test]
    fn a_leading_markdown_rule_is_not_front_matter() {
        assert!(split("---\nJust a rule, then text\n---\nmore").is_none());
        assert!(split("# Title\n---\nid: x\n---\n").is_none());
        assert!(split("---\nid: x\n").is_none(), "unclosed fence");
    }

    #[test]
    fn render_then_split_round_trips() {
        let text = render(&[
            ("id", "plan-1".into(), false),
            ("title", "a: \"b\"\nc".into(), true),
        ]);
        let (fm, body) = split(&text).unwrap();
        assert_eq!(fm.get("title"), Some("a: \"b\"\nc"));
        assert_eq!(body, "");
    }
}

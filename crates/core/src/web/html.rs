//! HTML to Markdown for `web_fetch`, through `htmd` (html5ever's parser): what a person
//! reads on the page, without scripts, styles, navigation and other page furniture.

/// Elements dropped with everything inside them.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "template", "nav", "footer", "iframe", "svg", "canvas", "form",
    "button", "select", "dialog", "head",
];

/// `html` as Markdown, the page's `<title>` first when it has one.
pub fn to_markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(DROPPED.to_vec())
        .build();
    let body = converter.convert(html).unwrap_or_default();
    let body = squeeze_blank_lines(&body);
    match title(html) {
        Some(title) if !body.starts_with(&format!("# {title}")) => {
            format!("Title: {title}\n\n{body}")
        }
        _ => body,
    }
}

/// The text of the first `<title>` element, whitespace collapsed.
fn title(html: &str) -> Option<String> {
    let lower = html.get(..html.len().min(64 * 1024))?.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let text = html.get(start..end)?;
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = text
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'");
    (!text.is_empty()).then_some(text)
}

/// At most one blank line in a row, no trailing spaces.
fn squeeze_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_becomes_markdown_without_scripts_styles_or_navigation() {
        let page = r#"<!doctype html><html><head><title>Guide &amp; Notes</title>
            <style>body { color: red }</style><script>var secret = "SCRIPT_TEXT";</script></head>
            <body><nav><a href="/">Home</a> NAV_TEXT</nav>
            <h1>Install</h1><p>Run <code>cargo add x</code> then <a href="https://docs.rs/x">read the docs</a>.</p>
            <ul><li>one</li><li>two</li></ul>
            <script>document.write("INLINE_SCRIPT")</script>
            <footer>FOOTER_TEXT</footer></body></html>"#;
        let md = to_markdown(page);
        assert!(md.starts_with("Title: Guide & Notes\n\n# Install"), "{md}");
        assert!(
            md.contains("Run `cargo add x` then [read the docs](https://docs.rs/x)."),
            "{md}"
        );
        assert!(md.contains("one") && md.contains("two"), "{md}");
        for gone in [
            "SCRIPT_TEXT",
            "INLINE_SCRIPT",
            "NAV_TEXT",
            "FOOTER_TEXT",
            "color: red",
        ] {
            assert!(!md.contains(gone), "{gone} left in {md}");
        }
    }
}

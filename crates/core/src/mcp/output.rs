//! What the model reads of an MCP tool result: its text, its structured content, a short note
//! for each image, audio clip or resource, within a size limit.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

/// Most bytes of a result the model receives; the rest is cut with a note.
pub const MAX_OUTPUT_BYTES: usize = 100 * 1024;

/// The result as text, and whether the server flagged it as an error (`isError`).
pub fn render(result: &CallToolResult) -> (String, bool) {
    let mut parts: Vec<String> = result.content.iter().map(block).collect();
    if let Some(structured) = &result.structured_content {
        let json = serde_json::to_string(structured).unwrap_or_default();
        // Servers usually repeat the structured content as text (as JSON, or its strings
        // as they are); say it once.
        let text = parts.join("\n");
        let repeated = result.content.iter().any(|b| {
            b.as_text().is_some_and(|t| {
                serde_json::from_str::<serde_json::Value>(&t.text)
                    .ok()
                    .as_ref()
                    == Some(structured)
            })
        }) || (!text.is_empty() && strings_within(structured, &text));
        if !repeated {
            parts.push(if parts.is_empty() {
                json
            } else {
                format!("Structured content: {json}")
            });
        }
    }
    let is_error = result.is_error == Some(true);
    let mut text = parts.join("\n");
    if text.is_empty() {
        text = if is_error {
            "(the tool reported an error without a message)".to_string()
        } else {
            "(the tool returned no content)".to_string()
        };
    }
    (cap(text), is_error)
}

/// True when `value` holds only strings (in objects and arrays), each found in `text`.
fn strings_within(value: &serde_json::Value, text: &str) -> bool {
    match value {
        serde_json::Value::String(s) => text.contains(s.as_str()),
        serde_json::Value::Object(map) => {
            !map.is_empty() && map.values().all(|v| strings_within(v, text))
        }
        serde_json::Value::Array(items) => {
            !items.is_empty() && items.iter().all(|v| strings_within(v, text))
        }
        _ => false,
    }
}

fn block(block: &ContentBlock) -> String {
    if let Some(text) = block.as_text() {
        return text.text.clone();
    }
    if let Some(image) = block.as_image() {
        return format!(
            "[image: {}, {} not shown]",
            image.mime_type,
            size(decoded_len(&image.data))
        );
    }
    if let Some(audio) = block.as_audio() {
        return format!(
            "[audio: {}, {} not shown]",
            audio.mime_type,
            size(decoded_len(&audio.data))
        );
    }
    if let Some(link) = block.as_resource_link() {
        let mut note = format!("[resource link: {}", link.uri);
        if !link.name.is_empty() && link.name != link.uri {
            note.push_str(&format!(" ({})", link.name));
        }
        if let Some(description) = &link.description {
            note.push_str(&format!(": {description}"));
        }
        note.push(']');
        return note;
    }
    if let Some(resource) = block.as_resource() {
        return match &resource.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource {uri}]\n{text}")
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "[resource {uri}: {}, {} not shown]",
                mime_type.as_deref().unwrap_or("binary"),
                size(decoded_len(blob))
            ),
            _ => "[a resource of a kind cairn does not show]".to_string(),
        };
    }
    "[content of a kind cairn does not show]".to_string()
}

/// Bytes a base64 text decodes to.
fn decoded_len(base64: &str) -> usize {
    let padding = base64.bytes().rev().take_while(|b| *b == b'=').count();
    (base64.len() / 4 * 3).saturating_sub(padding)
}

fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}

fn cap(mut text: String) -> String {
    if text.len() <= MAX_OUTPUT_BYTES {
        return text;
    }
    let total = text.len();
    let mut end = MAX_OUTPUT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(&format!(
        "\n[output cut: {} of {} shown]",
        size(end),
        size(total)
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(value: serde_json::Value) -> CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn text_and_images() {
        let (text, error) = render(&result(json!({"content": [
            {"type": "text", "text": "Here it is:"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        ]})));
        assert!(!error);
        assert_eq!(text, "Here it is:\n[image: image/png, 8 B not shown]");
    }

    #[test]
    fn structured_content_is_said_once() {
        let (text, _) = render(&result(json!({
            "content": [{"type": "text", "text": "{\"sum\": 3}"}],
            "structuredContent": {"sum": 3},
        })));
        assert_eq!(text, "{\"sum\": 3}");
        let (text, _) = render(&result(json!({
            "content": [{"type": "text", "text": "Done"}],
            "structuredContent": {"sum": 3},
        })));
        assert_eq!(text, "Done\nStructured content: {\"sum\":3}");
        // The text as a field of the structured content (the filesystem server).
        let (text, _) = render(&result(json!({
            "content": [{"type": "text", "text": "line one\n"}],
            "structuredContent": {"content": "line one\n"},
        })));
        assert_eq!(text, "line one\n");
        let (text, _) = render(&result(
            json!({"content": [], "structuredContent": {"a": 1}}),
        ));
        assert_eq!(text, "{\"a\":1}");
    }

    #[test]
    fn errors_and_resources() {
        let (text, error) = render(&result(json!({
            "content": [{"type": "text", "text": "no such file"}],
            "isError": true,
        })));
        assert!(error);
        assert_eq!(text, "no such file");
        let (text, _) = render(&result(json!({"content": [
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hello"}},
            {"type": "resource_link", "uri": "file:///b.txt", "name": "b"},
        ]})));
        assert_eq!(
            text,
            "[resource file:///a.txt]\nhello\n[resource link: file:///b.txt (b)]"
        );
        let (text, error) = render(&result(json!({"content": [], "isError": true})));
        assert!(error && text.contains("without a message"), "{text}");
    }

    #[test]
    fn long_output_is_cut() {
        let (text, _) = render(&result(json!({"content": [
            {"type": "text", "text": "é".repeat(MAX_OUTPUT_BYTES)},
        ]})));
        assert!(text.len() < MAX_OUTPUT_BYTES + 100);
        assert!(text.ends_with("KB shown]"), "{}", &text[text.len() - 60..]);
    }
}

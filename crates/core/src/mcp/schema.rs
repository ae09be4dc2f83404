//! An MCP tool's input schema, shaped so every wire format accepts it.
//!
//! Chat Completions, Responses and Anthropic Messages all want an object schema at the top:
//! `"type": "object"` with `properties`, and no `oneOf`/`anyOf`/`allOf`/`not`/`enum` there.
//! Servers write schemas for JSON Schema validators, not for model APIs, so the top level is
//! adjusted; nested schemas are passed on as the server wrote them. The server still checks
//! the arguments it receives.

use serde_json::{Map, Value};

/// Top-level keywords model APIs refuse.
const REFUSED_AT_TOP: &[&str] = &["$schema", "oneOf", "anyOf", "allOf", "not", "enum", "const"];

/// The schema the model is offered for `input_schema`.
pub fn for_model(input_schema: &Map<String, Value>) -> Value {
    let mut schema = input_schema.clone();
    let is_object = schema.get("type").is_none_or(|t| t == "object");
    if !is_object {
        // Not an object schema: the model can only send an object anyway.
        schema = Map::new();
    }
    for key in REFUSED_AT_TOP {
        schema.remove(*key);
    }
    schema.insert("type".into(), Value::String("object".into()));
    if !schema.get("properties").is_some_and(Value::is_object) {
        schema.insert("properties".into(), Value::Object(Map::new()));
    }
    let required_ok = schema.get("required").is_none_or(|r| {
        r.as_array()
            .is_some_and(|names| names.iter().all(Value::is_string))
    });
    if !required_ok {
        schema.remove("required");
    }
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shaped(value: Value) -> Value {
        for_model(value.as_object().unwrap())
    }

    #[test]
    fn object_schemas_pass_with_meta_keys_removed() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": false,
        });
        assert_eq!(
            shaped(schema),
            json!({
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
                "additionalProperties": false,
            })
        );
    }

    #[test]
    fn missing_pieces_are_filled_in() {
        assert_eq!(
            shaped(json!({})),
            json!({"type": "object", "properties": {}})
        );
        assert_eq!(
            shaped(json!({"type": "object", "anyOf": [{"required": ["a"]}], "required": "a"})),
            json!({"type": "object", "properties": {}})
        );
        assert_eq!(
            shaped(json!({"type": "string"})),
            json!({"type": "object", "properties": {}})
        );
    }
}

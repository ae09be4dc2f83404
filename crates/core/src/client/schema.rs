//! Tool schemas as every wire format takes them.

use serde_json::Value;

/// `parameters` without `anyOf`, `oneOf` and `allOf` at the top level. Anthropic refuses them
/// there, Gemini (also behind its Chat Completions endpoint) refuses `anyOf` beside other
/// keys, and local servers that turn schemas into grammars handle them poorly. The handler
/// checks the same rules itself and answers the model in words when a call breaks them.
pub fn portable(parameters: &Value) -> Value {
    let mut schema = parameters.clone();
    if let Some(map) = schema.as_object_mut() {
        for key in ["anyOf", "oneOf", "allOf"] {
            map.remove(key);
        }
    }
    schema
}

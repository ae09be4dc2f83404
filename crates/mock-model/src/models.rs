//! `GET …/models`: the model list, in the OpenAI shape (`{"object":"list","data":[{"id":…}]}`)
//! or, when the request carries `anthropic-version`, in Anthropic's (with `display_name` and
//! paging fields).

use crate::response::MockResponse;
use serde_json::json;

/// What the server lists until a test or script sets something else.
pub const DEFAULT_MODELS: &[&str] = &["mock-model", "mock-model-large"];

/// The `200` answer listing `ids`.
pub(crate) fn list(ids: &[String], anthropic: bool) -> MockResponse {
    let body = if anthropic {
        let data: Vec<_> = ids
            .iter()
            .map(|id| {
                json!({
                    "type": "model",
                    "id": id,
                    "display_name": display_name(id),
                    "created_at": "2025-01-01T00:00:00Z",
                })
            })
            .collect();
        json!({
            "data": data,
            "has_more": false,
            "first_id": ids.first(),
            "last_id": ids.last(),
        })
    } else {
        let data: Vec<_> = ids
            .iter()
            .map(|id| json!({"id": id, "object": "model", "created": 0, "owned_by": "mock"}))
            .collect();
        json!({"object": "list", "data": data})
    };
    MockResponse::error(200, body.to_string())
}

/// `mock-model-large` -> `Mock Model Large`.
fn display_name(id: &str) -> String {
    id.split(['-', '_'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

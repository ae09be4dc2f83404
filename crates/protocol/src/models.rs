//! What front ends are told about the models a provider offers (`/model`, `list_models`).

use serde::{Deserialize, Serialize};

/// One model a session could switch to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// The id sent to the server (`gpt-5.1`, `claude-sonnet-4-5`, `qwen3-coder:latest`).
    pub id: String,
    /// A human name, when the server gives one (Anthropic, OpenRouter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// The context window in tokens: the server's figure, else cairn's built-in table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// The model family cairn would use for it (`gpt`, `claude`, `gemini`, `qwen`, `other`):
    /// which instructions and edit tools it gets (docs/prompts.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
}

impl ModelInfo {
    /// A model known only by its id.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            display_name: None,
            context_window: None,
            family: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{EventMsg, ModelInfo, Op};

    #[test]
    fn list_models_and_its_answer_keep_their_wire_names() {
        assert_eq!(
            serde_json::to_string(&Op::ListModels).unwrap(),
            r#"{"type":"list_models"}"#
        );
        let answer = EventMsg::ModelsListed {
            current: "m1".into(),
            models: vec![ModelInfo {
                family: Some("other".into()),
                ..ModelInfo::new("m1")
            }],
            error: None,
        };
        assert_eq!(
            serde_json::to_string(&answer).unwrap(),
            r#"{"type":"models_listed","current":"m1","models":[{"id":"m1","family":"other"}]}"#
        );
    }
}

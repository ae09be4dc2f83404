//! The conversation as cairn stores it, independent of any wire format.
//!
//! Each model client converts these items into its own request shape, so switching provider
//! or wire format never loses history.

use serde::{Deserialize, Serialize};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The person at the keyboard (and reminders the session adds for the model).
    User,
    /// The model.
    Assistant,
}

/// One item of conversation history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseItem {
    /// A plain message.
    Message {
        /// Author.
        role: Role,
        /// Text.
        text: String,
    },
    /// Reasoning the model produced. `provider_data` carries what a wire format needs to send
    /// it back (Responses' encrypted content, Anthropic's thinking signature).
    Reasoning {
        /// Readable summary or thinking text.
        text: String,
        /// Opaque, format-specific data to carry forward.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_data: Option<serde_json::Value>,
    },
    /// A tool call the model made.
    FunctionCall {
        /// The model's id for the call.
        call_id: String,
        /// Tool name.
        name: String,
        /// JSON arguments as the model sent them.
        arguments: String,
    },
    /// The answer to a [`ResponseItem::FunctionCall`].
    FunctionCallOutput {
        /// Id of the call answered.
        call_id: String,
        /// What the tool returned.
        output: String,
        /// False when the call failed or was refused.
        success: bool,
    },
}

impl ResponseItem {
    /// A user-role message.
    pub fn user(text: impl Into<String>) -> Self {
        Self::Message {
            role: Role::User,
            text: text.into(),
        }
    }

    /// An assistant-role message.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::Message {
            role: Role::Assistant,
            text: text.into(),
        }
    }
}

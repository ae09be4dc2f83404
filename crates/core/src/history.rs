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

/// The session's conversation: the items every request carries, each one also written to the
/// session log (when there is one) as it is added, whichever route adds it.
#[derive(Debug, Default)]
pub struct History {
    items: Vec<ResponseItem>,
    recorder: Option<crate::rollout::Recorder>,
}

impl History {
    /// A history holding `items` (already logged, or not to be) that logs what is added.
    pub fn new(items: Vec<ResponseItem>, recorder: Option<crate::rollout::Recorder>) -> Self {
        Self { items, recorder }
    }

    /// Add one item.
    pub fn push(&mut self, item: ResponseItem) {
        if let Some(recorder) = &self.recorder {
            recorder.item(&item);
        }
        self.items.push(item);
    }

    /// Replace the whole history (compaction); logged as one line.
    pub fn replace(&mut self, items: Vec<ResponseItem>) {
        if let Some(recorder) = &self.recorder {
            recorder.compacted(&items);
        }
        self.items = items;
    }

    /// The items, oldest first.
    pub fn items(&self) -> &[ResponseItem] {
        &self.items
    }
}

impl Extend<ResponseItem> for History {
    fn extend<I: IntoIterator<Item = ResponseItem>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

impl std::ops::Deref for History {
    type Target = [ResponseItem];

    fn deref(&self) -> &[ResponseItem] {
        &self.items
    }
}

impl From<Vec<ResponseItem>> for History {
    fn from(items: Vec<ResponseItem>) -> Self {
        Self::new(items, None)
    }
}

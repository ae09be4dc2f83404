//! The tool layer: specs the model sees, handlers that run calls, and the registry that ties
//! them together by configuration.
//!
//! A handler is stateless; whatever a call needs from the session arrives in its
//! [`ToolContext`]. Errors the model can recover from are [`ToolError::RespondToModel`]: the
//! model reads the text and tries again. [`ToolError::Fatal`] ends the turn.

pub mod context;
pub mod handlers;
pub mod names;
pub mod registry;

use async_trait::async_trait;
pub use context::ToolContext;
pub use registry::ToolRegistry;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::PathBuf;

/// What the model is told about a tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// Name (one of [`names`]).
    pub name: String,
    /// When and how to use it.
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// One tool call from the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The model's id for the call.
    pub call_id: String,
    /// Tool name.
    pub name: String,
    /// JSON arguments as the model sent them.
    pub arguments: String,
}

/// Why a call produced no normal output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The model gets this text as the call's output and can act on it.
    #[error("{0}")]
    RespondToModel(String),
    /// The turn cannot go on; the user sees this text.
    #[error("{0}")]
    Fatal(String),
}

/// What a call would do, shown to the user before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalKind {
    /// A command.
    Exec {
        /// The command as written.
        command: String,
        /// Where it would run.
        cwd: PathBuf,
    },
    /// File changes.
    Patch {
        /// Files that would change.
        paths: Vec<PathBuf>,
        /// Unified diff.
        diff: String,
    },
    /// Reads outside the workspace, or of a secret.
    Read {
        /// Files or directories that would be read.
        paths: Vec<PathBuf>,
    },
    /// A call of an MCP server's tool.
    Mcp {
        /// The `[mcp_servers.<name>]` name.
        server: String,
        /// The server's name for the tool.
        tool: String,
        /// The JSON arguments the model sent.
        arguments: String,
        /// The server's `readOnlyHint`, shown to the user only.
        read_only_hint: Option<bool>,
    },
    /// A web fetch from a host not in `[tools.web] allowed_hosts`.
    Fetch {
        /// The full URL, as it will be requested.
        url: String,
        /// Its host.
        host: String,
    },
}

/// A handler's assessment of one call; the approval policy decides from it whether to ask
/// the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// What would happen.
    pub kind: ApprovalKind,
    /// One sentence, the tool's `describe()`.
    pub description: String,
    /// What "approve for this session" would cover.
    pub session: crate::approval::SessionScope,
    /// True when `on-request` may run it without asking (read-only command, edit inside the
    /// workspace).
    pub known_safe: bool,
    /// Set when the call must be asked under every policy but `never`, whatever was
    /// approved before: why, in words the user reads in the approval prompt.
    pub protected: Option<String>,
}
/// A tool implementation.
#[async_trait]
pub trait ToolHandler: Send + Sync {
    /// The spec offered to the model.
    fn spec(&self) -> ToolSpec;

    /// True when a call may change the workspace or run arbitrary code.
    fn is_mutating(&self) -> bool {
        false
    }

    /// True when a call must not run concurrently with other calls of the same response:
    /// mutating calls, and calls that wait for the user.
    fn runs_alone(&self) -> bool {
        self.is_mutating()
    }

    /// One sentence saying what a call would do ("Would run `ls` in src"). Must not fail,
    /// whatever the arguments.
    fn describe(&self, arguments: &str) -> String;

    /// What the user would approve. `Ok(None)` means no approval is needed under any
    /// policy (a read inside the workspace, say); an `Err` goes back to the model (bad
    /// arguments, say). Read-only tools answer only for reads outside the readable roots.
    fn approval(
        &self,
        _arguments: &str,
        _ctx: &ToolContext,
    ) -> Result<Option<ApprovalRequest>, ToolError> {
        Ok(None)
    }

    /// Run the call and return what the model receives.
    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError>;
}

/// Parse tool arguments, answering the model with serde's message when they do not fit.
pub fn parse_args<T: DeserializeOwned>(arguments: &str) -> Result<T, ToolError> {
    let text = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    serde_json::from_str(text)
        .map_err(|e| ToolError::RespondToModel(format!("failed to parse function arguments: {e}")))
}

/// Arguments as a JSON value, `Null` when they do not parse (for `describe`).
pub fn args_value(arguments: &str) -> serde_json::Value {
    serde_json::from_str(arguments).unwrap_or(serde_json::Value::Null)
}

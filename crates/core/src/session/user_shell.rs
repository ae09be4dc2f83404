//! `!cmd`: a shell command the user typed.
//!
//! It runs as a `shell` tool call through the same dispatcher as the model's calls, so plan
//! mode, the approval policy and the sandbox judge it exactly as they would judge the model
//! asking for it: typing `!` is not a way around any of them. Its output joins the
//! conversation as a user message, so the model sees it on its next turn; no model is asked
//! now.

use super::dispatch::{self, CallOutcome, Origin};
use super::shared::lock;
use super::task::{Stop, Task};
use crate::compact::USER_SHELL_PREFIX;
use crate::history::ResponseItem;
use crate::tools::{ToolCall, names};
use cairn_protocol::EventMsg;
use serde_json::json;

impl Task {
    /// Run `command` for the user; returns the task's terminal event.
    pub(super) async fn run_user_shell(&self, command: &str) -> EventMsg {
        if command.trim().is_empty() {
            return EventMsg::Error {
                message: "Type a command after `!`, for example `!git status`.".to_string(),
            };
        }
        if self.registry.handler(names::SHELL).is_none() {
            return EventMsg::Error {
                message:
                    "The shell tool is not available in this session, so `!` commands cannot run."
                        .to_string(),
            };
        }
        let call = ToolCall {
            call_id: format!("user_shell_{}", uuid::Uuid::now_v7().simple()),
            name: names::SHELL.to_string(),
            // The user is at the keyboard and can interrupt: allow the longest timeout.
            arguments: json!({
                "command": command,
                "timeout_ms": self.shared.config.shell.max_timeout_ms,
            })
            .to_string(),
        };
        // Logged, so a resumed transcript shows what the user typed.
        self.emit(EventMsg::UserMessage {
            text: format!("!{command}"),
        });
        let ctx = self.context_for(&call);
        let CallOutcome {
            output,
            success,
            stop,
        } = dispatch::run_call(&call, &ctx, &self.registry, Origin::User).await;
        // A command that was refused or declined did not run: the model has nothing to learn
        // from it, and a refusal worded for the model must not read as the user's words.
        if success {
            lock(&self.shared.history).push(ResponseItem::user(history_text(command, &output)));
            self.shared.record_state();
        }
        match stop {
            None => EventMsg::TaskComplete {
                last_agent_message: None,
            },
            Some(Stop::Aborted(reason)) => EventMsg::TurnAborted { reason },
            Some(Stop::Failed(message)) => EventMsg::Error { message },
        }
    }
}

/// How the model learns of the command: what the user ran and what came of it (the shell
/// tool's own answer, refusals included).
fn history_text(command: &str, output: &str) -> String {
    format!(
        "{USER_SHELL_PREFIX}\nThe user ran this command themselves; it is context for what follows, not a request.\n<command>\n{command}\n</command>\n<result>\n{}\n</result>\n</user_shell_command>",
        output.trim_end()
    )
}

#[cfg(test)]
mod tests {
    use super::history_text;

    #[test]
    fn history_names_the_command_and_its_result() {
        let text = history_text("ls", "Exit code: 0\nDuration: 1ms\na.rs\n");
        assert!(text.starts_with("<user_shell_command>\n"), "{text}");
        assert!(text.contains("<command>\nls\n</command>"), "{text}");
        assert!(
            text.contains("<result>\nExit code: 0\nDuration: 1ms\na.rs\n</result>"),
            "{text}"
        );
    }
}

//! `think`: a scratchpad. The thought is echoed to the front end; nothing else happens.

use crate::tools::{
    ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names, parse_args,
};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

/// Handler of `think`.
pub struct ThinkHandler;

#[derive(Deserialize)]
struct ThinkArgs {
    thought: String,
}

#[async_trait]
impl ToolHandler for ThinkHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::THINK.to_string(),
            description: "Write down your reasoning before acting: weigh options, check what a tool result means, plan the next calls. Use it when a decision is not obvious (several possible causes of a failure, a design choice, a long tool output to make sense of). Not for simple steps, and not for talking to the user (the user sees it, but your answer is what counts). Changes nothing; returns a short acknowledgement.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "thought": {"type": "string", "description": "Your reasoning, as plain text."}
                },
                "required": ["thought"],
                "additionalProperties": false
            }),
        }
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        let thought = args["thought"].as_str().unwrap_or("");
        let first: String = thought
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(80)
            .collect();
        if first.is_empty() {
            "Thinking".to_string()
        } else {
            format!("Thinking: {first}")
        }
    }

    async fn handle(&self, call: &ToolCall, _ctx: &ToolContext) -> Result<String, ToolError> {
        let args: ThinkArgs = parse_args(&call.arguments)?;
        if args.thought.trim().is_empty() {
            return Err(ToolError::RespondToModel(
                "`thought` is empty; write out your reasoning.".into(),
            ));
        }
        Ok("Thought recorded.".to_string())
    }
}

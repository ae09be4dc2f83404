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
            description: "Think through a problem step by step before acting: weigh options, check assumptions, plan the next calls. Has no side effects; use it when a decision is not obvious.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "thought": {"type": "string", "description": "Your reasoning."}
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

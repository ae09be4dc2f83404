//! `update_plan`, the Codex checklist, exactly as spec/update-plan-tool.md: parse the
//! arguments, emit a `plan_update` event, answer "Plan updated".

use crate::tools::{
    ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names, parse_args,
};
use async_trait::async_trait;
use cairn_protocol::{EventMsg, Plan, UpdatePlanArgs};
use serde_json::json;

/// Handler of the checklist `update_plan`.
pub struct UpdatePlanHandler;

#[async_trait]
impl ToolHandler for UpdatePlanHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::UPDATE_PLAN.to_string(),
            description: "Updates the task plan.\nProvide an optional explanation and a list of plan items, each with a step and status.\nAt most one step can be in_progress at a time.\n\nUse it for tasks with several steps: write the plan before the first change, then call it again whenever a step starts or ends. Each call sends the whole list, which replaces the previous one. Not for a question or a single quick change. The user sees the plan as a checklist; do not repeat it in your messages. Returns `Plan updated`.\n\nExample: {\"explanation\": \"Tests pass; docs next\", \"plan\": [{\"step\": \"Add the --json flag\", \"status\": \"completed\"}, {\"step\": \"Document the flag\", \"status\": \"in_progress\"}, {\"step\": \"Run the CLI tests\", \"status\": \"pending\"}]}".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "explanation": {"type": "string", "description": "Why the plan changed, in a sentence (optional)."},
                    "plan": {
                        "type": "array",
                        "description": "The list of steps",
                        "items": {
                            "type": "object",
                            "properties": {
                                "step": {"type": "string", "description": "The step, as a short imperative sentence."},
                                "status": {
                                    "type": "string",
                                    "description": "One of: pending, in_progress, completed",
                                    "enum": ["pending", "in_progress", "completed"]
                                }
                            },
                            "required": ["step", "status"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["plan"],
                "additionalProperties": false
            }),
        }
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        let steps = args["plan"].as_array().map_or(0, Vec::len);
        format!("Would update the plan ({steps} steps).")
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: UpdatePlanArgs = parse_args(&call.arguments)?;
        ctx.emit(EventMsg::PlanUpdate(Plan::from(args)));
        Ok("Plan updated".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(arguments: &str) -> ToolCall {
        ToolCall {
            call_id: "c".into(),
            name: names::UPDATE_PLAN.into(),
            arguments: arguments.into(),
        }
    }

    #[tokio::test]
    async fn valid_plan_emits_event_and_answers_plan_updated() {
        let dir = tempfile::tempdir().unwrap();
        let (ctx, mut events) = ToolContext::for_test(dir.path(), dir.path());
        let out = UpdatePlanHandler
            .handle(
                &call(r#"{"explanation":"Roadmap","plan":[{"step":"Set up project","status":"completed"},{"step":"Implement feature","status":"in_progress"}]}"#),
                &ctx,
            )
            .await
            .unwrap();
        assert_eq!(out, "Plan updated");
        let event = events.try_recv().unwrap();
        let EventMsg::PlanUpdate(plan) = event.msg else {
            panic!("expected plan_update, got {event:?}");
        };
        assert_eq!(plan.explanation.as_deref(), Some("Roadmap"));
        assert_eq!(plan.plan.len(), 2);
    }

    #[tokio::test]
    async fn missing_plan_is_a_parse_error_and_no_event() {
        let dir = tempfile::tempdir().unwrap();
        let (ctx, mut events) = ToolContext::for_test(dir.path(), dir.path());
        let err = UpdatePlanHandler
            .handle(&call(r#"{"explanation":"Oops"}"#), &ctx)
            .await
            .unwrap_err();
        let ToolError::RespondToModel(text) = err else {
            panic!("expected RespondToModel");
        };
        assert!(
            text.starts_with("failed to parse function arguments: missing field `plan`"),
            "{text}"
        );
        assert!(events.try_recv().is_err());
    }
}

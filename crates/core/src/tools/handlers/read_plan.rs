//! `read_plan`: the stored document of a plan (the session's current one by default), so
//! the model can check the plan's state before acting or resume an earlier plan.

use super::plan_support::NO_PLAN;
use crate::session::shared::lock;
use crate::tools::{
    ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names, parse_args,
};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

/// Handler of `read_plan`.
pub struct ReadPlanHandler;

#[derive(Debug, Deserialize)]
struct Args {
    id: Option<String>,
}

#[async_trait]
impl ToolHandler for ReadPlanHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::READ_PLAN.to_string(),
            description: "Read a stored plan document. Use it to check where you are in a structured plan before acting, after a long stretch of work, or to pick up a plan from an earlier session by its id. Not needed right after create_plan or update_plan, whose results already show the change. Changes nothing.\n\nReturns the plan as Markdown: id, title and status, then each step with its number, status, result or reason, then notes and the completion record. Without `id`, reads this session's current plan.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": "Plan id or a unique prefix of it, as `cairn plans list` shows (default: the session's current plan)."}
                },
                "additionalProperties": false
            }),
        }
    }

    fn describe(&self, arguments: &str) -> String {
        match args_value(arguments)["id"].as_str() {
            Some(id) => format!("Would read plan {id}."),
            None => "Would read the current plan.".to_string(),
        }
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: Args = parse_args(&call.arguments)?;
        let id = match args.id.filter(|i| !i.trim().is_empty()) {
            Some(id) => id,
            None => lock(&ctx.shared.current_plan)
                .clone()
                .ok_or_else(|| ToolError::RespondToModel(NO_PLAN.to_string()))?,
        };
        read(ctx, &id)
    }
}

/// Any stored plan, structured or plan mode, as its file reads.
fn read(ctx: &ToolContext, id: &str) -> Result<String, ToolError> {
    ctx.shared
        .plans
        .read_text(id)
        .map(|(_, text)| text)
        .map_err(|e| {
            ToolError::RespondToModel(match e {
                crate::plans::PlanStoreError::NotFound(q) => {
                    format!("No stored plan matches '{q}'. Leave out id to read this session's current plan.")
                }
                other => other.to_string(),
            })
        })
}

#[cfg(test)]
mod tests {
    use super::super::create_plan::CreatePlanHandler;
    use super::super::plan_support::testing::{context, run};
    use super::*;

    #[tokio::test]
    async fn reads_the_current_plan_or_any_by_id() {
        let (dir, ctx, _rx) = context(None);
        assert_eq!(
            run(&ReadPlanHandler, &ctx, json!({})).await.unwrap_err(),
            "No plan exists for this session yet. Call create_plan first, or pass the id of a stored plan."
        );
        run(
            &CreatePlanHandler,
            &ctx,
            json!({"goal": "g", "steps": ["a"]}),
        )
        .await
        .unwrap();
        let id = lock(&ctx.shared.current_plan).clone().unwrap();
        let text = run(&ReadPlanHandler, &ctx, json!({})).await.unwrap();
        assert_eq!(
            text,
            std::fs::read_to_string(ctx.shared.plans.path_of(&id)).unwrap()
        );
        assert!(text.contains("- [ ] 1. a\n"), "{text}");

        let plan_mode = dir.path().join("plans").join("conv_20260101_000000.md");
        std::fs::write(&plan_mode, "# Free plan\n").unwrap();
        let (summary, _) = ctx.shared.plans.read_text("conv_").unwrap();
        assert_eq!(
            run(&ReadPlanHandler, &ctx, json!({"id": "conv_"}))
                .await
                .unwrap(),
            format!("{}# Free plan\n", crate::plans::listing::header(&summary))
        );
        assert_eq!(
            run(&ReadPlanHandler, &ctx, json!({"id": "nope"}))
                .await
                .unwrap_err(),
            "No stored plan matches 'nope'. Leave out id to read this session's current plan."
        );
    }

    #[test]
    fn describe_names_the_plan() {
        assert_eq!(
            ReadPlanHandler.describe(r#"{"id":"plan-1"}"#),
            "Would read plan plan-1."
        );
        assert_eq!(
            ReadPlanHandler.describe("{}"),
            "Would read the current plan."
        );
    }
}

//! `complete_plan`: record how a structured plan ended (status, summary, counts, issues,
//! recommendations) and answer with the spec's "## Plan Completed" summary.

use super::plan_support::{clean, update_and_emit};
use crate::tools::{
    ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names, parse_args,
};
use async_trait::async_trait;
use cairn_protocol::{CompletionStatus, PlanCompletion, PlanStatus, PlanStepStatus};
use serde::Deserialize;
use serde_json::json;

/// Handler of `complete_plan`.
pub struct CompletePlanHandler;

#[derive(Debug, Deserialize)]
struct Args {
    status: Option<String>,
    summary: Option<String>,
    steps_completed: Option<u32>,
    steps_failed: Option<u32>,
    steps_skipped: Option<u32>,
    #[serde(default)]
    issues_encountered: Vec<String>,
    recommendations: Option<String>,
    id: Option<String>,
}

fn fail(message: impl std::fmt::Display) -> ToolError {
    ToolError::RespondToModel(format!("Failed to complete plan: {message}"))
}

fn parse_status(text: &str) -> Option<CompletionStatus> {
    [
        CompletionStatus::Success,
        CompletionStatus::PartialSuccess,
        CompletionStatus::Failed,
    ]
    .into_iter()
    .find(|s| s.as_str() == text.trim())
}

/// The spec's summary text.
pub(super) fn completed_text(c: &PlanCompletion) -> String {
    let tag = match c.status {
        CompletionStatus::Success => "[SUCCESS]",
        CompletionStatus::PartialSuccess => "[PARTIAL]",
        CompletionStatus::Failed => "[FAILED]",
    };
    let mut lines = vec![
        "---".to_string(),
        "## Plan Completed".to_string(),
        String::new(),
        format!("**Status**: {tag} {}", c.status.as_str()),
        String::new(),
        format!("**Summary**: {}", c.summary),
        String::new(),
    ];
    if let Some(done) = c.steps_completed {
        lines.push(format!("- Steps completed: {done}"));
    }
    if let Some(failed) = c.steps_failed.filter(|n| *n > 0) {
        lines.push(format!("- Steps failed: {failed}"));
    }
    if let Some(skipped) = c.steps_skipped.filter(|n| *n > 0) {
        lines.push(format!("- Steps skipped: {skipped}"));
    }
    if !c.issues_encountered.is_empty() {
        lines.push(String::new());
        lines.push("**Issues Encountered**:".to_string());
        for issue in &c.issues_encountered {
            lines.push(format!("  - {issue}"));
        }
    }
    if let Some(recommendations) = &c.recommendations {
        lines.push(String::new());
        lines.push(format!("**Recommendations**: {recommendations}"));
    }
    lines.push(String::new());
    lines.push("---".to_string());
    lines.join("\n")
}

#[async_trait]
impl ToolHandler for CompletePlanHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::COMPLETE_PLAN.to_string(),
            description: "Mark the current plan as complete and provide a summary of what was accomplished.\nUse this as the final step after all planned work is done.\nInclude any issues encountered and their resolutions.\nCall it once, after the last step ended (completed, failed or skipped); not while work remains. Returns the completion record as stored; the plan's status becomes completed or failed.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "status": {"type": "string", "enum": ["success", "partial_success", "failed"], "description": "Overall completion status"},
                    "summary": {"type": "string", "description": "Summary of what was accomplished"},
                    "steps_completed": {"type": "integer", "description": "Number of steps that completed successfully (default: counted from the plan)"},
                    "steps_failed": {"type": "integer", "description": "Number of steps that failed (default: counted from the plan)"},
                    "steps_skipped": {"type": "integer", "description": "Number of steps that were skipped (default: counted from the plan)"},
                    "issues_encountered": {"type": "array", "items": {"type": "string"}, "description": "List of issues that were encountered"},
                    "recommendations": {"type": "string", "description": "Any follow-up recommendations for the user"},
                    "id": {"type": "string", "description": "Plan id (default: the session's current plan)"}
                },
                "required": ["status", "summary"]
            }),
        }
    }

    /// Plan tools apply one at a time, in call order.
    fn runs_alone(&self) -> bool {
        true
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        let status = args["status"].as_str().unwrap_or("unknown");
        format!("Would complete plan with status: {status}.")
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: Args = parse_args(&call.arguments)?;
        let status_text = args
            .status
            .ok_or_else(|| fail("status is required (success, partial_success or failed)."))?;
        let status = parse_status(&status_text).ok_or_else(|| {
            fail(format!(
                "status must be success, partial_success or failed, not '{status_text}'."
            ))
        })?;
        let summary = clean(args.summary.as_deref())
            .ok_or_else(|| fail("summary is required (what was accomplished)."))?;
        update_and_emit(ctx, args.id.as_deref(), |doc| {
            // Counts the model leaves out are read from the plan itself.
            let count = |wanted: PlanStepStatus| {
                doc.plan.plan.iter().filter(|s| s.status == wanted).count() as u32
            };
            let completion = PlanCompletion {
                status,
                summary,
                steps_completed: Some(
                    args.steps_completed
                        .unwrap_or(count(PlanStepStatus::Completed)),
                ),
                steps_failed: Some(args.steps_failed.unwrap_or(count(PlanStepStatus::Failed))),
                steps_skipped: Some(args.steps_skipped.unwrap_or(count(PlanStepStatus::Skipped))),
                issues_encountered: args
                    .issues_encountered
                    .iter()
                    .filter_map(|i| clean(Some(i)))
                    .collect(),
                recommendations: clean(args.recommendations.as_deref()),
            };
            let text = completed_text(&completion);
            doc.plan.status = Some(match status {
                CompletionStatus::Success => PlanStatus::Completed,
                CompletionStatus::PartialSuccess => PlanStatus::PartialSuccess,
                CompletionStatus::Failed => PlanStatus::Failed,
            });
            doc.plan.completion = Some(completion);
            Ok(text)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::create_plan::CreatePlanHandler;
    use super::super::plan_support::testing::{context, plan_updates, run};
    use super::super::update_plan_structured::StructuredUpdatePlanHandler;
    use super::*;

    async fn plan_with_outcomes() -> (
        tempfile::TempDir,
        ToolContext,
        tokio::sync::mpsc::UnboundedReceiver<cairn_protocol::Event>,
    ) {
        let (dir, ctx, mut rx) = context(None);
        run(
            &CreatePlanHandler,
            &ctx,
            json!({"goal": "g", "steps": ["a", "b", "c", "d"]}),
        )
        .await
        .unwrap();
        for (action, n) in [
            ("complete_step", 1),
            ("complete_step", 2),
            ("fail_step", 3),
            ("skip_step", 4),
        ] {
            run(
                &StructuredUpdatePlanHandler,
                &ctx,
                json!({"action": action, "step_number": n}),
            )
            .await
            .unwrap();
        }
        plan_updates(&mut rx);
        (dir, ctx, rx)
    }

    #[tokio::test]
    async fn counts_come_from_the_plan_unless_given() {
        let (_dir, ctx, mut rx) = plan_with_outcomes().await;
        let out = run(
            &CompletePlanHandler,
            &ctx,
            json!({"status": "partial_success", "summary": "Mostly done"}),
        )
        .await
        .unwrap();
        assert_eq!(
            out,
            "---\n## Plan Completed\n\n**Status**: [PARTIAL] partial_success\n\n**Summary**: Mostly done\n\n- Steps completed: 2\n- Steps failed: 1\n- Steps skipped: 1\n\n---"
        );
        let updates = plan_updates(&mut rx);
        assert_eq!(updates.len(), 1);
        let plan = &updates[0];
        assert_eq!(plan.status, Some(PlanStatus::PartialSuccess));
        assert_eq!(
            plan.progress(),
            (2, 4),
            "failed and skipped steps are not done"
        );
        let completion = plan.completion.as_ref().unwrap();
        assert_eq!(
            (
                completion.steps_completed,
                completion.steps_failed,
                completion.steps_skipped
            ),
            (Some(2), Some(1), Some(1))
        );
        let id = plan.id.clone().unwrap();
        assert_eq!(&ctx.shared.plans.load(&id).unwrap().plan, plan);
    }

    #[tokio::test]
    async fn given_counts_issues_and_recommendations_are_shown() {
        let (_dir, ctx, mut rx) = plan_with_outcomes().await;
        let out = run(
            &CompletePlanHandler,
            &ctx,
            json!({"status": "failed", "summary": "Could not fix", "steps_completed": 3, "steps_failed": 0,
                   "steps_skipped": 0, "issues_encountered": ["flaky test", "slow build"],
                   "recommendations": "Pin the toolchain"}),
        )
        .await
        .unwrap();
        assert_eq!(
            out,
            "---\n## Plan Completed\n\n**Status**: [FAILED] failed\n\n**Summary**: Could not fix\n\n- Steps completed: 3\n\n**Issues Encountered**:\n  - flaky test\n  - slow build\n\n**Recommendations**: Pin the toolchain\n\n---"
        );
        let plan = plan_updates(&mut rx).remove(0);
        assert_eq!(plan.status, Some(PlanStatus::Failed));
        assert_eq!(plan.completion.unwrap().issues_encountered.len(), 2);
    }

    #[tokio::test]
    async fn bad_arguments_are_explained() {
        let (_dir, ctx, mut rx) = context(None);
        let cases = [
            (
                json!({"summary": "s"}),
                "Failed to complete plan: status is required (success, partial_success or failed).",
            ),
            (
                json!({"status": "done", "summary": "s"}),
                "Failed to complete plan: status must be success, partial_success or failed, not 'done'.",
            ),
            (
                json!({"status": "success"}),
                "Failed to complete plan: summary is required (what was accomplished).",
            ),
            (
                json!({"status": "success", "summary": "s"}),
                "No plan exists for this session yet. Call create_plan first, or pass the id of a stored plan.",
            ),
        ];
        for (args, expected) in cases {
            assert_eq!(
                run(&CompletePlanHandler, &ctx, args).await.unwrap_err(),
                expected
            );
        }
        assert!(plan_updates(&mut rx).is_empty());
    }

    #[test]
    fn describe_is_the_dry_run_sentence() {
        assert_eq!(
            CompletePlanHandler.describe(r#"{"status":"success","summary":"x"}"#),
            "Would complete plan with status: success."
        );
    }
}

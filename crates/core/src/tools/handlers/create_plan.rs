//! `create_plan` (structured planning): store a new plan document from the model's goal and
//! steps, make it the session's current plan, and answer with the spec's
//! "## Execution Plan Created" text and the plan id.
//!
//! Accepts the structured-planning schema (goal, step objects) and the plan-documents form
//! (title, objective, steps as strings).

use super::plan_support::{clean, clean_tool_names, save_and_emit};
use crate::tools::{
    ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names, parse_args,
};
use async_trait::async_trait;
use cairn_protocol::{Plan, PlanStep, PlanStepStatus};
use serde::Deserialize;
use serde_json::{Value, json};

/// Handler of `create_plan`.
pub struct CreatePlanHandler;

#[derive(Debug, Deserialize)]
struct Args {
    goal: Option<String>,
    title: Option<String>,
    objective: Option<String>,
    steps: Option<Vec<Value>>,
    verification_approach: Option<String>,
    estimated_tool_calls: Option<u32>,
    rollback_strategy: Option<String>,
}

fn fail(message: impl std::fmt::Display) -> ToolError {
    ToolError::RespondToModel(format!("Failed to create plan: {message}"))
}

/// One step from the model: a string, or an object of the structured schema. `position` is
/// 1-based.
fn step_from(value: &Value, position: usize) -> Result<PlanStep, ToolError> {
    if let Some(text) = value.as_str() {
        let text = clean(Some(text)).ok_or_else(|| fail(format!("step {position} is empty.")))?;
        let mut step = PlanStep::new(text, PlanStepStatus::Pending);
        step.number = Some(position as u32);
        return Ok(step);
    }
    let Some(object) = value.as_object() else {
        return Err(fail(format!(
            "step {position} must be an object with step_number and description, or a string."
        )));
    };
    if let Some(number) = object.get("step_number").filter(|n| !n.is_null())
        && number.as_u64() != Some(position as u64)
    {
        return Err(fail(format!(
            "step_number must run 1, 2, 3, ... in order; step {position} has step_number {number}."
        )));
    }
    let text = clean(object.get("description").and_then(Value::as_str))
        .ok_or_else(|| fail(format!("step {position} has no description.")))?;
    let mut step = PlanStep::new(text, PlanStepStatus::Pending);
    step.number = Some(position as u32);
    step.tools_to_use = object
        .get("tools_to_use")
        .and_then(Value::as_array)
        .map(|tools| clean_tool_names(tools.iter().filter_map(Value::as_str)))
        .unwrap_or_default();
    step.success_criteria = clean(object.get("success_criteria").and_then(Value::as_str));
    step.depends_on = match object.get("depends_on").and_then(Value::as_array) {
        Some(deps) => deps
            .iter()
            .map(|d| {
                d.as_u64().map(|d| d as u32).ok_or_else(|| {
                    fail(format!(
                        "depends_on of step {position} must list step numbers."
                    ))
                })
            })
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    step.is_verification = object
        .get("is_verification")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(step)
}

/// The plan the arguments describe, and the goal to show.
fn plan_from(args: Args) -> Result<(Plan, String), ToolError> {
    let goal = clean(args.goal.as_deref());
    let title = clean(args.title.as_deref());
    let objective = clean(args.objective.as_deref());
    let shown_goal = goal
        .clone()
        .or_else(|| objective.clone())
        .or_else(|| title.clone())
        .ok_or_else(|| fail("goal is required (the objective this plan accomplishes)."))?;
    let steps = args
        .steps
        .ok_or_else(|| fail("steps is required (the ordered list of steps)."))?;
    if steps.is_empty() {
        return Err(fail("steps must list at least one step."));
    }
    let steps: Vec<PlanStep> = steps
        .iter()
        .enumerate()
        .map(|(i, v)| step_from(v, i + 1))
        .collect::<Result<_, _>>()?;
    let count = steps.len() as u32;
    for step in &steps {
        if let Some(bad) = step.depends_on.iter().find(|d| **d == 0 || **d > count) {
            return Err(fail(format!(
                "step {} depends on step {bad}, which does not exist (the plan has {count} steps).",
                step.number.unwrap_or_default()
            )));
        }
    }
    let plan = Plan {
        title: title
            .clone()
            .or_else(|| goal.clone())
            .or_else(|| objective.clone()),
        // With both a title and a goal, the goal is the objective.
        explanation: if title.is_some() {
            objective.or(goal)
        } else {
            objective
        },
        plan: steps,
        verification_approach: clean(args.verification_approach.as_deref()),
        rollback_strategy: clean(args.rollback_strategy.as_deref()),
        estimated_tool_calls: args.estimated_tool_calls,
        ..Plan::default()
    };
    Ok((plan, shown_goal))
}

/// The spec's result text.
fn created_text(plan: &Plan, goal: &str, id: &str) -> String {
    let mut lines = vec![
        "## Execution Plan Created".to_string(),
        String::new(),
        format!("**Goal**: {goal}"),
        String::new(),
        format!("**Steps** ({}):", plan.plan.len()),
    ];
    for (index, step) in plan.plan.iter().enumerate() {
        lines.push(format!("  {}. {}", index + 1, step.step));
    }
    lines.push(String::new());
    lines.push(format!(
        "**Verification**: {}",
        plan.verification_approach
            .as_deref()
            .unwrap_or("Visual verification")
    ));
    lines.push(String::new());
    lines.push("Plan is ready. Proceeding with execution...".to_string());
    lines.push(String::new());
    lines.push(format!("Plan id: {id}"));
    lines.join("\n")
}

#[async_trait]
impl ToolHandler for CreatePlanHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::CREATE_PLAN.to_string(),
            description: "Create a structured execution plan before performing complex multi-step operations.\nUse this tool when a user request requires multiple tools, careful sequencing, or verification steps.\nThe plan helps track progress and ensures all steps are completed successfully. It is stored as a document; the result gives its id. Track progress with update_plan and finish with complete_plan.\nDo not create a plan for a question, a single edit or anything done in two or three calls.\n\nReturns the plan as stored (goal, numbered steps, verification) with its id. Example: {\"goal\": \"Add --json output to `list`\", \"steps\": [{\"step_number\": 1, \"description\": \"Add the flag to the parser\", \"tools_to_use\": [\"edit_file\"]}, {\"step_number\": 2, \"description\": \"Run the CLI tests\", \"tools_to_use\": [\"shell\"], \"depends_on\": [1], \"is_verification\": true}]}".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "goal": {"type": "string", "description": "The overall objective this plan will accomplish"},
                    "steps": {
                        "type": "array",
                        "description": "Ordered list of steps to execute",
                        "items": {
                            "type": "object",
                            "properties": {
                                "step_number": {"type": "integer", "description": "Step number (1-based)"},
                                "description": {"type": "string", "description": "What this step accomplishes"},
                                "tools_to_use": {"type": "array", "items": {"type": "string"}, "description": "Tool names that will be called in this step"},
                                "success_criteria": {"type": "string", "description": "How to verify this step succeeded"},
                                "depends_on": {"type": "array", "items": {"type": "integer"}, "description": "Step numbers that must complete first"},
                                "is_verification": {"type": "boolean", "description": "True if this is a verification/QC step"}
                            },
                            "required": ["step_number", "description"]
                        }
                    },
                    "verification_approach": {"type": "string", "description": "How results will be verified (e.g., 'run the test suite and read the failures')"},
                    "estimated_tool_calls": {"type": "integer", "description": "Approximate number of tool calls needed"},
                    "rollback_strategy": {"type": "string", "description": "How to handle failures (e.g., 'revert the step and retry with a different approach')"}
                },
                "required": ["goal", "steps"]
            }),
        }
    }

    /// Plan tools run one at a time, in call order: two calls in one response must not race
    /// on the same document. Nothing here asks for approval.
    fn runs_alone(&self) -> bool {
        true
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        let goal = ["goal", "title", "objective"]
            .iter()
            .find_map(|k| args[*k].as_str())
            .unwrap_or("unknown goal");
        let steps = args["steps"].as_array().map_or(0, Vec::len);
        format!("Would create plan for '{goal}' with {steps} steps.")
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: Args = parse_args(&call.arguments)?;
        let (plan, goal) = plan_from(args)?;
        let mut doc = ctx
            .shared
            .plans
            .create(plan, Some(&ctx.shared.conversation_id))
            .map_err(|e| fail(format!("{e}. Check that the plans directory is writable.")))?;
        save_and_emit(ctx, &mut doc)?;
        let created = created_text(&doc.plan, &goal, doc.id());
        if !ctx.config().require_plan_approval {
            return Ok(created);
        }
        // `[tools] require_plan_approval`: the user reviews the plan before the model hears
        // back (plan_approval.rs).
        Ok(match super::plan_approval::review(ctx, &doc).await? {
            super::plan_approval::Review::Approved(note) => format!("{created}\n\n{note}"),
            super::plan_approval::Review::Rejected(note) => format!(
                "{}\n\n{note}",
                created.replace(
                    "Plan is ready. Proceeding with execution...",
                    "Plan is a draft: the user did not approve it."
                )
            ),
        })
    }
}

#[cfg(test)]
#[path = "create_plan_tests.rs"]
mod tests;

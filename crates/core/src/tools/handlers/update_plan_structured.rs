//! `update_plan` for structured planning: one action per call on a stored plan (start,
//! complete, fail or skip a step, add a step, record a note, or revise the whole plan through
//! one model call). Result texts are the spec's ("**Step 2**: Completed\nResult: ...").

use super::plan_support::{clean, clean_tool_names, mark_started, target, update_and_emit};
use crate::plans::{document, revise};
use crate::tools::{
    ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names, parse_args,
};
use async_trait::async_trait;
use cairn_protocol::{Plan, PlanStep, PlanStepStatus};
use serde::Deserialize;
use serde_json::json;

/// Handler of the structured `update_plan`.
pub struct StructuredUpdatePlanHandler;

#[derive(Debug, Deserialize)]
struct Args {
    action: String,
    id: Option<String>,
    step_number: Option<i64>,
    result: Option<String>,
    reason: Option<String>,
    new_step: Option<NewStep>,
    note: Option<String>,
    description: Option<String>,
}

#[derive(Debug, Deserialize)]
struct NewStep {
    description: Option<String>,
    after_step: Option<i64>,
    #[serde(default)]
    tools_to_use: Vec<String>,
    success_criteria: Option<String>,
    #[serde(default)]
    is_verification: bool,
}

const ACTIONS: [&str; 7] = [
    "start_step",
    "complete_step",
    "fail_step",
    "skip_step",
    "add_step",
    "note",
    "revise",
];

fn fail(message: impl std::fmt::Display) -> ToolError {
    ToolError::RespondToModel(format!("Failed to update plan: {message}"))
}

/// Index of step `number` in `plan`.
fn step_index(plan: &Plan, number: i64) -> Result<usize, ToolError> {
    let count = plan.plan.len();
    plan.plan
        .iter()
        .enumerate()
        .position(|(i, s)| i64::from(s.number.unwrap_or(i as u32 + 1)) == number)
        .ok_or_else(|| {
            fail(format!(
                "step {number} does not exist; the plan has {count} steps (1-{count})."
            ))
        })
}

/// Insert `step` after position `after` (0 = first) and renumber: every step gets its
/// position, and dependencies on moved steps follow them.
fn insert_step(plan: &mut Plan, after: usize, mut step: PlanStep) {
    for existing in &mut plan.plan {
        for dep in &mut existing.depends_on {
            if *dep as usize > after {
                *dep += 1;
            }
        }
    }
    step.number = Some(after as u32 + 1);
    plan.plan.insert(after, step);
    for (index, step) in plan.plan.iter_mut().enumerate() {
        step.number = Some(index as u32 + 1);
    }
}

#[async_trait]
impl ToolHandler for StructuredUpdatePlanHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::UPDATE_PLAN.to_string(),
            description: "Update the current plan's progress. Use this to:\n- Mark a step as started (in_progress)\n- Mark a step as completed with result\n- Mark a step as failed with reason\n- Add new steps discovered during execution\n- Skip steps that are no longer needed\n- Record observations or learnings\n- Revise the plan as a whole (action revise, with a description of the change)\nOne action per call. Without id, the session's current plan is updated.\nReturns the step's new state, or the revised plan. Call it as soon as a step starts or ends, not all at the end. Example: {\"action\": \"complete_step\", \"step_number\": 2, \"result\": \"All 14 CLI tests pass\"}".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "action": {
                        "type": "string",
                        "enum": ACTIONS,
                        "description": "The type of update to make"
                    },
                    "id": {"type": "string", "description": "Plan id (default: the session's current plan)"},
                    "step_number": {"type": "integer", "description": "The step number being updated"},
                    "result": {"type": "string", "description": "Result or outcome of the step (for complete_step)"},
                    "reason": {"type": "string", "description": "Reason for failure or skip (for fail_step, skip_step)"},
                    "new_step": {
                        "type": "object",
                        "description": "New step to add (for add_step action)",
                        "properties": {
                            "description": {"type": "string", "description": "What the new step accomplishes"},
                            "after_step": {"type": "integer", "description": "Insert after this step (0 = first; default: at the end)"},
                            "tools_to_use": {"type": "array", "items": {"type": "string"}, "description": "Tool names the step will call"},
                            "success_criteria": {"type": "string", "description": "How to verify the step succeeded"},
                            "is_verification": {"type": "boolean", "description": "True if this is a verification step"}
                        }
                    },
                    "note": {"type": "string", "description": "Observation or learning to record (for note action)"},
                    "description": {"type": "string", "description": "The change to make to the whole plan (for revise), e.g. 'split step 3 into a migration and a backfill'"}
                },
                "required": ["action"]
            }),
        }
    }

    /// Actions apply one at a time, in call order.
    fn runs_alone(&self) -> bool {
        true
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        let action = args["action"].as_str().unwrap_or("unknown");
        let step = args["step_number"].as_i64().unwrap_or(0);
        format!("Would {action} for step {step}.")
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: Args = parse_args(&call.arguments)?;
        let action = args.action.as_str();
        if !ACTIONS.contains(&action) {
            return Err(ToolError::RespondToModel(format!(
                "Unknown action: {action}. Use one of: {}.",
                ACTIONS.join(", ")
            )));
        }
        let needs_step = matches!(
            action,
            "start_step" | "complete_step" | "fail_step" | "skip_step"
        );
        let step_number = match (needs_step, args.step_number) {
            (true, None) => return Err(fail(format!("step_number is required for {action}."))),
            (_, n) => n.unwrap_or_default(),
        };
        let new_step = match action {
            "add_step" => {
                let new_step = args.new_step.ok_or_else(|| {
                    fail("new_step is required for add_step ({\"description\": ..., \"after_step\": N}).")
                })?;
                let text = clean(new_step.description.as_deref())
                    .ok_or_else(|| fail("new_step.description is required for add_step."))?;
                Some((text, new_step))
            }
            _ => None,
        };
        let note = clean(args.note.as_deref());
        if action == "note" && note.is_none() {
            return Err(fail("note is required for the note action."));
        }
        let change = clean(args.description.as_deref());
        if action == "revise" && change.is_none() {
            return Err(fail(
                "description is required for revise (say what to change in the plan).",
            ));
        }

        if action == "revise" {
            return revise_plan(ctx, args.id.as_deref(), &change.unwrap_or_default()).await;
        }
        update_and_emit(ctx, args.id.as_deref(), |doc| {
            let text = match action {
                "start_step" | "complete_step" | "fail_step" | "skip_step" => {
                    super::plan_approval::check_approved(ctx, doc)?;
                    let index = step_index(&doc.plan, step_number)?;
                    let step = &mut doc.plan.plan[index];
                    let result = clean(args.result.as_deref());
                    let reason = clean(args.reason.as_deref());
                    let text = match action {
                        "start_step" => {
                            step.status = PlanStepStatus::InProgress;
                            step.result = None;
                            step.reason = None;
                            format!("**Step {step_number}**: Started")
                        }
                        "complete_step" => {
                            step.status = PlanStepStatus::Completed;
                            step.reason = None;
                            let shown = result.clone().unwrap_or("Completed successfully".into());
                            step.result = result;
                            format!("**Step {step_number}**: Completed\nResult: {shown}")
                        }
                        "fail_step" => {
                            step.status = PlanStepStatus::Failed;
                            step.result = None;
                            let shown = reason.clone().unwrap_or("Unknown reason".into());
                            step.reason = reason;
                            format!("**Step {step_number}**: Failed\nReason: {shown}")
                        }
                        _ => {
                            step.status = PlanStepStatus::Skipped;
                            step.result = None;
                            let shown = reason.clone().unwrap_or("No longer needed".into());
                            step.reason = reason;
                            format!("**Step {step_number}**: Skipped\nReason: {shown}")
                        }
                    };
                    mark_started(doc);
                    text
                }
                "add_step" => {
                    let Some((text, new_step)) = new_step else {
                        return Err(fail("new_step is required for add_step."));
                    };
                    let count = doc.plan.plan.len() as i64;
                    let after = new_step.after_step.unwrap_or(count);
                    if !(0..=count).contains(&after) {
                        return Err(fail(format!(
                            "after_step {after} does not exist; use 0 to insert first, or 1-{count}."
                        )));
                    }
                    let mut step = PlanStep::new(text.clone(), PlanStepStatus::Pending);
                    step.tools_to_use =
                        clean_tool_names(new_step.tools_to_use.iter().map(String::as_str));
                    step.success_criteria = clean(new_step.success_criteria.as_deref());
                    step.is_verification = new_step.is_verification;
                    insert_step(&mut doc.plan, after as usize, step);
                    format!("**New Step Added** (after step {after}):\n  {text}")
                }
                _ => {
                    let note = note.unwrap_or_default();
                    doc.plan.notes.push(note.clone());
                    format!("**Note**: {note}")
                }
            };
            Ok(text)
        })
    }
}

/// `revise`: the model rewrites the plan, which is saved only if nobody changed it in the
/// meantime (the revision was made from the text as it was before).
async fn revise_plan(
    ctx: &ToolContext,
    id: Option<&str>,
    change: &str,
) -> Result<String, ToolError> {
    let base = target(ctx, id)?;
    let client = ctx.shared.client.clone().ok_or_else(|| {
        fail("revise needs a model, and none is configured. Use the other actions.")
    })?;
    let model = ctx.shared.settings().model;
    let revised = revise::revise(client.as_ref(), &model, &base, change)
        .await
        .map_err(|e| {
            ToolError::RespondToModel(format!(
                "Could not revise the plan: {e}. The plan is unchanged; describe the change again more precisely, or use the other update_plan actions."
            ))
        })?;
    let text = format!(
        "**Plan Revised**\n\n{}",
        document::render_body(&revised.plan)
    );
    // `[tools] require_plan_approval`: changed steps make the plan a draft the user reviews.
    let review = ctx.config().require_plan_approval
        && super::plan_approval::steps_changed(&base.plan, &revised.plan);
    let doc = update_and_emit(ctx, Some(base.id()), |doc| {
        if doc.plan != base.plan {
            return Err(fail(
                "the plan changed while it was being revised (another session or agent updated it). It is unchanged by this call; read it with read_plan and describe the change again.",
            ));
        }
        doc.plan = revised.plan;
        if review {
            doc.plan.status = Some(cairn_protocol::PlanStatus::Draft);
        }
        Ok(doc.clone())
    })?;
    if !review {
        return Ok(text);
    }
    Ok(match super::plan_approval::review(ctx, &doc).await? {
        super::plan_approval::Review::Approved(note)
        | super::plan_approval::Review::Rejected(note) => format!("{text}\n\n{note}"),
    })
}

#[cfg(test)]
#[path = "update_plan_structured_tests.rs"]
mod tests;

//! Structured plan approval (`[tools] require_plan_approval = true`): a plan `create_plan`
//! stored, or one a `revise` changed the steps of, is put to the user before the model hears
//! back, in the same review widget as plan mode.
//!
//! The plan is saved as a draft first. Only the user's `plan_approval` op marks it approved
//! (in cairn's record, never from the document's text); a rejection leaves it a draft and
//! the model gets the feedback. `cairn exec` answers for the user: `--approve-plan`
//! approves, without it the call is refused with how to allow it. While a plan is a draft,
//! `update_plan` refuses to start or finish its steps ([`check_approved`]).

use super::diff;
use crate::plans::{PlanDocument, document};
use crate::session::shared::{Reply, ReplyKey};
use crate::tools::{ToolContext, ToolError};
use cairn_protocol::{EventMsg, Plan, PlanStatus};

/// What the review decided, as text for the model.
pub(super) enum Review {
    /// Approved (the plan is now `approved`); the text says so, with the user's edits.
    Approved(String),
    /// Not approved (the plan stays a draft); the text says why and what to do.
    Rejected(String),
}

/// Whether the steps of `a` and `b` differ in what they ask for (text, tools, criteria,
/// dependencies, verification); progress (status, result, reason) does not count.
pub(super) fn steps_changed(a: &Plan, b: &Plan) -> bool {
    let key = |plan: &Plan| {
        plan.plan
            .iter()
            .map(|s| {
                (
                    s.step.clone(),
                    s.tools_to_use.clone(),
                    s.success_criteria.clone(),
                    s.depends_on.clone(),
                    s.is_verification,
                )
            })
            .collect::<Vec<_>>()
    };
    key(a) != key(b)
}

/// Refuse work on a plan the user has not approved, when approval is required.
pub(super) fn check_approved(ctx: &ToolContext, doc: &PlanDocument) -> Result<(), ToolError> {
    if ctx.config().require_plan_approval && doc.status() == PlanStatus::Draft {
        return Err(ToolError::RespondToModel(format!(
            "Plan {} is a draft the user has not approved ([tools] require_plan_approval), so its steps cannot be worked on. Revise it as the user asked (update_plan action revise; the user reviews the revised plan), or create a new plan with create_plan.",
            doc.id()
        )));
    }
    Ok(())
}

/// Put `doc` (saved, a draft) to the user and wait for the answer.
pub(super) async fn review(ctx: &ToolContext, doc: &PlanDocument) -> Result<Review, ToolError> {
    let id = doc.id().to_string();
    let path = ctx.shared.plans.path_of(&id);
    // A delegated run asks through the user's front end: its call id is made unique there.
    let reply_id = match &ctx.shared.delegation.run {
        Some(run) => format!("{}:{}", run.run_id, ctx.call_id),
        None => ctx.call_id.clone(),
    };
    let Some(waiting) = ctx
        .shared
        .replies
        .register(ReplyKey::Call(reply_id.clone()))
    else {
        return Err(ToolError::RespondToModel(format!(
            "Another call with id {} is already waiting for the user; use a unique call id.",
            ctx.call_id
        )));
    };
    let plan_content = document::render_body(&doc.plan);
    ctx.emit(EventMsg::PlanApprovalRequest {
        call_id: reply_id,
        plan_id: id.clone(),
        plan_content,
        plan_file_path: path,
    });
    let reply = tokio::select! {
        _ = ctx.cancel.cancelled() => {
            return Err(ToolError::RespondToModel(format!(
                "Interrupted by the user before plan {id} was reviewed; it stays a draft."
            )));
        }
        reply = waiting => reply,
    };
    let (approved, feedback) = match reply {
        Ok(Reply::PlanDecision { approved, feedback }) => (approved, feedback),
        _ => (false, None),
    };
    let feedback = feedback
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(str::to_string);
    if !approved {
        return Ok(Review::Rejected(rejection_text(
            ctx,
            &id,
            feedback.as_deref(),
        )));
    }
    // The user may have edited the document during review (`e`): what they approved is the
    // document as it is now.
    let drafted = doc.plan.clone();
    let saved = ctx.shared.plans.update(&id, |now: &mut PlanDocument| {
        now.plan.status = Some(PlanStatus::Approved);
        Ok::<_, ToolError>(now.plan.clone())
    });
    let approved_plan = match saved {
        Ok(Ok((doc, plan))) => {
            ctx.emit(EventMsg::PlanUpdate(doc.plan.clone()));
            plan
        }
        Ok(Err(e)) => return Err(e),
        Err(e) => {
            return Err(ToolError::RespondToModel(format!(
                "The user approved plan {id}, but it could not be saved as approved: {e}. If the user edited it, its text may no longer be a plan document; ask the user to fix it."
            )));
        }
    };
    let mut text = format!("The user approved plan {id}. Work on it now.");
    if steps_changed(&drafted, &approved_plan)
        || drafted.title != approved_plan.title
        || drafted.explanation != approved_plan.explanation
    {
        let before = document::render_body(&drafted);
        let after = document::render_body(&approved_plan);
        let changes = diff::unified(Some(&before), Some(&after), "plan.md");
        text.push_str(&format!(
            " The user edited the plan before approving it: follow the approved plan below, not your draft.\n\nThe user's changes:\n```diff\n{}\n```\n\nThe approved plan:\n\n{}",
            changes.trim_end(),
            after.trim_end()
        ));
    }
    if let Some(feedback) = feedback {
        text.push_str(&format!("\n\nUser feedback: {feedback}"));
    }
    Ok(Review::Approved(text))
}

fn rejection_text(ctx: &ToolContext, id: &str, feedback: Option<&str>) -> String {
    if !ctx.shared.interactive {
        return format!(
            "Plan {id} needs the user's approval ([tools] require_plan_approval = true), but no user is available to approve it (cairn exec), so it was not approved and stays a draft: do not work on it. Report the plan as your answer and finish. (The user can approve plans in cairn exec with --approve-plan, or turn off `require_plan_approval` in [tools] of config.toml.)"
        );
    }
    let mut text = format!(
        "The user rejected plan {id}; it stays a draft and must not be worked on. Change it as the user asks with update_plan action revise (the user reviews the revised plan again), or ask the user what they want."
    );
    if let Some(feedback) = feedback {
        text.push_str(&format!("\n\nUser feedback: {feedback}"));
    }
    text
}

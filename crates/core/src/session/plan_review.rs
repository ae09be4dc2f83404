//! `/plan review`: the user reopens the plan review after the turn that asked for it ended
//! (an interrupt closes the review with its turn).
//!
//! Nothing waits for a reopened review, so the submission loop keeps it and applies the
//! user's decision exactly as `exit_plan_mode` does; the model is told the same words, as
//! the start of a turn of its own.

use super::shared::{ReplyKey, SessionShared, lock};
use crate::history::ResponseItem;
use crate::plans::regular_file;
use crate::tools::handlers::exit_plan_mode;
use cairn_protocol::EventMsg;
use std::path::PathBuf;

/// A plan put to the user again, waiting for their decision.
#[derive(Debug, Clone)]
pub(crate) struct ReopenedReview {
    /// The plan file, fixed when plan mode was entered.
    pub plan_file: PathBuf,
    /// Its text as the user was shown it (the user may edit it during the review).
    pub drafted: String,
}

/// Put the plan file to the user again. Returns the review to keep and the event that shows
/// it, or the error to show instead.
pub(super) fn reopen(
    shared: &SessionShared,
    task_running: bool,
) -> Result<(ReopenedReview, EventMsg), String> {
    if task_running {
        return Err(if shared.replies.is_waiting(&ReplyKey::PlanApproval) {
            "The plan is already waiting for your review.".to_string()
        } else {
            "A turn is running: wait for it to finish, or interrupt it, then ask for the plan review again.".to_string()
        });
    }
    let plan_file = lock(&shared.plan_mode)
        .active_plan_file()
        .map(|path| path.to_path_buf())
        .ok_or_else(|| {
            "Plan mode is off, so no plan is waiting for review. Enter plan mode to plan a change."
                .to_string()
        })?;
    let drafted = match regular_file::read_to_string(&plan_file) {
        Ok(text) => text,
        Err(err) if err.is_not_found() => {
            return Err(format!(
                "There is no plan to review yet: the model has not written the plan file {}. Ask it to continue planning.",
                plan_file.display()
            ));
        }
        Err(err) => {
            return Err(format!(
                "The plan file {} {err}; it cannot be reviewed.",
                plan_file.display()
            ));
        }
    };
    let event = EventMsg::PlanModeExitRequest {
        plan_content: drafted.clone(),
        plan_file_path: plan_file.clone(),
    };
    Ok((ReopenedReview { plan_file, drafted }, event))
}

/// Apply the user's decision on a reopened review. Returns the event announcing it and
/// what the model must be told now, if anything: an approval, or a plan sent back with
/// feedback, starts a turn; a plan sent back without a word only waits for the user's next
/// message (the model is told then), so closing the review costs no model call.
pub(super) fn decide(
    shared: &SessionShared,
    review: &ReopenedReview,
    approved: bool,
    feedback: Option<&str>,
) -> Result<(EventMsg, Option<String>), String> {
    // The loop drops a review when plan mode changes; this guards the invariant.
    if lock(&shared.plan_mode).active_plan_file() != Some(review.plan_file.as_path()) {
        return Err(
            "Plan mode changed since the review opened, so nothing was decided.".to_string(),
        );
    }
    let (event, text) = exit_plan_mode::decide(
        shared,
        &review.plan_file,
        &review.drafted,
        approved,
        feedback,
    );
    let silent = !approved && feedback.is_none_or(|f| f.trim().is_empty());
    if silent {
        lock(&shared.history).push(ResponseItem::user(text));
        return Ok((event, None));
    }
    Ok((event, Some(text)))
}

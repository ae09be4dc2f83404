//! `/plan review`: the user reopens the plan review after the turn that asked for it ended
//! (an interrupt closes the review with its turn).
//!
//! Nothing waits for a reopened review, so the submission loop keeps it and the user's
//! decision starts a task of its own: the decision is applied exactly as `exit_plan_mode`
//! applies it, and the model is told the same words, as the start of its next turn.

use super::shared::{ReplyKey, SessionShared, lock};
use super::task::Task;
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

impl Task {
    /// Apply the user's decision on a reopened review; returns what the model is told.
    pub(super) fn apply_plan_decision(
        &self,
        review: ReopenedReview,
        approved: bool,
        feedback: Option<String>,
    ) -> String {
        let (event, text) = exit_plan_mode::decide(
            &self.shared,
            &review.plan_file,
            &review.drafted,
            approved,
            feedback.as_deref(),
        );
        self.emit(event);
        text
    }
}

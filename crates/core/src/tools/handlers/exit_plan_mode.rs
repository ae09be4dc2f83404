//! `exit_plan_mode`: ask the user to approve the plan file, and wait for the answer.
//!
//! Only the user's `plan_mode_approval` op ends plan mode; this call merely asks.

use crate::plan_mode::{APPROVED_TEXT, REJECTED_TEXT};
use crate::plans::regular_file;
use crate::session::shared::{Reply, ReplyKey, SessionShared, lock};
use crate::tools::{ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, names};
use async_trait::async_trait;
use cairn_protocol::EventMsg;
use serde_json::json;
use std::path::Path;

/// Handler of `exit_plan_mode`.
pub struct ExitPlanModeHandler;

#[async_trait]
impl ToolHandler for ExitPlanModeHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::EXIT_PLAN_MODE.to_string(),
            description: "Ask the user to approve your plan and end plan mode. Call it only in plan mode, once the plan is written to the plan file and ready for review; not to ask questions (use ask_user_question) and never outside plan mode. Takes no arguments: the user reads the plan file itself.\n\nWaits for the user's decision and returns it: `Plan approved. You can now start implementing the plan.` (plan mode has ended: implement the plan), or `Plan rejected. Please continue refining the plan.` followed by the user's feedback, if any (plan mode stays on: revise the plan file, then call this again). Fails if the plan file does not exist yet.".to_string(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        }
    }

    fn describe(&self, _arguments: &str) -> String {
        "Would ask the user to approve the plan".to_string()
    }

    fn runs_alone(&self) -> bool {
        true
    }

    async fn handle(&self, _call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let plan_file = {
            let state = lock(&ctx.shared.plan_mode);
            match state.active_plan_file() {
                Some(path) => path.to_path_buf(),
                None => {
                    return Err(ToolError::RespondToModel(
                        "Not in plan mode. Cannot exit.".to_string(),
                    ));
                }
            }
        };
        // Never blocks: a FIFO or device planted as the plan file is an error at once.
        let plan_content = match regular_file::read_to_string(&plan_file) {
            Ok(text) => text,
            Err(err) if err.is_not_found() => {
                return Err(ToolError::RespondToModel(format!(
                    "Plan file not found at {}. Please write your plan to this file before exiting.",
                    plan_file.display()
                )));
            }
            Err(err @ regular_file::ReadError::NotRegular(_)) => {
                return Err(ToolError::RespondToModel(format!(
                    "The plan file at {} {err}. Write your plan to it again with your file tool (write_file, or an apply_patch `*** Add File:`, replaces it with a regular file), then call exit_plan_mode again.",
                    plan_file.display()
                )));
            }
            Err(err) => {
                return Err(ToolError::RespondToModel(format!(
                    "Could not read the plan file at {}: it {err}. Rewrite it as UTF-8 text with your file tool (write_file, or an apply_patch `*** Add File:`), then call exit_plan_mode again.",
                    plan_file.display()
                )));
            }
        };
        // Register before emitting so an immediate answer cannot be lost.
        let Some(waiting) = ctx.shared.replies.register(ReplyKey::PlanApproval) else {
            return Err(ToolError::RespondToModel(
                "The plan is already waiting for the user's review; wait for that answer instead of calling exit_plan_mode again.".to_string(),
            ));
        };
        ctx.emit(EventMsg::PlanModeExitRequest {
            plan_content: plan_content.clone(),
            plan_file_path: plan_file.clone(),
        });
        let reply = tokio::select! {
            _ = ctx.cancel.cancelled() => {
                return Err(ToolError::RespondToModel("Interrupted by the user before the plan was reviewed.".into()));
            }
            reply = waiting => reply,
        };
        match reply {
            Ok(Reply::PlanDecision { approved, feedback }) => {
                let (event, text) = decide(
                    &ctx.shared,
                    &plan_file,
                    &plan_content,
                    approved,
                    feedback.as_deref(),
                );
                ctx.emit(event);
                // A sent-back plan is an answer, not a failed call.
                Ok(text)
            }
            Ok(_) | Err(_) => Err(ToolError::RespondToModel(REJECTED_TEXT.to_string())),
        }
    }
}

/// Apply the user's decision on the plan in `plan_file` (drafted as `drafted` when it was
/// put to them): approval ends plan mode and marks the plan document approved; a rejection
/// keeps plan mode on. Returns the event announcing it and the text the model is told. Used
/// by this tool and by a review the user reopened with `/plan review`.
pub(crate) fn decide(
    shared: &SessionShared,
    plan_file: &Path,
    drafted: &str,
    approved: bool,
    feedback: Option<&str>,
) -> (EventMsg, String) {
    if approved {
        lock(&shared.plan_mode).approve();
        shared.plans.on_plan_mode_approved(plan_file);
        // The user may have edited the plan during review (`e` in the TUI, or any editor):
        // what they approved is the file as it is now.
        let approved = regular_file::read_to_string(plan_file).unwrap_or_default();
        let event = EventMsg::PlanModeExited {
            approved: true,
            active: false,
        };
        return (event, approval_text(drafted, &approved, plan_file));
    }
    let mut text = REJECTED_TEXT.to_string();
    if let Some(feedback) = feedback.map(str::trim).filter(|f| !f.is_empty()) {
        text.push_str("\n\nUser feedback: ");
        text.push_str(feedback);
    }
    let event = EventMsg::PlanModeExited {
        approved: false,
        active: true,
    };
    (event, text)
}

/// The tool output on approval: the plain sentence, or, when the user changed the plan
/// during review, the sentence plus the user's changes and the plan as approved.
fn approval_text(drafted: &str, approved: &str, plan_file: &Path) -> String {
    if approved.trim().is_empty() || approved == drafted {
        return APPROVED_TEXT.to_string();
    }
    let diff = super::diff::unified(Some(drafted), Some(approved), "plan.md");
    format!(
        "{APPROVED_TEXT}\n\nThe user edited the plan before approving it. Implement the approved plan below, not your draft.\n\nThe user's changes:\n```diff\n{}\n```\n\nThe approved plan ({}):\n\n{}",
        diff.trim_end(),
        plan_file.display(),
        approved.trim_end()
    )
}

#[cfg(test)]
mod tests {
    use super::super::plan_support::testing::{context, run};
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_fifo_as_the_plan_file_is_an_error_not_a_hang() {
        let (dir, ctx, _rx) = context(None);
        let plan_file = lock(&ctx.shared.plan_mode)
            .enter(&dir.path().join("plans"), chrono::Utc::now())
            .unwrap();
        nix::unistd::mkfifo(&plan_file, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let answer = tokio::time::timeout(
            Duration::from_secs(60),
            run(&ExitPlanModeHandler, &ctx, json!({})),
        )
        .await
        .expect("exit_plan_mode hung on a FIFO plan file");
        let err = answer.unwrap_err();
        assert!(
            err.contains(
                "is a named pipe (FIFO), not a regular file. Write your plan to it again with your file tool"
            ),
            "{err}"
        );
    }
}

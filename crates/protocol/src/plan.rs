//! Plan types.
//!
//! Two layers live here:
//! - [`UpdatePlanArgs`] / [`PlanItem`] / [`StepStatus`]: the arguments of the checklist
//!   `update_plan` tool, exactly as `spec/update-plan-tool.md` fixes them (three statuses,
//!   unknown fields rejected).
//! - [`Plan`] / [`PlanStep`] / [`PlanStepStatus`]: the one plan model every front end renders.
//!   A checklist update becomes a `Plan` with only `explanation` and `plan` set, so its JSON is
//!   the same shape Codex clients know; structured plans fill in the optional fields.

use serde::{Deserialize, Serialize};

/// Status of one checklist step, as the model sends it to `update_plan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started yet.
    Pending,
    /// Being worked on now; at most one step should be in progress.
    InProgress,
    /// Done.
    Completed,
}

/// One checklist step in `update_plan` arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanItem {
    /// What the step does, in a short sentence.
    pub step: String,
    /// Where the step stands.
    pub status: StepStatus,
}

/// Arguments of the checklist `update_plan` tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdatePlanArgs {
    /// Optional note on why the plan changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// The whole checklist, in order.
    pub plan: Vec<PlanItem>,
}

/// Status of a step in the unified plan model (a superset of [`StepStatus`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStepStatus {
    /// Not started yet.
    Pending,
    /// Being worked on now.
    InProgress,
    /// Done.
    Completed,
    /// Attempted and failed; `reason` says why.
    Failed,
    /// Deliberately not done; `reason` says why.
    Skipped,
}

impl From<StepStatus> for PlanStepStatus {
    fn from(status: StepStatus) -> Self {
        match status {
            StepStatus::Pending => Self::Pending,
            StepStatus::InProgress => Self::InProgress,
            StepStatus::Completed => Self::Completed,
        }
    }
}

impl PlanStepStatus {
    /// True once the step needs no more work (completed, failed or skipped).
    pub fn is_settled(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Skipped)
    }
}

/// Lifecycle of a stored plan document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    /// Written but not yet approved or started.
    Draft,
    /// Approved by the user (plan mode).
    Approved,
    /// Work on it has started.
    InProgress,
    /// Finished successfully.
    Completed,
    /// Finished with part of the goal reached (`complete_plan` with `partial_success`).
    PartialSuccess,
    /// Finished with failure.
    Failed,
}

impl PlanStatus {
    /// The lowercase name used in front matter and listings.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Approved => "approved",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
            Self::PartialSuccess => "partial_success",
            Self::Failed => "failed",
        }
    }
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    /// What the step does.
    pub step: String,
    /// Where the step stands.
    pub status: PlanStepStatus,
    /// 1-based step number (structured plans).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u32>,
    /// Tools the model expects to use for this step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools_to_use: Vec<String>,
    /// How to tell the step succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_criteria: Option<String>,
    /// Step numbers that must complete first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<u32>,
    /// True for a verification / QC step.
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_verification: bool,
    /// Outcome recorded when the step completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Why the step failed or was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl PlanStep {
    /// A step with only text and status, as a checklist has.
    pub fn new(step: impl Into<String>, status: PlanStepStatus) -> Self {
        Self {
            step: step.into(),
            status,
            number: None,
            tools_to_use: Vec::new(),
            success_criteria: None,
            depends_on: Vec::new(),
            is_verification: false,
            result: None,
            reason: None,
        }
    }
}

/// Overall outcome recorded by `complete_plan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompletionStatus {
    /// Everything planned was done.
    Success,
    /// Some of it was done.
    PartialSuccess,
    /// The goal was not reached.
    Failed,
}

impl CompletionStatus {
    /// The snake_case name, as the model sends it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::PartialSuccess => "partial_success",
            Self::Failed => "failed",
        }
    }
}

/// The completion record of a structured plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanCompletion {
    /// Overall outcome.
    pub status: CompletionStatus,
    /// What was accomplished.
    pub summary: String,
    /// Steps completed, as reported by the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_completed: Option<u32>,
    /// Steps failed, as reported by the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_failed: Option<u32>,
    /// Steps skipped, as reported by the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_skipped: Option<u32>,
    /// Problems met on the way.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub issues_encountered: Vec<String>,
    /// Follow-up advice for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommendations: Option<String>,
}

/// The unified plan: what a `plan_update` event carries and what every front end renders.
///
/// A checklist update sets only `explanation` and `plan`; a structured plan also has an id, a
/// title, a status and perhaps notes and a completion record.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Plan {
    /// Stored document id (structured plans and plan-mode plans).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Title or goal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Lifecycle status of a stored plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PlanStatus>,
    /// Why the plan looks the way it does (checklist explanation or plan objective).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// The ordered steps.
    pub plan: Vec<PlanStep>,
    /// Observations recorded with the `note` action.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// How results will be verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_approach: Option<String>,
    /// What to do when a step fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback_strategy: Option<String>,
    /// Approximate number of tool calls the model expects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_tool_calls: Option<u32>,
    /// Set by `complete_plan`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion: Option<PlanCompletion>,
}

impl Plan {
    /// Number of completed steps, and the total. Failed and skipped steps are not done.
    pub fn progress(&self) -> (usize, usize) {
        let done = self
            .plan
            .iter()
            .filter(|s| s.status == PlanStepStatus::Completed)
            .count();
        (done, self.plan.len())
    }
}

impl From<UpdatePlanArgs> for Plan {
    fn from(args: UpdatePlanArgs) -> Self {
        Self {
            explanation: args.explanation,
            plan: args
                .plan
                .into_iter()
                .map(|item| PlanStep::new(item.step, item.status.into()))
                .collect(),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_plan_args_reject_unknown_fields_and_statuses() {
        let ok: UpdatePlanArgs = serde_json::from_str(
            r#"{"explanation":"Roadmap","plan":[{"step":"a","status":"in_progress"}]}"#,
        )
        .unwrap();
        assert_eq!(ok.plan[0].status, StepStatus::InProgress);
        assert!(serde_json::from_str::<UpdatePlanArgs>(r#"{"explanation":"Oops"}"#).is_err());
        assert!(
            serde_json::from_str::<UpdatePlanArgs>(r#"{"plan":[{"step":"a","status":"done"}]}"#)
                .is_err()
        );
        assert!(
            serde_json::from_str::<UpdatePlanArgs>(r#"{"plan":[],"extra":1}"#).is_err(),
            "unknown top-level field must be rejected"
        );
    }

    #[test]
    fn checklist_plan_serialises_like_codex_plan_update() {
        let args: UpdatePlanArgs =
            serde_json::from_str(r#"{"plan":[{"step":"a","status":"completed"}]}"#).unwrap();
        let plan = Plan::from(args);
        assert_eq!(
            serde_json::to_string(&plan).unwrap(),
            r#"{"plan":[{"step":"a","status":"completed"}]}"#
        );
    }
}

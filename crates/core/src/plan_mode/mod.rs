//! Plan mode: the state, the plan file, and the reminders the model gets.
//!
//! Only the user enters plan mode ([`cairn_protocol::Op::SetPlanMode`]); only the user's
//! [`cairn_protocol::Op::PlanModeApproval`] ends it. The tool filter in [`filter`] is applied
//! twice: to the tool list offered to the model and to every call the dispatcher runs.

pub mod filter;
pub mod reminder;
pub mod shell;

use chrono::{DateTime, Datelike, Timelike, Utc};
use std::path::{Path, PathBuf};

/// Tool output after the user approved the plan.
pub const APPROVED_TEXT: &str = "Plan approved. You can now start implementing the plan.";

/// Tool output after the user rejected the plan (feedback may follow).
pub const REJECTED_TEXT: &str = "Plan rejected. Please continue refining the plan.";

/// Plan-mode state of one session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanModeState {
    /// Whether plan mode is on.
    pub active: bool,
    /// The plan file of the current (or last) plan-mode period, fixed at entry.
    pub plan_file_path: Option<PathBuf>,
    /// The plan file of the period before, offered to the model on re-entry.
    pub previous_plan_file: Option<PathBuf>,
    /// True once a plan of this session was approved.
    pub has_exited: bool,
    /// The session's conversation id (part of plan file names).
    pub conversation_id: String,
    /// Set on re-entry after an approved plan; cleared once the reminder was sent.
    pub reentry_reminder_pending: bool,
    /// True when the current (or last) period's plan was approved.
    pub period_approved: bool,
}

impl PlanModeState {
    /// A state for conversation `conversation_id`, plan mode off.
    pub fn new(conversation_id: impl Into<String>) -> Self {
        Self {
            conversation_id: conversation_id.into(),
            ..Self::default()
        }
    }

    /// Turn plan mode on with a new plan file in `plans_dir` (created on demand).
    /// Returns the plan file path.
    pub fn enter(&mut self, plans_dir: &Path, now: DateTime<Utc>) -> Result<PathBuf, String> {
        if self.active {
            return Err("Already in plan mode.".to_string());
        }
        std::fs::create_dir_all(plans_dir).map_err(|e| {
            format!(
                "Could not create the plans directory {}: {e}. Check that CAIRN_HOME is writable.",
                plans_dir.display()
            )
        })?;
        // Canonicalise the directory once so the fixed path has no symlinks in it.
        let dir = plans_dir.canonicalize().map_err(|e| {
            format!(
                "Could not resolve the plans directory {}: {e}",
                plans_dir.display()
            )
        })?;
        let path = self.unused_plan_path(&dir, now);
        if let Some(old) = self.plan_file_path.take() {
            // Only an approved plan is worth continuing; a plan the user walked away from is not.
            self.reentry_reminder_pending = self.period_approved;
            self.previous_plan_file = Some(old);
        }
        self.plan_file_path = Some(path.clone());
        self.period_approved = false;
        self.active = true;
        Ok(path)
    }

    /// A plan file path that no earlier period used: re-entering within the same second must
    /// not overwrite the previous plan, so a `_2`, `_3`, ... suffix is added when needed.
    fn unused_plan_path(&self, dir: &Path, now: DateTime<Utc>) -> PathBuf {
        let name = plan_file_name(&self.conversation_id, now);
        let stem = name.trim_end_matches(".md");
        let mut candidate = dir.join(&name);
        let mut n = 2;
        while candidate.exists() || self.plan_file_path.as_deref() == Some(candidate.as_path()) {
            candidate = dir.join(format!("{stem}_{n}.md"));
            n += 1;
        }
        candidate
    }

    /// Turn plan mode off after the user approved the plan.
    pub fn approve(&mut self) {
        self.active = false;
        self.has_exited = true;
        self.period_approved = true;
    }

    /// Turn plan mode off without an approval (the user left it with `/plan off`).
    pub fn leave(&mut self) {
        self.active = false;
    }

    /// The plan file while plan mode is active.
    pub fn active_plan_file(&self) -> Option<&Path> {
        self.active
            .then_some(self.plan_file_path.as_deref())
            .flatten()
    }
}

/// `{conversation_id}_{YYYYMMDD_HHMMSS}.md`.
pub fn plan_file_name(conversation_id: &str, now: DateTime<Utc>) -> String {
    format!(
        "{conversation_id}_{:04}{:02}{:02}_{:02}{:02}{:02}.md",
        now.year(),
        now.month(),
        now.day(),
        now.hour(),
        now.minute(),
        now.second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plans::utc;

    #[test]
    fn plan_file_name_has_conversation_and_timestamp() {
        let now = utc("2026-11-22 03:04:05");
        assert_eq!(plan_file_name("abc", now), "abc_20261122_030405.md");
    }

    #[test]
    fn re_entry_keeps_the_previous_plan_and_asks_once() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("plans");
        let mut state = PlanModeState::new("conv");
        let first = state.enter(&dir, utc("2026-11-22 03:04:05")).unwrap();
        assert!(dir.is_dir());
        assert_eq!(
            state.enter(&dir, utc("2026-11-22 03:04:06")).unwrap_err(),
            "Already in plan mode."
        );
        state.approve();
        assert!(state.has_exited && !state.active);
        let second = state.enter(&dir, utc("2026-11-22 04:00:00")).unwrap();
        assert_ne!(first, second);
        assert_eq!(state.previous_plan_file.as_deref(), Some(first.as_path()));
        assert!(state.reentry_reminder_pending);
    }

    #[test]
    fn re_entry_in_the_same_second_gets_a_new_file() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("plans");
        let now = utc("2026-11-22 03:04:05");
        let mut state = PlanModeState::new("conv");
        let first = state.enter(&dir, now).unwrap();
        std::fs::write(&first, "plan one").unwrap();
        state.approve();
        let second = state.enter(&dir, now).unwrap();
        assert_ne!(first, second);
        assert!(
            second.ends_with("conv_20261122_030405_2.md"),
            "{}",
            second.display()
        );
        assert_eq!(std::fs::read_to_string(&first).unwrap(), "plan one");
    }

    #[test]
    fn unwritable_plans_dir_is_a_clear_error() {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join("not-a-dir");
        std::fs::write(&file, "x").unwrap();
        let mut state = PlanModeState::new("conv");
        let err = state.enter(&file.join("plans"), Utc::now()).unwrap_err();
        assert!(
            err.contains("Could not create the plans directory"),
            "{err}"
        );
    }
}

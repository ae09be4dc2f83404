//! Stored plan documents (`$CAIRN_HOME/plans/<id>.md`). Filled in by the structured-plans issue.

use std::path::{Path, PathBuf};

/// The plan document store.
#[derive(Debug, Clone)]
pub struct PlanStore {
    dir: PathBuf,
}

impl PlanStore {
    /// A store in `dir` (created on first write).
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// Record that the user approved the plan-mode plan at `path`. Failure to record is
    /// logged, never fatal: the approval itself already happened.
    pub fn on_plan_mode_approved(&self, path: &Path) {
        tracing::debug!(path = %path.display(), "plan-mode plan approved");
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

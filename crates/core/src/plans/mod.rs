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

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

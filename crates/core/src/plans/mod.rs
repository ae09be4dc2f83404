//! Stored plan documents: `$CAIRN_HOME/plans/<id>.md`.
//!
//! Two kinds of document share the directory:
//! - structured plans (`plan-xxxxxxxx.md`), written by `create_plan` / `update_plan` /
//!   `complete_plan` in the format of [`document`]: front matter, a numbered checklist with
//!   step details, notes and the completion record. They parse back into a [`Plan`].
//! - plan-mode plans (`{conversation_id}_{YYYYMMDD_HHMMSS}.md`), free Markdown the model wrote
//!   in plan mode. They are listed with what can be read from them (first heading, checkboxes)
//!   and never rewritten by cairn: approving one only records it
//!   ([`PlanStore::mark_plan_mode_plan`]).
//!
//! A document's id is its file name and its status is what cairn's [`record`] says (a draft
//! when there is none): front matter in a document is never believed, because the model
//! shapes the text. Every file is read through [`regular_file`], so a FIFO, socket or device
//! in the directory is skipped at once, never waited on.
//!
//! [`PlanStore::list`] never fails on one bad file: a corrupt document is reported by name in
//! [`Listing::skipped`] and left out.

pub mod document;
pub mod front_matter;
pub mod listing;
pub mod plan_mode_doc;
pub mod record;
pub mod regular_file;
pub mod reminder;
pub mod revise;
pub mod store;

use cairn_protocol::{Plan, PlanStatus};
use chrono::{DateTime, Timelike, Utc};
use std::path::PathBuf;

pub use document::DocumentError;
pub use store::PlanStore;

/// File-name prefix of structured plan documents (and of their ids).
pub const STRUCTURED_ID_PREFIX: &str = "plan-";

/// A structured plan with the metadata its document carries besides the [`Plan`] itself.
///
/// As [`PlanStore::load`] returns it, `plan.id` is the file name, `plan.status`, `created`,
/// `updated` and `conversation` are cairn's record, and `plan.title` is the document's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanDocument {
    /// The plan.
    pub plan: Plan,
    /// When the document was first written.
    pub created: DateTime<Utc>,
    /// When the document was last written.
    pub updated: DateTime<Utc>,
    /// Conversation that created the plan.
    pub conversation: Option<String>,
}

impl PlanDocument {
    /// The document id (empty only for a document not yet stored).
    pub fn id(&self) -> &str {
        self.plan.id.as_deref().unwrap_or_default()
    }

    /// The lifecycle status (draft when unset).
    pub fn status(&self) -> PlanStatus {
        self.plan.status.unwrap_or(PlanStatus::Draft)
    }
}

/// Which kind of document a listing entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanKind {
    /// Written by the structured planning tools.
    Structured,
    /// Free Markdown written in plan mode.
    PlanMode,
}

impl PlanKind {
    /// `structured` or `plan_mode`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Structured => "structured",
            Self::PlanMode => "plan_mode",
        }
    }
}

/// One stored plan as listings show it: id from the file name, status, times and conversation
/// from cairn's record (see [`record`]), title and progress from the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanSummary {
    /// Id (a structured plan's id, or a plan-mode file's stem).
    pub id: String,
    /// Title, or a plan-mode file's first heading.
    pub title: String,
    /// Lifecycle status.
    pub status: PlanStatus,
    /// Steps that need no more work.
    pub done: usize,
    /// All steps (checkboxes, for a plan-mode file).
    pub total: usize,
    /// First written.
    pub created: DateTime<Utc>,
    /// Last written.
    pub updated: DateTime<Utc>,
    /// Conversation the plan belongs to.
    pub conversation: Option<String>,
    /// The document's path.
    pub path: PathBuf,
    /// Structured or plan mode.
    pub kind: PlanKind,
}

/// A document [`PlanStore::list`] could not read; it was left out of the listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedDocument {
    /// File name inside the plans directory.
    pub file_name: String,
    /// What is wrong with it.
    pub reason: String,
}

impl std::fmt::Display for SkippedDocument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "skipped {}: {}", self.file_name, self.reason)
    }
}

/// What [`PlanStore::list`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// Readable plans, most recently updated first.
    pub plans: Vec<PlanSummary>,
    /// Documents left out because they could not be read or parsed.
    pub skipped: Vec<SkippedDocument>,
}

/// Why a store operation failed. Every message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum PlanStoreError {
    /// Nothing matches the id or prefix.
    #[error("no plan matches '{0}'. Run `cairn plans list` to see the stored plans.")]
    NotFound(String),
    /// Several plans match the prefix.
    #[error("'{query}' matches several plans: {}. Type more of the id.", .candidates.join(", "))]
    Ambiguous {
        /// What was asked for.
        query: String,
        /// Ids that match.
        candidates: Vec<String>,
    },
    /// The id was empty.
    #[error("no plan id given. Run `cairn plans list` to see the stored plans.")]
    EmptyId,
    /// The matching document exists but does not parse.
    #[error("{file_name} is corrupt: {reason}. Fix or delete the file in the plans directory.")]
    Corrupt {
        /// File name inside the plans directory.
        file_name: String,
        /// What is wrong.
        reason: String,
    },
    /// The plan is a plan-mode document, which the structured tools cannot change.
    #[error(
        "'{0}' is a plan-mode plan (free Markdown); it can be read but not changed with the structured plan tools."
    )]
    NotStructured(String),
    /// A plan-mode approval named a file that is not a plan-mode plan of this store.
    #[error("{path} is not a plan-mode plan file: {reason}.")]
    NotPlanModePlan {
        /// The file named.
        path: PathBuf,
        /// Why not.
        reason: String,
    },
    /// The plans directory exists but cannot be read.
    #[error(
        "cannot read the plans directory {}: {source}. Check that it is a directory you can read.",
        .dir.display()
    )]
    UnreadableDir {
        /// The plans directory.
        dir: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Another writer held the plan for too long.
    #[error("plan {id} is being changed by another session ({reason}); try again.")]
    Busy {
        /// The plan.
        id: String,
        /// Why the lock could not be taken.
        reason: String,
    },
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// Now, in UTC, to the second: documents show readable timestamps.
pub(crate) fn now_utc() -> DateTime<Utc> {
    to_the_second(Utc::now())
}

/// `time` without its fraction of a second.
pub(crate) fn to_the_second(time: DateTime<Utc>) -> DateTime<Utc> {
    time.with_nanosecond(0).unwrap_or(time)
}

/// `2026-11-22 03:04:05` as a UTC time (tests).
#[cfg(test)]
pub(crate) fn utc(text: &str) -> DateTime<Utc> {
    match chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S") {
        Ok(time) => time.and_utc(),
        Err(e) => panic!("bad test time {text}: {e}"),
    }
}

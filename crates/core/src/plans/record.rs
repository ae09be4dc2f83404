//! cairn's own record of a plan document: its lifecycle status, when it was created and last
//! changed, and the conversation it belongs to.
//!
//! Plan documents are text the model shaped (a plan-mode plan file is written by the model
//! itself), so what a document says about itself, such as `id: plan-deadbeef` or
//! `status: approved` in front matter, is never believed. Only the store writes records, in
//! `$CAIRN_HOME/plans/.records/<file stem>.json`; in plan mode the plan file is the only file
//! the model may write, and outside it every write under `$CAIRN_HOME` asks the user, so the
//! model cannot forge one. A document without a record is a draft, and its id is always its
//! file name.
//!
//! One small file per document rather than one ledger: two sessions changing different plans
//! never rewrite each other's entries, so no lock is needed, and a damaged record costs one
//! plan its status, not every plan.

use super::{PlanStoreError, STRUCTURED_ID_PREFIX, document, front_matter, regular_file};
use cairn_protocol::PlanStatus;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The records directory inside the plans directory (hidden, so listings pass it by).
pub const RECORDS_DIR: &str = ".records";

/// Present once the documents written before records existed have been migrated.
const MIGRATED_MARKER: &str = ".migrated";

/// What cairn knows about one plan document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Lifecycle status, as only cairn sets it.
    pub status: PlanStatus,
    /// When the document was first stored.
    pub created: DateTime<Utc>,
    /// When cairn last changed the document or its status.
    pub updated: DateTime<Utc>,
    /// Conversation the plan belongs to.
    pub conversation: Option<String>,
}

/// The record as stored (JSON).
#[derive(Serialize, Deserialize)]
struct Stored {
    status: String,
    created: String,
    updated: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    conversation: Option<String>,
}

/// The records of one plans directory.
#[derive(Debug, Clone)]
pub(crate) struct Records {
    plans_dir: PathBuf,
    dir: PathBuf,
}

impl Records {
    /// The records of the documents in `plans_dir`.
    pub(crate) fn new(plans_dir: &Path) -> Self {
        Self {
            plans_dir: plans_dir.to_path_buf(),
            dir: plans_dir.join(RECORDS_DIR),
        }
    }

    fn path(&self, stem: &str) -> PathBuf {
        self.dir.join(format!("{stem}.json"))
    }

    /// The record of the document whose file stem is `stem`, if cairn wrote one. A record
    /// that cannot be read (damaged, or not a regular file) counts as none: the document
    /// shows as a draft rather than with a status nobody can vouch for.
    pub(crate) fn get(&self, stem: &str) -> Option<Record> {
        if !valid_stem(stem) {
            return None;
        }
        let path = self.path(stem);
        let text = match regular_file::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.is_not_found() => return None,
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "ignoring unreadable plan record");
                return None;
            }
        };
        match parse(&text) {
            Ok(record) => Some(record),
            Err(reason) => {
                tracing::warn!(path = %path.display(), %reason, "ignoring damaged plan record");
                None
            }
        }
    }

    /// Store `record` for the document whose file stem is `stem`, atomically.
    pub(crate) fn put(&self, stem: &str, record: &Record) -> Result<(), PlanStoreError> {
        let path = self.path(stem);
        if !valid_stem(stem) {
            return Err(PlanStoreError::Io {
                path,
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "not a plan document name",
                ),
            });
        }
        self.migrate_once();
        super::store::write_atomic(&path, &render(record))
    }

    /// Give the documents written before records existed their records, once per plans
    /// directory.
    ///
    /// Backwards compatibility, decided here: a structured document (`plan-<hex>.md`, parsing,
    /// its front matter id equal to its file name) that cairn wrote before this change keeps
    /// the status its front matter has, copied into a record the first time a cairn with
    /// records uses the directory. Plan-mode plan files are never migrated: the model wrote
    /// them, and cairn's front matter could not be told from the model's, so an old approved
    /// plan-mode plan now lists as a draft (its text is unchanged). After the migration no
    /// front matter is ever read for status again, so a document dropped into the directory
    /// later is a draft whatever it claims. Failures are logged: the affected documents then
    /// list as drafts, which is the safe side.
    pub(crate) fn migrate_once(&self) {
        let marker = self.dir.join(MIGRATED_MARKER);
        if std::fs::symlink_metadata(&marker).is_ok() || !self.plans_dir.is_dir() {
            return;
        }
        if let Err(e) = std::fs::create_dir_all(&self.dir) {
            tracing::warn!(dir = %self.dir.display(), error = %e, "cannot create the plan records directory");
            return;
        }
        let Ok(entries) = std::fs::read_dir(&self.plans_dir) else {
            return;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".md") else {
                continue;
            };
            if !is_structured_name(stem) || self.path(stem).exists() {
                continue;
            }
            let Ok(text) = regular_file::read_to_string(&entry.path()) else {
                continue;
            };
            let Ok(doc) = document::parse(&text) else {
                continue;
            };
            if doc.id() != stem {
                continue;
            }
            let record = Record {
                status: doc.status(),
                created: doc.created,
                updated: doc.updated,
                conversation: doc.conversation,
            };
            // Never replace a record a running cairn wrote meanwhile.
            if let Err(e) = write_new(&self.dir, &self.path(stem), &render(&record)) {
                tracing::warn!(%stem, error = %e, "could not migrate plan status");
            }
        }
        if let Err(e) = std::fs::write(&marker, "") {
            tracing::warn!(path = %marker.display(), error = %e, "could not mark plan records migrated");
        }
    }
}

/// `plan-` and hex digits: the names cairn gives structured plans.
pub(crate) fn is_structured_name(stem: &str) -> bool {
    stem.strip_prefix(STRUCTURED_ID_PREFIX)
        .is_some_and(|hex| !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()))
}

/// A file stem a record may be stored under: a plain name, never hidden, never a path.
fn valid_stem(stem: &str) -> bool {
    !stem.is_empty() && !stem.starts_with('.') && !stem.contains(['/', '\\', '\0'])
}

fn render(record: &Record) -> String {
    let stored = Stored {
        status: record.status.as_str().to_string(),
        created: front_matter::format_time(record.created),
        updated: front_matter::format_time(record.updated),
        conversation: record.conversation.clone(),
    };
    let mut text = serde_json::to_string_pretty(&stored).unwrap_or_default();
    text.push('\n');
    text
}

fn parse(text: &str) -> Result<Record, String> {
    let stored: Stored = serde_json::from_str(text).map_err(|e| e.to_string())?;
    Ok(Record {
        status: document::parse_plan_status(&stored.status)
            .ok_or_else(|| format!("unknown status '{}'", stored.status))?,
        created: front_matter::parse_time(&stored.created)?,
        updated: front_matter::parse_time(&stored.updated)?,
        conversation: stored.conversation,
    })
}

/// Write `contents` to `path` unless it exists (temp file, then a link that cannot replace).
fn write_new(dir: &Path, path: &Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut temp = tempfile::Builder::new()
        .prefix(".record-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    temp.write_all(contents.as_bytes())?;
    temp.as_file().sync_all()?;
    match temp.persist_noclobber(path) {
        Ok(_) => Ok(()),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e.error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plans::utc;

    #[test]
    fn records_round_trip_and_damaged_ones_count_as_none() {
        let dir = tempfile::tempdir().unwrap();
        let records = Records::new(dir.path());
        let record = Record {
            status: PlanStatus::Approved,
            created: utc("2026-01-01 00:00:00"),
            updated: utc("2026-01-02 00:00:00"),
            conversation: Some("conv".into()),
        };
        records.put("conv_20260101_000000", &record).unwrap();
        assert_eq!(records.get("conv_20260101_000000"), Some(record));
        assert_eq!(records.get("other"), None);

        std::fs::write(records.path("broken"), "{\"status\":\"done\"}").unwrap();
        assert_eq!(records.get("broken"), None);
        let fifo = records.path("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        assert_eq!(records.get("fifo"), None, "a FIFO record is not waited on");
        assert!(
            records
                .put("../escape", &records_status(PlanStatus::Draft))
                .is_err()
        );
        assert!(
            records
                .put(".hidden", &records_status(PlanStatus::Draft))
                .is_err()
        );
    }

    fn records_status(status: PlanStatus) -> Record {
        Record {
            status,
            created: DateTime::UNIX_EPOCH,
            updated: DateTime::UNIX_EPOCH,
            conversation: None,
        }
    }

    #[test]
    fn structured_names_are_plan_dash_hex() {
        assert!(is_structured_name("plan-1a2b3c4d"));
        assert!(!is_structured_name("plan-"));
        assert!(!is_structured_name("plan-notahex"));
        assert!(!is_structured_name("conv_20260101_000000"));
    }
}

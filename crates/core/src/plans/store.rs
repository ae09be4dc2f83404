//! The plan store: documents in one directory, written atomically, found by id or prefix.
//! Ids are file names and statuses come from cairn's [`record`](super::record), never from
//! what a document's text claims.

use super::record::{Record, Records};
use super::{
    Listing, PlanDocument, PlanKind, PlanStoreError, PlanSummary, STRUCTURED_ID_PREFIX,
    SkippedDocument, document, front_matter, listing, now_utc, plan_mode_doc, regular_file,
};
use cairn_protocol::{Plan, PlanStatus};
use chrono::{DateTime, Utc};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The plan document store (`$CAIRN_HOME/plans`).
#[derive(Debug, Clone)]
pub struct PlanStore {
    dir: PathBuf,
    records: Records,
}

impl PlanStore {
    /// A store in `dir` (created on first write).
    pub fn new(dir: PathBuf) -> Self {
        let records = Records::new(&dir);
        Self { dir, records }
    }

    /// The store of `$CAIRN_HOME` = `home` (`home/plans`, as [`crate::Config::plans_dir`]).
    pub fn in_home(home: &Path) -> Self {
        Self::new(home.join("plans"))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the structured plan `id` is stored.
    pub fn path_of(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.md"))
    }

    /// Store `plan` as a new document: a fresh id, status draft unless set, created and
    /// updated now.
    pub fn create(
        &self,
        mut plan: Plan,
        conversation: Option<&str>,
    ) -> Result<PlanDocument, PlanStoreError> {
        let mut id = new_id();
        // Eight random hex digits collide rarely; never overwrite when they do.
        for _ in 0..16 {
            if !self.path_of(&id).exists() {
                break;
            }
            id = new_id();
        }
        plan.id = Some(id);
        plan.status.get_or_insert(PlanStatus::Draft);
        let now = now_utc();
        let doc = PlanDocument {
            plan,
            created: now,
            updated: now,
            conversation: conversation.map(str::to_string),
        };
        self.write(&doc)?;
        Ok(doc)
    }

    /// Set `doc.updated` to now and write it.
    pub fn save(&self, doc: &mut PlanDocument) -> Result<(), PlanStoreError> {
        doc.updated = now_utc().max(doc.created);
        self.write(doc).map(|_| ())
    }

    /// Change the structured plan `query` names as one step: load it, let `change` edit it,
    /// save it (`updated` now), all with the plan's lock held, so no other writer (another
    /// session, a delegate, another process) saves in between and no update is lost. The
    /// outer error is the store's; the inner one is `change`'s refusal, and then nothing is
    /// saved.
    pub fn update<T, E>(
        &self,
        query: &str,
        change: impl FnOnce(&mut PlanDocument) -> Result<T, E>,
    ) -> Result<Result<(PlanDocument, T), E>, PlanStoreError> {
        let id = self.find(query)?.id;
        let _lock = PlanLock::acquire(&self.dir, &id)?;
        let mut doc = self.load(&id)?;
        match change(&mut doc) {
            Ok(value) => {
                self.save(&mut doc)?;
                Ok(Ok((doc, value)))
            }
            Err(refused) => Ok(Err(refused)),
        }
    }

    /// Write `doc` as it is (timestamps untouched), atomically, and record its status.
    /// Returns the path.
    ///
    /// The document keeps front matter for people and other tools reading the file; cairn
    /// itself reads id and status from the record only.
    pub fn write(&self, doc: &PlanDocument) -> Result<PathBuf, PlanStoreError> {
        let path = self.path_of(doc.id());
        write_atomic(&path, &document::render(doc))?;
        let record = Record {
            status: doc.status(),
            created: doc.created,
            updated: doc.updated,
            conversation: doc.conversation.clone(),
        };
        self.records.put(doc.id(), &record)?;
        Ok(path)
    }

    /// Every readable plan, most recently updated first; unreadable documents (including a
    /// FIFO, socket or device named `*.md`, which is never opened for reading) are reported
    /// in [`Listing::skipped`] and left out. A missing directory is an empty listing; one
    /// that exists but cannot be read is an error naming it, never an empty listing.
    pub fn list(&self) -> Result<Listing, PlanStoreError> {
        let mut listing = Listing::default();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(listing),
            Err(source) => {
                return Err(PlanStoreError::UnreadableDir {
                    dir: self.dir.clone(),
                    source,
                });
            }
        };
        self.records.migrate_once();
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "md")
                    && !p.is_dir()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        paths.sort();
        for path in paths {
            match self.summarize(&path) {
                Ok(summary) => listing.plans.push(summary),
                Err(reason) => {
                    let file_name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    tracing::warn!(%file_name, %reason, "skipping unreadable plan document");
                    listing.skipped.push(SkippedDocument { file_name, reason });
                }
            }
        }
        listing.plans.sort_by(|a, b| {
            b.updated
                .cmp(&a.updated)
                .then(b.created.cmp(&a.created))
                .then(a.id.cmp(&b.id))
        });
        Ok(listing)
    }

    /// The plan whose id is `query`, or the only one whose id starts with `query` (the
    /// `plan-` prefix may be left out).
    pub fn find(&self, query: &str) -> Result<PlanSummary, PlanStoreError> {
        let query = query.trim();
        if query.is_empty() {
            return Err(PlanStoreError::EmptyId);
        }
        let listing = self.list()?;
        if let Some(exact) = listing.plans.iter().find(|p| p.id == query) {
            return Ok(exact.clone());
        }
        let matches = |id: &str| {
            id.starts_with(query)
                || id
                    .strip_prefix(STRUCTURED_ID_PREFIX)
                    .is_some_and(|rest| rest.starts_with(query))
        };
        let mut found: Vec<PlanSummary> = listing
            .plans
            .into_iter()
            .filter(|p| matches(&p.id))
            .collect();
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => {
                // Say so when the plan asked for exists but is corrupt.
                let corrupt = listing
                    .skipped
                    .into_iter()
                    .find(|s| matches(s.file_name.trim_end_matches(".md")));
                Err(match corrupt {
                    Some(s) => PlanStoreError::Corrupt {
                        file_name: s.file_name,
                        reason: s.reason,
                    },
                    None => PlanStoreError::NotFound(query.to_string()),
                })
            }
            _ => {
                let mut candidates: Vec<String> = found.into_iter().map(|p| p.id).collect();
                candidates.sort();
                Err(PlanStoreError::Ambiguous {
                    query: query.to_string(),
                    candidates,
                })
            }
        }
    }

    /// The structured plan `query` names (id or unique prefix). Its id, status, timestamps
    /// and conversation are the store's (see [`PlanSummary`]), whatever its front matter says.
    pub fn load(&self, query: &str) -> Result<PlanDocument, PlanStoreError> {
        let summary = self.find(query)?;
        if summary.kind != PlanKind::Structured {
            return Err(PlanStoreError::NotStructured(summary.id));
        }
        let text = read(&summary.path)?;
        let mut doc = document::parse(&text).map_err(|e| PlanStoreError::Corrupt {
            file_name: format!("{}.md", summary.id),
            reason: e.0,
        })?;
        doc.plan.id = Some(summary.id);
        doc.plan.status = Some(summary.status);
        doc.created = summary.created;
        doc.updated = summary.updated;
        doc.conversation = summary.conversation;
        Ok(doc)
    }

    /// The document of any plan `query` names (structured or plan mode) as cairn shows it:
    /// front matter written from the store's summary ([`listing::header`]), then the
    /// document. A structured document's own front matter is replaced; a plan-mode file
    /// follows byte for byte, so front matter the model wrote into it stays visible as the
    /// text it is, below cairn's.
    pub fn read_text(&self, query: &str) -> Result<(PlanSummary, String), PlanStoreError> {
        let summary = self.find(query)?;
        let text = read(&summary.path)?;
        let body = match summary.kind {
            PlanKind::Structured => front_matter::split(&text).map_or(text.as_str(), |(_, b)| b),
            PlanKind::PlanMode => text.as_str(),
        };
        let shown = format!("{}{body}", listing::header(&summary));
        Ok((summary, shown))
    }

    /// Record `status` for the plan-mode plan file at `path`. The file itself is not
    /// touched: its text stays exactly what the model wrote and the user reviewed.
    pub fn mark_plan_mode_plan(
        &self,
        path: &Path,
        status: PlanStatus,
    ) -> Result<(), PlanStoreError> {
        let stem = self.plan_mode_stem(path)?;
        let existing = self.records.get(&stem);
        let named = plan_mode_doc::parse_file_name(&stem);
        let now = now_utc();
        let created = existing
            .as_ref()
            .map(|r| r.created)
            .or(named.as_ref().map(|(_, t)| *t))
            .unwrap_or(now);
        let record = Record {
            status,
            created,
            updated: now.max(created),
            conversation: existing
                .and_then(|r| r.conversation)
                .or(named.map(|(c, _)| c)),
        };
        self.records.put(&stem, &record)
    }

    /// The file stem of `path` when it is a plan-mode plan file of this store: a regular
    /// file (not a link) directly in the plans directory, not named like a structured plan.
    fn plan_mode_stem(&self, path: &Path) -> Result<String, PlanStoreError> {
        let refuse = |reason: &str| PlanStoreError::NotPlanModePlan {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        };
        let meta = std::fs::symlink_metadata(path).map_err(|source| PlanStoreError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if meta.file_type().is_symlink() {
            return Err(refuse("it is a symbolic link"));
        }
        if let Some(kind) = regular_file::special_kind(&meta) {
            return Err(refuse(&format!("it is {kind}, not a regular file")));
        }
        let same_dir = match (
            path.parent().map(Path::canonicalize),
            self.dir.canonicalize(),
        ) {
            (Some(Ok(parent)), Ok(dir)) => parent == dir,
            _ => false,
        };
        let stem = plan_mode_doc::file_stem(path);
        if !same_dir || path.extension().is_none_or(|e| e != "md") {
            return Err(refuse("it is not a plan document in the plans directory"));
        }
        if stem.is_empty() || stem.starts_with('.') || stem.starts_with(STRUCTURED_ID_PREFIX) {
            return Err(refuse("it is not named like a plan-mode plan"));
        }
        Ok(stem)
    }

    /// Record that the user approved the plan-mode plan at `path`. Failure to record is
    /// logged, never fatal: the approval itself already happened.
    pub fn on_plan_mode_approved(&self, path: &Path) {
        if let Err(error) = self.mark_plan_mode_plan(path, PlanStatus::Approved) {
            tracing::warn!(path = %path.display(), %error, "could not mark plan-mode plan approved");
        }
    }
}

/// The directory of the per-plan lock files (hidden, so listings pass it by).
const LOCKS_DIR: &str = ".locks";
/// How long a writer waits for another one to finish with a plan.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// An exclusive advisory lock (`flock`) on one plan's lock file, released on drop or when
/// the process dies, so a crashed writer never leaves a plan locked.
struct PlanLock {
    _file: nix::fcntl::Flock<std::fs::File>,
}

impl PlanLock {
    fn acquire(plans_dir: &Path, id: &str) -> Result<Self, PlanStoreError> {
        let dir = plans_dir.join(LOCKS_DIR);
        let path = dir.join(format!("{id}.lock"));
        let io = |source| PlanStoreError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        let deadline = std::time::Instant::now() + LOCK_WAIT;
        loop {
            match nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock) {
                Ok(locked) => return Ok(Self { _file: locked }),
                Err((back, nix::errno::Errno::EWOULDBLOCK | nix::errno::Errno::EINTR))
                    if std::time::Instant::now() < deadline =>
                {
                    file = back;
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                Err((_, errno)) => {
                    return Err(PlanStoreError::Busy {
                        id: id.to_string(),
                        reason: errno.desc().to_string(),
                    });
                }
            }
        }
    }
}

/// `plan-` and eight random hex digits: short enough to type, random enough not to collide.
fn new_id() -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    format!("{STRUCTURED_ID_PREFIX}{}", &hex[..8])
}

/// The text of the plan document at `path`, read without blocking on a special file.
fn read(path: &Path) -> Result<String, PlanStoreError> {
    regular_file::read_to_string(path).map_err(|e| PlanStoreError::Io {
        path: path.to_path_buf(),
        source: match e {
            regular_file::ReadError::Io(source) => source,
            other => std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string()),
        },
    })
}

impl PlanStore {
    /// What the listing shows of the document at `path`, or why it cannot be read.
    ///
    /// The id is the file stem and the status, timestamps and conversation come from the
    /// record; the document only supplies its title and steps. Without a record a document is
    /// a draft dated by its file, whatever its front matter claims.
    fn summarize(&self, path: &Path) -> Result<PlanSummary, String> {
        let text = regular_file::read_to_string(path).map_err(|e| e.to_string())?;
        let stem = plan_mode_doc::file_stem(path);
        let record = self.records.get(&stem);
        // To the second, as every time cairn shows.
        let modified = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .map(DateTime::<Utc>::from)
            .map(super::to_the_second);
        if !stem.starts_with(STRUCTURED_ID_PREFIX) {
            return Ok(plan_mode_doc::summarize(
                path,
                &text,
                modified,
                record.as_ref(),
            ));
        }
        let doc = document::parse(&text).map_err(|e| e.0)?;
        let (done, total) = doc.plan.progress();
        let file_time = modified.unwrap_or(DateTime::UNIX_EPOCH);
        Ok(PlanSummary {
            id: stem,
            title: doc.plan.title.clone().unwrap_or_default(),
            status: record.as_ref().map_or(PlanStatus::Draft, |r| r.status),
            done,
            total,
            created: record.as_ref().map_or(file_time, |r| r.created),
            updated: record.as_ref().map_or(file_time, |r| r.updated),
            conversation: record.and_then(|r| r.conversation),
            path: path.to_path_buf(),
            kind: PlanKind::Structured,
        })
    }
}

/// Write `contents` to `path` through a temporary file in the same directory and a rename,
/// so a reader never sees half a document.
pub(crate) fn write_atomic(path: &Path, contents: &str) -> Result<(), PlanStoreError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let io = |source| PlanStoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".plan-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    temp.write_all(contents.as_bytes()).map_err(io)?;
    temp.as_file().sync_all().map_err(io)?;
    temp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;

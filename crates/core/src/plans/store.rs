//! The plan store: documents in one directory, written atomically, found by id or prefix.

use super::{
    Listing, PlanDocument, PlanKind, PlanStoreError, PlanSummary, STRUCTURED_ID_PREFIX,
    SkippedDocument, document, now_utc, plan_mode_doc,
};
use cairn_protocol::{Plan, PlanStatus};
use std::io::Write;
use std::path::{Path, PathBuf};
use time::OffsetDateTime;

/// The plan document store (`$CAIRN_HOME/plans`).
#[derive(Debug, Clone)]
pub struct PlanStore {
    dir: PathBuf,
}

impl PlanStore {
    /// A store in `dir` (created on first write).
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
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

    /// Write `doc` as it is (timestamps untouched), atomically. Returns the path.
    pub fn write(&self, doc: &PlanDocument) -> Result<PathBuf, PlanStoreError> {
        let path = self.path_of(doc.id());
        write_atomic(&path, &document::render(doc))?;
        Ok(path)
    }

    /// Every readable plan, most recently updated first; unreadable documents are reported in
    /// [`Listing::skipped`] and left out. A missing directory is an empty listing.
    pub fn list(&self) -> Listing {
        let mut listing = Listing::default();
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return listing;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "md")
                    && p.is_file()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        paths.sort();
        for path in paths {
            match summarize(&path) {
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
        listing
    }

    /// The plan whose id is `query`, or the only one whose id starts with `query` (the
    /// `plan-` prefix may be left out).
    pub fn find(&self, query: &str) -> Result<PlanSummary, PlanStoreError> {
        let query = query.trim();
        if query.is_empty() {
            return Err(PlanStoreError::EmptyId);
        }
        let listing = self.list();
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

    /// The structured plan `query` names (id or unique prefix).
    pub fn load(&self, query: &str) -> Result<PlanDocument, PlanStoreError> {
        let summary = self.find(query)?;
        if summary.kind != PlanKind::Structured {
            return Err(PlanStoreError::NotStructured(summary.id));
        }
        let text = read(&summary.path)?;
        document::parse(&text).map_err(|e| PlanStoreError::Corrupt {
            file_name: format!("{}.md", summary.id),
            reason: e.0,
        })
    }

    /// The document text of any plan `query` names (structured or plan mode), as stored.
    pub fn read_text(&self, query: &str) -> Result<(PlanSummary, String), PlanStoreError> {
        let summary = self.find(query)?;
        let text = read(&summary.path)?;
        Ok((summary, text))
    }

    /// Give the plan-mode plan file at `path` front matter with `status` (adding it, or
    /// updating the existing one); the body is kept byte for byte.
    pub fn mark_plan_mode_plan(
        &self,
        path: &Path,
        status: PlanStatus,
    ) -> Result<(), PlanStoreError> {
        plan_mode_doc::mark(path, status)
    }

    /// Record that the user approved the plan-mode plan at `path`. Failure to record is
    /// logged, never fatal: the approval itself already happened.
    pub fn on_plan_mode_approved(&self, path: &Path) {
        if let Err(error) = self.mark_plan_mode_plan(path, PlanStatus::Approved) {
            tracing::warn!(path = %path.display(), %error, "could not mark plan-mode plan approved");
        }
    }
}

/// `plan-` and eight random hex digits: short enough to type, random enough not to collide.
fn new_id() -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    format!("{STRUCTURED_ID_PREFIX}{}", &hex[..8])
}

fn read(path: &Path) -> Result<String, PlanStoreError> {
    std::fs::read_to_string(path).map_err(|source| PlanStoreError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// What the listing shows of the document at `path`, or why it cannot be read.
fn summarize(path: &Path) -> Result<PlanSummary, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot be read ({e})"))?;
    let text = String::from_utf8(bytes).map_err(|_| "is not valid UTF-8".to_string())?;
    let stem = plan_mode_doc::file_stem(path);
    if !stem.starts_with(STRUCTURED_ID_PREFIX) {
        let modified = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .map(OffsetDateTime::from);
        return Ok(plan_mode_doc::summarize(path, &text, modified));
    }
    let doc = document::parse(&text).map_err(|e| e.0)?;
    if doc.id() != stem {
        return Err(format!(
            "its front matter id '{}' does not match the file name",
            doc.id()
        ));
    }
    let (done, total) = doc.plan.progress();
    Ok(PlanSummary {
        id: doc.id().to_string(),
        title: doc.plan.title.clone().unwrap_or_default(),
        status: doc.status(),
        done,
        total,
        created: doc.created,
        updated: doc.updated,
        conversation: doc.conversation,
        path: path.to_path_buf(),
        kind: PlanKind::Structured,
    })
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

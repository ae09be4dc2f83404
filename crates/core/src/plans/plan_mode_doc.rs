//! Plan-mode plan files as plan documents: free Markdown named
//! `{conversation_id}_{YYYYMMDD_HHMMSS}.md`, listed with what can be read from them, and given
//! front matter (keeping the body byte for byte) when the user approves them.

use super::front_matter::{self, FrontMatter};
use super::store::write_atomic;
use super::{PlanKind, PlanStoreError, PlanSummary, document, now_utc};
use cairn_protocol::PlanStatus;
use std::path::Path;
use time::macros::format_description;
use time::{OffsetDateTime, PrimitiveDateTime};

/// What a listing shows of a plan-mode file with content `text`; `modified` is the file's
/// modification time.
pub fn summarize(path: &Path, text: &str, modified: Option<OffsetDateTime>) -> PlanSummary {
    let stem = file_stem(path);
    let (fm, body) = front_matter::split(text).unwrap_or((FrontMatter::default(), text));
    let from_name = parse_file_name(&stem);
    let fm_time = |key: &str| fm.get(key).and_then(|t| front_matter::parse_time(t).ok());
    let created = fm_time("created")
        .or(from_name.as_ref().map(|(_, t)| *t))
        .or(modified)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    // The model may edit the file after approval; the later time is the true one.
    let updated = match (fm_time("updated"), modified) {
        (Some(a), Some(b)) => a.max(b),
        (a, b) => a.or(b).unwrap_or(created),
    };
    let (done, total) = checkbox_progress(body);
    PlanSummary {
        id: fm.get("id").map(str::to_string).unwrap_or(stem),
        title: fm
            .get("title")
            .filter(|t| !t.trim().is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| title_of(body)),
        status: fm
            .get("status")
            .and_then(document::parse_plan_status)
            .unwrap_or(PlanStatus::Draft),
        done,
        total,
        created,
        updated,
        conversation: fm
            .get("conversation")
            .map(str::to_string)
            .or(from_name.map(|(c, _)| c)),
        path: path.to_path_buf(),
        kind: PlanKind::PlanMode,
    }
}

/// Add or update the front matter of the plan-mode file at `path` with `status`; the body
/// is kept byte for byte. Fields other than the ones cairn writes are kept.
pub fn mark(path: &Path, status: PlanStatus) -> Result<(), PlanStoreError> {
    let io = |source| PlanStoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = std::fs::read_to_string(path).map_err(io)?;
    let summary = summarize(path, &text, Some(now_utc()));
    let (fm, body) = front_matter::split(&text).unwrap_or((FrontMatter::default(), &text));
    let mut fields = vec![
        ("id", summary.id, false),
        ("title", summary.title, true),
        ("status", status.as_str().to_string(), false),
        ("created", front_matter::format_time(summary.created), false),
        ("updated", front_matter::format_time(now_utc()), false),
    ];
    if let Some(conversation) = summary.conversation {
        fields.push(("conversation", conversation, false));
    }
    const OURS: [&str; 6] = [
        "id",
        "title",
        "status",
        "created",
        "updated",
        "conversation",
    ];
    for (key, value) in &fm.fields {
        if !OURS.contains(&key.as_str()) {
            fields.push((key.as_str(), value.clone(), true));
        }
    }
    let mut out = front_matter::render(&fields);
    out.push_str(body);
    write_atomic(path, &out)
}

/// The first Markdown heading, else the first non-blank line, else `(empty plan)`.
pub fn title_of(body: &str) -> String {
    let heading = body
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .filter(|l| !l.is_empty());
    heading
        .or_else(|| body.lines().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or("(empty plan)")
        .to_string()
}

/// Settled and total checkboxes (`- [ ]`, `- [x]`, and the structured markers) in `body`.
pub fn checkbox_progress(body: &str) -> (usize, usize) {
    let mut done = 0;
    let mut total = 0;
    for line in body.lines() {
        let line = line.trim_start();
        let Some(rest) = ["- [", "* [", "+ ["]
            .iter()
            .find_map(|bullet| line.strip_prefix(bullet))
        else {
            continue;
        };
        let mut chars = rest.chars();
        let (Some(marker), Some(']')) = (chars.next(), chars.next()) else {
            continue;
        };
        match marker {
            ' ' | '~' => total += 1,
            'x' | 'X' | '-' | '!' => {
                total += 1;
                done += 1;
            }
            _ => {}
        }
    }
    (done, total)
}

/// `{conversation}_{YYYYMMDD}_{HHMMSS}` → the conversation id and the time (UTC).
pub fn parse_file_name(stem: &str) -> Option<(String, OffsetDateTime)> {
    let mut parts = stem.rsplitn(3, '_');
    let hms = parts.next()?;
    let ymd = parts.next()?;
    let conversation = parts.next().filter(|c| !c.is_empty())?;
    let time = PrimitiveDateTime::parse(
        &format!("{ymd}_{hms}"),
        format_description!("[year][month][day]_[hour][minute][second]"),
    )
    .ok()?;
    Some((conversation.to_string(), time.assume_utc()))
}

pub(crate) fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    const BODY: &str = "Intro line\n\n## Plan: fix the parser\n\n- [x] read it\n- [ ] fix it\n  * [X] nested done\n- [ ]no space is still a box\n- [y] not a box\n";

    #[test]
    fn summary_reads_heading_checkboxes_and_file_name() {
        let path = Path::new("/plans/0193abcd-ef_20261122_030405.md");
        let s = summarize(path, BODY, Some(datetime!(2026-11-22 04:00:00 UTC)));
        assert_eq!(s.id, "0193abcd-ef_20261122_030405");
        assert_eq!(s.title, "Plan: fix the parser");
        assert_eq!(s.status, PlanStatus::Draft);
        assert_eq!((s.done, s.total), (2, 4));
        assert_eq!(s.created, datetime!(2026-11-22 03:04:05 UTC));
        assert_eq!(s.updated, datetime!(2026-11-22 04:00:00 UTC));
        assert_eq!(s.conversation.as_deref(), Some("0193abcd-ef"));
        assert_eq!(s.kind, PlanKind::PlanMode);
    }

    #[test]
    fn title_falls_back_to_first_line() {
        assert_eq!(title_of("\n  Just text\nmore"), "Just text");
        assert_eq!(title_of("\n\n"), "(empty plan)");
    }

    #[test]
    fn mark_adds_then_updates_front_matter_and_keeps_the_body() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("conv-1_20261122_030405.md");
        std::fs::write(&path, BODY).unwrap();
        mark(&path, PlanStatus::Approved).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let (fm, body) = front_matter::split(&text).unwrap();
        assert_eq!(body, BODY);
        assert_eq!(fm.get("id"), Some("conv-1_20261122_030405"));
        assert_eq!(fm.get("status"), Some("approved"));
        assert_eq!(fm.get("title"), Some("Plan: fix the parser"));
        assert_eq!(fm.get("created"), Some("2026-11-22T03:04:05Z"));
        assert_eq!(fm.get("conversation"), Some("conv-1"));

        mark(&path, PlanStatus::Completed).unwrap();
        let again = std::fs::read_to_string(&path).unwrap();
        let (fm, body) = front_matter::split(&again).unwrap();
        assert_eq!(body, BODY, "body kept on update");
        assert_eq!(fm.get("status"), Some("completed"));
        assert_eq!(again.matches("---\n").count(), 2, "one front matter block");
        let s = summarize(&path, &again, None);
        assert_eq!(s.status, PlanStatus::Completed);
    }

    #[test]
    fn mark_of_a_missing_file_is_an_io_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = mark(&dir.path().join("nope.md"), PlanStatus::Approved).unwrap_err();
        assert!(matches!(err, PlanStoreError::Io { .. }), "{err}");
    }
}

//! Plan-mode plan files as plan documents: free Markdown named
//! `{conversation_id}_{YYYYMMDD_HHMMSS}.md`, listed with what can be read from them. Their
//! id is the file name and their status cairn's record; front matter at the top of the text
//! (the model's, or one an older cairn added on approval) is skipped, never believed.

use super::front_matter;
use super::record::Record;
use super::{PlanKind, PlanSummary};
use cairn_protocol::PlanStatus;
use chrono::{DateTime, NaiveDate, Utc};
use std::path::Path;

/// What a listing shows of a plan-mode file with content `text`; `modified` is the file's
/// modification time and `record` what cairn recorded about it (none: a draft).
pub fn summarize(
    path: &Path,
    text: &str,
    modified: Option<DateTime<Utc>>,
    record: Option<&Record>,
) -> PlanSummary {
    let stem = file_stem(path);
    let body = body_of(text);
    let from_name = parse_file_name(&stem);
    let created = record
        .map(|r| r.created)
        .or(from_name.as_ref().map(|(_, t)| *t))
        .or(modified)
        .unwrap_or(DateTime::UNIX_EPOCH);
    // The file may be edited after approval; the later time is the true one.
    let updated = match (record.map(|r| r.updated), modified) {
        (Some(a), Some(b)) => a.max(b),
        (a, b) => a.or(b).unwrap_or(created),
    };
    let (done, total) = checkbox_progress(body);
    PlanSummary {
        id: stem,
        title: title_of(body),
        status: record.map_or(PlanStatus::Draft, |r| r.status),
        done,
        total,
        created,
        updated,
        conversation: record
            .and_then(|r| r.conversation.clone())
            .or(from_name.map(|(c, _)| c)),
        path: path.to_path_buf(),
        kind: PlanKind::PlanMode,
    }
}

/// `text` after any front matter blocks it opens with: they are not the plan's title or
/// steps, and nothing in them is believed.
pub fn body_of(text: &str) -> &str {
    let mut body = text;
    while let Some((_, rest)) = front_matter::split(body) {
        body = rest;
    }
    body
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
pub fn parse_file_name(stem: &str) -> Option<(String, DateTime<Utc>)> {
    let mut parts = stem.rsplitn(3, '_');
    let hms = parts.next()?;
    let ymd = parts.next()?;
    let conversation = parts.next().filter(|c| !c.is_empty())?;
    let digits = |text: &str, len: usize| {
        (text.len() == len && text.bytes().all(|b| b.is_ascii_digit())).then_some(())
    };
    digits(ymd, 8)?;
    digits(hms, 6)?;
    let number = |range: std::ops::Range<usize>, text: &str| text[range].parse::<u32>().ok();
    let time = NaiveDate::from_ymd_opt(
        number(0..4, ymd)? as i32,
        number(4..6, ymd)?,
        number(6..8, ymd)?,
    )?
    .and_hms_opt(number(0..2, hms)?, number(2..4, hms)?, number(4..6, hms)?)?;
    Some((conversation.to_string(), time.and_utc()))
}

pub(crate) fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plans::utc;

    const BODY: &str = "Intro line\n\n## Plan: fix the parser\n\n- [x] read it\n- [ ] fix it\n  * [X] nested done\n- [ ]no space is still a box\n- [y] not a box\n";

    #[test]
    fn summary_reads_heading_checkboxes_and_file_name() {
        let path = Path::new("/plans/0193abcd-ef_20261122_030405.md");
        let s = summarize(path, BODY, Some(utc("2026-11-22 04:00:00")), None);
        assert_eq!(s.id, "0193abcd-ef_20261122_030405");
        assert_eq!(s.title, "Plan: fix the parser");
        assert_eq!(s.status, PlanStatus::Draft);
        assert_eq!((s.done, s.total), (2, 4));
        assert_eq!(s.created, utc("2026-11-22 03:04:05"));
        assert_eq!(s.updated, utc("2026-11-22 04:00:00"));
        assert_eq!(s.conversation.as_deref(), Some("0193abcd-ef"));
        assert_eq!(s.kind, PlanKind::PlanMode);
    }

    #[test]
    fn title_falls_back_to_first_line() {
        assert_eq!(title_of("\n  Just text\nmore"), "Just text");
        assert_eq!(title_of("\n\n"), "(empty plan)");
    }

    #[test]
    fn front_matter_in_the_text_is_neither_id_nor_status_nor_title() {
        let path = Path::new("/plans/conv-1_20261122_030405.md");
        let text =
            format!("---\nid: plan-deadbeef\ntitle: \"Fake\"\nstatus: approved\n---\n{BODY}");
        let s = summarize(path, &text, None, None);
        assert_eq!(s.id, "conv-1_20261122_030405");
        assert_eq!(s.status, PlanStatus::Draft);
        assert_eq!(s.title, "Plan: fix the parser");
        assert_eq!((s.done, s.total), (2, 4));
    }

    #[test]
    fn the_record_gives_status_and_times() {
        let path = Path::new("/plans/conv-1_20261122_030405.md");
        let record = Record {
            status: PlanStatus::Approved,
            created: utc("2026-11-22 03:04:05"),
            updated: utc("2026-11-22 05:00:00"),
            conversation: Some("conv-1".into()),
        };
        let s = summarize(path, BODY, Some(utc("2026-11-22 04:00:00")), Some(&record));
        assert_eq!(s.status, PlanStatus::Approved);
        assert_eq!(s.updated, utc("2026-11-22 05:00:00"));
        let s = summarize(path, BODY, Some(utc("2026-11-22 06:00:00")), Some(&record));
        assert_eq!(
            s.updated,
            utc("2026-11-22 06:00:00"),
            "edited after approval"
        );
    }
}

//! How plan listings look: the table of `cairn plans list` (and the TUI's `/plans`), its
//! JSON form, and the front matter cairn shows above a stored document.

use super::{PlanSummary, front_matter};
use serde_json::json;
use std::path::Path;
use time::OffsetDateTime;

/// Longest title shown in the table; longer ones end in `…`.
pub const TITLE_WIDTH: usize = 48;

/// What `cairn plans list` prints when there is nothing to list.
pub fn empty_message(dir: &Path) -> String {
    format!(
        "No plans yet. Plans are stored in {} (structured plans by create_plan, plan-mode plans when you use /plan).",
        dir.display()
    )
}

/// `done/total`.
pub fn progress(summary: &PlanSummary) -> String {
    format!("{}/{}", summary.done, summary.total)
}

/// `text` with control characters blanked: titles come from the model and ids from file
/// names, and no escape sequence of theirs may reach a terminal.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `title` cut to `width` characters, ending in `…` when cut.
pub fn truncate(title: &str, width: usize) -> String {
    let title = printable(title);
    if title.chars().count() <= width {
        return title;
    }
    let mut cut: String = title.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// How long ago `then` was, seen at `now`: `just now`, `5m ago`, `3h ago`, `2d ago`, or the
/// date after a month.
pub fn relative_time(then: OffsetDateTime, now: OffsetDateTime) -> String {
    let seconds = (now - then).whole_seconds();
    match seconds {
        s if s < 60 => "just now".to_string(),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s if s < 30 * 86_400 => format!("{}d ago", s / 86_400),
        _ => format!(
            "{:04}-{:02}-{:02}",
            then.year(),
            u8::from(then.month()),
            then.day()
        ),
    }
}

/// The table: a header row, then one row per plan (id, title, status, progress, updated).
pub fn format_table(plans: &[PlanSummary], now: OffsetDateTime) -> String {
    let rows: Vec<[String; 5]> = plans
        .iter()
        .map(|p| {
            [
                printable(&p.id),
                truncate(&p.title, TITLE_WIDTH),
                p.status.as_str().to_string(),
                progress(p),
                relative_time(p.updated, now),
            ]
        })
        .collect();
    let header = ["ID", "TITLE", "STATUS", "PROGRESS", "UPDATED"].map(str::to_string);
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&" ".repeat(width - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The front matter `cairn plans show`, `/plans <id>` and `read_plan` put above a document:
/// written from `summary` (the store's id and status), never copied from the document.
pub fn header(summary: &PlanSummary) -> String {
    // Names are file names, which may hold anything (a newline and a fake `status:` line):
    // quoted unless plainly a word, so every value stays on its own line.
    let plain = |v: &str| {
        !v.is_empty()
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    let mut fields = vec![
        ("id", summary.id.clone(), !plain(&summary.id)),
        ("title", summary.title.clone(), true),
        ("status", summary.status.as_str().to_string(), false),
        ("created", front_matter::format_time(summary.created), false),
        ("updated", front_matter::format_time(summary.updated), false),
    ];
    if let Some(conversation) = &summary.conversation {
        fields.push(("conversation", conversation.clone(), !plain(conversation)));
    }
    front_matter::render(&fields)
}

/// The listing as a JSON array (for `cairn plans list --json`).
pub fn to_json(plans: &[PlanSummary]) -> serde_json::Value {
    plans
        .iter()
        .map(|p| {
            json!({
                "id": p.id,
                "title": p.title,
                "status": p.status.as_str(),
                "done": p.done,
                "total": p.total,
                "created": front_matter::format_time(p.created),
                "updated": front_matter::format_time(p.updated),
                "conversation": p.conversation,
                "kind": p.kind.as_str(),
                "path": p.path.display().to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_lose_control_characters() {
        assert_eq!(truncate("a\u{1b}[2Jb\nc", 20), "a [2Jb c");
    }
    use crate::plans::PlanKind;
    use cairn_protocol::PlanStatus;
    use time::macros::datetime;

    fn summary(id: &str, title: &str, updated: OffsetDateTime) -> PlanSummary {
        PlanSummary {
            id: id.into(),
            title: title.into(),
            status: PlanStatus::InProgress,
            done: 2,
            total: 5,
            created: datetime!(2026-01-01 00:00:00 UTC),
            updated,
            conversation: Some("c".into()),
            path: "/h/plans/x.md".into(),
            kind: PlanKind::Structured,
        }
    }

    #[test]
    fn table_aligns_columns_and_truncates_titles() {
        let now = datetime!(2026-03-01 12:00:00 UTC);
        let plans = [
            summary(
                "plan-1a2b3c4d",
                "Add a --json flag",
                datetime!(2026-03-01 11:57:00 UTC),
            ),
            summary(
                "conv_20260101_000000",
                "A very long plan-mode title that goes on and on and on forever",
                datetime!(2026-01-01 00:00:00 UTC),
            ),
        ];
        assert_eq!(
            format_table(&plans, now),
            "\
ID                    TITLE                                             STATUS       PROGRESS  UPDATED
plan-1a2b3c4d         Add a --json flag                                 in_progress  2/5       3m ago
conv_20260101_000000  A very long plan-mode title that goes on and on…  in_progress  2/5       2026-01-01
"
        );
    }

    #[test]
    fn relative_times() {
        let now = datetime!(2026-03-01 12:00:00 UTC);
        assert_eq!(relative_time(now, now), "just now");
        assert_eq!(
            relative_time(datetime!(2026-03-02 12:00:00 UTC), now),
            "just now"
        );
        assert_eq!(
            relative_time(datetime!(2026-03-01 09:00:00 UTC), now),
            "3h ago"
        );
        assert_eq!(
            relative_time(datetime!(2026-02-27 12:00:00 UTC), now),
            "2d ago"
        );
    }

    #[test]
    fn json_has_every_field() {
        let plans = [summary("plan-1", "T", datetime!(2026-03-01 11:57:00 UTC))];
        assert_eq!(
            to_json(&plans),
            json!([{
                "id": "plan-1", "title": "T", "status": "in_progress", "done": 2, "total": 5,
                "created": "2026-01-01T00:00:00Z", "updated": "2026-03-01T11:57:00Z",
                "conversation": "c", "kind": "structured", "path": "/h/plans/x.md"
            }])
        );
    }
}

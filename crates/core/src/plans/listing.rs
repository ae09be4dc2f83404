//! How plan listings look: the table of `cairn plans list` (and the TUI's `/plans`), its
//! JSON form, and the front matter cairn shows above a stored document.

use super::{PlanSummary, front_matter};
use chrono::{DateTime, Datelike, Utc};
use serde_json::json;
use std::path::Path;

/// Longest title shown in the table; longer ones end in `…`.
pub const TITLE_WIDTH: usize = 48;

/// What `cairn plans list` prints when there is nothing to list.
pub fn empty_message(dir: &Path) -> String {
    format!(
        "No plans yet. Plans are stored in {} (structured plans by create_plan, plan-mode plans when you use /plan).",
        dir.display()
    )
}

/// `done/total`, or `-` for a plan without steps (a plan-mode plan written as prose).
pub fn progress(summary: &PlanSummary) -> String {
    if summary.total == 0 {
        return "-".to_string();
    }
    format!("{}/{}", summary.done, summary.total)
}

/// `text` with control characters blanked: titles come from the model and ids from file
/// names, and no escape sequence of theirs may reach a terminal.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A whole document made safe to print to a terminal: escape sequences (CSI, OSC, DCS and
/// the like, in their 7-bit and 8-bit forms) are removed and other control characters
/// dropped, keeping only newlines and tabs. Documents are text the model wrote, and `cairn
/// plans show` must not let it move the cursor, retitle the window or hide lines.
pub fn printable_document(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates up to a final byte.
                Some('[') => skip_csi(&mut chars),
                // OSC, DCS, SOS, PM, APC: a string up to BEL or ST (ESC \).
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                // A two-character sequence (or a lone ESC at the end).
                _ => {}
            },
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            break;
        }
    }
}

fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => break,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                break;
            }
            _ => {}
        }
    }
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
pub fn relative_time(then: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (now - then).num_seconds();
    match seconds {
        s if s < 60 => "just now".to_string(),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s if s < 30 * 86_400 => format!("{}d ago", s / 86_400),
        _ => format!("{:04}-{:02}-{:02}", then.year(), then.month(), then.day()),
    }
}

/// The table: a header row, then one row per plan (id, title, status, progress, updated).
pub fn format_table(plans: &[PlanSummary], now: DateTime<Utc>) -> String {
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
    use crate::plans::utc;
    use cairn_protocol::PlanStatus;

    fn summary(id: &str, title: &str, updated: DateTime<Utc>) -> PlanSummary {
        PlanSummary {
            id: id.into(),
            title: title.into(),
            status: PlanStatus::InProgress,
            done: 2,
            total: 5,
            created: utc("2026-01-01 00:00:00"),
            updated,
            conversation: Some("c".into()),
            path: "/h/plans/x.md".into(),
            kind: PlanKind::Structured,
        }
    }

    #[test]
    fn table_aligns_columns_and_truncates_titles() {
        let now = utc("2026-03-01 12:00:00");
        let plans = [
            summary(
                "plan-1a2b3c4d",
                "Add a --json flag",
                utc("2026-03-01 11:57:00"),
            ),
            summary(
                "conv_20260101_000000",
                "A very long plan-mode title that goes on and on and on forever",
                utc("2026-01-01 00:00:00"),
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
    fn a_plan_without_steps_shows_a_dash_not_0_of_0() {
        let mut plan = summary("conv_1", "Prose plan", utc("2026-03-01 11:57:00"));
        (plan.done, plan.total) = (0, 0);
        assert_eq!(progress(&plan), "-");
        plan.total = 4;
        assert_eq!(progress(&plan), "0/4");
    }

    #[test]
    fn documents_print_without_escape_sequences_or_control_characters() {
        let text = "# Plan \u{1b}[2J\u{1b}[1;1H\u{1b}]0;pwned\u{7}title\r\n- [ ] step\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\\tend\u{9b}31mred\u{8}\u{0}\u{1b}c\n";
        assert_eq!(
            printable_document(text),
            "# Plan title\n- [ ] steplink\tendred\n"
        );
        assert_eq!(printable_document("a\u{1b}"), "a");
        assert_eq!(printable_document("日本語 ✅\n"), "日本語 ✅\n");
    }

    #[test]
    fn relative_times() {
        let now = utc("2026-03-01 12:00:00");
        assert_eq!(relative_time(now, now), "just now");
        assert_eq!(relative_time(utc("2026-03-02 12:00:00"), now), "just now");
        assert_eq!(relative_time(utc("2026-03-01 09:00:00"), now), "3h ago");
        assert_eq!(relative_time(utc("2026-02-27 12:00:00"), now), "2d ago");
    }

    #[test]
    fn json_has_every_field() {
        let plans = [summary("plan-1", "T", utc("2026-03-01 11:57:00"))];
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

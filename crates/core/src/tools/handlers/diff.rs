//! How a file change is put to the user: a unified diff, line counts, and the approval
//! request shared by `write_file`, `edit_file` and `apply_patch`.

use super::paths;
use crate::approval::{Access, SessionScope};
use crate::tools::{ApprovalKind, ApprovalRequest, ToolContext};
use similar::{ChangeTag, TextDiff};
use std::path::PathBuf;
use std::time::Duration;

/// A pathological diff gives up on minimality after this long instead of stalling the turn.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// Lines added and removed between two texts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LineCounts {
    pub added: usize,
    pub removed: usize,
}

impl std::ops::AddAssign for LineCounts {
    fn add_assign(&mut self, other: Self) {
        self.added += other.added;
        self.removed += other.removed;
    }
}

impl std::fmt::Display for LineCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "+{} -{}", self.added, self.removed)
    }
}

fn text_diff<'a>(old: &'a str, new: &'a str) -> TextDiff<'a, 'a, 'a, str> {
    TextDiff::configure()
        .timeout(DIFF_DEADLINE)
        .diff_lines(old, new)
}

/// Lines added and removed going from `old` to `new`.
pub(crate) fn line_counts(old: &str, new: &str) -> LineCounts {
    let mut counts = LineCounts::default();
    for change in text_diff(old, new).iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => counts.added += 1,
            ChangeTag::Delete => counts.removed += 1,
            ChangeTag::Equal => {}
        }
    }
    counts
}

/// A unified diff of one file with `a/` and `b/` headers (`/dev/null` for a missing side).
/// A path outside the workspace is absolute and keeps its own leading slash (`b/tmp/x`).
pub(crate) fn unified(old: Option<&str>, new: Option<&str>, shown: &str) -> String {
    let relative = shown.trim_start_matches('/');
    let a = if old.is_some() {
        format!("a/{relative}")
    } else {
        "/dev/null".to_string()
    };
    let b = if new.is_some() {
        format!("b/{relative}")
    } else {
        "/dev/null".to_string()
    };
    let old = old.unwrap_or("");
    let new = new.unwrap_or("");
    text_diff(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&a, &b)
        .to_string()
}

/// The approval request for changing `files`: known safe when every file is inside the
/// workspace root; protected (asked under every policy but `never`) when one is in cairn's
/// settings or a home start-up file; "approve for this session" remembers each file.
pub(crate) fn patch_request(
    files: Vec<PathBuf>,
    diff: String,
    description: String,
    ctx: &ToolContext,
) -> ApprovalRequest {
    let access = Access::new(ctx.config(), &ctx.cwd);
    let protected = files.iter().find_map(|f| access.write_guard(f));
    let known_safe = protected.is_none() && files.iter().all(|f| access.in_workspace(f));
    let session = if protected.is_some() {
        SessionScope::none()
    } else {
        let shown: Vec<String> = files.iter().map(|f| paths::display(f, &ctx.cwd)).collect();
        SessionScope::files("file", "edits to", &files, &shown)
    };
    ApprovalRequest {
        kind: ApprovalKind::Patch { paths: files, diff },
        description,
        session,
        known_safe,
        protected: protected.map(String::from),
    }
}

/// The number of lines in `text` as an editor counts them.
pub(crate) fn count_lines(text: &str) -> usize {
    text.lines().count()
}

/// "1 line" / "3 lines".
pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_unified_diff() {
        let old = "a\nb\nc\n";
        let new = "a\nB\nc\nd\n";
        assert_eq!(
            line_counts(old, new),
            LineCounts {
                added: 2,
                removed: 1
            }
        );
        let diff = unified(Some(old), Some(new), "x.txt");
        assert!(diff.starts_with("--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,4 @@\n"));
        assert!(diff.contains("-b\n+B\n"));
        let created = unified(None, Some("hi\n"), "new.txt");
        assert!(created.starts_with("--- /dev/null\n+++ b/new.txt\n"));
        let outside = unified(None, Some("x\n"), "/tmp/out.txt");
        assert!(
            outside.starts_with("--- /dev/null\n+++ b/tmp/out.txt\n"),
            "{outside}"
        );
    }

    #[test]
    fn requests_outside_the_workspace_are_not_known_safe() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("ws");
        std::fs::create_dir(&root).unwrap();
        let (ctx, _rx) = ToolContext::for_test(&dir.path().join("home"), &root);
        let inside = patch_request(vec![root.join("a.rs")], String::new(), "d".into(), &ctx);
        assert!(inside.known_safe);
        assert!(inside.protected.is_none());
        assert_eq!(
            inside.session.keys,
            vec![format!("file:{}", root.join("a.rs").display())]
        );
        assert_eq!(inside.session.label.as_deref(), Some("edits to a.rs"));
        let outside = patch_request(
            vec![root.join("a.rs"), PathBuf::from("/etc/hosts")],
            String::new(),
            "d".into(),
            &ctx,
        );
        assert!(!outside.known_safe);
    }

    #[test]
    fn cairn_settings_are_protected_even_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        // $CAIRN_HOME inside the workspace, and a project .cairn directory.
        let (ctx, _rx) = ToolContext::for_test(&root.join("home"), &root);
        for file in [
            root.join("home/config.toml"),
            root.join(".cairn/agents/x.md"),
        ] {
            let request = patch_request(vec![file.clone()], String::new(), "d".into(), &ctx);
            assert!(!request.known_safe, "{}", file.display());
            assert!(request.protected.is_some(), "{}", file.display());
            assert!(request.session.keys.is_empty());
        }
    }
}

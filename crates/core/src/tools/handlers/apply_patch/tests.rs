use super::*;
use crate::tools::ApprovalKind;
use crate::tools::handlers::test_support::Workspace;
use proptest::prelude::*;
use std::fs::Permissions;
use std::os::unix::fs::PermissionsExt;

fn patch(body: &str) -> serde_json::Value {
    json!({ "input": format!("*** Begin Patch\n{body}*** End Patch\n") })
}

const LIB: &str = "use std::io;\n\nfn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n\nfn helper() {\n    todo!()\n}\n";

#[tokio::test]
async fn adds_updates_moves_and_deletes_in_one_patch() {
    let ws = Workspace::new();
    ws.write("src/main.rs", LIB);
    ws.write("old.txt", "bye\n");
    ws.write("tool.sh", "#!/bin/sh\necho one\n");
    std::fs::set_permissions(ws.path("tool.sh"), Permissions::from_mode(0o755)).unwrap();
    let body = "*** Add File: docs/notes.md\n+# Notes\n+\n+hello\n*** Update File: src/main.rs\n@@ fn main() {\n-    let x = 1;\n+    let x = 2;\n     println!(\"{x}\");\n@@ fn helper() {\n-    todo!()\n+    ()\n*** Delete File: old.txt\n*** Update File: tool.sh\n*** Move to: bin/tool.sh\n@@\n #!/bin/sh\n-echo one\n+echo two\n";
    let out = ws.ok(&ApplyPatchHandler, patch(body)).await;
    assert_eq!(
        out,
        "Success. Updated the following files:\nA docs/notes.md\nM src/main.rs\nM bin/tool.sh (moved from tool.sh)\nD old.txt"
    );
    assert_eq!(ws.read("docs/notes.md"), "# Notes\n\nhello\n");
    assert_eq!(
        ws.read("src/main.rs"),
        LIB.replace("let x = 1", "let x = 2")
            .replace("todo!()", "()")
    );
    assert!(!ws.exists("old.txt"));
    assert!(!ws.exists("tool.sh"));
    assert_eq!(ws.read("bin/tool.sh"), "#!/bin/sh\necho two\n");
    let mode = std::fs::metadata(ws.path("bin/tool.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755, "a moved script stays executable");
}

#[tokio::test]
async fn a_failing_hunk_writes_nothing_and_names_file_and_line() {
    let ws = Workspace::new();
    ws.write("src/main.rs", LIB);
    ws.write("b.txt", "keep\n");
    let body = "*** Add File: new.txt\n+new\n*** Delete File: b.txt\n*** Update File: src/main.rs\n@@\n fn main() {\n-    let x = 1;\n+    let x = 3;\n     println!(\"{y}\");\n";
    let err = ws.err(&ApplyPatchHandler, patch(body)).await;
    assert_eq!(
        err,
        "Failed to apply the patch to src/main.rs: hunk 1 line `    println!(\"{y}\");` did not match: lines 3-4 match the hunk up to there, but line 5 is `    println!(\"{x}\");`. Nothing was written. Read the file again and regenerate the hunk from its current content."
    );
    assert!(!ws.exists("new.txt"));
    assert_eq!(ws.read("b.txt"), "keep\n");
    assert_eq!(ws.read("src/main.rs"), LIB);
}

#[tokio::test]
async fn missing_context_and_missing_files_are_named() {
    let ws = Workspace::new();
    ws.write("src/main.rs", LIB);
    let err = ws
        .err(
            &ApplyPatchHandler,
            patch("*** Update File: src/main.rs\n@@ fn nowhere() {\n-x\n+y\n"),
        )
        .await;
    assert!(
        err.starts_with("Failed to apply the patch to src/main.rs: the context line `@@ fn nowhere() {` of hunk 1 was not found."),
        "{err}"
    );
    let err = ws
        .err(&ApplyPatchHandler, patch("*** Delete File: ghost.rs\n"))
        .await;
    assert_eq!(
        err,
        "Failed to apply the patch to ghost.rs: the file to delete does not exist. Nothing was written."
    );
    let err = ws
        .err(
            &ApplyPatchHandler,
            patch("*** Update File: ghost.rs\n@@\n-a\n+b\n"),
        )
        .await;
    assert!(err.contains("the file to update does not exist"), "{err}");
    let err = ws
        .err(&ApplyPatchHandler, json!({"input": "--- a/x\n+++ b/x\n"}))
        .await;
    assert!(
        err.starts_with("Invalid patch: the first line of the patch must be `*** Begin Patch`"),
        "{err}"
    );
}

#[tokio::test]
async fn trailing_whitespace_differences_are_tolerated() {
    let ws = Workspace::new();
    ws.write("a.py", "def f():   \n    return 1\t\n\nprint(f())\n");
    ws.ok(
        &ApplyPatchHandler,
        patch("*** Update File: a.py\n@@\n def f():\n-    return 1\n+    return 2\n"),
    )
    .await;
    assert_eq!(ws.read("a.py"), "def f():   \n    return 2\n\nprint(f())\n");
}

#[tokio::test]
async fn crlf_and_missing_final_newline_are_kept() {
    let ws = Workspace::new();
    ws.write("win.txt", "a\r\nb\r\nc\r\n");
    ws.write("bare.txt", "x\ny");
    ws.ok(
        &ApplyPatchHandler,
        patch("*** Update File: win.txt\n@@\n a\n-b\n+B\n*** Update File: bare.txt\n@@\n-x\n+X\n"),
    )
    .await;
    assert_eq!(ws.read("win.txt"), "a\r\nB\r\nc\r\n");
    assert_eq!(ws.read("bare.txt"), "X\ny");
}

#[tokio::test]
async fn added_lines_are_whole_lines_so_a_replaced_last_line_ends_with_a_newline() {
    let ws = Workspace::new();
    for name in ["replaced.txt", "appended.txt", "removed.txt", "kept.txt"] {
        ws.write(name, "x\ny");
    }
    ws.write("win.txt", "a\r\nb");
    ws.ok(
        &ApplyPatchHandler,
        patch(
            "*** Update File: replaced.txt\n@@\n x\n-y\n+Y\n*** Update File: appended.txt\n@@\n x\n y\n+z\n*** Update File: removed.txt\n@@\n x\n-y\n*** Update File: kept.txt\n@@\n+w\n x\n y\n*** Update File: win.txt\n@@\n a\n-b\n+B\n",
        ),
    )
    .await;
    assert_eq!(ws.read("replaced.txt"), "x\nY\n");
    assert_eq!(ws.read("appended.txt"), "x\ny\nz\n");
    assert_eq!(ws.read("removed.txt"), "x\n");
    assert_eq!(
        ws.read("kept.txt"),
        "w\nx\ny",
        "an untouched last line stays as it was"
    );
    assert_eq!(ws.read("win.txt"), "a\r\nB\r\n");
}

#[tokio::test]
async fn git_internals_are_refused() {
    let ws = Workspace::new();
    let err = ws
        .err(
            &ApplyPatchHandler,
            patch("*** Add File: .git/hooks/post-checkout\n+#!/bin/sh\n"),
        )
        .await;
    assert!(
        err.starts_with("Refusing to write .git/hooks/post-checkout"),
        "{err}"
    );
    assert!(!ws.exists(".git"));
}

#[test]
fn approval_lists_files_with_a_diff() {
    let ws = Workspace::new();
    ws.write("src/main.rs", LIB);
    ws.write("old.txt", "bye\n");
    let args = patch("*** Add File: new.txt\n+hi\n*** Update File: src/main.rs\n@@\n-use std::io;\n+use std::fs;\n*** Delete File: old.txt\n").to_string();
    assert_eq!(
        ApplyPatchHandler.describe(&args),
        "Would apply a patch to 3 files"
    );
    let request = ApplyPatchHandler.approval(&args, &ws.ctx).unwrap().unwrap();
    assert_eq!(request.description, "Would apply a patch to 3 files");
    assert!(request.known_safe);
    assert_eq!(request.session.keys.len(), 3);
    let ApprovalKind::Patch { paths, diff } = request.kind else {
        panic!("expected a patch request");
    };
    assert_eq!(
        paths,
        vec![
            ws.path("new.txt"),
            ws.path("src/main.rs"),
            ws.path("old.txt")
        ]
    );
    assert!(diff.contains("--- /dev/null\n+++ b/new.txt\n"), "{diff}");
    assert!(diff.contains("-use std::io;\n+use std::fs;\n"), "{diff}");
    assert!(diff.contains("--- a/old.txt\n+++ /dev/null\n"), "{diff}");

    let one = patch("*** Delete File: old.txt\n").to_string();
    assert_eq!(
        ApplyPatchHandler.describe(&one),
        "Would apply a patch to old.txt"
    );
}

/// A Codex patch that turns `old` into `new`, built from a line diff with 3 lines of context.
fn patch_between(path: &str, old: &[String], new: &[String]) -> String {
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, old, new);
    let mut out = format!("*** Begin Patch\n*** Update File: {path}\n");
    for group in similar::group_diff_ops(ops, 3) {
        out.push_str("@@\n");
        let mut touches_end = false;
        for op in &group {
            for change in op.iter_changes(old, new) {
                let sign = match change.tag() {
                    similar::ChangeTag::Equal => ' ',
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                };
                out.push(sign);
                out.push_str(&change.value());
                out.push('\n');
            }
            touches_end = op.old_range().end == old.len();
        }
        if touches_end {
            out.push_str("*** End of File\n");
        }
    }
    out.push_str("*** End Patch\n");
    out
}

fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Keep or drop each original line and insert fresh lines anywhere; the patch generated
    /// from that edit, applied to the original, must give exactly the edited file.
    #[test]
    fn applying_a_generated_patch_reproduces_the_edit(
        edits in proptest::collection::vec((any::<bool>(), 0usize..3, 0usize..3), 0..40),
        leading in 0usize..3,
    ) {
        let old: Vec<String> = (0..edits.len()).map(|i| format!("line {i}")).collect();
        let mut new: Vec<String> = (0..leading).map(|k| format!("lead {k}")).collect();
        for (i, (keep, inserted, indent)) in edits.iter().enumerate() {
            if *keep {
                new.push(old[i].clone());
            }
            for k in 0..*inserted {
                new.push(format!("{}added {i}.{k}", "  ".repeat(*indent)));
            }
        }
        prop_assume!(old != new);
        let text = patch_between("f.txt", &old, &new);
        let ops = parser::parse(&text).unwrap();
        let parser::FileOp::Update { chunks, .. } = &ops[0] else {
            panic!("expected an update");
        };
        let applied = apply::apply_chunks(&joined(&old), chunks, "f.txt").unwrap();
        prop_assert_eq!(applied, joined(&new), "patch:\n{}", text);
    }
}

#[tokio::test]
async fn a_write_failing_part_way_leaves_nothing_changed() {
    let ws = Workspace::new();
    ws.write("keep.txt", "original\n");
    // `x` is added as a file, then `x/y` needs `x` to be a directory: the second write fails
    // after the first succeeded, and the first must be undone.
    let patch = "*** Begin Patch\n*** Update File: keep.txt\n@@\n-original\n+changed\n*** Add File: x\n+one\n*** Add File: x/y\n+two\n*** End Patch";
    let err = ws.err(&ApplyPatchHandler, json!({"input": patch})).await;
    assert!(err.starts_with("Failed to write x/y"), "{err}");
    assert!(err.ends_with("No file was changed."), "{err}");
    assert!(!ws.exists("x"));
    assert_eq!(ws.read("keep.txt"), "original\n");
}

use super::*;
use crate::tools::ApprovalKind;
use crate::tools::handlers::test_support::Workspace;

const LIB: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub fn sub(a: i32, b: i32) -> i32 {\n    a - b\n}\n";

fn edit(old: &str, new: &str) -> serde_json::Value {
    json!({"path": "src/lib.rs", "old_string": old, "new_string": new})
}

#[tokio::test]
async fn unique_match_is_replaced_and_the_region_echoed() {
    let ws = Workspace::new();
    ws.write("src/lib.rs", LIB);
    let out = ws
        .ok(
            &EditFileHandler,
            edit("    a - b\n", "    let d = a - b;\n    d\n"),
        )
        .await;
    assert_eq!(
        out,
        "Edited src/lib.rs: 1 replacement (+2 -1 lines).\nLines 4-8 now read:\n     4\t\n     5\tpub fn sub(a: i32, b: i32) -> i32 {\n     6\t    let d = a - b;\n     7\t    d\n     8\t}"
    );
    assert!(
        ws.read("src/lib.rs")
            .contains("    let d = a - b;\n    d\n}\n")
    );
}

#[tokio::test]
async fn absent_text_shows_the_closest_lines_with_numbers() {
    let ws = Workspace::new();
    ws.write("src/lib.rs", LIB);
    let err = ws
        .err(
            &EditFileHandler,
            edit("pub fn sub(a: u32, b: u32) -> u32 {\n    a - b\n", "x"),
        )
        .await;
    assert_eq!(
        err,
        "old_string was not found in src/lib.rs. The most similar lines are 5-6:\n     5\tpub fn sub(a: i32, b: i32) -> i32 {\n     6\t    a - b\nRead the file again with read_file and copy the exact text, including whitespace and indentation."
    );
    assert_eq!(ws.read("src/lib.rs"), LIB, "nothing written");
}

#[tokio::test]
async fn indentation_mismatch_is_called_out() {
    let ws = Workspace::new();
    ws.write("src/lib.rs", LIB);
    let err = ws.err(&EditFileHandler, edit("\ta + b\n}", "a * b")).await;
    assert!(
        err.contains("They differ from old_string only in whitespace or indentation."),
        "{err}"
    );
    let err = ws
        .err(&EditFileHandler, edit("nothing like this at all", "x"))
        .await;
    assert_eq!(
        err,
        "old_string was not found in src/lib.rs. No similar lines were found. Read the file again with read_file and copy the exact text, including whitespace and indentation."
    );
}

#[tokio::test]
async fn ambiguous_text_reports_count_and_lines() {
    let ws = Workspace::new();
    ws.write("src/lib.rs", LIB);
    let err = ws
        .err(&EditFileHandler, edit("(a: i32, b: i32) -> i32", "()"))
        .await;
    assert_eq!(
        err,
        "old_string matches 2 times in src/lib.rs (at lines 1, 5). Include more surrounding lines to make it unique, or set replace_all to true to change every occurrence."
    );
    let mut args = edit("i32", "i64");
    args["replace_all"] = json!(true);
    let out = ws.ok(&EditFileHandler, args).await;
    assert_eq!(out, "Edited src/lib.rs: 6 replacements (+2 -2 lines).");
    assert!(!ws.read("src/lib.rs").contains("i32"));
}

#[tokio::test]
async fn crlf_files_stay_crlf() {
    let ws = Workspace::new();
    ws.write("src/lib.rs", "one\r\ntwo\r\nthree\r\n");
    ws.ok(&EditFileHandler, edit("two\nthree\n", "2\n2.5\n3\n"))
        .await;
    assert_eq!(ws.read("src/lib.rs"), "one\r\n2\r\n2.5\r\n3\r\n");
    ws.ok(&EditFileHandler, edit("one", "1\n1.5")).await;
    assert_eq!(ws.read("src/lib.rs"), "1\r\n1.5\r\n2\r\n2.5\r\n3\r\n");
}

#[tokio::test]
async fn refusals_leave_files_alone() {
    let ws = Workspace::new();
    ws.write("src/lib.rs", LIB);
    ws.write(".git/config", "[core]\n\tbare = false\n");
    let err = ws
        .err(
            &EditFileHandler,
            json!({"path": ".git/config", "old_string": "false", "new_string": "true"}),
        )
        .await;
    assert!(err.starts_with("Refusing to write .git/config"), "{err}");
    assert_eq!(ws.read(".git/config"), "[core]\n\tbare = false\n");
    let err = ws.err(&EditFileHandler, edit("", "x")).await;
    assert!(err.starts_with("old_string is empty."));
    let err = ws.err(&EditFileHandler, edit("a + b", "a + b")).await;
    assert!(err.starts_with("old_string and new_string are identical"));
    let err = ws
        .err(
            &EditFileHandler,
            json!({"path": "missing.rs", "old_string": "a", "new_string": "b"}),
        )
        .await;
    assert!(err.starts_with("File not found: missing.rs."), "{err}");
    ws.write("latin1.txt", b"caf\xe9\n");
    let err = ws
        .err(
            &EditFileHandler,
            json!({"path": "latin1.txt", "old_string": "caf", "new_string": "tea"}),
        )
        .await;
    assert!(
        err.starts_with("latin1.txt is not valid UTF-8 text"),
        "{err}"
    );
}

#[test]
fn approval_carries_the_diff_and_counts() {
    let ws = Workspace::new();
    ws.write("src/lib.rs", LIB);
    let args = edit("    a + b\n", "    let s = a + b;\n    // sum\n    s\n").to_string();
    assert_eq!(
        EditFileHandler.describe(&args),
        "Would edit src/lib.rs (+3 -1)"
    );
    let request = EditFileHandler.approval(&args, &ws.ctx).unwrap().unwrap();
    assert_eq!(request.description, "Would edit src/lib.rs (+3 -1)");
    assert!(request.known_safe);
    let ApprovalKind::Patch { diff, .. } = request.kind else {
        panic!("expected a patch request");
    };
    assert!(diff.contains("-    a + b\n+    let s = a + b;\n"), "{diff}");
    // A bad edit is answered before anyone is asked.
    let bad = edit("not there", "x").to_string();
    assert!(EditFileHandler.approval(&bad, &ws.ctx).is_err());
}

//! `list_dir`: a directory tree to a given depth, honouring `.gitignore`, capped in entries.

use super::paths;
use crate::tools::{
    ApprovalRequest, ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names,
    parse_args,
};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use std::fmt::Write as _;
use std::path::Path;

const DEFAULT_DEPTH: usize = 2;
const MAX_DEPTH: usize = 10;
/// Most entries listed; the note says how many were left out.
const MAX_ENTRIES: usize = 400;

/// Handler of `list_dir`.
pub struct ListDirHandler;

#[derive(Deserialize)]
struct ListDirArgs {
    path: Option<String>,
    depth: Option<usize>,
}

#[async_trait]
impl ToolHandler for ListDirHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::LIST_DIR.to_string(),
            description: format!(
                "List a directory as an indented tree, to see how a project or a folder is laid out. Use it to get your bearings; to find files by name use glob_files, to find code use grep_files, to read a file use read_file.\n\nReturns one entry per line, indented two spaces per level, directories ending in `/`. Files ignored by .gitignore and the .git directory are left out. `depth` is how many levels to show (default {DEFAULT_DEPTH}, at most {MAX_DEPTH}); at most {MAX_ENTRIES} entries are listed, with a note when some were left out."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Directory, relative to the working directory or absolute. Default: the working directory."},
                    "depth": {"type": "integer", "minimum": 1, "description": "Levels to show below `path`: 1 lists only its direct entries. Default 2."}
                },
                "additionalProperties": false
            }),
        }
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        format!("List {}", args["path"].as_str().unwrap_or("."))
    }

    fn approval(
        &self,
        arguments: &str,
        ctx: &ToolContext,
    ) -> Result<Option<ApprovalRequest>, ToolError> {
        let args: ListDirArgs = parse_args(arguments)?;
        let root = paths::resolve(&ctx.cwd, args.path.as_deref().unwrap_or("."))?;
        let description = format!("Would list {}", paths::display(&root, &ctx.cwd));
        Ok(super::read_access::request(ctx, vec![root], description))
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: ListDirArgs = parse_args(&call.arguments)?;
        let root = paths::resolve(&ctx.cwd, args.path.as_deref().unwrap_or("."))?;
        let depth = args.depth.unwrap_or(DEFAULT_DEPTH).clamp(1, MAX_DEPTH);
        let cwd = ctx.cwd.clone();
        tokio::task::spawn_blocking(move || list(&root, &cwd, depth))
            .await
            .map_err(|e| ToolError::Fatal(format!("list_dir failed: {e}")))?
    }
}

fn list(root: &Path, cwd: &Path, depth: usize) -> Result<String, ToolError> {
    let shown = paths::display(root, cwd);
    match std::fs::metadata(root) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::RespondToModel(format!(
                "Directory not found: {shown}. List a parent directory or use glob_files to find it."
            )));
        }
        Err(e) => return Err(paths::io_error("list", root, cwd, &e)),
        Ok(meta) if !meta.is_dir() => {
            return Err(ToolError::RespondToModel(format!(
                "{shown} is a file, not a directory; use read_file to read it."
            )));
        }
        Ok(_) => {}
    }
    let walker = ignore::WalkBuilder::new(root)
        .max_depth(Some(depth))
        .hidden(false)
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git")
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    let mut out = format!("{}/\n", shown.trim_end_matches('/'));
    let mut total = 0usize;
    for entry in walker.flatten() {
        if entry.depth() == 0 {
            continue;
        }
        total += 1;
        if total > MAX_ENTRIES {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        let indent = "  ".repeat(entry.depth());
        let kind = entry.file_type();
        let suffix = if kind.is_some_and(|t| t.is_dir()) {
            "/"
        } else if kind.is_some_and(|t| t.is_symlink()) {
            "@"
        } else {
            ""
        };
        let _ = writeln!(out, "{indent}{name}{suffix}");
    }
    if total == 0 {
        out.push_str("  (empty)\n");
    }
    if total > MAX_ENTRIES {
        let _ = writeln!(
            out,
            "\n[Showing {MAX_ENTRIES} of {total} entries. List a subdirectory or use a smaller depth to see the rest.]"
        );
    }
    out.pop();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::handlers::test_support::Workspace;

    #[tokio::test]
    async fn tree_respects_gitignore_and_skips_git_dir() {
        let ws = Workspace::new();
        ws.write(".gitignore", "target/\n*.log\n");
        ws.write("src/lib.rs", "");
        ws.write("src/bin/main.rs", "");
        ws.write("target/debug/app", "");
        ws.write("run.log", "");
        ws.write(".git/HEAD", "ref: refs/heads/main\n");
        ws.write("Cargo.toml", "");
        let out = ws.ok(&ListDirHandler, json!({})).await;
        assert_eq!(
            out,
            "./\n  .gitignore\n  Cargo.toml\n  src/\n    bin/\n    lib.rs"
        );
        let deeper = ws
            .ok(&ListDirHandler, json!({"path": "src", "depth": 3}))
            .await;
        assert_eq!(deeper, "src/\n  bin/\n    main.rs\n  lib.rs");
    }

    #[tokio::test]
    async fn many_entries_are_capped_with_a_note() {
        let ws = Workspace::new();
        for i in 0..(MAX_ENTRIES + 5) {
            ws.write(&format!("many/f{i:04}.txt"), "");
        }
        let out = ws.ok(&ListDirHandler, json!({"path": "many"})).await;
        assert_eq!(out.lines().filter(|l| l.starts_with("  f")).count(), 400);
        assert!(out.ends_with(
            "[Showing 400 of 405 entries. List a subdirectory or use a smaller depth to see the rest.]"
        ));
    }

    #[tokio::test]
    async fn missing_directory_and_file_are_explained() {
        let ws = Workspace::new();
        ws.write("a.txt", "");
        let err = ws.err(&ListDirHandler, json!({"path": "nope"})).await;
        assert!(err.starts_with("Directory not found: nope."), "{err}");
        let err = ws.err(&ListDirHandler, json!({"path": "a.txt"})).await;
        assert_eq!(
            err,
            "a.txt is a file, not a directory; use read_file to read it."
        );
    }
}

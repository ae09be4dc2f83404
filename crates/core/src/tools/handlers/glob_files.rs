//! `glob_files`: files whose path matches a glob, found with the parallel `ignore` walker
//! (so `.gitignore` is honoured) and listed sorted.

use super::paths;
use crate::tools::{
    ApprovalRequest, ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names,
    parse_args,
};
use async_trait::async_trait;
use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkState;
use serde::Deserialize;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Most paths listed; the note gives the total.
const MAX_RESULTS: usize = 1000;

/// Handler of `glob_files`.
pub struct GlobFilesHandler;

#[derive(Deserialize)]
struct GlobFilesArgs {
    pattern: String,
    path: Option<String>,
}

#[async_trait]
impl ToolHandler for GlobFilesHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::GLOB_FILES.to_string(),
            description: format!(
                "Find files by name with a glob pattern. Use it when you know (part of) a file name: `*.rs` or `Cargo.toml` match file names at any depth; a pattern with a `/` such as `src/**/*.ts` or `**/test_*.py` matches the path below `path`. Not for searching file contents (use grep_files); prefer it to `find` or `ls -R` in the shell.\n\nReturns matching paths, relative to the working directory, sorted, one per line, at most {MAX_RESULTS} (with a note giving the total when there are more), or a line saying nothing matched. Files ignored by .gitignore are skipped."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "Glob: `*` within a name, `**` across directories, `{a,b}` for alternatives. Without a `/` it matches file names at any depth."},
                    "path": {"type": "string", "description": "Directory to search. Default: the working directory."}
                },
                "required": ["pattern"],
                "additionalProperties": false
            }),
        }
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        let pattern = args["pattern"].as_str().unwrap_or("");
        match args["path"].as_str() {
            Some(path) => format!("Find files matching `{pattern}` in {path}"),
            None => format!("Find files matching `{pattern}`"),
        }
    }

    fn approval(
        &self,
        arguments: &str,
        ctx: &ToolContext,
    ) -> Result<Option<ApprovalRequest>, ToolError> {
        let args: GlobFilesArgs = parse_args(arguments)?;
        let root = paths::resolve(&ctx.cwd, args.path.as_deref().unwrap_or("."))?;
        let description = format!(
            "Would look for `{}` in {}",
            args.pattern,
            paths::display(&root, &ctx.cwd)
        );
        Ok(super::read_access::request(ctx, vec![root], description))
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: GlobFilesArgs = parse_args(&call.arguments)?;
        let root = paths::resolve(&ctx.cwd, args.path.as_deref().unwrap_or("."))?;
        let cwd = ctx.cwd.clone();
        tokio::task::spawn_blocking(move || glob(&args.pattern, &root, &cwd))
            .await
            .map_err(|e| ToolError::Fatal(format!("glob_files failed: {e}")))?
    }
}

fn glob(pattern: &str, root: &Path, cwd: &Path) -> Result<String, ToolError> {
    let pattern = pattern.trim().trim_start_matches("./");
    if pattern.is_empty() {
        return Err(ToolError::RespondToModel(
            "`pattern` is empty; give a glob such as `**/*.rs`.".into(),
        ));
    }
    let matcher = GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| {
            ToolError::RespondToModel(format!(
                "Invalid glob pattern `{pattern}`: {}. Use `*` within a name, `**` across directories, `{{a,b}}` for alternatives.",
                e.kind()
            ))
        })?
        .compile_matcher();
    if !root.is_dir() {
        return Err(ToolError::RespondToModel(format!(
            "Directory not found: {}. Use list_dir to find the right path.",
            paths::display(root, cwd)
        )));
    }
    let by_name = !pattern.contains('/');
    let mut found = find(&matcher, by_name, root);
    found.sort();
    let total = found.len();
    if total == 0 {
        return Ok(format!(
            "No files match `{pattern}` in {}.",
            paths::place(root, cwd)
        ));
    }
    let mut out: Vec<String> = found
        .iter()
        .take(MAX_RESULTS)
        .map(|p| paths::display(p, cwd))
        .collect();
    if total > MAX_RESULTS {
        out.push(format!(
            "\n[Showing {MAX_RESULTS} of {total} files. Narrow the pattern or the path to see the rest.]"
        ));
    }
    Ok(out.join("\n"))
}

/// Walk `root` in parallel; each worker batches its matches and hands them over when done.
fn find(matcher: &GlobMatcher, by_name: bool, root: &Path) -> Vec<PathBuf> {
    let found = Mutex::new(Vec::new());
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build_parallel();
    walker.run(|| {
        let mut batch = Batch {
            items: Vec::new(),
            sink: &found,
        };
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            let is_file = entry
                .file_type()
                .is_some_and(|t| t.is_file() || (t.is_symlink() && entry.path().is_file()));
            if !is_file {
                return WalkState::Continue;
            }
            let hit = if by_name {
                matcher.is_match(entry.file_name())
            } else {
                entry
                    .path()
                    .strip_prefix(root)
                    .is_ok_and(|rel| matcher.is_match(rel))
            };
            if hit {
                batch.items.push(entry.into_path());
            }
            WalkState::Continue
        })
    });
    found.into_inner().unwrap_or_else(|p| p.into_inner())
}

/// A worker's matches, moved into the shared list when the worker's closure is dropped.
struct Batch<'a> {
    items: Vec<PathBuf>,
    sink: &'a Mutex<Vec<PathBuf>>,
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        let mut sink = self.sink.lock().unwrap_or_else(|p| p.into_inner());
        sink.append(&mut self.items);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::handlers::test_support::Workspace;

    fn tree() -> Workspace {
        let ws = Workspace::new();
        ws.write(".gitignore", "target/\n");
        ws.write("src/lib.rs", "");
        ws.write("src/tools/mod.rs", "");
        ws.write("src/tools/read.rs", "");
        ws.write("README.md", "");
        ws.write("target/debug/build.rs", "");
        ws
    }

    #[tokio::test]
    async fn name_patterns_match_at_any_depth_sorted_and_gitignore_respected() {
        let ws = tree();
        let out = ws.ok(&GlobFilesHandler, json!({"pattern": "*.rs"})).await;
        assert_eq!(out, "src/lib.rs\nsrc/tools/mod.rs\nsrc/tools/read.rs");
    }

    #[tokio::test]
    async fn path_patterns_match_below_the_search_root() {
        let ws = tree();
        let out = ws
            .ok(&GlobFilesHandler, json!({"pattern": "src/*/*.rs"}))
            .await;
        assert_eq!(out, "src/tools/mod.rs\nsrc/tools/read.rs");
        let out = ws
            .ok(
                &GlobFilesHandler,
                json!({"pattern": "**/mod.rs", "path": "src"}),
            )
            .await;
        assert_eq!(out, "src/tools/mod.rs");
    }

    #[tokio::test]
    async fn no_match_and_bad_glob_are_explained() {
        let ws = tree();
        let out = ws.ok(&GlobFilesHandler, json!({"pattern": "*.py"})).await;
        assert_eq!(out, "No files match `*.py` in the working directory.");
        let err = ws
            .err(&GlobFilesHandler, json!({"pattern": "src/[a"}))
            .await;
        assert!(err.starts_with("Invalid glob pattern `src/[a`: "), "{err}");
    }

    #[tokio::test]
    async fn results_are_capped_with_a_note() {
        let ws = Workspace::new();
        for i in 0..(MAX_RESULTS + 3) {
            ws.write(&format!("d/f{i:05}.txt"), "");
        }
        let out = ws.ok(&GlobFilesHandler, json!({"pattern": "*.txt"})).await;
        assert!(out.starts_with("d/f00000.txt\n"));
        assert!(out.ends_with(
            "[Showing 1000 of 1003 files. Narrow the pattern or the path to see the rest.]"
        ));
    }
}

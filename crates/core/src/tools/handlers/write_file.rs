//! `write_file`: create or replace a whole file, atomically.

use super::diff::{self, plural};
use super::paths;
use crate::tools::{
    ApprovalRequest, ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names,
    parse_args,
};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use std::path::{Path, PathBuf};

/// Handler of `write_file`.
pub struct WriteFileHandler;

#[derive(Deserialize)]
struct WriteFileArgs {
    path: String,
    content: String,
}

/// The checked target of a call.
struct Target {
    path: PathBuf,
    shown: String,
    /// Current text, `None` when the file does not exist yet.
    existing: Option<String>,
}

fn target(args: &WriteFileArgs, cwd: &Path) -> Result<Target, ToolError> {
    let path = paths::resolve(cwd, &args.path)?;
    paths::refuse_git_dir(&path, cwd)?;
    let shown = paths::display(&path, cwd);
    let existing = match std::fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => {
            return Err(ToolError::RespondToModel(format!(
                "{shown} is a directory; give the path of a file inside it."
            )));
        }
        Ok(_) => Some(
            paths::check_editable(&path, cwd)
                .and_then(|()| paths::read_regular(&path, cwd))
                .map(|b| String::from_utf8_lossy(&b).into_owned())?,
        ),
        Err(_) => None,
    };
    Ok(Target {
        path,
        shown,
        existing,
    })
}

#[async_trait]
impl ToolHandler for WriteFileHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::WRITE_FILE.to_string(),
            description: "Create a new file, or replace the whole content of a file. Parent directories are created; an existing file keeps its permissions. Use it for new files and complete rewrites; to change part of an existing file use edit_file, which is safer and shows the change. Read an existing file before you overwrite it. Never create files through the shell (`echo >`, `cat <<EOF`).\n\nReturns `Created <path> (<n> bytes, <n> lines).` or `Overwrote <path> (...)`.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path, relative to the working directory or absolute."},
                    "content": {"type": "string", "description": "The complete new content of the file, exactly as it should be written (end it with a newline as text files usually do)."}
                },
                "required": ["path", "content"],
                "additionalProperties": false
            }),
        }
    }

    fn is_mutating(&self) -> bool {
        true
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        let path = args["path"].as_str().unwrap_or("a file");
        let lines = diff::count_lines(args["content"].as_str().unwrap_or(""));
        format!("Would write {path} ({})", plural(lines, "line"))
    }

    fn approval(
        &self,
        arguments: &str,
        ctx: &ToolContext,
    ) -> Result<Option<ApprovalRequest>, ToolError> {
        let args: WriteFileArgs = parse_args(arguments)?;
        let target = target(&args, &ctx.cwd)?;
        let diff = diff::unified(
            target.existing.as_deref(),
            Some(&args.content),
            &target.shown,
        );
        let description = format!(
            "Would write {} ({})",
            target.shown,
            plural(diff::count_lines(&args.content), "line")
        );
        Ok(Some(diff::patch_request(
            vec![target.path],
            diff,
            description,
            ctx,
        )))
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: WriteFileArgs = parse_args(&call.arguments)?;
        let target = target(&args, &ctx.cwd)?;
        paths::write_file(ctx, &target.path, args.content.as_bytes())
            .map_err(|e| paths::io_error("write", &target.path, &ctx.cwd, &e))?;
        let verb = if target.existing.is_some() {
            "Overwrote"
        } else {
            "Created"
        };
        Ok(format!(
            "{verb} {} ({}, {}).",
            target.shown,
            plural(args.content.len(), "byte"),
            plural(diff::count_lines(&args.content), "line")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ApprovalKind;
    use crate::tools::handlers::test_support::Workspace;
    use std::os::unix::fs::PermissionsExt;

    #[tokio::test]
    async fn creates_parents_and_reports_bytes_and_lines() {
        let ws = Workspace::new();
        let out = ws
            .ok(
                &WriteFileHandler,
                json!({"path": "src/deep/new.rs", "content": "fn a() {}\nfn b() {}\n"}),
            )
            .await;
        assert_eq!(out, "Created src/deep/new.rs (20 bytes, 2 lines).");
        assert_eq!(ws.read("src/deep/new.rs"), "fn a() {}\nfn b() {}\n");
    }

    #[tokio::test]
    async fn overwrite_keeps_the_file_mode() {
        let ws = Workspace::new();
        let script = ws.write("run.sh", "#!/bin/sh\n");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let out = ws
            .ok(
                &WriteFileHandler,
                json!({"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}),
            )
            .await;
        assert_eq!(out, "Overwrote run.sh (18 bytes, 2 lines).");
        let mode = std::fs::metadata(&script).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
    }

    #[tokio::test]
    async fn git_internals_and_directories_are_refused() {
        let ws = Workspace::new();
        ws.write(".git/config", "[core]\n");
        let err = ws
            .err(
                &WriteFileHandler,
                json!({"path": ".git/hooks/pre-commit", "content": "evil"}),
            )
            .await;
        assert!(err.starts_with("Refusing to write .git/hooks/pre-commit"));
        assert!(!ws.exists(".git/hooks/pre-commit"));
        let err = ws
            .err(&WriteFileHandler, json!({"path": ".git", "content": "x"}))
            .await;
        assert!(err.starts_with("Refusing to write .git:"), "{err}");
        std::fs::create_dir_all(ws.path("dir")).unwrap();
        let err = ws
            .err(&WriteFileHandler, json!({"path": "dir", "content": "x"}))
            .await;
        assert_eq!(
            err,
            "dir is a directory; give the path of a file inside it."
        );
    }

    #[test]
    fn approval_describes_the_write_and_knows_the_workspace() {
        let ws = Workspace::new();
        ws.write("src/lib.rs", "old\n");
        let args = json!({"path": "src/lib.rs", "content": "new\nlines\n"}).to_string();
        let request = WriteFileHandler.approval(&args, &ws.ctx).unwrap().unwrap();
        assert_eq!(request.description, "Would write src/lib.rs (2 lines)");
        assert!(request.known_safe);
        assert_eq!(
            request.session.keys,
            vec![format!("file:{}", ws.path("src/lib.rs").display())]
        );
        let ApprovalKind::Patch { paths, diff } = request.kind else {
            panic!("expected a patch request");
        };
        assert_eq!(paths, vec![ws.path("src/lib.rs")]);
        assert!(diff.contains("-old\n+new\n+lines\n"), "{diff}");

        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("x.txt");
        let args = json!({"path": target, "content": "x"}).to_string();
        let request = WriteFileHandler.approval(&args, &ws.ctx).unwrap().unwrap();
        assert!(!request.known_safe, "writes outside the workspace must ask");
        assert_eq!(
            WriteFileHandler.describe(&args).split(" (").nth(1),
            Some("1 line)")
        );
    }

    #[tokio::test]
    async fn special_files_are_refused_at_once() {
        let ws = Workspace::new();
        let fifo = ws.path("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let err = ws
            .err(&WriteFileHandler, json!({"path": "fifo", "content": "x"}))
            .await;
        assert!(err.contains("not a regular file"), "{err}");
    }

    #[tokio::test]
    async fn the_plan_file_is_replaced_never_written_through() {
        // Even if a link appears at the plan file's path after the plan-mode check, the write
        // lands at that path: the link is replaced and its target is untouched.
        let ws = Workspace::new();
        let source = ws.write("src/lib.rs", "fn main() {}\n");
        let plans = tempfile::tempdir().unwrap();
        let plans_dir = plans.path().canonicalize().unwrap();
        let plan = crate::session::shared::lock(&ws.ctx.shared.plan_mode)
            .enter(&plans_dir, chrono::Utc::now())
            .unwrap();
        std::os::unix::fs::symlink(&source, &plan).unwrap();
        ws.ok(
            &WriteFileHandler,
            json!({"path": plan, "content": "# Plan\n"}),
        )
        .await;
        assert_eq!(std::fs::read_to_string(&source).unwrap(), "fn main() {}\n");
        let meta = std::fs::symlink_metadata(&plan).unwrap();
        assert!(meta.file_type().is_file());
        assert_eq!(std::fs::read_to_string(&plan).unwrap(), "# Plan\n");
    }
}

//! `apply_patch`: add, delete, update and move files with one Codex-format patch. The whole
//! patch is verified before anything is written.

mod apply;
mod parser;

use super::diff::{self, plural};
use super::paths;
use crate::tools::{
    ApprovalRequest, ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names,
    parse_args,
};
use apply::{FileChange, Plan};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use std::collections::BTreeSet;
use std::path::Path;

/// Handler of `apply_patch`.
pub struct ApplyPatchHandler;

#[derive(Deserialize)]
struct ApplyPatchArgs {
    input: String,
}

const DESCRIPTION: &str = r#"Edit files with a patch: change, create, delete or rename one or more files in one call. Use it for every file change; read the lines you change first so the context matches. Never edit files through the shell (`sed -i`, `echo >`, `cat <<EOF`) instead.

Format (paths relative to the working directory, or absolute):
*** Begin Patch
*** Add File: path/new.py
+every line of the new file, each starting with +
*** Delete File: path/obsolete.py
*** Update File: path/app.py
*** Move to: path/renamed.py        (optional)
@@ def handler(request):            (optional: a line the hunk comes after)
     context line (starts with a space)
-    removed line
+    added line
     context line
*** End Patch

Give about 3 lines of context above and below each change, exactly as in the file; add an `@@` line naming the enclosing function or block when the context is not unique. A new file's lines all start with `+`.

Returns `Success. Updated the following files:` and one line per file (`A path` added, `M path` modified, `D path` deleted). Every hunk is checked before anything is written: if one does not match, nothing changes and the error names the file and the lines that did not match; re-read them and send a corrected patch.

Example: {"input": "*** Begin Patch
*** Update File: src/lib.rs
@@ fn total(items: &[Item]) -> u32 {
-    0
+    items.iter().map(|i| i.price).sum()
 }
*** End Patch"}"#;

fn verify(input: &str, cwd: &Path) -> Result<Plan, ToolError> {
    let ops = parser::parse(input).map_err(|e| {
        ToolError::RespondToModel(format!(
            "{e}. Nothing was written. See the tool description for the format."
        ))
    })?;
    apply::plan(&ops, cwd)
}

/// The files a patch writes, named as the patch names them, when it only adds and updates
/// files in place; `None` when it does not parse, deletes a file or moves one. Plan mode
/// allows a patch only when every one of these is the plan file.
pub(crate) fn written_paths(input: &str) -> Option<Vec<String>> {
    parser::parse(input)
        .ok()?
        .into_iter()
        .map(|op| match op {
            parser::FileOp::Add { path, .. }
            | parser::FileOp::Update {
                path,
                move_to: None,
                ..
            } => Some(path),
            parser::FileOp::Delete { .. } | parser::FileOp::Update { .. } => None,
        })
        .collect()
}

/// Paths a patch touches, named as the patch names them (for `describe`).
fn touched_files(input: &str) -> Option<BTreeSet<String>> {
    let ops = parser::parse(input).ok()?;
    let mut files = BTreeSet::new();
    for op in &ops {
        files.insert(op.path().to_string());
        if let parser::FileOp::Update {
            move_to: Some(dest),
            ..
        } = op
        {
            files.insert(dest.clone());
        }
    }
    Some(files)
}

fn sentence(files: &[String]) -> String {
    match files {
        [one] => format!("Would apply a patch to {one}"),
        many => format!("Would apply a patch to {}", plural(many.len(), "file")),
    }
}

fn change_diff(change: &FileChange, plan: &Plan, cwd: &Path) -> String {
    let shown = paths::display(&change.path, cwd);
    match &change.moved_from {
        // Show a move as one diff from the old name to the new.
        Some(from) if change.before.is_none() => {
            let before = plan
                .changes
                .iter()
                .find(|c| &c.path == from)
                .and_then(|c| c.before.as_deref());
            let text = diff::unified(before, change.after.as_deref(), &shown);
            format!("# moved from {}\n{text}", paths::display(from, cwd))
        }
        _ => diff::unified(change.before.as_deref(), change.after.as_deref(), &shown),
    }
}

#[async_trait]
impl ToolHandler for ApplyPatchHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::APPLY_PATCH.to_string(),
            description: DESCRIPTION.to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "input": {"type": "string", "description": "The whole patch as one string, from `*** Begin Patch` to `*** End Patch`, lines separated by newlines."}
                },
                "required": ["input"],
                "additionalProperties": false
            }),
        }
    }

    fn is_mutating(&self) -> bool {
        true
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        match touched_files(args["input"].as_str().unwrap_or("")) {
            Some(files) => sentence(&files.into_iter().collect::<Vec<_>>()),
            None => "Would apply a patch".to_string(),
        }
    }

    fn approval(
        &self,
        arguments: &str,
        ctx: &ToolContext,
    ) -> Result<Option<ApprovalRequest>, ToolError> {
        let args: ApplyPatchArgs = parse_args(arguments)?;
        let plan = verify(&args.input, &ctx.cwd)?;
        let diff: String = plan
            .changes
            .iter()
            .filter(|c| !(c.after.is_none() && is_move_source(&plan, c)))
            .map(|c| change_diff(c, &plan, &ctx.cwd))
            .collect();
        let shown: Vec<String> = plan
            .changes
            .iter()
            .map(|c| paths::display(&c.path, &ctx.cwd))
            .collect();
        let files = plan.changes.iter().map(|c| c.path.clone()).collect();
        Ok(Some(diff::patch_request(
            files,
            diff,
            sentence(&shown),
            ctx,
        )))
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: ApplyPatchArgs = parse_args(&call.arguments)?;
        let plan = verify(&args.input, &ctx.cwd)?;
        let plan_file = crate::session::shared::lock(&ctx.shared.plan_mode)
            .active_plan_file()
            .map(Path::to_path_buf);
        let done = apply::write(&plan, &ctx.cwd, plan_file.as_deref())?;
        Ok(format!(
            "Success. Updated the following files:\n{}",
            done.join("\n")
        ))
    }
}

fn is_move_source(plan: &Plan, change: &FileChange) -> bool {
    plan.changes
        .iter()
        .any(|c| c.moved_from.as_ref() == Some(&change.path))
}

#[cfg(test)]
mod tests;

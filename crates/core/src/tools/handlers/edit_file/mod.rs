//! `edit_file`: exact-text replacement in one file. A missing `old_string` is answered with
//! the most similar lines, an ambiguous one with where it occurs, so the model can retry.

mod closest;

use super::diff::{self, plural};
use super::paths;
use crate::tools::{
    ApprovalRequest, ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names,
    parse_args,
};
use async_trait::async_trait;
use closest::closest_lines;
use serde::Deserialize;
use serde_json::json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Most line numbers listed for an ambiguous match.
const MAX_LISTED_MATCHES: usize = 20;
/// Most lines of the edited region echoed back.
const MAX_ECHO_LINES: usize = 30;

/// Handler of `edit_file`.
pub struct EditFileHandler;

#[derive(Deserialize)]
struct EditFileArgs {
    path: String,
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

/// A verified edit, not yet written.
struct Edit {
    path: PathBuf,
    shown: String,
    old_content: String,
    new_content: String,
    replacements: usize,
    /// Byte range of the first replacement in `new_content`.
    first: std::ops::Range<usize>,
}

fn plan(args: &EditFileArgs, cwd: &Path) -> Result<Edit, ToolError> {
    let path = paths::resolve(cwd, &args.path)?;
    paths::refuse_git_dir(&path, cwd)?;
    let shown = paths::display(&path, cwd);
    if args.old_string.is_empty() {
        return Err(ToolError::RespondToModel(
            "old_string is empty. To create a file or replace all of it, use write_file.".into(),
        ));
    }
    if args.old_string == args.new_string {
        return Err(ToolError::RespondToModel(
            "old_string and new_string are identical, so there is nothing to change.".into(),
        ));
    }
    paths::check_editable(&path, cwd)?;
    let bytes = paths::read_nonblocking(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::IsADirectory {
            ToolError::RespondToModel(format!("{shown} is a directory, not a file."))
        } else {
            paths::io_error("read", &path, cwd, &e)
        }
    })?;
    let old_content = String::from_utf8(bytes).map_err(|_| {
        ToolError::RespondToModel(format!(
            "{shown} is not valid UTF-8 text, so edit_file cannot change it safely. Use write_file to replace it or the shell tool to inspect it."
        ))
    })?;
    let (new_content, replacements, first) = replace(
        &old_content,
        &args.old_string,
        &args.new_string,
        args.replace_all,
    )
    .map_err(|miss| ToolError::RespondToModel(miss.message(&shown, &old_content, args)))?;
    Ok(Edit {
        path,
        shown,
        old_content,
        new_content,
        replacements,
        first,
    })
}

/// Why a replacement could not be made.
#[derive(Debug, PartialEq, Eq)]
enum Miss {
    Absent,
    /// Line numbers (1-based) of every occurrence.
    Ambiguous(Vec<usize>),
}

/// Replace in `content`. In a CRLF file the strings are matched and inserted with CRLF line
/// endings, so the model can write plain `\n` and the file keeps its style.
fn replace(
    content: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<(String, usize, std::ops::Range<usize>), Miss> {
    let mut attempts = vec![(old.to_string(), new.to_string())];
    if content.contains("\r\n") {
        let crlf = |s: &str| s.replace("\r\n", "\n").replace('\n', "\r\n");
        attempts.insert(0, (crlf(old), crlf(new)));
    }
    for (old, new) in &attempts {
        let starts: Vec<usize> = content
            .match_indices(old.as_str())
            .map(|(i, _)| i)
            .collect();
        match starts.len() {
            0 => continue,
            1 => {}
            _ if replace_all => {}
            _ => return Err(Miss::Ambiguous(line_numbers(content, &starts))),
        }
        let first_start = starts[0];
        let replaced = if replace_all {
            content.replace(old.as_str(), new)
        } else {
            content.replacen(old.as_str(), new, 1)
        };
        return Ok((replaced, starts.len(), first_start..first_start + new.len()));
    }
    Err(Miss::Absent)
}

fn line_numbers(content: &str, starts: &[usize]) -> Vec<usize> {
    let mut numbers = Vec::with_capacity(starts.len());
    let mut line = 1;
    let mut pos = 0;
    for &start in starts {
        line += content[pos..start].matches('\n').count();
        pos = start;
        numbers.push(line);
    }
    numbers
}

impl Miss {
    fn message(&self, shown: &str, content: &str, args: &EditFileArgs) -> String {
        match self {
            Miss::Ambiguous(lines) => {
                let mut listed: Vec<String> = lines
                    .iter()
                    .take(MAX_LISTED_MATCHES)
                    .map(ToString::to_string)
                    .collect();
                if lines.len() > MAX_LISTED_MATCHES {
                    listed.push(format!("and {} more", lines.len() - MAX_LISTED_MATCHES));
                }
                format!(
                    "old_string matches {} times in {shown} (at lines {}). Include more surrounding lines to make it unique, or set replace_all to true to change every occurrence.",
                    lines.len(),
                    listed.join(", ")
                )
            }
            Miss::Absent => {
                let mut text = format!("old_string was not found in {shown}.");
                match closest_lines(content, &args.old_string) {
                    Some(window) => {
                        let lines: Vec<&str> = content.lines().collect();
                        let end = (window.start + window.len).min(lines.len());
                        let _ = writeln!(
                            text,
                            " The most similar lines are {}-{}:",
                            window.start + 1,
                            end
                        );
                        for (i, line) in lines[window.start..end].iter().enumerate() {
                            let _ = writeln!(text, "{:>6}\t{line}", window.start + i + 1);
                        }
                        if window.whitespace_only {
                            text.push_str(
                                "They differ from old_string only in whitespace or indentation. ",
                            );
                        }
                    }
                    None => text.push_str(" No similar lines were found. "),
                }
                text.push_str(
                    "Read the file again with read_file and copy the exact text, including whitespace and indentation.",
                );
                text
            }
        }
    }
}

#[async_trait]
impl ToolHandler for EditFileHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::EDIT_FILE.to_string(),
            description: "Change part of a file by replacing exact text. Use it for every change to an existing file: read the file (or the part you change) with read_file first. Not for creating files or rewriting one completely (use write_file), and never use `sed` or `awk` in the shell instead.\n\n`old_string` must match the file exactly, whitespace and indentation included, without read_file's line-number prefix, and must occur exactly once unless `replace_all` is true: include a few surrounding lines to make it unique. Line endings are kept (CRLF files stay CRLF).\n\nReturns `Edited <path>: 1 replacement (+a -b lines).` followed by the edited lines with their numbers, so you see the result. If `old_string` is not found, the error shows the most similar lines; if it occurs more than once, the lines where it occurs. Nothing is written when a call fails. Example: {\"path\": \"src/lib.rs\", \"old_string\": \"fn total(items: &[Item]) -> u32 {\\n    0\\n}\", \"new_string\": \"fn total(items: &[Item]) -> u32 {\\n    items.iter().map(|i| i.price).sum()\\n}\"}".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path, relative to the working directory or absolute."},
                    "old_string": {"type": "string", "description": "The exact text to replace, copied from the file with its indentation, without line numbers. Must not be empty."},
                    "new_string": {"type": "string", "description": "The text to put in its place; must differ from old_string. Empty deletes old_string."},
                    "replace_all": {"type": "boolean", "description": "Replace every occurrence instead of requiring exactly one (a rename within the file). Default false."}
                },
                "required": ["path", "old_string", "new_string"],
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
        let counts = diff::line_counts(
            args["old_string"].as_str().unwrap_or(""),
            args["new_string"].as_str().unwrap_or(""),
        );
        format!("Would edit {path} ({counts})")
    }

    fn approval(
        &self,
        arguments: &str,
        ctx: &ToolContext,
    ) -> Result<Option<ApprovalRequest>, ToolError> {
        let args: EditFileArgs = parse_args(arguments)?;
        let edit = plan(&args, &ctx.cwd)?;
        let counts = diff::line_counts(&edit.old_content, &edit.new_content);
        let diff = diff::unified(
            Some(&edit.old_content),
            Some(&edit.new_content),
            &edit.shown,
        );
        let description = format!("Would edit {} ({counts})", edit.shown);
        Ok(Some(diff::patch_request(
            vec![edit.path],
            diff,
            description,
            ctx,
        )))
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: EditFileArgs = parse_args(&call.arguments)?;
        let edit = plan(&args, &ctx.cwd)?;
        paths::write_file(ctx, &edit.path, edit.new_content.as_bytes())
            .map_err(|e| paths::io_error("write", &edit.path, &ctx.cwd, &e))?;
        let counts = diff::line_counts(&edit.old_content, &edit.new_content);
        let mut out = format!(
            "Edited {}: {} ({counts} lines).",
            edit.shown,
            plural(edit.replacements, "replacement")
        );
        if edit.replacements == 1 {
            out.push_str(&echo_region(&edit.new_content, edit.first));
        }
        Ok(out)
    }
}

/// The edited region with two lines either side, numbered, so the model sees the result.
fn echo_region(content: &str, range: std::ops::Range<usize>) -> String {
    let first_line = content[..range.start].matches('\n').count();
    let last_line = first_line + content[range.start..range.end].matches('\n').count();
    let from = first_line.saturating_sub(2);
    let to = (last_line + 2).min(from + MAX_ECHO_LINES - 1);
    let mut out = String::new();
    let mut shown = 0;
    for (i, line) in content.lines().enumerate().skip(from).take(to + 1 - from) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let _ = write!(out, "\n{:>6}\t{line}", i + 1);
        shown = i + 1;
    }
    if shown == 0 {
        return String::new();
    }
    format!("\nLines {}-{shown} now read:{out}", from + 1)
}

#[cfg(test)]
mod tests;

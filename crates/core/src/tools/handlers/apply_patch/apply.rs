//! Applying a parsed patch: every hunk of every file is matched against the files (as earlier
//! operations in the same patch left them) before anything is written.

use super::parser::{Chunk, FileOp, LineKind};
use crate::tools::ToolError;
use crate::tools::handlers::{atomic, paths};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a verified patch does to one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileChange {
    pub path: PathBuf,
    /// Content before the patch, `None` if the file did not exist.
    pub before: Option<String>,
    /// Content after the patch, `None` if the patch deletes it.
    pub after: Option<String>,
    /// Set on the destination of a `*** Move to:`.
    pub moved_from: Option<PathBuf>,
}

impl FileChange {
    /// `A`, `M` or `D`, as in `git status --short`.
    pub fn letter(&self) -> char {
        match (&self.before, &self.after) {
            (None, Some(_)) if self.moved_from.is_none() => 'A',
            (Some(_), None) => 'D',
            _ => 'M',
        }
    }
}

/// The result of checking a patch against the file system; nothing written yet.
#[derive(Debug)]
pub(crate) struct Plan {
    /// One entry per path, in the order the patch first touches it; move sources that end up
    /// deleted are included.
    pub changes: Vec<FileChange>,
}

/// Check every operation against the files, in order, without writing anything.
pub(crate) fn plan(ops: &[FileOp], cwd: &Path) -> Result<Plan, ToolError> {
    let mut staged: HashMap<PathBuf, Option<String>> = HashMap::new();
    let mut originals: Vec<(PathBuf, Option<String>)> = Vec::new();
    let mut moved_from: HashMap<PathBuf, PathBuf> = HashMap::new();
    let mut load = |path: &Path,
                    staged: &mut HashMap<PathBuf, Option<String>>|
     -> Result<Option<String>, ToolError> {
        if let Some(content) = staged.get(path) {
            return Ok(content.clone());
        }
        let content = read_text(path, cwd)?;
        originals.push((path.to_path_buf(), content.clone()));
        staged.insert(path.to_path_buf(), content.clone());
        Ok(content)
    };
    for op in ops {
        let path = target(op.path(), cwd)?;
        let shown = paths::display(&path, cwd);
        match op {
            FileOp::Add { contents, .. } => {
                load(&path, &mut staged)?;
                staged.insert(path, Some(contents.clone()));
            }
            FileOp::Delete { .. } => {
                if load(&path, &mut staged)?.is_none() {
                    return Err(failure(&shown, "the file to delete does not exist"));
                }
                staged.insert(path, None);
            }
            FileOp::Update {
                move_to, chunks, ..
            } => {
                let Some(current) = load(&path, &mut staged)? else {
                    return Err(failure(&shown, "the file to update does not exist"));
                };
                let updated = apply_chunks(&current, chunks, &shown)?;
                match move_to {
                    Some(dest) => {
                        let dest = target(dest, cwd)?;
                        load(&dest, &mut staged)?;
                        staged.insert(path.clone(), None);
                        staged.insert(dest.clone(), Some(updated));
                        moved_from.insert(dest, path);
                    }
                    None => {
                        staged.insert(path, Some(updated));
                    }
                }
            }
        }
    }
    let changes = originals
        .into_iter()
        .filter_map(|(path, before)| {
            let after = staged.remove(&path).flatten();
            if before.is_none() && after.is_none() {
                return None; // added and deleted again
            }
            let moved_from = moved_from.get(&path).cloned();
            Some(FileChange {
                path,
                before,
                after,
                moved_from,
            })
        })
        .collect();
    Ok(Plan { changes })
}

/// Write a verified plan: new and changed files first, deletions last, so a move never loses
/// data. Returns the summary lines (`A path`, `M path`, `D path`). If a write fails part-way
/// (a full disk, a read-only directory), the changes already made are undone, so a failed patch
/// leaves the workspace as it was. The plan file of an active plan mode (`plan_file`) is
/// written as [`paths::write_file`] writes it: its directory entry is replaced, never written
/// through.
pub(crate) fn write(
    plan: &Plan,
    cwd: &Path,
    plan_file: Option<&Path>,
) -> Result<Vec<String>, ToolError> {
    let summary = |change: &FileChange| {
        let shown = paths::display(&change.path, cwd);
        match &change.moved_from {
            Some(from) => format!("M {shown} (moved from {})", paths::display(from, cwd)),
            None => format!("{} {shown}", change.letter()),
        }
    };
    let writes = plan.changes.iter().filter(|c| c.after.is_some());
    let deletes = plan.changes.iter().filter(|c| c.after.is_none());
    let mut applied: Vec<&FileChange> = Vec::new();
    for change in writes.chain(deletes) {
        let result = match change.after.as_deref() {
            Some(content) if plan_file == Some(change.path.as_path()) => {
                atomic::replace_entry(&change.path, content.as_bytes())
            }
            Some(content) => atomic::write_atomic(&change.path, content.as_bytes()).map(|()| {
                if let Some(from) = &change.moved_from
                    && change.before.is_none()
                    && let Ok(meta) = std::fs::metadata(from)
                {
                    // A moved file keeps its mode (an executable script stays executable).
                    let _ = std::fs::set_permissions(&change.path, meta.permissions());
                }
            }),
            None => std::fs::remove_file(&change.path),
        };
        if let Err(err) = result {
            let mut text = format!(
                "Failed to write {}: {err}.",
                paths::display(&change.path, cwd)
            );
            let not_undone = undo(&applied);
            if not_undone.is_empty() {
                text.push_str(" No file was changed.");
            } else {
                text.push_str(" These changes could not be undone:\n");
                let lines: Vec<String> = not_undone.iter().map(|c| summary(c)).collect();
                text.push_str(&lines.join("\n"));
            }
            return Err(ToolError::RespondToModel(text));
        }
        applied.push(change);
    }
    let moved: Vec<&PathBuf> = plan
        .changes
        .iter()
        .filter_map(|c| c.moved_from.as_ref())
        .collect();
    Ok(applied
        .into_iter()
        .filter(|c| c.after.is_some() || !moved.contains(&&c.path))
        .map(summary)
        .collect())
}

/// Put back what `applied` changed, newest first; returns the changes that could not be undone.
fn undo<'a>(applied: &[&'a FileChange]) -> Vec<&'a FileChange> {
    applied
        .iter()
        .rev()
        .filter(|change| {
            let restored = match change.before.as_deref() {
                Some(before) => atomic::write_atomic(&change.path, before.as_bytes()),
                None => std::fs::remove_file(&change.path),
            };
            restored.is_err()
        })
        .copied()
        .collect()
}

fn target(raw: &str, cwd: &Path) -> Result<PathBuf, ToolError> {
    let path = paths::resolve(cwd, raw)?;
    paths::refuse_git_dir(&path, cwd)?;
    Ok(path)
}

/// A file's text, `None` when it does not exist.
fn read_text(path: &Path, cwd: &Path) -> Result<Option<String>, ToolError> {
    let shown = paths::display(path, cwd);
    paths::check_editable(path, cwd)?;
    match paths::read_nonblocking(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| failure(&shown, "the file is not valid UTF-8 text")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
            Err(failure(&shown, "it is a directory"))
        }
        Err(e) => Err(failure(&shown, &e.to_string())),
    }
}

fn failure(shown: &str, why: &str) -> ToolError {
    ToolError::RespondToModel(format!(
        "Failed to apply the patch to {shown}: {why}. Nothing was written."
    ))
}

/// Apply one file's hunks to its content. CRLF files are matched without their `\r` and
/// keep CRLF. Lines a patch adds are whole lines, as in Codex's implementation of the format:
/// a file without a final newline keeps lacking one only while its last line stays as it
/// was; when the patch replaces, removes or appends after that line, the file ends with one.
pub(crate) fn apply_chunks(
    content: &str,
    chunks: &[Chunk],
    shown: &str,
) -> Result<String, ToolError> {
    let crlf = content.contains("\r\n");
    let mut lines: Vec<String> = content
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
        .collect();
    let final_newline = content.is_empty() || content.ends_with('\n');
    if final_newline {
        lines.pop();
    }
    let mut replacements: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut cursor = 0;
    // The file's last line is still its last line, untouched.
    let mut last_line_kept = true;
    for (n, chunk) in chunks.iter().enumerate() {
        let hunk = n + 1;
        if let Some(context) = &chunk.context {
            let Some(at) = seek(&lines, std::slice::from_ref(context), cursor, false) else {
                return Err(mismatch(
                    shown,
                    format!("the context line `@@ {context}` of hunk {hunk} was not found"),
                ));
            };
            cursor = at + 1;
        }
        if chunk.old.is_empty() {
            // Pure addition: after the `@@` context line if there is one, else at the end.
            let at = if chunk.context.is_some() {
                cursor
            } else {
                lines.len()
            };
            last_line_kept &= at < lines.len();
            replacements.push((at, 0, chunk.new.clone()));
            continue;
        }
        let mut old: &[String] = &chunk.old;
        let mut kinds: &[LineKind] = &chunk.kinds;
        let mut found = seek(&lines, old, cursor, chunk.end_of_file);
        // A trailing empty context line is often an artefact of how the hunk was written.
        if found.is_none()
            && old.last().is_some_and(String::is_empty)
            && kinds.last() == Some(&LineKind::Context)
        {
            old = &old[..old.len() - 1];
            kinds = &kinds[..kinds.len() - 1];
            found = seek(&lines, old, cursor, chunk.end_of_file);
        }
        let Some(at) = found else {
            return Err(mismatch(
                shown,
                describe_miss(&lines, &chunk.old, cursor, hunk),
            ));
        };
        if at + old.len() == lines.len() {
            last_line_kept &= kinds.last() == Some(&LineKind::Context);
        }
        let new = merged(&lines[at..at + old.len()], &chunk.new, kinds);
        replacements.push((at, old.len(), new));
        cursor = at + old.len();
    }
    for (at, len, new) in replacements.into_iter().rev() {
        lines.splice(at..at + len, new);
    }
    let eol = if crlf { "\r\n" } else { "\n" };
    let mut out = lines.join(eol);
    if !lines.is_empty() && (final_newline || !last_line_kept) {
        out.push_str(eol);
    }
    Ok(out)
}

/// The replacement for a matched hunk: context lines keep the file's own text (which may
/// differ from the hunk's in whitespace), added lines come from the hunk.
fn merged(matched: &[String], new: &[String], kinds: &[LineKind]) -> Vec<String> {
    let (mut old_at, mut new_at) = (0, 0);
    let mut out = Vec::with_capacity(new.len());
    for kind in kinds {
        match kind {
            LineKind::Context => {
                out.push(matched[old_at].clone());
                old_at += 1;
                new_at += 1;
            }
            LineKind::Removed => old_at += 1,
            LineKind::Added => {
                out.push(new[new_at].clone());
                new_at += 1;
            }
        }
    }
    out
}

fn mismatch(shown: &str, why: String) -> ToolError {
    ToolError::RespondToModel(format!(
        "Failed to apply the patch to {shown}: {why}. Nothing was written. Read the file again and regenerate the hunk from its current content."
    ))
}

/// Say which line of a hunk did not match, using the longest partial match as the guide.
fn describe_miss(lines: &[String], old: &[String], cursor: usize, hunk: usize) -> String {
    let mut best: Option<(usize, usize)> = None; // (start, matched lines)
    for start in cursor..lines.len() {
        let matched = old
            .iter()
            .zip(&lines[start..])
            .take_while(|(want, have)| want.trim() == have.trim())
            .count();
        if matched > 0 && best.is_none_or(|(_, m)| matched > m) {
            best = Some((start, matched));
        }
    }
    match best {
        Some((start, matched)) => {
            let file_line = start + matched;
            let found = lines
                .get(file_line)
                .map_or("the end of the file".to_string(), |l| format!("`{l}`"));
            format!(
                "hunk {hunk} line `{}` did not match: lines {}-{} match the hunk up to there, but line {} is {found}",
                old[matched],
                start + 1,
                file_line,
                file_line + 1
            )
        }
        None => format!(
            "hunk {hunk} line `{}` did not match any line of the file{}",
            old[0],
            if cursor > 0 {
                format!(" after line {cursor}")
            } else {
                String::new()
            }
        ),
    }
}

/// Find `pattern` in `lines` at or after `start`, trying exact equality, then ignoring
/// trailing whitespace, then surrounding whitespace, then typographic punctuation — the
/// tolerance Codex applies. An end-of-file hunk is tried at the end first.
pub(crate) fn seek(lines: &[String], pattern: &[String], start: usize, eof: bool) -> Option<usize> {
    if pattern.is_empty() {
        return Some(start);
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let last = lines.len() - pattern.len();
    let passes: [fn(&str) -> std::borrow::Cow<'_, str>; 4] = [
        |s| s.into(),
        |s| s.trim_end().into(),
        |s| s.trim().into(),
        |s| normalise_punctuation(s.trim()).into(),
    ];
    for pass in passes {
        let matches_at = |i: usize| {
            pattern
                .iter()
                .zip(&lines[i..])
                .all(|(p, l)| pass(p) == pass(l))
        };
        if eof && last >= start && matches_at(last) {
            return Some(last);
        }
        if let Some(i) = (start..=last).find(|&i| matches_at(i)) {
            return Some(i);
        }
    }
    None
}

fn normalise_punctuation(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{2018}'..='\u{201B}' => '\'',
            '\u{201C}'..='\u{201F}' => '"',
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
            other => other,
        })
        .collect()
}

//! Parser of the Codex patch format:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path          followed by `+` lines
//! *** Delete File: path
//! *** Update File: path
//! *** Move to: new/path       optional
//! @@ optional context line    then ` ` context, `-` removed and `+` added lines
//! *** End of File             optional: the hunk ends at the end of the file
//! *** End Patch
//! ```
//!
//! Like Codex it tolerates whitespace around the markers, a heredoc wrapper
//! (`<<'EOF'` ... `EOF`) and a first hunk without `@@`.

/// One file operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileOp {
    /// Create a file (or replace one) with `contents`.
    Add { path: String, contents: String },
    /// Remove a file.
    Delete { path: String },
    /// Change a file in place, optionally renaming it.
    Update {
        path: String,
        move_to: Option<String>,
        chunks: Vec<Chunk>,
    },
}

impl FileOp {
    /// The path the operation names first.
    pub fn path(&self) -> &str {
        match self {
            FileOp::Add { path, .. } | FileOp::Delete { path } | FileOp::Update { path, .. } => {
                path
            }
        }
    }
}

/// One `@@` hunk of an update.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Chunk {
    /// The text after `@@ `: a line (a function signature, say) the hunk comes after.
    pub context: Option<String>,
    /// Context and removed lines, in file order.
    pub old: Vec<String>,
    /// Context and added lines, in file order.
    pub new: Vec<String>,
    /// The hunk must match at the end of the file.
    pub end_of_file: bool,
    /// The kind of each hunk line, in order: context lines take from both `old` and `new`.
    pub kinds: Vec<LineKind>,
}

/// What a hunk line does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineKind {
    Context,
    Removed,
    Added,
}

/// Why a patch does not parse; `line` is 1-based within the patch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid patch: {message}{}", line.map(|l| format!(" (patch line {l})")).unwrap_or_default())]
pub(crate) struct ParseError {
    pub message: String,
    pub line: Option<usize>,
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

fn error(message: impl Into<String>, line: usize) -> ParseError {
    ParseError {
        message: message.into(),
        line: Some(line),
    }
}

/// Parse a whole patch.
pub(crate) fn parse(text: &str) -> Result<Vec<FileOp>, ParseError> {
    let all: Vec<&str> = text.trim().lines().collect();
    let (body, first_line) = body_lines(&all)?;
    let mut ops = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let number = first_line + i;
        let header = body[i].trim();
        if header.is_empty() {
            i += 1;
            continue;
        }
        if let Some(path) = header.strip_prefix(ADD) {
            let mut contents = String::new();
            i += 1;
            while let Some(line) = body.get(i).and_then(|l| l.strip_prefix('+')) {
                contents.push_str(line);
                contents.push('\n');
                i += 1;
            }
            ops.push(FileOp::Add {
                path: file_path(path, number)?,
                contents,
            });
        } else if let Some(path) = header.strip_prefix(DELETE) {
            ops.push(FileOp::Delete {
                path: file_path(path, number)?,
            });
            i += 1;
        } else if let Some(path) = header.strip_prefix(UPDATE) {
            let path = file_path(path, number)?;
            i += 1;
            let mut move_to = None;
            if let Some(dest) = body.get(i).and_then(|l| l.trim().strip_prefix(MOVE)) {
                move_to = Some(file_path(dest, first_line + i)?);
                i += 1;
            }
            let (chunks, used) = parse_chunks(&body[i..], first_line + i)?;
            if chunks.is_empty() {
                return Err(error(
                    format!("`*** Update File: {path}` has no hunks; add `@@` hunks or remove it"),
                    number,
                ));
            }
            i += used;
            ops.push(FileOp::Update {
                path,
                move_to,
                chunks,
            });
        } else {
            return Err(error(
                format!(
                    "`{header}` is not a valid file header. Each file starts with `*** Add File: <path>`, `*** Delete File: <path>` or `*** Update File: <path>`"
                ),
                number,
            ));
        }
    }
    if ops.is_empty() {
        return Err(ParseError {
            message: "the patch changes no files".into(),
            line: None,
        });
    }
    Ok(ops)
}

/// The lines between the begin and end markers, and the patch line number of the first.
fn body_lines<'a>(all: &'a [&'a str]) -> Result<(&'a [&'a str], usize), ParseError> {
    let is = |line: Option<&&str>, marker: &str| line.is_some_and(|l| l.trim() == marker);
    let mut lines = all;
    let mut first = 1;
    // A heredoc wrapper, as some models write when they think they are calling a shell.
    if !is(lines.first(), BEGIN)
        && lines.len() >= 4
        && matches!(lines[0].trim(), "<<EOF" | "<<'EOF'" | "<<\"EOF\"")
        && lines[lines.len() - 1].trim().ends_with("EOF")
    {
        lines = &lines[1..lines.len() - 1];
        first = 2;
    }
    if !is(lines.first(), BEGIN) {
        return Err(error(
            "the first line of the patch must be `*** Begin Patch`",
            first,
        ));
    }
    if lines.len() < 2 || !is(lines.last(), END) {
        return Err(error(
            "the last line of the patch must be `*** End Patch`",
            first + lines.len().saturating_sub(1),
        ));
    }
    Ok((&lines[1..lines.len() - 1], first + 1))
}

fn file_path(raw: &str, line: usize) -> Result<String, ParseError> {
    let path = raw.trim();
    if path.is_empty() {
        return Err(error("a file header has no path", line));
    }
    Ok(path.to_string())
}

/// The hunks of one update, up to the next file header; returns them and the lines used.
fn parse_chunks(lines: &[&str], first_line: usize) -> Result<(Vec<Chunk>, usize), ParseError> {
    let mut chunks: Vec<Chunk> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() && !line.starts_with(' ') {
            // Blank lines between hunks.
            i += 1;
            continue;
        }
        if line.starts_with("***") {
            break;
        }
        let mut chunk = Chunk::default();
        let trimmed = line.trim_end();
        if trimmed == "@@" {
            i += 1;
        } else if let Some(context) = trimmed.strip_prefix("@@ ") {
            chunk.context = Some(context.to_string());
            i += 1;
        } else if !chunks.is_empty() {
            return Err(error(
                format!("expected a `@@` line to start the next hunk, found `{line}`"),
                first_line + i,
            ));
        }
        let start = i;
        while i < lines.len() {
            let line = lines[i];
            if line.trim() == END_OF_FILE {
                chunk.end_of_file = true;
                i += 1;
                break;
            }
            match line.chars().next() {
                None => {
                    chunk.old.push(String::new());
                    chunk.new.push(String::new());
                    chunk.kinds.push(LineKind::Context);
                }
                Some(' ') => {
                    chunk.old.push(line[1..].to_string());
                    chunk.new.push(line[1..].to_string());
                    chunk.kinds.push(LineKind::Context);
                }
                Some('-') => {
                    chunk.old.push(line[1..].to_string());
                    chunk.kinds.push(LineKind::Removed);
                }
                Some('+') => {
                    chunk.new.push(line[1..].to_string());
                    chunk.kinds.push(LineKind::Added);
                }
                _ if i == start => {
                    return Err(error(
                        format!(
                            "unexpected line `{line}` in a hunk: every line must start with ` ` (context), `-` (removed) or `+` (added)"
                        ),
                        first_line + i,
                    ));
                }
                _ => break,
            }
            i += 1;
        }
        if i == start || (chunk.old.is_empty() && chunk.new.is_empty()) {
            return Err(error("a hunk has no lines", first_line + start));
        }
        // Blank lines that end a hunk separate it from the next; they are not context.
        while chunk.kinds.last() == Some(&LineKind::Context)
            && chunk.old.last().is_some_and(String::is_empty)
            && lines[..i].last().is_some_and(|l| l.is_empty())
            && !chunk.end_of_file
        {
            chunk.old.pop();
            chunk.new.pop();
            chunk.kinds.pop();
            i -= 1;
        }
        chunks.push(chunk);
    }
    Ok((chunks, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(items: &[&str]) -> Vec<String> {
        items.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn parses_every_operation() {
        let patch = "*** Begin Patch\n*** Add File: docs/new.md\n+# Title\n+\n+text\n*** Delete File: old.txt\n*** Update File: src/lib.rs\n*** Move to: src/core.rs\n@@ fn main() {\n-    old();\n+    new();\n     keep();\n@@\n-last\n+final\n*** End of File\n*** End Patch\n";
        let ops = parse(patch).unwrap();
        assert_eq!(
            ops,
            vec![
                FileOp::Add {
                    path: "docs/new.md".into(),
                    contents: "# Title\n\ntext\n".into()
                },
                FileOp::Delete {
                    path: "old.txt".into()
                },
                FileOp::Update {
                    path: "src/lib.rs".into(),
                    move_to: Some("src/core.rs".into()),
                    chunks: vec![
                        Chunk {
                            context: Some("fn main() {".into()),
                            old: lines(&["    old();", "    keep();"]),
                            new: lines(&["    new();", "    keep();"]),
                            end_of_file: false,
                            kinds: vec![LineKind::Removed, LineKind::Added, LineKind::Context],
                        },
                        Chunk {
                            context: None,
                            old: lines(&["last"]),
                            new: lines(&["final"]),
                            end_of_file: true,
                            kinds: vec![LineKind::Removed, LineKind::Added],
                        },
                    ],
                },
            ]
        );
    }

    #[test]
    fn tolerates_padding_heredoc_and_missing_first_at_at() {
        let patch = "<<'EOF'\n  *** Begin Patch  \n*** Update File: a.py\n import os\n+import sys\n*** End Patch \nEOF\n";
        let ops = parse(patch).unwrap();
        assert_eq!(
            ops,
            vec![FileOp::Update {
                path: "a.py".into(),
                move_to: None,
                chunks: vec![Chunk {
                    context: None,
                    old: lines(&["import os"]),
                    new: lines(&["import os", "import sys"]),
                    end_of_file: false,
                    kinds: vec![LineKind::Context, LineKind::Added],
                }],
            }]
        );
    }

    #[test]
    fn errors_name_the_problem_and_the_line() {
        let err = parse("diff --git a/x b/x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid patch: the first line of the patch must be `*** Begin Patch` (patch line 1)"
        );
        let err = parse("*** Begin Patch\n*** Add File: a\n+x\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid patch: the last line of the patch must be `*** End Patch` (patch line 3)"
        );
        let err = parse("*** Begin Patch\n*** Change File: a\n*** End Patch").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("Invalid patch: `*** Change File: a` is not a valid file header.")
        );
        assert_eq!(err.line, Some(2));
        let err = parse("*** Begin Patch\n*** Update File: a\n*** End Patch").unwrap_err();
        assert!(err.message.contains("has no hunks"), "{err}");
        let err = parse("*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n@@\nbad\n*** End Patch")
            .unwrap_err();
        assert_eq!(err.line, Some(7));
        let err = parse("*** Begin Patch\n*** End Patch").unwrap_err();
        assert_eq!(err.to_string(), "Invalid patch: the patch changes no files");
    }

    #[test]
    fn blank_lines_between_hunks_are_not_context() {
        let patch =
            "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n\n@@\n-z\n+w\n\n*** End Patch";
        let FileOp::Update { chunks, .. } = &parse(patch).unwrap()[0] else {
            panic!("expected an update");
        };
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].old, lines(&["x"]));
        assert_eq!(chunks[1].new, lines(&["w"]));
    }
}

//! `read_file`: a window of a text file with numbered lines, capped in size, with a note that
//! says how to read further.

use super::paths;
use crate::tools::{
    ApprovalRequest, ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names,
    parse_args,
};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Lines shown when the model gives no limit.
const DEFAULT_LIMIT: usize = 2000;
/// Most bytes of file text in one answer.
const MAX_OUTPUT_BYTES: usize = 100 * 1024;
/// Longer lines are cut (minified files would otherwise fill the answer with one line).
const MAX_LINE_CHARS: usize = 2000;
/// How much of the start of a file is checked for NUL bytes.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;
/// Counting the lines after the window stops here, so a huge log costs a bounded read.
const MAX_COUNT_BYTES: u64 = 64 * 1024 * 1024;

/// Handler of `read_file`.
pub struct ReadFileHandler;

#[derive(Deserialize)]
struct ReadFileArgs {
    path: String,
    offset: Option<usize>,
    limit: Option<usize>,
}

#[async_trait]
impl ToolHandler for ReadFileHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::READ_FILE.to_string(),
            description: format!(
                "Read a text file. Use it to read code before you change it, and to look at files that glob_files or grep_files found; prefer it to `cat`, `head`, `tail` or `sed -n` in the shell. Not for directories (use list_dir) or for finding where something is (use grep_files).\n\nReturns the lines numbered as `     1\\t<text>`; the number and the tab are not part of the file, so never copy them into an edit. Reads up to {DEFAULT_LIMIT} lines from `offset` (default 1); when more lines follow, the output ends with a note giving the total and the `offset` to continue from. Very long lines are cut. Binary files are refused. For a large file, read the part you need: {{\"path\": \"src/server.rs\", \"offset\": 200, \"limit\": 80}}."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path, relative to the working directory or absolute."},
                    "offset": {"type": "integer", "minimum": 1, "description": "First line to read (1-based). Default 1."},
                    "limit": {"type": "integer", "minimum": 1, "description": "Most lines to read. Default 2000; use a smaller window for large files."}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
        }
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        let path = args["path"].as_str().unwrap_or("a file");
        match (args["offset"].as_u64(), args["limit"].as_u64()) {
            (Some(offset), Some(limit)) => format!(
                "Read {path} (lines {offset}-{})",
                offset.saturating_add(limit).saturating_sub(1)
            ),
            (Some(offset), None) => format!("Read {path} from line {offset}"),
            _ => format!("Read {path}"),
        }
    }

    fn approval(
        &self,
        arguments: &str,
        ctx: &ToolContext,
    ) -> Result<Option<ApprovalRequest>, ToolError> {
        let args: ReadFileArgs = parse_args(arguments)?;
        let path = paths::resolve(&ctx.cwd, &args.path)?;
        let description = format!("Would read {}", paths::display(&path, &ctx.cwd));
        Ok(super::read_access::request(ctx, vec![path], description))
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: ReadFileArgs = parse_args(&call.arguments)?;
        let path = paths::resolve(&ctx.cwd, &args.path)?;
        let cwd = ctx.cwd.clone();
        let offset = args.offset.unwrap_or(1).max(1);
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT).max(1);
        tokio::task::spawn_blocking(move || read_window(&path, &cwd, offset, limit))
            .await
            .map_err(|e| ToolError::Fatal(format!("read_file failed: {e}")))?
    }
}

fn read_window(path: &Path, cwd: &Path, offset: usize, limit: usize) -> Result<String, ToolError> {
    let shown = paths::display(path, cwd);
    let meta = std::fs::metadata(path).map_err(|e| paths::io_error("read", path, cwd, &e))?;
    if meta.is_dir() {
        return Err(ToolError::RespondToModel(format!(
            "{shown} is a directory; use list_dir to see what it contains."
        )));
    }
    let file = paths::open_regular(path, cwd)?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let head = reader
        .fill_buf()
        .map_err(|e| paths::io_error("read", path, cwd, &e))?;
    if head[..head.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return Err(ToolError::RespondToModel(format!(
            "{shown} looks like a binary file ({} bytes); read_file only shows text. Use the shell tool (e.g. `file`, `xxd | head`) if you need to inspect it.",
            meta.len()
        )));
    }
    if meta.len() == 0 {
        return Ok(format!("[{shown} is empty]"));
    }

    let mut out = String::new();
    let mut line = Vec::new();
    let mut number = 0usize;
    let mut last_shown = 0usize;
    let mut capped = false;
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| paths::io_error("read", path, cwd, &e))?;
        if read == 0 {
            break;
        }
        number += 1;
        if number < offset {
            continue;
        }
        if number >= offset.saturating_add(limit) {
            // One line past the window: count it and the rest below.
            break;
        }
        let text = render_line(&line);
        if out.len() + text.len() > MAX_OUTPUT_BYTES && last_shown > 0 {
            capped = true;
            break;
        }
        let _ = writeln!(out, "{number:>6}\t{text}");
        last_shown = number;
    }
    if number < offset {
        return Err(ToolError::RespondToModel(format!(
            "offset {offset} is past the end of {shown}, which has {number} lines."
        )));
    }
    if last_shown == number && read_rest_is_empty(&mut reader) {
        out.pop();
        return Ok(out);
    }
    // More lines follow the window: say how many and how to get them.
    let total = count_lines(&mut reader, number);
    out.pop();
    let next = last_shown + 1;
    let total_text = match total {
        Some(t) => format!("of {t}"),
        None => "of many".to_string(),
    };
    let why = if capped {
        format!("Output capped at {} KiB: showing", MAX_OUTPUT_BYTES / 1024)
    } else {
        "Showing".to_string()
    };
    let _ = write!(
        out,
        "\n\n[{why} lines {offset}-{last_shown} {total_text}. To read more, call read_file with offset={next}{}.]",
        if capped { " and a smaller limit" } else { "" }
    );
    Ok(out)
}

/// One line without its terminator, lossily decoded and cut to [`MAX_LINE_CHARS`].
fn render_line(raw: &[u8]) -> String {
    let mut bytes = raw;
    if let Some(rest) = bytes.strip_suffix(b"\n") {
        bytes = rest;
    }
    if let Some(rest) = bytes.strip_suffix(b"\r") {
        bytes = rest;
    }
    let text = String::from_utf8_lossy(bytes);
    let chars = text.chars().count();
    if chars <= MAX_LINE_CHARS {
        return text.into_owned();
    }
    let kept: String = text.chars().take(MAX_LINE_CHARS).collect();
    format!("{kept} … [line cut: {chars} characters]")
}

fn read_rest_is_empty(reader: &mut BufReader<File>) -> bool {
    reader.fill_buf().map(|b| b.is_empty()).unwrap_or(true)
}

/// Total line count, given `seen` lines already consumed (the last of which may be the line
/// just past the window). `None` when the file is too large to count cheaply.
fn count_lines(reader: &mut BufReader<File>, seen: usize) -> Option<usize> {
    let mut total = seen;
    let mut buf = vec![0u8; 64 * 1024];
    let mut counted: u64 = 0;
    let mut last = b'\n';
    loop {
        let n = reader.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        total += buf[..n].iter().filter(|&&b| b == b'\n').count();
        last = buf[n - 1];
        counted += n as u64;
        if counted > MAX_COUNT_BYTES {
            return None;
        }
    }
    // A last line without a newline still counts.
    if last != b'\n' {
        total += 1;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::handlers::test_support::Workspace;

    #[tokio::test]
    async fn numbers_lines_and_honours_offset_and_limit() {
        let ws = Workspace::new();
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        ws.write("notes.txt", &text);
        let all = ws.ok(&ReadFileHandler, json!({"path": "notes.txt"})).await;
        assert!(all.starts_with("     1\tline 1\n     2\tline 2\n"), "{all}");
        assert!(all.ends_with("    10\tline 10"), "{all}");

        let window = ws
            .ok(
                &ReadFileHandler,
                json!({"path": "notes.txt", "offset": 4, "limit": 2}),
            )
            .await;
        assert_eq!(
            window,
            "     4\tline 4\n     5\tline 5\n\n[Showing lines 4-5 of 10. To read more, call read_file with offset=6.]"
        );
        let tail = ws
            .ok(&ReadFileHandler, json!({"path": "notes.txt", "offset": 9}))
            .await;
        assert_eq!(tail, "     9\tline 9\n    10\tline 10");
    }

    #[tokio::test]
    async fn offset_past_the_end_says_how_long_the_file_is() {
        let ws = Workspace::new();
        ws.write("short.txt", "a\nb\n");
        let err = ws
            .err(&ReadFileHandler, json!({"path": "short.txt", "offset": 5}))
            .await;
        assert_eq!(
            err,
            "offset 5 is past the end of short.txt, which has 2 lines."
        );
    }

    #[tokio::test]
    async fn missing_file_names_path_and_suggests_search_tools() {
        let ws = Workspace::new();
        let err = ws
            .err(&ReadFileHandler, json!({"path": "src/nope.rs"}))
            .await;
        assert_eq!(
            err,
            "File not found: src/nope.rs. Use list_dir or glob_files to find the right path."
        );
    }

    #[tokio::test]
    async fn binary_files_are_refused() {
        let ws = Workspace::new();
        ws.write("image.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
        let err = ws.err(&ReadFileHandler, json!({"path": "image.png"})).await;
        assert!(
            err.starts_with("image.png looks like a binary file (16 bytes)"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn output_is_capped_with_a_note_on_how_to_continue() {
        let ws = Workspace::new();
        let line = "x".repeat(1000);
        let text: String = (0..300).map(|_| format!("{line}\n")).collect();
        ws.write("big.txt", &text);
        let out = ws.ok(&ReadFileHandler, json!({"path": "big.txt"})).await;
        assert!(out.len() <= MAX_OUTPUT_BYTES + 200, "{}", out.len());
        let note = out.rsplit("\n\n").next().unwrap();
        assert!(
            note.starts_with("[Output capped at 100 KiB: showing lines 1-"),
            "{note}"
        );
        assert!(note.contains(" of 300. To read more, call read_file with offset="));
    }

    #[tokio::test]
    async fn long_lines_are_cut_and_invalid_utf8_is_replaced() {
        let ws = Workspace::new();
        let mut bytes = "y".repeat(MAX_LINE_CHARS + 5).into_bytes();
        bytes.extend_from_slice(b"\nbad \xff byte\r\n");
        ws.write("odd.txt", bytes);
        let out = ws.ok(&ReadFileHandler, json!({"path": "odd.txt"})).await;
        assert!(out.contains(" … [line cut: 2005 characters]\n"), "{out}");
        assert!(out.ends_with("     2\tbad \u{fffd} byte"), "{out}");
    }

    #[tokio::test]
    async fn directories_and_empty_files_get_a_clear_answer() {
        let ws = Workspace::new();
        ws.write("src/lib.rs", "");
        let err = ws.err(&ReadFileHandler, json!({"path": "src"})).await;
        assert_eq!(
            err,
            "src is a directory; use list_dir to see what it contains."
        );
        let out = ws.ok(&ReadFileHandler, json!({"path": "src/lib.rs"})).await;
        assert_eq!(out, "[src/lib.rs is empty]");
    }
}

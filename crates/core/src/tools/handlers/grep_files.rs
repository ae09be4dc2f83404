//! `grep_files`: regex search over a tree with ripgrep's own crates — the parallel `ignore`
//! walker, `grep-regex` and `grep-searcher` — printing `path:line:text` like `rg -n`.

use super::paths;
use crate::approval::Access;
use crate::tools::{
    ApprovalRequest, ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names,
    parse_args,
};
use async_trait::async_trait;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::WalkState;
use ignore::overrides::OverrideBuilder;
use serde::Deserialize;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const DEFAULT_MAX_RESULTS: usize = 200;
const MAX_MAX_RESULTS: usize = 2000;
const MAX_CONTEXT: usize = 10;
/// Longer lines are cut so one minified file cannot fill the answer.
const MAX_LINE_BYTES: usize = 400;

/// Handler of `grep_files`.
pub struct GrepFilesHandler;

#[derive(Deserialize)]
struct GrepFilesArgs {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    #[serde(default)]
    case_insensitive: bool,
    context: Option<usize>,
    max_results: Option<usize>,
}

#[async_trait]
impl ToolHandler for GrepFilesHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::GREP_FILES.to_string(),
            description: format!(
                "Search file contents with a regular expression (Rust regex syntax, as ripgrep). Use it to find definitions, callers, tests, error messages and config keys before you read or change code; prefer it to `grep` or `rg` in the shell. Not for finding files by name (use glob_files).\n\nReturns `path:line:text` for each matching line, and `path-line-text` for context lines, grouped by file; a note when it stopped after `max_results` matching lines (default {DEFAULT_MAX_RESULTS}); or a line saying nothing matched. Skips binary files and files ignored by .gitignore. Narrow a search with `glob`, e.g. {{\"pattern\": \"fn parse_\\\\w+\", \"glob\": \"*.rs\", \"context\": 2}}."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "Regular expression. Escape `(`, `[`, `.`, `*` etc. to match them literally."},
                    "path": {"type": "string", "description": "File or directory to search. Default: the working directory."},
                    "glob": {"type": "string", "description": "Only search files matching this glob, e.g. `*.rs` or `src/**/*.ts`."},
                    "case_insensitive": {"type": "boolean", "description": "Ignore case. Default false."},
                    "context": {"type": "integer", "minimum": 0, "description": "Lines of context before and after each match. Default 0."},
                    "max_results": {"type": "integer", "minimum": 1, "description": "Most matching lines to return. Default 200."}
                },
                "required": ["pattern"],
                "additionalProperties": false
            }),
        }
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        let pattern = args["pattern"].as_str().unwrap_or("");
        let mut text = format!("Search for `{pattern}`");
        if let Some(path) = args["path"].as_str() {
            text.push_str(&format!(" in {path}"));
        }
        if let Some(glob) = args["glob"].as_str() {
            text.push_str(&format!(" ({glob})"));
        }
        text
    }

    fn approval(
        &self,
        arguments: &str,
        ctx: &ToolContext,
    ) -> Result<Option<ApprovalRequest>, ToolError> {
        let args: GrepFilesArgs = parse_args(arguments)?;
        let root = paths::resolve(&ctx.cwd, args.path.as_deref().unwrap_or("."))?;
        let description = format!(
            "Would search {} for `{}`",
            paths::display(&root, &ctx.cwd),
            args.pattern
        );
        Ok(super::read_access::request(ctx, vec![root], description))
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: GrepFilesArgs = parse_args(&call.arguments)?;
        let root = paths::resolve(&ctx.cwd, args.path.as_deref().unwrap_or("."))?;
        let cwd = ctx.cwd.clone();
        let rules = Access::new(ctx.config(), &ctx.cwd);
        tokio::task::spawn_blocking(move || grep(&args, &root, &cwd, rules))
            .await
            .map_err(|e| ToolError::Fatal(format!("grep_files failed: {e}")))?
    }
}

/// One output line of a file's results.
enum Row {
    Match(String),
    Context(String),
    Break,
}

/// What the workers share.
struct Shared<'a> {
    cwd: &'a Path,
    matches: AtomicUsize,
    max: usize,
    capped: AtomicBool,
    files: Mutex<Vec<(PathBuf, Vec<Row>)>>,
}

fn grep(args: &GrepFilesArgs, root: &Path, cwd: &Path, rules: Access) -> Result<String, ToolError> {
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(args.case_insensitive)
        // Lets the searcher scan whole buffers instead of line by line, as ripgrep does.
        .line_terminator(Some(b'\n'))
        .build(&args.pattern)
        .map_err(|e| {
            ToolError::RespondToModel(format!(
                "Invalid regex `{}`: {e}\nEscape regex characters such as `(`, `[`, `.` or `*` with a backslash to match them literally.",
                args.pattern
            ))
        })?;
    let Ok(meta) = std::fs::metadata(root) else {
        return Err(ToolError::RespondToModel(format!(
            "Path not found: {}. Use list_dir or glob_files to find the right path.",
            paths::display(root, cwd)
        )));
    };
    if !meta.is_dir() {
        // A FIFO or device given as the path gets its error now, not a hang.
        paths::open_regular(root, cwd)?;
    }
    // A search that starts in a secret location was approved as such; one that only passes
    // through secrets (a search of the home directory) leaves them out.
    let root_is_secret = rules.is_secret(root);
    let mut walker = ignore::WalkBuilder::new(root);
    walker
        .hidden(false)
        .require_git(false)
        .filter_entry(move |e| {
            e.file_name() != ".git" && (root_is_secret || !rules.is_secret(e.path()))
        });
    if let Some(glob) = args.glob.as_deref().filter(|g| !g.trim().is_empty()) {
        let overrides = OverrideBuilder::new(root)
            .add(glob.trim())
            .and_then(|b| b.build())
            .map_err(|e| {
                ToolError::RespondToModel(format!(
                    "Invalid glob `{glob}`: {e}. Use `*` within a name, `**` across directories, `{{a,b}}` for alternatives, e.g. `*.rs` or `src/**/*.ts`."
                ))
            })?;
        walker.overrides(overrides);
    }
    let context = args.context.unwrap_or(0).min(MAX_CONTEXT);
    let shared = Shared {
        cwd,
        matches: AtomicUsize::new(0),
        max: args
            .max_results
            .unwrap_or(DEFAULT_MAX_RESULTS)
            .clamp(1, MAX_MAX_RESULTS),
        capped: AtomicBool::new(false),
        files: Mutex::new(Vec::new()),
    };
    walker.build_parallel().run(|| {
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .before_context(context)
            .after_context(context)
            .build();
        let matcher = matcher.clone();
        let shared = &shared;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            search_file(&mut searcher, &matcher, entry.into_path(), shared)
        })
    });

    let capped = shared.capped.load(Ordering::Relaxed);
    let mut files = shared.files.into_inner().unwrap_or_else(|p| p.into_inner());
    if files.is_empty() {
        let mut text = format!(
            "No matches for `{}` in {}",
            args.pattern,
            paths::place(root, cwd)
        );
        if let Some(glob) = &args.glob {
            text.push_str(&format!(" (files matching `{glob}`)"));
        }
        text.push('.');
        return Ok(text);
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::new();
    let mut shown = 0usize;
    for (i, (_, rows)) in files.iter().enumerate() {
        if i > 0 && context > 0 {
            out.push_str("--\n");
        }
        for row in rows {
            let text = match row {
                Row::Match(t) => {
                    shown += 1;
                    t
                }
                Row::Context(t) => t,
                Row::Break => "--",
            };
            out.push_str(text);
            out.push('\n');
        }
    }
    out.pop();
    if capped {
        out.push_str(&format!(
            "\n\n[Stopped after {shown} matching lines. Narrow the pattern, path or glob, or raise max_results.]"
        ));
    }
    Ok(out)
}

fn search_file(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    path: PathBuf,
    shared: &Shared<'_>,
) -> WalkState {
    if shared.capped.load(Ordering::Relaxed) {
        return WalkState::Quit;
    }
    let mut sink = Collector {
        path: &path,
        shown: None,
        rows: Vec::new(),
        binary: false,
        shared,
    };
    // An unreadable file is skipped, as ripgrep does; so is one swapped for a FIFO or a
    // device since the walk saw it (opened without blocking, checked on the descriptor).
    let Ok(file) = paths::open_regular(&path, shared.cwd) else {
        return WalkState::Continue;
    };
    if searcher.search_file(matcher, &file, &mut sink).is_err() || sink.binary {
        return WalkState::Continue;
    }
    if sink.rows.iter().any(|r| matches!(r, Row::Match(_))) {
        let rows = sink.rows;
        let mut files = shared.files.lock().unwrap_or_else(|p| p.into_inner());
        files.push((path, rows));
    }
    if shared.capped.load(Ordering::Relaxed) {
        WalkState::Quit
    } else {
        WalkState::Continue
    }
}

/// Collects one file's rows.
struct Collector<'a, 'b> {
    path: &'a Path,
    /// The path as printed, made on the first row: most files searched have none.
    shown: Option<String>,
    rows: Vec<Row>,
    binary: bool,
    shared: &'a Shared<'b>,
}

impl Collector<'_, '_> {
    fn row(&mut self, separator: char, line_number: Option<u64>, bytes: &[u8]) -> String {
        let (path, cwd) = (self.path, self.shared.cwd);
        let shown = self.shown.get_or_insert_with(|| paths::display(path, cwd));
        let mut bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let cut = bytes.len() > MAX_LINE_BYTES;
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_LINE_BYTES)]);
        let line = line_number.unwrap_or(0);
        if cut {
            format!("{shown}{separator}{line}{separator}{text} …")
        } else {
            format!("{shown}{separator}{line}{separator}{text}")
        }
    }
}

impl Sink for Collector<'_, '_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        if self.shared.matches.fetch_add(1, Ordering::Relaxed) >= self.shared.max {
            self.shared.capped.store(true, Ordering::Relaxed);
            return Ok(false);
        }
        let row = self.row(':', mat.line_number(), mat.bytes());
        self.rows.push(Row::Match(row));
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, Self::Error> {
        let row = self.row('-', ctx.line_number(), ctx.bytes());
        self.rows.push(Row::Context(row));
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        self.rows.push(Row::Break);
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::handlers::test_support::Workspace;

    fn tree() -> Workspace {
        let ws = Workspace::new();
        ws.write(".gitignore", "target/\n");
        ws.write("src/lib.rs", "pub mod a;\nfn Alpha() {}\nfn beta() {}\n");
        ws.write(
            "src/a.rs",
            "// alpha here\nlet x = 1;\nlet y = 2;\nlet z = 3;\nalpha again\n",
        );
        ws.write("notes.md", "alpha in markdown\n");
        ws.write("target/out.rs", "alpha ignored\n");
        ws.write("blob.bin", b"alpha\0\x01\x02");
        ws
    }

    #[tokio::test]
    async fn matches_are_sorted_path_line_text_and_skip_ignored_and_binary() {
        let ws = tree();
        let out = ws.ok(&GrepFilesHandler, json!({"pattern": "alpha"})).await;
        assert_eq!(
            out,
            "notes.md:1:alpha in markdown\nsrc/a.rs:1:// alpha here\nsrc/a.rs:5:alpha again"
        );
    }

    #[tokio::test]
    async fn case_insensitive_and_glob_filter() {
        let ws = tree();
        let out = ws
            .ok(
                &GrepFilesHandler,
                json!({"pattern": "alpha", "case_insensitive": true, "glob": "*.rs"}),
            )
            .await;
        assert_eq!(
            out,
            "src/a.rs:1:// alpha here\nsrc/a.rs:5:alpha again\nsrc/lib.rs:2:fn Alpha() {}"
        );
        let out = ws
            .ok(
                &GrepFilesHandler,
                json!({"pattern": "Alpha", "path": "src/lib.rs"}),
            )
            .await;
        assert_eq!(out, "src/lib.rs:2:fn Alpha() {}");
    }

    #[tokio::test]
    async fn context_lines_use_dashes_and_groups_are_separated() {
        let ws = tree();
        let out = ws
            .ok(
                &GrepFilesHandler,
                json!({"pattern": "alpha", "path": "src/a.rs", "context": 1}),
            )
            .await;
        assert_eq!(
            out,
            "src/a.rs:1:// alpha here\nsrc/a.rs-2-let x = 1;\n--\nsrc/a.rs-4-let z = 3;\nsrc/a.rs:5:alpha again"
        );
    }

    #[tokio::test]
    async fn results_stop_at_max_results_with_a_note() {
        let ws = Workspace::new();
        let text: String = (0..50).map(|i| format!("hit {i}\n")).collect();
        ws.write("many.txt", &text);
        let out = ws
            .ok(
                &GrepFilesHandler,
                json!({"pattern": "hit", "max_results": 5}),
            )
            .await;
        assert!(out.starts_with("many.txt:1:hit 0\n"), "{out}");
        assert_eq!(
            out.lines().filter(|l| l.starts_with("many.txt:")).count(),
            5
        );
        assert!(out.ends_with(
            "[Stopped after 5 matching lines. Narrow the pattern, path or glob, or raise max_results.]"
        ));
    }

    #[tokio::test]
    async fn bad_regex_and_no_match_are_explained() {
        let ws = tree();
        let err = ws.err(&GrepFilesHandler, json!({"pattern": "fn ("})).await;
        assert!(err.starts_with("Invalid regex `fn (`: "), "{err}");
        assert!(err.ends_with("with a backslash to match them literally."));
        let out = ws
            .ok(&GrepFilesHandler, json!({"pattern": "zzz", "glob": "*.md"}))
            .await;
        assert_eq!(
            out,
            "No matches for `zzz` in the working directory (files matching `*.md`)."
        );
    }
}

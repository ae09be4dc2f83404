//! What of a finished tool call's output a transcript shows.
//!
//! The model's copy of every output lives in the core's history. A transcript (the TUI's
//! cells, or a resumed session's replay of them) keeps only what it can show, so a long
//! session does not hold each output twice: shell output and diffs whole (expanded on
//! request), a failure's first lines, and nothing of other results, which a transcript
//! describes in one sentence.

/// The shell tool's name (the core's `tools::names::SHELL`).
const SHELL: &str = "shell";

/// Lines of a failed call's output a transcript shows.
pub const FAILURE_LINES: usize = 3;

/// Whether `text` is a unified diff (shown as one, coloured).
pub fn looks_like_diff(text: &str) -> bool {
    text.starts_with("@@") || text.contains("\n@@ ") || text.starts_with("--- ")
}

/// The part of a call's `output` a transcript shows.
pub fn shown_output(name: &str, success: bool, output: String) -> String {
    if name == SHELL || looks_like_diff(&output) {
        output
    } else if !success {
        output
            .lines()
            .take(FAILURE_LINES)
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transcript_keeps_shell_output_diffs_and_the_start_of_failures_only() {
        let long = "a\nb\nc\nd\ne".to_string();
        assert_eq!(shown_output("shell", true, long.clone()), long);
        assert_eq!(shown_output("grep_files", true, long.clone()), "");
        assert_eq!(shown_output("grep_files", false, long), "a\nb\nc");
        let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n".to_string();
        assert_eq!(shown_output("edit_file", true, diff.clone()), diff);
    }
}

//! A tool call's description in the tense of the moment it is shown.
//!
//! Tools describe a call with a dry-run sentence ("Would run `cargo test`", the sentence an
//! approval prompt shows, carried by `tool_call_begin` and the approval requests). Front ends
//! that show the call while it runs or after it ran turn that sentence into an action in
//! progress ("Running `cargo test`") or a finished one ("Ran `cargo test`") with
//! [`tool_sentence`], so the TUI and `cairn exec` word every call the same way.

/// The form a description is wanted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tense {
    /// The dry-run sentence as the tool wrote it: "Would write src/a.rs (4 lines)" (approval
    /// prompts).
    DryRun,
    /// An instruction: "Write src/a.rs (4 lines)" (a call that failed or was refused).
    Imperative,
    /// In progress: "Writing src/a.rs". A trailing parenthesis (a count of lines or changes)
    /// is left out; it describes the result.
    Progressive,
    /// Done: "Wrote src/a.rs (4 lines)".
    Past,
}

/// Verbs whose forms the usual rules get wrong: (verb, -ing form, past form).
const IRREGULAR: [(&str, &str, &str); 6] = [
    ("run", "running", "ran"),
    ("write", "writing", "wrote"),
    ("read", "reading", "read"),
    ("get", "getting", "got"),
    ("find", "finding", "found"),
    ("send", "sending", "sent"),
];

/// `description` (a dry-run sentence, "Would <verb> …") in `tense`. A description that is
/// not a dry-run sentence, or whose verb is not a plain word, comes back as the instruction
/// ("Would start_step for step 2." → "Start_step for step 2.").
pub fn tool_sentence(description: &str, tense: Tense) -> String {
    if tense == Tense::DryRun {
        return description.to_string();
    }
    let Some(rest) = description.strip_prefix("Would ") else {
        return description.to_string();
    };
    let (verb, tail) = rest.split_once(' ').unwrap_or((rest, ""));
    let plain_word = !verb.is_empty() && verb.chars().all(|c| c.is_ascii_lowercase());
    let form = match tense {
        Tense::Progressive if plain_word => progressive(verb),
        Tense::Past if plain_word => past(verb),
        _ => verb.to_string(),
    };
    let mut tail = tail;
    if tense == Tense::Progressive && plain_word {
        tail = without_trailing_parenthesis(tail);
    }
    let sentence = if tail.is_empty() {
        form
    } else {
        format!("{form} {tail}")
    };
    capitalised(&sentence)
}

fn progressive(verb: &str) -> String {
    if let Some((_, ing, _)) = IRREGULAR.iter().find(|(v, _, _)| *v == verb) {
        return (*ing).to_string();
    }
    match verb.strip_suffix('e') {
        Some(stem) if !stem.ends_with('e') && !stem.is_empty() => format!("{stem}ing"),
        _ => format!("{verb}ing"),
    }
}

fn past(verb: &str) -> String {
    if let Some((_, _, past)) = IRREGULAR.iter().find(|(v, _, _)| *v == verb) {
        return (*past).to_string();
    }
    if verb.ends_with('e') {
        return format!("{verb}d");
    }
    if let Some(stem) = verb.strip_suffix('y')
        && stem.ends_with(|c: char| !"aeiou".contains(c))
    {
        return format!("{stem}ied");
    }
    format!("{verb}ed")
}

/// "src/a.rs (4 lines)" → "src/a.rs"; a sentence that only is a parenthesis stays.
fn without_trailing_parenthesis(text: &str) -> &str {
    let trimmed = text.trim_end_matches('.');
    if let Some(open) = trimmed.rfind(" (")
        && trimmed.ends_with(')')
    {
        return &trimmed[..open];
    }
    text
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(description: &str) -> [String; 3] {
        [Tense::Imperative, Tense::Progressive, Tense::Past].map(|t| tool_sentence(description, t))
    }

    #[test]
    fn every_tool_sentence_reads_right_in_each_tense() {
        assert_eq!(
            forms("Would write src/a.rs (4 lines)"),
            [
                "Write src/a.rs (4 lines)",
                "Writing src/a.rs",
                "Wrote src/a.rs (4 lines)"
            ]
        );
        assert_eq!(
            forms("Would run `cargo test` in crates/core"),
            [
                "Run `cargo test` in crates/core",
                "Running `cargo test` in crates/core",
                "Ran `cargo test` in crates/core"
            ]
        );
        let cases = [
            (
                "Would read src/main.rs",
                "Reading src/main.rs",
                "Read src/main.rs",
            ),
            (
                "Would edit a.rs (+3 -1)",
                "Editing a.rs",
                "Edited a.rs (+3 -1)",
            ),
            (
                "Would apply a patch to 2 files",
                "Applying a patch to 2 files",
                "Applied a patch to 2 files",
            ),
            ("Would list src", "Listing src", "Listed src"),
            (
                "Would look for `*.rs` in src",
                "Looking for `*.rs` in src",
                "Looked for `*.rs` in src",
            ),
            (
                "Would search src for `fn main`",
                "Searching src for `fn main`",
                "Searched src for `fn main`",
            ),
            (
                "Would fetch https://x.io",
                "Fetching https://x.io",
                "Fetched https://x.io",
            ),
            (
                "Would delegate to reviewer: check it",
                "Delegating to reviewer: check it",
                "Delegated to reviewer: check it",
            ),
            (
                "Would ask the user: Which one?",
                "Asking the user: Which one?",
                "Asked the user: Which one?",
            ),
            (
                "Would update the plan (3 steps).",
                "Updating the plan",
                "Updated the plan (3 steps).",
            ),
            (
                "Would create plan for 'x' with 2 steps.",
                "Creating plan for 'x' with 2 steps.",
                "Created plan for 'x' with 2 steps.",
            ),
            (
                "Would call `q` on MCP server `db` with {}",
                "Calling `q` on MCP server `db` with {}",
                "Called `q` on MCP server `db` with {}",
            ),
            ("Would copy x", "Copying x", "Copied x"),
        ];
        for (dry_run, running, done) in cases {
            assert_eq!(tool_sentence(dry_run, Tense::Progressive), running);
            assert_eq!(tool_sentence(dry_run, Tense::Past), done);
            assert_eq!(tool_sentence(dry_run, Tense::DryRun), dry_run);
        }
    }

    #[test]
    fn other_sentences_are_left_alone_or_read_as_instructions() {
        assert_eq!(
            forms("Would start_step for step 2."),
            [
                "Start_step for step 2.",
                "Start_step for step 2.",
                "Start_step for step 2."
            ]
        );
        assert_eq!(forms("Thinking: x")[1], "Thinking: x");
        assert_eq!(forms("Would ")[2], "");
    }
}

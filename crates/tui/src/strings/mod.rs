//! Every user-facing string of the TUI, in one module (gitui's `strings.rs`): general ones here,
//! the pickers' and the delegate tree's in submodules, all reachable as `strings::NAME`.
//!
//! Strings quoted by the plan-mode spec or the issues are contracts: keep them byte for byte.

mod delegates;
mod pickers;

pub use delegates::*;
pub use pickers::*;

use std::path::Path;

/// Placeholder shown in the empty composer.
pub const COMPOSER_PLACEHOLDER: &str = "Ask cairn anything · / commands · @ files · ! shell";
/// The composer's placeholder where the whole hint does not fit.
pub const COMPOSER_PLACEHOLDER_SHORT: &str = "Ask cairn anything";
/// Title of the checklist cell (DESIGN.md §7).
pub const UPDATED_PLAN: &str = "Updated Plan";
/// Title of the cell of a stored (structured) plan.
pub const STORED_PLAN: &str = "Plan";
/// Badge when plan mode is off.
pub const BADGE_NORMAL: &str = " NORMAL ";
/// Badge when plan mode is on.
pub const BADGE_PLAN_MODE: &str = " PLAN MODE ";
/// Footer of the plan review widget (spec contract).
pub const PLAN_REVIEW_FOOTER: &str =
    "[Enter] Approve  [Esc] Reject  [↑↓] Scroll  [e] Edit  [f] Feedback";
/// Footer of the plan review widget while typing feedback.
pub const PLAN_REVIEW_FEEDBACK_FOOTER: &str = "[Enter] Reject with this feedback  [Esc] Cancel";
/// Prompt before the feedback input of the plan review widget.
pub const PLAN_REVIEW_FEEDBACK_PROMPT: &str = "Feedback: ";
/// Reply when `/plan` is used in plan mode (spec contract).
pub const ALREADY_IN_PLAN_MODE: &str = "Already in plan mode.";
/// Shown after the user approved the plan (spec §7.4).
pub const PLAN_APPROVED: &str =
    "Plan approved. Exiting plan mode. You can now start implementation.";
/// Shown after the user rejected the plan (spec §7.4).
pub const PLAN_REJECTED: &str = "Plan rejected. Continuing in plan mode.";
/// Shown when plan mode ended without an approval.
pub const PLAN_MODE_LEFT: &str = "Left plan mode. The plan was not approved; nothing changed.";
/// `/plan off` outside plan mode.
pub const NOT_IN_PLAN_MODE: &str = "Not in plan mode.";
/// `/plan review` outside plan mode.
pub const NO_PLAN_TO_REVIEW: &str =
    "Not in plan mode, so no plan is waiting for review. Type /plan to plan a change.";
/// After an interrupt closed the plan review.
pub const PLAN_REVIEW_CLOSED: &str =
    "The plan review closed with the turn. Type /plan review to open it again.";
/// A `!` command queued behind a turn the user interrupted.
pub fn queued_command_not_run(command: &str) -> String {
    format!("Not run, the turn was interrupted: {command} (press ↑ to recall it)")
}
/// `!` with no command after it.
pub const USER_SHELL_USAGE: &str = "Type a shell command after !, for example !git status. It runs under the approval policy, and the model sees its output.";
/// Shown after Ctrl+C when a second one would quit.
pub const CTRL_C_AGAIN: &str = "Press Ctrl+C again to quit";
/// Shown after an interrupted task.
pub const INTERRUPTED: &str = "Interrupted. Tell the model what to do differently.";
/// Shown after the user aborted a task from an approval.
pub const APPROVAL_ABORTED: &str = "Aborted: the call was not run and the task stopped.";
/// Hint in the collapsed form of reasoning and long output.
pub const EXPAND_HINT: &str = "ctrl+o to expand";
/// The row left when the user hid the pinned plan.
pub const PINNED_HIDDEN: &str = "▸ Plan hidden (ctrl+t to show)";
/// Hint when the pinned plan can be hidden.
pub const PINNED_HIDE_HINT: &str = "ctrl+t to hide";
/// Title of the reasoning cell.
pub const REASONING: &str = "Thinking";
/// Answer sent when the user skips a question.
pub const QUESTION_SKIPPED: &str = "The user skipped this question.";
/// How a skipped question's answer shows in the transcript.
pub const QUESTION_SKIPPED_SHOWN: &str = "(skipped)";
/// Footer of the question overlay.
pub const QUESTION_FOOTER_OPTIONS: &str =
    "[↑↓/1-9] Choose  or type an answer  [Enter] Send  [Esc] Skip";
/// Footer of the question overlay without options.
pub const QUESTION_FOOTER_FREE: &str = "Type an answer  [Enter] Send  [Esc] Skip";
/// Title of the exec approval overlay.
pub const APPROVE_EXEC_TITLE: &str = "Allow this command?";
/// Title of the patch approval overlay.
pub const APPROVE_PATCH_TITLE: &str = "Allow these file changes?";
/// Title of the read approval overlay.
pub const APPROVE_READ_TITLE: &str = "Allow this read outside the workspace?";
/// Before each path of a read approval.
pub const READ_PATH_BULLET: &str = "• ";
/// Title of the web fetch approval overlay.
pub const APPROVE_FETCH_TITLE: &str = "Allow this web fetch?";
/// Under the URL of a web fetch approval: what a fetch can do.
pub const FETCH_URL_NOTE: &str =
    "The whole address is sent to the host, query included: check it carries nothing private.";
/// Title of the MCP tool approval overlay.
pub const APPROVE_MCP_TITLE: &str = "Allow this MCP tool call?";
/// Before the server of an MCP approval.
pub const MCP_SERVER_LABEL: &str = "server  ";
/// Before the tool of an MCP approval.
pub const MCP_TOOL_LABEL: &str = "tool    ";
/// Above the arguments of an MCP approval.
pub const MCP_ARGUMENTS_LABEL: &str = "arguments";
/// What the server says about the tool, and that cairn does not go by it.
pub fn mcp_read_only_hint(hint: Option<bool>) -> &'static str {
    match hint {
        Some(true) => {
            "The server marks this tool read-only (readOnlyHint); cairn does not take its word: list it in read_only_tools to run it unasked."
        }
        Some(false) => "The server marks this tool as one that changes things.",
        None => "The server says nothing about whether this tool changes things.",
    }
}

/// Keys of the approval overlay, one line each: `[a]` says what it covers, `[p]` only when a
/// command prefix is offered; neither when the request cannot be approved for the session.
pub fn approval_keys(for_session: Option<&str>, prefix: Option<&str>) -> Vec<String> {
    let mut lines = vec!["[y] Yes  [n/Esc] No  [Ctrl+C] Abort task".to_string()];
    if let Some(scope) = for_session {
        lines.push(format!(
            "[a] Yes, and don't ask again this session for {scope}"
        ));
    }
    if let Some(prefix) = prefix {
        lines.push(format!(
            "[p] Yes, and don't ask again this session for commands starting with `{prefix}`"
        ));
    }
    lines
}

/// The line under an approval that every policy but `never` asks.
pub fn always_asked(reason: &str) -> String {
    format!("Always asked: {reason}")
}
/// Prompt of the approval overlay's feedback line.
pub const APPROVAL_FEEDBACK_PROMPT: &str = "Tell the model why (optional): ";
/// Keys while typing approval feedback.
pub const APPROVAL_FEEDBACK_KEYS: &str = "[Enter] Deny with this message  [Esc] Deny without one";
/// Shown when the editor could not be started.
pub const NO_PLANS_API: &str =
    "Stored plans are listed by `cairn plans list` (the plan store has no listing yet).";
/// Header of the /plans list.
pub const PLANS_HEADER: &str = "Stored plans";
/// Keys of the /plans list.
pub const PLANS_FOOTER: &str = "[↑↓] Select  [Enter] Show  [Esc] Close";

/// `/compact` sent.
pub fn compacting(focus: Option<&str>) -> String {
    match focus {
        Some(focus) => format!("Compacting the conversation (focus: {focus})…"),
        None => "Compacting the conversation…".to_string(),
    }
}

/// Unreadable documents left out of /plans.
pub fn plans_skipped(count: usize) -> String {
    format!("{count} unreadable document(s) skipped; `cairn plans list` names them")
}

/// Heading shown above a stored plan from /plans.
pub fn stored_plan_heading(id: &str, title: &str, status: &str) -> String {
    format!("Plan {id} · {title} · {status}")
}
/// Title of the session header cell.
pub const APP_NAME: &str = "cairn";
/// The header's provider when none is configured (the notice below says how to set one).
pub const HEADER_NO_PROVIDER: &str = "not configured (see below)";
/// Shown in the status line when no provider is configured.
pub const NO_PROVIDER: &str = "no provider";

/// "'/x' is disabled while a task is in progress." (issue contract).
pub fn disabled_during_task(command: &str) -> String {
    format!("'/{command}' is disabled while a task is in progress.")
}

/// The plan-mode hint above the composer (spec contract).
pub fn plan_mode_hint(plan_file: &Path) -> String {
    let [head, tail] = plan_mode_hint_parts(plan_file);
    format!("{head} {tail}")
}

/// The plan-mode hint in the two parts it breaks into when one row is too narrow (the plan
/// file name alone is about 60 columns); joined by a space they are [`plan_mode_hint`].
pub fn plan_mode_hint_parts(plan_file: &Path) -> [String; 2] {
    let name = plan_file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    [
        format!("📋 Plan Mode | File: {name} |"),
        "Use read-only tools, then call exit_plan_mode".to_string(),
    ]
}

/// Title of the plan review widget (spec contract).
pub fn plan_review_title(plan_file: &Path) -> String {
    let name = plan_file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| plan_file.display().to_string());
    format!("Plan Review - {name}")
}

/// Notice after entering plan mode (spec §7.2, adapted to what cairn offers).
pub fn entered_plan_mode(plan_file: &Path) -> String {
    format!(
        "Entered plan mode.\nPlan file: {}\n\nIn plan mode, you can:\n- Explore the codebase using read-only tools\n- Answer the model's questions\n- Have the model write its plan to the plan file\n- Review the plan when the model calls exit_plan_mode\nNothing else in the workspace can change until you approve the plan. /plan off leaves plan mode without approving.",
        plan_file.display()
    )
}

/// "Working (12s • esc to interrupt)" (issue contract).
pub fn working(elapsed_secs: u64) -> String {
    format!(
        "Working ({} • esc to interrupt)",
        format_elapsed(elapsed_secs)
    )
}

/// "Working (12s)", where the whole sentence does not fit.
pub fn working_short(elapsed_secs: u64) -> String {
    format!("Working ({})", format_elapsed(elapsed_secs))
}

/// 12s, 1m 05s, 1h 02m 03s.
pub fn format_elapsed(secs: u64) -> String {
    if secs < 60 {
        format!("{secs}s")
    } else if secs < 3600 {
        format!("{}m {:02}s", secs / 60, secs % 60)
    } else {
        format!(
            "{}h {:02}m {:02}s",
            secs / 3600,
            (secs % 3600) / 60,
            secs % 60
        )
    }
}

/// "n of m done" for the pinned plan (issue contract); a plan without steps says so.
pub fn plan_progress(done: usize, total: usize) -> String {
    if total == 0 {
        return "no steps".to_string();
    }
    format!("{done} of {total} done")
}

/// Title line of the pinned plan.
pub fn pinned_plan_title(done: usize, total: usize) -> String {
    format!("Plan · {}", plan_progress(done, total))
}

/// Unknown slash command.
pub fn unknown_command(name: &str) -> String {
    format!("Unknown command '/{name}'. Type /help to see the commands.")
}

/// Title suffix when more approvals wait.
pub fn more_waiting(count: usize) -> String {
    format!(" ({count} more waiting)")
}

/// "Question 1 of 2".
pub fn question_title(index: usize, total: usize) -> String {
    if total > 1 {
        format!("Question {} of {total}", index + 1)
    } else {
        "Question".to_string()
    }
}

/// Queued message line above the composer.
pub fn queued(text: &str) -> String {
    format!("↳ queued: {text}")
}

/// A tool call's duration.
pub fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

/// Lines of output hidden in a collapsed cell.
pub fn more_lines(count: usize) -> String {
    let noun = if count == 1 { "line" } else { "lines" };
    format!("… +{count} {noun} ({EXPAND_HINT})")
}

/// Printed after the TUI exits.
pub fn exit_summary(total_tokens: &str, session_id: &str) -> String {
    format!(
        "Token usage: {total_tokens} total\nTo continue this session, run: cairn resume {session_id}"
    )
}

/// Tokens used so far, in the status line.
pub fn tokens_total(total: &str) -> String {
    format!("{total} tokens")
}

/// "62% context left" (issue contract).
pub fn context_left(percent: u64) -> String {
    format!("{percent}% context left")
}

/// The context left where "62% context left" does not fit.
pub fn context_left_short(percent: u64) -> String {
    format!("{percent}% left")
}

/// Notice after a compaction.
pub fn context_compacted(before: u64, after: u64) -> String {
    format!(
        "Context compacted: the older conversation was summarised (~{} → ~{} tokens). The plan and plan mode were kept as they were.",
        compact_count(before),
        compact_count(after)
    )
}

/// Notice at the end of a resumed transcript.
pub fn resumed_from(path: &std::path::Path) -> String {
    format!("Resumed session from {}", path.display())
}

/// 950, 1.2k, 3.4M.
pub fn compact_count(n: u64) -> String {
    if n < 1000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    }
}

/// `/approvals` with a value that is not a policy.
pub fn approvals_invalid(value: &str) -> String {
    format!(
        "'{value}' is not an approval policy; the policy is unchanged. Use untrusted, on-request or never."
    )
}

/// `/approvals` without a value: the current policy and the choices.
pub fn approvals_usage(current: &str) -> String {
    format!(
        "Approval policy: {current}. Use /approvals untrusted | on-request | never.\n- untrusted: ask before every command and file change\n- on-request: run workspace edits and known-safe commands, ask for the rest\n- never: never ask"
    )
}

/// /approvals with a valid argument.
pub fn approvals_switched(policy: &str) -> String {
    format!("Approval policy set to {policy}.")
}

/// Editor failure.
pub fn editor_failed(err: &str) -> String {
    format!("Could not run the editor: {err}. Set $VISUAL or $EDITOR to an editor command.")
}

/// Plan file could not be read after editing.
pub fn plan_read_failed(path: &Path, err: &str) -> String {
    format!("Could not read the plan file {}: {err}", path.display())
}

/// Help text for /help.
pub fn help(commands: &[(String, &'static str)]) -> String {
    let mut text = String::from("Commands:\n");
    for (name, description) in commands {
        text.push_str(&format!("  {name:<12} {description}\n"));
    }
    text.push_str(
        "  /plan review reopen the plan review after an interrupt\n  /plan off    leave plan mode without approving\n\nIn the composer:\n  @path        complete a file path (Tab or Enter inserts it)\n  !command     run a shell command yourself, under the approval policy; the model sees its output\n",
    );
    text.push_str(
        "\nKeys:\n  Enter        send (queued while a task runs)\n  Shift+Enter  new line (also Ctrl+J)\n  Up/Down      earlier prompts\n  Esc          interrupt the running task\n  Ctrl+C       interrupt, or clear the draft; on an empty composer twice within 2 s quits\n  Ctrl+D       quit (empty composer)\n  Ctrl+U       delete to the start of the line (Ctrl+Z undoes)\n  Ctrl+T       show or hide the pinned plan\n  Ctrl+O       expand or collapse reasoning, output and diffs\n  Ctrl+G       select a delegated run (Up/Down, Enter opens its transcript)\n  PgUp/PgDn    scroll the transcript (Home/End with an empty composer)",
    );
    text
}

/// Verification mark on a structured step.
pub const VERIFY_MARK: &str = " [verify]";
/// A plan without steps.
pub const NO_STEPS: &str = "(no steps)";
/// Completion card: success.
pub const PLAN_COMPLETED: &str = "Plan completed";
/// Completion card: partial success.
pub const PLAN_PARTLY_COMPLETED: &str = "Plan partly completed";
/// Completion card: failure.
pub const PLAN_FAILED: &str = "Plan failed";
/// Slash popup without matches.
pub const NO_MATCHING_COMMAND: &str = "  no matching command";
/// `@` file popup while the workspace's file list is being read.
pub const FILES_LOADING: &str = "  listing files…";

/// `@` file popup without matches.
pub fn no_files_match(query: &str) -> String {
    format!("  no files match '{query}'")
}
/// Start of an image's alt text in Markdown.
pub const IMAGE_OPEN: &str = "[image: ";
/// First line of /status.
pub const STATUS_TITLE: &str = "Status";
/// Row names of /status, in order.
pub const STATUS_KEYS: [&str; 7] = [
    "provider",
    "model",
    "directory",
    "approvals",
    "plan mode",
    "tokens",
    "conversation",
];
/// /status: plan mode off.
pub const PLAN_MODE_OFF: &str = "off";
/// /status: no tokens used yet.
pub const NO_TOKENS_YET: &str = "none yet";

/// Dependencies of a structured step.
pub fn step_after(deps: &[String]) -> String {
    format!(" (after {})", deps.join(", "))
}

/// A plan note.
pub fn plan_note(note: &str) -> String {
    format!("note: {note}")
}

/// An issue on the completion card.
pub fn plan_issue(issue: &str) -> String {
    format!("issue: {issue}")
}

/// Recommendations on the completion card.
pub fn plan_next(recommendation: &str) -> String {
    format!("next: {recommendation}")
}

/// Step counts on the completion card.
pub fn completion_counts(done: usize, failed: usize, skipped: usize) -> String {
    format!(" · {done} done, {failed} failed, {skipped} skipped")
}

/// A command that exited with a non-zero code ("Ran `cargo test` · exit 1").
pub fn exit_code(code: &str) -> String {
    format!("exit {code}")
}

/// A failed tool call.
pub fn call_failed(duration_ms: u64) -> String {
    format!("failed, {}", duration(duration_ms))
}

/// Which lines of the plan Plan Review shows.
pub fn plan_review_position(first: usize, last: usize, total: usize) -> String {
    format!(" {first}-{last} of {total} ")
}

/// Lines below the viewport while scrolled up.
pub fn lines_below(count: usize) -> String {
    let noun = if count == 1 { "line" } else { "lines" };
    format!(" ↓ {count} more {noun} (End) ")
}

/// Which lines of a long command or diff the approval overlay shows.
pub fn approval_scroll_position(first: usize, last: usize, total: usize) -> String {
    format!(" {first}-{last} of {total} · [↑↓ PgUp PgDn] Scroll ")
}

/// Where a command would run.
pub fn runs_in(cwd: &Path) -> String {
    format!("in {}", cwd.display())
}

/// /status: plan mode on.
pub fn plan_mode_on(plan_file: &Path) -> String {
    format!("on ({})", plan_file.display())
}

/// /status: token use.
pub fn status_tokens(total: u64, input: u64, output: u64) -> String {
    format!("{total} total (last request: {input} in, {output} out)")
}

//! Strings of the delegate tree, its runs' transcripts and the delegation cells.

/// The delegate tree's key, in its title while it does not have the keys.
pub const DELEGATES_HINT: &str = "ctrl+g to select";
/// The delegate tree's keys while it has them.
pub const DELEGATES_FOCUSED_HINT: &str = "↑↓ select · enter open · esc back";
/// [`DELEGATES_HINT`] on a narrow screen.
pub const DELEGATES_HINT_SHORT: &str = "ctrl+g";
/// [`DELEGATES_FOCUSED_HINT`] on a narrow screen.
pub const DELEGATES_FOCUSED_HINT_SHORT: &str = "↑↓ enter esc";
/// Ctrl+G without any delegated run.
pub const NO_DELEGATED_RUNS: &str =
    "No delegated runs yet. When the model delegates with delegate_agent, Ctrl+G selects one.";
/// Hint on a collapsed delegation cell.
pub const DELEGATION_EXPAND_HINT: &str = "ctrl+o for summaries";
/// Keys of the run overlay.
pub const RUN_VIEW_FOOTER: &str = "[↑↓ PgUp PgDn] Scroll  [o] Full output  [Esc] Close";
/// [`RUN_VIEW_FOOTER`] on a narrow screen.
pub const RUN_VIEW_FOOTER_SHORT: &str = "[↑↓] Scroll [o] Output [Esc] Close";
/// The run overlay while the run is running.
pub const RUN_RUNNING: &str = "running…";
/// A run the task ended without reporting.
pub const RUN_UNFINISHED: &str = "The run did not report an end (the task stopped first).";
/// A run a resumed session log stops before the end of.
pub const RUN_UNFINISHED_IN_LOG: &str = "The session log ends before this run did.";

/// Title of the delegate tree: "Agents · 2 of 3 running".
pub fn delegates_title(running: usize, total: usize) -> String {
    if running == 0 {
        format!("Agents · {total} finished")
    } else {
        format!("Agents · {running} of {total} running")
    }
}

/// [`delegates_title`] on a narrow screen: "Agents 2/3".
pub fn delegates_title_short(running: usize, total: usize) -> String {
    if running == 0 {
        format!("Agents {total} done")
    } else {
        format!("Agents {running}/{total}")
    }
}

/// A run's call waits for the user.
pub fn delegate_waiting(description: &str) -> String {
    format!("waiting for approval: {description}")
}

/// Title of a delegation cell.
pub fn delegated_runs(count: usize, failed: usize) -> String {
    let runs = if count == 1 { "run" } else { "runs" };
    if failed == 0 {
        format!("Delegated {count} {runs}")
    } else {
        format!("Delegated {count} {runs} · {failed} failed")
    }
}

/// Title of the run overlay.
pub fn run_view_title(agent_id: &str, run_id: &str, status: &str) -> String {
    format!(" {agent_id} · {run_id} · {status} ")
}

/// The end of a run in its overlay.
pub fn run_finished(duration: Option<&str>) -> String {
    match duration {
        Some(d) => format!("Finished in {d}"),
        None => "Finished".to_string(),
    }
}

/// A failed run in its overlay.
pub fn run_failed(error: &str) -> String {
    format!("Failed: {error}")
}

/// /mcp with no servers configured.
pub const MCP_NONE: &str = "No MCP servers configured. Add one with `cairn mcp add NAME -- COMMAND [ARGS...]` (docs/mcp.md).";
/// Heading of /mcp.
pub fn mcp_heading(count: usize) -> String {
    format!("MCP servers ({count}):")
}
/// A server that is configured but off.
pub const MCP_DISABLED: &str = "disabled";
/// A server still starting.
pub const MCP_STARTING: &str = "starting";
/// A server whose tools are offered.
pub const MCP_READY: &str = "ready";
/// A server that failed or stopped.
pub const MCP_FAILED: &str = "failed";
/// A ready server that offers no tools.
pub const MCP_NO_TOOLS: &str = "(no tools offered)";
/// Before a server's error in /mcp.
pub const MCP_ERROR_LEAD: &str = "error: ";
/// After a tool's name in /mcp: read-only by config, and the server's own hint.
pub fn mcp_tool_marks(read_only: bool, hint: Option<bool>) -> String {
    let access = if read_only {
        " · read-only (config)"
    } else {
        " · asks before running"
    };
    let hint = match hint {
        Some(true) => " · server hint: read-only",
        Some(false) => " · server hint: changes things",
        None => "",
    };
    format!("{access}{hint}")
}

/// Heading of /agents.
pub fn agents_heading(count: usize, enabled: bool) -> String {
    if enabled {
        format!("Agents delegate_agent can run ({count}):")
    } else {
        format!(
            "Delegation is off ([multi_agent] enabled = false); these {count} agents would be offered:"
        )
    }
}

/// One agent of /agents: "explore · read-only · built-in".
pub fn agent_line(id: &str, read_only: bool, source: &str) -> String {
    let access = if read_only {
        "read-only"
    } else {
        "can edit and run commands"
    };
    format!("  {id} · {access} · {source}")
}

/// An agent file /agents could not use.
pub fn agent_problem(problem: &str) -> String {
    format!("  skipped: {problem}")
}

/// Where a built-in agent comes from, in /agents.
pub const AGENT_BUILT_IN: &str = "built-in";
/// Where a config agent comes from, in /agents.
pub const AGENT_FROM_CONFIG: &str = "config.toml [multi_agent.agents]";

//! Delegated runs: a child session of the same core (its own history, the agent's
//! instructions, the tools its parent may use intersected with its agent's), whose events
//! reach the parent's front end tagged with its run id, whose approvals are asked through the
//! parent's front end, and which is cancelled with its parent.
//!
//! A child can never do what its parent could not: its tool set is a subset of its parent's
//! current one (in plan mode: read-only tools only), the dispatcher re-checks every call
//! against that set ([`check_call`]), and approvals go through the same policy code.

use super::EventSink;
use super::shared::{Delegation, RunInfo, SessionShared, lock};
use super::task::{Task, TaskInput};
use crate::agents::AgentDef;
use crate::client::client_for;
use crate::config::{PlanningStyle, providers};
use crate::model_family::is_edit_tool;
use crate::plan_mode::filter;
use crate::tools::{ToolContext, ToolRegistry, names};
use cairn_protocol::EventMsg;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Tools a read-only run may use (the checklist's `update_plan` only changes what is shown).
const READ_ONLY_TOOLS: &[&str] = &[
    names::READ_FILE,
    names::LIST_DIR,
    names::GLOB_FILES,
    names::GREP_FILES,
    names::THINK,
    names::READ_PLAN,
    names::UPDATE_PLAN,
    names::DELEGATE_AGENT,
    names::WEB_FETCH,
    names::WEB_SEARCH,
];

/// Tools a delegated run never gets: it cannot talk to the user or leave plan mode.
const NEVER_DELEGATED: &[&str] = &[names::ASK_USER_QUESTION, names::EXIT_PLAN_MODE];

/// Whether `delegation` may call `tool`; the refusal the model reads otherwise.
/// `mcp_read_only`: `tool` is an MCP tool the user configured read-only.
pub(crate) fn check_call(
    delegation: &Delegation,
    tool: &str,
    mcp_read_only: bool,
) -> Result<(), String> {
    if let Some(allowed) = &delegation.allowed_tools
        && !allowed.contains(tool)
    {
        return Err(format!(
            "Tool '{tool}' is not available to this agent. Use only the tools you were offered."
        ));
    }
    // A read-only run's shell calls were checked by the dispatcher (read-only commands, in
    // the read-only sandbox) before this.
    if delegation.read_only
        && !READ_ONLY_TOOLS.contains(&tool)
        && tool != names::SHELL
        && !mcp_read_only
    {
        return Err(format!(
            "Tool '{tool}' is not allowed for a read-only agent: it may only read. Report what should change instead."
        ));
    }
    Ok(())
}

/// A delegated run's events as its parent's front end sees them; `None` drops one.
pub(crate) fn tag(run_id: &str, msg: EventMsg) -> Option<EventMsg> {
    match msg {
        // Asked of the user like any request; the call id and description name the run.
        EventMsg::ExecApprovalRequest { .. }
        | EventMsg::PatchApprovalRequest { .. }
        | EventMsg::ReadApprovalRequest { .. }
        | EventMsg::McpToolApprovalRequest { .. }
        | EventMsg::WebFetchApprovalRequest { .. }
        | EventMsg::PlanApprovalRequest { .. }
        // Already tagged by a deeper run.
        | EventMsg::DelegateStarted { .. }
        | EventMsg::DelegateDelta { .. }
        | EventMsg::DelegateEvent { .. }
        | EventMsg::DelegateCompleted { .. }
        | EventMsg::DelegateFailed { .. } => Some(msg),
        EventMsg::AgentMessageDelta { delta } => Some(EventMsg::DelegateDelta {
            run_id: run_id.to_string(),
            text: delta,
        }),
        // The run's start and end are told by delegate_started/completed.
        EventMsg::TaskStarted
        | EventMsg::TaskComplete { .. }
        | EventMsg::UserMessage { .. }
        | EventMsg::TokenCount(_)
        | EventMsg::ReasoningDelta { .. }
        | EventMsg::SessionConfigured(_)
        | EventMsg::SessionResumed { .. }
        | EventMsg::ShutdownComplete => None,
        other => Some(EventMsg::DelegateEvent {
            run_id: run_id.to_string(),
            event: Box::new(other),
        }),
    }
}

/// One entry of a `delegate_agent` call.
#[derive(Debug, Clone)]
pub(crate) struct RunRequest {
    /// The agent.
    pub agent: AgentDef,
    /// What it is asked.
    pub prompt: String,
    /// Where it works, when not the parent's directory.
    pub working_directory: Option<PathBuf>,
    /// Extra hints for it.
    pub hints: Vec<String>,
}

/// How a run ended.
#[derive(Debug, Clone)]
pub(crate) struct RunOutcome {
    /// The agent.
    pub agent_id: String,
    /// The run's id (empty when it never started).
    pub run_id: String,
    /// Its final answer, or why it failed.
    pub result: Result<String, String>,
    /// How long it ran.
    pub duration_ms: u64,
}

/// A slot among `[multi_agent] max_concurrent_delegates`, freed when dropped.
pub(crate) struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Take a slot, or `None` when `max` runs are already running in the tree.
pub(crate) fn take_slot(delegation: &Delegation, max: usize) -> Option<Slot> {
    let running = &delegation.running;
    let mut now = running.load(Ordering::Acquire);
    loop {
        if now >= max {
            return None;
        }
        match running.compare_exchange(now, now + 1, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return Some(Slot(running.clone())),
            Err(actual) => now = actual,
        }
    }
}

/// The tools a run of `agent` may use under `parent`: the parent's current tools (in plan mode
/// or a read-only parent, the read-only ones), intersected with the agent's list, read-only for
/// a read-only agent, never the user-facing tools, and `delegate_agent` only above the depth
/// limit.
///
/// MCP tools count like the others: the parent's ready ones, and in plan mode or for a
/// read-only run only those the user configured read-only.
pub(crate) fn child_tools(parent: &SessionShared, agent: &AgentDef) -> HashSet<String> {
    let mut registry = ToolRegistry::for_session(&parent.config, &parent.delegation);
    if let Some(mcp) = &parent.mcp {
        registry = registry.with_mcp(mcp, &parent.delegation);
    }
    let plan_mode = lock(&parent.plan_mode).active;
    let read_only = agent.read_only || plan_mode || parent.delegation.read_only;
    let structured = parent.config.planning == PlanningStyle::Structured;
    let mcp_read_only = |name: &str| parent.mcp_read_only(name);
    // The shell reaches a read-only run only where the read-only sandbox is enforced; the
    // dispatcher then checks each command (crate::plan_mode::shell).
    let sandboxed_shell = |name: &str| {
        name == names::SHELL && crate::plan_mode::shell::availability(&parent.config).is_ok()
    };
    registry
        .names()
        .filter(|name| !NEVER_DELEGATED.contains(name))
        .filter(|name| {
            !plan_mode
                || filter::is_offered_with(name, &parent.config)
                || *name == names::DELEGATE_AGENT
                || mcp_read_only(name)
        })
        .filter(|name| {
            !read_only
                || READ_ONLY_TOOLS.contains(name)
                || mcp_read_only(name)
                || sandboxed_shell(name)
        })
        // The structured update_plan writes plan documents: not for a read-only run.
        .filter(|name| !(read_only && structured && *name == names::UPDATE_PLAN))
        .filter(|name| {
            *name != names::DELEGATE_AGENT
                || parent.delegation.depth + 1 < parent.config.multi_agent.max_depth
        })
        .filter(|name| {
            agent
                .tools
                .as_ref()
                // The edit tools are one capability in three dialects: an agent that may
                // edit gets whichever its own model is offered.
                .is_none_or(|tools| {
                    tools
                        .iter()
                        .any(|t| t == name || (is_edit_tool(t) && is_edit_tool(name)))
                })
        })
        .map(str::to_string)
        .collect()
}

/// Run `request` as a child of the session of `parent` and wait for it.
pub(crate) async fn run(parent: &ToolContext, request: RunRequest) -> RunOutcome {
    let started = Instant::now();
    let pshared = &parent.shared;
    let run_id = format!(
        "run-{}",
        pshared.delegation.next_run.fetch_add(1, Ordering::Relaxed)
    );
    let agent_id = request.agent.id.clone();
    let outcome = |result: Result<String, String>| RunOutcome {
        agent_id: agent_id.clone(),
        run_id: run_id.clone(),
        result,
        duration_ms: started.elapsed().as_millis() as u64,
    };
    let parent_run = pshared.delegation.run.as_ref();
    parent.emit(EventMsg::DelegateStarted {
        run_id: run_id.clone(),
        parent_run_id: parent_run.map(|r| r.run_id.clone()),
        agent_id: agent_id.clone(),
        prompt: request.prompt.clone(),
    });
    // If the parent's call is dropped (the user interrupted), the run still says it ended.
    let mut pending = Unfinished {
        ctx: parent,
        run_id: &run_id,
        armed: true,
    };
    let result = match start_child(parent, &request, &run_id).await {
        Ok((task, prompt)) => run_child(task, prompt, pshared.config.multi_agent.run_timeout).await,
        Err(message) => Err(message),
    };
    pending.armed = false;
    let done = outcome(result);
    match &done.result {
        Ok(summary) => parent.emit(EventMsg::DelegateCompleted {
            run_id: run_id.clone(),
            summary: summary.clone(),
            duration_ms: done.duration_ms,
        }),
        Err(error) => parent.emit(EventMsg::DelegateFailed {
            run_id: run_id.clone(),
            error: error.clone(),
        }),
    }
    done
}

/// Emits `delegate_failed` for a run whose call was dropped before it finished.
struct Unfinished<'a> {
    ctx: &'a ToolContext,
    run_id: &'a str,
    armed: bool,
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.ctx.emit(EventMsg::DelegateFailed {
                run_id: self.run_id.to_string(),
                error: "The run was interrupted by the user.".to_string(),
            });
        }
    }
}

/// Build the child session and its task.
async fn start_child(
    parent: &ToolContext,
    request: &RunRequest,
    run_id: &str,
) -> Result<(Task, String), String> {
    let pshared = &parent.shared;
    let agent = &request.agent;
    let mut config = pshared.config.clone();
    if let Some(dir) = &request.working_directory {
        let dir = crate::tools::handlers::paths::resolve(&parent.cwd, &dir.to_string_lossy())
            .map_err(|e| e.to_string())?;
        if !dir.starts_with(&pshared.config.cwd) || !dir.is_dir() {
            return Err(format!(
                "context.working_directory {} must be an existing directory inside the workspace {}.",
                dir.display(),
                pshared.config.cwd.display()
            ));
        }
        config.cwd = dir;
    }
    let client = match &agent.provider {
        Some(id) => {
            let provider =
                providers::resolve(id, &config.user_providers, &|k| std::env::var(k).ok())
                    .map_err(|e| format!("agent '{}': {e}", agent.id))?;
            config.provider = Some(provider.clone());
            Some(client_for(&config, &provider))
        }
        None => pshared.model_client().await,
    };
    if client.is_none() {
        return Err(crate::config::NO_PROVIDER_GUIDANCE.to_string());
    }
    let mut child = SessionShared::with_log(
        config,
        client,
        pshared.interactive,
        run_id.to_string(),
        None,
    );
    {
        let parent_settings = pshared.settings();
        let mut settings = lock(&child.settings);
        settings.approval_policy = parent_settings.approval_policy;
        settings.model = agent.model.clone().unwrap_or(parent_settings.model);
    }
    child.replies = pshared.replies.clone();
    // The parent's servers, not new ones: a run starts nothing and sees the same tools.
    child.mcp = pshared.mcp.clone();
    let allowed = child_tools(pshared, agent);
    let plan_mode = lock(&pshared.plan_mode).active;
    let parent_path = pshared
        .delegation
        .run
        .as_ref()
        .map(|r| format!("{}/", r.agent_path))
        .unwrap_or_default();
    child.delegation = Delegation {
        agents: pshared.delegation.agents.clone(),
        depth: pshared.delegation.depth + 1,
        run: Some(RunInfo {
            run_id: run_id.to_string(),
            parent_run_id: pshared.delegation.run.as_ref().map(|r| r.run_id.clone()),
            agent_path: format!("{parent_path}{}", agent.id),
        }),
        running: pshared.delegation.running.clone(),
        read_only: agent.read_only || plan_mode || pshared.delegation.read_only,
        allowed_tools: Some(Arc::new(allowed)),
        next_run: pshared.delegation.next_run.clone(),
    };
    let child = Arc::new(child);
    let registry = Arc::new(ToolRegistry::for_session(&child.config, &child.delegation));
    let events: EventSink = parent.events.for_delegate(run_id, &child);
    let mut role = agent.instructions.clone();
    if child.delegation.read_only {
        role.push_str("\n\nYou are read-only: you can read and search, nothing else. Report what should change instead of changing it.");
    }
    let mut prompt = request.prompt.clone();
    if !request.hints.is_empty() {
        prompt.push_str("\n\nHints:\n");
        for hint in &request.hints {
            prompt.push_str(&format!("- {hint}\n"));
        }
    }
    let task = Task {
        shared: child,
        registry,
        events,
        sub_id: parent.sub_id.clone(),
        cancel: parent.cancel.child_token(),
        role: Some(role),
        max_rounds: Some(pshared.config.multi_agent.max_turns),
    };
    Ok((task, prompt))
}

/// Run the child task to its end, within `timeout`; its final answer or why it failed.
async fn run_child(
    task: Task,
    prompt: String,
    timeout: std::time::Duration,
) -> Result<String, String> {
    let cancel = task.cancel.clone();
    // Its own tokio task, so a panic inside the run fails the run, not the parent.
    let handle = tokio::spawn(task.run(TaskInput::User(prompt)));
    let abort = handle.abort_handle();
    let ended = tokio::time::timeout(timeout, handle).await;
    match ended {
        Err(_) => {
            cancel.cancel();
            abort.abort();
            Err(format!(
                "The run timed out after {} s ([multi_agent] run_timeout_ms) and was stopped.",
                timeout.as_secs()
            ))
        }
        Ok(Err(err)) => Err(format!("The run crashed inside cairn: {err}")),
        Ok(Ok(EventMsg::TaskComplete { last_agent_message })) => Ok(last_agent_message
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| "(the agent finished without a final message)".to_string())),
        Ok(Ok(EventMsg::TurnAborted { .. })) => {
            Err("The run was interrupted by the user.".to_string())
        }
        Ok(Ok(EventMsg::Error { message })) => Err(message),
        Ok(Ok(other)) => Err(format!("The run ended unexpectedly: {other:?}")),
    }
}

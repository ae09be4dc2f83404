//! Running one tool call: plan-mode check, lookup, approval, the handler, and the events
//! around it. Every call goes through here, so no route skips the plan-mode filter.

use super::shared::{Reply, ReplyKey, lock};
use super::task::Stop;
use crate::approval::{self, headless_denial, user_denial};
use crate::mcp;
use crate::plan_mode::filter;
use crate::tools::{
    ApprovalKind, ApprovalRequest, ToolCall, ToolContext, ToolError, ToolRegistry, names,
};
use cairn_protocol::{EventMsg, ReviewDecision, TurnAbortReason};
use std::time::Instant;

/// What a call produced: the model's text, and whether the task must stop after it.
pub(super) struct CallOutcome {
    pub output: String,
    pub success: bool,
    pub stop: Option<Stop>,
}

/// Who asked for a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Origin {
    /// The model (or a delegated run's model).
    Model,
    /// The user, with `!cmd`. Judged exactly like the model's calls, except that an
    /// approval is never remembered for the session: approving your own command must not
    /// quietly approve it for the model too.
    User,
}

pub(super) async fn run_call(
    call: &ToolCall,
    ctx: &ToolContext,
    registry: &ToolRegistry,
    origin: Origin,
) -> CallOutcome {
    let handler = registry.handler(&call.name);
    let description = handler
        .map(|h| h.describe(&call.arguments))
        .unwrap_or_else(|| format!("Would call unknown tool '{}'", call.name));
    ctx.emit(EventMsg::ToolCallBegin {
        call_id: call.call_id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        description,
    });
    // Reset when the handler starts, so a call's duration excludes the wait for approval.
    let mut started = Instant::now();
    let result = execute(call, ctx, registry, &mut started, origin).await;
    let (output, success, stop) = match result {
        Ok(output) => (output, true, None),
        Err(Failure::Tool(ToolError::RespondToModel(text))) => (text, false, None),
        Err(Failure::Tool(ToolError::Fatal(text))) => {
            (text.clone(), false, Some(Stop::Failed(text)))
        }
        Err(Failure::Aborted) => (
            "The user aborted the turn instead of approving this call; it was not run.".to_string(),
            false,
            Some(Stop::Aborted(TurnAbortReason::ApprovalAborted)),
        ),
    };
    end(ctx, call, &output, success, started);
    // A call that finished as the user interrupted keeps its real output; the turn stops.
    let stop = stop.or_else(|| {
        ctx.cancel
            .is_cancelled()
            .then_some(Stop::Aborted(TurnAbortReason::Interrupted))
    });
    CallOutcome {
        output,
        success,
        stop,
    }
}

/// Why [`execute`] produced no output.
enum Failure {
    Tool(ToolError),
    /// The user answered an approval with "abort".
    Aborted,
}

impl From<ToolError> for Failure {
    fn from(err: ToolError) -> Self {
        Self::Tool(err)
    }
}

fn respond(text: impl Into<String>) -> Failure {
    Failure::Tool(ToolError::RespondToModel(text.into()))
}

fn end(ctx: &ToolContext, call: &ToolCall, output: &str, success: bool, started: Instant) {
    ctx.emit(EventMsg::ToolCallEnd {
        call_id: call.call_id.clone(),
        name: call.name.clone(),
        output: output.to_string(),
        success,
        duration_ms: started.elapsed().as_millis() as u64,
    });
}

/// Put `request` to the approval policy and, if it must ask, to the user. Returns when the
/// call may run: `true` when the user was asked, `false` when the policy approved it.
async fn approve(
    call: &ToolCall,
    ctx: &ToolContext,
    request: &ApprovalRequest,
) -> Result<bool, Failure> {
    let policy = ctx.shared.settings().approval_policy;
    if !approval::must_ask(policy, request, &lock(&ctx.shared.approvals)) {
        return Ok(false);
    }
    if !ctx.shared.interactive {
        return Err(respond(headless_denial(request)));
    }
    // A delegated run asks through the user's front end: its call id is made unique in the
    // tree and its request names the agent that asks.
    let (reply_id, labelled);
    let request = match &ctx.shared.delegation.run {
        Some(run) => {
            reply_id = format!("{}:{}", run.run_id, call.call_id);
            labelled = ApprovalRequest {
                description: format!("[{}] {}", run.agent_path, request.description),
                ..request.clone()
            };
            &labelled
        }
        None => {
            reply_id = call.call_id.clone();
            request
        }
    };
    let Some(waiting) = ctx
        .shared
        .replies
        .register(ReplyKey::Call(reply_id.clone()))
    else {
        return Err(respond(format!(
            "Another call with id {} is already waiting for approval; use a unique call id.",
            call.call_id
        )));
    };
    ctx.emit(request_event(&reply_id, request));
    let reply = tokio::select! {
        _ = ctx.cancel.cancelled() => return Err(respond("Interrupted by the user.")),
        reply = waiting => reply,
    };
    match reply {
        Ok(Reply::Review(ReviewDecision::Approved)) => Ok(true),
        Ok(Reply::Review(ReviewDecision::ApprovedForSession)) => {
            lock(&ctx.shared.approvals).remember(request);
            Ok(true)
        }
        Ok(Reply::Review(ReviewDecision::ApprovedPrefixForSession { prefix })) => {
            // A prefix the request did not offer approves this call only.
            let remembered = lock(&ctx.shared.approvals).remember_prefix(request, &prefix);
            if !remembered {
                tracing::warn!(%prefix, "prefix approval not offered for this call; approved once");
            }
            Ok(true)
        }
        Ok(Reply::Review(ReviewDecision::Denied { feedback })) => {
            Err(respond(user_denial(feedback.as_deref())))
        }
        Ok(Reply::Review(ReviewDecision::Abort)) => Err(Failure::Aborted),
        Ok(_) | Err(_) => Err(respond(user_denial(None))),
    }
}

/// The event that puts `request` to the user.
fn request_event(call_id: &str, request: &ApprovalRequest) -> EventMsg {
    let call_id = call_id.to_string();
    let description = request.description.clone();
    let for_session = request
        .session
        .label
        .clone()
        .filter(|_| request.protected.is_none() && !request.session.keys.is_empty());
    let reason = request.protected.clone();
    match &request.kind {
        ApprovalKind::Exec { command, cwd } => EventMsg::ExecApprovalRequest {
            call_id,
            command: command.clone(),
            cwd: cwd.clone(),
            description,
            for_session,
            session_prefix: request
                .session
                .prefix_text()
                .filter(|_| request.protected.is_none()),
            reason,
        },
        ApprovalKind::Patch { paths, diff } => EventMsg::PatchApprovalRequest {
            call_id,
            paths: paths.clone(),
            diff: diff.clone(),
            description,
            for_session,
            reason,
        },
        ApprovalKind::Read { paths } => EventMsg::ReadApprovalRequest {
            call_id,
            paths: paths.clone(),
            description,
            for_session,
            reason,
        },
        ApprovalKind::Mcp {
            server,
            tool,
            arguments,
            read_only_hint,
        } => EventMsg::McpToolApprovalRequest {
            call_id,
            server: server.clone(),
            tool: tool.clone(),
            arguments: arguments.clone(),
            description,
            read_only_hint: *read_only_hint,
            for_session,
        },
        ApprovalKind::Fetch { url, host } => EventMsg::WebFetchApprovalRequest {
            call_id,
            url: url.clone(),
            host: host.clone(),
            description,
            for_session,
        },
    }
}

async fn execute(
    call: &ToolCall,
    ctx: &ToolContext,
    registry: &ToolRegistry,
    started: &mut Instant,
    origin: Origin,
) -> Result<String, Failure> {
    // Plan mode first: a refused call never reaches its handler, offered or not.
    let plan_file = lock(&ctx.shared.plan_mode)
        .active_plan_file()
        .map(|p| p.to_path_buf());
    // An MCP tool is read-only only by the user's config, never by the server's word.
    let mcp_read_only = ctx.shared.mcp_read_only(&call.name);
    // The shell in plan mode, or in a read-only delegated run, runs only read-only commands
    // and only inside the read-only sandbox (which the handler applies).
    let read_only_shell =
        call.name == names::SHELL && (plan_file.is_some() || ctx.shared.delegation.read_only);
    if read_only_shell {
        crate::plan_mode::shell::check_call(&call.arguments, &ctx.shared.config)
            .map_err(respond)?;
    }
    let writes_plan_file = if let Some(plan_file) = plan_file.as_ref().filter(|_| !read_only_shell)
    {
        if mcp::naming::is_mcp_name(&call.name) {
            filter::check_mcp_call(&call.name, mcp_read_only).map_err(respond)?;
        } else {
            filter::check_call(&call.name, &call.arguments, plan_file, &ctx.cwd)
                .map_err(respond)?;
        }
        crate::model_family::is_edit_tool(&call.name)
    } else {
        false
    };
    // A delegated run may use only what its parent could, and a read-only one only reads,
    // whatever it was offered.
    super::delegate::check_call(&ctx.shared.delegation, &call.name, mcp_read_only)
        .map_err(respond)?;
    let Some(handler) = registry.handler(&call.name) else {
        // A tool of an MCP server that stopped: the model saw it earlier, so say why it is gone.
        if let Some(why) = ctx
            .shared
            .mcp
            .as_ref()
            .and_then(|m| m.unavailable(&call.name))
        {
            return Err(respond(why));
        }
        return Err(respond(format!(
            "Unknown tool '{}'. Available tools: {}.",
            call.name,
            registry.names().collect::<Vec<_>>().join(", ")
        )));
    };
    // Writing the plan file in plan mode is what the user asked for; it needs no approval.
    // Every other call, read-only tools included, is put to the approval policy: a read
    // tool answers only for reads outside the workspace or of secrets.
    let mut patch = None;
    if !writes_plan_file && let Some(mut request) = handler.approval(&call.arguments, ctx)? {
        if origin == Origin::User {
            request.session = Default::default();
        }
        let asked = approve(call, ctx, &request).await?;
        if let ApprovalKind::Patch { diff, .. } = request.kind {
            patch = Some((diff, !asked));
        }
    }
    *started = Instant::now();
    let result = tokio::select! {
        _ = ctx.cancel.cancelled() => Err(respond("Interrupted by the user.")),
        result = handler.handle(call, ctx) => result.map_err(Failure::from),
    };
    // The diff a user approved was on screen already; one the policy approved was not.
    if result.is_ok()
        && let Some((diff, auto_approved)) = patch
    {
        ctx.emit(EventMsg::PatchApplied {
            call_id: call.call_id.clone(),
            diff,
            auto_approved,
        });
    }
    result
}

//! `cairn exec`: one task, no terminal UI.
//!
//! Human mode streams the answer to stdout and progress (tool calls, plans, warnings) to
//! stderr, so `cairn exec "..." > answer.md` keeps just the answer. `--json` writes exactly one
//! protocol event per line to stdout and nothing else.

use cairn_core::{Config, SessionOptions};
use cairn_protocol::tense::{Tense, tool_sentence};
use cairn_protocol::{Event, EventMsg, Op, Plan, PlanStepStatus};
use clap::Args;
use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

/// Arguments of `cairn exec`.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// Write one JSON protocol event per line to stdout instead of human output.
    #[arg(long)]
    json: bool,

    /// Start in plan mode: the model may only read and write its plan file. Stops when the
    /// plan is ready, unless --approve-plan is given.
    #[arg(long)]
    plan: bool,

    /// Approve plans automatically: with --plan, the plan-mode plan (the model then
    /// implements it); with `[tools] require_plan_approval`, each structured plan.
    #[arg(long)]
    approve_plan: bool,

    /// Continue a saved session: `last` (the latest of this directory) or an id (or a unique
    /// prefix of one).
    #[arg(long, value_name = "ID|last")]
    resume: Option<String>,

    /// The task. `-` reads it from stdin.
    prompt: String,
}

/// Run `cairn exec`.
pub async fn run(config: Config, args: ExecArgs) -> ExitCode {
    let prompt = match read_prompt(&args.prompt) {
        Ok(prompt) => prompt,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let options = SessionOptions { interactive: false };
    let mut session = match &args.resume {
        Some(target) => {
            let mut config = config;
            let target = crate::sessions_cmd::Target::parse(target);
            match crate::sessions_cmd::resume_session(&mut config, target, options) {
                Ok(session) => session,
                Err(message) => {
                    eprintln!("error: {message}");
                    return ExitCode::FAILURE;
                }
            }
        }
        None => cairn_core::spawn(config, options),
    };
    let mut out = Output::new(args.json);

    if args.plan {
        let id = session.submit(Op::SetPlanMode { active: true });
        loop {
            let Some(event) = session.events.recv().await else {
                return ExitCode::FAILURE;
            };
            out.event(&event);
            match &event.msg {
                EventMsg::PlanModeEntered { .. } if event.id == id => break,
                EventMsg::Error { .. } if event.id == id => return ExitCode::FAILURE,
                _ => {}
            }
        }
    }

    let task_id = session.submit(Op::UserInput { text: prompt });
    let mut plan_shown = false;
    let code = loop {
        let Some(event) = session.events.recv().await else {
            break ExitCode::FAILURE;
        };
        out.event(&event);
        if event.id != task_id {
            continue;
        }
        match &event.msg {
            EventMsg::TaskComplete { .. } => {
                break ExitCode::SUCCESS;
            }
            EventMsg::Error { .. } => break ExitCode::FAILURE,
            EventMsg::TurnAborted { .. } => {
                break if plan_shown {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                };
            }
            EventMsg::PlanApprovalRequest { call_id, .. } => {
                // Nobody can review here: --approve-plan is the user's answer in advance;
                // without it the core refuses the plan and tells the model how to allow it.
                if !args.json {
                    if args.approve_plan {
                        eprintln!("Plan approved (--approve-plan).");
                    } else {
                        eprintln!(
                            "Plan not approved: cairn exec approves structured plans only with --approve-plan."
                        );
                    }
                }
                session.submit(Op::PlanApproval {
                    call_id: call_id.clone(),
                    approved: args.approve_plan,
                    feedback: None,
                });
            }
            EventMsg::PlanModeExitRequest { .. } => {
                if args.approve_plan {
                    session.submit(Op::PlanModeApproval {
                        approved: true,
                        feedback: None,
                    });
                } else {
                    // The plan is the result: stop the task and leave the plan as a draft.
                    plan_shown = true;
                    session.submit(Op::Interrupt);
                }
            }
            _ => {}
        }
    };
    // The session log is complete on disk once the core confirms the shutdown.
    let shutdown = session.submit(Op::Shutdown);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        while let Some(event) = session.events.recv().await {
            if event.id == shutdown && event.msg == EventMsg::ShutdownComplete {
                break;
            }
        }
    })
    .await;
    out.finish();
    code
}

fn read_prompt(arg: &str) -> Result<String, String> {
    let prompt = if arg == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("could not read the prompt from stdin: {e}"))?;
        text
    } else {
        arg.to_string()
    };
    if prompt.trim().is_empty() {
        return Err("the prompt is empty; pass it as an argument or `-` to read stdin".into());
    }
    Ok(prompt)
}

/// Writes events either as JSON lines or for a person.
struct Output {
    json: bool,
    stdout: std::io::Stdout,
    /// True while the answer's last printed character was not a newline.
    mid_line: bool,
    /// Deltas of the message being streamed, to reprint cleanly after a retry.
    streamed_any: bool,
    color: bool,
}

impl Output {
    fn new(json: bool) -> Self {
        Self {
            json,
            stdout: std::io::stdout(),
            mid_line: false,
            streamed_any: false,
            color: std::io::stderr().is_terminal(),
        }
    }

    fn event(&mut self, event: &Event) {
        if self.json {
            if let Ok(line) = serde_json::to_string(event) {
                let mut lock = self.stdout.lock();
                let _ = writeln!(lock, "{line}");
                let _ = lock.flush();
            }
            return;
        }
        self.human(&event.msg);
    }

    fn end_line(&mut self) {
        if self.mid_line {
            let _ = writeln!(self.stdout);
            self.mid_line = false;
        }
    }

    fn dim(&self, text: &str) -> String {
        if self.color {
            format!("\x1b[2m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn human(&mut self, msg: &EventMsg) {
        match msg {
            EventMsg::AgentMessageDelta { delta } => {
                let _ = write!(self.stdout, "{delta}");
                let _ = self.stdout.flush();
                self.mid_line = !delta.ends_with('\n');
                self.streamed_any = true;
            }
            EventMsg::AgentMessage { message } => {
                if !self.streamed_any {
                    // Nothing streamed (the server sent the message whole).
                    let _ = write!(self.stdout, "{message}");
                    self.mid_line = !message.ends_with('\n');
                }
                self.end_line();
                self.streamed_any = false;
            }
            EventMsg::ToolCallBegin { description, .. } => {
                self.end_line();
                eprintln!("{}", self.dim(&format!("▸ {}", as_action(description))));
            }
            EventMsg::ToolCallEnd {
                success: false,
                output,
                ..
            } => {
                let first = output.lines().next().unwrap_or("");
                eprintln!("{}", self.dim(&format!("  ✗ {first}")));
            }
            EventMsg::PlanUpdate(plan) => {
                self.end_line();
                eprint!("{}", checklist(plan));
            }
            EventMsg::PlanModeEntered { plan_file_path } => {
                eprintln!(
                    "Plan mode: read-only; the plan goes to {}",
                    plan_file_path.display()
                );
            }
            EventMsg::PlanApprovalRequest {
                plan_content,
                plan_file_path,
                ..
            } => {
                self.end_line();
                eprintln!("Plan for review ({}):", plan_file_path.display());
                eprintln!("{}", plan_content.trim_end());
            }
            EventMsg::PlanModeExitRequest {
                plan_content,
                plan_file_path,
            } => {
                self.end_line();
                eprintln!("Plan ready for review ({}):", plan_file_path.display());
                let _ = writeln!(self.stdout, "{}", plan_content.trim_end());
            }
            EventMsg::PlanModeExited { approved: true, .. } => {
                eprintln!("Plan approved.");
            }
            EventMsg::StreamError { message } => {
                self.end_line();
                if self.streamed_any {
                    eprintln!("warning: {message} (the answer restarts)");
                    self.streamed_any = false;
                } else {
                    eprintln!("warning: {message}");
                }
            }
            EventMsg::Notice { message } => {
                self.end_line();
                eprintln!("{message}");
            }
            EventMsg::Error { message } => {
                self.end_line();
                eprintln!("error: {message}");
            }
            EventMsg::TurnAborted { reason } => {
                self.end_line();
                eprintln!("{}", self.dim(&format!("turn aborted ({reason:?})")));
            }
            EventMsg::DelegateStarted {
                run_id,
                agent_id,
                prompt,
                ..
            } => {
                self.end_line();
                let first = prompt.lines().next().unwrap_or("");
                eprintln!("{}", self.dim(&format!("⇢ {agent_id} ({run_id}): {first}")));
            }
            EventMsg::DelegateEvent { run_id, event } => {
                if let EventMsg::ToolCallBegin { description, .. } = event.as_ref() {
                    self.end_line();
                    eprintln!(
                        "{}",
                        self.dim(&format!("  [{run_id}] ▸ {}", as_action(description)))
                    );
                }
            }
            EventMsg::DelegateCompleted {
                run_id,
                duration_ms,
                ..
            } => {
                self.end_line();
                eprintln!(
                    "{}",
                    self.dim(&format!(
                        "✔ {run_id} done ({:.1} s)",
                        *duration_ms as f64 / 1000.0
                    ))
                );
            }
            EventMsg::DelegateFailed { run_id, error } => {
                self.end_line();
                eprintln!("{}", self.dim(&format!("✗ {run_id} failed: {error}")));
            }
            _ => {}
        }
    }

    fn finish(&mut self) {
        if !self.json {
            self.end_line();
        }
        let _ = self.stdout.flush();
    }
}

/// "Would run `ls`" (the dry-run sentence) as "Running `ls`": by the time it is printed, it
/// runs. The TUI's tool cells word calls with the same [`tool_sentence`].
fn as_action(description: &str) -> String {
    tool_sentence(description, Tense::Progressive)
}

/// A plan as plain-text checklist.
fn checklist(plan: &Plan) -> String {
    let mut out = String::new();
    let title = plan.title.as_deref().unwrap_or("Updated Plan");
    out.push_str(title);
    out.push('\n');
    if let Some(explanation) = &plan.explanation {
        out.push_str(&format!("  {explanation}\n"));
    }
    for step in &plan.plan {
        let glyph = match step.status {
            PlanStepStatus::Completed => "✔",
            PlanStepStatus::InProgress | PlanStepStatus::Pending => "□",
            PlanStepStatus::Failed => "✗",
            PlanStepStatus::Skipped => "–",
        };
        out.push_str(&format!("  {glyph} {}\n", step.step));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dry_run_sentences_read_as_actions() {
        assert_eq!(as_action("Would run `ls` in src"), "Running `ls` in src");
        assert_eq!(as_action("Would write a.rs (4 lines)"), "Writing a.rs");
        assert_eq!(as_action("Thinking: x"), "Thinking: x");
        assert_eq!(as_action("Would "), "");
    }
}

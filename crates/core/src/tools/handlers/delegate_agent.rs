//! `delegate_agent`: run one sub-agent, or a batch in parallel, and get their final answers
//! (spec/tool-patterns-and-delegation.md §7). The handler only checks and schedules; the runs
//! are child sessions (`session/delegate.rs`).

use crate::agents::{AgentRegistry, is_valid_id};
use crate::session::delegate::{self, RunOutcome, RunRequest};
use crate::session::shared::lock;
use crate::tools::{
    ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names, parse_args,
};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

/// Handler of `delegate_agent`.
pub struct DelegateAgentHandler {
    agents: Arc<AgentRegistry>,
}

impl DelegateAgentHandler {
    /// A handler offering `agents`.
    pub fn new(agents: Arc<AgentRegistry>) -> Self {
        Self { agents }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DelegateArgs {
    agent_id: Option<String>,
    prompt: Option<String>,
    context: Option<RunContext>,
    batch: Option<Vec<BatchEntry>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchEntry {
    agent_id: String,
    prompt: String,
    context: Option<RunContext>,
}

/// `context`: open to more keys (the spec allows them), of which two are used.
#[derive(Debug, Deserialize, Default)]
struct RunContext {
    working_directory: Option<String>,
    #[serde(default)]
    hints: Vec<String>,
}

fn context_schema() -> Value {
    json!({
        "type": "object",
        "description": "Optional: where the run works and extra hints.",
        "properties": {
            "working_directory": {"type": "string", "description": "Directory inside the workspace the run works in (default: the working directory)."},
            "hints": {"type": "array", "items": {"type": "string"}, "description": "Short facts the sub-agent should know, added to its prompt."}
        },
        "additionalProperties": true
    })
}

fn respond(text: impl Into<String>) -> ToolError {
    ToolError::RespondToModel(text.into())
}

#[async_trait]
impl ToolHandler for DelegateAgentHandler {
    fn spec(&self) -> ToolSpec {
        let mut description = String::from(
            "Delegate work to a sub-agent that runs with its own conversation and returns its final answer. Give one `agent_id` and `prompt`, or a `batch` of several that run in parallel (use a batch for independent questions). The sub-agent sees only your prompt: include every detail it needs. Use it for broad searches or investigations whose details you do not need in your own context; not for a lookup one or two searches answer. A sub-agent can do no more than you can.\n\nReturns JSON: {\"status\": \"ok\", \"runs\": [{\"agent_id\", \"run_id\", \"summary\", \"duration_ms\"}]}, or status \"error\" with the reason. Example: {\"batch\": [{\"agent_id\": \"explore\", \"prompt\": \"Where is the retry policy for HTTP calls defined and which callers override it? Report paths and line numbers.\"}]}\n\nAgents:\n",
        );
        for agent in self.agents.iter() {
            let access = if agent.read_only { " (read-only)" } else { "" };
            description.push_str(&format!("- {}{access}: {}\n", agent.id, agent.description));
        }
        ToolSpec {
            name: names::DELEGATE_AGENT.to_string(),
            description,
            parameters: json!({
                "type": "object",
                "properties": {
                    "agent_id": {"type": "string", "pattern": "^[a-z0-9_\\-]+$", "description": "The agent to run, one of the agents listed above (with prompt; leave out when using batch)."},
                    "prompt": {"type": "string", "description": "The complete task for the sub-agent: goal, paths, what you know, what to report."},
                    "context": context_schema(),
                    "batch": {
                        "type": "array",
                        "description": "Several runs at once, in parallel, each with agent_id and prompt (instead of agent_id and prompt at the top level).",
                        "items": {
                            "type": "object",
                            "required": ["agent_id", "prompt"],
                            "properties": {
                                "agent_id": {"type": "string", "pattern": "^[a-z0-9_\\-]+$", "description": "The agent to run."},
                                "prompt": {"type": "string", "description": "The complete task for this run."},
                                "context": context_schema()
                            },
                            "additionalProperties": false
                        }
                    }
                },
                "anyOf": [
                    {"required": ["agent_id", "prompt"]},
                    {"required": ["batch"], "properties": {"batch": {"minItems": 1}}}
                ],
                "additionalProperties": false
            }),
        }
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        if let Some(batch) = args["batch"].as_array() {
            let ids: Vec<&str> = batch
                .iter()
                .map(|e| e["agent_id"].as_str().unwrap_or("?"))
                .collect();
            return format!("Would delegate {} runs ({})", batch.len(), ids.join(", "));
        }
        let agent = args["agent_id"].as_str().unwrap_or("an agent");
        let prompt: String = args["prompt"]
            .as_str()
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(80)
            .collect();
        format!("Would delegate to {agent}: {prompt}")
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: DelegateArgs = parse_args(&call.arguments)?;
        let entries = entries(args)?;
        let read_only_parent =
            lock(&ctx.shared.plan_mode).active || ctx.shared.delegation.read_only;
        let mut requests = Vec::with_capacity(entries.len());
        for entry in entries {
            requests.push(self.request(entry, read_only_parent)?);
        }
        let max = ctx.config().multi_agent.max_concurrent;
        let runs = requests.into_iter().map(|request| async move {
            let Some(_slot) = delegate::take_slot(&ctx.shared.delegation, max) else {
                return RunOutcome {
                    agent_id: request.agent.id.clone(),
                    run_id: String::new(),
                    result: Err(format!(
                        "DelegateInProgress: {max} delegated runs are already running ([multi_agent] max_concurrent_delegates = {max}). Wait for them to finish and delegate again, or put independent requests in one batch."
                    )),
                    duration_ms: 0,
                };
            };
            delegate::run(ctx, request).await
        });
        let outcomes = futures::future::join_all(runs).await;
        let ok = outcomes.iter().any(|o| o.result.is_ok());
        let runs: Vec<Value> = outcomes.iter().map(run_json).collect();
        let text = json!({"status": if ok { "ok" } else { "error" }, "runs": runs}).to_string();
        if ok { Ok(text) } else { Err(respond(text)) }
    }
}

impl DelegateAgentHandler {
    fn request(&self, entry: BatchEntry, read_only_parent: bool) -> Result<RunRequest, ToolError> {
        if !is_valid_id(&entry.agent_id) {
            return Err(respond(format!(
                "agent_id `{}` is not a valid id (only a-z, 0-9, `_` and `-`). Available agents: {}.",
                entry.agent_id,
                self.agents.ids().join(", ")
            )));
        }
        let Some(agent) = self.agents.get(&entry.agent_id) else {
            return Err(respond(format!(
                "Unknown agent `{}`. Available agents: {}.",
                entry.agent_id,
                self.agents.ids().join(", ")
            )));
        };
        if read_only_parent && !agent.read_only {
            let read_only: Vec<&str> = self
                .agents
                .iter()
                .filter(|a| a.read_only)
                .map(|a| a.id.as_str())
                .collect();
            return Err(respond(format!(
                "Agent `{}` can change files, and only read-only agents can be delegated here (plan mode or a read-only agent). Read-only agents: {}.",
                agent.id,
                read_only.join(", ")
            )));
        }
        if entry.prompt.trim().is_empty() {
            return Err(respond(format!(
                "The prompt for `{}` is empty; say what the agent should do.",
                agent.id
            )));
        }
        let context = entry.context.unwrap_or_default();
        Ok(RunRequest {
            agent: agent.clone(),
            prompt: entry.prompt,
            working_directory: context.working_directory.map(PathBuf::from),
            hints: context.hints,
        })
    }
}

/// The runs a call asks for: one, or the batch.
fn entries(args: DelegateArgs) -> Result<Vec<BatchEntry>, ToolError> {
    match args.batch {
        Some(batch) => {
            if args.agent_id.is_some() || args.prompt.is_some() || args.context.is_some() {
                return Err(respond(
                    "Give either `agent_id` and `prompt` (one run) or `batch` (several), not both.",
                ));
            }
            if batch.is_empty() {
                return Err(respond(
                    "`batch` is empty; give at least one {agent_id, prompt} entry.",
                ));
            }
            Ok(batch)
        }
        None => match (args.agent_id, args.prompt) {
            (Some(agent_id), Some(prompt)) => Ok(vec![BatchEntry {
                agent_id,
                prompt,
                context: args.context,
            }]),
            _ => Err(respond(
                "Give `agent_id` and `prompt` for one run, or `batch` for several.",
            )),
        },
    }
}

fn run_json(outcome: &RunOutcome) -> Value {
    match &outcome.result {
        Ok(summary) => json!({
            "agent_id": outcome.agent_id,
            "run_id": outcome.run_id,
            "summary": summary,
            "duration_ms": outcome.duration_ms,
        }),
        Err(error) => json!({
            "agent_id": outcome.agent_id,
            "run_id": outcome.run_id,
            "status": "error",
            "error": error,
            "duration_ms": outcome.duration_ms,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: Value) -> Result<Vec<BatchEntry>, String> {
        parse_args::<DelegateArgs>(&v.to_string())
            .and_then(entries)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn single_batch_and_malformed_calls() {
        assert_eq!(
            parse(json!({"agent_id": "explore", "prompt": "x"}))
                .unwrap()
                .len(),
            1
        );
        let batch = json!({"batch": [
            {"agent_id": "explore", "prompt": "a"},
            {"agent_id": "plan", "prompt": "b", "context": {"hints": ["h"], "extra": 1}}
        ]});
        assert_eq!(parse(batch).unwrap().len(), 2);
        assert!(
            parse(json!({"batch": []}))
                .unwrap_err()
                .contains("`batch` is empty")
        );
        assert!(
            parse(
                json!({"agent_id": "x", "prompt": "y", "batch": [{"agent_id": "x", "prompt": "y"}]})
            )
            .unwrap_err()
            .contains("not both")
        );
        assert!(
            parse(json!({"agent_id": "explore"}))
                .unwrap_err()
                .contains("Give `agent_id` and `prompt`")
        );
        assert!(
            parse(json!({"agent_id": "x", "prompt": "y", "colour": "red"}))
                .unwrap_err()
                .starts_with("failed to parse function arguments: unknown field `colour`")
        );
        assert!(
            parse(json!({"batch": [{"agent_id": "x", "prompt": "y", "extra": 1}]}))
                .unwrap_err()
                .contains("unknown field `extra`")
        );
    }
}

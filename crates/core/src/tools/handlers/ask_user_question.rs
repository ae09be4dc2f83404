//! `ask_user_question`: put questions to the user and return the answers.

use crate::session::shared::{Reply, ReplyKey};
use crate::tools::{
    ToolCall, ToolContext, ToolError, ToolHandler, ToolSpec, args_value, names, parse_args,
};
use async_trait::async_trait;
use cairn_protocol::{EventMsg, UserQuestion};
use serde::Deserialize;
use serde_json::json;

/// The answer when nobody can answer (`cairn exec`).
pub const NO_USER_TEXT: &str =
    "No user is available to answer; state your assumption and continue.";

/// Handler of `ask_user_question`.
pub struct AskUserQuestionHandler;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    questions: Vec<UserQuestion>,
}

#[async_trait]
impl ToolHandler for AskUserQuestionHandler {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: names::ASK_USER_QUESTION.to_string(),
            description: "Ask the user one or more questions and wait for the answers. Use it when a decision really depends on them: an ambiguous requirement, a choice between approaches with real trade-offs, a preference only they know. Do not ask what you can find out by reading the code or running a command, and do not ask for permission to run a tool (approvals are handled for you).\n\nReturns each question with the user's answer. Offer `options` when there are obvious candidates; the user may pick one or type their own answer. Example: {\"questions\": [{\"question\": \"Keep the old endpoint for a release?\", \"options\": [\"Yes, deprecate it\", \"No, remove it now\"]}]}".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "questions": {
                        "type": "array",
                        "description": "The questions, asked together.",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "properties": {
                                "question": {"type": "string", "description": "One question, complete on its own."},
                                "options": {"type": "array", "items": {"type": "string"}, "description": "Suggested answers (optional); the user may also answer freely."}
                            },
                            "required": ["question"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["questions"],
                "additionalProperties": false
            }),
        }
    }

    fn runs_alone(&self) -> bool {
        true
    }

    fn describe(&self, arguments: &str) -> String {
        let args = args_value(arguments);
        let first = args["questions"][0]["question"].as_str().unwrap_or("");
        format!("Would ask the user: {first}")
    }

    async fn handle(&self, call: &ToolCall, ctx: &ToolContext) -> Result<String, ToolError> {
        let args: Args = parse_args(&call.arguments)?;
        if args.questions.is_empty() || args.questions.iter().any(|q| q.question.trim().is_empty())
        {
            return Err(ToolError::RespondToModel(
                "`questions` must hold at least one non-empty question.".to_string(),
            ));
        }
        if !ctx.shared.interactive {
            return Ok(NO_USER_TEXT.to_string());
        }
        let Some(waiting) = ctx
            .shared
            .replies
            .register(ReplyKey::Call(call.call_id.clone()))
        else {
            return Err(ToolError::RespondToModel(format!(
                "Another call with id {} is already waiting for the user; use a unique call id.",
                call.call_id
            )));
        };
        ctx.emit(EventMsg::UserQuestionRequest {
            call_id: call.call_id.clone(),
            questions: args.questions.clone(),
        });
        let reply = tokio::select! {
            _ = ctx.cancel.cancelled() => return Err(ToolError::RespondToModel("Interrupted by the user.".into())),
            reply = waiting => reply,
        };
        let Ok(Reply::Answers(answers)) = reply else {
            return Ok(NO_USER_TEXT.to_string());
        };
        let mut out = String::new();
        for (i, q) in args.questions.iter().enumerate() {
            let answer = answers.get(i).map(String::as_str).unwrap_or("(no answer)");
            out.push_str(&format!("Q: {}\nA: {}\n", q.question, answer));
        }
        Ok(out.trim_end().to_string())
    }
}

//! `update_plan` action `revise`: one model call rewrites the whole plan from a free-text
//! change request. The answer must parse as a plan document; otherwise the old plan stays.

use super::PlanDocument;
use super::document::{self, FORMAT_GUIDE};
use crate::client::{ModelClient, ModelRequest, ResponseEvent};
use crate::history::{ResponseItem, Role};
use cairn_protocol::Plan;
use futures::StreamExt;

/// Why a revision was not applied. The old plan is unchanged in every case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReviseError {
    /// The model call failed.
    #[error("the model call failed: {0}")]
    Model(String),
    /// The answer is not a plan document.
    #[error("the revised plan did not parse: {0}")]
    Parse(String),
    /// The answer parsed but is not a consistent plan.
    #[error("the revised plan is not valid: {0}")]
    Invalid(String),
}

/// The system prompt of the revising call.
pub fn instructions() -> String {
    format!(
        "You revise plan documents for a coding agent. You get the current plan document and a change request. Apply the requested change and keep everything else as it is, including step statuses, results, reasons, notes and the completion record. Renumber the steps 1, 2, 3, ... in order and update `Depends on` numbers to match. Reply with the complete revised document in the same Markdown format and nothing else: no commentary, no code fence.\n\n{FORMAT_GUIDE}"
    )
}

/// The user message of the revising call.
pub fn request_text(current: &Plan, description: &str) -> String {
    format!(
        "Change request: {description}\n\nCurrent plan document:\n\n{}",
        document::render_body(current)
    )
}

/// Ask `client` (with `model`) to revise `current` as `description` says, and return the
/// revised document: id, created and conversation kept, the rest from the model's answer.
pub async fn revise(
    client: &dyn ModelClient,
    model: &str,
    current: &PlanDocument,
    description: &str,
) -> Result<PlanDocument, ReviseError> {
    let request = ModelRequest {
        model: model.to_string(),
        instructions: instructions(),
        input: vec![ResponseItem::user(request_text(&current.plan, description))],
        tools: Vec::new(),
    };
    let answer = collect_text(client, &request).await?;
    let revised = document::parse_revision(&answer).map_err(|e| ReviseError::Parse(e.0))?;
    apply(current, revised)
}

/// The answer's text: the final assistant message(s), else the streamed deltas.
async fn collect_text(
    client: &dyn ModelClient,
    request: &ModelRequest,
) -> Result<String, ReviseError> {
    let mut stream = client
        .stream(request)
        .await
        .map_err(|e| ReviseError::Model(e.to_string()))?;
    let mut deltas = String::new();
    let mut messages = String::new();
    while let Some(event) = stream.next().await {
        match event.map_err(|e| ReviseError::Model(e.to_string()))? {
            ResponseEvent::OutputTextDelta(delta) => deltas.push_str(&delta),
            ResponseEvent::OutputItemDone(ResponseItem::Message {
                role: Role::Assistant,
                text,
            }) => messages.push_str(&text),
            ResponseEvent::Completed { .. } => {
                return Ok(if messages.is_empty() {
                    deltas
                } else {
                    messages
                });
            }
            ResponseEvent::ReasoningDelta(_) | ResponseEvent::OutputItemDone(_) => {}
        }
    }
    Err(ReviseError::Model(
        "the response ended before it was complete".to_string(),
    ))
}

/// Merge a parsed revision into `current`: identity, status and history are the store's, the
/// plan is the model's. Steps are renumbered by position; dependencies must name real steps.
pub fn apply(current: &PlanDocument, mut revised: Plan) -> Result<PlanDocument, ReviseError> {
    let count = revised.plan.len() as u32;
    for (index, step) in revised.plan.iter_mut().enumerate() {
        let number = index as u32 + 1;
        step.number = Some(number);
        if let Some(bad) = step.depends_on.iter().find(|d| **d == 0 || **d > count) {
            return Err(ReviseError::Invalid(format!(
                "step {number} depends on step {bad}, which does not exist (the plan has {count} steps)"
            )));
        }
    }
    revised.id = current.plan.id.clone();
    if revised.title.as_deref().is_none_or(|t| t.trim().is_empty()) {
        revised.title = current.plan.title.clone();
    }
    // The lifecycle status is cairn's: a revision the model wrote cannot approve or finish
    // a plan (complete_plan does that, with its completion record).
    revised.status = current.plan.status;
    Ok(PlanDocument {
        plan: revised,
        ..current.clone()
    })
}

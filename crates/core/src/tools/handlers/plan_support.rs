//! What the structured plan tools share: finding the plan a call means, saving it with its
//! one `plan_update` event, and cleaning the model's text before it is stored.

use crate::plans::{PlanDocument, PlanStoreError};
use crate::session::shared::lock;
use crate::tools::{ToolContext, ToolError};
use cairn_protocol::{EventMsg, PlanStatus};

/// Text fit to store: CRLF made LF, surrounding whitespace trimmed, empty made `None`.
pub(super) fn clean(text: Option<&str>) -> Option<String> {
    let text = text?.replace("\r\n", "\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// Tool names as a plan document can hold them: one line, no list separator. A name is a
/// word like `read_file`; anything else (newlines, commas, control characters) would change
/// the document's structure when rendered, so it is dropped or blanked here.
pub(super) fn clean_tool_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    names
        .into_iter()
        .map(|name| {
            name.chars()
                .map(|c| if c.is_control() || c == ',' { ' ' } else { c })
                .collect::<String>()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|name| !name.is_empty())
        .collect()
}

/// What the model is told when it refers to the current plan and the session has none.
pub(super) const NO_PLAN: &str =
    "No plan exists for this session yet. Call create_plan first, or pass the id of a stored plan.";

/// The id `id` names, else the session's current plan's.
fn target_id(ctx: &ToolContext, id: Option<&str>) -> Result<String, ToolError> {
    match id.map(str::trim).filter(|i| !i.is_empty()) {
        Some(id) => Ok(id.to_string()),
        None => lock(&ctx.shared.current_plan)
            .clone()
            .ok_or_else(|| ToolError::RespondToModel(NO_PLAN.to_string())),
    }
}

/// A store error in words the model can act on.
fn store_error(e: PlanStoreError) -> ToolError {
    ToolError::RespondToModel(match e {
        PlanStoreError::NotFound(q) => format!(
            "No stored plan matches '{q}'. Leave out id to use this session's current plan."
        ),
        other => other.to_string(),
    })
}

/// The plan `id` names (id or unique prefix), else the session's current plan.
pub(super) fn target(ctx: &ToolContext, id: Option<&str>) -> Result<PlanDocument, ToolError> {
    let id = target_id(ctx, id)?;
    ctx.shared.plans.load(&id).map_err(store_error)
}

/// Change the plan `id` names (else the session's current plan) with `change` and save it
/// under the plan's lock ([`crate::plans::PlanStore::update`]), so a concurrent writer never
/// loses an update; then make it the current plan and emit one `plan_update`.
pub(super) fn update_and_emit<T>(
    ctx: &ToolContext,
    id: Option<&str>,
    change: impl FnOnce(&mut PlanDocument) -> Result<T, ToolError>,
) -> Result<T, ToolError> {
    let id = target_id(ctx, id)?;
    let (doc, value) = ctx
        .shared
        .plans
        .update(&id, change)
        .map_err(|e| match e {
            PlanStoreError::Io { .. } => ToolError::RespondToModel(format!(
                "Could not save plan {id}: {e}. The plan is unchanged; check that the plans directory is writable."
            )),
            other => store_error(other),
        })??;
    *lock(&ctx.shared.current_plan) = Some(doc.id().to_string());
    ctx.emit(EventMsg::PlanUpdate(doc.plan.clone()));
    Ok(value)
}

/// Mark a plan whose steps are being worked on as in progress.
pub(super) fn mark_started(doc: &mut PlanDocument) {
    if matches!(
        doc.plan.status,
        None | Some(PlanStatus::Draft) | Some(PlanStatus::Approved)
    ) {
        doc.plan.status = Some(PlanStatus::InProgress);
    }
}

/// Save `doc`, make it the session's current plan and emit one `plan_update` with the whole
/// plan.
pub(super) fn save_and_emit(ctx: &ToolContext, doc: &mut PlanDocument) -> Result<(), ToolError> {
    ctx.shared.plans.save(doc).map_err(|e| {
        ToolError::RespondToModel(format!(
            "Could not save plan {}: {e}. The plan is unchanged; check that the plans directory is writable.",
            doc.id()
        ))
    })?;
    *lock(&ctx.shared.current_plan) = Some(doc.id().to_string());
    ctx.emit(EventMsg::PlanUpdate(doc.plan.clone()));
    Ok(())
}

/// Test helpers shared by the plan tool tests.
#[cfg(test)]
pub(super) mod testing {
    use crate::client::{ClientError, ModelClient, ModelRequest, ResponseEvent, ResponseStream};
    use crate::config::{Config, PlanningStyle, ProviderInfo};
    use crate::history::ResponseItem;
    use crate::session::EventSink;
    use crate::session::shared::SessionShared;
    use crate::tools::{ToolCall, ToolContext, ToolHandler};
    use async_trait::async_trait;
    use cairn_protocol::{Event, EventMsg, Plan};
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};
    use tokio::sync::mpsc::UnboundedReceiver;
    use tokio_util::sync::CancellationToken;

    /// A model that answers every request with `answer` and records the requests.
    pub struct FakeModel {
        pub answer: String,
        pub requests: Mutex<Vec<ModelRequest>>,
        provider: ProviderInfo,
    }

    impl FakeModel {
        pub fn new(answer: &str) -> Arc<Self> {
            let provider =
                crate::config::providers::resolve("ollama", &BTreeMap::new(), &|_| None).unwrap();
            Arc::new(Self {
                answer: answer.to_string(),
                requests: Mutex::new(Vec::new()),
                provider,
            })
        }
    }

    #[async_trait]
    impl ModelClient for FakeModel {
        async fn stream(&self, request: &ModelRequest) -> Result<ResponseStream, ClientError> {
            self.requests.lock().unwrap().push(request.clone());
            let half = self.answer.len() / 2;
            let half = (0..=half)
                .rev()
                .find(|i| self.answer.is_char_boundary(*i))
                .unwrap();
            let events = vec![
                Ok(ResponseEvent::OutputTextDelta(
                    self.answer[..half].to_string(),
                )),
                Ok(ResponseEvent::OutputTextDelta(
                    self.answer[half..].to_string(),
                )),
                Ok(ResponseEvent::OutputItemDone(ResponseItem::assistant(
                    self.answer.clone(),
                ))),
                Ok(ResponseEvent::Completed { usage: None }),
            ];
            Ok(Box::pin(futures::stream::iter(events)))
        }

        fn provider(&self) -> &ProviderInfo {
            &self.provider
        }
    }

    /// A structured-planning session in a temp dir, with `client` as its model.
    pub fn context(
        client: Option<Arc<dyn ModelClient>>,
    ) -> (tempfile::TempDir, ToolContext, UnboundedReceiver<Event>) {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::for_test(dir.path(), dir.path());
        config.planning = PlanningStyle::Structured;
        let (events, rx) = EventSink::channel();
        let ctx = ToolContext {
            sub_id: "test".into(),
            call_id: "call".into(),
            cwd: dir.path().to_path_buf(),
            events,
            cancel: CancellationToken::new(),
            shared: Arc::new(SessionShared::new(config, client, false)),
        };
        (dir, ctx, rx)
    }

    /// Run `handler` with `arguments`.
    pub async fn run(
        handler: &dyn ToolHandler,
        ctx: &ToolContext,
        arguments: serde_json::Value,
    ) -> Result<String, String> {
        let call = ToolCall {
            call_id: "call".into(),
            name: handler.spec().name,
            arguments: arguments.to_string(),
        };
        handler.handle(&call, ctx).await.map_err(|e| e.to_string())
    }

    /// The plans carried by the `plan_update` events received so far.
    pub fn plan_updates(rx: &mut UnboundedReceiver<Event>) -> Vec<Plan> {
        let mut plans = Vec::new();
        while let Ok(event) = rx.try_recv() {
            if let EventMsg::PlanUpdate(plan) = event.msg {
                plans.push(plan);
            }
        }
        plans
    }
}

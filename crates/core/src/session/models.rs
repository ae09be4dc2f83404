//! `list_models`: the models the session could switch to, for `/model`'s picker.
//!
//! The provider's server is asked in a task of its own (bounded by
//! [`crate::client::models::TIMEOUT`]), so the submission loop and a running turn never wait
//! for it. Whatever the server says, the answer also carries the models known locally, so a
//! picker always has something to offer.

use super::EventSink;
use super::shared::{SessionShared, lock};
use crate::config::NO_PROVIDER_GUIDANCE;
use cairn_protocol::{EventMsg, ModelInfo};
use std::sync::Arc;

/// Most models [`remember`] keeps.
const RECENT_MAX: usize = 10;

/// Answer `list_models` (submission `id`) once the server did, off the submission loop.
/// The answer concerns only this run of cairn, so it stays out of the session log.
pub(super) fn spawn_listing(shared: Arc<SessionShared>, events: EventSink, id: String) {
    tokio::spawn(async move {
        let msg = listing(&shared).await;
        events.unlogged().send(&id, msg);
    });
}

/// Note that the session used `model` before switching away from it.
pub(super) fn remember(shared: &SessionShared, model: String) {
    let mut recent = lock(&shared.recent_models);
    recent.retain(|m| *m != model);
    recent.insert(0, model);
    recent.truncate(RECENT_MAX);
}

async fn listing(shared: &SessionShared) -> EventMsg {
    let client = shared.model_client().await;
    // Read after the client: finding a local provider may have chosen the model.
    let current = shared.settings().model;
    let (listed, error) = match &client {
        Some(client) => match client.list_models().await {
            Ok(models) => (models, None),
            Err(err) => {
                tracing::info!(%err, "listing models failed");
                (Vec::new(), Some(err.to_string()))
            }
        },
        None => (Vec::new(), Some(NO_PROVIDER_GUIDANCE.to_string())),
    };
    let provider = client.as_ref().map(|c| c.provider().id.clone());
    // Agents that name another provider run their model there, not here.
    let agent_models: Vec<String> = shared
        .delegation
        .agents
        .iter()
        .filter(|agent| agent.provider.is_none() || agent.provider == provider)
        .filter_map(|agent| agent.model.clone())
        .collect();
    let recent = lock(&shared.recent_models).clone();
    let local = std::iter::once(current.clone())
        .chain(recent)
        .chain(std::iter::once(shared.config.model.clone()))
        .chain(agent_models)
        .map(ModelInfo::new);
    let mut models: Vec<ModelInfo> = Vec::new();
    for model in local.chain(listed) {
        if model.id.trim().is_empty() {
            continue;
        }
        match models.iter_mut().find(|m| m.id == model.id) {
            // A local model the server lists too: keep its place, take the server's details.
            Some(known) => {
                known.display_name = known.display_name.take().or(model.display_name);
                known.context_window = known.context_window.or(model.context_window);
            }
            None => models.push(model),
        }
    }
    for model in &mut models {
        model.family = Some(shared.config.family_for(&model.id).as_str().to_string());
        model.context_window = model
            .context_window
            .or_else(|| crate::compact::window::context_window(&model.id, None));
    }
    EventMsg::ModelsListed {
        current,
        models,
        error,
    }
}

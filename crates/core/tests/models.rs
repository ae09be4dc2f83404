//! `list_models` (`/model`'s picker) against the mock model: the server's list over the Chat
//! and Anthropic wire formats, and what a failed listing still offers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_core::Config;
use cairn_core::config::{AgentToml, WireApi};
use cairn_mock_model::{Gate, MockResponse, chat};
use cairn_protocol::{EventMsg, ModelInfo, Op};
use common::{Harness, Setup, start_with};

async fn start(wire: WireApi, configure: Option<fn(&mut Config)>) -> Harness {
    start_with(
        vec![MockResponse::sse(chat::text("hello"))],
        Setup {
            wire,
            configure,
            ..Setup::default()
        },
    )
    .await
}

/// Ask for the models and wait for the answer: `(current, models, error)`.
async fn list(h: &mut Harness) -> (String, Vec<ModelInfo>, Option<String>) {
    let id = h.session.submit(Op::ListModels);
    h.until(|m| matches!(m, EventMsg::ModelsListed { .. }))
        .await;
    let event = h.events.last().unwrap().clone();
    assert_eq!(event.id, id, "the answer carries the submission's id");
    match event.msg {
        EventMsg::ModelsListed {
            current,
            models,
            error,
        } => (current, models, error),
        other => panic!("not a listing: {other:?}"),
    }
}

fn ids(models: &[ModelInfo]) -> Vec<&str> {
    models.iter().map(|m| m.id.as_str()).collect()
}

#[tokio::test]
async fn chat_provider_lists_the_servers_models_after_the_current_one() {
    let mut h = start(WireApi::Chat, None).await;
    h.server
        .set_models(["qwen3-coder:30b", "llama3.2", "text-embedding-3-small"]);
    let (current, models, error) = list(&mut h).await;
    assert_eq!(error, None);
    assert_eq!(current, "test-model");
    // The embedding model is no chat model: left out.
    assert_eq!(ids(&models), ["test-model", "qwen3-coder:30b", "llama3.2"]);
    let qwen = &models[1];
    assert_eq!(qwen.family.as_deref(), Some("qwen"));
    assert_eq!(qwen.context_window, Some(262_144), "cairn's own table");
    let request = h.server.requests().pop().unwrap();
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("GET", "/v1/models")
    );
}

#[tokio::test]
async fn anthropic_provider_lists_with_its_version_header_and_display_names() {
    let mut h = start(WireApi::Anthropic, None).await;
    h.server
        .set_models(["claude-sonnet-4-5-20250929", "claude-haiku-4-5"]);
    let (_, models, error) = list(&mut h).await;
    assert_eq!(error, None);
    assert_eq!(
        ids(&models),
        [
            "test-model",
            "claude-sonnet-4-5-20250929",
            "claude-haiku-4-5"
        ]
    );
    assert_eq!(
        models[1].display_name.as_deref(),
        Some("Claude Sonnet 4 5 20250929")
    );
    assert_eq!(models[1].family.as_deref(), Some("claude"));
    let request = h.server.requests().pop().unwrap();
    assert_eq!(request.path, "/v1/models");
    assert_eq!(request.query.as_deref(), Some("limit=1000"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
}

fn with_agent_models(config: &mut Config) {
    config.model = "configured-model".into();
    for (id, model, provider) in [
        ("fast", "agent-model", None),
        ("elsewhere", "other-provider-model", Some("openai")),
    ] {
        config.multi_agent.agents.insert(
            id.into(),
            AgentToml {
                description: Some("an agent".into()),
                instructions: Some("help".into()),
                model: Some(model.into()),
                provider: provider.map(str::to_string),
                ..AgentToml::default()
            },
        );
    }
}

#[tokio::test]
async fn a_refused_key_names_what_to_check_and_still_offers_the_local_models() {
    for wire in [WireApi::Chat, WireApi::Anthropic] {
        let mut h = start(wire, Some(with_agent_models)).await;
        h.server.set_models_answer(MockResponse::error(
            401,
            r#"{"error":{"message":"invalid x-api-key"}}"#,
        ));
        h.session.submit(Op::OverrideTurnContext {
            model: Some("switched-model".into()),
            approval_policy: None,
        });
        let (current, models, error) = list(&mut h).await;
        let error = error.expect("a 401 is reported");
        assert!(
            error.contains("401") && error.contains("/v1/models") && error.contains("env_key"),
            "{wire:?}: {error}"
        );
        assert_eq!(current, "switched-model");
        // Now, then recently used, then config.toml, then this provider's agents.
        assert_eq!(
            ids(&models),
            ["switched-model", "configured-model", "agent-model"],
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn an_unreachable_server_is_named_with_the_setting_to_check() {
    fn nowhere(config: &mut Config) {
        // Port 9 (discard) has no listener on a test machine: the connection is refused.
        if let Some(provider) = &mut config.provider {
            provider.base_url = "http://127.0.0.1:9/v1".into();
        }
    }
    let mut h = start(WireApi::Chat, Some(nowhere)).await;
    let (_, models, error) = list(&mut h).await;
    let error = error.expect("an unreachable server is reported");
    assert!(
        error.contains("http://127.0.0.1:9/v1/models") && error.contains("providers.mock.base_url"),
        "{error}"
    );
    assert_eq!(ids(&models), ["test-model"]);
}

#[tokio::test]
async fn a_slow_listing_never_holds_up_a_turn() {
    let mut h = start(WireApi::Chat, None).await;
    let gate = Gate::new();
    h.server.set_models_answer(
        MockResponse::new(200)
            .with_header("content-type", "application/json")
            .chunk_gated(&gate, r#"{"data":[{"id":"late-model"}]}"#),
    );
    h.session.submit(Op::ListModels);
    let events = h.run("hi").await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{events:?}"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EventMsg::ModelsListed { .. })),
        "the listing is still waiting"
    );
    gate.open();
    h.until(|m| matches!(m, EventMsg::ModelsListed { .. }))
        .await;
    let Some(EventMsg::ModelsListed { models, error, .. }) = h.events.last().map(|e| e.msg.clone())
    else {
        unreachable!()
    };
    assert_eq!(error, None);
    assert_eq!(ids(&models), ["test-model", "late-model"]);
}

//! `/model` without a name: the picker opens loading, fills when the core lists the models,
//! filters as the user types, and switches through the same path as `/model <name>`.

use super::*;
use cairn_protocol::ModelInfo;

fn model(id: &str, family: &str, window: Option<u64>, name: Option<&str>) -> ModelInfo {
    ModelInfo {
        id: id.into(),
        display_name: name.map(str::to_string),
        context_window: window,
        family: Some(family.into()),
    }
}

fn listed(error: Option<&str>) -> EventMsg {
    EventMsg::ModelsListed {
        current: "m1".into(),
        models: vec![
            model("m1", "other", None, None),
            model("gpt-5.1", "gpt", Some(272_000), None),
            model(
                "claude-sonnet-4-5",
                "claude",
                Some(200_000),
                Some("Claude Sonnet 4.5"),
            ),
            model("qwen3-coder:30b", "qwen", Some(262_144), None),
        ],
        error: error.map(str::to_string),
    }
}

/// A configured app with the picker open and filled.
fn picker(width: u16, height: u16) -> Harness {
    let mut h = Harness::configured(width, height);
    h.submit("/model");
    h.event_id("op-1", listed(None));
    h
}

fn switched_to(model: &str) -> Op {
    Op::OverrideTurnContext {
        model: Some(model.into()),
        approval_policy: None,
    }
}

#[test]
fn slash_model_asks_the_core_and_shows_loading_until_the_list_arrives() {
    let mut h = Harness::configured(80, 16);
    h.submit("/model");
    assert_eq!(h.ops(), vec![Op::ListModels]);
    let screen = h.render();
    assert!(screen.contains("Switch model"), "{screen}");
    assert!(screen.contains("Loading models…"), "{screen}");
    h.event_id("op-1", listed(None));
    let screen = h.render();
    assert!(!screen.contains("Loading models…"), "{screen}");
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("│›") || l.contains("│  "))
        .collect();
    assert!(
        rows[0].contains("› m1") && rows[0].contains("● current"),
        "{screen}"
    );
    insta::assert_snapshot!("model_picker_80", screen);
}

#[test]
fn the_picker_fits_forty_columns() {
    let mut h = picker(40, 16);
    let screen = h.render();
    for line in screen.lines() {
        assert!(line.chars().count() <= 40, "{line}");
    }
    assert!(screen.contains("claude-sonnet-4-5"), "{screen}");
    insta::assert_snapshot!("model_picker_40", screen);
}

#[test]
fn typing_filters_and_enter_switches_like_slash_model_name() {
    let mut h = picker(80, 16);
    h.type_str("cl");
    let screen = h.render();
    assert!(screen.contains("claude-sonnet-4-5"), "{screen}");
    assert!(!screen.contains("gpt-5.1"), "{screen}");
    assert!(screen.contains("1 of 4"), "{screen}");
    h.key(KeyCode::Enter);
    assert_eq!(h.last_op(), Some(switched_to("claude-sonnet-4-5")));
    let screen = h.render();
    assert!(
        !screen.contains("Switch model"),
        "the picker closed: {screen}"
    );
    assert!(screen.contains("mock/claude-sonnet-4-5"), "{screen}");
    assert!(
        screen.contains("Model set to claude-sonnet-4-5"),
        "{screen}"
    );
    // /new keeps the choice, as it does for /model <name>.
    let config =
        cairn_core::Config::for_test(std::path::Path::new("/h"), std::path::Path::new("/w"));
    assert_eq!(h.app.new_session_config(&config).model, "claude-sonnet-4-5");
}

#[test]
fn arrows_move_the_selection() {
    let mut h = picker(80, 16);
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    h.key(KeyCode::Up);
    h.key(KeyCode::Enter);
    assert_eq!(h.last_op(), Some(switched_to("gpt-5.1")));
}

#[test]
fn esc_closes_the_picker_and_changes_nothing() {
    let mut h = picker(80, 16);
    h.key(KeyCode::Down);
    h.key(KeyCode::Esc);
    assert_eq!(h.ops(), vec![Op::ListModels]);
    let screen = h.render();
    assert!(!screen.contains("Switch model"), "{screen}");
    assert!(screen.contains("mock/m1"), "{screen}");
    // A list arriving after the picker closed opens nothing.
    h.event_id("op-1", listed(Some("late")));
    assert!(!h.render().contains("Switch model"));
}

#[test]
fn enter_on_the_current_model_closes_without_switching() {
    let mut h = picker(80, 16);
    h.key(KeyCode::Enter);
    assert_eq!(h.ops(), vec![Op::ListModels]);
    assert!(!h.render().contains("Model set to"));
}

#[test]
fn a_name_nobody_listed_is_used_as_typed() {
    let mut h = picker(80, 16);
    h.type_str("my-finetune");
    let screen = h.render();
    assert!(screen.contains("Enter: use 'my-finetune'"), "{screen}");
    assert!(screen.contains("No listed model matches."), "{screen}");
    h.key(KeyCode::Enter);
    assert_eq!(h.last_op(), Some(switched_to("my-finetune")));
    assert!(h.render().contains("mock/my-finetune"));
}

#[test]
fn a_failed_listing_shows_its_error_and_the_local_models() {
    let mut h = Harness::configured(60, 18);
    h.submit("/model");
    let error = "http://127.0.0.1:9/v1/models rejected the API key (401 Unauthorized): check that MOCK_KEY holds a valid key";
    h.event_id(
        "op-1",
        EventMsg::ModelsListed {
            current: "m1".into(),
            models: vec![
                model("m1", "other", None, None),
                model("recent-model", "other", None, None),
            ],
            error: Some(error.into()),
        },
    );
    let screen = h.render();
    assert!(
        screen.contains("│⚠ http://127.0.0.1:9/v1/models"),
        "{screen}"
    );
    assert!(screen.contains("recent-model"), "{screen}");
    assert_eq!(
        h.style_of("⚠ http").and_then(|s| s.fg),
        crate::theme::warning().fg
    );
    // The whole sentence is in the transcript, where it is not cut.
    assert!(screen.contains("check that MOCK_KEY holds"), "{screen}");
    insta::assert_snapshot!("model_picker_error_60", screen);
}

#[test]
fn slash_model_waits_for_the_running_task() {
    let mut h = Harness::configured(80, 14);
    h.submit("work");
    h.submit("/model");
    assert!(
        h.render()
            .contains("'/model' is disabled while a task is in progress."),
    );
    assert_eq!(h.ops().len(), 1);
}

//! Model families: each model is told its family's instructions and offered exactly its edit
//! dialect; `model_family` and `[tools] edit` override the choice; every family's tool list
//! is accepted by every wire format; snapshots make any change to what models see a reviewed
//! diff.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_core::client::{ModelRequest, anthropic, chat_completions, responses};
use cairn_core::config::{EditTools, ModelFamily, PlanningStyle};
use cairn_core::session::shared::Delegation;
use cairn_core::tools::{ToolRegistry, ToolSpec};
use cairn_core::{Config, SessionOptions};
use cairn_mock_model::chat::{call_response as call, text_response as text};
use cairn_mock_model::{MockResponse, MockServer};
use cairn_protocol::{EventMsg, Op};
use common::{Harness, Setup};
use serde_json::{Value, json};

const EDIT_TOOLS: [&str; 3] = ["write_file", "edit_file", "apply_patch"];

/// A model id of each family, as users write them.
fn model_of(family: ModelFamily) -> &'static str {
    match family {
        ModelFamily::Gpt => "gpt-5.1-codex",
        ModelFamily::Claude => "claude-sonnet-4-5",
        ModelFamily::Gemini => "gemini-2.5-pro",
        ModelFamily::Qwen => "qwen3-coder:30b",
        ModelFamily::Other => "llama3.1:8b",
    }
}

async fn start_model(responses: Vec<MockResponse>, change: impl FnOnce(&mut Config)) -> Harness {
    let server = MockServer::start(responses).await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let cwd = work.path().canonicalize().unwrap();
    let mut config = common::config_for(&server, home.path(), &cwd, &Setup::default());
    change(&mut config);
    let session = cairn_core::spawn(config, SessionOptions { interactive: true });
    Harness {
        session,
        server,
        home,
        work,
        events: Vec::new(),
    }
}

fn system_text(h: &Harness, index: usize) -> String {
    h.server.requests()[index].json()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

fn edit_tools_offered(h: &Harness, index: usize) -> Vec<String> {
    h.offered_tools(index)
        .into_iter()
        .filter(|t| EDIT_TOOLS.contains(&t.as_str()))
        .collect()
}

#[tokio::test]
async fn each_family_gets_its_instructions_and_exactly_its_edit_tools() {
    for family in ModelFamily::ALL {
        let mut h = start_model(vec![text("hi")], |c| c.model = model_of(family).into()).await;
        h.run("hi").await;
        let body = h.server.requests()[0].json();
        assert_eq!(body["model"], model_of(family));
        let system = system_text(&h, 0);
        let own = cairn_core::prompt::family_instructions(family);
        assert!(system.contains(own.trim()), "{family}: own file missing");
        for other in ModelFamily::ALL.into_iter().filter(|f| *f != family) {
            let theirs = cairn_core::prompt::family_instructions(other);
            assert!(
                !system.contains(theirs.trim()),
                "{family} got {other}'s file"
            );
        }
        let expected: Vec<&str> = if family == ModelFamily::Gpt {
            vec!["apply_patch"]
        } else {
            vec!["write_file", "edit_file"]
        };
        assert_eq!(edit_tools_offered(&h, 0), expected, "{family}");
        // The instructions talk about the edit tools the model has, not the others.
        assert_eq!(
            system.contains("# Editing files with apply_patch"),
            family == ModelFamily::Gpt
        );
        assert_eq!(
            system.contains("# Editing files with edit_file and write_file"),
            family != ModelFamily::Gpt
        );
        h.server.assert_no_violations();
    }
}

#[tokio::test]
async fn model_family_overrides_the_pattern() {
    let mut h = start_model(vec![text("hi")], |c| {
        c.model = "gpt-5.1".into();
        c.model_family = Some(ModelFamily::Claude);
    })
    .await;
    h.run("hi").await;
    let system = system_text(&h, 0);
    assert!(system.contains(cairn_core::prompt::family_instructions(ModelFamily::Claude).trim()));
    assert_eq!(edit_tools_offered(&h, 0), ["write_file", "edit_file"]);

    let mut h = start_model(vec![text("hi")], |c| {
        c.model = "my-finetune".into();
        c.model_family = Some(ModelFamily::Gpt);
    })
    .await;
    h.run("hi").await;
    assert!(
        system_text(&h, 0)
            .contains(cairn_core::prompt::family_instructions(ModelFamily::Gpt).trim())
    );
    assert_eq!(edit_tools_offered(&h, 0), ["apply_patch"]);
}

#[tokio::test]
async fn tools_edit_overrides_the_family_dialect() {
    for (edit, model, expected) in [
        (
            EditTools::ApplyPatch,
            "claude-opus-4-1",
            vec!["apply_patch"],
        ),
        (
            EditTools::EditFile,
            "gpt-5.1",
            vec!["write_file", "edit_file"],
        ),
        (
            EditTools::Both,
            "qwen2.5-coder",
            vec!["write_file", "edit_file", "apply_patch"],
        ),
        (EditTools::Auto, "gpt-5.1", vec!["apply_patch"]),
    ] {
        let mut h = start_model(vec![text("hi")], |c| {
            c.model = model.into();
            c.edit_tools = edit;
        })
        .await;
        h.run("hi").await;
        assert_eq!(edit_tools_offered(&h, 0), expected, "{edit:?} {model}");
        let system = system_text(&h, 0);
        assert_eq!(
            system.contains("# Editing files with apply_patch"),
            expected.contains(&"apply_patch"),
            "{edit:?} {model}"
        );
        assert_eq!(
            system.contains("# Editing files with edit_file"),
            expected.contains(&"edit_file"),
            "{edit:?} {model}"
        );
    }
}

#[tokio::test]
async fn a_model_switch_changes_family_from_the_next_message() {
    let mut h = start_model(vec![text("one"), text("two")], |c| {
        c.model = "gpt-5.1".into();
    })
    .await;
    h.run("first").await;
    h.session.submit(Op::OverrideTurnContext {
        model: Some("claude-sonnet-4-5".into()),
        approval_policy: None,
    });
    h.run("second").await;
    assert_eq!(edit_tools_offered(&h, 0), ["apply_patch"]);
    assert_eq!(edit_tools_offered(&h, 1), ["write_file", "edit_file"]);
    assert_eq!(h.server.requests()[1].json()["model"], "claude-sonnet-4-5");
}

#[tokio::test]
async fn plan_mode_plan_file_is_written_with_apply_patch_for_gpt() {
    let mut h = start_model(vec![], |c| c.model = "gpt-5.1".into()).await;
    h.session.submit(Op::SetPlanMode { active: true });
    let events = h
        .until(|e| matches!(e, EventMsg::PlanModeEntered { .. } | EventMsg::Error { .. }))
        .await;
    let Some(EventMsg::PlanModeEntered {
        plan_file_path: plan,
    }) = events.last()
    else {
        panic!("expected plan_mode_entered, got {events:?}");
    };
    let plan = plan.clone();
    let cwd = h.cwd();
    let add = format!(
        "*** Begin Patch\n*** Add File: {}\n+# Plan\n+1. Do it\n*** End Patch\n",
        plan.display()
    );
    let update = format!(
        "*** Begin Patch\n*** Update File: {}\n@@\n # Plan\n-1. Do it\n+1. Do it well\n*** End Patch\n",
        plan.display()
    );
    let escape = format!(
        "*** Begin Patch\n*** Add File: {}\n+# Plan\n*** Add File: {}\n+oops\n*** End Patch\n",
        plan.display(),
        cwd.join("src.rs").display()
    );
    h.server
        .push(call("p1", "apply_patch", json!({"input": add})));
    h.server
        .push(call("p2", "apply_patch", json!({"input": escape})));
    h.server
        .push(call("p3", "apply_patch", json!({"input": update})));
    h.server.push(text("planned"));
    h.run("plan it").await;

    // Offered in plan mode: apply_patch (the gpt dialect), not write_file or edit_file.
    let tools = h.offered_tools(0);
    assert!(tools.contains(&"apply_patch".to_string()), "{tools:?}");
    assert!(!tools.contains(&"write_file".to_string()), "{tools:?}");
    assert!(!tools.contains(&"shell".to_string()), "{tools:?}");
    let reminder = h.server.requests()[0].json().to_string();
    assert!(
        reminder.contains("create it with apply_patch"),
        "{reminder}"
    );

    assert!(h.tool_output(1, "p1").starts_with("Success."));
    let refused = h.tool_output(2, "p2");
    assert!(
        refused.contains("may only write the plan file"),
        "{refused}"
    );
    assert!(!cwd.join("src.rs").exists());
    assert!(h.tool_output(3, "p3").starts_with("Success."));
    assert_eq!(
        std::fs::read_to_string(&plan).unwrap(),
        "# Plan\n1. Do it well\n"
    );
    // Writing the plan file needs no approval, in plan mode as with write_file.
    assert!(
        !h.events
            .iter()
            .any(|e| matches!(e.msg, EventMsg::PatchApprovalRequest { .. }))
    );
}

/// Every tool a session of `family` is offered, delegation and both planning styles included.
fn family_tools(family: ModelFamily, planning: PlanningStyle) -> Vec<ToolSpec> {
    let home = tempfile::tempdir().unwrap();
    let mut config = Config::for_test(home.path(), home.path());
    config.model = model_of(family).into();
    config.planning = planning;
    let registry = ToolRegistry::for_session(&config, &Delegation::root(&config));
    registry.offered_specs(family).cloned().collect()
}

/// The rules every provider's function-calling schemas share, checked on what each wire format
/// actually sends: an object at the root, no combinators there (Anthropic and Gemini refuse
/// them), every array with `items` (Gemini refuses arrays without), a type and a description
/// on every property.
fn check_wire_schema(format: &str, tool: &str, schema: &Value) {
    let at = format!("{format} {tool}");
    assert_eq!(schema["type"], "object", "{at}: root must be an object");
    for key in ["anyOf", "oneOf", "allOf", "not", "$ref", "if"] {
        assert!(schema.get(key).is_none(), "{at}: `{key}` at the root");
    }
    assert!(schema["properties"].is_object(), "{at}: no properties");
    check_node(&at, schema, true);
}

fn check_node(at: &str, node: &Value, root: bool) {
    if node.get("$ref").is_some() {
        panic!("{at}: $ref is not portable");
    }
    if node["type"] == "array" {
        assert!(node["items"].is_object(), "{at}: array without items");
        check_node(&format!("{at}[]"), &node["items"], false);
    }
    if let Some(props) = node["properties"].as_object() {
        for (name, prop) in props {
            let here = format!("{at}.{name}");
            assert!(prop["type"].is_string(), "{here}: no type");
            // Every argument the model fills in is described; nested fields of the spec'd plan
            // schemas are described by their parent.
            if root {
                assert!(prop["description"].is_string(), "{here}: no description");
            }
            check_node(&here, prop, false);
        }
    }
}

#[test]
fn every_family_tool_list_is_accepted_by_every_wire_format() {
    for family in ModelFamily::ALL {
        for planning in [PlanningStyle::Checklist, PlanningStyle::Structured] {
            let tools = family_tools(family, planning);
            assert!(
                tools.iter().any(|t| t.name == "delegate_agent"),
                "delegate_agent missing"
            );
            let request = ModelRequest {
                model: model_of(family).into(),
                instructions: "sys".into(),
                input: Vec::new(),
                tools: tools.clone(),
            };
            let chat = chat_completions::request_body(&request);
            for t in chat["tools"].as_array().unwrap() {
                assert_eq!(t["type"], "function");
                check_wire_schema(
                    "chat",
                    t["function"]["name"].as_str().unwrap(),
                    &t["function"]["parameters"],
                );
            }
            let resp = responses::request_body(&request, None);
            for t in resp["tools"].as_array().unwrap() {
                check_wire_schema("responses", t["name"].as_str().unwrap(), &t["parameters"]);
            }
            let anth = anthropic::request_body(&request, 4096, None);
            for t in anth["tools"].as_array().unwrap() {
                check_wire_schema("anthropic", t["name"].as_str().unwrap(), &t["input_schema"]);
            }
            assert_eq!(chat["tools"].as_array().unwrap().len(), tools.len());
        }
    }
}

#[test]
fn every_tool_description_says_when_to_use_it_and_what_it_returns() {
    for family in ModelFamily::ALL {
        for planning in [PlanningStyle::Checklist, PlanningStyle::Structured] {
            for tool in family_tools(family, planning) {
                let d = &tool.description;
                assert!(d.len() > 150, "{}: description too short", tool.name);
                assert!(
                    d.contains("Return") || d.contains("return"),
                    "{}: does not say what it returns",
                    tool.name
                );
            }
        }
    }
}

/// What a model of `family` sees: its instructions (without the environment and AGENTS.md)
/// and its tools, in the order and shape they are sent.
fn seen_by(family: ModelFamily, planning: PlanningStyle) -> (String, String) {
    let tools = family_tools(family, planning);
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let instructions = cairn_core::prompt::instructions(planning, family, &names);
    let listing: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description, "parameters": t.parameters}))
        .collect();
    (
        instructions,
        serde_json::to_string_pretty(&listing).unwrap(),
    )
}

#[test]
fn snapshots_of_what_each_family_sees() {
    // The delegate_agent description lists the built-in agents; the snapshot pins them too.
    for family in ModelFamily::ALL {
        let (instructions, tools) = seen_by(family, PlanningStyle::Checklist);
        insta::assert_snapshot!(format!("{family}_instructions"), instructions);
        insta::assert_snapshot!(format!("{family}_tools"), tools);
    }
    let (instructions, tools) = seen_by(ModelFamily::Claude, PlanningStyle::Structured);
    insta::assert_snapshot!("claude_structured_instructions", instructions);
    insta::assert_snapshot!("claude_structured_tools", tools);
}

#[test]
fn family_files_stay_under_about_1500_words() {
    for family in ModelFamily::ALL {
        let words = cairn_core::prompt::family_instructions(family)
            .split_whitespace()
            .count();
        assert!(words <= 1500, "{family}: {words} words");
    }
}

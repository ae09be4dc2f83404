//! Plan mode against a scripted model: nothing but the plan file can change before the user
//! approves, whatever route the model tries.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_mock_model::chat::{call_response as call, text_response as text};
use cairn_mock_model::{MockResponse, chat};
use cairn_protocol::{EventMsg, Op};
use common::{Harness, count, start};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const REFUSAL_TAIL: &str =
    "is not allowed in plan mode. Only read-only tools and the plan file can be used.";

/// Every file under `dir` with its bytes (symlinks as their target).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(path, target.to_string_lossy().as_bytes().to_vec());
            } else if meta.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn seed_workspace(cwd: &Path) {
    std::fs::create_dir_all(cwd.join("src")).unwrap();
    std::fs::write(cwd.join("src/lib.rs"), "pub fn answer() -> u32 { 42 }\n").unwrap();
    std::fs::write(cwd.join("README.md"), "# demo\n").unwrap();
}

#[tokio::test]
async fn plan_mode_offers_only_allowed_tools_and_reminds_every_request() {
    let mut h = start(vec![
        call("c1", "read_file", json!({"path": "README.md"})),
        text("ok"),
    ])
    .await;
    seed_workspace(&h.cwd());
    let plan = h.enter_plan_mode().await;
    h.run("plan something").await;
    for index in 0..2 {
        let mut tools = h.offered_tools(index);
        tools.sort();
        for tool in &tools {
            assert!(
                cairn_core::plan_mode::filter::ALLOWED_TOOLS.contains(&tool.as_str()),
                "{tool} offered in plan mode"
            );
        }
        for needed in ["exit_plan_mode", "read_file", "write_file", "edit_file"] {
            assert!(
                tools.contains(&needed.to_string()),
                "{needed} missing: {tools:?}"
            );
        }
        let body = h.server.requests()[index].json().to_string();
        assert!(
            body.contains("Plan mode is active"),
            "request {index} lacks the reminder"
        );
        assert!(body.contains(&plan.display().to_string()));
    }
}

#[tokio::test]
async fn every_write_route_is_refused_and_the_workspace_is_unchanged() {
    let mut h = start(vec![]).await;
    let cwd = h.cwd();
    seed_workspace(&cwd);
    let plan = h.enter_plan_mode().await;
    let plan_name = plan.file_name().unwrap().to_str().unwrap().to_string();
    let plans_dir = plan.parent().unwrap().to_path_buf();
    // Routes that need file-system set-up beforehand.
    std::fs::create_dir_all(cwd.join("plans")).unwrap();
    std::os::unix::fs::symlink(&plans_dir, cwd.join("plans-link")).unwrap();

    let src = cwd.join("src/lib.rs").display().to_string();
    let routes: Vec<(&str, Value)> = vec![
        (
            "write_file",
            json!({"path": "src/lib.rs", "content": "pwned"}),
        ),
        (
            "edit_file",
            json!({"path": src, "old_string": "42", "new_string": "0"}),
        ),
        (
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-pub fn answer() -> u32 { 42 }\n+pub fn answer() -> u32 { 0 }\n*** End Patch\n"}),
        ),
        ("shell", json!({"command": "echo pwned > src/lib.rs"})),
        (
            "write_file",
            json!({"path": format!("plans/{plan_name}"), "content": "same name elsewhere"}),
        ),
        (
            "write_file",
            json!({"path": format!("../{plan_name}"), "content": "dots"}),
        ),
        (
            "write_file",
            json!({"path": format!("plans-link/{plan_name}"), "content": "via symlinked parent"}),
        ),
        // Read-only agents may explore in plan mode; one that can write may not run.
        (
            "delegate_agent",
            json!({"agent_id": "general", "prompt": "write files"}),
        ),
        ("update_plan", json!({"plan": []})),
    ];
    let before = snapshot(&cwd);
    for (i, (name, args)) in routes.iter().enumerate() {
        h.server.push(call(&format!("c{i}"), name, args.clone()));
    }
    h.server.push(text("gave up"));
    // One task per route so each output is checked on its own request.
    h.session.submit(Op::UserInput {
        text: "try everything".into(),
    });
    // Routes are sequential responses within one task: request k answers call c(k-1).
    let events = h.until_task_end().await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{events:?}"
    );
    for (i, (name, _)) in routes.iter().enumerate() {
        let output = h.tool_output(i + 1, &format!("c{i}"));
        let refused = if *name == "delegate_agent" {
            output.contains("only read-only agents can be delegated")
        } else {
            output.contains(&format!("Tool '{name}' {REFUSAL_TAIL}"))
        };
        assert!(refused, "route {i} ({name}) was not refused: {output}");
    }
    assert_eq!(snapshot(&cwd), before, "the workspace changed in plan mode");
    assert!(!plan.exists(), "no route may have created the plan file");
    h.server.assert_no_violations();
}

#[tokio::test]
async fn symlinked_or_hard_linked_plan_file_is_refused() {
    let mut h = start(vec![]).await;
    let cwd = h.cwd();
    seed_workspace(&cwd);
    let plan = h.enter_plan_mode().await;
    let source = cwd.join("src/lib.rs");
    let setups: Vec<Box<dyn Fn()>> = vec![
        Box::new({
            let (s, p) = (source.clone(), plan.clone());
            move || std::os::unix::fs::symlink(&s, &p).unwrap()
        }),
        Box::new({
            let (c, p) = (cwd.clone(), plan.clone());
            move || std::os::unix::fs::symlink(c.join("missing.rs"), &p).unwrap()
        }),
        Box::new({
            let (s, p) = (source.clone(), plan.clone());
            move || std::fs::hard_link(&s, &p).unwrap()
        }),
    ];
    for (i, setup) in setups.iter().enumerate() {
        setup();
        let before = snapshot(&cwd);
        h.server.push(call(
            &format!("c{i}"),
            "write_file",
            json!({"path": plan, "content": "pwned"}),
        ));
        h.server.push(text("stopped"));
        h.run("write the plan").await;
        let request = h.server.requests().len() - 1;
        let output = h.tool_output(request, &format!("c{i}"));
        assert!(output.contains(REFUSAL_TAIL), "setup {i}: {output}");
        assert_eq!(snapshot(&cwd), before, "setup {i} changed the workspace");
        std::fs::remove_file(&plan).unwrap();
    }
}

#[tokio::test]
async fn exit_plan_mode_errors_outside_plan_mode_and_without_a_plan_file() {
    let mut h = start(vec![
        call("c1", "exit_plan_mode", json!({})),
        text("ok"),
        call("c2", "exit_plan_mode", json!({})),
        text("ok"),
    ])
    .await;
    h.run("exit please").await;
    assert_eq!(h.tool_output(1, "c1"), "Not in plan mode. Cannot exit.");
    let plan = h.enter_plan_mode().await;
    h.run("exit please").await;
    assert_eq!(
        h.tool_output(3, "c2"),
        format!(
            "Plan file not found at {}. Please write your plan to this file before exiting.",
            plan.display()
        )
    );
}

/// Model writes the plan and asks to exit; returns the exit request's content.
async fn write_plan_and_request_exit(h: &mut Harness, plan: &Path, id: &str) -> String {
    h.server.push(call(
        &format!("{id}w"),
        "write_file",
        json!({"path": plan, "content": "# Plan\n\n1. Change answer to 43\n"}),
    ));
    h.server
        .push(call(&format!("{id}x"), "exit_plan_mode", json!({})));
    h.session.submit(Op::UserInput {
        text: "make the change".into(),
    });
    let events = h
        .until(|e| {
            matches!(
                e,
                EventMsg::PlanModeExitRequest { .. } | EventMsg::Error { .. }
            )
        })
        .await;
    match events.last() {
        Some(EventMsg::PlanModeExitRequest {
            plan_content,
            plan_file_path,
        }) => {
            assert_eq!(plan_file_path, plan);
            plan_content.clone()
        }
        other => panic!("expected exit request, got {other:?}"),
    }
}

#[tokio::test]
async fn approval_ends_plan_mode_and_writes_work_again() {
    let mut h = start(vec![]).await;
    let cwd = h.cwd();
    seed_workspace(&cwd);
    let plan = h.enter_plan_mode().await;
    let content = write_plan_and_request_exit(&mut h, &plan, "a").await;
    assert!(content.contains("Change answer to 43"));
    h.server.push(call(
        "a_edit",
        "edit_file",
        json!({"path": "src/lib.rs", "old_string": "42", "new_string": "43"}),
    ));
    h.server.push(text("Implemented."));
    h.session.submit(Op::PlanModeApproval {
        approved: true,
        feedback: None,
    });
    let events = h.until_task_end().await;
    assert!(
        matches!(events.last(), Some(EventMsg::TaskComplete { .. })),
        "{events:?}"
    );
    assert_eq!(
        count(&events, |e| matches!(
            e,
            EventMsg::PlanModeExited {
                approved: true,
                active: false
            }
        )),
        1
    );
    let requests = h.server.requests().len();
    assert_eq!(
        h.tool_output(requests - 2, "ax"),
        "Plan approved. You can now start implementing the plan."
    );
    assert_eq!(
        std::fs::read_to_string(cwd.join("src/lib.rs")).unwrap(),
        "pub fn answer() -> u32 { 43 }\n"
    );
    // After approval the model is offered everything again.
    assert!(h.offered_tools(requests - 1).contains(&"shell".to_string()));
    h.server.assert_no_violations();
}

#[tokio::test]
async fn a_plan_edited_during_review_reaches_the_model_on_approval() {
    let mut h = start(vec![]).await;
    seed_workspace(&h.cwd());
    let plan = h.enter_plan_mode().await;
    write_plan_and_request_exit(&mut h, &plan, "e").await;
    // What `e` in Plan Review does: the user's editor rewrites the plan file.
    std::fs::write(&plan, "# Plan\n\n1. Change answer to 44\n2. Add a test\n").unwrap();
    h.server.push(text("Implementing the edited plan."));
    h.session.submit(Op::PlanModeApproval {
        approved: true,
        feedback: None,
    });
    h.until_task_end().await;
    let requests = h.server.requests().len();
    let output = h.tool_output(requests - 1, "ex");
    assert!(
        output.starts_with(
            "Plan approved. You can now start implementing the plan.\n\nThe user edited the plan before approving it."
        ),
        "{output}"
    );
    assert!(
        output.contains("-1. Change answer to 43\n+1. Change answer to 44\n+2. Add a test"),
        "{output}"
    );
    assert!(
        output.ends_with("# Plan\n\n1. Change answer to 44\n2. Add a test"),
        "{output}"
    );
}

#[tokio::test]
async fn an_unchanged_plan_gets_the_plain_approval() {
    let mut h = start(vec![]).await;
    seed_workspace(&h.cwd());
    let plan = h.enter_plan_mode().await;
    write_plan_and_request_exit(&mut h, &plan, "u").await;
    h.server.push(text("ok"));
    h.session.submit(Op::PlanModeApproval {
        approved: true,
        feedback: None,
    });
    h.until_task_end().await;
    let requests = h.server.requests().len();
    assert_eq!(
        h.tool_output(requests - 1, "ux"),
        "Plan approved. You can now start implementing the plan."
    );
}

#[tokio::test]
async fn rejection_keeps_plan_mode_and_passes_feedback() {
    let mut h = start(vec![]).await;
    let cwd = h.cwd();
    seed_workspace(&cwd);
    let plan = h.enter_plan_mode().await;
    write_plan_and_request_exit(&mut h, &plan, "r").await;
    h.server.push(call(
        "r_edit",
        "edit_file",
        json!({"path": "src/lib.rs", "old_string": "42", "new_string": "43"}),
    ));
    h.server.push(text("Refining."));
    h.session.submit(Op::PlanModeApproval {
        approved: false,
        feedback: Some("Also update the docs".into()),
    });
    h.until_task_end().await;
    let requests = h.server.requests().len();
    assert_eq!(
        h.tool_output(requests - 2, "rx"),
        "Plan rejected. Please continue refining the plan.\n\nUser feedback: Also update the docs"
    );
    let sent_back = h.events.iter().any(|e| {
        matches!(&e.msg, EventMsg::ToolCallEnd { call_id, success: true, .. } if call_id == "rx")
    });
    assert!(
        sent_back,
        "a sent-back plan is an answer, not a failed call"
    );
    assert!(
        h.events.iter().any(|e| e.msg
            == EventMsg::PlanModeExited {
                approved: false,
                active: true
            }),
        "a client can tell a sent-back plan (still planning) from leaving plan mode"
    );
    let refused = h.tool_output(requests - 1, "r_edit");
    assert!(refused.contains(REFUSAL_TAIL), "{refused}");
    assert_eq!(
        std::fs::read_to_string(cwd.join("src/lib.rs")).unwrap(),
        "pub fn answer() -> u32 { 42 }\n"
    );
}

#[tokio::test]
async fn re_entry_names_the_previous_plan_once() {
    let mut h = start(vec![]).await;
    seed_workspace(&h.cwd());
    let first = h.enter_plan_mode().await;
    write_plan_and_request_exit(&mut h, &first, "p").await;
    h.server.push(text("Done."));
    h.session.submit(Op::PlanModeApproval {
        approved: true,
        feedback: None,
    });
    h.until_task_end().await;

    let second = h.enter_plan_mode().await;
    assert_ne!(first, second);
    h.server.push(text("Looking."));
    h.server.push(text("Still looking."));
    h.run("next change").await;
    h.run("and another").await;
    let last = h.server.requests().last().unwrap().json().to_string();
    let reminder = format!("The previous approved plan is at {}", first.display());
    assert_eq!(
        last.matches(&reminder).count(),
        1,
        "reminder must appear exactly once"
    );
}

#[tokio::test]
async fn plan_mode_cannot_be_toggled_during_a_task() {
    let mut h = start(vec![
        MockResponse::sse(chat::text("slow answer"))
            .with_chunk_delay(std::time::Duration::from_millis(100)),
    ])
    .await;
    h.session.submit(Op::UserInput { text: "hi".into() });
    h.until(|e| matches!(e, EventMsg::TaskStarted)).await;
    h.session.submit(Op::SetPlanMode { active: true });
    let events = h.until(|e| matches!(e, EventMsg::Error { .. })).await;
    let Some(EventMsg::Error { message }) = events.last() else {
        unreachable!()
    };
    assert_eq!(message, "'/plan' is disabled while a task is in progress.");
}

#[tokio::test]
async fn two_exit_calls_in_one_response_ask_once_and_reject_nothing() {
    let mut h = start(vec![]).await;
    seed_workspace(&h.cwd());
    let plan = h.enter_plan_mode().await;
    std::fs::write(&plan, "# Plan\n").unwrap();
    h.server.push(MockResponse::sse(chat::tool_calls(&[
        ("x1", "exit_plan_mode", json!({})),
        ("x2", "exit_plan_mode", json!({})),
    ])));
    h.server.push(text("Implementing."));
    h.session.submit(Op::UserInput {
        text: "done planning".into(),
    });
    h.until(|e| matches!(e, EventMsg::PlanModeExitRequest { .. }))
        .await;
    h.session.submit(Op::PlanModeApproval {
        approved: true,
        feedback: None,
    });
    let events = h.until_task_end().await;
    assert_eq!(
        count(&events, |e| matches!(
            e,
            EventMsg::PlanModeExitRequest { .. }
        )),
        0
    );
    assert_eq!(
        h.tool_output(1, "x1"),
        "Plan approved. You can now start implementing the plan."
    );
    assert_eq!(h.tool_output(1, "x2"), "Not in plan mode. Cannot exit.");
    h.server.assert_no_violations();
}

use super::super::create_plan::CreatePlanHandler;
use super::super::plan_support::testing::{FakeModel, context, plan_updates, run};
use super::*;
use crate::client::ModelClient;
use crate::history::ResponseItem;
use crate::session::shared::{SessionShared, lock};
use crate::tools::ToolContext;
use cairn_protocol::{Event, PlanStatus};
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedReceiver;

const UPDATE: StructuredUpdatePlanHandler = StructuredUpdatePlanHandler;

/// A session with a three-step plan (step 2 depends on 1, step 3 on 2); events drained.
async fn with_plan(
    client: Option<Arc<dyn ModelClient>>,
) -> (
    tempfile::TempDir,
    ToolContext,
    UnboundedReceiver<Event>,
    String,
) {
    let (dir, ctx, mut rx) = context(client);
    run(
        &CreatePlanHandler,
        &ctx,
        json!({"goal": "Fix the bug", "steps": [
            {"step_number": 1, "description": "Reproduce"},
            {"step_number": 2, "description": "Fix", "depends_on": [1]},
            {"step_number": 3, "description": "Test", "depends_on": [2], "is_verification": true}
        ]}),
    )
    .await
    .unwrap();
    plan_updates(&mut rx);
    let id = lock(&ctx.shared.current_plan).clone().unwrap();
    (dir, ctx, rx, id)
}

async fn update(ctx: &ToolContext, args: Value) -> Result<String, String> {
    run(&UPDATE, ctx, args).await
}

/// The one plan_update since the last call, checked against the stored document.
fn one_update(ctx: &ToolContext, rx: &mut UnboundedReceiver<Event>, id: &str) -> Plan {
    let mut updates = plan_updates(rx);
    assert_eq!(updates.len(), 1, "exactly one plan_update per change");
    let plan = updates.remove(0);
    assert_eq!(plan.id.as_deref(), Some(id));
    assert!(plan.title.is_some() && plan.status.is_some());
    assert_eq!(
        ctx.shared.plans.load(id).unwrap().plan,
        plan,
        "event = stored"
    );
    plan
}

#[tokio::test]
async fn step_actions_answer_the_spec_texts_and_store_the_state() {
    let (_dir, ctx, mut rx, id) = with_plan(None).await;
    let cases = [
        (
            json!({"action": "start_step", "step_number": 1}),
            "**Step 1**: Started",
            PlanStepStatus::InProgress,
        ),
        (
            json!({"action": "complete_step", "step_number": 1, "result": "Fails on empty input"}),
            "**Step 1**: Completed\nResult: Fails on empty input",
            PlanStepStatus::Completed,
        ),
        (
            json!({"action": "fail_step", "step_number": 2, "reason": "Borrow checker"}),
            "**Step 2**: Failed\nReason: Borrow checker",
            PlanStepStatus::Failed,
        ),
        (
            json!({"action": "skip_step", "step_number": 3, "reason": "Covered by CI"}),
            "**Step 3**: Skipped\nReason: Covered by CI",
            PlanStepStatus::Skipped,
        ),
    ];
    for (args, text, status) in cases {
        let n = args["step_number"].as_u64().unwrap() as usize;
        assert_eq!(update(&ctx, args).await.unwrap(), text);
        let plan = one_update(&ctx, &mut rx, &id);
        assert_eq!(plan.plan[n - 1].status, status);
        assert_eq!(plan.status, Some(PlanStatus::InProgress));
    }
    let plan = ctx.shared.plans.load(&id).unwrap().plan;
    assert_eq!(plan.plan[0].result.as_deref(), Some("Fails on empty input"));
    assert_eq!(plan.plan[1].reason.as_deref(), Some("Borrow checker"));
    assert_eq!(plan.plan[2].reason.as_deref(), Some("Covered by CI"));
}

#[tokio::test]
async fn defaults_when_result_or_reason_is_missing() {
    let (_dir, ctx, _rx, _id) = with_plan(None).await;
    assert_eq!(
        update(&ctx, json!({"action": "complete_step", "step_number": 1}))
            .await
            .unwrap(),
        "**Step 1**: Completed\nResult: Completed successfully"
    );
    assert_eq!(
        update(&ctx, json!({"action": "fail_step", "step_number": 2}))
            .await
            .unwrap(),
        "**Step 2**: Failed\nReason: Unknown reason"
    );
    assert_eq!(
        update(&ctx, json!({"action": "skip_step", "step_number": 3}))
            .await
            .unwrap(),
        "**Step 3**: Skipped\nReason: No longer needed"
    );
}

#[tokio::test]
async fn note_is_recorded() {
    let (_dir, ctx, mut rx, id) = with_plan(None).await;
    assert_eq!(
        update(
            &ctx,
            json!({"action": "note", "note": "The bug is in the lexer"})
        )
        .await
        .unwrap(),
        "**Note**: The bug is in the lexer"
    );
    assert_eq!(
        one_update(&ctx, &mut rx, &id).notes,
        ["The bug is in the lexer"]
    );
}

#[tokio::test]
async fn add_step_after_a_step_renumbers_and_moves_dependencies() {
    let (_dir, ctx, mut rx, id) = with_plan(None).await;
    assert_eq!(
        update(&ctx, json!({"action": "add_step", "new_step": {"description": "Write a failing test", "after_step": 1}})).await.unwrap(),
        "**New Step Added** (after step 1):\n  Write a failing test"
    );
    let plan = one_update(&ctx, &mut rx, &id);
    let steps: Vec<(Option<u32>, &str, Vec<u32>)> = plan
        .plan
        .iter()
        .map(|s| (s.number, s.step.as_str(), s.depends_on.clone()))
        .collect();
    assert_eq!(
        steps,
        [
            (Some(1), "Reproduce", vec![]),
            (Some(2), "Write a failing test", vec![]),
            (Some(3), "Fix", vec![1]),
            (Some(4), "Test", vec![3]),
        ]
    );
    assert!(plan.plan[3].is_verification);

    assert_eq!(
        update(
            &ctx,
            json!({"action": "add_step", "new_step": {"description": "Announce"}})
        )
        .await
        .unwrap(),
        "**New Step Added** (after step 4):\n  Announce"
    );
    assert_eq!(one_update(&ctx, &mut rx, &id).plan[4].number, Some(5));
    assert_eq!(
        update(&ctx, json!({"action": "add_step", "new_step": {"description": "Read the issue", "after_step": 0}})).await.unwrap(),
        "**New Step Added** (after step 0):\n  Read the issue"
    );
    let plan = one_update(&ctx, &mut rx, &id);
    assert_eq!(plan.plan[0].step, "Read the issue");
    assert_eq!(
        plan.plan[3].depends_on,
        [2],
        "Fix still depends on Reproduce"
    );
}

#[tokio::test]
async fn bad_calls_are_explained_and_change_nothing() {
    let (_dir, ctx, mut rx, id) = with_plan(None).await;
    let before = ctx.shared.plans.load(&id).unwrap();
    let cases = [
        (
            json!({"action": "finish_step", "step_number": 1}),
            "Unknown action: finish_step. Use one of: start_step, complete_step, fail_step, skip_step, add_step, note, revise.",
        ),
        (
            json!({"action": "complete_step"}),
            "Failed to update plan: step_number is required for complete_step.",
        ),
        (
            json!({"action": "start_step", "step_number": 4}),
            "Failed to update plan: step 4 does not exist; the plan has 3 steps (1-3).",
        ),
        (
            json!({"action": "fail_step", "step_number": 0}),
            "Failed to update plan: step 0 does not exist; the plan has 3 steps (1-3).",
        ),
        (
            json!({"action": "add_step"}),
            "Failed to update plan: new_step is required for add_step ({\"description\": ..., \"after_step\": N}).",
        ),
        (
            json!({"action": "add_step", "new_step": {"after_step": 1}}),
            "Failed to update plan: new_step.description is required for add_step.",
        ),
        (
            json!({"action": "add_step", "new_step": {"description": "x", "after_step": 9}}),
            "Failed to update plan: after_step 9 does not exist; use 0 to insert first, or 1-3.",
        ),
        (
            json!({"action": "note"}),
            "Failed to update plan: note is required for the note action.",
        ),
        (
            json!({"action": "revise"}),
            "Failed to update plan: description is required for revise (say what to change in the plan).",
        ),
        (
            json!({"action": "note", "note": "n", "id": "plan-zzzz"}),
            "No stored plan matches 'plan-zzzz'. Leave out id to use this session's current plan.",
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(update(&ctx, args).await.unwrap_err(), expected);
    }
    let missing = update(&ctx, json!({"step_number": 1})).await.unwrap_err();
    assert!(
        missing.starts_with("failed to parse function arguments: missing field `action`"),
        "{missing}"
    );
    let missing = update(&ctx, json!({"step_number": 1})).await.unwrap_err();
    assert!(
        missing.starts_with("failed to parse function arguments: missing field `action`"),
        "{missing}"
    );
    assert!(plan_updates(&mut rx).is_empty());
    assert_eq!(ctx.shared.plans.load(&id).unwrap(), before);
}

#[tokio::test]
async fn without_a_plan_the_model_is_told_to_create_one_and_an_id_works() {
    let (_dir, earlier, _rx, id) = with_plan(None).await;
    // A later session on the same $CAIRN_HOME has no current plan.
    let ctx = ToolContext {
        shared: Arc::new(SessionShared::new(
            earlier.shared.config.clone(),
            None,
            false,
        )),
        ..earlier.clone()
    };
    assert_eq!(
        update(&ctx, json!({"action": "start_step", "step_number": 1}))
            .await
            .unwrap_err(),
        "No plan exists for this session yet. Call create_plan first, or pass the id of a stored plan."
    );
    // Addressed by an id prefix (without `plan-`), the stored plan is updated and becomes current.
    let prefix = &id["plan-".len()..id.len() - 2];
    assert_eq!(
        update(
            &ctx,
            json!({"action": "start_step", "step_number": 1, "id": prefix})
        )
        .await
        .unwrap(),
        "**Step 1**: Started"
    );
    assert_eq!(lock(&ctx.shared.current_plan).as_deref(), Some(id.as_str()));
}

const REVISED: &str = "Sure, here it is:\n\n```markdown\n# Fix the bug\n\n## Steps\n\n- [x] 1. Reproduce\n  - Result: crash on empty input\n- [ ] 2. Add a regression test\n- [ ] 3. Fix\n  - Depends on: 1, 2\n- [ ] 4. Test\n  - Depends on: 3\n  - Verification step\n```\n";

#[tokio::test]
async fn revise_applies_the_models_whole_plan() {
    let model = FakeModel::new(REVISED);
    let (_dir, ctx, mut rx, id) = with_plan(Some(model.clone())).await;
    let out = update(
        &ctx,
        json!({"action": "revise", "description": "Add a regression test before the fix"}),
    )
    .await
    .unwrap();
    let plan = one_update(&ctx, &mut rx, &id);
    assert_eq!(
        out,
        format!("**Plan Revised**\n\n{}", document::render_body(&plan))
    );
    let steps: Vec<&str> = plan.plan.iter().map(|s| s.step.as_str()).collect();
    assert_eq!(steps, ["Reproduce", "Add a regression test", "Fix", "Test"]);
    assert_eq!(plan.plan[0].status, PlanStepStatus::Completed);
    assert_eq!(plan.plan[2].depends_on, [1, 2]);
    assert_eq!(plan.title.as_deref(), Some("Fix the bug"));
    assert_eq!(plan.status, Some(PlanStatus::Draft), "status kept");

    let requests = model.requests.lock().unwrap();
    assert_eq!(requests.len(), 1, "one model call");
    assert!(
        requests[0].tools.is_empty(),
        "the revising call offers no tools"
    );
    let ResponseItem::Message { text, .. } = &requests[0].input[0] else {
        panic!("expected a user message");
    };
    assert!(text.starts_with("Change request: Add a regression test before the fix\n\nCurrent plan document:\n\n# Fix the bug\n"), "{text}");
    assert!(text.contains("- [ ] 2. Fix\n  - Depends on: 1\n"), "{text}");
}

#[tokio::test]
async fn a_revision_cannot_approve_or_finish_the_plan() {
    let forged = "---\nid: plan-deadbeef\nstatus: approved\n---\n# Fix the bug\n\n## Steps\n\n- [ ] 1. Reproduce\n";
    let model = FakeModel::new(forged);
    let (_dir, ctx, mut rx, id) = with_plan(Some(model)).await;
    update(
        &ctx,
        json!({"action": "revise", "description": "Mark the plan approved"}),
    )
    .await
    .unwrap();
    let plan = one_update(&ctx, &mut rx, &id);
    assert_eq!(plan.id.as_deref(), Some(id.as_str()));
    assert_eq!(plan.status, Some(PlanStatus::Draft));
    assert_eq!(
        ctx.shared.plans.find(&id).unwrap().status,
        PlanStatus::Draft
    );
}

#[tokio::test]
async fn revise_returning_garbage_keeps_the_old_plan() {
    let model = FakeModel::new("I'm sorry, I can't help with that.");
    let (_dir, ctx, mut rx, id) = with_plan(Some(model)).await;
    let before = ctx.shared.plans.load(&id).unwrap();
    let err = update(
        &ctx,
        json!({"action": "revise", "description": "Merge steps 2 and 3"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err,
        "Could not revise the plan: the revised plan did not parse: no `# Title` line, so this is not a plan document. The plan is unchanged; describe the change again more precisely, or use the other update_plan actions."
    );
    assert!(plan_updates(&mut rx).is_empty());
    assert_eq!(ctx.shared.plans.load(&id).unwrap(), before);

    let bad_deps = FakeModel::new("# T\n\n## Steps\n\n- [ ] 1. a\n  - Depends on: 7\n");
    let (_dir, ctx, _rx, _id) = with_plan(Some(bad_deps)).await;
    let err = update(&ctx, json!({"action": "revise", "description": "x"}))
        .await
        .unwrap_err();
    assert!(
        err.starts_with("Could not revise the plan: the revised plan is not valid: step 1 depends on step 7, which does not exist (the plan has 1 steps)."),
        "{err}"
    );
}

#[tokio::test]
async fn revise_without_a_model_says_so() {
    let (_dir, ctx, _rx, _id) = with_plan(None).await;
    assert_eq!(
        update(&ctx, json!({"action": "revise", "description": "x"}))
            .await
            .unwrap_err(),
        "Failed to update plan: revise needs a model, and none is configured. Use the other actions."
    );
}

#[test]
fn describe_is_the_dry_run_sentence() {
    assert_eq!(
        UPDATE.describe(r#"{"action":"start_step","step_number":2}"#),
        "Would start_step for step 2."
    );
    assert_eq!(UPDATE.describe("{"), "Would unknown for step 0.");
}

#[test]
fn structured_planning_registers_the_four_tools() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = crate::config::Config::for_test(dir.path(), dir.path());
    config.planning = crate::config::PlanningStyle::Structured;
    let registry = crate::tools::ToolRegistry::for_config(&config);
    let names: Vec<&str> = registry.names().collect();
    for name in [
        names::CREATE_PLAN,
        names::UPDATE_PLAN,
        names::COMPLETE_PLAN,
        names::READ_PLAN,
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let update = registry
        .specs()
        .find(|s| s.name == names::UPDATE_PLAN)
        .unwrap();
    assert_eq!(
        update.parameters["properties"]["action"]["enum"],
        json!([
            "start_step",
            "complete_step",
            "fail_step",
            "skip_step",
            "add_step",
            "note",
            "revise"
        ])
    );
    assert!(
        registry.runs_alone(names::CREATE_PLAN),
        "plan changes run in call order"
    );
    assert!(!registry.runs_alone(names::READ_PLAN));
}

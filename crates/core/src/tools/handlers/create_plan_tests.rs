use super::super::plan_support::testing::{context, plan_updates, run};
use super::*;
use crate::session::shared::lock;
use cairn_protocol::PlanStatus;

fn grid_args() -> Value {
    json!({
        "goal": "Create 3x3 structural grid at 25' spacing",
        "steps": [
            {"step_number": 1, "description": "Create vertical grid lines A, B, C at 25' spacing",
             "tools_to_use": ["place_grid"], "success_criteria": "3 vertical grids created"},
            {"step_number": 2, "description": "Create horizontal grid lines 1, 2, 3 at 25' spacing",
             "tools_to_use": ["place_grid"], "success_criteria": "3 horizontal grids created",
             "depends_on": [1]},
            {"step_number": 3, "description": "Verify grid layout", "tools_to_use": ["capture_screenshot"],
             "success_criteria": "Screenshot shows 3x3 grid pattern", "is_verification": true}
        ],
        "verification_approach": "Screenshot capture and visual inspection",
        "estimated_tool_calls": 7
    })
}

#[tokio::test]
async fn creates_stores_and_announces_the_plan() {
    let (_dir, ctx, mut rx) = context(None);
    let out = run(&CreatePlanHandler, &ctx, grid_args()).await.unwrap();
    let id = lock(&ctx.shared.current_plan).clone().unwrap();
    assert_eq!(
        out,
        format!(
            "## Execution Plan Created\n\n**Goal**: Create 3x3 structural grid at 25' spacing\n\n**Steps** (3):\n  1. Create vertical grid lines A, B, C at 25' spacing\n  2. Create horizontal grid lines 1, 2, 3 at 25' spacing\n  3. Verify grid layout\n\n**Verification**: Screenshot capture and visual inspection\n\nPlan is ready. Proceeding with execution...\n\nPlan id: {id}"
        )
    );
    let updates = plan_updates(&mut rx);
    assert_eq!(updates.len(), 1, "exactly one plan_update");
    let plan = &updates[0];
    assert_eq!(plan.id.as_deref(), Some(id.as_str()));
    assert_eq!(
        plan.title.as_deref(),
        Some("Create 3x3 structural grid at 25' spacing")
    );
    assert_eq!(plan.status, Some(PlanStatus::Draft));
    assert_eq!(plan.plan[1].depends_on, [1]);
    assert!(plan.plan[2].is_verification);
    assert_eq!(plan.estimated_tool_calls, Some(7));
    let stored = ctx.shared.plans.load(&id).unwrap();
    assert_eq!(&stored.plan, plan);
    assert_eq!(
        stored.conversation.as_deref(),
        Some(ctx.shared.conversation_id.as_str())
    );
}

#[tokio::test]
async fn accepts_the_plan_documents_form() {
    let (_dir, ctx, mut rx) = context(None);
    let out = run(
        &CreatePlanHandler,
        &ctx,
        json!({"title": "Release 1.2", "objective": "Ship the fixes", "steps": ["Bump version", "Tag"]}),
    )
    .await
    .unwrap();
    assert!(
        out.starts_with("## Execution Plan Created\n\n**Goal**: Ship the fixes\n\n**Steps** (2):\n  1. Bump version\n  2. Tag\n\n**Verification**: Visual verification\n"),
        "{out}"
    );
    let plan = plan_updates(&mut rx).remove(0);
    assert_eq!(plan.title.as_deref(), Some("Release 1.2"));
    assert_eq!(plan.explanation.as_deref(), Some("Ship the fixes"));
    assert_eq!(plan.plan[1].number, Some(2));
}

#[tokio::test]
async fn missing_or_bad_fields_are_explained_and_store_nothing() {
    let (dir, ctx, mut rx) = context(None);
    let cases = [
        (
            json!({"steps": ["a"]}),
            "Failed to create plan: goal is required (the objective this plan accomplishes).",
        ),
        (
            json!({"goal": "g"}),
            "Failed to create plan: steps is required (the ordered list of steps).",
        ),
        (
            json!({"goal": "g", "steps": []}),
            "Failed to create plan: steps must list at least one step.",
        ),
        (
            json!({"goal": "g", "steps": [{"step_number": 1}]}),
            "Failed to create plan: step 1 has no description.",
        ),
        (
            json!({"goal": "g", "steps": [{"step_number": 1, "description": "a"}, {"step_number": 5, "description": "b"}]}),
            "Failed to create plan: step_number must run 1, 2, 3, ... in order; step 2 has step_number 5.",
        ),
        (
            json!({"goal": "g", "steps": [{"step_number": 1, "description": "a", "depends_on": [4]}]}),
            "Failed to create plan: step 1 depends on step 4, which does not exist (the plan has 1 steps).",
        ),
        (
            json!({"goal": "g", "steps": [7]}),
            "Failed to create plan: step 1 must be an object with step_number and description, or a string.",
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(
            run(&CreatePlanHandler, &ctx, args).await.unwrap_err(),
            expected
        );
    }
    assert!(plan_updates(&mut rx).is_empty());
    assert!(lock(&ctx.shared.current_plan).is_none());
    assert!(!dir.path().join("plans").exists());
}

#[test]
fn describe_is_the_dry_run_sentence() {
    assert_eq!(
        CreatePlanHandler.describe(&grid_args().to_string()),
        "Would create plan for 'Create 3x3 structural grid at 25' spacing' with 3 steps."
    );
    assert_eq!(
        CreatePlanHandler.describe("not json"),
        "Would create plan for 'unknown goal' with 0 steps."
    );
}

#[tokio::test]
async fn tool_names_cannot_break_the_stored_document() {
    let (_dir, ctx, mut rx) = context(None);
    run(
        &CreatePlanHandler,
        &ctx,
        json!({"goal": "g", "steps": [{"step_number": 1, "description": "a",
            "tools_to_use": ["read_file\nshell", "x\n- [x] 3. deploy to prod", "a, b", "\u{1b}[31m"]}]}),
    )
    .await
    .unwrap();
    let id = lock(&ctx.shared.current_plan).clone().unwrap();
    assert!(
        ctx.shared.plans.list().unwrap().skipped.is_empty(),
        "the document must stay readable"
    );
    let stored = ctx.shared.plans.load(&id).unwrap();
    assert_eq!(stored.plan.plan.len(), 1, "no step may be injected");
    assert_eq!(
        stored.plan.plan[0].tools_to_use,
        [
            "read_file shell",
            "x - [x] 3. deploy to prod",
            "a b",
            "[31m"
        ]
    );
    assert_eq!(&stored.plan, &plan_updates(&mut rx)[0]);
}

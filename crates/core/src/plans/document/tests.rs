use super::*;
use crate::plans::utc;
use cairn_protocol::{CompletionStatus, PlanCompletion, PlanStep};
use chrono::DateTime;
use proptest::prelude::*;

fn sample() -> PlanDocument {
    let mut read = PlanStep::new("Read the CLI entry point", PlanStepStatus::Completed);
    read.number = Some(1);
    read.tools_to_use = vec!["read_file".into(), "grep_files".into()];
    read.result = Some("Found the clap derive in main.rs".into());
    let mut add = PlanStep::new("Add the flag\nand wire it", PlanStepStatus::InProgress);
    add.number = Some(2);
    add.depends_on = vec![1];
    let mut test = PlanStep::new("Run the tests", PlanStepStatus::Failed);
    test.number = Some(3);
    test.success_criteria = Some("all tests pass".into());
    test.is_verification = true;
    test.reason = Some("two snapshots changed".into());
    let mut docs = PlanStep::new("Update the docs", PlanStepStatus::Skipped);
    docs.number = Some(4);
    let mut last = PlanStep::new("Tell the user", PlanStepStatus::Pending);
    last.number = Some(5);
    PlanDocument {
        plan: Plan {
            id: Some("plan-1a2b3c4d".into()),
            title: Some("Add a --json flag".into()),
            status: Some(PlanStatus::InProgress),
            explanation: Some("Scripts want machine-readable output.".into()),
            plan: vec![read, add, test, docs, last],
            notes: vec!["No integration tests yet.".into()],
            verification_approach: Some("cargo test".into()),
            rollback_strategy: None,
            estimated_tool_calls: Some(8),
            completion: Some(PlanCompletion {
                status: CompletionStatus::PartialSuccess,
                summary: "Flag added; tests need a look.".into(),
                steps_completed: Some(1),
                steps_failed: Some(1),
                steps_skipped: Some(1),
                issues_encountered: vec!["snapshots".into()],
                recommendations: Some("Review the snapshots.".into()),
            }),
        },
        created: utc("2026-11-22 03:04:05"),
        updated: utc("2026-11-22 03:10:00"),
        conversation: Some("conv-1".into()),
    }
}

const SAMPLE_TEXT: &str = r#"---
id: plan-1a2b3c4d
title: "Add a --json flag"
status: in_progress
created: 2026-11-22T03:04:05Z
updated: 2026-11-22T03:10:00Z
conversation: conv-1
---

# Add a --json flag

Scripts want machine-readable output.

## Approach

- Verification: cargo test
- Estimated tool calls: 8

## Steps

- [x] 1. Read the CLI entry point
  - Tools: read_file, grep_files
  - Result: Found the clap derive in main.rs
- [~] 2. Add the flag
      and wire it
  - Depends on: 1
- [!] 3. Run the tests
  - Success criteria: all tests pass
  - Verification step
  - Reason: two snapshots changed
- [-] 4. Update the docs
- [ ] 5. Tell the user

## Notes

- No integration tests yet.

## Completion

- Status: partial_success
- Summary: Flag added; tests need a look.
- Steps completed: 1
- Steps failed: 1
- Steps skipped: 1
- Issue: snapshots
- Recommendations: Review the snapshots.
"#;

#[test]
fn renders_the_documented_format() {
    assert_eq!(render(&sample()), SAMPLE_TEXT);
}

#[test]
fn parses_the_documented_format() {
    assert_eq!(parse(SAMPLE_TEXT).unwrap(), sample());
}

#[test]
fn stored_document_needs_front_matter_fields() {
    let body = "# T\n\n## Steps\n\n- [ ] 1. a\n";
    assert!(parse(body).unwrap_err().0.contains("missing front matter"));
    let no_id = format!(
        "---\nstatus: draft\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\n{body}"
    );
    assert_eq!(parse(&no_id).unwrap_err().0, "front matter has no `id`");
    let bad_status = format!(
        "---\nid: p\nstatus: done\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\n{body}"
    );
    assert!(
        parse(&bad_status)
            .unwrap_err()
            .0
            .contains("unknown status 'done'")
    );
}

#[test]
fn parse_errors_name_the_line() {
    let doc = |steps: &str| {
        format!(
            "---\nid: p\nstatus: draft\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\n\n# T\n\n## Steps\n\n{steps}"
        )
    };
    assert_eq!(
        parse(&doc("- [?] 1. a\n")).unwrap_err().0,
        "line 12: unknown step marker [?]; use [ ], [~], [x], [-] or [!]"
    );
    assert!(
        parse(&doc("- [ ] 1. a\n  - Colour: red\n"))
            .unwrap_err()
            .0
            .starts_with("line 13: unknown step detail 'Colour'")
    );
    assert!(
        parse(&doc("- [ ] 1. a\nSure, here you go\n"))
            .unwrap_err()
            .0
            .starts_with("line 13: unexpected text in the Steps section")
    );
    assert!(parse(&doc("")).unwrap_err().0.contains("lists no steps"));
    assert!(
        parse(&doc("- [ ] 1. a\n  - Depends on: one\n"))
            .unwrap_err()
            .0
            .contains("Depends on must be a whole number")
    );
}

#[test]
fn an_objective_line_like_a_heading_cannot_break_the_document() {
    let mut doc = sample();
    doc.plan.explanation = Some("Intro\n## Steps\nmore".into());
    let parsed = parse(&render(&doc)).unwrap();
    assert_eq!(
        parsed.plan.explanation.as_deref(),
        Some("Intro\n ## Steps\nmore")
    );
    assert_eq!(parsed.plan.plan, doc.plan.plan);
}

#[test]
fn revision_tolerates_fences_and_chatter_but_not_garbage() {
    let text = "Here is the revised plan:\n\n```markdown\n# New title\n\nGoal.\n\n## Steps\n\n- [x] 1. a\n- [ ] b\n```\nDone.";
    let plan = parse_revision(text).unwrap();
    assert_eq!(plan.title.as_deref(), Some("New title"));
    assert_eq!(plan.plan.len(), 2);
    assert_eq!(
        plan.plan[1].number,
        Some(2),
        "missing numbers are positions"
    );
    let with_front =
        "---\nid: x\ntitle: \"T2\"\nstatus: in_progress\n---\n# T\n\n## Steps\n\n- [ ] 1. a\n";
    let plan = parse_revision(with_front).unwrap();
    assert_eq!(plan.title.as_deref(), Some("T2"));
    assert_eq!(plan.status, Some(PlanStatus::InProgress));
    assert!(
        parse_revision("I cannot do that.")
            .unwrap_err()
            .0
            .contains("not a plan document")
    );
    assert!(
        parse_revision("# Title\n\nNo steps here.")
            .unwrap_err()
            .0
            .contains("no `## Steps` section")
    );
}

fn line() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9é][a-zA-Z0-9é .,;:!?'\"()*_`#/\\[\\]-]{0,16}".prop_map(|s| s.trim_end().to_string())
}

/// Text of one to three lines, trimmed as the tools store it; inner lines may be blank,
/// indented or look like list items.
fn text() -> impl Strategy<Value = String> {
    let inner = prop_oneof![
        line(),
        Just(String::new()),
        Just("   ".to_string()),
        line().prop_map(|l| format!("  {l}")),
        line().prop_map(|l| format!("- {l}")),
        line().prop_map(|l| format!("- [x] {l}")),
    ];
    (line(), proptest::collection::vec(inner, 0..2), line()).prop_map(|(first, mid, last)| {
        if mid.is_empty() && first.len() % 2 == 0 {
            return first;
        }
        let mut lines = vec![first];
        lines.extend(mid);
        lines.push(last);
        lines.join("\n")
    })
}

fn step_status() -> impl Strategy<Value = PlanStepStatus> {
    prop_oneof![
        Just(PlanStepStatus::Pending),
        Just(PlanStepStatus::InProgress),
        Just(PlanStepStatus::Completed),
        Just(PlanStepStatus::Failed),
        Just(PlanStepStatus::Skipped),
    ]
}

fn step() -> impl Strategy<Value = PlanStep> {
    (
        text(),
        step_status(),
        1u32..500,
        proptest::collection::vec("[a-z_]{1,10}", 0..3),
        proptest::option::of(text()),
        proptest::collection::vec(0u32..50, 0..3),
        any::<bool>(),
        proptest::option::of(text()),
        proptest::option::of(text()),
    )
        .prop_map(
            |(text, status, number, tools, criteria, deps, verification, result, reason)| {
                let mut step = PlanStep::new(text, status);
                step.number = Some(number);
                step.tools_to_use = tools;
                step.success_criteria = criteria;
                step.depends_on = deps;
                step.is_verification = verification;
                step.result = result;
                step.reason = reason;
                step
            },
        )
}

fn completion() -> impl Strategy<Value = PlanCompletion> {
    (
        prop_oneof![
            Just(CompletionStatus::Success),
            Just(CompletionStatus::PartialSuccess),
            Just(CompletionStatus::Failed),
        ],
        text(),
        proptest::option::of(0u32..20),
        proptest::option::of(0u32..20),
        proptest::option::of(0u32..20),
        proptest::collection::vec(text(), 0..3),
        proptest::option::of(text()),
    )
        .prop_map(
            |(status, summary, done, failed, skipped, issues, recs)| PlanCompletion {
                status,
                summary,
                steps_completed: done,
                steps_failed: failed,
                steps_skipped: skipped,
                issues_encountered: issues,
                recommendations: recs,
            },
        )
}

fn plan_status() -> impl Strategy<Value = PlanStatus> {
    prop_oneof![
        Just(PlanStatus::Draft),
        Just(PlanStatus::Approved),
        Just(PlanStatus::InProgress),
        Just(PlanStatus::Completed),
        Just(PlanStatus::PartialSuccess),
        Just(PlanStatus::Failed),
    ]
}

fn document() -> impl Strategy<Value = PlanDocument> {
    (
        (
            "plan-[a-z0-9]{8}",
            prop_oneof![line(), text()],
            plan_status(),
            proptest::option::of(text().prop_filter("not a heading", |t| {
                !t.lines().any(|l| l.starts_with("## "))
            })),
            proptest::collection::vec(step(), 1..5),
            proptest::collection::vec(text(), 0..3),
        ),
        (
            proptest::option::of(text()),
            proptest::option::of(text()),
            proptest::option::of(0u32..100),
            proptest::option::of(completion()),
            0i64..4_000_000_000,
            0i64..4_000_000_000,
            proptest::option::of("[a-z0-9-]{1,36}"),
        ),
    )
        .prop_map(
            |(
                (id, title, status, objective, steps, notes),
                (verification, rollback, estimate, completion, created, updated, conversation),
            )| PlanDocument {
                plan: Plan {
                    id: Some(id),
                    title: Some(title),
                    status: Some(status),
                    explanation: objective,
                    plan: steps,
                    notes,
                    verification_approach: verification,
                    rollback_strategy: rollback,
                    estimated_tool_calls: estimate,
                    completion,
                },
                created: DateTime::from_timestamp(created, 0).unwrap(),
                updated: DateTime::from_timestamp(updated, 0).unwrap(),
                conversation,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn render_then_parse_round_trips(doc in document()) {
        let text = render(&doc);
        let parsed = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(parsed, doc, "document:\n{}", text);
    }

    #[test]
    fn revision_of_a_rendered_body_keeps_the_plan(doc in document()) {
        let parsed = parse_revision(&render_body(&doc.plan))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(parsed.plan, doc.plan.plan);
        prop_assert_eq!(parsed.completion, doc.plan.completion);
    }
}

use super::*;
use cairn_protocol::{PlanStep, PlanStepStatus};
use time::macros::datetime;

fn plan(title: &str) -> Plan {
    let mut first = PlanStep::new("first", PlanStepStatus::Completed);
    first.number = Some(1);
    let mut second = PlanStep::new("second", PlanStepStatus::Pending);
    second.number = Some(2);
    Plan {
        title: Some(title.into()),
        plan: vec![first, second],
        ..Plan::default()
    }
}

fn doc_with(id: &str, title: &str, updated: OffsetDateTime) -> PlanDocument {
    let mut p = plan(title);
    p.id = Some(id.into());
    p.status = Some(PlanStatus::InProgress);
    PlanDocument {
        plan: p,
        created: datetime!(2026-01-01 00:00:00 UTC),
        updated,
        conversation: None,
    }
}

#[test]
fn created_plans_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let store = PlanStore::new(dir.path().join("plans"));
    let doc = store.create(plan("Ship it"), Some("conv-1")).unwrap();
    let id = doc.id().to_string();
    assert!(id.starts_with("plan-") && id.len() == 13, "{id}");
    assert_eq!(doc.status(), PlanStatus::Draft);
    assert!(dir.path().join("plans").join(format!("{id}.md")).is_file());

    let reopened = PlanStore::new(dir.path().join("plans"));
    let loaded = reopened.load(&id).unwrap();
    assert_eq!(loaded, doc);
    assert_eq!(loaded.conversation.as_deref(), Some("conv-1"));
}

#[test]
fn save_updates_the_timestamp_and_leaves_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = PlanStore::new(dir.path().to_path_buf());
    let mut doc = doc_with("plan-aaaa0001", "A", datetime!(2026-01-01 00:00:00 UTC));
    store.write(&doc).unwrap();
    doc.plan.notes.push("noted".into());
    store.save(&mut doc).unwrap();
    assert!(doc.updated > datetime!(2026-01-01 00:00:00 UTC));
    assert_eq!(store.load("plan-aaaa0001").unwrap().plan.notes, ["noted"]);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["plan-aaaa0001.md"]);
}

#[test]
fn list_is_most_recently_updated_first_and_includes_plan_mode_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = PlanStore::new(dir.path().to_path_buf());
    store
        .write(&doc_with(
            "plan-00000001",
            "Oldest",
            datetime!(2026-01-01 10:00:00 UTC),
        ))
        .unwrap();
    store
        .write(&doc_with(
            "plan-00000002",
            "Newest",
            datetime!(2026-03-01 10:00:00 UTC),
        ))
        .unwrap();
    let plan_mode = dir.path().join("conv-9_20260201_120000.md");
    std::fs::write(
        &plan_mode,
        "# Refactor the parser\n\n- [x] a\n- [ ] b\n- [ ] c\n",
    )
    .unwrap();
    store
        .mark_plan_mode_plan(&plan_mode, PlanStatus::Approved)
        .unwrap();
    // A fixed `updated` keeps the order independent of when the test runs.
    let text = std::fs::read_to_string(&plan_mode).unwrap();
    let re_dated: String = text
        .lines()
        .map(|l| {
            if l.starts_with("updated:") {
                "updated: 2026-02-01T12:00:00Z".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&plan_mode, re_dated).unwrap();
    let file = std::fs::File::options()
        .write(true)
        .open(&plan_mode)
        .unwrap();
    file.set_modified(std::time::SystemTime::UNIX_EPOCH)
        .unwrap();

    let listing = PlanStore::new(dir.path().to_path_buf()).list();
    assert!(listing.skipped.is_empty(), "{:?}", listing.skipped);
    let ids: Vec<&str> = listing.plans.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(
        ids,
        ["plan-00000002", "conv-9_20260201_120000", "plan-00000001"]
    );
    let pm = &listing.plans[1];
    assert_eq!(pm.title, "Refactor the parser");
    assert_eq!(pm.status, PlanStatus::Approved);
    assert_eq!((pm.done, pm.total), (1, 3));
    assert_eq!(pm.kind, PlanKind::PlanMode);
    assert_eq!((listing.plans[0].done, listing.plans[0].total), (1, 2));
}

#[test]
fn corrupt_documents_are_skipped_by_name_never_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let store = PlanStore::new(dir.path().to_path_buf());
    store
        .write(&doc_with(
            "plan-00000001",
            "Good",
            datetime!(2026-01-01 10:00:00 UTC),
        ))
        .unwrap();
    std::fs::write(dir.path().join("plan-bad00000.md"), "# no front matter\n").unwrap();
    std::fs::write(dir.path().join("plan-binary00.md"), [0xff, 0xfe, 0x00]).unwrap();
    let mismatched = doc_with("plan-other000", "X", datetime!(2026-01-01 10:00:00 UTC));
    std::fs::write(
        dir.path().join("plan-mismatch.md"),
        document::render(&mismatched),
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a plan").unwrap();

    let listing = store.list();
    let ids: Vec<&str> = listing.plans.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["plan-00000001"]);
    let skipped: Vec<String> = listing.skipped.iter().map(ToString::to_string).collect();
    assert_eq!(
        skipped,
        [
            "skipped plan-bad00000.md: missing front matter (a `---` block with id, title, status, created, updated)",
            "skipped plan-binary00.md: is not valid UTF-8",
            "skipped plan-mismatch.md: its front matter id 'plan-other000' does not match the file name",
        ]
    );
    let err = store.load("plan-bad").unwrap_err();
    assert_eq!(
        err.to_string(),
        "plan-bad00000.md is corrupt: missing front matter (a `---` block with id, title, status, created, updated). Fix or delete the file in the plans directory."
    );
}

#[test]
fn find_by_prefix_with_or_without_plan_dash() {
    let dir = tempfile::tempdir().unwrap();
    let store = PlanStore::new(dir.path().to_path_buf());
    let t = datetime!(2026-01-01 10:00:00 UTC);
    store.write(&doc_with("plan-ab120000", "One", t)).unwrap();
    store.write(&doc_with("plan-ab340000", "Two", t)).unwrap();
    assert_eq!(store.find("plan-ab1").unwrap().title, "One");
    assert_eq!(store.find("ab3").unwrap().title, "Two");
    assert_eq!(
        store.find("ab").unwrap_err().to_string(),
        "'ab' matches several plans: plan-ab120000, plan-ab340000. Type more of the id."
    );
    assert_eq!(
        store.find("zz").unwrap_err().to_string(),
        "no plan matches 'zz'. Run `cairn plans list` to see the stored plans."
    );
    assert!(matches!(store.find("  "), Err(PlanStoreError::EmptyId)));
}

#[test]
fn plan_mode_plans_can_be_read_but_not_loaded_as_structured() {
    let dir = tempfile::tempdir().unwrap();
    let store = PlanStore::new(dir.path().to_path_buf());
    std::fs::write(dir.path().join("conv_20260101_000000.md"), "# P\n").unwrap();
    let (summary, text) = store.read_text("conv_").unwrap();
    assert_eq!(summary.kind, PlanKind::PlanMode);
    assert_eq!(text, "# P\n");
    assert!(matches!(
        store.load("conv_"),
        Err(PlanStoreError::NotStructured(_))
    ));
}

#[test]
fn missing_directory_lists_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let listing = PlanStore::new(dir.path().join("nope")).list();
    assert_eq!(listing, Listing::default());
}

#[test]
fn on_plan_mode_approved_marks_the_file_approved() {
    let dir = tempfile::tempdir().unwrap();
    let store = PlanStore::new(dir.path().to_path_buf());
    let path = dir.path().join("c_20260101_000000.md");
    std::fs::write(&path, "# Plan\n").unwrap();
    store.on_plan_mode_approved(&path);
    assert_eq!(store.find("c_").unwrap().status, PlanStatus::Approved);
    // A missing file is logged, not a panic.
    store.on_plan_mode_approved(&dir.path().join("gone.md"));
}

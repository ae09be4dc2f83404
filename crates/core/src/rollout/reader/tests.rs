use super::*;
use crate::rollout::{PlanModeSnapshot, StateSnapshot};
use proptest::prelude::*;

fn meta() -> SessionMeta {
    SessionMeta {
        id: "0190-abc".into(),
        cwd: "/work".into(),
        model: "m".into(),
        provider: None,
        wire_api: None,
        cairn_version: "0.1.0".into(),
        git_branch: None,
        git_head: None,
        started_at: "2026-11-23T10:00:00Z".into(),
    }
}

fn line(l: &LogLine) -> String {
    format!("{}\n", serde_json::to_string(l).unwrap())
}

/// A small session: a message, a call with its output, a call without one, a plan update and
/// a state snapshot.
fn session_text() -> String {
    let mut text = line(&LogLine::Meta(meta()));
    text += &line(&LogLine::Event {
        msg: EventMsg::UserMessage {
            text: "do it".into(),
        },
    });
    text += &line(&LogLine::Item {
        item: ResponseItem::user("do it"),
    });
    text += &line(&LogLine::Item {
        item: ResponseItem::FunctionCall {
            call_id: "c1".into(),
            name: "shell".into(),
            arguments: "{\"command\":\"ls\"}".into(),
        },
    });
    text += &line(&LogLine::Item {
        item: ResponseItem::FunctionCallOutput {
            call_id: "c1".into(),
            output: "a\nb".into(),
            success: true,
        },
    });
    text += &line(&LogLine::Event {
        msg: EventMsg::PlanUpdate(Plan::default()),
    });
    text += &line(&LogLine::State(StateSnapshot {
        plan_mode: PlanModeSnapshot {
            active: true,
            plan_file_path: Some("/p/x.md".into()),
            ..PlanModeSnapshot::default()
        },
        turns: 1,
        ..StateSnapshot::default()
    }));
    text += &line(&LogLine::Item {
        item: ResponseItem::FunctionCall {
            call_id: "c2".into(),
            name: "shell".into(),
            arguments: "{}".into(),
        },
    });
    text
}

fn read_str(text: &str) -> Result<LoadedSession, LoadError> {
    read(text.as_bytes(), Path::new("/s/x.jsonl"))
}

#[test]
fn a_whole_session_reads_back_with_its_state_and_the_orphan_call_answered() {
    let session = read_str(&session_text()).unwrap();
    assert_eq!(session.meta.unwrap().id, "0190-abc");
    assert_eq!(session.history.len(), 5);
    assert!(session.state.plan_mode.active);
    assert_eq!(session.state.turns, 1);
    assert!(session.plan.is_some());
    assert_eq!(
        session.history.last(),
        Some(&ResponseItem::FunctionCallOutput {
            call_id: "c2".into(),
            output: INTERRUPTED_OUTPUT.into(),
            success: false,
        })
    );
    assert_eq!(session.repaired.len(), 1);
    assert!(matches!(session.replay[0], EventMsg::UserMessage { .. }));
    assert!(session.warnings.is_empty());
}

#[test]
fn a_torn_last_line_and_garbage_are_skipped_with_one_warning_each_kind() {
    let mut text = session_text();
    text.insert_str(
        text.find("{\"type\":\"event\"").unwrap(),
        "not json at all\n",
    );
    text += "{\"type\":\"item\",\"item\":{\"type\":\"mess";
    let session = read_str(&text).unwrap();
    assert_eq!(
        session.warnings[0],
        "/s/x.jsonl: line 2 is not valid and was skipped"
    );
    assert_eq!(
        session.warnings[1],
        "/s/x.jsonl: 1 more unreadable lines were skipped"
    );
    assert_eq!(session.history.len(), 5);
}

#[test]
fn lines_of_a_newer_version_are_skipped_silently() {
    let mut text = session_text();
    text += "{\"type\":\"hologram\",\"x\":1}\n";
    text += "{\"type\":\"event\",\"msg\":{\"type\":\"telepathy\"}}\n";
    let session = read_str(&text).unwrap();
    assert!(session.warnings.is_empty(), "{:?}", session.warnings);
}

#[test]
fn a_file_that_is_not_a_session_is_refused() {
    assert!(matches!(
        read_str("hello\n"),
        Err(LoadError::NotASession(_))
    ));
    assert!(matches!(
        read_str(
            "{\"type\":\"item\",\"item\":{\"type\":\"message\",\"role\":\"user\",\"text\":\"x\"}}\n"
        ),
        Err(LoadError::NotASession(_))
    ));
}

#[test]
fn compaction_lines_replace_the_history() {
    let mut text = session_text();
    text += &line(&LogLine::Compacted {
        history: vec![ResponseItem::user("summary")],
    });
    let session = read_str(&text).unwrap();
    assert_eq!(session.history, vec![ResponseItem::user("summary")]);
}

proptest! {
    /// A crash can cut the file anywhere: reading it never panics, and every call in the
    /// history it gives back has an output.
    #[test]
    fn truncation_at_any_offset_never_panics_and_leaves_no_orphan(cut in 0usize..2000) {
        let text = session_text();
        let cut = cut.min(text.len());
        if let Ok(session) = read(&text.as_bytes()[..cut], Path::new("/s/x.jsonl")) {
            let calls = session.history.iter().filter(|i| matches!(i, ResponseItem::FunctionCall { .. })).count();
            let outputs = session.history.iter().filter(|i| matches!(i, ResponseItem::FunctionCallOutput { .. })).count();
            prop_assert_eq!(calls, outputs);
        }
    }
}

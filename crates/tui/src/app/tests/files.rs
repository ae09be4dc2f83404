//! `@file` completion: the popup over a real temporary workspace.

use super::*;
use cairn_core::file_search::{FileIndex, list_workspace_files};
use crossterm::event::Event as TermEvent;
use std::path::Path;
use tempfile::TempDir;

/// A small workspace: `@ma` matches `Makefile`, `src/main.rs` and `docs/manual.md`, in that
/// order; `target/` is ignored.
fn workspace() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for path in [
        "Makefile",
        "README.md",
        "src/main.rs",
        "src/lib.rs",
        "docs/manual.md",
        "docs/my notes.txt",
        "target/debug/mainframe",
    ] {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }
    std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
    dir
}

/// A configured harness whose session runs in `root`.
fn harness_in(root: &Path, width: u16, height: u16) -> Harness {
    let mut h = Harness::new(width, height);
    h.event(EventMsg::SessionConfigured(SessionConfiguredEvent {
        conversation_id: "conv-1".into(),
        model: "m1".into(),
        provider: Some("mock".into()),
        cwd: root.to_path_buf(),
        approval_policy: ApprovalPolicy::OnRequest,
        planning: "checklist".into(),
    }));
    h
}

/// Serve the file listings the app asked for as the event loop does, but synchronously.
/// Returns how many there were.
fn serve_listings(h: &mut Harness) -> usize {
    let mut served = 0;
    let requests = std::mem::take(&mut h.requests);
    for request in requests {
        let Request::ListFiles { root } = request else {
            h.requests.push(request);
            continue;
        };
        let config = cairn_core::Config::for_test(&root.join(".cairn-home"), &root);
        let index = FileIndex::new(list_workspace_files(&config, &root));
        h.app.handle_app_event(AppEvent::FilesListed {
            root,
            index: std::sync::Arc::new(index),
        });
        served += 1;
    }
    served
}

/// The popup rows: the screen lines between the transcript and the composer's rule.
fn popup_rows(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let rule = lines.iter().rposition(|l| l.starts_with('─')).unwrap();
    let first = lines[..rule]
        .iter()
        .rposition(|l| l.is_empty())
        .map_or(0, |i| i + 1);
    lines[first..rule].iter().map(|l| l.to_string()).collect()
}

fn user_inputs(h: &Harness) -> Vec<String> {
    h.ops()
        .into_iter()
        .filter_map(|op| match op {
            Op::UserInput { text } => Some(text),
            _ => None,
        })
        .collect()
}

#[test]
fn at_popup_lists_matches_best_first_and_tab_inserts_the_chosen_path() {
    let dir = workspace();
    let mut h = harness_in(dir.path(), 60, 14);
    h.type_str("look at @");
    assert!(
        h.render().contains("listing files…"),
        "until the list arrives"
    );
    assert_eq!(serve_listings(&mut h), 1, "one listing, off the loop");
    h.type_str("ma");
    assert_eq!(serve_listings(&mut h), 0, "the list is kept while typing");
    let screen = h.render();
    assert_eq!(
        popup_rows(&screen),
        ["› Makefile", "  src/main.rs", "  docs/manual.md"],
        "{screen}"
    );
    // The rows from the popup down (the header shows the temporary directory's name).
    let bottom: Vec<&str> = screen.lines().skip(8).collect();
    insta::assert_snapshot!("file_popup", bottom.join("\n"));
    h.key(KeyCode::Down);
    h.key(KeyCode::Tab);
    assert_eq!(h.app.composer_text(), "look at src/main.rs ");
    assert!(!h.render().contains("Makefile"), "the popup closed");
    // Typing goes on after the inserted path.
    h.type_str("please");
    assert_eq!(h.app.composer_text(), "look at src/main.rs please");
}

#[test]
fn matched_letters_are_highlighted() {
    let dir = workspace();
    let mut h = harness_in(dir.path(), 60, 14);
    h.type_str("@ma");
    serve_listings(&mut h);
    h.key(KeyCode::Down);
    let matched = h.style_of("ma").unwrap();
    assert!(
        matched
            .add_modifier
            .contains(ratatui::style::Modifier::UNDERLINED),
        "{matched:?}"
    );
    let rest = h.style_of("kefile").unwrap();
    assert!(
        !rest
            .add_modifier
            .contains(ratatui::style::Modifier::UNDERLINED)
    );
}

#[test]
fn enter_with_the_file_popup_open_inserts_instead_of_sending() {
    let dir = workspace();
    let mut h = harness_in(dir.path(), 60, 14);
    h.type_str("fix @li");
    serve_listings(&mut h);
    h.key(KeyCode::Enter);
    assert_eq!(h.app.composer_text(), "fix src/lib.rs ");
    assert!(user_inputs(&h).is_empty(), "nothing was sent");
    h.key(KeyCode::Enter);
    assert_eq!(user_inputs(&h), ["fix src/lib.rs "]);
}

#[test]
fn esc_closes_the_popup_and_keeps_the_text_until_the_word_is_left() {
    let dir = workspace();
    let mut h = harness_in(dir.path(), 60, 14);
    h.type_str("@ma");
    serve_listings(&mut h);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.composer_text(), "@ma");
    assert!(!h.render().contains("Makefile"));
    h.type_str("i");
    assert!(!h.render().contains("main.rs"), "stays closed in this word");
    h.type_str(" and @RE");
    assert!(
        h.render().contains("› README.md"),
        "a new @ word opens it again"
    );
    h.key(KeyCode::Esc);
    h.key(KeyCode::Enter);
    assert_eq!(user_inputs(&h), ["@mai and @RE"]);
}

#[test]
fn no_match_says_so_in_one_dim_line_and_enter_sends() {
    let dir = workspace();
    let mut h = harness_in(dir.path(), 60, 14);
    h.type_str("ping @zzq");
    serve_listings(&mut h);
    let screen = h.render();
    assert_eq!(popup_rows(&screen), ["  no files match 'zzq'"], "{screen}");
    assert!(
        h.style_of("no files match")
            .unwrap()
            .add_modifier
            .contains(ratatui::style::Modifier::DIM)
    );
    // Gitignored files are not offered.
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Backspace);
    h.type_str("mainframe");
    assert!(h.render().contains("no files match 'mainframe'"));
    // Nothing to insert: Enter sends the message as typed.
    h.key(KeyCode::Enter);
    assert_eq!(user_inputs(&h), ["ping @mainframe"]);
}

#[test]
fn the_popup_closes_when_the_cursor_leaves_the_word() {
    let dir = workspace();
    let mut h = harness_in(dir.path(), 60, 14);
    h.type_str("x @ma");
    serve_listings(&mut h);
    h.key(KeyCode::Left);
    assert!(
        h.render().contains("› Makefile"),
        "`@m` before the cursor still"
    );
    h.key(KeyCode::Left);
    h.key(KeyCode::Left);
    assert!(!h.render().contains("Makefile"), "the cursor is before `@`");
    // Up goes back to the composer (history), not to a popup.
    h.key(KeyCode::Right);
    assert!(h.render().contains("Makefile"), "back in the word");
}

#[test]
fn slash_and_file_popups_never_show_together() {
    let dir = workspace();
    let mut h = harness_in(dir.path(), 70, 20);
    h.type_str("/pla");
    assert!(h.render().contains("/plans      List stored plans"));
    h.type_str("ns @ma");
    serve_listings(&mut h);
    let screen = h.render();
    assert!(!screen.contains("List stored plans"), "{screen}");
    assert!(screen.contains("› Makefile"), "{screen}");
    h.key(KeyCode::Tab);
    assert_eq!(h.app.composer_text(), "/plans Makefile ");
}

#[test]
fn a_path_with_spaces_is_quoted() {
    let dir = workspace();
    let mut h = harness_in(dir.path(), 60, 14);
    h.type_str("read @notes");
    serve_listings(&mut h);
    h.key(KeyCode::Tab);
    assert_eq!(h.app.composer_text(), "read \"docs/my notes.txt\" ");
}

#[test]
fn the_list_is_kept_for_ten_seconds_then_listed_again_when_the_popup_opens() {
    let dir = workspace();
    let mut h = harness_in(dir.path(), 60, 14);
    h.type_str("@");
    assert_eq!(serve_listings(&mut h), 1);
    h.key(KeyCode::Backspace);
    h.at(5.0);
    h.type_str("@");
    assert_eq!(serve_listings(&mut h), 0, "still fresh");
    h.key(KeyCode::Backspace);
    h.at(20.0);
    std::fs::write(dir.path().join("zebra.txt"), "z").unwrap();
    h.type_str("@zeb");
    assert!(
        h.render().contains("no files match 'zeb'"),
        "the old list answers until the new one arrives"
    );
    assert_eq!(serve_listings(&mut h), 1, "older than 10 s: listed again");
    assert!(h.render().contains("› zebra.txt"));
}

#[test]
fn a_fast_burst_of_keys_never_opens_the_popup() {
    let dir = workspace();
    let mut h = harness_in(dir.path(), 60, 14);
    // Prime the list so only the burst rule can keep the popup shut.
    h.type_str("@");
    serve_listings(&mut h);
    h.key(KeyCode::Backspace);
    // A paste the terminal did not bracket: keys 1 ms apart, a line break inside.
    for (i, c) in "see @ma\nnext".chars().enumerate() {
        h.at(1.0 + i as f64 * 0.001);
        let code = if c == '\n' {
            KeyCode::Enter
        } else {
            KeyCode::Char(c)
        };
        h.app
            .handle_terminal_event(TermEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
        h.settle();
        if c == 'a' {
            assert!(!h.render().contains("Makefile"), "not opened mid-paste");
        }
    }
    assert_eq!(h.app.composer_text(), "see @ma\nnext");
    assert!(user_inputs(&h).is_empty());
    // A bracketed paste does not open it either.
    h.app.handle_paste(" @ma");
    assert!(!h.render().contains("Makefile"));
    h.key(KeyCode::Enter);
    assert_eq!(user_inputs(&h), ["see @ma\nnext @ma"]);
}

//! ask_user_question: digits, arrows and typed answers, and the answers in the transcript.

use super::*;

fn ask(h: &mut Harness) {
    h.submit("plan");
    h.event_id(
        "op-1",
        EventMsg::UserQuestionRequest {
            call_id: "q1".into(),
            questions: vec![
                UserQuestion {
                    question: "How many retries?".into(),
                    options: vec!["1 try".into(), "3 tries".into(), "5 tries".into()],
                },
                UserQuestion {
                    question: "Which database?".into(),
                    options: vec!["Postgres".into(), "SQLite".into()],
                },
            ],
        },
    );
}

fn answers(h: &Harness) -> Option<Vec<String>> {
    match h.last_op() {
        Some(Op::UserQuestionAnswer { answers, .. }) => Some(answers),
        _ => None,
    }
}

#[test]
fn a_typed_answer_starting_with_a_digit_stays_a_typed_answer() {
    let mut h = Harness::configured(70, 24);
    ask(&mut h);
    h.type_str("2 tries");
    // Nothing was chosen while typing, and nothing leaks into the next question.
    assert!(h.render().contains("How many retries?"));
    h.key(KeyCode::Enter);
    let screen = h.render();
    assert!(screen.contains("Which database?"), "{screen}");
    assert!(
        screen.contains("› ▏"),
        "the next question starts empty:\n{screen}"
    );
    h.key(KeyCode::Char('1'));
    h.key(KeyCode::Enter);
    assert_eq!(
        answers(&h),
        Some(vec!["2 tries".to_string(), "Postgres".to_string()])
    );
}

#[test]
fn a_lone_digit_chooses_its_option_and_arrows_move_the_choice() {
    let mut h = Harness::configured(70, 24);
    ask(&mut h);
    h.key(KeyCode::Char('3'));
    insta::assert_snapshot!("question_digit_chosen", h.render());
    // Backspace turns it back into nothing; arrows move from the first option.
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    h.key(KeyCode::Up);
    h.key(KeyCode::Enter);
    h.key(KeyCode::Up);
    h.key(KeyCode::Enter);
    assert_eq!(
        answers(&h),
        Some(vec!["3 tries".to_string(), "SQLite".to_string()])
    );
}

#[test]
fn a_digit_beyond_the_options_is_text() {
    let mut h = Harness::configured(70, 24);
    ask(&mut h);
    h.key(KeyCode::Char('7'));
    h.key(KeyCode::Enter);
    h.key(KeyCode::Enter);
    assert_eq!(
        answers(&h),
        Some(vec!["7".to_string(), "Postgres".to_string()])
    );
}

#[test]
fn the_answers_are_shown_in_the_transcript() {
    let mut h = Harness::configured(70, 24);
    ask(&mut h);
    h.type_str("2 tries");
    h.key(KeyCode::Enter);
    h.key(KeyCode::Esc);
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    insta::assert_snapshot!("question_answers_in_transcript", h.render());
}

//! Scenario tests: scripted core events and key presses drive the app; the screen is checked
//! with insta snapshots of a `TestBackend` and the ops sent to the core are recorded.

use super::{App, OpSink, Request};
use crate::app_event::{AppEvent, AppEventSender};
use cairn_protocol::{
    ApprovalPolicy, Event, EventMsg, Op, Plan, PlanStep, PlanStepStatus, ReviewDecision,
    SessionConfiguredEvent, TokenUsage, TurnAbortReason, UserQuestion,
};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedReceiver;

#[derive(Clone, Default)]
struct RecordingOps(Arc<Mutex<Vec<Op>>>);

impl OpSink for RecordingOps {
    fn submit(&mut self, op: Op) -> String {
        let mut ops = self.0.lock().unwrap();
        ops.push(op);
        format!("op-{}", ops.len())
    }
}

pub(crate) struct Harness {
    pub app: App,
    rx: UnboundedReceiver<AppEvent>,
    ops: RecordingOps,
    t0: Instant,
    terminal: Terminal<TestBackend>,
    pub requests: Vec<Request>,
}

impl Harness {
    pub fn new(width: u16, height: u16) -> Self {
        let (tx, rx) = AppEventSender::channel();
        let ops = RecordingOps::default();
        let t0 = Instant::now();
        let app = App::new(Box::new(ops.clone()), tx, (width, height), t0);
        Self {
            app,
            rx,
            ops,
            t0,
            terminal: Terminal::new(TestBackend::new(width, height)).unwrap(),
            requests: Vec::new(),
        }
    }

    /// A harness whose session is configured (mock provider, model m1, cwd /work/project).
    pub fn configured(width: u16, height: u16) -> Self {
        let mut h = Self::new(width, height);
        h.event(EventMsg::SessionConfigured(SessionConfiguredEvent {
            conversation_id: "conv-1".into(),
            model: "m1".into(),
            provider: Some("mock".into()),
            cwd: PathBuf::from("/work/project"),
            approval_policy: ApprovalPolicy::OnRequest,
            planning: "checklist".into(),
        }));
        h
    }

    pub fn at(&mut self, secs: f64) {
        self.app.set_now(self.t0 + Duration::from_secs_f64(secs));
    }

    fn settle(&mut self) {
        while let Ok(event) = self.rx.try_recv() {
            self.app.handle_app_event(event);
        }
        self.requests.extend(self.app.take_requests());
    }

    pub fn event_id(&mut self, id: &str, msg: EventMsg) {
        self.app.handle_core_event(Event {
            id: id.to_string(),
            msg,
        });
        self.settle();
    }

    pub fn event(&mut self, msg: EventMsg) {
        self.event_id("", msg);
    }

    pub fn key_mod(&mut self, code: KeyCode, modifiers: KeyModifiers) {
        self.app.handle_key(KeyEvent::new(code, modifiers));
        self.settle();
    }

    pub fn key(&mut self, code: KeyCode) {
        self.key_mod(code, KeyModifiers::NONE);
    }

    pub fn ctrl(&mut self, c: char) {
        self.key_mod(KeyCode::Char(c), KeyModifiers::CONTROL);
    }

    pub fn type_str(&mut self, text: &str) {
        for c in text.chars() {
            self.key(KeyCode::Char(c));
        }
    }

    /// Type `text` and press Enter.
    pub fn submit(&mut self, text: &str) {
        self.type_str(text);
        self.key(KeyCode::Enter);
    }

    pub fn ops(&self) -> Vec<Op> {
        self.ops.0.lock().unwrap().clone()
    }

    pub fn last_op(&self) -> Option<Op> {
        self.ops().last().cloned()
    }

    pub fn resize(&mut self, width: u16, height: u16) {
        self.app.handle_resize(width, height);
        self.terminal.backend_mut().resize(width, height);
    }

    pub fn render(&mut self) -> String {
        self.app.prepare();
        let app = &self.app;
        self.terminal
            .draw(|f| app.render(f.area(), f.buffer_mut()))
            .unwrap();
        let buffer = self.terminal.backend().buffer();
        let mut out = String::new();
        for y in 0..buffer.area.height {
            let mut line = String::new();
            let mut skip = 0;
            for x in 0..buffer.area.width {
                // Cells hidden behind a wide character are not drawn by a terminal either.
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                let symbol = buffer[(x, y)].symbol();
                skip = unicode_width::UnicodeWidthStr::width(symbol).saturating_sub(1);
                line.push_str(symbol);
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// Style of the first cell showing `needle` on screen.
    pub fn style_of(&mut self, needle: &str) -> Option<ratatui::style::Style> {
        self.render();
        let buffer = self.terminal.backend().buffer();
        for y in 0..buffer.area.height {
            // Byte offset in the row text of each cell.
            let mut text = String::new();
            let mut offsets = Vec::new();
            for x in 0..buffer.area.width {
                offsets.push(text.len());
                text.push_str(buffer[(x, y)].symbol());
            }
            if let Some(byte) = text.find(needle) {
                let x = offsets.iter().position(|&o| o == byte)?;
                return Some(buffer[(x as u16, y)].style());
            }
        }
        None
    }
}

fn plan(steps: &[(&str, PlanStepStatus)]) -> Plan {
    Plan {
        explanation: Some("Fix the parser first".into()),
        plan: steps
            .iter()
            .map(|(text, status)| PlanStep::new(*text, *status))
            .collect(),
        ..Plan::default()
    }
}

fn delta(text: &str) -> EventMsg {
    EventMsg::AgentMessageDelta { delta: text.into() }
}

#[test]
fn ready_screen_shows_header_composer_and_normal_badge() {
    let mut h = Harness::configured(80, 12);
    insta::assert_snapshot!("ready_screen", h.render());
}

#[test]
fn streamed_answer_renders_complete_lines_only_and_task_ends() {
    let mut h = Harness::configured(60, 16);
    h.submit("explain the parser");
    assert_eq!(
        h.ops(),
        vec![Op::UserInput {
            text: "explain the parser".into()
        }]
    );
    h.event_id("op-1", EventMsg::TaskStarted);
    h.event_id("op-1", delta("The parser is **incre"));
    let screen = h.render();
    assert!(
        !screen.contains("The parser"),
        "half a line is not shown:\n{screen}"
    );
    h.event_id("op-1", delta("mental**.\nSecond line"));
    let screen = h.render();
    assert!(screen.contains("• The parser is incremental."), "{screen}");
    assert!(!screen.contains("Second line"));
    h.at(12.4);
    insta::assert_snapshot!("streaming_working", h.render());
    h.event_id(
        "op-1",
        EventMsg::AgentMessage {
            message: "The parser is **incremental**.\nSecond line.".into(),
        },
    );
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    let screen = h.render();
    assert!(screen.contains("Second line."));
    assert!(!screen.contains("Working"));
    assert!(!h.app.is_working());
}

#[test]
fn stream_error_drops_the_partial_message() {
    let mut h = Harness::configured(60, 12);
    h.submit("hi");
    h.event_id("op-1", delta("partial answer that will be retried\n"));
    assert!(h.render().contains("partial answer"));
    h.event_id(
        "op-1",
        EventMsg::StreamError {
            message: "Connection reset. Reconnecting... 1/5".into(),
        },
    );
    let screen = h.render();
    assert!(!screen.contains("partial answer"), "{screen}");
    assert!(screen.contains("Reconnecting... 1/5"));
    h.event_id("op-1", delta("fresh answer\n"));
    let screen = h.render();
    assert!(screen.contains("• fresh answer"));
    assert!(!screen.contains("Reconnecting"));
}

#[test]
fn plan_updates_render_a_checklist_and_a_pinned_plan() {
    let mut h = Harness::configured(70, 24);
    h.submit("do it");
    h.event_id(
        "op-1",
        EventMsg::PlanUpdate(plan(&[
            ("Read the code", PlanStepStatus::Completed),
            ("Fix the bug", PlanStepStatus::InProgress),
            ("Run the tests", PlanStepStatus::Pending),
        ])),
    );
    let screen = h.render();
    insta::assert_snapshot!("plan_checklist_pinned", screen);
    assert!(screen.contains("Plan · 1 of 3 done"));
    // Styles of DESIGN.md §7.
    let done = h.style_of("Read the code").unwrap();
    assert!(
        done.add_modifier
            .contains(ratatui::style::Modifier::CROSSED_OUT)
    );
    let current = h.style_of("Fix the bug").unwrap();
    assert_eq!(current.fg, Some(ratatui::style::Color::Cyan));
    assert!(
        current
            .add_modifier
            .contains(ratatui::style::Modifier::BOLD)
    );
    h.ctrl('t');
    assert!(
        !h.render().contains("1 of 3 done"),
        "Ctrl+T hides the pinned plan"
    );
    h.ctrl('t');
    assert!(h.render().contains("1 of 3 done"));
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    assert!(
        !h.render().contains("1 of 3 done"),
        "pinned only while a task runs"
    );
}

#[test]
fn messages_typed_during_a_task_are_queued_and_sent_when_it_ends() {
    let mut h = Harness::configured(60, 14);
    h.submit("first");
    h.submit("second");
    assert_eq!(h.ops().len(), 1, "second waits");
    assert!(h.render().contains("↳ queued: second"));
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    assert_eq!(
        h.last_op(),
        Some(Op::UserInput {
            text: "second".into()
        })
    );
    assert!(h.app.is_working());
}

#[test]
fn esc_interrupts_and_queued_text_returns_to_the_composer() {
    let mut h = Harness::configured(60, 14);
    h.submit("first");
    h.submit("second");
    h.key(KeyCode::Esc);
    assert_eq!(h.last_op(), Some(Op::Interrupt));
    h.event_id(
        "op-1",
        EventMsg::TurnAborted {
            reason: TurnAbortReason::Interrupted,
        },
    );
    assert!(!h.app.is_working());
    assert_eq!(h.app.composer_text(), "second");
    assert!(h.render().contains("Interrupted."));
}

#[test]
fn ctrl_c_interrupts_then_a_second_within_two_seconds_quits() {
    let mut h = Harness::configured(60, 10);
    h.submit("work");
    h.at(1.0);
    h.ctrl('c');
    assert_eq!(h.last_op(), Some(Op::Interrupt));
    assert!(h.render().contains("Press Ctrl+C again to quit"));
    assert!(h.requests.is_empty());
    h.at(3.5);
    assert!(!h.render().contains("Press Ctrl+C again"), "hint expires");
    h.ctrl('c');
    assert!(h.requests.is_empty(), "more than 2 s apart: no quit");
    h.at(4.0);
    h.ctrl('c');
    assert_eq!(h.requests, vec![Request::Quit]);
}

#[test]
fn ctrl_c_when_idle_clears_the_composer_first() {
    let mut h = Harness::configured(60, 10);
    h.type_str("draft");
    h.ctrl('c');
    assert_eq!(h.app.composer_text(), "");
    assert!(h.ops().is_empty());
}

#[test]
fn slash_popup_filters_completes_and_runs() {
    let mut h = Harness::configured(70, 16);
    h.type_str("/");
    insta::assert_snapshot!("slash_popup_all", h.render());
    h.type_str("st");
    let screen = h.render();
    assert!(screen.contains("/status"));
    assert!(!screen.contains("/quit"));
    h.key(KeyCode::Esc);
    assert!(!h.render().contains("/status "), "Esc closes the popup");
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Backspace);
    h.type_str("pl");
    h.key(KeyCode::Down);
    h.key(KeyCode::Tab);
    assert_eq!(h.app.composer_text(), "/plans");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.composer_text(), "");
    h.type_str("/mo");
    h.key(KeyCode::Tab);
    assert_eq!(h.app.composer_text(), "/model ");
    h.submit("bigger-model");
    assert_eq!(
        h.last_op(),
        Some(Op::OverrideTurnContext {
            model: Some("bigger-model".into()),
            approval_policy: None
        })
    );
    assert!(h.render().contains("mock/bigger-model"));
}

#[test]
fn commands_that_cannot_run_during_a_task_say_so() {
    let mut h = Harness::configured(80, 14);
    h.submit("work");
    h.submit("/plan");
    h.submit("/new");
    let screen = h.render();
    assert!(
        screen.contains("'/plan' is disabled while a task is in progress."),
        "{screen}"
    );
    assert!(screen.contains("'/new' is disabled while a task is in progress."));
    assert_eq!(h.ops().len(), 1);
    assert!(h.requests.is_empty());
    h.submit("/status");
    assert!(h.render().contains("provider     mock"));
}

#[test]
fn unknown_commands_and_quit_new() {
    let mut h = Harness::configured(80, 12);
    h.submit("/frobnicate");
    assert!(h.render().contains("Unknown command '/frobnicate'"));
    h.submit("/new");
    h.submit("/quit");
    assert_eq!(h.requests, vec![Request::NewSession, Request::Quit]);
}

#[test]
fn approvals_command_switches_policy() {
    let mut h = Harness::configured(80, 14);
    h.submit("/approvals");
    assert!(h.render().contains("Approval policy: on-request"));
    h.submit("/approvals untrusted");
    assert_eq!(
        h.last_op(),
        Some(Op::OverrideTurnContext {
            model: None,
            approval_policy: Some(ApprovalPolicy::Untrusted)
        })
    );
}

#[test]
fn plan_command_enters_plan_mode_and_shows_badge_and_hint() {
    let mut h = Harness::configured(110, 20);
    h.submit("/plan add caching");
    assert_eq!(h.ops(), vec![Op::SetPlanMode { active: true }]);
    let path = PathBuf::from("/home/u/.cairn/plans/conv-1_20261122_030405.md");
    h.event_id(
        "op-1",
        EventMsg::PlanModeEntered {
            plan_file_path: path.clone(),
        },
    );
    assert_eq!(
        h.last_op(),
        Some(Op::UserInput {
            text: "add caching".into()
        })
    );
    let screen = h.render();
    assert!(screen.contains(
        "📋 Plan Mode | File: conv-1_20261122_030405.md | Use read-only tools, then call exit_plan_mode"
    ), "{screen}");
    assert!(screen.contains(" PLAN MODE "));
    assert!(screen.contains("Entered plan mode."));
    let badge = h.style_of("PLAN MODE").unwrap();
    assert_eq!(badge.bg, Some(ratatui::style::Color::Yellow));
    h.event_id(
        "op-2",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    h.submit("/plan");
    assert!(h.render().contains("Already in plan mode."));
    assert_eq!(h.ops().len(), 2);
}

fn exec_request(call_id: &str, command: &str) -> EventMsg {
    EventMsg::ExecApprovalRequest {
        call_id: call_id.into(),
        command: command.into(),
        cwd: PathBuf::from("/work/project"),
        description: format!("Would run `{command}` in ."),
    }
}

#[test]
fn approval_overlay_approves_and_queues_further_requests() {
    let mut h = Harness::configured(80, 20);
    h.submit("build it");
    h.event_id("op-1", exec_request("c1", "cargo build"));
    h.event_id("op-1", exec_request("c2", "rm -rf target"));
    insta::assert_snapshot!("approval_exec_queued", h.render());
    h.type_str("hello");
    assert_eq!(
        h.app.composer_text(),
        "",
        "keys do not leak into the composer"
    );
    h.key(KeyCode::Char('y'));
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c1".into(),
            decision: ReviewDecision::Approved
        })
    );
    let screen = h.render();
    assert!(
        screen.contains("rm -rf target"),
        "second request shows next:\n{screen}"
    );
    h.key(KeyCode::Char('n'));
    h.type_str("too dangerous");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c2".into(),
            decision: ReviewDecision::Denied {
                feedback: Some("too dangerous".into())
            }
        })
    );
    assert!(h.render().contains("› "), "composer is back");
}

#[test]
fn approval_overlay_session_esc_and_abort() {
    let mut h = Harness::configured(80, 20);
    h.submit("x");
    h.event_id("op-1", exec_request("c1", "ls"));
    h.key(KeyCode::Char('a'));
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c1".into(),
            decision: ReviewDecision::ApprovedForSession
        })
    );
    h.event_id("op-1", exec_request("c2", "ls"));
    h.key(KeyCode::Esc);
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c2".into(),
            decision: ReviewDecision::Denied { feedback: None }
        })
    );
    assert!(
        h.app.is_working(),
        "Esc in the overlay denies; it does not interrupt"
    );
    h.event_id("op-1", exec_request("c3", "ls"));
    h.ctrl('c');
    assert_eq!(
        h.last_op(),
        Some(Op::ExecApproval {
            call_id: "c3".into(),
            decision: ReviewDecision::Abort
        })
    );
}

#[test]
fn patch_approval_shows_a_coloured_diff() {
    let mut h = Harness::configured(70, 24);
    h.submit("edit");
    h.event_id(
        "op-1",
        EventMsg::PatchApprovalRequest {
            call_id: "p1".into(),
            paths: vec![PathBuf::from("src/lib.rs")],
            diff: "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,2 +1,2 @@\n fn main() {\n-    old();\n+    new();\n".into(),
            description: "Would edit src/lib.rs (+1 -1)".into(),
        },
    );
    insta::assert_snapshot!("approval_patch", h.render());
    assert_eq!(
        h.style_of("+    new();").unwrap().fg,
        Some(ratatui::style::Color::Green)
    );
    h.key(KeyCode::Char('y'));
    assert_eq!(
        h.last_op(),
        Some(Op::PatchApproval {
            call_id: "p1".into(),
            decision: ReviewDecision::Approved
        })
    );
}

#[test]
fn approval_overlays_close_when_the_task_ends() {
    let mut h = Harness::configured(80, 20);
    h.submit("x");
    h.event_id("op-1", exec_request("c1", "ls"));
    h.event_id(
        "op-1",
        EventMsg::TurnAborted {
            reason: TurnAbortReason::Interrupted,
        },
    );
    h.type_str("typing works");
    assert_eq!(h.app.composer_text(), "typing works");
}

#[test]
fn question_overlay_answers_by_number_or_text() {
    let mut h = Harness::configured(70, 20);
    h.submit("plan");
    h.event_id(
        "op-1",
        EventMsg::UserQuestionRequest {
            call_id: "q1".into(),
            questions: vec![
                UserQuestion {
                    question: "Which database?".into(),
                    options: vec!["Postgres".into(), "SQLite".into()],
                },
                UserQuestion {
                    question: "Anything else?".into(),
                    options: vec![],
                },
            ],
        },
    );
    insta::assert_snapshot!("question_overlay", h.render());
    h.key(KeyCode::Char('2'));
    assert!(h.render().contains("Anything else?"));
    h.type_str("keep it small");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::UserQuestionAnswer {
            call_id: "q1".into(),
            answers: vec!["SQLite".into(), "keep it small".into()]
        })
    );
}

fn long_plan() -> String {
    let mut text = String::from("# Plan: add a cache\n\n## Steps\n\n");
    for i in 1..=30 {
        text.push_str(&format!("{i}. Step number {i} with `code`\n"));
    }
    text.push_str("\n## Verification\n\nRun **all** the tests.\n");
    text
}

fn open_review(h: &mut Harness) {
    h.submit("/plan");
    h.event_id(
        "op-1",
        EventMsg::PlanModeEntered {
            plan_file_path: PathBuf::from("/h/plans/conv-1_20261122_030405.md"),
        },
    );
    h.submit("make a plan");
    h.event_id(
        "op-2",
        EventMsg::PlanModeExitRequest {
            plan_content: long_plan(),
            plan_file_path: PathBuf::from("/h/plans/conv-1_20261122_030405.md"),
        },
    );
}

#[test]
fn plan_review_scrolls_from_the_start_and_enter_approves() {
    let mut h = Harness::configured(80, 20);
    open_review(&mut h);
    let screen = h.render();
    insta::assert_snapshot!("plan_review", screen);
    assert!(screen.contains("Plan Review - conv-1_20261122_030405.md"));
    assert!(screen.contains("[Enter] Approve  [Esc] Reject  [↑↓] Scroll  [e] Edit  [f] Feedback"));
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    assert!(
        !h.render().contains("Plan: add a cache"),
        "scrolled by two lines"
    );
    h.key(KeyCode::End);
    assert!(h.render().contains("Run all the tests."));
    h.key(KeyCode::Home);
    assert!(h.render().contains("Plan: add a cache"));
    h.key(KeyCode::PageDown);
    assert!(!h.render().contains("Plan: add a cache"));
    h.app
        .handle_terminal_event(crossterm::event::Event::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollUp,
            column: 0,
            row: 0,
            modifiers: KeyModifiers::NONE,
        }));
    h.key(KeyCode::Home);
    h.type_str("x");
    assert_eq!(h.app.composer_text(), "", "nothing reaches the composer");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::PlanModeApproval {
            approved: true,
            feedback: None
        })
    );
    h.event_id("op-2", EventMsg::PlanModeExited { approved: true });
    let screen = h.render();
    assert!(screen.contains(" NORMAL "));
    assert!(screen.contains("Plan approved. Exiting plan mode."));
    assert!(!h.app.in_plan_mode());
}

#[test]
fn plan_review_esc_rejects_and_f_sends_feedback() {
    let mut h = Harness::configured(80, 20);
    open_review(&mut h);
    h.key(KeyCode::Esc);
    assert_eq!(
        h.last_op(),
        Some(Op::PlanModeApproval {
            approved: false,
            feedback: None
        })
    );
    h.event_id("op-2", EventMsg::PlanModeExited { approved: false });
    assert!(h.app.in_plan_mode(), "rejection keeps plan mode");
    assert!(
        h.render()
            .contains("Plan rejected. Continuing in plan mode.")
    );
    h.event_id(
        "op-2",
        EventMsg::PlanModeExitRequest {
            plan_content: "v2".into(),
            plan_file_path: PathBuf::from("/h/plans/p.md"),
        },
    );
    h.key(KeyCode::Char('f'));
    h.type_str("split step 2");
    assert!(h.render().contains("Feedback: split step 2"));
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::PlanModeApproval {
            approved: false,
            feedback: Some("split step 2".into())
        })
    );
}

#[test]
fn plan_review_closes_when_the_task_is_interrupted() {
    let mut h = Harness::configured(80, 20);
    open_review(&mut h);
    h.ctrl('c');
    assert_eq!(h.last_op(), Some(Op::Interrupt));
    h.event_id(
        "op-2",
        EventMsg::TurnAborted {
            reason: TurnAbortReason::Interrupted,
        },
    );
    let screen = h.render();
    assert!(!screen.contains("Plan Review"), "{screen}");
    assert!(
        h.app.in_plan_mode(),
        "interrupting does not leave plan mode"
    );
}

#[test]
fn plan_review_e_asks_the_loop_to_edit_and_shows_the_edited_plan() {
    let mut h = Harness::configured(80, 20);
    open_review(&mut h);
    h.key(KeyCode::Char('e'));
    assert_eq!(
        h.requests,
        vec![Request::EditPlan(PathBuf::from(
            "/h/plans/conv-1_20261122_030405.md"
        ))]
    );
    h.app
        .handle_plan_edited(Ok("# Edited plan\n\nOnly one step.\n".into()));
    let screen = h.render();
    assert!(screen.contains("Edited plan"), "{screen}");
    assert!(screen.contains("Plan Review - "));
    h.app
        .handle_plan_edited(Err("Could not run the editor: boom".into()));
    h.key(KeyCode::Enter);
    assert!(h.render().contains("Could not run the editor: boom"));
}

#[test]
fn no_provider_notice_then_error_cell_and_nothing_hangs() {
    let mut h = Harness::new(80, 14);
    h.event(EventMsg::SessionConfigured(SessionConfiguredEvent {
        conversation_id: "c".into(),
        model: "gpt-5.1".into(),
        provider: None,
        cwd: PathBuf::from("/w"),
        approval_policy: ApprovalPolicy::OnRequest,
        planning: "checklist".into(),
    }));
    let guidance = "No model provider configured: set OPENAI_API_KEY.";
    h.event(EventMsg::Notice {
        message: guidance.into(),
    });
    h.submit("hello");
    h.event_id("op-1", EventMsg::TaskStarted);
    h.event_id(
        "op-1",
        EventMsg::Error {
            message: guidance.into(),
        },
    );
    assert!(!h.app.is_working());
    insta::assert_snapshot!("no_provider", h.render());
}

#[test]
fn transcript_scrolls_with_keys_and_wheel() {
    let mut h = Harness::configured(60, 12);
    for i in 0..40 {
        h.event(EventMsg::Notice {
            message: format!("line {i}"),
        });
    }
    assert!(h.render().contains("line 39"));
    h.key(KeyCode::PageUp);
    let screen = h.render();
    assert!(!screen.contains("line 39"));
    assert!(screen.contains("more lines (End)"));
    h.event(EventMsg::Notice {
        message: "line 40".into(),
    });
    assert!(
        !h.render().contains("line 40"),
        "scrolled up: new output does not yank the view"
    );
    h.key(KeyCode::End);
    assert!(h.render().contains("line 40"));
    h.app.handle_wheel(-1);
    assert!(!h.render().contains("line 40"));
    h.key(KeyCode::Home);
    assert!(h.render().contains("cairn (v"));
}

#[test]
fn resize_reflows_without_leftovers() {
    let mut h = Harness::configured(80, 12);
    h.event(EventMsg::Notice {
        message: "a fairly long notice that needs wrapping when the terminal gets narrow".into(),
    });
    h.render();
    h.resize(30, 14);
    insta::assert_snapshot!("resized_narrow", h.render());
}

#[test]
fn status_line_states() {
    let mut h = Harness::configured(90, 6);
    let status = |h: &mut Harness| h.render().lines().last().unwrap_or_default().to_string();
    insta::assert_snapshot!("status_idle", status(&mut h));
    h.submit("go");
    h.event_id(
        "op-1",
        EventMsg::TokenCount(TokenUsage {
            input_tokens: 1200,
            output_tokens: 300,
            total_tokens: 15_300,
            context_window: Some(128_000),
        }),
    );
    h.at(12.0);
    insta::assert_snapshot!("status_working_tokens", status(&mut h));
    h.ctrl('c');
    insta::assert_snapshot!("status_ctrl_c", status(&mut h));
    h.event_id(
        "op-1",
        EventMsg::TurnAborted {
            reason: TurnAbortReason::Interrupted,
        },
    );
    h.submit("/plan");
    h.event_id(
        "op-2",
        EventMsg::PlanModeEntered {
            plan_file_path: PathBuf::from("/p/x.md"),
        },
    );
    h.at(20.0);
    insta::assert_snapshot!("status_plan_mode", status(&mut h));
}

#[test]
fn frames_are_only_due_while_something_moves() {
    let mut h = Harness::configured(60, 10);
    assert_eq!(h.app.next_frame_deadline(), None, "idle: no frames");
    h.submit("go");
    assert!(
        h.app.next_frame_deadline().is_some(),
        "spinner while working"
    );
    h.event_id(
        "op-1",
        EventMsg::TaskComplete {
            last_agent_message: None,
        },
    );
    assert_eq!(h.app.next_frame_deadline(), None);
}

#[test]
fn tool_calls_show_name_description_and_output() {
    let mut h = Harness::configured(70, 20);
    h.submit("run");
    h.event_id(
        "op-1",
        EventMsg::ToolCallBegin {
            call_id: "t1".into(),
            name: "shell".into(),
            arguments: "{}".into(),
            description: "Would run `seq 1 8` in .".into(),
        },
    );
    assert!(h.render().contains("• shell · Would run `seq 1 8` in ."));
    h.event_id(
        "op-1",
        EventMsg::ToolCallEnd {
            call_id: "t1".into(),
            name: "shell".into(),
            output: "1\n2\n3\n4\n5\n6\n7\n8\n".into(),
            success: true,
            duration_ms: 12,
        },
    );
    let screen = h.render();
    assert!(screen.contains("(12ms)"));
    assert!(screen.contains("… +3 lines (ctrl+o to expand)"), "{screen}");
    assert!(!screen.contains("    2"));
    h.ctrl('o');
    assert!(h.render().contains("    2"), "expanded");
    // update_plan calls are shown by their plan cell only.
    h.event_id(
        "op-1",
        EventMsg::ToolCallBegin {
            call_id: "t2".into(),
            name: "update_plan".into(),
            arguments: "{}".into(),
            description: "Would update the plan".into(),
        },
    );
    assert!(!h.render().contains("Would update the plan"));
}

#[test]
fn paste_goes_to_the_composer_in_one_piece() {
    let mut h = Harness::configured(60, 10);
    h.app.handle_paste("line one\nline two");
    h.settle();
    assert_eq!(h.app.composer_text(), "line one\nline two");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.last_op(),
        Some(Op::UserInput {
            text: "line one\nline two".into()
        })
    );
}

#[test]
fn initial_prompt_is_sent_once_the_session_is_configured() {
    let mut h = Harness::new(60, 10);
    h.app.submit_when_ready("hello from argv".into());
    assert!(h.ops().is_empty());
    h.event(EventMsg::SessionConfigured(SessionConfiguredEvent {
        conversation_id: "c".into(),
        model: "m".into(),
        provider: Some("mock".into()),
        cwd: PathBuf::from("/w"),
        approval_policy: ApprovalPolicy::OnRequest,
        planning: "checklist".into(),
    }));
    assert_eq!(
        h.ops(),
        vec![Op::UserInput {
            text: "hello from argv".into()
        }]
    );
}

#[test]
fn plans_command_lists_stored_plans_and_shows_one() {
    let home = tempfile::tempdir().unwrap();
    let mut h = Harness::configured(90, 24);
    h.app.set_cairn_home(home.path().to_path_buf());
    h.submit("/plans");
    assert!(
        h.render().contains("No plans yet."),
        "empty store explains itself"
    );
    let store = cairn_core::plans::PlanStore::in_home(home.path());
    let doc = store
        .create(
            Plan {
                title: Some("Cache the parser".into()),
                plan: vec![
                    PlanStep::new("Read", PlanStepStatus::Completed),
                    PlanStep::new("Write", PlanStepStatus::Pending),
                ],
                ..Plan::default()
            },
            Some("conv-1"),
        )
        .unwrap();
    h.submit("/plans");
    let screen = h.render();
    assert!(screen.contains("Stored plans"), "{screen}");
    assert!(
        screen.contains("Cache the parser  draft · 1 of 2 done"),
        "{screen}"
    );
    h.key(KeyCode::Enter);
    let screen = h.render();
    assert!(
        screen.contains(&format!("Plan {} · Cache the parser · draft", doc.id())),
        "{screen}"
    );
    assert!(screen.contains("✔ 1. Read"), "{screen}");
}

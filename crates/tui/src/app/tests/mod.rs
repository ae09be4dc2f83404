//! Scenario tests: scripted core events and key presses drive the app; the screen is checked
//! with insta snapshots of a `TestBackend` and the ops sent to the core are recorded.

mod commands;
mod conversation;
mod delegates;
mod files;
mod mcp;
mod models;
mod overlays;
mod questions;
mod screen;
mod sessions;
mod usability;
mod user_commands;
mod web;

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
    pub t0: Instant,
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

    pub fn settle(&mut self) {
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
        self.app.handle_frame();
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

pub(crate) fn plan(steps: &[(&str, PlanStepStatus)]) -> Plan {
    Plan {
        explanation: Some("Fix the parser first".into()),
        plan: steps
            .iter()
            .map(|(text, status)| PlanStep::new(*text, *status))
            .collect(),
        ..Plan::default()
    }
}

pub(crate) fn delta(text: &str) -> EventMsg {
    EventMsg::AgentMessageDelta { delta: text.into() }
}

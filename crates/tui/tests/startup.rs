//! Start-up must not load syntect's syntax set: a fresh process renders the ready screen and
//! a plain answer without it, and loads it on the first highlighted code block.

use cairn_protocol::{ApprovalPolicy, Event, EventMsg, Op, SessionConfiguredEvent};
use cairn_tui::app::{App, OpSink};
use cairn_tui::app_event::AppEventSender;
use cairn_tui::markdown::highlight;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::PathBuf;
use std::time::Instant;

struct NoOps;

impl OpSink for NoOps {
    fn submit(&mut self, _op: Op) -> String {
        "1".into()
    }
}

fn event(msg: EventMsg) -> Event {
    Event {
        id: "1".into(),
        msg,
    }
}

#[test]
fn syntax_highlighting_loads_only_on_the_first_code_block() {
    let (tx, _rx) = AppEventSender::channel();
    let mut app = App::new(Box::new(NoOps), tx, (80, 20), Instant::now());
    let mut terminal = Terminal::new(TestBackend::new(80, 20)).unwrap();
    app.handle_core_event(event(EventMsg::SessionConfigured(SessionConfiguredEvent {
        conversation_id: "c".into(),
        model: "m".into(),
        provider: Some("mock".into()),
        cwd: PathBuf::from("/w"),
        approval_policy: ApprovalPolicy::OnRequest,
        planning: "checklist".into(),
    })));
    app.handle_core_event(event(EventMsg::AgentMessage {
        message: "plain *markdown* answer".into(),
    }));
    app.handle_frame();
    terminal
        .draw(|f| app.render(f.area(), f.buffer_mut()))
        .unwrap();
    assert!(!highlight::is_loaded());
    app.handle_core_event(event(EventMsg::AgentMessage {
        message: "```rust\nfn main() {}\n```\n".into(),
    }));
    app.handle_frame();
    assert!(highlight::is_loaded());
}

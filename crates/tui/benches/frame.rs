//! One frame with a 100k-line transcript.
//!
//! Run: `cargo bench -p cairn-tui --bench frame`. Prints the median and worst time of a full
//! frame (render + ratatui's diff into a 120x40 TestBackend) following the bottom, scrolled to
//! the middle and at the top, plus the one-off cost of laying the transcript out again after a
//! resize. The target is <= 2 ms per frame.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use cairn_protocol::{Event, EventMsg, Op};
use cairn_tui::app::{App, OpSink};
use cairn_tui::app_event::AppEventSender;
use crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::{Duration, Instant};

struct NoOps;

impl OpSink for NoOps {
    fn submit(&mut self, _op: Op) -> String {
        "1".into()
    }
}

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;
const FRAMES: usize = 500;

fn frames(app: &mut App, terminal: &mut Terminal<TestBackend>) -> (Duration, Duration) {
    let mut times = Vec::with_capacity(FRAMES);
    for _ in 0..FRAMES {
        let start = Instant::now();
        app.handle_frame();
        terminal
            .draw(|f| app.render(f.area(), f.buffer_mut()))
            .unwrap();
        times.push(start.elapsed());
    }
    times.sort();
    (times[times.len() / 2], times[times.len() - 1])
}

fn key(app: &mut App, code: KeyCode, modifiers: KeyModifiers) {
    app.handle_terminal_event(TermEvent::Key(KeyEvent::new(code, modifiers)));
}

fn main() {
    let (tx, _rx) = AppEventSender::channel();
    let mut app = App::new(Box::new(NoOps), tx, (WIDTH, HEIGHT), Instant::now());
    // 25,000 cells of 3 lines plus a blank line between cells: 100,000 lines.
    for i in 0..25_000 {
        app.handle_core_event(Event {
            id: String::new(),
            msg: EventMsg::Notice {
                message: format!("notice {i}: first line\nsecond line of {i}\nthird line"),
            },
        });
    }
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
    let layout_start = Instant::now();
    app.handle_frame();
    let first_layout = layout_start.elapsed();
    terminal
        .draw(|f| app.render(f.area(), f.buffer_mut()))
        .unwrap();

    let (median, worst) = frames(&mut app, &mut terminal);
    println!("transcript: 25000 cells, 100000 lines, {WIDTH}x{HEIGHT}");
    println!("frame at bottom:   median {median:?}, worst {worst:?}");
    for _ in 0..1_500 {
        key(&mut app, KeyCode::PageUp, KeyModifiers::NONE);
    }
    let (median, worst) = frames(&mut app, &mut terminal);
    println!("frame mid-scroll:  median {median:?}, worst {worst:?}");
    key(&mut app, KeyCode::Home, KeyModifiers::CONTROL);
    let (median, worst) = frames(&mut app, &mut terminal);
    println!("frame at top:      median {median:?}, worst {worst:?}");
    println!("layout of all cells (start-up / resize, once): {first_layout:?}");
}

//! Frames while five delegated runs stream.
//!
//! Run: `cargo bench -p cairn-tui --bench delegates`. A task delegates five explore runs; each
//! frame, every run gets a delta of its answer (a new line every few deltas) and, now and
//! then, a tool call, as the core sends them. Prints the median, p99 and worst time of a frame
//! (`handle_frame` + render + ratatui's diff into a 120x40 TestBackend) and, apart, of
//! handling one frame's worth of events (five deltas): first with the tree above the
//! composer, then with one run's transcript open in its overlay. The target is < 2 ms per
//! frame.
//!
//! On a busy machine a few frames take a scheduler tick or two (4 or 8 ms) because the OS
//! ran something else in the middle of them. To tell those apart, the bench reads the
//! thread's involuntary context switches (`/proc/thread-self/status`, Linux) around each
//! frame and also reports the worst frame that was not preempted.

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
const RUNS: usize = 5;
/// Frames per scenario; at 60 frames/s, 50 s of streaming (each run's answer grows to about
/// 100 KB by the end).
const FRAMES: usize = 3_000;
/// 60 frames/s.
const FRAME_INTERVAL: Duration = Duration::from_millis(16);

fn event(app: &mut App, msg: EventMsg) {
    app.handle_core_event(Event {
        id: "1".into(),
        msg,
    });
}

fn key(app: &mut App, code: KeyCode, modifiers: KeyModifiers) {
    app.handle_terminal_event(TermEvent::Key(KeyEvent::new(code, modifiers)));
}

/// A task that delegated five explore runs, with some history before it.
fn app_with_runs(now: Instant) -> App {
    let (tx, _rx) = AppEventSender::channel();
    let mut app = App::new(Box::new(NoOps), tx, (WIDTH, HEIGHT), now);
    for i in 0..200 {
        event(
            &mut app,
            EventMsg::AgentMessage {
                message: format!(
                    "Earlier answer {i}: the parser reads the config file once and caches it."
                ),
            },
        );
    }
    event(&mut app, EventMsg::TaskStarted);
    event(
        &mut app,
        EventMsg::ToolCallBegin {
            call_id: "d".into(),
            name: "delegate_agent".into(),
            arguments: "{}".into(),
            description: "Would delegate 5 runs (explore, explore, explore, explore, explore)"
                .into(),
        },
    );
    for run in 1..=RUNS {
        event(
            &mut app,
            EventMsg::DelegateStarted {
                run_id: format!("run-{run}"),
                parent_run_id: None,
                agent_id: "explore".into(),
                prompt: format!("Question {run}: where is the config loaded and cached?"),
            },
        );
    }
    app
}

/// One frame's worth of events: a delta for every run, and a tool call now and then.
fn stream(app: &mut App, frame: usize) {
    for run in 1..=RUNS {
        let run_id = format!("run-{run}");
        if frame % 97 == run * 7 {
            let call_id = format!("c{frame}");
            for msg in [
                EventMsg::ToolCallBegin {
                    call_id: call_id.clone(),
                    name: "read_file".into(),
                    arguments: "{}".into(),
                    description: format!("Read crates/core/src/config/mod.rs ({frame})"),
                },
                EventMsg::ToolCallEnd {
                    call_id,
                    name: "read_file".into(),
                    output: "pub fn load() -> Config {\n    todo!()\n}\n".repeat(20),
                    success: true,
                    duration_ms: 2,
                },
            ] {
                event(
                    app,
                    EventMsg::DelegateEvent {
                        run_id: run_id.clone(),
                        event: Box::new(msg),
                    },
                );
            }
        }
        let text = if frame % 4 == 3 {
            format!("`Config::load` at line {frame} of config/mod.rs.\n")
        } else {
            format!("The loader in run {run} reads the file and ")
        };
        event(app, EventMsg::DelegateDelta { run_id, text });
    }
}

struct Stats {
    median: Duration,
    p99: Duration,
    worst: Duration,
}

fn stats(mut times: Vec<Duration>) -> Stats {
    times.sort();
    Stats {
        median: times[times.len() / 2],
        p99: times[times.len() * 99 / 100],
        worst: times[times.len() - 1],
    }
}

/// Times the OS took this thread off the CPU against its will (0 where unknown).
fn preemptions() -> u64 {
    std::fs::read_to_string("/proc/thread-self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("nonvoluntary_ctxt_switches:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

struct Run {
    frames: Stats,
    handling: Stats,
    /// Frames over 2 ms.
    over_target: usize,
    /// Of those, frames the OS preempted.
    over_target_preempted: usize,
    /// The worst frame the OS did not preempt.
    worst_unpreempted: Duration,
}

/// Stream for [`FRAMES`] frames.
fn run(app: &mut App, terminal: &mut Terminal<TestBackend>, mut now: Instant) -> Run {
    let mut frames = Vec::with_capacity(FRAMES);
    let mut handling = Vec::with_capacity(FRAMES);
    let (mut over_target, mut over_target_preempted) = (0, 0);
    let mut worst_unpreempted = Duration::ZERO;
    // The first frame lays out the whole history once (start-up, measured by the frame
    // bench); not part of streaming.
    app.handle_frame();
    terminal
        .draw(|f| app.render(f.area(), f.buffer_mut()))
        .unwrap();
    for frame in 0..FRAMES {
        now += FRAME_INTERVAL;
        app.set_now(now);
        let start = Instant::now();
        stream(app, frame);
        handling.push(start.elapsed());
        let switches = preemptions();
        let start = Instant::now();
        app.handle_frame();
        terminal
            .draw(|f| app.render(f.area(), f.buffer_mut()))
            .unwrap();
        let elapsed = start.elapsed();
        let preempted = preemptions() != switches;
        frames.push(elapsed);
        if elapsed > Duration::from_millis(2) {
            over_target += 1;
            over_target_preempted += usize::from(preempted);
        }
        if !preempted {
            worst_unpreempted = worst_unpreempted.max(elapsed);
        }
    }
    Run {
        frames: stats(frames),
        handling: stats(handling),
        over_target,
        over_target_preempted,
        worst_unpreempted,
    }
}

fn print(what: &str, run: Run) {
    let Run {
        frames,
        handling,
        over_target,
        over_target_preempted,
        worst_unpreempted,
    } = run;
    println!(
        "{what}: frame median {:?}, p99 {:?}, worst {:?}; worst frame not preempted by the OS {:?}; \
         frames over 2 ms: {over_target} of {FRAMES} ({over_target_preempted} preempted); \
         events per frame (5 deltas) median {:?}, p99 {:?}",
        frames.median, frames.p99, frames.worst, worst_unpreempted, handling.median, handling.p99
    );
}

fn main() {
    println!(
        "{RUNS} delegated runs streaming, {FRAMES} frames at {WIDTH}x{HEIGHT}, 200 cells of history"
    );
    let now = Instant::now();
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
    let mut app = app_with_runs(now);
    print("tree above the composer", run(&mut app, &mut terminal, now));

    let now = Instant::now();
    let mut app = app_with_runs(now);
    key(&mut app, KeyCode::Char('g'), KeyModifiers::CONTROL);
    key(&mut app, KeyCode::Enter, KeyModifiers::NONE);
    print("one run's overlay open", run(&mut app, &mut terminal, now));
}

//! cairn's terminal front end.
//!
//! One owner, one loop: [`run`] selects over terminal input, core events, the internal
//! [`app_event::AppEvent`] queue and frame ticks. Handlers change [`app::App`]; frames are drawn
//! only when something asked for one (at most 60 per second), so an idle screen costs nothing.

pub mod agents;
pub mod app;
pub mod app_event;
pub mod bottom;
pub mod delegate;
mod editor;
mod files;
pub mod frame;
mod hangup;
pub mod history;
pub mod markdown;
pub mod mcp;
pub mod paste_burst;
mod sessions;
pub mod slash;
pub mod status;
pub mod strings;
pub mod theme;
pub mod transcript;
mod tui;
pub mod wrap;

use app::{App, OpSink, Request};
use app_event::AppEventSender;
use cairn_core::Config;
use cairn_core::session::SubmissionSender;
use cairn_protocol::{Event, EventMsg, Op, Submission};
use crossterm::event::EventStream;
use futures::StreamExt;
use std::io;
use std::time::{Duration, Instant};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;

/// How long quitting waits for the core to stop running tools.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// Ops to a live session, with ids of our own.
struct SessionOps {
    sender: SubmissionSender,
    next_id: u64,
}

impl OpSink for SessionOps {
    fn submit(&mut self, op: Op) -> String {
        self.next_id += 1;
        let id = format!("tui-{}", self.next_id);
        self.sender.send(Submission { id: id.clone(), op });
        id
    }
}

/// The op sink while no session runs (the picker `cairn resume` opens first): nothing can
/// be submitted then, and the shutdown at exit has nobody to reach.
struct NoSession;

impl OpSink for NoSession {
    fn submit(&mut self, _op: Op) -> String {
        String::new()
    }
}

fn start_session(config: &Config) -> (SessionOps, mpsc::UnboundedReceiver<Event>) {
    let handle = cairn_core::spawn(
        config.clone(),
        cairn_core::SessionOptions { interactive: true },
    );
    session_parts(handle)
}

fn session_parts(
    handle: cairn_core::SessionHandle,
) -> (SessionOps, mpsc::UnboundedReceiver<Event>) {
    let ops = SessionOps {
        sender: handle.sender(),
        next_id: 0,
    };
    (ops, handle.events)
}

fn draw(guard: &mut tui::TerminalGuard, app: &mut App) -> io::Result<()> {
    app.set_now(Instant::now());
    let size = guard.terminal.size()?;
    app.handle_resize(size.width, size.height);
    app.handle_frame();
    guard
        .terminal
        .draw(|frame| app.render(frame.area(), frame.buffer_mut()))?;
    Ok(())
}

/// How the TUI starts.
#[derive(Default)]
pub struct Launch {
    /// Submitted as soon as the session is ready.
    pub prompt: Option<String>,
    /// A session to continue (`cairn resume`), already started with [`cairn_core::resume`].
    pub resumed: Option<cairn_core::SessionHandle>,
    /// Open the session picker first (`cairn resume` without an id).
    pub pick_session: bool,
}

/// How the TUI ended.
#[derive(Debug, Default)]
pub struct Exit {
    /// Lines to print once the terminal is restored (tokens used, how to resume).
    pub summary: Option<String>,
}

/// Run the TUI in the current terminal until the user quits.
pub async fn run(config: Config, launch: Launch) -> io::Result<Exit> {
    let Launch {
        prompt: initial_prompt,
        resumed,
        pick_session,
    } = launch;
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let mut hangup = hangup::watch();
    // A oneshot must not be polled again once it has answered.
    let mut hangup_watched = true;
    let mut guard = tui::TerminalGuard::enter()?;
    let size = guard.terminal.size()?;
    let (tx, mut app_rx) = AppEventSender::channel();
    let (frames, mut draw_rx) = frame::spawn_scheduler();
    let (opened_tx, mut opened_rx) = mpsc::unbounded_channel::<sessions::Opened>();
    // With the picker first, no session starts until the user chose one or closed it, so
    // a choice leaves no empty session behind.
    let (ops, mut session_events, mut session_alive): (Box<dyn OpSink>, _, bool) =
        match (resumed, pick_session) {
            (Some(handle), _) => {
                let (ops, events) = session_parts(handle);
                (Box::new(ops), events, true)
            }
            (None, true) => (Box::new(NoSession), mpsc::unbounded_channel().1, false),
            (None, false) => {
                let (ops, events) = start_session(&config);
                (Box::new(ops), events, true)
            }
        };
    let mut app = App::new(ops, tx.clone(), (size.width, size.height), Instant::now());
    app.set_cairn_home(config.cairn_home.clone());
    app.set_cwd(config.cwd.clone());
    if let Some(prompt) = initial_prompt.filter(|p| !p.trim().is_empty()) {
        app.submit_when_ready(prompt);
    }
    if pick_session && !session_alive {
        app.pick_session_at_launch();
    }
    // The first frame is drawn before anything else: the composer is ready at once.
    draw(&mut guard, &mut app)?;
    let mut terminal_events = EventStream::new();

    let result: io::Result<()> = loop {
        // Requests first: those made before the loop started (the launch picker's listing)
        // are served without waiting for an event.
        let mut quit = false;
        for request in app.take_requests() {
            match request {
                Request::Quit => quit = true,
                Request::NewSession => {
                    app.submit_op(Op::Shutdown);
                    let (ops, events) = start_session(&app.new_session_config(&config));
                    session_events = events;
                    session_alive = true;
                    app.reset_session(Box::new(ops));
                    frames.schedule_frame();
                }
                Request::ListSessions => sessions::list(&config, &tx),
                Request::ListAgents { cwd } => agents::list(&config, cwd, &tx),
                Request::ListFiles { root } => files::list(&config, root, &tx),
                Request::ResumeSession { path, cwd } => {
                    sessions::open(&config, path, cwd, opened_tx.clone());
                }
                Request::EditPlan(path) => {
                    // Stop reading the terminal so the editor gets every key.
                    drop(terminal_events);
                    guard.suspend()?;
                    let edited = editor::edit(&path).await;
                    guard.resume()?;
                    terminal_events = EventStream::new();
                    app.handle_plan_edited(edited);
                    frames.schedule_frame();
                }
            }
        }
        if quit {
            break Ok(());
        }
        let redraw = tokio::select! {
            event = terminal_events.next() => match event {
                Some(Ok(event)) => {
                    app.set_now(Instant::now());
                    app.handle_terminal_event(event)
                }
                Some(Err(err)) => break Err(err),
                None => break Ok(()),
            },
            event = session_events.recv(), if session_alive => match event {
                Some(event) => {
                    app.set_now(Instant::now());
                    app.handle_core_event(event);
                    true
                }
                None => {
                    session_alive = false;
                    false
                }
            },
            Some(event) = app_rx.recv() => {
                app.set_now(Instant::now());
                app.handle_app_event(event);
                true
            }
            Some(opened) = opened_rx.recv() => {
                app.set_now(Instant::now());
                match opened {
                    Ok(handle) => {
                        // The chosen session runs: only now does the current one end.
                        app.submit_op(Op::Shutdown);
                        let (ops, events) = session_parts(handle);
                        session_events = events;
                        session_alive = true;
                        app.reset_session(Box::new(ops));
                    }
                    Err(message) => app.handle_resume_failed(message),
                }
                true
            }
            Some(()) = draw_rx.recv() => {
                draw(&mut guard, &mut app)?;
                if let Some(at) = app.next_frame_deadline() {
                    frames.schedule_frame_at(at);
                }
                false
            }
            _ = sigterm.recv() => break Ok(()),
            _ = sighup.recv() => break Ok(()),
            answer = &mut hangup, if hangup_watched => {
                hangup_watched = false;
                match answer {
                    Ok(()) => break Ok(()),
                    // The watcher could not run: carry on without it.
                    Err(_) => false,
                }
            }
        };
        if redraw {
            frames.schedule_frame();
        }
    };

    app.submit_op(Op::Shutdown);
    if session_alive {
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, async {
            while let Some(event) = session_events.recv().await {
                if event.msg == EventMsg::ShutdownComplete {
                    break;
                }
            }
        })
        .await;
    }
    let restored = guard.exit();
    result.and(restored).map(|()| Exit {
        summary: app.exit_summary(),
    })
}

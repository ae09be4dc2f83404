//! Frame scheduling: frames are drawn on request only, at most 60 per second, and never while
//! nothing asks for one (an idle screen costs no CPU).

use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Shortest time between two frames (60 per second).
pub const MIN_FRAME_INTERVAL: Duration = Duration::from_micros(16_667);

/// Asks the scheduler for a frame.
#[derive(Debug, Clone)]
pub struct FrameRequester {
    tx: mpsc::UnboundedSender<Instant>,
}

impl FrameRequester {
    /// Draw as soon as allowed.
    pub fn schedule_frame(&self) {
        let _ = self.tx.send(Instant::now());
    }

    /// Draw at `at` (or as soon as allowed after it).
    pub fn schedule_frame_at(&self, at: Instant) {
        let _ = self.tx.send(at);
    }
}

/// Start the scheduler task. Returns the requester and the receiver of "draw now" ticks.
pub fn spawn_scheduler() -> (FrameRequester, mpsc::UnboundedReceiver<()>) {
    let (req_tx, mut req_rx) = mpsc::unbounded_channel::<Instant>();
    let (draw_tx, draw_rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut last_draw: Option<Instant> = None;
        let mut deadline: Option<Instant> = None;
        loop {
            let request = match deadline {
                None => req_rx.recv().await,
                Some(at) => {
                    tokio::select! {
                        request = req_rx.recv() => request,
                        _ = tokio::time::sleep_until(at.into()) => {
                            deadline = None;
                            last_draw = Some(Instant::now());
                            if draw_tx.send(()).is_err() {
                                return;
                            }
                            continue;
                        }
                    }
                }
            };
            let Some(at) = request else {
                return;
            };
            // Coalesce: the earliest wanted time, but not sooner than the frame interval.
            let earliest = last_draw.map_or(at, |last| at.max(last + MIN_FRAME_INTERVAL));
            deadline = Some(deadline.map_or(earliest, |d| d.min(earliest)));
        }
    });
    (FrameRequester { tx: req_tx }, draw_rx)
}

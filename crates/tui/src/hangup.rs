//! Noticing that the terminal went away.
//!
//! When the terminal's other end closes without a SIGHUP reaching cairn (a pseudo-terminal
//! whose master is closed while cairn is not its session's controlling process, a dropped
//! multiplexer pane), crossterm's reader keeps getting EIO and retries in a loop, so cairn
//! would spin at full CPU forever. A hang-up shows as POLLHUP on the terminal's descriptor;
//! one thread blocked in `poll` (no timeout, no cost while idle) reports it once.

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use std::os::fd::AsFd;
use tokio::sync::oneshot;

/// Resolves when the terminal on stdout hangs up; never while it stays open.
pub fn watch() -> oneshot::Receiver<()> {
    let (tx, rx) = oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("cairn-hangup".into())
        .spawn(move || {
            let stdout = std::io::stdout();
            loop {
                // No events asked: POLLHUP, POLLERR and POLLNVAL are always reported.
                let mut fds = [PollFd::new(stdout.as_fd(), PollFlags::empty())];
                match poll(&mut fds, PollTimeout::NONE) {
                    Ok(_) => {
                        let hung_up = fds[0].revents().is_some_and(|r| {
                            r.intersects(
                                PollFlags::POLLHUP | PollFlags::POLLERR | PollFlags::POLLNVAL,
                            )
                        });
                        if hung_up {
                            let _ = tx.send(());
                            return;
                        }
                    }
                    Err(nix::errno::Errno::EINTR) => {}
                    Err(_) => return,
                }
            }
        });
    if let Err(err) = spawned {
        tracing::warn!("cannot watch the terminal for hang-ups: {err}");
    }
    rx
}

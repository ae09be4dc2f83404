//! The TUI ends when its terminal goes away, even when no SIGHUP reaches it (the terminal's
//! other end closed while cairn is not the session's controlling process): it must not stay
//! behind spinning on a dead terminal.

use nix::fcntl::{FcntlArg, FdFlag, fcntl};
use nix::pty::{Winsize, openpty};
use std::process::Stdio;
use std::time::{Duration, Instant};

#[test]
fn the_tui_exits_when_its_terminal_is_closed() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let size = Winsize {
        ws_row: 24,
        ws_col: 80,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = openpty(Some(&size), None).unwrap();
    // Only the slave goes to cairn: an inherited master would keep the terminal open.
    fcntl(&pty.master, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).unwrap();
    let slave = std::fs::File::from(pty.slave);
    let mut child = std::process::Command::new(cairn_e2e::cairn_bin())
        .args([
            "--provider",
            "ollama",
            "-c",
            "providers.ollama.base_url=\"http://127.0.0.1:9/v1\"",
        ])
        .env("CAIRN_HOME", home.path())
        .env("TERM", "xterm-256color")
        .current_dir(work.path())
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    // Let it start and draw (nobody answers its terminal queries: it must cope).
    std::thread::sleep(Duration::from_millis(800));
    assert!(child.try_wait().unwrap().is_none(), "cairn ended early");
    drop(pty.master);
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    panic!("cairn kept running after its terminal was closed");
}

//! The harness of the TUI's end-to-end tests: the built `cairn` binary in a pseudo-terminal
//! (portable-pty), its screen read through a terminal emulator (vt100).

use cairn_e2e::cairn_bin;
use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const ROWS: u16 = 40;
const COLS: u16 = 140;
/// Generous: the machine may be busy; a passing run never waits this long.
const TIMEOUT: Duration = Duration::from_secs(30);

/// A running `cairn` TUI in a pseudo-terminal.
pub struct Tui {
    pub screen: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn Write + Send>,
    pub child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
}

fn pty_size(rows: u16, cols: u16) -> PtySize {
    PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

impl Tui {
    pub fn start(home: &Path, work: &Path, args: &[String]) -> Self {
        Self::start_with_env(home, work, args, &[])
    }

    pub fn start_with_env(home: &Path, work: &Path, args: &[String], env: &[(&str, &str)]) -> Self {
        Self::start_sized(home, work, args, env, (ROWS, COLS))
    }

    pub fn start_sized(
        home: &Path,
        work: &Path,
        args: &[String],
        env: &[(&str, &str)],
        (rows, cols): (u16, u16),
    ) -> Self {
        let pair = native_pty_system()
            .openpty(pty_size(rows, cols))
            .expect("open a pty");
        let mut cmd = CommandBuilder::new(cairn_bin());
        cmd.args(args);
        cmd.cwd(work);
        cmd.env("CAIRN_HOME", home);
        cmd.env("TERM", "xterm-256color");
        for key in [
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "OPENROUTER_API_KEY",
            "CAIRN_LOG",
            "VISUAL",
        ] {
            cmd.env_remove(key);
        }
        for (key, value) in env {
            cmd.env(key, value);
        }
        let child = pair.slave.spawn_command(cmd).expect("spawn cairn");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("pty reader");
        let writer = pair.master.take_writer().expect("pty writer");
        let screen = Arc::new(Mutex::new(vt100::Parser::new(rows, cols, 0)));
        let sink = screen.clone();
        let master = pair.master;
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().process(&buf[..n]);
            }
        });
        Self {
            screen,
            writer,
            child,
            master,
        }
    }

    /// Resize the terminal (the TUI gets SIGWINCH), as a window manager or tmux does.
    pub fn resize(&mut self, rows: u16, cols: u16) {
        self.screen
            .lock()
            .unwrap()
            .screen_mut()
            .set_size(rows, cols);
        self.master.resize(pty_size(rows, cols)).unwrap();
    }

    pub fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// Wait until the screen satisfies `ready`; fail with the screen otherwise.
    pub async fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let contents = self.contents();
            if ready(&contents) {
                return contents;
            }
            if start.elapsed() > TIMEOUT {
                panic!("timed out waiting for {what}; screen:\n{contents}");
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    pub async fn wait_for_text(&self, text: &str) -> String {
        self.wait_for(&format!("{text:?}"), |s| s.contains(text))
            .await
    }

    pub fn send(&mut self, bytes: &str) {
        self.writer.write_all(bytes.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Type a line and press Enter. The Enter comes a moment later, as from a person: an
    /// Enter right behind the text is what a paste without bracketed paste looks like,
    /// and the TUI keeps that in the composer as a new line.
    pub fn submit(&mut self, text: &str) {
        self.send(text);
        std::thread::sleep(Duration::from_millis(40));
        self.send("\r");
    }

    /// Quit with Ctrl+C twice and check the terminal was given back.
    pub async fn quit(mut self) {
        self.send("\x03");
        tokio::time::sleep(Duration::from_millis(100)).await;
        self.send("\x03");
        self.wait_exit_restored().await;
    }

    /// Wait for a successful exit and check the terminal was given back.
    pub async fn wait_exit_restored(&mut self) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > TIMEOUT {
                let _ = self.child.kill();
                panic!("cairn did not quit; screen:\n{}", self.contents());
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        };
        assert!(status.success(), "exit status {status:?}");
        // Give the reader thread the last bytes.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let parser = self.screen.lock().unwrap();
        assert!(
            !parser.screen().alternate_screen(),
            "the alternate screen was left"
        );
        assert!(
            !parser.screen().hide_cursor(),
            "the cursor is visible again"
        );
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

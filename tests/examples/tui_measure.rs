//! Measure the TUI's launch-to-ready time, idle RSS and idle CPU.
//!
//! ```text
//! cargo build --release -p cairn-cli
//! cargo run --release -p cairn-e2e --example tui_measure
//! ```
//!
//! Runs the release `cairn` binary (next to this example, in target/release) in a
//! pseudo-terminal of 120x40 with a provider configured (never contacted: no message is sent),
//! 20 times. Launch-to-ready is the time from spawning the process to the first screen bytes
//! that show the composer's placeholder, as read from the pty. After the last launch the TUI
//! sits idle: RSS is read from /proc/<pid>/status and CPU time from /proc/<pid>/stat over 5 s.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use cairn_e2e::{cairn_bin, mock_provider_args};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::Read;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const RUNS: usize = 20;
const READY_TEXT: &str = "Ask cairn anything";
const IDLE_SECONDS: u64 = 5;

struct Launched {
    ready_after: Duration,
    pid: u32,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    _keep: Box<dyn portable_pty::MasterPty + Send>,
}

fn launch(home: &std::path::Path) -> Launched {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(cairn_bin());
    cmd.args(mock_provider_args("http://127.0.0.1:9/v1"));
    cmd.env("CAIRN_HOME", home);
    cmd.env("TERM", "xterm-256color");
    let mut reader = pair.master.try_clone_reader().unwrap();
    let start = Instant::now();
    let child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let pid = child.process_id().unwrap_or_default();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut parser = vt100::Parser::new(40, 120, 0);
        let mut buf = [0u8; 8192];
        let mut sent = false;
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            parser.process(&buf[..n]);
            if !sent && parser.screen().contents().contains(READY_TEXT) {
                let _ = tx.send(start.elapsed());
                sent = true;
            }
        }
    });
    let ready_after = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the TUI did not show its composer within 10 s");
    Launched {
        ready_after,
        pid,
        child,
        _keep: pair.master,
    }
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may contain spaces) start after ") ".
    let rest = &stat[stat.rfind(") ")? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the full line: 12 and 13 here.
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

fn clock_ticks_per_second() -> u64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100)
}

fn main() {
    let home = tempfile::tempdir().unwrap();
    let mut times = Vec::new();
    let mut last = None;
    for i in 0..RUNS {
        let mut launched = launch(home.path());
        times.push(launched.ready_after);
        if i + 1 == RUNS {
            last = Some(launched);
        } else {
            let _ = launched.child.kill();
            let _ = launched.child.wait();
        }
    }
    times.sort();
    println!("binary: {}", cairn_bin().display());
    println!(
        "launch to ready composer over {RUNS} runs: median {:?}, min {:?}, max {:?}",
        times[RUNS / 2],
        times[0],
        times[RUNS - 1]
    );
    let mut idle = last.unwrap();
    std::thread::sleep(Duration::from_secs(1));
    let pid = idle.pid;
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(IDLE_SECONDS));
    let after = cpu_ticks(pid);
    match rss_kib(pid) {
        Some(kib) => println!("idle RSS: {:.1} MiB", kib as f64 / 1024.0),
        None => println!("idle RSS: unavailable (no /proc)"),
    }
    if let (Some(b), Some(a)) = (before, after) {
        let hz = clock_ticks_per_second();
        let percent = (a - b) as f64 * 100.0 / (hz * IDLE_SECONDS) as f64;
        println!(
            "idle CPU over {IDLE_SECONDS} s: {} ticks ({percent:.2}%)",
            a - b
        );
    }
    let _ = idle.child.kill();
    let _ = idle.child.wait();
}

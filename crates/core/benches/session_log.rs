//! Session log benchmarks: appending one item on the session loop's side, loading a 100 MB
//! session (time and peak RSS against the history held), and listing 1,000 sessions.
//!
//! `cargo bench -p cairn-core --bench session_log [-- MB SESSIONS]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use cairn_core::history::ResponseItem;
use cairn_core::rollout::{self, LogLine, Recorder, SessionMeta, listing};
use cairn_protocol::EventMsg;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

fn meta(id: &str) -> SessionMeta {
    SessionMeta {
        id: id.to_string(),
        cwd: "/work/project".into(),
        model: "gpt-5.1".into(),
        provider: Some("openai".into()),
        wire_api: Some("responses".into()),
        cairn_version: "0.1.0".into(),
        git_branch: None,
        git_head: None,
        started_at: "2026-11-23T10:00:00Z".into(),
    }
}

/// One realistic round trip: a message, a call, its 4 KB output, and the events the log keeps.
fn round_trip(n: usize) -> Vec<LogLine> {
    let call_id = format!("call_{n}");
    let output: String = (0..64)
        .map(|i| {
            format!("src/module_{n}/file_{i}.rs:{i}: fn handler_{i}() -> Result<(), Error> {{\n")
        })
        .collect();
    vec![
        LogLine::Item {
            item: ResponseItem::assistant(format!("Looking at module {n} next.")),
        },
        LogLine::Item {
            item: ResponseItem::FunctionCall {
                call_id: call_id.clone(),
                name: "grep_files".into(),
                arguments: format!("{{\"pattern\":\"fn handler\",\"path\":\"src/module_{n}\"}}"),
            },
        },
        LogLine::Event {
            msg: EventMsg::ToolCallEnd {
                call_id: call_id.clone(),
                name: "grep_files".into(),
                output: output.clone(),
                success: true,
                duration_ms: 3,
            },
        },
        LogLine::Item {
            item: ResponseItem::FunctionCallOutput {
                call_id,
                output,
                success: true,
            },
        },
    ]
}

fn write_session(path: &Path, bytes: usize) -> usize {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut written = 0;
    let line = |l: &LogLine, file: &mut std::io::BufWriter<std::fs::File>| {
        let mut text = serde_json::to_vec(l).unwrap();
        text.push(b'\n');
        file.write_all(&text).unwrap();
        text.len()
    };
    written += line(&LogLine::Meta(meta("bench-session")), &mut file);
    written += line(
        &LogLine::Event {
            msg: EventMsg::UserMessage {
                text: "Refactor every handler to return typed errors".into(),
            },
        },
        &mut file,
    );
    let mut n = 0;
    while written < bytes {
        for l in round_trip(n) {
            written += line(&l, &mut file);
        }
        // A state snapshot ends every turn; say a turn is five round trips.
        if n % 5 == 4 {
            let state = LogLine::State(rollout::StateSnapshot {
                turns: (n / 5 + 1) as u64,
                ..rollout::StateSnapshot::default()
            });
            written += line(&state, &mut file);
        }
        n += 1;
    }
    file.flush().unwrap();
    written
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn history_bytes(items: &[ResponseItem]) -> usize {
    items
        .iter()
        .map(|i| match i {
            ResponseItem::Message { text, .. } | ResponseItem::Reasoning { text, .. } => text.len(),
            ResponseItem::FunctionCall {
                call_id,
                name,
                arguments,
            } => call_id.len() + name.len() + arguments.len(),
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            } => call_id.len() + output.len(),
        })
        .sum()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn bench_append(dir: &Path) {
    let recorder = Recorder::create(&dir.join("append.jsonl"), meta("append")).unwrap();
    let items: Vec<ResponseItem> = round_trip(1)
        .into_iter()
        .filter_map(|l| match l {
            LogLine::Item { item } => Some(item),
            _ => None,
        })
        .collect();
    let mut times = Vec::new();
    for i in 0..30_000 {
        let item = &items[i % items.len()];
        let start = Instant::now();
        recorder.item(item);
        times.push(start.elapsed());
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(recorder.close());
    let worst = *times.iter().max().unwrap();
    times.sort();
    let p99 = times[times.len() * 99 / 100];
    println!(
        "append one item (session loop side): median {:?}, p99 {:?}, worst {:?} (target <= 50 us)",
        median(times),
        p99,
        worst
    );
}

fn bench_load(dir: &Path, mb: usize) {
    let path = dir.join("big/2026/11/23/bench-session.jsonl");
    let bytes = write_session(&path, mb * 1024 * 1024);
    let before = peak_rss_kib();
    let start = Instant::now();
    let loaded = rollout::load(&path).unwrap();
    let elapsed = start.elapsed();
    let after = peak_rss_kib();
    let held = history_bytes(&loaded.history) + history_bytes(&[]);
    println!(
        "load a {:.0} MB session: {:?} (target <= 1 s); {} items, history {:.1} MB; peak RSS grew {:.1} MB ({:.2}x the history; target <= 2x)",
        bytes as f64 / 1e6,
        elapsed,
        loaded.history.len(),
        held as f64 / 1e6,
        (after.saturating_sub(before)) as f64 / 1024.0,
        (after.saturating_sub(before)) as f64 * 1024.0 / held as f64
    );
    drop(loaded);
}

fn bench_list(dir: &Path, sessions: usize) {
    let root = dir.join("many");
    for i in 0..sessions {
        let day = 1 + i % 28;
        let path = root.join(format!("2026/11/{day:02}/session-{i:05}.jsonl"));
        write_session(&path, 64 * 1024);
    }
    let mut times = Vec::new();
    let mut found = 0;
    for _ in 0..5 {
        let start = Instant::now();
        found = listing::list(&root).len();
        times.push(start.elapsed());
    }
    println!(
        "sessions list over {found} sessions: median {:?} (target <= 100 ms)",
        median(times)
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mb = args.first().and_then(|a| a.parse().ok()).unwrap_or(100);
    let sessions = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let dir = tempfile::tempdir().unwrap();
    bench_append(dir.path());
    bench_list(dir.path(), sessions);
    bench_load(dir.path(), mb);
}

//! Delegation benchmark: five parallel explore runs against the loopback mock. Measures each
//! child's start-up (from `delegate_started` to its first request reaching the model server)
//! and the resident memory the five live children add to the parent.
//!
//! `cargo bench -p cairn-core --bench delegation [-- ROUNDS]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use cairn_core::config::providers::{ProviderToml, resolve};
use cairn_core::{Config, SessionOptions};
use cairn_mock_model::chat::{self, call_response as call, text_response as text};
use cairn_mock_model::{Gate, MockResponse, MockServer};
use cairn_protocol::{EventMsg, Op};
use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const CHILDREN: usize = 5;

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

async fn round(home: &std::path::Path) -> (Vec<Duration>, i64) {
    let batch: Vec<_> = (0..CHILDREN)
        .map(|i| json!({"agent_id": "explore", "prompt": format!("question {i}")}))
        .collect();
    // Each child's answer waits at a gate, so all five are alive when memory is measured.
    let gate = Gate::new();
    let mut responses = vec![call("d", "delegate_agent", json!({"batch": batch}))];
    for i in 0..CHILDREN {
        responses.push(MockResponse::sse(chat::text(&format!("answer {i}"))).gate_at(0, &gate));
    }
    responses.push(text("done"));
    let server = MockServer::start(responses).await;
    let cwd = home.canonicalize().unwrap();
    let mut config = Config::for_test(home, &cwd);
    let mut providers = BTreeMap::new();
    providers.insert(
        "mock".to_string(),
        ProviderToml {
            base_url: Some(server.base_url()),
            ..ProviderToml::default()
        },
    );
    config.provider = Some(resolve("mock", &providers, &|_| None).unwrap());
    let mut session = cairn_core::spawn(config, SessionOptions { interactive: false });
    session.submit(Op::UserInput { text: "go".into() });
    // Wait for the parent's first request and its answer to arrive as delegate_started events.
    let mut started = Vec::new();
    while started.len() < CHILDREN {
        let event = session.events.recv().await.unwrap();
        if let EventMsg::DelegateStarted { .. } = event.msg {
            started.push(Instant::now());
        }
    }
    let before = rss_kib();
    let mut arrived = Vec::new();
    for n in 2..=CHILDREN + 1 {
        server.wait_for_requests(n).await;
        arrived.push(Instant::now());
    }
    let with_children = rss_kib();
    gate.open();
    loop {
        let event = session.events.recv().await.unwrap();
        if matches!(
            event.msg,
            EventMsg::TaskComplete { .. } | EventMsg::Error { .. }
        ) {
            break;
        }
    }
    let startups = started
        .iter()
        .zip(&arrived)
        .map(|(s, a)| a.saturating_duration_since(*s))
        .collect();
    (startups, with_children as i64 - before as i64)
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find(|a| a != "--bench")
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut startups = Vec::new();
    let mut rss = Vec::new();
    runtime.block_on(async {
        // One warm-up round: connections, lazy statics.
        round(home.path()).await;
        for _ in 0..rounds {
            let (s, r) = round(home.path()).await;
            startups.extend(s);
            rss.push(r);
        }
    });
    startups.sort();
    rss.sort();
    let median = startups[startups.len() / 2];
    let p90 = startups[startups.len() * 9 / 10];
    println!(
        "child start-up (delegate_started to first model request), {} runs: median {:?}, p90 {:?} (target <= 5 ms)",
        startups.len(),
        median,
        p90
    );
    println!(
        "resident memory of {CHILDREN} live children: median {} KiB in all, {:.2} MiB each (target <= 2 MiB each)",
        rss[rss.len() / 2],
        rss[rss.len() / 2] as f64 / 1024.0 / CHILDREN as f64
    );
}

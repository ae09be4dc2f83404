//! Times `grep_files` on a tree, for comparison with ripgrep (not a test).
//!
//! ```text
//! cargo run --release -p cairn-core --example grep_bench -- PATTERN DIR [RUNS]
//! hyperfine 'rg -n --hidden -g !.git PATTERN DIR' # the peer
//! ```
//! Prints the median wall time of RUNS searches (default 10) and the first result line.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use cairn_core::tools::{ToolCall, ToolContext, ToolRegistry};
use std::time::Instant;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(pattern), Some(dir)) = (args.next(), args.next()) else {
        eprintln!("usage: grep_bench PATTERN DIR [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(10);
    let dir = std::path::PathBuf::from(dir);
    let home = std::env::temp_dir();
    let (ctx, _events) = ToolContext::for_test(&home, &dir);
    let registry = ToolRegistry::for_config(ctx.config());
    let Some(handler) = registry.handler("grep_files") else {
        eprintln!("grep_files is not registered");
        std::process::exit(1);
    };
    let call = ToolCall {
        call_id: "bench".into(),
        name: "grep_files".into(),
        arguments: serde_json::json!({"pattern": pattern, "max_results": 2000}).to_string(),
    };
    let mut times = Vec::with_capacity(runs);
    let mut first = String::new();
    for _ in 0..runs {
        let started = Instant::now();
        let out = handler.handle(&call, &ctx).await;
        times.push(started.elapsed());
        first = match out {
            Ok(text) => text.lines().next().unwrap_or("").to_string(),
            Err(e) => e.to_string(),
        };
    }
    times.sort();
    println!(
        "median {:?} over {runs} runs; first line: {first}",
        times[runs / 2]
    );
}

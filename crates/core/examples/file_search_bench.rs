//! Times `@file` completion's two halves (not a test): the workspace walk, and one search
//! (the per-keystroke cost) over a full index of `MAX_FILES` paths.
//!
//! ```text
//! cargo run --release -p cairn-core --example file_search_bench -- [DIR] [RUNS]
//! ```
//! Walks DIR (default `.`) RUNS times (default 5) and prints the median; then searches an index
//! of 50,000 paths (DIR's paths, repeated under numbered prefixes to reach the cap) for a few
//! queries, 200 times each, and prints the median and worst search.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use cairn_core::file_search::{FileIndex, FileList, MAX_FILES, list_workspace_files};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Rows the TUI's popup shows.
const ROWS: usize = 8;
const SEARCHES: usize = 200;

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
    let Ok(dir) = dir.canonicalize() else {
        eprintln!("no such directory: {}", dir.display());
        std::process::exit(2);
    };
    let home = std::env::temp_dir().join("cairn-file-search-bench");
    let config = cairn_core::Config::for_test(&home, &dir);

    let mut walks = Vec::new();
    let mut list = FileList::default();
    for _ in 0..runs {
        let start = Instant::now();
        list = list_workspace_files(&config, &dir);
        walks.push(start.elapsed());
    }
    println!(
        "walk of {}: {} paths{}, median {:?} over {runs} runs",
        dir.display(),
        list.paths.len(),
        if list.truncated { " (capped)" } else { "" },
        median(&mut walks)
    );
    if list.paths.is_empty() {
        return;
    }

    // Fill the index to the cap with the tree's own paths, so the names look real.
    let mut paths = Vec::with_capacity(MAX_FILES);
    'fill: for copy in 0.. {
        for path in &list.paths {
            if paths.len() == MAX_FILES {
                break 'fill;
            }
            paths.push(if copy == 0 {
                path.clone()
            } else {
                format!("copy{copy}/{path}")
            });
        }
    }
    let start = Instant::now();
    let index = FileIndex::new(FileList {
        paths,
        truncated: true,
    });
    println!(
        "index of {} paths built in {:?}",
        index.len(),
        start.elapsed()
    );
    for query in ["", "m", "ma", "main", "src/ma", "xqzv", "cmpsr"] {
        let mut times = Vec::with_capacity(SEARCHES);
        let mut best = String::new();
        for _ in 0..SEARCHES {
            let start = Instant::now();
            let found = index.search(query, ROWS);
            times.push(start.elapsed());
            best = found.first().map(|m| m.path.clone()).unwrap_or_default();
        }
        let worst = times.iter().max().copied().unwrap_or_default();
        println!(
            "search {query:>8?}: median {:?}, worst {worst:?} (best: {best})",
            median(&mut times)
        );
    }
}

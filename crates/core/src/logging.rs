//! Logs go to `$CAIRN_HOME/logs/cairn.log`, never to the terminal (the TUI owns it and
//! `exec --json` promises stdout carries only events).

use std::path::Path;
use tracing_subscriber::EnvFilter;

/// Log lines waiting for the writer thread at most.
const LOG_QUEUE_LINES: usize = 1024;

/// Keeps the log writer alive; drop it last.
pub struct LogGuard(#[allow(dead_code)] Option<tracing_appender::non_blocking::WorkerGuard>);

/// Start logging to `logs_dir/cairn.log` at the level in `CAIRN_LOG` (default `info`).
/// If the directory cannot be created, logging is off; cairn works without it.
pub fn init(logs_dir: &Path) -> LogGuard {
    if std::fs::create_dir_all(logs_dir).is_err() {
        return LogGuard(None);
    }
    let appender = tracing_appender::rolling::never(logs_dir, "cairn.log");
    // The default queue holds 128,000 lines, allocated and initialised up front: 4 MB of
    // resident memory for a log that sees a few lines a minute. Lines beyond the limit are
    // dropped rather than blocking the UI thread.
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(LOG_QUEUE_LINES)
        .lossy(true)
        .finish(appender);
    let filter = EnvFilter::try_from_env("CAIRN_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let installed = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .try_init()
        .is_ok();
    LogGuard(installed.then_some(guard))
}

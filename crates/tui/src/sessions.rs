//! Saved sessions for the event loop: listing them for the picker and opening the chosen
//! one. Both read files, so both run off the loop (the blocking pool) and report back.

use crate::app_event::{AppEvent, AppEventSender};
use cairn_core::rollout::{self, listing};
use cairn_core::{Config, SessionHandle, SessionOptions};
use std::path::PathBuf;
use tokio::sync::mpsc;

/// What opening a session gave: its handle, or why it could not be opened.
pub type Opened = Result<SessionHandle, String>;

/// List the sessions of `config`'s home in the background; the picker gets
/// [`AppEvent::SessionsListed`].
pub fn list(config: &Config, tx: &AppEventSender) {
    let dir = rollout::sessions_dir(&config.cairn_home);
    let tx = tx.clone();
    tokio::task::spawn_blocking(move || {
        tx.send(AppEvent::SessionsListed(listing::list(&dir)));
    });
}

/// Load the session at `path` and start it in its own directory `cwd` (as `cairn resume`
/// does), locked against other processes; the result arrives on `done`.
pub fn open(config: &Config, path: PathBuf, cwd: PathBuf, done: mpsc::UnboundedSender<Opened>) {
    let mut config = config.clone();
    tokio::spawn(async move {
        let loaded = tokio::task::spawn_blocking(move || rollout::load(&path)).await;
        let opened = match loaded {
            Ok(Ok(loaded)) => {
                if cwd.is_dir() {
                    config.cwd = cwd;
                }
                cairn_core::resume(config, SessionOptions { interactive: true }, loaded)
                    .map_err(|e| e.to_string())
            }
            Ok(Err(err)) => Err(err.to_string()),
            Err(err) => Err(format!("reading the session log stopped: {err}")),
        };
        let _ = done.send(opened);
    });
}

//! The workspace's files for the `@` popup, listed with core's `file_search` off the event
//! loop: a walk of a large tree takes long enough to drop frames.

use crate::app_event::{AppEvent, AppEventSender};
use cairn_core::Config;
use cairn_core::file_search::{FileIndex, list_workspace_files};
use std::path::PathBuf;
use std::sync::Arc;

/// List the files below `root` in the background; the app gets [`AppEvent::FilesListed`].
pub fn list(config: &Config, root: PathBuf, tx: &AppEventSender) {
    let config = config.clone();
    let tx = tx.clone();
    tokio::task::spawn_blocking(move || {
        let index = Arc::new(FileIndex::new(list_workspace_files(&config, &root)));
        tx.send(AppEvent::FilesListed { root, index });
    });
}

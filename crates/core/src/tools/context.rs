//! What a tool call gets from the session.

use crate::config::Config;
use crate::session::EventSink;
use crate::session::shared::SessionShared;
use cairn_protocol::EventMsg;
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The context of one tool call.
#[derive(Clone)]
pub struct ToolContext {
    /// Id of the submission being served (events carry it).
    pub sub_id: String,
    /// The model's id for this call.
    pub call_id: String,
    /// Working directory and workspace root.
    pub cwd: PathBuf,
    /// Where events go.
    pub events: EventSink,
    /// Cancelled when the user interrupts; long-running tools must watch it.
    pub cancel: CancellationToken,
    /// Session state (plan mode, stores, pending replies).
    pub shared: Arc<SessionShared>,
}

impl ToolContext {
    /// Emit an event tagged with this call's submission id.
    pub fn emit(&self, msg: EventMsg) {
        self.events.send(&self.sub_id, msg);
    }

    /// The session's configuration.
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// A context for unit tests: a session rooted at `cwd` with `$CAIRN_HOME` at `home`,
    /// and the receiving end of its events.
    #[doc(hidden)]
    pub fn for_test(
        home: &std::path::Path,
        cwd: &std::path::Path,
    ) -> (
        Self,
        tokio::sync::mpsc::UnboundedReceiver<cairn_protocol::Event>,
    ) {
        let config = Config::for_test(home, cwd);
        let (events, rx) = EventSink::channel();
        let shared = Arc::new(SessionShared::new(config, None, false));
        let ctx = Self {
            sub_id: "test".into(),
            call_id: "call_test".into(),
            cwd: cwd.to_path_buf(),
            events,
            cancel: CancellationToken::new(),
            shared,
        };
        (ctx, rx)
    }
}

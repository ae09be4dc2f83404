//! Helpers for the handlers' unit tests.

use crate::tools::{ToolCall, ToolContext, ToolError, ToolHandler};
use std::path::{Path, PathBuf};

/// A temporary workspace; `root` is canonical so paths compare equal to resolved ones.
pub(crate) struct Workspace {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub ctx: ToolContext,
}

impl Workspace {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        let home = dir.path().canonicalize().unwrap().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let (ctx, _events) = ToolContext::for_test(&home, &root);
        Self {
            _dir: dir,
            root,
            ctx,
        }
    }

    /// Write `contents` at `rel`, creating directories.
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
        path
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn exists(&self, rel: &str) -> bool {
        Path::new(&self.root.join(rel)).exists()
    }

    /// Run `handler` with JSON `args`.
    pub async fn run(
        &self,
        handler: &dyn ToolHandler,
        args: serde_json::Value,
    ) -> Result<String, ToolError> {
        let call = ToolCall {
            call_id: "call_test".into(),
            name: handler.spec().name,
            arguments: args.to_string(),
        };
        handler.handle(&call, &self.ctx).await
    }

    /// Run and expect success.
    pub async fn ok(&self, handler: &dyn ToolHandler, args: serde_json::Value) -> String {
        match self.run(handler, args).await {
            Ok(out) => out,
            Err(e) => panic!("expected success, got {e:?}"),
        }
    }

    /// Run and expect a message for the model.
    pub async fn err(&self, handler: &dyn ToolHandler, args: serde_json::Value) -> String {
        match self.run(handler, args).await {
            Err(ToolError::RespondToModel(text)) => text,
            other => panic!("expected RespondToModel, got {other:?}"),
        }
    }
}

//! The session's MCP servers: started in the background when the session starts, waited for
//! only by a turn that begins while some are still starting, and reported once when they
//! fail. Tools of ready servers are handed to the tool registry as [`McpToolHandler`]s.

use super::connect::{self, Connection};
use super::handler::McpToolHandler;
use super::{naming, output, schema};
use crate::config::McpServerConfig;
use crate::session::EventSink;
use crate::session::shared::lock;
use crate::tools::{ToolError, ToolSpec};
use cairn_protocol::{EventMsg, McpServerState, McpServerStatus, McpToolStatus};
use rmcp::model::{JsonObject, Tool};
use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// How often a ready server is checked for having died between calls.
const WATCH_INTERVAL: Duration = Duration::from_secs(2);

/// One tool of a ready server, as the model sees it and as the user configured it.
#[derive(Debug, Clone)]
pub struct McpToolEntry {
    /// Index of its server in [`McpManager`].
    pub(super) server: usize,
    /// The server's `[mcp_servers.<name>]` name.
    pub server_name: String,
    /// The server's own name for the tool.
    pub tool: String,
    /// What the model is offered (`mcp__<server>__<tool>`).
    pub spec: ToolSpec,
    /// Read-only by the user's config (never by the server's word).
    pub read_only: bool,
    /// The server's `readOnlyHint`, shown only.
    pub read_only_hint: Option<bool>,
}

enum State {
    Disabled,
    Starting,
    Ready {
        connection: Arc<Connection>,
        tools: Vec<Arc<McpToolEntry>>,
    },
    Failed(String),
}

struct Server {
    config: McpServerConfig,
    state: Mutex<State>,
    /// The last call that failed at the server (timeout, refusal), for `/mcp`.
    last_error: Mutex<Option<String>>,
}

/// The MCP servers of a session (shared by its delegated runs).
pub struct McpManager {
    servers: Vec<Server>,
    /// Servers still starting; a turn waits until it reaches 0.
    starting: watch::Sender<usize>,
    /// Exposed names handed out, so two tools never share one.
    taken: Mutex<HashSet<String>>,
    /// Where failures are reported (once per server).
    events: EventSink,
}

impl McpManager {
    /// Start every enabled server of `servers` in the background; failures are reported on
    /// `events` as notices. Must be called inside a tokio runtime.
    pub fn start(servers: &[McpServerConfig], events: EventSink) -> Arc<Self> {
        let enabled = servers.iter().filter(|s| s.enabled).count();
        let (starting, _) = watch::channel(enabled);
        let manager = Arc::new(Self {
            servers: servers
                .iter()
                .map(|config| Server {
                    config: config.clone(),
                    state: Mutex::new(if config.enabled {
                        State::Starting
                    } else {
                        State::Disabled
                    }),
                    last_error: Mutex::new(None),
                })
                .collect(),
            starting,
            taken: Mutex::new(HashSet::new()),
            events,
        });
        for index in 0..manager.servers.len() {
            if manager.servers[index].config.enabled {
                let manager = manager.clone();
                tokio::spawn(async move { manager.start_one(index).await });
            }
        }
        manager
    }

    async fn start_one(self: Arc<Self>, index: usize) {
        let server = &self.servers[index];
        let result = connect::connect(&server.config).await;
        let state = match result {
            Ok((connection, tools)) => {
                let connection = Arc::new(connection);
                self.watch(index, Arc::downgrade(&connection));
                State::Ready {
                    tools: self.entries(index, &tools),
                    connection,
                }
            }
            Err(error) => {
                tracing::warn!(server = %server.config.name, %error, "mcp server failed to start");
                self.report(&server.config.name, &format!("failed to start: {error}"));
                State::Failed(error)
            }
        };
        *lock(&server.state) = state;
        self.starting.send_modify(|n| *n = n.saturating_sub(1));
    }

    /// Report server `index` once if it dies between calls. Holds neither the manager nor
    /// the connection, so a finished session still drops (and stops) its servers.
    fn watch(self: &Arc<Self>, index: usize, connection: Weak<Connection>) {
        let manager = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(WATCH_INTERVAL).await;
                let (Some(manager), Some(connection)) = (manager.upgrade(), connection.upgrade())
                else {
                    return;
                };
                if connection.is_closed() {
                    manager.mark_stopped(index, &connection);
                    return;
                }
            }
        });
    }

    /// The tool entries of server `index` from its `tools/list`, filtered by
    /// `enabled_tools`/`disabled_tools`.
    fn entries(&self, index: usize, tools: &[Tool]) -> Vec<Arc<McpToolEntry>> {
        let config = &self.servers[index].config;
        let mut taken = lock(&self.taken);
        tools
            .iter()
            .filter(|tool| config.offers(&tool.name))
            .map(|tool| {
                let name = naming::exposed_name(&config.name, &tool.name, &mut taken);
                let description = tool
                    .description
                    .as_deref()
                    .filter(|d| !d.trim().is_empty())
                    .or(tool.title.as_deref())
                    .map_or_else(
                        || format!("Tool `{}` of the MCP server `{}`.", tool.name, config.name),
                        str::to_string,
                    );
                Arc::new(McpToolEntry {
                    server: index,
                    server_name: config.name.clone(),
                    tool: tool.name.to_string(),
                    spec: ToolSpec {
                        name,
                        description,
                        parameters: schema::for_model(&tool.input_schema),
                    },
                    read_only: config.is_read_only(&tool.name),
                    read_only_hint: tool.annotations.as_ref().and_then(|a| a.read_only_hint),
                })
            })
            .collect()
    }

    fn report(&self, server: &str, what: &str) {
        self.events.send(
            "",
            EventMsg::Notice {
                message: format!(
                    "MCP server '{server}' {what}\nIts tools are not available; /mcp shows the status of every server."
                ),
            },
        );
    }

    /// Wait until no server is still starting (each is bounded by its own start-up
    /// timeout). Returns false when `cancel` fired first.
    pub async fn wait_for_startup(&self, cancel: &CancellationToken) -> bool {
        let mut starting = self.starting.subscribe();
        tokio::select! {
            _ = cancel.cancelled() => false,
            result = starting.wait_for(|n| *n == 0) => {
                let _ = result;
                true
            }
        }
    }

    /// Handlers for the tools of every ready server, in server order.
    pub fn handlers(self: &Arc<Self>) -> Vec<McpToolHandler> {
        self.servers
            .iter()
            .flat_map(|server| match &*lock(&server.state) {
                State::Ready { tools, .. } => tools.clone(),
                _ => Vec::new(),
            })
            .map(|entry| McpToolHandler::new(self.clone(), entry))
            .collect()
    }

    /// The entry of the tool the model calls `name`, if a ready server offers it.
    pub fn tool(&self, name: &str) -> Option<Arc<McpToolEntry>> {
        if !naming::is_mcp_name(name) {
            return None;
        }
        self.servers
            .iter()
            .find_map(|server| match &*lock(&server.state) {
                State::Ready { tools, .. } => tools.iter().find(|t| t.spec.name == name).cloned(),
                _ => None,
            })
    }

    /// Why `name`, the exposed name of a tool of a server that is not ready, cannot be
    /// called. A server that died between turns no longer offers its tools, but the model
    /// saw them earlier in the conversation: a call it makes anyway should learn that the
    /// server stopped, not that the tool never existed.
    pub fn unavailable(&self, name: &str) -> Option<String> {
        // Server names never contain `__`, so the first one after `mcp__` ends the name.
        let (server_name, _) = name.strip_prefix(naming::PREFIX)?.split_once("__")?;
        let server = self.servers.iter().find(|s| s.config.name == server_name)?;
        let why = match &*lock(&server.state) {
            State::Ready { .. } => return None,
            State::Failed(error) => error.clone(),
            State::Disabled => "it is disabled: `enabled = false`".to_string(),
            State::Starting => "it is still starting".to_string(),
        };
        Some(unavailable_text(server_name, &why))
    }

    /// True when `name` is an MCP tool the user configured read-only.
    pub fn is_read_only(&self, name: &str) -> bool {
        self.tool(name).is_some_and(|t| t.read_only)
    }

    /// Every server's status, in name order.
    pub fn status(&self) -> Vec<McpServerStatus> {
        self.servers
            .iter()
            .map(|server| {
                let (state, tools, error) = match &*lock(&server.state) {
                    State::Disabled => (McpServerState::Disabled, Vec::new(), None),
                    State::Starting => (McpServerState::Starting, Vec::new(), None),
                    State::Ready { tools, connection } if connection.is_closed() => (
                        McpServerState::Failed,
                        Vec::new(),
                        Some(stopped(connection)),
                    ),
                    State::Ready { tools, .. } => (
                        McpServerState::Ready,
                        tools
                            .iter()
                            .map(|t| McpToolStatus {
                                name: t.spec.name.clone(),
                                tool: t.tool.clone(),
                                read_only: t.read_only,
                                read_only_hint: t.read_only_hint,
                            })
                            .collect(),
                        lock(&server.last_error).clone(),
                    ),
                    State::Failed(error) => {
                        (McpServerState::Failed, Vec::new(), Some(error.clone()))
                    }
                };
                McpServerStatus {
                    name: server.config.name.clone(),
                    transport: server.config.transport.describe(),
                    state,
                    tools,
                    error,
                }
            })
            .collect()
    }

    /// Call `entry` with the model's `arguments`, within the server's tool timeout. The
    /// caller (the dispatcher) cancels the future on interrupt, which cancels the request.
    pub(super) async fn call(
        &self,
        entry: &McpToolEntry,
        arguments: Option<JsonObject>,
    ) -> Result<String, ToolError> {
        let server = &self.servers[entry.server];
        let connection = match &*lock(&server.state) {
            State::Ready { connection, .. } => connection.clone(),
            State::Failed(error) => return Err(unavailable(&entry.server_name, error)),
            State::Disabled | State::Starting => {
                return Err(unavailable(&entry.server_name, "it is not running"));
            }
        };
        if connection.is_closed() {
            return Err(self.mark_stopped(entry.server, &connection));
        }
        let timeout = server.config.tool_timeout;
        let result = tokio::time::timeout(timeout, connection.call(&entry.tool, arguments)).await;
        let failed = |message: String| {
            *lock(&server.last_error) = Some(message.clone());
            Err(ToolError::RespondToModel(message))
        };
        match result {
            Err(_) => failed(format!(
                "The MCP tool '{}' of server '{}' did not answer within {} ms and was cancelled ([mcp_servers.{}] tool_timeout_ms).",
                entry.tool,
                entry.server_name,
                timeout.as_millis(),
                entry.server_name
            )),
            Ok(Ok(result)) => {
                let (text, is_error) = output::render(&result);
                if is_error {
                    Err(ToolError::RespondToModel(text))
                } else {
                    Ok(text)
                }
            }
            Ok(Err(error)) if connection.is_gone(&error) => {
                Err(self.mark_stopped(entry.server, &connection))
            }
            Ok(Err(error)) => failed(format!(
                "The MCP server '{}' refused the call of '{}': {error}",
                entry.server_name, entry.tool
            )),
        }
    }

    /// Record that server `index` stopped and say so once.
    fn mark_stopped(&self, index: usize, connection: &Connection) -> ToolError {
        let server = &self.servers[index];
        let why = stopped(connection);
        let mut state = lock(&server.state);
        if !matches!(&*state, State::Failed(_)) {
            *state = State::Failed(why.clone());
            drop(state);
            self.report(&server.config.name, &why);
        }
        unavailable(&server.config.name, &why)
    }
}

fn stopped(connection: &Connection) -> String {
    match connection.stderr_tail() {
        Some(tail) => format!("stopped; it wrote:\n{tail}"),
        None => "stopped (the connection closed)".to_string(),
    }
}

fn unavailable(server: &str, why: &str) -> ToolError {
    ToolError::RespondToModel(unavailable_text(server, why))
}

fn unavailable_text(server: &str, why: &str) -> String {
    format!(
        "The MCP server '{server}' is not available ({why}); its tools cannot be used in this session. Continue without them."
    )
}

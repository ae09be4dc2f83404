//! Reaching one MCP server through `rmcp`: start it (stdio) or open it (streamable HTTP),
//! initialise, and list its tools, all within the server's start-up timeout.

use crate::config::{McpServerConfig, McpTransport};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    JsonObject, Tool,
};
use rmcp::service::{ClientInitializeError, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ServiceError, ServiceExt};
use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, BufReader};

/// Variables a stdio server inherits from cairn's environment; everything else (API keys
/// above all) stays out unless `env` sets it. The set lets `npx`, `node`, `uvx` and
/// `python` find their programs, caches and locale.
const INHERITED_ENV: &[&str] = &[
    "HOME",
    "LOGNAME",
    "USER",
    "PATH",
    "SHELL",
    "TERM",
    "TMPDIR",
    "TZ",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
];

/// Lines of a server's stderr kept to explain a failure.
const STDERR_LINES: usize = 8;

/// A running connection.
pub(super) struct Connection {
    service: RunningService<RoleClient, ClientConfig>,
    /// The process group of a stdio server, killed when the connection goes.
    process_group: Option<i32>,
    stderr: StderrTail,
}

impl Connection {
    /// One `tools/call`. Dropping the future cancels the request at the server.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallToolResult, ServiceError> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        self.service.call_tool(params).await
    }

    /// True when the server has gone (exited, or the connection broke).
    pub fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.is_transport_closed()
    }

    /// True when a call failed with `error` because the server is gone. A stdio server
    /// killed mid-session can fail the next call (its stdin is a broken pipe) a moment
    /// before rmcp has read the end of its output and closed the service, so `is_closed`
    /// alone would call a dead server's failure a refusal.
    pub fn is_gone(&self, error: &ServiceError) -> bool {
        match error {
            ServiceError::TransportClosed => true,
            // Writing to a stdio server fails only when it no longer reads; an HTTP request
            // can fail for reasons that pass (a proxy, a restart), so only a closed
            // connection counts there.
            ServiceError::TransportSend(_) => self.process_group.is_some(),
            _ => self.is_closed(),
        }
    }

    /// The last lines the server wrote to stderr, for error messages.
    pub fn stderr_tail(&self) -> Option<String> {
        self.stderr.text()
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        // rmcp kills the server process itself from a spawned task, which may never run when
        // the runtime is shutting down; the whole group (npx's node child too) goes here.
        if let Some(group) = self.process_group {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(group),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
    }
}

/// The last lines of a server's stderr, and whether it reached its end.
#[derive(Clone)]
struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    ended: Arc<tokio::sync::watch::Sender<bool>>,
}

impl Default for StderrTail {
    fn default() -> Self {
        Self {
            lines: Arc::default(),
            ended: Arc::new(tokio::sync::watch::channel(false).0),
        }
    }
}

impl StderrTail {
    /// Give a server that just failed a moment to finish writing why.
    async fn settle(&self) {
        let mut ended = self.ended.subscribe();
        let _ = tokio::time::timeout(
            std::time::Duration::from_millis(300),
            ended.wait_for(|done| *done),
        )
        .await;
    }

    fn push(&self, line: String) {
        let mut lines = crate::session::shared::lock(&self.lines);
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    fn text(&self) -> Option<String> {
        let lines = crate::session::shared::lock(&self.lines);
        let text = lines
            .iter()
            .map(|l| l.trim_end())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        (!text.is_empty()).then_some(text)
    }
}

/// Connect to `server` and list its tools, within its start-up timeout.
pub(super) async fn connect(server: &McpServerConfig) -> Result<(Connection, Vec<Tool>), String> {
    let stderr = StderrTail::default();
    let attempt = async {
        let (service, process_group) = start(server, &stderr).await?;
        let tools = service
            .list_all_tools()
            .await
            .map_err(|e| format!("listing its tools failed: {e}"))?;
        Ok::<_, String>((service, process_group, tools))
    };
    let result = tokio::time::timeout(server.startup_timeout, attempt).await;
    if !matches!(result, Ok(Ok(_))) {
        stderr.settle().await;
    }
    let with_stderr = |message: String| match stderr.text() {
        Some(tail) => format!("{message}; it wrote:\n{tail}"),
        None => message,
    };
    match result {
        Ok(Ok((service, process_group, tools))) => Ok((
            Connection {
                service,
                process_group,
                stderr,
            },
            tools,
        )),
        Ok(Err(message)) => Err(with_stderr(message)),
        Err(_) => Err(with_stderr(format!(
            "it did not finish starting within {} ms (raise startup_timeout_ms in [mcp_servers.{}] if it is just slow)",
            server.startup_timeout.as_millis(),
            server.name
        ))),
    }
}

fn client_info() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("cairn", env!("CARGO_PKG_VERSION")),
    )
}

/// Start the transport and initialise.
async fn start(
    server: &McpServerConfig,
    stderr: &StderrTail,
) -> Result<(RunningService<RoleClient, ClientConfig>, Option<i32>), String> {
    match &server.transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args)
                .current_dir(cwd)
                .env_clear()
                .envs(
                    INHERITED_ENV.iter().filter_map(|key| {
                        std::env::var_os(key).map(|value| (key.to_string(), value))
                    }),
                )
                .envs(env)
                // Its own group, so the server and everything it starts can be killed together.
                .process_group(0)
                .kill_on_drop(true);
            let (transport, child_stderr) = TokioChildProcess::builder(cmd)
                // Servers log to stderr; inherited, it would scribble over the TUI.
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| {
                    format!(
                        "could not start `{command}` in {}: {e}; check `command` and `cwd` in [mcp_servers.{}]",
                        cwd.display(),
                        server.name
                    )
                })?;
            let group = transport.id().and_then(|id| i32::try_from(id).ok());
            if let Some(child_stderr) = child_stderr {
                let tail = stderr.clone();
                let name = server.name.clone();
                tokio::spawn(async move {
                    let mut lines = BufReader::new(child_stderr).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        tracing::debug!(server = %name, "mcp stderr: {line}");
                        tail.push(line);
                    }
                    tail.ended.send_replace(true);
                });
            }
            let service = client_info()
                .serve(transport)
                .await
                .map_err(|e| match e {
                    ClientInitializeError::ConnectionClosed(_) => {
                        "it exited or closed its output before answering `initialize`; is it an MCP server speaking stdio?".to_string()
                    }
                    e => format!("it did not complete the MCP handshake (initialize): {e}"),
                })?;
            Ok((service, group))
        }
        McpTransport::Http {
            url,
            bearer_token_env,
            bearer_token,
        } => {
            if let (Some(variable), None) = (bearer_token_env, bearer_token) {
                return Err(format!(
                    "bearer_token_env names ${variable}, which is not set; export it before starting cairn"
                ));
            }
            install_crypto_provider();
            let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            if let Some(token) = bearer_token {
                config = config.auth_header(token.clone());
            }
            let transport = StreamableHttpClientTransport::from_config(config);
            let service = client_info().serve(transport).await.map_err(|e| {
                // rmcp's outer wording names its own generic types
                // ("WorkerTransport<StreamableHttpClientWorker<...>>"); the innermost cause
                // is the part a user can read.
                let cause = match &e {
                    ClientInitializeError::TransportError { error, .. } => innermost(error),
                    e => innermost(e),
                };
                format!(
                    "could not initialise an MCP session at {url}: {cause}; check that the server is running and that `url` in [mcp_servers.{}] is its streamable HTTP endpoint",
                    server.name
                )
            })?;
            Ok((service, None))
        }
    }
}

/// The text of the last error in `error`'s chain of sources.
fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

/// rustls needs a process-wide crypto provider; cairn uses ring, as the model clients do.
fn install_crypto_provider() {
    // Fails only when one is already installed, which is what we want.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

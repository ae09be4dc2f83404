//! `[mcp_servers.<name>]`: the MCP servers whose tools a session offers (docs/mcp.md).
//!
//! What the model may do with a server's tools is decided here, by the user's config: a tool
//! is read-only (offered in plan mode, run unasked under `on-request`) only when
//! `read_only = true` or `read_only_tools` names it, never because the server says so.

use super::ConfigError;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Default of `startup_timeout_ms`: ten seconds.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);
/// Default of `tool_timeout_ms`: one minute.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);
/// Longest server name: with `mcp__` and a tool name it must fit the providers' 64 characters.
pub const MAX_SERVER_NAME: usize = 32;

/// `[mcp_servers.<name>]` as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerToml {
    /// Program to start (stdio transport).
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables set for it, on top of a minimal inherited set.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Its working directory (relative to the workspace); the workspace by default.
    pub cwd: Option<PathBuf>,
    /// URL of a streamable HTTP server.
    pub url: Option<String>,
    /// Environment variable holding a bearer token sent to `url`.
    pub bearer_token_env: Option<String>,
    /// `false` keeps the entry without starting the server.
    pub enabled: Option<bool>,
    /// How long the server may take to start and list its tools.
    pub startup_timeout_ms: Option<u64>,
    /// How long one tool call may take.
    pub tool_timeout_ms: Option<u64>,
    /// Every tool of the server only reads.
    pub read_only: Option<bool>,
    /// These tools only read.
    pub read_only_tools: Option<Vec<String>>,
    /// Offer only these tools.
    pub enabled_tools: Option<Vec<String>>,
    /// Never offer these tools.
    pub disabled_tools: Option<Vec<String>>,
}

/// How cairn reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        /// Program.
        command: String,
        /// Arguments.
        args: Vec<String>,
        /// Variables set on top of the inherited minimal environment.
        env: BTreeMap<String, String>,
        /// Working directory, absolute.
        cwd: PathBuf,
    },
    /// Streamable HTTP.
    Http {
        /// Endpoint.
        url: String,
        /// The variable named by `bearer_token_env`, if any.
        bearer_token_env: Option<String>,
        /// Its value when the config was loaded.
        bearer_token: Option<String>,
    },
}

impl McpTransport {
    /// One line for `/mcp` and `cairn mcp list`: the command line or the URL.
    pub fn describe(&self) -> String {
        match self {
            Self::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .map(|word| shlex::try_quote(word).map_or_else(|_| word.to_string(), Into::into))
                .collect::<Vec<_>>()
                .join(" "),
            Self::Http { url, .. } => url.clone(),
        }
    }
}

/// Which of a server's tools the user declared read-only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOnlyTools {
    /// `read_only = true`.
    All,
    /// `read_only_tools` (empty: none).
    Only(BTreeSet<String>),
}

/// One server as a session uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    /// The table's name; tools are offered as `mcp__<name>__<tool>`.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// False: listed, never started.
    pub enabled: bool,
    /// Start-up and tool listing limit.
    pub startup_timeout: Duration,
    /// Limit of one call.
    pub tool_timeout: Duration,
    /// Tools that only read, by the user's word.
    pub read_only: ReadOnlyTools,
    /// Offer only these (by the server's tool names).
    pub enabled_tools: Option<BTreeSet<String>>,
    /// Never offer these.
    pub disabled_tools: BTreeSet<String>,
}

impl McpServerConfig {
    /// True when the user declared `tool` (the server's name for it) read-only.
    pub fn is_read_only(&self, tool: &str) -> bool {
        match &self.read_only {
            ReadOnlyTools::All => true,
            ReadOnlyTools::Only(tools) => tools.contains(tool),
        }
    }

    /// True when `tool` may be offered at all.
    pub fn offers(&self, tool: &str) -> bool {
        !self.disabled_tools.contains(tool)
            && self
                .enabled_tools
                .as_ref()
                .is_none_or(|only| only.contains(tool))
    }
}

/// True for a usable server name: 1 to 32 of `A-Z a-z 0-9 _ -`, without `__` (the separator
/// of `mcp__<server>__<tool>`).
pub fn is_valid_server_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_SERVER_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !name.contains("__")
}

/// Check and resolve every `[mcp_servers]` entry. `file` names the config file in errors;
/// relative `cwd`s resolve against the workspace `cwd`; `env` supplies bearer tokens.
pub fn resolve_servers(
    servers: &BTreeMap<String, McpServerToml>,
    file: &Path,
    cwd: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<McpServerConfig>, ConfigError> {
    servers
        .iter()
        .map(|(name, toml)| {
            resolve_server(name, toml, cwd, env).map_err(|message| ConfigError::File {
                path: file.to_path_buf(),
                message,
            })
        })
        .collect()
}

/// One entry; the error names the key.
pub fn resolve_server(
    name: &str,
    toml: &McpServerToml,
    cwd: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<McpServerConfig, String> {
    let key = format!("mcp_servers.{name}");
    if !is_valid_server_name(name) {
        return Err(format!(
            "{key}: server names may use only A-Z, a-z, 0-9, `_` and `-` (no `__`), at most {MAX_SERVER_NAME} characters"
        ));
    }
    let transport = match (&toml.command, &toml.url) {
        (Some(command), None) => {
            if command.trim().is_empty() {
                return Err(format!("{key}.command is empty; give the program to start"));
            }
            if toml.bearer_token_env.is_some() {
                return Err(format!(
                    "{key}.bearer_token_env is for servers reached by `url`; a stdio server gets variables from `env`"
                ));
            }
            let dir = toml
                .cwd
                .as_deref()
                .map_or_else(|| cwd.to_path_buf(), |d| cwd.join(d));
            McpTransport::Stdio {
                command: command.clone(),
                args: toml.args.clone(),
                env: toml.env.clone(),
                cwd: dir,
            }
        }
        (None, Some(url)) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "{key}.url is `{url}`; give an http:// or https:// URL of a streamable HTTP server"
                ));
            }
            if !toml.args.is_empty() || !toml.env.is_empty() || toml.cwd.is_some() {
                return Err(format!(
                    "{key}: `args`, `env` and `cwd` are for servers started with `command`, not `url`"
                ));
            }
            let bearer_token = toml
                .bearer_token_env
                .as_deref()
                .and_then(env)
                .filter(|v| !v.trim().is_empty());
            McpTransport::Http {
                url: url.clone(),
                bearer_token_env: toml.bearer_token_env.clone(),
                bearer_token,
            }
        }
        (Some(_), Some(_)) => {
            return Err(format!(
                "{key}: give either `command` (a stdio server) or `url` (a streamable HTTP server), not both"
            ));
        }
        (None, None) => {
            return Err(format!(
                "{key}: give `command` (a stdio server) or `url` (a streamable HTTP server)"
            ));
        }
    };
    let millis = |field: &str, value: Option<u64>, default: Duration| match value {
        Some(0) => Err(format!(
            "{key}.{field} is 0; give a time in milliseconds (default {})",
            default.as_millis()
        )),
        Some(ms) => Ok(Duration::from_millis(ms)),
        None => Ok(default),
    };
    let read_only = match (toml.read_only, &toml.read_only_tools) {
        (Some(true), Some(_)) => {
            return Err(format!(
                "{key}: `read_only = true` already covers every tool; drop `read_only_tools` or set `read_only = false`"
            ));
        }
        (Some(true), None) => ReadOnlyTools::All,
        (_, tools) => ReadOnlyTools::Only(tools.iter().flatten().cloned().collect()),
    };
    Ok(McpServerConfig {
        name: name.to_string(),
        transport,
        enabled: toml.enabled.unwrap_or(true),
        startup_timeout: millis(
            "startup_timeout_ms",
            toml.startup_timeout_ms,
            DEFAULT_STARTUP_TIMEOUT,
        )?,
        tool_timeout: millis(
            "tool_timeout_ms",
            toml.tool_timeout_ms,
            DEFAULT_TOOL_TIMEOUT,
        )?,
        read_only,
        enabled_tools: toml
            .enabled_tools
            .as_ref()
            .map(|tools| tools.iter().cloned().collect()),
        disabled_tools: toml.disabled_tools.iter().flatten().cloned().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(toml: &str) -> Result<Vec<McpServerConfig>, String> {
        #[derive(Deserialize)]
        struct File {
            mcp_servers: BTreeMap<String, McpServerToml>,
        }
        let file: File = toml::from_str(toml).map_err(|e| e.to_string())?;
        resolve_servers(
            &file.mcp_servers,
            Path::new("/home/u/.cairn/config.toml"),
            Path::new("/work"),
            &|k| (k == "TOKEN").then(|| "secret".to_string()),
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn stdio_server_with_defaults() {
        let servers =
            resolve("[mcp_servers.fs]\ncommand = \"npx\"\nargs = [\"-y\", \"server\", \"/tmp/a b\"]\ncwd = \"sub\"\n")
                .unwrap();
        let fs = &servers[0];
        assert_eq!(fs.name, "fs");
        assert!(fs.enabled);
        assert_eq!(fs.startup_timeout, DEFAULT_STARTUP_TIMEOUT);
        assert_eq!(fs.tool_timeout, DEFAULT_TOOL_TIMEOUT);
        assert_eq!(fs.read_only, ReadOnlyTools::Only(BTreeSet::new()));
        assert!(!fs.is_read_only("read_file"));
        assert_eq!(fs.transport.describe(), "npx -y server '/tmp/a b'");
        let McpTransport::Stdio { cwd, .. } = &fs.transport else {
            panic!("stdio expected");
        };
        assert_eq!(cwd, Path::new("/work/sub"));
    }

    #[test]
    fn http_server_reads_its_token_from_the_environment() {
        let servers = resolve(
            "[mcp_servers.docs]\nurl = \"https://example.invalid/mcp\"\nbearer_token_env = \"TOKEN\"\nread_only = true\n",
        )
        .unwrap();
        assert_eq!(
            servers[0].transport,
            McpTransport::Http {
                url: "https://example.invalid/mcp".into(),
                bearer_token_env: Some("TOKEN".into()),
                bearer_token: Some("secret".into()),
            }
        );
        assert!(servers[0].is_read_only("anything"));
    }

    #[test]
    fn tool_lists_filter_and_mark() {
        let servers = resolve(
            "[mcp_servers.fs]\ncommand = \"x\"\nread_only_tools = [\"read\"]\nenabled_tools = [\"read\", \"write\"]\ndisabled_tools = [\"write\"]\n",
        )
        .unwrap();
        let fs = &servers[0];
        assert!(fs.is_read_only("read") && !fs.is_read_only("write"));
        assert!(fs.offers("read") && !fs.offers("write") && !fs.offers("other"));
    }

    #[test]
    fn mistakes_name_the_file_and_key() {
        for (toml, expected) in [
            (
                "[mcp_servers.fs]\nargs = []\n",
                "mcp_servers.fs: give `command`",
            ),
            (
                "[mcp_servers.fs]\ncommand = \"x\"\nurl = \"http://h\"\n",
                "not both",
            ),
            (
                "[mcp_servers.fs]\nurl = \"ftp://h\"\n",
                "mcp_servers.fs.url is `ftp://h`",
            ),
            (
                "[mcp_servers.fs]\ncommand = \"x\"\ntool_timeout_ms = 0\n",
                "mcp_servers.fs.tool_timeout_ms is 0",
            ),
            (
                "[mcp_servers.\"a.b\"]\ncommand = \"x\"\n",
                "mcp_servers.a.b: server names",
            ),
            ("[mcp_servers.a__b]\ncommand = \"x\"\n", "no `__`"),
            (
                "[mcp_servers.fs]\ncommand = \"x\"\nread_only = true\nread_only_tools = [\"a\"]\n",
                "already covers every tool",
            ),
            (
                "[mcp_servers.fs]\ncommand = \"x\"\nbearer_token_env = \"T\"\n",
                "mcp_servers.fs.bearer_token_env",
            ),
        ] {
            let err = resolve(toml).unwrap_err();
            assert!(err.contains(expected), "{toml}: {err}");
            assert!(err.contains("/home/u/.cairn/config.toml"), "{err}");
        }
    }
}

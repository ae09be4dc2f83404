//! Configuration: `$CAIRN_HOME/config.toml`, `-c key=value` overrides and the environment.
//!
//! Loading never fails because no provider is configured: the session starts and says how to
//! configure one. It fails only on a config file or override that cannot be understood, and
//! then the error names the file, the line and the key.

mod describe;
mod detect;
pub mod mcp;
mod multi_agent;
pub mod providers;
pub mod web;

pub use describe::describe_providers;

pub use crate::model_family::{EditTools, ModelFamily};
use cairn_protocol::ApprovalPolicy;
pub use detect::{LocalOllama, describe_provider_choice, probe_ollama};
pub use mcp::{McpServerConfig, McpServerToml, McpTransport};
use multi_agent::multi_agent_settings;
pub use multi_agent::{AgentToml, MultiAgentSettings, MultiAgentToml};
pub use providers::{ProviderInfo, ProviderToml, WireApi};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
pub use web::{SearchBackend, SearchSettings, WebSettings, WebToml};

/// The one line shown when no provider could be chosen.
pub const NO_PROVIDER_GUIDANCE: &str = "No model provider configured: set OPENAI_API_KEY or ANTHROPIC_API_KEY, start Ollama, or set `provider` in $CAIRN_HOME/config.toml (see docs/config.md).";

/// Which planning tools the model gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanningStyle {
    /// Codex-style `update_plan` checklist.
    #[default]
    Checklist,
    /// `create_plan` / `update_plan` (actions) / `complete_plan` / `read_plan`.
    Structured,
}

impl PlanningStyle {
    /// The name used in config files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Checklist => "checklist",
            Self::Structured => "structured",
        }
    }
}

/// `[tools]` table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsToml {
    /// `checklist` or `structured`.
    pub planning: Option<PlanningStyle>,
    /// `auto`, `apply_patch`, `edit_file` or `both`: which edit tools are offered.
    pub edit: Option<EditTools>,
    /// `[tools.shell]`.
    #[serde(default)]
    pub shell: ShellToml,
    /// `[tools.web]`.
    #[serde(default)]
    pub web: WebToml,
    /// `create_plan` (and a `revise` that changes the steps) waits for the user's approval.
    pub require_plan_approval: Option<bool>,
}

/// `[tools.shell]` table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellToml {
    /// Longest timeout a model may ask for, in milliseconds.
    pub max_timeout_ms: Option<u64>,
    /// Run commands in a login shell (`bash -lc`), which reads the user's profile first.
    pub login: Option<bool>,
}

/// `[history] persistence`: whether sessions are logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HistoryPersistence {
    /// Every session is logged under `$CAIRN_HOME/sessions` and can be resumed.
    #[default]
    SaveAll,
    /// Nothing is written.
    None,
}

/// `[history]` table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryToml {
    /// `save-all` or `none`.
    pub persistence: Option<HistoryPersistence>,
}

/// `[permissions]` table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermissionsToml {
    /// Directories outside the workspace the model may read without asking.
    #[serde(default)]
    pub readable_roots: Vec<PathBuf>,
}

/// Default of `compact_threshold`.
pub const DEFAULT_COMPACT_THRESHOLD: f64 = 0.8;

/// Default of `[tools.shell] max_timeout_ms`: ten minutes.
pub const DEFAULT_SHELL_MAX_TIMEOUT_MS: u64 = 10 * 60 * 1000;

/// How the shell tool runs commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellSettings {
    /// Upper bound of a call's timeout, whatever the model asks for.
    pub max_timeout_ms: u64,
    /// `bash -lc` instead of `bash -c`.
    pub login: bool,
}

impl Default for ShellSettings {
    fn default() -> Self {
        Self {
            max_timeout_ms: DEFAULT_SHELL_MAX_TIMEOUT_MS,
            login: false,
        }
    }
}

/// config.toml as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigToml {
    /// Model name.
    pub model: Option<String>,
    /// The model family whose instructions and edit tools are used, instead of the one the
    /// model id implies.
    pub model_family: Option<ModelFamily>,
    /// Key of `[providers]` or a built-in provider.
    pub provider: Option<String>,
    /// `untrusted`, `on-request` or `never`.
    pub approval_policy: Option<ApprovalPolicy>,
    /// `minimal`, `low`, `medium`, `high`, or a thinking budget in tokens (a number, as
    /// `-c reasoning_effort=8000` gives it, or a string of digits).
    #[serde(default, deserialize_with = "effort_or_budget")]
    pub reasoning_effort: Option<String>,
    /// Provider tables.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderToml>,
    /// Tool selection.
    #[serde(default)]
    pub tools: ToolsToml,
    /// What the model may read without asking.
    #[serde(default)]
    pub permissions: PermissionsToml,
    /// Session logging.
    #[serde(default)]
    pub history: HistoryToml,
    /// The model's context window in tokens (else from the built-in table).
    pub model_context_window: Option<u64>,
    /// Compact when a request would fill this fraction of the usable window (default 0.8).
    pub compact_threshold: Option<f64>,
    /// Delegation to sub-agents.
    #[serde(default)]
    pub multi_agent: MultiAgentToml,
    /// MCP servers whose tools the model is offered.
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, McpServerToml>,
    /// The kernel sandbox around shell commands.
    #[serde(default)]
    pub sandbox: crate::sandbox::SandboxToml,
}

/// Why a provider was chosen (shown by `/status` and `--list-providers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderReason {
    /// `provider` in config.toml or on the command line.
    Configured,
    /// An API key variable was set.
    EnvKey(String),
    /// No key was set and a local Ollama answered (see [`probe_ollama`]).
    LocalOllama,
    /// Nothing found.
    NoneFound,
}

/// Everything a session runs with.
#[derive(Debug, Clone)]
pub struct Config {
    /// `$CAIRN_HOME` (default `~/.cairn`).
    pub cairn_home: PathBuf,
    /// Working directory; also the workspace root writes are allowed in.
    pub cwd: PathBuf,
    /// Model name.
    pub model: String,
    /// The chosen provider, or `None` when none is configured.
    pub provider: Option<ProviderInfo>,
    /// Why that provider.
    pub provider_reason: ProviderReason,
    /// Approval policy.
    pub approval_policy: ApprovalPolicy,
    /// Planning tool style.
    pub planning: PlanningStyle,
    /// `model_family`: overrides the family the model id implies.
    pub model_family: Option<ModelFamily>,
    /// `[tools] edit`.
    pub edit_tools: EditTools,
    /// `reasoning.effort` for the Responses API.
    pub reasoning_effort: Option<String>,
    /// Every provider table the user wrote (for `/status` and switching).
    pub user_providers: BTreeMap<String, ProviderToml>,
    /// Look for a local Ollama in the background when the session starts; true when no
    /// provider was chosen from config or environment.
    pub detect_local: bool,
    /// `[tools.shell]`.
    pub shell: ShellSettings,
    /// `[permissions] readable_roots`, absolute (relative entries resolve against `cwd`).
    pub readable_roots: Vec<PathBuf>,
    /// `[history] persistence`.
    pub history_persistence: HistoryPersistence,
    /// `model_context_window`, when set.
    pub model_context_window: Option<u64>,
    /// `compact_threshold`, a fraction in (0, 1].
    pub compact_threshold: f64,
    /// `[multi_agent]`.
    pub multi_agent: MultiAgentSettings,
    /// `[mcp_servers]`, in name order.
    pub mcp_servers: Vec<McpServerConfig>,
    /// `[sandbox]`, and what the kernel enforces.
    pub sandbox: crate::sandbox::SandboxSettings,
    /// `[tools.web]`.
    pub web: WebSettings,
    /// `[tools] require_plan_approval`: structured plans wait for the user's approval.
    pub require_plan_approval: bool,
}

/// A config file or override that could not be understood.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// config.toml failed to parse or has a wrong key/value.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// toml's message, which carries line, column and key.
        message: String,
    },
    /// `-c key=value` could not be applied.
    #[error("invalid override `{raw}`: {message}")]
    Override {
        /// The override as given.
        raw: String,
        /// What is wrong.
        message: String,
    },
    /// The provider named in config does not resolve.
    #[error("{0}")]
    Provider(String),
    /// An I/O failure reading the file or the working directory.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// Inputs of [`Config::load`] besides the file system.
#[derive(Debug, Clone, Default)]
pub struct ConfigOverrides {
    /// `-c key=value` pairs, in order (later wins).
    pub raw: Vec<String>,
    /// `-C/--cd`.
    pub cwd: Option<PathBuf>,
    /// `CAIRN_HOME` (else from the environment, else `~/.cairn`).
    pub cairn_home: Option<PathBuf>,
}

impl Config {
    /// Load from `$CAIRN_HOME/config.toml`, overrides and the process environment.
    pub fn load(overrides: &ConfigOverrides) -> Result<Self, ConfigError> {
        Self::load_with_env(overrides, &|key| std::env::var(key).ok())
    }

    /// As [`Config::load`] with an injectable environment (tests).
    pub fn load_with_env(
        overrides: &ConfigOverrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let cairn_home = cairn_home(overrides, env);
        let file = cairn_home.join("config.toml");
        let mut table = read_table(&file)?;
        for raw in &overrides.raw {
            apply_override(&mut table, raw)?;
        }
        let parsed: ConfigToml =
            toml::Value::Table(table)
                .try_into()
                .map_err(|e: toml::de::Error| ConfigError::File {
                    path: file.clone(),
                    message: format!("{} (after applying -c overrides)", e.message()),
                })?;
        let cwd = resolve_cwd(overrides.cwd.as_deref())?;
        Self::from_toml(parsed, cairn_home, cwd, env)
    }

    fn from_toml(
        parsed: ConfigToml,
        cairn_home: PathBuf,
        cwd: PathBuf,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let (provider, provider_reason) = match &parsed.provider {
            Some(id) => (
                Some(
                    providers::resolve(id, &parsed.providers, env)
                        .map_err(ConfigError::Provider)?,
                ),
                ProviderReason::Configured,
            ),
            None => detect_provider(&parsed.providers, env),
        };
        let model = parsed
            .model
            .clone()
            .or_else(|| provider.as_ref().map(|p| p.default_model.clone()))
            .unwrap_or_else(|| "gpt-5.1".to_string());
        let detect_local = provider.is_none();
        let max_timeout_ms = match parsed.tools.shell.max_timeout_ms {
            Some(0) => {
                return Err(ConfigError::File {
                    path: cairn_home.join("config.toml"),
                    message: "tools.shell.max_timeout_ms is 0; give the longest shell timeout in milliseconds (default 600000)".into(),
                });
            }
            Some(ms) => ms,
            None => DEFAULT_SHELL_MAX_TIMEOUT_MS,
        };
        let compact_threshold = match parsed.compact_threshold {
            Some(t) if !(t > 0.0 && t <= 1.0) => {
                return Err(ConfigError::File {
                    path: cairn_home.join("config.toml"),
                    message: format!(
                        "compact_threshold is {t}; give a fraction of the context window between 0 and 1 (default 0.8)"
                    ),
                });
            }
            Some(t) => t,
            None => DEFAULT_COMPACT_THRESHOLD,
        };
        if parsed.model_context_window == Some(0) {
            return Err(ConfigError::File {
                path: cairn_home.join("config.toml"),
                message: "model_context_window is 0; give the model's context window in tokens"
                    .into(),
            });
        }
        let multi_agent =
            multi_agent_settings(&parsed.multi_agent, &cairn_home.join("config.toml"))?;
        let mcp_servers = mcp::resolve_servers(
            &parsed.mcp_servers,
            &cairn_home.join("config.toml"),
            &cwd,
            env,
        )?;
        let sandbox = crate::sandbox::SandboxSettings::from_toml(&parsed.sandbox, env);
        let web = web::settings(&parsed.tools.web, &cairn_home.join("config.toml"), env)?;
        let readable_roots = parsed
            .permissions
            .readable_roots
            .iter()
            .map(|root| expand_home(root, &cwd))
            .collect();
        Ok(Self {
            cairn_home,
            cwd,
            model,
            provider,
            provider_reason,
            approval_policy: parsed.approval_policy.unwrap_or_default(),
            planning: parsed.tools.planning.unwrap_or_default(),
            model_family: parsed.model_family,
            edit_tools: parsed.tools.edit.unwrap_or_default(),
            reasoning_effort: parsed.reasoning_effort,
            user_providers: parsed.providers,
            detect_local,
            shell: ShellSettings {
                max_timeout_ms,
                login: parsed.tools.shell.login.unwrap_or(false),
            },
            readable_roots,
            history_persistence: parsed.history.persistence.unwrap_or_default(),
            model_context_window: parsed.model_context_window,
            compact_threshold,
            multi_agent,
            mcp_servers,
            sandbox,
            web,
            require_plan_approval: parsed.tools.require_plan_approval.unwrap_or(false),
        })
    }

    /// The family whose instructions and edit tools `model` gets: `model_family` when set,
    /// else the one its id implies.
    pub fn family_for(&self, model: &str) -> ModelFamily {
        self.model_family
            .unwrap_or_else(|| ModelFamily::from_model_id(model))
    }

    /// `$CAIRN_HOME/plans`.
    pub fn plans_dir(&self) -> PathBuf {
        self.cairn_home.join("plans")
    }

    /// `$CAIRN_HOME/logs`.
    pub fn logs_dir(&self) -> PathBuf {
        self.cairn_home.join("logs")
    }
}

impl Config {
    /// A configuration with no provider, rooted at `cwd` with `$CAIRN_HOME` at `home` (tests).
    #[doc(hidden)]
    pub fn for_test(home: &Path, cwd: &Path) -> Self {
        Self {
            cairn_home: home.to_path_buf(),
            cwd: cwd.to_path_buf(),
            model: "test-model".into(),
            provider: None,
            provider_reason: ProviderReason::NoneFound,
            approval_policy: ApprovalPolicy::OnRequest,
            planning: PlanningStyle::Checklist,
            model_family: None,
            edit_tools: EditTools::Auto,
            reasoning_effort: None,
            user_providers: BTreeMap::new(),
            detect_local: false,
            shell: ShellSettings::default(),
            readable_roots: Vec::new(),
            history_persistence: HistoryPersistence::None,
            model_context_window: None,
            compact_threshold: DEFAULT_COMPACT_THRESHOLD,
            multi_agent: MultiAgentSettings::default(),
            mcp_servers: Vec::new(),
            sandbox: crate::sandbox::SandboxSettings::default(),
            web: WebSettings::default(),
            require_plan_approval: false,
        }
    }
}

/// `$CAIRN_HOME`: the override, else the `CAIRN_HOME` variable, else `~/.cairn`.
pub fn cairn_home(overrides: &ConfigOverrides, env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    overrides
        .cairn_home
        .clone()
        // An empty CAIRN_HOME must not mean "the current directory": a repository could
        // then supply the config (and receive the API key).
        .or_else(|| {
            env("CAIRN_HOME")
                .filter(|v| !v.trim().is_empty())
                .map(PathBuf::from)
        })
        .or_else(|| dirs::home_dir().map(|h| h.join(".cairn")))
        .unwrap_or_else(|| PathBuf::from(".cairn"))
}

/// `~/x` under the home directory, a relative path under `cwd`, an absolute one as it is.
fn expand_home(path: &Path, cwd: &Path) -> PathBuf {
    if let Ok(rest) = path.strip_prefix("~")
        && let Some(home) = dirs::home_dir()
    {
        return home.join(rest);
    }
    cwd.join(path)
}

/// Pick a provider from the environment: OPENAI_API_KEY, then ANTHROPIC_API_KEY.
///
/// Probing a local Ollama is done off the start-up path by the session, never here.
fn detect_provider(
    user: &BTreeMap<String, ProviderToml>,
    env: &dyn Fn(&str) -> Option<String>,
) -> (Option<ProviderInfo>, ProviderReason) {
    for (id, key) in [
        ("openai", "OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
    ] {
        if env(key).is_some_and(|v| !v.trim().is_empty())
            && let Ok(info) = providers::resolve(id, user, env)
        {
            return (Some(info), ProviderReason::EnvKey(key.to_string()));
        }
    }
    (None, ProviderReason::NoneFound)
}

fn read_table(path: &Path) -> Result<toml::Table, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(toml::Table::new()),
        Err(source) => {
            return Err(ConfigError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let table: toml::Table = toml::from_str(&text).map_err(|e| file_error(path, &text, &e))?;
    // Validate the file on its own first, so a wrong key is blamed on the file with its line.
    toml::from_str::<ConfigToml>(&text).map_err(|e| file_error(path, &text, &e))?;
    Ok(table)
}

fn file_error(path: &Path, text: &str, err: &toml::de::Error) -> ConfigError {
    let location = err
        .span()
        .map(|span| {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            format!("line {line}: ")
        })
        .unwrap_or_default();
    ConfigError::File {
        path: path.to_path_buf(),
        message: format!("{location}{}", err.message().trim_end()),
    }
}

/// `reasoning_effort`: a level, or a token budget written as a number.
fn effort_or_budget<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum EffortOrBudget {
        Budget(u32),
        Effort(String),
    }
    Ok(match Option::<EffortOrBudget>::deserialize(deserializer)? {
        Some(EffortOrBudget::Budget(tokens)) => Some(tokens.to_string()),
        Some(EffortOrBudget::Effort(effort)) => Some(effort),
        None => None,
    })
}

/// Apply `key.path=value`; the value is parsed as TOML and taken as a string if that fails.
fn apply_override(table: &mut toml::Table, raw: &str) -> Result<(), ConfigError> {
    let bad = |message: &str| ConfigError::Override {
        raw: raw.to_string(),
        message: message.to_string(),
    };
    let (key, value) = raw
        .split_once('=')
        .ok_or_else(|| bad("expected key=value"))?;
    let key = key.trim();
    if key.is_empty() || key.split('.').any(str::is_empty) {
        return Err(bad("empty key"));
    }
    let value = parse_value(value.trim());
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().ok_or_else(|| bad("empty key"))?;
    let mut current = table;
    for part in parts {
        let entry = current
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        current = match entry {
            toml::Value::Table(t) => t,
            _ => return Err(bad(&format!("`{part}` is not a table"))),
        };
    }
    current.insert(last.to_string(), value);
    Ok(())
}

fn parse_value(text: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {text}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(text.to_string()))
}

fn resolve_cwd(cd: Option<&Path>) -> Result<PathBuf, ConfigError> {
    let base = std::env::current_dir().map_err(|source| ConfigError::Io {
        path: PathBuf::from("."),
        source,
    })?;
    let dir = match cd {
        Some(p) => base.join(p),
        None => base,
    };
    dir.canonicalize()
        .map_err(|source| ConfigError::Io { path: dir, source })
}

#[cfg(test)]
mod tests;

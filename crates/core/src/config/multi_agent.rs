//! `[multi_agent]`: delegation limits and the agents defined in config.toml.

use super::ConfigError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// `[multi_agent.agents.<id>]`: an agent defined in config.toml.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentToml {
    /// One line saying what the agent is for (the model reads it to choose).
    pub description: Option<String>,
    /// The agent's instructions.
    pub instructions: Option<String>,
    /// Model, if not the parent's.
    pub model: Option<String>,
    /// Provider, if not the parent's.
    pub provider: Option<String>,
    /// Tools it may use (intersected with its parent's); all of the parent's when absent.
    pub tools: Option<Vec<String>>,
    /// Only read-only tools.
    pub read_only: Option<bool>,
}

/// `[multi_agent]` table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiAgentToml {
    /// `false` removes `delegate_agent` altogether.
    pub enabled: Option<bool>,
    /// Delegated runs at once across the whole session tree (default 5).
    pub max_concurrent_delegates: Option<usize>,
    /// How deep delegation may nest (default 2: the session's agents may delegate once more).
    pub max_depth: Option<usize>,
    /// Longest a delegated run may take, in milliseconds (default 600000).
    pub run_timeout_ms: Option<u64>,
    /// Most model round trips of one delegated run (default 50).
    pub max_turns: Option<usize>,
    /// Agents defined here.
    #[serde(default)]
    pub agents: BTreeMap<String, AgentToml>,
}

/// Delegation settings in force.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiAgentSettings {
    /// `delegate_agent` may be offered.
    pub enabled: bool,
    /// Delegated runs at once.
    pub max_concurrent: usize,
    /// Nesting limit.
    pub max_depth: usize,
    /// Per-run time limit.
    pub run_timeout: std::time::Duration,
    /// Per-run round-trip limit.
    pub max_turns: usize,
    /// Agents from config.toml.
    pub agents: BTreeMap<String, AgentToml>,
}

impl Default for MultiAgentSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            max_concurrent: 5,
            max_depth: 2,
            run_timeout: std::time::Duration::from_secs(600),
            max_turns: 50,
            agents: BTreeMap::new(),
        }
    }
}

/// `[multi_agent]` checked: limits above zero, agent ids of `[a-z0-9_-]`.
pub(super) fn multi_agent_settings(
    toml: &MultiAgentToml,
    file: &Path,
) -> Result<MultiAgentSettings, ConfigError> {
    let bad = |message: String| ConfigError::File {
        path: file.to_path_buf(),
        message,
    };
    let defaults = MultiAgentSettings::default();
    for (key, value) in [
        (
            "max_concurrent_delegates",
            toml.max_concurrent_delegates.map(|v| v as u64),
        ),
        ("max_depth", toml.max_depth.map(|v| v as u64)),
        ("run_timeout_ms", toml.run_timeout_ms),
        ("max_turns", toml.max_turns.map(|v| v as u64)),
    ] {
        if value == Some(0) {
            return Err(bad(format!(
                "multi_agent.{key} is 0; give a number above zero"
            )));
        }
    }
    for id in toml.agents.keys() {
        if !crate::agents::is_valid_id(id) {
            return Err(bad(format!(
                "multi_agent.agents.{id}: agent ids may only use a-z, 0-9, `_` and `-`"
            )));
        }
    }
    Ok(MultiAgentSettings {
        enabled: toml.enabled.unwrap_or(true),
        max_concurrent: toml
            .max_concurrent_delegates
            .unwrap_or(defaults.max_concurrent),
        max_depth: toml.max_depth.unwrap_or(defaults.max_depth),
        run_timeout: toml
            .run_timeout_ms
            .map_or(defaults.run_timeout, std::time::Duration::from_millis),
        max_turns: toml.max_turns.unwrap_or(defaults.max_turns),
        agents: toml.agents.clone(),
    })
}

//! `/agents`: the agents `delegate_agent` can run (built-ins, config, agent files), loaded
//! with core's registry off the event loop, since agent files are read from disk.

use crate::app_event::{AppEvent, AppEventSender};
use crate::strings;
use cairn_core::Config;
use cairn_core::agents::{AgentDef, AgentRegistry, AgentSource};
use std::path::PathBuf;

/// What /agents shows.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentsListing {
    /// The agents, by id.
    pub agents: Vec<AgentDef>,
    /// Agent files that could not be used, in words.
    pub problems: Vec<String>,
    /// `[multi_agent] enabled` is not false.
    pub enabled: bool,
}

/// The agents of `config` (its home and working directory).
pub fn load(config: &Config) -> AgentsListing {
    let registry = AgentRegistry::load(config);
    AgentsListing {
        agents: registry.iter().cloned().collect(),
        problems: registry.problems.clone(),
        enabled: config.multi_agent.enabled,
    }
}

/// Load the agents for a session in `cwd` (the launch directory when `None`) in the
/// background; the app gets [`AppEvent::AgentsListed`].
pub fn list(config: &Config, cwd: Option<PathBuf>, tx: &AppEventSender) {
    let mut config = config.clone();
    if let Some(cwd) = cwd {
        config.cwd = cwd;
    }
    let tx = tx.clone();
    tokio::task::spawn_blocking(move || {
        tx.send(AppEvent::AgentsListed(load(&config)));
    });
}

/// The listing as a notice: a heading, then two lines per agent (id, access, source; its
/// description), then the files that were skipped.
pub fn text(listing: &AgentsListing) -> String {
    let mut text = strings::agents_heading(listing.agents.len(), listing.enabled);
    for agent in &listing.agents {
        let source = match &agent.source {
            AgentSource::BuiltIn => strings::AGENT_BUILT_IN.to_string(),
            AgentSource::Config => strings::AGENT_FROM_CONFIG.to_string(),
            AgentSource::File(path) => path.display().to_string(),
        };
        text.push('\n');
        text.push_str(&strings::agent_line(&agent.id, agent.read_only, &source));
        let description = agent.description.trim();
        if !description.is_empty() {
            text.push_str(&format!("\n    {description}"));
        }
    }
    for problem in &listing.problems {
        text.push('\n');
        text.push_str(&strings::agent_problem(problem));
    }
    text
}

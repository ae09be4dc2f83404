//! The agents `delegate_agent` can run: built-ins (`explore`, `plan`, `general`), agents from
//! `[multi_agent.agents.<id>]` in config.toml, and agent files `<id>.md` in
//! `$CAIRN_HOME/agents/` and the project's `.cairn/agents/` (the project's override the
//! home's, files override config, config overrides built-ins).
//!
//! An agent file is Markdown with a small front matter:
//!
//! ```markdown
//! ---
//! description: Reviews a diff for bugs
//! model: gpt-5.1
//! tools: read_file, grep_files, shell
//! read_only: false
//! ---
//! You review diffs...
//! ```

use crate::config::{AgentToml, Config};
use crate::plans::front_matter;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where an agent was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSource {
    /// Shipped with cairn.
    BuiltIn,
    /// `[multi_agent.agents.<id>]`.
    Config,
    /// An agent file.
    File(PathBuf),
}

/// One agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDef {
    /// Id (`^[a-z0-9_-]+$`).
    pub id: String,
    /// What it is for.
    pub description: String,
    /// Its instructions, added to cairn's own.
    pub instructions: String,
    /// Model, when not the parent's.
    pub model: Option<String>,
    /// Provider, when not the parent's.
    pub provider: Option<String>,
    /// Allowed tools (intersected with the parent's); `None`: all of the parent's.
    pub tools: Option<Vec<String>>,
    /// Only read-only tools, whatever `tools` says.
    pub read_only: bool,
    /// Where it came from.
    pub source: AgentSource,
}

/// True for ids of `[a-z0-9_-]+`.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// The agents of a session, by id.
#[derive(Debug, Clone, Default)]
pub struct AgentRegistry {
    agents: BTreeMap<String, AgentDef>,
    /// Agent files that could not be used, in words.
    pub problems: Vec<String>,
}

impl AgentRegistry {
    /// Built-ins, then config, then `$CAIRN_HOME/agents`, then `<cwd>/.cairn/agents`.
    pub fn load(config: &Config) -> Self {
        let mut registry = Self::default();
        for agent in builtins() {
            registry.agents.insert(agent.id.clone(), agent);
        }
        for (id, toml) in &config.multi_agent.agents {
            let agent = from_toml(id, toml, registry.agents.get(id));
            registry.agents.insert(id.clone(), agent);
        }
        for dir in [
            config.cairn_home.join("agents"),
            config.cwd.join(".cairn").join("agents"),
        ] {
            registry.load_dir(&dir);
        }
        registry
    }

    fn load_dir(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        files.sort();
        for path in files {
            let id = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            match from_file(&path, self.agents.get(&id)) {
                Ok(agent) => {
                    self.agents.insert(agent.id.clone(), agent);
                }
                Err(problem) => self.problems.push(problem),
            }
        }
    }

    /// The agent `id`.
    pub fn get(&self, id: &str) -> Option<&AgentDef> {
        self.agents.get(id)
    }

    /// Every agent, by id.
    pub fn iter(&self) -> impl Iterator<Item = &AgentDef> {
        self.agents.values()
    }

    /// True when there is no agent.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    /// Ids, sorted.
    pub fn ids(&self) -> Vec<&str> {
        self.agents.keys().map(String::as_str).collect()
    }
}

fn builtins() -> Vec<AgentDef> {
    let builtin = |id: &str, description: &str, instructions: &str, read_only: bool| AgentDef {
        id: id.to_string(),
        description: description.to_string(),
        instructions: instructions.to_string(),
        model: None,
        provider: None,
        tools: None,
        read_only,
        source: AgentSource::BuiltIn,
    };
    vec![
        builtin(
            "explore",
            "Read-only: explores the codebase fast to answer a question and reports concisely with file paths and line numbers. Use several in parallel for independent questions.",
            include_str!("explore.md"),
            true,
        ),
        builtin(
            "plan",
            "Read-only: studies the code a change touches and returns a step-by-step plan document.",
            include_str!("plan.md"),
            true,
        ),
        builtin(
            "general",
            "Does a self-contained task with your tools (edits and commands still need the same approvals) and reports what it did.",
            include_str!("general.md"),
            false,
        ),
    ]
}

/// An agent from config; what it leaves out comes from the agent of the same id it
/// overrides, if any (so `[multi_agent.agents.explore] model = "small"` only changes the model).
fn from_toml(id: &str, toml: &AgentToml, base: Option<&AgentDef>) -> AgentDef {
    AgentDef {
        id: id.to_string(),
        description: toml
            .description
            .clone()
            .or_else(|| base.map(|b| b.description.clone()))
            .unwrap_or_default(),
        instructions: toml
            .instructions
            .clone()
            .or_else(|| base.map(|b| b.instructions.clone()))
            .unwrap_or_default(),
        model: toml
            .model
            .clone()
            .or_else(|| base.and_then(|b| b.model.clone())),
        provider: toml
            .provider
            .clone()
            .or_else(|| base.and_then(|b| b.provider.clone())),
        tools: toml
            .tools
            .clone()
            .or_else(|| base.and_then(|b| b.tools.clone())),
        read_only: toml
            .read_only
            .unwrap_or_else(|| base.is_some_and(|b| b.read_only)),
        source: AgentSource::Config,
    }
}

/// An agent file: the id is the file's stem; what it leaves out comes from `base` (the agent
/// of the same id it overrides), as for config agents.
fn from_file(path: &Path, base: Option<&AgentDef>) -> Result<AgentDef, String> {
    let id = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    if !is_valid_id(&id) {
        return Err(format!(
            "{}: agent file names may only use a-z, 0-9, `_` and `-` (the name is the agent's id)",
            path.display()
        ));
    }
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() || meta.len() > 1024 * 1024 {
        return Err(format!(
            "{}: not a regular file of at most 1 MiB",
            path.display()
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (fields, body) = match front_matter::split(&text) {
        Some((fm, body)) => (fm, body),
        None => (front_matter::FrontMatter::default(), text.as_str()),
    };
    let bool_field = |key: &str| -> Result<Option<bool>, String> {
        match fields.get(key) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(other) => Err(format!(
                "{}: `{key}: {other}` should be true or false",
                path.display()
            )),
        }
    };
    let tools = fields.get("tools").map(|list| {
        list.trim_matches(|c| c == '[' || c == ']')
            .split(',')
            .map(|t| t.trim().trim_matches('"').to_string())
            .filter(|t| !t.is_empty())
            .collect()
    });
    let body = body.trim();
    Ok(AgentDef {
        id,
        description: fields
            .get("description")
            .map(str::to_string)
            .or_else(|| base.map(|b| b.description.clone()))
            .unwrap_or_default(),
        instructions: if body.is_empty() {
            base.map(|b| b.instructions.clone()).unwrap_or_default()
        } else {
            body.to_string()
        },
        model: fields
            .get("model")
            .map(str::to_string)
            .or_else(|| base.and_then(|b| b.model.clone())),
        provider: fields
            .get("provider")
            .map(str::to_string)
            .or_else(|| base.and_then(|b| b.provider.clone())),
        tools: tools.or_else(|| base.and_then(|b| b.tools.clone())),
        read_only: bool_field("read_only")?.unwrap_or_else(|| base.is_some_and(|b| b.read_only)),
        source: AgentSource::File(path.to_path_buf()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_pattern() {
        assert!(is_valid_id("explore"));
        assert!(is_valid_id("code-review_2"));
        assert!(!is_valid_id("Explore"));
        assert!(!is_valid_id("a b"));
        assert!(!is_valid_id(""));
        assert!(!is_valid_id("../x"));
    }

    #[test]
    fn project_files_override_home_files_which_override_config_and_builtins() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let mut config = Config::for_test(home.path(), cwd.path());
        config.multi_agent.agents.insert(
            "reviewer".into(),
            AgentToml {
                description: Some("from config".into()),
                ..AgentToml::default()
            },
        );
        std::fs::create_dir_all(home.path().join("agents")).unwrap();
        std::fs::create_dir_all(cwd.path().join(".cairn/agents")).unwrap();
        std::fs::write(
            home.path().join("agents/reviewer.md"),
            "---\ndescription: from home\ntools: [read_file, grep_files]\nread_only: true\n---\nReview carefully.\n",
        )
        .unwrap();
        std::fs::write(
            home.path().join("agents/explore.md"),
            "---\ndescription: my explorer\n---\nExplore my way.\n",
        )
        .unwrap();
        std::fs::write(
            cwd.path().join(".cairn/agents/explore.md"),
            "---\ndescription: project explorer\nmodel: small-model\n---\nExplore the project way.\n",
        )
        .unwrap();
        std::fs::write(cwd.path().join(".cairn/agents/Bad Name.md"), "x").unwrap();
        std::fs::write(
            cwd.path().join(".cairn/agents/broken.md"),
            "---\nread_only: maybe\n---\nx\n",
        )
        .unwrap();
        let registry = AgentRegistry::load(&config);
        let reviewer = registry.get("reviewer").unwrap();
        assert_eq!(reviewer.description, "from home");
        assert_eq!(
            reviewer.tools.as_deref(),
            Some(&["read_file".to_string(), "grep_files".to_string()][..])
        );
        assert!(reviewer.read_only);
        assert_eq!(reviewer.instructions, "Review carefully.");
        let explore = registry.get("explore").unwrap();
        assert_eq!(explore.description, "project explorer");
        assert_eq!(explore.model.as_deref(), Some("small-model"));
        assert!(explore.read_only, "an override keeps what it does not say");
        assert!(registry.get("plan").is_some() && registry.get("general").is_some());
        assert_eq!(registry.problems.len(), 2, "{:?}", registry.problems);
        assert!(
            registry
                .problems
                .iter()
                .any(|p| p.contains("true or false"))
        );
    }
}

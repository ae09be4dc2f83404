//! The tool registry: which tools a session offers, chosen by configuration.

use super::handlers;
use super::{ToolHandler, ToolSpec};
use crate::config::{Config, PlanningStyle};
use std::collections::HashMap;
use std::sync::Arc;

/// Handlers by name, plus their specs in registration order (the order the model sees).
#[derive(Default)]
pub struct ToolRegistry {
    specs: Vec<ToolSpec>,
    handlers: HashMap<String, Arc<dyn ToolHandler>>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn builder() -> ToolRegistryBuilder {
        ToolRegistryBuilder::default()
    }

    /// The tools a session with `config` offers.
    pub fn for_config(config: &Config) -> Self {
        let mut builder = Self::builder();
        handlers::register_read_only(&mut builder);
        match config.planning {
            PlanningStyle::Checklist => handlers::register_checklist_planning(&mut builder),
            PlanningStyle::Structured => handlers::register_structured_planning(&mut builder),
        }
        handlers::register_mutating(&mut builder);
        handlers::register_plan_mode(&mut builder);
        builder.build()
    }

    /// The tools of a session at its place in the delegation tree: [`Self::for_config`],
    /// plus `delegate_agent` when agents exist, delegation is enabled and the depth limit is
    /// not reached, restricted to the tools it inherited.
    pub fn for_session(config: &Config, delegation: &crate::session::shared::Delegation) -> Self {
        let mut builder = ToolRegistryBuilder {
            registry: Self::for_config(config),
        };
        if config.multi_agent.enabled
            && !delegation.agents.is_empty()
            && delegation.depth < config.multi_agent.max_depth
        {
            handlers::register_delegation(&mut builder, &delegation.agents);
        }
        let mut registry = builder.build();
        if let Some(allowed) = &delegation.allowed_tools {
            registry.specs.retain(|s| allowed.contains(&s.name));
            registry.handlers.retain(|name, _| allowed.contains(name));
        }
        registry
    }

    /// The handler for `name`.
    pub fn handler(&self, name: &str) -> Option<&Arc<dyn ToolHandler>> {
        self.handlers.get(name)
    }

    /// Specs in registration order.
    pub fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.specs.iter()
    }

    /// Tool names in registration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.specs.iter().map(|s| s.name.as_str())
    }

    /// True when a call of `name` must run alone (see [`ToolHandler::runs_alone`]); unknown
    /// tools run alone too.
    pub fn runs_alone(&self, name: &str) -> bool {
        self.handlers.get(name).is_none_or(|h| h.runs_alone())
    }
}

/// Collects handlers; a later registration of the same name replaces the earlier one.
#[derive(Default)]
pub struct ToolRegistryBuilder {
    registry: ToolRegistry,
}

impl ToolRegistryBuilder {
    /// Register `handler` under its spec's name.
    pub fn register(&mut self, handler: impl ToolHandler + 'static) -> &mut Self {
        let spec = handler.spec();
        let name = spec.name.clone();
        self.registry.specs.retain(|s| s.name != name);
        self.registry.specs.push(spec);
        self.registry.handlers.insert(name, Arc::new(handler));
        self
    }

    /// Finish.
    pub fn build(self) -> ToolRegistry {
        self.registry
    }
}

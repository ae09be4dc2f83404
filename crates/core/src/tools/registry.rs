//! The tool registry: which tools a session offers, chosen by configuration.

use super::handlers;
use super::{ToolHandler, ToolSpec};
use crate::config::{Config, PlanningStyle};
use crate::model_family::{EditTools, ModelFamily, is_edit_tool};
use std::collections::HashMap;
use std::sync::Arc;

/// Handlers by name, plus their specs in registration order (the order the model sees).
///
/// Every edit tool is registered; which of them a model is *offered* depends on its family
/// ([`Self::offered_specs`]). A call to a registered edit tool that was not offered still runs
/// (through the same plan-mode and approval checks): the dialect is a matter of what the
/// model was trained on, not a permission.
#[derive(Default, Clone)]
pub struct ToolRegistry {
    specs: Vec<ToolSpec>,
    handlers: HashMap<String, Arc<dyn ToolHandler>>,
    /// `[tools] edit`: which edit tools each family is offered.
    edit: EditTools,
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
        handlers::register_web(&mut builder, config);
        match config.planning {
            PlanningStyle::Checklist => handlers::register_checklist_planning(&mut builder),
            PlanningStyle::Structured => handlers::register_structured_planning(&mut builder),
        }
        handlers::register_mutating(&mut builder);
        handlers::register_plan_mode(&mut builder);
        let mut registry = builder.build();
        registry.edit = config.edit_tools;
        registry
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

    /// This registry plus the tools of `mcp` (ready servers only), restricted to what
    /// `delegation` inherited, as [`Self::for_session`] restricts the built-in ones.
    pub fn with_mcp(
        &self,
        mcp: &Arc<crate::mcp::McpManager>,
        delegation: &crate::session::shared::Delegation,
    ) -> Self {
        let mut builder = ToolRegistryBuilder {
            registry: self.clone(),
        };
        for handler in mcp.handlers() {
            let allowed = delegation
                .allowed_tools
                .as_ref()
                .is_none_or(|allowed| allowed.contains(&handler.entry().spec.name));
            if allowed {
                builder.register(handler);
            }
        }
        builder.build()
    }

    /// True when a model of `family` is offered `name`: every registered tool is, except the
    /// edit tools outside the family's dialect (see [`EditTools::offered`]).
    pub fn offers(&self, name: &str, family: ModelFamily) -> bool {
        self.handlers.contains_key(name)
            && (!is_edit_tool(name) || self.edit.offered(family).contains(&name))
    }

    /// The specs a model of `family` is offered, in registration order.
    pub fn offered_specs(&self, family: ModelFamily) -> impl Iterator<Item = &ToolSpec> {
        self.specs
            .iter()
            .filter(move |spec| self.offers(&spec.name, family))
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

//! One tool handler per file.

pub(crate) mod apply_patch;
mod ask_user_question;
mod atomic;
mod complete_plan;
mod create_plan;
mod delegate_agent;
mod diff;
mod edit_file;
pub(crate) mod exit_plan_mode;
mod glob_files;
mod grep_files;
mod list_dir;
pub(crate) mod paths;
mod plan_approval;
mod plan_support;
mod read_access;
mod read_file;
mod read_plan;
pub mod shell;
#[cfg(test)]
mod test_support;
mod think;
mod update_plan;
mod update_plan_structured;
mod web_fetch;
pub mod web_search;
mod write_file;

use super::registry::ToolRegistryBuilder;

/// Tools that only read: offered in every mode.
pub fn register_read_only(builder: &mut ToolRegistryBuilder) {
    builder
        .register(read_file::ReadFileHandler)
        .register(list_dir::ListDirHandler)
        .register(glob_files::GlobFilesHandler)
        .register(grep_files::GrepFilesHandler)
        .register(think::ThinkHandler);
}

/// `web_fetch` (unless `[tools.web] fetch = false`), and `web_search` when `[tools.web] search`
/// names a backend (`provider` only on the Responses API, whose server runs it).
pub fn register_web(builder: &mut ToolRegistryBuilder, config: &crate::config::Config) {
    use crate::config::{SearchBackend, WireApi};
    if config.web.fetch {
        builder.register(web_fetch::WebFetchHandler);
    }
    match &config.web.search {
        Some(search) if search.backend == SearchBackend::Provider => {
            let responses = config
                .provider
                .as_ref()
                .is_some_and(|p| p.wire_api == WireApi::Responses);
            if responses {
                builder.register(web_search::ProviderWebSearchHandler);
            }
        }
        Some(search) => {
            builder.register(web_search::WebSearchHandler::new(search.clone()));
        }
        None => {}
    }
}

/// `update_plan` as the Codex checklist.
pub fn register_checklist_planning(builder: &mut ToolRegistryBuilder) {
    builder.register(update_plan::UpdatePlanHandler);
}

/// `create_plan` / `update_plan` (actions) / `complete_plan` / `read_plan`.
pub fn register_structured_planning(builder: &mut ToolRegistryBuilder) {
    builder.register(create_plan::CreatePlanHandler);
    builder.register(update_plan_structured::StructuredUpdatePlanHandler);
    builder.register(complete_plan::CompletePlanHandler);
    builder.register(read_plan::ReadPlanHandler);
}

/// Tools that change the workspace.
pub fn register_mutating(builder: &mut ToolRegistryBuilder) {
    builder
        .register(write_file::WriteFileHandler)
        .register(edit_file::EditFileHandler)
        .register(apply_patch::ApplyPatchHandler)
        .register(shell::ShellHandler);
}

/// `exit_plan_mode` and `ask_user_question`.
pub fn register_plan_mode(builder: &mut ToolRegistryBuilder) {
    builder.register(exit_plan_mode::ExitPlanModeHandler);
    builder.register(ask_user_question::AskUserQuestionHandler);
}

/// `delegate_agent`, describing the session's agents.
pub fn register_delegation(
    builder: &mut ToolRegistryBuilder,
    agents: &std::sync::Arc<crate::agents::AgentRegistry>,
) {
    builder.register(delegate_agent::DelegateAgentHandler::new(agents.clone()));
}

//! One tool handler per file.

mod ask_user_question;
mod exit_plan_mode;
mod think;
mod update_plan;

use super::registry::ToolRegistryBuilder;

/// Tools that only read: offered in every mode.
pub fn register_read_only(builder: &mut ToolRegistryBuilder) {
    builder.register(think::ThinkHandler);
}

/// `update_plan` as the Codex checklist.
pub fn register_checklist_planning(builder: &mut ToolRegistryBuilder) {
    builder.register(update_plan::UpdatePlanHandler);
}

/// `create_plan` / `update_plan` (actions) / `complete_plan` / `read_plan`.
pub fn register_structured_planning(_builder: &mut ToolRegistryBuilder) {}

/// Tools that change the workspace.
pub fn register_mutating(_builder: &mut ToolRegistryBuilder) {}

/// `exit_plan_mode` and `ask_user_question`.
pub fn register_plan_mode(builder: &mut ToolRegistryBuilder) {
    builder.register(exit_plan_mode::ExitPlanModeHandler);
    builder.register(ask_user_question::AskUserQuestionHandler);
}

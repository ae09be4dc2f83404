//! Tool names, in one place: the model, the plan-mode filter and the front ends all match on
//! these strings.

/// Read a file with line numbers.
pub const READ_FILE: &str = "read_file";
/// List a directory tree.
pub const LIST_DIR: &str = "list_dir";
/// Find files by glob.
pub const GLOB_FILES: &str = "glob_files";
/// Search file contents.
pub const GREP_FILES: &str = "grep_files";
/// Think out loud without side effects.
pub const THINK: &str = "think";
/// Create or overwrite a file.
pub const WRITE_FILE: &str = "write_file";
/// Replace exact text in a file.
pub const EDIT_FILE: &str = "edit_file";
/// Apply a Codex-format patch.
pub const APPLY_PATCH: &str = "apply_patch";
/// Run a shell command.
pub const SHELL: &str = "shell";
/// Checklist plan (checklist style) or plan actions (structured style).
pub const UPDATE_PLAN: &str = "update_plan";
/// Create a structured plan.
pub const CREATE_PLAN: &str = "create_plan";
/// Read a stored plan.
pub const READ_PLAN: &str = "read_plan";
/// Record a structured plan's completion.
pub const COMPLETE_PLAN: &str = "complete_plan";
/// Ask the user to approve the plan-mode plan.
pub const EXIT_PLAN_MODE: &str = "exit_plan_mode";
/// Ask the user questions.
pub const ASK_USER_QUESTION: &str = "ask_user_question";
/// Fetch a web page as text.
pub const WEB_FETCH: &str = "web_fetch";
/// Search the web through the configured backend.
pub const WEB_SEARCH: &str = "web_search";
/// Run a sub-agent.
pub const DELEGATE_AGENT: &str = "delegate_agent";

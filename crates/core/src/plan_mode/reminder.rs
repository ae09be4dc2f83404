//! The text the model gets in plan mode.

use crate::tools::names;
use std::path::Path;

/// Instructions added to every request while plan mode is active. `edit_tools` are the file
/// tools the model is offered (its family's edit dialect); each may write the plan file only.
pub fn instructions(plan_file: &Path, plan_exists: bool, edit_tools: &[&str]) -> String {
    let patch_only =
        !edit_tools.contains(&names::WRITE_FILE) && edit_tools.contains(&names::APPLY_PATCH);
    let file_state = match (plan_exists, patch_only) {
        (true, false) => {
            "A plan file already exists there; read it and refine it with edit_file or write_file."
        }
        (false, false) => "No plan file exists yet; create it with write_file.",
        (true, true) => {
            "A plan file already exists there; read it and refine it with apply_patch (`*** Update File:` followed by the plan file's absolute path)."
        }
        (false, true) => {
            "No plan file exists yet; create it with apply_patch (`*** Add File:` followed by the plan file's absolute path, every line starting with `+`)."
        }
    };
    let tools = if edit_tools.is_empty() {
        "write_file / edit_file".to_string()
    } else {
        edit_tools.join(" / ")
    };
    format!(
        "<system-reminder>\nPlan mode is active. The user wants a plan before anything changes. You MUST NOT modify the workspace: no edits, no patches, no shell commands, no other state changes; such calls are refused.\n\nAllowed: read_file, list_dir, glob_files, grep_files, think, ask_user_question, and {tools} on the plan file only:\n  {path}\n{file_state}\n\nWork this way:\n1. Explore the code with the read-only tools until you understand what the change touches.\n2. Ask the user (ask_user_question) only about real ambiguities.\n3. Write the plan to the plan file in Markdown: the goal, the files to change and how, the order of steps, risks, and how to verify.\n4. Call exit_plan_mode to ask the user to approve it. Do not start implementing until the user approves.\n</system-reminder>",
        path = plan_file.display()
    )
}

/// One-time reminder after re-entering plan mode.
pub fn reentry(previous_plan: &Path, new_plan: &Path) -> String {
    format!(
        "<system-reminder>\nYou are entering plan mode again. The previous approved plan is at {prev}. Read it, then decide whether the new request continues that plan or starts fresh. Either way, write the new plan to {new} (not to the old file).\n</system-reminder>",
        prev = previous_plan.display(),
        new = new_plan.display()
    )
}

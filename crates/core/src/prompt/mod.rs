//! The system prompt: cairn's instructions for the model's family, the environment, and the
//! repository's AGENTS.md files.
//!
//! The instructions are Markdown files in this directory, reviewed like code: `common.md`
//! (what every model is told), one file per family under `families/`, and sections chosen by
//! what the session offers (checklist or structured planning, the edit dialect, delegation).
//! `docs/prompts.md` explains how to change them.

use crate::config::{Config, PlanningStyle};
use crate::model_family::ModelFamily;
use crate::tools::names;
use std::path::{Path, PathBuf};

const COMMON: &str = include_str!("common.md");
const CHECKLIST: &str = include_str!("checklist.md");
const STRUCTURED: &str = include_str!("structured.md");
const EDITING_PATCH: &str = include_str!("editing_patch.md");
const EDITING_EXACT: &str = include_str!("editing_exact.md");
const DELEGATION: &str = include_str!("delegation.md");

/// The instructions file of `family`.
pub fn family_instructions(family: ModelFamily) -> &'static str {
    match family {
        ModelFamily::Gpt => include_str!("families/gpt.md"),
        ModelFamily::Claude => include_str!("families/claude.md"),
        ModelFamily::Gemini => include_str!("families/gemini.md"),
        ModelFamily::Qwen => include_str!("families/qwen.md"),
        ModelFamily::Other => include_str!("families/other.md"),
    }
}

/// Largest AGENTS.md content included, per file; a runaway file must not eat the context.
const AGENTS_MD_LIMIT: usize = 32 * 1024;

/// The system prompt for a session with `config`, a model of `family`, offered `tools` (by
/// name). It depends on nothing that changes within a session but the model and AGENTS.md,
/// so it stays a cacheable prefix (the approval policy, which `/approval` can change, is
/// described in general terms, not named).
pub fn system_prompt(config: &Config, family: ModelFamily, tools: &[&str]) -> String {
    let mut prompt = instructions(config.planning, family, tools);
    prompt.push_str("\n# Environment\n\n");
    prompt.push_str(&format!("- Working directory: {}\n", config.cwd.display()));
    prompt.push_str(&format!("- Platform: {}\n", std::env::consts::OS));
    for (path, text) in agents_md_files(&config.cwd) {
        prompt.push_str(&format!(
            "\n# Instructions from {}\n\n{}\n",
            path.display(),
            text.trim_end()
        ));
    }
    prompt
}

/// cairn's own instructions, without the environment and AGENTS.md: the common file, the
/// sections for the tools offered, then the family's file.
pub fn instructions(planning: PlanningStyle, family: ModelFamily, tools: &[&str]) -> String {
    let offered = |name: &str| tools.contains(&name);
    let mut parts: Vec<&str> = vec![COMMON];
    match planning {
        PlanningStyle::Checklist if offered(names::UPDATE_PLAN) => parts.push(CHECKLIST),
        PlanningStyle::Structured if offered(names::CREATE_PLAN) => parts.push(STRUCTURED),
        _ => {}
    }
    if offered(names::APPLY_PATCH) {
        parts.push(EDITING_PATCH);
    }
    if offered(names::EDIT_FILE) || offered(names::WRITE_FILE) {
        parts.push(EDITING_EXACT);
    }
    if offered(names::DELEGATE_AGENT) {
        parts.push(DELEGATION);
    }
    parts.push(family_instructions(family));
    let mut text = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    for part in parts {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(part.trim_end());
        text.push('\n');
    }
    text
}

/// AGENTS.md files from the repository root down to `cwd`, outermost first. The repository
/// root is the nearest ancestor holding `.git`; outside a repository only `cwd` is read.
pub fn agents_md_files(cwd: &Path) -> Vec<(PathBuf, String)> {
    let root = cwd
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd);
    let mut dirs: Vec<&Path> = cwd
        .ancestors()
        .take_while(|dir| dir.starts_with(root))
        .collect();
    dirs.reverse();
    dirs.into_iter()
        .filter_map(|dir| {
            let path = dir.join("AGENTS.md");
            let text = std::fs::read_to_string(&path).ok()?;
            let text = if text.len() > AGENTS_MD_LIMIT {
                let mut end = AGENTS_MD_LIMIT;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                format!("{}\n[AGENTS.md truncated at 32 KiB]", &text[..end])
            } else {
                text
            };
            Some((path, text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_md_from_repo_root_down_to_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("AGENTS.md"), "root rules").unwrap();
        std::fs::write(root.join("a/b/AGENTS.md"), "inner rules").unwrap();
        let files = agents_md_files(&root.join("a/b"));
        let texts: Vec<&str> = files.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(texts, ["root rules", "inner rules"]);

        let config = Config::for_test(&root, &root.join("a/b"));
        let prompt = system_prompt(&config, ModelFamily::Other, &[]);
        assert!(prompt.contains("root rules") && prompt.contains("inner rules"));
        assert!(prompt.find("root rules") < prompt.find("inner rules"));
        assert!(prompt.contains(&format!(
            "Working directory: {}",
            root.join("a/b").display()
        )));
    }
}

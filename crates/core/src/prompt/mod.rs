//! The system prompt: cairn's instructions, the environment, and the repository's AGENTS.md
//! files.

use crate::config::{Config, PlanningStyle};
use std::path::{Path, PathBuf};

const BASE: &str = include_str!("system.md");
const STRUCTURED: &str = include_str!("structured.md");

/// Largest AGENTS.md content included, per file; a runaway file must not eat the context.
const AGENTS_MD_LIMIT: usize = 32 * 1024;

/// The system prompt for a session with `config`.
pub fn system_prompt(config: &Config) -> String {
    let mut prompt = String::with_capacity(BASE.len() + 1024);
    prompt.push_str(BASE);
    if config.planning == PlanningStyle::Structured {
        prompt.push('\n');
        prompt.push_str(STRUCTURED);
    }
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
        let prompt = system_prompt(&config);
        assert!(prompt.contains("root rules") && prompt.contains("inner rules"));
        assert!(prompt.find("root rules") < prompt.find("inner rules"));
        assert!(prompt.contains(&format!(
            "Working directory: {}",
            root.join("a/b").display()
        )));
    }
}

//! Which tool calls plan mode allows.
//!
//! Enforcement does not trust the prompt: the model is offered only [`ALLOWED_TOOLS`], and the
//! dispatcher runs [`check_call`] on every call, including calls to tools it was never offered.

use crate::tools::{args_value, names};
use std::path::{Component, Path, PathBuf};

/// Tools offered in plan mode. `write_file`, `edit_file` and `apply_patch` are further limited
/// to the plan file by [`check_call`]; a model is offered only those of its edit dialect.
pub const ALLOWED_TOOLS: &[&str] = &[
    names::READ_FILE,
    names::LIST_DIR,
    names::GLOB_FILES,
    names::GREP_FILES,
    names::THINK,
    names::ASK_USER_QUESTION,
    names::EXIT_PLAN_MODE,
    names::WRITE_FILE,
    names::EDIT_FILE,
    names::APPLY_PATCH,
    names::READ_PLAN,
    // Present only when configured; they read, and a fetch of an unlisted host still asks
    // under `untrusted`.
    names::WEB_FETCH,
    names::WEB_SEARCH,
    // Only read-only agents, whose runs stay read-only (checked by the handler and, for each
    // of the run's calls, by the dispatcher).
    names::DELEGATE_AGENT,
];

/// The refusal text for `tool`.
pub fn refusal(tool: &str) -> String {
    format!(
        "Tool '{tool}' is not allowed in plan mode. Only read-only tools and the plan file can be used."
    )
}

/// Whether `tool` is offered in plan mode.
pub fn is_offered(tool: &str) -> bool {
    ALLOWED_TOOLS.contains(&tool)
}

/// Whether plan mode offers the MCP tool `tool`: only when the user configured it read-only
/// (`read_only_by_config`); the server's `readOnlyHint` never counts.
pub fn check_mcp_call(tool: &str, read_only_by_config: bool) -> Result<(), String> {
    if read_only_by_config {
        Ok(())
    } else {
        Err(format!(
            "{} MCP tools are allowed in plan mode only when listed in `read_only_tools` (or `read_only = true`) of their [mcp_servers] entry.",
            refusal(tool)
        ))
    }
}

/// Whether `tool` is offered in plan mode under `config`: [`ALLOWED_TOOLS`], plus the shell
/// where the read-only sandbox is enforced (its calls are checked by
/// [`super::shell::check_call`] instead of [`check_call`]).
pub fn is_offered_with(tool: &str, config: &crate::config::Config) -> bool {
    is_offered(tool) || (tool == names::SHELL && super::shell::availability(config).is_ok())
}

/// Check one call in plan mode. `plan_file` is the path fixed at entry; `cwd` resolves relative
/// paths. Returns the refusal text when the call is not allowed.
pub fn check_call(tool: &str, arguments: &str, plan_file: &Path, cwd: &Path) -> Result<(), String> {
    if !is_offered(tool) {
        return Err(refusal(tool));
    }
    let args = args_value(arguments);
    let targets: Vec<String> = match tool {
        names::WRITE_FILE | names::EDIT_FILE => {
            let Some(raw) = args.get("path").and_then(|p| p.as_str()) else {
                return Err(refusal(tool));
            };
            vec![raw.to_string()]
        }
        names::APPLY_PATCH => {
            let input = args.get("input").and_then(|p| p.as_str()).unwrap_or("");
            match crate::tools::handlers::apply_patch::written_paths(input) {
                Some(paths) if !paths.is_empty() => paths,
                // Unparsable, or it deletes or moves a file: never on the plan file's behalf.
                _ => return Err(plan_file_only(tool, plan_file)),
            }
        }
        _ => return Ok(()),
    };
    // Resolve exactly as the file tools will (`~/`, trimming, `..`), so the path checked is the
    // path written.
    let all_plan_file = targets.iter().all(|raw| {
        crate::tools::handlers::paths::resolve(cwd, raw)
            .is_ok_and(|path| is_the_plan_file(&path, plan_file, cwd))
    });
    if all_plan_file {
        Ok(())
    } else {
        Err(plan_file_only(tool, plan_file))
    }
}

/// The refusal of a file tool call that reaches beyond the plan file.
fn plan_file_only(tool: &str, plan_file: &Path) -> String {
    format!(
        "{} In plan mode the file tools may only write the plan file, by its absolute path: {}",
        refusal(tool),
        plan_file.display()
    )
}

/// True when `target` names exactly the plan file: the same path after lexical
/// normalisation, no symlink at the file or any of its parents, and not a hard link.
pub fn is_the_plan_file(target: &Path, plan_file: &Path, cwd: &Path) -> bool {
    let absolute = if target.is_absolute() {
        target.to_path_buf()
    } else {
        cwd.join(target)
    };
    let Some(normalised) = normalise(&absolute) else {
        return false;
    };
    if normalised != plan_file {
        return false;
    }
    // Every ancestor must be a real directory: a symlinked parent could point anywhere.
    for ancestor in normalised.ancestors().skip(1) {
        match std::fs::symlink_metadata(ancestor) {
            Ok(meta) if meta.file_type().is_symlink() => return false,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    match std::fs::symlink_metadata(&normalised) {
        // Not written yet: fine, the write creates it.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Err(_) => false,
        Ok(meta) => {
            use std::os::unix::fs::MetadataExt;
            meta.file_type().is_file() && meta.nlink() == 1
        }
    }
}

/// Resolve `.` and `..` without touching the file system; `None` if `..` climbs above `/`.
pub fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(p) => out.push(p.as_os_str()),
            Component::RootDir => out.push("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(part) => out.push(part),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let plans = root.join("plans");
        std::fs::create_dir_all(&plans).unwrap();
        let work = root.join("work");
        std::fs::create_dir_all(&work).unwrap();
        (dir, plans.join("c_20260101_000000.md"), work)
    }

    #[test]
    fn only_offered_tools_pass() {
        let (_d, plan, cwd) = setup();
        assert!(check_call("read_file", "{}", &plan, &cwd).is_ok());
        let err = check_call("shell", r#"{"command":"ls"}"#, &plan, &cwd).unwrap_err();
        assert_eq!(
            err,
            "Tool 'shell' is not allowed in plan mode. Only read-only tools and the plan file can be used."
        );
        assert!(check_call("apply_patch", "{}", &plan, &cwd).is_err());
        assert!(check_call("apply_patch", r#"{"input":"nonsense"}"#, &plan, &cwd).is_err());
        assert!(check_call("made_up", "{}", &plan, &cwd).is_err());
    }

    #[test]
    fn writes_reach_only_the_plan_file() {
        let (_d, plan, cwd) = setup();
        let args = |p: &Path| format!(r#"{{"path":{:?},"content":"x"}}"#, p.display().to_string());
        assert!(check_call("write_file", &args(&plan), &plan, &cwd).is_ok());
        assert!(check_call("write_file", &args(&cwd.join("src.rs")), &plan, &cwd).is_err());
        // `..` that lands on the plan file is fine; `..` elsewhere is not.
        let via_dots = cwd.join("../plans").join(plan.file_name().unwrap());
        assert!(check_call("edit_file", &args(&via_dots), &plan, &cwd).is_ok());
        let elsewhere = cwd.join("plans").join(plan.file_name().unwrap());
        assert!(check_call("write_file", &args(&elsewhere), &plan, &cwd).is_err());
        assert!(check_call("write_file", r#"{"content":"x"}"#, &plan, &cwd).is_err());
    }

    #[test]
    fn apply_patch_reaches_only_the_plan_file() {
        let (_d, plan, cwd) = setup();
        let patch = |body: String| {
            serde_json::json!({"input": format!("*** Begin Patch\n{body}*** End Patch\n")})
                .to_string()
        };
        let add = |p: &Path| format!("*** Add File: {}\n+# Plan\n", p.display());
        let update = |p: &Path| {
            format!(
                "*** Update File: {}\n@@\n-# Plan\n+# Better plan\n",
                p.display()
            )
        };
        assert!(check_call("apply_patch", &patch(add(&plan)), &plan, &cwd).is_ok());
        assert!(check_call("apply_patch", &patch(update(&plan)), &plan, &cwd).is_ok());
        let src = cwd.join("src.rs");
        let err = check_call("apply_patch", &patch(add(&src)), &plan, &cwd).unwrap_err();
        assert!(err.contains("may only write the plan file"), "{err}");
        // One foreign file in the patch is enough to refuse all of it.
        let both = patch(format!("{}{}", add(&plan), add(&src)));
        assert!(check_call("apply_patch", &both, &plan, &cwd).is_err());
        // Deleting or moving the plan file is not writing it.
        let delete = patch(format!("*** Delete File: {}\n", plan.display()));
        assert!(check_call("apply_patch", &delete, &plan, &cwd).is_err());
        let moved = patch(format!(
            "*** Update File: {}\n*** Move to: {}\n@@\n-# Plan\n+# Plan\n",
            plan.display(),
            src.display()
        ));
        assert!(check_call("apply_patch", &moved, &plan, &cwd).is_err());
    }

    #[test]
    fn home_relative_paths_are_checked_as_the_tools_resolve_them() {
        let (_d, plan, cwd) = setup();
        let Some(home) = dirs::home_dir() else { return };
        // `~/..<plan>` would be the plan file if `~` were taken literally; the tools expand it.
        let raw = format!("~/..{}", plan.display());
        let args = format!(r#"{{"path":{raw:?},"content":"x"}}"#);
        let resolved = crate::tools::handlers::paths::resolve(&cwd, &raw).unwrap();
        assert_eq!(
            check_call("write_file", &args, &plan, &cwd).is_ok(),
            resolved == plan,
            "filter and tools must agree on {raw} (home {})",
            home.display()
        );
        let padded = format!(r#"{{"path":" {} ","content":"x"}}"#, plan.display());
        assert!(
            check_call("write_file", &padded, &plan, &cwd).is_ok(),
            "trimmed like the tools"
        );
    }

    #[test]
    fn symlinks_and_hard_links_are_refused() {
        let (_d, plan, cwd) = setup();
        let source = cwd.join("lib.rs");
        std::fs::write(&source, "fn main() {}").unwrap();
        std::os::unix::fs::symlink(&source, &plan).unwrap();
        assert!(
            !is_the_plan_file(&plan, &plan, &cwd),
            "symlink to a source file"
        );
        std::fs::remove_file(&plan).unwrap();
        std::os::unix::fs::symlink(cwd.join("missing"), &plan).unwrap();
        assert!(!is_the_plan_file(&plan, &plan, &cwd), "dangling symlink");
        std::fs::remove_file(&plan).unwrap();
        std::fs::hard_link(&source, &plan).unwrap();
        assert!(!is_the_plan_file(&plan, &plan, &cwd), "hard link");
    }

    #[test]
    fn symlinked_parent_is_refused() {
        let (_d, plan, cwd) = setup();
        let link = cwd.join("plans-link");
        std::os::unix::fs::symlink(plan.parent().unwrap(), &link).unwrap();
        let via_link = link.join(plan.file_name().unwrap());
        assert!(!is_the_plan_file(&via_link, &plan, &cwd));
        // Even if the fixed path itself were given through a symlinked parent.
        let plan_via_link = via_link.clone();
        assert!(!is_the_plan_file(&plan_via_link, &plan_via_link, &cwd));
    }
}

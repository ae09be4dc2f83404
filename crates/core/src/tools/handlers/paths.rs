//! Path rules shared by the file tools: every path argument resolves against the working
//! directory, targets are shown relative to it, and file tools never write inside `.git/`.

use crate::plan_mode::filter::normalise;
use crate::tools::ToolError;
use std::path::{Component, Path, PathBuf};

/// Resolve a path argument against `cwd` (`~/` means the home directory) and normalise `.`
/// and `..` lexically.
pub(crate) fn resolve(cwd: &Path, raw: &str) -> Result<PathBuf, ToolError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(ToolError::RespondToModel(
            "`path` is empty; give a path relative to the working directory or an absolute path."
                .into(),
        ));
    }
    let joined = match raw.strip_prefix("~/") {
        Some(rest) => match dirs::home_dir() {
            Some(home) => home.join(rest),
            None => cwd.join(raw),
        },
        None if Path::new(raw).is_absolute() => PathBuf::from(raw),
        None => cwd.join(raw),
    };
    normalise(&joined).ok_or_else(|| {
        ToolError::RespondToModel(format!("`{raw}` climbs above the file-system root."))
    })
}

/// `path` as the user should read it: relative to `cwd` when inside it, absolute otherwise.
pub(crate) fn display(path: &Path, cwd: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// `path` for the middle of a sentence: "the working directory" or [`display`].
pub(crate) fn place(path: &Path, cwd: &Path) -> String {
    if path == cwd {
        "the working directory".to_string()
    } else {
        display(path, cwd)
    }
}

/// True when `path` lies inside the workspace root `cwd`, both as written and after following
/// symlinks (a link inside the workspace may point anywhere).
pub(crate) fn is_inside_workspace(path: &Path, cwd: &Path) -> bool {
    if !path.starts_with(cwd) {
        return false;
    }
    match (real_path(path), std::fs::canonicalize(cwd)) {
        (Some(real), Ok(root)) => real.starts_with(root),
        _ => false,
    }
}

/// Refuse any target inside (or naming) a `.git` directory, as written or via symlinks.
pub(crate) fn refuse_git_dir(path: &Path, cwd: &Path) -> Result<(), ToolError> {
    // Case-insensitive: on case-insensitive file systems `.GIT` is the same directory.
    let in_git = |p: &Path| {
        p.components().any(|c| match c {
            Component::Normal(name) => name.eq_ignore_ascii_case(".git"),
            _ => false,
        })
    };
    if in_git(path) || real_path(path).is_some_and(|p| in_git(&p)) {
        return Err(ToolError::RespondToModel(format!(
            "Refusing to write {}: file tools never change anything inside a .git directory. Use git commands through the shell tool instead.",
            display(path, cwd)
        )));
    }
    Ok(())
}

/// Write `contents` to `path` for a file tool: atomically, through a symlink as editors do,
/// except for the plan file while plan mode is active, whose directory entry is replaced so a
/// link planted after the plan-mode check cannot redirect the write.
pub(crate) fn write_file(
    ctx: &crate::tools::ToolContext,
    path: &Path,
    contents: &[u8],
) -> std::io::Result<()> {
    let is_plan_file = crate::session::shared::lock(&ctx.shared.plan_mode)
        .active_plan_file()
        .is_some_and(|plan| plan == path);
    if is_plan_file {
        super::atomic::replace_entry(path, contents)
    } else {
        super::atomic::write_atomic(path, contents)
    }
}

/// Largest file the editing tools read into memory.
const MAX_EDIT_BYTES: u64 = 64 * 1024 * 1024;

/// Refuse to read an existing `path` that is not a regular file (a FIFO would block forever,
/// `/dev/zero` would never end) or is too large to edit in memory. A missing path or a
/// directory passes: callers word those cases themselves.
pub(crate) fn check_editable(path: &Path, cwd: &Path) -> Result<(), ToolError> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    if meta.is_dir() {
        return Ok(());
    }
    if !meta.is_file() {
        return Err(ToolError::RespondToModel(format!(
            "{} is not a regular file (a device, socket or pipe); file tools only edit regular files.",
            display(path, cwd)
        )));
    }
    if meta.len() > MAX_EDIT_BYTES {
        return Err(ToolError::RespondToModel(format!(
            "{} is {} MiB, too large to edit in memory (limit {} MiB); use the shell tool instead.",
            display(path, cwd),
            meta.len() / (1024 * 1024),
            MAX_EDIT_BYTES / (1024 * 1024)
        )));
    }
    Ok(())
}

/// Shell and git start-up files in the home directory: writing one changes what every later
/// command runs, so such a write is never known-safe, even when the workspace contains $HOME.
pub(crate) fn is_startup_file(path: &Path) -> bool {
    const NAMES: &[&str] = &[
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".profile",
        ".bash_logout",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".gitconfig",
        ".inputrc",
    ];
    let Some(home) = dirs::home_dir() else {
        return false;
    };
    let in_home = path.parent() == Some(home.as_path());
    let named = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| NAMES.contains(&n));
    let in_config = path.starts_with(home.join(".config/git"));
    (in_home && named) || in_config
}

/// `path` with symlinks resolved in its deepest existing ancestor; the missing rest is
/// appended as written.
pub(crate) fn real_path(path: &Path) -> Option<PathBuf> {
    let mut missing = Vec::new();
    let mut existing = path;
    loop {
        match std::fs::canonicalize(existing) {
            Ok(real) => {
                let mut out = real;
                out.extend(missing.iter().rev());
                return Some(out);
            }
            Err(_) => {
                missing.push(existing.file_name()?);
                existing = existing.parent()?;
            }
        }
    }
}

/// The error for a file that does not exist.
pub(crate) fn not_found(path: &Path, cwd: &Path) -> ToolError {
    ToolError::RespondToModel(format!(
        "File not found: {}. Use list_dir or glob_files to find the right path.",
        display(path, cwd)
    ))
}

/// An I/O failure on `path`, in words the model can act on.
pub(crate) fn io_error(action: &str, path: &Path, cwd: &Path, err: &std::io::Error) -> ToolError {
    if err.kind() == std::io::ErrorKind::NotFound {
        return not_found(path, cwd);
    }
    ToolError::RespondToModel(format!("Could not {action} {}: {err}", display(path, cwd)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_resolve_against_cwd() {
        let cwd = Path::new("/work/repo");
        assert_eq!(
            resolve(cwd, "src/../lib.rs").unwrap(),
            PathBuf::from("/work/repo/lib.rs")
        );
        assert_eq!(resolve(cwd, "/etc/x").unwrap(), PathBuf::from("/etc/x"));
        assert!(resolve(cwd, "  ").is_err());
        assert_eq!(display(Path::new("/work/repo/a/b.rs"), cwd), "a/b.rs");
        assert_eq!(display(Path::new("/work/other"), cwd), "/work/other");
    }

    #[test]
    fn workspace_check_follows_symlinks() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();
        assert!(is_inside_workspace(&root.join("src/new.rs"), &root));
        assert!(!is_inside_workspace(&root.join("escape/x.rs"), &root));
        assert!(!is_inside_workspace(Path::new("/etc/passwd"), &root));
    }

    #[test]
    fn git_internals_are_refused_even_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::os::unix::fs::symlink(root.join(".git/hooks"), root.join("hooks")).unwrap();
        let err = refuse_git_dir(&root.join(".git/hooks/pre-commit"), &root).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("Refusing to write .git/hooks/pre-commit: file tools never change")
        );
        assert!(refuse_git_dir(&root.join("hooks/pre-commit"), &root).is_err());
        assert!(refuse_git_dir(&root.join(".gitignore"), &root).is_ok());
    }
}

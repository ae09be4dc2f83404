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
    let in_git = |p: &Path| {
        p.components()
            .any(|c| c == Component::Normal(".git".as_ref()))
    };
    if in_git(path) || real_path(path).is_some_and(|p| in_git(&p)) {
        return Err(ToolError::RespondToModel(format!(
            "Refusing to write {}: file tools never change anything inside a .git directory. Use git commands through the shell tool instead.",
            display(path, cwd)
        )));
    }
    Ok(())
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

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
        ToolError::RespondToModel(format!(
            "`{raw}` climbs above the file-system root; give a path relative to the working directory or an absolute path."
        ))
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
        return Err(not_regular(path, cwd, &meta));
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

/// Open an existing file for reading without ever blocking: the file type is checked before
/// opening and again on the opened descriptor, and the open itself does not wait, so a FIFO
/// (which would wait for a writer forever), a socket or a device (`/dev/zero` never ends)
/// gets an immediate error the model can act on.
pub(crate) fn open_regular(path: &Path, cwd: &Path) -> Result<std::fs::File, ToolError> {
    use std::os::unix::fs::OpenOptionsExt;
    let meta = std::fs::metadata(path).map_err(|e| io_error("read", path, cwd, &e))?;
    if !meta.is_file() && !meta.is_dir() {
        return Err(not_regular(path, cwd, &meta));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
        .map_err(|e| io_error("read", path, cwd, &e))?;
    // The entry may have been swapped since the check: the descriptor decides.
    let meta = file
        .metadata()
        .map_err(|e| io_error("read", path, cwd, &e))?;
    if !meta.is_file() && !meta.is_dir() {
        return Err(not_regular(path, cwd, &meta));
    }
    Ok(file)
}

/// The whole content of the regular file `path` (see [`open_regular`]).
pub(crate) fn read_regular(path: &Path, cwd: &Path) -> Result<Vec<u8>, ToolError> {
    use std::io::Read;
    let mut file = open_regular(path, cwd)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| io_error("read", path, cwd, &e))?;
    Ok(bytes)
}

/// `std::fs::read` that cannot block on a FIFO swapped in after a type check: opened
/// without waiting, and refused unless the descriptor is a regular file or a directory.
pub(crate) fn read_nonblocking(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() && !meta.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a device, socket or pipe)",
        ));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn not_regular(path: &Path, cwd: &Path, meta: &std::fs::Metadata) -> ToolError {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    let kind = if t.is_fifo() {
        "a named pipe (FIFO)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "a special file"
    };
    ToolError::RespondToModel(format!(
        "{} is {kind}, not a regular file; file tools only use regular files (reading it could block forever or never end).",
        display(path, cwd)
    ))
}

/// `path` with symlinks resolved in its deepest existing ancestor; the missing rest is
/// appended as written. A dangling symlink is followed too (writing through it would create
/// its target).
pub(crate) fn real_path(path: &Path) -> Option<PathBuf> {
    resolve_links(path, 0)
}

/// Links followed before giving up, as the kernel's own limit.
const MAX_LINKS: usize = 40;

fn resolve_links(path: &Path, depth: usize) -> Option<PathBuf> {
    let mut missing = Vec::new();
    let mut existing = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let mut out = real;
            out.extend(missing.iter().rev());
            return Some(out);
        }
        let dangling = std::fs::symlink_metadata(existing).is_ok_and(|m| m.is_symlink());
        if dangling && depth < MAX_LINKS {
            let target = std::fs::read_link(existing).ok()?;
            let mut next = existing.parent()?.join(target);
            next.extend(missing.iter().rev());
            return resolve_links(&normalise(&next)?, depth + 1);
        }
        missing.push(existing.file_name()?);
        existing = existing.parent()?;
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

//! Atomic file replacement for the file tools: write a temporary file in the target's
//! directory, flush it to disk, then rename it over the target. A reader sees the old file or
//! the new one, never a mix, and a failed write leaves the old file untouched.

use std::fs::{File, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Replace `path` with `contents`, creating parent directories as needed and keeping the mode
/// of an existing file.
pub(crate) fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |file| file.write_all(contents))
}

/// Like [`write_atomic`], but a symlink at `path` is replaced by the new file instead of
/// being written through. Plan mode writes the plan file this way: whatever appears at the
/// plan file's path between the check and the write, the write lands at that path and nowhere
/// else.
pub(crate) fn replace_entry(path: &Path, contents: &[u8]) -> io::Result<()> {
    write_to(path.to_path_buf(), |file| file.write_all(contents))
}

/// Like [`write_atomic`], with the contents produced by `fill`. If `fill` fails, the target
/// is left as it was and the temporary file is removed.
pub(crate) fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    write_to(through_symlink(path), fill)
}

fn write_to(target: PathBuf, fill: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)?;
    let existing_mode = std::fs::symlink_metadata(&target)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.permissions().mode());
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A new file gets the usual 0666 less the umask, like any editor would create.
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".cairn-tmp")
        .permissions(Permissions::from_mode(existing_mode.unwrap_or(0o666)))
        .tempfile_in(&parent)?;
    fill(temp.as_file_mut())?;
    if let Some(mode) = existing_mode {
        // The umask may have narrowed the mode given at creation; restore it exactly.
        temp.as_file()
            .set_permissions(Permissions::from_mode(mode))?;
    }
    temp.as_file().sync_all()?;
    temp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}

/// Writing through a symlink updates the file it points to instead of replacing the link.
fn through_symlink(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn failed_write_leaves_old_file_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.txt");
        std::fs::write(&path, "old contents\n").unwrap();
        let err = write_atomic_with(&path, |file| {
            file.write_all(b"half of the new")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old contents\n");
        assert_eq!(entries(dir.path()), vec!["data.txt"]);
    }

    #[test]
    fn existing_mode_is_kept_and_parents_are_created() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("run.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&script, Permissions::from_mode(0o751)).unwrap();
        write_atomic(&script, b"#!/bin/sh\necho hi\n").unwrap();
        let mode = std::fs::metadata(&script).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o751);
        assert_eq!(
            std::fs::read_to_string(&script).unwrap(),
            "#!/bin/sh\necho hi\n"
        );

        let nested = dir.path().join("a/b/c.txt");
        write_atomic(&nested, b"x").unwrap();
        assert_eq!(std::fs::read_to_string(&nested).unwrap(), "x");
        // A new file gets 0666 less the umask, not the temp file's private 0600.
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let umask = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .map(|m| u32::from_str_radix(m.trim(), 8).unwrap())
            .unwrap();
        let new_mode = std::fs::metadata(&nested).unwrap().permissions().mode();
        assert_eq!(new_mode & 0o777, 0o666 & !umask);
    }

    #[test]
    fn writing_through_a_symlink_keeps_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        std::fs::write(&real, "a").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"b").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "b");
    }
}

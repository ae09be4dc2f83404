//! Where write rules go when the protected paths cannot be covered by read-only bind mounts
//! (no mount namespace available). Landlock rules only add rights, and a rule on a directory
//! covers everything below it, so a protected path must not lie below any granted one: grant
//! every sibling along the way instead. The price: new entries cannot be created directly in
//! a directory that holds a protected path (the workspace root, `.git`).

use std::path::{Path, PathBuf};

/// The paths to grant so that everything below `root` is writable except `protected` (and
/// the directories leading to them, whose existing other entries stay writable).
pub(super) fn grants(root: &Path, protected: &[PathBuf]) -> Vec<PathBuf> {
    let inside: Vec<&PathBuf> = protected.iter().filter(|p| p.starts_with(root)).collect();
    if inside.is_empty() {
        return vec![root.to_path_buf()];
    }
    if inside.iter().any(|p| p.as_path() == root) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if inside.iter().any(|p| p.starts_with(&path)) {
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir {
                out.extend(grants(&path, protected));
            }
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_paths_are_never_below_a_grant() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["src", ".git/hooks", ".git/objects"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join(".git/config"), "").unwrap();
        std::fs::write(root.join(".git/HEAD"), "").unwrap();
        std::fs::write(root.join("README"), "").unwrap();
        let protected = vec![root.join(".git/hooks"), root.join(".git/config")];
        let granted = grants(root, &protected);
        assert_eq!(
            granted,
            vec![
                root.join(".git/HEAD"),
                root.join(".git/objects"),
                root.join("README"),
                root.join("src"),
            ]
        );
        assert_eq!(grants(root, &[]), vec![root.to_path_buf()]);
        assert!(grants(root, &[root.to_path_buf()]).is_empty());
    }
}

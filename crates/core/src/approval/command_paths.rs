//! The paths a command line names, so the shell tool answers to the same access rules as the
//! file tools: `cat ~/.ssh/id_rsa` is a secret read, `sed -i .. ~/.cairn/config.toml` a
//! change to cairn's settings.
//!
//! This is a scan, not a shell: it splits the text at blanks and shell operators, takes the
//! value of `--option=value` and `NAME=value`, expands a leading `~` or `$HOME`, and resolves
//! each word against the working directory. It errs towards finding too many paths, which
//! only means asking the user more often.

use super::access::{self, Access, ReadAccess};
use crate::plan_mode::filter::normalise;
use std::path::{Path, PathBuf};

/// How a command's paths stand, for the approval policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandAccess {
    /// Why the command must always be asked, when a word names a protected place.
    pub protected: Option<&'static str>,
    /// True when a word names an existing place outside the readable roots.
    pub reads_outside: bool,
}

/// Assess `command` run in `workdir`.
pub fn assess(command: &str, workdir: &Path, access: &Access) -> CommandAccess {
    let mut result = CommandAccess::default();
    let candidates = std::iter::once(workdir.to_path_buf()).chain(named_paths(command, workdir));
    for path in candidates {
        if result.protected.is_none() {
            result.protected = if access.read(&path) == ReadAccess::Secret {
                Some(access::COMMAND_NAMES_SECRET)
            } else if access.write_guard(&path).is_some() {
                Some(access::COMMAND_NAMES_PROTECTED)
            } else {
                None
            };
        }
        // A word like `/fn main/` (a sed address) is no path: only places that exist, or
        // could be created in an existing directory, count as reads outside.
        let plausible = path.exists() || path.parent().is_some_and(Path::exists);
        if plausible && access.read(&path) == ReadAccess::Outside {
            result.reads_outside = true;
        }
    }
    result
}

/// Every word of `command` that could be a path, resolved against `workdir`.
pub fn named_paths(command: &str, workdir: &Path) -> Vec<PathBuf> {
    let home = dirs::home_dir();
    let mut paths = Vec::new();
    for word in words(command) {
        let word = word.trim_matches(|c| c == '\'' || c == '"');
        if word.is_empty() || word.starts_with('-') {
            continue;
        }
        let expanded = expand_home(word, home.as_deref());
        let joined = match expanded {
            Some(path) => path,
            None if word.starts_with('/') => PathBuf::from(word),
            None => workdir.join(word),
        };
        if let Some(path) = normalise(&joined)
            && !paths.contains(&path)
        {
            paths.push(path);
        }
    }
    paths
}

/// The words of `command`, split at blanks, shell operators, `=` and `:`.
fn words(command: &str) -> Vec<String> {
    let coarse = shlex::split(command)
        .unwrap_or_else(|| command.split_whitespace().map(String::from).collect());
    let mut out = Vec::new();
    for word in coarse {
        // `--out=/x`, `A=/x`, `a>/x`, `host:/x`: every piece may be a path.
        for piece in word.split(|c: char| "=<>|;&()`:,".contains(c)) {
            if !piece.is_empty() {
                out.push(piece.to_string());
            }
        }
    }
    out
}

/// `~`, `~/x`, `$HOME/x` and `${HOME}/x` under the home directory.
fn expand_home(word: &str, home: Option<&Path>) -> Option<PathBuf> {
    let home = home?;
    for prefix in ["${HOME}", "$HOME", "~"] {
        if let Some(rest) = word.strip_prefix(prefix) {
            if rest.is_empty() {
                return Some(home.to_path_buf());
            }
            if let Some(rest) = rest.strip_prefix('/') {
                return Some(home.join(rest));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_options_and_assignments_become_paths() {
        let cwd = Path::new("/work/repo");
        let home = dirs::home_dir().unwrap();
        let paths = named_paths(
            "cat ~/.ssh/id_rsa src/a.rs --out=/etc/x A=../b 'x y'>>/tmp/o",
            cwd,
        );
        assert!(paths.contains(&home.join(".ssh/id_rsa")), "{paths:?}");
        assert!(paths.contains(&PathBuf::from("/work/repo/src/a.rs")));
        assert!(paths.contains(&PathBuf::from("/etc/x")));
        assert!(paths.contains(&PathBuf::from("/work/b")));
        assert!(paths.contains(&PathBuf::from("/tmp/o")));
        let unparsed = named_paths("echo $(cat $HOME/.aws/credentials", cwd);
        assert!(
            unparsed.contains(&home.join(".aws/credentials")),
            "{unparsed:?}"
        );
    }
}

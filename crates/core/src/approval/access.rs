//! Which paths a tool call may touch without the user's say-so.
//!
//! Reads are free inside the readable roots (the workspace, the temporary directory, cairn's
//! plan directory and `[permissions] readable_roots`) and asked elsewhere. Some places are
//! asked under every policy but `never`, whatever was approved before: writes to cairn's own
//! settings (`$CAIRN_HOME`, a `.cairn/` directory), writes to start-up files under `$HOME`
//! (any entry whose first component below `$HOME` starts with a dot), and reads of
//! well-known secret locations. Every check looks at the path as written and after
//! following symlinks, so a link inside the workspace cannot lead around it.

use crate::config::Config;
use crate::tools::handlers::paths::real_path;
use std::path::{Component, Path, PathBuf};

/// Why a write to cairn's settings is always asked.
pub const CAIRN_SETTINGS: &str = "It changes cairn's own settings or data ($CAIRN_HOME or a .cairn directory), which only you decide.";
/// Why a write to a start-up file is always asked.
pub const STARTUP_FILE: &str = "It changes a dotfile in your home directory; programs read such files at start-up, so a change can make later commands run code.";
/// Why a secret read is always asked.
pub const SECRET: &str = "It reads a place that usually holds secrets (keys, tokens, passwords).";

/// Why a command naming cairn's settings or a home dotfile is always asked.
pub const COMMAND_NAMES_PROTECTED: &str = "The command names cairn's own settings ($CAIRN_HOME or a .cairn directory) or a dotfile in your home directory, which only you decide.";
/// Why a command naming a secret is always asked.
pub const COMMAND_NAMES_SECRET: &str =
    "The command names a place that usually holds secrets (keys, tokens, passwords).";

/// Locations below `$HOME` that usually hold credentials.
const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".netrc",
    ".config/gh",
    ".docker/config.json",
    ".git-credentials",
    ".kube",
    ".pgpass",
    ".config/gcloud",
    ".azure",
    ".password-store",
];

/// System files that hold password hashes.
const SYSTEM_SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
];

/// How a read of one path stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ReadAccess {
    /// Inside a readable root: no question.
    Free,
    /// Outside the readable roots: asked under `untrusted` and `on-request`.
    Outside,
    /// A secret: asked under every policy but `never`.
    Secret,
}

/// A root as written and as resolved.
#[derive(Debug, Clone)]
struct Root {
    written: PathBuf,
    real: Option<PathBuf>,
}

impl Root {
    fn new(path: PathBuf) -> Self {
        let real = std::fs::canonicalize(&path).ok();
        Self {
            written: path,
            real,
        }
    }

    /// True when `path` (as written) and `real` (resolved) both lie inside this root.
    fn holds(&self, path: &Path, real: Option<&Path>) -> bool {
        if !path.starts_with(&self.written)
            && !self.real.as_ref().is_some_and(|r| path.starts_with(r))
        {
            return false;
        }
        match (real, &self.real) {
            (Some(real), Some(root)) => real.starts_with(root),
            (Some(real), None) => real.starts_with(&self.written),
            (None, _) => true,
        }
    }

    /// True when `path` as written or resolved lies inside this root.
    fn touches(&self, path: &Path, real: Option<&Path>) -> bool {
        let inside = |p: &Path| {
            p.starts_with(&self.written) || self.real.as_ref().is_some_and(|r| p.starts_with(r))
        };
        inside(path) || real.is_some_and(inside)
    }
}

/// The access rules of one session, for the workspace root `cwd`.
#[derive(Debug, Clone)]
pub struct Access {
    workspace: Root,
    readable: Vec<Root>,
    cairn_home: Root,
    cairn_config: PathBuf,
    home: Option<Root>,
}

impl Access {
    /// The rules for a call in the workspace `cwd` under `config`.
    pub fn new(config: &Config, cwd: &Path) -> Self {
        let temp = [std::env::temp_dir(), PathBuf::from("/tmp")];
        Self::with_places(config, cwd, dirs::home_dir(), &temp)
    }

    /// As [`Access::new`] with the home and temporary directories given (tests).
    pub fn with_places(
        config: &Config,
        cwd: &Path,
        home: Option<PathBuf>,
        temp: &[PathBuf],
    ) -> Self {
        let mut readable: Vec<Root> = temp.iter().cloned().map(Root::new).collect();
        readable.push(Root::new(config.plans_dir()));
        readable.extend(config.readable_roots.iter().cloned().map(Root::new));
        Self {
            workspace: Root::new(cwd.to_path_buf()),
            readable,
            cairn_home: Root::new(config.cairn_home.clone()),
            cairn_config: config.cairn_home.join("config.toml"),
            home: home.map(Root::new),
        }
    }

    /// True when `path` lies inside the workspace root, as written and resolved.
    pub fn in_workspace(&self, path: &Path) -> bool {
        self.workspace.holds(path, real_path(path).as_deref())
    }

    /// Why writing `path` must always be asked, if it must.
    pub fn write_guard(&self, path: &Path) -> Option<&'static str> {
        let real = real_path(path);
        let candidates = std::iter::once(path).chain(real.as_deref());
        for candidate in candidates {
            if self.cairn_home.touches(candidate, None) || has_cairn_dir(candidate) {
                return Some(CAIRN_SETTINGS);
            }
            if self.is_home_dotfile(candidate) {
                return Some(STARTUP_FILE);
            }
        }
        None
    }

    /// How reading `path` stands.
    pub fn read(&self, path: &Path) -> ReadAccess {
        let real = real_path(path);
        if self.is_secret(path) || real.as_deref().is_some_and(|r| self.is_secret(r)) {
            return ReadAccess::Secret;
        }
        let real = real.as_deref();
        let readable = self.workspace.holds(path, real)
            || self.readable.iter().any(|root| root.holds(path, real));
        if readable {
            ReadAccess::Free
        } else {
            ReadAccess::Outside
        }
    }

    /// True when `path` is a well-known secret location or lies inside one.
    pub fn is_secret(&self, path: &Path) -> bool {
        if path == self.cairn_config
            || self
                .cairn_home
                .real
                .as_ref()
                .is_some_and(|r| path == r.join("config.toml"))
        {
            return true;
        }
        if SYSTEM_SECRETS.iter().any(|s| path == Path::new(s)) {
            return true;
        }
        if let Some(home) = &self.home {
            let below = path
                .strip_prefix(&home.written)
                .ok()
                .or_else(|| home.real.as_ref().and_then(|r| path.strip_prefix(r).ok()));
            if below.is_some_and(|rest| HOME_SECRETS.iter().any(|s| rest.starts_with(s))) {
                return true;
            }
        }
        // A `.env` file outside the workspace (inside it, it is the project's own).
        let env_file = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n == ".env" || n.starts_with(".env."));
        env_file && !self.workspace.touches(path, None)
    }

    /// A path whose first component below `$HOME` starts with a dot, unless the workspace
    /// itself lies inside that directory (a project kept in `~/.config/nvim`, say).
    fn is_home_dotfile(&self, path: &Path) -> bool {
        let Some(home) = &self.home else {
            return false;
        };
        let bases = std::iter::once(&home.written).chain(home.real.as_ref());
        for base in bases {
            let Ok(rest) = path.strip_prefix(base) else {
                continue;
            };
            let Some(Component::Normal(first)) = rest.components().next() else {
                continue;
            };
            if !first.to_string_lossy().starts_with('.') {
                continue;
            }
            let dir = base.join(first);
            let workspace_inside = self.workspace.written.starts_with(&dir)
                || self
                    .workspace
                    .real
                    .as_ref()
                    .is_some_and(|w| w.starts_with(&dir));
            if !workspace_inside {
                return true;
            }
        }
        false
    }
}

/// True when a component of `path` is a `.cairn` directory (a project's cairn settings).
fn has_cairn_dir(path: &Path) -> bool {
    path.components().any(|c| match c {
        Component::Normal(name) => name.eq_ignore_ascii_case(".cairn"),
        _ => false,
    })
}

#[cfg(test)]
mod tests;

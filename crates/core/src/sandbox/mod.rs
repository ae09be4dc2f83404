//! The kernel sandbox around shell commands: Landlock (what a command may write), a seccomp
//! filter (no network sockets unless `[sandbox] network = true`), `no_new_privs`, and for
//! `workspace-write` read-only bind mounts over the places inside the workspace that must not
//! change (`.git` hooks and config, `$CAIRN_HOME`).
//!
//! cairn decides the [`Policy`] of each command (the shell handler, from plan mode and
//! config) and writes it into a [`Spec`]; the launcher (`tools/handlers/shell/launcher.rs`), a
//! single-threaded re-execution of the `cairn` binary, applies the spec to itself before it
//! starts bash ([`enforce::apply`]), so every process of the command inherits it and none can
//! lift it. The sandbox is a wall behind the approval policy, never instead of it: the
//! classifier still decides what asks.

pub mod denial;
pub mod enforce;
mod layout;
mod network;
mod probe;
pub mod report;

pub use probe::Support;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a sandboxed command may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// Read everywhere; write only /dev/null and the command's private temporary directory.
    ReadOnly,
    /// Also write inside the workspace, except `.git` hooks and config and `$CAIRN_HOME`.
    WorkspaceWrite,
}

impl Policy {
    /// The name used in config and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::WorkspaceWrite => "workspace-write",
        }
    }
}

/// `[sandbox] mode`: how commands outside plan mode run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Under [`Policy::WorkspaceWrite`].
    WorkspaceWrite,
    /// Without a sandbox (plan mode still uses the read-only one).
    Off,
}

/// `[sandbox]` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxToml {
    /// `workspace-write` (default where Landlock is enforced) or `off`.
    pub mode: Option<Mode>,
    /// Let sandboxed commands open network sockets (default false).
    pub network: Option<bool>,
}

/// Environment variable that makes cairn act as if the kernel did not enforce Landlock, to
/// see (and test) what happens then.
pub const ASSUME_UNENFORCED_ENV: &str = "CAIRN_SANDBOX_ASSUME_UNENFORCED";

/// The sandbox settings in force.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SandboxSettings {
    /// `[sandbox] mode` as configured; `None` means the default.
    pub mode: Option<Mode>,
    /// `[sandbox] network`.
    pub network: bool,
    /// What the kernel enforces, when known in advance (tests, [`ASSUME_UNENFORCED_ENV`]);
    /// `None` probes this machine once per process.
    pub support_override: Option<Support>,
}

impl SandboxSettings {
    /// From `[sandbox]` and the environment.
    pub fn from_toml(toml: &SandboxToml, env: &dyn Fn(&str) -> Option<String>) -> Self {
        let assume_unenforced = env(ASSUME_UNENFORCED_ENV).is_some_and(|v| !v.trim().is_empty());
        Self {
            mode: toml.mode,
            network: toml.network.unwrap_or(false),
            support_override: assume_unenforced.then(|| {
                Support::Unavailable(format!(
                    "{ASSUME_UNENFORCED_ENV} is set, so cairn acts as if the kernel did not enforce Landlock"
                ))
            }),
        }
    }

    /// What this machine enforces (probed once per process unless overridden).
    pub fn support(&self) -> Support {
        match &self.support_override {
            Some(support) => support.clone(),
            None => probe::support(),
        }
    }

    /// Why the read-only sandbox cannot be used, or `Ok` when it can.
    pub fn read_only_available(&self) -> Result<(), String> {
        match self.support() {
            Support::Enforced { .. } => Ok(()),
            Support::Unavailable(why) => Err(why),
        }
    }

    /// The policy of shell commands outside plan mode: `Ok(None)` runs them unsandboxed.
    /// An explicit `mode = "workspace-write"` the kernel cannot enforce is an error, not a
    /// silent downgrade.
    pub fn outside_plan_mode(&self) -> Result<Option<Policy>, String> {
        match (self.mode, self.support()) {
            (Some(Mode::Off), _) => Ok(None),
            (_, Support::Enforced { .. }) => Ok(Some(Policy::WorkspaceWrite)),
            (None, Support::Unavailable(_)) => Ok(None),
            (Some(Mode::WorkspaceWrite), Support::Unavailable(why)) => Err(format!(
                "[sandbox] mode = \"workspace-write\" is set, but the sandbox cannot be used: {why}. Shell commands are not run; the user can set [sandbox] mode = \"off\" in config.toml to run them without it."
            )),
        }
    }
}

/// Everything the launcher needs to sandbox one command; passed to it as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spec {
    /// The policy.
    pub policy: Policy,
    /// Directories the command may write (with [`Policy::WorkspaceWrite`]: the workspace).
    pub writable: Vec<PathBuf>,
    /// Paths under `writable` that stay read-only.
    pub protected: Vec<PathBuf>,
    /// The command's private temporary directory (its `TMPDIR`), always writable.
    pub tmp: PathBuf,
    /// Whether the command may open network sockets.
    pub network: bool,
}

impl Spec {
    /// The spec of `policy` for a command in workspace `workspace`, with `$CAIRN_HOME` at
    /// `cairn_home` and private temporary directory `tmp`.
    ///
    /// Paths are resolved (symlinks followed) because the kernel checks the real ones.
    pub fn new(
        policy: Policy,
        workspace: &Path,
        cairn_home: &Path,
        tmp: &Path,
        network: bool,
    ) -> Self {
        let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let cairn_home = real(cairn_home);
        let mut writable = Vec::new();
        let mut protected = Vec::new();
        if policy == Policy::WorkspaceWrite {
            let root = real(workspace);
            // A workspace inside $CAIRN_HOME would make cairn's settings writable: not at all.
            if !root.starts_with(&cairn_home) {
                protected.extend(git_protected(&root));
                if cairn_home.starts_with(&root) && cairn_home.exists() {
                    protected.push(cairn_home.clone());
                }
                writable.push(root);
            }
        }
        Self {
            policy,
            writable,
            protected,
            tmp: real(tmp),
            network,
        }
    }

    /// One line for the model and the user: what this spec allows.
    pub fn summary(&self) -> String {
        let writes = match self.policy {
            Policy::ReadOnly => "no writes except its temporary directory ($TMPDIR)".to_string(),
            Policy::WorkspaceWrite => format!(
                "writes only inside {} and its temporary directory ($TMPDIR); .git hooks and config and $CAIRN_HOME stay read-only",
                self.writable
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let network = if self.network {
            "network allowed"
        } else {
            "no network"
        };
        format!("{} sandbox: {writes}; {network}", self.policy.as_str())
    }
}

/// The parts of a repository at `root` that must not change: hooks run code on the next git
/// command, and config can name programs git runs (core.fsmonitor, core.hooksPath, aliases).
fn git_protected(root: &Path) -> Vec<PathBuf> {
    let git = root.join(".git");
    match std::fs::symlink_metadata(&git) {
        Ok(meta) if meta.is_dir() => {
            let hooks = git.join("hooks");
            // A missing hooks directory could be created full of hooks; git itself creates
            // it empty on `init`, so creating it changes nothing a user would notice.
            if !hooks.exists() {
                let _ = std::fs::create_dir(&hooks);
            }
            [hooks, git.join("config")]
                .into_iter()
                .filter(|p| p.exists())
                .collect()
        }
        // A `.git` file points at the real repository: keep it pointing there.
        Ok(_) => vec![git],
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_write_protects_git_hooks_config_and_a_nested_cairn_home() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "").unwrap();
        let home = root.join(".cairn-home");
        std::fs::create_dir(&home).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let spec = Spec::new(Policy::WorkspaceWrite, &root, &home, tmp.path(), false);
        assert_eq!(spec.writable, vec![root.clone()]);
        assert_eq!(
            spec.protected,
            vec![root.join(".git/hooks"), root.join(".git/config"), home]
        );
        assert!(root.join(".git/hooks").is_dir(), "created empty");
    }

    #[test]
    fn a_workspace_inside_cairn_home_is_not_writable() {
        let home = tempfile::tempdir().unwrap();
        let work = home.path().join("plans");
        std::fs::create_dir(&work).unwrap();
        let spec = Spec::new(
            Policy::WorkspaceWrite,
            &work,
            home.path(),
            home.path(),
            false,
        );
        assert!(spec.writable.is_empty());
    }

    #[test]
    fn explicit_workspace_write_without_support_is_an_error() {
        let settings = SandboxSettings {
            mode: Some(Mode::WorkspaceWrite),
            network: false,
            support_override: Some(Support::Unavailable("no Landlock".into())),
        };
        let err = settings.outside_plan_mode().unwrap_err();
        assert!(
            err.contains("no Landlock") && err.contains("mode = \"off\""),
            "{err}"
        );
        let default = SandboxSettings {
            mode: None,
            ..settings.clone()
        };
        assert_eq!(default.outside_plan_mode(), Ok(None));
        let enforced = SandboxSettings {
            support_override: Some(Support::Enforced { abi: 7 }),
            ..default
        };
        assert_eq!(
            enforced.outside_plan_mode(),
            Ok(Some(Policy::WorkspaceWrite))
        );
    }
}

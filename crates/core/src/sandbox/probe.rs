//! What this machine enforces, found by trying: a short-lived thread applies a Landlock
//! ruleset and the network filter to itself and reports what the kernel said. Both are
//! per-thread until a process is started, so the rest of cairn stays unrestricted.

use landlock::{
    ABI, Access, AccessFs, LandlockStatus, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus,
};
use std::sync::OnceLock;

/// Whether shell commands can be sandboxed here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// Landlock and the seccomp filter are enforced; `abi` is the kernel's Landlock ABI.
    Enforced {
        /// Landlock ABI version.
        abi: u8,
    },
    /// They are not, and why (one sentence a user can act on).
    Unavailable(String),
}

/// What the kernel did when asked, in detail (for `cairn sandbox check`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelReport {
    /// The Landlock ABI when a ruleset was enforced, else why not.
    pub landlock: Result<u8, String>,
    /// Whether a seccomp filter could be installed, else why not.
    pub seccomp: Result<(), String>,
}

impl KernelReport {
    fn support(&self) -> Support {
        match (&self.landlock, &self.seccomp) {
            (Ok(abi), Ok(())) => Support::Enforced { abi: *abi },
            (Err(why), _) => Support::Unavailable(why.clone()),
            (Ok(_), Err(why)) => Support::Unavailable(why.clone()),
        }
    }
}

/// The probe's result, once per process.
pub(super) fn support() -> Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT
        .get_or_init(|| {
            if !crate::tools::handlers::shell::launcher::is_available() {
                return Support::Unavailable(
                    "this process cannot run cairn's shell launcher, which applies the sandbox (only the cairn binary can)".into(),
                );
            }
            kernel_report().support()
        })
        .clone()
}

/// Ask the kernel (in a thread of its own, which ends restricted).
pub fn kernel_report() -> KernelReport {
    std::thread::Builder::new()
        .name("cairn-sandbox-probe".into())
        .spawn(probe_this_thread)
        .ok()
        .and_then(|thread| thread.join().ok())
        .unwrap_or_else(|| KernelReport {
            landlock: Err("the sandbox probe could not run".into()),
            seccomp: Err("the sandbox probe could not run".into()),
        })
}

fn probe_this_thread() -> KernelReport {
    let landlock = (|| {
        let abi = ABI::V7;
        let root = PathFd::new("/").map_err(|e| e.to_string())?;
        Ruleset::default()
            .handle_access(AccessFs::from_all(abi))
            .and_then(|r| r.create())
            .and_then(|r| r.add_rule(PathBeneath::new(root, AccessFs::from_read(abi))))
            .and_then(|r| r.restrict_self())
            .map_err(|e| e.to_string())
    })();
    let landlock = match landlock {
        Ok(status) if status.ruleset != RulesetStatus::NotEnforced => match status.landlock {
            // ABI is non-exhaustive; its Display is the version number.
            LandlockStatus::Available { effective_abi, .. } => {
                Ok(effective_abi.to_string().parse().unwrap_or(0))
            }
            _ => Ok(0),
        },
        Ok(status) => Err(match status.landlock {
            LandlockStatus::NotEnabled => "the kernel has Landlock but it is not enabled (add `landlock` to the `lsm=` boot parameter)".to_string(),
            LandlockStatus::NotImplemented => "the kernel does not support Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK is needed)".to_string(),
            LandlockStatus::Available { .. } => "the kernel did not enforce the Landlock ruleset".to_string(),
        }),
        Err(err) => Err(format!("Landlock could not be applied: {err}")),
    };
    let seccomp = super::network::deny_sockets()
        .map_err(|err| format!("the seccomp network filter could not be installed: {err}"));
    KernelReport { landlock, seccomp }
}

//! The launcher's side: apply a [`Spec`] to the current process before it starts bash.
//!
//! Must run while the process has a single thread (the launcher, before anything else): a
//! new user namespace requires it, and Landlock and seccomp restrict only the calling thread
//! and what it starts.

use super::layout;
use super::network;
use super::{Policy, Spec};
use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope,
};
use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::sys::statvfs::{FsFlags, statvfs};
use nix::unistd::{getgid, getuid};
use std::path::{Path, PathBuf};

/// The Landlock ABI whose rights cairn asks for: the one it was tested on. Older kernels
/// enforce what they know (best effort); a kernel that enforces nothing is an error.
const TARGET_ABI: ABI = ABI::V7;

/// Restrict this process (and everything it starts) to `spec`. On error nothing must run:
/// the caller reports the message and exits.
pub fn apply(spec: &Spec) -> Result<(), String> {
    nix::sys::prctl::set_no_new_privs().map_err(|e| format!("could not set no_new_privs: {e}"))?;
    // Read-only bind mounts keep the protected paths unchanged while the rest of the
    // workspace stays fully writable; without a mount namespace, the rules go around them.
    let protected_by_mounts = spec.protected.is_empty() || mount_read_only(&spec.protected).is_ok();
    restrict_files(spec, protected_by_mounts)?;
    if !spec.network {
        network::deny_sockets()?;
    }
    Ok(())
}

fn restrict_files(spec: &Spec, protected_by_mounts: bool) -> Result<(), String> {
    let all = AccessFs::from_all(TARGET_ABI);
    let fail = |e: landlock::RulesetError| format!("could not set up the Landlock sandbox: {e}");
    let mut ruleset = Ruleset::default()
        .handle_access(all)
        .map_err(fail)?
        // Scopes need ABI 6: on older kernels, connecting to abstract sockets and signalling
        // processes outside the sandbox stays possible.
        .set_compatibility(CompatLevel::BestEffort)
        .scope(Scope::from_all(TARGET_ABI))
        .map_err(fail)?
        .create()
        .map_err(fail)?
        .add_rule(rule(Path::new("/"), AccessFs::from_read(TARGET_ABI))?)
        .map_err(fail)?
        .add_rule(rule(
            Path::new("/dev/null"),
            AccessFs::WriteFile | AccessFs::Truncate,
        )?)
        .map_err(fail)?
        .add_rule(rule(&spec.tmp, all)?)
        .map_err(fail)?;
    if spec.policy == Policy::WorkspaceWrite {
        for root in &spec.writable {
            let grants: Vec<PathBuf> = if protected_by_mounts {
                vec![root.clone()]
            } else {
                layout::grants(root, &spec.protected)
            };
            for path in grants {
                ruleset = ruleset.add_rule(rule(&path, all)?).map_err(fail)?;
            }
        }
    }
    let status = ruleset.restrict_self().map_err(fail)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("the kernel does not enforce Landlock, so the command was not run (see `cairn sandbox check`)".into());
    }
    Ok(())
}

/// A rule giving `access` beneath `path`, limited to what applies to a file when it is one.
fn rule(path: &Path, access: landlock::BitFlags<AccessFs>) -> Result<PathBeneath<PathFd>, String> {
    let fd = PathFd::new(path).map_err(|e| format!("could not open {}: {e}", path.display()))?;
    let access = if path.is_dir() {
        access
    } else {
        access & AccessFs::from_file(TARGET_ABI)
    };
    Ok(PathBeneath::new(fd, access))
}

/// Enter a mount namespace of our own and bind each of `paths` read-only over itself.
fn mount_read_only(paths: &[PathBuf]) -> Result<(), String> {
    let (uid, gid) = (getuid(), getgid());
    // root may have the right to a mount namespace without a user namespace; keep its real
    // identity then. Everyone else (and a root without CAP_SYS_ADMIN) needs one.
    let entered = uid.is_root() && unshare(CloneFlags::CLONE_NEWNS).is_ok();
    if !entered {
        unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS)
            .map_err(|e| format!("no mount namespace: {e}"))?;
        // Map only our own ids, so files look exactly as they did.
        std::fs::write("/proc/self/setgroups", "deny").map_err(|e| e.to_string())?;
        std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1"))
            .map_err(|e| e.to_string())?;
        std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1"))
            .map_err(|e| e.to_string())?;
    }
    let none: Option<&str> = None;
    // Our mounts must not propagate back to the rest of the system.
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)
        .map_err(|e| format!("could not make mounts private: {e}"))?;
    for path in paths {
        mount(
            Some(path.as_path()),
            path.as_path(),
            none,
            MsFlags::MS_BIND | MsFlags::MS_REC,
            none,
        )
        .map_err(|e| format!("could not bind {}: {e}", path.display()))?;
        // A remount must keep the flags the original mount has locked (nosuid, nodev, ...).
        let flags =
            MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | locked_flags(path);
        mount(none, path.as_path(), none, flags, none)
            .map_err(|e| format!("could not make {} read-only: {e}", path.display()))?;
    }
    Ok(())
}

fn locked_flags(path: &Path) -> MsFlags {
    let Ok(stat) = statvfs(path) else {
        return MsFlags::empty();
    };
    let have = stat.flags();
    [
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ]
    .into_iter()
    .filter(|(fs, _)| have.contains(*fs))
    .fold(MsFlags::empty(), |acc, (_, ms)| acc | ms)
}

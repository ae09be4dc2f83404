//! No network: a seccomp filter that makes `socket(2)` and `socketpair(2)` fail with EACCES
//! for every address family but AF_UNIX, and `io_uring_setup(2)` fail with EPERM (io_uring can
//! open sockets without the `socket` system call).

use nix::libc;
use seccompiler::{
    SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch,
};
use std::collections::BTreeMap;

/// Install the filter on the calling thread (and everything it starts). Needs
/// `no_new_privs`, which this sets first.
pub(super) fn deny_sockets() -> Result<(), String> {
    nix::sys::prctl::set_no_new_privs().map_err(|e| format!("no_new_privs: {e}"))?;
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| format!("no seccomp support for {}", std::env::consts::ARCH))?;
    let not_unix = || {
        SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )
        .and_then(|c| SeccompRule::new(vec![c]))
        .map_err(|e| e.to_string())
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, vec![not_unix()?]);
    rules.insert(libc::SYS_socketpair, vec![not_unix()?]);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let mut uring = BTreeMap::new();
    uring.insert(libc::SYS_io_uring_setup, Vec::new());
    let uring = SeccompFilter::new(
        uring,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    for filter in [filter, uring] {
        let program: seccompiler::BpfProgram = filter
            .try_into()
            .map_err(|e: seccompiler::BackendError| e.to_string())?;
        seccompiler::apply_filter(&program).map_err(|e| e.to_string())?;
    }
    Ok(())
}

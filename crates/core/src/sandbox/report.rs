//! `cairn sandbox check`: what the kernel enforces and what each mode allows, in words.

use super::probe::{KernelReport, kernel_report};
use super::{ASSUME_UNENFORCED_ENV, Mode, Policy, Support};
use crate::config::Config;
use std::fmt::Write;

/// The report for `config` on this machine, and whether the sandbox is usable.
pub fn check(config: &Config) -> (String, bool) {
    let kernel = kernel_report();
    let support = config.sandbox.support();
    (
        describe(config, &kernel, &support),
        matches!(support, Support::Enforced { .. }),
    )
}

fn describe(config: &Config, kernel: &KernelReport, support: &Support) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Kernel");
    let _ = match &kernel.landlock {
        Ok(abi) => writeln!(out, "  Landlock: enforced (ABI {abi})"),
        Err(why) => writeln!(out, "  Landlock: not enforced: {why}"),
    };
    let _ = match &kernel.seccomp {
        Ok(()) => writeln!(
            out,
            "  seccomp:  enforced (network filter: sockets other than AF_UNIX refused)"
        ),
        Err(why) => writeln!(out, "  seccomp:  not enforced: {why}"),
    };
    let _ = writeln!(out, "  no_new_privs: set for every sandboxed command");
    if let Support::Unavailable(why) = support
        && kernel.landlock.is_ok()
        && kernel.seccomp.is_ok()
    {
        // The override, not the kernel, decided.
        let _ = writeln!(
            out,
            "  cairn will not sandbox: {why} (unset {ASSUME_UNENFORCED_ENV})"
        );
    }
    let enforced = matches!(support, Support::Enforced { .. });
    let network = if config.sandbox.network {
        "network allowed ([sandbox] network = true)"
    } else {
        "no network (set [sandbox] network = true to allow it)"
    };
    let _ = writeln!(out, "\nPlan mode");
    let _ = if enforced {
        writeln!(
            out,
            "  shell: available for read-only commands, under the read-only sandbox: reads everywhere, writes nowhere but /dev/null and a private temporary directory removed afterwards; {network}"
        )
    } else {
        writeln!(
            out,
            "  shell: unavailable (the read-only sandbox cannot be enforced)"
        )
    };
    let _ = writeln!(out, "\nOutside plan mode");
    let mode = match config.sandbox.mode {
        Some(Mode::Off) => "off (configured)",
        Some(Mode::WorkspaceWrite) => "workspace-write (configured)",
        None if enforced => "workspace-write (default)",
        None => "off (default where the sandbox cannot be enforced)",
    };
    let _ = writeln!(out, "  [sandbox] mode: {mode}");
    let _ = match config.sandbox.outside_plan_mode() {
        Ok(Some(Policy::WorkspaceWrite)) => writeln!(
            out,
            "  shell: under the workspace-write sandbox: writes only inside {} and a private temporary directory; .git hooks and config and $CAIRN_HOME stay read-only; {network}. A command the sandbox blocks can be re-run without it only after you approve that exact command.",
            config.cwd.display()
        ),
        Ok(_) => writeln!(
            out,
            "  shell: unsandboxed: an approved command runs with your full rights"
        ),
        Err(why) => writeln!(out, "  shell: not run: {why}"),
    };
    out
}

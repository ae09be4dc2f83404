//! `cairn sandbox check`: what the kernel enforces and what each sandbox mode allows.

use cairn_core::Config;
use clap::Subcommand;
use std::process::ExitCode;

/// `cairn sandbox ...`.
#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// Print what the kernel enforces (Landlock ABI, seccomp) and what plan mode and
    /// `[sandbox] mode` will allow. Exits 1 when the sandbox cannot be used.
    Check,
}

pub fn run(config: &Config, command: SandboxCommand) -> ExitCode {
    match command {
        SandboxCommand::Check => {
            let (report, usable) = cairn_core::sandbox::report::check(config);
            print!("{report}");
            if usable {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

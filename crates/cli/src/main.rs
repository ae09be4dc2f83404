//! The `cairn` binary: the TUI by default, `exec` for headless runs, `plans` for stored plans.

// This is the binary's edge: printing to the terminal is its job.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod exec;
mod mcp_cmd;
mod plans_cmd;
mod sandbox_cmd;
mod sessions_cmd;

use cairn_core::{Config, ConfigOverrides};
use cairn_protocol::ApprovalPolicy;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// A terminal coding agent that plans before it changes things.
#[derive(Debug, Parser)]
#[command(name = "cairn", version, about, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,

    #[command(subcommand)]
    command: Option<Command>,

    /// Prompt to submit as soon as the TUI opens.
    prompt: Option<String>,
}

#[derive(Debug, Args, Clone)]
struct GlobalArgs {
    /// Override a config key, e.g. `-c model="gpt-5.1"` (value parsed as TOML). Repeatable.
    #[arg(short = 'c', long = "config", value_name = "KEY=VALUE", global = true)]
    overrides: Vec<String>,

    /// Model to use.
    #[arg(short = 'm', long, global = true)]
    model: Option<String>,

    /// Provider to use (a key of [providers] or a built-in: openai, anthropic, ollama, lmstudio, openrouter).
    #[arg(long, global = true)]
    provider: Option<String>,

    /// When to ask before running mutating tools.
    #[arg(long, value_enum, global = true)]
    approval: Option<ApprovalArg>,

    /// Working directory (the workspace root).
    #[arg(short = 'C', long = "cd", value_name = "DIR", global = true)]
    cd: Option<PathBuf>,

    /// Show the providers cairn knows, which one it chose and why, then exit.
    #[arg(long)]
    list_providers: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ApprovalArg {
    Untrusted,
    OnRequest,
    Never,
}

impl From<ApprovalArg> for ApprovalPolicy {
    fn from(arg: ApprovalArg) -> Self {
        match arg {
            ApprovalArg::Untrusted => Self::Untrusted,
            ApprovalArg::OnRequest => Self::OnRequest,
            ApprovalArg::Never => Self::Never,
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one task headless and print the result.
    Exec(exec::ExecArgs),
    /// List and show stored plans.
    Plans {
        #[command(subcommand)]
        command: plans_cmd::PlansCommand,
    },
    /// Continue a saved session in the TUI: the latest of this directory (--last), one by id
    /// (or a unique prefix of it), or one picked from a list.
    Resume(sessions_cmd::ResumeArgs),
    /// List saved sessions.
    Sessions {
        #[command(subcommand)]
        command: sessions_cmd::SessionsCommand,
    },
    /// MCP servers in config.toml: `cairn mcp list`, `add NAME -- COMMAND [ARGS...]`,
    /// `add NAME --url URL`, `remove NAME`.
    Mcp {
        #[command(subcommand)]
        command: mcp_cmd::McpCommand,
    },
    /// The kernel sandbox around shell commands: `cairn sandbox check`.
    Sandbox {
        #[command(subcommand)]
        command: sandbox_cmd::SandboxCommand,
    },
}

impl GlobalArgs {
    fn overrides(&self) -> ConfigOverrides {
        // Flags are applied after -c overrides: the more specific spelling wins.
        let mut raw = self.overrides.clone();
        if let Some(model) = &self.model {
            raw.push(format!("model={}", toml_string(model)));
        }
        if let Some(provider) = &self.provider {
            raw.push(format!("provider={}", toml_string(provider)));
        }
        if let Some(approval) = self.approval {
            raw.push(format!(
                "approval_policy={}",
                toml_string(ApprovalPolicy::from(approval).as_str())
            ));
        }
        ConfigOverrides {
            raw,
            cwd: self.cd.clone(),
            cairn_home: None,
        }
    }
}

/// Quote a value as a TOML string.
fn toml_string(value: &str) -> String {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{escaped}\"")
}

fn load_config(global: &GlobalArgs) -> Result<Config, ExitCode> {
    Config::load(&global.overrides()).map_err(|err| {
        eprintln!("error: {err}");
        ExitCode::from(2)
    })
}

fn main() -> ExitCode {
    // Shell commands run under this binary re-executed as their launcher; that process stops
    // here, before clap or tokio.
    cairn_core::tools::handlers::shell::launcher::run_if_requested();
    let cli = Cli::parse();
    let mut config = match load_config(&cli.global) {
        Ok(config) => config,
        Err(code) => return code,
    };
    if cli.global.list_providers {
        return with_runtime(&config.clone(), |rt| {
            // Only here is the local probe awaited; a session runs it in the background.
            if config.detect_local
                && let Some(local) = rt.block_on(cairn_core::config::probe_ollama(&config))
            {
                local.apply(&mut config);
            }
            print!("{}", cairn_core::config::describe_providers(&config));
            ExitCode::SUCCESS
        });
    }
    match cli.command {
        Some(Command::Plans { command }) => plans_cmd::run(&config.cairn_home, command),
        Some(Command::Exec(args)) => {
            with_runtime(&config, |rt| rt.block_on(exec::run(config.clone(), args)))
        }
        Some(Command::Sessions { command }) => sessions_cmd::run(&config, command),
        Some(Command::Sandbox { command }) => sandbox_cmd::run(&config, command),
        Some(Command::Mcp { command }) => mcp_cmd::run(&config, command),
        Some(Command::Resume(args)) => with_runtime(&config, |rt| {
            rt.block_on(async {
                let launch = match sessions_cmd::resume_launch(&config, &args) {
                    Ok(launch) => launch,
                    Err(code) => return code,
                };
                run_tui(config.clone(), launch).await
            })
        }),
        None => with_runtime(&config, |rt| {
            rt.block_on(run_tui(
                config.clone(),
                cairn_tui::Launch {
                    prompt: cli.prompt,
                    ..cairn_tui::Launch::default()
                },
            ))
        }),
    }
}

async fn run_tui(config: Config, launch: cairn_tui::Launch) -> ExitCode {
    match cairn_tui::run(config, launch).await {
        Ok(exit) => {
            if let Some(summary) = exit.summary {
                println!("{summary}");
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Start logging and a small runtime (two workers: cairn waits on I/O, it does not compute),
/// then run `f`.
fn with_runtime(config: &Config, f: impl FnOnce(&tokio::runtime::Runtime) -> ExitCode) -> ExitCode {
    let _log = cairn_core::logging::init(&config.logs_dir());
    match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => f(&runtime),
        Err(err) => {
            eprintln!("error: could not start the async runtime: {err}");
            ExitCode::FAILURE
        }
    }
}

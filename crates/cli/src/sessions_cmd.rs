//! `cairn sessions list` and finding the session `cairn resume` / `exec --resume` continue.

use cairn_core::rollout::{self, LoadedSession, listing};
use cairn_core::{Config, SessionHandle, SessionOptions};
use clap::{Args, Subcommand};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

/// Arguments of `cairn resume`.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// Continue the latest session started in this directory.
    #[arg(long, conflicts_with = "id")]
    last: bool,
    /// A session id, or a unique prefix of one (`cairn sessions list` shows them).
    id: Option<String>,
}

/// `cairn sessions ...`.
#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// List saved sessions, most recent first.
    List {
        /// One JSON object per line (id, path, cwd, model, started_at, updated_at,
        /// first_prompt, turns, plan_status).
        #[arg(long)]
        json: bool,
    },
}

/// Which session to continue.
pub enum Target<'a> {
    /// The latest of the working directory.
    Last,
    /// By id or unique prefix.
    Id(&'a str),
}

impl<'a> Target<'a> {
    /// `last` or an id, as `exec --resume` takes it.
    pub fn parse(text: &'a str) -> Self {
        if text == "last" {
            Self::Last
        } else {
            Self::Id(text)
        }
    }
}

/// Run `cairn sessions`.
pub fn run(config: &Config, command: SessionsCommand) -> ExitCode {
    let SessionsCommand::List { json } = command;
    let sessions = listing::list(&rollout::sessions_dir(&config.cairn_home));
    if json {
        for session in &sessions {
            match serde_json::to_string(session) {
                Ok(line) => println!("{line}"),
                Err(err) => eprintln!("error: {err}"),
            }
        }
        return ExitCode::SUCCESS;
    }
    if sessions.is_empty() {
        println!(
            "No saved sessions in {}.",
            rollout::sessions_dir(&config.cairn_home).display()
        );
        return ExitCode::SUCCESS;
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    for s in &sessions {
        let status = s.plan_status.as_deref().unwrap_or("");
        println!(
            "{}  {:>8}  {:>3} turns  {:<12} {}  {}\n    {}",
            s.id,
            // The same words as the TUI's session picker.
            cairn_tui::strings::age(now.saturating_sub(s.updated_at)),
            s.turns,
            status,
            s.model,
            s.cwd.display(),
            s.first_prompt.as_deref().unwrap_or("(no prompt yet)")
        );
    }
    ExitCode::SUCCESS
}

/// Find and load the session `target` names, and start it (locked against other processes).
/// The session's own working directory is used, so its tools act where it was started.
pub fn resume_session(
    config: &mut Config,
    target: Target<'_>,
    options: SessionOptions,
) -> Result<SessionHandle, String> {
    let sessions = listing::list(&rollout::sessions_dir(&config.cairn_home));
    let summary = match target {
        Target::Last => listing::latest_in(&sessions, &config.cwd),
        Target::Id(id) => listing::find(&sessions, id),
    }
    .map_err(|e| e.to_string())?;
    let loaded: LoadedSession = rollout::load(&summary.path).map_err(|e| e.to_string())?;
    // Its warnings (lines skipped) reach the front end as notices.
    if summary.cwd.is_dir() {
        config.cwd = summary.cwd.clone();
    }
    cairn_core::resume(config.clone(), options, loaded).map_err(|e| e.to_string())
}

/// What the TUI starts with for `cairn resume`: the chosen session, or the picker.
pub fn resume_launch(config: &Config, args: &ResumeArgs) -> Result<cairn_tui::Launch, ExitCode> {
    let target = match (&args.id, args.last) {
        (Some(id), _) => Target::Id(id),
        (None, true) => Target::Last,
        (None, false) => {
            return Ok(cairn_tui::Launch {
                pick_session: true,
                ..cairn_tui::Launch::default()
            });
        }
    };
    let mut config = config.clone();
    match resume_session(&mut config, target, SessionOptions { interactive: true }) {
        Ok(handle) => Ok(cairn_tui::Launch {
            resumed: Some(handle),
            ..cairn_tui::Launch::default()
        }),
        Err(message) => {
            eprintln!("error: {message}");
            Err(ExitCode::FAILURE)
        }
    }
}

//! `cairn plans list [--json]` and `cairn plans show <id-or-prefix>`: the stored plans of
//! `$CAIRN_HOME/plans`, read with the same store and formatting the TUI's `/plans` uses.

use cairn_core::plans::{PlanStore, listing};
use chrono::{DateTime, Utc};
use clap::Subcommand;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// `cairn plans ...`.
#[derive(Debug, Subcommand)]
pub enum PlansCommand {
    /// List stored plans, most recently updated first.
    List {
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print a plan document.
    Show {
        /// Plan id, or a unique prefix of it (`plan-` may be left out).
        id: String,
    },
}

/// Run `cairn plans <command>` for `$CAIRN_HOME` = `home`.
pub fn run(home: &Path, command: PlansCommand) -> ExitCode {
    match command {
        PlansCommand::List { json } => list(home, json),
        PlansCommand::Show { id } => show(home, &id),
    }
}

/// `cairn plans list [--json]`.
pub fn list(home: &Path, json: bool) -> ExitCode {
    let code = list_to(
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
        home,
        json,
        Utc::now(),
    );
    ExitCode::from(code)
}

/// `cairn plans show <id-or-prefix>`.
pub fn show(home: &Path, query: &str) -> ExitCode {
    let code = show_to(
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
        home,
        query,
    );
    ExitCode::from(code)
}

/// The listing to `out`, warnings about unreadable documents to `err`; the exit code.
fn list_to(
    out: &mut dyn Write,
    err: &mut dyn Write,
    home: &Path,
    json: bool,
    now: DateTime<Utc>,
) -> u8 {
    let store = PlanStore::in_home(home);
    let found = match store.list() {
        Ok(found) => found,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return 1;
        }
    };
    for skipped in &found.skipped {
        let _ = writeln!(err, "warning: {skipped}");
    }
    let written = if json {
        writeln!(out, "{}", listing::to_json(&found.plans))
    } else if found.plans.is_empty() {
        writeln!(out, "{}", listing::empty_message(store.dir()))
    } else {
        write!(out, "{}", listing::format_table(&found.plans, now))
    };
    if written.is_err() { 1 } else { 0 }
}

/// The document to `out`, or the error to `err`; the exit code.
fn show_to(out: &mut dyn Write, err: &mut dyn Write, home: &Path, query: &str) -> u8 {
    match PlanStore::in_home(home).read_text(query) {
        Ok((_, text)) => {
            // The document is model-written text: no escape sequence of it reaches the
            // terminal, as in the listing.
            let text = listing::printable_document(&text);
            let newline = if text.ends_with('\n') { "" } else { "\n" };
            if write!(out, "{text}{newline}").is_err() {
                return 1;
            }
            0
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_list(home: &Path, json: bool) -> (u8, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = list_to(&mut out, &mut err, home, json, Utc::now());
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    fn run_show(home: &Path, query: &str) -> (u8, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = show_to(&mut out, &mut err, home, query);
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn list_and_show_stored_plans() {
        let home = tempfile::tempdir().unwrap();
        let (code, out, _) = run_list(home.path(), false);
        assert_eq!(code, 0);
        assert!(out.starts_with("No plans yet."), "{out}");

        let plans = home.path().join("plans");
        std::fs::create_dir_all(&plans).unwrap();
        std::fs::write(
            plans.join("conv_20260101_000000.md"),
            "# Free plan\n- [x] a\n- [ ] b",
        )
        .unwrap();
        std::fs::write(plans.join("plan-broken0.md"), "nope").unwrap();
        let (code, out, err) = run_list(home.path(), false);
        assert_eq!(code, 0);
        assert!(out.starts_with("ID "), "{out}");
        assert!(
            out.contains("conv_20260101_000000  Free plan  draft   1/2"),
            "{out}"
        );
        assert!(
            err.starts_with("warning: skipped plan-broken0.md: missing front matter"),
            "{err}"
        );

        let (_, json, _) = run_list(home.path(), true);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value[0]["id"], "conv_20260101_000000");

        // cairn's front matter (the store's id and status), then the file as it is.
        let (code, shown, err) = run_show(home.path(), "conv");
        assert_eq!((code, err.as_str()), (0, ""));
        assert!(
            shown.starts_with(
                "---\nid: conv_20260101_000000\ntitle: \"Free plan\"\nstatus: draft\n"
            ),
            "{shown}"
        );
        assert!(
            shown.ends_with("---\n# Free plan\n- [x] a\n- [ ] b\n"),
            "{shown}"
        );
        std::fs::write(
            plans.join("conv_20260102_000000.md"),
            "# Sneaky\u{1b}]0;title\u{7}\n\u{1b}[2J\u{1b}[31mred\u{1b}[0m\r\n",
        )
        .unwrap();
        let (code, shown, _) = run_show(home.path(), "conv_20260102");
        assert_eq!(code, 0);
        assert!(shown.ends_with("---\n# Sneaky\nred\n"), "{shown:?}");
        assert!(!shown.contains('\u{1b}'), "{shown:?}");

        let (code, out, err) = run_show(home.path(), "zzz");
        assert_eq!((code, out.as_str()), (1, ""));
        assert_eq!(
            err,
            "error: no plan matches 'zzz'. Run `cairn plans list` to see the stored plans.\n"
        );
    }
}

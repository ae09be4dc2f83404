//! The shell in plan mode (and in read-only delegated runs): offered only when the kernel
//! enforces the read-only sandbox, and each call must pass the read-only classifier too.
//! Two independent walls: a command the classifier wrongly lets through still cannot write,
//! and nothing runs at all where the kernel cannot promise that.

use crate::approval::classifier;
use crate::config::Config;
use crate::tools::args_value;

/// Debug builds only: skip the classifier so tests can show the sandbox alone keeps the
/// workspace unchanged. Release builds ignore it.
pub const SKIP_CLASSIFIER_ENV: &str = "CAIRN_TEST_PLAN_SHELL_SKIP_CLASSIFIER";

/// `Ok` when the shell is offered in plan mode; otherwise why not.
pub fn availability(config: &Config) -> Result<(), String> {
    config.sandbox.read_only_available()
}

/// Check one shell call; the refusal text otherwise.
pub fn check_call(arguments: &str, config: &Config) -> Result<(), String> {
    if let Err(why) = availability(config) {
        return Err(unavailable_refusal(&why));
    }
    let args = args_value(arguments);
    let command = args["command"].as_str().unwrap_or("");
    if classifier_skipped() || classifier::is_read_only_when_sandboxed(command) {
        Ok(())
    } else {
        Err(format!(
            "Plan mode runs only read-only commands (git log/diff/show/status, ls, cat, rg, grep, find, cargo metadata, cargo tree, ...), and this one is not known to be read-only: `{}`. Use the read-only tools, or put the step in the plan.",
            command.trim()
        ))
    }
}

/// The refusal when the sandbox cannot be used.
fn unavailable_refusal(why: &str) -> String {
    format!(
        "{} The shell runs in plan mode only inside the read-only kernel sandbox, and {why}.",
        super::filter::refusal("shell")
    )
}

/// What the user is told on entering plan mode about the shell.
pub fn notice(config: &Config) -> String {
    match availability(config) {
        Ok(()) => "Plan mode: the shell runs read-only commands inside the read-only sandbox (nothing can be written).".into(),
        Err(why) => format!(
            "Plan mode: the shell is unavailable because the read-only sandbox cannot be enforced: {why}. Run `cairn sandbox check` for details."
        ),
    }
}

/// The reminder the model gets in plan mode when the shell is offered; `None` otherwise.
pub fn reminder(config: &Config) -> Option<String> {
    availability(config).ok()?;
    Some("<system-reminder>\nOne exception to \"no shell commands\": the shell tool runs read-only commands (git log -p, git show, git diff, rg, ls, cat, cargo metadata, cargo tree, ...) inside a read-only kernel sandbox, so you can explore with them. Commands that are not known to be read-only are refused, and any write fails.\n</system-reminder>".into())
}

fn classifier_skipped() -> bool {
    cfg!(debug_assertions) && std::env::var_os(SKIP_CLASSIFIER_ENV).is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::Support;

    fn config(support: Support) -> (tempfile::TempDir, Config) {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::for_test(dir.path(), dir.path());
        config.sandbox.support_override = Some(support);
        (dir, config)
    }

    #[test]
    fn without_the_sandbox_the_shell_is_refused_and_the_notice_says_why() {
        let (_d, config) = config(Support::Unavailable(
            "the kernel does not support Landlock".into(),
        ));
        let err = check_call(r#"{"command":"git log"}"#, &config).unwrap_err();
        assert!(
            err.contains("read-only kernel sandbox") && err.contains("does not support Landlock"),
            "{err}"
        );
        assert!(notice(&config).contains("unavailable") && notice(&config).contains("Landlock"));
    }

    #[test]
    fn with_the_sandbox_only_read_only_commands_pass() {
        let (_d, config) = config(Support::Enforced { abi: 7 });
        assert!(check_call(r#"{"command":"git log -p -n 3"}"#, &config).is_ok());
        assert!(
            check_call(
                r#"{"command":"cargo metadata --format-version 1"}"#,
                &config
            )
            .is_ok()
        );
        if !classifier_skipped() {
            assert!(check_call(r#"{"command":"touch x"}"#, &config).is_err());
            assert!(check_call(r#"{"command":"cargo build"}"#, &config).is_err());
        }
    }
}

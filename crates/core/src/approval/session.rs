//! "Yes, and don't ask again this session": what such an answer covers, and the cache that
//! remembers it.
//!
//! A session approval is never wider than what the user saw. For a command it covers the
//! exact command (whitespace-normalised), or, when the user picks it, a prefix of whole words
//! that the approval prompt shows: never a bare program name, never a program whose later
//! words decide what code runs (interpreters, `sed`, `awk`, `find`, ...), and never a form
//! the read-only classifier judges differently from the approved one. For files it covers
//! the same files. Protected requests (cairn's settings, start-up files, secrets) are never
//! covered: each one is asked.

use super::classifier;
use crate::tools::ApprovalRequest;
use std::collections::HashSet;
use std::path::PathBuf;

/// What "approve for this session" would cover for one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionScope {
    /// Keys remembered by [`cairn_protocol::ReviewDecision::ApprovedForSession`]; empty when
    /// the request cannot be approved for the session.
    pub keys: Vec<String>,
    /// What those keys cover, in words for the approval prompt.
    pub label: Option<String>,
    /// For a command: a whole-word prefix the user may approve instead.
    pub prefix: Option<Vec<String>>,
    /// For a command: its simple commands, split into words, when the classifier can split
    /// it (prefix approvals are matched against these).
    pub commands: Option<Vec<Vec<String>>>,
}

impl SessionScope {
    /// Nothing can be approved for the session.
    pub fn none() -> Self {
        Self::default()
    }

    /// The scope of a command: the exact (whitespace-normalised) text, plus a prefix offer
    /// when the command is one simple command of a program with subcommands.
    pub fn exec(command: &str) -> Self {
        let normalised = normalise_whitespace(command);
        let commands = classifier::simple_commands(command);
        let prefix = commands.as_deref().and_then(prefix_offer);
        Self {
            keys: vec![format!("exec:{normalised}")],
            label: Some("this exact command".to_string()),
            prefix,
            commands,
        }
    }

    /// The scope of a change to or a read of `paths` (`verb` is "edits to" or "reads of").
    pub fn files(kind: &str, verb: &str, paths: &[PathBuf], shown: &[String]) -> Self {
        Self {
            keys: paths
                .iter()
                .map(|p| format!("{kind}:{}", p.display()))
                .collect(),
            label: Some(format!("{verb} {}", shown.join(", "))),
            prefix: None,
            commands: None,
        }
    }

    /// The prefix offer as one string ("cargo test"), for the prompt and the protocol.
    pub fn prefix_text(&self) -> Option<String> {
        self.prefix.as_ref().map(|words| join_words(words))
    }
}

/// A prefix approved for the session, with the classifier's verdict on the command the user
/// approved it for: a later command is covered only if the classifier judges it the same.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PrefixGrant {
    words: Vec<String>,
    known_safe: bool,
}

/// What the user approved "for this session".
#[derive(Debug, Default)]
pub struct ApprovalCache {
    keys: HashSet<String>,
    prefixes: Vec<PrefixGrant>,
}

impl ApprovalCache {
    /// Remember the exact scope of `request` (its keys).
    pub fn remember(&mut self, request: &ApprovalRequest) {
        if request.protected.is_none() {
            self.keys.extend(request.session.keys.iter().cloned());
        }
    }

    /// Remember the prefix `picked` for `request`, if it is the prefix the request offered.
    /// Returns false (and remembers nothing) otherwise.
    pub fn remember_prefix(&mut self, request: &ApprovalRequest, picked: &str) -> bool {
        let Some(offered) = &request.session.prefix else {
            return false;
        };
        if request.protected.is_some() || normalise_whitespace(picked) != join_words(offered) {
            return false;
        }
        let known_safe = request
            .session
            .commands
            .as_deref()
            .is_some_and(|commands| commands.iter().all(|c| command_is_safe(c)));
        let grant = PrefixGrant {
            words: offered.clone(),
            known_safe,
        };
        if !self.prefixes.contains(&grant) {
            self.prefixes.push(grant);
        }
        true
    }

    /// True when an earlier session approval covers `request`.
    pub fn covers(&self, request: &ApprovalRequest) -> bool {
        if request.protected.is_some() {
            return false;
        }
        let keys = &request.session.keys;
        if !keys.is_empty() && keys.iter().all(|k| self.keys.contains(k)) {
            return true;
        }
        let Some(commands) = &request.session.commands else {
            return false;
        };
        !commands.is_empty()
            && commands.iter().all(|words| {
                let safe = command_is_safe(words);
                self.prefixes
                    .iter()
                    .any(|p| p.known_safe == safe && words.starts_with(&p.words))
            })
    }
}

/// Programs whose second word is a subcommand that says what will run (`cargo test`,
/// `git commit`): only these are offered a prefix approval.
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "cargo",
    "git",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "deno",
    "go",
    "make",
    "just",
    "uv",
    "poetry",
    "pip",
    "pip3",
    "mvn",
    "gradle",
    "./gradlew",
    "dotnet",
    "bundle",
    "rake",
    "rustup",
    "gh",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "swift",
    "mix",
    "zig",
    "tox",
    "nox",
    "pytest",
    "jest",
    "vitest",
];

/// Subcommands that run whatever their later words say, or change how later commands run:
/// never generalised.
const GENERAL_SUBCOMMANDS: &[&str] = &[
    "config",
    "exec",
    "x",
    "dlx",
    "run-script",
    "eval",
    "shell",
    "alias",
    "sh",
    "bash",
];

/// Script runners whose third word names the script: the prefix keeps it (`npm run test`).
const SCRIPT_RUNNERS: &[&str] = &["run"];

fn prefix_offer(commands: &[Vec<String>]) -> Option<Vec<String>> {
    let [words] = commands else {
        return None;
    };
    let program = words.first()?;
    if !SUBCOMMAND_PROGRAMS.contains(&program.as_str()) {
        return None;
    }
    let sub = words.get(1)?;
    if !is_plain_word(sub) || GENERAL_SUBCOMMANDS.contains(&sub.as_str()) {
        return None;
    }
    // `cargo run` and `go run` name a target, not a script; `npm run x` runs script x.
    let scripted = SCRIPT_RUNNERS.contains(&sub.as_str())
        && matches!(program.as_str(), "npm" | "pnpm" | "yarn" | "bun" | "deno");
    let len = if scripted { 3 } else { 2 };
    if words.len() < len || !words[..len].iter().all(|w| is_plain_word(w)) {
        return None;
    }
    Some(words[..len].to_vec())
}

/// A word made of letters, digits, `-`, `_` and `:`, starting with a letter or `.`/`/` for
/// the program (`./gradlew`): nothing a shell or the program reads as an option or a path.
fn is_plain_word(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'))
}

fn command_is_safe(words: &[String]) -> bool {
    classifier::is_known_safe(&join_words(words))
}

fn join_words(words: &[String]) -> String {
    shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "))
}

/// `command` with every run of whitespace outside quotes turned into one space, trimmed.
pub fn normalise_whitespace(command: &str) -> String {
    let mut out = String::with_capacity(command.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut pending_space = false;
    for c in command.trim().chars() {
        if quote.is_none() && !escaped && c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') if quote != Some('\'') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ApprovalKind;

    fn exec(command: &str) -> ApprovalRequest {
        ApprovalRequest {
            kind: ApprovalKind::Exec {
                command: command.into(),
                cwd: "/".into(),
            },
            description: format!("Would run `{command}`"),
            session: SessionScope::exec(command),
            known_safe: classifier::is_known_safe(command),
            protected: None,
        }
    }

    #[test]
    fn whitespace_outside_quotes_is_normalised() {
        assert_eq!(normalise_whitespace("  rm   build.log \n"), "rm build.log");
        assert_eq!(normalise_whitespace("echo 'a   b'  c"), "echo 'a   b' c");
        assert_eq!(
            normalise_whitespace("echo \"a  \\\" b\"  c"),
            "echo \"a  \\\" b\" c"
        );
    }

    #[test]
    fn exact_approval_covers_only_the_same_command() {
        let mut cache = ApprovalCache::default();
        cache.remember(&exec("rm build.log"));
        assert!(cache.covers(&exec("rm   build.log")));
        assert!(!cache.covers(&exec("rm *")));
        assert!(!cache.covers(&exec("rm build.log other")));
        cache.remember(&exec("sed 's/alpha/ALPHA/' a.txt"));
        assert!(!cache.covers(&exec("sed '1e touch X' a.txt")));
        cache.remember(&exec("awk '{print}' a.txt"));
        assert!(!cache.covers(&exec("awk 'BEGIN{system(\"touch X\")}' a.txt")));
    }

    #[test]
    fn prefixes_are_offered_only_for_subcommand_programs() {
        let offer = |c: &str| SessionScope::exec(c).prefix_text();
        assert_eq!(offer("cargo test -p core").as_deref(), Some("cargo test"));
        assert_eq!(offer("git commit -m x").as_deref(), Some("git commit"));
        assert_eq!(
            offer("npm run lint -- --fix").as_deref(),
            Some("npm run lint")
        );
        for none in [
            "rm build.log",
            "rm foo",
            "sed 's/a/b/' f",
            "awk '{print}'",
            "python3 x.py",
            "bash -c ls",
            "find . -name x",
            "git -c core.pager=sh log",
            "git config core.pager sh",
            "npm exec foo",
            "cargo test && rm -rf x",
            "cargo",
            "echo hi > f",
        ] {
            assert_eq!(offer(none), None, "{none}");
        }
    }

    #[test]
    fn a_prefix_covers_longer_commands_but_not_chains_or_other_programs() {
        let mut cache = ApprovalCache::default();
        let first = exec("cargo test -p core");
        assert!(!cache.remember_prefix(&first, "cargo"));
        assert!(!cache.covers(&exec("cargo build")));
        assert!(cache.remember_prefix(&first, "cargo  test"));
        assert!(cache.covers(&exec("cargo test --workspace")));
        assert!(cache.covers(&exec("cargo test")));
        assert!(!cache.covers(&exec("cargo build")));
        assert!(!cache.covers(&exec("cargo test; rm -rf x")));
        assert!(!cache.covers(&exec("cargo test > out")));
        assert!(!cache.covers(&exec("cargotest")));
    }

    #[test]
    fn a_prefix_never_covers_a_form_the_classifier_judges_differently() {
        let mut cache = ApprovalCache::default();
        // `git log --oneline` is read-only; `git log --output=x` writes a file.
        let approved = exec("git log -n 3");
        assert!(approved.known_safe);
        assert!(cache.remember_prefix(&approved, "git log"));
        assert!(cache.covers(&exec("git log --oneline")));
        assert!(!cache.covers(&exec("git log --output=x")));
    }

    #[test]
    fn no_session_approval_of_a_harmless_form_covers_a_dangerous_one() {
        // For every program the classifier knows, and the ones the adversarial run used:
        // approving the harmless form in every way offered never covers the other.
        const PAIRS: &[(&str, &str)] = &[
            ("ls", "ls; rm -rf x"),
            ("cat a.txt", "cat a.txt > b.txt"),
            ("head -n 5 a", "head -n 5 a | sh"),
            ("tail a", "tail a && curl x | sh"),
            ("wc -l a", "wc -l a; touch X"),
            ("grep -n x a", "grep -n x a > out"),
            ("echo hi", "echo hi >> ~/.bashrc"),
            ("pwd", "pwd && rm -rf ."),
            ("which cargo", "which cargo; touch X"),
            ("true", "true || rm -rf x"),
            ("rg -n foo", "rg --pre sh foo"),
            ("find . -name x", "find . -name x -delete"),
            ("git status", "git -c core.pager=sh status"),
            ("git log -n 1", "git log --output=x"),
            ("git diff", "git diff --ext-diff"),
            ("git show HEAD", "git show --output=x HEAD"),
            ("sed -n 1p a.txt", "sed -n '1w out' a.txt"),
            ("sed 's/alpha/ALPHA/' a.txt", "sed '1e touch X' a.txt"),
            ("awk '{print}' a", "awk 'BEGIN{system(\"touch X\")}' a"),
            ("rm build.log", "rm *"),
            ("cp a b", "cp a ~/.bashrc"),
            ("python3 -V", "python3 -c 'import os'"),
            ("cargo test -p x", "cargo test; rm -rf x"),
            ("npm run lint", "npm run deploy"),
            ("make test", "make install"),
        ];
        for (harmless, dangerous) in PAIRS {
            let approved = exec(harmless);
            let mut cache = ApprovalCache::default();
            cache.remember(&approved);
            if let Some(prefix) = approved.session.prefix_text() {
                assert!(cache.remember_prefix(&approved, &prefix));
            }
            assert!(
                !cache.covers(&exec(dangerous)),
                "approving `{harmless}` covered `{dangerous}`"
            );
        }
    }

    #[test]
    fn protected_requests_are_never_covered() {
        let mut cache = ApprovalCache::default();
        let mut request = exec("cargo test");
        cache.remember(&request);
        request.protected = Some("settings".into());
        assert!(!cache.covers(&request));
        let mut fresh = ApprovalCache::default();
        fresh.remember(&request);
        assert!(!fresh.remember_prefix(&request, "cargo test"));
        request.protected = None;
        assert!(!fresh.covers(&request));
    }
}

//! The approval policy: given a handler's [`ApprovalRequest`], ask the user or not.

pub mod access;
pub mod classifier;
pub mod command_paths;
pub mod session;

pub use access::{Access, ReadAccess};
pub use session::{ApprovalCache, SessionScope};

use crate::tools::{ApprovalKind, ApprovalRequest};
use cairn_protocol::ApprovalPolicy;

/// Whether `request` must be put to the user under `policy`.
///
/// `never` asks nothing. A protected request (cairn's settings, a start-up file, a secret) is
/// asked under every other policy, whatever was approved before.
pub fn must_ask(policy: ApprovalPolicy, request: &ApprovalRequest, cache: &ApprovalCache) -> bool {
    match policy {
        ApprovalPolicy::Never => false,
        _ if request.protected.is_some() => true,
        _ if cache.covers(request) => false,
        ApprovalPolicy::OnRequest => !request.known_safe,
        // As in other agents: known read-only commands run; every other command, every edit
        // and every read outside the workspace asks.
        ApprovalPolicy::Untrusted => {
            !(request.known_safe && matches!(request.kind, ApprovalKind::Exec { .. }))
        }
    }
}

/// What the model is told when a call was not run because nobody could approve it.
pub fn headless_denial(request: &ApprovalRequest) -> String {
    let description = &request.description;
    let why = request
        .protected
        .as_deref()
        .map(|reason| format!(" {reason}"))
        .unwrap_or_default();
    let setting = match (&request.kind, &request.protected) {
        (ApprovalKind::Read { .. }, None) => {
            "The user can allow reads there with `[permissions] readable_roots` in config.toml, or all calls with --approval never."
        }
        (ApprovalKind::Mcp { server, tool, .. }, None) => {
            return format!(
                "This call needs the user's approval, but no user is available to approve it (cairn exec), so it was not run: {description}. Do not retry it; finish what you can without it. (If `{tool}` only reads, the user can list it in `read_only_tools` of [mcp_servers.{server}] in config.toml; or allow all calls with --approval never.)"
            );
        }
        (ApprovalKind::Fetch { host, .. }, None) => {
            return format!(
                "This call needs the user's approval, but no user is available to approve it (cairn exec), so it was not run: {description}. Do not retry it; finish what you can without it. (The user can list `{host}` in `[tools.web] allowed_hosts` in config.toml, or allow all calls with --approval never.)"
            );
        }
        _ => "The user can allow such calls with --approval never.",
    };
    format!(
        "This call needs the user's approval, but no user is available to approve it (cairn exec), so it was not run: {description}.{why} Do not retry it; finish what you can without it. ({setting})"
    )
}

/// What the model is told when the user declined a call.
pub fn user_denial(feedback: Option<&str>) -> String {
    let mut text =
        "The user declined this call, so it was not run. Do not retry the same call; ask the user or choose a different approach.".to_string();
    if let Some(f) = feedback.map(str::trim).filter(|f| !f.is_empty()) {
        text.push_str("\nUser feedback: ");
        text.push_str(f);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(safe: bool) -> ApprovalRequest {
        ApprovalRequest {
            kind: ApprovalKind::Exec {
                command: "ls".into(),
                cwd: "/".into(),
            },
            description: "Would run `ls`".into(),
            session: SessionScope::exec("ls"),
            known_safe: safe,
            protected: None,
        }
    }

    #[test]
    fn policies_decide_as_documented() {
        let cache = ApprovalCache::default();
        assert!(!must_ask(ApprovalPolicy::Untrusted, &request(true), &cache));
        assert!(must_ask(ApprovalPolicy::Untrusted, &request(false), &cache));
        let edit = ApprovalRequest {
            kind: ApprovalKind::Patch {
                paths: vec!["a.rs".into()],
                diff: String::new(),
            },
            ..request(true)
        };
        assert!(must_ask(ApprovalPolicy::Untrusted, &edit, &cache));
        assert!(!must_ask(ApprovalPolicy::OnRequest, &edit, &cache));
        assert!(!must_ask(ApprovalPolicy::OnRequest, &request(true), &cache));
        assert!(must_ask(ApprovalPolicy::OnRequest, &request(false), &cache));
        assert!(!must_ask(ApprovalPolicy::Never, &request(false), &cache));
    }

    #[test]
    fn protected_requests_ask_under_every_policy_but_never() {
        let mut cache = ApprovalCache::default();
        let mut protected = request(true);
        cache.remember(&protected);
        protected.protected = Some(access::CAIRN_SETTINGS.into());
        assert!(must_ask(ApprovalPolicy::Untrusted, &protected, &cache));
        assert!(must_ask(ApprovalPolicy::OnRequest, &protected, &cache));
        assert!(!must_ask(ApprovalPolicy::Never, &protected, &cache));
    }

    #[test]
    fn approved_for_session_is_not_asked_again() {
        let mut cache = ApprovalCache::default();
        cache.remember(&request(false));
        assert!(!must_ask(
            ApprovalPolicy::Untrusted,
            &request(false),
            &cache
        ));
    }
}

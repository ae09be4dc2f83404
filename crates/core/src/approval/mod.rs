//! The approval policy: given a handler's [`ApprovalRequest`], ask the user or not.

pub mod classifier;

use crate::tools::ApprovalRequest;
use cairn_protocol::ApprovalPolicy;
use std::collections::HashSet;

/// Keys the user approved "for this session".
#[derive(Debug, Default)]
pub struct ApprovalCache {
    keys: HashSet<String>,
}

impl ApprovalCache {
    /// Remember every key of `request`.
    pub fn remember(&mut self, request: &ApprovalRequest) {
        self.keys.extend(request.session_keys.iter().cloned());
    }

    /// True when every key of `request` was approved before.
    pub fn covers(&self, request: &ApprovalRequest) -> bool {
        !request.session_keys.is_empty()
            && request.session_keys.iter().all(|k| self.keys.contains(k))
    }
}

/// Whether `request` must be put to the user under `policy`.
pub fn must_ask(policy: ApprovalPolicy, request: &ApprovalRequest, cache: &ApprovalCache) -> bool {
    match policy {
        ApprovalPolicy::Never => false,
        _ if cache.covers(request) => false,
        ApprovalPolicy::OnRequest => !request.known_safe,
        ApprovalPolicy::Untrusted => true,
    }
}

/// What the model is told when a call was not run because nobody could approve it.
pub fn headless_denial(description: &str) -> String {
    format!(
        "This call needs the user's approval, but no user is available to approve it (cairn exec), so it was not run: {description}. Do not retry it; finish what you can without it. (The user can allow such calls with --approval never.)"
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
    use crate::tools::ApprovalKind;

    fn request(safe: bool) -> ApprovalRequest {
        ApprovalRequest {
            kind: ApprovalKind::Exec {
                command: "ls".into(),
                cwd: "/".into(),
            },
            description: "Would run `ls`".into(),
            session_keys: vec!["exec:ls".into()],
            known_safe: safe,
        }
    }

    #[test]
    fn policies_decide_as_documented() {
        let cache = ApprovalCache::default();
        assert!(must_ask(ApprovalPolicy::Untrusted, &request(true), &cache));
        assert!(!must_ask(ApprovalPolicy::OnRequest, &request(true), &cache));
        assert!(must_ask(ApprovalPolicy::OnRequest, &request(false), &cache));
        assert!(!must_ask(ApprovalPolicy::Never, &request(false), &cache));
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

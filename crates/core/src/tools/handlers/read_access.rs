//! The approval request of a read-only tool: none inside the readable roots, a question for
//! reads outside them, and a question under every policy but `never` for secrets.

use super::paths;
use crate::approval::{Access, ReadAccess, SessionScope, access};
use crate::tools::{ApprovalKind, ApprovalRequest, ToolContext};
use std::path::PathBuf;

/// What reading `targets` needs; `description` is the prompt's sentence ("Would read x").
pub(crate) fn request(
    ctx: &ToolContext,
    targets: Vec<PathBuf>,
    description: String,
) -> Option<ApprovalRequest> {
    let rules = Access::new(ctx.config(), &ctx.cwd);
    let worst = targets.iter().map(|p| rules.read(p)).max()?;
    let (protected, session) = match worst {
        ReadAccess::Free => return None,
        ReadAccess::Outside => {
            let shown: Vec<String> = targets
                .iter()
                .map(|p| paths::display(p, &ctx.cwd))
                .collect();
            (
                None,
                SessionScope::files("read", "reads of", &targets, &shown),
            )
        }
        ReadAccess::Secret => (Some(access::SECRET.to_string()), SessionScope::none()),
    };
    Some(ApprovalRequest {
        kind: ApprovalKind::Read { paths: targets },
        description,
        session,
        known_safe: false,
        protected,
    })
}

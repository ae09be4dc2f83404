//! Read-only command classifier for the `on-request` policy. Filled in by the tools issue.

/// True when `command` only reads (and so may run without asking under `on-request`).
pub fn is_known_safe(_command: &str) -> bool {
    false
}

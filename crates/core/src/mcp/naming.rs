//! The names the model calls MCP tools by: `mcp__<server>__<tool>`, limited to what every
//! provider accepts (`^[a-zA-Z0-9_-]{1,64}$`) and unique within the session.

use std::collections::HashSet;

/// Prefix of every MCP tool name.
pub const PREFIX: &str = "mcp__";
/// The providers' limit on tool names.
pub const MAX_LEN: usize = 64;

/// True when `name` is shaped like an MCP tool name (not whether such a tool exists).
pub fn is_mcp_name(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// The name for `tool` of `server`, not yet in `taken` (which it is added to).
///
/// Characters outside `A-Z a-z 0-9 _ -` become `_`. A name over 64 characters keeps its
/// start and ends in a hash of the whole name, so two long names stay apart; a name already
/// taken (two tools that differ only in replaced characters) gets `_2`, `_3`, ...
pub fn exposed_name(server: &str, tool: &str, taken: &mut HashSet<String>) -> String {
    let full = format!("{PREFIX}{server}__{}", sanitise(tool));
    let base = if full.len() > MAX_LEN {
        let hash = format!("_{:08x}", fnv1a(full.as_bytes()) as u32);
        format!("{}{hash}", &full[..MAX_LEN - hash.len()])
    } else {
        full
    };
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        let suffix = format!("_{n}");
        let keep = base.len().min(MAX_LEN - suffix.len());
        name = format!("{}{suffix}", &base[..keep]);
        n += 1;
    }
    taken.insert(name.clone());
    name
}

fn sanitise(tool: &str) -> String {
    let cleaned: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "tool".to_string()
    } else {
        cleaned
    }
}

/// FNV-1a: a stable hash (the standard library's is randomised per process).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(name: &str) -> bool {
        !name.is_empty()
            && name.len() <= MAX_LEN
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    }

    #[test]
    fn plain_names_are_prefixed() {
        let mut taken = HashSet::new();
        assert_eq!(
            exposed_name("fs", "read_text_file", &mut taken),
            "mcp__fs__read_text_file"
        );
        assert_eq!(
            exposed_name("everything", "get-sum", &mut taken),
            "mcp__everything__get-sum"
        );
    }

    #[test]
    fn odd_characters_are_replaced_and_collisions_numbered() {
        let mut taken = HashSet::new();
        let a = exposed_name("s", "files.read", &mut taken);
        let b = exposed_name("s", "files/read", &mut taken);
        let c = exposed_name("s", "files read", &mut taken);
        assert_eq!(a, "mcp__s__files_read");
        assert_eq!(b, "mcp__s__files_read_2");
        assert_eq!(c, "mcp__s__files_read_3");
        assert_eq!(exposed_name("s", "", &mut taken), "mcp__s__tool");
        assert_eq!(exposed_name("s", "ünï", &mut taken), "mcp__s___n_");
    }

    #[test]
    fn long_names_fit_and_stay_apart() {
        let mut taken = HashSet::new();
        let long_a = "a".repeat(80) + "_one";
        let long_b = "a".repeat(80) + "_two";
        let a = exposed_name("server-name-that-is-long-too", &long_a, &mut taken);
        let b = exposed_name("server-name-that-is-long-too", &long_b, &mut taken);
        assert!(valid(&a) && valid(&b), "{a} {b}");
        assert_eq!(a.len(), MAX_LEN);
        assert_ne!(a, b);
        // The same long name twice is numbered within the limit.
        let again = exposed_name("server-name-that-is-long-too", &long_a, &mut taken);
        assert!(valid(&again) && again != a, "{again}");
        // Stable across runs: the hash does not depend on the process.
        let mut fresh = HashSet::new();
        assert_eq!(
            exposed_name("server-name-that-is-long-too", &long_a, &mut fresh),
            a
        );
    }
}

//! Did the sandbox stop a command? The kernel does not tell the process why an open failed,
//! so this reads the command's output for the errors a denial produces and, when it can, the
//! path it tried to touch. It errs towards finding a denial: the only consequence is that the
//! model is told it may ask to re-run the command without the sandbox, which the user decides.

/// What a denied command tried to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// The path it tried to write, when the output names one.
    pub path: Option<String>,
}

impl Denial {
    /// "it tried to write /etc/x" or a general phrase.
    pub fn what(&self) -> String {
        match &self.path {
            Some(path) => format!("it tried to write {path}"),
            None => "it tried to write outside the allowed places or to use the network".into(),
        }
    }
}

/// Error texts a Landlock (EACCES), read-only mount (EROFS) or seccomp (EACCES/EPERM)
/// denial shows up as.
const DENIAL_TEXTS: &[&str] = &[
    "Permission denied",
    "Read-only file system",
    "Operation not permitted",
];

/// The denial in `output`, if it looks like one.
pub fn find(output: &str) -> Option<Denial> {
    let line = output
        .lines()
        .find(|line| DENIAL_TEXTS.iter().any(|t| line.contains(t)))?;
    Some(Denial {
        path: path_in(line),
    })
}

/// The path an error line names: the last quoted word before the error text (`touch: cannot
/// touch '/x': Permission denied`, `PermissionError: [Errno 13] Permission denied: '/x'`),
/// else the field before it (`bash: line 1: /x: Permission denied`).
fn path_in(line: &str) -> Option<String> {
    let quoted: Vec<&str> = line
        .split(['\'', '"', '‘', '’'])
        .skip(1)
        .step_by(2)
        .filter(|q| q.starts_with('/') || q.starts_with('.') || q.contains('/'))
        .collect();
    if let Some(last) = quoted.last() {
        return Some((*last).to_string());
    }
    let cut = DENIAL_TEXTS.iter().filter_map(|t| line.find(t)).min()?;
    line[..cut]
        .trim_end_matches([' ', ':'])
        .rsplit(": ")
        .next()
        .map(str::trim)
        .filter(|p| p.starts_with('/') || p.starts_with('.') || p.contains('/'))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_path_in_common_error_lines() {
        for (line, path) in [
            ("touch: cannot touch '/etc/x': Permission denied", "/etc/x"),
            ("bash: line 1: /etc/x: Permission denied", "/etc/x"),
            (
                "cp: cannot create regular file '/opt/y': Read-only file system",
                "/opt/y",
            ),
            (
                "PermissionError: [Errno 13] Permission denied: '/srv/z'",
                "/srv/z",
            ),
            (
                "mkdir: cannot create directory ‘/a/b’: Permission denied",
                "/a/b",
            ),
        ] {
            assert_eq!(find(line).unwrap().path.as_deref(), Some(path), "{line}");
        }
        assert_eq!(find("socket: Operation not permitted").unwrap().path, None);
        assert!(find("all good\n").is_none());
    }
}

//! Opening a file in the user's editor ($VISUAL, then $EDITOR, then vi).

use crate::strings;
use std::path::Path;

/// The editor command line, split like a shell would.
pub fn editor_command(visual: Option<String>, editor: Option<String>) -> Vec<String> {
    [visual, editor]
        .into_iter()
        .flatten()
        .filter(|v| !v.trim().is_empty())
        .find_map(|v| shlex::split(&v).filter(|parts| !parts.is_empty()))
        .unwrap_or_else(|| vec!["vi".to_string()])
}

/// Run the editor on `path` and wait; then read the file back.
pub async fn edit(path: &Path) -> Result<String, String> {
    let command = editor_command(std::env::var("VISUAL").ok(), std::env::var("EDITOR").ok());
    let (program, args) = command
        .split_first()
        .ok_or_else(|| strings::editor_failed("no editor command"))?;
    let status = tokio::process::Command::new(program)
        .args(args)
        .arg(path)
        .status()
        .await
        .map_err(|e| strings::editor_failed(&format!("{program}: {e}")))?;
    if !status.success() {
        return Err(strings::editor_failed(&format!(
            "{program} exited with {status}"
        )));
    }
    tokio::fs::read_to_string(path)
        .await
        .map_err(|e| strings::plan_read_failed(path, &e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visual_wins_then_editor_then_vi() {
        assert_eq!(
            editor_command(Some("code -w".into()), Some("nano".into())),
            vec!["code", "-w"]
        );
        assert_eq!(editor_command(None, Some("nano".into())), vec!["nano"]);
        assert_eq!(editor_command(Some("  ".into()), None), vec!["vi"]);
        assert_eq!(
            editor_command(None, Some("sh -c 'echo \"x\" >> \"$1\"' ed".into())),
            vec!["sh", "-c", "echo \"x\" >> \"$1\"", "ed"]
        );
    }
}

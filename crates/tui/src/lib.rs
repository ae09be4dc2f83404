//! cairn's terminal front end.

use cairn_core::Config;

/// Run the TUI in the current terminal until the user quits. `initial_prompt` is submitted
/// as soon as the session is ready.
pub async fn run(config: Config, initial_prompt: Option<String>) -> std::io::Result<()> {
    let _ = (config, initial_prompt);
    Ok(())
}

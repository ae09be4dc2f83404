//! Slash commands: a strum enum whose declaration order is the popup order.

use strum::{AsRefStr, EnumIter, EnumString, IntoEnumIterator, IntoStaticStr};

/// The slash commands, in popup order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, EnumString, EnumIter, AsRefStr, IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum SlashCommand {
    /// Enter plan mode (optionally with a request).
    Plan,
    /// List stored plans.
    Plans,
    /// Start a new session.
    New,
    /// Continue a saved session (the picker).
    Resume,
    /// Summarise the older conversation now to free context (optionally with a focus).
    Compact,
    /// Show or switch the model.
    Model,
    /// Show or switch the approval policy.
    Approvals,
    /// Show provider, model, directory, tokens and plan mode.
    Status,
    /// List the agents delegate_agent can run.
    Agents,
    /// Show the MCP servers: status, tools, last error.
    Mcp,
    /// List commands and keys.
    Help,
    /// Leave cairn.
    Quit,
}

impl SlashCommand {
    /// The name without the slash.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// One line for the popup and /help.
    pub fn description(self) -> &'static str {
        match self {
            Self::Plan => "Enter plan mode for complex task planning",
            Self::Plans => "List stored plans",
            Self::New => "Start a new session",
            Self::Resume => "Continue a saved session (pick from a list)",
            Self::Compact => "Summarise older turns to free context (optional focus)",
            Self::Model => "Show or switch the model",
            Self::Approvals => "Show or switch when cairn asks before acting",
            Self::Status => "Show provider, model, directory, tokens and plan mode",
            Self::Agents => "List the agents the model can delegate to",
            Self::Mcp => "Show MCP servers: status, tools and errors",
            Self::Help => "List commands and keys",
            Self::Quit => "Exit cairn",
        }
    }

    /// Whether the command may run while a task is in progress.
    pub fn available_during_task(self) -> bool {
        match self {
            Self::Plan
            | Self::New
            | Self::Resume
            | Self::Compact
            | Self::Model
            | Self::Approvals => false,
            Self::Plans | Self::Status | Self::Agents | Self::Mcp | Self::Help | Self::Quit => true,
        }
    }

    /// Whether the command takes an argument (Tab completion then adds a space).
    pub fn takes_argument(self) -> bool {
        matches!(
            self,
            Self::Plan | Self::Compact | Self::Model | Self::Approvals
        )
    }
}

/// Score of `query` against `name`: prefix beats substring beats scattered letters. `None`
/// when the letters of `query` do not appear in order.
pub fn fuzzy_score(name: &str, query: &str) -> Option<i32> {
    if query.is_empty() {
        return Some(0);
    }
    let name_lc = name.to_ascii_lowercase();
    let query_lc = query.to_ascii_lowercase();
    if name_lc.starts_with(&query_lc) {
        return Some(1000 - name.len() as i32);
    }
    if let Some(pos) = name_lc.find(&query_lc) {
        return Some(500 - pos as i32);
    }
    let mut chars = name_lc.char_indices();
    let mut score = 100;
    let mut last = None;
    for q in query_lc.chars() {
        let (i, _) = chars.by_ref().find(|&(_, c)| c == q)?;
        if let Some(prev) = last {
            score -= (i - prev - 1) as i32;
        }
        last = Some(i);
    }
    Some(score)
}

/// Commands matching `query`, best first, ties in popup order.
pub fn filter(query: &str) -> Vec<SlashCommand> {
    let mut scored: Vec<(i32, usize, SlashCommand)> = SlashCommand::iter()
        .enumerate()
        .filter_map(|(i, cmd)| fuzzy_score(cmd.name(), query).map(|s| (s, i, cmd)))
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, _, cmd)| cmd).collect()
}

/// Split "/name rest" into the command name and its argument.
pub fn parse(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix('/')?;
    let (name, arg) = match rest.find(char::is_whitespace) {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest, ""),
    };
    // "/usr/bin is slow" is a message, not a command.
    if name.is_empty() || name.contains('/') {
        return None;
    }
    Some((name, arg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn popup_order_is_declaration_order() {
        let names: Vec<&str> = filter("").into_iter().map(SlashCommand::name).collect();
        assert_eq!(
            names,
            vec![
                "plan",
                "plans",
                "new",
                "resume",
                "compact",
                "model",
                "approvals",
                "status",
                "agents",
                "mcp",
                "help",
                "quit"
            ]
        );
    }

    #[test]
    fn fuzzy_filter_prefers_prefixes() {
        assert_eq!(filter("pl")[..2], [SlashCommand::Plan, SlashCommand::Plans]);
        assert_eq!(filter("q"), vec![SlashCommand::Quit]);
        assert_eq!(filter("apv")[0], SlashCommand::Approvals);
        assert_eq!(filter("stt")[0], SlashCommand::Status);
        assert!(filter("zzz").is_empty());
    }

    #[test]
    fn parses_commands_and_arguments() {
        assert_eq!(parse("/plan add a cache"), Some(("plan", "add a cache")));
        assert_eq!(parse("/quit"), Some(("quit", "")));
        assert_eq!(parse("/usr/bin is slow"), None);
        assert_eq!(parse("hello"), None);
        assert_eq!(
            "plans".parse::<SlashCommand>().ok(),
            Some(SlashCommand::Plans)
        );
    }
}

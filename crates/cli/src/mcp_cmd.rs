//! `cairn mcp list|add|remove`: the `[mcp_servers]` of `$CAIRN_HOME/config.toml`, edited with
//! `toml_edit` so the user's comments, order and formatting survive.

use cairn_core::Config;
use cairn_core::config::mcp::{McpServerToml, is_valid_server_name, resolve_server};
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use toml_edit::{Array, DocumentMut, Item, Table, value};

/// `cairn mcp ...`.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// List the configured MCP servers.
    List {
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Add a server: `cairn mcp add NAME -- COMMAND [ARGS...]` (stdio) or
    /// `cairn mcp add NAME --url URL` (streamable HTTP).
    Add(AddArgs),
    /// Remove a server.
    Remove {
        /// The server's name.
        name: String,
    },
}

/// `cairn mcp add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// Name the tools are offered under (`mcp__NAME__tool`): A-Z, a-z, 0-9, `_`, `-`.
    name: String,
    /// URL of a streamable HTTP server (instead of a command).
    #[arg(long, conflicts_with = "command")]
    url: Option<String>,
    /// Environment variable holding a bearer token for --url.
    #[arg(long, requires = "url")]
    bearer_token_env: Option<String>,
    /// Variable set for a stdio server, `KEY=VALUE`. Repeatable.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// Declare every tool of the server read-only (offered in plan mode, run without asking).
    #[arg(long, conflicts_with = "read_only_tools")]
    read_only: bool,
    /// Declare these tools read-only (comma-separated server tool names).
    #[arg(long, value_delimiter = ',', value_name = "TOOL,...")]
    read_only_tools: Vec<String>,
    /// The command and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// Run `cairn mcp <command>`.
pub fn run(config: &Config, command: McpCommand) -> ExitCode {
    let file = config.cairn_home.join("config.toml");
    let result = match command {
        McpCommand::List { json } => {
            list_to(&mut std::io::stdout().lock(), config, json).map_err(|e| e.to_string())
        }
        McpCommand::Add(args) => add(&file, &config.cwd, &args).map(|()| {
            println!("Added MCP server '{}' to {}.", args.name, file.display());
        }),
        McpCommand::Remove { name } => remove(&file, &name).map(|()| {
            println!("Removed MCP server '{name}' from {}.", file.display());
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn list_to(out: &mut dyn Write, config: &Config, json: bool) -> std::io::Result<()> {
    let servers = &config.mcp_servers;
    if json {
        let entries: Vec<_> = servers
            .iter()
            .map(|s| {
                serde_json::json!({
                    "name": s.name,
                    "transport": s.transport.describe(),
                    "enabled": s.enabled,
                    "read_only": match &s.read_only {
                        cairn_core::config::mcp::ReadOnlyTools::All => serde_json::json!(true),
                        cairn_core::config::mcp::ReadOnlyTools::Only(tools) => serde_json::json!(tools),
                    },
                })
            })
            .collect();
        return writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&entries).unwrap_or_default()
        );
    }
    if servers.is_empty() {
        return writeln!(
            out,
            "No MCP servers configured. Add one with `cairn mcp add NAME -- COMMAND [ARGS...]`."
        );
    }
    for server in servers {
        let state = if server.enabled { "" } else { " (disabled)" };
        writeln!(out, "{}{state}", server.name)?;
        writeln!(out, "  {}", server.transport.describe())?;
        let read_only = match &server.read_only {
            cairn_core::config::mcp::ReadOnlyTools::All => "all tools".to_string(),
            cairn_core::config::mcp::ReadOnlyTools::Only(tools) if tools.is_empty() => {
                "none (every tool asks, none in plan mode)".to_string()
            }
            cairn_core::config::mcp::ReadOnlyTools::Only(tools) => {
                tools.iter().cloned().collect::<Vec<_>>().join(", ")
            }
        };
        writeln!(out, "  read-only: {read_only}")?;
    }
    Ok(())
}

/// The document of `file`, empty when it does not exist.
fn read_document(file: &Path) -> Result<DocumentMut, String> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("could not read {}: {e}", file.display())),
    };
    text.parse::<DocumentMut>()
        .map_err(|e| format!("{} is not valid TOML: {e}", file.display()))
}

/// Write `document` to `file` atomically (temp file + rename), keeping its permissions.
fn write_document(file: &Path, document: &DocumentMut) -> Result<(), String> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| format!("could not write in {}: {e}", dir.display()))?;
    temp.write_all(document.to_string().as_bytes())
        .map_err(|e| format!("could not write {}: {e}", file.display()))?;
    if let Ok(meta) = std::fs::metadata(file) {
        let _ = temp.as_file().set_permissions(meta.permissions());
    }
    temp.persist(file)
        .map_err(|e| format!("could not replace {}: {e}", file.display()))?;
    Ok(())
}

fn string_array(items: &[String]) -> Item {
    let mut array = Array::new();
    for item in items {
        array.push(item.as_str());
    }
    value(array)
}

/// `cairn mcp add`: check the entry as a session would, then append it.
fn add(file: &Path, cwd: &Path, args: &AddArgs) -> Result<(), String> {
    let name = &args.name;
    if !is_valid_server_name(name) {
        return Err(format!(
            "`{name}` cannot name a server: use 1 to 32 of A-Z, a-z, 0-9, `_`, `-`, without `__`"
        ));
    }
    let mut env = std::collections::BTreeMap::new();
    for pair in &args.env {
        let Some((key, val)) = pair.split_once('=').filter(|(k, _)| !k.is_empty()) else {
            return Err(format!("--env `{pair}`: write it as KEY=VALUE"));
        };
        env.insert(key.to_string(), val.to_string());
    }
    let (command, rest) = match args.command.split_first() {
        Some((command, rest)) => (Some(command.clone()), rest.to_vec()),
        None => (None, Vec::new()),
    };
    if command.is_none() && args.url.is_none() {
        return Err(
            "give the server's command after `--` (`cairn mcp add NAME -- npx -y PACKAGE`) or --url URL"
                .to_string(),
        );
    }
    let entry = McpServerToml {
        command: command.clone(),
        args: rest.clone(),
        env: env.clone(),
        url: args.url.clone(),
        bearer_token_env: args.bearer_token_env.clone(),
        read_only: args.read_only.then_some(true),
        read_only_tools: (!args.read_only_tools.is_empty()).then(|| args.read_only_tools.clone()),
        ..McpServerToml::default()
    };
    resolve_server(name, &entry, cwd, &|_| None)?;

    let mut document = read_document(file)?;
    let servers = document
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = Table::new();
            // `[mcp_servers.NAME]` headers, no empty `[mcp_servers]` above them.
            table.set_implicit(true);
            Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| format!("`mcp_servers` in {} is not a table", file.display()))?;
    if servers.contains_key(name) {
        return Err(format!(
            "an MCP server named '{name}' is already configured in {}; remove it first (`cairn mcp remove {name}`) or edit the file",
            file.display()
        ));
    }
    let mut table = Table::new();
    if let Some(command) = &command {
        table.insert("command", value(command.as_str()));
        table.insert("args", string_array(&rest));
    }
    if let Some(url) = &args.url {
        table.insert("url", value(url.as_str()));
    }
    if let Some(variable) = &args.bearer_token_env {
        table.insert("bearer_token_env", value(variable.as_str()));
    }
    if !env.is_empty() {
        let mut env_table = toml_edit::InlineTable::new();
        for (key, val) in &env {
            env_table.insert(key, val.as_str().into());
        }
        table.insert("env", value(env_table));
    }
    if args.read_only {
        table.insert("read_only", value(true));
    }
    if !args.read_only_tools.is_empty() {
        table.insert("read_only_tools", string_array(&args.read_only_tools));
    }
    servers.insert(name, Item::Table(table));
    write_document(file, &document)
}

/// `cairn mcp remove`: drop the table, comments around other entries untouched.
fn remove(file: &Path, name: &str) -> Result<(), String> {
    let mut document = read_document(file)?;
    let removed = document
        .get_mut("mcp_servers")
        .and_then(Item::as_table_like_mut)
        .and_then(|servers| servers.remove(name));
    if removed.is_none() {
        return Err(format!(
            "no MCP server named '{name}' in {}; `cairn mcp list` shows the configured ones",
            file.display()
        ));
    }
    write_document(file, &document)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add_args(name: &str, command: &[&str]) -> AddArgs {
        AddArgs {
            name: name.to_string(),
            url: None,
            bearer_token_env: None,
            env: Vec::new(),
            read_only: false,
            read_only_tools: Vec::new(),
            command: command.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn add_and_remove_keep_comments_and_order() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let original = "# my settings\nmodel = \"m\" # the model\n\n[mcp_servers.docs] # keep me\nurl = \"https://example.invalid/mcp\"\n";
        std::fs::write(&file, original).unwrap();
        let mut args = add_args("fs", &["npx", "-y", "server", "/tmp"]);
        args.read_only_tools = vec!["read_text_file".into()];
        add(&file, dir.path(), &args).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with(original), "{text}");
        assert!(
            text.ends_with("[mcp_servers.fs]\ncommand = \"npx\"\nargs = [\"-y\", \"server\", \"/tmp\"]\nread_only_tools = [\"read_text_file\"]\n"),
            "{text}"
        );
        let again = add(&file, dir.path(), &args).unwrap_err();
        assert!(again.contains("already configured"), "{again}");
        remove(&file, "fs").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
        assert!(remove(&file, "fs").unwrap_err().contains("no MCP server"));
    }

    #[test]
    fn add_creates_the_file_and_checks_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("home").join("config.toml");
        let mut args = add_args("web", &[]);
        args.url = Some("http://127.0.0.1:9/mcp".into());
        add(&file, dir.path(), &args).unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "[mcp_servers.web]\nurl = \"http://127.0.0.1:9/mcp\"\n"
        );
        let err = add(&file, dir.path(), &add_args("a__b", &["x"])).unwrap_err();
        assert!(err.contains("cannot name a server"), "{err}");
        let err = add(&file, dir.path(), &add_args("none", &[])).unwrap_err();
        assert!(err.contains("after `--`"), "{err}");
    }
}

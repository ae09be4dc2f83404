//! `cairn --list-providers`: every provider cairn knows, and which one it chose and why.

use super::{Config, providers};
use std::fmt::Write;

/// A short report of the provider table and the choice.
pub fn describe_providers(config: &Config) -> String {
    let mut out = String::new();
    let chosen = config.provider.as_ref().map(|p| p.id.as_str());
    let _ = writeln!(
        out,
        "{:<12} {:<10} {:<36} key",
        "provider", "wire_api", "base_url"
    );
    let mut ids: Vec<String> = providers::built_in_ids().map(str::to_string).collect();
    for id in config.user_providers.keys() {
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    for id in ids {
        let env = |k: &str| std::env::var(k).ok();
        let line = match providers::resolve(&id, &config.user_providers, &env) {
            Ok(info) => {
                let key = match (&info.env_key, &info.api_key) {
                    (Some(var), Some(_)) => format!("{var} (set)"),
                    (Some(var), None) => format!("{var} (not set)"),
                    (None, _) => "none needed".to_string(),
                };
                format!(
                    "{:<12} {:<10} {:<36} {key}",
                    info.id,
                    info.wire_api.as_str(),
                    info.base_url
                )
            }
            Err(err) => format!("{id:<12} invalid: {err}"),
        };
        let marker = if chosen == Some(id.as_str()) {
            "*"
        } else {
            " "
        };
        let _ = writeln!(out, "{marker}{line}");
    }
    let _ = writeln!(out);
    out.push_str(&super::describe_provider_choice(config));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

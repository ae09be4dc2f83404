//! `cairn --list-providers`: every provider cairn knows, and which one it chose and why.

use super::{Config, ProviderReason, providers};
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
    let reason = match (&config.provider, &config.provider_reason) {
        (Some(p), ProviderReason::Configured) => {
            format!(
                "Using {} (model {}): set by `provider` in config or on the command line.",
                p.id, config.model
            )
        }
        (Some(p), ProviderReason::EnvKey(var)) => {
            format!("Using {} (model {}): {var} is set.", p.id, config.model)
        }
        (Some(p), ProviderReason::LocalOllama) => format!(
            "Using {} (model {}): no API key is set and Ollama answered at {}.",
            p.id, config.model, p.base_url
        ),
        (Some(p), ProviderReason::NoneFound) => format!("Using {} (model {}).", p.id, config.model),
        (None, _) => super::NO_PROVIDER_GUIDANCE.to_string(),
    };
    let _ = writeln!(out, "{reason}");
    out
}

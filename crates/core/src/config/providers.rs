//! Model providers: the built-in table and the `[providers.NAME]` entries of config.toml.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireApi {
    /// OpenAI Chat Completions (`/chat/completions`), spoken by most local servers.
    Chat,
    /// OpenAI Responses (`/responses`).
    Responses,
    /// Anthropic Messages (`/messages`).
    Anthropic,
}

impl WireApi {
    /// The name used in config files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Chat => "chat",
            Self::Responses => "responses",
            Self::Anthropic => "anthropic",
        }
    }
}

/// A `[providers.NAME]` table as written in config.toml; every key is optional so a user can
/// override one field of a built-in provider.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderToml {
    /// Display name.
    pub name: Option<String>,
    /// Wire format.
    pub wire_api: Option<WireApi>,
    /// Base URL, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: Option<String>,
    /// Environment variable holding the API key.
    pub env_key: Option<String>,
    /// Model used when `model` is not set at the top level.
    pub default_model: Option<String>,
    /// Extra HTTP headers sent with every request.
    pub headers: Option<BTreeMap<String, String>>,
    /// Give up on a stream that sends nothing for this long.
    pub idle_timeout_ms: Option<u64>,
    /// Give up connecting after this long.
    pub connect_timeout_ms: Option<u64>,
    /// Retries of a request that failed before streaming began.
    pub request_max_retries: Option<u32>,
    /// Retries of a stream that broke off.
    pub stream_max_retries: Option<u32>,
    /// `max_tokens` for wire formats that require it (Anthropic).
    pub max_tokens: Option<u32>,
}

/// A fully resolved provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderInfo {
    /// Key in `[providers]` (`openai`, `mylocal`, ...).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Wire format.
    pub wire_api: WireApi,
    /// Base URL without a trailing slash.
    pub base_url: String,
    /// Environment variable holding the API key, if the provider needs one.
    pub env_key: Option<String>,
    /// The key read from `env_key` when the config was loaded.
    pub api_key: Option<String>,
    /// Model used when `model` is not set at the top level.
    pub default_model: String,
    /// Extra HTTP headers.
    pub headers: BTreeMap<String, String>,
    /// Idle timeout of a stream.
    pub idle_timeout: Duration,
    /// Connect timeout.
    pub connect_timeout: Duration,
    /// Retries of a request that failed before streaming began.
    pub request_max_retries: u32,
    /// Retries of a stream that broke off.
    pub stream_max_retries: u32,
    /// `max_tokens` for Anthropic.
    pub max_tokens: u32,
}

const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const DEFAULT_REQUEST_RETRIES: u32 = 4;
const DEFAULT_STREAM_RETRIES: u32 = 5;
const DEFAULT_MAX_TOKENS: u32 = 16_384;

type BuiltInRow = (
    &'static str,
    &'static str,
    WireApi,
    &'static str,
    Option<&'static str>,
    &'static str,
);

/// The providers cairn knows without configuration, as `(id, name, wire, base_url, env_key,
/// default model)`.
const BUILT_IN: &[BuiltInRow] = &[
    (
        "openai",
        "OpenAI",
        WireApi::Responses,
        "https://api.openai.com/v1",
        Some("OPENAI_API_KEY"),
        "gpt-5.1",
    ),
    (
        "anthropic",
        "Anthropic",
        WireApi::Anthropic,
        "https://api.anthropic.com/v1",
        Some("ANTHROPIC_API_KEY"),
        "claude-sonnet-4-5",
    ),
    (
        "ollama",
        "Ollama",
        WireApi::Chat,
        "http://127.0.0.1:11434/v1",
        None,
        "qwen3-coder",
    ),
    (
        "lmstudio",
        "LM Studio",
        WireApi::Chat,
        "http://127.0.0.1:1234/v1",
        None,
        "local-model",
    ),
    (
        "openrouter",
        "OpenRouter",
        WireApi::Chat,
        "https://openrouter.ai/api/v1",
        Some("OPENROUTER_API_KEY"),
        "openai/gpt-5.1",
    ),
];

/// Names of the built-in providers, in the order auto-detection prefers them.
pub fn built_in_ids() -> impl Iterator<Item = &'static str> {
    BUILT_IN.iter().map(|p| p.0)
}

/// The built-in entry for `id` as a partial table (so user tables can be layered on top).
fn built_in(id: &str) -> Option<ProviderToml> {
    BUILT_IN
        .iter()
        .find(|p| p.0 == id)
        .map(|(_, name, wire, url, key, model)| ProviderToml {
            name: Some((*name).to_string()),
            wire_api: Some(*wire),
            base_url: Some((*url).to_string()),
            env_key: key.map(str::to_string),
            default_model: Some((*model).to_string()),
            ..ProviderToml::default()
        })
}

/// Resolve provider `id` from the built-ins and the user's `[providers]` tables.
///
/// Returns `Err` with a sentence naming the missing piece when the provider is unknown or
/// incomplete.
pub fn resolve(
    id: &str,
    user: &BTreeMap<String, ProviderToml>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ProviderInfo, String> {
    let base = built_in(id);
    let over = user.get(id);
    if base.is_none() && over.is_none() {
        let mut known: Vec<String> = built_in_ids().map(str::to_string).collect();
        known.extend(user.keys().cloned());
        known.sort();
        known.dedup();
        return Err(format!(
            "unknown provider `{id}`; known providers: {}; add a [providers.{id}] table to define it",
            known.join(", ")
        ));
    }
    let base = base.unwrap_or_default();
    let over = over.cloned().unwrap_or_default();
    let pick = |a: Option<String>, b: Option<String>| a.or(b);
    let base_url = pick(over.base_url, base.base_url)
        .ok_or_else(|| format!("provider `{id}` has no base_url; set providers.{id}.base_url"))?;
    for (key, value) in [
        ("idle_timeout_ms", over.idle_timeout_ms),
        ("connect_timeout_ms", over.connect_timeout_ms),
    ] {
        if value == Some(0) {
            return Err(format!(
                "providers.{id}.{key} is 0, which would time out every request; give a number of milliseconds above 0"
            ));
        }
    }
    let env_key = pick(over.env_key, base.env_key);
    let api_key = env_key
        .as_deref()
        .and_then(env)
        .filter(|k| !k.trim().is_empty());
    Ok(ProviderInfo {
        id: id.to_string(),
        name: pick(over.name, base.name).unwrap_or_else(|| id.to_string()),
        wire_api: over.wire_api.or(base.wire_api).unwrap_or(WireApi::Chat),
        base_url: base_url.trim_end_matches('/').to_string(),
        env_key,
        api_key,
        default_model: pick(over.default_model, base.default_model)
            .unwrap_or_else(|| "gpt-5.1".to_string()),
        headers: over.headers.or(base.headers).unwrap_or_default(),
        idle_timeout: over
            .idle_timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_IDLE_TIMEOUT),
        connect_timeout: over
            .connect_timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_CONNECT_TIMEOUT),
        request_max_retries: over.request_max_retries.unwrap_or(DEFAULT_REQUEST_RETRIES),
        stream_max_retries: over.stream_max_retries.unwrap_or(DEFAULT_STREAM_RETRIES),
        max_tokens: over.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_table_overrides_one_field_of_a_built_in() {
        let mut user = BTreeMap::new();
        user.insert(
            "ollama".to_string(),
            ProviderToml {
                base_url: Some("http://gpu-box:11434/v1/".into()),
                ..ProviderToml::default()
            },
        );
        let info = resolve("ollama", &user, &|_| None).unwrap();
        assert_eq!(info.base_url, "http://gpu-box:11434/v1");
        assert_eq!(info.wire_api, WireApi::Chat);
        assert_eq!(info.name, "Ollama");
    }

    #[test]
    fn unknown_provider_names_the_known_ones() {
        let err = resolve("nope", &BTreeMap::new(), &|_| None).unwrap_err();
        assert!(err.contains("unknown provider `nope`"), "{err}");
        assert!(err.contains("openai"), "{err}");
    }

    #[test]
    fn api_key_is_read_from_env_key() {
        let info = resolve("openai", &BTreeMap::new(), &|k| {
            (k == "OPENAI_API_KEY").then(|| "sk-test".to_string())
        })
        .unwrap();
        assert_eq!(info.api_key.as_deref(), Some("sk-test"));
    }
}

//! The last step of provider auto-detection (a local Ollama) and the sentence that explains
//! which provider was chosen and why.
//!
//! Environment keys are checked while loading the config (no I/O). Asking Ollama is network
//! I/O, so it happens off the start-up path: the session runs [`probe_ollama`] in the
//! background when nothing else was found, and a first message waits for it at most
//! [`PROBE_TIMEOUT`].

use super::{Config, NO_PROVIDER_GUIDANCE, ProviderReason, providers};
use crate::config::ProviderInfo;
use serde::Deserialize;
use std::time::Duration;

/// How long a local Ollama gets to answer. It runs on this machine: a live one answers in a
/// few milliseconds, and nobody should wait longer for one that is not there.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(300);

/// A local Ollama that answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalOllama {
    /// The `ollama` provider (built-in, with any `[providers.ollama]` overrides).
    pub provider: ProviderInfo,
    /// Models it has installed, as it names them (`qwen3-coder:latest`).
    pub models: Vec<String>,
    /// The model to use: the configured one if installed, else the provider's default model
    /// if installed, else the first installed one.
    pub model: String,
}

impl LocalOllama {
    /// Make `config` use this Ollama.
    pub fn apply(&self, config: &mut Config) {
        config.provider = Some(self.provider.clone());
        config.model = self.model.clone();
        config.provider_reason = ProviderReason::LocalOllama;
        config.detect_local = false;
    }

    /// The one line a front end shows when the session switches to it.
    pub fn notice(&self) -> String {
        let url = &self.provider.base_url;
        if self.models.is_empty() {
            format!(
                "Found Ollama at {url}, but it has no models installed: run `ollama pull {}`.",
                self.model
            )
        } else {
            format!(
                "No API key set; using Ollama found at {url} with model {}.",
                self.model
            )
        }
    }
}

#[derive(Deserialize)]
struct Tags {
    #[serde(default)]
    models: Vec<Named>,
}

#[derive(Deserialize)]
struct Named {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    model: Option<String>,
}

#[derive(Deserialize)]
struct ModelList {
    #[serde(default)]
    data: Vec<Listed>,
}

#[derive(Deserialize)]
struct Listed {
    id: String,
}

/// Ask the `ollama` provider's server (by default `http://127.0.0.1:11434`) whether it runs:
/// `GET /api/tags`, then the OpenAI-compatible `GET /v1/models`, within [`PROBE_TIMEOUT`].
pub async fn probe_ollama(config: &Config) -> Option<LocalOllama> {
    let env = |key: &str| std::env::var(key).ok();
    let provider = providers::resolve("ollama", &config.user_providers, &env).ok()?;
    let root = provider
        .base_url
        .strip_suffix("/v1")
        .unwrap_or(&provider.base_url);
    let http = crate::client::http::builder()
        .timeout(PROBE_TIMEOUT)
        .connect_timeout(PROBE_TIMEOUT)
        // A proxy from the environment must not see (or answer for) a loopback probe.
        .no_proxy()
        .build()
        .ok()?;
    let ask = async {
        if let Some(models) = fetch::<Tags>(&http, &format!("{root}/api/tags")).await {
            let names = models.models.into_iter();
            return Some(names.filter_map(|m| m.name.or(m.model)).collect());
        }
        let listed = fetch::<ModelList>(&http, &format!("{}/models", provider.base_url)).await?;
        Some(listed.data.into_iter().map(|m| m.id).collect::<Vec<_>>())
    };
    let models = tokio::time::timeout(PROBE_TIMEOUT, ask).await.ok()??;
    let model = choose_model(&config.model, &provider.default_model, &models);
    Some(LocalOllama {
        provider,
        models,
        model,
    })
}

async fn fetch<T: for<'de> Deserialize<'de>>(http: &reqwest::Client, url: &str) -> Option<T> {
    let response = http.get(url).send().await.ok()?;
    if !response.status().is_success() {
        return None;
    }
    serde_json::from_slice(&response.bytes().await.ok()?).ok()
}

/// Match `wanted` against installed names, where `qwen3-coder` means `qwen3-coder:latest`.
fn installed<'a>(wanted: &str, models: &'a [String]) -> Option<&'a String> {
    models
        .iter()
        .find(|m| *m == wanted || m.strip_suffix(":latest") == Some(wanted))
        .or_else(|| models.iter().find(|m| m.split(':').next() == Some(wanted)))
}

fn choose_model(configured: &str, default: &str, models: &[String]) -> String {
    if models.iter().any(|m| m == configured) {
        return configured.to_string();
    }
    installed(configured, models)
        .or_else(|| installed(default, models))
        .or_else(|| models.first())
        .cloned()
        .unwrap_or_else(|| default.to_string())
}

/// What provider `config` uses and why, in a few lines (for `cairn --list-providers` and
/// `/status`).
pub fn describe_provider_choice(config: &Config) -> String {
    let Some(provider) = &config.provider else {
        let mut text = String::from(
            "provider: none\nwhy: config.toml sets no `provider`, and neither OPENAI_API_KEY nor ANTHROPIC_API_KEY is set",
        );
        if config.detect_local {
            text.push_str("; a session also looks for Ollama at http://127.0.0.1:11434");
        }
        text.push('\n');
        text.push_str(NO_PROVIDER_GUIDANCE);
        return text;
    };
    let why = match &config.provider_reason {
        ProviderReason::Configured => {
            "`provider` is set in config.toml or on the command line".to_string()
        }
        ProviderReason::EnvKey(var) => {
            format!("{var} is set and config.toml sets no `provider`")
        }
        ProviderReason::LocalOllama => format!(
            "no API key is set and config.toml sets no `provider`, but Ollama answered at {}",
            provider.base_url
        ),
        ProviderReason::NoneFound => "no provider was found".to_string(),
    };
    let mut text = format!(
        "provider: {} ({}, wire_api \"{}\", {})\nmodel: {}\nwhy: {why}",
        provider.id,
        provider.name,
        provider.wire_api.as_str(),
        provider.base_url,
        config.model,
    );
    if let (Some(var), None) = (&provider.env_key, &provider.api_key) {
        text.push_str(&format!(
            "\nwarning: {var} is not set; the server will likely reject requests"
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProviderToml;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn config_with_ollama_at(base_url: &str) -> Config {
        let dir = std::env::temp_dir();
        let mut config = Config::for_test(&dir, &dir);
        config.detect_local = true;
        config.user_providers.insert(
            "ollama".into(),
            ProviderToml {
                base_url: Some(base_url.into()),
                ..ProviderToml::default()
            },
        );
        config
    }

    /// A one-shot HTTP server answering every request with `body` (200) on `path`, 404 else.
    async fn serve(path: &'static str, body: &'static str) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut buf = vec![0u8; 4096];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                let (status, body) = if head.starts_with(&format!("GET {path} ")) {
                    ("200 OK", body)
                } else {
                    ("404 Not Found", "")
                };
                let reply = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            }
        });
        format!("http://{addr}/v1")
    }

    #[tokio::test]
    async fn running_ollama_is_found_and_its_installed_model_chosen() {
        let url = serve(
            "/api/tags",
            r#"{"models":[{"name":"llama3.2:latest"},{"name":"qwen3-coder:latest"}]}"#,
        )
        .await;
        let mut config = config_with_ollama_at(&url);
        let found = probe_ollama(&config).await.expect("ollama found");
        assert_eq!(found.model, "qwen3-coder:latest");
        assert!(
            found.notice().contains("qwen3-coder:latest"),
            "{}",
            found.notice()
        );
        found.apply(&mut config);
        assert_eq!(config.provider.as_ref().unwrap().id, "ollama");
        let described = describe_provider_choice(&config);
        assert!(described.contains("Ollama answered at"), "{described}");
    }

    #[tokio::test]
    async fn openai_compatible_model_list_is_the_fallback() {
        let url = serve("/v1/models", r#"{"data":[{"id":"my-model"}]}"#).await;
        let found = probe_ollama(&config_with_ollama_at(&url)).await.unwrap();
        assert_eq!(found.models, vec!["my-model".to_string()]);
        assert_eq!(found.model, "my-model");
    }

    #[tokio::test]
    async fn nothing_listening_means_no_ollama() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let config = config_with_ollama_at(&format!("http://{addr}/v1"));
        assert_eq!(probe_ollama(&config).await, None);
    }

    #[test]
    fn configured_model_wins_when_installed() {
        let models = vec!["a:latest".to_string(), "b:7b".to_string()];
        assert_eq!(choose_model("b", "a", &models), "b:7b");
        assert_eq!(choose_model("gpt-5.1", "a", &models), "a:latest");
        assert_eq!(choose_model("gpt-5.1", "zzz", &models), "a:latest");
        assert_eq!(choose_model("gpt-5.1", "zzz", &[]), "zzz");
    }

    #[test]
    fn description_says_why_and_warns_about_a_missing_key() {
        let dir = std::env::temp_dir();
        let mut config = Config::for_test(&dir, &dir);
        assert!(describe_provider_choice(&config).starts_with("provider: none"));
        config.provider =
            Some(providers::resolve("anthropic", &Default::default(), &|_| None).unwrap());
        config.provider_reason = ProviderReason::Configured;
        let text = describe_provider_choice(&config);
        assert!(
            text.contains("provider: anthropic (Anthropic, wire_api \"anthropic\""),
            "{text}"
        );
        assert!(
            text.contains("warning: ANTHROPIC_API_KEY is not set"),
            "{text}"
        );
    }
}

//! `[tools.web]`: what `web_fetch` may reach and which backend `web_search` uses.

use super::ConfigError;
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;

/// Default of `[tools.web] max_bytes`: text returned by one fetch.
pub const DEFAULT_WEB_MAX_BYTES: usize = 200_000;
/// Most text one fetch may return, whatever the model or the config asks for.
pub const WEB_MAX_BYTES_LIMIT: usize = 1_000_000;
/// Default of `[tools.web] timeout_ms`: a whole fetch, body included.
pub const DEFAULT_WEB_TIMEOUT_MS: u64 = 30_000;
/// Default of `[tools.web] connect_timeout_ms`.
pub const DEFAULT_WEB_CONNECT_TIMEOUT_MS: u64 = 10_000;

/// `[tools.web] search`: the backend `web_search` queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchBackend {
    /// Brave Search API (`X-Subscription-Token`, key in `BRAVE_API_KEY`).
    Brave,
    /// Tavily (`Authorization: Bearer`, key in `TAVILY_API_KEY`).
    Tavily,
    /// A SearXNG instance at `search_url` with its JSON format enabled.
    Searxng,
    /// The provider's own hosted `web_search` tool (Responses API only).
    Provider,
}

impl SearchBackend {
    /// The name used in config files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Brave => "brave",
            Self::Tavily => "tavily",
            Self::Searxng => "searxng",
            Self::Provider => "provider",
        }
    }

    /// The environment variable that holds the key, unless `search_api_key_env` says another.
    pub fn default_key_env(self) -> Option<&'static str> {
        match self {
            Self::Brave => Some("BRAVE_API_KEY"),
            Self::Tavily => Some("TAVILY_API_KEY"),
            Self::Searxng | Self::Provider => None,
        }
    }

    /// The API's base URL, unless `search_url` says another.
    fn default_url(self) -> Option<&'static str> {
        match self {
            Self::Brave => Some("https://api.search.brave.com"),
            Self::Tavily => Some("https://api.tavily.com"),
            Self::Searxng | Self::Provider => None,
        }
    }
}

/// `[tools.web]` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebToml {
    /// `false` removes `web_fetch`.
    pub fetch: Option<bool>,
    /// Hosts `web_fetch` may fetch from without asking under `untrusted` (`docs.rs`, or
    /// `*.example.com` for its subdomains).
    pub allowed_hosts: Option<Vec<String>>,
    /// Let `web_fetch` reach loopback, link-local and private addresses.
    pub allow_private: Option<bool>,
    /// Longest a whole fetch may take, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Longest connecting may take, in milliseconds.
    pub connect_timeout_ms: Option<u64>,
    /// Text one fetch returns by default, in bytes.
    pub max_bytes: Option<u64>,
    /// `brave`, `tavily`, `searxng` or `provider`.
    pub search: Option<SearchBackend>,
    /// The search backend's base URL (required for `searxng`).
    pub search_url: Option<String>,
    /// The environment variable holding the search backend's key.
    pub search_api_key_env: Option<String>,
}

/// `[tools.web]` in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebSettings {
    /// `web_fetch` is offered.
    pub fetch: bool,
    /// Lower-cased host patterns (`docs.rs`, `*.example.com`).
    pub allowed_hosts: Vec<String>,
    /// Private, loopback and link-local addresses may be fetched.
    pub allow_private: bool,
    /// A whole fetch, body included.
    pub timeout: Duration,
    /// Connecting.
    pub connect_timeout: Duration,
    /// Text returned by default.
    pub max_bytes: usize,
    /// The search backend, when one is configured.
    pub search: Option<SearchSettings>,
}

impl Default for WebSettings {
    fn default() -> Self {
        Self {
            fetch: true,
            allowed_hosts: Vec::new(),
            allow_private: false,
            timeout: Duration::from_millis(DEFAULT_WEB_TIMEOUT_MS),
            connect_timeout: Duration::from_millis(DEFAULT_WEB_CONNECT_TIMEOUT_MS),
            max_bytes: DEFAULT_WEB_MAX_BYTES,
            search: None,
        }
    }
}

impl WebSettings {
    /// True when `host` matches an `allowed_hosts` entry: the same name, or a subdomain of
    /// a `*.` entry.
    pub fn host_allowed(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.allowed_hosts
            .iter()
            .any(|pattern| match pattern.strip_prefix("*.") {
                Some(domain) => host
                    .strip_suffix(domain)
                    .is_some_and(|rest| rest.ends_with('.')),
                None => host == *pattern,
            })
    }
}

/// The search backend in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchSettings {
    /// Which API.
    pub backend: SearchBackend,
    /// Its base URL (empty for `provider`).
    pub url: String,
    /// The variable the key is read from.
    pub api_key_env: Option<String>,
    /// The key, when that variable is set.
    pub api_key: Option<String>,
}

/// `[tools.web]` checked; errors name the file and the key.
pub(super) fn settings(
    toml: &WebToml,
    file: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<WebSettings, ConfigError> {
    let bad = |message: String| ConfigError::File {
        path: file.to_path_buf(),
        message,
    };
    let defaults = WebSettings::default();
    for (key, value) in [
        ("timeout_ms", toml.timeout_ms),
        ("connect_timeout_ms", toml.connect_timeout_ms),
        ("max_bytes", toml.max_bytes),
    ] {
        if value == Some(0) {
            return Err(bad(format!(
                "tools.web.{key} is 0; give a number above zero"
            )));
        }
    }
    if let Some(max) = toml.max_bytes
        && max > WEB_MAX_BYTES_LIMIT as u64
    {
        return Err(bad(format!(
            "tools.web.max_bytes is {max}; the most one fetch may return is {WEB_MAX_BYTES_LIMIT}"
        )));
    }
    let mut allowed_hosts = Vec::new();
    for entry in toml.allowed_hosts.iter().flatten() {
        let host = entry.trim().trim_end_matches('.').to_ascii_lowercase();
        let name = host.strip_prefix("*.").unwrap_or(&host);
        let valid = !name.is_empty()
            && name.chars().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '[' | ']')
            });
        if !valid {
            return Err(bad(format!(
                "tools.web.allowed_hosts has `{entry}`; give host names only (`docs.rs`, or `*.example.com` for its subdomains), without scheme, port or path"
            )));
        }
        allowed_hosts.push(host);
    }
    let search = match toml.search {
        None => {
            if toml.search_url.is_some() || toml.search_api_key_env.is_some() {
                return Err(bad(
                    "tools.web.search_url and tools.web.search_api_key_env need tools.web.search (\"brave\", \"tavily\", \"searxng\" or \"provider\")".to_string(),
                ));
            }
            None
        }
        Some(backend) => {
            let url = match (&toml.search_url, backend.default_url()) {
                (Some(url), _) => url.trim().trim_end_matches('/').to_string(),
                (None, Some(url)) => url.to_string(),
                (None, None) if backend == SearchBackend::Provider => String::new(),
                (None, None) => {
                    return Err(bad(format!(
                        "tools.web.search is \"{}\" but tools.web.search_url is missing; give the instance's URL (e.g. \"http://127.0.0.1:8888\")",
                        backend.as_str()
                    )));
                }
            };
            if !(url.is_empty() || url.starts_with("http://") || url.starts_with("https://")) {
                return Err(bad(format!(
                    "tools.web.search_url is `{url}`; give an http:// or https:// URL"
                )));
            }
            let api_key_env = toml
                .search_api_key_env
                .clone()
                .or_else(|| backend.default_key_env().map(str::to_string));
            let api_key = api_key_env
                .as_deref()
                .and_then(env)
                .filter(|k| !k.trim().is_empty());
            Some(SearchSettings {
                backend,
                url,
                api_key_env,
                api_key,
            })
        }
    };
    Ok(WebSettings {
        fetch: toml.fetch.unwrap_or(true),
        allowed_hosts,
        allow_private: toml.allow_private.unwrap_or(false),
        timeout: toml
            .timeout_ms
            .map_or(defaults.timeout, Duration::from_millis),
        connect_timeout: toml
            .connect_timeout_ms
            .map_or(defaults.connect_timeout, Duration::from_millis),
        max_bytes: toml.max_bytes.map_or(defaults.max_bytes, |m| m as usize),
        search,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<WebSettings, ConfigError> {
        let toml: WebToml = toml::from_str(text).unwrap();
        settings(&toml, Path::new("/h/config.toml"), &|k| {
            (k == "BRAVE_API_KEY").then(|| "k".to_string())
        })
    }

    #[test]
    fn defaults_without_a_table() {
        assert_eq!(parse("").unwrap(), WebSettings::default());
    }

    #[test]
    fn allowed_hosts_match_exactly_or_by_wildcard() {
        let web = parse("allowed_hosts = [\"docs.rs\", \"*.Example.com\"]").unwrap();
        assert!(web.host_allowed("docs.rs"));
        assert!(web.host_allowed("DOCS.RS."));
        assert!(!web.host_allowed("evil-docs.rs"));
        assert!(web.host_allowed("api.example.com"));
        assert!(!web.host_allowed("example.com"));
        assert!(!web.host_allowed("badexample.com"));
    }

    #[test]
    fn errors_name_the_file_and_the_key() {
        for (text, key) in [
            (
                "allowed_hosts = [\"https://docs.rs/x\"]",
                "tools.web.allowed_hosts",
            ),
            ("timeout_ms = 0", "tools.web.timeout_ms"),
            ("max_bytes = 5000000", "tools.web.max_bytes"),
            ("search = \"searxng\"", "tools.web.search_url"),
            ("search_url = \"http://x\"", "tools.web.search"),
            (
                "search = \"brave\"\nsearch_url = \"ftp://x\"",
                "tools.web.search_url",
            ),
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.starts_with("/h/config.toml: "), "{err}");
            assert!(err.contains(key), "{text}: {err}");
        }
    }

    #[test]
    fn search_backends_take_their_key_from_the_environment() {
        let web = parse("search = \"brave\"").unwrap();
        let search = web.search.unwrap();
        assert_eq!(search.api_key.as_deref(), Some("k"));
        assert_eq!(search.url, "https://api.search.brave.com");
        let tavily = parse("search = \"tavily\"").unwrap().search.unwrap();
        assert_eq!(tavily.api_key_env.as_deref(), Some("TAVILY_API_KEY"));
        assert_eq!(tavily.api_key, None);
        let searx = parse("search = \"searxng\"\nsearch_url = \"http://127.0.0.1:8888/\"")
            .unwrap()
            .search
            .unwrap();
        assert_eq!(searx.url, "http://127.0.0.1:8888");
    }
}

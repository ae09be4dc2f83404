//! `web_search` backends: Brave, Tavily and SearXNG, each one HTTP request whose JSON answer
//! becomes a numbered list (title, URL, snippet). (`provider` is the Responses API's hosted
//! tool: the server searches, nothing runs here.)

use super::search_client;
use crate::config::{SearchBackend, SearchSettings, WebSettings};
use futures::StreamExt;
use serde_json::Value;
use std::time::Instant;

/// Default number of results.
pub const DEFAULT_RESULTS: usize = 5;
/// Most results one call returns.
pub const MAX_RESULTS: usize = 20;
/// Most bytes of a backend's answer read.
const RESPONSE_LIMIT: usize = 2 * 1024 * 1024;

/// One result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The page's title.
    pub title: String,
    /// Its address.
    pub url: String,
    /// What the backend quotes from it.
    pub snippet: String,
}

/// Query the configured backend.
pub async fn search(
    web: &WebSettings,
    search: &SearchSettings,
    query: &str,
    max_results: usize,
) -> Result<Vec<SearchHit>, String> {
    let name = search.backend.as_str();
    let client = search_client(web.connect_timeout);
    let key = || {
        search.api_key.clone().ok_or_else(|| {
            format!(
                "web_search uses {name}, but its API key is not set: the user must set {} in the environment cairn runs in. Continue without searching.",
                search.api_key_env.as_deref().unwrap_or("the key variable")
            )
        })
    };
    let request = match search.backend {
        SearchBackend::Brave => client
            .get(format!("{}/res/v1/web/search", search.url))
            .query(&[("q", query), ("count", &max_results.to_string())])
            .header("accept", "application/json")
            .header("x-subscription-token", key()?),
        SearchBackend::Tavily => client
            .post(format!("{}/search", search.url))
            .bearer_auth(key()?)
            .header("content-type", "application/json")
            .body(serde_json::json!({"query": query, "max_results": max_results}).to_string()),
        SearchBackend::Searxng => client
            .get(format!("{}/search", search.url))
            .query(&[("q", query), ("format", "json")])
            .header("accept", "application/json"),
        SearchBackend::Provider => {
            return Err(
                "web_search runs on the model provider's side with `search = \"provider\"`; it cannot be called as a function here.".to_string(),
            );
        }
    };
    let deadline = Instant::now() + web.timeout;
    let failed = |what: String| format!("web_search ({name}) failed: {what}");
    let response =
        match tokio::time::timeout(web.timeout, request.timeout(web.timeout).send()).await {
            Err(_) => return Err(failed("the backend did not answer in time".into())),
            Ok(Err(e)) => return Err(failed(e.to_string())),
            Ok(Ok(response)) => response,
        };
    let status = response.status();
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while body.len() < RESPONSE_LIMIT {
        let remaining = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(remaining, chunks.next()).await {
            Err(_) => return Err(failed("the backend did not answer in time".into())),
            Ok(None) => break,
            Ok(Some(Err(e))) => return Err(failed(e.to_string())),
            Ok(Some(Ok(chunk))) => body.extend_from_slice(&chunk),
        }
    }
    if !status.is_success() {
        let text: String = String::from_utf8_lossy(&body).chars().take(300).collect();
        let hint = match status.as_u16() {
            401 | 403 => " (check the API key)",
            429 => " (rate limited; try again later)",
            _ => "",
        };
        return Err(failed(format!("HTTP {status}{hint}: {}", text.trim())));
    }
    let json: Value = serde_json::from_slice(&body)
        .map_err(|e| failed(format!("the answer is not JSON ({e})")))?;
    let mut hits = parse(search.backend, &json);
    hits.truncate(max_results);
    Ok(hits)
}

/// The results in a backend's JSON answer.
pub fn parse(backend: SearchBackend, json: &Value) -> Vec<SearchHit> {
    let (list, snippet_key) = match backend {
        SearchBackend::Brave => (&json["web"]["results"], "description"),
        SearchBackend::Tavily | SearchBackend::Searxng => (&json["results"], "content"),
        SearchBackend::Provider => return Vec::new(),
    };
    list.as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|item| {
                    let url = item["url"].as_str()?.trim().to_string();
                    Some(SearchHit {
                        title: plain(item["title"].as_str().unwrap_or(&url)),
                        snippet: plain(item[snippet_key].as_str().unwrap_or_default()),
                        url,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Tags (Brave marks matches with `<strong>`) and entities out, whitespace collapsed.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    let out = out
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The tool output: a numbered list.
pub fn render(query: &str, hits: &[SearchHit]) -> String {
    if hits.is_empty() {
        return format!("No results for \"{query}\".");
    }
    let mut out = format!("Results for \"{query}\":\n");
    for (i, hit) in hits.iter().enumerate() {
        out.push_str(&format!("\n{}. {}\n   {}\n", i + 1, hit.title, hit.url));
        if !hit.snippet.is_empty() {
            out.push_str(&format!("   {}\n", hit.snippet));
        }
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_backend_shape_parses_into_hits() {
        let brave = json!({"web": {"results": [
            {"title": "Tokio <strong>docs</strong>", "url": "https://tokio.rs", "description": "An <strong>async</strong> runtime"}
        ]}});
        let hits = parse(SearchBackend::Brave, &brave);
        assert_eq!(
            hits,
            vec![SearchHit {
                title: "Tokio docs".into(),
                url: "https://tokio.rs".into(),
                snippet: "An async runtime".into()
            }]
        );
        let tavily = json!({"results": [{"title": "A", "url": "https://a", "content": "alpha"}]});
        assert_eq!(parse(SearchBackend::Tavily, &tavily)[0].snippet, "alpha");
        let searx =
            json!({"results": [{"title": "B", "url": "https://b", "content": "beta &amp; more"}]});
        assert_eq!(
            parse(SearchBackend::Searxng, &searx)[0].snippet,
            "beta & more"
        );
    }

    use crate::web::fetch::tests::{ok, serve_raw};
    use std::sync::{Arc, Mutex};

    /// A fake backend answering `answer` and keeping the request it got.
    async fn backend(answer: Value) -> (String, Arc<Mutex<String>>) {
        let seen = Arc::new(Mutex::new(String::new()));
        let keep = seen.clone();
        let body = answer.to_string();
        let (url, _) = serve_raw(move |request| {
            *keep.lock().unwrap() = request.to_string();
            ok("application/json", body.as_bytes())
        })
        .await;
        (url, seen)
    }

    fn settings(backend: SearchBackend, url: &str, key: Option<&str>) -> SearchSettings {
        SearchSettings {
            backend,
            url: url.to_string(),
            api_key_env: backend.default_key_env().map(str::to_string),
            api_key: key.map(str::to_string),
        }
    }

    #[tokio::test]
    async fn brave_is_asked_with_its_token_header() {
        let (url, seen) = backend(json!({"web": {"results": [
            {"title": "One", "url": "https://one", "description": "first"},
            {"title": "Two", "url": "https://two", "description": "second"}
        ]}}))
        .await;
        let hits = search(
            &WebSettings::default(),
            &settings(SearchBackend::Brave, &url, Some("brave-key")),
            "rust error E0499",
            1,
        )
        .await
        .unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].title, "One");
        let request = seen.lock().unwrap().clone();
        assert!(
            request.starts_with("GET /res/v1/web/search?q=rust+error+E0499&count=1 "),
            "{request}"
        );
        assert!(
            request
                .to_ascii_lowercase()
                .contains("x-subscription-token: brave-key"),
            "{request}"
        );
    }

    #[tokio::test]
    async fn tavily_is_asked_with_a_bearer_key_and_a_json_body() {
        let (url, seen) =
            backend(json!({"results": [{"title": "T", "url": "https://t", "content": "tee"}]}))
                .await;
        let hits = search(
            &WebSettings::default(),
            &settings(SearchBackend::Tavily, &url, Some("tv-key")),
            "tokio select",
            3,
        )
        .await
        .unwrap();
        assert_eq!(
            render("tokio select", &hits),
            "Results for \"tokio select\":\n\n1. T\n   https://t\n   tee"
        );
        let request = seen.lock().unwrap().clone();
        assert!(request.starts_with("POST /search "), "{request}");
        assert!(
            request
                .to_ascii_lowercase()
                .contains("authorization: bearer tv-key"),
            "{request}"
        );
        assert!(
            request.ends_with(r#"{"max_results":3,"query":"tokio select"}"#),
            "{request}"
        );
    }

    #[tokio::test]
    async fn searxng_is_asked_for_its_json_format() {
        let (url, seen) =
            backend(json!({"results": [{"title": "S", "url": "https://s", "content": "ess"}]}))
                .await;
        let hits = search(
            &WebSettings::default(),
            &settings(SearchBackend::Searxng, &url, None),
            "q",
            5,
        )
        .await
        .unwrap();
        assert_eq!(hits[0].url, "https://s");
        assert!(
            seen.lock()
                .unwrap()
                .starts_with("GET /search?q=q&format=json ")
        );
    }

    #[tokio::test]
    async fn a_missing_key_says_which_variable_to_set() {
        let err = search(
            &WebSettings::default(),
            &settings(SearchBackend::Brave, "http://127.0.0.1:9", None),
            "q",
            5,
        )
        .await
        .unwrap_err();
        assert!(err.contains("BRAVE_API_KEY"), "{err}");
    }

    #[test]
    fn results_render_as_a_numbered_list() {
        let hits = vec![
            SearchHit {
                title: "A".into(),
                url: "https://a".into(),
                snippet: "alpha".into(),
            },
            SearchHit {
                title: "B".into(),
                url: "https://b".into(),
                snippet: String::new(),
            },
        ];
        assert_eq!(
            render("q", &hits),
            "Results for \"q\":\n\n1. A\n   https://a\n   alpha\n\n2. B\n   https://b"
        );
        assert_eq!(render("q", &[]), "No results for \"q\".");
    }
}

//! One `web_fetch`: GET with connect and total timeouts, at most [`MAX_REDIRECTS`] redirects
//! (each hop's scheme and addresses checked again), the body streamed and never held beyond
//! a hard cap, HTML turned into Markdown, other text returned as it is, binary refused.

use super::{address, fetch_client, html, lookup};
use crate::config::WebSettings;
use futures::StreamExt;
use reqwest::Url;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, LOCATION};
use std::time::{Duration, Instant};
/// The host of a URL as web_fetch judges it.
enum Host<'a> {
    Domain(&'a str),
    Ip(std::net::IpAddr),
}

fn host_of(url: &Url) -> Option<Host<'_>> {
    if let Some(domain) = url.domain() {
        return Some(Host::Domain(domain));
    }
    let raw = url.host_str()?;
    let raw = raw.trim_start_matches('[').trim_end_matches(']');
    raw.parse().ok().map(Host::Ip)
}

/// Most redirects one fetch follows.
pub const MAX_REDIRECTS: usize = 5;
/// Most bytes of an HTML page read before conversion (the Markdown is much shorter).
pub const HTML_READ_LIMIT: usize = 5 * 1024 * 1024;

/// What a fetch returns to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The URL the content came from, after redirects.
    pub url: String,
    /// The response's content type (its media type, lower case).
    pub content_type: String,
    /// The text: Markdown for HTML, the body for other text.
    pub text: String,
    /// A note on what was left out, when something was.
    pub note: Option<String>,
}

impl Fetched {
    /// The tool output: a short header, the text, and the note.
    pub fn render(&self, requested: &str) -> String {
        let mut out = format!("URL: {}\n", self.url);
        if self.url != requested {
            out.push_str(&format!("Redirected from: {requested}\n"));
        }
        out.push_str(&format!("Content-Type: {}\n\n", self.content_type));
        out.push_str(self.text.trim_end());
        if let Some(note) = &self.note {
            out.push_str("\n\n");
            out.push_str(note);
        }
        out
    }
}

/// Decides whether a redirect may go to `url`; the refusal text otherwise. Called for every
/// hop after the first, before it is requested.
pub type HopCheck<'a> = &'a (dyn Fn(&Url) -> Result<(), String> + Send + Sync);

/// Parse `raw` as a URL web_fetch may request: http or https, with a host.
pub fn parse_url(raw: &str) -> Result<Url, String> {
    let url = Url::parse(raw.trim()).map_err(|e| {
        format!("`{raw}` is not a valid URL ({e}); give a full http:// or https:// URL")
    })?;
    check_scheme(&url)?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!(
            "`{raw}` has no host; give a full http:// or https:// URL"
        ));
    }
    Ok(url)
}

fn check_scheme(url: &Url) -> Result<(), String> {
    match url.scheme() {
        "http" | "https" => Ok(()),
        other => Err(format!(
            "web_fetch fetches only http:// and https:// URLs; `{url}` is {other}:"
        )),
    }
}

/// Refuse `url` when its host is, or resolves only to, a restricted address and
/// `allow_private` is off.
pub async fn check_address(url: &Url, allow_private: bool) -> Result<(), String> {
    if allow_private {
        return Ok(());
    }
    let refusal = |what: &str, ip: std::net::IpAddr| {
        format!(
            "Refused to fetch {url}: {} is {what} ({ip}). web_fetch does not reach loopback, link-local or private addresses (the user's machine and network) unless the user sets `[tools.web] allow_private = true` in config.toml.",
            url.host_str().unwrap_or_default()
        )
    };
    let ips: Vec<std::net::IpAddr> = match host_of(url) {
        Some(Host::Ip(ip)) => vec![ip],
        Some(Host::Domain(domain)) => {
            let port = url.port_or_known_default().unwrap_or(80);
            match lookup(domain, port).await {
                Ok(addrs) => addrs.into_iter().map(|a| a.ip()).collect(),
                Err(e) => return Err(format!("Could not resolve {domain}: {e}")),
            }
        }
        None => return Err(format!("`{url}` has no host")),
    };
    // Only public addresses are ever connected to (the client's resolver drops the others);
    // a name with none is refused here, with the reason.
    if ips.iter().all(|ip| address::restricted(*ip).is_some())
        && let Some(ip) = ips.first()
    {
        let what = address::restricted(*ip).unwrap_or("a restricted address");
        return Err(refusal(what, *ip));
    }
    Ok(())
}

/// Fetch `url`, returning at most `max_bytes` of text.
pub async fn fetch(
    settings: &WebSettings,
    url: Url,
    max_bytes: usize,
    hop_allowed: HopCheck<'_>,
) -> Result<Fetched, String> {
    let started = Instant::now();
    let deadline = started + settings.timeout;
    let client = fetch_client(settings.allow_private, settings.connect_timeout);
    let timed_out = |url: &Url, received: Option<usize>| {
        let got = received.map_or(String::new(), |n| format!(" ({n} bytes received)"));
        format!(
            "Timed out after {} fetching {url}{got}: the server is slow or stalled. Try again later or fetch another page.",
            seconds(settings.timeout)
        )
    };
    let mut url = url;
    let mut redirects = 0;
    let response = loop {
        check_address(&url, settings.allow_private).await?;
        let remaining = deadline.saturating_duration_since(Instant::now());
        let request = client
            .get(url.clone())
            .header(
                "accept",
                "text/html, text/markdown;q=0.9, text/*;q=0.8, application/json;q=0.8, */*;q=0.1",
            )
            .timeout(remaining)
            .send();
        let response = match tokio::time::timeout(remaining, request).await {
            Err(_) => return Err(timed_out(&url, None)),
            Ok(Err(e)) if e.is_timeout() => return Err(timed_out(&url, None)),
            Ok(Err(e)) => return Err(transport_error(&url, &e)),
            Ok(Ok(response)) => response,
        };
        if !response.status().is_redirection() {
            break response;
        }
        let Some(location) = response
            .headers()
            .get(LOCATION)
            .and_then(|l| l.to_str().ok())
        else {
            break response;
        };
        let next = url
            .join(location)
            .map_err(|e| format!("{url} redirected to `{location}`, which is not a URL ({e})"))?;
        if redirects == MAX_REDIRECTS {
            return Err(format!(
                "Too many redirects: {url} redirected again after {MAX_REDIRECTS} redirects (to {next}). web_fetch follows at most {MAX_REDIRECTS}; the page may redirect in a loop."
            ));
        }
        redirects += 1;
        check_scheme(&next).map_err(|e| format!("{url} redirected to {next}: {e}"))?;
        if next.host_str() != url.host_str() {
            hop_allowed(&next)?;
        }
        url = next;
    };
    let status = response.status();
    let content_type_header = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    let charset = content_type_header.and_then(charset_param);
    let content_type = content_type_header
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|v| !v.is_empty());
    let declared_length = response
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let kind = content_type.as_deref().map_or(Kind::Unknown, kind_of);
    if let Kind::Binary = kind {
        let size = declared_length.map_or(String::new(), |n| format!(", {n} bytes"));
        return Err(format!(
            "{url} is {}{size}, not text; web_fetch returns text only (HTML, Markdown, JSON, plain text). It was not downloaded.",
            content_type.as_deref().unwrap_or("binary")
        ));
    }
    let limit = match kind {
        Kind::Html | Kind::Unknown => HTML_READ_LIMIT.max(max_bytes),
        _ => max_bytes,
    };
    let mut body = Vec::with_capacity(declared_length.map_or(64 * 1024, |n| n as usize).min(limit));
    // One byte past the limit tells whether anything was left out.
    let mut cut = false;
    let mut chunks = response.bytes_stream();
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(remaining, chunks.next()).await {
            Err(_) => return Err(timed_out(&url, Some(body.len()))),
            Ok(None) => break,
            Ok(Some(Err(e))) if e.is_timeout() => return Err(timed_out(&url, Some(body.len()))),
            Ok(Some(Err(e))) => return Err(transport_error(&url, &e)),
            Ok(Some(Ok(chunk))) => {
                let room = limit - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    cut = true;
                    break;
                }
                body.extend_from_slice(&chunk);
            }
        }
    }
    drop(chunks);
    let kind = match kind {
        Kind::Unknown => sniff(&body),
        known => known,
    };
    let shown_type = content_type.clone().unwrap_or_else(|| match kind {
        Kind::Html => "text/html (sniffed)".to_string(),
        Kind::Binary => "application/octet-stream (sniffed)".to_string(),
        _ => "text/plain (sniffed)".to_string(),
    });
    if matches!(kind, Kind::Binary) || (kind != Kind::Html && looks_binary(&body)) {
        return Err(format!(
            "{url} is {shown_type}, binary content; web_fetch returns text only (HTML, Markdown, JSON, plain text)."
        ));
    }
    let raw = decode(&body, charset.as_deref(), kind == Kind::Html);
    drop(body);
    let text = if kind == Kind::Html {
        tokio::task::spawn_blocking(move || html::to_markdown(&raw))
            .await
            .map_err(|e| format!("Could not convert the page to Markdown: {e}"))?
    } else {
        raw
    };
    if !status.is_success() {
        let excerpt: String = text.chars().take(2000).collect();
        return Err(format!(
            "{url} answered HTTP {status}.{}",
            if excerpt.trim().is_empty() {
                String::new()
            } else {
                format!(" The page says:\n\n{}", excerpt.trim())
            }
        ));
    }
    let (text, note) = cap(text, max_bytes, cut, limit, declared_length);
    Ok(Fetched {
        url: url.to_string(),
        content_type: shown_type,
        text,
        note,
    })
}

/// Cut `text` to `max_bytes` at a character boundary and say what was left out.
fn cap(
    mut text: String,
    max_bytes: usize,
    download_cut: bool,
    read_limit: usize,
    declared: Option<u64>,
) -> (String, Option<String>) {
    let total = text.len();
    let mut notes = Vec::new();
    if total > max_bytes {
        let mut end = max_bytes;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        notes.push(format!(
            "[web_fetch: the content was cut after {end} of {total}{} bytes of text. Ask again with a larger max_bytes (at most {}) to read more.]",
            if download_cut { "+" } else { "" },
            crate::config::web::WEB_MAX_BYTES_LIMIT
        ));
    } else if download_cut {
        let of = declared.map_or(String::new(), |n| format!(" of {n}"));
        notes.push(format!(
            "[web_fetch: only the first {read_limit}{of} bytes of the page were downloaded; the rest was left out.]"
        ));
    }
    (text, (!notes.is_empty()).then(|| notes.join("\n")))
}

/// How a body is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Text,
    Binary,
    /// No content type: decided by looking at the body.
    Unknown,
}

fn kind_of(content_type: &str) -> Kind {
    if content_type == "text/html" || content_type == "application/xhtml+xml" {
        return Kind::Html;
    }
    let texty = content_type.starts_with("text/")
        || content_type.ends_with("+json")
        || content_type.ends_with("+xml")
        || matches!(
            content_type,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/ecmascript"
                | "application/x-javascript"
                | "application/yaml"
                | "application/x-yaml"
                | "application/toml"
                | "application/x-sh"
                | "application/sql"
                | "application/graphql"
                | "application/x-ndjson"
        );
    if texty { Kind::Text } else { Kind::Binary }
}

/// The `charset` parameter of a Content-Type header value.
fn charset_param(value: &str) -> Option<String> {
    value.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(['"', '\'']).to_string())
    })
}

/// The body as text, in the encoding the server declared: a byte-order mark first, then the
/// header's charset, then (for HTML) a `<meta>` charset near the top, else UTF-8. Bytes
/// invalid in that encoding become U+FFFD rather than failing the fetch.
fn decode(body: &[u8], header_charset: Option<&str>, html: bool) -> String {
    let declared = header_charset
        .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()))
        .or_else(|| html.then(|| meta_charset(body)).flatten())
        .unwrap_or(encoding_rs::UTF_8);
    // `decode` lets a BOM override the declared encoding, as browsers do.
    let (text, _, _) = declared.decode(body);
    text.into_owned()
}

/// The charset an HTML page declares in its first 1 KiB (`<meta charset="…">` or the
/// `http-equiv` form), which is where the HTML standard says it must be.
fn meta_charset(body: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let head = String::from_utf8_lossy(&body[..body.len().min(1024)]).to_ascii_lowercase();
    let at = head.find("charset=")? + "charset=".len();
    let label: String = head[at..]
        .trim_start_matches(['"', '\''])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
        .collect();
    let encoding = encoding_rs::Encoding::for_label(label.as_bytes())?;
    // The HTML standard: a page that could declare UTF-16 in ASCII is not UTF-16 (a real
    // UTF-16 page has a BOM), and x-user-defined means windows-1252 here.
    Some(
        if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
            encoding_rs::UTF_8
        } else if encoding == encoding_rs::X_USER_DEFINED {
            encoding_rs::WINDOWS_1252
        } else {
            encoding
        },
    )
}

/// A body without a content type: HTML if it starts like HTML, binary if it looks binary.
fn sniff(body: &[u8]) -> Kind {
    let head = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
    let head = head.trim_start();
    if head.starts_with("<!doctype html") || head.starts_with("<html") {
        Kind::Html
    } else if looks_binary(body) {
        Kind::Binary
    } else {
        Kind::Text
    }
}

/// NUL bytes in the first 8 KiB: no text format has them.
fn looks_binary(body: &[u8]) -> bool {
    body[..body.len().min(8192)].contains(&0)
}

fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// A transport failure in words the model can act on.
fn transport_error(url: &Url, e: &reqwest::Error) -> String {
    let mut cause = String::new();
    let mut source: Option<&dyn std::error::Error> = Some(e);
    while let Some(err) = source {
        cause = err.to_string();
        source = err.source();
    }
    if e.is_connect() {
        format!("Could not connect to {url}: {cause}")
    } else {
        format!("Fetching {url} failed: {cause}")
    }
}

#[cfg(test)]
#[path = "fetch_tests.rs"]
pub(crate) mod tests;

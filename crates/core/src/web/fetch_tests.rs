#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the test server answers for a path.
#[derive(Clone)]
pub(crate) enum Reply {
    /// Status line + headers (without the blank line) and a body.
    Full(String, Vec<u8>),
    /// `total` bytes of text, chunked, as fast as the client reads.
    Endless { total: usize },
    /// Headers and a few bytes, then nothing.
    Stall,
}

/// A loopback HTTP/1.1 server answering each request with `route(path)`; returns its base
/// URL and the count of body bytes it managed to write.
pub(crate) async fn serve(
    route: impl Fn(&str) -> Reply + Send + Sync + 'static,
) -> (String, Arc<AtomicUsize>) {
    serve_raw(move |request| route(request.split_whitespace().nth(1).unwrap_or("/"))).await
}

/// As [`serve`], with `route` given the whole request (head and body) as text.
pub(crate) async fn serve_raw(
    route: impl Fn(&str) -> Reply + Send + Sync + 'static,
) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let sent = Arc::new(AtomicUsize::new(0));
    let route = Arc::new(route);
    let counter = sent.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let route = route.clone();
            let counter = counter.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut byte).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&byte[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&head).into_owned();
                let length = text
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                let head_end = head.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or(0) + 4;
                while head.len() < head_end + length {
                    match socket.read(&mut byte).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&byte[..n]),
                    }
                }
                let request = String::from_utf8_lossy(&head).into_owned();
                match route(&request) {
                    Reply::Full(status_and_headers, body) => {
                        let response = format!(
                            "{status_and_headers}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                            body.len()
                        );
                        let _ = socket.write_all(response.as_bytes()).await;
                        let _ = socket.write_all(&body).await;
                    }
                    Reply::Endless { total } => {
                        let head = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {total}\r\n\r\n"
                        );
                        let _ = socket.write_all(head.as_bytes()).await;
                        let chunk = vec![b'a'; 64 * 1024];
                        let mut written = 0;
                        while written < total {
                            let n = chunk.len().min(total - written);
                            if socket.write_all(&chunk[..n]).await.is_err() {
                                break;
                            }
                            written += n;
                            counter.fetch_add(n, Ordering::SeqCst);
                        }
                    }
                    Reply::Stall => {
                        let _ = socket
                            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000\r\n\r\nstart")
                            .await;
                        tokio::time::sleep(Duration::from_secs(60)).await;
                    }
                }
            });
        }
    });
    (format!("http://{addr}"), sent)
}

pub(crate) fn ok(content_type: &str, body: &[u8]) -> Reply {
    Reply::Full(
        format!("HTTP/1.1 200 OK\r\ncontent-type: {content_type}"),
        body.to_vec(),
    )
}

fn local() -> WebSettings {
    WebSettings {
        allow_private: true,
        ..WebSettings::default()
    }
}

fn any_hop(_: &Url) -> Result<(), String> {
    Ok(())
}

async fn get(settings: &WebSettings, url: &str, max_bytes: usize) -> Result<Fetched, String> {
    fetch(settings, parse_url(url).unwrap(), max_bytes, &any_hop).await
}

#[tokio::test]
async fn an_html_page_comes_back_as_markdown_without_scripts() {
    let (base, _) = serve(|_| {
        ok(
            "text/html; charset=utf-8",
            b"<html><head><title>Docs</title><script>alert('SCRIPT')</script></head><body><nav>MENU</nav><h1>Usage</h1><p>Call <code>run()</code>.</p></body></html>",
        )
    })
    .await;
    let page = get(&local(), &format!("{base}/docs"), 200_000)
        .await
        .unwrap();
    assert_eq!(page.content_type, "text/html");
    assert!(page.text.contains("# Usage"), "{}", page.text);
    assert!(page.text.contains("Call `run()`."), "{}", page.text);
    assert!(!page.text.contains("SCRIPT") && !page.text.contains("MENU"));
    assert_eq!(page.note, None);
}

#[tokio::test]
async fn a_redirect_loop_stops_after_five_redirects() {
    let hits = Arc::new(AtomicUsize::new(0));
    let seen = hits.clone();
    let (base, _) = serve(move |path| {
        seen.fetch_add(1, Ordering::SeqCst);
        let next = if path == "/a" { "/b" } else { "/a" };
        Reply::Full(
            format!("HTTP/1.1 302 Found\r\nlocation: {next}"),
            Vec::new(),
        )
    })
    .await;
    let err = get(&local(), &format!("{base}/a"), 1000).await.unwrap_err();
    assert!(err.starts_with("Too many redirects"), "{err}");
    assert!(err.contains("at most 5"), "{err}");
    assert_eq!(hits.load(Ordering::SeqCst), 6);
}

#[tokio::test]
async fn redirects_are_followed_and_reported() {
    let (base, _) = serve(|path| match path {
        "/old" => Reply::Full(
            "HTTP/1.1 301 Moved Permanently\r\nlocation: /new".into(),
            Vec::new(),
        ),
        _ => ok("text/plain", b"fresh"),
    })
    .await;
    let page = get(&local(), &format!("{base}/old"), 1000).await.unwrap();
    assert_eq!(page.url, format!("{base}/new"));
    let shown = page.render(&format!("{base}/old"));
    assert!(
        shown.contains(&format!("Redirected from: {base}/old")),
        "{shown}"
    );
    assert!(shown.ends_with("\n\nfresh"), "{shown}");
}

#[tokio::test]
async fn a_redirect_to_another_scheme_or_a_refused_hop_is_not_followed() {
    let (base, _) = serve(|path| match path {
        "/ftp" => Reply::Full(
            "HTTP/1.1 302 Found\r\nlocation: ftp://example.invalid/x".into(),
            Vec::new(),
        ),
        _ => Reply::Full(
            "HTTP/1.1 302 Found\r\nlocation: http://localhost:1/elsewhere".into(),
            Vec::new(),
        ),
    })
    .await;
    let err = get(&local(), &format!("{base}/ftp"), 1000)
        .await
        .unwrap_err();
    assert!(err.contains("only http:// and https://"), "{err}");
    let refuse = |_: &Url| Err("not that host".to_string());
    let err = fetch(
        &local(),
        parse_url(&format!("{base}/x")).unwrap(),
        1000,
        &refuse,
    )
    .await
    .unwrap_err();
    assert_eq!(err, "not that host");
}

#[tokio::test]
async fn a_fifty_megabyte_body_is_cut_and_never_read_whole() {
    let total = 50 * 1024 * 1024;
    let (base, sent) = serve(move |_| Reply::Endless { total }).await;
    let page = get(&local(), &format!("{base}/big"), 200_000)
        .await
        .unwrap();
    assert_eq!(page.text.len(), 200_000);
    let note = page.note.unwrap();
    assert!(
        note.contains("only the first 200000 of 52428800 bytes"),
        "{note}"
    );
    // The connection was dropped at the cap: the server could not push the rest.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let written = sent.load(Ordering::SeqCst);
    assert!(written < total / 4, "server wrote {written} bytes");
}

#[tokio::test]
async fn text_longer_than_max_bytes_is_cut_with_a_note() {
    let (base, _) = serve(|_| ok("text/markdown", "é".repeat(1000).as_bytes())).await;
    let page = get(&local(), &format!("{base}/long.md"), 101)
        .await
        .unwrap();
    // Cut at a character boundary, below the limit.
    assert_eq!(page.text.len(), 100);
    assert!(
        page.note
            .unwrap()
            .contains("Ask again with a larger max_bytes")
    );
}

#[tokio::test]
async fn a_stalled_body_times_out() {
    let (base, _) = serve(|_| Reply::Stall).await;
    let settings = WebSettings {
        timeout: Duration::from_millis(400),
        ..local()
    };
    let started = Instant::now();
    let err = get(&settings, &format!("{base}/slow"), 1000)
        .await
        .unwrap_err();
    assert!(err.starts_with("Timed out after 0.4s"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_png_is_refused_with_its_content_type() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    let (base, _) = serve(move |_| ok("image/png", png)).await;
    let err = get(&local(), &format!("{base}/logo.png"), 1000)
        .await
        .unwrap_err();
    assert!(err.contains("is image/png"), "{err}");
    assert!(err.contains("web_fetch returns text only"), "{err}");
}

#[tokio::test]
async fn an_untyped_binary_body_is_refused() {
    let (base, _) =
        serve(|_| Reply::Full("HTTP/1.1 200 OK".into(), b"\0\x01\x02binary".to_vec())).await;
    let err = get(&local(), &format!("{base}/blob"), 1000)
        .await
        .unwrap_err();
    assert!(err.contains("binary content"), "{err}");
}

#[tokio::test]
async fn private_addresses_are_refused_by_default() {
    let (base, sent) = serve(|_| ok("text/plain", b"secret")).await;
    let strict = WebSettings::default();
    for url in [
        format!("{base}/x"),
        base.replace("127.0.0.1", "localhost"),
        "http://[::1]:9/".to_string(),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://10.0.0.1/".to_string(),
    ] {
        let err = get(&strict, &url, 1000).await.unwrap_err();
        assert!(err.starts_with("Refused to fetch"), "{url}: {err}");
        assert!(err.contains("allow_private = true"), "{err}");
    }
    assert_eq!(sent.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn the_guarded_resolver_drops_private_addresses_at_connect_time() {
    // Even past the pre-check (as after a DNS change), the client cannot reach loopback.
    let (base, _) = serve(|_| ok("text/plain", b"secret")).await;
    let client = fetch_client(false, Duration::from_secs(2));
    let url = base.replace("127.0.0.1", "localhost");
    let err = client.get(&url).send().await.unwrap_err();
    let mut text = String::new();
    let mut source: Option<&dyn std::error::Error> = Some(&err);
    while let Some(e) = source {
        text.push_str(&e.to_string());
        source = e.source();
    }
    assert!(text.contains("loopback, link-local or private"), "{text}");
}

#[test]
fn only_http_and_https_urls_are_accepted() {
    assert!(parse_url("https://docs.rs/x").is_ok());
    assert!(
        parse_url("file:///etc/passwd")
            .unwrap_err()
            .contains("only http:// and https://")
    );
    assert!(
        parse_url("not a url")
            .unwrap_err()
            .contains("not a valid URL")
    );
}

#[tokio::test]
async fn an_error_status_is_reported_with_the_page_text() {
    let (base, _) = serve(|_| {
        Reply::Full(
            "HTTP/1.1 404 Not Found\r\ncontent-type: text/plain".into(),
            b"no such page".to_vec(),
        )
    })
    .await;
    let err = get(&local(), &format!("{base}/missing"), 1000)
        .await
        .unwrap_err();
    assert!(err.contains("answered HTTP 404 Not Found"), "{err}");
    assert!(err.contains("no such page"), "{err}");
}

#[tokio::test]
async fn text_in_the_declared_charset_is_decoded_not_mangled() {
    // "Größe: 5 €" in windows-1252, the header names the charset.
    let (base, _) = serve(|path| match path {
        "/latin" => ok(
            "text/plain; charset=windows-1252",
            b"Gr\xf6\xdfe: 5 \x80\n",
        ),
        // Shift_JIS declared only in the page's <meta>: "日本語".
        _ => ok(
            "text/html",
            b"<html><head><meta charset=\"shift_jis\"></head><body><p>\x93\xfa\x96{\x8c\xea</p></body></html>",
        ),
    })
    .await;
    let latin = get(&local(), &format!("{base}/latin"), 200_000)
        .await
        .unwrap();
    assert_eq!(latin.text.trim_end(), "Größe: 5 €");
    let page = get(&local(), &format!("{base}/meta"), 200_000)
        .await
        .unwrap();
    assert!(page.text.contains("日本語"), "{}", page.text);
}

#[test]
fn charset_comes_from_the_header_parameter() {
    assert_eq!(
        charset_param("text/html; Charset=\"ISO-8859-1\""),
        Some("ISO-8859-1".to_string())
    );
    assert_eq!(charset_param("text/html"), None);
    // Invalid UTF-8 without a declaration still comes back, with replacement characters.
    assert_eq!(decode(b"ok \xff", None, false), "ok \u{fffd}");
    // An ASCII page declaring UTF-16 in <meta> is read as UTF-8, as the HTML standard says.
    assert_eq!(
        decode(b"<meta charset=utf-16><p>ok</p>", None, true),
        "<meta charset=utf-16><p>ok</p>"
    );
    // A byte-order mark wins over the declaration, as in browsers.
    assert_eq!(decode(b"\xef\xbb\xbfhi", Some("latin1"), false), "hi");
}

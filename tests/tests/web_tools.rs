//! web_fetch and web_search through the real binary: while planning the model reads a
//! documentation page and searches for an error message (local servers only); a private
//! address is refused by default; an unlisted host needs approval under `untrusted`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_e2e::{cairn, mock_provider_args, output, texts, tool_output};
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A loopback HTTP server answering every request with `content_type` and `body`; returns
/// its base URL, the number of requests and the last request line.
async fn web_server(
    content_type: &'static str,
    body: &'static str,
) -> (String, Arc<AtomicUsize>, Arc<Mutex<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let last = Arc::new(Mutex::new(String::new()));
    let (count, line) = (hits.clone(), last.clone());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match socket.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            count.fetch_add(1, Ordering::SeqCst);
            let text = String::from_utf8_lossy(&head).into_owned();
            *line.lock().unwrap() = text.lines().next().unwrap_or_default().to_string();
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(response.as_bytes()).await;
        }
    });
    (base, hits, last)
}

const DOC_PAGE: &str = "<html><head><title>mylib docs</title><script>track()</script></head><body><nav>Home | Blog</nav><h1>mylib::connect</h1><p>Call <code>connect(url)</code>; it returns <em>ConnectError::Refused</em> when the port is closed.</p></body></html>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_planning_the_model_reads_a_docs_page_and_searches_for_an_error() {
    let (site, _, _) = web_server("text/html; charset=utf-8", DOC_PAGE).await;
    let (searx, _, search_line) = web_server(
        "application/json",
        r#"{"results": [{"title": "ConnectError::Refused explained", "url": "https://example.org/refused", "content": "The port is closed."}]}"#,
    )
    .await;
    let model = MockServer::start(vec![
        call(
            "f",
            "web_fetch",
            json!({"url": format!("{site}/mylib/connect.html")}),
        ),
        call("s", "web_search", json!({"query": "ConnectError::Refused"})),
        text("The docs say connect fails when the port is closed."),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("exec")
        .args(mock_provider_args(&model.base_url()))
        .args([
            "-c",
            "tools.web.allow_private=true",
            "-c",
            "tools.web.search=\"searxng\"",
            "-c",
            &format!("tools.web.search_url=\"{searx}\""),
            "--plan",
            "why does connect fail?",
        ]);
    let out = output(cmd).await;
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("port is closed"), "{stdout}");
    // Plan mode offered both web tools.
    let first = model.requests()[0].json();
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"web_fetch") && offered.contains(&"web_search"),
        "{offered:?}"
    );
    assert!(!offered.contains(&"shell") || offered.contains(&"exit_plan_mode"));
    let page = tool_output(&model, "f");
    assert!(page.contains("# mylib::connect"), "{page}");
    assert!(page.contains("Call `connect(url)`"), "{page}");
    assert!(
        !page.contains("track()") && !page.contains("Home | Blog"),
        "{page}"
    );
    let results = tool_output(&model, "s");
    assert!(
        results.starts_with("Results for \"ConnectError::Refused\":\n\n1. ConnectError::Refused explained\n   https://example.org/refused\n   The port is closed."),
        "{results}"
    );
    assert!(
        search_line
            .lock()
            .unwrap()
            .starts_with("GET /search?q=ConnectError%3A%3ARefused&format=json"),
        "{}",
        search_line.lock().unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_search_is_absent_and_private_addresses_refused_by_default() {
    let (site, hits, _) = web_server("text/plain", "internal secret").await;
    let model = MockServer::start(vec![
        call("f", "web_fetch", json!({"url": format!("{site}/admin")})),
        text("done"),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("exec")
        .args(mock_provider_args(&model.base_url()))
        .arg("look");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", texts(&out).1);
    let first = model.requests()[0].json();
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(offered.contains(&"web_fetch"), "{offered:?}");
    assert!(!offered.contains(&"web_search"), "{offered:?}");
    let refused = tool_output(&model, "f");
    assert!(refused.starts_with("Refused to fetch"), "{refused}");
    assert!(refused.contains("allow_private = true"), "{refused}");
    assert_eq!(hits.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_untrusted_an_unlisted_host_needs_approval_and_a_listed_one_does_not() {
    let (site, hits, _) = web_server("text/plain", "public notes").await;
    let listed = site.replace("127.0.0.1", "localhost");
    let model = MockServer::start(vec![
        call(
            "u",
            "web_fetch",
            json!({"url": format!("{site}/notes?user=me")}),
        ),
        call("l", "web_fetch", json!({"url": format!("{listed}/notes")})),
        text("done"),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut cmd = cairn(home.path(), work.path());
    cmd.arg("exec")
        .args(mock_provider_args(&model.base_url()))
        .args([
            "-c",
            "tools.web.allow_private=true",
            "-c",
            "tools.web.allowed_hosts=[\"localhost\"]",
            "--approval",
            "untrusted",
            "fetch",
        ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", texts(&out).1);
    let denied = tool_output(&model, "u");
    assert!(
        denied.contains(&format!(
            "so it was not run: Would fetch {site}/notes?user=me"
        )),
        "{denied}"
    );
    assert!(denied.contains("`[tools.web] allowed_hosts`"), "{denied}");
    let fetched = tool_output(&model, "l");
    assert!(fetched.ends_with("public notes"), "{fetched}");
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_web_setting_names_the_file_and_the_key() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "[tools.web]\nsearch = \"searxng\"\n",
    )
    .unwrap();
    let mut cmd = cairn(home.path(), work.path());
    cmd.args(["exec", "hi"]);
    let out = output(cmd).await;
    let (_, stderr) = texts(&out);
    assert!(!out.status.success());
    assert!(stderr.contains("config.toml"), "{stderr}");
    assert!(stderr.contains("tools.web.search_url"), "{stderr}");
}

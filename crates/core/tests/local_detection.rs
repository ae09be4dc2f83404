//! With no provider configured, a session looks for a local Ollama in the background and
//! switches to it; a message sent before the probe finished waits for it instead of failing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_core::config::ProviderToml;
use cairn_core::{Config, SessionOptions};
use cairn_protocol::{EventMsg, Op};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TAGS: &str = r#"{"models":[{"name":"qwen3-coder:latest"}]}"#;
const ANSWER: &str = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi from Ollama.\"}}]}\n\n\
data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

/// A minimal Ollama: `GET /api/tags` lists one model, `POST /v1/chat/completions` streams
/// one answer. Returns its base URL and a receiver of the chat request bodies.
async fn fake_ollama() -> (String, tokio::sync::mpsc::UnboundedReceiver<String>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 8192];
                let (head, body_start) = loop {
                    let n = socket.read(&mut buf).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    request.extend_from_slice(&buf[..n]);
                    if let Some(end) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                        break (
                            String::from_utf8_lossy(&request[..end]).to_string(),
                            end + 4,
                        );
                    }
                };
                let length = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                while request.len() < body_start + length {
                    let n = socket.read(&mut buf).await.unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    request.extend_from_slice(&buf[..n]);
                }
                let (content_type, body) = if head.starts_with("GET /api/tags ") {
                    ("application/json", TAGS)
                } else if head.starts_with("POST /v1/chat/completions ") {
                    let _ = tx.send(String::from_utf8_lossy(&request[body_start..]).to_string());
                    ("text/event-stream", ANSWER)
                } else {
                    ("text/plain", "not found")
                };
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    (format!("http://{addr}/v1"), rx)
}

#[tokio::test]
async fn session_switches_to_a_local_ollama_and_uses_its_model() {
    let (url, mut chat_requests) = fake_ollama().await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut config = Config::for_test(home.path(), &work.path().canonicalize().unwrap());
    config.detect_local = true;
    config.user_providers.insert(
        "ollama".into(),
        ProviderToml {
            base_url: Some(url.clone()),
            ..ProviderToml::default()
        },
    );
    let mut session = cairn_core::spawn(config, SessionOptions { interactive: true });
    // Sent at once, before the probe can have answered.
    session.submit(Op::UserInput { text: "hi".into() });
    let mut notice = None;
    let mut last = None;
    while last.is_none() {
        let event = tokio::time::timeout(Duration::from_secs(10), session.events.recv())
            .await
            .expect("an event within 10 s")
            .expect("session alive");
        match event.msg {
            EventMsg::Notice { message } => notice = Some(message),
            EventMsg::TaskComplete { last_agent_message } => last = Some(last_agent_message),
            EventMsg::Error { message } => panic!("turn failed: {message}"),
            _ => {}
        }
    }
    assert_eq!(last, Some(Some("Hi from Ollama.".to_string())));
    let body: serde_json::Value =
        serde_json::from_str(&chat_requests.recv().await.unwrap()).unwrap();
    assert_eq!(body["model"], "qwen3-coder:latest");
    // The notice may trail the task's events; wait for it if it has not come yet.
    if notice.is_none() {
        let event = tokio::time::timeout(Duration::from_secs(10), session.events.recv())
            .await
            .unwrap()
            .unwrap();
        if let EventMsg::Notice { message } = event.msg {
            notice = Some(message);
        }
    }
    let notice = notice.expect("a notice about the switch");
    assert!(
        notice.contains(&url) && notice.contains("qwen3-coder:latest"),
        "{notice}"
    );
}

#[tokio::test]
async fn without_ollama_the_guidance_line_is_shown_and_the_turn_says_how_to_configure() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut config = Config::for_test(home.path(), &work.path().canonicalize().unwrap());
    config.detect_local = true;
    config.user_providers.insert(
        "ollama".into(),
        ProviderToml {
            base_url: Some(format!("http://{addr}/v1")),
            ..ProviderToml::default()
        },
    );
    let mut session = cairn_core::spawn(config, SessionOptions { interactive: false });
    session.submit(Op::UserInput { text: "hi".into() });
    let mut notices = Vec::new();
    let mut error = None;
    while error.is_none() || notices.is_empty() {
        let event = tokio::time::timeout(Duration::from_secs(10), session.events.recv())
            .await
            .expect("an event within 10 s")
            .expect("session alive");
        match event.msg {
            EventMsg::Notice { message } => notices.push(message),
            EventMsg::Error { message } => error = Some(message),
            _ => {}
        }
    }
    assert_eq!(notices, [cairn_core::config::NO_PROVIDER_GUIDANCE]);
    assert_eq!(
        error.as_deref(),
        Some(cairn_core::config::NO_PROVIDER_GUIDANCE)
    );
}

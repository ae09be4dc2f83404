#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::approval::{ApprovalCache, must_ask};
use crate::config::{Config, WebSettings};
use crate::session::EventSink;
use crate::session::shared::SessionShared;
use crate::web::fetch::tests::{Reply, ok, serve};
use cairn_protocol::ApprovalPolicy;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

fn context(policy: ApprovalPolicy, allowed_hosts: &[&str]) -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::for_test(dir.path(), dir.path());
    config.approval_policy = policy;
    config.web = WebSettings {
        allow_private: true,
        allowed_hosts: allowed_hosts.iter().map(|h| h.to_string()).collect(),
        ..WebSettings::default()
    };
    let (events, _rx) = EventSink::channel();
    let ctx = ToolContext {
        sub_id: "t".into(),
        call_id: "c".into(),
        cwd: dir.path().to_path_buf(),
        events,
        cancel: CancellationToken::new(),
        shared: Arc::new(SessionShared::new(config, None, true)),
    };
    (dir, ctx)
}

fn call(args: serde_json::Value) -> ToolCall {
    ToolCall {
        call_id: "c".into(),
        name: names::WEB_FETCH.into(),
        arguments: args.to_string(),
    }
}

#[test]
fn an_unlisted_host_asks_under_untrusted_with_the_full_url() {
    let (_dir, ctx) = context(ApprovalPolicy::Untrusted, &["docs.rs"]);
    let url = "https://example.org/search?q=secret&page=2";
    let request = WebFetchHandler
        .approval(&json!({"url": url}).to_string(), &ctx)
        .unwrap()
        .unwrap();
    assert_eq!(
        request.kind,
        ApprovalKind::Fetch {
            url: url.to_string(),
            host: "example.org".into()
        }
    );
    assert_eq!(request.description, format!("Would fetch {url}"));
    assert_eq!(
        request.session.label.as_deref(),
        Some("fetches from example.org")
    );
    let cache = ApprovalCache::default();
    assert!(must_ask(ApprovalPolicy::Untrusted, &request, &cache));
    assert!(!must_ask(ApprovalPolicy::OnRequest, &request, &cache));
    assert!(!must_ask(ApprovalPolicy::Never, &request, &cache));
    // A listed host never asks.
    let listed = WebFetchHandler
        .approval(&json!({"url": "https://docs.rs/serde"}).to_string(), &ctx)
        .unwrap();
    assert_eq!(listed, None);
}

#[test]
fn a_bad_url_is_answered_before_anyone_is_asked() {
    let (_dir, ctx) = context(ApprovalPolicy::Untrusted, &[]);
    let err = WebFetchHandler
        .approval(&json!({"url": "file:///etc/passwd"}).to_string(), &ctx)
        .unwrap_err();
    assert!(
        err.to_string().contains("only http:// and https://"),
        "{err}"
    );
}

#[tokio::test]
async fn a_redirect_to_an_unapproved_host_is_not_followed_under_untrusted() {
    let (base, _) = serve(|path| match path {
        "/jump" => Reply::Full(
            "HTTP/1.1 302 Found\r\nlocation: http://localhost:9/landing".into(),
            Vec::new(),
        ),
        _ => ok("text/plain", b"here"),
    })
    .await;
    let (_dir, ctx) = context(ApprovalPolicy::Untrusted, &["127.0.0.1"]);
    let err = WebFetchHandler
        .handle(&call(json!({"url": format!("{base}/jump")})), &ctx)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("redirected to http://localhost:9/landing, on another host (localhost), which needs the user's approval"),
        "{err}"
    );
    let out = WebFetchHandler
        .handle(&call(json!({"url": format!("{base}/plain")})), &ctx)
        .await
        .unwrap();
    assert!(
        out.starts_with(&format!(
            "URL: {base}/plain\nContent-Type: text/plain\n\nhere"
        )),
        "{out}"
    );
}

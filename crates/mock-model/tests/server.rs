//! The server as a real HTTP client (reqwest) sees it.

// Helpers outside #[test] functions are test code too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_mock_model::{Gate, MockResponse, MockServer, chat};
use serde_json::{Value, json};
use std::time::Duration;

fn client() -> reqwest::Client {
    // reqwest is built without a crypto provider (cairn-core brings its own TLS set-up).
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

async fn post(server: &MockServer, path: &str, body: &Value) -> reqwest::Response {
    client()
        .post(server.url(path))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

/// Reads until at least `len` bytes arrived (or the body ends).
async fn read_at_least(response: &mut reqwest::Response, len: usize) -> Vec<u8> {
    let mut got = Vec::new();
    while got.len() < len {
        match response.chunk().await.unwrap() {
            Some(chunk) => got.extend_from_slice(&chunk),
            None => break,
        }
    }
    got
}

/// Reads to the end; returns the bytes and whether the body ended with an error.
async fn read_to_end(response: &mut reqwest::Response) -> (Vec<u8>, bool) {
    let mut got = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => got.extend_from_slice(&chunk),
            Ok(None) => return (got, false),
            Err(_) => return (got, true),
        }
    }
}

#[tokio::test]
async fn sse_body_is_streamed_chunk_by_chunk() {
    let gate = Gate::new();
    let events = chat::text("Hello world");
    let first = events[0].to_frame();
    let scripted = MockResponse::sse(events).gate_at(1, &gate);
    let whole = scripted.body_text();
    let server = MockServer::start(vec![scripted]).await;

    let mut response = post(&server, "/v1/chat/completions", &json!({})).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    // The gate holds everything after the first event, so exactly that event arrives.
    let got = read_at_least(&mut response, first.len()).await;
    assert_eq!(String::from_utf8(got).unwrap(), first);

    gate.open();
    let (rest, failed) = read_to_end(&mut response).await;
    assert!(!failed);
    assert_eq!(
        format!("{first}{}", String::from_utf8(rest).unwrap()),
        whole
    );
    assert!(whole.ends_with("data: [DONE]\n\n"));
}

#[tokio::test]
async fn delayed_chunks_all_arrive_in_order() {
    let scripted =
        MockResponse::sse(chat::text("paced answer")).with_chunk_delay(Duration::from_millis(2));
    let whole = scripted.body_text();
    let server = MockServer::start(vec![scripted]).await;
    let body = post(&server, "/v1/chat/completions", &json!({}))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(body, whole);
}

#[tokio::test]
async fn cut_ends_the_body_with_a_transport_error() {
    let events = chat::text("Hello world");
    let sent = format!("{}{}", events[0].to_frame(), events[1].to_frame());
    let server = MockServer::start(vec![MockResponse::sse(events).cut_after(2)]).await;

    let mut response = post(&server, "/v1/chat/completions", &json!({})).await;
    assert_eq!(response.status(), 200);
    let (got, failed) = read_to_end(&mut response).await;
    assert_eq!(String::from_utf8(got).unwrap(), sent);
    assert!(failed, "a cut body must not look like a clean end");
}

#[tokio::test]
async fn stall_sends_nothing_more_then_aborts() {
    let events = chat::text("Hello world");
    let first = events[0].to_frame();
    let server = MockServer::start(vec![
        MockResponse::sse(events)
            .cut_after(1)
            .stall(Duration::from_millis(50)),
    ])
    .await;

    let mut response = post(&server, "/v1/chat/completions", &json!({})).await;
    let (got, failed) = read_to_end(&mut response).await;
    assert_eq!(String::from_utf8(got).unwrap(), first);
    assert!(failed);
}

#[tokio::test]
async fn endless_stall_keeps_the_client_waiting_until_the_server_drops() {
    let server = MockServer::start(vec![
        MockResponse::sse(chat::text("Hi"))
            .cut_after(1)
            .stall(Duration::MAX),
    ])
    .await;
    let mut response = post(&server, "/v1/chat/completions", &json!({})).await;
    assert!(response.chunk().await.unwrap().is_some());
    // Nothing can arrive during a stall, so the timeout is not a timing assertion.
    let waited = tokio::time::timeout(Duration::from_millis(100), response.chunk()).await;
    assert!(waited.is_err(), "a stalled stream must send nothing");

    drop(server);
    let (_, failed) = read_to_end(&mut response).await;
    assert!(failed);
}

#[tokio::test]
async fn exhausted_queue_answers_500_with_the_request_number() {
    let server = MockServer::start(vec![]).await;
    let response = post(&server, "/v1/chat/completions", &json!({})).await;
    assert_eq!(response.status(), 500);
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(
        body,
        json!({"error": {"message": "mock: no scripted response left for request 1"}})
    );

    server.push(MockResponse::sse(chat::text("late")));
    assert_eq!(server.remaining(), 1);
    let response = post(&server, "/v1/chat/completions", &json!({})).await;
    assert_eq!(response.status(), 200);
    assert_eq!(server.remaining(), 0);
}

#[tokio::test]
async fn error_response_keeps_status_headers_and_body() {
    let server = MockServer::start(vec![
        MockResponse::error(429, chat::error_body("slow down", "rate_limit_exceeded"))
            .with_header("retry-after", "2"),
    ])
    .await;
    let response = post(&server, "/v1/chat/completions", &json!({})).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "2");
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["message"], "slow down");
}

#[tokio::test]
async fn requests_are_recorded_with_path_headers_and_body() {
    let server = MockServer::start(vec![MockResponse::sse(chat::text("a"))]).await;
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let response = client()
        .post(server.url("/v1/chat/completions?trace=1"))
        .header("X-Custom-Header", "Value")
        .bearer_auth("sk-test")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    response.text().await.unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.number, 1);
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.query.as_deref(), Some("trace=1"));
    assert_eq!(request.header("x-custom-header"), Some("Value"));
    assert_eq!(request.header("Authorization"), Some("Bearer sk-test"));
    assert!(request.headers.iter().any(|(n, _)| n == "x-custom-header"));
    assert_eq!(request.json(), body);
    assert_eq!(server.wait_for_requests(1).await.len(), 1);
}

#[tokio::test]
async fn keep_alive_connection_is_reused_across_requests() {
    let server = MockServer::start(vec![
        MockResponse::sse(chat::text("one")),
        MockResponse::sse(chat::text("two")),
    ])
    .await;
    let http = client();
    for _ in 0..2 {
        let response = http
            .post(server.url("/v1/chat/completions"))
            .body("{}")
            .send()
            .await
            .unwrap();
        response.text().await.unwrap();
    }
    let requests = server.requests();
    assert_eq!(requests[0].connection, requests[1].connection);
}

#[tokio::test]
async fn get_is_recorded_but_takes_no_scripted_response() {
    let server = MockServer::start(vec![MockResponse::sse(chat::text("a"))]).await;
    let response = client().get(server.url("/v1/other")).send().await.unwrap();
    assert_eq!(response.status(), 404);
    assert_eq!(server.remaining(), 1);
    assert_eq!(server.requests()[0].method, "GET");
}

#[tokio::test]
async fn get_models_lists_the_models_in_the_shape_of_the_asking_api() {
    let server = MockServer::start(vec![MockResponse::sse(chat::text("a"))]).await;
    let list = |anthropic: bool| {
        let mut request = client().get(server.url("/v1/models"));
        if anthropic {
            request = request.header("anthropic-version", "2023-06-01");
        }
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), 200);
            serde_json::from_slice::<Value>(&response.bytes().await.unwrap()).unwrap()
        }
    };
    let openai = list(false).await;
    assert_eq!(openai["object"], "list");
    assert_eq!(openai["data"][0]["id"], cairn_mock_model::DEFAULT_MODELS[0]);
    server.set_models(["claude-haiku-4-5"]);
    let anthropic = list(true).await;
    assert_eq!(anthropic["data"][0]["id"], "claude-haiku-4-5");
    assert_eq!(anthropic["data"][0]["display_name"], "Claude Haiku 4 5");
    assert_eq!(anthropic["has_more"], false);
    // Listing takes nothing from the queue.
    assert_eq!(server.remaining(), 1);
    server.set_models_answer(MockResponse::error(
        401,
        r#"{"error":{"message":"bad key"}}"#,
    ));
    let refused = client().get(server.url("/v1/models")).send().await.unwrap();
    assert_eq!(refused.status(), 401);
}

fn orphan_tool_output_request() -> Value {
    json!({"model": "m", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_9", "content": "result"},
    ]})
}

#[tokio::test]
async fn orphan_tool_output_is_reported_as_violation() {
    let server = MockServer::start(vec![MockResponse::sse(chat::text("a"))]).await;
    post(
        &server,
        "/v1/chat/completions",
        &orphan_tool_output_request(),
    )
    .await;
    assert_eq!(
        server.violations(),
        vec![
            "request 1 (/v1/chat/completions): tool message answers \"call_9\", which no earlier \
             call in the request made"
        ]
    );
}

#[tokio::test]
#[should_panic(expected = "mock: 1 request check violation(s)")]
async fn assert_no_violations_panics_listing_them() {
    let server = MockServer::start(vec![MockResponse::sse(chat::text("a"))]).await;
    post(
        &server,
        "/v1/chat/completions",
        &orphan_tool_output_request(),
    )
    .await;
    server.assert_no_violations();
}

#[tokio::test]
async fn well_paired_conversation_has_no_violations() {
    let server = MockServer::start(vec![MockResponse::sse(chat::text("a"))]).await;
    let body = json!({"messages": [
        {"role": "user", "content": "plan"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "update_plan", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Plan updated"},
    ]});
    post(&server, "/v1/chat/completions", &body).await;
    server.assert_no_violations();
}

#[tokio::test]
async fn disconnect_closes_the_connection_without_an_answer() {
    let server = MockServer::start(vec![
        MockResponse::sse(chat::text("never sent")).disconnect(),
        MockResponse::sse(chat::text("second try")),
    ])
    .await;
    let http = client();
    let first = http
        .post(server.url("/v1/chat/completions"))
        .body("{}")
        .send()
        .await;
    assert!(first.is_err(), "no response may arrive: {first:?}");
    let second = http
        .post(server.url("/v1/chat/completions"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 200);
    assert_eq!(server.requests().len(), 2);
}

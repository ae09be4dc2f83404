//! The same scenarios over each wire format (Chat Completions, Responses, Anthropic Messages)
//! against the loopback mock model: an update_plan round trip, and every injected fault with
//! its documented behaviour.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_core::config::WireApi;
use cairn_mock_model::{MockResponse, SseEvent, anthropic, chat, responses};
use cairn_protocol::EventMsg;
use common::{Harness, Setup, count, start_with};
use serde_json::{Value, json};
use std::time::Duration;

const WIRES: [WireApi; 3] = [WireApi::Chat, WireApi::Responses, WireApi::Anthropic];

fn text_events(wire: WireApi, text: &str) -> Vec<SseEvent> {
    match wire {
        WireApi::Chat => chat::text(text),
        WireApi::Responses => responses::text(text),
        WireApi::Anthropic => anthropic::text(text),
    }
}

fn text(wire: WireApi, text: &str) -> MockResponse {
    MockResponse::sse(text_events(wire, text))
}

fn calls(wire: WireApi, calls: &[(&str, &str, Value)]) -> MockResponse {
    MockResponse::sse(match wire {
        WireApi::Chat => chat::tool_calls(calls),
        WireApi::Responses => responses::function_calls(calls),
        WireApi::Anthropic => anthropic::tool_uses(calls),
    })
}

fn plan_args() -> Value {
    json!({
        "explanation": "Two steps.",
        "plan": [
            {"step": "Read the code", "status": "in_progress"},
            {"step": "Fix the bug", "status": "pending"},
        ],
    })
}

async fn start(wire: WireApi, responses: Vec<MockResponse>) -> Harness {
    start_with(
        responses,
        Setup {
            wire,
            ..Setup::default()
        },
    )
    .await
}

/// The output the model received for `call_id` in request `index`, in the wire's own shape.
fn tool_output(h: &Harness, wire: WireApi, index: usize, call_id: &str) -> String {
    let body = h.server.requests()[index].json();
    let found = match wire {
        WireApi::Chat => body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
            .map(|m| m["content"].clone()),
        WireApi::Responses => body["input"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["type"] == "function_call_output" && i["call_id"] == call_id)
            .map(|i| i["output"].clone()),
        WireApi::Anthropic => body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == call_id)
            .map(|b| b["content"].clone()),
    };
    found
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("{wire:?}: no output for {call_id} in request {index}: {body}"))
}

fn stream_errors(events: &[EventMsg]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            EventMsg::StreamError { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

fn final_message(events: &[EventMsg]) -> Option<String> {
    match events.last() {
        Some(EventMsg::TaskComplete { last_agent_message }) => last_agent_message.clone(),
        other => panic!("task did not complete: {other:?}"),
    }
}

fn final_error(events: &[EventMsg]) -> String {
    match events.last() {
        Some(EventMsg::Error { message }) => message.clone(),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[tokio::test]
async fn update_plan_round_trip_over_every_wire_format() {
    for wire in WIRES {
        let mut h = start(
            wire,
            vec![
                calls(wire, &[("call_plan", "update_plan", plan_args())]),
                text(wire, "Plan is in place."),
            ],
        )
        .await;
        let events = h.run("make a plan").await;
        assert_eq!(
            count(&events, |e| matches!(e, EventMsg::PlanUpdate(_))),
            1,
            "{wire:?}: {events:?}"
        );
        assert_eq!(final_message(&events).as_deref(), Some("Plan is in place."));
        assert_eq!(tool_output(&h, wire, 1, "call_plan"), "Plan updated");
        let requests = h.server.requests();
        assert_eq!(requests.len(), 2, "{wire:?}");
        let path = match wire {
            WireApi::Chat => "/v1/chat/completions",
            WireApi::Responses => "/v1/responses",
            WireApi::Anthropic => "/v1/messages",
        };
        assert_eq!(requests[0].path, path);
        if wire == WireApi::Anthropic {
            assert_eq!(requests[0].header("anthropic-version"), Some("2023-06-01"));
        }
        h.server.assert_no_violations();
    }
}

#[tokio::test]
async fn server_error_then_success() {
    for wire in WIRES {
        let mut h = start(
            wire,
            vec![
                MockResponse::error(500, r#"{"error":{"message":"boom"}}"#),
                text(wire, "Recovered."),
            ],
        )
        .await;
        let events = h.run("hi").await;
        assert_eq!(stream_errors(&events).len(), 1, "{wire:?}");
        assert_eq!(final_message(&events).as_deref(), Some("Recovered."));
        assert_eq!(h.server.requests().len(), 2);
    }
}

#[tokio::test]
async fn rate_limit_waits_as_long_as_retry_after_says() {
    for wire in WIRES {
        let mut h = start(
            wire,
            vec![
                MockResponse::error(429, r#"{"error":{"message":"slow down"}}"#)
                    .with_header("retry-after", "1"),
                text(wire, "Recovered."),
            ],
        )
        .await;
        let events = h.run("hi").await;
        let retries = stream_errors(&events);
        assert_eq!(retries.len(), 1, "{wire:?}");
        assert!(retries[0].contains("429"), "{}", retries[0]);
        assert!(retries[0].contains("(in 1.0s)"), "{}", retries[0]);
        assert_eq!(final_message(&events).as_deref(), Some("Recovered."));
    }
}

#[tokio::test]
async fn stream_cut_mid_tool_arguments_runs_the_tool_once() {
    for wire in WIRES {
        let full = calls(wire, &[("call_plan", "update_plan", plan_args())]);
        // Cut after the first argument fragment: the call has started but is not complete.
        let fragment = full
            .chunks
            .iter()
            .position(|c| {
                let data = String::from_utf8_lossy(&c.data);
                data.contains("Read the") || data.contains("\\\"plan")
            })
            .expect("an argument fragment");
        let mut h = start(
            wire,
            vec![
                full.clone().cut_after(fragment + 1),
                full,
                text(wire, "done"),
            ],
        )
        .await;
        let events = h.run("go").await;
        assert_eq!(
            count(&events, |e| matches!(e, EventMsg::ToolCallBegin { .. })),
            1,
            "{wire:?}: {events:?}"
        );
        assert_eq!(count(&events, |e| matches!(e, EventMsg::PlanUpdate(_))), 1);
        assert_eq!(stream_errors(&events).len(), 1);
        assert_eq!(h.server.requests().len(), 3);
        h.server.assert_no_violations();
    }
}

#[tokio::test]
async fn stall_past_the_idle_timeout_is_retried() {
    for wire in WIRES {
        let events = text_events(wire, "This answer stalls");
        let stalled = MockResponse::sse(events.into_iter().take(3)).stall(Duration::from_secs(30));
        let mut h = start_with(
            vec![stalled, text(wire, "Recovered.")],
            Setup {
                wire,
                idle_timeout: Some(Duration::from_millis(300)),
                ..Setup::default()
            },
        )
        .await;
        let events = h.run("hi").await;
        let retries = stream_errors(&events);
        assert_eq!(retries.len(), 1, "{wire:?}: {events:?}");
        assert!(retries[0].contains("sent nothing for"), "{}", retries[0]);
        assert_eq!(final_message(&events).as_deref(), Some("Recovered."));
    }
}

#[tokio::test]
async fn unauthorized_is_final_and_names_the_fix() {
    for wire in WIRES {
        let mut h = start(
            wire,
            vec![MockResponse::error(
                401,
                r#"{"error":{"message":"invalid x-api-key"}}"#,
            )],
        )
        .await;
        let events = h.run("hi").await;
        let message = final_error(&events);
        assert!(message.contains("401 Unauthorized"), "{message}");
        assert!(stream_errors(&events).is_empty());
        assert_eq!(h.server.requests().len(), 1, "{wire:?}");
    }
}

#[tokio::test]
async fn html_error_page_from_a_proxy_is_summarised_and_retried() {
    for wire in WIRES {
        let page = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>";
        let mut h = start(
            wire,
            vec![MockResponse::error(502, page), text(wire, "Recovered.")],
        )
        .await;
        let events = h.run("hi").await;
        let retries = stream_errors(&events);
        assert_eq!(retries.len(), 1, "{wire:?}");
        assert!(retries[0].contains("HTML page"), "{}", retries[0]);
        assert!(!retries[0].contains("<html>"), "{}", retries[0]);
        assert_eq!(final_message(&events).as_deref(), Some("Recovered."));
    }
}

#[tokio::test]
async fn ten_megabyte_line_is_streamed_through() {
    let big = "x".repeat(10 * 1024 * 1024);
    for wire in WIRES {
        // One text delta carrying 10 MB: a single SSE line of that size.
        let events = text_events(wire, "A")
            .into_iter()
            .map(|mut event| {
                if let Ok(mut value) = serde_json::from_str::<Value>(&event.data) {
                    let is_delta = value["type"] != "response.output_text.done";
                    for pointer in ["/choices/0/delta/content", "/delta", "/delta/text"] {
                        if let Some(slot) = value.pointer_mut(pointer)
                            && *slot == "A"
                            && is_delta
                        {
                            *slot = json!(big);
                        }
                    }
                    event.data = value.to_string();
                }
                event
            })
            .collect::<Vec<_>>();
        assert!(events.iter().any(|e| e.data.len() > big.len()), "{wire:?}");
        let mut h = start(wire, vec![MockResponse::sse(events)]).await;
        let events = h.run("hi").await;
        let longest = events
            .iter()
            .filter_map(|e| match e {
                EventMsg::AgentMessageDelta { delta } => Some(delta.len()),
                _ => None,
            })
            .max();
        assert_eq!(longest, Some(big.len()), "{wire:?}");
        assert!(matches!(events.last(), Some(EventMsg::TaskComplete { .. })));
    }
}

#[tokio::test]
async fn errors_inside_the_stream_are_classified() {
    // Overloaded mid-stream: retried.
    let mut h = start(
        WireApi::Anthropic,
        vec![
            MockResponse::sse(vec![anthropic::error("overloaded_error", "Overloaded")]),
            text(WireApi::Anthropic, "Recovered."),
        ],
    )
    .await;
    let events = h.run("hi").await;
    assert_eq!(stream_errors(&events).len(), 1);
    assert_eq!(final_message(&events).as_deref(), Some("Recovered."));

    let mut h = start(
        WireApi::Responses,
        vec![
            MockResponse::sse(responses::failed("server_error", "try later")),
            text(WireApi::Responses, "Recovered."),
        ],
    )
    .await;
    let events = h.run("hi").await;
    assert_eq!(stream_errors(&events).len(), 1);
    assert_eq!(final_message(&events).as_deref(), Some("Recovered."));

    // Context window exceeded: never retried as it is; compacted and sent once more, and
    // reported as such when it still does not fit.
    let exceeded = || {
        MockResponse::sse(responses::failed(
            "context_length_exceeded",
            "Your input exceeds the context window of this model.",
        ))
    };
    let mut h = start(
        WireApi::Responses,
        vec![exceeded(), text(WireApi::Responses, "Summary."), exceeded()],
    )
    .await;
    let events = h.run("hi").await;
    let error = final_error(&events);
    assert!(error.contains("context window"), "{error}");
    assert!(error.contains("still does not fit"), "{error}");
    assert_eq!(h.server.requests().len(), 3);

    // Out of quota: final.
    let mut h = start(
        WireApi::Chat,
        vec![MockResponse::error(
            429,
            r#"{"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}}"#,
        )],
    )
    .await;
    let events = h.run("hi").await;
    assert!(final_error(&events).contains("out of quota"));
    assert_eq!(h.server.requests().len(), 1);
}

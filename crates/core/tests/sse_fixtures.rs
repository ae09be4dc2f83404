//! Recorded-style streams of each wire format, decoded the way a live response is: whole,
//! split at every byte boundary, one byte at a time, and with CRLF or CR line endings. The
//! same events must come out every time, and a stream cut short must never complete.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use cairn_core::client::anthropic::AnthropicDecoder;
use cairn_core::client::chat_completions::ChatDecoder;
use cairn_core::client::responses::ResponsesDecoder;
use cairn_core::client::sse::{SseDecoder, decode_chunks};
use cairn_core::client::{ClientError, ResponseEvent, Usage};
use cairn_core::history::ResponseItem;
use serde_json::json;
use std::time::Duration;

const CHAT: &str = include_str!("fixtures/chat_tool_call.sse");
const RESPONSES: &str = include_str!("fixtures/responses_tool_call.sse");
const ANTHROPIC: &str = include_str!("fixtures/anthropic_tool_use.sse");

const TEXT: &str = "Caf\u{e9} \u{2615} \u{8a08}\u{753b} ready \u{1f600}\n";
const ARGS: &str = r#"{"plan":[{"step":"Read é","status":"in_progress"}]}"#;

fn usage() -> ResponseEvent {
    ResponseEvent::Completed {
        usage: Some(Usage {
            input_tokens: 120,
            output_tokens: 31,
        }),
    }
}

fn text_deltas() -> [ResponseEvent; 2] {
    [
        ResponseEvent::OutputTextDelta("Caf\u{e9} \u{2615} \u{8a08}\u{753b}".into()),
        ResponseEvent::OutputTextDelta(" ready \u{1f600}\n".into()),
    ]
}

fn call(id: &str) -> ResponseEvent {
    ResponseEvent::OutputItemDone(ResponseItem::FunctionCall {
        call_id: id.into(),
        name: "update_plan".into(),
        arguments: ARGS.into(),
    })
}

fn done(item: ResponseItem) -> ResponseEvent {
    ResponseEvent::OutputItemDone(item)
}

fn chat_expected() -> Vec<ResponseEvent> {
    let mut events = vec![ResponseEvent::ReasoningDelta("Plan first.".into())];
    events.extend(text_deltas());
    events.extend([
        done(ResponseItem::Reasoning {
            text: "Plan first.".into(),
            provider_data: None,
        }),
        done(ResponseItem::assistant(TEXT)),
        call("call_plan"),
        usage(),
    ]);
    events
}

fn responses_expected() -> Vec<ResponseEvent> {
    let mut events = vec![
        ResponseEvent::ReasoningDelta("**Planning** the work".into()),
        ResponseEvent::ReasoningDelta("\n\n".into()),
        ResponseEvent::ReasoningDelta("Then act.".into()),
        done(ResponseItem::Reasoning {
            text: "**Planning** the work\n\nThen act.".into(),
            provider_data: Some(json!({
                "format": "responses",
                "id": "rs_1",
                "summary": [
                    {"type": "summary_text", "text": "**Planning** the work"},
                    {"type": "summary_text", "text": "Then act."},
                ],
                "encrypted_content": "gAAAAB-opaque==",
            })),
        }),
    ];
    events.extend(text_deltas());
    events.extend([
        done(ResponseItem::assistant(TEXT)),
        call("call_plan"),
        usage(),
    ]);
    events
}

fn anthropic_expected() -> Vec<ResponseEvent> {
    let mut events = vec![
        ResponseEvent::ReasoningDelta("Plan first.".into()),
        done(ResponseItem::Reasoning {
            text: "Plan first.".into(),
            provider_data: Some(json!({
                "format": "anthropic",
                "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h",
            })),
        }),
    ];
    events.extend(text_deltas());
    events.extend([
        done(ResponseItem::assistant(TEXT)),
        call("toolu_plan"),
        usage(),
    ]);
    events
}

async fn run<D: SseDecoder>(
    chunks: Vec<Vec<u8>>,
    decoder: fn() -> D,
) -> Vec<Result<ResponseEvent, ClientError>> {
    decode_chunks(chunks, decoder()).await
}

async fn ok_events<D: SseDecoder>(chunks: Vec<Vec<u8>>, decoder: fn() -> D) -> Vec<ResponseEvent> {
    run(chunks, decoder)
        .await
        .into_iter()
        .map(|e| e.expect("no error"))
        .collect()
}

/// Whole, split at every byte, one byte per chunk, and with other line endings.
async fn decodes_the_same_however_chunked<D: SseDecoder>(
    text: &str,
    decoder: fn() -> D,
    expected: Vec<ResponseEvent>,
) {
    let crlf = text.replace('\n', "\r\n");
    let cr = text.replace('\n', "\r");
    for (name, variant) in [("LF", text), ("CRLF", crlf.as_str())] {
        let bytes = variant.as_bytes();
        for split in 0..=bytes.len() {
            let chunks = vec![bytes[..split].to_vec(), bytes[split..].to_vec()];
            assert_eq!(
                ok_events(chunks, decoder).await,
                expected,
                "{name}, split at byte {split}"
            );
        }
    }
    for (name, variant) in [("LF", text), ("CRLF", crlf.as_str()), ("CR", cr.as_str())] {
        let bytewise = variant.bytes().map(|b| vec![b]).collect();
        assert_eq!(
            ok_events(bytewise, decoder).await,
            expected,
            "{name}, one byte per chunk"
        );
    }
}

/// Every prefix of the stream either completes with the full set of items or ends in
/// `Incomplete` without completing: a cut stream never hands on a half-built tool call.
async fn truncation_never_completes<D: SseDecoder>(
    text: &str,
    decoder: fn() -> D,
    expected: Vec<ResponseEvent>,
    completion_marker: &str,
) {
    let items: Vec<_> = expected
        .iter()
        .filter(|e| matches!(e, ResponseEvent::OutputItemDone(_)))
        .cloned()
        .collect();
    let must_fail_before = text.find(completion_marker).expect("marker in fixture");
    for cut in 0..text.len() {
        let events = run(vec![text.as_bytes()[..cut].to_vec()], decoder).await;
        let completed = events
            .iter()
            .any(|e| matches!(e, Ok(ResponseEvent::Completed { .. })));
        if completed {
            assert!(cut >= must_fail_before, "completed when cut at {cut}");
            let got: Vec<_> = events
                .into_iter()
                .filter_map(|e| match e {
                    Ok(ev @ ResponseEvent::OutputItemDone(_)) => Some(ev),
                    _ => None,
                })
                .collect();
            assert_eq!(got, items, "cut at {cut}");
        } else {
            assert_eq!(
                events.last(),
                Some(&Err(ClientError::Incomplete)),
                "cut at {cut}"
            );
        }
    }
}

#[tokio::test]
async fn chat_fixture_decodes_the_same_however_chunked() {
    decodes_the_same_however_chunked(CHAT, ChatDecoder::default, chat_expected()).await;
}

#[tokio::test]
async fn responses_fixture_decodes_the_same_however_chunked() {
    decodes_the_same_however_chunked(RESPONSES, ResponsesDecoder::default, responses_expected())
        .await;
}

#[tokio::test]
async fn anthropic_fixture_decodes_the_same_however_chunked() {
    decodes_the_same_however_chunked(ANTHROPIC, AnthropicDecoder::default, anthropic_expected())
        .await;
}

#[tokio::test]
async fn cut_streams_never_complete() {
    truncation_never_completes(
        CHAT,
        ChatDecoder::default,
        chat_expected(),
        "\"finish_reason\":\"tool_calls\"",
    )
    .await;
    truncation_never_completes(
        RESPONSES,
        ResponsesDecoder::default,
        responses_expected(),
        "event: response.completed",
    )
    .await;
    truncation_never_completes(
        ANTHROPIC,
        AnthropicDecoder::default,
        anthropic_expected(),
        "event: message_stop",
    )
    .await;
}

async fn last_error<D: SseDecoder>(text: &str, decoder: fn() -> D) -> ClientError {
    match run(vec![text.as_bytes().to_vec()], decoder).await.pop() {
        Some(Err(err)) => err,
        other => panic!("expected an error, got {other:?}"),
    }
}

#[tokio::test]
async fn responses_failures_are_classified_by_code() {
    let failed = |code: &str, message: &str| {
        format!(
            "event: response.created\ndata: {{\"type\":\"response.created\",\"response\":{{}}}}\n\n\
             event: response.failed\ndata: {}\n\n",
            json!({"type": "response.failed", "response": {"status": "failed",
                   "error": {"code": code, "message": message}}})
        )
    };
    let err = last_error(
        &failed(
            "context_length_exceeded",
            "Your input exceeds the context window",
        ),
        ResponsesDecoder::default,
    )
    .await;
    assert_eq!(err, ClientError::ContextLengthExceeded);

    let err = last_error(
        &failed("insufficient_quota", "You exceeded your current quota"),
        ResponsesDecoder::default,
    )
    .await;
    assert!(!err.is_retryable(), "{err}");

    let err = last_error(&failed("server_error", "oops"), ResponsesDecoder::default).await;
    assert!(err.is_retryable(), "{err}");

    let rate_limited = "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached. Please try again in 2.5s.\",\"param\":null}\n\n";
    let err = last_error(rate_limited, ResponsesDecoder::default).await;
    assert!(err.is_retryable());
    assert_eq!(err.retry_after(), Some(Duration::from_millis(2500)));

    let incomplete = "data: {\"type\":\"response.incomplete\",\"response\":{\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}\n\n";
    let err = last_error(incomplete, ResponsesDecoder::default).await;
    assert!(!err.is_retryable());
    assert!(err.to_string().contains("output token limit"), "{err}");
}

#[tokio::test]
async fn anthropic_errors_are_classified_by_type() {
    let error = |kind: &str, message: &str| {
        format!(
            "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"usage\":{{\"input_tokens\":1}}}}}}\n\n\
             event: error\ndata: {}\n\n",
            json!({"type": "error", "error": {"type": kind, "message": message}})
        )
    };
    let err = last_error(
        &error("overloaded_error", "Overloaded"),
        AnthropicDecoder::default,
    )
    .await;
    assert!(err.is_retryable());
    assert!(err.to_string().contains("overloaded"), "{err}");
    let err = last_error(
        &error(
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000 maximum",
        ),
        AnthropicDecoder::default,
    )
    .await;
    assert_eq!(err, ClientError::ContextLengthExceeded);
    let err = last_error(
        &error("invalid_request_error", "messages: bad"),
        AnthropicDecoder::default,
    )
    .await;
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn chat_error_chunk_is_reported() {
    let text = "data: {\"error\":{\"message\":\"model overloaded\",\"type\":\"server_error\"}}\n\n";
    let err = last_error(text, ChatDecoder::default).await;
    assert!(err.is_retryable());
    assert!(err.to_string().contains("model overloaded"), "{err}");
}

#[tokio::test]
async fn a_malformed_event_we_act_on_is_a_protocol_error() {
    let text = "data: {\"type\":\"response.output_text.delta\",\"delta\":{\"not\":\"text\"}}\n\n";
    let err = last_error(text, ResponsesDecoder::default).await;
    assert!(matches!(err, ClientError::Protocol(_)), "{err}");
    let text = "data: {\"choices\":[{\"delta\":{\"content\":\"cut\n\n";
    let err = last_error(text, ChatDecoder::default).await;
    assert!(matches!(err, ClientError::Protocol(_)), "{err}");
}

#[tokio::test]
async fn ten_megabyte_tool_arguments_in_one_line() {
    let big = "x".repeat(10 * 1024 * 1024);
    let args = json!({"content": big}).to_string();
    let text = format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "write_file", "arguments": args}}]}}]}),
        json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
    );
    let chunks: Vec<Vec<u8>> = text
        .as_bytes()
        .chunks(16 * 1024)
        .map(<[u8]>::to_vec)
        .collect();
    let events = ok_events(chunks, ChatDecoder::default).await;
    assert!(matches!(
        &events[0],
        ResponseEvent::OutputItemDone(ResponseItem::FunctionCall { arguments, .. }) if *arguments == args
    ));
}

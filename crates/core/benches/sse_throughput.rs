//! SSE parsing throughput per wire format: a large synthetic recorded stream (text, reasoning
//! and tool-call deltas in the proportions of a coding session) fed in 16 KiB chunks through
//! the same decode path a live response takes. Target: >= 200 MB/s for every format.
//!
//! Run: `cargo bench -p cairn-core --bench sse_throughput`

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use cairn_core::client::ResponseEvent;
use cairn_core::client::anthropic::AnthropicDecoder;
use cairn_core::client::chat_completions::ChatDecoder;
use cairn_core::client::responses::ResponsesDecoder;
use cairn_core::client::sse::{SseDecoder, decode_chunks};
use serde_json::json;
use std::time::{Duration, Instant};

const TARGET_BYTES: usize = 32 * 1024 * 1024;
const CHUNK: usize = 16 * 1024;
const WORDS: &[&str] = &[
    " the",
    " plan",
    " café",
    " step",
    "\n",
    " `cargo test`",
    " 計画",
    " is",
    " done.",
    " \"quoted\"",
];

/// Deltas in session-like proportions: 6 text, 2 reasoning, 2 tool-argument fragments.
fn fragments() -> impl Iterator<Item = (u8, String)> {
    (0usize..).map(|i| {
        let word = WORDS[i % WORDS.len()].to_string();
        let kind = match i % 10 {
            0..=5 => 0,
            6 | 7 => 1,
            _ => 2,
        };
        (kind, word)
    })
}

fn chat_stream() -> String {
    let mut out = String::new();
    for (kind, word) in fragments() {
        if out.len() > TARGET_BYTES {
            break;
        }
        let delta = match kind {
            0 => json!({"content": word}),
            1 => json!({"reasoning_content": word}),
            _ => json!({"tool_calls": [{"index": 0, "function": {"arguments": word}}]}),
        };
        let chunk = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-5.1", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
        out.push_str(&format!("data: {chunk}\n\n"));
    }
    out.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
    out.push_str("data: [DONE]\n\n");
    out
}

fn responses_stream() -> String {
    let mut out = String::new();
    for (seq, (kind, word)) in fragments().enumerate() {
        if out.len() > TARGET_BYTES {
            break;
        }
        let (name, event) = match kind {
            0 => (
                "response.output_text.delta",
                json!({"type": "response.output_text.delta",
                "sequence_number": seq, "item_id": "msg_1", "output_index": 1,
                "content_index": 0, "delta": word, "logprobs": []}),
            ),
            1 => (
                "response.reasoning_summary_text.delta",
                json!({
                "type": "response.reasoning_summary_text.delta", "sequence_number": seq,
                "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": word}),
            ),
            _ => (
                "response.function_call_arguments.delta",
                json!({
                "type": "response.function_call_arguments.delta", "sequence_number": seq,
                "item_id": "fc_1", "output_index": 2, "delta": word}),
            ),
        };
        out.push_str(&format!("event: {name}\ndata: {event}\n\n"));
    }
    out.push_str("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}}\n\n");
    out
}

fn anthropic_stream() -> String {
    let mut out = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n",
    );
    let starts = [
        json!({"type": "text", "text": ""}),
        json!({"type": "thinking", "thinking": "", "signature": ""}),
        json!({"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}),
    ];
    for (index, start) in starts.iter().enumerate() {
        out.push_str(&format!(
            "event: content_block_start\ndata: {}\n\n",
            json!({"type": "content_block_start", "index": index, "content_block": start})
        ));
    }
    for (kind, word) in fragments() {
        if out.len() > TARGET_BYTES {
            break;
        }
        let delta = match kind {
            0 => json!({"type": "text_delta", "text": word}),
            1 => json!({"type": "thinking_delta", "thinking": word}),
            _ => json!({"type": "input_json_delta", "partial_json": word}),
        };
        let event = json!({"type": "content_block_delta", "index": kind, "delta": delta});
        out.push_str(&format!("event: content_block_delta\ndata: {event}\n\n"));
    }
    for index in 0..3 {
        out.push_str(&format!("event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":{index}}}\n\n"));
    }
    out.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    out
}

fn measure<D: SseDecoder>(name: &str, text: &str, decoder: fn() -> D) -> f64 {
    let bytes = Bytes::from(text.to_string());
    let chunks: Vec<Bytes> = (0..bytes.len())
        .step_by(CHUNK)
        .map(|start| bytes.slice(start..(start + CHUNK).min(bytes.len())))
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut best = Duration::MAX;
    let mut events = 0;
    for _ in 0..7 {
        let chunks = chunks.clone();
        let started = Instant::now();
        let decoded = runtime.block_on(decode_chunks(chunks, decoder()));
        best = best.min(started.elapsed());
        assert!(
            matches!(decoded.last(), Some(Ok(ResponseEvent::Completed { .. }))),
            "{name}: stream did not complete: {:?}",
            decoded.last()
        );
        events = decoded.len();
    }
    let mb_per_s = bytes.len() as f64 / 1e6 / best.as_secs_f64();
    println!(
        "{name:<10} {:>6.1} MB in {:>7.2} ms ({events} events): {mb_per_s:>7.1} MB/s",
        bytes.len() as f64 / 1e6,
        best.as_secs_f64() * 1e3,
    );
    mb_per_s
}

fn main() {
    println!(
        "SSE parsing throughput, best of 7, {} KiB chunks",
        CHUNK / 1024
    );
    let results = [
        measure("chat", &chat_stream(), ChatDecoder::default),
        measure("responses", &responses_stream(), ResponsesDecoder::default),
        measure("anthropic", &anthropic_stream(), AnthropicDecoder::default),
    ];
    if results.iter().any(|&r| r < 200.0) {
        println!("below the 200 MB/s target");
    }
}

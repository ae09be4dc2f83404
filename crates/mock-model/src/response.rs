//! What the server answers to one request: status, headers, a body in timed chunks, a fault.

use bytes::Bytes;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// A latch a test opens to release gated chunks ([`MockResponse::chunk_gated`]). It lets a
/// test hold a stream at an exact point (say, after the first delta) without timing, then
/// let it continue. Clones share one latch; once opened it stays open.
#[derive(Clone)]
pub struct Gate {
    open: Arc<watch::Sender<bool>>,
}

impl Gate {
    /// A closed gate.
    pub fn new() -> Self {
        Self {
            open: Arc::new(watch::Sender::new(false)),
        }
    }

    /// Opens the gate: every chunk waiting on it (now or later) is written.
    pub fn open(&self) {
        self.open.send_replace(true);
    }

    /// Whether [`Gate::open`] has been called.
    pub fn is_open(&self) -> bool {
        *self.open.borrow()
    }

    /// Waits until the gate is open.
    pub(crate) async fn wait(&self) {
        let mut rx = self.open.subscribe();
        // The sender lives in `self`, so `wait_for` can only end by seeing `true`.
        let _ = rx.wait_for(|open| *open).await;
    }
}

impl Default for Gate {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("open", &self.is_open())
            .finish()
    }
}

impl PartialEq for Gate {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.open, &other.open)
    }
}

impl Eq for Gate {}

/// One server-sent event: an optional `event:` name and its `data:` payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `None` for data-only events (Chat Completions sends only data).
    pub event: Option<String>,
    /// The `data:` payload, usually one line of JSON (or `[DONE]`).
    pub data: String,
}

impl SseEvent {
    /// A data-only event (`data: ...`).
    pub fn data(data: impl Into<String>) -> Self {
        Self {
            event: None,
            data: data.into(),
        }
    }

    /// A named event (`event: name` then `data: ...`).
    pub fn named(event: impl Into<String>, data: impl Into<String>) -> Self {
        Self {
            event: Some(event.into()),
            data: data.into(),
        }
    }

    /// The event as it goes on the wire, ending with the blank line that terminates it.
    pub fn to_frame(&self) -> String {
        let mut frame = String::with_capacity(self.data.len() + 32);
        if let Some(event) = &self.event {
            frame.push_str("event: ");
            frame.push_str(event);
            frame.push('\n');
        }
        // A payload with newlines becomes several `data:` lines, which SSE joins back with '\n'.
        for line in self.data.split('\n') {
            frame.push_str("data: ");
            frame.push_str(line);
            frame.push('\n');
        }
        frame.push('\n');
        frame
    }
}

/// One piece of a response body, written after waiting `delay` (and its gate, if any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// How long to wait before writing this chunk.
    pub delay: Duration,
    /// A gate that must be open before this chunk is written (checked after the delay).
    pub gate: Option<Gate>,
    /// The bytes written (flushed to the socket as one HTTP chunk).
    pub data: Bytes,
}

/// How a response misbehaves after its chunks have been written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Abort the connection without finishing the body: the client sees a transport error
    /// (an incomplete chunked body), never a clean end of stream.
    Cut,
    /// Write nothing for the given time, then abort as with [`Fault::Cut`]. Lets a client's
    /// idle timeout fire; use [`Duration::MAX`] to stall until the server is dropped.
    Stall(Duration),
    /// Close the connection without sending any response (no status, no headers): what a
    /// client sees when a server or proxy drops it before answering. Chunks are ignored.
    Disconnect,
}

/// One scripted answer. Build with [`MockResponse::sse`], [`MockResponse::error`],
/// [`MockResponse::new`] + [`MockResponse::chunk`], then adjust with the `with_*` methods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockResponse {
    /// HTTP status code.
    pub status: u16,
    /// Response headers in order (names as given).
    pub headers: Vec<(String, String)>,
    /// The body, written chunk by chunk with each chunk's delay before it.
    pub chunks: Vec<Chunk>,
    /// What goes wrong after the chunks, if anything.
    pub fault: Option<Fault>,
}

impl MockResponse {
    /// An empty response with `status` and no headers.
    pub fn new(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            chunks: Vec::new(),
            fault: None,
        }
    }

    /// A `200 text/event-stream` response writing each event as its own chunk.
    pub fn sse(events: impl IntoIterator<Item = SseEvent>) -> Self {
        let mut response = Self::new(200)
            .with_header("content-type", "text/event-stream")
            .with_header("cache-control", "no-cache");
        for event in events {
            response = response.chunk(event.to_frame());
        }
        response
    }

    /// An error answer: `status` with `body` as one chunk. A body that starts with `{` or `[`
    /// is sent as `application/json`, anything else as `text/plain`.
    pub fn error(status: u16, body: impl Into<String>) -> Self {
        let body = body.into();
        let content_type = if body.trim_start().starts_with(['{', '[']) {
            "application/json"
        } else {
            "text/plain; charset=utf-8"
        };
        Self::new(status)
            .with_header("content-type", content_type)
            .chunk(body)
    }

    /// Appends a header.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Appends a body chunk written without delay.
    pub fn chunk(self, data: impl Into<Bytes>) -> Self {
        self.chunk_after(Duration::ZERO, data)
    }

    /// Appends a body chunk written after waiting `delay`.
    pub fn chunk_after(mut self, delay: Duration, data: impl Into<Bytes>) -> Self {
        self.chunks.push(Chunk {
            delay,
            gate: None,
            data: data.into(),
        });
        self
    }

    /// Appends a body chunk written only once `gate` is open.
    pub fn chunk_gated(mut self, gate: &Gate, data: impl Into<Bytes>) -> Self {
        self.chunks.push(Chunk {
            delay: Duration::ZERO,
            gate: Some(gate.clone()),
            data: data.into(),
        });
        self
    }

    /// Makes chunk `index` (0-based) and so everything after it wait for `gate`: the client
    /// receives exactly the first `index` chunks until the test opens the gate. An index past
    /// the end gates nothing.
    pub fn gate_at(mut self, index: usize, gate: &Gate) -> Self {
        if let Some(chunk) = self.chunks.get_mut(index) {
            chunk.gate = Some(gate.clone());
        }
        self
    }

    /// Sets the delay before every chunk to `delay` (a steady streaming pace).
    pub fn with_chunk_delay(mut self, delay: Duration) -> Self {
        for chunk in &mut self.chunks {
            chunk.delay = delay;
        }
        self
    }

    /// Keeps only the first `n` chunks and then aborts the connection: a stream that dies
    /// part way, as when a proxy drops it.
    pub fn cut_after(mut self, n: usize) -> Self {
        self.chunks.truncate(n);
        self.cut()
    }

    /// Aborts the connection after the chunks instead of ending the body cleanly.
    pub fn cut(mut self) -> Self {
        self.fault = Some(Fault::Cut);
        self
    }

    /// After the chunks, writes nothing for `duration`, then aborts the connection.
    pub fn stall(mut self, duration: Duration) -> Self {
        self.fault = Some(Fault::Stall(duration));
        self
    }

    /// Closes the connection without answering at all (see [`Fault::Disconnect`]).
    pub fn disconnect(mut self) -> Self {
        self.fault = Some(Fault::Disconnect);
        self
    }

    /// The body as one string (all chunks joined, lossily decoded), for assertions.
    pub fn body_text(&self) -> String {
        let bytes: Vec<u8> = self
            .chunks
            .iter()
            .flat_map(|c| c.data.iter().copied())
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Splits `text` into up to `pieces` non-empty parts on char boundaries, so builders stream
/// a text as several deltas the way real servers do.
pub(crate) fn split_pieces(text: &str, pieces: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let pieces = pieces.clamp(1, chars.len());
    let size = chars.len().div_ceil(pieces);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_event_frame_has_event_and_data_lines() {
        let frame = SseEvent::named("ping", "{\"type\":\"ping\"}").to_frame();
        assert_eq!(frame, "event: ping\ndata: {\"type\":\"ping\"}\n\n");
    }

    #[test]
    fn multi_line_data_becomes_several_data_lines() {
        assert_eq!(SseEvent::data("a\nb").to_frame(), "data: a\ndata: b\n\n");
    }

    #[test]
    fn split_pieces_keeps_text_and_char_boundaries() {
        let parts = split_pieces("héllo wörld", 3);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.concat(), "héllo wörld");
        assert_eq!(split_pieces("ab", 5), vec!["a", "b"]);
        assert!(split_pieces("", 3).is_empty());
    }

    #[test]
    fn error_body_content_type_follows_body() {
        let json = MockResponse::error(429, "{\"error\":{}}");
        assert!(
            json.headers
                .contains(&("content-type".to_string(), "application/json".to_string()))
        );
        let text = MockResponse::error(502, "bad gateway");
        assert_eq!(text.body_text(), "bad gateway");
        assert!(text.headers[0].1.starts_with("text/plain"));
    }
}

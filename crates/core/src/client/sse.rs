//! Server-sent events: bytes -> SSE events ([`SseParser`]) -> [`ResponseEvent`]s.
//!
//! Each wire format supplies an [`SseDecoder`], a small state machine fed one SSE event at a
//! time. Keeping the decoders free of I/O lets tests feed recorded streams split at every byte
//! boundary and benchmarks measure parsing alone.
//!
//! The line parser is cairn's own rather than a generic crate's: it works on bytes (so UTF-8
//! split across chunks needs no special case), looks at every byte once however the stream is
//! chunked (a 10 MB line arriving in 16 KB pieces stays linear), and reuses its buffers, so an
//! event costs no allocation before the decoder sees it.

use super::{ClientError, ResponseEvent, ResponseStream};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use std::borrow::Cow;
use std::collections::VecDeque;
use std::time::Duration;

/// The largest event accepted. A tool call writing a big file can legitimately produce
/// megabytes of arguments in one line; anything past this is a broken or hostile server.
pub const MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// One SSE event as the decoders see it. Borrows the parser's buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// The `event:` field (`message` when absent).
    pub event: &'a str,
    /// The `data:` lines joined with `\n`.
    pub data: &'a str,
}

/// A wire format's stream state machine.
pub trait SseDecoder: Send + 'static {
    /// Handle one event, pushing whatever it completes onto `out`.
    fn on_event(
        &mut self,
        event: &SseEvent<'_>,
        out: &mut VecDeque<ResponseEvent>,
    ) -> Result<(), ClientError>;

    /// The byte stream ended. Return an error unless the response was complete
    /// (the decoder has already emitted [`ResponseEvent::Completed`]).
    fn on_end(&mut self, out: &mut VecDeque<ResponseEvent>) -> Result<(), ClientError>;
}

/// Incremental SSE parser (the WHATWG event-stream format): LF, CRLF or CR line endings,
/// `:` comments, multi-line `data:`, a leading byte-order mark.
#[derive(Debug, Default)]
pub struct SseParser {
    /// The unfinished last line of the previous chunk.
    line: Vec<u8>,
    event: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    /// The previous chunk ended in CR; an LF starting the next one belongs to it.
    skip_lf: bool,
    seen_first_line: bool,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parse `chunk`, calling `on_event` for every event it completes.
    pub fn feed<F>(&mut self, mut chunk: &[u8], on_event: &mut F) -> Result<(), ClientError>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), ClientError>,
    {
        loop {
            if self.skip_lf {
                match chunk.first() {
                    None => return Ok(()),
                    Some(b'\n') => chunk = &chunk[1..],
                    Some(_) => {}
                }
                self.skip_lf = false;
            }
            let Some(end) = memchr::memchr2(b'\n', b'\r', chunk) else {
                if self.line.len() + chunk.len() + self.data.len() > MAX_EVENT_BYTES {
                    return Err(too_large());
                }
                self.line.extend_from_slice(chunk);
                return Ok(());
            };
            self.skip_lf = chunk[end] == b'\r';
            if self.line.is_empty() {
                self.on_line(&chunk[..end], on_event)?;
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&chunk[..end]);
                let result = self.on_line(&line, on_event);
                line.clear();
                self.line = line;
                result?;
            }
            chunk = &chunk[end + 1..];
        }
    }

    /// The stream ended. An event missing only its closing blank line is dispatched (some
    /// servers close right after `data: [DONE]`); a line cut off mid-way is dropped.
    pub fn finish<F>(&mut self, on_event: &mut F) -> Result<(), ClientError>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), ClientError>,
    {
        self.line.clear();
        self.dispatch(on_event)
    }

    fn on_line<F>(&mut self, mut line: &[u8], on_event: &mut F) -> Result<(), ClientError>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), ClientError>,
    {
        if !self.seen_first_line {
            self.seen_first_line = true;
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch(on_event);
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                if self.data.len() + value.len() > MAX_EVENT_BYTES {
                    return Err(too_large());
                }
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            b"event" => {
                self.event.clear();
                self.event.extend_from_slice(value);
            }
            // `id` and `retry` serve browser reconnection, which cairn does not do.
            _ => {}
        }
        Ok(())
    }

    fn dispatch<F>(&mut self, on_event: &mut F) -> Result<(), ClientError>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), ClientError>,
    {
        if !self.has_data {
            self.event.clear();
            return Ok(());
        }
        let data = String::from_utf8_lossy(&self.data);
        let event = if self.event.is_empty() {
            Cow::Borrowed("message")
        } else {
            String::from_utf8_lossy(&self.event)
        };
        let result = on_event(SseEvent {
            event: &event,
            data: &data,
        });
        drop((data, event));
        self.data.clear();
        self.event.clear();
        self.has_data = false;
        result
    }
}

fn too_large() -> ClientError {
    ClientError::Protocol(format!(
        "a stream event is larger than {} MiB; the server or a proxy in between is misbehaving",
        MAX_EVENT_BYTES / (1024 * 1024)
    ))
}

/// Feeds parsed events to a decoder, ignoring everything after the response completed.
struct Pipeline<D> {
    parser: SseParser,
    decoder: D,
    pending: VecDeque<ResponseEvent>,
    completed: bool,
}

impl<D: SseDecoder> Pipeline<D> {
    fn new(decoder: D) -> Self {
        Self {
            parser: SseParser::new(),
            decoder,
            pending: VecDeque::new(),
            completed: false,
        }
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<(), ClientError> {
        let Self {
            parser,
            decoder,
            pending,
            completed,
        } = self;
        parser.feed(chunk, &mut |event| {
            forward(decoder, pending, completed, event)
        })
    }

    fn finish(&mut self) -> Result<(), ClientError> {
        let Self {
            parser,
            decoder,
            pending,
            completed,
        } = self;
        // An unterminated last event that does not parse was cut off, not malformed.
        parser
            .finish(&mut |event| forward(decoder, pending, completed, event))
            .map_err(|err| match err {
                ClientError::Protocol(_) => ClientError::Incomplete,
                other => other,
            })?;
        if *completed {
            return Ok(());
        }
        decoder.on_end(pending)
    }
}

fn forward<D: SseDecoder>(
    decoder: &mut D,
    pending: &mut VecDeque<ResponseEvent>,
    completed: &mut bool,
    event: SseEvent<'_>,
) -> Result<(), ClientError> {
    if *completed {
        return Ok(());
    }
    decoder.on_event(&event, pending)?;
    *completed = matches!(pending.back(), Some(ResponseEvent::Completed { .. }));
    Ok(())
}

/// Decode a byte stream with `decoder`, failing with [`ClientError::IdleTimeout`] when no bytes
/// arrive for `idle`.
pub fn decode<S, E, D>(bytes: S, decoder: D, idle: Duration) -> ResponseStream
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: std::fmt::Display + Send + 'static,
    D: SseDecoder,
{
    let state = State {
        bytes: Box::pin(bytes),
        pipeline: Pipeline::new(decoder),
        done: false,
    };
    Box::pin(futures::stream::unfold(state, move |mut st| async move {
        loop {
            if let Some(ev) = st.pipeline.pending.pop_front() {
                return Some((Ok(ev), st));
            }
            if st.done {
                return None;
            }
            let next = match tokio::time::timeout(idle, st.bytes.next()).await {
                Ok(next) => next,
                Err(_) => {
                    st.done = true;
                    return Some((Err(ClientError::IdleTimeout(idle)), st));
                }
            };
            let result = match next {
                Some(Ok(chunk)) => st.pipeline.feed(&chunk),
                Some(Err(err)) => Err(stream_error(&err)),
                None => {
                    st.done = true;
                    st.pipeline.finish()
                }
            };
            if let Err(err) = result {
                // Whatever this attempt produced is void; the session retries from scratch.
                st.done = true;
                st.pipeline.pending.clear();
                return Some((Err(err), st));
            }
            if st.pipeline.completed {
                st.done = true;
            }
        }
    }))
}

struct State<S, D> {
    bytes: std::pin::Pin<Box<S>>,
    pipeline: Pipeline<D>,
    done: bool,
}

fn stream_error<E: std::fmt::Display>(err: &E) -> ClientError {
    ClientError::Transport {
        message: format!("the model stream broke off: {err}"),
        retryable: true,
    }
}

/// Decode a complete in-memory SSE body (tests and benchmarks), split into the given chunks,
/// through the same path a live response takes.
pub async fn decode_chunks<I, B, D>(
    chunks: I,
    decoder: D,
) -> Vec<Result<ResponseEvent, ClientError>>
where
    I: IntoIterator<Item = B>,
    B: Into<Bytes>,
    D: SseDecoder,
{
    let chunks: Vec<Result<Bytes, std::io::Error>> =
        chunks.into_iter().map(|c| Ok(c.into())).collect();
    decode(
        futures::stream::iter(chunks),
        decoder,
        Duration::from_secs(3600),
    )
    .collect()
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(chunks: &[&[u8]]) -> Vec<(String, String)> {
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        let mut push = |e: SseEvent<'_>| {
            events.push((e.event.to_string(), e.data.to_string()));
            Ok(())
        };
        for chunk in chunks {
            parser.feed(chunk, &mut push).unwrap();
        }
        parser.finish(&mut push).unwrap();
        events
    }

    fn parse_split_everywhere(text: &[u8]) -> Vec<(String, String)> {
        let whole = parse(&[text]);
        for split in 0..=text.len() {
            assert_eq!(
                parse(&[&text[..split], &text[split..]]),
                whole,
                "split at byte {split}"
            );
        }
        let bytewise: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(parse(&bytewise), whole, "one byte per chunk");
        whole
    }

    fn ev(event: &str, data: &str) -> (String, String) {
        (event.to_string(), data.to_string())
    }

    #[test]
    fn line_endings_comments_and_multi_line_data() {
        let text = "\u{feff}: comment\r\nevent: a\r\ndata: one\r\ndata:two\r\n\r\n\
                    data: lf\n\n: ping\n\ndata: cr\r\rid: 7\nretry: 10\ndata: \u{e9}\u{1f600}\n\n";
        assert_eq!(
            parse_split_everywhere(text.as_bytes()),
            vec![
                ev("a", "one\ntwo"),
                ev("message", "lf"),
                ev("message", "cr"),
                ev("message", "\u{e9}\u{1f600}"),
            ]
        );
    }

    #[test]
    fn event_name_without_data_is_dropped_and_empty_data_is_kept() {
        let text = b"event: lonely\n\nevent: x\ndata\n\nfield-without-colon\n\n";
        assert_eq!(parse_split_everywhere(text), vec![ev("x", "")]);
    }

    #[test]
    fn complete_last_event_without_blank_line_is_dispatched_but_a_cut_line_is_not() {
        assert_eq!(parse(&[b"data: [DONE]\n"]), vec![ev("message", "[DONE]")]);
        assert_eq!(parse(&[b"data: {\"cut"]), vec![]);
    }

    #[test]
    fn long_line_across_many_chunks() {
        let payload = "x".repeat(1 << 20);
        let text = format!("data: {payload}\n\n");
        let chunks: Vec<&[u8]> = text.as_bytes().chunks(4096).collect();
        assert_eq!(parse(&chunks), vec![ev("message", &payload)]);
    }

    #[test]
    fn oversized_event_is_a_protocol_error() {
        let mut parser = SseParser::new();
        let chunk = vec![b'x'; 1024 * 1024];
        let mut ignore = |_: SseEvent<'_>| Ok(());
        parser.feed(b"data: ", &mut ignore).unwrap();
        let mut result = Ok(());
        for _ in 0..=MAX_EVENT_BYTES / chunk.len() {
            result = parser.feed(&chunk, &mut ignore);
            if result.is_err() {
                break;
            }
        }
        assert!(
            matches!(result, Err(ClientError::Protocol(ref m)) if m.contains("larger than 64 MiB"))
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        assert_eq!(
            parse(&[b"data: a\xFFb\n\n"]),
            vec![ev("message", "a\u{fffd}b")]
        );
    }
}

/// Just an event's `type`, for deciding whether an event that failed to parse matters.
#[derive(serde::Deserialize)]
struct Kind<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
}

/// Parse an event's JSON `data` into `T`. An event whose `type` is not in `handled` is skipped
/// (`Ok(None)`) even when it does not fit `T`: servers add event types over time, and an
/// unknown one must never break a stream.
pub(crate) fn parse_event<'a, T: serde::Deserialize<'a>>(
    data: &'a str,
    handled: &[&str],
) -> Result<Option<T>, ClientError> {
    match serde_json::from_str::<T>(data) {
        Ok(event) => Ok(Some(event)),
        Err(err) => match serde_json::from_str::<Kind<'_>>(data) {
            Ok(kind) if !handled.contains(&kind.kind.as_ref()) => Ok(None),
            _ => Err(ClientError::Protocol(format!("bad event JSON ({err})"))),
        },
    }
}

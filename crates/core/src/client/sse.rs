//! Server-sent events: bytes -> SSE events (eventsource-stream) -> [`ResponseEvent`]s.
//!
//! Each wire format supplies an [`SseDecoder`], a small state machine fed one SSE event at a
//! time. Keeping the decoders free of I/O lets tests feed recorded streams split at every byte
//! boundary and benchmarks measure parsing alone.

use super::{ClientError, ResponseEvent, ResponseStream};
use bytes::Bytes;
use eventsource_stream::Eventsource;
use futures::{Stream, StreamExt};
use std::collections::VecDeque;
use std::time::Duration;

/// One SSE event as the decoders see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (`message` when absent).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// A wire format's stream state machine.
pub trait SseDecoder: Send + 'static {
    /// Handle one event, pushing whatever it completes onto `out`.
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut VecDeque<ResponseEvent>,
    ) -> Result<(), ClientError>;

    /// The byte stream ended. Return an error unless the response was complete
    /// (the decoder has already emitted [`ResponseEvent::Completed`]).
    fn on_end(&mut self, out: &mut VecDeque<ResponseEvent>) -> Result<(), ClientError>;
}

/// Decode a byte stream with `decoder`, failing with [`ClientError::IdleTimeout`] when no bytes
/// arrive for `idle`.
pub fn decode<S, E, D>(bytes: S, decoder: D, idle: Duration) -> ResponseStream
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
    D: SseDecoder,
{
    let bytes = bytes.map(|r| r.map_err(|e| -> BoxError { Box::new(e) }));
    let events = bytes.eventsource();
    let state = State {
        events: Box::pin(events),
        decoder,
        pending: VecDeque::new(),
        done: false,
    };
    Box::pin(futures::stream::unfold(state, move |mut st| async move {
        loop {
            if let Some(ev) = st.pending.pop_front() {
                return Some((Ok(ev), st));
            }
            if st.done {
                return None;
            }
            let next = match tokio::time::timeout(idle, st.events.next()).await {
                Ok(next) => next,
                Err(_) => {
                    st.done = true;
                    return Some((Err(ClientError::IdleTimeout(idle)), st));
                }
            };
            let result = match next {
                Some(Ok(ev)) => {
                    let ev = SseEvent {
                        event: ev.event,
                        data: ev.data,
                    };
                    st.decoder.on_event(&ev, &mut st.pending)
                }
                Some(Err(err)) => Err(stream_error(&err)),
                None => {
                    st.done = true;
                    st.decoder.on_end(&mut st.pending)
                }
            };
            if let Err(err) = result {
                st.done = true;
                st.pending.clear();
                return Some((Err(err), st));
            }
            // A decoder that emitted Completed is finished; ignore anything after it.
            if st
                .pending
                .back()
                .is_some_and(|e| matches!(e, ResponseEvent::Completed { .. }))
            {
                st.done = true;
            }
        }
    }))
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

struct State<D> {
    events: std::pin::Pin<
        Box<
            dyn Stream<
                    Item = Result<
                        eventsource_stream::Event,
                        eventsource_stream::EventStreamError<BoxError>,
                    >,
                > + Send,
        >,
    >,
    decoder: D,
    pending: VecDeque<ResponseEvent>,
    done: bool,
}

fn stream_error<E: std::fmt::Display>(err: &E) -> ClientError {
    ClientError::Transport {
        message: format!("the model stream broke off: {err}"),
        retryable: true,
    }
}

/// Decode a complete in-memory SSE body (tests and benchmarks), split into the given chunks.
pub async fn decode_chunks<D: SseDecoder>(
    chunks: Vec<Vec<u8>>,
    decoder: D,
) -> Vec<Result<ResponseEvent, ClientError>> {
    let bytes = futures::stream::iter(
        chunks
            .into_iter()
            .map(|c| Ok::<_, std::io::Error>(Bytes::from(c))),
    );
    decode(bytes, decoder, Duration::from_secs(3600))
        .collect()
        .await
}

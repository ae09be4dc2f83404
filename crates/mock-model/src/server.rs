//! The HTTP/1.1 server: accepts keep-alive connections on loopback, records each request,
//! answers each POST with the next scripted response, streaming it chunk by chunk.

use crate::checks::check_request;
use crate::models::{self, DEFAULT_MODELS};
use crate::record::RecordedRequest;
use crate::response::{Chunk, Fault, MockResponse};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::collections::VecDeque;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

/// The error a scripted fault puts into the body stream; hyper then drops the connection
/// without the final chunk, which is what a client sees when a server dies mid-stream.
#[derive(Debug, thiserror::Error)]
#[error("mock: connection cut by the script")]
struct ScriptedAbort;

type Body = UnsyncBoxBody<Bytes, ScriptedAbort>;

#[derive(Default)]
struct State {
    queue: VecDeque<MockResponse>,
    requests: Vec<RecordedRequest>,
    violations: Vec<String>,
    /// What `GET …/models` lists.
    models: Vec<String>,
    /// Answers `GET …/models` instead of the list, every time (a 401, say).
    models_answer: Option<MockResponse>,
}

struct Inner {
    state: Mutex<State>,
    /// The number of recorded requests, so waiters wake when one arrives.
    recorded: watch::Sender<usize>,
}

type Shared = Arc<Inner>;

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    // A panic while holding the lock cannot leave `State` half-updated in a way that matters
    // to a test, so a poisoned lock is still used.
    shared.state.lock().unwrap_or_else(|e| e.into_inner())
}

/// A scripted model server on `127.0.0.1`. Stops (closing every connection) when dropped.
pub struct MockServer {
    addr: SocketAddr,
    state: Shared,
    accept: JoinHandle<()>,
}

impl MockServer {
    /// Starts a server on a free loopback port that answers POSTs with `responses` in order.
    ///
    /// # Panics
    /// When no loopback port can be bound: a broken test machine, not a test failure.
    pub async fn start(responses: Vec<MockResponse>) -> MockServer {
        match Self::start_on(0, responses).await {
            Ok(server) => server,
            Err(e) => panic!("mock: cannot bind 127.0.0.1:0: {e}"),
        }
    }

    /// Starts a server on `127.0.0.1:port` (`0` picks a free port).
    pub async fn start_on(port: u16, responses: Vec<MockResponse>) -> std::io::Result<MockServer> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
        let addr = listener.local_addr()?;
        let state: Shared = Arc::new(Inner {
            state: Mutex::new(State {
                queue: responses.into(),
                models: DEFAULT_MODELS.iter().map(|m| m.to_string()).collect(),
                ..State::default()
            }),
            recorded: watch::Sender::new(0),
        });
        let accept = tokio::spawn(accept_loop(listener, state.clone()));
        Ok(MockServer {
            addr,
            state,
            accept,
        })
    }

    /// The socket address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL clients are configured with: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// `http://127.0.0.1:PORT` followed by `path` (which should start with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Appends a response to the queue.
    pub fn push(&self, response: MockResponse) {
        lock(&self.state).queue.push_back(response);
    }

    /// Sets what `GET …/models` lists (by default [`DEFAULT_MODELS`]); these requests take
    /// nothing from the response queue.
    pub fn set_models<S: Into<String>>(&self, ids: impl IntoIterator<Item = S>) {
        let mut state = lock(&self.state);
        state.models = ids.into_iter().map(Into::into).collect();
        state.models_answer = None;
    }

    /// Answers every `GET …/models` with `response` instead of the list (a `401`, a stall).
    pub fn set_models_answer(&self, response: MockResponse) {
        lock(&self.state).models_answer = Some(response);
    }

    /// How many scripted responses have not been used yet.
    pub fn remaining(&self) -> usize {
        lock(&self.state).queue.len()
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Waits until at least `count` requests have been received, then returns them all.
    /// Requests are recorded before they are answered, so this never waits for a response.
    pub async fn wait_for_requests(&self, count: usize) -> Vec<RecordedRequest> {
        let mut rx = self.state.recorded.subscribe();
        // The sender lives in `self.state`, so this can only end by reaching `count`.
        let _ = rx.wait_for(|&n| n >= count).await;
        self.requests()
    }

    /// The tool call / tool output pairing problems found in the requests so far.
    pub fn violations(&self) -> Vec<String> {
        lock(&self.state).violations.clone()
    }

    /// Panics listing every violation, if there is any.
    ///
    /// # Panics
    /// When a request paired tool calls and outputs wrongly; this is test support.
    pub fn assert_no_violations(&self) {
        let violations = self.violations();
        if !violations.is_empty() {
            panic!(
                "mock: {} request check violation(s):\n  {}",
                violations.len(),
                violations.join("\n  ")
            );
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        // Aborting the accept task drops its JoinSet, which aborts every connection task.
        self.accept.abort();
    }
}

impl std::fmt::Debug for MockServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

async fn accept_loop(listener: TcpListener, state: Shared) {
    let mut connections = JoinSet::new();
    let mut accepted_count = 0;
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    accepted_count += 1;
                    connections.spawn(serve_connection(stream, accepted_count, state.clone()));
                }
                // Usually out of file descriptors; back off instead of spinning.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn serve_connection(stream: TcpStream, connection: usize, state: Shared) {
    // SSE deltas are small writes; without nodelay they would wait for ACKs.
    let _ = stream.set_nodelay(true);
    let service = service_fn(move |request| handle(request, connection, state.clone()));
    // A connection error (client gone, scripted fault) ends only this connection.
    let _ = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service)
        .await;
}

async fn handle(
    request: Request<Incoming>,
    connection: usize,
    state: Shared,
) -> Result<Response<Body>, ScriptedAbort> {
    let (parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => {
            return Ok(plain_error(
                400,
                &format!("mock: cannot read the request body: {e}"),
            ));
        }
    };
    let headers = parts
        .headers
        .iter()
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_ascii_lowercase(), value)
        })
        .collect();
    let is_post = parts.method == hyper::Method::POST;
    let path = parts.uri.path().to_string();
    let response = {
        let shared = state;
        let mut state = lock(&shared);
        let number = state.requests.len() + 1;
        if is_post && let Ok(json) = serde_json::from_slice(&body) {
            let found = check_request(number, &path, &json);
            state.violations.extend(found);
        }
        state.requests.push(RecordedRequest {
            number,
            connection,
            method: parts.method.to_string(),
            path: path.clone(),
            query: parts.uri.query().map(str::to_string),
            headers,
            body,
        });
        shared.recorded.send_replace(state.requests.len());
        if parts.method == hyper::Method::GET && path.ends_with("/models") {
            let anthropic = parts.headers.contains_key("anthropic-version");
            state
                .models_answer
                .clone()
                .unwrap_or_else(|| models::list(&state.models, anthropic))
        } else if !is_post {
            return Ok(plain_error(
                404,
                &format!(
                    "mock: request {number} is {} {path}; only POST requests get scripted responses",
                    parts.method
                ),
            ));
        } else {
            match state.queue.pop_front() {
                Some(response) => response,
                None => {
                    return Ok(plain_error(
                        500,
                        &format!("mock: no scripted response left for request {number}"),
                    ));
                }
            }
        }
    };
    if response.fault == Some(Fault::Disconnect) {
        // A service error makes hyper close the connection without writing a response.
        return Err(ScriptedAbort);
    }
    Ok(build(response))
}

/// A JSON error body in the OpenAI shape, `{"error":{"message":...}}`.
fn plain_error(status: u16, message: &str) -> Response<Body> {
    let body = serde_json::json!({ "error": { "message": message } }).to_string();
    build(MockResponse::error(status, body))
}

fn build(response: MockResponse) -> Response<Body> {
    let MockResponse {
        status,
        headers,
        chunks,
        fault,
    } = response;
    let mut builder = Response::builder().status(status);
    for (name, value) in &headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let body = UnsyncBoxBody::new(StreamBody::new(body_stream(chunks, fault)));
    match builder.body(body) {
        Ok(response) => response,
        // Only a bad status or header in the script gets here; say which instead of hanging.
        Err(e) => plain_error(
            500,
            &format!(
                "mock: the scripted response is not valid HTTP ({e}): status {status}, headers {headers:?}"
            ),
        ),
    }
}

fn body_stream(
    chunks: Vec<Chunk>,
    fault: Option<Fault>,
) -> impl Stream<Item = Result<Frame<Bytes>, ScriptedAbort>> + Send + 'static {
    let data = futures::stream::iter(chunks).then(|chunk| async move {
        if !chunk.delay.is_zero() {
            tokio::time::sleep(chunk.delay).await;
        }
        if let Some(gate) = &chunk.gate {
            gate.wait().await;
        }
        Ok(Frame::data(chunk.data))
    });
    let tail = futures::stream::once(async move {
        match fault {
            None => None,
            Some(Fault::Cut) => {
                // Pending once so hyper flushes the head and chunks before the abort;
                // otherwise the client sees no response at all instead of a cut body.
                tokio::task::yield_now().await;
                Some(Err(ScriptedAbort))
            }
            Some(Fault::Stall(duration)) => {
                tokio::time::sleep(duration).await;
                Some(Err(ScriptedAbort))
            }
            // Handled before the response is built; never reaches the body.
            Some(Fault::Disconnect) => Some(Err(ScriptedAbort)),
        }
    })
    .filter_map(std::future::ready);
    data.chain(tail)
}

//! A request as the server received it, kept for assertions.

use bytes::Bytes;
use serde_json::Value;

/// One request the server received, in arrival order.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// 1-based position among all requests this server received.
    pub number: usize,
    /// 1-based number of the TCP connection it came on; equal numbers mean a reused
    /// keep-alive connection.
    pub connection: usize,
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Request path without the query, e.g. `/v1/chat/completions`.
    pub path: String,
    /// The query string without `?`, if any.
    pub query: Option<String>,
    /// Headers in arrival order, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The raw body.
    pub body: Bytes,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON.
    ///
    /// # Panics
    /// When the body is not JSON; this is test support, and a test that expects JSON wants to
    /// fail loudly with the body in the message. Use [`RecordedRequest::try_json`] otherwise.
    pub fn json(&self) -> Value {
        match self.try_json() {
            Ok(value) => value,
            Err(e) => panic!(
                "mock: request {} to {} has no JSON body ({e}): {}",
                self.number,
                self.path,
                self.body_text()
            ),
        }
    }

    /// The body parsed as JSON, or the parse error.
    pub fn try_json(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_slice(&self.body)
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

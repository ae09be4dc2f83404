//! The web tools' engine: fetching a page safely ([`fetch`]), turning HTML into Markdown
//! ([`html`]), and querying a search backend ([`search`]).
//!
//! Fetches use a reqwest client built like the model clients' (rustls with ring, the same
//! user agent) but of their own: it follows no redirect by itself (each hop is checked by
//! [`fetch`]), it uses no proxy (a proxy would resolve names where cairn cannot check the
//! address), and unless `[tools.web] allow_private = true` its resolver drops loopback,
//! link-local and private addresses ([`GuardedResolver`]), so a name that is re-pointed
//! between cairn's check and the connection still cannot reach the user's network.

pub mod address;
pub mod fetch;
pub mod html;
pub mod search;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A resolver that never hands the client a restricted address.
#[derive(Debug, Default)]
pub struct GuardedResolver;

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs = lookup(&host, 0).await?;
            let allowed: Vec<SocketAddr> = addrs
                .into_iter()
                .filter(|a| address::restricted(a.ip()).is_none())
                .collect();
            if allowed.is_empty() {
                let err: Box<dyn std::error::Error + Send + Sync> = Box::new(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    format!("{host} resolves only to loopback, link-local or private addresses"),
                ));
                return Err(err);
            }
            let addrs: Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
}

/// Resolve `host` (a name, not an address literal).
pub(crate) async fn lookup(host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
    Ok(tokio::net::lookup_host((host, port)).await?.collect())
}

/// The client for fetches with these settings; built once per process and reused, so
/// connections are kept across calls.
pub(crate) fn fetch_client(allow_private: bool, connect_timeout: Duration) -> reqwest::Client {
    static CLIENTS: Mutex<Vec<((bool, Duration), reqwest::Client)>> = Mutex::new(Vec::new());
    let key = (allow_private, connect_timeout);
    let mut clients = CLIENTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, client)) = clients.iter().find(|(k, _)| *k == key) {
        return client.clone();
    }
    let mut builder = base_builder(connect_timeout)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy();
    if !allow_private {
        builder = builder.dns_resolver(Arc::new(GuardedResolver));
    }
    let client = builder.build().unwrap_or_else(|_| reqwest::Client::new());
    clients.push((key, client.clone()));
    client
}

/// The client for the configured search backend: an address the user chose, so no
/// address guard; redirects as reqwest follows them.
pub(crate) fn search_client(connect_timeout: Duration) -> reqwest::Client {
    static CLIENT: Mutex<Option<(Duration, reqwest::Client)>> = Mutex::new(None);
    let mut slot = CLIENT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((timeout, client)) = slot.as_ref()
        && *timeout == connect_timeout
    {
        return client.clone();
    }
    let client = base_builder(connect_timeout)
        .build()
        .unwrap_or_else(|_| reqwest::Client::new());
    *slot = Some((connect_timeout, client.clone()));
    client
}

fn base_builder(connect_timeout: Duration) -> reqwest::ClientBuilder {
    crate::client::http::builder()
        .connect_timeout(connect_timeout)
        .user_agent(concat!("cairn/", env!("CARGO_PKG_VERSION")))
}

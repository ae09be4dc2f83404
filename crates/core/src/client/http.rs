//! The one way cairn starts a reqwest client: rustls with the ring provider, trusting the
//! Mozilla roots (webpki-roots).
//!
//! reqwest is built with `rustls-no-provider` (the feature rmcp uses, so one reqwest is
//! linked), which leaves both the crypto provider and the roots to the application. Every
//! client cairn builds (model clients, web tools, the local-server probe) starts from
//! [`builder`]; rmcp's own client takes ring from the process default installed here and in
//! `mcp::connect`.

use std::sync::{Arc, OnceLock};

/// A client builder with cairn's TLS settings; callers add timeouts, proxies and the rest.
pub fn builder() -> reqwest::ClientBuilder {
    // Also the provider for any client reqwest configures itself (`Client::new()`, rmcp's):
    // without one, reqwest panics when the client is built.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = reqwest::Client::builder();
    match tls_config() {
        Some(config) => builder.tls_backend_preconfigured(config.clone()),
        None => builder,
    }
}

/// Built once: the root store is ~150 certificates.
fn tls_config() -> Option<&'static rustls::ClientConfig> {
    static CONFIG: OnceLock<Option<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            let mut config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .ok()?
                .with_root_certificates(roots)
                .with_no_client_auth();
            // reqwest speaks HTTP/1.1 only here (no `http2` feature); say so in the handshake
            // as reqwest does for the configurations it builds itself.
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            Some(config)
        })
        .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_build_with_ring_and_the_mozilla_roots() {
        let config = tls_config();
        assert!(config.is_some_and(|c| c.alpn_protocols == [b"http/1.1".to_vec()]));
        assert!(builder().build().is_ok());
        assert!(reqwest::Client::builder().build().is_ok());
    }
}

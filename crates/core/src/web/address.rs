//! Which addresses `web_fetch` refuses unless `[tools.web] allow_private = true`: the
//! machine itself, the local network and anything that is not a public unicast address.
//!
//! Addresses are judged after resolution (and again by the client's resolver when it
//! connects), so a public name that resolves to 127.0.0.1 is refused as 127.0.0.1 is.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// What kind of restricted address `ip` is, in words ("a loopback address"); `None` for a
/// public unicast address.
pub fn restricted(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => restricted_v4(v4),
        IpAddr::V6(v6) => restricted_v6(v6),
    }
}

fn restricted_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_private() {
        Some("a private network address")
    } else if ip.is_link_local() {
        Some("a link-local address")
    } else if a == 100 && (64..128).contains(&b) {
        Some("a shared (carrier-grade NAT) address")
    } else if a == 0 || ip.is_broadcast() || ip.is_multicast() || a >= 240 {
        Some("not a unicast internet address")
    } else if a == 198 && (18..20).contains(&b) {
        Some("a benchmarking network address")
    } else {
        None
    }
}

fn restricted_v6(ip: Ipv6Addr) -> Option<&'static str> {
    // IPv4 inside IPv6 (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96,
    // 6to4 2002::/16) reaches the IPv4 address: judge that.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return restricted_v4(v4);
    }
    let segments = ip.segments();
    if ip.is_loopback() {
        return Some("a loopback address");
    }
    if ip.is_unspecified() || ip.is_multicast() {
        return Some("not a unicast internet address");
    }
    if segments[..6] == [0; 6] {
        return restricted_v4(embedded_v4(&segments[6..8]));
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return restricted_v4(embedded_v4(&segments[6..8]));
    }
    if segments[0] == 0x2002 {
        return restricted_v4(embedded_v4(&segments[1..3]));
    }
    match segments[0] {
        s if s & 0xfe00 == 0xfc00 => Some("a private network address (unique local)"),
        s if s & 0xffc0 == 0xfe80 => Some("a link-local address"),
        s if s & 0xffc0 == 0xfec0 => Some("a site-local address"),
        _ => None,
    }
}

fn embedded_v4(segments: &[u16]) -> Ipv4Addr {
    let high = segments.first().copied().unwrap_or(0);
    let low = segments.get(1).copied().unwrap_or(0);
    Ipv4Addr::new((high >> 8) as u8, high as u8, (low >> 8) as u8, low as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(ip: &str) -> Option<&'static str> {
        restricted(ip.parse().unwrap())
    }

    #[test]
    fn the_machine_and_the_local_network_are_restricted() {
        for ip in [
            "127.0.0.1",
            "127.8.9.10",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "fc00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
        ] {
            assert!(judged(ip).is_some(), "{ip} should be restricted");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "93.184.216.34",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert_eq!(judged(ip), None, "{ip}");
        }
    }
}

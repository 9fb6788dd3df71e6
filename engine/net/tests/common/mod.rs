//! Shared by the fl-net integration tests that run real QUIC through the impairment relay:
//! loopback addresses and a bounded wait for a handshake through the relay.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::thread::sleep;
use std::time::{Duration, Instant};

use fl_net::quic::{QuicClient, QuicServer, TrustPolicy};
use fl_net::{ClientEvent, ClientTransport, PeerId, ServerEvent, ServerTransport};

/// 127.0.0.1 on a port the system picks.
pub fn any_port() -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0)
}

/// Connects a client to `server` through `via` (a relay), trusting on first use with
/// `known_hosts`, and waits until both sides saw the handshake (at most `patience`).
pub fn connect_through(
    server: &mut QuicServer,
    via: SocketAddr,
    known_hosts: &Path,
    patience: Duration,
) -> (QuicClient, PeerId) {
    let mut client = QuicClient::connect(
        via,
        "127.0.0.1",
        TrustPolicy::KnownHosts(known_hosts.to_path_buf()),
    )
    .expect("client starts");
    let mut s_events = Vec::new();
    let mut c_events = Vec::new();
    let end = Instant::now() + patience;
    let peer = loop {
        server.poll(&mut s_events);
        client.poll(&mut c_events);
        let peer = s_events.iter().find_map(|e| match e {
            ServerEvent::Connected { peer, .. } => Some(*peer),
            _ => None,
        });
        if let Some(p) = peer
            && c_events.contains(&ClientEvent::Connected)
        {
            break p;
        }
        assert!(
            Instant::now() < end,
            "no handshake: {s_events:?} {c_events:?}"
        );
        sleep(Duration::from_millis(1));
    };
    (client, peer)
}

//! The server over real QUIC on loopback: a pinned client is admitted and receives snapshots;
//! a client pinned to another identity is refused before any game message. Wall-clock runtime,
//! generous timeouts, 127.0.0.1 only.

use fl_net::quic::{Fingerprint, QuicClient, QuicServer, ServerConfig as QuicConfig, TrustPolicy};
use fl_net::{Channel, ClientEvent, ClientTransport, DisconnectReason, ServerTransport};
use fl_protocol::enums::PeerRole;
use fl_protocol::msg::handshake::ConnectRequest;
use fl_protocol::{Message, MsgId, PROTOCOL_VERSION, Packet};
use fl_server::runtime::{RuntimeConfig, spawn};
use fl_server::server::{Server, ServerConfig};
use fl_server::types::TypeRegistry;
use std::time::{Duration, Instant};

fn start() -> (
    fl_server::runtime::ServerHandle,
    std::net::SocketAddr,
    Fingerprint,
    std::path::PathBuf,
) {
    let dir = std::env::temp_dir().join(format!(
        "fl-server-quic-{}-{}",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    ));
    let quic = QuicServer::bind(
        "127.0.0.1:0".parse().expect("addr"),
        &dir,
        QuicConfig::default(),
    )
    .expect("bind");
    let addr = quic.local_addr();
    let fp = quic.fingerprint();
    let server = Server::new(
        ServerConfig::default(),
        Box::new(quic),
        TypeRegistry::builtin().expect("types"),
    );
    let handle = spawn(server, RuntimeConfig::default(), None).expect("thread");
    (handle, addr, fp, dir)
}

#[test]
fn a_pinned_client_joins_over_quic() {
    let (handle, addr, fp, dir) = start();
    let mut client =
        QuicClient::connect(addr, "localhost", TrustPolicy::Pinned(fp)).expect("client");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut events = Vec::new();
    let (mut connected, mut acked, mut snapshots) = (false, false, 0);
    while Instant::now() < deadline && snapshots < 30 {
        client.poll(&mut events);
        for ev in events.drain(..) {
            match ev {
                ClientEvent::Connected => {
                    connected = true;
                    let req = ConnectRequest {
                        requested_role: PeerRole::Pilot,
                        protocol_version: PROTOCOL_VERSION,
                        ..Default::default()
                    };
                    let bytes = Message::from(req).encode().expect("encodes");
                    client.send(Channel::Reliable, &bytes).expect("queued");
                }
                ClientEvent::Received { payload, .. } => {
                    if payload.first() == Some(&MsgId::WorldSnapshot.to_u8()) {
                        snapshots += 1;
                    } else if let Ok(Packet {
                        message: Message::ConnectAck(_),
                        ..
                    }) = Packet::decode(&payload)
                    {
                        acked = true;
                    }
                }
                ClientEvent::Disconnected { reason } => panic!("disconnected: {reason}"),
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(connected && acked, "connected {connected} acked {acked}");
    assert!(snapshots >= 30, "only {snapshots} snapshots");
    drop(client);
    drop(handle);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_client_pinned_to_another_identity_is_refused_with_both_fingerprints() {
    let (handle, addr, fp, dir) = start();
    let mut wrong = fp.0;
    wrong[0] ^= 0xFF;
    let mut client =
        QuicClient::connect(addr, "localhost", TrustPolicy::Pinned(Fingerprint(wrong)))
            .expect("client");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut events = Vec::new();
    let mut reason = None;
    while Instant::now() < deadline && reason.is_none() {
        client.poll(&mut events);
        for ev in events.drain(..) {
            match ev {
                ClientEvent::Disconnected { reason: r } => reason = Some(r),
                ClientEvent::Connected => panic!("connected to an unpinned identity"),
                ClientEvent::Received { .. } => panic!("a game message leaked"),
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    match reason {
        Some(DisconnectReason::IdentityChanged { expected, got, .. }) => {
            assert_eq!(got, fp.to_string());
            assert_eq!(expected, Fingerprint(wrong).to_string());
        }
        other => panic!("expected an identity refusal, got {other:?}"),
    }
    drop(client);
    drop(handle);
    let _ = std::fs::remove_dir_all(dir);
}

/// A LAN party over the real transport: sixteen clients on one address (127.0.0.1) connect at
/// once and every one is admitted with the default admission settings.
#[test]
fn sixteen_clients_on_one_address_join_over_quic() {
    let (handle, addr, fp, dir) = start();
    let mut clients: Vec<QuicClient> = (0..16)
        .map(|_| QuicClient::connect(addr, "localhost", TrustPolicy::Pinned(fp)).expect("client"))
        .collect();
    // Per client: acked, or why it was turned away.
    let mut acked = [false; 16];
    let mut refused: Vec<(usize, String)> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut events = Vec::new();
    while Instant::now() < deadline && refused.is_empty() && !acked.iter().all(|&a| a) {
        for (n, client) in clients.iter_mut().enumerate() {
            client.poll(&mut events);
            for ev in events.drain(..) {
                match ev {
                    ClientEvent::Connected => {
                        let req = ConnectRequest {
                            requested_role: PeerRole::Pilot,
                            protocol_version: PROTOCOL_VERSION,
                            ..Default::default()
                        };
                        let bytes = Message::from(req).encode().expect("encodes");
                        client.send(Channel::Reliable, &bytes).expect("queued");
                    }
                    ClientEvent::Received { payload, .. } => match Packet::decode(&payload) {
                        Ok(Packet {
                            message: Message::ConnectAck(_),
                            ..
                        }) => acked[n] = true,
                        Ok(Packet {
                            message: Message::ConnectRefusal(r),
                            ..
                        }) => refused.push((n, format!("{:?}: {}", r.code, r.reason.as_str()))),
                        _ => {}
                    },
                    ClientEvent::Disconnected { reason } => {
                        refused.push((n, format!("disconnected: {reason}")));
                    }
                }
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(refused.is_empty(), "turned away: {refused:?}");
    let admitted = acked.iter().filter(|&&a| a).count();
    assert_eq!(admitted, 16, "only {admitted} of 16 admitted in time");
    drop(clients);
    drop(handle);
    let _ = std::fs::remove_dir_all(dir);
}

//! Dropping the QUIC transports stops and joins every thread they started, within bounds.
//! Alone in its own test binary so no other test's threads are counted (Linux: threads are
//! counted by name in /proc/self/task).

#![cfg(target_os = "linux")]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::thread::sleep;
use std::time::{Duration, Instant};

use fl_net::quic::{QuicClient, QuicServer, ServerConfig, TrustPolicy};
use fl_net::{Channel, ClientEvent, ClientTransport, ServerEvent, ServerTransport};

fn transport_threads() -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(Result::ok)
        .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
        .filter(|name| name.starts_with("fl-net-quic"))
        .count()
}

#[test]
fn dropping_server_and_client_joins_their_threads() {
    assert_eq!(transport_threads(), 0);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = QuicServer::bind(
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
        dir.path(),
        ServerConfig::default(),
    )
    .expect("bind");
    let mut client = QuicClient::connect(
        server.local_addr(),
        "127.0.0.1",
        TrustPolicy::Pinned(server.fingerprint()),
    )
    .expect("client");
    let end = Instant::now() + Duration::from_secs(30);
    let (mut sev, mut cev) = (Vec::new(), Vec::new());
    let mut got = false;
    let mut sent = false;
    while !got {
        assert!(Instant::now() < end, "no message");
        server.poll(&mut sev);
        client.poll(&mut cev);
        if !sent && cev.contains(&ClientEvent::Connected) {
            client.send(Channel::Reliable, b"hi").expect("queued");
            sent = true;
        }
        got = sev
            .iter()
            .any(|e| matches!(e, ServerEvent::Received { .. }));
        sleep(Duration::from_millis(1));
    }
    assert!(
        transport_threads() >= 2,
        "server and client run their own threads"
    );

    // Leave traffic in flight, then drop both.
    for _ in 0..100 {
        let _ = client.send(Channel::Reliable, &[1u8; 10_000]);
        let _ = client.send(Channel::Unreliable, &[2u8; 5_000]);
    }
    let t = Instant::now();
    drop(client);
    let client_drop = t.elapsed();
    let t = Instant::now();
    drop(server);
    let server_drop = t.elapsed();
    println!("drop: client {client_drop:?}, server {server_drop:?}");
    // The bound is the design's (about 2 s each), not a performance target.
    assert!(client_drop < Duration::from_secs(5), "{client_drop:?}");
    assert!(server_drop < Duration::from_secs(5), "{server_drop:?}");
    // Joined threads leave /proc promptly; allow the kernel a moment.
    let end = Instant::now() + Duration::from_secs(2);
    while transport_threads() > 0 && Instant::now() < end {
        sleep(Duration::from_millis(10));
    }
    assert_eq!(transport_threads(), 0, "every transport thread is gone");
}

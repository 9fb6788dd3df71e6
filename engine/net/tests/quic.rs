//! QUIC over loopback (127.0.0.1 only, ports from binding port 0): handshake, every channel,
//! messages larger than a datagram, identity persistence, trust on first use, pinning, the
//! identity probe, Retry, disconnect reasons and a slow peer. Every wait is bounded; nothing
//! asserts speed.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::thread::sleep;
use std::time::{Duration, Instant};

use fl_net::quic::{
    ClientConfig, Fingerprint, IDENTITY_FILE, KnownHosts, QuicClient, QuicError, QuicServer,
    ServerConfig, ServerIdentity, TrustPolicy, known_hosts_key,
};
use fl_net::{
    Channel, ClientEvent, ClientTransport, DisconnectReason, KnownHostsEntry, MAX_RELIABLE_MESSAGE,
    PeerId, SendError, ServerEvent, ServerTransport, error_chain,
};

/// Generous: the machine may be a loaded 2-core box.
const PATIENCE: Duration = Duration::from_secs(30);

fn any_port() -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0)
}

fn server_in(dir: &Path) -> QuicServer {
    QuicServer::bind(any_port(), dir, ServerConfig::default()).expect("bind loopback")
}

/// Polls both ends until `done` says so (or panics after PATIENCE), collecting events.
struct Pair {
    server: QuicServer,
    client: QuicClient,
    s_events: Vec<ServerEvent>,
    c_events: Vec<ClientEvent>,
}

impl Pair {
    fn pump_until(
        &mut self,
        what: &str,
        mut done: impl FnMut(&[ServerEvent], &[ClientEvent]) -> bool,
    ) {
        let end = Instant::now() + PATIENCE;
        loop {
            self.server.poll(&mut self.s_events);
            self.client.poll(&mut self.c_events);
            if done(&self.s_events, &self.c_events) {
                return;
            }
            assert!(
                Instant::now() < end,
                "timed out waiting for {what}: server {:?} client {:?}",
                summarize_s(&self.s_events),
                summarize_c(&self.c_events)
            );
            sleep(Duration::from_millis(1));
        }
    }

    fn connect(server: QuicServer, trust: TrustPolicy) -> (Pair, PeerId) {
        let addr = server.local_addr();
        let client = QuicClient::connect(addr, "127.0.0.1", trust).expect("client starts");
        let mut pair = Pair {
            server,
            client,
            s_events: Vec::new(),
            c_events: Vec::new(),
        };
        pair.pump_until("the handshake", |s, c| {
            s.iter().any(|e| matches!(e, ServerEvent::Connected { .. }))
                && c.contains(&ClientEvent::Connected)
        });
        let peer = pair
            .s_events
            .iter()
            .find_map(|e| match e {
                ServerEvent::Connected { peer, addr } => {
                    assert!(addr.ip().is_loopback());
                    Some(*peer)
                }
                _ => None,
            })
            .expect("connected");
        pair.s_events.clear();
        pair.c_events.clear();
        (pair, peer)
    }
}

fn summarize_s(ev: &[ServerEvent]) -> Vec<String> {
    ev.iter()
        .map(|e| match e {
            ServerEvent::Received {
                channel, payload, ..
            } => format!("{channel:?}[{}]", payload.len()),
            other => format!("{other:?}"),
        })
        .collect()
}

fn summarize_c(ev: &[ClientEvent]) -> Vec<String> {
    ev.iter()
        .map(|e| match e {
            ClientEvent::Received { channel, payload } => format!("{channel:?}[{}]", payload.len()),
            other => format!("{other:?}"),
        })
        .collect()
}

fn numbered(i: u32, len: usize) -> Vec<u8> {
    let mut v = i.to_le_bytes().to_vec();
    v.extend((4..len.max(4)).map(|k| (k as u32).wrapping_mul(31).wrapping_add(i) as u8));
    v
}

fn number(p: &[u8]) -> u32 {
    u32::from_le_bytes([p[0], p[1], p[2], p[3]])
}

fn server_payloads(ev: &[ServerEvent], want: Channel) -> Vec<&Vec<u8>> {
    ev.iter()
        .filter_map(|e| match e {
            ServerEvent::Received {
                channel, payload, ..
            } if *channel == want => Some(payload),
            _ => None,
        })
        .collect()
}

fn client_payloads(ev: &[ClientEvent], want: Channel) -> Vec<&Vec<u8>> {
    ev.iter()
        .filter_map(|e| match e {
            ClientEvent::Received { channel, payload } if *channel == want => Some(payload),
            _ => None,
        })
        .collect()
}

#[test]
fn handshake_channels_and_messages_larger_than_a_datagram() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = server_in(dir.path());
    let fp = server.fingerprint();
    let t0 = Instant::now();
    let (mut p, peer) = Pair::connect(server, TrustPolicy::Pinned(fp));
    println!("loopback handshake (with Retry) took {:?}", t0.elapsed());
    assert_eq!(p.client.server_fingerprint(), Some(fp));

    // Reliable, both directions, many messages of varied sizes, in order.
    let n = 1000u32;
    let size = |i: u32| 4 + (i as usize * 37) % 5000;
    for i in 0..n {
        p.client
            .send(Channel::Reliable, &numbered(i, size(i)))
            .expect("queued");
        p.server
            .send(peer, Channel::Reliable, &numbered(i, size(i)))
            .expect("queued");
    }
    p.pump_until("1000 reliable messages each way", |s, c| {
        server_payloads(s, Channel::Reliable).len() == n as usize
            && client_payloads(c, Channel::Reliable).len() == n as usize
    });
    for got in [
        server_payloads(&p.s_events, Channel::Reliable),
        client_payloads(&p.c_events, Channel::Reliable),
    ] {
        for (i, payload) in got.iter().enumerate() {
            assert_eq!(
                **payload,
                numbered(i as u32, size(i as u32)),
                "message {i} intact and in order"
            );
        }
    }
    p.s_events.clear();
    p.c_events.clear();

    // The largest reliable message.
    let max = numbered(7, MAX_RELIABLE_MESSAGE);
    p.client.send(Channel::Reliable, &max).expect("queued");
    assert!(matches!(
        p.client
            .send(Channel::Reliable, &vec![0; MAX_RELIABLE_MESSAGE + 1]),
        Err(SendError::TooLarge { .. })
    ));
    p.pump_until("the 1 MiB message", |s, _| {
        !server_payloads(s, Channel::Reliable).is_empty()
    });
    assert_eq!(*server_payloads(&p.s_events, Channel::Reliable)[0], max);
    p.s_events.clear();

    // Unreliable and voice, small and fragmented. Loopback can still drop a datagram, so each
    // kind is re-sent (bounded) until one arrives; what arrives must be whole and on its lane.
    let stats = p.client.link_stats();
    assert!(stats.max_datagram_size >= 1100, "{stats:?}");
    let big = 20 * stats.max_datagram_size + 123;
    for (channel, len) in [
        (Channel::Unreliable, 100),
        (Channel::Voice, 80),
        (Channel::Unreliable, big),
        (Channel::Voice, 3000),
    ] {
        let msg = numbered(len as u32, len);
        let mut arrived = false;
        for _attempt in 0..20 {
            p.client.send(channel, &msg).expect("queued");
            p.server.send(peer, channel, &msg).expect("queued");
            let end = Instant::now() + Duration::from_secs(1);
            while Instant::now() < end {
                p.server.poll(&mut p.s_events);
                p.client.poll(&mut p.c_events);
                let s = server_payloads(&p.s_events, channel);
                let c = client_payloads(&p.c_events, channel);
                if !s.is_empty() && !c.is_empty() {
                    assert!(
                        s.iter().chain(c.iter()).all(|m| **m == msg),
                        "{channel:?}/{len} whole"
                    );
                    arrived = true;
                    break;
                }
                sleep(Duration::from_millis(1));
            }
            if arrived {
                break;
            }
        }
        assert!(arrived, "{channel:?} message of {len} bytes never arrived");
        // Nothing leaked onto the other lane.
        let other = if channel == Channel::Voice {
            Channel::Unreliable
        } else {
            Channel::Voice
        };
        assert!(server_payloads(&p.s_events, other).is_empty());
        p.s_events.clear();
        p.c_events.clear();
    }
    let max_u = ClientConfig::default().max_unreliable_message;
    assert!(matches!(
        p.client.send(Channel::Unreliable, &vec![0; max_u + 1]),
        Err(SendError::TooLarge { .. })
    ));

    let cs = p.client.link_stats();
    let ss = p.server.link_stats(peer).expect("connected");
    println!("loopback stats: client {cs:?}\n               server {ss:?}");
    assert!(cs.rtt > Duration::ZERO && cs.rtt < Duration::from_secs(5));
    assert!(cs.messages_sent >= u64::from(n) + 5);
    assert!(ss.messages_received >= u64::from(n) + 5);
    assert!(cs.bytes_sent > MAX_RELIABLE_MESSAGE as u64);
    assert!((0.0..=1.0).contains(&cs.loss));
    assert!(p.server.link_stats(peer + 1000).is_none());
    assert_eq!(
        p.server.send(peer + 1000, Channel::Voice, b"x"),
        Err(SendError::UnknownPeer)
    );
}

#[test]
fn identity_persists_and_a_damaged_one_is_never_replaced() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = ServerIdentity::load_or_create(dir.path()).expect("created");
    let b = ServerIdentity::load_or_create(dir.path()).expect("loaded");
    assert_eq!(a.fingerprint(), b.fingerprint());
    let path = dir.path().join(IDENTITY_FILE);
    assert_eq!(a.path(), path);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path)
            .expect("exists")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the key file is private");
    }
    let server = server_in(dir.path());
    assert_eq!(server.fingerprint(), a.fingerprint());
    drop(server);

    // Truncate it: a clear error naming the file, and the file is left alone.
    let original = std::fs::read(&path).expect("readable");
    let damaged = &original[..original.len() / 2];
    std::fs::write(&path, damaged).expect("writable");
    for result in [
        ServerIdentity::load_or_create(dir.path()).map(|_| ()),
        QuicServer::bind(any_port(), dir.path(), ServerConfig::default()).map(|_| ()),
    ] {
        let err = result.expect_err("a damaged identity is an error");
        assert!(matches!(err, QuicError::IdentityCorrupt { .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(text.contains("not replaced"), "{text}");
    }
    assert_eq!(std::fs::read(&path).expect("still there"), damaged);

    // Garbage, and a key that does not match the certificate.
    std::fs::write(&path, b"hello").expect("writable");
    assert!(matches!(
        ServerIdentity::load_or_create(dir.path()),
        Err(QuicError::IdentityCorrupt { .. })
    ));
    let other = tempfile::tempdir().expect("tempdir");
    ServerIdentity::load_or_create(other.path()).expect("created");
    let other_text =
        String::from_utf8(std::fs::read(other.path().join(IDENTITY_FILE)).expect("read"))
            .expect("utf8");
    let orig_text = String::from_utf8(original).expect("utf8");
    let cert_end = orig_text.find("-----END CERTIFICATE-----").expect("cert") + 26;
    let key_start = other_text.find("-----BEGIN PRIVATE KEY-----").expect("key");
    std::fs::write(
        &path,
        format!("{}{}", &orig_text[..cert_end], &other_text[key_start..]),
    )
    .expect("writable");
    let err = ServerIdentity::load_or_create(dir.path()).expect_err("mismatched key");
    assert!(matches!(err, QuicError::IdentityCorrupt { .. }), "{err}");
}

#[test]
fn trust_on_first_use_then_refuse_a_regenerated_identity() {
    let data = tempfile::tempdir().expect("tempdir");
    let home = tempfile::tempdir().expect("tempdir");
    let known = home.path().join("config").join("known_hosts");
    let server = server_in(data.path());
    let addr = server.local_addr();
    let fp_a = server.fingerprint();

    let (pair, _) = Pair::connect(server, TrustPolicy::KnownHosts(known.clone()));
    let key = known_hosts_key("127.0.0.1", addr.port());
    assert_eq!(
        KnownHosts::load(&known).expect("written").get(&key),
        Some(fp_a)
    );
    let text = std::fs::read_to_string(&known).expect("readable");
    assert!(text.contains(&format!("{key} {fp_a}")), "{text}");
    let Pair { server, client, .. } = pair;
    drop(client);

    // Same identity again: accepted, file unchanged.
    let (pair, _) = Pair::connect(server, TrustPolicy::KnownHosts(known.clone()));
    assert_eq!(std::fs::read_to_string(&known).expect("readable"), text);
    drop(pair);

    // The operator regenerates the identity (same address).
    std::fs::remove_file(data.path().join(IDENTITY_FILE)).expect("removable");
    let server = QuicServer::bind(addr, data.path(), ServerConfig::default()).expect("rebind");
    let fp_b = server.fingerprint();
    assert_ne!(fp_a, fp_b);
    let mut client = QuicClient::connect(addr, "127.0.0.1", TrustPolicy::KnownHosts(known.clone()))
        .expect("starts");
    let reason = wait_client_disconnect(&mut client);
    assert_eq!(
        reason,
        DisconnectReason::IdentityChanged {
            expected: fp_a.to_string(),
            got: fp_b.to_string(),
            trusted_by: Some(KnownHostsEntry {
                path: known.clone(),
                line: 2, // after the file's header comment
                key: key.clone(),
            }),
        }
    );
    // The message names the file and the line to delete.
    let msg = reason.to_string();
    assert!(
        msg.contains(&fp_a.to_string()) && msg.contains(&fp_b.to_string()),
        "{msg}"
    );
    assert!(
        msg.contains(&known.display().to_string())
            && msg.contains("delete line 2")
            && msg.contains(&key),
        "{msg}"
    );
    assert_eq!(
        std::fs::read_to_string(&known).expect("readable"),
        text,
        "the pin is kept"
    );
    assert_eq!(
        client.send(Channel::Reliable, b"x"),
        Err(SendError::NotConnected)
    );
    drop(server);

    // A damaged known_hosts file is an error at connect time, naming the file and line.
    std::fs::write(&known, format!("{text}garbage line\n")).expect("writable");
    let err = QuicClient::connect(addr, "127.0.0.1", TrustPolicy::KnownHosts(known.clone()))
        .expect_err("damaged known_hosts");
    assert!(
        matches!(err, QuicError::KnownHostsCorrupt { line: 3, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains(&known.display().to_string()));
}

fn wait_client_disconnect(client: &mut QuicClient) -> DisconnectReason {
    let end = Instant::now() + PATIENCE;
    let mut events = Vec::new();
    loop {
        client.poll(&mut events);
        if let Some(e) = events.pop() {
            assert!(
                events.is_empty(),
                "unexpected events before {e:?}: {events:?}"
            );
            match e {
                ClientEvent::Disconnected { reason } => return reason,
                other => panic!("unexpected {other:?}"),
            }
        }
        assert!(Instant::now() < end, "no disconnect");
        sleep(Duration::from_millis(1));
    }
}

#[test]
fn a_silent_address_times_out_at_the_connect_timeout() {
    // A UDP port that receives and never answers: the handshake can never finish.
    let silent = std::net::UdpSocket::bind(any_port()).expect("bind loopback");
    let addr = silent.local_addr().expect("addr");
    let config = ClientConfig {
        connect_timeout: Duration::from_millis(300),
        // Far beyond PATIENCE: only the connect timeout can end this attempt in time.
        idle_timeout: Duration::from_secs(120),
        ..ClientConfig::default()
    };
    let mut client = QuicClient::connect_with(
        addr,
        "127.0.0.1",
        TrustPolicy::Pinned(Fingerprint([1; 32])),
        config,
    )
    .expect("starts");
    assert_eq!(
        wait_client_disconnect(&mut client),
        DisconnectReason::TimedOut
    );
    // The attempt did reach the address (so the timeout is about silence, not routing).
    silent
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let mut buf = [0u8; 2048];
    assert!(silent.recv_from(&mut buf).is_ok(), "an Initial packet came");

    let zero = ClientConfig {
        connect_timeout: Duration::ZERO,
        ..ClientConfig::default()
    };
    let err = QuicClient::connect_with(
        addr,
        "127.0.0.1",
        TrustPolicy::Pinned(Fingerprint([1; 32])),
        zero,
    )
    .expect_err("a zero connect timeout is refused");
    assert!(err.to_string().contains("connect_timeout"), "{err}");
}

#[test]
fn probing_reads_the_identity_without_trusting_or_joining() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = server_in(dir.path());
    let addr = server.local_addr();
    let fp =
        QuicClient::probe_identity(addr, "127.0.0.1", ClientConfig::default()).expect("probed");
    assert_eq!(fp, server.fingerprint());
    // Any name works (nothing is checked but the key), and a second probe sees the same.
    let again =
        QuicClient::probe_identity(addr, "localhost", ClientConfig::default()).expect("probed");
    assert_eq!(again, fp);
    let mut events = Vec::new();
    server.poll(&mut events);
    assert!(events.is_empty(), "a probe is not a peer: {events:?}");

    // A real client joins afterwards: it is the only peer the server ever reports, and the
    // probes counted neither as accepted connections nor as protocol violations.
    let client = QuicClient::connect(addr, "127.0.0.1", TrustPolicy::Pinned(fp)).expect("starts");
    let mut pair = Pair {
        server,
        client,
        s_events: events,
        c_events: Vec::new(),
    };
    pair.pump_until("the real client's handshake", |s, c| {
        s.iter().any(|e| matches!(e, ServerEvent::Connected { .. }))
            && c.contains(&ClientEvent::Connected)
    });
    let peers = pair
        .s_events
        .iter()
        .filter(|e| matches!(e, ServerEvent::Connected { .. }))
        .count();
    assert_eq!(peers, 1, "{:?}", summarize_s(&pair.s_events));
    let stats = pair.server.stats();
    assert_eq!(stats.accepted, 1);
    assert_eq!(stats.violations, 0);
}

#[test]
fn probing_a_silent_address_fails_at_the_connect_timeout() {
    let silent = std::net::UdpSocket::bind(any_port()).expect("bind loopback");
    let addr = silent.local_addr().expect("addr");
    let config = ClientConfig {
        connect_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_secs(120),
        ..ClientConfig::default()
    };
    let err = QuicClient::probe_identity(addr, "127.0.0.1", config).expect_err("no answer");
    let QuicError::Probe { addr: at, reason } = &err else {
        panic!("expected Probe, got {err:?}");
    };
    assert_eq!((*at, &**reason), (addr, &DisconnectReason::TimedOut));
    assert_eq!(
        error_chain(&err),
        format!("could not read the identity of the server at {addr}: timed out")
    );
    let bad = QuicClient::probe_identity(addr, "not a name!", ClientConfig::default());
    assert!(matches!(bad, Err(QuicError::ServerName(_))), "{bad:?}");
}

#[test]
fn a_port_in_use_is_reported_once_in_the_chain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let taken = std::net::UdpSocket::bind(any_port()).expect("bind loopback");
    let addr = taken.local_addr().expect("addr");
    let err = QuicServer::bind(addr, dir.path(), ServerConfig::default()).expect_err("in use");
    let QuicError::Bind { addr: at, source } = &err else {
        panic!("expected Bind, got {err:?}");
    };
    assert_eq!(*at, addr);
    assert_eq!(source.kind(), std::io::ErrorKind::AddrInUse);
    let chain = error_chain(&err);
    let cause = source.to_string();
    assert_eq!(chain.matches(&cause).count(), 1, "{chain}");
    assert_eq!(chain, format!("cannot bind UDP {addr}: {cause}"));
}

#[test]
fn a_pinned_mismatch_is_refused_with_both_fingerprints() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = server_in(dir.path());
    let wrong: Fingerprint = "SHA256:00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff"
        .parse()
        .expect("valid text");
    let mut client =
        QuicClient::connect(server.local_addr(), "localhost", TrustPolicy::Pinned(wrong))
            .expect("starts");
    assert_eq!(
        wait_client_disconnect(&mut client),
        DisconnectReason::IdentityChanged {
            expected: wrong.to_string(),
            got: server.fingerprint().to_string(),
            trusted_by: None,
        }
    );
    let mut events = Vec::new();
    server.poll(&mut events);
    assert!(
        events.is_empty(),
        "a refused server never sees a peer: {events:?}"
    );
}

#[test]
fn retry_validates_addresses_before_accepting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = server_in(dir.path());
    let fp = server.fingerprint();
    let (pair, _) = Pair::connect(server, TrustPolicy::Pinned(fp));
    let stats = pair.server.stats();
    assert_eq!(stats.accepted, 1);
    assert_eq!(stats.retries_sent, 1, "one Retry for the one new address");
    drop(pair);

    let off = ServerConfig {
        require_address_validation: false,
        ..Default::default()
    };
    let server = QuicServer::bind(any_port(), dir.path(), off).expect("bind");
    let (pair, _) = Pair::connect(server, TrustPolicy::Pinned(fp));
    assert_eq!(pair.server.stats().retries_sent, 0);
    assert_eq!(pair.server.stats().accepted, 1);
}

#[test]
fn disconnect_reasons_and_flush() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = server_in(dir.path());
    let fp = server.fingerprint();
    let (mut p, peer) = Pair::connect(server, TrustPolicy::Pinned(fp));

    // Client closes after queueing messages: the server gets all of them, then the reason.
    for i in 0..200u32 {
        p.client
            .send(Channel::Reliable, &numbered(i, 2000))
            .expect("queued");
    }
    p.client.disconnect("bye");
    assert_eq!(
        p.client.send(Channel::Reliable, b"late"),
        Err(SendError::NotConnected)
    );
    p.pump_until("the client's close", |s, c| {
        s.iter()
            .any(|e| matches!(e, ServerEvent::Disconnected { .. }))
            && c.iter()
                .any(|e| matches!(e, ClientEvent::Disconnected { .. }))
    });
    let (last, msgs) = p.s_events.split_last().expect("events");
    assert_eq!(
        *last,
        ServerEvent::Disconnected {
            peer,
            reason: DisconnectReason::Remote("bye".into())
        }
    );
    assert_eq!(msgs.len(), 200, "flushed before the close");
    assert!(msgs.iter().enumerate().all(|(i, e)| matches!(e,
        ServerEvent::Received { payload, .. } if number(payload) == i as u32)));
    assert_eq!(
        p.c_events,
        vec![ClientEvent::Disconnected {
            reason: DisconnectReason::Local("bye".into())
        }]
    );
    assert_eq!(
        p.server.send(peer, Channel::Reliable, b"x"),
        Err(SendError::UnknownPeer)
    );

    // Server kicks a client after queueing messages.
    let Pair { server, .. } = p;
    let (mut p, peer) = Pair::connect(server, TrustPolicy::Pinned(fp));
    for i in 0..50u32 {
        p.server
            .send(peer, Channel::Reliable, &numbered(i, 100))
            .expect("queued");
    }
    p.server.disconnect(peer, "kicked: test");
    p.pump_until("the kick", |s, c| {
        s.iter()
            .any(|e| matches!(e, ServerEvent::Disconnected { .. }))
            && c.iter()
                .any(|e| matches!(e, ClientEvent::Disconnected { .. }))
    });
    assert_eq!(
        p.c_events.last(),
        Some(&ClientEvent::Disconnected {
            reason: DisconnectReason::Remote("kicked: test".into())
        })
    );
    assert_eq!(client_payloads(&p.c_events, Channel::Reliable).len(), 50);
    assert_eq!(
        p.s_events,
        vec![ServerEvent::Disconnected {
            peer,
            reason: DisconnectReason::Local("kicked: test".into())
        }]
    );

    // A client that is dropped says so; a server that is dropped says so.
    let Pair { server, .. } = p;
    let (p, peer) = Pair::connect(server, TrustPolicy::Pinned(fp));
    let Pair {
        mut server, client, ..
    } = p;
    drop(client);
    let end = Instant::now() + PATIENCE;
    let mut ev = Vec::new();
    while !ev
        .iter()
        .any(|e| matches!(e, ServerEvent::Disconnected { .. }))
    {
        assert!(
            Instant::now() < end,
            "no disconnect after the client dropped"
        );
        server.poll(&mut ev);
        sleep(Duration::from_millis(1));
    }
    assert_eq!(
        ev,
        vec![ServerEvent::Disconnected {
            peer,
            reason: DisconnectReason::Remote("client shut down".into())
        }]
    );
    let (p, _) = Pair::connect(server, TrustPolicy::Pinned(fp));
    let Pair {
        server, mut client, ..
    } = p;
    drop(server);
    assert_eq!(
        wait_client_disconnect(&mut client),
        DisconnectReason::Remote("server shut down".into())
    );
}

#[test]
fn a_peer_that_stops_reading_is_cut_off_without_stalling_another() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = ServerConfig {
        max_reliable_queue: MAX_RELIABLE_MESSAGE + 4,
        ..Default::default()
    };
    let mut server = QuicServer::bind(any_port(), dir.path(), cfg).expect("bind");
    let fp = server.fingerprint();
    let addr = server.local_addr();
    let ccfg = ClientConfig {
        max_inbound_bytes: 2 * (MAX_RELIABLE_MESSAGE + 64),
        ..Default::default()
    };
    let mut slow =
        QuicClient::connect_with(addr, "127.0.0.1", TrustPolicy::Pinned(fp), ccfg).expect("starts");
    let mut good = QuicClient::connect(addr, "127.0.0.1", TrustPolicy::Pinned(fp)).expect("starts");
    let end = Instant::now() + PATIENCE;
    let mut peers = Vec::new();
    let mut ev = Vec::new();
    let mut cev = Vec::new();
    let (mut slow_up, mut good_up) = (false, false);
    while peers.len() < 2 || !slow_up || !good_up {
        assert!(Instant::now() < end, "handshakes");
        server.poll(&mut ev);
        for e in ev.drain(..) {
            if let ServerEvent::Connected { peer, .. } = e {
                peers.push(peer);
            }
        }
        slow.poll(&mut cev);
        slow_up |= cev.drain(..).any(|e| e == ClientEvent::Connected);
        good.poll(&mut cev);
        good_up |= cev.drain(..).any(|e| e == ClientEvent::Connected);
        sleep(Duration::from_millis(1));
    }
    // Which peer is which: the good client says hello.
    good.send(Channel::Reliable, b"hello").expect("queued");
    let end = Instant::now() + PATIENCE;
    let good_peer = loop {
        assert!(Instant::now() < end, "hello");
        server.poll(&mut ev);
        if let Some(p) = ev.iter().find_map(|e| match e {
            ServerEvent::Received { peer, .. } => Some(*peer),
            _ => None,
        }) {
            break p;
        }
        sleep(Duration::from_millis(1));
    };
    ev.clear();
    let slow_peer = *peers.iter().find(|&&p| p != good_peer).expect("two peers");

    // The slow client never polls. Flood it; keep serving the good one meanwhile.
    let chunk = vec![0x5Au8; 64 << 10];
    let mut good_received = 0usize;
    let mut cut_off = false;
    let end = Instant::now() + PATIENCE;
    let mut i = 0u32;
    while !cut_off {
        assert!(
            Instant::now() < end,
            "the slow peer was never cut off (sent {i} chunks)"
        );
        match server.send(slow_peer, Channel::Reliable, &chunk) {
            Ok(()) => {}
            Err(SendError::QueueFull) => cut_off = true,
            Err(e) => panic!("unexpected {e}"),
        }
        server
            .send(good_peer, Channel::Reliable, &numbered(i, 100))
            .expect("good peer keeps up");
        i += 1;
        good.poll(&mut cev);
        good_received += cev
            .drain(..)
            .filter(|e| matches!(e, ClientEvent::Received { .. }))
            .count();
        server.poll(&mut ev);
        sleep(Duration::from_micros(200));
    }
    // The slow peer's connection is closed; the good one still gets everything.
    let end = Instant::now() + PATIENCE;
    while good_received < i as usize
        || !ev
            .iter()
            .any(|e| matches!(e, ServerEvent::Disconnected { peer, .. } if *peer == slow_peer))
    {
        assert!(
            Instant::now() < end,
            "good got {good_received}/{i}; server events {:?}",
            summarize_s(&ev)
        );
        good.poll(&mut cev);
        good_received += cev
            .drain(..)
            .filter(|e| matches!(e, ClientEvent::Received { .. }))
            .count();
        server.poll(&mut ev);
        sleep(Duration::from_millis(1));
    }
    assert!(ev.iter().any(|e| matches!(e,
        ServerEvent::Disconnected { peer, reason: DisconnectReason::Local(r) } if *peer == slow_peer && r.contains("overflow"))));
    assert!(
        !ev.iter()
            .any(|e| matches!(e, ServerEvent::Disconnected { peer, .. } if *peer == good_peer))
    );
}

#[test]
fn disconnecting_a_peer_that_stopped_reading_completes_within_the_flush_bound() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = ServerConfig {
        max_reliable_queue: 8 << 20,
        close_flush_timeout: Duration::from_millis(500),
        ..Default::default()
    };
    let server = QuicServer::bind(any_port(), dir.path(), cfg).expect("bind");
    let fp = server.fingerprint();
    let ccfg = ClientConfig {
        max_inbound_bytes: 2 * (MAX_RELIABLE_MESSAGE + 64),
        ..Default::default()
    };
    let client = QuicClient::connect_with(
        server.local_addr(),
        "127.0.0.1",
        TrustPolicy::Pinned(fp),
        ccfg,
    )
    .expect("starts");
    let mut p = Pair {
        server,
        client,
        s_events: Vec::new(),
        c_events: Vec::new(),
    };
    p.pump_until("the handshake", |s, c| {
        s.iter().any(|e| matches!(e, ServerEvent::Connected { .. }))
            && c.contains(&ClientEvent::Connected)
    });
    let peer = p
        .s_events
        .iter()
        .find_map(|e| match e {
            ServerEvent::Connected { peer, .. } => Some(*peer),
            _ => None,
        })
        .expect("connected");
    p.s_events.clear();
    // The client stops polling; far more than its windows can take is queued for it.
    let chunk = vec![0xC3u8; 64 << 10];
    for _ in 0..112 {
        p.server
            .send(peer, Channel::Reliable, &chunk)
            .expect("queued (7 MiB of 8)");
    }
    sleep(Duration::from_millis(200));
    p.server.disconnect(peer, "bye");
    let end = Instant::now() + PATIENCE;
    loop {
        p.server.poll(&mut p.s_events);
        if !p.s_events.is_empty() {
            break;
        }
        assert!(Instant::now() < end, "the disconnect never completed");
        sleep(Duration::from_millis(1));
    }
    assert_eq!(
        p.s_events,
        vec![ServerEvent::Disconnected {
            peer,
            reason: DisconnectReason::Local("bye".into())
        }]
    );
    // The client, polling again, gets what it had taken in and then the reason.
    p.pump_until("the client's disconnect", |_, c| {
        c.iter()
            .any(|e| matches!(e, ClientEvent::Disconnected { .. }))
    });
    assert_eq!(
        p.c_events.last(),
        Some(&ClientEvent::Disconnected {
            reason: DisconnectReason::Remote("bye".into())
        })
    );
    let got = client_payloads(&p.c_events, Channel::Reliable).len();
    assert!(got < 112, "the peer had stopped reading ({got} chunks)");
}

#[test]
fn ipv6_loopback_with_a_bracketed_known_hosts_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let v6 = SocketAddr::new(IpAddr::V6(std::net::Ipv6Addr::LOCALHOST), 0);
    let mut server = match QuicServer::bind(v6, dir.path(), ServerConfig::default()) {
        Ok(s) => s,
        Err(QuicError::Bind { source, .. })
            if source.kind() == std::io::ErrorKind::AddrNotAvailable =>
        {
            fl_fixtures::skip("this machine has no ::1");
            return;
        }
        Err(e) => panic!("bind ::1: {e}"),
    };
    let addr = server.local_addr();
    let known = dir.path().join("known_hosts");
    let mut client =
        QuicClient::connect(addr, "::1", TrustPolicy::KnownHosts(known.clone())).expect("starts");
    let end = Instant::now() + PATIENCE;
    let (mut sev, mut cev) = (Vec::new(), Vec::new());
    while !(cev.contains(&ClientEvent::Connected)
        && sev
            .iter()
            .any(|e| matches!(e, ServerEvent::Connected { .. })))
    {
        assert!(Instant::now() < end, "handshake over ::1: {sev:?} {cev:?}");
        server.poll(&mut sev);
        client.poll(&mut cev);
        sleep(Duration::from_millis(1));
    }
    assert!(
        sev.iter()
            .any(|e| matches!(e, ServerEvent::Connected { addr, .. } if addr.is_ipv6()))
    );
    let key = format!("[::1]:{}", addr.port());
    assert_eq!(known_hosts_key("::1", addr.port()), key);
    assert_eq!(
        KnownHosts::load(&known).expect("written").get(&key),
        Some(server.fingerprint())
    );
}

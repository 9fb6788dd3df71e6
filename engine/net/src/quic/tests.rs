//! QUIC tests that need the crate's insides: raw quinn clients that break the transport
//! protocol, and a loopback UDP relay that can black-hole a link. 127.0.0.1 only; every wait
//! is bounded.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle, sleep};
use std::time::{Duration, Instant};

use super::identity::{Fingerprint, FingerprintVerifier};
use super::{ALPN, ClientConfig, QuicClient, QuicServer, ServerConfig, TrustPolicy, wire};
use crate::{
    Channel, ClientEvent, ClientTransport, DisconnectReason, PeerId, ServerEvent, ServerTransport,
};

const PATIENCE: Duration = Duration::from_secs(30);

fn loopback() -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0)
}

/// A bare quinn client that trusts `fp` and speaks whatever bytes the test wants.
struct RawClient {
    rt: tokio::runtime::Runtime,
    conn: quinn::Connection,
}

impl RawClient {
    fn connect(addr: SocketAddr, fp: Fingerprint) -> RawClient {
        // Driven in the background, so its packets go out between the test's calls.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let provider = super::provider();
        let verifier = Arc::new(FingerprintVerifier::new(Some(fp), provider.clone()));
        let mut tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])
            .expect("tls13")
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        tls.alpn_protocols = vec![ALPN.to_vec()];
        let crypto = quinn::crypto::rustls::QuicClientConfig::try_from(tls).expect("quic tls");
        let conn = rt.block_on(async {
            let ep = quinn::Endpoint::client(loopback()).expect("bind");
            let connecting = ep
                .connect_with(
                    quinn::ClientConfig::new(Arc::new(crypto)),
                    addr,
                    "localhost",
                )
                .expect("connect");
            tokio::time::timeout(PATIENCE, connecting)
                .await
                .expect("handshake in time")
                .expect("handshake")
        });
        RawClient { rt, conn }
    }

    /// Opens the reliable stream and writes `bytes` on it; the stream stays open while the
    /// returned halves live.
    fn write_stream(&self, bytes: &[u8]) -> (quinn::SendStream, quinn::RecvStream) {
        self.rt.block_on(async {
            let (mut send, recv) = self.conn.open_bi().await.expect("stream");
            send.write_all(bytes).await.expect("write");
            (send, recv)
        })
    }

    /// Waits for the server to close the connection; returns its reason text.
    fn closed_reason(&self) -> String {
        self.rt.block_on(async {
            match tokio::time::timeout(PATIENCE, self.conn.closed()).await {
                Ok(quinn::ConnectionError::ApplicationClosed(c)) => {
                    String::from_utf8_lossy(&c.reason).into_owned()
                }
                other => panic!("expected an application close, got {other:?}"),
            }
        })
    }
}

fn pump<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let end = Instant::now() + PATIENCE;
    loop {
        if let Some(t) = f() {
            return t;
        }
        assert!(Instant::now() < end, "timed out waiting for {what}");
        sleep(Duration::from_millis(1));
    }
}

fn connect_good(
    server: &mut QuicServer,
    addr: SocketAddr,
    cfg: ClientConfig,
) -> (QuicClient, PeerId) {
    let mut client = QuicClient::connect_with(
        addr,
        "127.0.0.1",
        TrustPolicy::Pinned(server.fingerprint()),
        cfg,
    )
    .expect("client");
    let mut sev = Vec::new();
    let mut cev = Vec::new();
    let mut peer = None;
    let mut up = false;
    pump("a good client", || {
        server.poll(&mut sev);
        for e in sev.drain(..) {
            if let ServerEvent::Connected { peer: p, .. } = e {
                peer = Some(p);
            }
        }
        client.poll(&mut cev);
        up |= cev.drain(..).any(|e| e == ClientEvent::Connected);
        (up && peer.is_some()).then_some(())
    });
    (client, peer.unwrap_or_default())
}

/// Checks that `client` and `server` still exchange a reliable message both ways.
fn still_works(server: &mut QuicServer, client: &mut QuicClient, peer: PeerId) {
    client.send(Channel::Reliable, b"ping").expect("queued");
    server
        .send(peer, Channel::Reliable, b"pong")
        .expect("queued");
    let (mut got_s, mut got_c) = (false, false);
    let mut sev = Vec::new();
    let mut cev = Vec::new();
    pump("the good client's messages", || {
        server.poll(&mut sev);
        got_s |= sev.drain(..).any(|e| {
            matches!(e, ServerEvent::Received { peer: p, payload, .. } if p == peer && payload == b"ping")
        });
        client.poll(&mut cev);
        got_c |= cev
            .drain(..)
            .any(|e| matches!(e, ClientEvent::Received { payload, .. } if payload == b"pong"));
        (got_s && got_c).then_some(())
    });
}

#[test]
fn a_misbehaving_client_is_closed_without_affecting_another() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server =
        QuicServer::bind(loopback(), dir.path(), ServerConfig::default()).expect("bind");
    let addr = server.local_addr();
    let fp = server.fingerprint();
    let (mut good, good_peer) = connect_good(&mut server, addr, ClientConfig::default());

    // An oversized frame header after a valid stream header.
    let bad = RawClient::connect(addr, fp);
    let mut bytes = wire::STREAM_MAGIC.to_vec();
    bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    bytes.extend_from_slice(b"garbage that must never be buffered");
    let _s1 = bad.write_stream(&bytes);
    let mut sev = Vec::new();
    let (bad_peer, reason) = pump("the violation", || {
        server.poll(&mut sev);
        sev.iter().find_map(|e| match e {
            ServerEvent::Disconnected { peer, reason } => Some((*peer, reason.clone())),
            _ => None,
        })
    });
    assert_ne!(bad_peer, good_peer);
    let expected =
        "protocol violation: reliable frame of 4294967295 bytes exceeds the 1048576-byte limit";
    assert_eq!(reason, DisconnectReason::Local(expected.into()));
    assert_eq!(bad.closed_reason(), expected, "the offender is told why");
    still_works(&mut server, &mut good, good_peer);

    // A wrong stream header never becomes a peer.
    let bad2 = RawClient::connect(addr, fp);
    let _s2 = bad2.write_stream(b"HTTP/1.1 200 OK\r\n");
    assert_eq!(
        bad2.closed_reason(),
        "protocol violation: bad reliable stream header"
    );
    // Garbage datagrams are dropped, not fatal.
    let bad3 = RawClient::connect(addr, fp);
    let _s3 = bad3.write_stream(&wire::STREAM_MAGIC);
    for d in [&b"\x00"[..], b"\xff\xff", b"\x81\x01\x00\x09\x02xx", b""] {
        let _ = bad3.conn.send_datagram(bytes::Bytes::copy_from_slice(d));
    }
    still_works(&mut server, &mut good, good_peer);
    assert!(
        bad3.conn.close_reason().is_none(),
        "garbage datagrams do not close a connection"
    );
    assert_eq!(server.stats().violations, 2);
}

/// A loopback UDP relay between one client and the server that can drop everything.
struct Relay {
    addr: SocketAddr,
    blackhole: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Relay {
    fn new(server: SocketAddr) -> Relay {
        let outer = UdpSocket::bind(loopback()).expect("bind relay");
        let inner = UdpSocket::bind(loopback()).expect("bind relay");
        for s in [&outer, &inner] {
            s.set_read_timeout(Some(Duration::from_millis(2)))
                .expect("timeout");
        }
        let addr = outer.local_addr().expect("addr");
        let blackhole = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (b, s) = (blackhole.clone(), stop.clone());
        let thread = thread::spawn(move || {
            let mut client: Option<SocketAddr> = None;
            let mut buf = vec![0u8; 65_536];
            // Bounded: stops when asked, and after 5 minutes whatever happens.
            let end = Instant::now() + Duration::from_secs(300);
            while !s.load(Ordering::Relaxed) && Instant::now() < end {
                if let Ok((n, from)) = outer.recv_from(&mut buf) {
                    client = Some(from);
                    if !b.load(Ordering::Relaxed) {
                        let _ = inner.send_to(&buf[..n], server);
                    }
                }
                if let Ok((n, _)) = inner.recv_from(&mut buf)
                    && let Some(c) = client
                    && !b.load(Ordering::Relaxed)
                {
                    let _ = outer.send_to(&buf[..n], c);
                }
            }
        });
        Relay {
            addr,
            blackhole,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[test]
fn a_dead_link_times_out_on_both_sides_and_stalls_nobody() {
    let dir = tempfile::tempdir().expect("tempdir");
    let idle = Duration::from_millis(1500);
    let cfg = ServerConfig {
        idle_timeout: idle,
        keep_alive_interval: Duration::from_millis(300),
        ..Default::default()
    };
    let mut server = QuicServer::bind(loopback(), dir.path(), cfg).expect("bind");
    let addr = server.local_addr();
    let ccfg = ClientConfig {
        idle_timeout: idle,
        keep_alive_interval: Duration::from_millis(300),
        ..Default::default()
    };
    let (mut good, good_peer) = connect_good(&mut server, addr, ccfg);
    let relay = Relay::new(addr);
    let (mut cut, cut_peer) = connect_good(&mut server, relay.addr, ccfg);
    still_works(&mut server, &mut cut, cut_peer);

    // A quiet link stays up (keep-alives) well past the idle timeout.
    let end = Instant::now() + 2 * idle;
    let mut sev = Vec::new();
    let mut cev = Vec::new();
    while Instant::now() < end {
        server.poll(&mut sev);
        cut.poll(&mut cev);
        sleep(Duration::from_millis(5));
    }
    assert!(sev.is_empty() && cev.is_empty(), "{sev:?} {cev:?}");

    relay.blackhole.store(true, Ordering::Relaxed);
    // Sends to the dead peer keep succeeding (queued) and never block.
    for _ in 0..100 {
        server
            .send(cut_peer, Channel::Reliable, &[0u8; 1000])
            .expect("queued");
        server
            .send(cut_peer, Channel::Unreliable, &[0u8; 1000])
            .expect("queued");
    }
    let (mut server_saw, mut client_saw) = (None, None);
    pump("both idle timeouts", || {
        server.poll(&mut sev);
        for e in sev.drain(..) {
            if let ServerEvent::Disconnected { peer, reason } = e {
                assert_eq!(peer, cut_peer, "only the dead link goes");
                server_saw = Some(reason);
            }
        }
        cut.poll(&mut cev);
        for e in cev.drain(..) {
            if let ClientEvent::Disconnected { reason } = e {
                client_saw = Some(reason);
            }
        }
        (server_saw.is_some() && client_saw.is_some()).then_some(())
    });
    assert_eq!(server_saw, Some(DisconnectReason::TimedOut));
    assert_eq!(client_saw, Some(DisconnectReason::TimedOut));
    still_works(&mut server, &mut good, good_peer);
    drop(relay);
}

/// A server of another transport version (an older ALPN) refuses this build in the handshake,
/// and the client's reason says so in words a player can act on.
#[test]
fn a_server_of_another_transport_version_is_named_as_such() {
    let dir = tempfile::tempdir().expect("tempdir");
    let identity = super::identity::ServerIdentity::load_or_create(dir.path()).expect("identity");
    let fingerprint = identity.fingerprint();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let mut tls = rustls::ServerConfig::builder_with_provider(super::provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("tls13")
        .with_no_client_auth()
        .with_single_cert(vec![identity.cert.clone()], identity.key.clone_key())
        .expect("cert");
    tls.alpn_protocols = vec![b"fighters-legacy/1".to_vec()];
    assert_ne!(
        tls.alpn_protocols[0], ALPN,
        "the test needs a version this build does not speak"
    );
    let crypto = quinn::crypto::rustls::QuicServerConfig::try_from(tls).expect("quic tls");
    let endpoint = {
        let _guard = rt.enter();
        quinn::Endpoint::server(
            quinn::ServerConfig::with_crypto(Arc::new(crypto)),
            loopback(),
        )
        .expect("bind")
    };
    let addr = endpoint.local_addr().expect("addr");
    // Accept (and drive) the handshake attempt so the server's refusal goes out.
    let accepting = endpoint.clone();
    rt.spawn(async move {
        if let Some(incoming) = accepting.accept().await {
            let _ = incoming.await;
        }
    });

    let mut client = QuicClient::connect_with(
        addr,
        "127.0.0.1",
        TrustPolicy::Pinned(fingerprint),
        ClientConfig::default(),
    )
    .expect("client");
    let mut events = Vec::new();
    let reason = pump("the refusal", || {
        client.poll(&mut events);
        events.drain(..).find_map(|e| match e {
            ClientEvent::Disconnected { reason } => Some(reason),
            _ => None,
        })
    });
    assert_eq!(
        reason,
        DisconnectReason::Remote(super::link::ALPN_MISMATCH.to_owned()),
        "{reason}"
    );
    drop(client);
    endpoint.close(0u32.into(), b"done");
    rt.shutdown_timeout(Duration::from_secs(1));
}

//! The real transport on loopback: the embedded single-player server (ready over a channel,
//! pause/resume, joined within two seconds on drop), a headless single-player flight through
//! QUIC with a pinned identity, and a changed server identity refused with a clear message
//! (pinned and trust-on-first-use). 127.0.0.1 only, a few seconds in all.

use fighters_legacy::headless::{HeadlessOptions, Mode, run};
use fighters_legacy::local_server::{LocalServer, LocalServerConfig};
use fighters_legacy::messages::EndReason;
use fighters_legacy::session::{ClientSession, SessionConfig, SessionEvent, SessionState};
use fl_net::quic::{
    ClientConfig as QuicClientConfig, Fingerprint, QuicClient, QuicServer,
    ServerConfig as QuicConfig, TrustPolicy,
};
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

fn wait(mut done: impl FnMut() -> bool, limit: Duration) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    done()
}

/// Services a session in real time until `done` (at most `limit`).
fn drive(
    s: &mut ClientSession,
    started: Instant,
    limit: Duration,
    mut done: impl FnMut(&ClientSession) -> bool,
) -> Vec<SessionEvent> {
    let mut ev = Vec::new();
    let end = Instant::now() + limit;
    while Instant::now() < end && !done(s) {
        s.update(started.elapsed(), &mut ev);
        std::thread::sleep(Duration::from_millis(5));
    }
    ev
}

#[test]
fn the_local_server_starts_pauses_resumes_and_stops_within_two_seconds() {
    let mut server = LocalServer::spawn(LocalServerConfig::default()).expect("spawned");
    assert!(wait(
        || server.poll_ready().is_some(),
        Duration::from_secs(20)
    ));
    let info = server.info().expect("ready");
    assert!(info.addr.ip().is_loopback() && info.addr.port() != 0);
    assert!(server.is_running());

    let started = Instant::now();
    let mut s = ClientSession::connect_quic(
        info.addr,
        "localhost",
        TrustPolicy::Pinned(info.fingerprint),
        SessionConfig::default(),
        Duration::ZERO,
    )
    .expect("connect");
    drive(&mut s, started, Duration::from_secs(10), |s| {
        s.last_snapshot_tick().is_some() || s.state() == SessionState::Ended
    });
    assert_eq!(s.state(), SessionState::InWorld, "{:?}", s.end_reason());

    server.pause();
    assert!(wait(
        || server.metrics().is_some_and(|m| m.paused),
        Duration::from_secs(5)
    ));
    let tick = s.last_snapshot_tick();
    drive(&mut s, started, Duration::from_millis(300), |_| false);
    assert_eq!(
        s.last_snapshot_tick(),
        tick,
        "a paused world sends no snapshots"
    );
    assert_eq!(s.state(), SessionState::InWorld, "but the session stays");
    server.resume();
    assert!(wait(
        || server.metrics().is_some_and(|m| !m.paused),
        Duration::from_secs(5)
    ));
    drive(&mut s, started, Duration::from_secs(3), |s| {
        s.last_snapshot_tick() > tick
    });
    assert!(s.last_snapshot_tick() > tick);

    let t = Instant::now();
    drop(server);
    let took = t.elapsed();
    println!("local server stopped and joined in {took:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    drive(&mut s, started, Duration::from_secs(3), |s| {
        s.state() == SessionState::Ended
    });
    let end = s.end_reason().expect("the session learns of it");
    assert!(matches!(end, EndReason::ServerShutdown { .. }), "{end:?}");
    println!("{}", end.message());
}

#[test]
fn single_player_flies_over_loopback_quic() {
    let opts = HeadlessOptions {
        mode: Mode::SinglePlayer,
        seconds: 3.0,
        autopilot: "level".into(),
        ..HeadlessOptions::default()
    };
    let s = run(&opts).expect("runs");
    println!("{}", serde_json::to_string(&s).expect("json"));
    assert!(s.succeeded(), "{:?}", s.session);
    assert!(s.snapshots.applied > 100, "{}", s.snapshots.applied);
    assert!(s.prediction.enabled && s.prediction.compared > 50);
    assert!(s.render.frames > 200);
    assert!(s.network.rtt_ms < 50.0);
    assert_eq!(s.session.entity_types, 2);
}

#[test]
fn a_changed_identity_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let known_hosts = dir.path().join("known_hosts");
    let a = QuicServer::bind(
        "127.0.0.1:0".parse().expect("addr"),
        &dir.path().join("a"),
        QuicConfig::default(),
    )
    .expect("bind a");
    let addr = fl_net::ServerTransport::local_addr(&a);

    // Trust on first use records the identity.
    let started = Instant::now();
    let mut s = ClientSession::connect_quic(
        addr,
        "127.0.0.1",
        TrustPolicy::KnownHosts(known_hosts.clone()),
        SessionConfig::default(),
        Duration::ZERO,
    )
    .expect("connect");
    drive(&mut s, started, Duration::from_secs(10), |s| {
        s.state() != SessionState::Connecting
    });
    assert_eq!(s.state(), SessionState::Handshaking, "{:?}", s.end_reason());
    let recorded = std::fs::read_to_string(&known_hosts).expect("recorded");
    assert!(recorded.contains(&a.fingerprint().to_string()));
    drop(s);
    drop(a);

    // Another identity at the same address is refused.
    let b = QuicServer::bind(addr, &dir.path().join("b"), QuicConfig::default()).expect("bind b");
    let mut s = ClientSession::connect_quic(
        addr,
        "127.0.0.1",
        TrustPolicy::KnownHosts(known_hosts.clone()),
        SessionConfig::default(),
        Duration::ZERO,
    )
    .expect("connect");
    drive(&mut s, started, Duration::from_secs(10), |s| {
        s.state() == SessionState::Ended
    });
    let end = s.end_reason().expect("refused").clone();
    assert!(matches!(end, EndReason::IdentityChanged { .. }), "{end:?}");
    let m = end.message();
    assert!(
        m.contains("identity changed") && m.contains("known_hosts"),
        "{m}"
    );
    // It names the file and the line to delete (line 1 is the file's header comment).
    let key = fl_net::quic::known_hosts_key("127.0.0.1", addr.port());
    assert!(
        m.contains(&format!(
            "delete line 2 (`{key} …`) of {}",
            known_hosts.display()
        )),
        "{m}"
    );
    assert!(m.contains(&b.fingerprint().to_string()), "{m}");
    assert!(!end.is_retryable());

    // A pinned fingerprint that is not the server's is refused the same way.
    let wrong: Fingerprint = "00".repeat(32).parse().expect("fingerprint");
    let mut s = ClientSession::connect_quic(
        addr,
        "127.0.0.1",
        TrustPolicy::Pinned(wrong),
        SessionConfig::default(),
        Duration::ZERO,
    )
    .expect("connect");
    drive(&mut s, started, Duration::from_secs(10), |s| {
        s.state() == SessionState::Ended
    });
    assert!(matches!(
        s.end_reason(),
        Some(EndReason::IdentityChanged { .. })
    ));
    drop(b);
}

/// A UDP port on 127.0.0.1 that receives and never answers.
fn silent_port() -> (UdpSocket, SocketAddr) {
    let socket = UdpSocket::bind("127.0.0.1:0").expect("bind loopback");
    let addr = socket.local_addr().expect("addr");
    (socket, addr)
}

fn assert_join_timeout_message(end: &EndReason, addr: SocketAddr) {
    assert!(
        matches!(
            end,
            EndReason::HandshakeTimeout {
                stage: "waiting for the connection",
                server: Some(a),
                ..
            } if *a == addr
        ),
        "{end:?}"
    );
    let m = end.message();
    assert!(
        m.starts_with(&format!(
            "The server at {addr} did not answer in time (waiting for the connection, "
        )),
        "{m}"
    );
    assert!(m.contains("address and port"), "{m}");
    assert!(end.is_retryable());
}

#[test]
fn a_silent_address_ends_the_join_with_stage_address_and_timeout() {
    let (_silent, addr) = silent_port();
    let cfg = SessionConfig {
        handshake_timeout: Duration::from_millis(400),
        ..SessionConfig::default()
    };
    let started = Instant::now();
    let mut s = ClientSession::connect_quic(
        addr,
        "127.0.0.1",
        TrustPolicy::Pinned(Fingerprint([1; 32])),
        cfg,
        Duration::ZERO,
    )
    .expect("connect");
    drive(&mut s, started, Duration::from_secs(20), |s| {
        s.state() == SessionState::Ended
    });
    assert_join_timeout_message(s.end_reason().expect("ended"), addr);
}

#[test]
fn the_transport_connect_timeout_ends_the_join_with_the_same_message() {
    // The transport's timer fires long before the session's: the player reads the same text.
    let (_silent, addr) = silent_port();
    let quic = QuicClient::connect_with(
        addr,
        "127.0.0.1",
        TrustPolicy::Pinned(Fingerprint([1; 32])),
        QuicClientConfig {
            connect_timeout: Duration::from_millis(300),
            ..QuicClientConfig::default()
        },
    )
    .expect("starts");
    let cfg = SessionConfig {
        handshake_timeout: Duration::from_secs(3600),
        ..SessionConfig::default()
    };
    let started = Instant::now();
    let mut s = ClientSession::new(Box::new(quic), cfg, Duration::ZERO).with_server_addr(addr);
    drive(&mut s, started, Duration::from_secs(20), |s| {
        s.state() == SessionState::Ended
    });
    assert_join_timeout_message(s.end_reason().expect("ended"), addr);
}

#[test]
fn a_short_headless_run_still_reports_the_join_timeout() {
    // `--seconds` far shorter than the join timeout: the run waits for the join's outcome.
    let (_silent, addr) = silent_port();
    let mut opts = HeadlessOptions {
        mode: Mode::Connect {
            host: "127.0.0.1".into(),
            port: addr.port(),
        },
        seconds: 0.05,
        pin: Some(Fingerprint([1; 32])),
        ..HeadlessOptions::default()
    };
    opts.session.handshake_timeout = Duration::from_millis(500);
    let summary = run(&opts).expect("runs");
    assert!(!summary.succeeded());
    assert!(!summary.session.admitted);
    let ended = summary
        .session
        .ended
        .as_deref()
        .expect("the join's end is reported");
    assert!(
        ended.starts_with(&format!(
            "The server at {addr} did not answer in time (waiting for the connection, "
        )),
        "{ended}"
    );
    assert_eq!(summary.session.retryable, Some(true));
}

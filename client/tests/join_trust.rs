//! Joining a server for the first time through the game window's launch (`app::launch`, the
//! thread behind the Loading screen), against real servers on 127.0.0.1:
//!
//! - first contact reads the server's identity and asks (`LaunchMsg::Trust` with the server's
//!   fingerprint) before anything is written to `known_hosts`; *Trust* records it and the
//!   session joins; a second join does not ask;
//! - declining (or dropping the question: Cancel, the window closing) writes nothing and ends
//!   with a sentence saying so;
//! - an identity swapped between the prompt and the join is refused, naming both fingerprints
//!   and the `known_hosts` line, and so is a later join of the swapped server (no prompt).
//!
//! Every wait is bounded; nothing asserts speed.

use std::path::Path;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use fighters_legacy::app::launch::{
    self, Destination, LaunchMsg, LaunchRequest, Launched, TrustQuestion,
};
use fighters_legacy::autopilot::Idle;
use fighters_legacy::client::ClientConfig;
use fighters_legacy::content::ContentOptions;
use fighters_legacy::local_server::{LocalServer, LocalServerConfig};
use fighters_legacy::messages::EndReason;
use fighters_legacy::session::{SessionConfig, SessionState};
use fl_net::ServerTransport;
use fl_net::quic::{KnownHosts, QuicServer, ServerConfig as QuicConfig, known_hosts_key};

/// Generous: the machine may be a loaded 2-core box.
const PATIENCE: Duration = Duration::from_secs(60);

fn request(port: u16, known_hosts: &Path) -> LaunchRequest {
    LaunchRequest {
        destination: Destination::Server {
            host: "127.0.0.1".into(),
            port,
            pin: None,
            known_hosts: known_hosts.to_path_buf(),
        },
        content: None,
        // The builtin content only, as the embedded test server has.
        content_options: ContentOptions {
            user_mods: false,
            ..ContentOptions::default()
        },
        aircraft: None,
        local: LocalServerConfig::default(),
        session: SessionConfig::default(),
        client: ClientConfig::default(),
    }
}

/// What a launch said up to its first question or its end.
enum Outcome {
    Asked(TrustQuestion),
    Ready(Box<Launched>),
    Failed(String),
}

fn next(rx: &Receiver<LaunchMsg>, lines: &mut Vec<String>) -> Outcome {
    let end = Instant::now() + PATIENCE;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let msg = rx
            .recv_timeout(left)
            .unwrap_or_else(|e| panic!("the launch said nothing more ({e}); lines: {lines:?}"));
        match msg {
            LaunchMsg::Progress(line) => lines.push(line),
            LaunchMsg::Trust(q) => return Outcome::Asked(q),
            LaunchMsg::Ready(l) => return Outcome::Ready(l),
            LaunchMsg::Failed(m) => return Outcome::Failed(m),
        }
    }
}

fn asked(o: Outcome, lines: &[String]) -> TrustQuestion {
    match o {
        Outcome::Asked(q) => q,
        Outcome::Ready(_) => panic!("joined without asking; lines: {lines:?}"),
        Outcome::Failed(m) => panic!("failed before asking: {m}; lines: {lines:?}"),
    }
}

fn ready(o: Outcome, lines: &[String]) -> Launched {
    match o {
        Outcome::Ready(l) => *l,
        Outcome::Asked(q) => panic!("asked about {} again; lines: {lines:?}", q.server),
        Outcome::Failed(m) => panic!("failed: {m}; lines: {lines:?}"),
    }
}

/// Services the launched client until its session is in the world or has ended.
fn fly_until_settled(l: &mut Launched) -> SessionState {
    let end = Instant::now() + PATIENCE;
    while Instant::now() < end {
        l.client.frame(l.started.elapsed(), &mut Idle);
        let state = l.client.session().state();
        if matches!(state, SessionState::InWorld | SessionState::Ended) {
            return state;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    l.client.session().state()
}

#[test]
fn first_contact_asks_then_trust_records_and_joins_and_the_next_join_does_not_ask() {
    let server = LocalServer::start(LocalServerConfig::default(), Duration::from_secs(30))
        .expect("the test server starts");
    let info = server.info().expect("ready");
    assert!(info.addr.ip().is_loopback());
    let dir = tempfile::tempdir().expect("tempdir");
    let known_hosts = dir.path().join("config").join("known_hosts");
    let key = known_hosts_key("127.0.0.1", info.addr.port());

    let rx = launch::start(request(info.addr.port(), &known_hosts));
    let mut lines = Vec::new();
    let q = asked(next(&rx, &mut lines), &lines);
    assert_eq!(q.fingerprint, info.fingerprint, "the server's own identity");
    assert_eq!(q.server, key);
    assert!(
        !known_hosts.exists(),
        "nothing is written before the player answers"
    );
    assert!(
        lines.iter().any(|l| l.contains("is a new server")),
        "{lines:?}"
    );
    q.answer(true);
    let mut launched = ready(next(&rx, &mut lines), &lines);
    assert_eq!(
        KnownHosts::load(&known_hosts).expect("written").get(&key),
        Some(info.fingerprint)
    );
    assert!(lines.iter().any(|l| l.starts_with("trusted ")), "{lines:?}");
    assert_eq!(
        fly_until_settled(&mut launched),
        SessionState::InWorld,
        "{:?}",
        launched.client.end_reason()
    );
    launched.client.disconnect("test over");
    drop(launched);
    let written = std::fs::read_to_string(&known_hosts).expect("readable");

    // The second join goes straight in.
    let rx = launch::start(request(info.addr.port(), &known_hosts));
    let mut lines = Vec::new();
    let mut launched = ready(next(&rx, &mut lines), &lines);
    assert_eq!(
        fly_until_settled(&mut launched),
        SessionState::InWorld,
        "{:?}",
        launched.client.end_reason()
    );
    assert!(
        !lines.iter().any(|l| l.contains("is a new server")),
        "{lines:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&known_hosts).expect("readable"),
        written
    );
    launched.client.disconnect("test over");
    drop(launched);
    server.stop();
}

#[test]
fn declining_writes_nothing_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = QuicServer::bind(
        "127.0.0.1:0".parse().expect("addr"),
        &dir.path().join("server"),
        QuicConfig::default(),
    )
    .expect("bind loopback");
    let port = server.local_addr().port();
    let known_hosts = dir.path().join("known_hosts");
    // Answering "Don't Connect", and dropping the question (Cancel, the window closed).
    for answer in [Some(false), None] {
        let rx = launch::start(request(port, &known_hosts));
        let mut lines = Vec::new();
        let q = asked(next(&rx, &mut lines), &lines);
        assert_eq!(q.fingerprint, server.fingerprint());
        match answer {
            Some(a) => q.answer(a),
            None => drop(q),
        }
        let Outcome::Failed(m) = next(&rx, &mut lines) else {
            panic!("declined but went on ({answer:?}); lines: {lines:?}");
        };
        assert!(
            m.contains("you did not trust the identity of 127.0.0.1:")
                && m.contains("Nothing was saved"),
            "{m}"
        );
        assert!(!known_hosts.exists(), "{answer:?}");
    }
}

#[test]
fn an_identity_swapped_after_the_prompt_is_refused_naming_both() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = QuicServer::bind(
        "127.0.0.1:0".parse().expect("addr"),
        &dir.path().join("a"),
        QuicConfig::default(),
    )
    .expect("bind a");
    let addr = a.local_addr();
    let fp_a = a.fingerprint();
    let known_hosts = dir.path().join("known_hosts");
    let key = known_hosts_key("127.0.0.1", addr.port());

    let rx = launch::start(request(addr.port(), &known_hosts));
    let mut lines = Vec::new();
    let q = asked(next(&rx, &mut lines), &lines);
    assert_eq!(q.fingerprint, fp_a);
    // While the player reads the prompt, another identity takes the address.
    drop(a);
    let b = QuicServer::bind(addr, &dir.path().join("b"), QuicConfig::default()).expect("bind b");
    let fp_b = b.fingerprint();
    assert_ne!(fp_a, fp_b);
    q.answer(true);
    let mut launched = ready(next(&rx, &mut lines), &lines);
    assert_eq!(fly_until_settled(&mut launched), SessionState::Ended);
    let end = launched.client.end_reason().cloned().expect("ended");
    assert!(matches!(end, EndReason::IdentityChanged { .. }), "{end:?}");
    let m = end.message();
    assert!(
        m.contains(&format!("expected fingerprint {fp_a}, got {fp_b}")),
        "{m}"
    );
    assert!(
        m.contains(&format!(
            "delete line 2 (`{key} …`) of {}",
            known_hosts.display()
        )),
        "{m}"
    );
    // What the player trusted is what was recorded.
    assert_eq!(
        KnownHosts::load(&known_hosts).expect("written").get(&key),
        Some(fp_a)
    );
    drop(launched);

    // Joining again: known, so no prompt, and still refused with both fingerprints.
    let rx = launch::start(request(addr.port(), &known_hosts));
    let mut lines = Vec::new();
    let mut launched = ready(next(&rx, &mut lines), &lines);
    assert_eq!(fly_until_settled(&mut launched), SessionState::Ended);
    let m = launched
        .client
        .end_reason()
        .map(EndReason::message)
        .unwrap_or_default();
    assert!(
        m.contains(&fp_a.to_string()) && m.contains(&fp_b.to_string()),
        "{m}"
    );
    drop(launched);
    drop(b);
}

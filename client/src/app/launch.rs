//! Starting a session behind the Loading screen: the content stack, the embedded server (single
//! player) and the QUIC connection are set up on a thread of their own, which reports progress
//! lines and finally the ready [`Client`] (or why it could not start) over a channel, so the
//! window keeps drawing while they load.
//!
//! Joining a server this client has never joined (no `known_hosts` entry, no `--pin`) first
//! reads its identity with an identity probe, asks the player through
//! [`LaunchMsg::Trust`] and waits for the answer; only a trusted identity is recorded and
//! joined.
//!
//! Owns that thread, the messages and the trust decision. Must not touch the window or the GPU,
//! or write `known_hosts` before the player said yes.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use fl_content::Content;
use fl_net::DisconnectReason;
use fl_net::quic::{
    ClientConfig as QuicClientConfig, Fingerprint, KnownHosts, QuicClient, QuicError, TrustPolicy,
    known_hosts_key,
};

use crate::client::{Client, ClientConfig};
use crate::content::ContentOptions;
use crate::local_server::{LocalServer, LocalServerConfig};
use crate::messages::EndReason;
use crate::session::{ClientSession, SessionConfig};

/// Where the session goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Destination {
    /// The embedded server on loopback.
    SinglePlayer,
    /// A server by host and port.
    Server {
        host: String,
        port: u16,
        /// Accept only this identity (else trust on first use through `known_hosts`).
        pin: Option<Fingerprint>,
        known_hosts: PathBuf,
    },
}

/// Everything a launch needs.
#[derive(Debug, Clone)]
pub struct LaunchRequest {
    pub destination: Destination,
    /// The content stack when already loaded (else `content_options` is loaded here).
    pub content: Option<Arc<Content>>,
    pub content_options: ContentOptions,
    /// The aircraft type to fly (checked against the content; `None`: the server's default).
    pub aircraft: Option<String>,
    pub local: LocalServerConfig,
    pub session: SessionConfig,
    pub client: ClientConfig,
}

/// A session that is up (its join may still be under way: the window keeps servicing it).
#[derive(Debug)]
pub struct Launched {
    pub client: Client,
    /// The embedded server (single player), stopped when dropped.
    pub server: Option<LocalServer>,
    pub content: Arc<Content>,
    /// The session clock's zero (pass `started.elapsed()` to `Client::frame`).
    pub started: Instant,
}

/// What the launch thread reports.
#[derive(Debug)]
pub enum LaunchMsg {
    Progress(String),
    /// A server this client has never joined: show its identity and answer (the launch waits;
    /// dropping the question declines).
    Trust(TrustQuestion),
    Ready(Box<Launched>),
    Failed(String),
}

/// A new server's identity waiting for the player's answer. Nothing has been trusted or
/// written yet; [`TrustQuestion::answer`] with `true` records it and joins, anything else
/// (`false`, or dropping the question: Cancel, the window closing) ends the launch.
#[derive(Debug)]
pub struct TrustQuestion {
    /// The server as `known_hosts` keys it (`host:port`, IPv6 literals in brackets).
    pub server: String,
    /// The identity it presented.
    pub fingerprint: Fingerprint,
    reply: Sender<bool>,
}

impl TrustQuestion {
    /// The player's answer.
    pub fn answer(self, trust: bool) {
        let _ = self.reply.send(trust);
    }
}

/// How a server destination is trusted (decided before anything is sent to it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerTrust {
    /// `--pin`: only this identity.
    Pinned(Fingerprint),
    /// `known_hosts` has the server (its line holds this identity): join as it says; another
    /// identity is refused, naming both fingerprints and the line.
    Known(Fingerprint),
    /// Never joined: read its identity and ask the player first.
    FirstContact,
}

/// Most time the embedded server may take to start.
const SERVER_START_TIMEOUT: Duration = Duration::from_secs(20);

/// How long the launch waits for the player to answer the trust prompt (then it gives up, as if
/// declined, with its own message).
pub const TRUST_ANSWER_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// Starts the launch thread; its messages arrive on the returned channel.
pub fn start(req: LaunchRequest) -> Receiver<LaunchMsg> {
    let (tx, rx) = mpsc::channel();
    let fail_tx = tx.clone();
    let spawned = std::thread::Builder::new()
        .name("fl-launch".into())
        .spawn(move || {
            let msg = match launch(req, &tx) {
                Ok(l) => LaunchMsg::Ready(Box::new(l)),
                Err(e) => LaunchMsg::Failed(e),
            };
            let _ = tx.send(msg);
        });
    if let Err(e) = spawned {
        let _ = fail_tx.send(LaunchMsg::Failed(format!(
            "cannot start the loading thread: {e}"
        )));
    }
    rx
}

fn progress(tx: &Sender<LaunchMsg>, line: impl Into<String>) {
    let _ = tx.send(LaunchMsg::Progress(line.into()));
}

fn launch(req: LaunchRequest, tx: &Sender<LaunchMsg>) -> Result<Launched, String> {
    let content = match req.content {
        Some(c) => c,
        None => {
            progress(tx, "loading content packs…");
            crate::content::load(&req.content_options, req.aircraft.as_deref())
                .map_err(|e| format!("the content could not be loaded: {e}"))?
        }
    };
    progress(
        tx,
        format!(
            "content: {} pack(s), {} entity type(s)",
            content.packs().len(),
            content.types().len()
        ),
    );
    let mut session = req.session.clone();
    session.packs = crate::content::manifest(&content);
    session.pack_hashes = crate::content::pack_hashes(&content);
    let mut local = req.local.clone();
    local.content = Some(content.clone());
    if let Some(id) = &req.aircraft {
        session.requested_entity_type = id.clone();
        local.server.player_entity_type = id.clone();
    }
    let (addr, server_name, trust, server) = match &req.destination {
        Destination::SinglePlayer => {
            progress(tx, "starting the embedded server on 127.0.0.1…");
            let server = LocalServer::start(local, SERVER_START_TIMEOUT).map_err(|e| {
                format!(
                    "the embedded server did not start: {}",
                    fl_net::error_chain(&e)
                )
            })?;
            let info = server
                .info()
                .ok_or_else(|| "the embedded server stopped while starting".to_owned())?;
            progress(tx, format!("embedded server listening on {}", info.addr));
            (
                info.addr,
                "localhost".to_owned(),
                TrustPolicy::Pinned(info.fingerprint),
                Some(server),
            )
        }
        Destination::Server {
            host,
            port,
            pin,
            known_hosts,
        } => {
            progress(tx, format!("resolving {host}:{port}…"));
            let addr = resolve(host, *port)?;
            let trust = match server_trust(host, *port, *pin, known_hosts)? {
                ServerTrust::Pinned(fp) => TrustPolicy::Pinned(fp),
                ServerTrust::Known(_) => TrustPolicy::KnownHosts(known_hosts.clone()),
                ServerTrust::FirstContact => {
                    first_contact(tx, addr, host, *port, known_hosts, &session)?;
                    // The entry now holds exactly the identity the player trusted: another one
                    // at connect time is refused, naming the line.
                    TrustPolicy::KnownHosts(known_hosts.clone())
                }
            };
            (addr, host.clone(), trust, None)
        }
    };
    progress(tx, format!("connecting to {addr}…"));
    let started = Instant::now();
    let session = ClientSession::connect_quic(addr, &server_name, trust, session, Duration::ZERO)
        .map_err(|e| format!("cannot connect to {addr}: {}", fl_net::error_chain(&e)))?;
    progress(
        tx,
        "joining: waiting for the server's welcome and the aircraft…",
    );
    let client = Client::new(session, req.client, Some(content.clone()));
    Ok(Launched {
        client,
        server,
        content,
        started,
    })
}

/// How to trust `host:port`: the pin when given, else its `known_hosts` entry, else first
/// contact. A damaged `known_hosts` is an error naming the file and line (a pin must never be
/// dropped silently).
pub fn server_trust(
    host: &str,
    port: u16,
    pin: Option<Fingerprint>,
    known_hosts: &Path,
) -> Result<ServerTrust, String> {
    if let Some(fp) = pin {
        return Ok(ServerTrust::Pinned(fp));
    }
    let hosts = KnownHosts::load(known_hosts).map_err(|e| {
        format!(
            "The list of trusted servers could not be read ({}). Fix or delete that file and \
             try again.",
            fl_net::error_chain(&e)
        )
    })?;
    Ok(match hosts.get(&known_hosts_key(host, port)) {
        Some(fp) => ServerTrust::Known(fp),
        None => ServerTrust::FirstContact,
    })
}

/// A server never joined: read its identity, ask the player, and on yes record it.
fn first_contact(
    tx: &Sender<LaunchMsg>,
    addr: SocketAddr,
    host: &str,
    port: u16,
    known_hosts: &Path,
    session: &SessionConfig,
) -> Result<(), String> {
    let key = known_hosts_key(host, port);
    progress(
        tx,
        format!("{key} is a new server: reading its identity (nothing is sent to it)…"),
    );
    let quic = QuicClientConfig {
        connect_timeout: session.handshake_timeout,
        idle_timeout: session.idle_timeout,
        ..QuicClientConfig::default()
    };
    let gives_up = quic.connect_timeout.min(quic.idle_timeout);
    let fingerprint = QuicClient::probe_identity(addr, host, quic)
        .map_err(|e| probe_failure_message(&e, gives_up))?;
    let (reply, answer) = mpsc::channel();
    let question = TrustQuestion {
        server: key.clone(),
        fingerprint,
        reply,
    };
    tx.send(LaunchMsg::Trust(question))
        .map_err(|_| "Cancelled.".to_owned())?;
    progress(tx, format!("waiting for you to check {key}'s identity…"));
    await_answer(&answer, TRUST_ANSWER_TIMEOUT, &key)?;
    remember(known_hosts, &key, fingerprint)?;
    progress(
        tx,
        format!("trusted {key} (saved in {})", known_hosts.display()),
    );
    Ok(())
}

/// Waits for the player's answer: `Ok` only for a yes.
fn await_answer(answer: &Receiver<bool>, limit: Duration, key: &str) -> Result<(), String> {
    let declined = || crate::screens::declined_message(key);
    match answer.recv_timeout(limit) {
        Ok(true) => Ok(()),
        Ok(false) | Err(RecvTimeoutError::Disconnected) => Err(declined()),
        Err(RecvTimeoutError::Timeout) => Err(format!(
            "Not joined: the identity of {key} was not confirmed within {} minutes. Nothing was \
             saved.",
            limit.as_secs() / 60
        )),
    }
}

/// Records `key → fingerprint` in `known_hosts` and checks that the file now holds that very
/// identity (another process may have recorded a different one meanwhile: first use wins, and
/// then the player's answer does not apply to it).
fn remember(known_hosts: &Path, key: &str, fingerprint: Fingerprint) -> Result<(), String> {
    let file = known_hosts.display();
    KnownHosts::record(known_hosts, key, fingerprint).map_err(|e| {
        format!(
            "The server's identity could not be saved, so it was not joined ({}).",
            fl_net::error_chain(&e)
        )
    })?;
    let saved = KnownHosts::load(known_hosts)
        .map_err(|e| format!("{file} could not be read back: {}", fl_net::error_chain(&e)))?
        .get(key);
    match saved {
        Some(fp) if fp == fingerprint => Ok(()),
        Some(other) => Err(format!(
            "Not joined: {file} already trusts another identity for {key} ({other}), not the one \
             you were shown ({fingerprint}). Check with the server's operator, delete that line \
             and join again."
        )),
        None => Err(format!(
            "Not joined: the identity of {key} did not appear in {file} after saving it."
        )),
    }
}

/// The player's sentence for a probe that learned no identity (the same words as a join that
/// failed the same way).
fn probe_failure_message(e: &QuicError, gives_up: Duration) -> String {
    let QuicError::Probe { addr, reason } = e else {
        return format!("Could not reach the server: {}", fl_net::error_chain(e));
    };
    let end = match (**reason).clone() {
        DisconnectReason::TimedOut => EndReason::HandshakeTimeout {
            waited: gives_up,
            stage: "waiting for the connection",
            server: Some(*addr),
        },
        DisconnectReason::Remote(text) => EndReason::ClosedByServer(text),
        DisconnectReason::Local(text) => EndReason::Local(text),
        DisconnectReason::Transport(text) => EndReason::Transport(text),
        // The probe trusts any identity, so this cannot happen; say it plainly if it does.
        other @ DisconnectReason::IdentityChanged { .. } => EndReason::Transport(other.to_string()),
    };
    end.message()
}

fn resolve(host: &str, port: u16) -> Result<SocketAddr, String> {
    (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}:{port}: {e}"))?
        .next()
        .ok_or_else(|| format!("{host}:{port} resolves to no address"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_wins_then_known_hosts_then_first_contact() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("config").join("known_hosts");
        let fp = Fingerprint([7; 32]);
        let pin = Fingerprint([9; 32]);
        // No file yet: a new server.
        assert_eq!(
            server_trust("example.org", 4778, None, &file),
            Ok(ServerTrust::FirstContact)
        );
        assert_eq!(
            server_trust("example.org", 4778, Some(pin), &file),
            Ok(ServerTrust::Pinned(pin))
        );
        KnownHosts::record(&file, "example.org:4778", fp).expect("recorded");
        KnownHosts::record(&file, "[::1]:4778", fp).expect("recorded");
        assert_eq!(
            server_trust("example.org", 4778, None, &file),
            Ok(ServerTrust::Known(fp))
        );
        assert_eq!(
            server_trust("::1", 4778, None, &file),
            Ok(ServerTrust::Known(fp))
        );
        // Another port is another server.
        assert_eq!(
            server_trust("example.org", 4779, None, &file),
            Ok(ServerTrust::FirstContact)
        );
        assert_eq!(
            server_trust("example.org", 4778, Some(pin), &file),
            Ok(ServerTrust::Pinned(pin))
        );
    }

    #[test]
    fn a_damaged_known_hosts_is_named_not_ignored() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("known_hosts");
        std::fs::write(&file, "# ok\nexample.org:4778 not-a-fingerprint\n").expect("write");
        let m = server_trust("example.org", 4778, None, &file).expect_err("damaged");
        assert!(m.contains(&file.display().to_string()), "{m}");
        assert!(m.contains("line 2"), "{m}");
        assert!(m.contains("Fix or delete"), "{m}");
    }

    #[test]
    fn only_a_yes_goes_on() {
        let key = "example.org:4778";
        let (tx, rx) = mpsc::channel();
        tx.send(true).expect("send");
        assert_eq!(await_answer(&rx, Duration::from_secs(60), key), Ok(()));
        tx.send(false).expect("send");
        let m = await_answer(&rx, Duration::from_secs(60), key).expect_err("declined");
        assert!(
            m.contains("did not trust the identity of example.org:4778"),
            "{m}"
        );
        assert!(m.contains("Nothing was saved"), "{m}");
        // No answer yet.
        let m = await_answer(&rx, Duration::from_millis(1), key).expect_err("no answer");
        assert!(m.contains("was not confirmed within"), "{m}");
        // The question was dropped (Cancel, the window closed).
        drop(tx);
        let m = await_answer(&rx, Duration::from_secs(60), key).expect_err("dropped");
        assert!(m.contains("did not trust"), "{m}");
    }

    #[test]
    fn remembering_records_exactly_the_identity_shown() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("new").join("known_hosts");
        let shown = Fingerprint([1; 32]);
        remember(&file, "127.0.0.1:4778", shown).expect("recorded");
        let hosts = KnownHosts::load(&file).expect("readable");
        assert_eq!(hosts.get("127.0.0.1:4778"), Some(shown));
        // Again: nothing changes.
        remember(&file, "127.0.0.1:4778", shown).expect("same identity");
        // Someone else recorded another identity first: the player's yes does not cover it.
        let other = Fingerprint([2; 32]);
        let m = remember(&file, "127.0.0.1:4778", other).expect_err("another identity");
        assert!(
            m.contains(&shown.to_string()) && m.contains(&other.to_string()),
            "{m}"
        );
        assert_eq!(
            KnownHosts::load(&file)
                .expect("readable")
                .get("127.0.0.1:4778"),
            Some(shown)
        );
    }

    #[test]
    fn a_failed_probe_reads_like_a_failed_join() {
        let addr: SocketAddr = "127.0.0.1:4778".parse().expect("addr");
        let probe = |reason| QuicError::Probe {
            addr,
            reason: Box::new(reason),
        };
        let m = probe_failure_message(&probe(DisconnectReason::TimedOut), Duration::from_secs(10));
        assert!(
            m.contains("The server at 127.0.0.1:4778 did not answer in time")
                && m.contains("10 s")
                && m.contains("Check the address and port"),
            "{m}"
        );
        let m = probe_failure_message(
            &probe(DisconnectReason::Remote("incompatible version".into())),
            Duration::from_secs(10),
        );
        assert_eq!(m, "The server closed the connection: incompatible version");
        let m = probe_failure_message(&QuicError::Config("bad".into()), Duration::from_secs(10));
        assert!(m.starts_with("Could not reach the server: "), "{m}");
    }
}

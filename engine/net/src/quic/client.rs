//! The QUIC client transport: connects in the background, verifies the server's identity by
//! fingerprint (trust on first use or pinned), records first-use identities in `known_hosts`,
//! and opens the reliable stream. Also the identity probe: a handshake that only reads the
//! server's fingerprint, so a player can be asked before anything is trusted.
//!
//! Owns: the client's runtime, endpoint and its one link. Must not: report `Connected` for a
//! server whose identity was refused or could not be recorded, block in `poll`/`send`, or let
//! a probe open a stream, send a message or write `known_hosts`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, mpsc};
use std::time::Duration;

use quinn::VarInt;
use rustls::pki_types::ServerName;
use tokio::sync::{Notify, OwnedSemaphorePermit};

use super::identity::{Fingerprint, FingerprintVerifier, KnownHosts, TrustPolicy, known_hosts_key};
use super::link::{self, CODE_CLOSED, CODE_SHUTDOWN, Link, Sink};
use super::{ALPN, QuicError, TransportKnobs, wire};
use crate::{
    Channel, ClientEvent, ClientTransport, DisconnectReason, KnownHostsEntry, LinkStats, SendError,
};

/// How long a client waits for the QUIC + TLS handshake by default (the idle timeout bounds the
/// handshake as well; it is longer).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a connection survives total silence by default (both sides; the smaller of the two
/// wins). Long enough for an 8 s blackout: a game session should ride out a short outage and
/// resume without a reconnect.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(15);

/// Keep-alive ping interval by default (both sides). Short, so an idle-but-healthy path always
/// carries something ack-eliciting: a returning path is noticed within half a second, and
/// quinn's probe timeout never backs off far from a recent sample.
pub const DEFAULT_KEEP_ALIVE_INTERVAL: Duration = Duration::from_millis(500);

/// Client settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientConfig {
    /// The QUIC + TLS handshake must finish within this, else `Disconnected { TimedOut }`.
    /// QUIC's idle timer runs during the handshake too, so the handshake really ends at the
    /// smaller of this and `idle_timeout`. `ClientSession` sets it to its own join timeout, so
    /// whichever side notices a silent server first, the player reads the same message.
    pub connect_timeout: Duration,
    /// Nothing heard for this long ⇒ `TimedOut` (also bounds the handshake).
    pub idle_timeout: Duration,
    /// Keep-alive ping interval (zero disables).
    pub keep_alive_interval: Duration,
    /// Largest unreliable/voice message `send` accepts and reassembly keeps.
    pub max_unreliable_message: usize,
    /// Reliable bytes queued before `send` fails with `QueueFull` and closes the connection.
    pub max_reliable_queue: usize,
    /// Received bytes not yet polled; beyond it unreliable messages are dropped and the
    /// reliable stream stops being read.
    pub max_inbound_bytes: usize,
    /// How long `disconnect` waits for queued reliable data to be acknowledged.
    pub close_flush_timeout: Duration,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            keep_alive_interval: DEFAULT_KEEP_ALIVE_INTERVAL,
            max_unreliable_message: crate::DEFAULT_MAX_UNRELIABLE_MESSAGE,
            max_reliable_queue: 4 << 20,
            max_inbound_bytes: 4 << 20,
            close_flush_timeout: Duration::from_secs(1),
        }
    }
}

enum Inner {
    Connected,
    Received {
        channel: Channel,
        payload: Vec<u8>,
        _credit: OwnedSemaphorePermit,
    },
    Disconnected {
        reason: DisconnectReason,
    },
}

struct ClientSink {
    tx: mpsc::Sender<Inner>,
}

impl Sink for ClientSink {
    fn received(&self, channel: Channel, payload: Vec<u8>, credit: OwnedSemaphorePermit) {
        let _ = self.tx.send(Inner::Received {
            channel,
            payload,
            _credit: credit,
        });
    }
}

/// State shared between the sync handle and the connecting task.
#[derive(Default)]
struct Slot {
    link: Option<Arc<Link>>,
    cancelled: Option<String>,
    fingerprint: Option<Fingerprint>,
}

struct Shared {
    slot: Mutex<Slot>,
    cancel: Notify,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A QUIC client transport. `connect` returns at once; `poll` reports `Connected` (or a
/// `Disconnected` with the reason, e.g. [`DisconnectReason::IdentityChanged`]). Dropping it
/// closes the connection ("client shut down") and joins its thread.
pub struct QuicClient {
    rt: Option<tokio::runtime::Runtime>,
    endpoint: quinn::Endpoint,
    shared: Arc<Shared>,
    events: mpsc::Receiver<Inner>,
    link: Option<Arc<Link>>,
}

impl std::fmt::Debug for QuicClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuicClient")
            .field("connected", &self.link.is_some())
            .finish_non_exhaustive()
    }
}

impl QuicClient {
    /// Connects to `addr`, verifying the server as `trust` says, with default settings.
    /// `server_name` is sent as SNI and, with the port, keys the `known_hosts` entry.
    pub fn connect(
        addr: SocketAddr,
        server_name: &str,
        trust: TrustPolicy,
    ) -> Result<Self, QuicError> {
        Self::connect_with(addr, server_name, trust, ClientConfig::default())
    }

    /// [`QuicClient::connect`] with explicit settings.
    pub fn connect_with(
        addr: SocketAddr,
        server_name: &str,
        trust: TrustPolicy,
        config: ClientConfig,
    ) -> Result<Self, QuicError> {
        check_target(server_name, &config)?;
        let limits = super::limits(
            config.max_unreliable_message,
            config.max_reliable_queue,
            config.max_inbound_bytes,
            config.close_flush_timeout,
        )?;
        let key = known_hosts_key(server_name, addr.port());
        let (expected, trusted_by, record_to) = match trust {
            TrustPolicy::KnownHosts(path) => match KnownHosts::load(&path)?.entry(&key) {
                Some((fp, line)) => (
                    Some(fp),
                    Some(KnownHostsEntry {
                        path,
                        line,
                        key: key.clone(),
                    }),
                    None,
                ),
                None => (None, None, Some(path)),
            },
            TrustPolicy::Pinned(fp) => (Some(fp), None, None),
        };
        let provider = super::provider();
        let verifier = Arc::new(FingerprintVerifier::new(expected, provider.clone()));
        let (rt, endpoint, connecting) = start_handshake(
            addr,
            server_name,
            verifier.clone(),
            provider,
            &config,
            "fl-net-quic",
        )?;
        let (tx, events) = mpsc::channel();
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot::default()),
            cancel: Notify::new(),
        });
        rt.spawn(run(
            connecting,
            config.connect_timeout,
            verifier,
            trusted_by,
            record_to.map(|p| (p, key)),
            limits,
            tx,
            shared.clone(),
        ));
        Ok(QuicClient {
            rt: Some(rt),
            endpoint,
            shared,
            events,
            link: None,
        })
    }

    /// The fingerprint the server presented (known once connected).
    pub fn server_fingerprint(&self) -> Option<Fingerprint> {
        self.shared.lock().fingerprint
    }

    /// Learns the identity the server at `addr` presents, without trusting it or joining: the
    /// QUIC + TLS 1.3 handshake completes with a verifier that accepts any certificate (the
    /// server must still prove it holds the key) and remembers its fingerprint, then the
    /// connection is closed at once with [`PROBE_CLOSE_CODE`] and [`PROBE_CLOSE_REASON`]. No
    /// stream is opened and no game message is sent, so the server sees no join; nothing is
    /// written to `known_hosts`.
    ///
    /// Blocks the calling thread for at most `config.connect_timeout` (QUIC's idle timeout
    /// bounds the handshake too), plus a bounded wait for the close to leave. A server that
    /// does not answer, refuses, or speaks another transport version is a
    /// [`QuicError::Probe`] carrying the reason. Must not be called from an async runtime.
    pub fn probe_identity(
        addr: SocketAddr,
        server_name: &str,
        config: ClientConfig,
    ) -> Result<Fingerprint, QuicError> {
        check_target(server_name, &config)?;
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(QuicError::Config(
                "probe_identity blocks: call it outside an async runtime".to_owned(),
            ));
        }
        let provider = super::provider();
        let verifier = Arc::new(FingerprintVerifier::new(None, provider.clone()));
        let (rt, endpoint, connecting) = start_handshake(
            addr,
            server_name,
            verifier.clone(),
            provider,
            &config,
            "fl-net-probe",
        )?;
        let timeout = config.connect_timeout;
        let handshake = rt.block_on(async move { tokio::time::timeout(timeout, connecting).await });
        let outcome = match handshake {
            // Dropping `connecting` abandoned the attempt.
            Err(_elapsed) => Err(DisconnectReason::TimedOut),
            Ok(Err(e)) => Err(link::early_reason(&e)),
            Ok(Ok(conn)) => {
                conn.close(
                    VarInt::from_u32(PROBE_CLOSE_CODE),
                    PROBE_CLOSE_REASON.as_bytes(),
                );
                verifier.seen().ok_or_else(|| {
                    DisconnectReason::Transport("the server presented no certificate".to_owned())
                })
            }
        };
        // Waits (bounded) for the close to be sent, then for the thread.
        super::shut_down(rt, &endpoint);
        outcome.map_err(|reason| QuicError::Probe {
            addr,
            reason: Box::new(reason),
        })
    }
}

/// The application close code an identity probe ends its connection with.
pub const PROBE_CLOSE_CODE: u32 = link::CODE_PROBE;
/// The close reason an identity probe sends (what a server's log shows for it).
pub const PROBE_CLOSE_REASON: &str = "identity probe: not joining";

/// The quinn client configuration: TLS 1.3 only, our ALPN, no early data, the server checked by
/// `verifier`, and the shared transport knobs.
/// The checks every connection attempt makes before touching the network.
fn check_target(server_name: &str, config: &ClientConfig) -> Result<(), QuicError> {
    ServerName::try_from(server_name).map_err(|_| QuicError::ServerName(server_name.to_owned()))?;
    if config.connect_timeout.is_zero() {
        return Err(QuicError::Config(
            "connect_timeout must be longer than zero".to_owned(),
        ));
    }
    Ok(())
}

/// A runtime of one thread named `thread`, a client endpoint bound for `addr`, and the TLS
/// handshake to `addr` under way, checked by `verifier`.
fn start_handshake(
    addr: SocketAddr,
    server_name: &str,
    verifier: Arc<FingerprintVerifier>,
    provider: Arc<rustls::crypto::CryptoProvider>,
    config: &ClientConfig,
    thread: &str,
) -> Result<(tokio::runtime::Runtime, quinn::Endpoint, quinn::Connecting), QuicError> {
    let cc = quinn_config(verifier, provider, config)?;
    let bind = bind_addr(addr);
    let rt = super::runtime(1, thread)?;
    let _guard = rt.enter();
    let endpoint =
        quinn::Endpoint::client(bind).map_err(|source| QuicError::Bind { addr: bind, source })?;
    let connecting = endpoint
        .connect_with(cc, addr, server_name)
        .map_err(|e| QuicError::Config(format!("cannot connect to {addr}: {e}")))?;
    drop(_guard);
    Ok((rt, endpoint, connecting))
}

fn quinn_config(
    verifier: Arc<FingerprintVerifier>,
    provider: Arc<rustls::crypto::CryptoProvider>,
    config: &ClientConfig,
) -> Result<quinn::ClientConfig, QuicError> {
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| QuicError::Tls(e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    tls.alpn_protocols = vec![ALPN.to_vec()];
    tls.enable_early_data = false;
    let crypto = quinn::crypto::rustls::QuicClientConfig::try_from(tls)
        .map_err(|e| QuicError::Tls(e.to_string()))?;
    let mut cc = quinn::ClientConfig::new(Arc::new(crypto));
    cc.transport_config(Arc::new(super::transport_config(&TransportKnobs {
        idle_timeout: config.idle_timeout,
        keep_alive_interval: config.keep_alive_interval,
        max_unreliable_message: config.max_unreliable_message,
        peer_bidi_streams: 0,
    })?));
    Ok(cc)
}

/// Talk to loopback from loopback; elsewhere from the unspecified address.
fn bind_addr(addr: SocketAddr) -> SocketAddr {
    let bind_ip = match addr.ip() {
        ip if ip.is_loopback() => ip,
        IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
    };
    SocketAddr::new(bind_ip, 0)
}

#[allow(clippy::too_many_arguments)] // one call site; a struct would only rename them
async fn run(
    connecting: quinn::Connecting,
    connect_timeout: Duration,
    verifier: Arc<FingerprintVerifier>,
    trusted_by: Option<KnownHostsEntry>,
    record_to: Option<(PathBuf, String)>,
    limits: link::Limits,
    tx: mpsc::Sender<Inner>,
    shared: Arc<Shared>,
) {
    let fail = |reason: DisconnectReason| {
        let _ = tx.send(Inner::Disconnected { reason });
    };
    let result = tokio::select! {
        r = connecting => r,
        // Dropping `connecting` abandons the attempt (quinn closes it implicitly).
        () = tokio::time::sleep(connect_timeout) => return fail(DisconnectReason::TimedOut),
        () = shared.cancel.notified() => {
            let reason = shared.lock().cancelled.clone().unwrap_or_else(|| "cancelled".to_owned());
            return fail(DisconnectReason::Local(reason));
        }
    };
    let conn = match result {
        Ok(c) => c,
        Err(e) => {
            let reason = match verifier.mismatch() {
                Some((expected, got)) => DisconnectReason::IdentityChanged {
                    expected: expected.to_string(),
                    got: got.to_string(),
                    trusted_by,
                },
                None => link::early_reason(&e),
            };
            return fail(reason);
        }
    };
    let Some(fingerprint) = verifier.seen() else {
        conn.close(VarInt::from_u32(CODE_CLOSED), b"no server certificate");
        return fail(DisconnectReason::Transport(
            "the server presented no certificate".into(),
        ));
    };
    if let Some((path, key)) = record_to {
        let recorded =
            tokio::task::spawn_blocking(move || KnownHosts::record(&path, &key, fingerprint)).await;
        let err = match recorded {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(crate::error_chain(&e)),
            Err(e) => Some(e.to_string()),
        };
        if let Some(err) = err {
            conn.close(
                VarInt::from_u32(CODE_CLOSED),
                b"client could not record the server identity",
            );
            return fail(DisconnectReason::Transport(format!(
                "cannot trust the server on first use: {err}"
            )));
        }
        tracing::info!(%fingerprint, "trusting a new server identity (recorded in known_hosts)");
    }
    let (mut send, recv) = match conn.open_bi().await {
        Ok(s) => s,
        Err(e) => return fail(link::early_reason(&e)),
    };
    if let Err(e) = send.write_all(&wire::STREAM_MAGIC).await {
        return fail(DisconnectReason::Transport(format!(
            "cannot open the reliable stream: {e}"
        )));
    }
    let sink = Arc::new(ClientSink { tx: tx.clone() });
    let tx_end = tx.clone();
    let shared_ready = shared.clone();
    link::start(
        conn,
        send,
        recv,
        limits,
        sink,
        |link| {
            let mut slot = shared_ready.lock();
            slot.fingerprint = Some(fingerprint);
            match slot.cancelled.clone() {
                // `disconnect` raced the handshake: honour it now.
                Some(reason) => link.disconnect(&reason),
                None => {
                    slot.link = Some(link);
                    let _ = tx.send(Inner::Connected);
                }
            }
        },
        move |reason| {
            let _ = tx_end.send(Inner::Disconnected { reason });
        },
    );
}

impl ClientTransport for QuicClient {
    fn poll(&mut self, out: &mut Vec<ClientEvent>) {
        for _ in 0..super::MAX_EVENTS_PER_POLL {
            let Ok(ev) = self.events.try_recv() else {
                return;
            };
            out.push(match ev {
                Inner::Connected => {
                    self.link = self.shared.lock().link.clone();
                    ClientEvent::Connected
                }
                Inner::Received {
                    channel,
                    payload,
                    _credit,
                } => ClientEvent::Received { channel, payload },
                Inner::Disconnected { reason } => {
                    self.link = None;
                    self.shared.lock().link = None;
                    ClientEvent::Disconnected { reason }
                }
            });
        }
    }

    fn send(&mut self, channel: Channel, payload: &[u8]) -> Result<(), SendError> {
        self.link
            .as_ref()
            .ok_or(SendError::NotConnected)?
            .send(channel, payload)
    }

    fn disconnect(&mut self, reason: &str) {
        let mut slot = self.shared.lock();
        if slot.cancelled.is_some() {
            return;
        }
        slot.cancelled = Some(reason.to_owned());
        match &slot.link {
            Some(link) => link.disconnect(reason),
            None => self.shared.cancel.notify_one(),
        }
    }

    fn link_stats(&self) -> LinkStats {
        self.link.as_ref().map(|l| l.stats()).unwrap_or_default()
    }
}

impl Drop for QuicClient {
    fn drop(&mut self) {
        if let Some(link) = self.shared.lock().link.take() {
            link.close_now(CODE_SHUTDOWN, "client shut down");
        }
        self.endpoint
            .close(VarInt::from_u32(CODE_SHUTDOWN), b"client shut down");
        if let Some(rt) = self.rt.take() {
            super::shut_down(rt, &self.endpoint);
        }
    }
}

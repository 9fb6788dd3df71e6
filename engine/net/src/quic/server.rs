//! The QUIC server transport: binds, validates addresses with Retry, accepts connections into
//! peers, and hands their events to the sync side through a channel.
//!
//! Owns: the server's runtime, endpoint and peer table. Must not: accept a connection whose
//! source address was not validated (when validation is on), hold more than
//! `max_connections`, or block in `poll`/`send`.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use quinn::VarInt;
use tokio::sync::OwnedSemaphorePermit;

use super::identity::{Fingerprint, ServerIdentity};
use super::link::{self, CODE_PROTOCOL_VIOLATION, CODE_SHUTDOWN, Link, Sink};
use super::{ALPN, QuicError, TransportKnobs, wire};
use crate::{Channel, LinkStats, PeerId, SendError, ServerEvent, ServerTransport};

/// Server settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerConfig {
    /// A connection with nothing heard for this long is closed (`TimedOut`).
    pub idle_timeout: Duration,
    /// Keep-alive ping interval (keeps quiet links open; zero disables).
    pub keep_alive_interval: Duration,
    /// Connections beyond this many (handshaking or established) are refused.
    pub max_connections: usize,
    /// Answer unvalidated client addresses with a Retry (anti-amplification). On by default.
    pub require_address_validation: bool,
    /// Largest unreliable/voice message `send` accepts and reassembly keeps.
    pub max_unreliable_message: usize,
    /// Reliable bytes queued per peer before `send` fails with `QueueFull` and closes the peer.
    pub max_reliable_queue: usize,
    /// Received bytes per peer not yet polled; beyond it unreliable messages are dropped and
    /// the reliable stream stops being read (QUIC flow control then holds the peer back).
    pub max_inbound_bytes: usize,
    /// How long `disconnect` waits for queued reliable data to be acknowledged.
    pub close_flush_timeout: Duration,
    /// A client must open its reliable stream within this long after the handshake.
    pub stream_open_timeout: Duration,
    /// Runtime worker threads.
    pub worker_threads: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            idle_timeout: super::DEFAULT_IDLE_TIMEOUT,
            keep_alive_interval: super::DEFAULT_KEEP_ALIVE_INTERVAL,
            max_connections: 256,
            require_address_validation: true,
            max_unreliable_message: crate::DEFAULT_MAX_UNRELIABLE_MESSAGE,
            max_reliable_queue: 4 << 20,
            max_inbound_bytes: 4 << 20,
            close_flush_timeout: Duration::from_secs(1),
            stream_open_timeout: Duration::from_secs(5),
            worker_threads: 2,
        }
    }
}

/// Counters of the accept path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServerStats {
    /// Retry packets sent to unvalidated addresses.
    pub retries_sent: u64,
    /// Connections that completed the handshake and opened their reliable stream.
    pub accepted: u64,
    /// Connection attempts refused because the server was full.
    pub refused: u64,
    /// Connections closed for breaking the transport protocol (bad stream header, oversized
    /// frame, …).
    pub violations: u64,
}

enum Inner {
    Connected {
        peer: PeerId,
        addr: SocketAddr,
        link: Arc<Link>,
    },
    Received {
        peer: PeerId,
        channel: Channel,
        payload: Vec<u8>,
        _credit: OwnedSemaphorePermit,
    },
    Disconnected {
        peer: PeerId,
        reason: crate::DisconnectReason,
    },
}

struct Shared {
    cfg: ServerConfig,
    limits: link::Limits,
    tx: mpsc::Sender<Inner>,
    next_peer: AtomicU32,
    open: AtomicUsize,
    retries: AtomicU64,
    accepted: AtomicU64,
    refused: AtomicU64,
    violations: AtomicU64,
}

struct PeerSink {
    peer: PeerId,
    tx: mpsc::Sender<Inner>,
}

impl Sink for PeerSink {
    fn received(&self, channel: Channel, payload: Vec<u8>, credit: OwnedSemaphorePermit) {
        let _ = self.tx.send(Inner::Received {
            peer: self.peer,
            channel,
            payload,
            _credit: credit,
        });
    }
}

/// Decrements the open-connection count when a connection's handling ends.
struct OpenGuard(Arc<Shared>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A QUIC server transport. Dropping it closes every connection ("server shut down") and joins
/// its threads (about 2 s at most).
pub struct QuicServer {
    rt: Option<tokio::runtime::Runtime>,
    endpoint: quinn::Endpoint,
    local_addr: SocketAddr,
    fingerprint: Fingerprint,
    shared: Arc<Shared>,
    events: mpsc::Receiver<Inner>,
    peers: BTreeMap<PeerId, Arc<Link>>,
}

impl std::fmt::Debug for QuicServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuicServer")
            .field("local_addr", &self.local_addr)
            .field("fingerprint", &self.fingerprint)
            .field("peers", &self.peers.len())
            .finish_non_exhaustive()
    }
}

impl QuicServer {
    /// Binds `addr` (port 0 ⇒ any free port) with the identity kept in `data_dir` (created on
    /// first use, see [`ServerIdentity::load_or_create`]).
    pub fn bind(
        addr: SocketAddr,
        data_dir: &Path,
        config: ServerConfig,
    ) -> Result<Self, QuicError> {
        let identity = ServerIdentity::load_or_create(data_dir)?;
        Self::bind_with_identity(addr, &identity, config)
    }

    /// Binds `addr` with an identity loaded by the caller.
    pub fn bind_with_identity(
        addr: SocketAddr,
        identity: &ServerIdentity,
        config: ServerConfig,
    ) -> Result<Self, QuicError> {
        let limits = super::limits(
            config.max_unreliable_message,
            config.max_reliable_queue,
            config.max_inbound_bytes,
            config.close_flush_timeout,
        )?;
        let mut tls = rustls::ServerConfig::builder_with_provider(super::provider())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| QuicError::Tls(e.to_string()))?
            .with_no_client_auth()
            .with_single_cert(vec![identity.cert.clone()], identity.key.clone_key())
            .map_err(|e| QuicError::IdentityCorrupt {
                path: identity.path().to_path_buf(),
                why: e.to_string(),
            })?;
        tls.alpn_protocols = vec![ALPN.to_vec()];
        tls.max_early_data_size = 0;
        let crypto = quinn::crypto::rustls::QuicServerConfig::try_from(tls)
            .map_err(|e| QuicError::Tls(e.to_string()))?;
        let mut sc = quinn::ServerConfig::with_crypto(Arc::new(crypto));
        sc.transport_config(Arc::new(super::transport_config(&TransportKnobs {
            idle_timeout: config.idle_timeout,
            keep_alive_interval: config.keep_alive_interval,
            max_unreliable_message: config.max_unreliable_message,
            peer_bidi_streams: 1,
        })?));
        // A peer's address is what per-IP rules key on: it must not change mid-connection.
        sc.migration(false);
        let rt = super::runtime(config.worker_threads, "fl-net-quic")?;
        let endpoint = {
            let _guard = rt.enter();
            quinn::Endpoint::server(sc, addr).map_err(|source| QuicError::Bind { addr, source })?
        };
        let local_addr = endpoint
            .local_addr()
            .map_err(|source| QuicError::Bind { addr, source })?;
        let (tx, events) = mpsc::channel();
        let shared = Arc::new(Shared {
            cfg: config,
            limits,
            tx,
            next_peer: AtomicU32::new(1),
            open: AtomicUsize::new(0),
            retries: AtomicU64::new(0),
            accepted: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            violations: AtomicU64::new(0),
        });
        rt.spawn(accept_loop(endpoint.clone(), shared.clone()));
        tracing::info!(%local_addr, fingerprint = %identity.fingerprint(), "QUIC server listening");
        Ok(QuicServer {
            rt: Some(rt),
            endpoint,
            local_addr,
            fingerprint: identity.fingerprint(),
            shared,
            events,
            peers: BTreeMap::new(),
        })
    }

    /// The identity's fingerprint (for operators to publish, and clients to pin).
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// Counters of the accept path.
    pub fn stats(&self) -> ServerStats {
        ServerStats {
            retries_sent: self.shared.retries.load(Ordering::Relaxed),
            accepted: self.shared.accepted.load(Ordering::Relaxed),
            refused: self.shared.refused.load(Ordering::Relaxed),
            violations: self.shared.violations.load(Ordering::Relaxed),
        }
    }
}

async fn accept_loop(endpoint: quinn::Endpoint, shared: Arc<Shared>) {
    while let Some(incoming) = endpoint.accept().await {
        if shared.open.load(Ordering::Acquire) >= shared.cfg.max_connections {
            shared.refused.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(remote = %incoming.remote_address(), "server full: refusing");
            incoming.refuse();
            continue;
        }
        if shared.cfg.require_address_validation && !incoming.remote_address_validated() {
            if incoming.may_retry() {
                match incoming.retry() {
                    Ok(()) => {
                        shared.retries.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(e) => e.into_incoming().ignore(),
                }
            } else {
                incoming.ignore();
            }
            continue;
        }
        let connecting = match incoming.accept() {
            Ok(c) => c,
            Err(e) => {
                tracing::debug!(error = %e, "incoming connection failed");
                continue;
            }
        };
        shared.open.fetch_add(1, Ordering::AcqRel);
        let guard = OpenGuard(shared.clone());
        tokio::spawn(handle_connection(connecting, shared.clone(), guard));
    }
}

async fn handle_connection(connecting: quinn::Connecting, shared: Arc<Shared>, guard: OpenGuard) {
    let conn = match connecting.await {
        Ok(c) => c,
        Err(e) => {
            tracing::debug!(error = %e, "handshake failed");
            return;
        }
    };
    let addr = conn.remote_address();
    let violation = |conn: &quinn::Connection, why: &str| {
        shared.violations.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(%addr, why, "closing a connection");
        conn.close(VarInt::from_u32(CODE_PROTOCOL_VIOLATION), why.as_bytes());
    };
    let open = shared.cfg.stream_open_timeout;
    let (send, mut recv) = match tokio::time::timeout(open, conn.accept_bi()).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            // E.g. a client that only read the identity (`identity probe: not joining`).
            tracing::debug!(%addr, reason = %e, "closed before opening its stream");
            return;
        }
        Err(_) => {
            violation(&conn, "protocol violation: no reliable stream opened");
            return;
        }
    };
    let mut magic = [0u8; wire::STREAM_MAGIC.len()];
    match tokio::time::timeout(open, recv.read_exact(&mut magic)).await {
        Ok(Ok(())) if magic == wire::STREAM_MAGIC => {}
        Ok(Err(quinn::ReadExactError::ReadError(_))) => return,
        _ => {
            violation(&conn, "protocol violation: bad reliable stream header");
            return;
        }
    }
    let peer = shared.next_peer.fetch_add(1, Ordering::Relaxed);
    shared.accepted.fetch_add(1, Ordering::Relaxed);
    let sink = Arc::new(PeerSink {
        peer,
        tx: shared.tx.clone(),
    });
    let tx_ready = shared.tx.clone();
    let tx_end = shared.tx.clone();
    let counters = shared.clone();
    link::start(
        conn,
        send,
        recv,
        shared.limits,
        sink,
        |link| {
            let _ = tx_ready.send(Inner::Connected { peer, addr, link });
        },
        move |reason| {
            if matches!(&reason, crate::DisconnectReason::Local(r) if r.starts_with("protocol violation"))
            {
                counters.violations.fetch_add(1, Ordering::Relaxed);
            }
            let _ = tx_end.send(Inner::Disconnected { peer, reason });
            drop(guard);
        },
    );
}

impl ServerTransport for QuicServer {
    fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    fn poll(&mut self, out: &mut Vec<ServerEvent>) {
        for _ in 0..super::MAX_EVENTS_PER_POLL {
            let Ok(ev) = self.events.try_recv() else {
                return;
            };
            out.push(match ev {
                Inner::Connected { peer, addr, link } => {
                    self.peers.insert(peer, link);
                    ServerEvent::Connected { peer, addr }
                }
                // The credit (inbound budget) is returned as the event is handed over.
                Inner::Received {
                    peer,
                    channel,
                    payload,
                    _credit,
                } => ServerEvent::Received {
                    peer,
                    channel,
                    payload,
                },
                Inner::Disconnected { peer, reason } => {
                    self.peers.remove(&peer);
                    ServerEvent::Disconnected { peer, reason }
                }
            });
        }
    }

    fn send(&mut self, peer: PeerId, channel: Channel, payload: &[u8]) -> Result<(), SendError> {
        self.peers
            .get(&peer)
            .ok_or(SendError::UnknownPeer)?
            .send(channel, payload)
    }

    fn disconnect(&mut self, peer: PeerId, reason: &str) {
        if let Some(link) = self.peers.get(&peer) {
            link.disconnect(reason);
        }
    }

    fn link_stats(&self, peer: PeerId) -> Option<LinkStats> {
        self.peers.get(&peer).map(|l| l.stats())
    }
}

impl Drop for QuicServer {
    fn drop(&mut self) {
        for link in self.peers.values() {
            link.close_now(CODE_SHUTDOWN, "server shut down");
        }
        self.endpoint
            .close(VarInt::from_u32(CODE_SHUTDOWN), b"server shut down");
        if let Some(rt) = self.rt.take() {
            super::shut_down(rt, &self.endpoint);
        }
    }
}

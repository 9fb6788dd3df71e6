//! LinkSim — an in-memory network with virtual time, seeded and deterministic.
//!
//! Owns: [`SimNetwork`] (the shared world: clock, links, agenda of in-flight packets), the
//! endpoint handles [`SimServer`] / [`SimClient`] that implement the crate's transport traits,
//! and the per-direction link model ([`DirectionConfig`]): latency, jitter, loss, duplication,
//! reordering, a bandwidth cap with a bounded queue, a datagram size with fragmentation,
//! blackouts and idle timeouts.
//!
//! Must not: read the wall clock, use unordered containers, or draw randomness from anywhere
//! but the network's own seeded generator. Same seed + same sequence of calls ⇒ the same
//! delivery schedule, bit for bit. Time only moves when the owner calls
//! [`SimNetwork::advance`] or [`SimNetwork::set_now`]. The model is described in
//! `docs/transport.md`.

mod core;
mod model;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use self::core::Net;
use self::model::Side;
use crate::{
    Channel, ClientEvent, ClientTransport, LinkStats, PeerId, SendError, ServerEvent,
    ServerTransport,
};

/// Identifies one client↔server link in a [`SimNetwork`] (for runtime reconfiguration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkId(pub(crate) u64);

/// How one direction of a link behaves. Probabilities are clamped to `0..=1` (NaN ⇒ 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DirectionConfig {
    /// Base one-way delay.
    pub latency: Duration,
    /// Extra one-way delay, uniform in `0..=jitter`, drawn per datagram. Jitter alone never
    /// reorders a lane (arrivals are kept in send order); use `reorder` for that.
    pub jitter: Duration,
    /// Probability that one datagram (one fragment) is lost.
    pub loss: f64,
    /// Probability that an unreliable message is delivered twice.
    pub duplicate: f64,
    /// Probability that an unreliable message is held back by `reorder_delay × (0.5..1.5)`,
    /// so later messages overtake it.
    pub reorder: f64,
    /// How long a reordered message is held back (see `reorder`).
    pub reorder_delay: Duration,
    /// Bandwidth cap in bytes per second (payload plus a per-datagram overhead of
    /// [`DATAGRAM_OVERHEAD`] bytes); 0 = unlimited. Datagrams queue behind each other.
    pub bandwidth: u64,
    /// The longest an unreliable message may wait in the bandwidth queue; beyond it the send
    /// is refused with [`SendError::QueueFull`] (the local send buffer is full).
    pub max_queue_delay: Duration,
    /// Largest payload one datagram carries; larger messages are split into fragments, and an
    /// unreliable message is lost if any of its fragments is.
    pub max_datagram: usize,
}

/// Bytes of IP/UDP/QUIC headers charged per datagram against the bandwidth cap.
pub const DATAGRAM_OVERHEAD: usize = 48;

/// The smallest `max_datagram` a link accepts (smaller values are raised to it).
pub const MIN_DATAGRAM: usize = 64;

impl Default for DirectionConfig {
    /// A perfect link: no delay, no loss, no cap, 1200-byte datagrams.
    fn default() -> Self {
        DirectionConfig {
            latency: Duration::ZERO,
            jitter: Duration::ZERO,
            loss: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
            reorder_delay: Duration::from_millis(10),
            bandwidth: 0,
            max_queue_delay: Duration::from_secs(1),
            max_datagram: 1200,
        }
    }
}

impl DirectionConfig {
    /// A link with only a fixed one-way latency.
    pub fn with_latency(latency: Duration) -> Self {
        DirectionConfig {
            latency,
            ..Default::default()
        }
    }

    fn sanitized(mut self) -> Self {
        fn prob(p: f64) -> f64 {
            if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) }
        }
        self.loss = prob(self.loss);
        self.duplicate = prob(self.duplicate);
        self.reorder = prob(self.reorder);
        self.max_datagram = self.max_datagram.max(MIN_DATAGRAM);
        self
    }
}

/// Both directions of a link.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LinkConfig {
    /// Client → server.
    pub to_server: DirectionConfig,
    /// Server → client.
    pub to_client: DirectionConfig,
}

impl LinkConfig {
    /// The same behaviour in both directions.
    pub fn symmetric(direction: DirectionConfig) -> Self {
        LinkConfig {
            to_server: direction,
            to_client: direction,
        }
    }

    fn sanitized(self) -> Self {
        LinkConfig {
            to_server: self.to_server.sanitized(),
            to_client: self.to_client.sanitized(),
        }
    }
}

/// Limits of one endpoint (server or client).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimEndpointConfig {
    /// Nothing can reach this endpoint for this long ⇒ `DisconnectReason::TimedOut`.
    /// (Keep-alives are implicit: a healthy but quiet link never times out.)
    pub idle_timeout: Duration,
    /// Server only: connections beyond this many are refused ("server full").
    pub max_connections: usize,
    /// Largest unreliable/voice message accepted by `send`.
    pub max_unreliable_message: usize,
    /// Reliable bytes that may be outstanding toward the peer: unacknowledged plus delivered
    /// but not yet polled there (the flow-control window). A send beyond it fails with
    /// [`SendError::QueueFull`] and closes the link.
    pub max_reliable_backlog: usize,
    /// Unreliable/voice messages that may wait in this endpoint's inbox per link; more are
    /// dropped (a peer that never polls cannot grow memory without bound).
    pub max_inbox_unreliable: usize,
}

impl Default for SimEndpointConfig {
    fn default() -> Self {
        SimEndpointConfig {
            idle_timeout: Duration::from_secs(10),
            max_connections: 1024,
            max_unreliable_message: crate::DEFAULT_MAX_UNRELIABLE_MESSAGE,
            max_reliable_backlog: 4 << 20,
            max_inbox_unreliable: 4096,
        }
    }
}

/// Why LinkSim refused to create an endpoint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("address {0} is already in use in this simulated network")]
    AddressInUse(SocketAddr),
    #[error("no free ephemeral port left on {0}")]
    NoFreePort(IpAddr),
    #[error("no such link")]
    UnknownLink,
}

/// A simulated network: a clonable handle to one shared, deterministic world.
#[derive(Clone)]
pub struct SimNetwork {
    net: Arc<Mutex<Net>>,
}

impl std::fmt::Debug for SimNetwork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let net = self.lock();
        f.debug_struct("SimNetwork")
            .field("now", &net.now())
            .field("links", &net.link_count())
            .field("pending_actions", &net.agenda_len())
            .finish()
    }
}

impl SimNetwork {
    /// A new, empty network at virtual time zero.
    pub fn new(seed: u64) -> Self {
        SimNetwork {
            net: Arc::new(Mutex::new(Net::new(seed))),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Net> {
        // A panic while holding the lock leaves the world consistent enough to read; never
        // turn one test's panic into a second one.
        self.net
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Current virtual time (since the network was created).
    pub fn now(&self) -> Duration {
        self.lock().now()
    }

    /// Moves the clock forward by `dt`, running everything that happens up to then.
    pub fn advance(&self, dt: Duration) {
        let mut net = self.lock();
        let t = net.now().saturating_add(dt);
        net.set_now(t);
    }

    /// Moves the clock to `t` (ignored if `t` is in the past: time never goes back).
    pub fn set_now(&self, t: Duration) {
        self.lock().set_now(t);
    }

    /// When the next scheduled thing happens (a delivery, a retransmission, a timeout).
    pub fn next_event_time(&self) -> Option<Duration> {
        self.lock().next_action_time()
    }

    /// Creates a server endpoint listening at `addr`.
    pub fn server(
        &self,
        addr: SocketAddr,
        config: SimEndpointConfig,
    ) -> Result<SimServer, SimError> {
        let id = self.lock().add_server(addr, config)?;
        Ok(SimServer {
            net: self.clone(),
            addr,
            id,
        })
    }

    /// Connects a client at 127.0.0.1 (ephemeral port) to `server`. The handshake takes one
    /// round trip; if nothing listens there the client times out after its idle timeout.
    pub fn connect(
        &self,
        server: SocketAddr,
        link: LinkConfig,
        config: SimEndpointConfig,
    ) -> Result<SimClient, SimError> {
        self.connect_from(
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            server,
            link,
            config,
        )
    }

    /// Connects a client from `from` (port 0 ⇒ an ephemeral port on that IP) to `server`.
    pub fn connect_from(
        &self,
        from: SocketAddr,
        server: SocketAddr,
        link: LinkConfig,
        config: SimEndpointConfig,
    ) -> Result<SimClient, SimError> {
        let (link, addr) = self
            .lock()
            .connect(from, server, link.sanitized(), config)?;
        Ok(SimClient {
            net: self.clone(),
            link,
            addr,
        })
    }

    /// Replaces a link's configuration. Applies to datagrams sent from now on; packets
    /// already in flight keep their schedule.
    pub fn set_link(&self, link: LinkId, config: LinkConfig) -> Result<(), SimError> {
        self.lock().set_link(link, config.sanitized())
    }

    /// A link's current configuration.
    pub fn link_config(&self, link: LinkId) -> Option<LinkConfig> {
        self.lock().link_config(link)
    }

    /// Cuts a link in both directions for `duration` from now: every datagram sent meanwhile
    /// is lost (reliable ones are retransmitted after it). Longer than an endpoint's idle
    /// timeout ⇒ that endpoint times out.
    pub fn blackout(&self, link: LinkId, duration: Duration) -> Result<(), SimError> {
        self.lock().blackout(link, duration)
    }

    /// Messages that arrived at an endpoint of `link` but were dropped because its inbox was
    /// full (`[at the client, at the server]`).
    pub fn inbox_drops(&self, link: LinkId) -> Option<[u64; 2]> {
        self.lock().inbox_drops(link)
    }
}

/// A server endpoint in a [`SimNetwork`].
pub struct SimServer {
    net: SimNetwork,
    addr: SocketAddr,
    id: u64,
}

impl std::fmt::Debug for SimServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimServer")
            .field("addr", &self.addr)
            .finish()
    }
}

impl SimServer {
    /// The network this server lives in.
    pub fn network(&self) -> &SimNetwork {
        &self.net
    }

    /// The link a peer is connected over (for reconfiguration in tests).
    pub fn link_of(&self, peer: PeerId) -> Option<LinkId> {
        self.net.lock().link_of(self.id, peer)
    }
}

impl ServerTransport for SimServer {
    fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    fn poll(&mut self, out: &mut Vec<ServerEvent>) {
        self.net.lock().poll_server(self.id, out);
    }

    fn send(&mut self, peer: PeerId, channel: Channel, payload: &[u8]) -> Result<(), SendError> {
        let mut net = self.net.lock();
        let link = net.peer_link(self.id, peer).ok_or(SendError::UnknownPeer)?;
        net.send(link, Side::Server, channel, payload)
    }

    fn disconnect(&mut self, peer: PeerId, reason: &str) {
        let mut net = self.net.lock();
        if let Some(link) = net.peer_link(self.id, peer) {
            net.disconnect(link, Side::Server, reason);
        }
    }

    fn link_stats(&self, peer: PeerId) -> Option<LinkStats> {
        let net = self.net.lock();
        let link = net.peer_link(self.id, peer)?;
        net.link_stats(link, Side::Server)
    }
}

impl Drop for SimServer {
    fn drop(&mut self) {
        self.net.lock().drop_server(self.id);
    }
}

/// A client endpoint in a [`SimNetwork`].
pub struct SimClient {
    net: SimNetwork,
    link: LinkId,
    addr: SocketAddr,
}

impl std::fmt::Debug for SimClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimClient")
            .field("addr", &self.addr)
            .field("link", &self.link)
            .finish()
    }
}

impl SimClient {
    /// This client's link (for [`SimNetwork::set_link`] and [`SimNetwork::blackout`]).
    pub fn link_id(&self) -> LinkId {
        self.link
    }

    /// This client's (virtual) address, as the server sees it.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The network this client lives in.
    pub fn network(&self) -> &SimNetwork {
        &self.net
    }

    /// Drops the client like a crashed process: no close is sent, so the server only learns
    /// of it through its idle timeout.
    pub fn vanish(self) {
        self.net.lock().vanish_client(self.link.0);
        // Drop then finds the link already closed and sends nothing.
    }
}

impl ClientTransport for SimClient {
    fn poll(&mut self, out: &mut Vec<ClientEvent>) {
        self.net.lock().poll_client(self.link.0, out);
    }

    fn send(&mut self, channel: Channel, payload: &[u8]) -> Result<(), SendError> {
        self.net
            .lock()
            .send(self.link.0, Side::Client, channel, payload)
    }

    fn disconnect(&mut self, reason: &str) {
        self.net
            .lock()
            .disconnect(self.link.0, Side::Client, reason);
    }

    fn link_stats(&self) -> LinkStats {
        self.net
            .lock()
            .link_stats(self.link.0, Side::Client)
            .unwrap_or_default()
    }
}

impl Drop for SimClient {
    fn drop(&mut self) {
        self.net.lock().drop_client(self.link.0, self.addr);
    }
}

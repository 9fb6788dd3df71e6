//! QUIC transport (quinn + rustls on ring): TLS 1.3 always, no plaintext mode.
//!
//! Owns: [`QuicServer`] (bind with a persistent self-signed identity, address validation with
//! Retry, per-peer links) and [`QuicClient`] (trust on first use through `known_hosts`, or a
//! pinned fingerprint; [`QuicClient::probe_identity`] reads a server's fingerprint without
//! trusting or joining it), each running a tokio runtime on threads it owns and joins on drop.
//! The reliable channel is one client-opened bidirectional stream of length-prefixed frames;
//! unreliable and voice ride datagrams with a small lane/fragment header (see `wire`).
//!
//! Must not: block the caller (`poll`/`send` only touch channels, atomics and quinn's
//! non-blocking calls), offer anything but TLS 1.3, trust a server by name or CA, or let a
//! peer's bytes size an allocation before they were checked against a limit.

mod client;
mod identity;
mod link;
mod seq;
mod server;
mod wire;

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use client::{
    ClientConfig, DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_KEEP_ALIVE_INTERVAL,
    PROBE_CLOSE_CODE, PROBE_CLOSE_REASON, QuicClient,
};
pub use identity::{
    BadFingerprint, Fingerprint, IDENTITY_FILE, KnownHosts, ServerIdentity, TrustPolicy,
    known_hosts_key,
};
pub use server::{QuicServer, ServerConfig, ServerStats};

/// Fuzz entry points over the transport's own bytes (used by `fl-fuzz`); not an API.
#[doc(hidden)]
pub mod fuzzing {
    pub use super::wire::{fuzz_datagrams, fuzz_stream};
}

/// The ALPN protocol both sides require. The number is the transport's wire version: it
/// changes whenever the framing changes incompatibly (2: every datagram starts with a 16-bit
/// sequence number), so two builds that could not talk refuse each other in the handshake
/// with a clear reason instead of exchanging datagrams neither can read.
pub const ALPN: &[u8] = b"fighters-legacy/2";

/// The TLS alert a peer sends when no ALPN protocol is shared (RFC 8446 / RFC 7301).
const TLS_ALERT_NO_APPLICATION_PROTOCOL: u8 = 120;

/// The largest reliable frame a peer may announce (a bigger one closes the connection).
pub const MAX_FRAME: usize = crate::MAX_RELIABLE_MESSAGE;

/// Partial unreliable messages held per connection while their fragments arrive.
pub const REASSEMBLY_MAX_MESSAGES: usize = 32;
/// A partial unreliable message is dropped after this long.
pub const REASSEMBLY_TIMEOUT: Duration = Duration::from_secs(1);

/// Most events one `poll` moves (the rest wait for the next call), so a flood cannot keep a
/// tick inside `poll` indefinitely.
pub const MAX_EVENTS_PER_POLL: usize = 65_536;

/// Why the QUIC transport could not start (errors after start arrive as events). A variant
/// caused by an I/O error says what it was doing and carries the error as its `source`
/// (print the chain: anyhow's `{:#}` or [`crate::error_chain`]).
#[derive(Debug, thiserror::Error)]
pub enum QuicError {
    #[error("cannot read the server identity {path}")]
    IdentityRead { path: PathBuf, source: io::Error },
    #[error(
        "the server identity {path} is unusable ({why}); it is not replaced automatically \
         because clients would see a changed identity — restore it from a backup, or delete it \
         to create a new one (clients must then remove the old entry from their known_hosts)"
    )]
    IdentityCorrupt { path: PathBuf, why: String },
    #[error("cannot write the server identity {path}")]
    IdentityWrite { path: PathBuf, source: io::Error },
    #[error("cannot generate a server identity: {0}")]
    IdentityGenerate(String),
    #[error("cannot read known_hosts {path}")]
    KnownHostsRead { path: PathBuf, source: io::Error },
    #[error("known_hosts {path} line {line}: {why}")]
    KnownHostsCorrupt {
        path: PathBuf,
        line: usize,
        why: String,
    },
    #[error("cannot write known_hosts {path}")]
    KnownHostsWrite { path: PathBuf, source: io::Error },
    #[error("cannot bind UDP {addr}")]
    Bind { addr: SocketAddr, source: io::Error },
    #[error("invalid server name {0:?} (a DNS name or an IP address)")]
    ServerName(String),
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("TLS setup failed: {0}")]
    Tls(String),
    #[error("cannot start the network threads: {0}")]
    Runtime(io::Error),
    /// [`QuicClient::probe_identity`] started but learned no identity (no answer in time, a
    /// refusal, another transport version…): `reason` says why.
    #[error("could not read the identity of the server at {addr}")]
    Probe {
        addr: SocketAddr,
        #[source]
        reason: Box<crate::DisconnectReason>,
    },
}

/// Packets acknowledged after one before it counts as lost (RFC 9002's default is 3).
pub const LOSS_PACKET_THRESHOLD: u32 = 6;
/// Time after which an unacknowledged packet counts as lost, in RTTs (RFC 9002: 9/8).
pub const LOSS_TIME_THRESHOLD: f32 = 1.5;

/// Shared knobs of both sides' QUIC transport parameters.
struct TransportKnobs {
    idle_timeout: Duration,
    keep_alive_interval: Duration,
    max_unreliable_message: usize,
    /// Bidirectional streams the peer may open (the server allows the client's one).
    peer_bidi_streams: u32,
}

fn transport_config(k: &TransportKnobs) -> Result<quinn::TransportConfig, QuicError> {
    let mut t = quinn::TransportConfig::default();
    let idle = quinn::IdleTimeout::try_from(k.idle_timeout)
        .map_err(|_| QuicError::Config(format!("idle timeout {:?} is too long", k.idle_timeout)))?;
    t.max_idle_timeout(Some(idle));
    if !k.keep_alive_interval.is_zero() {
        t.keep_alive_interval(Some(k.keep_alive_interval));
    }
    t.max_concurrent_bidi_streams(quinn::VarInt::from_u32(k.peer_bidi_streams));
    t.max_concurrent_uni_streams(quinn::VarInt::from_u32(0));
    // Room for the largest unreliable message (all of its fragments) and then some.
    t.datagram_send_buffer_size(datagram_send_buffer(k.max_unreliable_message));
    t.datagram_receive_buffer_size(Some((2 * k.max_unreliable_message).max(1 << 20)));
    // Bound what QUIC itself buffers for the reliable stream, so the transport's own queue
    // (and its overflow rule) is where a backlog shows.
    t.send_window(1 << 20);
    // Loss detection and congestion control for a game's traffic (docs/transport.md, "Loss
    // detection and congestion control"): a steady 60 Hz of datagrams must not be held back
    // by random loss. Cubic (quinn's default) shrinks its window on every loss, so at 3 %
    // random loss and 300 ms RTT it held ~256 KiB of snapshots in the datagram buffer; BBR
    // paces at the measured delivery rate and does not treat random loss as congestion
    // (measured through the relay: at most one datagram waiting). Congestion the game
    // causes is answered by the server's own controller (fl-server `snapshot::congestion`).
    t.congestion_controller_factory(Arc::new(quinn::congestion::BbrConfig::default()));
    // Reordering is not loss: a packet counts as lost only when 6 later ones were
    // acknowledged (RFC 9002: 3), or after 1.5 RTT (RFC 9002: 9/8), so a jittery path that
    // reorders does not make quinn retransmit, shrink its window, or report loss that the
    // network never caused. Reliable data is retransmitted a little later in exchange.
    t.packet_threshold(LOSS_PACKET_THRESHOLD);
    t.time_threshold(LOSS_TIME_THRESHOLD);
    Ok(t)
}

/// quinn's datagram send buffer for a given largest unreliable message.
fn datagram_send_buffer(max_unreliable_message: usize) -> usize {
    (2 * max_unreliable_message).max(256 << 10)
}

fn runtime(threads: usize, name: &str) -> Result<tokio::runtime::Runtime, QuicError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .max_blocking_threads(2)
        .thread_name(name)
        .enable_all()
        .build()
        .map_err(QuicError::Runtime)
}

/// Stops a runtime: waits (bounded) for quinn to send its closes, then for the threads.
fn shut_down(rt: tokio::runtime::Runtime, endpoint: &quinn::Endpoint) {
    if tokio::runtime::Handle::try_current().is_ok() {
        // Dropped inside some async context: blocking here would panic. Let go instead.
        rt.shutdown_background();
        return;
    }
    let ep = endpoint.clone();
    rt.block_on(async move {
        let _ = tokio::time::timeout(Duration::from_millis(500), ep.wait_idle()).await;
    });
    rt.shutdown_timeout(Duration::from_millis(1500));
}

fn limits(
    max_unreliable_message: usize,
    max_reliable_queue: usize,
    max_inbound_bytes: usize,
    close_flush_timeout: Duration,
) -> Result<link::Limits, QuicError> {
    let min_inbound = 2 * (crate::MAX_RELIABLE_MESSAGE + 64).max(max_unreliable_message + 64);
    if max_inbound_bytes < min_inbound {
        return Err(QuicError::Config(format!(
            "max_inbound_bytes must be at least {min_inbound} (two of the largest messages)"
        )));
    }
    if max_reliable_queue < crate::MAX_RELIABLE_MESSAGE + wire::FRAME_HEADER {
        return Err(QuicError::Config(format!(
            "max_reliable_queue must hold at least one largest reliable message ({} bytes)",
            crate::MAX_RELIABLE_MESSAGE + wire::FRAME_HEADER
        )));
    }
    Ok(link::Limits {
        max_unreliable_message,
        max_reliable_queue,
        max_inbound_bytes,
        close_flush_timeout,
        reassembly: wire::ReassemblyLimits {
            max_partials: REASSEMBLY_MAX_MESSAGES,
            max_bytes: (4 * max_unreliable_message).max(512 << 10),
            timeout: REASSEMBLY_TIMEOUT,
            max_message: max_unreliable_message,
        },
        datagram_send_buffer: datagram_send_buffer(max_unreliable_message),
    })
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(identity::provider())
}

#[cfg(test)]
mod tests;

//! fl-net — how bytes travel between the client and the server, behind one API.
//!
//! The server and client code against [`ServerTransport`] and [`ClientTransport`]: non-blocking
//! `poll` for events, `send` that only queues, per-peer [`LinkStats`]. Two implementations:
//! [`linksim`] (in memory, virtual time, seeded and deterministic: latency, jitter, loss,
//! duplication, reordering, bandwidth cap) for tests and benchmarks, and [`quic`] (quinn +
//! rustls, TLS 1.3 always, trust on first use or pinned fingerprint) for real networks.
//! [`impair`] is a loopback UDP relay that impairs a real QUIC path (delay, jitter, loss,
//! duplication, bottleneck, blackouts; seeded) and reports the ground truth, for tests and tools.
//!
//! This crate moves opaque messages; it never parses them (that is fl-protocol's job) and
//! never blocks the caller: a slow or dead peer costs the sim tick nothing.
//!
//! Event contract, the same for both implementations (details in `docs/transport.md`):
//! - per peer, `Connected` comes first and exactly one `Disconnected` comes last (a client
//!   whose connection attempt fails gets just the `Disconnected`, with the reason); reliable
//!   messages arrive complete, once and in order; unreliable/voice messages arrive whole or
//!   not at all, possibly out of order, and the two lanes never delay each other;
//! - `disconnect()` also produces the local side's `Disconnected { reason: Local(..) }`
//!   (LinkSim at once, QUIC once the flush finished); sends to a closing peer fail with
//!   `NotConnected`, and to a peer whose `Disconnected` was polled with `UnknownPeer`;
//! - queues are bounded: an unreliable send that does not fit is refused (`QueueFull`, the
//!   link stays), a reliable send that does not fit is refused *and* closes the link.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub mod impair;
pub mod linksim;
pub mod quic;
pub mod rng;

/// The largest reliable message either transport accepts (and, on QUIC, the largest stream
/// frame a peer may announce; a bigger one is a protocol violation that closes the connection).
pub const MAX_RELIABLE_MESSAGE: usize = 1 << 20;

/// The default largest unreliable/voice message (fragmented into datagrams below the message
/// layer; delivered whole or not at all).
pub const DEFAULT_MAX_UNRELIABLE_MESSAGE: usize = 128 << 10;

/// A transport-assigned peer id, unique for the life of the server transport (never reused).
pub type PeerId = u32;

/// The lane a message travels on (spec channels 0, 1, 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    /// Ordered and guaranteed (handshake, chat, rosters, events).
    Reliable,
    /// Best effort, may be lost, duplicated or reordered (snapshots, inputs, heartbeats).
    Unreliable,
    /// Best effort, its own lane so voice and snapshots never knock each other out.
    Voice,
}

impl Channel {
    /// The spec's channel number.
    pub fn number(self) -> u8 {
        match self {
            Channel::Reliable => 0,
            Channel::Unreliable => 1,
            Channel::Voice => 2,
        }
    }
}

/// What a transport knows about one link, for congestion control and the HUD.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LinkStats {
    /// Smoothed round-trip time.
    pub rtt: Duration,
    /// Recent fraction of what this side sent that was lost on the way out (0..=1; QUIC: the
    /// packets quinn declared lost over the last ~2 s).
    pub loss: f64,
    /// Recent fraction of the peer's datagrams that never arrived (0..=1): the loss on the way
    /// in (QUIC: gaps in the datagram sequence over the last [`LOSS_IN_WINDOW`] sequence
    /// numbers; LinkSim: the peer's dropped datagrams).
    pub loss_in: f64,
    /// Datagrams received from the peer, and the peer's datagrams found missing (sequence
    /// gaps), since the link started: `missing / (in + missing)` is the loss on the way in
    /// over the whole session.
    pub datagrams_in: u64,
    pub datagrams_missing: u64,
    /// Payload bytes handed to the network / received from it.
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Messages sent / received (all channels).
    pub messages_sent: u64,
    pub messages_received: u64,
    /// The largest unreliable message that currently fits one datagram; larger ones are
    /// fragmented (and lost whole if any fragment is lost).
    pub max_datagram_size: usize,
    /// Reliable bytes queued but not yet acknowledged.
    pub reliable_backlog_bytes: usize,
    /// Datagram bytes accepted by `send` but not yet on the wire (QUIC: held in quinn's
    /// datagram send buffer by its congestion window or pacing; LinkSim: always 0).
    pub datagram_backlog_bytes: usize,
}

/// How many of the most recent datagram sequence numbers [`LinkStats::loss_in`] covers (a
/// datagram that arrives later than this many newer ones counts as lost).
pub const LOSS_IN_WINDOW: u64 = 256;

/// Why a connection ended.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DisconnectReason {
    /// This side closed it.
    #[error("closed locally: {0}")]
    Local(String),
    /// The other side closed it, with its reason.
    #[error("closed by the peer: {0}")]
    Remote(String),
    /// Nothing heard for the idle timeout.
    #[error("timed out")]
    TimedOut,
    /// The server's identity is not the one this client trusts (both fingerprints shown, and
    /// where the trusted one came from).
    #[error(
        "the server's identity changed: expected fingerprint {expected}, got {got} — {}",
        identity_hint(trusted_by.as_ref())
    )]
    IdentityChanged {
        expected: String,
        got: String,
        /// The `known_hosts` entry that holds `expected`; `None` for a pinned fingerprint.
        trusted_by: Option<KnownHostsEntry>,
    },
    /// The connection could not be made or broke (the text says why).
    #[error("transport error: {0}")]
    Transport(String),
}

/// One line of a `known_hosts` file: where a trusted fingerprint is written down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownHostsEntry {
    /// The file.
    pub path: PathBuf,
    /// Its 1-based line number.
    pub line: usize,
    /// The `host:port` key the line starts with.
    pub key: String,
}

/// What a person can do about a changed identity: which line of which file to delete.
fn identity_hint(trusted_by: Option<&KnownHostsEntry>) -> String {
    match trusted_by {
        Some(e) => format!(
            "if the operator regenerated it, delete line {} (`{} …`) of {}",
            e.line,
            e.key,
            e.path.display()
        ),
        None => "it is not the pinned fingerprint; if the operator regenerated it, pin the new one"
            .to_owned(),
    }
}

/// An error and its causes, outermost first, joined by `: ` (what anyhow's `{:#}` prints).
/// Errors in this workspace keep the cause out of their own text and expose it as `source`,
/// so turning one into a string must walk the chain or the cause is lost.
pub fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut out = err.to_string();
    let mut next = err.source();
    // A chain is a handful of layers; the bound only guards a cyclic `source`.
    for _ in 0..32 {
        let Some(e) = next else { break };
        out.push_str(": ");
        out.push_str(&e.to_string());
        next = e.source();
    }
    out
}

/// Something that happened on a server transport.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerEvent {
    /// A peer completed the transport handshake.
    Connected { peer: PeerId, addr: SocketAddr },
    /// A whole message arrived.
    Received {
        peer: PeerId,
        channel: Channel,
        payload: Vec<u8>,
    },
    /// A peer is gone (its id is never reused).
    Disconnected {
        peer: PeerId,
        reason: DisconnectReason,
    },
}

/// Something that happened on a client transport.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientEvent {
    /// The transport handshake completed.
    Connected,
    /// A whole message arrived.
    Received { channel: Channel, payload: Vec<u8> },
    /// The connection is gone.
    Disconnected { reason: DisconnectReason },
}

/// Why a send was refused (the message was not queued).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    #[error("no such peer")]
    UnknownPeer,
    #[error("not connected")]
    NotConnected,
    #[error("message of {size} bytes exceeds the {max}-byte limit")]
    TooLarge { size: usize, max: usize },
    /// The peer's queue is full: it is not keeping up (unreliable messages are dropped;
    /// a reliable overflow disconnects the peer).
    #[error("the peer's send queue is full")]
    QueueFull,
}

/// The server side of a transport.
pub trait ServerTransport: Send {
    /// The address clients connect to.
    fn local_addr(&self) -> SocketAddr;
    /// Moves every pending event into `out`; never blocks.
    fn poll(&mut self, out: &mut Vec<ServerEvent>);
    /// Queues a message for `peer`; never blocks.
    fn send(&mut self, peer: PeerId, channel: Channel, payload: &[u8]) -> Result<(), SendError>;
    /// Closes a peer's connection with a reason; queued reliable messages are flushed first
    /// (best effort, bounded in time) so a refusal reaches the client before the close.
    fn disconnect(&mut self, peer: PeerId, reason: &str);
    /// Current link statistics of a connected peer.
    fn link_stats(&self, peer: PeerId) -> Option<LinkStats>;
}

/// The client side of a transport.
pub trait ClientTransport: Send {
    /// Moves every pending event into `out`; never blocks.
    fn poll(&mut self, out: &mut Vec<ClientEvent>);
    /// Queues a message for the server; never blocks.
    fn send(&mut self, channel: Channel, payload: &[u8]) -> Result<(), SendError>;
    /// Closes the connection with a reason.
    fn disconnect(&mut self, reason: &str);
    /// Current link statistics.
    fn link_stats(&self) -> LinkStats;
}

#[cfg(test)]
mod tests {
    use super::*;
    use quic::QuicError;
    use std::io;

    /// No layer of a chain repeats the text of the layer below it.
    fn assert_no_repetition(err: &(dyn std::error::Error + 'static)) {
        let chain = error_chain(err);
        let mut layer = Some(err);
        while let Some(e) = layer {
            let text = e.to_string();
            assert_eq!(
                chain.matches(&text).count(),
                1,
                "{text:?} repeats in {chain:?}"
            );
            layer = e.source();
        }
    }

    #[test]
    fn io_errors_of_the_quic_transport_appear_once_in_the_chain() {
        let io = || {
            io::Error::new(
                io::ErrorKind::AddrInUse,
                "Address already in use (os error 98)",
            )
        };
        let path = PathBuf::from("/tmp/x/known_hosts");
        let errors = [
            QuicError::IdentityRead {
                path: path.clone(),
                source: io(),
            },
            QuicError::IdentityWrite {
                path: path.clone(),
                source: io(),
            },
            QuicError::KnownHostsRead {
                path: path.clone(),
                source: io(),
            },
            QuicError::KnownHostsWrite {
                path: path.clone(),
                source: io(),
            },
            QuicError::Bind {
                addr: SocketAddr::from(([127, 0, 0, 1], 4778)),
                source: io(),
            },
        ];
        for e in &errors {
            assert_no_repetition(e);
            let chain = error_chain(e);
            assert!(
                chain.ends_with(": Address already in use (os error 98)"),
                "{chain}"
            );
        }
        assert_eq!(
            error_chain(&errors[4]),
            "cannot bind UDP 127.0.0.1:4778: Address already in use (os error 98)"
        );
    }

    #[test]
    fn a_changed_identity_names_the_line_to_delete_or_the_pin() {
        let from_file = DisconnectReason::IdentityChanged {
            expected: "aa".into(),
            got: "bb".into(),
            trusted_by: Some(KnownHostsEntry {
                path: PathBuf::from("/home/p/.config/fighters-legacy/known_hosts"),
                line: 3,
                key: "example.org:4778".into(),
            }),
        };
        let text = from_file.to_string();
        assert!(
            text.contains("delete line 3 (`example.org:4778 …`) of /home/p/.config/fighters-legacy/known_hosts"),
            "{text}"
        );
        let pinned = DisconnectReason::IdentityChanged {
            expected: "aa".into(),
            got: "bb".into(),
            trusted_by: None,
        };
        assert!(pinned.to_string().contains("pinned"), "{pinned}");
    }
}

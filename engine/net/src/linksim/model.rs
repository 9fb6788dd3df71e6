//! LinkSim's data model: the per-link and per-end state, reliable items, scheduled actions,
//! and the seeded generator.
//!
//! Owns plain data and small pure helpers (RTT estimation, PTO, loss window, fragment counts,
//! transmit times). Must not: schedule anything or touch the agenda — that is `core`'s job.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::time::Duration;

use super::{LinkConfig, SimEndpointConfig};
use crate::{Channel, ClientEvent, PeerId, ServerEvent};

/// QUIC's initial RTT guess before any sample (RFC 9002).
pub(crate) const INITIAL_RTT: Duration = Duration::from_millis(333);
/// Acknowledgement delay a receiver may add (QUIC's default max_ack_delay).
pub(crate) const MAX_ACK_DELAY: Duration = Duration::from_millis(25);
/// Retransmission backoff never waits longer than this (unless one PTO is already longer).
pub(crate) const MAX_RETRANSMIT_INTERVAL: Duration = Duration::from_secs(2);
/// Datagrams remembered for the loss statistic.
pub(crate) const LOSS_WINDOW: usize = 256;
/// Bytes a control item (hello, close) costs on the wire.
pub(crate) const CONTROL_BYTES: usize = 32;
pub(crate) const FIRST_EPHEMERAL_PORT: u16 = 49152;

pub(crate) use crate::rng::Rng;

/// Which end of a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Client,
    Server,
}

impl Side {
    pub(crate) fn ix(self) -> usize {
        match self {
            Side::Client => 0,
            Side::Server => 1,
        }
    }
    pub(crate) fn other(self) -> Side {
        match self {
            Side::Client => Side::Server,
            Side::Server => Side::Client,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// Server side before the client's hello arrived: it sends nothing yet.
    Pending,
    /// Client side before the server's answer arrived.
    Connecting,
    Open,
    /// `disconnect` was called: the local event is out, queued reliable data and the close
    /// are still being (re)transmitted.
    Closing,
    Closed,
}

/// What travels on the reliable lane.
#[derive(Debug, Clone)]
pub(crate) enum Item {
    Hello,
    HelloAck,
    Refuse(String),
    Msg(Vec<u8>),
    Close(String),
}

#[derive(Debug)]
pub(crate) struct Outgoing {
    pub(crate) item: Option<Item>,
    /// Bytes counted against the backlog (messages only).
    pub(crate) backlog: usize,
    /// Bytes on the wire per attempt.
    pub(crate) wire: usize,
}

#[derive(Debug, Default)]
pub(crate) struct LossWindow {
    pub(crate) outcomes: VecDeque<bool>,
    pub(crate) lost: usize,
    /// Since the start: datagrams drawn, and those lost.
    pub(crate) total: u64,
    pub(crate) total_lost: u64,
}

impl LossWindow {
    pub(crate) fn record(&mut self, lost: bool) {
        if self.outcomes.len() == LOSS_WINDOW && self.outcomes.pop_front() == Some(true) {
            self.lost -= 1;
        }
        self.outcomes.push_back(lost);
        self.total += 1;
        if lost {
            self.lost += 1;
            self.total_lost += 1;
        }
    }
    pub(crate) fn fraction(&self) -> f64 {
        if self.outcomes.is_empty() {
            0.0
        } else {
            self.lost as f64 / self.outcomes.len() as f64
        }
    }
}

/// One end of a link: its sending state, its receiving state and its statistics.
#[derive(Debug)]
pub(crate) struct End {
    pub(crate) state: State,
    /// Whether a `Connected` event was emitted (so a `Disconnected` is owed).
    pub(crate) announced: bool,
    pub(crate) cfg: SimEndpointConfig,
    // Sending.
    pub(crate) next_seq: u64,
    pub(crate) outstanding: BTreeMap<u64, Outgoing>,
    pub(crate) outstanding_backlog: usize,
    pub(crate) wire_free_at: Duration,
    pub(crate) last_arrival: [Duration; 2],
    // Receiving.
    pub(crate) next_expected: u64,
    pub(crate) reorder_buf: BTreeMap<u64, Item>,
    pub(crate) unpolled_unreliable: usize,
    pub(crate) unpolled_reliable: usize,
    pub(crate) inbox_drops: u64,
    pub(crate) inbound_dead_since: Option<Duration>,
    pub(crate) inbound_gen: u64,
    // Statistics.
    pub(crate) srtt: Option<Duration>,
    pub(crate) rttvar: Duration,
    pub(crate) rtt_probe_pending: bool,
    pub(crate) loss: LossWindow,
    pub(crate) bytes_sent: u64,
    pub(crate) bytes_received: u64,
    pub(crate) messages_sent: u64,
    pub(crate) messages_received: u64,
}

impl End {
    pub(crate) fn new(state: State, cfg: SimEndpointConfig) -> Self {
        End {
            state,
            announced: false,
            cfg,
            next_seq: 0,
            outstanding: BTreeMap::new(),
            outstanding_backlog: 0,
            wire_free_at: Duration::ZERO,
            last_arrival: [Duration::ZERO; 2],
            next_expected: 0,
            reorder_buf: BTreeMap::new(),
            unpolled_unreliable: 0,
            unpolled_reliable: 0,
            inbox_drops: 0,
            inbound_dead_since: None,
            inbound_gen: 0,
            srtt: None,
            rttvar: Duration::ZERO,
            rtt_probe_pending: false,
            loss: LossWindow::default(),
            bytes_sent: 0,
            bytes_received: 0,
            messages_sent: 0,
            messages_received: 0,
        }
    }

    pub(crate) fn rtt_sample(&mut self, sample: Duration) {
        match self.srtt {
            None => {
                self.srtt = Some(sample);
                self.rttvar = sample / 2;
            }
            Some(srtt) => {
                let diff = srtt.abs_diff(sample);
                self.rttvar = (self.rttvar * 3 + diff) / 4;
                self.srtt = Some((srtt * 7 + sample) / 8);
            }
        }
    }

    /// QUIC's probe timeout from this end's RTT estimate (RFC 9002 §6.2.1).
    pub(crate) fn pto(&self) -> Duration {
        let (srtt, var) = match self.srtt {
            Some(s) => (s, self.rttvar),
            None => (INITIAL_RTT, INITIAL_RTT / 2),
        };
        srtt + (var * 4).max(Duration::from_millis(1)) + MAX_ACK_DELAY
    }

    /// Can this end still receive application data?
    pub(crate) fn accepts_data(&self) -> bool {
        self.state == State::Open
    }
}

#[derive(Debug)]
pub(crate) struct Link {
    pub(crate) client_addr: SocketAddr,
    /// The server instance this link belongs to (0 = nothing listened at connect time).
    pub(crate) server_id: u64,
    pub(crate) peer: PeerId,
    pub(crate) cfg: LinkConfig,
    pub(crate) ends: [End; 2],
    pub(crate) blackout_until: Option<Duration>,
    pub(crate) blackout_gen: u64,
    pub(crate) client_inbox: VecDeque<ClientEvent>,
    pub(crate) client_dropped: bool,
}

impl Link {
    pub(crate) fn end(&self, side: Side) -> &End {
        &self.ends[side.ix()]
    }
    pub(crate) fn end_mut(&mut self, side: Side) -> &mut End {
        &mut self.ends[side.ix()]
    }
    pub(crate) fn dir(&self, from: Side) -> &super::DirectionConfig {
        match from {
            Side::Client => &self.cfg.to_server,
            Side::Server => &self.cfg.to_client,
        }
    }
    pub(crate) fn blackout_at(&self, t: Duration) -> bool {
        self.blackout_until.is_some_and(|until| t < until)
    }
}

#[derive(Debug)]
pub(crate) struct Server {
    pub(crate) addr: SocketAddr,
    pub(crate) cfg: SimEndpointConfig,
    pub(crate) inbox: VecDeque<(u64, ServerEvent)>,
    pub(crate) peers: BTreeMap<PeerId, u64>,
    pub(crate) next_peer: PeerId,
}

#[derive(Debug)]
pub(crate) enum Action {
    RelAttempt {
        link: u64,
        from: Side,
        seq: u64,
        attempt: u32,
    },
    RelArrive {
        link: u64,
        to: Side,
        seq: u64,
        item: Item,
    },
    RelAck {
        link: u64,
        from: Side,
        seq: u64,
        sample: Duration,
    },
    Arrive {
        link: u64,
        to: Side,
        channel: Channel,
        payload: Vec<u8>,
    },
    RttSample {
        link: u64,
        side: Side,
        sample: Duration,
    },
    CloseNotify {
        link: u64,
        to: Side,
        reason: String,
    },
    IdleCheck {
        link: u64,
        side: Side,
        gen_: u64,
    },
    BlackoutEnd {
        link: u64,
        gen_: u64,
    },
}

/// Marks a received message as taken by the application.
pub(crate) fn unpoll(end: &mut End, channel: Channel, len: usize) {
    match channel {
        Channel::Reliable => end.unpolled_reliable = end.unpolled_reliable.saturating_sub(len),
        Channel::Unreliable | Channel::Voice => {
            end.unpolled_unreliable = end.unpolled_unreliable.saturating_sub(1)
        }
    }
}

/// Datagrams needed for `len` bytes (an empty message still takes one).
pub(crate) fn fragments(len: usize, max_datagram: usize) -> usize {
    len.div_ceil(max_datagram.max(1)).max(1)
}

pub(crate) fn transmit_time(bytes: usize, bandwidth: u64) -> Duration {
    if bandwidth == 0 {
        return Duration::ZERO;
    }
    let nanos = (bytes as u128 * 1_000_000_000) / u128::from(bandwidth);
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

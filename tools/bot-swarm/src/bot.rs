//! One bot: joins as a pilot, flies scripted inputs (a weaving turn, so the furball keeps
//! moving), acks what it decodes, heartbeats once a second, optionally talks in All chat at a
//! set rate, and counts what it receives.
//! Transport-agnostic: it drives any `ClientTransport`.

use fl_net::{Channel, ClientEvent, ClientTransport};
use fl_protocol::ack::AckTracker;
use fl_protocol::enums::{ChatChannel, PeerRole, buttons};
use fl_protocol::msg::handshake::ConnectRequest;
use fl_protocol::msg::social::Chat;
use fl_protocol::msg::world::{ClientInput, Heartbeat};
use fl_protocol::snapshot::SnapshotDecoder;
use fl_protocol::{Message, MsgId, PROTOCOL_VERSION, Packet};

/// What one bot saw.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BotStats {
    pub admitted: bool,
    pub refused: Option<String>,
    pub disconnected: Option<String>,
    pub snapshots: u64,
    pub snapshot_bytes: u64,
    pub other_bytes: u64,
    pub decode_errors: u64,
    pub largest_snapshot: usize,
    pub records: u64,
    /// Server ticks between consecutive snapshots (sum and count, for the mean).
    pub interval_sum: u64,
    pub interval_count: u64,
    /// Snapshots that arrived older than one already seen.
    pub stale: u64,
    /// Ticks skipped between received snapshots beyond the expected spacing.
    pub gaps: u64,
    /// Chat lines sent, and routed chat lines (`MsgChatEvent`) received.
    pub chat_sent: u64,
    pub chat_received: u64,
}

/// A scripted bot client.
pub struct Bot<T: ClientTransport> {
    pub transport: T,
    pub stats: BotStats,
    id: u32,
    requested: bool,
    connected: bool,
    seq: u32,
    acks: AckTracker,
    last_tick: Option<u64>,
    decoder: SnapshotDecoder,
    events: Vec<ClientEvent>,
    ticks: u64,
    /// Ticks between this bot's All-chat lines (`None`: it never talks).
    chat_every: Option<u64>,
}

impl<T: ClientTransport> std::fmt::Debug for Bot<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bot")
            .field("id", &self.id)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl<T: ClientTransport> Bot<T> {
    pub fn new(id: u32, transport: T) -> Self {
        Self {
            transport,
            stats: BotStats::default(),
            id,
            requested: false,
            connected: false,
            seq: 0,
            acks: AckTracker::new(),
            last_tick: None,
            decoder: SnapshotDecoder::new(),
            events: Vec::new(),
            ticks: 0,
            chat_every: None,
        }
    }

    /// Makes the bot say one All-chat line every `ticks` ticks (phase-shifted per bot).
    pub fn chat_every(mut self, ticks: Option<u64>) -> Self {
        self.chat_every = ticks.filter(|&t| t > 0);
        self
    }

    /// One 60 Hz step of the bot: read everything, then send this tick's input.
    pub fn step(&mut self) {
        self.ticks += 1;
        let mut events = std::mem::take(&mut self.events);
        self.transport.poll(&mut events);
        for ev in events.drain(..) {
            match ev {
                ClientEvent::Connected => self.connected = true,
                ClientEvent::Disconnected { reason } => {
                    self.stats.disconnected = Some(reason.to_string());
                }
                ClientEvent::Received { payload, .. } => self.on_message(&payload),
            }
        }
        self.events = events;
        if self.connected && !self.requested {
            self.requested = true;
            let req = ConnectRequest {
                requested_role: PeerRole::Pilot,
                protocol_version: PROTOCOL_VERSION,
                callsign: format!("bot-{}", self.id).as_str().into(),
                ..Default::default()
            };
            if let Ok(bytes) = Message::from(req).encode() {
                let _ = self.transport.send(Channel::Reliable, &bytes);
            }
        }
        if !self.stats.admitted {
            return;
        }
        let stamp = self.acks.stamp().unwrap_or_default();
        self.seq = self.seq.wrapping_add(1);
        // A weaving climbing turn, phase-shifted per bot so the furball spreads.
        let t = (self.ticks as f32 + self.id as f32 * 37.0) / 60.0;
        let input = ClientInput {
            protocol_version: PROTOCOL_VERSION,
            seq_num: self.seq,
            tick_index: stamp.high,
            ack_mask: stamp.mask,
            buttons: if (self.ticks / 600).is_multiple_of(2) {
                buttons::AFTERBURNER
            } else {
                0
            },
            throttle: 1.0,
            elevator: 0.25 + 0.2 * (t * 0.3).sin(),
            aileron: 0.35 * (t * 0.2).sin(),
            rudder: 0.0,
            view_axis: [0.0, 0.0, -1.0],
            selected_station: 255,
            radar_mode: 255,
            ..Default::default()
        };
        if let Ok(bytes) = Message::from(input).encode() {
            let _ = self.transport.send(Channel::Unreliable, &bytes);
        }
        if let Some(every) = self.chat_every
            && self.ticks % every == u64::from(self.id) % every
        {
            let line = Chat {
                channel: ChatChannel::All,
                text: format!("bot-{} line {}", self.id, self.stats.chat_sent),
            };
            if let Ok(bytes) = Message::from(line).encode()
                && self.transport.send(Channel::Reliable, &bytes).is_ok()
            {
                self.stats.chat_sent += 1;
            }
        }
        if self.ticks.is_multiple_of(60) {
            let hb = Heartbeat {
                ack_mask: stamp.mask,
                tick_index: stamp.high,
            };
            if let Ok(bytes) = Message::from(hb).encode() {
                let _ = self.transport.send(Channel::Unreliable, &bytes);
            }
        }
    }

    fn on_message(&mut self, payload: &[u8]) {
        if payload.first() == Some(&MsgId::WorldSnapshot.to_u8()) {
            self.stats.snapshot_bytes += payload.len() as u64;
            self.stats.largest_snapshot = self.stats.largest_snapshot.max(payload.len());
            match self.decoder.decode(payload) {
                Ok((_, snap, _)) => {
                    self.stats.snapshots += 1;
                    self.stats.records += snap.records.len() as u64;
                    let tick = snap.tick_index;
                    match self.last_tick {
                        Some(last) if tick <= last => self.stats.stale += 1,
                        Some(last) => {
                            self.stats.interval_sum += tick - last;
                            self.stats.interval_count += 1;
                            self.acks.record(tick);
                            self.last_tick = Some(tick);
                        }
                        None => {
                            self.acks.record(tick);
                            self.last_tick = Some(tick);
                        }
                    }
                }
                Err(_) => self.stats.decode_errors += 1,
            }
            return;
        }
        self.stats.other_bytes += payload.len() as u64;
        match Packet::decode(payload) {
            Ok(p) => match p.message {
                Message::ConnectAck(_) => self.stats.admitted = true,
                Message::ChatEvent(_) => self.stats.chat_received += 1,
                Message::ConnectRefusal(r) => {
                    self.stats.refused = Some(r.reason.as_str().to_owned())
                }
                _ => {}
            },
            Err(_) => self.stats.decode_errors += 1,
        }
    }
}

//! `ClientSession`: one connection to a server, from the transport handshake to the end.
//!
//! States: `Connecting` (transport handshake) → `Handshaking` (the client's `MsgConnectRequest`
//! and the server's `MsgHello` cross; then `MsgConnectAck` or `MsgConnectRefusal`) → `InWorld`
//! → `Ended`. Every way a session can end has one [`EndReason`] with a player-facing sentence:
//! each refusal code, a protocol version mismatch, a handshake timeout, a changed server
//! identity, a lost connection, a server shutdown (announced by `MsgServerNotice`).
//!
//! In the world it keeps the type registry (kept on `ConnectAckTypesUnchanged`), factions and
//! alert levels, the weather timeline, notices and the MOTD, the peer delay, and the entity
//! table fed by snapshots: stale or duplicate ticks are dropped before decoding, despawns are
//! applied before upserts, deltas for unknown entities are ignored, the retention timeout evicts,
//! every snapshot TLV is read. It stamps the ack (high-water tick + 32-bit selective mask) on
//! every input and on the 1 Hz heartbeat.
//!
//! Owns the transport and the protocol state. Time is passed in (`now`, any monotonic origin):
//! the session never reads a clock, so LinkSim tests are deterministic.

pub mod combat;
mod intake;
pub mod mission;
pub mod social;

use crate::entities::{EntityEntry, EntityTable, Upsert};
use crate::messages::EndReason;
use crate::weather::WeatherTimeline;
use fl_flight::AircraftState;
use fl_net::quic::{ClientConfig as QuicClientConfig, QuicClient, QuicError, TrustPolicy};
use fl_net::{Channel, ClientEvent, ClientTransport, DisconnectReason, LinkStats, SendError};
use fl_protocol::EncodeError;
use fl_protocol::ack::{AckStamp, AckTracker};
use fl_protocol::enums::{AlertLevel, ChatChannel, PeerRole};
use fl_protocol::ids::Direction;
use fl_protocol::msg::admin::AdminCommand;
use fl_protocol::msg::handshake::{
    ConnectAck, ConnectRefusal, ConnectRequest, EntityTypeDef, PackManifestEntry,
};
use fl_protocol::msg::social::{Chat, TeamRequest};
use fl_protocol::msg::world::{ClientInput, Heartbeat};
use fl_protocol::snapshot::{RETENTION_TICKS, SnapshotDecoder};
use fl_protocol::tlv::{
    EffectRecord, Ext, Extensions, MAX_REDUNDANT_INPUTS, OWN_STATE_FORMAT, OWN_STATE_FORMAT_FLIGHT,
    input_redundancy, tag, ticks_to_milliticks, view_delay_to_wire,
};
use fl_protocol::{FixedStr, Message, MsgId, PROTOCOL_VERSION, Packet};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

/// How long `SnapshotServerThrottle` stays latched after the last tagged snapshot (ticks).
const THROTTLE_LATCH_TICKS: u64 = 180;
/// Weather windows older than this many ticks behind the newest snapshot are forgotten.
const WEATHER_KEEP_TICKS: u64 = 600;

/// How the session presents itself and how patient it is.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionConfig {
    pub callsign: String,
    /// Entity type to fly; empty = the server's default.
    pub requested_entity_type: String,
    pub role: PeerRole,
    /// Join password (`ConnectJoinPassword`).
    pub password: Option<String>,
    /// Stable pilot identity (`ConnectIdentity`).
    pub identity: Option<String>,
    /// Mounted content packs (id, version).
    pub packs: Vec<(String, String)>,
    /// Each pack's terrain digest (`PackManifestEntry.contentHash`; a pack not listed sends
    /// zeros, "not computed").
    pub pack_hashes: Vec<(String, [u8; 32])>,
    /// The join timeout: from the start until `MsgConnectAck` (connection, hello and
    /// admission together). `connect_quic` gives the QUIC client the same value as its
    /// connect timeout, so a silent address ends with the same message whichever side
    /// notices first.
    pub handshake_timeout: Duration,
    /// Heartbeat period once snapshots flow.
    pub heartbeat_interval: Duration,
    /// This client's build (compared with `HelloBuildVersion`).
    pub client_build: String,
    /// MOTD banner time when the server leaves it to the client.
    pub motd_display: Duration,
    /// Earlier inputs repeated in every `MsgClientInput` (`InputRedundancy`, at most 15), so a
    /// lost datagram costs the server no input: with 3, up to three lost in a row are covered.
    pub input_redundancy: usize,
    /// Silence from the server (no message of any kind) after which the session shows
    /// "connection interrupted" (a banner, not an end). The server sends at least 10 snapshots
    /// a second to a peer in the world, so one second of nothing is an outage.
    pub interrupted_after: Duration,
    /// Silence after which the session ends (`EndReason::TimedOut`); `connect_quic` gives the
    /// QUIC transport the same idle timeout, so either side's timer ends it the same way.
    pub idle_timeout: Duration,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            callsign: "Pilot".to_owned(),
            requested_entity_type: String::new(),
            role: PeerRole::Pilot,
            password: None,
            identity: None,
            packs: Vec::new(),
            pack_hashes: Vec::new(),
            handshake_timeout: fl_net::quic::DEFAULT_CONNECT_TIMEOUT,
            heartbeat_interval: Duration::from_secs(1),
            client_build: crate::BUILD_VERSION.to_owned(),
            motd_display: Duration::from_secs(15),
            input_redundancy: 3,
            interrupted_after: Duration::from_secs(1),
            idle_timeout: fl_net::quic::DEFAULT_IDLE_TIMEOUT,
        }
    }
}

/// Where the session is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    /// The transport handshake (QUIC/TLS) is under way.
    Connecting,
    /// Transport up; waiting for `MsgHello` and `MsgConnectAck`.
    Handshaking,
    /// Admitted.
    InWorld,
    /// Over; see [`ClientSession::end_reason`].
    Ended,
}

/// The player's own entity: pool index and its full 32-bit generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnEntity {
    pub idx: u32,
    pub generation: u32,
}

impl OwnEntity {
    /// Whether a wire record's 16-bit generation is this entity's (the low 16 bits).
    pub fn matches_wire(&self, idx: u32, wire_generation: u16) -> bool {
        self.idx == idx && wire_generation == wire_generation_of(self.generation)
    }
}

/// The generation a record carries for a full 32-bit generation (its low 16 bits).
pub fn wire_generation_of(generation: u32) -> u16 {
    (generation & 0xFFFF) as u16
}

/// The server's input timing for this pilot (`SnapshotInputTiming`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputTiming {
    /// The lead the input clock should hold (`InputClock::lead_ticks`'s frame), ticks.
    pub target_lead_ticks: f64,
    /// The server buffer's target depth, ticks.
    pub depth_ticks: u8,
    /// Inputs queued at the server when the snapshot was built.
    pub queued: u8,
    /// The snapshot tick that carried it.
    pub tick: u64,
}

/// What `MsgConnectAck` granted.
#[derive(Debug, Clone, PartialEq)]
pub struct Admission {
    pub tick_rate_hz: u8,
    pub role: PeerRole,
    pub own: Option<OwnEntity>,
    pub peer_id: u32,
    /// Planet radius in metres (the ack carries f32 km).
    pub planet_radius_m: f64,
    /// `ConnectAckAuthority`: granted capability bits and faction.
    pub authority: Option<(u64, u16)>,
}

/// One faction.
#[derive(Debug, Clone, PartialEq)]
pub struct Faction {
    pub index: u16,
    pub id: String,
    /// Display name (the id when the server sent none).
    pub name: String,
    pub alert: Option<AlertLevel>,
}

/// A server notice (shutdown countdown).
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub seconds_remaining: u16,
    pub text: String,
    pub received_at: Duration,
}

/// The message of the day.
#[derive(Debug, Clone, PartialEq)]
pub struct MotdInfo {
    pub text: String,
    /// Non-empty lines, `\r` stripped.
    pub lines: Vec<String>,
    /// How long the banner shows.
    pub display: Duration,
    pub received_at: Duration,
}

/// The own aircraft as one snapshot describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnSnapshot {
    pub entity: OwnEntity,
    pub type_index: u32,
    /// The exact state from `SnapshotOwnState`, when present and valid for this entity.
    pub exact: Option<AircraftState>,
    /// A `SnapshotOwnState` was present but refused (other entity, format, invalid words).
    pub own_state_refused: bool,
    /// The own combat state (stores, expendables, damage factors) from a format-2
    /// `SnapshotOwnState`, when its words were valid.
    pub combat: Option<fl_combat::own::OwnCombat>,
    /// The quantized record.
    pub record: EntityEntry,
    /// `SnapshotLastAckedSeqNum`.
    pub acked_seq: Option<u32>,
    /// `SnapshotPeerDelayTicks`.
    pub delay_ticks: Option<u16>,
}

/// What one applied snapshot changed.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotUpdate {
    pub tick: u64,
    pub received_at: Duration,
    pub bytes: usize,
    pub own: Option<OwnSnapshot>,
    /// Records applied, in packet order.
    pub changes: Vec<(u32, Upsert)>,
    /// Entities gone: despawned (before the records) and evicted by retention (after).
    pub removed: Vec<u32>,
    /// Cosmetic effects of known types.
    pub effects: Vec<EffectRecord>,
}

/// Something the caller may act on.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionEvent {
    TransportConnected,
    /// `MsgHello` arrived and matches; `build_warning` when the builds differ.
    Hello {
        build_warning: Option<String>,
    },
    /// The first `MsgConnectAck`.
    Admitted,
    /// The own entity changed (respawn, seat change, first assignment).
    OwnEntityChanged {
        previous: Option<OwnEntity>,
        current: Option<OwnEntity>,
    },
    /// The type registry was replaced.
    TypesUpdated,
    Snapshot(Box<SnapshotUpdate>),
    Weather,
    Notice(Notice),
    Motd,
    PeerDelay {
        delay_ticks: u16,
    },
    /// An operator reply arrived (a whole `MsgAdminResponse` or a chunk); the console's lines
    /// are in [`ClientSession::social`].
    AdminOutput {
        req_id: u16,
        text: String,
    },
    /// A chat line arrived (in [`ClientSession::social`]).
    Chat,
    /// Nothing heard from the server for `silent_for` (≥ `interrupted_after`): show
    /// "connection interrupted"; the session lives on until the idle timeout.
    Interrupted {
        silent_for: Duration,
    },
    /// The server is heard again after an interruption that lasted `outage`.
    Resumed {
        outage: Duration,
    },
    /// The mission ended (`MsgMissionOutcome`, the first terminal one).
    MissionEnded(mission::Outcome),
    /// A radio line to subtitle (and speak, when it has a voice).
    Radio(mission::RadioLine),
    Ended(EndReason),
}

/// Counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionStats {
    pub snapshots_received: u64,
    pub snapshots_applied: u64,
    /// Older than or equal to the newest applied tick (duplicates and reordering).
    pub snapshots_stale: u64,
    pub snapshots_wrong_version: u64,
    pub snapshots_before_admission: u64,
    pub decode_errors: u64,
    /// Message ids this build does not know: additive messages of a newer server, discarded
    /// silently as the spec asks (not decode errors).
    pub unknown_messages: u64,
    pub wrong_direction: u64,
    pub unexpected_messages: u64,
    pub inputs_sent: u64,
    pub heartbeats_sent: u64,
    pub send_failures: u64,
    pub snapshot_bytes: u64,
    /// Interruptions (silences of at least `interrupted_after`) the session survived or is in.
    pub interruptions: u64,
    /// The longest silence that ended with the server heard again.
    pub longest_outage: Duration,
}

/// Why a message was not sent.
#[derive(Debug, thiserror::Error)]
pub enum SessionSendError {
    #[error("not in the world (the session is {0:?})")]
    NotInWorld(SessionState),
    #[error("the admin token is {len} bytes; the wire carries at most {max}")]
    AdminTokenTooLong { len: usize, max: usize },
    #[error("cannot encode the message")]
    Encode(#[from] EncodeError),
    #[error("the transport refused the message")]
    Transport(#[from] SendError),
}

/// Why a session could not even start.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot start the QUIC connection")]
    Quic(#[from] QuicError),
}

/// One connection to a server.
pub struct ClientSession {
    transport: Box<dyn ClientTransport>,
    cfg: SessionConfig,
    /// The server's address, for messages (unknown for an in-memory transport).
    server_addr: Option<SocketAddr>,
    /// When the transport itself gives up on connecting, if known (`connect_quic`).
    transport_connect_timeout: Option<Duration>,
    state: SessionState,
    started_at: Duration,
    hello: Option<(u16, Option<String>)>,
    admission: Option<Admission>,
    types: BTreeMap<u32, EntityTypeDef>,
    factions: BTreeMap<u16, Faction>,
    weather: WeatherTimeline,
    notices: Vec<Notice>,
    motd: Option<MotdInfo>,
    peer_delay_ticks: Option<u16>,
    acks: AckTracker,
    last_tick: Option<u64>,
    decoder: SnapshotDecoder,
    entities: EntityTable,
    peer_count: Option<u16>,
    latency_ms: Option<u16>,
    delay_ticks: Option<u16>,
    throttle: Option<(u8, u8, u64)>,
    last_snapshot_at: Option<Duration>,
    last_heartbeat: Option<Duration>,
    /// The inputs sent last, newest first (the redundant copies of the next input), each with
    /// the render tick of the frame its pilot saw (its `InputViewDelay` when repeated).
    sent_inputs: std::collections::VecDeque<(ClientInput, Option<f64>)>,
    /// The STT designation the next inputs carry (`InputDesignate`; `None`: no TLV).
    designation: Option<u32>,
    input_timing: Option<InputTiming>,
    /// When anything was last received from the server.
    last_heard: Option<Duration>,
    /// Since when the server is silent, once that counts as an interruption.
    interrupted_since: Option<Duration>,
    refusal: Option<ConnectRefusal>,
    shutdown_notice: Option<String>,
    end: Option<EndReason>,
    social: social::Social,
    combat: combat::CombatLog,
    mission: mission::MissionLog,
    admin_req: u16,
    events: Vec<SessionEvent>,
    transport_events: Vec<ClientEvent>,
    stats: SessionStats,
}

impl std::fmt::Debug for ClientSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSession")
            .field("state", &self.state)
            .field("own", &self.own_entity())
            .field("last_tick", &self.last_tick)
            .field("entities", &self.entities.len())
            .finish_non_exhaustive()
    }
}

impl ClientSession {
    /// A session over an already created transport (LinkSim, or QUIC made by the caller).
    pub fn new(transport: Box<dyn ClientTransport>, cfg: SessionConfig, now: Duration) -> Self {
        Self {
            transport,
            cfg,
            server_addr: None,
            transport_connect_timeout: None,
            state: SessionState::Connecting,
            started_at: now,
            hello: None,
            admission: None,
            types: BTreeMap::new(),
            factions: BTreeMap::new(),
            weather: WeatherTimeline::new(),
            notices: Vec::new(),
            motd: None,
            peer_delay_ticks: None,
            acks: AckTracker::new(),
            last_tick: None,
            decoder: SnapshotDecoder::new(),
            entities: EntityTable::new(),
            peer_count: None,
            latency_ms: None,
            delay_ticks: None,
            throttle: None,
            last_snapshot_at: None,
            last_heartbeat: None,
            sent_inputs: std::collections::VecDeque::new(),
            designation: None,
            input_timing: None,
            last_heard: None,
            interrupted_since: None,
            refusal: None,
            shutdown_notice: None,
            end: None,
            social: social::Social::default(),
            combat: combat::CombatLog::default(),
            mission: mission::MissionLog::default(),
            admin_req: 0,
            events: Vec::new(),
            transport_events: Vec::new(),
            stats: SessionStats::default(),
        }
    }

    /// Connects over QUIC to `addr`, verifying the server as `trust` says (trust on first use
    /// through `known_hosts`, or a pinned fingerprint). `server_name` keys `known_hosts`.
    pub fn connect_quic(
        addr: SocketAddr,
        server_name: &str,
        trust: TrustPolicy,
        cfg: SessionConfig,
        now: Duration,
    ) -> Result<Self, SessionError> {
        let quic = QuicClientConfig {
            connect_timeout: cfg.handshake_timeout,
            idle_timeout: cfg.idle_timeout,
            ..QuicClientConfig::default()
        };
        // QUIC's idle timer bounds the handshake too, so the smaller of the two fires.
        let gives_up = quic.connect_timeout.min(quic.idle_timeout);
        let client = QuicClient::connect_with(addr, server_name, trust, quic)?;
        let mut s = Self::new(Box::new(client), cfg, now).with_server_addr(addr);
        s.transport_connect_timeout = Some(gives_up);
        Ok(s)
    }

    /// Names the server's address in the session's messages (a join timeout says where).
    pub fn with_server_addr(mut self, addr: SocketAddr) -> Self {
        self.server_addr = Some(addr);
        self
    }

    /// The server's address, when known.
    pub fn server_addr(&self) -> Option<SocketAddr> {
        self.server_addr
    }

    pub fn state(&self) -> SessionState {
        self.state
    }

    pub fn config(&self) -> &SessionConfig {
        &self.cfg
    }

    /// Why the session ended (once `Ended`).
    pub fn end_reason(&self) -> Option<&EndReason> {
        self.end.as_ref()
    }

    /// The server's protocol version and build, once `MsgHello` arrived.
    pub fn hello(&self) -> Option<(u16, Option<&str>)> {
        self.hello.as_ref().map(|(v, b)| (*v, b.as_deref()))
    }

    /// The warning shown when the server's build differs from ours.
    pub fn build_warning(&self) -> Option<String> {
        let (_, build) = self.hello.as_ref()?;
        let build = build.as_deref()?;
        (build != self.cfg.client_build).then(|| {
            format!(
                "The server runs build {build}, this client is build {}; features added between \
                 them may not work.",
                self.cfg.client_build
            )
        })
    }

    pub fn admission(&self) -> Option<&Admission> {
        self.admission.as_ref()
    }

    pub fn own_entity(&self) -> Option<OwnEntity> {
        self.admission.as_ref().and_then(|a| a.own)
    }

    /// The entity type registry, by index.
    pub fn types(&self) -> &BTreeMap<u32, EntityTypeDef> {
        &self.types
    }

    pub fn factions(&self) -> &BTreeMap<u16, Faction> {
        &self.factions
    }

    pub fn weather(&self) -> &WeatherTimeline {
        &self.weather
    }

    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    pub fn motd(&self) -> Option<&MotdInfo> {
        self.motd.as_ref()
    }

    /// `MsgPeerDelay`'s estimate in ticks (the server's `now − acked tick`, about one RTT).
    pub fn peer_delay_ticks(&self) -> Option<u16> {
        self.peer_delay_ticks
    }

    pub fn entities(&self) -> &EntityTable {
        &self.entities
    }

    /// The newest applied snapshot tick.
    pub fn last_snapshot_tick(&self) -> Option<u64> {
        self.last_tick
    }

    /// The server's latest input timing (`SnapshotInputTiming`): where the input clock's lead
    /// should be.
    pub fn input_timing(&self) -> Option<InputTiming> {
        self.input_timing
    }

    /// The ack stamp the next input or heartbeat carries.
    pub fn ack_stamp(&self) -> Option<AckStamp> {
        self.acks.stamp()
    }

    /// `SnapshotPeerCount`.
    pub fn server_peer_count(&self) -> Option<u16> {
        self.peer_count
    }

    /// `SnapshotPeerLatency` (ms).
    pub fn snapshot_latency_ms(&self) -> Option<u16> {
        self.latency_ms
    }

    /// `SnapshotServerThrottle` as (load %, interval ticks) while latched: the server, not the
    /// player's link, is shedding snapshots.
    pub fn server_throttle(&self) -> Option<(u8, u8)> {
        let (load, interval, until) = self.throttle?;
        (self.last_tick? <= until).then_some((load, interval))
    }

    /// The kill feed and the peer's own combat tallies, as the server told them.
    pub fn combat(&self) -> &combat::CombatLog {
        &self.combat
    }

    /// The mission's objects, radio lines, music state and end, as the server told them.
    pub fn mission(&self) -> &mission::MissionLog {
        &self.mission
    }

    /// Roster, chat, scoreboard, match state, mutes and the operator console, as the server
    /// told them.
    pub fn social(&self) -> &social::Social {
        &self.social
    }

    /// The social state, for the player's own choices (mutes, console notes).
    pub fn social_mut(&mut self) -> &mut social::Social {
        &mut self.social
    }

    /// Sends a chat line (`MsgChat`, reliable), cut to the wire's 240 bytes. The server echoes
    /// All-channel lines back to the sender, so nothing is added to the log here.
    pub fn send_chat(&mut self, channel: ChatChannel, text: &str) -> Result<(), SessionSendError> {
        if self.state != SessionState::InWorld {
            return Err(SessionSendError::NotInWorld(self.state));
        }
        let mut text = text.to_owned();
        social::clamp_chat_input(&mut text);
        self.send(Channel::Reliable, Chat { channel, text }.into())
    }

    /// Asks the server to move the player to another team (`MsgTeamRequest`, reliable).
    pub fn send_team_request(&mut self, faction_index: u16) -> Result<(), SessionSendError> {
        if self.state != SessionState::InWorld {
            return Err(SessionSendError::NotInWorld(self.state));
        }
        self.send(Channel::Reliable, TeamRequest { faction_index }.into())
    }

    pub fn stats(&self) -> SessionStats {
        self.stats
    }

    /// While the server is silent for longer than `interrupted_after` (the "connection
    /// interrupted" banner): since when nothing was heard. `None` when the link is fine.
    pub fn interrupted_since(&self) -> Option<Duration> {
        self.interrupted_since
    }

    /// How long the server has been silent at `now` (`None` before anything was heard).
    pub fn silence(&self, now: Duration) -> Option<Duration> {
        self.last_heard.map(|t| now.saturating_sub(t))
    }

    /// The banner to show while interrupted (`None` when the link is fine): how long nothing
    /// was heard and when the session gives up.
    pub fn interruption_notice(&self, now: Duration) -> Option<String> {
        let since = self.interrupted_since?;
        let silent = now.saturating_sub(since).as_secs();
        let limit = self.cfg.idle_timeout.as_secs();
        Some(format!(
            "Connection interrupted: nothing heard from the server for {silent} s. Still \
             flying; the session ends if nothing comes for {limit} s."
        ))
    }

    pub fn link_stats(&self) -> LinkStats {
        self.transport.link_stats()
    }

    /// What stage the handshake is waiting for (for timeout texts and loading screens).
    pub fn stage(&self) -> &'static str {
        match self.state {
            SessionState::Connecting => "waiting for the connection",
            SessionState::Handshaking if self.hello.is_none() => "waiting for the server's hello",
            SessionState::Handshaking => "waiting to be admitted",
            SessionState::InWorld => "in the world",
            SessionState::Ended => "ended",
        }
    }

    /// Services the transport and the timers; events since the last call are appended to `out`.
    pub fn update(&mut self, now: Duration, out: &mut Vec<SessionEvent>) {
        if self.state != SessionState::Ended {
            let mut evs = std::mem::take(&mut self.transport_events);
            self.transport.poll(&mut evs);
            for ev in evs.drain(..) {
                if self.state == SessionState::Ended {
                    break;
                }
                match ev {
                    ClientEvent::Connected => self.on_connected(),
                    ClientEvent::Received { channel, payload } => {
                        self.receive(channel, &payload, now)
                    }
                    ClientEvent::Disconnected { reason } => self.on_disconnected(reason, now),
                }
            }
            self.transport_events = evs;
        }
        if matches!(
            self.state,
            SessionState::Connecting | SessionState::Handshaking
        ) && now.saturating_sub(self.started_at) >= self.cfg.handshake_timeout
        {
            let stage = self.stage();
            self.transport.disconnect("handshake timed out");
            self.finish(EndReason::HandshakeTimeout {
                waited: self.cfg.handshake_timeout,
                stage,
                server: self.server_addr,
            });
        }
        if self.state == SessionState::InWorld {
            self.watch_silence(now);
        }
        if self.state == SessionState::InWorld
            && self.last_tick.is_some()
            && self
                .last_heartbeat
                .is_none_or(|t| now.saturating_sub(t) >= self.cfg.heartbeat_interval)
        {
            self.send_heartbeat(now);
        }
        out.append(&mut self.events);
    }

    /// Silence from the server: the banner after `interrupted_after`, the end at
    /// `idle_timeout` (the transport's own idle timer would say the same).
    fn watch_silence(&mut self, now: Duration) {
        let Some(heard) = self.last_heard else { return };
        let silent = now.saturating_sub(heard);
        if silent >= self.cfg.idle_timeout {
            tracing::warn!(
                "nothing heard from the server for {:.1} s (the idle timeout): the session ends",
                silent.as_secs_f64()
            );
            self.transport.disconnect("idle timeout");
            self.finish(EndReason::TimedOut);
        } else if silent >= self.cfg.interrupted_after && self.interrupted_since.is_none() {
            tracing::warn!(
                "connection interrupted: nothing heard from the server for {:.1} s (the session \
                 ends after {:.0} s)",
                silent.as_secs_f64(),
                self.cfg.idle_timeout.as_secs_f64()
            );
            self.interrupted_since = Some(heard);
            self.stats.interruptions += 1;
            self.events
                .push(SessionEvent::Interrupted { silent_for: silent });
        }
    }

    /// Ends the session from this side.
    pub fn disconnect(&mut self, reason: &str) {
        if self.state != SessionState::Ended {
            self.transport.disconnect(reason);
            self.finish(EndReason::Local(reason.to_owned()));
        }
    }

    /// Sends one input, stamped with the protocol version and the current ack, with copies of
    /// the inputs sent just before it. Only in the world.
    pub fn send_input(&mut self, input: &mut ClientInput) -> Result<(), SessionSendError> {
        self.send_input_with_lead(input, None)
    }

    /// The radar designation every following input carries (`InputDesignate`, 0x0303):
    /// `Some(entity index)` designates that entity as the STT target,
    /// `Some(fl_protocol::tlv::DESIGNATE_NONE)` clears the designation, `None` sends nothing
    /// (the server keeps what it has). From [`crate::input_clock::PilotInput::designate`].
    pub fn set_designation(&mut self, target: Option<u32>) {
        self.designation = target;
    }

    /// [`ClientSession::send_input`], also telling the server the input clock's lead (ticks
    /// ahead of its unsteered 60 Hz clock, `InputClockLead`) so it measures the link's jitter
    /// apart from the steering.
    pub fn send_input_with_lead(
        &mut self,
        input: &mut ClientInput,
        lead_ticks: Option<f64>,
    ) -> Result<(), SessionSendError> {
        self.send_input_timed(input, lead_ticks, None)
    }

    /// [`ClientSession::send_input_with_lead`], also telling the server, for lag compensation,
    /// the (fractional) server tick the remote entities were drawn at in the last frame before
    /// this input (`render_tick`, the render bridge's): the input then carries
    /// `InputViewDelay` = its ack stamp's tick − `render_tick`, the interpolation delay as
    /// shown, and the server rewinds this pilot's hitscan to exactly that world. `None` (nothing
    /// drawn yet) sends no delay.
    pub fn send_input_timed(
        &mut self,
        input: &mut ClientInput,
        lead_ticks: Option<f64>,
        render_tick: Option<f64>,
    ) -> Result<(), SessionSendError> {
        if self.state != SessionState::InWorld {
            return Err(SessionSendError::NotInWorld(self.state));
        }
        input.protocol_version = PROTOCOL_VERSION;
        let stamp = self.acks.stamp().unwrap_or_default();
        input.tick_index = stamp.high;
        input.ack_mask = stamp.mask;
        // The copies: the inputs sent just before, as long as their sequence numbers run on
        // without a gap (the input clock never skips one; a caller that does gets fewer).
        let keep = self.cfg.input_redundancy.min(MAX_REDUNDANT_INPUTS);
        let sent: Vec<&(ClientInput, Option<f64>)> = self
            .sent_inputs
            .iter()
            .enumerate()
            .take_while(|(i, (p, _))| p.seq_num == input.seq_num.wrapping_sub(*i as u32 + 1))
            .map(|(_, p)| p)
            .take(keep)
            .collect();
        let previous: Vec<ClientInput> = sent.iter().map(|(p, _)| p.clone()).collect();
        let mut ext = Extensions::new();
        if !previous.is_empty() {
            let _ = ext.push(&input_redundancy(input, &previous));
        }
        if let Some(lead) = lead_ticks {
            let _ = ext.push(&Ext::InputClockLead(ticks_to_milliticks(lead)));
        }
        // What the pilot saw with this input and each copy, against this message's stamp (the
        // copies' view up to the first one drawn before any frame).
        if let (Some(rt), Some(acked)) = (render_tick, self.acks.stamp()) {
            let high = acked.high as f64;
            let delays = std::iter::once(Some(rt))
                .chain(sent.iter().map(|(_, v)| *v))
                .map_while(|v| v.map(|t| view_delay_to_wire(high - t)))
                .collect();
            let _ = ext.push(&Ext::InputViewDelay(delays));
        }
        if let Some(target) = self.designation {
            let _ = ext.push(&Ext::InputDesignate(target));
        }
        let r = self.send_with(Channel::Unreliable, Message::from(input.clone()), &ext);
        // Kept whether or not the send worked: a copy in the next packet may still get it there.
        self.sent_inputs.push_front((input.clone(), render_tick));
        self.sent_inputs.truncate(keep);
        if r.is_ok() {
            self.stats.inputs_sent += 1;
        }
        r
    }

    /// Sends an operator command (`MsgAdminCommand`); the answer arrives as `AdminOutput`.
    pub fn send_admin(&mut self, token: &str, command: &str) -> Result<u16, SessionSendError> {
        if self.state == SessionState::Ended {
            return Err(SessionSendError::NotInWorld(self.state));
        }
        // A longer token would be cut on the wire and could never match: say so instead.
        let max = fl_protocol::msg::admin::ADMIN_TOKEN_MAX_BYTES;
        if token.len() > max {
            return Err(SessionSendError::AdminTokenTooLong {
                len: token.len(),
                max,
            });
        }
        self.admin_req = self.admin_req.wrapping_add(1);
        let cmd = AdminCommand {
            req_id: self.admin_req,
            token: FixedStr::new(token),
            command: FixedStr::new(command),
        };
        self.send(Channel::Reliable, cmd.into())?;
        Ok(self.admin_req)
    }

    fn send(&mut self, channel: Channel, msg: Message) -> Result<(), SessionSendError> {
        self.send_with(channel, msg, &Extensions::new())
    }

    fn send_with(
        &mut self,
        channel: Channel,
        msg: Message,
        ext: &Extensions,
    ) -> Result<(), SessionSendError> {
        let bytes = msg.encode_with(ext).inspect_err(|e| {
            tracing::warn!("cannot encode {:?}: {e}", msg.id());
            self.stats.send_failures += 1;
        })?;
        self.transport.send(channel, &bytes).map_err(|e| {
            self.stats.send_failures += 1;
            tracing::debug!(?channel, "send failed: {e}");
            SessionSendError::Transport(e)
        })
    }

    fn send_heartbeat(&mut self, now: Duration) {
        let stamp = self.acks.stamp().unwrap_or_default();
        let hb = Heartbeat {
            ack_mask: stamp.mask,
            tick_index: stamp.high,
        };
        self.last_heartbeat = Some(now);
        if self.send(Channel::Unreliable, hb.into()).is_ok() {
            self.stats.heartbeats_sent += 1;
        }
    }

    fn finish(&mut self, reason: EndReason) {
        if self.state == SessionState::Ended {
            return;
        }
        tracing::info!("session ended: {}", reason.message());
        self.state = SessionState::Ended;
        self.end = Some(reason.clone());
        self.events.push(SessionEvent::Ended(reason));
    }

    fn on_connected(&mut self) {
        if self.state != SessionState::Connecting {
            return;
        }
        self.state = SessionState::Handshaking;
        self.events.push(SessionEvent::TransportConnected);
        let req = ConnectRequest {
            requested_role: self.cfg.role,
            protocol_version: PROTOCOL_VERSION,
            requested_entity_type: FixedStr::new(&self.cfg.requested_entity_type),
            callsign: FixedStr::new(&self.cfg.callsign),
            packs: self
                .cfg
                .packs
                .iter()
                .map(|(id, version)| PackManifestEntry {
                    id: FixedStr::new(id),
                    version: FixedStr::new(version),
                    content_hash: self
                        .cfg
                        .pack_hashes
                        .iter()
                        .find(|(h, _)| h == id)
                        .map_or([0; 32], |(_, d)| *d),
                })
                .collect(),
        };
        let mut ext = Extensions::new();
        if let Some(id) = &self.cfg.identity {
            let _ = ext.push(&Ext::ConnectIdentity(id.clone()));
        }
        if let Some(pw) = &self.cfg.password {
            let _ = ext.push(&Ext::ConnectJoinPassword(pw.clone()));
        }
        if let Err(e) = self.send_with(Channel::Reliable, req.into(), &ext) {
            // A server that refuses at once has already closed; its refusal and the close follow
            // in this same poll and say why. A broken transport reports its own close too.
            tracing::debug!("join request not sent: {}", fl_net::error_chain(&e));
        }
    }

    fn on_disconnected(&mut self, reason: DisconnectReason, now: Duration) {
        let end = if let Some(r) = self.refusal.take() {
            EndReason::Refused {
                code: r.code,
                reason: r.reason.as_str().to_owned(),
            }
        } else {
            match reason {
                DisconnectReason::IdentityChanged {
                    expected,
                    got,
                    trusted_by,
                } => EndReason::IdentityChanged {
                    expected,
                    got,
                    trusted_by,
                },
                // The transport's connect timeout: the same join timeout as the session's own
                // (`connect_quic` passes it down), so the same message.
                DisconnectReason::TimedOut if self.state == SessionState::Connecting => {
                    EndReason::HandshakeTimeout {
                        waited: self
                            .transport_connect_timeout
                            .unwrap_or_else(|| now.saturating_sub(self.started_at)),
                        stage: self.stage(),
                        server: self.server_addr,
                    }
                }
                DisconnectReason::TimedOut => EndReason::TimedOut,
                DisconnectReason::Remote(text) => match self.shutdown_notice.clone() {
                    Some(notice) => EndReason::ServerShutdown { notice },
                    // The transport's own text when a server process goes away.
                    None if text == "server shut down" => EndReason::ServerShutdown {
                        notice: String::new(),
                    },
                    None => EndReason::ClosedByServer(text),
                },
                DisconnectReason::Local(text) => EndReason::Local(text),
                DisconnectReason::Transport(text) => EndReason::Transport(text),
            }
        };
        self.finish(end);
    }

    /// Handles one received message (public so benchmarks and tools can feed bytes directly).
    pub fn receive(&mut self, channel: Channel, payload: &[u8], now: Duration) {
        self.last_heard = Some(now);
        if let Some(since) = self.interrupted_since.take() {
            let outage = now.saturating_sub(since);
            tracing::warn!(
                "connection resumed after an outage of {:.1} s",
                outage.as_secs_f64()
            );
            self.stats.longest_outage = self.stats.longest_outage.max(outage);
            self.events.push(SessionEvent::Resumed { outage });
        }
        let Some(&first) = payload.first() else {
            self.stats.decode_errors += 1;
            return;
        };
        let Some(id) = MsgId::from_u8(first) else {
            self.stats.unknown_messages += 1;
            return;
        };
        if id.info().direction != Direction::ServerToClient || id.info().lane.channel().is_none() {
            self.stats.wrong_direction += 1;
            return;
        }
        if id == MsgId::WorldSnapshot {
            self.on_snapshot(payload, now);
            return;
        }
        let packet = match Packet::decode(payload) {
            Ok(p) => p,
            Err(e) => {
                self.stats.decode_errors += 1;
                tracing::debug!("undecodable {id:?}: {e}");
                return;
            }
        };
        let reliable = channel == Channel::Reliable;
        match packet.message {
            Message::Hello(h) if reliable => self.on_hello(h.protocol_version, &packet.ext),
            Message::ConnectRefusal(r) if reliable => {
                tracing::info!(code = ?r.code, reason = r.reason.as_str(), "refused");
                let end = EndReason::Refused {
                    code: r.code,
                    reason: r.reason.as_str().to_owned(),
                };
                self.transport.disconnect("refused");
                self.finish(end);
            }
            Message::ConnectAck(ack) if reliable => self.on_ack(ack, &packet.ext),
            Message::FactionDef(def) => {
                for r in def.records {
                    let name = if r.name.as_str().is_empty() {
                        r.id.as_str().to_owned()
                    } else {
                        r.name.as_str().to_owned()
                    };
                    let alert = self.factions.get(&r.faction_index).and_then(|f| f.alert);
                    self.factions.insert(
                        r.faction_index,
                        Faction {
                            index: r.faction_index,
                            id: r.id.as_str().to_owned(),
                            name,
                            alert,
                        },
                    );
                }
            }
            Message::AlertLevelChange(a) => {
                let f = self.factions.entry(a.faction_index).or_insert(Faction {
                    index: a.faction_index,
                    id: String::new(),
                    name: format!("faction {}", a.faction_index),
                    alert: None,
                });
                f.alert = Some(a.level);
            }
            Message::WeatherState(w) => {
                let fallback = self.last_tick.map_or(0, |t| t + 1);
                self.weather.on_message(&w, &packet.ext, fallback);
                self.events.push(SessionEvent::Weather);
            }
            Message::ServerNotice(n) => {
                let notice = Notice {
                    seconds_remaining: n.seconds_remaining,
                    text: n.text.as_str().to_owned(),
                    received_at: now,
                };
                if n.seconds_remaining == 0 {
                    self.shutdown_notice = Some(notice.text.clone());
                }
                if self.notices.len() >= 64 {
                    self.notices.remove(0);
                }
                self.notices.push(notice.clone());
                self.events.push(SessionEvent::Notice(notice));
            }
            Message::Motd(m) => {
                let lines = m
                    .text
                    .split('\n')
                    .map(|l| l.trim_end_matches('\r'))
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_owned)
                    .collect();
                let display = if m.display_seconds == 0 {
                    self.cfg.motd_display
                } else {
                    Duration::from_secs(u64::from(m.display_seconds))
                };
                self.motd = Some(MotdInfo {
                    text: m.text,
                    lines,
                    display,
                    received_at: now,
                });
                self.events.push(SessionEvent::Motd);
            }
            Message::PeerDelay(d) => {
                if d.delay_ticks > 0 {
                    self.peer_delay_ticks = Some(d.delay_ticks);
                    self.events.push(SessionEvent::PeerDelay {
                        delay_ticks: d.delay_ticks,
                    });
                }
            }
            Message::CombatEvent(e) if reliable => self.combat.on_event(&e, now),
            Message::Datalink(d) => self.combat.on_datalink(d),
            Message::MissionRoster(r) if reliable => self.mission.on_roster(&r),
            Message::RadioTransmission(r) if reliable => {
                if let Some(line) = self.mission.on_radio(&r, now) {
                    self.events.push(SessionEvent::Radio(line.clone()));
                }
            }
            Message::MusicState(m) => self.mission.on_music(&m),
            Message::MissionOutcome(o) if reliable => {
                if self.mission.on_outcome(&o, now)
                    && let Some(out) = self.mission.outcome
                {
                    self.events.push(SessionEvent::MissionEnded(out));
                }
            }
            Message::AdminResponse(r) => {
                self.social.on_admin_response(&r);
                self.events.push(SessionEvent::AdminOutput {
                    req_id: r.req_id,
                    text: r.text.as_str().to_owned(),
                });
            }
            Message::AdminResponseChunk(c) => {
                self.social.on_admin_chunk(&c);
                self.events.push(SessionEvent::AdminOutput {
                    req_id: c.req_id,
                    text: c.body.as_str().to_owned(),
                });
            }
            Message::ChatEvent(c) if reliable => {
                self.social.on_chat(&c, now);
                self.events.push(SessionEvent::Chat);
            }
            Message::PlayerRoster(r) if reliable => self.social.on_roster(&r),
            Message::MatchState(m) if reliable => self.social.on_match_state(&m),
            Message::Scoreboard(b) => self.social.on_scoreboard(&b),
            other => {
                // Messages of later issues (voice…) and reliable-only
                // messages that arrived on the wrong lane.
                self.stats.unexpected_messages += 1;
                tracing::trace!(id = ?other.id(), ?channel, "message not handled");
            }
        }
    }

    fn on_hello(&mut self, version: u16, ext: &Extensions) {
        let build = match ext.get(tag::HELLO_BUILD_VERSION) {
            Some(Ext::HelloBuildVersion(b)) => Some(b),
            _ => None,
        };
        self.hello = Some((version, build));
        if version != PROTOCOL_VERSION {
            self.transport.disconnect("protocol version mismatch");
            self.finish(EndReason::VersionMismatch {
                server: version,
                client: PROTOCOL_VERSION,
            });
            return;
        }
        let build_warning = self.build_warning();
        if let Some(w) = &build_warning {
            tracing::warn!("{w}");
        }
        self.events.push(SessionEvent::Hello { build_warning });
    }

    fn on_ack(&mut self, ack: ConnectAck, ext: &Extensions) {
        if self.hello.is_none() {
            // Reliable and ordered: a server always says hello first. One that does not is not
            // speaking our protocol; still, the ack tells us what we need, so accept it.
            tracing::debug!("MsgConnectAck before MsgHello");
        }
        let unchanged = ext.find(tag::CONNECT_ACK_TYPES_UNCHANGED).is_some();
        if !unchanged && !ack.types.is_empty() {
            self.types = ack
                .types
                .iter()
                .map(|t| (t.type_index, t.clone()))
                .collect();
            self.events.push(SessionEvent::TypesUpdated);
        }
        let authority = match ext.get(tag::CONNECT_ACK_AUTHORITY) {
            Some(Ext::ConnectAckAuthority {
                caps,
                faction_index,
            }) => Some((caps, faction_index)),
            _ => None,
        };
        let own = (ack.assigned_entity_gen != 0).then_some(OwnEntity {
            idx: ack.assigned_entity_idx,
            generation: ack.assigned_entity_gen,
        });
        // The server simulates on exactly the radius this f32 field announces.
        let radius_m = ack.planet_radius_m();
        let planet_radius_m = if radius_m.is_finite() && radius_m > 1000.0 {
            radius_m
        } else {
            fl_flight::gravity::EARTH_RADIUS_M
        };
        let previous = self.own_entity();
        let first = self.admission.is_none();
        self.social.set_own_id(ack.peer_id);
        self.admission = Some(Admission {
            tick_rate_hz: ack.tick_rate_hz,
            role: ack.granted_role,
            own,
            peer_id: ack.peer_id,
            planet_radius_m,
            authority,
        });
        if first {
            self.state = SessionState::InWorld;
            self.events.push(SessionEvent::Admitted);
        }
        if first || previous != own {
            self.events.push(SessionEvent::OwnEntityChanged {
                previous,
                current: own,
            });
        }
    }
}

//! The server: one authoritative tick at a time. Each [`Server::tick`] services the transport
//! (admission, handshake, inputs, heartbeats, admin), drains one input per pilot from its jitter
//! buffer, steps the world, then sends every peer its snapshot and, every 10 ticks, the weather.
//! Pausing stops the world but never the network: peers keep being admitted and answered.
//!
//! Owns the peer table and the order of the phases; the collaborators (admission, world,
//! snapshot pipeline, weather) own their state. Time comes from the caller (`ServerRuntime`
//! drives it from the wall clock, tests from a loop), so a tick is deterministic given its inputs.

use crate::admission::{Admission, AdmissionConfig, JoinRequest, Refusal};
use crate::input::{FloodLimit, InputGate, controls_from_input};
use crate::jitter::{JitterBuffer, JitterConfig};
use crate::pool::EntityId;
use crate::snapshot::congestion::{GovernorConfig, TickGovernor};
use crate::snapshot::{
    PeerContext, PeerSnapshotStats, PeerSnapshots, SnapshotConfig, TickEncoding,
};
use crate::spatial::auto_cell_size;
use crate::types::TypeRegistry;
use crate::weather::{Weather, WeatherConfig};
use crate::world::{Body, Entity, Pilot, World, WorldConfig};
use fl_flight::math::{Quat, Vec3};
use fl_flight::spawn::trim_level;
use fl_flight::{AircraftState, Controls};
use fl_net::{Channel, DisconnectReason, PeerId, ServerEvent, ServerTransport};
use fl_protocol::ack::AckStamp;
use fl_protocol::enums::{AlertLevel, ConnectRefusalCode, PeerRole};
use fl_protocol::msg::admin::{AdminCommand, AdminResponse};
use fl_protocol::msg::handshake::{ConnectAck, ConnectRefusal, ConnectRequest, Hello, Motd};
use fl_protocol::msg::world::{
    AlertLevelChange, FactionDef, FactionDefRecord, Heartbeat, PeerDelay, ServerNotice,
};
use fl_protocol::tlv::{Ext, Extensions};
use fl_protocol::{FixedStr, Message, Packet};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Where pilots appear (round robin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpawnPoint {
    /// World X and Z of the spawn, m.
    pub x: f64,
    pub z: f64,
    pub altitude_m: f64,
    /// Heading, degrees clockwise from north.
    pub heading_deg: f64,
    pub speed_mps: f64,
}

/// A faction of the match.
#[derive(Debug, Clone, PartialEq)]
pub struct FactionSpec {
    pub index: u16,
    pub id: String,
    pub name: String,
}

/// Everything the server is configured with.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    pub world: WorldConfig,
    pub snapshot: SnapshotConfig,
    pub jitter: JitterConfig,
    pub flood: FloodLimit,
    pub admission: AdmissionConfig,
    pub weather: WeatherConfig,
    pub governor: GovernorConfig,
    pub motd: String,
    pub motd_display_s: u16,
    /// Sent in `HelloBuildVersion`.
    pub build_version: String,
    pub spawn_points: Vec<SpawnPoint>,
    /// The type pilots fly unless they ask for another (`[world] player_entity_type`).
    pub player_entity_type: String,
    pub factions: Vec<FactionSpec>,
    /// Ticks between a pilot's crash and their new aircraft.
    pub respawn_delay_ticks: u64,
    /// Operator password for `MsgAdminCommand` (`None` = admin channel off).
    pub operator_password: Option<String>,
    /// Malformed packets a peer may send before it is dropped (token bucket burst; one token
    /// returns every 10 ticks).
    pub malformed_burst: u32,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            world: WorldConfig::default(),
            snapshot: SnapshotConfig::default(),
            jitter: JitterConfig::default(),
            flood: FloodLimit::default(),
            admission: AdmissionConfig::default(),
            weather: WeatherConfig::default(),
            governor: GovernorConfig::default(),
            motd: String::new(),
            motd_display_s: 0,
            build_version: env!("CARGO_PKG_VERSION").to_owned(),
            spawn_points: (0..8)
                .map(|i| SpawnPoint {
                    x: f64::from(i) * 400.0 - 1400.0,
                    z: 0.0,
                    altitude_m: 3000.0,
                    heading_deg: 0.0,
                    speed_mps: 200.0,
                })
                .collect(),
            player_entity_type: "builtin:jet-trainer".to_owned(),
            factions: vec![
                FactionSpec {
                    index: 1,
                    id: "blue".into(),
                    name: "Blue".into(),
                },
                FactionSpec {
                    index: 2,
                    id: "red".into(),
                    name: "Red".into(),
                },
            ],
            respawn_delay_ticks: 180,
            operator_password: None,
            malformed_burst: 50,
        }
    }
}

#[derive(Debug)]
struct Admitted {
    role: PeerRole,
    entity: Option<EntityId>,
    faction: u16,
    type_index: Option<u32>,
    respawn_at: Option<u64>,
    callsign: String,
}

#[derive(Debug)]
struct PeerSlot {
    addr: SocketAddr,
    connected_tick: u64,
    admitted: Option<Admitted>,
    gate: InputGate,
    jitter: JitterBuffer,
    snapshots: PeerSnapshots,
    camera_eye: [f64; 3],
    types_generation_sent: Option<u64>,
    malformed_tokens: f64,
    last_delay_ticks: u64,
}

/// Per-phase wall time of one tick (for metrics; never fed back into the simulation).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TickTimings {
    pub network: Duration,
    pub world: Duration,
    pub snapshots: Duration,
    pub total: Duration,
}

/// What a peer has cost and received (for metrics and load tools).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PeerReport {
    pub peer: PeerId,
    pub entity: Option<EntityId>,
    pub snapshots: PeerSnapshotStats,
    pub jitter_depth: usize,
    pub throttle: f64,
}

/// The authoritative server.
pub struct Server {
    cfg: ServerConfig,
    transport: Box<dyn ServerTransport>,
    world: World,
    types: TypeRegistry,
    admission: Admission,
    peers: BTreeMap<PeerId, PeerSlot>,
    weather: Weather,
    governor: TickGovernor,
    encoding: TickEncoding,
    spawn_cursor: usize,
    paused: bool,
    events: Vec<ServerEvent>,
    /// Ticks the network was serviced (advances while paused too).
    service_ticks: u64,
    malformed_packets: u64,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("tick", &self.world.tick())
            .field("peers", &self.peers.len())
            .field("entities", &self.world.len())
            .field("paused", &self.paused)
            .finish_non_exhaustive()
    }
}

fn send(
    t: &mut dyn ServerTransport,
    peer: PeerId,
    channel: Channel,
    message: Message,
    ext: &Extensions,
) {
    match message.encode_with(ext) {
        Ok(bytes) => {
            if let Err(e) = t.send(peer, channel, &bytes) {
                tracing::debug!(peer, ?channel, "send dropped: {e}");
            }
        }
        Err(e) => tracing::warn!(peer, "cannot encode {:?}: {e}", message.id()),
    }
}

impl Server {
    /// A server over `transport` with the entity types `types`.
    pub fn new(
        cfg: ServerConfig,
        transport: Box<dyn ServerTransport>,
        types: TypeRegistry,
    ) -> Self {
        Self {
            world: World::new(cfg.world.clone()),
            admission: Admission::new(cfg.admission.clone()),
            weather: Weather::new(cfg.weather.clone()),
            governor: TickGovernor::new(cfg.governor),
            encoding: TickEncoding::default(),
            types,
            transport,
            peers: BTreeMap::new(),
            spawn_cursor: 0,
            paused: false,
            events: Vec::new(),
            service_ticks: 0,
            malformed_packets: 0,
            cfg,
        }
    }

    pub fn config(&self) -> &ServerConfig {
        &self.cfg
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    pub fn types(&self) -> &TypeRegistry {
        &self.types
    }

    pub fn transport(&self) -> &dyn ServerTransport {
        self.transport.as_ref()
    }

    /// Peers currently connected (admitted or not).
    pub fn peer_count(&self) -> usize {
        self.peers.len()
    }

    /// Peers past the handshake.
    pub fn admitted_count(&self) -> usize {
        self.peers.values().filter(|p| p.admitted.is_some()).count()
    }

    /// Malformed packets received so far.
    pub fn malformed_packets(&self) -> u64 {
        self.malformed_packets
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Stops the world (the network keeps being serviced).
    pub fn pause(&mut self) {
        self.paused = true;
    }

    pub fn resume(&mut self) {
        self.paused = false;
    }

    /// The governor's current load factor.
    pub fn load_factor(&self) -> f64 {
        self.governor.load_factor()
    }

    /// Per-peer statistics, in peer order.
    pub fn peer_reports(&self) -> Vec<PeerReport> {
        self.peers
            .iter()
            .map(|(&peer, p)| PeerReport {
                peer,
                entity: p.admitted.as_ref().and_then(|a| a.entity),
                snapshots: p.snapshots.stats,
                jitter_depth: p.jitter.depth(),
                throttle: p.snapshots.congestion.throttle(),
            })
            .collect()
    }

    /// Spawns an aircraft of type `type_index` at a spawn point, flown by `pilot`.
    pub fn spawn_aircraft(
        &mut self,
        type_index: u32,
        faction: u16,
        pilot: Pilot,
        at: SpawnPoint,
    ) -> Option<EntityId> {
        let t = self.types.get(type_index)?;
        let model = t.model.clone()?;
        let heading = at.heading_deg.to_radians();
        let fuel = model.max_fuel_kg;
        let (mut state, controls) = match trim_level(
            &model,
            self.world.planet(),
            at.altitude_m,
            at.speed_mps,
            fuel,
            heading,
        ) {
            Some(trim) => (trim.state, trim.controls),
            None => (
                AircraftState::flying(Vec3::ZERO, heading, at.speed_mps, fuel),
                Controls::default(),
            ),
        };
        state.position = Vec3::new(at.x, at.altitude_m, at.z);
        state.payload_kg = t.payload_mass_kg;
        state.payload_cd0 = t.payload_cd0;
        let limits = t.limits;
        self.world
            .spawn(Entity {
                type_index,
                faction,
                body: Body::Aircraft {
                    model,
                    limits,
                    state,
                },
                pilot,
                controls,
                hp_fraction: 1.0,
                crashed_at: None,
            })
            .ok()
    }

    /// Spawns a non-flying entity (placeholder, structure).
    pub fn spawn_static(
        &mut self,
        type_index: u32,
        faction: u16,
        position: Vec3,
    ) -> Option<EntityId> {
        self.types.get(type_index)?;
        self.world
            .spawn(Entity {
                type_index,
                faction,
                body: Body::Static {
                    position,
                    orientation: Quat::IDENTITY,
                },
                pilot: Pilot::None,
                controls: Controls::default(),
                hp_fraction: 1.0,
                crashed_at: None,
            })
            .ok()
    }

    fn next_spawn_point(&mut self) -> SpawnPoint {
        let points = &self.cfg.spawn_points;
        let p = points
            .get(self.spawn_cursor % points.len().max(1))
            .copied()
            .unwrap_or(SpawnPoint {
                x: 0.0,
                z: 0.0,
                altitude_m: 3000.0,
                heading_deg: 0.0,
                speed_mps: 200.0,
            });
        self.spawn_cursor = self.spawn_cursor.wrapping_add(1);
        p
    }

    /// The faction with the fewest pilots (ties: lowest index).
    fn pick_faction(&self) -> u16 {
        let count = |f: u16| {
            self.peers
                .values()
                .filter(|p| p.admitted.as_ref().is_some_and(|a| a.faction == f))
                .count()
        };
        self.cfg
            .factions
            .iter()
            .min_by_key(|f| (count(f.index), f.index))
            .map_or(0, |f| f.index)
    }

    /// Broadcasts a shutdown notice to every admitted peer.
    pub fn broadcast_notice(&mut self, seconds_remaining: u16, text: &str) {
        let notice = ServerNotice {
            seconds_remaining,
            text: FixedStr::new(text),
        };
        let ids: Vec<PeerId> = self.peers.keys().copied().collect();
        for peer in ids {
            send(
                self.transport.as_mut(),
                peer,
                Channel::Reliable,
                notice.clone().into(),
                &Extensions::new(),
            );
        }
    }

    /// Disconnects every peer with a reason (graceful shutdown).
    pub fn disconnect_all(&mut self, reason: &str) {
        let ids: Vec<PeerId> = self.peers.keys().copied().collect();
        for peer in ids {
            self.transport.disconnect(peer, reason);
        }
    }

    /// One fixed step.
    pub fn tick(&mut self) -> TickTimings {
        let start = Instant::now();
        self.service_network();
        let network = start.elapsed();
        let mut timings = TickTimings {
            network,
            ..TickTimings::default()
        };
        self.service_ticks += 1;
        if self.paused {
            timings.total = start.elapsed();
            return timings;
        }

        let t_world = Instant::now();
        self.apply_inputs();
        let tick = self.world.tick();
        let wind = self.weather.wind_field(tick);
        let report = self.world.step(&wind);
        for id in &report.removed {
            for p in self.peers.values_mut() {
                p.snapshots.baselines.on_despawn(id.index);
            }
        }
        self.handle_crashes_and_respawns();
        timings.world = t_world.elapsed();

        let t_snap = Instant::now();
        self.send_snapshots();
        self.send_weather();
        timings.snapshots = t_snap.elapsed();
        timings.total = start.elapsed();
        self.governor.observe(timings.total);
        timings
    }

    fn service_network(&mut self) {
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        self.transport.poll(&mut events);
        let now = self.world.tick();
        for ev in events.drain(..) {
            match ev {
                ServerEvent::Connected { peer, addr } => self.on_connected(peer, addr, now),
                ServerEvent::Received {
                    peer,
                    channel,
                    payload,
                } => self.on_received(peer, channel, &payload, now),
                ServerEvent::Disconnected { peer, reason } => self.on_disconnected(peer, &reason),
            }
        }
        self.events = events;
        // Peers that never asked to join are dropped.
        let timeout = self.cfg.admission.request_timeout_ticks;
        let service = self.service_ticks;
        let stale: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| {
                p.admitted.is_none() && service.saturating_sub(p.connected_tick) > timeout
            })
            .map(|(&id, _)| id)
            .collect();
        for peer in stale {
            self.refuse(
                peer,
                Refusal {
                    code: ConnectRefusalCode::Generic,
                    reason: "No connect request received.".into(),
                },
            );
        }
        self.admission.prune(self.service_ticks);
    }

    fn on_connected(&mut self, peer: PeerId, addr: SocketAddr, _now: u64) {
        if let Err(refusal) = self.admission.on_connect(addr.ip(), self.service_ticks) {
            tracing::info!(peer, %addr, code = ?refusal.code, "connection refused");
            let msg = ConnectRefusal {
                code: refusal.code,
                reason: FixedStr::new(&refusal.reason),
            };
            send(
                self.transport.as_mut(),
                peer,
                Channel::Reliable,
                msg.into(),
                &Extensions::new(),
            );
            self.transport.disconnect(peer, &refusal.reason);
            return;
        }
        self.peers.insert(
            peer,
            PeerSlot {
                addr,
                connected_tick: self.service_ticks,
                admitted: None,
                gate: InputGate::new(self.cfg.flood),
                jitter: JitterBuffer::new(self.cfg.jitter),
                snapshots: PeerSnapshots::new(&self.cfg.snapshot),
                camera_eye: [0.0; 3],
                types_generation_sent: None,
                malformed_tokens: f64::from(self.cfg.malformed_burst),
                last_delay_ticks: 0,
            },
        );
        let mut ext = Extensions::new();
        if !self.cfg.build_version.is_empty() {
            let _ = ext.push(&Ext::HelloBuildVersion(self.cfg.build_version.clone()));
        }
        send(
            self.transport.as_mut(),
            peer,
            Channel::Reliable,
            Hello::current().into(),
            &ext,
        );
    }

    fn on_disconnected(&mut self, peer: PeerId, reason: &DisconnectReason) {
        if let Some(addr) = self.forget_peer(peer) {
            tracing::info!(peer, %addr, "disconnected: {reason}");
        }
    }

    /// Removes a peer from the table, releases its per-IP slot and despawns its aircraft.
    fn forget_peer(&mut self, peer: PeerId) -> Option<SocketAddr> {
        let slot = self.peers.remove(&peer)?;
        self.admission.on_disconnect(slot.addr.ip());
        if let Some(entity) = slot.admitted.and_then(|a| a.entity) {
            self.world.despawn(entity);
        }
        Some(slot.addr)
    }

    /// Closes a peer's connection with a reason and forgets it.
    fn kick(&mut self, peer: PeerId, reason: &str) {
        self.transport.disconnect(peer, reason);
        self.forget_peer(peer);
    }

    fn refuse(&mut self, peer: PeerId, refusal: Refusal) {
        let msg = ConnectRefusal {
            code: refusal.code,
            reason: FixedStr::new(&refusal.reason),
        };
        send(
            self.transport.as_mut(),
            peer,
            Channel::Reliable,
            msg.into(),
            &Extensions::new(),
        );
        self.kick(peer, &refusal.reason);
    }

    fn malformed(&mut self, peer: PeerId, what: &str) {
        self.malformed_packets += 1;
        let Some(slot) = self.peers.get_mut(&peer) else {
            return;
        };
        slot.malformed_tokens -= 1.0;
        tracing::debug!(peer, "malformed packet: {what}");
        if slot.malformed_tokens < 0.0 {
            tracing::warn!(peer, addr = %slot.addr, "too many malformed packets; disconnecting");
            self.kick(peer, "protocol violation: too many malformed packets");
        }
    }

    fn on_received(&mut self, peer: PeerId, channel: Channel, payload: &[u8], now: u64) {
        if !self.peers.contains_key(&peer) {
            return;
        }
        let packet = match Packet::decode(payload) {
            Ok(p) => p,
            Err(e) => {
                self.malformed(peer, &e.to_string());
                return;
            }
        };
        let admitted = self.peers.get(&peer).is_some_and(|p| p.admitted.is_some());
        match (packet.message, channel) {
            (Message::ConnectRequest(req), Channel::Reliable) => {
                if admitted {
                    self.send_connect_ack(peer);
                } else {
                    self.on_connect_request(peer, &req, &packet.ext);
                }
            }
            (Message::ClientInput(input), _) if admitted => {
                let Some(slot) = self.peers.get_mut(&peer) else {
                    return;
                };
                match slot.gate.admit(&input, now) {
                    Ok(accepted) => {
                        slot.snapshots.baselines.on_ack(accepted.ack);
                        slot.camera_eye = accepted.wire.camera_eye;
                        slot.last_delay_ticks = now.saturating_sub(accepted.ack.high);
                        slot.jitter.push(accepted, now);
                    }
                    Err(reason) => tracing::trace!(peer, ?reason, "input dropped"),
                }
            }
            (Message::Heartbeat(hb), _) if admitted => self.on_heartbeat(peer, &hb, now),
            (Message::AdminCommand(cmd), Channel::Reliable) => self.on_admin(peer, &cmd),
            (other, _) => {
                tracing::trace!(peer, id = ?other.id(), admitted, "message ignored");
            }
        }
    }

    fn on_heartbeat(&mut self, peer: PeerId, hb: &Heartbeat, now: u64) {
        let Some(slot) = self.peers.get_mut(&peer) else {
            return;
        };
        let stamp = AckStamp {
            high: hb.tick_index.min(now),
            mask: hb.ack_mask,
        };
        slot.snapshots.baselines.on_ack(stamp);
        let delay = now.saturating_sub(stamp.high);
        slot.last_delay_ticks = delay;
        slot.jitter.observe_delay(delay);
        let reply = PeerDelay {
            delay_ticks: delay.min(u64::from(u16::MAX)) as u16,
        };
        send(
            self.transport.as_mut(),
            peer,
            Channel::Unreliable,
            reply.into(),
            &Extensions::new(),
        );
    }

    fn on_admin(&mut self, peer: PeerId, cmd: &AdminCommand) {
        let Some(addr) = self.peers.get(&peer).map(|p| p.addr) else {
            return;
        };
        let ok = self
            .cfg
            .operator_password
            .as_deref()
            .is_some_and(|pw| constant_time_eq(pw.as_bytes(), cmd.token.as_bytes()));
        if !ok {
            tracing::warn!(peer, %addr, "admin authentication failed");
            if self
                .admission
                .admin_auth_failed(addr.ip(), self.service_ticks)
            {
                self.kick(peer, "Access denied.");
            }
            return;
        }
        self.admission.admin_auth_succeeded(addr.ip());
        let text = match cmd.command.as_str().trim() {
            "status" => format!(
                "tick {} peers {} entities {} load {:.2}{}",
                self.world.tick(),
                self.peers.len(),
                self.world.len(),
                self.governor.load_factor(),
                if self.paused { " paused" } else { "" }
            ),
            "pause" => {
                self.pause();
                "paused".into()
            }
            "resume" => {
                self.resume();
                "resumed".into()
            }
            other => format!("unknown command: {other}"),
        };
        let reply = AdminResponse {
            req_id: cmd.req_id,
            text: FixedStr::new(&text),
        };
        send(
            self.transport.as_mut(),
            peer,
            Channel::Reliable,
            reply.into(),
            &Extensions::new(),
        );
    }

    fn on_connect_request(&mut self, peer: PeerId, req: &ConnectRequest, ext: &Extensions) {
        let join = match self.admission.check_request(req, ext) {
            Ok(j) => j,
            Err(refusal) => return self.refuse(peer, refusal),
        };
        if let Err(refusal) = self.admit(peer, join) {
            return self.refuse(peer, refusal);
        }
        self.send_connect_ack(peer);
        self.send_join_burst(peer);
    }

    fn admit(&mut self, peer: PeerId, join: JoinRequest) -> Result<(), Refusal> {
        let faction = self.pick_faction();
        let callsign = if join.callsign.is_empty() {
            format!("Pilot-{peer}")
        } else {
            join.callsign
        };
        let mut admitted = Admitted {
            role: join.role,
            entity: None,
            faction,
            type_index: None,
            respawn_at: None,
            callsign,
        };
        if join.role == PeerRole::Pilot {
            let type_index = self
                .types
                .pilot_type(&join.entity_type, &self.cfg.player_entity_type)
                .ok_or(Refusal {
                    code: ConnectRefusalCode::NoAirframe,
                    reason: "This server has no aircraft to fly.".into(),
                })?;
            if !self.world.has_room() {
                return Err(Refusal {
                    code: ConnectRefusalCode::ServerFull,
                    reason: "The server is full. Try again later.".into(),
                });
            }
            let at = self.next_spawn_point();
            let entity = self
                .spawn_aircraft(type_index, faction, Pilot::Peer(peer), at)
                .ok_or(Refusal {
                    code: ConnectRefusalCode::ServerFull,
                    reason: "The server is full. Try again later.".into(),
                })?;
            admitted.entity = Some(entity);
            admitted.type_index = Some(type_index);
        }
        tracing::info!(peer, role = ?admitted.role, entity = ?admitted.entity, callsign = %admitted.callsign, "admitted");
        if let Some(slot) = self.peers.get_mut(&peer) {
            slot.admitted = Some(admitted);
        }
        Ok(())
    }

    fn send_connect_ack(&mut self, peer: PeerId) {
        let Some(slot) = self.peers.get_mut(&peer) else {
            return;
        };
        let Some(a) = &slot.admitted else { return };
        let unchanged = slot.types_generation_sent == Some(self.types.generation());
        let mut ext = Extensions::new();
        let types = if unchanged {
            let _ = ext.push(&Ext::ConnectAckTypesUnchanged);
            Vec::new()
        } else {
            self.types.wire_defs()
        };
        slot.types_generation_sent = Some(self.types.generation());
        let ack = ConnectAck {
            tick_rate_hz: 60,
            assigned_entity_idx: a.entity.map_or(0, |e| e.index),
            assigned_entity_gen: a.entity.map_or(0, |e| e.generation),
            planet_radius_km: (self.world.planet().radius_m / 1000.0) as f32,
            granted_role: a.role,
            peer_id: peer,
            types,
        };
        send(
            self.transport.as_mut(),
            peer,
            Channel::Reliable,
            ack.into(),
            &ext,
        );
    }

    fn send_join_burst(&mut self, peer: PeerId) {
        // The weather windows announced before this peer joined (client prediction needs the
        // server's wind from its first tick).
        for (msg, ext) in self.weather.catch_up(self.world.tick()) {
            send(
                self.transport.as_mut(),
                peer,
                Channel::Unreliable,
                msg.into(),
                &ext,
            );
        }
        if !self.cfg.factions.is_empty() {
            let def = FactionDef {
                records: self
                    .cfg
                    .factions
                    .iter()
                    .map(|f| FactionDefRecord {
                        faction_index: f.index,
                        id: FixedStr::new(&f.id),
                        name: FixedStr::new(&f.name),
                    })
                    .collect(),
            };
            send(
                self.transport.as_mut(),
                peer,
                Channel::Reliable,
                def.into(),
                &Extensions::new(),
            );
            for f in self.cfg.factions.clone() {
                let msg = AlertLevelChange {
                    level: AlertLevel::Peacetime,
                    faction_index: f.index,
                };
                send(
                    self.transport.as_mut(),
                    peer,
                    Channel::Reliable,
                    msg.into(),
                    &Extensions::new(),
                );
            }
        }
        if !self.cfg.motd.is_empty() {
            let motd = Motd {
                display_seconds: self.cfg.motd_display_s,
                text: self.cfg.motd.clone(),
            };
            send(
                self.transport.as_mut(),
                peer,
                Channel::Reliable,
                motd.into(),
                &Extensions::new(),
            );
        }
    }

    fn apply_inputs(&mut self) {
        for slot in self.peers.values_mut() {
            let Some(entity) = slot.admitted.as_ref().and_then(|a| a.entity) else {
                continue;
            };
            let drained = slot.jitter.drain();
            if let Some(input) = drained.input() {
                self.world
                    .set_controls(entity, controls_from_input(&input.wire));
            }
        }
    }

    fn handle_crashes_and_respawns(&mut self) {
        let tick = self.world.tick();
        let delay = self.cfg.respawn_delay_ticks;
        let mut due = Vec::new();
        for (&peer, slot) in &mut self.peers {
            let Some(a) = &mut slot.admitted else {
                continue;
            };
            if let Some(e) = a.entity {
                let gone = self.world.get(e).is_none_or(|ent| ent.crashed_at.is_some());
                if gone && a.respawn_at.is_none() {
                    a.respawn_at = Some(tick + delay);
                }
            }
            if a.respawn_at.is_some_and(|t| tick >= t) {
                due.push(peer);
            }
        }
        for peer in due {
            let (type_index, faction) =
                match self.peers.get(&peer).and_then(|s| s.admitted.as_ref()) {
                    Some(a) => (a.type_index, a.faction),
                    None => continue,
                };
            let Some(type_index) = type_index else {
                continue;
            };
            let at = self.next_spawn_point();
            let new_entity = self.spawn_aircraft(type_index, faction, Pilot::Peer(peer), at);
            if let Some(slot) = self.peers.get_mut(&peer)
                && let Some(a) = &mut slot.admitted
            {
                if let Some(old) = a.entity
                    && let Some(ent) = self.world.get_mut(old)
                {
                    // The wreck stays for its timeout but is nobody's aircraft any more.
                    ent.pilot = Pilot::None;
                }
                a.entity = new_entity;
                a.respawn_at = None;
                slot.jitter = JitterBuffer::new(self.cfg.jitter);
            }
            self.send_connect_ack(peer);
        }
    }

    fn send_snapshots(&mut self) {
        let tick = self.world.tick();
        let cell = auto_cell_size(self.cfg.snapshot.draw_distance_m);
        self.encoding
            .build(tick, self.world.snapshot_entities(), cell);
        let peer_count = self.peers.len().min(usize::from(u16::MAX)) as u16;
        let mut jobs: Vec<(PeerId, &mut PeerSlot, PeerContext)> = Vec::new();
        for (&peer, slot) in self.peers.iter_mut() {
            let Some(a) = &slot.admitted else { continue };
            let own = a.entity.filter(|e| self.world.get(*e).is_some());
            let (focus, focus_velocity, words) = match own.and_then(|e| self.world.get(e)) {
                Some(ent) => {
                    let p = ent.position();
                    let v = ent.velocity();
                    (
                        [p.x, p.y, p.z],
                        [v.x, v.y, v.z],
                        ent.aircraft_state().map(|s| s.to_words().to_vec()),
                    )
                }
                None => (slot.camera_eye, [0.0; 3], None),
            };
            let ctx = PeerContext {
                own,
                focus,
                focus_velocity,
                last_applied_seq: slot.jitter.last_applied_slot(),
                delay_ticks: slot.last_delay_ticks.min(u64::from(u16::MAX)) as u16,
                peer_count,
                own_state_words: words,
                link: self.transport.link_stats(peer).unwrap_or_default(),
            };
            jobs.push((peer, slot, ctx));
        }
        let cfg = &self.cfg.snapshot;
        let enc = &self.encoding;
        let governor = &self.governor;
        let build = |(peer, slot, ctx): &mut (PeerId, &mut PeerSlot, PeerContext)| {
            slot.snapshots
                .build(enc, ctx, cfg, governor)
                .map(|b| (*peer, b.to_vec()))
        };
        let packets: Vec<(PeerId, Vec<u8>)> = match self.world.workers() {
            Some(pool) => pool.install(|| jobs.par_iter_mut().filter_map(build).collect()),
            None => jobs.iter_mut().filter_map(build).collect(),
        };
        drop(jobs);
        for (peer, bytes) in packets {
            if let Err(e) = self.transport.send(peer, Channel::Unreliable, &bytes) {
                tracing::debug!(peer, "snapshot dropped: {e}");
            }
        }
    }

    fn send_weather(&mut self) {
        let Some((msg, ext)) = self.weather.broadcast(self.world.tick()) else {
            return;
        };
        let ids: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| p.admitted.is_some())
            .map(|(&id, _)| id)
            .collect();
        for peer in ids {
            send(
                self.transport.as_mut(),
                peer,
                Channel::Unreliable,
                msg.clone().into(),
                &ext,
            );
        }
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

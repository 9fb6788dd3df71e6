//! The server: one authoritative tick at a time. Each [`Server::tick`] services the transport
//! (admission, handshake, inputs, heartbeats, admin), drains one input per pilot from its jitter
//! buffer, steps the world, then sends every peer its snapshot and, every 10 ticks, the weather.
//! Pausing stops the world but never the network: peers keep being admitted and answered.
//!
//! Owns the peer table and the order of the phases; the collaborators (admission, world,
//! snapshot pipeline, weather) own their state. Time comes from the caller (`ServerRuntime`
//! drives it from the wall clock, tests from a loop), so a tick is deterministic given its inputs.

mod admin_ops;
mod combat_comms;
mod comms;
mod join;
pub mod mission;
mod mission_cycle;
mod rewind;
mod status;
pub use status::PlayerLink;

pub use admin_ops::{PeerRow, SHUTDOWN_LAST_MINUTE_S, TickStats, shutdown_text};
mod social;

pub use social::{KillLine, SocialCounters};

use crate::admission::{Admission, AdmissionConfig, Refusal};
use crate::combat::{CombatSystem, Combatant};
use crate::input::{FloodLimit, InputGate, controls_from_input};
use crate::jitter::{Drained, InputStats, JitterBuffer, JitterConfig};
use crate::lagcomp::ShooterView;
use crate::lagcomp::view_tick_of;
use crate::pool::EntityId;
use crate::snapshot::congestion::{GovernorConfig, TickGovernor};
use crate::snapshot::{
    PeerContext, PeerSnapshotStats, PeerSnapshots, SnapshotConfig, TickEncoding,
};
use crate::spatial::auto_cell_size;
use crate::types::TypeRegistry;
use crate::weather::{Weather, WeatherConfig};
use crate::world::{Body, Entity, Pilot, World, WorldConfig};
use fl_flight::geodetic::{self, Enu, Geodetic};
use fl_flight::gravity::Planet;
use fl_flight::math::{Quat, Vec3};
use fl_flight::spawn::{level_orientation, trim_level_placed};
use fl_flight::{AircraftState, Controls};
use fl_net::{Channel, DisconnectReason, PeerId, ServerEvent, ServerTransport};
use fl_protocol::enums::{ConnectRefusalCode, PeerRole, buttons};
use fl_protocol::tlv::{
    Ext, Extensions, expand_redundancy, milliticks_to_ticks, tag, ticks_to_milliticks,
    view_delay_ticks,
};
use fl_protocol::{DecodeError, Message, Packet};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Where pilots appear (round robin).
///
/// A spawn is placed from an *anchor*: a latitude/longitude, or the world origin (the north
/// pole) when there is none. `x` and `z` are offsets from it in the anchor's level frame (x east,
/// z south — at the world origin these are world X and Z, as they always were), the aircraft
/// appears at geodetic altitude `altitude_m` above that point, and `heading_deg` is a compass
/// heading of the anchor's frame carried into the local horizon of the spawn (so a line of
/// aircraft near the pole keeps one heading, and a spawn on its anchor has the local compass
/// heading exactly).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpawnPoint {
    /// Offset east of the anchor, m.
    pub x: f64,
    /// Offset south of the anchor, m.
    pub z: f64,
    /// Geodetic altitude, m.
    pub altitude_m: f64,
    /// Heading, degrees clockwise from the anchor's north.
    pub heading_deg: f64,
    /// True airspeed of the trimmed air start, m/s; exactly 0 parks the aircraft on its wheels
    /// on the floor under the point (engine idle, brakes on; `altitude_m` is then ignored).
    pub speed_mps: f64,
    /// The latitude/longitude the offsets are measured from; `None` = the world origin.
    pub anchor: Option<GeoAnchor>,
}

/// A latitude/longitude (degrees, north and east positive) that spawn points are placed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoAnchor {
    pub lat_deg: f64,
    pub lon_deg: f64,
}

impl GeoAnchor {
    /// The Nevada airfield "home" anchor of the base pack's theatre (36.24917° N, 114.99611° W).
    pub const NEVADA_HOME: GeoAnchor = GeoAnchor {
        lat_deg: 36.24917,
        lon_deg: -114.99611,
    };
}

impl SpawnPoint {
    /// Where a pilot appears when the configuration lists no spawn point: over the origin,
    /// 3,000 m up, heading north at 200 m/s.
    pub const FALLBACK: SpawnPoint = SpawnPoint {
        x: 0.0,
        z: 0.0,
        altitude_m: 3000.0,
        heading_deg: 0.0,
        speed_mps: 200.0,
        anchor: None,
    };

    /// The anchor's world position on the sphere (altitude 0) and its local frame.
    pub fn anchor_frame(&self, planet: &Planet) -> (Vec3, Enu) {
        match self.anchor {
            Some(a) => {
                let p =
                    geodetic::to_world(planet, Geodetic::from_degrees(a.lat_deg, a.lon_deg, 0.0));
                (p, Enu::at(planet, p))
            }
            None => (Vec3::ZERO, Enu::at(planet, Vec3::ZERO)),
        }
    }

    /// The world position of the spawn (at its geodetic altitude) and the frame its heading is
    /// measured in.
    pub fn placement(&self, planet: &Planet) -> (Vec3, Enu) {
        let (origin, frame) = self.anchor_frame(planet);
        let ground = origin + frame.level_to_world(Vec3::new(self.x, 0.0, self.z));
        (
            geodetic::at_altitude(planet, ground, self.altitude_m),
            frame,
        )
    }
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
    /// returns every [`MALFORMED_REFILL_TICKS`] ticks of the service clock).
    pub malformed_burst: u32,
    /// Seconds between shutdown countdown notices (`[shutdown] warning_interval_s`).
    pub shutdown_warning_interval_s: u32,
    /// Roster, chat, match, teams and reconnect (`[chat]`, `[match]`; docs/multiplayer.md).
    pub social: crate::social::SocialConfig,
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
                    anchor: None,
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
            shutdown_warning_interval_s: 300,
            social: crate::social::SocialConfig::default(),
        }
    }
}

/// Seed of the combat draws (dispersion, decoys) until missions set one.
pub const COMBAT_SEED: u64 = 0x5eed_f16a;

/// Service ticks per malformed-packet token returned to a peer's bucket.
pub const MALFORMED_REFILL_TICKS: u64 = 10;

/// A peer's malformed-packet budget: a token bucket on the service clock (which runs while the
/// world is paused), so only a sustained excess over one bad packet per
/// [`MALFORMED_REFILL_TICKS`] ticks empties it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MalformedBudget {
    tokens: u32,
    /// Service tick up to which refills have been credited.
    credited_to: u64,
}

impl MalformedBudget {
    fn full(burst: u32, now: u64) -> Self {
        Self {
            tokens: burst,
            credited_to: now,
        }
    }

    /// Charges one malformed packet at service tick `now`; false when the bucket was empty.
    fn charge(&mut self, burst: u32, now: u64) -> bool {
        let refills = now.saturating_sub(self.credited_to) / MALFORMED_REFILL_TICKS;
        let refills = u32::try_from(refills).unwrap_or(u32::MAX);
        self.tokens = self.tokens.saturating_add(refills).min(burst);
        self.credited_to += u64::from(refills) * MALFORMED_REFILL_TICKS;
        if self.tokens >= burst {
            // A full bucket banks no time.
            self.credited_to = now;
        }
        if self.tokens == 0 {
            return false;
        }
        self.tokens -= 1;
        true
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
    malformed: MalformedBudget,
    last_delay_ticks: u64,
    /// What the peer's screen showed with the input applied last (lag compensation).
    view: ShooterView,
    /// The respawn button was down in the last input applied (edge detection).
    respawn_held: bool,
    /// Service tick of the last message heard from the peer (a silence detector).
    last_heard: u64,
    /// The `InputDesignate` of the newest input packet (`None` when it carried none), and the
    /// value last handed to its aircraft. A value is handed on every tick while the client keeps
    /// asking for it, so one refused before the own sensors held the contact is honoured as soon
    /// as they do; only a new value's refusal is counted.
    designation: Option<u32>,
    designation_applied: Option<u32>,
}

/// A peer silent this long (service ticks; its client sends an input every tick) was most
/// likely cut off both ways: the weather windows announced meanwhile, and all their copies,
/// are probably lost, so they are sent to it again when it is heard from.
const SILENCE_RESEND_TICKS: u64 = 30;

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
    /// The input timeline: repeats, late inputs, resyncs, copies used, the jitter target.
    pub input: InputStats,
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
    combat: CombatSystem,
    /// The mission being run, if any (`server::mission`).
    mission: Option<mission::MissionRun>,
    /// The operator's ban list (`admin::bans`), kept in step with the admission gauntlet.
    bans: crate::admin::bans::BanList,
    /// Wall clock, Unix s, as the runtime last handed it (bans expire by it; 0 = never set).
    unix_time: u64,
    /// A shutdown countdown in progress.
    shutdown: Option<admin_ops::Shutdown>,
    /// Recent tick phase times (`tickstats`).
    tick_history: std::collections::VecDeque<TickTimings>,
    /// A mission the operator asked for (`mission <id>`), for the mission director to start.
    mission_request: Option<String>,
    /// The missions the director can switch to (set by it; empty = no director).
    mission_choices: Vec<String>,
    /// Roster, chat, match clock, teams, reconnect grace (`server::social`).
    social: social::SocialState,
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
        mut cfg: ServerConfig,
        transport: Box<dyn ServerTransport>,
        types: TypeRegistry,
    ) -> Self {
        // Clients learn the planet only from `MsgConnectAck`'s f32 kilometres: simulate on
        // exactly that radius, or every prediction would drift from the server's world.
        cfg.world.planet_radius_m =
            fl_protocol::msg::handshake::planet_radius_on_wire(cfg.world.planet_radius_m);
        let mut s = Self {
            social: social::SocialState::new(
                cfg.social.clone(),
                cfg.factions.iter().map(|f| f.index),
            ),
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
            combat: CombatSystem::new(COMBAT_SEED),
            mission: None,
            bans: crate::admin::bans::BanList::in_memory(),
            unix_time: 0,
            shutdown: None,
            tick_history: Self::new_tick_history(),
            mission_request: None,
            mission_choices: Vec::new(),
            cfg,
        };
        // The starting (procedural) ground's bound; `set_terrain` replaces it.
        let ceiling = s.world.floor().max_height_bound_m();
        s.combat.set_los_ceiling(ceiling);
        s
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

    /// The ground of the world, built from the server's content stack (clients must fly the
    /// same: a join with another terrain is refused, see `server::join`). Starts reading the
    /// packs' terrain digests on a thread so the first join does not wait for them.
    pub fn set_terrain(&mut self, terrain: fl_terrain::Terrain) {
        terrain.prepare_digests();
        // Sensing's line-of-sight ceiling: nothing in this world is higher.
        self.combat.set_los_ceiling(terrain.max_height_bound_m());
        self.world.set_terrain(terrain);
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
                input: InputStats {
                    redundant_used: p.gate.accepted_copies,
                    ..p.jitter.stats()
                },
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
        let planet = *self.world.planet();
        let (position, frame) = at.placement(&planet);
        let parked = at.speed_mps == 0.0;
        let (mut state, controls) = if parked {
            // On its wheels on the floor under the point, engine at idle, brakes on.
            let state = fl_flight::spawn::parked_placed(
                &model,
                &planet,
                self.world.floor(),
                position,
                &frame,
                heading,
                fuel,
            );
            let controls = Controls {
                gear_down: true,
                wheel_brake: 1.0,
                ..Controls::default()
            };
            (state, controls)
        } else {
            match trim_level_placed(
                &model,
                &planet,
                position,
                &frame,
                at.altitude_m,
                at.speed_mps,
                fuel,
                heading,
            ) {
                Some(trim) => (trim.state, trim.controls),
                None => {
                    let mut s = AircraftState::flying(position, heading, at.speed_mps, fuel);
                    s.orientation = level_orientation(&planet, position, &frame, heading, 0.0);
                    s.velocity = s.forward() * at.speed_mps;
                    (s, Controls::default())
                }
            }
        };
        // The default loadout's mass and drag, as the type sums them (the live loadout takes
        // over when a store leaves: `combat` recomputes the payload then).
        state.payload_kg = t.payload_mass_kg;
        state.payload_cd0 = t.payload_cd0;
        let combat = Combatant::armed(t.combat.clone());
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
                combat,
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
        let combat = Combatant::armed(self.types.get(type_index)?.combat.clone());
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
                combat,
            })
            .ok()
    }

    /// Spawns a ground site (a SAM or AAA emplacement, a vehicle that does not move) of type
    /// `type_index`, run by `pilot` (usually an `sam`/`aaa` controller): on the floor under the
    /// spawn point's x/z, `at.altitude_m` above it (0 with no floor there: the sphere), facing
    /// `at.heading_deg` level. `at.speed_mps` is ignored. It senses with its def's sensors,
    /// carries its def's loadout, and its AI's aim slews its orientation (docs/combat.md
    /// "Ground sites").
    pub fn spawn_site(
        &mut self,
        type_index: u32,
        faction: u16,
        pilot: Pilot,
        at: SpawnPoint,
    ) -> Option<EntityId> {
        let combat = Combatant::armed(self.types.get(type_index)?.combat.clone());
        let planet = *self.world.planet();
        let (ground, frame) = SpawnPoint {
            altitude_m: 0.0,
            ..at
        }
        .placement(&planet);
        let floor = fl_flight::env::Floor::height_m(self.world.floor(), &planet, ground);
        let height = if floor.is_finite() { floor } else { 0.0 } + at.altitude_m;
        let position = geodetic::at_altitude(&planet, ground, height);
        let orientation =
            level_orientation(&planet, position, &frame, at.heading_deg.to_radians(), 0.0);
        self.world
            .spawn(Entity {
                type_index,
                faction,
                body: Body::Static {
                    position,
                    orientation,
                },
                pilot,
                controls: Controls::default(),
                hp_fraction: 1.0,
                crashed_at: None,
                combat,
            })
            .ok()
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
        self.step_shutdown();
        if self.paused {
            timings.total = start.elapsed();
            self.record_timings(timings);
            return timings;
        }

        let t_world = Instant::now();
        self.apply_inputs();
        let tick = self.world.tick();
        let wind = self.weather.wind_field(tick);
        let report = self.world.step(&wind);
        // Combat: the serial phase after the flight step, in index order. Each peer's gun rays
        // test targets where that peer saw them (lag compensation; the history now ends with
        // this step's record).
        let rewinds = self
            .world
            .iter()
            .filter(|(_, e)| matches!(e.pilot, Pilot::Peer(_)))
            .map(|(id, _)| (id, self.rewind_ticks(id)))
            .collect();
        self.combat
            .set_lag_compensation(rewinds, self.types.max_collision_radius_m());
        self.combat.step(&mut self.world, &report, tick, &wind);
        for id in &report.removed {
            for p in self.peers.values_mut() {
                p.snapshots.baselines.on_despawn(id.index);
            }
        }
        self.handle_crashes_and_respawns();
        self.step_mission();
        self.step_social();
        timings.world = t_world.elapsed();

        let t_snap = Instant::now();
        self.send_combat_events();
        self.send_datalinks();
        self.send_snapshots();
        self.send_weather();
        timings.snapshots = t_snap.elapsed();
        timings.total = start.elapsed();
        self.governor.observe(timings.total);
        self.record_timings(timings);
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

    fn on_disconnected(&mut self, peer: PeerId, reason: &DisconnectReason) {
        // A dropped pilot (not a kicked one) may come back within the reconnect grace.
        self.keep_grace(peer);
        if let Some(addr) = self.forget_peer(peer) {
            tracing::info!(peer, %addr, "disconnected: {reason}");
        }
    }

    /// Removes a peer from the table, releases its per-IP slot and despawns its aircraft.
    fn forget_peer(&mut self, peer: PeerId) -> Option<SocketAddr> {
        self.announce_leave(peer);
        let slot = self.peers.remove(&peer)?;
        self.admission.on_disconnect(slot.addr.ip());
        self.combat.forget_peer(peer);
        self.unbind_mission_peer(peer);
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

    fn malformed(&mut self, peer: PeerId, what: &str) {
        self.malformed_packets += 1;
        let (burst, now) = (self.cfg.malformed_burst, self.service_ticks);
        let Some(slot) = self.peers.get_mut(&peer) else {
            return;
        };
        tracing::debug!(peer, "malformed packet: {what}");
        if !slot.malformed.charge(burst, now) {
            tracing::warn!(peer, addr = %slot.addr, "too many malformed packets; disconnecting");
            self.kick(peer, "protocol violation: too many malformed packets");
        }
    }

    fn on_received(&mut self, peer: PeerId, channel: Channel, payload: &[u8], now: u64) {
        let service = self.service_ticks;
        let Some(slot) = self.peers.get_mut(&peer) else {
            return;
        };
        let silence = service.saturating_sub(slot.last_heard);
        slot.last_heard = service;
        if silence >= SILENCE_RESEND_TICKS && slot.admitted.is_some() {
            tracing::debug!(
                peer,
                silence,
                "peer heard again: weather windows sent again"
            );
            let tick = self.world.tick();
            self.send_weather_catch_up(peer, tick.saturating_sub(silence));
        }
        let packet = match Packet::decode(payload) {
            Ok(p) => p,
            Err(DecodeError::UnknownMsgId(id)) => {
                // An additive message of a newer peer: the spec says discard silently.
                tracing::trace!(peer, id, "unknown message id discarded");
                return;
            }
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
                // Copies of the inputs before this one (loss cover) and the client's input
                // clock lead; a malformed entry is skipped like an unknown one.
                let copies = match packet.ext.get(tag::INPUT_REDUNDANCY) {
                    Some(Ext::InputRedundancy(c)) => expand_redundancy(&input, &c),
                    _ => Vec::new(),
                };
                let lead = match packet.ext.get(tag::INPUT_CLOCK_LEAD) {
                    Some(Ext::InputClockLead(v)) => Some(milliticks_to_ticks(v)),
                    _ => None,
                };
                // How far behind its newest snapshot the client drew the world (lag
                // compensation); refused or absent: 0.
                let view_delays: Vec<f64> = match packet.ext.get(tag::INPUT_VIEW_DELAY) {
                    Some(Ext::InputViewDelay(v)) => v.into_iter().map(view_delay_ticks).collect(),
                    _ => Vec::new(),
                };
                match slot.gate.admit_packet(&input, &copies, now) {
                    Ok(accepted) => {
                        // The ack stamp and camera of the packet's own (newest) input.
                        if let Some(own) = accepted.iter().find(|a| a.seq == input.seq_num) {
                            slot.designation = match packet.ext.get(tag::INPUT_DESIGNATE) {
                                Some(Ext::InputDesignate(v)) => Some(v),
                                _ => None,
                            };
                            slot.snapshots.baselines.on_ack(own.ack);
                            slot.camera_eye = own.wire.camera_eye;
                            slot.last_delay_ticks = now.saturating_sub(own.ack.high);
                        }
                        for mut a in accepted {
                            // Copies carry the carrier's ack stamp, and their own delays
                            // against it (at most 15 back).
                            let back = input.seq_num.wrapping_sub(a.seq).min(64);
                            a.view_tick = Some(view_tick_of(a.ack.high, &view_delays, back));
                            slot.jitter.push_timed(a, now, lead);
                        }
                    }
                    Err(reason) => tracing::trace!(peer, ?reason, "input dropped"),
                }
            }
            (Message::Heartbeat(hb), _) if admitted => self.on_heartbeat(peer, &hb, now),
            (Message::Chat(chat), Channel::Reliable) if admitted => {
                self.on_chat(peer, &chat, payload)
            }
            (Message::TeamRequest(req), Channel::Reliable) if admitted => {
                self.on_team_request(peer, req.faction_index)
            }
            (Message::AdminCommand(cmd), Channel::Reliable) => self.on_admin(peer, &cmd),
            (other, _) => {
                tracing::trace!(peer, id = ?other.id(), admitted, "message ignored");
            }
        }
    }

    fn apply_inputs(&mut self) {
        let mut respawn_requests = Vec::new();
        for (&peer, slot) in self.peers.iter_mut() {
            let Some(entity) = slot.admitted.as_ref().and_then(|a| a.entity) else {
                continue;
            };
            let drained = slot.jitter.drain();
            slot.view = match &drained {
                Drained::Fresh(i) => ShooterView {
                    applied_seq: Some(i.seq),
                    view_tick: i.view_tick,
                },
                // The lost input this stands for was sampled a tick later.
                Drained::Repeat(i) => ShooterView {
                    applied_seq: Some(i.seq),
                    view_tick: slot.view.view_tick.map(|v| v + 1.0),
                },
                Drained::Nothing => slot.view,
            };
            if let Some(input) = drained.input() {
                self.world
                    .set_controls(entity, controls_from_input(&input.wire));
                crate::combat::set_pilot_input(&mut self.world, entity, &input.wire);
                if let Some(d) = slot.designation {
                    let retry = slot.designation_applied == Some(d);
                    crate::combat::set_designation(&mut self.world, entity, d, retry);
                    slot.designation_applied = Some(d);
                }
                // The respawn bit is level on the wire and edge-detected here: a held key (or a
                // repeated input) is one request.
                let pressed = input.wire.buttons & buttons::RESPAWN != 0;
                if pressed && !slot.respawn_held {
                    respawn_requests.push(peer);
                }
                slot.respawn_held = pressed;
            }
        }
        for peer in respawn_requests {
            self.on_respawn_request(peer);
        }
    }

    fn send_snapshots(&mut self) {
        let tick = self.world.tick();
        let cell = auto_cell_size(self.cfg.snapshot.draw_distance_m);
        self.encoding
            .build(tick, self.world.snapshot_entities(), cell);
        self.encoding.effects = self.combat.effects.take();
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
                        // Format 2: the flight words, then the own combat state.
                        ent.aircraft_state().map(|s| {
                            let mut w = s.to_words().to_vec();
                            w.extend(ent.combat.own_combat(ent.crashed_at.is_some()).to_words());
                            w
                        }),
                    )
                }
                None => (slot.camera_eye, [0.0; 3], None),
            };
            let ctx = PeerContext {
                own,
                focus,
                focus_velocity,
                last_applied_seq: slot.jitter.last_applied_slot(),
                input_timing: slot.jitter.target_lead().map(|lead| {
                    (
                        ticks_to_milliticks(lead),
                        slot.jitter.depth().min(255) as u8,
                        slot.jitter.len().min(255) as u8,
                    )
                }),
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_malformed_budget_refills_one_token_per_ten_ticks_and_banks_nothing_when_full() {
        let mut b = MalformedBudget::full(3, 0);
        assert!(b.charge(3, 0) && b.charge(3, 0) && b.charge(3, 0));
        assert!(!b.charge(3, 0), "empty after the burst");
        assert!(!b.charge(3, 9), "no token before ten ticks");
        assert!(b.charge(3, 10), "one token back after ten ticks");
        assert!(!b.charge(3, 15));
        // A long quiet spell refills to the burst, never beyond.
        let mut b = MalformedBudget::full(3, 0);
        let charged = (0..10).filter(|_| b.charge(3, 100_000)).count();
        assert_eq!(charged, 3);
        // Time spent full is not banked: a full bucket at tick 1000 refills from 1000.
        let mut b = MalformedBudget::full(2, 0);
        assert!(b.charge(2, 1_000) && b.charge(2, 1_005));
        assert!(!b.charge(2, 1_009));
        assert!(b.charge(2, 1_010));
    }
}

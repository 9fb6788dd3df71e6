//! An in-process world for proofs and for operators: an fl-server and a client over LinkSim, in
//! virtual time, deterministic for a seed. The server ticks at exactly 60 Hz of virtual time and
//! the client runs frames at its own rate; both see the same simulated link (latency, jitter,
//! loss, blackouts). Because the server is in the same process, its truth is known: the sim
//! checks every prediction against the server's state after the same input, and measures the
//! remote-aircraft interpolation error against the server's positions at the render tick.
//!
//! By default both sides know the builtin content only; with `SimConfig::content` the server
//! takes its types and terrain from that stack and the client predicts with it, and with
//! `SimConfig::mission` the server runs a mission (started before the client connects, driven by
//! its director after every tick) — the headless `--mission --fast` mode.
//!
//! Owns the virtual clock and the truth records. Must not read the wall clock.

use crate::client::{Client, ClientConfig, Pilot};
use crate::session::{ClientSession, SessionConfig};
use crate::stats::{Samples, Summary};
use crate::{TICK_HZ, bridge::PoseSource};
use fl_ai::{Loiter, LoiterParams};
use fl_flight::math::Vec3;
use fl_net::ClientTransport;
use fl_net::linksim::{LinkConfig, LinkId, SimEndpointConfig, SimError, SimNetwork};
use fl_server::mission_director::MissionDirector;
use fl_server::pool::EntityId;
use fl_server::server::mission::{MissionStartError, MissionStatus};
use fl_server::server::{Server, ServerConfig, SpawnPoint};
use fl_server::types::TypeRegistry;
use fl_server::world::Pilot as WorldPilot;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::time::Duration;

/// One server tick of virtual time.
pub const TICK: Duration = Duration::from_nanos(1_000_000_000 / TICK_HZ);
/// The virtual server address.
pub const SERVER_ADDR: &str = "127.0.0.1:4778";
/// Truth kept per entity, in ticks.
const TRUTH_TICKS: usize = 900;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub seed: u64,
    pub link: LinkConfig,
    /// Client frame period (virtual time).
    pub frame_interval: Duration,
    pub server: ServerConfig,
    /// AI aircraft flying a wide orbit in front of the player (remote interpolation targets).
    pub targets: usize,
    pub target_speed_mps: f64,
    pub client: ClientConfig,
    pub session: SessionConfig,
    /// Remote error is measured only after this long in the world (interpolation warm-up).
    pub measure_after: Duration,
    /// The content both sides use: the server's types ([`TypeRegistry::from_content`]) and
    /// terrain, the client's prediction. `None`: the builtin content only.
    pub content: Option<std::sync::Arc<fl_content::Content>>,
    /// A mission run by the server: started before the client connects (the pilot binds its
    /// first free player slot), driven after every server tick.
    pub mission: Option<MissionDirector>,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            link: LinkConfig::default(),
            frame_interval: TICK,
            server: ServerConfig::default(),
            targets: 0,
            target_speed_mps: 250.0,
            client: ClientConfig::default(),
            session: SessionConfig::default(),
            measure_after: Duration::from_secs(2),
            content: None,
            mission: None,
        }
    }
}

/// Why a sim could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SimSetupError {
    #[error("cannot set up the simulated network")]
    Net(#[from] SimError),
    #[error("builtin content: {0}")]
    Content(String),
    #[error("cannot spawn the target aircraft: {0}")]
    Spawn(String),
    #[error("the mission did not start")]
    Mission(#[from] MissionStartError),
}

/// Independent check of prediction against the server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ExactnessCheck {
    /// Predictions compared with the server's state after the same input at the same tick.
    pub checked: u64,
    /// Of those, predictions made from an exact basis.
    pub checked_exact_basis: u64,
    /// Exact-basis predictions that differed in any bit.
    pub mismatches: u64,
}

/// What the sim measured with the server's truth.
#[derive(Debug, Clone, Serialize)]
pub struct SimReport {
    pub virtual_seconds: f64,
    pub server_ticks: u64,
    pub exactness: ExactnessCheck,
    /// |rendered − true| of the remote targets at the render tick, m.
    pub remote_error_m: Summary,
    /// Mean true speed of the targets, m/s.
    pub target_speed_mps: f64,
    /// How the measured remote poses were made: interpolated, extrapolated, held.
    pub remote_poses: [u64; 3],
    /// Frames (after the warm-up) in which a target was not in the render list.
    pub remote_missing: u64,
}

struct Truth {
    /// (state tick, position, state hash) per entity index.
    tracks: BTreeMap<u32, VecDeque<(u64, Vec3, u64)>>,
}

impl Truth {
    fn record(&mut self, idx: u32, tick: u64, p: Vec3, hash: u64) {
        let q = self.tracks.entry(idx).or_default();
        q.push_back((tick, p, hash));
        while q.len() > TRUTH_TICKS {
            q.pop_front();
        }
    }

    fn at(&self, idx: u32, tick: u64) -> Option<(Vec3, u64)> {
        let q = self.tracks.get(&idx)?;
        let first = q.front()?.0;
        let i = usize::try_from(tick.checked_sub(first)?).ok()?;
        q.get(i)
            .filter(|e| e.0 == tick)
            .map(|e| (e.1, e.2))
            .or_else(|| q.iter().find(|e| e.0 == tick).map(|e| (e.1, e.2)))
    }

    fn position_at(&self, idx: u32, rt: f64) -> Option<Vec3> {
        let lo = rt.floor();
        let (a, _) = self.at(idx, lo as u64)?;
        let (b, _) = self.at(idx, lo as u64 + 1)?;
        Some(a + (b - a) * (rt - lo))
    }
}

/// The simulated world.
pub struct Sim {
    cfg: SimConfig,
    net: SimNetwork,
    addr: SocketAddr,
    server: Option<Server>,
    client: Client,
    link: LinkId,
    pilot: Box<dyn Pilot + Send>,
    now: Duration,
    next_tick: Duration,
    next_frame: Duration,
    server_ticks: u64,
    truth: Truth,
    targets: Vec<EntityId>,
    target_speed: Samples,
    remote_error: Samples,
    remote_poses: [u64; 3],
    remote_missing: u64,
    exact: ExactnessCheck,
    checked_through: Option<u32>,
    admitted_at: Option<Duration>,
    mission: Option<MissionDirector>,
}

impl std::fmt::Debug for Sim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sim")
            .field("now", &self.now)
            .field("server_ticks", &self.server_ticks)
            .finish_non_exhaustive()
    }
}

fn addr() -> SocketAddr {
    SERVER_ADDR
        .parse()
        .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 4778)))
}

impl Sim {
    /// Builds the world: a server with `targets` AI aircraft, and a client connecting to it.
    pub fn new(cfg: SimConfig, pilot: Box<dyn Pilot + Send>) -> Result<Self, SimSetupError> {
        let net = SimNetwork::new(cfg.seed);
        let addr = addr();
        let mut server = Self::make_server(&net, addr, &cfg)?;
        let mut mission = cfg.mission.clone();
        if let Some(m) = mission.as_mut() {
            m.start(&mut server)?;
        }
        let mut targets = Vec::new();
        for i in 0..cfg.targets {
            targets.push(Self::spawn_target(&mut server, i, cfg.target_speed_mps)?);
        }
        let (client, link) = Self::make_client(&net, addr, &cfg, Duration::ZERO)?;
        Ok(Self {
            net,
            addr,
            server: Some(server),
            client,
            link,
            pilot,
            now: Duration::ZERO,
            next_tick: TICK,
            next_frame: TICK,
            server_ticks: 0,
            truth: Truth {
                tracks: BTreeMap::new(),
            },
            targets,
            target_speed: Samples::default(),
            remote_error: Samples::default(),
            remote_poses: [0; 3],
            remote_missing: 0,
            exact: ExactnessCheck::default(),
            checked_through: None,
            admitted_at: None,
            mission,
            cfg,
        })
    }

    /// Both simulated endpoints give up after the session's idle timeout, as QUIC's do
    /// (`--idle-timeout`), so a blackout shorter than it survives in LinkSim too.
    fn endpoint_config(cfg: &SimConfig) -> SimEndpointConfig {
        SimEndpointConfig {
            idle_timeout: cfg.session.idle_timeout,
            ..SimEndpointConfig::default()
        }
    }

    fn make_server(
        net: &SimNetwork,
        addr: SocketAddr,
        cfg: &SimConfig,
    ) -> Result<Server, SimSetupError> {
        let endpoint = net.server(addr, Self::endpoint_config(cfg))?;
        let Some(content) = &cfg.content else {
            let types =
                TypeRegistry::builtin().map_err(|e| SimSetupError::Content(e.to_string()))?;
            return Ok(Server::new(cfg.server.clone(), Box::new(endpoint), types));
        };
        let types = TypeRegistry::from_content(content, 1);
        let mut server = Server::new(cfg.server.clone(), Box::new(endpoint), types);
        server.set_terrain(crate::content::terrain_of(content));
        Ok(server)
    }

    fn make_client(
        net: &SimNetwork,
        addr: SocketAddr,
        cfg: &SimConfig,
        now: Duration,
    ) -> Result<(Client, LinkId), SimSetupError> {
        let t = net.connect(addr, cfg.link, Self::endpoint_config(cfg))?;
        let link = t.link_id();
        let boxed: Box<dyn ClientTransport> = Box::new(t);
        let session = ClientSession::new(boxed, cfg.session.clone(), now);
        Ok((
            Client::new(session, cfg.client.clone(), cfg.content.clone()),
            link,
        ))
    }

    /// Spawns remote target `i`: an AI jet trainer orbiting at `speed` 9 km in front of the
    /// pilots' spawn, 300 m above target `i - 1` (harnesses on real transports use it too).
    pub fn spawn_target(
        server: &mut Server,
        i: usize,
        speed: f64,
    ) -> Result<EntityId, SimSetupError> {
        let t = server
            .types()
            .pilot_type("", "builtin:jet-trainer")
            .ok_or_else(|| SimSetupError::Spawn("no flyable type".into()))?;
        let alt = 3000.0 + 300.0 * i as f64;
        // In front of the pilots (9 km north of their anchor): world coordinates over the
        // origin, the anchor's level frame when the spawn points name a latitude/longitude.
        let anchor = server.config().spawn_points.first().and_then(|p| p.anchor);
        let centre = match anchor {
            Some(a) => fl_ai::CoordinateAnchor::new(server.world().planet(), a.lat_deg, a.lon_deg)
                .point(0.0, alt, -9000.0),
            None => Vec3::new(0.0, alt, -9000.0),
        };
        let ctrl = Loiter::new(LoiterParams {
            centre: Some(centre),
            altitude_m: Some(alt),
            radius_m: 6000.0,
            speed_mps: Some(speed),
            ..LoiterParams::default()
        })
        .map_err(|e| SimSetupError::Spawn(e.to_string()))?;
        let at = SpawnPoint {
            x: 6000.0,
            z: -9000.0,
            altitude_m: alt,
            heading_deg: 180.0,
            speed_mps: speed,
            anchor,
        };
        server
            .spawn_aircraft(t, 2, WorldPilot::Ai(Box::new(ctrl)), at)
            .ok_or_else(|| SimSetupError::Spawn("the world is full".into()))
    }

    pub fn now(&self) -> Duration {
        self.now
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    pub fn server(&self) -> Option<&Server> {
        self.server.as_ref()
    }

    pub fn server_mut(&mut self) -> Option<&mut Server> {
        self.server.as_mut()
    }

    pub fn network(&self) -> &SimNetwork {
        &self.net
    }

    /// The client's link (for `SimNetwork::set_link` / `blackout`).
    pub fn client_link(&self) -> LinkId {
        self.link
    }

    /// The running (or ended) mission's status; `None` without a mission.
    pub fn mission_status(&self) -> Option<MissionStatus> {
        self.server.as_ref()?.mission_status()
    }

    /// The mission director, when the sim runs a mission.
    pub fn mission(&self) -> Option<&MissionDirector> {
        self.mission.as_ref()
    }

    /// The server's AI targets.
    pub fn targets(&self) -> &[EntityId] {
        &self.targets
    }

    /// Cuts the client's link both ways for `d`.
    pub fn blackout(&mut self, d: Duration) -> Result<(), SimError> {
        self.net.blackout(self.link, d)
    }

    /// Stops the server the way the runtime does: a final notice, then every peer closed; the
    /// server is dropped after the closes had a moment to travel.
    pub fn shutdown_server(&mut self, notice: &str) {
        if let Some(s) = self.server.as_mut() {
            s.broadcast_notice(0, notice);
            s.disconnect_all(notice);
        }
        for _ in 0..12 {
            self.step();
        }
        self.server = None;
    }

    /// Starts a fresh server at the same address (after [`Sim::shutdown_server`]).
    pub fn start_server(&mut self, cfg: ServerConfig) -> Result<(), SimSetupError> {
        self.cfg.server = cfg;
        self.server = Some(Self::make_server(&self.net, self.addr, &self.cfg)?);
        self.truth.tracks.clear();
        Ok(())
    }

    /// A new session to the server (the previous client is dropped).
    pub fn reconnect(&mut self) -> Result<(), SimSetupError> {
        let (client, link) = Self::make_client(&self.net, self.addr, &self.cfg, self.now)?;
        self.client = client;
        self.link = link;
        self.checked_through = None;
        self.admitted_at = None;
        Ok(())
    }

    /// Advances to the next server tick or client frame (the server first when both are due).
    pub fn step(&mut self) {
        let t = self.next_tick.min(self.next_frame);
        self.now = t;
        self.net.set_now(t);
        if t == self.next_tick {
            self.next_tick += TICK;
            if let Some(server) = self.server.as_mut() {
                server.tick();
                self.server_ticks += 1;
                if let Some(m) = self.mission.as_mut() {
                    m.after_tick(server);
                }
                Self::record_truth(
                    server,
                    &mut self.truth,
                    &self.targets,
                    &mut self.target_speed,
                    self.client.session().own_entity(),
                );
            }
        }
        if t == self.next_frame {
            self.next_frame += self.cfg.frame_interval.max(Duration::from_micros(100));
            self.check_predictions();
            self.client.frame(t, self.pilot.as_mut());
            if self.admitted_at.is_none() && self.client.session().admission().is_some() {
                self.admitted_at = Some(t);
            }
            self.measure_remotes();
        }
    }

    /// Runs for `d` of virtual time.
    pub fn run_for(&mut self, d: Duration) {
        let end = self.now + d;
        while self.now < end {
            self.step();
        }
    }

    /// Runs until `done` or `limit` of virtual time; true when `done` became true.
    pub fn run_until(&mut self, limit: Duration, mut done: impl FnMut(&Sim) -> bool) -> bool {
        let end = self.now + limit;
        while self.now < end {
            if done(self) {
                return true;
            }
            self.step();
        }
        done(self)
    }

    fn record_truth(
        server: &Server,
        truth: &mut Truth,
        targets: &[EntityId],
        speeds: &mut Samples,
        own: Option<crate::session::OwnEntity>,
    ) {
        let tick = server.world().tick();
        let world = server.world();
        if let Some(o) = own {
            let id = EntityId {
                index: o.idx,
                generation: o.generation,
            };
            if let Some(s) = world.get(id).and_then(|e| e.aircraft_state()) {
                truth.record(o.idx, tick, s.position, s.hash_bits());
            }
        }
        for &id in targets {
            if let Some(e) = world.get(id) {
                truth.record(id.index, tick, e.position(), 0);
                speeds.push(e.velocity().length());
            }
        }
    }

    /// Compares every prediction whose server state is now known, once per input.
    fn check_predictions(&mut self) {
        let Some(own) = self.client.session().own_entity() else {
            return;
        };
        let p = self.client.prediction();
        if p.entity() != Some(own) {
            return;
        }
        let mut newest = self.checked_through;
        for (seq, step, state, exact) in p.predictions() {
            if self
                .checked_through
                .is_some_and(|c| !fl_protocol::ack::seq32_newer(seq, c))
            {
                continue;
            }
            let Some((_, hash)) = self.truth.at(own.idx, step + 1) else {
                break;
            };
            self.exact.checked += 1;
            if exact {
                self.exact.checked_exact_basis += 1;
                if hash != state.hash_bits() {
                    self.exact.mismatches += 1;
                }
            }
            newest = Some(seq);
        }
        self.checked_through = newest;
    }

    fn measure_remotes(&mut self) {
        let Some(at) = self.admitted_at else { return };
        if self.now.saturating_sub(at) < self.cfg.measure_after {
            return;
        }
        let frame = self.client.render_frame();
        let Some(rt) = frame.render_tick else { return };
        for id in &self.targets {
            let Some(e) = frame.entity(id.index) else {
                self.remote_missing += 1;
                continue;
            };
            if e.own || e.source == PoseSource::Predicted {
                continue;
            }
            if let Some(truth) = self.truth.position_at(id.index, rt) {
                self.remote_error.push((e.position - truth).length());
                let i = match e.source {
                    PoseSource::Extrapolated => 1,
                    PoseSource::Held => 2,
                    _ => 0,
                };
                self.remote_poses[i] += 1;
            }
        }
    }

    /// What was measured so far.
    pub fn report(&self) -> SimReport {
        SimReport {
            virtual_seconds: self.now.as_secs_f64(),
            server_ticks: self.server_ticks,
            exactness: self.exact,
            remote_error_m: self.remote_error.summary(),
            target_speed_mps: self.target_speed.mean(),
            remote_poses: self.remote_poses,
            remote_missing: self.remote_missing,
        }
    }
}

//! bot-swarm — a bounded load generator for fl-server: N bots speaking the real protocol fly
//! scripted inputs for T seconds, over LinkSim in-process (deterministic traffic, virtual time)
//! or QUIC on 127.0.0.1 (wall-clock time, the server on its runtime thread), and the run is summarised as JSON (per-client downstream, snapshot
//! cadence, loss, and the server's tick statistics). Over QUIC the bots can reach the server
//! through the impairment relay (`--impair <profile>`), and its ground truth is reported.
//!
//! Loopback or in-memory only; counts and durations are capped.

pub mod bot;

use bot::{Bot, BotStats};
use fl_net::impair::{ImpairConfig, Relay, RelayStats, WindowQueueDelay};
use fl_net::linksim::{LinkConfig, SimEndpointConfig, SimNetwork};
use fl_server::server::{Server, ServerConfig, SpawnPoint, TickTimings};
use fl_server::stats::Percentiles;
use fl_server::types::TypeRegistry;
use fl_server::world::Pilot;
use serde::Serialize;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Simulated (or paced) warm-up before statistics start: joins and first baselines.
const WARMUP_TICKS: u64 = 120;
/// One 60 Hz tick.
const TICK: Duration = Duration::from_nanos(16_666_667);

/// Most bots one run may start.
pub const MAX_CLIENTS: usize = 1024;
/// Longest run.
pub const MAX_SECONDS: f64 = 600.0;
/// Most AI aircraft.
pub const MAX_AI: usize = 5000;
/// Most bots over QUIC: each QUIC client owns a connection, an endpoint and a runtime thread.
pub const MAX_QUIC_CLIENTS: usize = 128;

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct SwarmOptions {
    pub clients: usize,
    pub ai: usize,
    pub seconds: f64,
    pub workers: usize,
    pub budget_bytes: usize,
    pub compress: bool,
    pub link: LinkConfig,
    pub seed: u64,
    /// QUIC only: every bot's connection goes through one impairment relay (one flow per bot,
    /// a bottleneck shared by all), seeded with `seed`.
    pub impair: Option<Impairment>,
    /// Content packs mounted over the builtin layer (the types the server knows).
    pub packs: Vec<PathBuf>,
    /// Every aircraft keeps its loadout; `false` empties every station (bots and AI) before the
    /// measured window, for the armed/unarmed ratio.
    pub armed: bool,
    /// Adds a 4-versus-4 of [`FIGHT_TYPE`] AI (`attack`), one side bouncing the other from
    /// 3 km behind, away from the furball: a missile fight during the measured window. Needs a
    /// pack with that type.
    pub missile_fight: bool,
    /// All-chat lines each bot says per second (0 = none; at most [`MAX_CHAT_PER_S`]). The
    /// server's default rate limit is 1 line/s with a burst of 5.
    pub chat_per_s: f64,
    /// QUIC only: the server's status page runs on 127.0.0.1 and is polled once a second
    /// (`/api/status` and `/metrics`), as an open browser tab would.
    pub status_page: bool,
}

/// Most chat lines a bot says per second.
pub const MAX_CHAT_PER_S: f64 = 60.0;

/// The type of the missile fight's aircraft (the fixture pack's F-5E: AIM-9Ps and a gun).
pub const FIGHT_TYPE: &str = "fl-base:f5e";
/// Aircraft per side in the missile fight.
pub const FIGHT_SIDE: usize = 4;

/// A named impairment for [`run_quic`].
#[derive(Debug, Clone, PartialEq)]
pub struct Impairment {
    /// A profile name (see `fl_net::impair::PROFILES`) or a label for a custom config.
    pub name: String,
    pub config: ImpairConfig,
}

impl Impairment {
    /// A named profile of the relay.
    pub fn profile(name: &str) -> Result<Self, SwarmError> {
        let config = ImpairConfig::profile(name).map_err(|e| SwarmError::Limits(e.to_string()))?;
        Ok(Impairment {
            name: name.to_owned(),
            config,
        })
    }

    /// `--impair`'s value: a profile name, or the path of a JSON file holding an
    /// `fl_net::impair::ImpairConfig` (at most 1 MiB; the report names it by its path).
    pub fn from_arg(arg: &str) -> Result<Self, SwarmError> {
        if fl_net::impair::PROFILES.contains(&arg) {
            return Self::profile(arg);
        }
        let path = std::path::Path::new(arg);
        if !path.is_file() {
            // Neither: the profile error lists the names.
            return Self::profile(arg);
        }
        let len = std::fs::metadata(path)
            .map_err(|e| SwarmError::Limits(format!("{arg}: {e}")))?
            .len();
        if len > MAX_IMPAIR_FILE {
            return Err(SwarmError::Limits(format!(
                "{arg}: larger than {MAX_IMPAIR_FILE} bytes"
            )));
        }
        let text =
            std::fs::read_to_string(path).map_err(|e| SwarmError::Limits(format!("{arg}: {e}")))?;
        let config: ImpairConfig =
            serde_json::from_str(&text).map_err(|e| SwarmError::Limits(format!("{arg}: {e}")))?;
        config
            .validate()
            .map_err(|e| SwarmError::Limits(format!("{arg}: {e}")))?;
        Ok(Impairment {
            name: arg.to_owned(),
            config,
        })
    }
}

/// The largest impairment file `--impair` reads.
pub const MAX_IMPAIR_FILE: u64 = 1 << 20;

impl Default for SwarmOptions {
    fn default() -> Self {
        Self {
            clients: 16,
            ai: 0,
            seconds: 10.0,
            workers: 1,
            budget_bytes: 1200,
            compress: true,
            link: LinkConfig::default(),
            seed: 1,
            impair: None,
            packs: Vec::new(),
            armed: true,
            missile_fight: false,
            chat_per_s: 0.0,
            status_page: false,
        }
    }
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum SwarmError {
    #[error("{0}")]
    Limits(String),
    #[error("loading the types: {0}")]
    Types(String),
    #[error("network setup: {0}")]
    Net(String),
    #[error("starting the server thread: {0}")]
    Thread(std::io::Error),
}

impl SwarmOptions {
    fn check(&self) -> Result<(), SwarmError> {
        if self.clients == 0 || self.clients > MAX_CLIENTS {
            return Err(SwarmError::Limits(format!(
                "clients must be 1..={MAX_CLIENTS}"
            )));
        }
        if self.ai > MAX_AI {
            return Err(SwarmError::Limits(format!("ai must be at most {MAX_AI}")));
        }
        if !(self.seconds > 0.0 && self.seconds <= MAX_SECONDS) {
            return Err(SwarmError::Limits(format!(
                "seconds must be in (0, {MAX_SECONDS}]"
            )));
        }
        if !(0.0..=MAX_CHAT_PER_S).contains(&self.chat_per_s) {
            return Err(SwarmError::Limits(format!(
                "chat_per_s must be in [0, {MAX_CHAT_PER_S}]"
            )));
        }
        Ok(())
    }

    /// Ticks between one bot's chat lines.
    fn chat_every(&self) -> Option<u64> {
        (self.chat_per_s > 0.0).then(|| (60.0 / self.chat_per_s).round().max(1.0) as u64)
    }

    fn server_config(&self) -> ServerConfig {
        let mut cfg = ServerConfig::default();
        cfg.world.sim_workers = self.workers.max(1);
        // Room for the missile fight and for the missiles, rockets and bombs in flight.
        cfg.world.entity_cap = self.clients + self.ai + 2 * FIGHT_SIDE + 256;
        cfg.snapshot.budget_bytes = self.budget_bytes;
        cfg.snapshot.compress = self.compress;
        // Every bot shares one address and joins at once: one burst that holds them all.
        cfg.admission.connect_burst = self.clients + 1;
        cfg.admission.connect_rate = self.clients + 1;
        cfg.admission.max_per_ip = self.clients + 1;
        // A furball: pilots spawn on a 16-wide grid 300 m apart.
        cfg.spawn_points = (0..self.clients.max(1))
            .map(|i| SpawnPoint {
                x: (i % 16) as f64 * 300.0 - 2400.0,
                z: (i / 16) as f64 * 300.0,
                altitude_m: 3000.0 + (i % 7) as f64 * 150.0,
                heading_deg: (i * 53 % 360) as f64,
                speed_mps: 220.0,
                anchor: None,
            })
            .collect();
        cfg
    }
}

/// Spawns `n` AI aircraft (patrol/attack) around the furball.
pub fn spawn_ai(server: &mut Server, n: usize) -> usize {
    let Some(t) = server.types().pilot_type("", "builtin:jet-trainer") else {
        return 0;
    };
    let mut spawned = 0;
    for i in 0..n {
        let Ok(ctrl) = fl_ai::build_from_line(
            "patrol_attack target=threat",
            &fl_ai::FactoryContext::default(),
        ) else {
            break;
        };
        let at = SpawnPoint {
            x: (i % 32) as f64 * 400.0 - 6400.0,
            z: 6000.0 + (i / 32) as f64 * 400.0,
            altitude_m: 2500.0 + (i % 9) as f64 * 200.0,
            heading_deg: 180.0,
            speed_mps: 200.0,
            anchor: None,
        };
        if server
            .spawn_aircraft(t, (i % 2 + 1) as u16, Pilot::Ai(ctrl), at)
            .is_none()
        {
            break;
        }
        spawned += 1;
    }
    spawned
}

/// The types of a run: the builtin layer, plus `opts.packs` when any are named.
fn load_types(opts: &SwarmOptions) -> Result<TypeRegistry, SwarmError> {
    if opts.packs.is_empty() {
        return TypeRegistry::builtin().map_err(|e| SwarmError::Types(e.to_string()));
    }
    let content = fl_content::Content::load(&fl_content::LoadOptions {
        pack_dirs: opts.packs.clone(),
        ..fl_content::LoadOptions::default()
    })
    .map_err(|e| SwarmError::Types(e.to_string()))?;
    Ok(TypeRegistry::from_content(&content, 1))
}

/// Spawns the world's AI: `opts.ai` around the furball, and the missile fight when asked for.
fn populate(server: &mut Server, opts: &SwarmOptions) -> Result<usize, SwarmError> {
    let mut ai = spawn_ai(server, opts.ai);
    if opts.missile_fight {
        ai += spawn_missile_fight(server)?;
    }
    Ok(ai)
}

/// Spawns [`FIGHT_SIDE`] [`FIGHT_TYPE`]s a side, line abreast 600 m apart, 20 km east of the
/// furball, one side 3 km behind the other on the same heading (the bounced side turns to
/// fight), each AI attacking the nearest threat.
pub fn spawn_missile_fight(server: &mut Server) -> Result<usize, SwarmError> {
    let Some(t) = server.types().index_of(FIGHT_TYPE) else {
        return Err(SwarmError::Types(format!(
            "the missile fight needs {FIGHT_TYPE}: mount the fixture pack (--pack)"
        )));
    };
    let mut spawned = 0;
    for side in 0..2u16 {
        for i in 0..FIGHT_SIDE {
            let ctrl = fl_ai::build_from_line("attack", &fl_ai::FactoryContext::default())
                .map_err(|e| SwarmError::Types(e.to_string()))?;
            let at = SpawnPoint {
                x: 20_000.0 + i as f64 * 600.0,
                z: if side == 0 { 0.0 } else { -3_000.0 },
                altitude_m: 5_000.0,
                heading_deg: 0.0,
                speed_mps: 250.0,
                anchor: None,
            };
            if server
                .spawn_aircraft(t, side + 1, Pilot::Ai(ctrl), at)
                .is_some()
            {
                spawned += 1;
            }
        }
    }
    Ok(spawned)
}

/// Empties every station of every aircraft (the unarmed run).
fn disarm(server: &mut Server) {
    let ids: Vec<_> = server.world().iter().map(|(id, _)| id).collect();
    for id in ids {
        if let Some(e) = server.world_mut().get_mut(id) {
            e.combat.loadout.stations.iter_mut().for_each(|s| *s = None);
        }
    }
}

/// What combat did over the whole run (warm-up included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CombatSummary {
    pub armed: bool,
    pub missile_fight: bool,
    pub rounds_fired: u64,
    pub rounds_hit: u64,
    pub stores_released: u64,
    pub detonations: u64,
    pub kills: u64,
    pub sensing_checks: u64,
}

fn combat_summary(server: &Server, opts: &SwarmOptions) -> CombatSummary {
    let t = &server.combat().totals;
    CombatSummary {
        armed: opts.armed,
        missile_fight: opts.missile_fight,
        rounds_fired: t.rounds_fired,
        rounds_hit: t.rounds_hit,
        stores_released: t.stores_released,
        detonations: t.detonations,
        kills: t.kills,
        sensing_checks: t.sensing_checks,
    }
}

/// The JSON summary of one run (printed by the `bot-swarm` binary; field by field in
/// docs/server.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// `linksim` or `quic`.
    pub mode: &'static str,
    /// The server's address (QUIC only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    pub clients: usize,
    pub ai: usize,
    pub seconds: f64,
    pub workers: usize,
    pub budget_bytes: usize,
    pub compress: bool,
    pub entities: usize,
    pub wall_seconds: f64,
    pub server_tick: ServerTick,
    pub clients_summary: ClientsSummary,
    /// LinkSim only (the QUIC server's world lives on its own thread).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub combat: Option<CombatSummary>,
    /// The impairment relay's profile and ground truth (QUIC with `--impair` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impair: Option<ImpairReport>,
    /// Successful polls of the status page (`--status-page` only): one `/api/status` and one
    /// `/metrics` each.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_page_polls: Option<u64>,
}

/// The server's status page on 127.0.0.1 and a poller that reads it once a second, as an
/// operator's open browser tab does.
struct StatusPage {
    _http: fl_server::http::HttpServer,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    poller: std::thread::JoinHandle<u64>,
}

impl StatusPage {
    fn start(board: fl_server::http::StatusBoard) -> Result<Self, SwarmError> {
        use std::sync::atomic::{AtomicBool, Ordering};
        let http = fl_server::http::HttpServer::start(
            fl_server::http::HttpConfig {
                bind: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
                ..fl_server::http::HttpConfig::default()
            },
            board,
            None,
        )
        .map_err(|e| SwarmError::Net(e.to_string()))?;
        let addr = http.local_addr();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let poller = std::thread::Builder::new()
            .name("status-page-poller".into())
            .spawn(move || {
                let mut polls = 0;
                while !flag.load(Ordering::SeqCst) {
                    if http_get(addr, "/api/status") && http_get(addr, "/metrics") {
                        polls += 1;
                    }
                    // One poll a second, watching the stop flag meanwhile.
                    for _ in 0..20 {
                        if flag.load(Ordering::SeqCst) {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
                polls
            })
            .map_err(SwarmError::Thread)?;
        Ok(Self {
            _http: http,
            stop,
            poller,
        })
    }

    /// Stops polling; the number of successful polls.
    fn stop(self) -> u64 {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        self.poller.join().unwrap_or(0)
    }
}

/// One `GET` on a fresh connection; whether it answered 200.
fn http_get(addr: SocketAddr, path: &str) -> bool {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    if s.write_all(req.as_bytes()).is_err() {
        return false;
    }
    let mut body = Vec::new();
    let _ = s.take(4 << 20).read_to_end(&mut body);
    body.starts_with(b"HTTP/1.1 200")
}

/// What the impairment relay did over the whole run (warm-up included).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImpairReport {
    pub profile: String,
    pub seed: u64,
    pub relay: RelayStats,
    /// The bottleneck's queueing delay over the measured window only (after the warm-up's
    /// joins), per direction.
    pub measured_queue_delay: WindowQueueDelay,
}

/// The server's tick phases over the measured window, in ms (nearest-rank percentiles).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerTick {
    pub total: Percentiles,
    pub network: Percentiles,
    pub world: Percentiles,
    pub snapshots: Percentiles,
    pub load_factor: f64,
    /// The runtime's measured tick rate (QUIC only: LinkSim steps the server by hand).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tick_hz: Option<f64>,
    /// Ticks the runtime dropped to catch up (QUIC only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_ticks: Option<u64>,
}

/// What the bots saw over the measured window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClientsSummary {
    pub admitted: usize,
    pub refused: usize,
    pub disconnected: usize,
    pub downstream_kbs_per_client: Spread,
    pub snapshot_interval_ticks_mean: f64,
    pub snapshots_per_client_per_s: f64,
    pub snapshot_share_of_ticks: f64,
    pub stale_snapshots: u64,
    pub decode_errors: u64,
    pub largest_snapshot_bytes: usize,
    pub records_per_snapshot: f64,
    pub bytes_per_record: f64,
    /// Chat lines the bots sent, and routed lines they received, per second of the window.
    pub chat_sent_per_s: f64,
    pub chat_received_per_s: f64,
}

/// Mean, least and most of a per-client figure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

/// Summarises bot statistics over `seconds` of traffic.
pub fn client_summary(stats: &[BotStats], seconds: f64, ticks: u64) -> ClientsSummary {
    let kbs: Vec<f64> = stats
        .iter()
        .map(|s| (s.snapshot_bytes + s.other_bytes) as f64 / 1000.0 / seconds)
        .collect();
    let mean = kbs.iter().sum::<f64>() / kbs.len().max(1) as f64;
    let interval_sum: u64 = stats.iter().map(|s| s.interval_sum).sum();
    let interval_count: u64 = stats.iter().map(|s| s.interval_count).sum();
    let snapshots: u64 = stats.iter().map(|s| s.snapshots).sum();
    let records: u64 = stats.iter().map(|s| s.records).sum();
    let snap_bytes: u64 = stats.iter().map(|s| s.snapshot_bytes).sum();
    let expected = ticks * stats.len() as u64;
    ClientsSummary {
        admitted: stats.iter().filter(|s| s.admitted).count(),
        refused: stats.iter().filter(|s| s.refused.is_some()).count(),
        disconnected: stats.iter().filter(|s| s.disconnected.is_some()).count(),
        downstream_kbs_per_client: Spread {
            mean,
            min: kbs.iter().copied().reduce(f64::min).unwrap_or(0.0),
            max: kbs.iter().copied().fold(0.0, f64::max),
        },
        snapshot_interval_ticks_mean: interval_sum as f64 / interval_count.max(1) as f64,
        snapshots_per_client_per_s: snapshots as f64 / stats.len().max(1) as f64 / seconds,
        snapshot_share_of_ticks: snapshots as f64 / expected.max(1) as f64,
        stale_snapshots: stats.iter().map(|s| s.stale).sum(),
        decode_errors: stats.iter().map(|s| s.decode_errors).sum(),
        chat_sent_per_s: stats.iter().map(|s| s.chat_sent).sum::<u64>() as f64 / seconds,
        chat_received_per_s: stats.iter().map(|s| s.chat_received).sum::<u64>() as f64 / seconds,
        largest_snapshot_bytes: stats.iter().map(|s| s.largest_snapshot).max().unwrap_or(0),
        records_per_snapshot: records as f64 / snapshots.max(1) as f64,
        bytes_per_record: snap_bytes as f64 / records.max(1) as f64,
    }
}

/// Starts the measured window: keeps only whether each bot was admitted.
fn reset_stats<T: fl_net::ClientTransport>(bots: &mut [Bot<T>]) {
    for b in bots {
        b.stats = BotStats {
            admitted: b.stats.admitted,
            ..BotStats::default()
        };
    }
}

/// Runs the swarm over LinkSim in this process: the server and every bot step tick by tick in
/// virtual time (traffic is deterministic; tick timings are this machine's wall time).
pub fn run_linksim(opts: &SwarmOptions) -> Result<Report, SwarmError> {
    opts.check()?;
    if opts.impair.is_some() {
        return Err(SwarmError::Limits(
            "the impairment relay works on real sockets: use the QUIC transport".into(),
        ));
    }
    let net = SimNetwork::new(opts.seed);
    let addr = SocketAddr::new(
        IpAddr::V4(Ipv4Addr::LOCALHOST),
        fl_protocol::ids::DEFAULT_GAME_PORT,
    );
    let endpoint = net
        .server(
            addr,
            SimEndpointConfig {
                max_connections: opts.clients + 8,
                ..SimEndpointConfig::default()
            },
        )
        .map_err(|e| SwarmError::Net(e.to_string()))?;
    let types = load_types(opts)?;
    let mut server = Server::new(opts.server_config(), Box::new(endpoint), types);
    let ai = populate(&mut server, opts)?;
    let mut bots = Vec::with_capacity(opts.clients);
    for i in 0..opts.clients {
        // Spread bots over loopback addresses (127.0.1.x) like real hosts.
        let ip = IpAddr::V4(Ipv4Addr::new(
            127,
            0,
            1 + (i / 250) as u8,
            (i % 250) as u8 + 1,
        ));
        let t = net
            .connect_from(
                SocketAddr::new(ip, 0),
                addr,
                opts.link,
                SimEndpointConfig::default(),
            )
            .map_err(|e| SwarmError::Net(e.to_string()))?;
        bots.push(Bot::new(i as u32, t).chat_every(opts.chat_every()));
    }
    if opts.status_page {
        return Err(SwarmError::Limits(
            "the status page runs beside the server's runtime thread: use the QUIC transport"
                .into(),
        ));
    }
    let ticks = (opts.seconds * 60.0).round() as u64;
    let mut timings: Vec<TickTimings> = Vec::with_capacity(ticks as usize);
    let wall = Instant::now();
    for t in 0..WARMUP_TICKS + ticks {
        net.advance(TICK);
        if !opts.armed && t <= WARMUP_TICKS {
            // The bots' aircraft appear as they join, during the warm-up.
            disarm(&mut server);
        }
        let timing = server.tick();
        if t == WARMUP_TICKS {
            reset_stats(&mut bots);
        }
        if t >= WARMUP_TICKS {
            timings.push(timing);
        }
        for b in &mut bots {
            b.step();
        }
    }
    let phase = |f: fn(&TickTimings) -> Duration| -> Percentiles {
        let mut ms: Vec<f64> = timings
            .iter()
            .map(|t| f(t).as_secs_f64() * 1000.0)
            .collect();
        Percentiles::of_ms(&mut ms)
    };
    let stats: Vec<BotStats> = bots.iter().map(|b| b.stats.clone()).collect();
    Ok(Report {
        mode: "linksim",
        server: None,
        clients: opts.clients,
        ai,
        seconds: opts.seconds,
        workers: opts.workers,
        budget_bytes: opts.budget_bytes,
        compress: opts.compress,
        entities: server.world().len(),
        wall_seconds: wall.elapsed().as_secs_f64(),
        server_tick: ServerTick {
            total: phase(|t| t.total),
            network: phase(|t| t.network),
            world: phase(|t| t.world),
            snapshots: phase(|t| t.snapshots),
            load_factor: server.load_factor(),
            tick_hz: None,
            dropped_ticks: None,
        },
        clients_summary: client_summary(&stats, opts.seconds, ticks),
        combat: Some(combat_summary(&server, opts)),
        impair: None,
        status_page_polls: None,
    })
}

/// Runs the swarm over real QUIC on 127.0.0.1: the server runs on its own wall-clock thread
/// (the `fl-server` runtime), each bot is a QUIC client pinned to the server's fingerprint, and
/// the bots step at 60 Hz of wall time. Tick statistics are the runtime's (its last 600 ticks).
/// With `opts.impair` the bots connect through one impairment relay on 127.0.0.1.
/// The server identity lives in a temporary directory removed afterwards.
pub fn run_quic(opts: &SwarmOptions) -> Result<Report, SwarmError> {
    use fl_net::quic::{QuicClient, QuicServer, ServerConfig as QuicConfig, TrustPolicy};
    opts.check()?;
    if opts.clients > MAX_QUIC_CLIENTS {
        return Err(SwarmError::Limits(format!(
            "over QUIC, clients must be 1..={MAX_QUIC_CLIENTS}"
        )));
    }
    if opts.link != LinkConfig::default() {
        return Err(SwarmError::Limits(
            "latency and loss are simulated by LinkSim only; QUIC runs over the real loopback"
                .into(),
        ));
    }
    let data_dir = std::env::temp_dir().join(format!("bot-swarm-{}", std::process::id()));
    std::fs::create_dir_all(&data_dir).map_err(|e| SwarmError::Net(e.to_string()))?;
    let result = (|| {
        let quic = QuicServer::bind(
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            &data_dir,
            QuicConfig {
                max_connections: opts.clients + 8,
                ..QuicConfig::default()
            },
        )
        .map_err(|e| SwarmError::Net(fl_net::error_chain(&e)))?;
        let addr = fl_net::ServerTransport::local_addr(&quic);
        let fingerprint = quic.fingerprint();
        if !opts.armed {
            return Err(SwarmError::Limits(
                "--unarmed is a LinkSim measurement (the QUIC server runs on its own thread)"
                    .into(),
            ));
        }
        let types = load_types(opts)?;
        let mut server = Server::new(opts.server_config(), Box::new(quic), types);
        let ai = populate(&mut server, opts)?;
        let relay = match &opts.impair {
            Some(imp) => Some(
                Relay::start(
                    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
                    addr,
                    &imp.config,
                    opts.seed,
                )
                .map_err(|e| SwarmError::Net(fl_net::error_chain(&e)))?,
            ),
            None => None,
        };
        let connect_to = relay.as_ref().map_or(addr, |r| r.local_addr());
        let board = opts
            .status_page
            .then(|| fl_server::http::StatusBoard::new("bot-swarm"));
        let sink = board.clone().map(|b| {
            Box::new(move |m: &fl_server::runtime::Metrics| b.publish(m))
                as fl_server::runtime::MetricsSink
        });
        let handle =
            fl_server::runtime::spawn(server, fl_server::runtime::RuntimeConfig::default(), sink)
                .map_err(SwarmError::Thread)?;
        let page = match board {
            Some(board) => Some(StatusPage::start(board)?),
            None => None,
        };
        let mut bots = Vec::with_capacity(opts.clients);
        for i in 0..opts.clients {
            let t = QuicClient::connect(connect_to, "localhost", TrustPolicy::Pinned(fingerprint))
                .map_err(|e| SwarmError::Net(fl_net::error_chain(&e)))?;
            bots.push(Bot::new(i as u32, t).chat_every(opts.chat_every()));
        }
        let ticks = (opts.seconds * 60.0).round() as u64;
        let wall = Instant::now();
        let mut next = Instant::now();
        for t in 0..WARMUP_TICKS + ticks {
            if t == WARMUP_TICKS {
                reset_stats(&mut bots);
                if let Some(r) = &relay {
                    r.restart_window();
                }
            }
            for b in &mut bots {
                b.step();
            }
            next += TICK;
            let now = Instant::now();
            if next > now {
                std::thread::sleep(next - now);
            } else if now - next > TICK * 5 {
                // Far behind (an overloaded machine): do not burst to catch up.
                next = now;
            }
        }
        let m = handle.metrics();
        let stats: Vec<BotStats> = bots.iter().map(|b| b.stats.clone()).collect();
        let status_page_polls = page.map(StatusPage::stop);
        drop(bots);
        handle.stop();
        let impair = match (&opts.impair, relay) {
            (Some(imp), Some(relay)) => Some(ImpairReport {
                profile: imp.name.clone(),
                seed: opts.seed,
                relay: relay.stats(),
                measured_queue_delay: relay.window_queue_delay(),
            }),
            _ => None,
        };
        Ok(Report {
            mode: "quic",
            server: Some(addr.to_string()),
            clients: opts.clients,
            ai,
            seconds: opts.seconds,
            workers: opts.workers,
            budget_bytes: opts.budget_bytes,
            compress: opts.compress,
            entities: m.entities,
            wall_seconds: wall.elapsed().as_secs_f64(),
            server_tick: ServerTick {
                total: m.total,
                network: m.network,
                world: m.world,
                snapshots: m.snapshots,
                load_factor: m.load_factor,
                tick_hz: Some(m.tick_hz),
                dropped_ticks: Some(m.dropped_ticks),
            },
            clients_summary: client_summary(&stats, opts.seconds, ticks),
            combat: None,
            impair,
            status_page_polls,
        })
    })();
    let _ = std::fs::remove_dir_all(&data_dir);
    result
}

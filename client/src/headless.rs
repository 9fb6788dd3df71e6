//! The headless client: the whole client loop without a window, against a server address, the
//! embedded single-player server, or an in-process LinkSim world (virtual time, truth known),
//! ending with one JSON summary — prediction corrections, visual pops, snapshot interval and
//! jitter, RTT, loss, bytes, remote interpolation error where the truth is known. With a mission
//! (`HeadlessOptions::mission`) the server runs it — the embedded server in real time, or
//! [`Mode::Fast`]'s in-process world in virtual time — and the summary reports it; the run stops
//! [`MISSION_END_GRACE`] after the mission ends.
//!
//! Owns the real-time frame pacing (the only place the client reads the wall clock) and the
//! summary's shape (documented field by field in `docs/client.md`).

use crate::autopilot;
use crate::client::{Client, ClientConfig, Pilot};
use crate::local_server::{LocalServer, LocalServerConfig, LocalServerError};
use crate::prediction::{PredictionStats, WORD_NAMES};
use crate::session::{ClientSession, SessionConfig, SessionError, SessionState};
use crate::sim::{ExactnessCheck, Sim, SimConfig, SimSetupError};
use crate::stats::Summary;
use fl_net::linksim::{DirectionConfig, LinkConfig};
use fl_net::quic::{Fingerprint, TrustPolicy};
use fl_server::mission_director::MissionDirector;
use fl_server::server::mission::{MissionState, MissionStatus};
use serde::Serialize;
use std::collections::BTreeMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Where the headless client flies.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    /// The embedded server on loopback.
    SinglePlayer,
    /// A server by `host:port`.
    Connect { host: String, port: u16 },
    /// An in-process server over a simulated link, in virtual time.
    LinkSim {
        one_way_latency: Duration,
        jitter: Duration,
        loss: f64,
        targets: usize,
        seed: u64,
    },
    /// An in-process server over a perfect (zero-latency, lossless) simulated link, in virtual
    /// time, with the loaded content on both sides: missions checked in seconds (`--fast`).
    Fast,
}

impl Mode {
    fn name(&self) -> &'static str {
        match self {
            Mode::SinglePlayer => "single-player",
            Mode::Connect { .. } => "connect",
            Mode::LinkSim { .. } => "linksim",
            Mode::Fast => "fast",
        }
    }
}

/// Options of a run.
#[derive(Debug, Clone)]
pub struct HeadlessOptions {
    pub mode: Mode,
    pub seconds: f64,
    pub autopilot: String,
    pub frame_rate: f64,
    pub session: SessionConfig,
    pub client: ClientConfig,
    /// `known_hosts` for trust on first use (connect mode).
    pub known_hosts: Option<PathBuf>,
    /// A pinned server fingerprint (connect mode; wins over `known_hosts`).
    pub pin: Option<Fingerprint>,
    pub local: LocalServerConfig,
    /// The client's content stack (prediction resolves the flown type's flight model in it;
    /// `None`: the builtin content only).
    pub content: Option<std::sync::Arc<fl_content::Content>>,
    /// A mission for the server to run (single player and fast modes): started before the
    /// pilot joins, the run ends [`MISSION_END_GRACE`] after the mission ends.
    pub mission: Option<MissionDirector>,
}

/// How long a headless run goes on after its mission ended (so the client hears the server's
/// `MsgMissionOutcome`), before it stops early.
pub const MISSION_END_GRACE: Duration = Duration::from_secs(1);

impl Default for HeadlessOptions {
    fn default() -> Self {
        Self {
            mode: Mode::SinglePlayer,
            seconds: 10.0,
            autopilot: "aerobatics".to_owned(),
            frame_rate: 120.0,
            session: SessionConfig {
                callsign: "Headless".to_owned(),
                ..SessionConfig::default()
            },
            client: ClientConfig::default(),
            known_hosts: None,
            pin: None,
            local: LocalServerConfig::default(),
            content: None,
            mission: None,
        }
    }
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    #[error("unknown autopilot {0:?} (known: {list})", list = autopilot::AUTOPILOTS.join(", "))]
    UnknownAutopilot(String),
    #[error("cannot resolve {host}:{port}")]
    Resolve {
        host: String,
        port: u16,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}:{1} resolves to no address")]
    NoAddress(String, u16),
    #[error("cannot create {path}")]
    KnownHostsDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the embedded server did not start")]
    LocalServer(#[from] LocalServerError),
    #[error("cannot connect")]
    Session(#[from] SessionError),
    #[error("cannot set up the simulated world")]
    Sim(#[from] SimSetupError),
}

/// The session part of the summary.
#[derive(Debug, Clone, Serialize)]
pub struct SessionSummary {
    pub state: String,
    pub admitted: bool,
    /// Why the session ended (before the run's end), as shown to a player.
    pub ended: Option<String>,
    pub retryable: Option<bool>,
    pub build_warning: Option<String>,
    pub own_entity: Option<(u32, u32)>,
    /// The type id of the aircraft flown (from the server's type table).
    pub aircraft: Option<String>,
    pub motd: Vec<String>,
    pub notices: Vec<String>,
    pub entity_types: usize,
    pub factions: usize,
    /// "Connection interrupted" is showing now (the server has been silent for at least
    /// `interrupted_after`; the session lives until the idle timeout).
    pub interrupted: bool,
    /// Interruptions in the run, and the longest one that ended with the server heard again, s.
    pub interruptions: u64,
    pub longest_outage_s: f64,
}

/// Corrections by the part of the state that differed (one correction may count in several).
#[derive(Debug, Clone, Serialize)]
pub struct CorrectionParts {
    /// Position or orientation differed; sizes: position error m, orientation error rad.
    pub pose: u64,
    pub pose_m: Summary,
    pub pose_rad: Summary,
    /// Linear or angular velocity differed; sizes: m/s and rad/s.
    pub velocity: u64,
    pub velocity_mps: Summary,
    pub body_rates_rps: Summary,
    /// Fuel, engine, actuators, surfaces, specific force or contact differed; size: the largest
    /// word difference (each word in its own unit).
    pub other: u64,
    pub other_max: Summary,
    /// Every word that differed in some correction, with how many corrections it differed in.
    pub words: BTreeMap<String, u64>,
    /// Corrections where the server had flown the previous input once more in the acked
    /// input's slot (it concealed a lost or late input).
    pub server_repeat: u64,
}

impl CorrectionParts {
    fn from_stats(p: &PredictionStats) -> Self {
        Self {
            pose: p.pose.count,
            pose_m: p.pose.size.summary(),
            pose_rad: p.pose.size2.summary(),
            velocity: p.velocity.count,
            velocity_mps: p.velocity.size.summary(),
            body_rates_rps: p.velocity.size2.summary(),
            other: p.other.count,
            other_max: p.other.size.summary(),
            words: WORD_NAMES
                .iter()
                .zip(p.word_corrections.iter())
                .filter(|(_, n)| **n > 0)
                .map(|(w, n)| ((*w).to_string(), *n))
                .collect(),
            server_repeat: p.repeat_corrections,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PredictionSummary {
    pub enabled: bool,
    pub inputs: u64,
    pub reconciles: u64,
    /// Compares during the first second after a spawn (not in the numbers below).
    pub settle_compares: u64,
    /// Reconciles that compared a prediction with the server's state after the same input.
    pub compared: u64,
    /// Compared predictions that differed from the server in any bit.
    pub corrections: u64,
    pub exact_basis_compares: u64,
    pub exact_basis_corrections: u64,
    /// Position error of every compared prediction, m.
    pub correction_m: Summary,
    /// The corrections split by what differed: pose (position, orientation), velocities
    /// (linear, angular) and the rest of the flight state, each counted and sized.
    pub correction_parts: CorrectionParts,
    /// How far each reconcile moved the newest predicted position, m.
    pub reconcile_jump_m: Summary,
    pub replayed_inputs: Summary,
    pub fallback_reconciles: u64,
    pub quantized_resets: u64,
    /// Snaps for a teleport or a new own entity.
    pub snaps: u64,
    /// Corrections snapped during the first second after a spawn (the server's input buffer
    /// settling).
    pub settle_snaps: u64,
    /// Reconciles that moved the input → server-tick mapping, and by how many ticks in all.
    pub timeline_shifts: u64,
    pub timeline_shift_ticks: i64,
    /// Reconciles right after an outage (blended, not snapped) and their largest jump, m.
    pub outage_reconciles: u64,
    pub outage_jump_max_m: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RenderSummary {
    pub frames: u64,
    /// Frames whose own-position change beyond its motion exceeded `pop_threshold_m`.
    pub visual_pops: u64,
    pub pop_threshold_m: f64,
    /// Per-frame change of the rendered own position beyond its own motion, m.
    pub own_pop_m: Summary,
    pub snap_frames: u64,
    /// The largest per-frame pops (any size) with their context (frame time, the reconcile
    /// that moved the offset before them).
    pub worst_pops: Vec<crate::client::PopRecord>,
    pub interpolated_poses: u64,
    pub extrapolated_poses: u64,
    pub held_poses: u64,
    pub teleports: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SnapshotSummary {
    pub received: u64,
    pub applied: u64,
    pub stale: u64,
    pub decode_errors: u64,
    /// Wall time between consecutive snapshot arrivals, ms.
    pub interval_ms: Summary,
    /// Smoothed server ticks between consecutive received snapshots.
    pub interval_ticks: f64,
    /// RFC 3550 interarrival jitter, ms.
    pub jitter_ms: f64,
    /// The spread (standard deviation) of the snapshots' one-way delay over the last ten
    /// seconds, ms: the path's jitter, as the relay's `delay.stdev_ms` measures it.
    pub delay_spread_ms: f64,
    pub bytes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct NetworkSummary {
    /// The transport's smoothed round-trip time, ms.
    pub rtt_ms: f64,
    /// `MsgPeerDelay` (server tick − acked snapshot tick), ms.
    pub peer_delay_ms: Option<f64>,
    /// Fraction of the server's datagrams (snapshots) that never arrived, over the session:
    /// gaps in the transport's datagram sequence — the loss on the way down as the network
    /// really dropped it.
    pub loss: f64,
    /// The same over the last `fl_net::LOSS_IN_WINDOW` datagrams.
    pub loss_recent: f64,
    /// Recent fraction of the client's own packets lost on the way up (the sender's view:
    /// what QUIC declared lost over the last ~2 s; LinkSim: the client's dropped datagrams).
    pub loss_up: f64,
    /// The server's datagrams received, and found missing, over the session.
    pub datagrams_in: u64,
    pub datagrams_missing: u64,
    /// Fraction of server ticks with no snapshot received (from the measured snapshot
    /// interval: loss on the way down plus any decimation by the server).
    pub snapshot_gap_ratio: f64,
    pub bytes_in: u64,
    pub bytes_out: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct InterpolationSummary {
    pub delay_ms: f64,
    /// The delay over the run, sampled every frame, ms.
    pub delay_history_ms: Summary,
    /// Re-anchors of the render clock after an outage.
    pub clock_reanchors: u64,
    /// |rendered − true| of remote targets at the render tick (only where the truth is known).
    pub remote_error_m: Option<Summary>,
    pub target_speed_mps: Option<f64>,
}

/// One kill record heard (`MsgCombatEvent`).
#[derive(Debug, Clone, Serialize)]
pub struct KillSummary {
    /// (index, wire generation) of the destroyed entity.
    pub subject: (u32, u16),
    /// The credited entity; `null`: the environment.
    pub instigator: Option<(u32, u16)>,
    /// The credited weapon class (`Gun`, `Missile`, …); `null` when none.
    pub weapon: Option<String>,
    pub instigator_peer: Option<u32>,
    pub subject_peer: Option<u32>,
}

/// The fight as the server told this peer: its own tallies (`Stats`/`Shots` records) and the
/// kill feed.
#[derive(Debug, Clone, Serialize)]
pub struct CombatSummary {
    /// Gun rounds fired plus stores released.
    pub shots: u32,
    /// Rounds that hit plus warheads that damaged something.
    pub hits: u32,
    pub kills: u32,
    /// Aircraft lost (destroyed, crashed or abandoned).
    pub deaths: u32,
    pub score: i32,
    pub kill_records: Vec<KillSummary>,
}

impl CombatSummary {
    fn of(log: &crate::session::combat::CombatLog) -> Self {
        let t = log.tallies;
        Self {
            shots: t.shots,
            hits: t.hits,
            kills: t.kills,
            deaths: t.losses,
            score: t.score,
            kill_records: log
                .kills
                .iter()
                .map(|k| KillSummary {
                    subject: k.subject,
                    instigator: k.instigator,
                    weapon: k.weapon.map(|w| format!("{w:?}")),
                    instigator_peer: k.instigator_peer,
                    subject_peer: k.subject_peer,
                })
                .collect(),
        }
    }
}

/// The mission part of the summary (runs with `--mission`): the server's status of the run at
/// the end, and what the client heard of its outcome.
#[derive(Debug, Clone, Serialize)]
pub struct MissionSummary {
    /// `<pack id>:<file stem>`.
    pub id: String,
    /// `running`, `success` or `failure`.
    pub state: String,
    /// Mission time, s (ticks × the fixed step), up to the end.
    pub elapsed_s: f64,
    pub elapsed_ticks: u64,
    /// Objects spawned (at the start, plus player slots bound).
    pub objects: u32,
    pub triggers_fired: u16,
    /// Lua scripts running, and the errors of those disabled (empty when none).
    pub scripts: u32,
    pub script_errors: Vec<String>,
    /// `world.score_objective` calls and the points they gave.
    pub objectives_scored: u32,
    pub objective_points: i64,
    pub player_slots: u32,
    pub slots_bound: u32,
    /// The end the client heard (the first terminal `MsgMissionOutcome`: `success` or
    /// `failure`); `null` when none arrived.
    pub outcome_heard: Option<String>,
}

impl MissionSummary {
    /// The summary of `status`, with what `client` heard.
    pub fn of(status: &MissionStatus, client: &Client) -> Self {
        Self {
            id: status.id.clone(),
            state: status.state.name().to_owned(),
            elapsed_s: status.elapsed_s,
            elapsed_ticks: status.elapsed_ticks,
            objects: status.objects,
            triggers_fired: status.triggers_fired,
            scripts: status.scripts,
            script_errors: status.script_errors.clone(),
            objectives_scored: status.objectives_scored,
            objective_points: status.objective_points,
            player_slots: status.player_slots,
            slots_bound: status.slots_bound,
            outcome_heard: client
                .session()
                .mission()
                .outcome
                .map(|o| if o.success { "success" } else { "failure" }.to_owned()),
        }
    }
}

/// The one JSON object a headless run prints.
#[derive(Debug, Clone, Serialize)]
pub struct HeadlessSummary {
    pub mode: String,
    pub seconds: f64,
    pub autopilot: String,
    pub session: SessionSummary,
    pub prediction: PredictionSummary,
    pub render: RenderSummary,
    pub snapshots: SnapshotSummary,
    pub network: NetworkSummary,
    pub interpolation: InterpolationSummary,
    pub combat: CombatSummary,
    pub entities: usize,
    /// Independent check against the server's truth (LinkSim and fast modes).
    pub exactness: Option<ExactnessCheck>,
    /// The mission run (only with `--mission`; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mission: Option<MissionSummary>,
}

impl HeadlessSummary {
    /// Whether the run went as a player would want: admitted, and not ended early.
    pub fn succeeded(&self) -> bool {
        self.session.admitted && self.session.ended.is_none()
    }
}

/// Builds the summary of a client after `seconds` of running.
pub fn summarize(
    client: &Client,
    mode: &str,
    autopilot: &str,
    seconds: f64,
    sim: Option<&crate::sim::SimReport>,
) -> HeadlessSummary {
    let s = client.session();
    let p = &client.prediction().stats;
    let b = &client.bridge().stats;
    let m = &client.metrics;
    let link = s.link_stats();
    let st = s.stats();
    let ended = s.end_reason();
    let gap_ratio = {
        let applied = st.snapshots_applied as f64;
        let interval = client.bridge().snapshot_interval_ticks().unwrap_or(1.0);
        if applied > 0.0 {
            (1.0 - 1.0 / interval.max(1.0)).max(0.0)
        } else {
            0.0
        }
    };
    HeadlessSummary {
        mode: mode.to_owned(),
        seconds,
        autopilot: autopilot.to_owned(),
        session: SessionSummary {
            state: format!("{:?}", s.state()),
            admitted: s.admission().is_some(),
            ended: ended.map(|e| e.message()),
            retryable: ended.map(|e| e.is_retryable()),
            build_warning: s.build_warning(),
            own_entity: s.own_entity().map(|o| (o.idx, o.generation)),
            aircraft: client.own_type_id(),
            motd: s.motd().map(|m| m.lines.clone()).unwrap_or_default(),
            notices: s.notices().iter().map(|n| n.text.clone()).collect(),
            entity_types: s.types().len(),
            factions: s.factions().len(),
            interrupted: s.interrupted_since().is_some(),
            interruptions: st.interruptions,
            longest_outage_s: st.longest_outage.as_secs_f64(),
        },
        prediction: PredictionSummary {
            enabled: client.prediction().has_model(),
            inputs: p.inputs,
            reconciles: p.reconciles,
            settle_compares: p.settle_compares,
            compared: p.compared,
            corrections: p.corrections,
            exact_basis_compares: p.exact_basis_compares,
            exact_basis_corrections: p.exact_basis_corrections,
            correction_m: p.correction_m.summary(),
            correction_parts: CorrectionParts::from_stats(p),
            reconcile_jump_m: p.jump_m.summary(),
            replayed_inputs: p.replayed.summary(),
            fallback_reconciles: p.fallback_reconciles,
            quantized_resets: p.quantized_resets,
            snaps: p.snaps,
            settle_snaps: p.settle_snaps,
            timeline_shifts: p.timeline_shifts,
            timeline_shift_ticks: p.timeline_shift_ticks,
            outage_reconciles: p.outage_reconciles,
            outage_jump_max_m: p.outage_jump_max_m,
        },
        render: RenderSummary {
            frames: m.frames,
            visual_pops: m.visual_pops,
            pop_threshold_m: client.config().pop_threshold_m,
            own_pop_m: m.own_pop_m.summary(),
            snap_frames: m.snap_frames,
            worst_pops: m.worst_pops.clone(),
            interpolated_poses: b.interpolated_poses,
            extrapolated_poses: b.extrapolated_poses,
            held_poses: b.held_poses,
            teleports: b.teleports,
        },
        snapshots: SnapshotSummary {
            received: st.snapshots_received,
            applied: st.snapshots_applied,
            stale: st.snapshots_stale,
            decode_errors: st.decode_errors,
            interval_ms: b.arrival_interval_ms.summary(),
            interval_ticks: client.bridge().snapshot_interval_ticks().unwrap_or(0.0),
            jitter_ms: client.bridge().jitter().as_secs_f64() * 1000.0,
            delay_spread_ms: client.bridge().delay_spread().as_secs_f64() * 1000.0,
            bytes: st.snapshot_bytes,
        },
        network: NetworkSummary {
            rtt_ms: link.rtt.as_secs_f64() * 1000.0,
            peer_delay_ms: s
                .peer_delay_ticks()
                .map(|d| f64::from(d) * 1000.0 / crate::TICK_HZ as f64),
            loss: link.datagrams_missing as f64
                / (link.datagrams_in + link.datagrams_missing).max(1) as f64,
            loss_recent: link.loss_in,
            loss_up: link.loss,
            datagrams_in: link.datagrams_in,
            datagrams_missing: link.datagrams_missing,
            snapshot_gap_ratio: gap_ratio,
            bytes_in: link.bytes_received,
            bytes_out: link.bytes_sent,
        },
        interpolation: InterpolationSummary {
            delay_ms: client.bridge().delay().as_secs_f64() * 1000.0,
            delay_history_ms: b.delay_ms.summary(),
            clock_reanchors: b.clock_reanchors,
            remote_error_m: sim.map(|r| r.remote_error_m),
            target_speed_mps: sim.map(|r| r.target_speed_mps),
        },
        combat: CombatSummary::of(s.combat()),
        entities: s.entities().len(),
        exactness: sim.map(|r| r.exactness),
        mission: None,
    }
}

fn pilot(name: &str) -> Result<Box<dyn Pilot + Send>, HeadlessError> {
    autopilot::by_name(name).ok_or_else(|| HeadlessError::UnknownAutopilot(name.to_owned()))
}

/// The default `known_hosts`: `$XDG_CONFIG_HOME/fighters-legacy/known_hosts` (or under
/// `~/.config`), else `./known_hosts`.
pub fn default_known_hosts() -> PathBuf {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
    match base {
        Some(b) => b.join("fighters-legacy").join("known_hosts"),
        None => PathBuf::from("known_hosts"),
    }
}

/// Runs the headless client and returns its summary.
pub fn run(opts: &HeadlessOptions) -> Result<HeadlessSummary, HeadlessError> {
    let mut pilot = pilot(&opts.autopilot)?;
    match &opts.mode {
        Mode::LinkSim {
            one_way_latency,
            jitter,
            loss,
            targets,
            seed,
        } => {
            let dir = DirectionConfig {
                latency: *one_way_latency,
                jitter: *jitter,
                loss: *loss,
                ..DirectionConfig::default()
            };
            let cfg = SimConfig {
                seed: *seed,
                link: LinkConfig::symmetric(dir),
                frame_interval: Duration::from_secs_f64(1.0 / opts.frame_rate.clamp(1.0, 1000.0)),
                targets: *targets,
                client: opts.client.clone(),
                session: opts.session.clone(),
                ..SimConfig::default()
            };
            let mut sim = Sim::new(cfg, pilot)?;
            sim.run_until(Duration::from_secs_f64(opts.seconds.max(0.0)), |s| {
                s.client().session().state() == SessionState::Ended
            });
            let report = sim.report();
            Ok(summarize(
                sim.client(),
                opts.mode.name(),
                &opts.autopilot,
                report.virtual_seconds,
                Some(&report),
            ))
        }
        Mode::Fast => {
            let cfg = SimConfig {
                seed: opts.mission.as_ref().map_or(1, MissionDirector::seed),
                link: LinkConfig::symmetric(DirectionConfig::default()),
                frame_interval: Duration::from_secs_f64(1.0 / opts.frame_rate.clamp(1.0, 1000.0)),
                server: opts.local.server.clone(),
                targets: 0,
                client: opts.client.clone(),
                session: opts.session.clone(),
                content: opts.content.clone(),
                mission: opts.mission.clone(),
                ..SimConfig::default()
            };
            let mut sim = Sim::new(cfg, pilot)?;
            let mut ended_at: Option<Duration> = None;
            sim.run_until(Duration::from_secs_f64(opts.seconds.max(0.0)), |s| {
                if s.mission_status()
                    .is_some_and(|m| m.state != MissionState::Running)
                {
                    ended_at.get_or_insert(s.now());
                }
                s.client().session().state() == SessionState::Ended
                    || ended_at.is_some_and(|t| s.now() >= t + MISSION_END_GRACE)
            });
            let report = sim.report();
            let mut summary = summarize(
                sim.client(),
                opts.mode.name(),
                &opts.autopilot,
                report.virtual_seconds,
                Some(&report),
            );
            summary.mission = sim
                .mission_status()
                .map(|m| MissionSummary::of(&m, sim.client()));
            Ok(summary)
        }
        Mode::SinglePlayer => {
            let mut local = opts.local.clone();
            if opts.mission.is_some() {
                local.mission = opts.mission.clone();
            }
            let server = LocalServer::start(local, Duration::from_secs(20))?;
            let info = server
                .info()
                .ok_or(HeadlessError::LocalServer(LocalServerError::Vanished))?;
            let started = Instant::now();
            let session = ClientSession::connect_quic(
                info.addr,
                "localhost",
                TrustPolicy::Pinned(info.fingerprint),
                opts.session.clone(),
                Duration::ZERO,
            )?;
            let source = server.mission_status_source();
            let summary = real_time(opts, session, pilot.as_mut(), started, Some(&source));
            drop(server);
            Ok(summary)
        }
        Mode::Connect { host, port } => {
            let addr = resolve(host, *port)?;
            let trust = match (opts.pin, &opts.known_hosts) {
                (Some(fp), _) => TrustPolicy::Pinned(fp),
                (None, path) => {
                    let path = path.clone().unwrap_or_else(default_known_hosts);
                    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                        std::fs::create_dir_all(dir).map_err(|source| {
                            HeadlessError::KnownHostsDir {
                                path: dir.to_path_buf(),
                                source,
                            }
                        })?;
                    }
                    TrustPolicy::KnownHosts(path)
                }
            };
            let started = Instant::now();
            let session = ClientSession::connect_quic(
                addr,
                host,
                trust,
                opts.session.clone(),
                Duration::ZERO,
            )?;
            Ok(real_time(opts, session, pilot.as_mut(), started, None))
        }
    }
}

fn resolve(host: &str, port: u16) -> Result<SocketAddr, HeadlessError> {
    let mut addrs = (host, port)
        .to_socket_addrs()
        .map_err(|source| HeadlessError::Resolve {
            host: host.to_owned(),
            port,
            source,
        })?;
    addrs
        .next()
        .ok_or_else(|| HeadlessError::NoAddress(host.to_owned(), port))
}

/// The wall-clock loop: frames at `frame_rate` until `seconds` pass or the session ends. A
/// join still under way when `seconds` pass is waited for (the join timeout bounds it), so a
/// short run against a silent address still ends with the join timeout's message. With a
/// mission (`mission`: its status after the server's latest tick), the run ends
/// [`MISSION_END_GRACE`] after the mission ended.
fn real_time(
    opts: &HeadlessOptions,
    session: ClientSession,
    pilot: &mut dyn Pilot,
    started: Instant,
    mission: Option<&Mutex<Option<MissionStatus>>>,
) -> HeadlessSummary {
    let status = || {
        mission.and_then(|m| {
            m.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone()
        })
    };
    let mut ended_at: Option<Duration> = None;
    let join_timeout = session.config().handshake_timeout;
    let mut client = Client::new(session, opts.client.clone(), opts.content.clone());
    let frame = Duration::from_secs_f64(1.0 / opts.frame_rate.clamp(1.0, 1000.0));
    let limit = Duration::from_secs_f64(opts.seconds.max(0.0));
    // The session ends a join at its timeout; this only guards against a session that does not.
    let hard_limit = limit.max(join_timeout) + Duration::from_secs(5);
    loop {
        let now = started.elapsed();
        client.frame(now, pilot);
        let joining = matches!(
            client.session().state(),
            SessionState::Connecting | SessionState::Handshaking
        );
        if status().is_some_and(|m| m.state != MissionState::Running) {
            ended_at.get_or_insert(now);
        }
        if client.session().state() == SessionState::Ended
            || (now >= limit && !joining)
            || now >= hard_limit
            || ended_at.is_some_and(|t| now >= t + MISSION_END_GRACE)
        {
            break;
        }
        let spent = started.elapsed().saturating_sub(now);
        std::thread::sleep(frame.saturating_sub(spent));
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut summary = summarize(&client, opts.mode.name(), &opts.autopilot, seconds, None);
    summary.mission = status().map(|m| MissionSummary::of(&m, &client));
    client.disconnect("headless run finished");
    // One more service so the close is queued before the transport is dropped.
    client.frame(started.elapsed(), pilot);
    summary
}

//! The link-matrix harness (issue 9, section 3): the real fl-server runtime on real QUIC on
//! 127.0.0.1, in this process so its truth is known, behind the impairment relay
//! (`fl_net::impair::Relay`, one flow per client), with 1–4 real headless clients
//! (`ClientSession` over QUIC + `Client`, the loop of `headless.rs`) flying the aerobatics
//! autopilot, and AI aircraft orbiting at 250 m/s as remote interpolation targets.
//!
//! Owns the measurement: the server's truth (every aircraft's position at every tick, through
//! `fl_server::runtime::spawn_observed`), each client's per-frame render samples, snapshot
//! arrivals and counters, the relay's ground truth, and the Markdown report. What each number
//! means is written in `docs/netcode-results.md`.

#![allow(dead_code)]

use fighters_legacy::autopilot;
use fighters_legacy::bridge::PoseSource;
use fighters_legacy::client::{Client, ClientConfig};
use fighters_legacy::headless::{HeadlessSummary, summarize};
use fighters_legacy::session::{ClientSession, SessionConfig, SessionState};
use fighters_legacy::stats::{Samples, Summary};
use fl_flight::math::Vec3;
use fl_net::impair::{
    ImpairConfig, PROFILE_BLACKOUT_START_MS, Relay, RelayStats, WindowQueueDelay,
};
use fl_net::quic::{QuicServer, ServerConfig as QuicConfig, TrustPolicy};
use fl_server::server::{Server, ServerConfig};
use fl_server::types::TypeRegistry;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One server tick, s.
const TICK_S: f64 = 1.0 / 60.0;
/// The longest run the harness accepts (bounds every buffer below).
pub const MAX_SECONDS: f64 = 600.0;
/// Ticks of truth kept per entity (the longest run, plus margin).
const MAX_TRUTH_TICKS: usize = (MAX_SECONDS as usize + 30) * 60;
/// Render samples kept per client.
const MAX_RENDER_SAMPLES: usize = 4_000_000;
/// After a blackout ends, this long is "recovery": left out of the steady-state numbers
/// (snapshot rate, interpolation delay, remote error) and reported on its own.
pub const RECOVERY: Duration = Duration::from_secs(2);
/// The speed of the AI targets, m/s.
pub const TARGET_SPEED_MPS: f64 = 250.0;

/// What to run.
#[derive(Debug, Clone)]
pub struct MatrixOptions {
    /// A name from `fl_net::impair::PROFILES`.
    pub profile: String,
    /// Headless clients (each its own relay flow, its own thread).
    pub clients: usize,
    /// Wall-clock length of the run, from the relay's start (blackouts are timed from it too).
    pub seconds: f64,
    /// Steady-state numbers start this long after the relay's start (join, spawn settle,
    /// interpolation warm-up).
    pub warmup: f64,
    pub seed: u64,
    /// Client frames per second.
    pub frame_rate: f64,
    /// AI aircraft orbiting at [`TARGET_SPEED_MPS`] (remote interpolation targets).
    pub targets: usize,
}

impl MatrixOptions {
    /// The defaults for `profile`: long enough for its blackout and a recovery.
    pub fn new(profile: &str, clients: usize, seconds: f64) -> Self {
        Self {
            profile: profile.to_owned(),
            clients,
            seconds,
            warmup: 2.0,
            seed: 9,
            frame_rate: 120.0,
            targets: 1,
        }
    }
}

/// Position truth of one entity: its position after each server tick.
#[derive(Debug, Default)]
struct Track {
    first_tick: u64,
    positions: Vec<Vec3>,
}

/// The server's truth, recorded on the tick thread.
#[derive(Debug, Default)]
struct Truth {
    /// Per (pool index, low 16 bits of the generation: what the wire carries).
    tracks: BTreeMap<(u32, u16), Track>,
    /// Per peer: the lowest snapshot throttle seen after the warm-up, and snapshots sent.
    throttle_min: BTreeMap<u32, f64>,
    snapshots_sent: BTreeMap<u32, u64>,
    ticks: u64,
    first_tick: Option<u64>,
    last_tick: u64,
}

impl Truth {
    fn record(&mut self, server: &Server, measure_throttle: bool) {
        let world = server.world();
        let tick = world.tick();
        self.ticks += 1;
        self.first_tick.get_or_insert(tick);
        self.last_tick = tick;
        for (id, e) in world.iter() {
            if e.aircraft_state().is_none() {
                continue;
            }
            let key = (id.index, (id.generation & 0xFFFF) as u16);
            let track = self.tracks.entry(key).or_insert_with(|| Track {
                first_tick: tick,
                positions: Vec::new(),
            });
            // One position per tick, in order; a paused world repeats its tick (kept once).
            let next = track.first_tick + track.positions.len() as u64;
            if tick == next && track.positions.len() < MAX_TRUTH_TICKS {
                track.positions.push(e.position());
            }
        }
        if tick.is_multiple_of(30) {
            for r in server.peer_reports() {
                let peer = r.peer;
                self.snapshots_sent.insert(peer, r.snapshots.snapshots);
                if measure_throttle {
                    let m = self.throttle_min.entry(peer).or_insert(f64::INFINITY);
                    *m = m.min(r.throttle);
                }
            }
        }
    }

    /// The true position of `key` at fractional tick `rt` (linear between ticks: at 250 m/s a
    /// tick is 4 m and a 6 km orbit bends it by 0.3 mm).
    fn position_at(&self, key: (u32, u16), rt: f64) -> Option<Vec3> {
        let t = self.tracks.get(&key)?;
        let lo = rt.floor();
        if lo < t.first_tick as f64 {
            return None;
        }
        let i = (lo as u64 - t.first_tick) as usize;
        let a = *t.positions.get(i)?;
        let b = *t.positions.get(i + 1)?;
        Some(a + (b - a) * (rt - lo))
    }
}

/// One remote entity as a client drew it in one frame.
#[derive(Debug, Clone, Copy)]
struct RemoteSample {
    frame: u64,
    /// Since the relay's start, s.
    at: f64,
    render_tick: f64,
    key: (u32, u16),
    position: Vec3,
    velocity: Vec3,
    source: PoseSource,
}

/// What one client's thread brings back.
#[derive(Debug)]
struct ClientRecord {
    index: usize,
    error: Option<String>,
    summary: Option<HeadlessSummary>,
    survived: bool,
    admitted: bool,
    ended: Option<String>,
    own: Option<(u32, u16)>,
    remotes: Vec<RemoteSample>,
    /// (since the relay's start s, snapshots applied in that frame).
    arrivals: Vec<(f64, u64)>,
    /// Interpolation delay per steady frame, ms.
    delay_ms: Samples,
    /// Counters at the start of the steady window and at the end.
    at_warmup: Counters,
    at_end: Counters,
    /// At the first frame after a blackout ended.
    at_resume: Option<Counters>,
    /// Largest own correction seen in reconcile reports after the blackout ended, m.
    resume_correction_max_m: f64,
    /// Own pops before the blackout ended (the counters are restarted there), m.
    pop_before_resume_max_m: f64,
    visual_pops_before_resume: u64,
    correction_max_before_resume_m: f64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Counters {
    at: f64,
    applied: u64,
    bytes_in: u64,
    bytes_out: u64,
    compared: u64,
    corrections: u64,
    snaps: u64,
    visual_pops: u64,
}

impl Counters {
    fn of(client: &Client, at: f64) -> Self {
        let s = client.session();
        let link = s.link_stats();
        let p = &client.prediction().stats;
        Self {
            at,
            applied: s.stats().snapshots_applied,
            bytes_in: link.bytes_received,
            bytes_out: link.bytes_sent,
            compared: p.compared,
            corrections: p.corrections,
            snaps: p.snaps,
            visual_pops: client.metrics.visual_pops,
        }
    }
}

/// The results of one client.
#[derive(Debug, Clone)]
pub struct ClientResult {
    pub index: usize,
    pub admitted: bool,
    /// Still in the world at the end (no end reason).
    pub survived: bool,
    pub ended: Option<String>,
    /// Snapshots applied per second in the steady window.
    pub snapshot_hz: f64,
    /// Interpolation delay over the steady frames, ms.
    pub delay_ms: Summary,
    /// Own aircraft over the whole session (the client's spawn-settle second excluded, as the
    /// client counts it).
    pub compared: u64,
    pub corrections: u64,
    pub correction_m: Summary,
    pub own_pop_max_m: f64,
    pub visual_pops: u64,
    /// |drawn − true| at the render tick over the steady frames: the AI targets, and every
    /// other remote (the other clients' aircraft), m.
    pub target_error_m: Summary,
    pub other_error_m: Summary,
    /// Largest per-frame remote pop (see [`remote_pops`]) over the steady frames, m.
    pub remote_pop_max_m: f64,
    /// Steady-window payload rates, bytes/s.
    pub down_bps: f64,
    pub up_bps: f64,
    /// The client's own view at the end: RTT, the server's datagrams lost on the way down
    /// over the session (sequence gaps), its own packets lost on the way up (QUIC's recent
    /// view).
    pub rtt_ms: f64,
    pub loss: f64,
    pub loss_up: f64,
    /// The longest wall time between snapshot arrivals after the warm-up, ms.
    pub max_gap_ms: f64,
    /// Blackout profiles: from the path returning to the first snapshot applied, ms.
    pub resume_ms: Option<f64>,
    pub after_resume: Option<AfterResume>,
    pub summary: Option<HeadlessSummary>,
}

/// What happened after a blackout ended.
#[derive(Debug, Clone, Copy, Default)]
pub struct AfterResume {
    pub corrections: u64,
    /// Largest own correction after the path returned, m.
    pub correction_max_m: f64,
    pub own_pop_max_m: f64,
    pub visual_pops: u64,
    pub snaps: u64,
    /// Largest remote pop and remote error in the first [`RECOVERY`] after the path returned.
    pub remote_pop_max_m: f64,
    pub remote_error_max_m: f64,
}

/// The results of one profile.
#[derive(Debug, Clone)]
pub struct MatrixResult {
    pub options: MatrixOptions,
    pub clients: Vec<ClientResult>,
    pub relay: RelayStats,
    /// `(start, end)` of the blackout since the relay's start, s.
    pub blackout: Option<(f64, f64)>,
    /// Mean speed of the AI targets, m/s.
    pub target_speed_mps: f64,
    /// Lowest snapshot throttle the server's congestion controller set after the warm-up
    /// (over all peers), and the server's tick count.
    pub server_throttle_min: f64,
    pub server_ticks: u64,
    pub wall_seconds: f64,
    /// The bottleneck's queueing delay in the steady window: the largest mean over any
    /// [`QUEUE_SAMPLE`] interval, either direction, ms (the relay's own p99 and max cover the
    /// whole run, joins included).
    pub steady_queue_ms: f64,
    /// The relay's queueing delay from the end of the warm-up to the end, per direction (the
    /// relay's measurement window, restarted when the warm-up ends).
    pub window_queue: WindowQueueDelay,
}

/// How often the relay's ground truth is sampled during a run.
pub const QUEUE_SAMPLE: Duration = Duration::from_millis(250);

/// Samples of the relay's cumulative queueing-delay sums, both directions.
#[derive(Debug, Default)]
struct QueueSeries {
    /// (since the relay's start s, [(count, total ms); 2]).
    samples: Vec<(f64, [(u64, f64); 2])>,
}

impl QueueSeries {
    fn push(&mut self, at: f64, s: &RelayStats) {
        let sum = |d: &fl_net::impair::DelaySummary| (d.count, d.mean_ms * d.count as f64);
        if self.samples.len() < 1_000_000 {
            self.samples.push((
                at,
                [sum(&s.to_client.queue_delay), sum(&s.to_server.queue_delay)],
            ));
        }
    }

    /// The largest interval mean whose interval lies in the steady window, ms.
    fn steady_max_ms(&self, opts: &MatrixOptions, blackout: Option<(f64, f64)>) -> f64 {
        let mut worst = 0.0f64;
        for w in self.samples.windows(2) {
            let ((a, x), (b, y)) = (w[0], w[1]);
            if !(steady(a, opts, blackout) && steady(b, opts, blackout)) {
                continue;
            }
            for d in 0..2 {
                let n = y[d].0.saturating_sub(x[d].0);
                if n > 0 {
                    worst = worst.max((y[d].1 - x[d].1) / n as f64);
                }
            }
        }
        worst
    }
}

/// Runs one profile and measures it. Errors are set-up failures (bind, spawn, threads).
pub fn run(opts: &MatrixOptions) -> Result<MatrixResult, String> {
    if !(opts.seconds > opts.warmup && opts.seconds <= MAX_SECONDS) {
        return Err(format!(
            "seconds must be in ({}, {MAX_SECONDS}]",
            opts.warmup
        ));
    }
    if !(1..=8).contains(&opts.clients) {
        return Err("clients must be 1..=8".into());
    }
    let impair = ImpairConfig::profile(&opts.profile).map_err(|e| e.to_string())?;
    let blackout = impair.blackouts.first().map(|b| {
        let s = b.start().as_secs_f64();
        (s, s + b.duration().as_secs_f64())
    });
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let quic = QuicServer::bind(
        SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        dir.path(),
        QuicConfig::default(),
    )
    .map_err(|e| fl_net::error_chain(&e))?;
    let addr = fl_net::ServerTransport::local_addr(&quic);
    let fingerprint = quic.fingerprint();
    let types = TypeRegistry::builtin().map_err(|e| e.to_string())?;
    let mut server = Server::new(ServerConfig::default(), Box::new(quic), types);
    let mut targets = Vec::new();
    for i in 0..opts.targets {
        let id = fighters_legacy::sim::Sim::spawn_target(&mut server, i, TARGET_SPEED_MPS)
            .map_err(|e| e.to_string())?;
        targets.push((id.index, (id.generation & 0xFFFF) as u16));
    }
    let relay = Relay::start(
        SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        addr,
        &impair,
        opts.seed,
    )
    .map_err(|e| fl_net::error_chain(&e))?;
    // Blackouts are timed from the relay's start; this is within a millisecond of it.
    let t0 = Instant::now();
    let truth = Arc::new(Mutex::new(Truth::default()));
    let warmup = Duration::from_secs_f64(opts.warmup);
    let sink = {
        let truth = truth.clone();
        Box::new(move |s: &Server| {
            let measuring = t0.elapsed() >= warmup;
            if let Ok(mut t) = truth.lock() {
                t.record(s, measuring);
            }
        })
    };
    let handle = fl_server::runtime::spawn_observed(
        server,
        fl_server::runtime::RuntimeConfig::default(),
        None,
        Some(sink),
    )
    .map_err(|e| e.to_string())?;
    let to = relay.local_addr();
    let mut queue = QueueSeries::default();
    let records: Vec<ClientRecord> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..opts.clients)
            .map(|i| {
                let opts = opts.clone();
                scope.spawn(move || fly(i, to, fingerprint, &opts, t0, blackout))
            })
            .collect();
        // The relay's queueing, sampled while the clients fly (bounded: the clients stop at
        // `seconds`, and this gives up a minute later).
        let give_up = Duration::from_secs_f64(opts.seconds + 60.0);
        let mut window_started = false;
        while threads.iter().any(|t| !t.is_finished()) && t0.elapsed() < give_up {
            std::thread::sleep(QUEUE_SAMPLE);
            if !window_started && t0.elapsed() >= warmup {
                relay.restart_window();
                window_started = true;
            }
            queue.push(t0.elapsed().as_secs_f64(), &relay.stats());
        }
        threads
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                t.join()
                    .unwrap_or_else(|_| ClientRecord::failed(i, "client thread panicked"))
            })
            .collect()
    });
    let wall_seconds = t0.elapsed().as_secs_f64();
    drop(handle);
    let relay_stats = relay.stats();
    let window_queue = relay.window_queue_delay();
    drop(relay);
    let truth = match Arc::try_unwrap(truth) {
        Ok(m) => m.into_inner().unwrap_or_else(|p| p.into_inner()),
        Err(_) => return Err("the truth recorder is still shared".into()),
    };
    let target_speed_mps = target_speed(&truth, &targets);
    let clients = records
        .into_iter()
        .map(|r| analyse(r, &truth, &targets, opts, blackout))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(MatrixResult {
        options: opts.clone(),
        clients,
        relay: relay_stats,
        blackout,
        target_speed_mps,
        server_throttle_min: truth
            .throttle_min
            .values()
            .copied()
            .fold(f64::INFINITY, f64::min),
        server_ticks: truth.ticks,
        wall_seconds,
        steady_queue_ms: queue.steady_max_ms(opts, blackout),
        window_queue,
    })
}

fn target_speed(truth: &Truth, targets: &[(u32, u16)]) -> f64 {
    let mut s = Samples::default();
    for k in targets {
        if let Some(t) = truth.tracks.get(k) {
            for w in t.positions.windows(2) {
                s.push((w[1] - w[0]).length() / TICK_S);
            }
        }
    }
    s.mean()
}

impl ClientRecord {
    fn failed(index: usize, why: &str) -> Self {
        Self {
            index,
            error: Some(why.to_owned()),
            summary: None,
            survived: false,
            admitted: false,
            ended: None,
            own: None,
            remotes: Vec::new(),
            arrivals: Vec::new(),
            delay_ms: Samples::default(),
            at_warmup: Counters::default(),
            at_end: Counters::default(),
            at_resume: None,
            resume_correction_max_m: 0.0,
            pop_before_resume_max_m: 0.0,
            visual_pops_before_resume: 0,
            correction_max_before_resume_m: 0.0,
        }
    }
}

/// Whether `at` (s since the relay's start) is in the steady window.
fn steady(at: f64, opts: &MatrixOptions, blackout: Option<(f64, f64)>) -> bool {
    at >= opts.warmup
        && at <= opts.seconds
        && blackout.is_none_or(|(s, e)| at < s || at >= e + RECOVERY.as_secs_f64())
}

/// One headless client: connects through the relay, flies aerobatics at `frame_rate` until
/// `seconds` after the relay's start, recording what it drew.
fn fly(
    index: usize,
    to: SocketAddr,
    fingerprint: fl_net::quic::Fingerprint,
    opts: &MatrixOptions,
    t0: Instant,
    blackout: Option<(f64, f64)>,
) -> ClientRecord {
    let mut rec = ClientRecord::failed(index, "");
    rec.error = None;
    let Some(mut pilot) = autopilot::by_name("aerobatics") else {
        return ClientRecord::failed(index, "no aerobatics autopilot");
    };
    let started = Instant::now();
    let session = match ClientSession::connect_quic(
        to,
        "localhost",
        TrustPolicy::Pinned(fingerprint),
        SessionConfig {
            callsign: format!("matrix-{index}"),
            ..SessionConfig::default()
        },
        Duration::ZERO,
    ) {
        Ok(s) => s,
        Err(e) => return ClientRecord::failed(index, &fl_net::error_chain(&e)),
    };
    let mut client = Client::new(session, ClientConfig::default(), None);
    let frame_period = Duration::from_secs_f64(1.0 / opts.frame_rate.clamp(1.0, 1000.0));
    let end = Duration::from_secs_f64(opts.seconds);
    let mut frame_no = 0u64;
    let mut last_applied = 0u64;
    let mut last_reconcile_tick = None;
    let mut warm = false;
    loop {
        let now = started.elapsed();
        let at = t0.elapsed().as_secs_f64();
        let resumed = blackout.is_some_and(|(_, e)| at >= e);
        if resumed && rec.at_resume.is_none() {
            // Restart the own-pop counters so "after resume" is measured on its own.
            rec.at_resume = Some(Counters::of(&client, at));
            rec.pop_before_resume_max_m = client.metrics.own_pop_m.max();
            rec.visual_pops_before_resume = client.metrics.visual_pops;
            rec.correction_max_before_resume_m = client.prediction().stats.correction_m.max();
            client.metrics.own_pop_m = Samples::default();
        }
        let frame = client.frame(now, pilot.as_mut());
        frame_no += 1;
        if let Some(rt) = frame.render_tick
            && rec.remotes.len() < MAX_RENDER_SAMPLES
        {
            for e in frame.entities.iter().filter(|e| !e.own) {
                rec.remotes.push(RemoteSample {
                    frame: frame_no,
                    at,
                    render_tick: rt,
                    key: (e.idx, e.generation),
                    position: e.position,
                    velocity: e.velocity,
                    source: e.source,
                });
            }
        }
        let applied = client.session().stats().snapshots_applied;
        if applied > last_applied && rec.arrivals.len() < MAX_RENDER_SAMPLES {
            rec.arrivals.push((at, applied - last_applied));
        }
        last_applied = applied;
        if let Some(r) = client.metrics.last_reconcile
            && last_reconcile_tick != Some(r.tick)
        {
            last_reconcile_tick = Some(r.tick);
            if resumed && r.compared && !r.settling {
                rec.resume_correction_max_m = rec.resume_correction_max_m.max(r.error_m);
            }
        }
        if !warm && at >= opts.warmup {
            warm = true;
            rec.at_warmup = Counters::of(&client, at);
        }
        if warm && steady(at, opts, blackout) {
            rec.delay_ms
                .push(client.bridge().delay().as_secs_f64() * 1000.0);
        }
        if let Some(o) = client.session().own_entity() {
            rec.own = Some((o.idx, (o.generation & 0xFFFF) as u16));
        }
        if client.session().state() == SessionState::Ended || now >= end {
            break;
        }
        let spent = started.elapsed().saturating_sub(now);
        std::thread::sleep(frame_period.saturating_sub(spent));
    }
    let at = t0.elapsed().as_secs_f64();
    rec.at_end = Counters::of(&client, at);
    rec.admitted = client.session().admission().is_some();
    rec.ended = client.end_reason().map(|e| e.message());
    rec.survived = rec.admitted && rec.ended.is_none();
    rec.summary = Some(summarize(
        &client,
        "matrix",
        "aerobatics",
        started.elapsed().as_secs_f64(),
        None,
    ));
    client.disconnect("link matrix run finished");
    client.frame(started.elapsed(), pilot.as_mut());
    rec
}

/// Per-frame remote pops: for one entity drawn in two consecutive frames, how far its drawn
/// position moved beyond what its drawn velocity explains over the render clock's advance,
/// `|Δp − ½(v₀ + v₁)·Δt_render|` (smooth motion, the render clock running a little fast or
/// slow, are not pops; a jump of the position or of the render clock is). Frames where it is
/// held both times (frozen on purpose: an outage) are left out. Returns `(at, pop)`.
fn remote_pops(samples: &[RemoteSample]) -> Vec<(f64, f64)> {
    let mut last: BTreeMap<(u32, u16), RemoteSample> = BTreeMap::new();
    let mut out = Vec::new();
    for s in samples {
        if let Some(p) = last.get(&s.key)
            && p.frame + 1 == s.frame
            && !(p.source == PoseSource::Held && s.source == PoseSource::Held)
        {
            let dt = (s.render_tick - p.render_tick) * TICK_S;
            let moved = s.position - p.position;
            let expected = (p.velocity + s.velocity) * (0.5 * dt);
            out.push((s.at, (moved - expected).length()));
        }
        last.insert(s.key, *s);
    }
    out
}

fn analyse(
    r: ClientRecord,
    truth: &Truth,
    targets: &[(u32, u16)],
    opts: &MatrixOptions,
    blackout: Option<(f64, f64)>,
) -> Result<ClientResult, String> {
    if let Some(e) = &r.error {
        return Err(format!("client {}: {e}", r.index));
    }
    let mut target_err = Samples::default();
    let mut other_err = Samples::default();
    let mut resume_err = 0.0f64;
    for s in &r.remotes {
        let Some(t) = truth.position_at(s.key, s.render_tick) else {
            continue;
        };
        let err = (s.position - t).length();
        if steady(s.at, opts, blackout) {
            if targets.contains(&s.key) {
                target_err.push(err);
            } else {
                other_err.push(err);
            }
        }
        if let Some((_, e)) = blackout
            && s.at >= e
            && s.at < e + RECOVERY.as_secs_f64()
        {
            resume_err = resume_err.max(err);
        }
    }
    let pops = remote_pops(&r.remotes);
    // Steady frames only: an aircraft appearing (held, then interpolated) is not a pop; the
    // frames after a blackout are reported on their own.
    let remote_pop_max_m = pops
        .iter()
        .filter(|(at, _)| steady(*at, opts, blackout))
        .map(|p| p.1)
        .fold(0.0, f64::max);
    let steady_secs: f64 = {
        let total = (r.at_end.at.min(opts.seconds) - opts.warmup).max(0.0);
        let cut = blackout.map_or(0.0, |(s, e)| {
            let a = s.max(opts.warmup);
            let b = (e + RECOVERY.as_secs_f64()).min(r.at_end.at);
            (b - a).max(0.0)
        });
        (total - cut).max(1e-9)
    };
    let steady_snaps: u64 = r
        .arrivals
        .iter()
        .filter(|(at, _)| steady(*at, opts, blackout))
        .map(|(_, n)| n)
        .sum();
    let max_gap_ms = r
        .arrivals
        .windows(2)
        .filter(|w| w[0].0 >= opts.warmup)
        .map(|w| (w[1].0 - w[0].0) * 1000.0)
        .fold(0.0, f64::max);
    let resume_ms = blackout.and_then(|(_, e)| {
        r.arrivals
            .iter()
            .find(|(at, _)| *at >= e)
            .map(|(at, _)| (at - e) * 1000.0)
    });
    let summary = r.summary.clone();
    let (correction_m, own_pop_post, visual_pops_total, rtt_ms, loss, loss_up) = match &summary {
        Some(s) => (
            s.prediction.correction_m,
            s.render.own_pop_m.max,
            s.render.visual_pops,
            s.network.rtt_ms,
            s.network.loss,
            s.network.loss_up,
        ),
        None => (Summary::default(), 0.0, 0, 0.0, 0.0, 0.0),
    };
    let after_resume = r.at_resume.map(|c| {
        let end = r.at_end;
        let grew = correction_m.max > r.correction_max_before_resume_m;
        AfterResume {
            corrections: end.corrections - c.corrections,
            // The reconcile reports seen frame by frame, and the session's maximum when it
            // grew after the path returned (then it was set after it).
            correction_max_m: if grew {
                correction_m.max.max(r.resume_correction_max_m)
            } else {
                r.resume_correction_max_m
            },
            own_pop_max_m: own_pop_post,
            visual_pops: end.visual_pops - c.visual_pops,
            snaps: end.snaps - c.snaps,
            remote_pop_max_m: blackout.map_or(0.0, |(_, e)| {
                pops.iter()
                    .filter(|(at, _)| *at >= e && *at < e + RECOVERY.as_secs_f64())
                    .map(|p| p.1)
                    .fold(0.0, f64::max)
            }),
            remote_error_max_m: resume_err,
        }
    });
    let w = r.at_warmup;
    let e = r.at_end;
    let window = (e.at - w.at).max(1e-9);
    Ok(ClientResult {
        index: r.index,
        admitted: r.admitted,
        survived: r.survived,
        ended: r.ended,
        snapshot_hz: steady_snaps as f64 / steady_secs,
        delay_ms: r.delay_ms.summary(),
        compared: e.compared,
        corrections: e.corrections,
        correction_m,
        own_pop_max_m: own_pop_post.max(r.pop_before_resume_max_m),
        visual_pops: visual_pops_total,
        target_error_m: target_err.summary(),
        other_error_m: other_err.summary(),
        remote_pop_max_m,
        down_bps: e.bytes_in.saturating_sub(w.bytes_in) as f64 / window,
        up_bps: e.bytes_out.saturating_sub(w.bytes_out) as f64 / window,
        rtt_ms,
        loss,
        loss_up,
        max_gap_ms,
        resume_ms,
        after_resume,
        summary,
    })
}

/// The goals, and which of them a result misses (one line each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Every client admitted and still in the world at the end.
    Survives,
    /// Snapshots ≥ 55 Hz on random loss and jitter.
    SnapshotRate,
    /// Interpolation delay ≤ 80 ms (median over the steady frames).
    InterpolationDelay,
    /// Own-aircraft position corrections p99 ≤ 1 cm (no-blackout profiles).
    CorrectionP99,
    /// No rendered own pop above 5 cm (no-blackout profiles).
    OwnPop,
    /// Remote error p99 ≤ 0.5 m at 250 m/s.
    RemoteError,
    /// Bottleneck: queueing delay < 100 ms and every client ≥ 20 Hz.
    Bottleneck,
    /// Blackout: snapshots again within 1 s of the path returning.
    Resume,
}

impl Goal {
    pub const ALL: [Goal; 8] = [
        Goal::Survives,
        Goal::SnapshotRate,
        Goal::InterpolationDelay,
        Goal::CorrectionP99,
        Goal::OwnPop,
        Goal::RemoteError,
        Goal::Bottleneck,
        Goal::Resume,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Goal::Survives => "session survives",
            Goal::SnapshotRate => "snapshots >= 55 Hz",
            Goal::InterpolationDelay => "interp delay <= 80 ms",
            Goal::CorrectionP99 => "own correction p99 <= 1 cm",
            Goal::OwnPop => "own pop <= 5 cm",
            Goal::RemoteError => "remote error p99 <= 0.5 m",
            Goal::Bottleneck => "bottleneck: queue < 100 ms, >= 20 Hz each",
            Goal::Resume => "resume <= 1 s after the path returns",
        }
    }
}

impl MatrixResult {
    fn is_blackout(&self) -> bool {
        self.blackout.is_some()
    }

    fn is_bottleneck(&self) -> bool {
        self.options.profile.starts_with("bottleneck")
    }

    /// Whether `goal` applies to this profile.
    pub fn applies(&self, goal: Goal) -> bool {
        match goal {
            Goal::Survives | Goal::RemoteError => true,
            Goal::SnapshotRate | Goal::InterpolationDelay => {
                !self.is_blackout() && !self.is_bottleneck()
            }
            Goal::CorrectionP99 | Goal::OwnPop => !self.is_blackout(),
            Goal::Bottleneck => self.is_bottleneck(),
            Goal::Resume => self.is_blackout(),
        }
    }

    /// Why `goal` is missed (`None`: met or not applicable).
    pub fn miss(&self, goal: Goal) -> Option<String> {
        if !self.applies(goal) {
            return None;
        }
        let mut why = Vec::new();
        for c in &self.clients {
            let n = c.index;
            match goal {
                Goal::Survives if !c.survived => why.push(format!(
                    "client {n}: {}",
                    c.ended.as_deref().unwrap_or("not admitted")
                )),
                Goal::SnapshotRate if c.snapshot_hz < 55.0 => {
                    why.push(format!("client {n}: {:.1} Hz", c.snapshot_hz));
                }
                Goal::InterpolationDelay if c.delay_ms.p50 > 80.0 => {
                    why.push(format!("client {n}: {:.0} ms", c.delay_ms.p50));
                }
                Goal::CorrectionP99 if c.correction_m.p99 > 0.01 => {
                    why.push(format!("client {n}: p99 {:.3} m", c.correction_m.p99));
                }
                Goal::OwnPop if c.own_pop_max_m > 0.05 => {
                    why.push(format!("client {n}: {:.3} m", c.own_pop_max_m));
                }
                Goal::RemoteError if c.target_error_m.count == 0 => {
                    why.push(format!("client {n}: no target measured"));
                }
                Goal::RemoteError if c.target_error_m.p99 > 0.5 => {
                    why.push(format!("client {n}: p99 {:.2} m", c.target_error_m.p99));
                }
                Goal::Bottleneck if c.snapshot_hz < 20.0 => {
                    why.push(format!("client {n}: {:.1} Hz", c.snapshot_hz));
                }
                Goal::Resume => match c.resume_ms {
                    Some(ms) if ms <= 1000.0 => {}
                    Some(ms) => why.push(format!("client {n}: {ms:.0} ms")),
                    None => why.push(format!("client {n}: no snapshot after the blackout")),
                },
                _ => {}
            }
        }
        if goal == Goal::Bottleneck {
            // The queueing the game causes once it plays, every packet of the steady window
            // (the join's burst of tables and first full snapshots is in the relay's
            // whole-run maximum, reported beside it).
            let q = self.steady_queue_max_ms();
            if q >= 100.0 {
                why.push(format!("steady queueing delay up to {q:.0} ms"));
            }
        }
        (!why.is_empty()).then(|| why.join("; "))
    }

    /// The largest queueing delay of the steady window, either direction, ms.
    pub fn steady_queue_max_ms(&self) -> f64 {
        self.window_queue
            .to_client
            .max_ms
            .max(self.window_queue.to_server.max_ms)
    }

    /// Every missed goal, one line each.
    pub fn misses(&self) -> Vec<String> {
        Goal::ALL
            .iter()
            .filter_map(|g| self.miss(*g).map(|w| format!("{}: {w}", g.name())))
            .collect()
    }
}

fn min_by(r: &MatrixResult, f: impl Fn(&ClientResult) -> f64) -> f64 {
    r.clients.iter().map(f).fold(f64::INFINITY, f64::min)
}

fn max_by(r: &MatrixResult, f: impl Fn(&ClientResult) -> f64) -> f64 {
    r.clients.iter().map(f).fold(0.0, f64::max)
}

fn cm(m: f64) -> String {
    format!("{:.2}", m * 100.0)
}

/// The Markdown header of [`row`].
pub fn header() -> String {
    "| profile | clients | snapshots Hz (min / mean) | interp delay ms (p50 / max) | own corrections (n / compared) | own correction p99 / max cm | own pop max cm (pops > 5 cm) | remote error vs truth m (p50 / p99 / max), target ~250 m/s | other clients' error p99 m | remote pop max m | down / up B/s per client | RTT ms client (relay 2×mean) | loss down client (relay) / up client (relay) | bottleneck queue ms: steady p99 / max (worst 250 ms mean) / whole run p99 / max | server throttle min | survived |\n\
     |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        .to_owned()
}

/// One Markdown row: the worst client for each measure (min rate, max everything else).
pub fn row(r: &MatrixResult) -> String {
    let n = r.clients.len().max(1) as f64;
    let mean_hz = r.clients.iter().map(|c| c.snapshot_hz).sum::<f64>() / n;
    let relay_rtt = r.relay.to_server.delay.mean_ms + r.relay.to_client.delay.mean_ms;
    let relay_loss = |d: &fl_net::impair::DirectionStats| {
        if d.packets_in == 0 {
            0.0
        } else {
            (d.dropped_loss + d.dropped_blackout + d.dropped_queue) as f64 / d.packets_in as f64
        }
    };
    let queue =
        if r.relay.to_client.queue_delay.count > 0 || r.relay.to_server.queue_delay.count > 0 {
            format!(
                "{:.1} / {:.1} ({:.1}) / {:.1} / {:.1}",
                r.window_queue
                    .to_client
                    .p99_ms
                    .max(r.window_queue.to_server.p99_ms),
                r.steady_queue_max_ms(),
                r.steady_queue_ms,
                r.relay
                    .to_client
                    .queue_delay
                    .p99_ms
                    .max(r.relay.to_server.queue_delay.p99_ms),
                r.relay
                    .to_client
                    .queue_delay
                    .max_ms
                    .max(r.relay.to_server.queue_delay.max_ms)
            )
        } else {
            "—".to_owned()
        };
    let survived = r.clients.iter().filter(|c| c.survived).count();
    format!(
        "| `{}` | {} | {:.1} / {:.1} | {:.0} / {:.0} | {} / {} | {} / {} | {} ({}) | {:.3} / {:.3} / {:.3} | {} | {:.3} | {:.0} / {:.0} | {:.0} ({:.0}) | {:.3} ({:.3}) / {:.3} ({:.3}) | {} | {:.3} | {}/{} |\n",
        r.options.profile,
        r.clients.len(),
        min_by(r, |c| c.snapshot_hz),
        mean_hz,
        max_by(r, |c| c.delay_ms.p50),
        max_by(r, |c| c.delay_ms.max),
        r.clients.iter().map(|c| c.corrections).sum::<u64>(),
        r.clients.iter().map(|c| c.compared).sum::<u64>(),
        cm(max_by(r, |c| c.correction_m.p99)),
        cm(max_by(r, |c| c.correction_m.max)),
        cm(max_by(r, |c| c.own_pop_max_m)),
        r.clients.iter().map(|c| c.visual_pops).sum::<u64>(),
        max_by(r, |c| c.target_error_m.p50),
        max_by(r, |c| c.target_error_m.p99),
        max_by(r, |c| c.target_error_m.max),
        if r.clients.iter().any(|c| c.other_error_m.count > 0) {
            format!("{:.3}", max_by(r, |c| c.other_error_m.p99))
        } else {
            "—".to_owned()
        },
        max_by(r, |c| c.remote_pop_max_m),
        max_by(r, |c| c.down_bps),
        max_by(r, |c| c.up_bps),
        max_by(r, |c| c.rtt_ms),
        relay_rtt,
        max_by(r, |c| c.loss),
        relay_loss(&r.relay.to_client),
        max_by(r, |c| c.loss_up),
        relay_loss(&r.relay.to_server),
        queue,
        if r.server_throttle_min.is_finite() {
            r.server_throttle_min
        } else {
            f64::NAN
        },
        survived,
        r.clients.len(),
    )
}

/// The Markdown header of [`blackout_row`].
pub fn blackout_header() -> String {
    "| profile | clients | resume after the path returns ms (max) | longest snapshot gap ms | corrections after resume | largest correction after resume m | own pop max after resume m (pops > 5 cm) | snaps after resume | remote pop / error max in the 2 s after resume m | survived |\n\
     |---|---|---|---|---|---|---|---|---|---|\n"
        .to_owned()
}

/// The blackout columns (blackout profiles only).
pub fn blackout_row(r: &MatrixResult) -> Option<String> {
    r.blackout?;
    let resume = if r.clients.iter().all(|c| c.resume_ms.is_some()) {
        format!("{:.0}", max_by(r, |c| c.resume_ms.unwrap_or(0.0)))
    } else {
        "never".to_owned()
    };
    let a = |f: &dyn Fn(&AfterResume) -> f64| {
        r.clients
            .iter()
            .filter_map(|c| c.after_resume.as_ref().map(f))
            .fold(0.0, f64::max)
    };
    let survived = r.clients.iter().filter(|c| c.survived).count();
    Some(format!(
        "| `{}` | {} | {} | {:.0} | {} | {:.3} | {:.3} ({}) | {} | {:.2} / {:.2} | {}/{} |\n",
        r.options.profile,
        r.clients.len(),
        resume,
        max_by(r, |c| c.max_gap_ms),
        a(&|x| x.corrections as f64),
        a(&|x| x.correction_max_m),
        a(&|x| x.own_pop_max_m),
        a(&|x| x.visual_pops as f64),
        a(&|x| x.snaps as f64),
        a(&|x| x.remote_pop_max_m),
        a(&|x| x.remote_error_max_m),
        survived,
        r.clients.len(),
    ))
}

/// The whole report for a set of results: both tables and the missed goals.
pub fn report(results: &[MatrixResult]) -> String {
    let mut s = header();
    for r in results {
        s.push_str(&row(r));
    }
    if results.iter().any(|r| r.blackout.is_some()) {
        s.push('\n');
        s.push_str(&blackout_header());
        for r in results {
            if let Some(b) = blackout_row(r) {
                s.push_str(&b);
            }
        }
    }
    s.push('\n');
    for r in results {
        let m = r.misses();
        let _ = writeln!(
            s,
            "- `{}` ({} client(s), {:.0} s, seed {}): {}",
            r.options.profile,
            r.clients.len(),
            r.options.seconds,
            r.options.seed,
            if m.is_empty() {
                "every applicable goal met".to_owned()
            } else {
                format!("missed: {}", m.join("; "))
            }
        );
    }
    s
}

/// The blackout start of the `blackout-*` profiles, s since the relay's start.
pub fn blackout_start_s() -> f64 {
    PROFILE_BLACKOUT_START_MS as f64 / 1000.0
}

#[cfg(test)]
mod harness_tests {
    //! The harness's own arithmetic, without a network: pops, truth lookup, windows, queueing.
    use super::*;

    fn sample(frame: u64, rt: f64, x: f64, source: PoseSource) -> RemoteSample {
        RemoteSample {
            frame,
            at: frame as f64 / 120.0,
            render_tick: rt,
            key: (1, 1),
            position: Vec3::new(x, 3000.0, 0.0),
            velocity: Vec3::new(250.0, 0.0, 0.0),
            source,
        }
    }

    #[test]
    fn smooth_motion_is_no_pop_and_a_jump_is_its_size() {
        // 250 m/s, the render clock advancing half a tick per frame (120 fps).
        let step = 250.0 * 0.5 * TICK_S;
        let mut s: Vec<RemoteSample> = (0..100)
            .map(|i| sample(i, i as f64 * 0.5, i as f64 * step, PoseSource::Interpolated))
            .collect();
        let max = |s: &[RemoteSample]| remote_pops(s).iter().map(|p| p.1).fold(0.0, f64::max);
        assert!(max(&s) < 1e-9, "{}", max(&s));
        // The render clock running 20 % slow is not a pop either.
        let slow: Vec<RemoteSample> = (0..100)
            .map(|i| {
                sample(
                    i,
                    i as f64 * 0.4,
                    i as f64 * step * 0.8,
                    PoseSource::Interpolated,
                )
            })
            .collect();
        assert!(max(&slow) < 1e-9);
        for x in &mut s[50..] {
            x.position.x += 1.0;
        }
        assert!((max(&s) - 1.0).abs() < 1e-9, "{}", max(&s));
        // Held in both frames: frozen on purpose, not a pop; a gap in frames is not compared.
        let held = vec![
            sample(1, 10.0, 0.0, PoseSource::Held),
            sample(2, 10.5, 0.0, PoseSource::Held),
            sample(4, 11.5, 50.0, PoseSource::Interpolated),
        ];
        assert_eq!(remote_pops(&held).len(), 0);
    }

    #[test]
    fn truth_is_interpolated_between_ticks_and_absent_outside() {
        let mut t = Truth::default();
        t.tracks.insert(
            (3, 1),
            Track {
                first_tick: 100,
                positions: vec![Vec3::new(0.0, 0.0, 0.0), Vec3::new(4.0, 0.0, 0.0)],
            },
        );
        let p = t.position_at((3, 1), 100.25).map(|v| v.x);
        assert_eq!(p, Some(1.0));
        assert!(t.position_at((3, 1), 99.5).is_none());
        assert!(
            t.position_at((3, 1), 101.0).is_none(),
            "needs the next tick too"
        );
        assert!(
            t.position_at((3, 2), 100.25).is_none(),
            "another generation"
        );
    }

    #[test]
    fn the_steady_window_leaves_out_warmup_blackout_and_recovery() {
        let o = MatrixOptions::new("blackout-1s", 1, 12.0);
        let b = Some((5.0, 6.0));
        let at = |t: f64| steady(t, &o, b);
        assert!(!at(1.0) && at(2.0) && at(4.9));
        assert!(!at(5.0) && !at(6.5) && !at(7.9));
        assert!(at(8.0) && at(12.0) && !at(12.1));
    }

    #[test]
    fn steady_queueing_is_the_worst_interval_mean() {
        let o = MatrixOptions::new("bottleneck-1mbit", 1, 10.0);
        // (count, total ms) both directions, cumulative: in the warm-up (left out) 10 packets
        // at 500 ms, then 100 at 10 ms, then 100 at 50 ms and 10 the other way at 1 ms.
        let q = QueueSeries {
            samples: vec![
                (1.0, [(0, 0.0), (0, 0.0)]),
                (2.0, [(10, 5000.0), (0, 0.0)]),
                (3.0, [(110, 6000.0), (0, 0.0)]),
                (4.0, [(210, 11000.0), (10, 10.0)]),
            ],
        };
        assert_eq!(q.steady_max_ms(&o, None), 50.0);
    }
}

//! `ServerRuntime`: runs a [`Server`] at a fixed 60 Hz on the wall clock, on its own thread.
//! Falling behind runs catch-up ticks up to a cap; beyond it ticks are dropped (counted) —
//! bounded time dilation instead of a spiral. It takes commands (pause, resume, shutdown with a
//! countdown, admin command lines with a reply channel) between ticks without blocking them,
//! hands the server the wall clock once a second (bans expire by it), publishes metrics (tick
//! phases p50/p95/p99, tick rate, dropped ticks, per-peer bytes/s; serialized with serde as the `--metrics-json` document), and
//! on shutdown notifies peers and closes their connections. Dropping the handle stops the thread
//! and joins it.
//!
//! Owns time and threads; the server itself never reads the wall clock for simulation.

use crate::server::{Server, TickTimings};
pub use crate::stats::Percentiles;
use serde::{Serialize, Serializer};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The fixed step.
pub const TICK: Duration = Duration::from_nanos(16_666_667);
/// Tick timings kept for percentiles (one minute).
const HISTORY: usize = 3600;

/// Commands to a running server.
#[derive(Debug, Clone)]
pub enum Command {
    Pause,
    Resume,
    /// Notify peers, then stop after `seconds` (0 = now): the server's countdown
    /// ([`Server::schedule_shutdown`]) — a `MsgServerNotice` at once, then every
    /// `shutdown_warning_interval_s`, at T-60 s, and a final one with 0 seconds before the
    /// connections close. A later shutdown command replaces the countdown.
    Shutdown {
        seconds: u16,
        reason: String,
    },
    /// One admin command line (`crate::admin` grammar), run between ticks on the tick thread;
    /// the outcome goes back on `reply` (a frontend that stopped listening is ignored).
    Admin {
        line: String,
        reply: Sender<crate::admin::Outcome>,
    },
}

/// Per-peer traffic.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PeerMetrics {
    pub peer: u32,
    pub snapshots: u64,
    pub bytes: u64,
    pub bytes_per_s: f64,
    pub largest_packet: usize,
    pub throttle: f64,
}

/// One admitted participant as an operator sees it (the status page's `players[]`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PlayerMetrics {
    pub peer: u32,
    pub callsign: String,
    /// The faction's id.
    pub team: String,
    pub observer: bool,
    pub ping_ms: f64,
    /// The worse direction's recent loss, a fraction 0..=1.
    pub loss: f64,
    /// Kilobits per second sent to the player over the last metrics interval (all channels).
    pub kbps: f64,
}

/// What the runtime reports. Serializes as the `--metrics-json` document (docs/server.md):
/// the phase percentiles nest under `phases`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    /// Ticks the runtime ran (paused ones included).
    pub ticks: u64,
    pub dropped_ticks: u64,
    pub tick_hz: f64,
    pub total: Percentiles,
    pub network: Percentiles,
    pub world: Percentiles,
    pub snapshots: Percentiles,
    pub load_factor: f64,
    pub peers: Vec<PeerMetrics>,
    pub players: Vec<PlayerMetrics>,
    /// The server's recent chat lines and kills, oldest first (for the status page; not in the
    /// JSON document).
    pub recent_chat: Vec<crate::social::ChatLine>,
    pub recent_kills: Vec<crate::server::KillLine>,
    pub entities: usize,
    pub paused: bool,
    /// The world's simulation tick (stands still while paused).
    pub world_tick: u64,
    /// Seconds until a scheduled shutdown (None: none scheduled). Not in the JSON document;
    /// the dedicated server advertises it in the LAN beacon and the query reply.
    pub shutdown_seconds: Option<u32>,
}

/// The JSON document's shape (field order as written).
#[derive(Serialize)]
struct MetricsDoc<'a> {
    ticks: u64,
    dropped_ticks: u64,
    tick_hz: f64,
    load_factor: f64,
    entities: usize,
    paused: bool,
    world_tick: u64,
    phases: PhasesDoc<'a>,
    peers: &'a [PeerMetrics],
    players: &'a [PlayerMetrics],
}

#[derive(Serialize)]
struct PhasesDoc<'a> {
    total: &'a Percentiles,
    network: &'a Percentiles,
    world: &'a Percentiles,
    snapshots: &'a Percentiles,
}

impl Serialize for Metrics {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        MetricsDoc {
            ticks: self.ticks,
            dropped_ticks: self.dropped_ticks,
            tick_hz: self.tick_hz,
            load_factor: self.load_factor,
            entities: self.entities,
            paused: self.paused,
            world_tick: self.world_tick,
            phases: PhasesDoc {
                total: &self.total,
                network: &self.network,
                world: &self.world,
                snapshots: &self.snapshots,
            },
            peers: &self.peers,
            players: &self.players,
        }
        .serialize(s)
    }
}

impl Metrics {
    /// The metrics as one line of JSON (the `--metrics-json` document).
    pub fn to_json(&self) -> String {
        // Plain structs of numbers and strings: serde_json cannot fail on them (non-finite
        // numbers become `null`), but a library does not panic on the impossible either.
        serde_json::to_string(self).unwrap_or_else(|e| {
            tracing::warn!("cannot serialize the metrics: {e}");
            String::from("{}")
        })
    }
}

fn percentiles(samples: &VecDeque<Duration>) -> Percentiles {
    let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    Percentiles::of_ms(&mut ms)
}

#[derive(Debug, Default)]
struct History {
    total: VecDeque<Duration>,
    network: VecDeque<Duration>,
    world: VecDeque<Duration>,
    snapshots: VecDeque<Duration>,
    tick_starts: VecDeque<Instant>,
}

impl History {
    fn push(&mut self, t: &TickTimings, at: Instant) {
        for (q, v) in [
            (&mut self.total, t.total),
            (&mut self.network, t.network),
            (&mut self.world, t.world),
            (&mut self.snapshots, t.snapshots),
        ] {
            if q.len() == HISTORY {
                q.pop_front();
            }
            q.push_back(v);
        }
        if self.tick_starts.len() == HISTORY {
            self.tick_starts.pop_front();
        }
        self.tick_starts.push_back(at);
    }

    fn tick_hz(&self) -> f64 {
        match (self.tick_starts.front(), self.tick_starts.back()) {
            (Some(a), Some(b)) if self.tick_starts.len() > 1 && b > a => {
                (self.tick_starts.len() - 1) as f64 / (*b - *a).as_secs_f64()
            }
            _ => 0.0,
        }
    }
}

/// A callback handed every published metrics snapshot.
pub type MetricsSink = Box<dyn FnMut(&Metrics) + Send>;

/// A callback handed the server after every tick it ran, on the tick thread (tests and tools
/// record the world's truth with it: where each entity was at each tick). It runs inside the
/// tick loop, so it must be quick.
pub type TickSink = Box<dyn FnMut(&Server) + Send>;

/// Runtime settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuntimeConfig {
    /// Ticks run back to back when behind before the rest are dropped (`max_catchup_ticks`).
    pub max_catchup_ticks: u32,
    /// How often metrics are published.
    pub metrics_interval: Duration,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            max_catchup_ticks: 5,
            metrics_interval: Duration::from_secs(1),
        }
    }
}

/// Sends admin command lines to a running server from any thread. Cloneable; outlives nothing
/// (once the server stops, every call answers None).
#[derive(Debug, Clone)]
pub struct AdminClient {
    commands: Sender<Command>,
}

impl AdminClient {
    /// Runs one admin command line on the tick thread, between ticks, and waits up to `timeout`
    /// for its outcome (None: the server has stopped or did not answer in time). Only the
    /// caller waits; the tick never does.
    pub fn run(&self, line: &str, timeout: Duration) -> Option<crate::admin::Outcome> {
        let (tx, rx) = channel();
        self.commands
            .send(Command::Admin {
                line: line.to_owned(),
                reply: tx,
            })
            .ok()?;
        rx.recv_timeout(timeout).ok()
    }
}

/// A running server thread.
#[derive(Debug)]
pub struct ServerHandle {
    commands: Sender<Command>,
    stop: Arc<AtomicBool>,
    /// Set when the thread ended because a shutdown countdown ran out.
    shut_down: Arc<AtomicBool>,
    metrics: Arc<Mutex<Metrics>>,
    thread: Option<JoinHandle<()>>,
}

impl ServerHandle {
    /// Sends a command (ignored if the server has stopped).
    pub fn command(&self, c: Command) {
        let _ = self.commands.send(c);
    }

    /// Runs one admin command line on the tick thread (see [`AdminClient::run`]).
    pub fn admin(&self, line: &str, timeout: Duration) -> Option<crate::admin::Outcome> {
        self.admin_client().run(line, timeout)
    }

    /// A handle for admin frontends on other threads (the stdin console, an HTTP listener).
    pub fn admin_client(&self) -> AdminClient {
        AdminClient {
            commands: self.commands.clone(),
        }
    }

    /// Whether the thread ended because a scheduled shutdown ran out (rather than a stop).
    pub fn shut_down_by_countdown(&self) -> bool {
        self.shut_down.load(Ordering::SeqCst)
    }

    /// The latest published metrics.
    pub fn metrics(&self) -> Metrics {
        self.metrics
            .lock()
            .map(|m| m.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    /// Whether the server thread has ended.
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(|t| t.is_finished())
    }

    /// Stops the server and waits for its thread.
    pub fn stop(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            if let Some(th) = t.thread().name() {
                tracing::debug!("joining {th}");
            }
            let _ = t.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// Starts `server` on its own thread. `on_metrics` is called with every published snapshot of
/// the metrics (e.g. to write `--metrics-json`).
pub fn spawn(
    server: Server,
    cfg: RuntimeConfig,
    on_metrics: Option<MetricsSink>,
) -> std::io::Result<ServerHandle> {
    spawn_observed(server, cfg, on_metrics, None)
}

/// Called with the server, mutably, after every tick (e.g. the mission director, which stops and
/// starts missions). It runs inside the tick loop, so it must be quick, and it must not read the
/// wall clock for anything the simulation sees.
pub type TickHook = Box<dyn FnMut(&mut Server) + Send>;

/// [`spawn`], and `on_tick` is handed the server after every tick (see [`TickSink`]).
pub fn spawn_observed(
    server: Server,
    cfg: RuntimeConfig,
    on_metrics: Option<MetricsSink>,
    on_tick: Option<TickSink>,
) -> std::io::Result<ServerHandle> {
    let hook = on_tick.map(|mut f| Box::new(move |s: &mut Server| f(s)) as TickHook);
    spawn_hooked(server, cfg, on_metrics, hook)
}

/// [`spawn`], and `on_tick` may change the server after every tick (see [`TickHook`]).
pub fn spawn_hooked(
    server: Server,
    cfg: RuntimeConfig,
    on_metrics: Option<MetricsSink>,
    on_tick: Option<TickHook>,
) -> std::io::Result<ServerHandle> {
    let (tx, rx) = channel();
    let stop = Arc::new(AtomicBool::new(false));
    let shut_down = Arc::new(AtomicBool::new(false));
    let metrics = Arc::new(Mutex::new(Metrics::default()));
    let thread = {
        let stop = stop.clone();
        let shut_down = shut_down.clone();
        let metrics = metrics.clone();
        std::thread::Builder::new()
            .name("fl-server-tick".into())
            .spawn(move || {
                let flags = Flags { stop, shut_down };
                run(server, cfg, rx, flags, metrics, on_metrics, on_tick)
            })?
    };
    Ok(ServerHandle {
        commands: tx,
        stop,
        shut_down,
        metrics,
        thread: Some(thread),
    })
}

/// The thread's shared flags.
struct Flags {
    stop: Arc<AtomicBool>,
    shut_down: Arc<AtomicBool>,
}

/// The wall clock in Unix seconds (0 before 1970).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn run(
    mut server: Server,
    cfg: RuntimeConfig,
    commands: Receiver<Command>,
    flags: Flags,
    published: Arc<Mutex<Metrics>>,
    mut on_metrics: Option<MetricsSink>,
    mut on_tick: Option<TickHook>,
) {
    let mut history = History::default();
    let mut next = Instant::now();
    let mut ticks = 0u64;
    let mut dropped = 0u64;
    let Flags { stop, shut_down } = flags;
    let mut last_publish = Instant::now();
    let mut last_bytes: std::collections::BTreeMap<u32, u64> = Default::default();
    let mut last_unix = 0;
    let mut last_link_bytes: std::collections::BTreeMap<u32, u64> = Default::default();
    loop {
        // The wall clock the ban list expires by, handed over once a second.
        let unix = unix_now();
        if unix != last_unix {
            last_unix = unix;
            server.set_unix_time(unix);
        }
        loop {
            match commands.try_recv() {
                Ok(Command::Pause) => server.pause(),
                Ok(Command::Resume) => server.resume(),
                Ok(Command::Shutdown { seconds, reason }) => {
                    server.schedule_shutdown(seconds.into(), &reason, None);
                }
                Ok(Command::Admin { line, reply }) => {
                    let outcome = crate::admin::dispatch(&mut server, &line);
                    let _ = reply.send(outcome);
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    stop.store(true, Ordering::SeqCst);
                    break;
                }
            }
        }
        if server.shutdown_complete() {
            shut_down.store(true, Ordering::SeqCst);
            break;
        }
        if stop.load(Ordering::SeqCst) {
            server.broadcast_notice(0, "Server shutting down.");
            break;
        }

        let now = Instant::now();
        if now < next {
            std::thread::sleep((next - now).min(Duration::from_millis(5)));
            continue;
        }
        let behind = ((now - next).as_nanos() / TICK.as_nanos()) as u64;
        if behind > u64::from(cfg.max_catchup_ticks) {
            let skip = behind - u64::from(cfg.max_catchup_ticks);
            dropped += skip;
            next += TICK * skip as u32;
        }
        let started = Instant::now();
        let timings = server.tick();
        history.push(&timings, started);
        ticks += 1;
        next += TICK;
        if let Some(f) = on_tick.as_mut() {
            f(&mut server);
        }

        if last_publish.elapsed() >= cfg.metrics_interval {
            let elapsed = last_publish.elapsed().as_secs_f64();
            last_publish = Instant::now();
            let peers = server
                .peer_reports()
                .into_iter()
                .map(|r| {
                    let before = last_bytes.insert(r.peer, r.snapshots.bytes).unwrap_or(0);
                    PeerMetrics {
                        peer: r.peer,
                        snapshots: r.snapshots.snapshots,
                        bytes: r.snapshots.bytes,
                        bytes_per_s: r.snapshots.bytes.saturating_sub(before) as f64 / elapsed,
                        largest_packet: r.snapshots.largest_packet,
                        throttle: r.throttle,
                    }
                })
                .collect();
            let links = server.player_links();
            last_link_bytes.retain(|peer, _| links.iter().any(|l| l.peer == *peer));
            let players = links
                .into_iter()
                .map(|l| {
                    let before = last_link_bytes.insert(l.peer, l.bytes_sent).unwrap_or(0);
                    PlayerMetrics {
                        peer: l.peer,
                        callsign: l.callsign,
                        team: l.team,
                        observer: l.observer,
                        ping_ms: l.ping_ms,
                        loss: l.loss,
                        kbps: l.bytes_sent.saturating_sub(before) as f64 * 8.0 / 1000.0 / elapsed,
                    }
                })
                .collect();
            let m = Metrics {
                ticks,
                dropped_ticks: dropped,
                tick_hz: history.tick_hz(),
                total: percentiles(&history.total),
                network: percentiles(&history.network),
                world: percentiles(&history.world),
                snapshots: percentiles(&history.snapshots),
                load_factor: server.load_factor(),
                peers,
                players,
                recent_chat: server.recent_chat().cloned().collect(),
                recent_kills: server.recent_kills().cloned().collect(),
                entities: server.world().len(),
                paused: server.is_paused(),
                world_tick: server.world().tick(),
                shutdown_seconds: server.shutdown_remaining_s(),
            };
            if let Some(f) = on_metrics.as_mut() {
                f(&m);
            }
            if let Ok(mut slot) = published.lock() {
                *slot = m;
            }
        }
    }
    server.disconnect_all("Server shutting down.");
    // Give the transport a moment to flush the notices and closes before it is dropped.
    let flush_until = Instant::now() + Duration::from_millis(200);
    while Instant::now() < flush_until {
        server.tick();
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_known_samples_follow_the_nearest_rank() {
        let samples: VecDeque<Duration> = (1..=100).rev().map(Duration::from_millis).collect();
        let p = percentiles(&samples);
        let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(near(p.p50, 50.0) && near(p.p95, 95.0), "{p:?}");
        assert!(near(p.p99, 99.0) && near(p.max, 100.0), "{p:?}");
    }

    #[test]
    fn metrics_json_has_every_documented_field_and_value() {
        let phase = |base: f64| Percentiles {
            p50: base,
            p95: base + 0.25,
            p99: base + 0.5,
            max: base + 1.0,
        };
        let m = Metrics {
            ticks: 600,
            dropped_ticks: 2,
            tick_hz: 59.5,
            total: phase(4.0),
            network: phase(1.0),
            world: phase(2.0),
            snapshots: phase(3.0),
            load_factor: 0.75,
            peers: vec![PeerMetrics {
                peer: 7,
                snapshots: 590,
                bytes: 123_456,
                bytes_per_s: 2048.5,
                largest_packet: 1200,
                throttle: 1.0,
            }],
            players: vec![PlayerMetrics {
                peer: 7,
                callsign: "Viper".into(),
                team: "blue".into(),
                observer: false,
                ping_ms: 35.5,
                loss: 0.125,
                kbps: 96.0,
            }],
            recent_chat: Vec::new(),
            recent_kills: Vec::new(),
            entities: 4,
            paused: true,
            world_tick: 580,
            shutdown_seconds: Some(30),
        };
        let v: serde_json::Value = serde_json::from_str(&m.to_json()).unwrap_or_default();
        let keys = |v: &serde_json::Value| -> Vec<String> {
            v.as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default()
        };
        assert_eq!(
            keys(&v),
            [
                "ticks",
                "dropped_ticks",
                "tick_hz",
                "load_factor",
                "entities",
                "paused",
                "world_tick",
                "phases",
                "peers",
                "players"
            ]
        );
        let player = &v["players"][0];
        assert_eq!(
            keys(player),
            [
                "peer", "callsign", "team", "observer", "ping_ms", "loss", "kbps"
            ]
        );
        assert_eq!(player["callsign"], "Viper");
        assert_eq!(player["loss"], 0.125);
        assert_eq!(v["ticks"], 600);
        assert_eq!(v["dropped_ticks"], 2);
        assert_eq!(v["tick_hz"], 59.5);
        assert_eq!(v["load_factor"], 0.75);
        assert_eq!(v["entities"], 4);
        assert_eq!(v["paused"], true);
        assert_eq!(v["world_tick"], 580);
        assert_eq!(
            keys(&v["phases"]),
            ["total", "network", "world", "snapshots"]
        );
        for (name, base) in [
            ("total", 4.0),
            ("network", 1.0),
            ("world", 2.0),
            ("snapshots", 3.0),
        ] {
            let p = &v["phases"][name];
            assert_eq!(keys(p), ["p50_ms", "p95_ms", "p99_ms", "max_ms"], "{name}");
            assert_eq!(p["p50_ms"], base, "{name}");
            assert_eq!(p["p95_ms"], base + 0.25, "{name}");
            assert_eq!(p["p99_ms"], base + 0.5, "{name}");
            assert_eq!(p["max_ms"], base + 1.0, "{name}");
        }
        let peer = &v["peers"][0];
        assert_eq!(
            keys(peer),
            [
                "peer",
                "snapshots",
                "bytes",
                "bytes_per_s",
                "largest_packet",
                "throttle"
            ]
        );
        assert_eq!(peer["peer"], 7);
        assert_eq!(peer["snapshots"], 590);
        assert_eq!(peer["bytes"], 123_456);
        assert_eq!(peer["bytes_per_s"], 2048.5);
        assert_eq!(peer["largest_packet"], 1200);
        assert_eq!(peer["throttle"], 1.0);
        assert_eq!(v["peers"].as_array().map(Vec::len), Some(1));
    }
}

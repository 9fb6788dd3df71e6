//! `ServerRuntime`: runs a [`Server`] at a fixed 60 Hz on the wall clock, on its own thread.
//! Falling behind runs catch-up ticks up to a cap; beyond it ticks are dropped (counted) —
//! bounded time dilation instead of a spiral. It takes commands (pause, resume, shutdown with a
//! countdown) without blocking the tick, publishes metrics (tick phases p50/p95/p99, tick rate,
//! dropped ticks, per-peer bytes/s), and on shutdown notifies peers and closes their connections.
//! Dropping the handle stops the thread and joins it.
//!
//! Owns time and threads; the server itself never reads the wall clock for simulation.

use crate::server::{Server, TickTimings};
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
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Pause,
    Resume,
    /// Notify peers, then stop after `seconds` (0 = now).
    Shutdown {
        seconds: u16,
        reason: String,
    },
}

/// Percentiles of one phase, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Percentiles {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// Per-peer traffic.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PeerMetrics {
    pub peer: u32,
    pub snapshots: u64,
    pub bytes: u64,
    pub bytes_per_s: f64,
    pub largest_packet: usize,
    pub throttle: f64,
}

/// What the runtime reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    pub ticks: u64,
    pub dropped_ticks: u64,
    pub tick_hz: f64,
    pub total: Percentiles,
    pub network: Percentiles,
    pub world: Percentiles,
    pub snapshots: Percentiles,
    pub load_factor: f64,
    pub peers: Vec<PeerMetrics>,
    pub entities: usize,
    pub paused: bool,
}

impl Metrics {
    /// The metrics as a JSON object (hand-built: the library carries no JSON dependency).
    pub fn to_json(&self) -> String {
        let p = |x: &Percentiles| {
            format!(
                "{{\"p50_ms\":{:.4},\"p95_ms\":{:.4},\"p99_ms\":{:.4},\"max_ms\":{:.4}}}",
                x.p50, x.p95, x.p99, x.max
            )
        };
        let peers: Vec<String> = self
            .peers
            .iter()
            .map(|m| {
                format!(
                    "{{\"peer\":{},\"snapshots\":{},\"bytes\":{},\"bytes_per_s\":{:.1},\"largest_packet\":{},\"throttle\":{:.3}}}",
                    m.peer, m.snapshots, m.bytes, m.bytes_per_s, m.largest_packet, m.throttle
                )
            })
            .collect();
        format!(
            "{{\"ticks\":{},\"dropped_ticks\":{},\"tick_hz\":{:.2},\"load_factor\":{:.3},\"entities\":{},\"paused\":{},\"phases\":{{\"total\":{},\"network\":{},\"world\":{},\"snapshots\":{}}},\"peers\":[{}]}}",
            self.ticks,
            self.dropped_ticks,
            self.tick_hz,
            self.load_factor,
            self.entities,
            self.paused,
            p(&self.total),
            p(&self.network),
            p(&self.world),
            p(&self.snapshots),
            peers.join(",")
        )
    }
}

fn percentiles(samples: &VecDeque<Duration>) -> Percentiles {
    if samples.is_empty() {
        return Percentiles::default();
    }
    let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    Percentiles {
        p50: at(0.5),
        p95: at(0.95),
        p99: at(0.99),
        max: ms[ms.len() - 1],
    }
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

/// A running server thread.
#[derive(Debug)]
pub struct ServerHandle {
    commands: Sender<Command>,
    stop: Arc<AtomicBool>,
    metrics: Arc<Mutex<Metrics>>,
    thread: Option<JoinHandle<()>>,
}

impl ServerHandle {
    /// Sends a command (ignored if the server has stopped).
    pub fn command(&self, c: Command) {
        let _ = self.commands.send(c);
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
    let (tx, rx) = channel();
    let stop = Arc::new(AtomicBool::new(false));
    let metrics = Arc::new(Mutex::new(Metrics::default()));
    let thread = {
        let stop = stop.clone();
        let metrics = metrics.clone();
        std::thread::Builder::new()
            .name("fl-server-tick".into())
            .spawn(move || run(server, cfg, rx, stop, metrics, on_metrics))?
    };
    Ok(ServerHandle {
        commands: tx,
        stop,
        metrics,
        thread: Some(thread),
    })
}

fn run(
    mut server: Server,
    cfg: RuntimeConfig,
    commands: Receiver<Command>,
    stop: Arc<AtomicBool>,
    published: Arc<Mutex<Metrics>>,
    mut on_metrics: Option<MetricsSink>,
) {
    let mut history = History::default();
    let mut next = Instant::now();
    let mut ticks = 0u64;
    let mut dropped = 0u64;
    let mut shutdown_at: Option<(Instant, String)> = None;
    let mut last_notice: Option<Instant> = None;
    let mut last_publish = Instant::now();
    let mut last_bytes: std::collections::BTreeMap<u32, u64> = Default::default();
    loop {
        loop {
            match commands.try_recv() {
                Ok(Command::Pause) => server.pause(),
                Ok(Command::Resume) => server.resume(),
                Ok(Command::Shutdown { seconds, reason }) => {
                    server.broadcast_notice(seconds, &shutdown_text(&reason, seconds));
                    shutdown_at =
                        Some((Instant::now() + Duration::from_secs(seconds.into()), reason));
                    last_notice = Some(Instant::now());
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    stop.store(true, Ordering::SeqCst);
                    break;
                }
            }
        }
        if let Some((at, reason)) = &shutdown_at {
            let now = Instant::now();
            if now >= *at {
                server.broadcast_notice(0, &shutdown_text(reason, 0));
                break;
            }
            if last_notice.is_none_or(|l| now - l >= Duration::from_secs(60)) {
                let left = (*at - now).as_secs().min(u64::from(u16::MAX)) as u16;
                server.broadcast_notice(left, &shutdown_text(reason, left));
                last_notice = Some(now);
            }
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
                entities: server.world().len(),
                paused: server.is_paused(),
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

fn shutdown_text(reason: &str, seconds: u16) -> String {
    let when = if seconds == 0 {
        "shutting down now.".to_owned()
    } else if seconds.is_multiple_of(60) {
        format!("shutting down in {} minutes.", seconds / 60)
    } else {
        format!("shutting down in {seconds} seconds.")
    };
    if reason.is_empty() {
        format!("Server {when}")
    } else {
        format!("{reason} -- {when}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_known_samples() {
        let samples: VecDeque<Duration> = (1..=100).map(Duration::from_millis).collect();
        let p = percentiles(&samples);
        assert_eq!((p.p50.round(), p.p99.round(), p.max), (51.0, 99.0, 100.0));
    }

    #[test]
    fn shutdown_texts() {
        assert_eq!(shutdown_text("", 0), "Server shutting down now.");
        assert_eq!(
            shutdown_text("Patch 1.2", 300),
            "Patch 1.2 -- shutting down in 5 minutes."
        );
    }

    #[test]
    fn metrics_json_is_well_formed_enough() {
        let m = Metrics {
            peers: vec![PeerMetrics::default()],
            ..Metrics::default()
        };
        let j = m.to_json();
        assert!(j.starts_with('{') && j.ends_with('}'));
        assert!(j.contains("\"p99_ms\"") && j.contains("\"dropped_ticks\":0"));
    }
}

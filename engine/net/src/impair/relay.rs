//! The relay's thread: receives on loopback sockets, asks each direction's model what to do,
//! keeps the delivered copies in a binary heap of due times and sends each when it is due.
//!
//! One std thread, non-blocking sockets: it drains every socket, sends what is due, then
//! sleeps to the next due time but at most [`POLL`] (so a packet's arrival is stamped within
//! about a millisecond; the delay figures in the stats are measured, not assumed).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::io::ErrorKind;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::model::{DirectionModel, DropReason, Verdict};
use super::stats::{DelaySummary, DirectionStats, Histogram, RelayStats};
use super::{ImpairConfig, RelayError};

/// The longest the thread sleeps without looking at its sockets.
const POLL: Duration = Duration::from_millis(1);
/// The most client addresses one relay serves (each has an upstream socket).
pub const MAX_FLOWS: usize = 256;
/// The most copies scheduled at once, both directions together (bounded memory).
pub const MAX_IN_FLIGHT: usize = 65_536;
/// Packets drained per socket per pass, so one flooding socket cannot starve the rest.
const DRAIN_BATCH: usize = 256;
/// Room for any UDP payload.
const BUF: usize = 65_536;

/// Starts relays.
#[derive(Debug)]
pub struct Relay;

impl Relay {
    /// Binds `listen` (loopback only; port 0 picks one) and forwards each client's packets to
    /// `upstream` (loopback only) from a socket of its own, applying `config`; `seed` fixes
    /// every random decision. The relay runs on its own thread until the handle is dropped.
    pub fn start(
        listen: SocketAddr,
        upstream: SocketAddr,
        config: &ImpairConfig,
        seed: u64,
    ) -> Result<RelayHandle, RelayError> {
        for a in [listen, upstream] {
            if !a.ip().is_loopback() {
                return Err(RelayError::NotLoopback(a));
            }
        }
        if listen.is_ipv4() != upstream.is_ipv4() {
            return Err(RelayError::MixedFamilies { listen, upstream });
        }
        config.validate()?;
        let socket = UdpSocket::bind(listen).map_err(|source| RelayError::Bind {
            addr: listen,
            source,
        })?;
        let local = socket.local_addr().map_err(|source| RelayError::Bind {
            addr: listen,
            source,
        })?;
        socket
            .set_nonblocking(true)
            .map_err(|source| RelayError::Bind {
                addr: listen,
                source,
            })?;
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Mutex::new(Truth::new()));
        let mut state = State {
            start: Instant::now(),
            listen: socket,
            upstream,
            flows: Vec::new(),
            by_client: HashMap::new(),
            dirs: [
                Dir::new(DirectionModel::new(
                    config.to_server.clone(),
                    config.blackouts.clone(),
                    mix(seed, 1),
                )),
                Dir::new(DirectionModel::new(
                    config.to_client.clone(),
                    config.blackouts.clone(),
                    mix(seed, 2),
                )),
            ],
            heap: BinaryHeap::new(),
            next_seq: 0,
            shared: Arc::clone(&shared),
        };
        let thread_stop = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("fl-impair-relay".into())
            .spawn(move || state.run(&thread_stop))
            .map_err(RelayError::Thread)?;
        tracing::debug!(%local, %upstream, seed, "impairment relay started");
        Ok(RelayHandle {
            local,
            stop,
            stats: shared,
            thread: Some(thread),
        })
    }
}

/// A running relay; dropping it stops the thread (within about a millisecond).
pub struct RelayHandle {
    local: SocketAddr,
    stop: Arc<AtomicBool>,
    stats: Arc<Mutex<Truth>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for RelayHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelayHandle")
            .field("local", &self.local)
            .finish_non_exhaustive()
    }
}

impl RelayHandle {
    /// The address clients send to.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The ground truth so far (refreshed by the thread after every pass).
    pub fn stats(&self) -> RelayStats {
        let t = match self.stats.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        let snapshot = |d: &DirTruth| {
            let mut s = d.stats;
            s.delay = d.delay.summary();
            s.queue_delay = d.queue_delay.summary();
            s
        };
        RelayStats {
            to_server: snapshot(&t.dirs[TO_SERVER]),
            to_client: snapshot(&t.dirs[TO_CLIENT]),
            flows: t.flows,
            refused_flow_packets: t.refused_flow_packets,
        }
    }
}

impl RelayHandle {
    /// Starts a new measurement window for [`RelayHandle::window_queue_delay`] (a tool's
    /// warm-up ends: joins and first baselines are not what a steady state queues).
    pub fn restart_window(&self) {
        let mut t = match self.stats.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        for d in &mut t.dirs {
            d.window_queue_delay = Histogram::new();
        }
    }

    /// The bottleneck's queueing delay since the last [`RelayHandle::restart_window`] (or
    /// the start), per direction.
    pub fn window_queue_delay(&self) -> WindowQueueDelay {
        let t = match self.stats.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        WindowQueueDelay {
            to_server: t.dirs[TO_SERVER].window_queue_delay.summary(),
            to_client: t.dirs[TO_CLIENT].window_queue_delay.summary(),
        }
    }
}

/// Queueing delay at the bottleneck over a measurement window, per direction.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct WindowQueueDelay {
    pub to_server: DelaySummary,
    pub to_client: DelaySummary,
}

impl Drop for RelayHandle {
    fn drop(&mut self) {
        self.stop.store(true, AtomicOrdering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Derives a direction's seed from the relay's (SplitMix64 finaliser).
fn mix(seed: u64, lane: u64) -> u64 {
    let mut z = seed ^ lane.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Flow {
    client: SocketAddr,
    upstream: UdpSocket,
}

/// A direction's model and ordering state (owned by the thread).
struct Dir {
    model: DirectionModel,
    /// The highest arrival sequence already sent (for the reorder count).
    highest_sent: Option<u64>,
    arrivals: u64,
}

impl Dir {
    fn new(model: DirectionModel) -> Self {
        Dir {
            model,
            highest_sent: None,
            arrivals: 0,
        }
    }
}

/// A direction's counters and histograms (shared with the handle; summaries are computed
/// only when asked for).
struct DirTruth {
    stats: DirectionStats,
    delay: Histogram,
    queue_delay: Histogram,
    /// Queueing delay since the last [`RelayHandle::restart_window`].
    window_queue_delay: Histogram,
}

/// Everything [`RelayHandle::stats`] reports.
struct Truth {
    dirs: [DirTruth; 2],
    flows: u64,
    refused_flow_packets: u64,
}

impl Truth {
    fn new() -> Self {
        let dir = || DirTruth {
            stats: DirectionStats::default(),
            delay: Histogram::new(),
            queue_delay: Histogram::new(),
            window_queue_delay: Histogram::new(),
        };
        Truth {
            dirs: [dir(), dir()],
            flows: 0,
            refused_flow_packets: 0,
        }
    }
}

const TO_SERVER: usize = 0;
const TO_CLIENT: usize = 1;

/// A copy waiting for its time.
struct Due {
    at: Instant,
    seq: u64,
    dir: usize,
    flow: usize,
    arrived: Instant,
    arrival: u64,
    payload: Vec<u8>,
}

// Min-heap on (due time, scheduling order): equal times leave in the order scheduled.
impl Ord for Due {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}
impl PartialOrd for Due {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Due {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl Eq for Due {}

struct State {
    start: Instant,
    listen: UdpSocket,
    upstream: SocketAddr,
    flows: Vec<Flow>,
    by_client: HashMap<SocketAddr, usize>,
    dirs: [Dir; 2],
    heap: BinaryHeap<Due>,
    next_seq: u64,
    shared: Arc<Mutex<Truth>>,
}

impl State {
    fn run(&mut self, stop: &AtomicBool) {
        let mut buf = vec![0u8; BUF];
        while !stop.load(AtomicOrdering::Relaxed) {
            self.drain_listen(&mut buf);
            for f in 0..self.flows.len() {
                self.drain_upstream(f, &mut buf);
            }
            self.send_due();
            let now = Instant::now();
            let wait = self
                .heap
                .peek()
                .map_or(POLL, |d| d.at.saturating_duration_since(now).min(POLL));
            if !wait.is_zero() {
                std::thread::sleep(wait);
            }
        }
        tracing::debug!(local = ?self.listen.local_addr().ok(), "impairment relay stopped");
    }

    fn truth(&self) -> std::sync::MutexGuard<'_, Truth> {
        match self.shared.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    fn drain_listen(&mut self, buf: &mut [u8]) {
        for _ in 0..DRAIN_BATCH {
            let (n, from) = match self.listen.recv_from(buf) {
                Ok(x) => x,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                // ICMP errors surface here on some systems; the next packet may be fine.
                Err(_) => continue,
            };
            let now = Instant::now();
            let Some(flow) = self.flow_for(from) else {
                self.truth().refused_flow_packets += 1;
                continue;
            };
            self.admit(TO_SERVER, flow, now, &buf[..n]);
        }
    }

    fn drain_upstream(&mut self, f: usize, buf: &mut [u8]) {
        for _ in 0..DRAIN_BATCH {
            let Some(flow) = self.flows.get(f) else {
                return;
            };
            let n = match flow.upstream.recv(buf) {
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(_) => continue,
            };
            let now = Instant::now();
            self.admit(TO_CLIENT, f, now, &buf[..n]);
        }
    }

    /// The flow of a client address, creating it (and its upstream socket) if there is room.
    fn flow_for(&mut self, client: SocketAddr) -> Option<usize> {
        if let Some(i) = self.by_client.get(&client) {
            return Some(*i);
        }
        if self.flows.len() >= MAX_FLOWS {
            return None;
        }
        let any = if self.upstream.is_ipv4() {
            IpAddr::V4(Ipv4Addr::LOCALHOST)
        } else {
            IpAddr::V6(Ipv6Addr::LOCALHOST)
        };
        let socket = UdpSocket::bind(SocketAddr::new(any, 0)).ok()?;
        socket.connect(self.upstream).ok()?;
        socket.set_nonblocking(true).ok()?;
        self.flows.push(Flow {
            client,
            upstream: socket,
        });
        let i = self.flows.len() - 1;
        self.by_client.insert(client, i);
        self.truth().flows = self.flows.len() as u64;
        Some(i)
    }

    fn admit(&mut self, dir: usize, flow: usize, now: Instant, payload: &[u8]) {
        let at = now.saturating_duration_since(self.start);
        let d = &mut self.dirs[dir];
        let arrival = d.arrivals;
        d.arrivals += 1;
        let verdict = d.model.decide(at, payload.len());
        let max_queue = d.model.max_queue_bytes;
        let bottleneck = d.model.has_bottleneck();
        let shared = Arc::clone(&self.shared);
        let mut truth = match shared.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        let t = &mut truth.dirs[dir];
        t.stats.packets_in += 1;
        t.stats.bytes_in += payload.len() as u64;
        t.stats.max_queue_bytes = max_queue;
        let (delay, duplicate, queued) = match verdict {
            Verdict::Dropped(DropReason::Loss) => {
                t.stats.dropped_loss += 1;
                return;
            }
            Verdict::Dropped(DropReason::Blackout) => {
                t.stats.dropped_blackout += 1;
                return;
            }
            Verdict::Dropped(DropReason::Queue) => {
                t.stats.dropped_queue += 1;
                return;
            }
            Verdict::Deliver {
                delay,
                duplicate,
                queued,
            } => (delay, duplicate, queued),
        };
        if bottleneck {
            t.queue_delay.record(queued);
            t.window_queue_delay.record(queued);
        }
        for (k, c) in [Some(delay), duplicate].into_iter().flatten().enumerate() {
            if k > 0 {
                t.stats.duplicated += 1;
            }
            if self.heap.len() >= MAX_IN_FLIGHT {
                t.stats.dropped_overflow += 1;
                continue;
            }
            t.stats.in_flight += 1;
            self.next_seq += 1;
            self.heap.push(Due {
                at: now + c,
                seq: self.next_seq,
                dir,
                flow,
                arrived: now,
                arrival,
                payload: payload.to_vec(),
            });
        }
    }

    fn send_due(&mut self) {
        while self.heap.peek().is_some_and(|d| d.at <= Instant::now()) {
            let Some(due) = self.heap.pop() else { break };
            let Some(flow) = self.flows.get(due.flow) else {
                continue;
            };
            let sent = if due.dir == TO_SERVER {
                flow.upstream.send(&due.payload)
            } else {
                self.listen.send_to(&due.payload, flow.client)
            };
            let d = &mut self.dirs[due.dir];
            let reordered = match d.highest_sent {
                Some(h) if due.arrival < h => true,
                _ => {
                    d.highest_sent = Some(due.arrival);
                    false
                }
            };
            let shared = Arc::clone(&self.shared);
            let mut truth = match shared.lock() {
                Ok(t) => t,
                Err(poisoned) => poisoned.into_inner(),
            };
            let t = &mut truth.dirs[due.dir];
            t.stats.in_flight = t.stats.in_flight.saturating_sub(1);
            match sent {
                Ok(_) => {
                    t.stats.packets_out += 1;
                    t.stats.bytes_out += due.payload.len() as u64;
                    t.delay
                        .record(Instant::now().saturating_duration_since(due.arrived));
                    if reordered {
                        t.stats.reordered += 1;
                    }
                }
                Err(_) => t.stats.send_errors += 1,
            }
        }
    }
}

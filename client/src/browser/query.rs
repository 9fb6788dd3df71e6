//! Server-info queries: `MsgServerQuery` to a server's query port and its `MsgServerInfo`
//! reply, matched by nonce and source address, with the ping measured by this client.
//!
//! Owns: the query sockets (one per address family, bound on first use), one small receiver
//! thread per socket that stamps each reply's arrival time (so the ping is not rounded up to
//! the next frame) and hands it over a bounded channel, the queries in flight and the last
//! answer per target. Must not: block the caller, query faster than its rate limits, or keep
//! more than a bounded number of targets, queries and unread replies.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hasher};
use std::net::{IpAddr, Ipv6Addr, SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use fl_protocol::enums::game_mode;
use fl_protocol::ids::PROTOCOL_VERSION;
use fl_protocol::msg::discovery::ServerQuery;
use fl_protocol::{Message, Packet};

use super::lan::{sanitize_name, sanitize_text};

/// A target is asked again at most this often.
pub const REQUERY_INTERVAL: Duration = Duration::from_secs(5);
/// No reply within this is "no reply".
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(2);
/// Queries sent per second at most, all targets together.
pub const MAX_QUERIES_PER_SECOND: u32 = 16;
/// Queries in flight at most.
pub const MAX_PENDING: usize = 64;
/// Targets remembered at most (the stalest is forgotten).
pub const MAX_TARGETS: usize = 128;
/// Replies taken per poll at most.
const MAX_REPLIES_PER_POLL: usize = 128;
/// Replies waiting for a poll at most (more are dropped by the receiver threads).
const MAX_UNREAD_REPLIES: usize = 256;
/// How often a receiver thread checks whether it should stop.
const RECEIVER_WAKE: Duration = Duration::from_millis(100);

/// A datagram and when it arrived.
type Arrival = (SocketAddr, Vec<u8>, Instant);

/// What a server said about itself, and how far away it is.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerDetails {
    pub name: String,
    pub mode_id: String,
    pub mission: String,
    pub player_count: u8,
    pub max_players: u8,
    /// Query to reply, measured here.
    pub ping: Duration,
    pub passworded: bool,
    pub shutting_down: bool,
    pub shutdown_seconds: u16,
    /// `None`: a legacy reply or an empty field.
    pub build: Option<String>,
    pub game_port: u16,
}

/// Where one target's queries stand.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryStatus {
    /// The newest answer (kept while the next query is out).
    pub details: Option<ServerDetails>,
    /// A query is out.
    pub waiting: bool,
    /// The last query went unanswered.
    pub no_reply: bool,
    last_sent: Option<Instant>,
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    target: SocketAddr,
    sent: Instant,
}

/// The query side of the browser.
#[derive(Debug)]
pub struct QueryClient {
    v4: Option<UdpSocket>,
    v6: Option<UdpSocket>,
    arrivals_tx: SyncSender<Arrival>,
    arrivals: Receiver<Arrival>,
    /// Tells the receiver threads to end (set on drop).
    stop: Arc<AtomicBool>,
    pending: BTreeMap<u32, Pending>,
    targets: BTreeMap<SocketAddr, QueryStatus>,
    nonce_state: u64,
    budget_window: Option<Instant>,
    sent_in_window: u32,
    epoch: Instant,
}

/// The reply checks: a `MsgServerInfo` of our version, its text cleaned.
pub fn parse_info(bytes: &[u8]) -> Option<fl_protocol::msg::discovery::ServerInfo> {
    match Packet::decode(bytes) {
        Ok(Packet {
            message: Message::ServerInfo(info),
            ..
        }) if info.protocol_version == PROTOCOL_VERSION => Some(info),
        _ => None,
    }
}

impl Default for QueryClient {
    fn default() -> Self {
        Self::new()
    }
}

impl QueryClient {
    pub fn new() -> Self {
        // Nonces an off-path sender cannot guess: the standard library's per-process random
        // hash keys.
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(0x5EED);
        let (arrivals_tx, arrivals) = sync_channel(MAX_UNREAD_REPLIES);
        Self {
            v4: None,
            v6: None,
            arrivals_tx,
            arrivals,
            stop: Arc::new(AtomicBool::new(false)),
            pending: BTreeMap::new(),
            targets: BTreeMap::new(),
            nonce_state: h.finish() | 1,
            budget_window: None,
            sent_in_window: 0,
            epoch: Instant::now(),
        }
    }

    fn next_nonce(&mut self) -> u32 {
        // xorshift64
        let mut x = self.nonce_state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.nonce_state = x;
        (x >> 32) as u32
    }

    fn socket_for(&mut self, target: SocketAddr) -> std::io::Result<&UdpSocket> {
        let slot = if target.is_ipv4() {
            &mut self.v4
        } else {
            &mut self.v6
        };
        if slot.is_none() {
            let local = if target.is_ipv4() {
                SocketAddr::from(([0, 0, 0, 0], 0))
            } else {
                SocketAddr::new(Ipv6Addr::UNSPECIFIED.into(), 0)
            };
            let s = UdpSocket::bind(local)?;
            // Sends never wait on UDP; receives wait at most this long, on the receiver thread.
            s.set_read_timeout(Some(RECEIVER_WAKE))?;
            let rx = s.try_clone()?;
            let (tx, stop) = (self.arrivals_tx.clone(), self.stop.clone());
            std::thread::Builder::new()
                .name("fl-browser-query".into())
                .spawn(move || receive(&rx, &tx, &stop))?;
            *slot = Some(s);
        }
        slot.as_ref()
            .ok_or_else(|| std::io::Error::other("no query socket"))
    }

    /// Sends a query to `target` unless it was asked within [`REQUERY_INTERVAL`] (or `force`
    /// and nothing is out for it) or a rate limit says no. Returns whether it was sent.
    pub fn query(&mut self, target: SocketAddr, now: Instant, force: bool) -> bool {
        let target = SocketAddr::new(target.ip().to_canonical(), target.port());
        if target.port() == 0 || target.ip().is_unspecified() {
            return false;
        }
        if let Some(st) = self.targets.get(&target) {
            if st.waiting {
                return false;
            }
            if !force
                && st
                    .last_sent
                    .is_some_and(|t| now.saturating_duration_since(t) < REQUERY_INTERVAL)
            {
                return false;
            }
        }
        if self
            .budget_window
            .is_none_or(|w| now.saturating_duration_since(w) >= Duration::from_secs(1))
        {
            self.budget_window = Some(now);
            self.sent_in_window = 0;
        }
        if self.sent_in_window >= MAX_QUERIES_PER_SECOND || self.pending.len() >= MAX_PENDING {
            return false;
        }
        if !self.targets.contains_key(&target) && self.targets.len() >= MAX_TARGETS {
            // Forget the target asked longest ago (nothing is out for it).
            let stalest = self
                .targets
                .iter()
                .filter(|(_, s)| !s.waiting)
                .min_by_key(|(_, s)| s.last_sent)
                .map(|(a, _)| *a);
            match stalest {
                Some(a) => {
                    self.targets.remove(&a);
                }
                None => return false,
            }
        }
        let nonce = self.next_nonce();
        let client_time_ms =
            u64::try_from(now.saturating_duration_since(self.epoch).as_millis()).unwrap_or(0);
        let Ok(bytes) = Message::from(ServerQuery {
            protocol_version: PROTOCOL_VERSION,
            nonce,
            client_time_ms,
        })
        .encode() else {
            return false;
        };
        let sent = match self.socket_for(target) {
            Ok(s) => s.send_to(&bytes, target),
            Err(e) => Err(e),
        };
        self.sent_in_window += 1;
        let st = self.targets.entry(target).or_insert(QueryStatus {
            details: None,
            waiting: false,
            no_reply: false,
            last_sent: None,
        });
        st.last_sent = Some(now);
        match sent {
            Ok(_) => {
                st.waiting = true;
                self.pending.insert(nonce, Pending { target, sent: now });
                true
            }
            Err(e) => {
                tracing::debug!("server query to {target} failed: {e}");
                st.no_reply = true;
                false
            }
        }
    }

    /// Reads the replies that arrived (a bounded number) and times out the unanswered.
    pub fn poll(&mut self, now: Instant) {
        for (from, bytes, at) in self
            .arrivals
            .try_iter()
            .take(MAX_REPLIES_PER_POLL)
            .collect::<Vec<_>>()
        {
            self.accept(from, &bytes, at);
        }
        let timed_out: Vec<u32> = self
            .pending
            .iter()
            .filter(|(_, p)| now.saturating_duration_since(p.sent) > QUERY_TIMEOUT)
            .map(|(n, _)| *n)
            .collect();
        for n in timed_out {
            if let Some(p) = self.pending.remove(&n)
                && let Some(st) = self.targets.get_mut(&p.target)
            {
                st.waiting = false;
                st.no_reply = true;
            }
        }
    }

    /// One reply, arrived at `now`: kept only when it answers a query out to exactly that
    /// address.
    fn accept(&mut self, from: SocketAddr, bytes: &[u8], now: Instant) {
        let from = SocketAddr::new(from.ip().to_canonical(), from.port());
        let Some(info) = parse_info(bytes) else {
            return;
        };
        let Some(p) = self.pending.get(&info.nonce).copied() else {
            return;
        };
        if p.target != from {
            return;
        }
        self.pending.remove(&info.nonce);
        let max = info.max_players;
        let details = ServerDetails {
            name: sanitize_name(info.name.as_str()),
            mode_id: sanitize_text(info.mode_id.as_str(), 31),
            mission: sanitize_text(info.mission.as_str(), 63),
            player_count: info.player_count.min(max),
            max_players: max,
            ping: now.saturating_duration_since(p.sent),
            passworded: info.game_mode_flags & game_mode::PASSWORDED != 0,
            shutting_down: info.game_mode_flags & game_mode::SHUTTING_DOWN != 0,
            shutdown_seconds: info.shutdown_seconds,
            build: info
                .build
                .as_ref()
                .map(|b| sanitize_text(b.as_str(), 23))
                .filter(|b| !b.is_empty()),
            game_port: info.game_port,
        };
        if let Some(st) = self.targets.get_mut(&p.target) {
            st.details = Some(details);
            st.waiting = false;
            st.no_reply = false;
        }
    }

    /// Where `target`'s queries stand (`None`: never asked).
    pub fn status(&self, target: SocketAddr) -> Option<&QueryStatus> {
        self.targets
            .get(&SocketAddr::new(target.ip().to_canonical(), target.port()))
    }

    /// Queries in flight.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

impl Drop for QueryClient {
    fn drop(&mut self) {
        // The receiver threads notice within `RECEIVER_WAKE` (not joined: a frame never waits).
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// A receiver thread: stamps each datagram's arrival and passes it on, dropping what the
/// channel has no room for; ends when told or when the client is gone.
fn receive(socket: &UdpSocket, tx: &SyncSender<Arrival>, stop: &AtomicBool) {
    let mut buf = [0u8; 512];
    while !stop.load(Ordering::SeqCst) {
        let (n, from) = match socket.recv_from(&mut buf) {
            Ok(r) => r,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                continue;
            }
            Err(_) => {
                // Not a timeout (e.g. an ICMP error surfaced): do not spin.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        match tx.try_send((from, buf[..n].to_vec(), Instant::now())) {
            Ok(()) | Err(TrySendError::Full(_)) => {}
            Err(TrySendError::Disconnected(_)) => return,
        }
    }
}

/// Whether `ip` is one a query may go to (not unspecified, not multicast or broadcast).
pub fn queryable(ip: IpAddr) -> bool {
    !ip.is_unspecified() && !ip.is_multicast() && !matches!(ip, IpAddr::V4(v4) if v4.is_broadcast())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_server::discovery::{Discovery, DiscoveryConfig, ServerFacts};
    use std::sync::{Arc, Mutex};

    #[test]
    fn a_query_is_answered_with_details_and_a_ping() {
        let facts = Arc::new(Mutex::new(ServerFacts {
            name: "Loop\u{7}back".into(),
            game_port: 4778,
            player_count: 2,
            max_players: 8,
            game_mode_flags: game_mode::PASSWORDED,
            mission: "fl-base-pack:ia_dogfight".into(),
            build: "0.1.0".into(),
            ..ServerFacts::default()
        }));
        let d = Discovery::start(
            DiscoveryConfig {
                query_bind: "127.0.0.1:0".parse().expect("addr"),
                query_fallback: false,
                ..DiscoveryConfig::default()
            },
            facts,
        )
        .expect("responder");
        let target = d.query_addr().expect("on");
        let mut q = QueryClient::new();
        let t0 = Instant::now();
        assert!(q.query(target, t0, false));
        assert!(!q.query(target, t0, true), "one query out per target");
        let deadline = Instant::now() + Duration::from_secs(10);
        while q.status(target).is_some_and(|s| s.waiting) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
            q.poll(Instant::now());
        }
        let st = q.status(target).expect("asked");
        let det = st.details.as_ref().expect("answered");
        assert_eq!(det.name, "Loopback");
        assert_eq!((det.player_count, det.max_players), (2, 8));
        assert!(det.passworded && !det.shutting_down);
        assert_eq!(det.mission, "fl-base-pack:ia_dogfight");
        assert_eq!(det.build.as_deref(), Some("0.1.0"));
        assert!(
            !q.query(target, Instant::now(), false),
            "rate-limited per target"
        );
    }

    #[test]
    fn unanswered_queries_time_out_and_spoofed_replies_are_ignored() {
        let silent = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let target = silent.local_addr().expect("addr");
        let mut q = QueryClient::new();
        let t0 = Instant::now();
        assert!(q.query(target, t0, false));
        // A reply from elsewhere with a guessed nonce is not taken.
        let (n, from) = {
            silent
                .set_read_timeout(Some(Duration::from_secs(10)))
                .expect("timeout");
            let mut buf = [0u8; 512];
            let (n, from) = silent.recv_from(&mut buf).expect("query arrives");
            (n, from)
        };
        assert_eq!(n, 208, "queries are padded to 208 bytes");
        let other = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let fake = Message::from(fl_protocol::msg::discovery::ServerInfo {
            game_mode_flags: 0,
            protocol_version: PROTOCOL_VERSION,
            nonce: 0,
            client_time_ms: 0,
            game_port: 1,
            shutdown_seconds: 0,
            player_count: 0,
            max_players: 1,
            name: fl_protocol::FixedStr::new("spoof"),
            mode_id: fl_protocol::FixedStr::new(""),
            mission: fl_protocol::FixedStr::new(""),
            build: None,
        })
        .encode()
        .expect("encodes");
        other.send_to(&fake, from).expect("sent");
        std::thread::sleep(Duration::from_millis(50));
        q.poll(t0 + Duration::from_millis(100));
        assert!(q.status(target).expect("asked").details.is_none());
        q.poll(t0 + QUERY_TIMEOUT + Duration::from_millis(1));
        let st = q.status(target).expect("asked");
        assert!(st.no_reply && !st.waiting);
        assert_eq!(q.pending(), 0);
    }

    #[test]
    fn queries_are_rate_limited_overall() {
        let sinks: Vec<UdpSocket> = (0..MAX_QUERIES_PER_SECOND + 4)
            .map(|_| UdpSocket::bind("127.0.0.1:0").expect("bind"))
            .collect();
        let mut q = QueryClient::new();
        let t0 = Instant::now();
        let sent = sinks
            .iter()
            .filter(|s| q.query(s.local_addr().expect("addr"), t0, false))
            .count();
        assert_eq!(sent, MAX_QUERIES_PER_SECOND as usize);
        let later = t0 + Duration::from_secs(1);
        assert!(
            q.query(
                sinks[MAX_QUERIES_PER_SECOND as usize]
                    .local_addr()
                    .expect("addr"),
                later,
                false
            )
        );
        assert!(!queryable("255.255.255.255".parse().expect("ip")));
        assert!(!queryable("ff02::1".parse().expect("ip")));
        assert!(queryable("192.0.2.1".parse().expect("ip")));
    }
}

//! LAN discovery and the server-query responder: raw UDP outside the game transport. The
//! responder is on by default (as the spec says); the beacon is opt-in. The beacon sends `MsgLanBeacon` every interval to its
//! target (the IPv4 broadcast address by default; tests point it at 127.0.0.1). The responder
//! answers `MsgServerQuery` with `MsgServerInfo` — never larger than the query (the query is
//! padded to 208 bytes so a spoofed source gains nothing), rate-limited per source address and
//! globally, silently dropping everything malformed or excessive.
//!
//! Owns two small threads and their sockets; reads the live facts the runtime publishes.

use fl_protocol::ids::PROTOCOL_VERSION;
use fl_protocol::msg::discovery::{LanBeacon, ServerInfo, ServerQuery};
use fl_protocol::{FixedStr, Message, Packet};
use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Accepted replies per source address per second (`[discovery] query_rate_per_address`).
pub const QUERY_RATE_PER_ADDRESS: RangeInclusive<u32> = 1..=100;
/// Accepted replies per second overall (`[discovery] query_rate_global`).
pub const QUERY_RATE_GLOBAL: RangeInclusive<u32> = 1..=10_000;

/// Accepted beacon intervals, ms (`[discovery] beacon_interval_ms`): a shorter interval would
/// flood the LAN (an interval of 0 was a tight send loop), a longer one drops servers out of
/// browsers' lists.
pub const BEACON_INTERVAL_MS: RangeInclusive<u64> = 100..=60_000;

/// What the server advertises (kept current by the runtime).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerFacts {
    pub name: String,
    pub game_port: u16,
    pub query_port: u16,
    pub player_count: u8,
    pub max_players: u8,
    pub game_mode_flags: u8,
    pub shutdown_seconds: u16,
    pub build: String,
    pub mode_id: String,
    pub mission: String,
}

impl ServerFacts {
    /// Advertises a shutdown `seconds` away (the shutting-down flag and the countdown, capped
    /// at the field's 65,535 s), or none.
    pub fn set_shutdown(&mut self, seconds: Option<u32>) {
        let flag = fl_protocol::enums::game_mode::SHUTTING_DOWN;
        match seconds {
            Some(s) => {
                self.game_mode_flags |= flag;
                self.shutdown_seconds = s.min(u32::from(u16::MAX)) as u16;
            }
            None => {
                self.game_mode_flags &= !flag;
                self.shutdown_seconds = 0;
            }
        }
    }
}

/// `[discovery]` settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiscoveryConfig {
    pub beacon_enabled: bool,
    pub beacon_target: SocketAddr,
    pub beacon_interval: Duration,
    pub query_enabled: bool,
    pub query_bind: SocketAddr,
    /// When `query_bind`'s port is taken, listen on an ephemeral port on the same address
    /// instead of failing (the automatic `game port + 1`; the beacon advertises the port
    /// actually bound). An explicitly configured query port fails instead.
    pub query_fallback: bool,
    /// Replies per source address per second.
    pub per_address_rate: u32,
    /// Replies per second overall.
    pub global_rate: u32,
}

impl Default for DiscoveryConfig {
    fn default() -> Self {
        Self {
            beacon_enabled: false,
            beacon_target: SocketAddr::from((
                [255, 255, 255, 255],
                fl_protocol::ids::DISCOVERY_PORT,
            )),
            beacon_interval: Duration::from_secs(2),
            query_enabled: true,
            query_bind: SocketAddr::from(([0, 0, 0, 0], fl_protocol::ids::DEFAULT_GAME_PORT + 1)),
            query_fallback: true,
            per_address_rate: 4,
            global_rate: 256,
        }
    }
}

/// The running discovery threads; dropping stops and joins them.
#[derive(Debug)]
pub struct Discovery {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    query_addr: Option<SocketAddr>,
}

impl Discovery {
    /// Starts whatever the config enables. A beacon interval outside [`BEACON_INTERVAL_MS`]
    /// is refused (`InvalidInput`) rather than sent in a tight loop.
    pub fn start(cfg: DiscoveryConfig, facts: Arc<Mutex<ServerFacts>>) -> std::io::Result<Self> {
        let interval_ms = u64::try_from(cfg.beacon_interval.as_millis()).unwrap_or(u64::MAX);
        if cfg.beacon_enabled && !BEACON_INTERVAL_MS.contains(&interval_ms) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "beacon interval must be between {} and {} ms, got {interval_ms}",
                    BEACON_INTERVAL_MS.start(),
                    BEACON_INTERVAL_MS.end()
                ),
            ));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        let mut query_addr = None;
        if cfg.query_enabled {
            let socket = match UdpSocket::bind(cfg.query_bind) {
                Ok(s) => s,
                Err(e) if cfg.query_fallback && e.kind() == std::io::ErrorKind::AddrInUse => {
                    let fallback = SocketAddr::new(cfg.query_bind.ip(), 0);
                    let s = UdpSocket::bind(fallback)?;
                    tracing::warn!(
                        "query port {} is taken ({e}); answering queries on {} instead \
                         (advertised in the LAN beacon; internet browsers that assume game \
                         port + 1 will not reach it — set [discovery] query_port)",
                        cfg.query_bind,
                        s.local_addr()?
                    );
                    s
                }
                Err(e) => return Err(e),
            };
            socket.set_read_timeout(Some(Duration::from_millis(100)))?;
            query_addr = Some(socket.local_addr()?);
            if let Ok(mut f) = facts.lock() {
                f.query_port = socket.local_addr()?.port();
            }
            let (stop, facts) = (stop.clone(), facts.clone());
            threads.push(
                std::thread::Builder::new()
                    .name("fl-query".into())
                    .spawn(move || respond(&socket, &cfg, &facts, &stop))?,
            );
        }
        if cfg.beacon_enabled {
            let local: SocketAddr = if cfg.beacon_target.is_ipv4() {
                SocketAddr::from(([0, 0, 0, 0], 0))
            } else {
                SocketAddr::from(([0u16; 8], 0))
            };
            let socket = UdpSocket::bind(local)?;
            if let IpAddr::V4(v4) = cfg.beacon_target.ip()
                && v4.is_broadcast()
            {
                socket.set_broadcast(true)?;
            }
            let (stop, facts) = (stop.clone(), facts.clone());
            threads.push(
                std::thread::Builder::new()
                    .name("fl-beacon".into())
                    .spawn(move || beacon(&socket, &cfg, &facts, &stop))?,
            );
        }
        Ok(Self {
            stop,
            threads,
            query_addr,
        })
    }

    /// Where the responder listens (when enabled).
    pub fn query_addr(&self) -> Option<SocketAddr> {
        self.query_addr
    }
}

impl Drop for Discovery {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn facts_of(facts: &Mutex<ServerFacts>) -> ServerFacts {
    facts
        .lock()
        .map(|f| f.clone())
        .unwrap_or_else(|p| p.into_inner().clone())
}

/// The beacon a server with these facts sends.
pub fn beacon_message(f: &ServerFacts) -> LanBeacon {
    LanBeacon {
        protocol_version: PROTOCOL_VERSION,
        game_port: f.game_port,
        player_count: f.player_count,
        max_players: f.max_players,
        game_mode_flags: f.game_mode_flags,
        shutdown_seconds: f.shutdown_seconds,
        query_port: f.query_port,
        name: FixedStr::new(&f.name),
        build: Some(FixedStr::new(&f.build)),
    }
}

fn beacon(
    socket: &UdpSocket,
    cfg: &DiscoveryConfig,
    facts: &Mutex<ServerFacts>,
    stop: &AtomicBool,
) {
    // Never faster than the smallest accepted interval, whatever the caller passed.
    let interval = cfg
        .beacon_interval
        .max(Duration::from_millis(*BEACON_INTERVAL_MS.start()));
    let mut next = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        let now = Instant::now();
        if now >= next {
            if let Ok(bytes) = Message::from(beacon_message(&facts_of(facts))).encode()
                && let Err(e) = socket.send_to(&bytes, cfg.beacon_target)
            {
                tracing::debug!("beacon to {} failed: {e}", cfg.beacon_target);
            }
            // After a stall (a suspended machine) send one beacon, not the missed backlog.
            next += interval;
            if next <= now {
                next = now + interval;
            }
        }
        std::thread::sleep(Duration::from_millis(50).min(interval));
    }
}

/// Per-address and global reply budgets over one-second windows.
#[derive(Debug, Default)]
struct RateLimit {
    window_start: Option<Instant>,
    global: u32,
    per_address: BTreeMap<IpAddr, u32>,
}

impl RateLimit {
    fn allow(&mut self, ip: IpAddr, now: Instant, cfg: &DiscoveryConfig) -> bool {
        if self
            .window_start
            .is_none_or(|s| now.duration_since(s) >= Duration::from_secs(1))
        {
            self.window_start = Some(now);
            self.global = 0;
            self.per_address.clear();
        }
        if self.global >= cfg.global_rate {
            return false;
        }
        let n = self.per_address.entry(ip).or_insert(0);
        if *n >= cfg.per_address_rate {
            return false;
        }
        *n += 1;
        self.global += 1;
        true
    }
}

/// The reply to a query, if the datagram is a valid one.
pub fn answer(datagram: &[u8], facts: &ServerFacts) -> Option<Vec<u8>> {
    if datagram.len() < <ServerQuery as fl_protocol::layout::Fixed>::SIZE {
        return None;
    }
    let Ok(Packet {
        message: Message::ServerQuery(q),
        ..
    }) = Packet::decode(datagram)
    else {
        return None;
    };
    if q.protocol_version != PROTOCOL_VERSION {
        return None;
    }
    let info = ServerInfo {
        game_mode_flags: facts.game_mode_flags,
        protocol_version: PROTOCOL_VERSION,
        nonce: q.nonce,
        client_time_ms: q.client_time_ms,
        game_port: facts.game_port,
        shutdown_seconds: facts.shutdown_seconds,
        player_count: facts.player_count,
        max_players: facts.max_players,
        name: FixedStr::new(&facts.name),
        mode_id: FixedStr::new(&facts.mode_id),
        mission: FixedStr::new(&facts.mission),
        build: Some(FixedStr::new(&facts.build)),
    };
    let bytes = Message::from(info).encode().ok()?;
    // Never amplify: the reply is no larger than the query.
    (bytes.len() <= datagram.len()).then_some(bytes)
}

fn respond(
    socket: &UdpSocket,
    cfg: &DiscoveryConfig,
    facts: &Mutex<ServerFacts>,
    stop: &AtomicBool,
) {
    let mut buf = [0u8; 2048];
    let mut limit = RateLimit::default();
    while !stop.load(Ordering::SeqCst) {
        let Ok((n, from)) = socket.recv_from(&mut buf) else {
            continue;
        };
        if !limit.allow(from.ip(), Instant::now(), cfg) {
            continue;
        }
        if let Some(reply) = answer(&buf[..n], &facts_of(facts)) {
            let _ = socket.send_to(&reply, from);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> ServerFacts {
        ServerFacts {
            name: "test".into(),
            game_port: 4778,
            max_players: 64,
            build: "0.1.0".into(),
            ..ServerFacts::default()
        }
    }

    fn query(nonce: u32) -> Vec<u8> {
        Message::from(ServerQuery {
            protocol_version: PROTOCOL_VERSION,
            nonce,
            client_time_ms: 77,
        })
        .encode()
        .expect("encodes")
    }

    #[test]
    fn a_shutdown_is_advertised_in_the_beacon_and_the_query_reply() {
        let flag = fl_protocol::enums::game_mode::SHUTTING_DOWN;
        let mut f = facts();
        f.game_mode_flags = fl_protocol::enums::game_mode::MISSION;
        f.set_shutdown(Some(300));
        let b = beacon_message(&f);
        assert_eq!(b.game_mode_flags & flag, flag);
        assert_eq!(b.shutdown_seconds, 300);
        let reply = answer(&query(1), &f).expect("answered");
        let Ok(Packet {
            message: Message::ServerInfo(info),
            ..
        }) = Packet::decode(&reply)
        else {
            panic!("not a ServerInfo");
        };
        assert_eq!(info.shutdown_seconds, 300);
        f.set_shutdown(Some(1_000_000));
        assert_eq!(f.shutdown_seconds, u16::MAX);
        f.set_shutdown(None);
        let b = beacon_message(&f);
        assert_eq!(
            (b.game_mode_flags, b.shutdown_seconds),
            (fl_protocol::enums::game_mode::MISSION, 0)
        );
    }

    #[test]
    fn queries_are_answered_without_amplification() {
        let q = query(42);
        let reply = answer(&q, &facts()).expect("answered");
        assert!(reply.len() <= q.len());
        let Ok(Packet {
            message: Message::ServerInfo(info),
            ..
        }) = Packet::decode(&reply)
        else {
            panic!("not a ServerInfo");
        };
        assert_eq!(
            (info.nonce, info.client_time_ms, info.game_port),
            (42, 77, 4778)
        );
        assert!(
            answer(&q[..100], &facts()).is_none(),
            "short queries are dropped"
        );
        let mut other_version = q.clone();
        other_version[2] = 9;
        assert!(answer(&other_version, &facts()).is_none());
    }

    #[test]
    fn an_automatic_query_port_that_is_taken_falls_back_to_an_ephemeral_one() {
        let taken = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let cfg = DiscoveryConfig {
            query_bind: taken.local_addr().expect("addr"),
            ..DiscoveryConfig::default()
        };
        let facts = Arc::new(Mutex::new(facts()));
        let d = Discovery::start(cfg, facts.clone()).expect("falls back");
        let bound = d.query_addr().expect("query on by default");
        assert_ne!(bound, cfg.query_bind);
        assert_eq!(
            facts.lock().expect("facts").query_port,
            bound.port(),
            "the beacon advertises the port actually bound"
        );
        drop(d);
        let explicit = DiscoveryConfig {
            query_fallback: false,
            ..cfg
        };
        let err = Discovery::start(explicit, facts).expect_err("an explicit port fails");
        assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse);
    }

    #[test]
    fn a_beacon_interval_out_of_range_is_refused_not_looped() {
        for ms in [0, 99, 60_001] {
            let cfg = DiscoveryConfig {
                beacon_enabled: true,
                beacon_target: "127.0.0.1:9".parse().expect("addr"),
                beacon_interval: Duration::from_millis(ms),
                ..DiscoveryConfig::default()
            };
            let err = Discovery::start(cfg, Arc::new(Mutex::new(facts()))).expect_err("refused");
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
            assert!(err.to_string().contains(&format!("got {ms}")), "{err}");
        }
    }

    #[test]
    fn the_responder_and_beacon_work_on_loopback_and_rate_limit() {
        let listener = UdpSocket::bind("127.0.0.1:0").expect("bind");
        listener
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let cfg = DiscoveryConfig {
            beacon_enabled: true,
            beacon_target: listener.local_addr().expect("addr"),
            beacon_interval: Duration::from_millis(100),
            query_enabled: true,
            query_bind: "127.0.0.1:0".parse().expect("addr"),
            query_fallback: false,
            per_address_rate: 3,
            global_rate: 256,
        };
        let d = Discovery::start(cfg, Arc::new(Mutex::new(facts()))).expect("started");
        let mut buf = [0u8; 512];
        let (n, _) = listener.recv_from(&mut buf).expect("a beacon arrives");
        let Ok(Packet {
            message: Message::LanBeacon(b),
            ..
        }) = Packet::decode(&buf[..n])
        else {
            panic!("not a beacon");
        };
        assert_eq!(b.name.as_str(), "test");
        assert_ne!(b.query_port, 0, "the beacon advertises the query port");

        let client = UdpSocket::bind("127.0.0.1:0").expect("bind");
        client
            .set_read_timeout(Some(Duration::from_millis(500)))
            .expect("timeout");
        let target = d.query_addr().expect("query enabled");
        for i in 0..10 {
            client.send_to(&query(i), target).expect("sent");
        }
        let mut replies = 0;
        while client.recv_from(&mut buf).is_ok() {
            replies += 1;
        }
        assert_eq!(replies, 3, "per-address rate limit");
        drop(d);
    }
}

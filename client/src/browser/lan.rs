//! LAN servers from `MsgLanBeacon`: the listener socket(s) on the discovery port, the checks a
//! beacon must pass, and the bounded table of servers heard, merged by (game port, name) and
//! expired after about three missed intervals.
//!
//! Owns: receiving and judging beacons. Must not: send anything, block (the sockets are
//! non-blocking and every poll reads a bounded number of datagrams), or grow without bound.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use fl_protocol::ids::PROTOCOL_VERSION;
use fl_protocol::msg::discovery::LanBeacon;
use fl_protocol::{Message, Packet};

/// Bytes a receiver requires: the pre-`build` legacy prefix (`kLanBeaconLegacyBytes`).
pub const LEGACY_BEACON_BYTES: usize = 78;
/// Servers kept at most (a flood of distinct fake servers stops here).
pub const MAX_LAN_SERVERS: usize = 64;
/// Servers kept at most from one source address (one noisy host cannot fill the list).
pub const MAX_SERVERS_PER_SOURCE: usize = 8;
/// The beacon interval assumed until a server's second beacon shows its own (the server's
/// default).
pub const DEFAULT_BEACON_INTERVAL: Duration = Duration::from_secs(2);
/// The longest interval a server may use (`BEACON_INTERVAL_MS` on the server).
pub const MAX_BEACON_INTERVAL: Duration = Duration::from_secs(60);
/// A server disappears after this many intervals without a beacon.
pub const MISSED_INTERVALS: u32 = 3;
/// Datagrams read per socket per poll at most (the rest wait for the next frame).
pub const MAX_DATAGRAMS_PER_POLL: usize = 256;
/// What a server's name becomes when it has none left after cleaning.
pub const UNNAMED: &str = "(unnamed server)";

/// Receive buffer: a beacon is 102 bytes; a datagram that fills this is refused as too long.
const RECV_BUF: usize = 512;

/// Why a datagram on the discovery port was dropped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BeaconError {
    #[error("{0} bytes is shorter than the 78-byte beacon")]
    TooShort(usize),
    #[error("{0} bytes or more is not a beacon")]
    TooLong(usize),
    #[error("not a beacon (message id {0:#04x})")]
    NotABeacon(u8),
    #[error("malformed beacon: {0}")]
    Malformed(String),
    #[error("protocol version {0}, not ours")]
    Version(u16),
    #[error("game port 0")]
    ZeroGamePort,
    #[error("{count} players of {max}")]
    Players { count: u8, max: u8 },
}

/// A beacon that passed the checks, its text cleaned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beacon {
    pub game_port: u16,
    /// 0: the server does not answer queries.
    pub query_port: u16,
    pub player_count: u8,
    pub max_players: u8,
    pub game_mode_flags: u8,
    pub shutdown_seconds: u16,
    pub name: String,
    /// `None`: a legacy beacon or an empty build field.
    pub build: Option<String>,
}

/// `text` without control characters and surrounding spaces (lossy UTF-8 has already turned
/// invalid bytes into U+FFFD, which stays visible), at most `max_chars` characters.
pub fn sanitize_text(text: &str, max_chars: usize) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|c| !c.is_control() && !matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'))
        .take(max_chars)
        .collect();
    cleaned.trim().to_owned()
}

/// A server name as shown: cleaned, never empty.
pub fn sanitize_name(text: &str) -> String {
    let s = sanitize_text(text, 63);
    if s.is_empty() { UNNAMED.to_owned() } else { s }
}

/// Checks one datagram from the discovery port.
pub fn parse_beacon(bytes: &[u8]) -> Result<Beacon, BeaconError> {
    if bytes.len() < LEGACY_BEACON_BYTES {
        return Err(BeaconError::TooShort(bytes.len()));
    }
    if bytes.len() >= RECV_BUF {
        return Err(BeaconError::TooLong(bytes.len()));
    }
    if bytes[0] != fl_protocol::ids::MsgId::LanBeacon as u8 {
        return Err(BeaconError::NotABeacon(bytes[0]));
    }
    let b: LanBeacon = match Packet::decode(bytes) {
        Ok(Packet {
            message: Message::LanBeacon(b),
            ..
        }) => b,
        Ok(_) => return Err(BeaconError::NotABeacon(bytes[0])),
        Err(e) => return Err(BeaconError::Malformed(e.to_string())),
    };
    if b.protocol_version != PROTOCOL_VERSION {
        return Err(BeaconError::Version(b.protocol_version));
    }
    if b.game_port == 0 {
        return Err(BeaconError::ZeroGamePort);
    }
    if b.max_players == 0 || b.player_count > b.max_players {
        return Err(BeaconError::Players {
            count: b.player_count,
            max: b.max_players,
        });
    }
    let build = b
        .build
        .as_ref()
        .map(|s| sanitize_text(s.as_str(), 23))
        .filter(|s| !s.is_empty());
    Ok(Beacon {
        game_port: b.game_port,
        query_port: b.query_port,
        player_count: b.player_count,
        max_players: b.max_players,
        game_mode_flags: b.game_mode_flags,
        shutdown_seconds: b.shutdown_seconds,
        name: sanitize_name(b.name.as_str()),
        build,
    })
}

/// One LAN server, heard over IPv4, IPv6 or both.
#[derive(Debug, Clone, PartialEq)]
pub struct LanServer {
    /// The newest beacon.
    pub beacon: Beacon,
    /// Where its IPv4 beacons come from, and when the last one came.
    v4: Option<(IpAddr, Instant)>,
    /// Where its IPv6 beacons come from, and when the last one came.
    v6: Option<(IpAddr, Instant)>,
    last_seen: Instant,
    /// The time between its last two beacons (`None` until the second).
    interval: Option<Duration>,
}

impl LanServer {
    /// How long it may stay silent before it is dropped.
    pub fn time_to_live(&self) -> Duration {
        let interval = self
            .interval
            .unwrap_or(DEFAULT_BEACON_INTERVAL)
            .clamp(DEFAULT_BEACON_INTERVAL, MAX_BEACON_INTERVAL);
        interval * MISSED_INTERVALS
    }

    /// The address to use: IPv4 while it is heard there (an IPv6 link-local address's scope
    /// may not survive a connect), else IPv6.
    pub fn ip(&self, now: Instant) -> IpAddr {
        let ttl = self.time_to_live();
        match (self.v4, self.v6) {
            (Some((ip, seen)), _) if now.saturating_duration_since(seen) <= ttl => ip,
            (_, Some((ip, _))) => ip,
            (Some((ip, _)), None) => ip,
            // Never stored without a source.
            (None, None) => IpAddr::from([0, 0, 0, 0]),
        }
    }

    /// The game address to join.
    pub fn game_addr(&self, now: Instant) -> SocketAddr {
        SocketAddr::new(self.ip(now), self.beacon.game_port)
    }

    /// The query responder's address (`None`: it advertises none).
    pub fn query_addr(&self, now: Instant) -> Option<SocketAddr> {
        (self.beacon.query_port != 0).then(|| SocketAddr::new(self.ip(now), self.beacon.query_port))
    }

    fn sources(&self) -> impl Iterator<Item = IpAddr> + '_ {
        self.v4.iter().chain(self.v6.iter()).map(|(ip, _)| *ip)
    }
}

/// What [`LanTable::observe`] did with a beacon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Observed {
    Added,
    Refreshed,
    /// The list (or this source's share of it) is full.
    Full,
}

/// The LAN servers heard, keyed by (game port, name).
#[derive(Debug, Default, Clone)]
pub struct LanTable {
    servers: BTreeMap<(u16, String), LanServer>,
}

/// An IPv4-mapped IPv6 source (a dual-stack socket) as the IPv4 address it is.
fn canonical(ip: IpAddr) -> IpAddr {
    ip.to_canonical()
}

impl LanTable {
    /// Records `beacon`, heard from `from` at `now`.
    pub fn observe(&mut self, from: IpAddr, beacon: Beacon, now: Instant) -> Observed {
        let from = canonical(from);
        let key = (beacon.game_port, beacon.name.clone());
        if let Some(s) = self.servers.get_mut(&key) {
            let gap = now.saturating_duration_since(s.last_seen);
            // Two beacons close together are the same beacon heard twice (IPv4 and IPv6).
            if gap >= Duration::from_millis(50) {
                s.interval = Some(gap.min(MAX_BEACON_INTERVAL));
            }
            s.last_seen = now;
            s.beacon = beacon;
            match from {
                IpAddr::V4(_) => s.v4 = Some((from, now)),
                IpAddr::V6(_) => s.v6 = Some((from, now)),
            }
            return Observed::Refreshed;
        }
        if self.servers.len() >= MAX_LAN_SERVERS {
            return Observed::Full;
        }
        let from_here = self
            .servers
            .values()
            .filter(|s| s.sources().any(|ip| ip == from))
            .count();
        if from_here >= MAX_SERVERS_PER_SOURCE {
            return Observed::Full;
        }
        let (v4, v6) = match from {
            IpAddr::V4(_) => (Some((from, now)), None),
            IpAddr::V6(_) => (None, Some((from, now))),
        };
        self.servers.insert(
            key,
            LanServer {
                beacon,
                v4,
                v6,
                last_seen: now,
                interval: None,
            },
        );
        Observed::Added
    }

    /// Drops the servers silent for longer than their time to live.
    pub fn expire(&mut self, now: Instant) {
        self.servers
            .retain(|_, s| now.saturating_duration_since(s.last_seen) <= s.time_to_live());
    }

    /// The servers, by name then game port.
    pub fn servers(&self) -> Vec<&LanServer> {
        let mut v: Vec<&LanServer> = self.servers.values().collect();
        v.sort_by(|a, b| {
            (a.beacon.name.to_lowercase(), a.beacon.game_port)
                .cmp(&(b.beacon.name.to_lowercase(), b.beacon.game_port))
        });
        v
    }

    pub fn len(&self) -> usize {
        self.servers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }
}

/// The listening socket(s) and the table they fill.
#[derive(Debug)]
pub struct LanListener {
    sockets: Vec<UdpSocket>,
    table: LanTable,
    dropped: u64,
}

/// A non-blocking UDP socket on `addr` with address reuse (a browser and another program may
/// share the discovery port).
fn reuse_socket(addr: SocketAddr) -> std::io::Result<UdpSocket> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::DGRAM, Some(Protocol::UDP))?;
    socket.set_reuse_address(true)?;
    if addr.is_ipv6() {
        socket.set_only_v6(true)?;
    }
    socket.bind(&addr.into())?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

impl LanListener {
    /// Listens on `addr` (the game uses `0.0.0.0:kDiscoveryPort`; tests `127.0.0.1:0`). On the
    /// IPv4 wildcard it also listens on the IPv6 wildcard's same port and joins ff02::1, when
    /// the machine allows (failures there are only logged).
    pub fn bind(addr: SocketAddr) -> std::io::Result<Self> {
        let first = reuse_socket(addr)?;
        let port = first.local_addr()?.port();
        let mut sockets = vec![first];
        if addr.ip() == IpAddr::from([0, 0, 0, 0]) {
            match reuse_socket(SocketAddr::new(Ipv6Addr::UNSPECIFIED.into(), port)) {
                Ok(v6) => {
                    if let Err(e) =
                        v6.join_multicast_v6(&"ff02::1".parse().unwrap_or(Ipv6Addr::LOCALHOST), 0)
                    {
                        tracing::debug!("LAN browser: not joining ff02::1: {e}");
                    }
                    sockets.push(v6);
                }
                Err(e) => tracing::debug!("LAN browser: no IPv6 listener on port {port}: {e}"),
            }
        }
        Ok(Self {
            sockets,
            table: LanTable::default(),
            dropped: 0,
        })
    }

    /// The first socket's address (its port is the one beacons must reach).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.sockets.first().and_then(|s| s.local_addr().ok())
    }

    /// Reads what has arrived (a bounded number of datagrams) and expires silent servers.
    pub fn poll(&mut self, now: Instant) {
        let mut buf = [0u8; RECV_BUF];
        for socket in &self.sockets {
            for _ in 0..MAX_DATAGRAMS_PER_POLL {
                let (n, from) = match socket.recv_from(&mut buf) {
                    Ok(r) => r,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => {
                        tracing::debug!("LAN browser: receive failed: {e}");
                        break;
                    }
                };
                match parse_beacon(&buf[..n]) {
                    Ok(b) => {
                        if self.table.observe(from.ip(), b, now) == Observed::Full {
                            self.dropped += 1;
                        }
                    }
                    Err(e) => {
                        self.dropped += 1;
                        tracing::trace!("LAN browser: dropped a datagram from {from}: {e}");
                    }
                }
            }
        }
        self.table.expire(now);
    }

    pub fn table(&self) -> &LanTable {
        &self.table
    }

    /// Datagrams dropped so far (malformed, refused, or past the list's bounds).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::FixedStr;

    fn beacon(name: &str, port: u16) -> LanBeacon {
        LanBeacon {
            protocol_version: PROTOCOL_VERSION,
            game_port: port,
            player_count: 1,
            max_players: 4,
            game_mode_flags: 0,
            shutdown_seconds: 0,
            query_port: port + 1,
            name: FixedStr::new(name),
            build: Some(FixedStr::new("0.1.0")),
        }
    }

    fn bytes(b: LanBeacon) -> Vec<u8> {
        Message::from(b).encode().expect("encodes")
    }

    fn parsed(name: &str, port: u16) -> Beacon {
        parse_beacon(&bytes(beacon(name, port))).expect("valid")
    }

    #[test]
    fn full_and_legacy_beacons_are_accepted() {
        let full = bytes(beacon("Alpha", 4778));
        assert_eq!(full.len(), 102);
        let b = parse_beacon(&full).expect("full");
        assert_eq!(
            (b.name.as_str(), b.build.as_deref()),
            ("Alpha", Some("0.1.0"))
        );
        let legacy = parse_beacon(&full[..LEGACY_BEACON_BYTES]).expect("legacy prefix");
        assert_eq!((legacy.game_port, legacy.build), (4778, None));
    }

    #[test]
    fn absurd_beacons_are_dropped() {
        let ok = beacon("x", 4778);
        let mut too_many = ok.clone();
        (too_many.player_count, too_many.max_players) = (255, 4);
        assert_eq!(
            parse_beacon(&bytes(too_many)),
            Err(BeaconError::Players { count: 255, max: 4 })
        );
        let mut no_port = ok.clone();
        no_port.game_port = 0;
        assert_eq!(
            parse_beacon(&bytes(no_port)),
            Err(BeaconError::ZeroGamePort)
        );
        let mut wrong_version = bytes(ok.clone());
        wrong_version[2] = 0xEE;
        assert!(matches!(
            parse_beacon(&wrong_version),
            Err(BeaconError::Version(_))
        ));
        let full = bytes(ok.clone());
        assert_eq!(parse_beacon(&full[..77]), Err(BeaconError::TooShort(77)));
        assert_eq!(parse_beacon(&[]), Err(BeaconError::TooShort(0)));
        let mut wrong_id = full.clone();
        wrong_id[0] = 0x42;
        assert_eq!(parse_beacon(&wrong_id), Err(BeaconError::NotABeacon(0x42)));
        assert!(parse_beacon(&vec![0x40; RECV_BUF]).is_err());
    }

    #[test]
    fn garbage_names_are_sanitised() {
        let mut raw = bytes(beacon("", 4778));
        // 64 bytes of garbage: invalid UTF-8, control characters, no terminator.
        for (i, b) in raw[14..78].iter_mut().enumerate() {
            *b = [0xFF, 0x07, b'A', 0x1B, 0xC3, b'\n'][i % 6];
        }
        let b = parse_beacon(&raw).expect("kept, cleaned");
        assert!(b.name.contains('A'));
        assert!(!b.name.chars().any(char::is_control), "{:?}", b.name);
        assert!(b.name.len() <= 63 * 4);
        assert_eq!(sanitize_name("  \u{7}\n "), UNNAMED);
        assert_eq!(sanitize_name("a\u{202E}b\tc"), "ab c");
    }

    #[test]
    fn ipv4_and_ipv6_beacons_of_one_server_merge_preferring_ipv4() {
        let t0 = Instant::now();
        let mut t = LanTable::default();
        let v6: IpAddr = "fe80::1".parse().expect("ip");
        let v4: IpAddr = "192.168.1.5".parse().expect("ip");
        assert_eq!(t.observe(v6, parsed("Alpha", 4778), t0), Observed::Added);
        assert_eq!(t.servers()[0].game_addr(t0).ip(), v6);
        assert_eq!(
            t.observe(v4, parsed("Alpha", 4778), t0),
            Observed::Refreshed
        );
        assert_eq!(t.len(), 1);
        assert_eq!(t.servers()[0].game_addr(t0), SocketAddr::new(v4, 4778));
        assert_eq!(
            t.servers()[0].query_addr(t0),
            Some(SocketAddr::new(v4, 4779))
        );
        // Another name or port is another server.
        t.observe(v4, parsed("Alpha", 4800), t0);
        t.observe(v4, parsed("Bravo", 4778), t0);
        assert_eq!(t.len(), 3);
        // A v4-mapped v6 source is the v4 address.
        let mapped: IpAddr = "::ffff:192.168.1.5".parse().expect("ip");
        t.observe(mapped, parsed("Bravo", 4778), t0);
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn servers_expire_after_about_three_missed_intervals() {
        let t0 = Instant::now();
        let mut t = LanTable::default();
        let ip: IpAddr = "10.0.0.2".parse().expect("ip");
        t.observe(ip, parsed("A", 1000), t0);
        t.expire(t0 + Duration::from_secs(5));
        assert_eq!(t.len(), 1, "within 3 default intervals");
        t.expire(t0 + Duration::from_secs(7));
        assert!(t.is_empty(), "gone after 3 missed default intervals");

        // A server beaconing every 10 s lives 30 s.
        t.observe(ip, parsed("B", 1000), t0);
        t.observe(ip, parsed("B", 1000), t0 + Duration::from_secs(10));
        t.expire(t0 + Duration::from_secs(35));
        assert_eq!(t.len(), 1);
        t.expire(t0 + Duration::from_secs(41));
        assert!(t.is_empty());
    }

    #[test]
    fn a_flood_of_distinct_servers_stays_bounded() {
        let t0 = Instant::now();
        let mut t = LanTable::default();
        let flood: IpAddr = "10.0.0.66".parse().expect("ip");
        for i in 0..10_000u16 {
            t.observe(flood, parsed(&format!("fake {i}"), 1 + i), t0);
        }
        assert_eq!(t.len(), MAX_SERVERS_PER_SOURCE, "one source's share");
        for i in 0..10_000u32 {
            let ip = IpAddr::from([10, 1, (i >> 8) as u8, i as u8]);
            t.observe(ip, parsed(&format!("spoof {i}"), 2000), t0);
        }
        assert_eq!(t.len(), MAX_LAN_SERVERS, "the whole list");
        // A known server still refreshes when the list is full.
        assert_eq!(
            t.observe(flood, parsed("fake 0", 1), t0 + Duration::from_secs(1)),
            Observed::Refreshed
        );
    }

    #[test]
    fn the_listener_hears_beacons_on_loopback_and_drops_junk() {
        let mut l = LanListener::bind("127.0.0.1:0".parse().expect("addr")).expect("bind");
        let to = l.local_addr().expect("addr");
        let tx = UdpSocket::bind("127.0.0.1:0").expect("bind");
        tx.send_to(&bytes(beacon("Loopback", 4778)), to)
            .expect("send");
        tx.send_to(b"junk", to).expect("send");
        let deadline = Instant::now() + Duration::from_secs(10);
        while l.table().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
            l.poll(Instant::now());
        }
        let servers = l.table().servers();
        assert_eq!(servers.len(), 1);
        assert_eq!(servers[0].beacon.name, "Loopback");
        assert_eq!(
            servers[0].game_addr(Instant::now()),
            "127.0.0.1:4778".parse().expect("addr")
        );
        while l.dropped() == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
            l.poll(Instant::now());
        }
        assert_eq!(l.dropped(), 1);
    }
}

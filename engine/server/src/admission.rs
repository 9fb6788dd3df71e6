//! Who may enter: the connect gauntlet, run in order on every new connection — ban, allowlist,
//! per-IP connect rate (a token bucket), per-IP concurrent cap, admin-auth lockout — each failure answered with
//! `MsgConnectRefusal` and its code; then the `MsgConnectRequest` checks (protocol version, role,
//! join password, required packs) and the request timeout for peers that never ask.
//!
//! Owns the per-IP bookkeeping. Spawning, replies and the world belong to the server.

use fl_protocol::PROTOCOL_VERSION;
use fl_protocol::enums::{ConnectRefusalCode, PeerRole};
use fl_protocol::msg::handshake::ConnectRequest;
use fl_protocol::tlv::{Ext, Extensions, tag};
use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

/// Addresses whose connect buckets are remembered before all are forgotten (bounds memory).
const MAX_TRACKED_CONNECT_ADDRESSES: usize = 100_000;

/// Service ticks per second (the server's fixed 60 Hz step); turns a bucket's wait into seconds.
const TICKS_PER_SECOND: u64 = 60;

/// Addresses whose admin-auth failures are remembered before counts (not lockouts) are dropped.
const MAX_TRACKED_AUTH_ADDRESSES: usize = 100_000;

/// `[server]`/`[admission]` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct AdmissionConfig {
    pub bans: BTreeSet<IpAddr>,
    /// When set, only these addresses may connect.
    pub allowlist: Option<BTreeSet<IpAddr>>,
    /// Connection attempts one IP may make at once: the per-IP token bucket's size. Players
    /// behind one NAT or at a LAN party all join at the same moment, so this is generous.
    pub connect_burst: usize,
    /// Sustained rate: the bucket gets `connect_rate` tokens back per `connect_window_ticks`
    /// (one every `connect_window_ticks / connect_rate`).
    pub connect_rate: usize,
    pub connect_window_ticks: u64,
    /// Concurrent connections per IP.
    pub max_per_ip: usize,
    /// Consecutive admin-auth failures before an IP is locked out.
    pub admin_auth_max_failures: u32,
    pub admin_auth_lockout_ticks: u64,
    /// Join password (`ConnectJoinPassword`); `None` = open server.
    pub password: Option<String>,
    /// Pack ids a client must have mounted.
    pub required_packs: Vec<String>,
    pub allow_observers: bool,
    /// A connected peer that sends no `MsgConnectRequest` within this is dropped.
    pub request_timeout_ticks: u64,
}

impl Default for AdmissionConfig {
    fn default() -> Self {
        Self {
            bans: BTreeSet::new(),
            allowlist: None,
            connect_burst: 16,
            connect_rate: 10,
            connect_window_ticks: 10 * 60,
            max_per_ip: 32,
            admin_auth_max_failures: 5,
            admin_auth_lockout_ticks: 300 * 60,
            password: None,
            required_packs: Vec::new(),
            allow_observers: true,
            request_timeout_ticks: 10 * 60,
        }
    }
}

/// A refusal: the code and the text the client shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: ConnectRefusalCode,
    pub reason: String,
}

impl Refusal {
    fn new(code: ConnectRefusalCode, reason: impl Into<String>) -> Self {
        Self {
            code,
            reason: reason.into(),
        }
    }
}

/// What an accepted `MsgConnectRequest` asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinRequest {
    pub role: PeerRole,
    /// Requested type id (empty = server default).
    pub entity_type: String,
    pub callsign: String,
    pub identity: Option<String>,
    /// The pack ids the client reported mounted (a pilot flying a pack's type needs that pack).
    pub packs: Vec<String>,
}

/// Per-IP admission state.
#[derive(Debug, Default)]
pub struct Admission {
    cfg: AdmissionConfig,
    /// Per-IP connect bucket as a GCRA "theoretical arrival time" in scaled ticks (ticks ×
    /// `connect_rate`, so one token is exactly `connect_window_ticks` units and no fraction is
    /// ever rounded). An address whose bucket is full again has no entry: O(1) per attempt,
    /// memory only for addresses that connected within the last burst's refill time.
    connect_tat: BTreeMap<IpAddr, u128>,
    concurrent: BTreeMap<IpAddr, usize>,
    auth_failures: BTreeMap<IpAddr, (u32, Option<u64>)>,
}

impl Admission {
    pub fn new(cfg: AdmissionConfig) -> Self {
        Self {
            cfg,
            ..Self::default()
        }
    }

    pub fn config(&self) -> &AdmissionConfig {
        &self.cfg
    }

    /// Runs the gauntlet for a new connection at `tick`. On success the connection counts
    /// against its IP until [`Admission::on_disconnect`].
    pub fn on_connect(&mut self, ip: IpAddr, tick: u64) -> Result<(), Refusal> {
        if self.cfg.bans.contains(&ip) {
            return Err(Refusal::new(
                ConnectRefusalCode::Banned,
                "You are banned from this server.",
            ));
        }
        if self
            .cfg
            .allowlist
            .as_ref()
            .is_some_and(|a| !a.contains(&ip))
        {
            return Err(Refusal::new(
                ConnectRefusalCode::AccessDenied,
                "Access denied.",
            ));
        }
        if let Err(wait_ticks) = self.take_connect_token(ip, tick) {
            // The client shows this text; it names the bucket's real refill time, rounded up
            // to whole seconds so a player who waits exactly that long gets in.
            let secs = wait_ticks.div_ceil(TICKS_PER_SECOND).max(1);
            return Err(Refusal::new(
                ConnectRefusalCode::RateLimited,
                format!("Too many connection attempts; try again in {secs} s."),
            ));
        }
        if self.concurrent.get(&ip).copied().unwrap_or(0) >= self.cfg.max_per_ip {
            return Err(Refusal::new(
                ConnectRefusalCode::TooManyConnections,
                "Too many connections from your address.",
            ));
        }
        if self.locked_out(ip, tick) {
            return Err(Refusal::new(
                ConnectRefusalCode::AdminLockout,
                "Access denied.",
            ));
        }
        *self.concurrent.entry(ip).or_default() += 1;
        Ok(())
    }

    /// Takes one token from `ip`'s connect bucket at `tick`, or says in how many ticks the next
    /// token returns. A refused attempt takes nothing, so a flood neither drains the bucket
    /// further nor pushes the wait out: it is refused at the cost of one map lookup.
    fn take_connect_token(&mut self, ip: IpAddr, tick: u64) -> Result<(), u64> {
        let (next, wait) = self.connect_bucket(ip, tick);
        if wait > 0 {
            return Err(wait);
        }
        self.connect_tat.insert(ip, next);
        Ok(())
    }

    /// In how many ticks `ip` may connect again (0 = now): its connect bucket's refill time.
    pub fn connect_wait_ticks(&self, ip: IpAddr, tick: u64) -> u64 {
        self.connect_bucket(ip, tick).1
    }

    /// `ip`'s bucket at `tick`: the arrival time after taking one more token, and the ticks
    /// until that take fits in the bucket (0 = it fits now).
    fn connect_bucket(&self, ip: IpAddr, tick: u64) -> (u128, u64) {
        let rate = self.cfg.connect_rate.max(1) as u128;
        let interval = u128::from(self.cfg.connect_window_ticks.max(1));
        let burst = self.cfg.connect_burst.max(1) as u128;
        let now = u128::from(tick) * rate;
        let next = self.connect_tat.get(&ip).copied().unwrap_or(0).max(now) + interval;
        // Tokens spent and not yet returned must fit in the bucket.
        let over = (next - now).saturating_sub(burst * interval);
        (next, u64::try_from(over.div_ceil(rate)).unwrap_or(u64::MAX))
    }

    /// A connection that passed the gauntlet is gone.
    pub fn on_disconnect(&mut self, ip: IpAddr) {
        if let Some(n) = self.concurrent.get_mut(&ip) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.concurrent.remove(&ip);
            }
        }
    }

    /// Forgets the buckets that are full again (bounds memory under churn).
    pub fn prune(&mut self, tick: u64) {
        let now = u128::from(tick) * self.cfg.connect_rate.max(1) as u128;
        self.connect_tat.retain(|_, tat| *tat > now);
        // Only a flood from more distinct (Retry-validated) addresses than this within one
        // refill time gets here; forgetting the buckets then frees them early, and the
        // per-IP and global connection caps still hold.
        if self.connect_tat.len() > MAX_TRACKED_CONNECT_ADDRESSES {
            self.connect_tat.clear();
        }
        // Failure counts persist across reconnects (the spec keys them on the IP); a lockout
        // lasts until it expires. Only a flood of distinct addresses may cut the counts short.
        self.auth_failures
            .retain(|_, (n, until)| *n > 0 || until.is_some_and(|u| tick < u));
        if self.auth_failures.len() > MAX_TRACKED_AUTH_ADDRESSES {
            self.auth_failures
                .retain(|_, (_, until)| until.is_some_and(|u| tick < u));
        }
    }

    fn locked_out(&self, ip: IpAddr, tick: u64) -> bool {
        self.auth_failures
            .get(&ip)
            .and_then(|(_, until)| *until)
            .is_some_and(|until| tick < until)
    }

    /// Records an admin-auth failure from `ip`; returns true when the IP is now locked out (the
    /// caller kicks the peer).
    pub fn admin_auth_failed(&mut self, ip: IpAddr, tick: u64) -> bool {
        let (n, until) = self.auth_failures.entry(ip).or_insert((0, None));
        *n += 1;
        if *n >= self.cfg.admin_auth_max_failures {
            *until = Some(tick + self.cfg.admin_auth_lockout_ticks);
            *n = 0;
            return true;
        }
        false
    }

    /// Adds `ip` to the bans the gauntlet refuses (the operator's `ban`).
    pub fn ban(&mut self, ip: IpAddr) {
        self.cfg.bans.insert(ip);
    }

    /// Lifts a ban; whether `ip` was banned.
    pub fn unban(&mut self, ip: IpAddr) -> bool {
        self.cfg.bans.remove(&ip)
    }

    /// The banned addresses, in order.
    pub fn banned(&self) -> impl Iterator<Item = IpAddr> + '_ {
        self.cfg.bans.iter().copied()
    }

    /// A successful admin authentication clears the IP's failure count.
    pub fn admin_auth_succeeded(&mut self, ip: IpAddr) {
        self.auth_failures.remove(&ip);
    }

    /// Checks a join request. Capacity (`ServerFull`, `NoAirframe`) is the server's call.
    pub fn check_request(
        &self,
        req: &ConnectRequest,
        ext: &Extensions,
    ) -> Result<JoinRequest, Refusal> {
        if req.protocol_version != PROTOCOL_VERSION {
            return Err(Refusal::new(
                ConnectRefusalCode::Generic,
                format!(
                    "Protocol version {} is not supported (server speaks {PROTOCOL_VERSION}).",
                    req.protocol_version
                ),
            ));
        }
        if req.requested_role == PeerRole::Observer && !self.cfg.allow_observers {
            return Err(Refusal::new(
                ConnectRefusalCode::RoleDenied,
                "Observers are not allowed on this server.",
            ));
        }
        if let Some(password) = &self.cfg.password {
            let given = match ext.get(tag::CONNECT_JOIN_PASSWORD) {
                Some(Ext::ConnectJoinPassword(p)) => p,
                _ => String::new(),
            };
            if !constant_time_eq(given.as_bytes(), password.as_bytes()) {
                return Err(Refusal::new(
                    ConnectRefusalCode::BadPassword,
                    "Wrong or missing server password.",
                ));
            }
        }
        let missing: Vec<&str> = self
            .cfg
            .required_packs
            .iter()
            .filter(|id| !req.packs.iter().any(|p| p.id.as_str() == id.as_str()))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(Refusal::new(
                ConnectRefusalCode::MissingRequiredPack,
                format!("Missing required pack(s): {}", missing.join(", ")),
            ));
        }
        let identity = match ext.get(tag::CONNECT_IDENTITY) {
            Some(Ext::ConnectIdentity(s)) if !s.is_empty() => Some(s),
            _ => None,
        };
        Ok(JoinRequest {
            role: req.requested_role,
            entity_type: req.requested_entity_type.as_str().to_owned(),
            callsign: sanitize_callsign(req.callsign.as_str()),
            identity,
            packs: req.packs.iter().map(|p| p.id.as_str().to_owned()).collect(),
        })
    }
}

/// Printable characters only, trimmed; may come back empty (the server then names the peer).
pub fn sanitize_callsign(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .to_owned()
}

/// The server's one secret comparison (join password, admin token): no early exit on the
/// first differing byte, so the time taken does not say how much of a guess was right (the
/// length still shows; the secrets' lengths are not the secret).
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    // Keeps the optimiser from turning the fold back into a short-circuiting compare.
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::msg::handshake::PackManifestEntry;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, last])
    }

    #[test]
    fn constant_time_eq_compares_every_byte() {
        assert!(constant_time_eq(b"", b""));
        assert!(constant_time_eq(b"hunter2", b"hunter2"));
        assert!(!constant_time_eq(b"hunter2", b"Hunter2"), "first byte");
        assert!(!constant_time_eq(b"hunter2", b"hunter3"), "last byte");
        assert!(!constant_time_eq(b"hunter2", b"hunter"), "a prefix");
        assert!(!constant_time_eq(b"", b"x"));
        // Bytes that differ only in bits a short-circuit of a sum would cancel out.
        assert!(!constant_time_eq(&[0x01, 0xFF], &[0xFF, 0x01]));
    }

    #[test]
    fn the_gauntlet_runs_in_order() {
        let mut cfg = AdmissionConfig {
            connect_burst: 2,
            connect_rate: 2,
            max_per_ip: 1,
            ..AdmissionConfig::default()
        };
        cfg.bans.insert(ip(9));
        cfg.allowlist = Some([ip(1), ip(2), ip(9)].into_iter().collect());
        let mut a = Admission::new(cfg);
        let code = |r: Result<(), Refusal>| r.err().map(|e| e.code);
        assert_eq!(
            code(a.on_connect(ip(9), 0)),
            Some(ConnectRefusalCode::Banned)
        );
        assert_eq!(
            code(a.on_connect(ip(3), 0)),
            Some(ConnectRefusalCode::AccessDenied)
        );
        assert_eq!(code(a.on_connect(ip(1), 0)), None);
        assert_eq!(
            code(a.on_connect(ip(1), 1)),
            Some(ConnectRefusalCode::TooManyConnections)
        );
        assert_eq!(
            code(a.on_connect(ip(1), 2)),
            Some(ConnectRefusalCode::RateLimited)
        );
        a.on_disconnect(ip(1));
        assert_eq!(
            code(a.on_connect(ip(1), 700)),
            None,
            "window passed, slot freed"
        );
        for _ in 0..5 {
            a.admin_auth_failed(ip(2), 10);
        }
        assert_eq!(
            code(a.on_connect(ip(2), 11)),
            Some(ConnectRefusalCode::AdminLockout)
        );
    }

    #[test]
    fn sixteen_players_behind_one_address_join_at_once() {
        let mut a = Admission::new(AdmissionConfig::default());
        for n in 0..16 {
            assert_eq!(a.on_connect(ip(1), 0), Ok(()), "player {n}");
        }
    }

    /// The refusal's text, the bucket's wait and the moment the bucket lets the next one in
    /// agree, for the default and for a slow sustained rate.
    #[test]
    fn a_flood_is_refused_beyond_the_burst_naming_the_real_wait() {
        for (rate, window_s, burst) in [(10, 10, 16), (1, 30, 4), (3, 7, 5)] {
            let cfg = AdmissionConfig {
                connect_burst: burst,
                connect_rate: rate,
                connect_window_ticks: window_s * 60,
                max_per_ip: 1024,
                ..AdmissionConfig::default()
            };
            let mut a = Admission::new(cfg);
            // 200 attempts spread over the first 30 ticks.
            let mut admitted = 0;
            let mut last_refusal = None;
            for n in 0..200u64 {
                match a.on_connect(ip(1), n * 30 / 200) {
                    Ok(()) => admitted += 1,
                    Err(r) => last_refusal = Some(r),
                }
            }
            assert_eq!(admitted, burst, "rate {rate}/{window_s}s burst {burst}");
            let refusal = last_refusal.expect("the flood is refused");
            assert_eq!(refusal.code, ConnectRefusalCode::RateLimited);
            // One token returns every window/rate; the first was spent at tick 0.
            let refill_ticks = (window_s * 60).div_ceil(rate as u64);
            let at = 29;
            let wait = a.connect_wait_ticks(ip(1), at);
            assert_eq!(wait, refill_ticks - at);
            assert_eq!(
                refusal.reason,
                format!(
                    "Too many connection attempts; try again in {} s.",
                    wait.div_ceil(60)
                )
            );
            // Refused one tick early, admitted exactly when the token is back.
            assert!(a.on_connect(ip(1), at + wait - 1).is_err());
            assert_eq!(a.on_connect(ip(1), at + wait), Ok(()));
            // Another address is untouched by the flood.
            for n in 0..burst {
                assert_eq!(a.on_connect(ip(2), at), Ok(()), "ip 2, attempt {n}");
            }
        }
    }

    /// The slowest rate the config file accepts (one per hour) still names its wait in full
    /// inside `MsgConnectRefusal`'s 62-byte reason field.
    #[test]
    fn the_longest_wait_fits_the_wire_field() {
        let mut a = Admission::new(AdmissionConfig {
            connect_burst: 1,
            connect_rate: 1,
            connect_window_ticks: 3600 * 60,
            ..AdmissionConfig::default()
        });
        a.on_connect(ip(1), 0).expect("the one token");
        let r = a.on_connect(ip(1), 0).expect_err("refused");
        assert_eq!(
            r.reason,
            "Too many connection attempts; try again in 3600 s."
        );
        assert!(r.reason.len() < 62);
    }

    #[test]
    fn a_refill_and_prune_forget_a_quiet_address() {
        let mut a = Admission::new(AdmissionConfig::default());
        for _ in 0..16 {
            a.on_connect(ip(1), 0).expect("burst");
        }
        assert!(a.on_connect(ip(1), 0).is_err());
        // Sixteen tokens at one a second: full again after 16 s.
        a.prune(16 * 60 - 1);
        assert_eq!(a.connect_tat.len(), 1);
        a.prune(16 * 60);
        assert!(a.connect_tat.is_empty(), "a full bucket costs no memory");
        // Memory stays bounded under a flood of distinct addresses.
        for n in 0..=MAX_TRACKED_CONNECT_ADDRESSES as u32 {
            a.on_connect(IpAddr::from(n.to_be_bytes()), 16 * 60)
                .expect("a fresh address");
        }
        a.prune(16 * 60);
        assert!(a.connect_tat.is_empty());
        for _ in 0..16 {
            a.on_connect(ip(1), 16 * 60).expect("a full burst again");
        }
    }

    #[test]
    fn requests_are_checked() {
        let a = Admission::new(AdmissionConfig {
            password: Some("hunter2".into()),
            required_packs: vec!["fl-base-pack".into()],
            allow_observers: false,
            ..AdmissionConfig::default()
        });
        let mut req = ConnectRequest {
            protocol_version: PROTOCOL_VERSION,
            callsign: " Ma\u{7}verick ".into(),
            ..Default::default()
        };
        let mut ext = Extensions::new();
        let code = |r: Result<JoinRequest, Refusal>| r.err().map(|e| e.code);
        assert_eq!(
            code(a.check_request(&req, &ext)),
            Some(ConnectRefusalCode::BadPassword)
        );
        ext.push(&Ext::ConnectJoinPassword("hunter2".into()))
            .expect("fits");
        assert_eq!(
            code(a.check_request(&req, &ext)),
            Some(ConnectRefusalCode::MissingRequiredPack)
        );
        req.packs.push(PackManifestEntry {
            id: "fl-base-pack".into(),
            ..Default::default()
        });
        let join = a.check_request(&req, &ext).expect("admitted");
        assert_eq!(join.callsign, "Maverick");
        req.requested_role = PeerRole::Observer;
        assert_eq!(
            code(a.check_request(&req, &ext)),
            Some(ConnectRefusalCode::RoleDenied)
        );
        req.requested_role = PeerRole::Pilot;
        req.protocol_version = 2;
        assert_eq!(
            code(a.check_request(&req, &ext)),
            Some(ConnectRefusalCode::Generic)
        );
    }
}

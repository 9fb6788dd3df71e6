//! Who may enter: the connect gauntlet, run in order on every new connection — ban, allowlist,
//! per-IP connect rate, per-IP concurrent cap, admin-auth lockout — each failure answered with
//! `MsgConnectRefusal` and its code; then the `MsgConnectRequest` checks (protocol version, role,
//! join password, required packs) and the request timeout for peers that never ask.
//!
//! Owns the per-IP bookkeeping. Spawning, replies and the world belong to the server.

use fl_protocol::PROTOCOL_VERSION;
use fl_protocol::enums::{ConnectRefusalCode, PeerRole};
use fl_protocol::msg::handshake::ConnectRequest;
use fl_protocol::tlv::{Ext, Extensions, tag};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::IpAddr;

/// Addresses whose admin-auth failures are remembered before counts (not lockouts) are dropped.
const MAX_TRACKED_AUTH_ADDRESSES: usize = 100_000;

/// `[server]`/`[admission]` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct AdmissionConfig {
    pub bans: BTreeSet<IpAddr>,
    /// When set, only these addresses may connect.
    pub allowlist: Option<BTreeSet<IpAddr>>,
    /// Connections per IP allowed within `connect_window_ticks`.
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
            connect_rate: 5,
            connect_window_ticks: 10 * 60,
            max_per_ip: 8,
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
    recent_connects: BTreeMap<IpAddr, VecDeque<u64>>,
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
        let window = self.cfg.connect_window_ticks;
        let recent = self.recent_connects.entry(ip).or_default();
        while recent
            .front()
            .is_some_and(|&t| tick.saturating_sub(t) >= window)
        {
            recent.pop_front();
        }
        if recent.len() >= self.cfg.connect_rate {
            return Err(Refusal::new(
                ConnectRefusalCode::RateLimited,
                "Connection rate limit exceeded. Try again later.",
            ));
        }
        recent.push_back(tick);
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

    /// A connection that passed the gauntlet is gone.
    pub fn on_disconnect(&mut self, ip: IpAddr) {
        if let Some(n) = self.concurrent.get_mut(&ip) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.concurrent.remove(&ip);
            }
        }
    }

    /// Forgets rate-limit history older than the window (bounds memory under churn).
    pub fn prune(&mut self, tick: u64) {
        let window = self.cfg.connect_window_ticks;
        self.recent_connects.retain(|_, q| {
            q.retain(|&t| tick.saturating_sub(t) < window);
            !q.is_empty()
        });
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

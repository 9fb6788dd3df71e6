//! The status page's operator login: the token from `[http] admin_token` compared in constant
//! time, consecutive failures counted per IP address with a lockout, and short-lived sessions
//! handed out as random cookies.
//!
//! Owns only the bookkeeping around a verdict; it never reads the wall clock itself (callers pass
//! `now`), never sees a request, and never runs a command.

use crate::admission::constant_time_eq;
use ring::rand::{SecureRandom, SystemRandom};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// Most sessions alive at once; the oldest is dropped to make room (an operator logging in again
/// is never refused for want of a slot).
pub const MAX_SESSIONS: usize = 32;
/// Most addresses whose failures are remembered; beyond it the oldest record is forgotten (a
/// flood of spoofed addresses cannot grow the table).
pub const MAX_TRACKED_ADDRESSES: usize = 4096;

/// Login policy (`[http] admin_max_failures`, `admin_lockout_s`, `session_ttl_s`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AuthPolicy {
    /// Consecutive failures from one address before it is locked out.
    pub max_failures: u32,
    pub lockout: Duration,
    /// How long a session lives after its last use.
    pub session_ttl: Duration,
}

impl Default for AuthPolicy {
    fn default() -> Self {
        Self {
            max_failures: 5,
            lockout: Duration::from_secs(300),
            session_ttl: Duration::from_secs(3600),
        }
    }
}

/// Why a login was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LoginError {
    #[error("no admin token is configured: the admin actions are off")]
    Disabled,
    #[error("wrong token")]
    WrongToken,
    #[error("too many failed logins from this address; try again in {0} s")]
    LockedOut(u64),
    #[error("the system random source failed")]
    Random,
}

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
    locked_until: Option<Instant>,
}

#[derive(Debug, Clone, Copy)]
struct SessionEntry {
    last_used: Instant,
}

/// Logins, lockouts and sessions.
#[derive(Debug)]
pub struct Auth {
    token: Option<String>,
    policy: AuthPolicy,
    failures: BTreeMap<IpAddr, Failures>,
    sessions: BTreeMap<String, SessionEntry>,
    rng: SystemRandom,
}

impl Auth {
    /// `token` `None` (or empty) turns the admin actions off: every login is refused.
    pub fn new(token: Option<String>, policy: AuthPolicy) -> Self {
        Self {
            token: token.filter(|t| !t.is_empty()),
            policy,
            failures: BTreeMap::new(),
            sessions: BTreeMap::new(),
            rng: SystemRandom::new(),
        }
    }

    /// Whether admin actions can be unlocked at all.
    pub fn enabled(&self) -> bool {
        self.token.is_some()
    }

    /// Checks `presented` from `ip`; on success returns a new session id (64 hex digits).
    pub fn login(
        &mut self,
        ip: IpAddr,
        presented: &str,
        now: Instant,
    ) -> Result<String, LoginError> {
        let Some(token) = &self.token else {
            return Err(LoginError::Disabled);
        };
        if let Some(f) = self.failures.get(&ip)
            && let Some(until) = f.locked_until
            && now < until
        {
            // A locked-out address is not even compared: guessing continues to cost nothing
            // but also to gain nothing.
            return Err(LoginError::LockedOut((until - now).as_secs().max(1)));
        }
        if !constant_time_eq(token.as_bytes(), presented.as_bytes()) {
            self.record_failure(ip, now);
            if let Some(until) = self.failures.get(&ip).and_then(|f| f.locked_until) {
                tracing::warn!(%ip, "status page: admin login locked out after repeated failures");
                return Err(LoginError::LockedOut((until - now).as_secs().max(1)));
            }
            tracing::warn!(%ip, "status page: admin login failed");
            return Err(LoginError::WrongToken);
        }
        self.failures.remove(&ip);
        let mut raw = [0u8; 32];
        self.rng.fill(&mut raw).map_err(|_| LoginError::Random)?;
        let id: String = raw.iter().map(|b| format!("{b:02x}")).collect();
        self.expire(now);
        if self.sessions.len() >= MAX_SESSIONS
            && let Some(oldest) = self
                .sessions
                .iter()
                .min_by_key(|(_, s)| s.last_used)
                .map(|(k, _)| k.clone())
        {
            self.sessions.remove(&oldest);
        }
        self.sessions
            .insert(id.clone(), SessionEntry { last_used: now });
        tracing::info!(%ip, "status page: operator logged in");
        Ok(id)
    }

    fn record_failure(&mut self, ip: IpAddr, now: Instant) {
        if !self.failures.contains_key(&ip)
            && self.failures.len() >= MAX_TRACKED_ADDRESSES
            && let Some(oldest) = self
                .failures
                .iter()
                .filter(|(_, f)| f.locked_until.is_none_or(|u| u <= now))
                .min_by_key(|(_, f)| f.last)
                .map(|(k, _)| *k)
        {
            self.failures.remove(&oldest);
        }
        if self.failures.len() >= MAX_TRACKED_ADDRESSES && !self.failures.contains_key(&ip) {
            // Every remembered address is locked out right now: the table stays as it is.
            return;
        }
        let f = self.failures.entry(ip).or_insert(Failures {
            count: 0,
            last: now,
            locked_until: None,
        });
        if f.locked_until.is_some_and(|u| u <= now) {
            f.count = 0;
            f.locked_until = None;
        }
        f.count += 1;
        f.last = now;
        if f.count >= self.policy.max_failures {
            f.locked_until = Some(now + self.policy.lockout);
        }
    }

    /// Whether `session` is a live session (and refreshes it).
    pub fn check(&mut self, session: &str, now: Instant) -> bool {
        self.expire(now);
        // The map lookup compares ids with ordinary string comparison: the id is 256 random bits,
        // so timing reveals nothing an attacker could use to guess one.
        match self.sessions.get_mut(session) {
            Some(s) => {
                s.last_used = now;
                true
            }
            None => false,
        }
    }

    /// Ends `session`.
    pub fn logout(&mut self, session: &str) {
        self.sessions.remove(session);
    }

    fn expire(&mut self, now: Instant) {
        let ttl = self.policy.session_ttl;
        self.sessions
            .retain(|_, s| now.saturating_duration_since(s.last_used) < ttl);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(n: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, n])
    }

    fn auth() -> Auth {
        Auth::new(Some("s3cret".into()), AuthPolicy::default())
    }

    #[test]
    fn the_right_token_opens_a_session_and_a_wrong_one_does_not() {
        let mut a = auth();
        let t0 = Instant::now();
        assert_eq!(a.login(ip(1), "nope", t0), Err(LoginError::WrongToken));
        let s = a.login(ip(1), "s3cret", t0).expect("login");
        assert_eq!(s.len(), 64);
        assert!(a.check(&s, t0));
        assert!(!a.check("0000", t0));
        a.logout(&s);
        assert!(!a.check(&s, t0));
    }

    #[test]
    fn without_a_token_every_login_is_refused() {
        let mut a = Auth::new(Some(String::new()), AuthPolicy::default());
        assert!(!a.enabled());
        assert_eq!(
            a.login(ip(1), "", Instant::now()),
            Err(LoginError::Disabled)
        );
    }

    #[test]
    fn five_failures_lock_the_address_out_even_for_the_right_token_until_the_lockout_ends() {
        let mut a = auth();
        let t0 = Instant::now();
        for _ in 0..4 {
            assert_eq!(a.login(ip(2), "x", t0), Err(LoginError::WrongToken));
        }
        assert!(matches!(
            a.login(ip(2), "x", t0),
            Err(LoginError::LockedOut(300))
        ));
        assert!(matches!(
            a.login(ip(2), "s3cret", t0 + Duration::from_secs(10)),
            Err(LoginError::LockedOut(290))
        ));
        // Another address is not affected.
        assert!(a.login(ip(3), "s3cret", t0).is_ok());
        // After the lockout the count starts again.
        let later = t0 + Duration::from_secs(301);
        assert!(a.login(ip(2), "s3cret", later).is_ok());
    }

    #[test]
    fn a_success_clears_the_failure_count() {
        let mut a = auth();
        let t0 = Instant::now();
        for _ in 0..4 {
            let _ = a.login(ip(4), "x", t0);
        }
        assert!(a.login(ip(4), "s3cret", t0).is_ok());
        for _ in 0..4 {
            assert_eq!(a.login(ip(4), "x", t0), Err(LoginError::WrongToken));
        }
    }

    #[test]
    fn sessions_expire_after_their_ttl_and_are_capped() {
        let mut a = auth();
        let t0 = Instant::now();
        let s = a.login(ip(5), "s3cret", t0).expect("login");
        assert!(a.check(&s, t0 + Duration::from_secs(3599)));
        assert!(!a.check(&s, t0 + Duration::from_secs(3599 + 3600)));
        let ids: Vec<String> = (0..MAX_SESSIONS + 3)
            .map(|i| {
                a.login(ip(6), "s3cret", t0 + Duration::from_secs(i as u64))
                    .expect("login")
            })
            .collect();
        assert!(a.sessions.len() <= MAX_SESSIONS);
        assert!(!a.check(&ids[0], t0 + Duration::from_secs(100)));
        assert!(a.check(&ids[MAX_SESSIONS + 2], t0 + Duration::from_secs(100)));
    }

    #[test]
    fn a_flood_of_addresses_keeps_the_failure_table_bounded() {
        let mut a = auth();
        let t0 = Instant::now();
        for i in 0..(MAX_TRACKED_ADDRESSES as u32 + 100) {
            let addr = IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + i));
            let _ = a.login(addr, "x", t0 + Duration::from_millis(u64::from(i)));
        }
        assert!(a.failures.len() <= MAX_TRACKED_ADDRESSES);
    }
}

//! The server browser's networking, without any UI: LAN servers heard from `MsgLanBeacon`
//! ([`lan`]), the addresses the player listed (favourites, recent servers, the typed address)
//! resolved off the frame thread, and every entry refreshed with `MsgServerQuery` →
//! `MsgServerInfo` ([`query`]) without joining. The Join screen polls it once a frame while it
//! is open and drops it when it closes (the LAN listener lives only that long).
//!
//! Owns: the sockets, the name lookups in flight and the rows the screen draws. Must not: block
//! a frame (a non-blocking LAN socket with bounded reads, query replies stamped on receiver
//! threads and handed over a bounded channel, lookups on short-lived threads), send anything
//! but queries to servers a beacon named or the player listed, query faster than
//! [`query`]'s limits, or grow without bound.

pub mod lan;
pub mod query;

use std::collections::BTreeMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::mpsc::{Receiver, TryRecvError, sync_channel};
use std::time::Instant;

use crate::address::parse_target;
pub use lan::{Beacon, LanListener, LanServer, LanTable};
pub use query::{QueryClient, QueryStatus, ServerDetails};

/// Listed addresses looked up at most (favourites, recent, typed).
pub const MAX_LISTED: usize = 64;
/// Name lookups running at once at most.
pub const MAX_LOOKUPS_IN_FLIGHT: usize = 4;

/// How the browser starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BrowserConfig {
    /// Where the LAN listener binds (`None`: no LAN listing). The game uses
    /// `0.0.0.0:kDiscoveryPort`; tests bind `127.0.0.1:0` and send beacons there.
    pub lan_bind: Option<SocketAddr>,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        Self {
            lan_bind: Some(SocketAddr::from((
                [0, 0, 0, 0],
                fl_protocol::ids::DISCOVERY_PORT,
            ))),
        }
    }
}

/// Where a row comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    Lan,
    Favourite,
    Recent,
}

/// Where a listed address's lookup stands.
#[derive(Debug)]
enum Lookup {
    Running(Receiver<Result<SocketAddr, String>>),
    Done(Result<SocketAddr, String>),
}

/// One line of the browser.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub origin: Origin,
    /// What Connect is given (the listed text, or the LAN server's address).
    pub address: String,
    /// The name to show (the reply's, else the beacon's, else the address).
    pub name: String,
    /// The newest query answer.
    pub details: Option<ServerDetails>,
    /// Players as the beacon said (LAN rows, until a reply comes).
    pub beacon_players: Option<(u8, u8)>,
    /// What is going on when there are no details: "looking up", "querying", "no reply", a
    /// lookup error.
    pub status: String,
}

/// The browser: LAN listener (optional), query client, lookups.
#[derive(Debug)]
pub struct ServerBrowser {
    lan: Option<LanListener>,
    /// Why the LAN listener could not start.
    lan_error: Option<String>,
    query: QueryClient,
    lookups: BTreeMap<String, Lookup>,
    listed: Vec<(Origin, String)>,
}

impl ServerBrowser {
    /// Starts the browser (binds the LAN listener when configured; a port that cannot be bound
    /// leaves LAN listing off with the reason in [`ServerBrowser::lan_error`]).
    pub fn start(cfg: BrowserConfig) -> Self {
        let (lan, lan_error) = match cfg.lan_bind.map(LanListener::bind) {
            Some(Ok(l)) => (Some(l), None),
            Some(Err(e)) => {
                tracing::warn!("LAN server list off: {e}");
                (None, Some(format!("LAN servers cannot be listed: {e}")))
            }
            None => (None, None),
        };
        Self {
            lan,
            lan_error,
            query: QueryClient::new(),
            lookups: BTreeMap::new(),
            listed: Vec::new(),
        }
    }

    /// The LAN listener's address (its port is where beacons must arrive).
    pub fn lan_addr(&self) -> Option<SocketAddr> {
        self.lan.as_ref().and_then(LanListener::local_addr)
    }

    pub fn lan_error(&self) -> Option<&str> {
        self.lan_error.as_deref()
    }

    /// The LAN servers heard.
    pub fn lan(&self) -> Option<&LanListener> {
        self.lan.as_ref()
    }

    /// The addresses the player listed, in order (at most [`MAX_LISTED`]; unparsable ones are
    /// shown with the parser's reason and never looked up).
    pub fn set_listed(&mut self, favourites: &[String], recent: &[String]) {
        let mut listed: Vec<(Origin, String)> = Vec::new();
        for (origin, list) in [(Origin::Favourite, favourites), (Origin::Recent, recent)] {
            for a in list {
                let a = a.trim();
                if listed.len() < MAX_LISTED && !listed.iter().any(|(_, l)| l == a) {
                    listed.push((origin, a.to_owned()));
                }
            }
        }
        self.lookups
            .retain(|a, _| listed.iter().any(|(_, l)| l == a));
        self.listed = listed;
    }

    /// One frame's work: receive beacons and replies, advance lookups, send the queries due.
    /// `force`: ask every server again now (the Refresh button), rate limits permitting.
    pub fn poll(&mut self, now: Instant, force: bool) {
        if let Some(l) = &mut self.lan {
            l.poll(now);
        }
        self.query.poll(now);
        self.advance_lookups();
        let mut targets: Vec<SocketAddr> = Vec::new();
        if let Some(l) = &self.lan {
            targets.extend(l.table().servers().iter().filter_map(|s| s.query_addr(now)));
        }
        for (_, a) in &self.listed {
            if let Some(Lookup::Done(Ok(game))) = self.lookups.get(a) {
                targets.push(self.query_addr_for(*game, now));
            }
        }
        for t in targets {
            if query::queryable(t.ip()) {
                self.query.query(t, now, force);
            }
        }
    }

    /// Where a listed server's queries go: the port its beacon advertises when it is also on
    /// the LAN, else the default rule, game port + 1.
    fn query_addr_for(&self, game: SocketAddr, now: Instant) -> SocketAddr {
        if let Some(l) = &self.lan
            && let Some(s) = l
                .table()
                .servers()
                .into_iter()
                .find(|s| s.game_addr(now) == game)
            && let Some(q) = s.query_addr(now)
        {
            return q;
        }
        SocketAddr::new(game.ip(), game.port().wrapping_add(1).max(1))
    }

    /// Starts the lookups not yet started (a few at a time) and collects the finished.
    fn advance_lookups(&mut self) {
        for lookup in self.lookups.values_mut() {
            if let Lookup::Running(rx) = lookup {
                match rx.try_recv() {
                    Ok(r) => *lookup = Lookup::Done(r),
                    Err(TryRecvError::Empty) => {}
                    Err(TryRecvError::Disconnected) => {
                        *lookup = Lookup::Done(Err("the lookup failed".into()));
                    }
                }
            }
        }
        let mut running = self
            .lookups
            .values()
            .filter(|l| matches!(l, Lookup::Running(_)))
            .count();
        for (_, a) in &self.listed {
            if running >= MAX_LOOKUPS_IN_FLIGHT {
                break;
            }
            if self.lookups.contains_key(a) {
                continue;
            }
            let Ok((host, port)) = parse_target(a) else {
                continue;
            };
            // An IP address needs no lookup.
            if let Ok(ip) = host.parse::<std::net::IpAddr>() {
                self.lookups
                    .insert(a.clone(), Lookup::Done(Ok(SocketAddr::new(ip, port))));
                continue;
            }
            let (tx, rx) = sync_channel(1);
            let spawned = std::thread::Builder::new()
                .name("fl-browser-lookup".into())
                .spawn(move || {
                    let r = (host.as_str(), port)
                        .to_socket_addrs()
                        .map_err(|e| e.to_string())
                        .and_then(|mut it| {
                            let all: Vec<SocketAddr> = it.by_ref().take(8).collect();
                            all.iter()
                                .find(|a| a.is_ipv4())
                                .or(all.first())
                                .copied()
                                .ok_or_else(|| "no address".to_owned())
                        });
                    let _ = tx.send(r);
                });
            match spawned {
                Ok(_) => {
                    self.lookups.insert(a.clone(), Lookup::Running(rx));
                    running += 1;
                }
                Err(e) => {
                    self.lookups
                        .insert(a.clone(), Lookup::Done(Err(e.to_string())));
                }
            }
        }
    }

    /// The rows to draw: LAN servers first (by name), then favourites and recent servers in
    /// their saved order.
    pub fn rows(&self, now: Instant) -> Vec<Row> {
        let mut rows = Vec::new();
        if let Some(l) = &self.lan {
            for s in l.table().servers() {
                let status = s.query_addr(now).and_then(|q| self.query.status(q));
                let details = status.and_then(|st| st.details.clone());
                rows.push(Row {
                    origin: Origin::Lan,
                    address: s.game_addr(now).to_string(),
                    name: details
                        .as_ref()
                        .map(|d| d.name.clone())
                        .unwrap_or_else(|| s.beacon.name.clone()),
                    details,
                    beacon_players: Some((s.beacon.player_count, s.beacon.max_players)),
                    status: status_words(status, s.beacon.query_port == 0),
                });
            }
        }
        for (origin, a) in &self.listed {
            let (details, status) = match (parse_target(a), self.lookups.get(a)) {
                (Err(e), _) => (None, e.to_string()),
                (Ok(_), None | Some(Lookup::Running(_))) => (None, "looking up…".to_owned()),
                (Ok(_), Some(Lookup::Done(Err(e)))) => (None, format!("not found: {e}")),
                (Ok(_), Some(Lookup::Done(Ok(game)))) => {
                    let st = self.query.status(self.query_addr_for(*game, now));
                    (st.and_then(|s| s.details.clone()), status_words(st, false))
                }
            };
            rows.push(Row {
                origin: *origin,
                address: a.clone(),
                name: details
                    .as_ref()
                    .map(|d| d.name.clone())
                    .unwrap_or_else(|| a.clone()),
                details,
                beacon_players: None,
                status,
            });
        }
        rows
    }
}

fn status_words(st: Option<&QueryStatus>, no_query_port: bool) -> String {
    if no_query_port {
        return "no details (queries off)".to_owned();
    }
    match st {
        None => "querying…".to_owned(),
        Some(s) if s.details.is_some() => String::new(),
        Some(s) if s.no_reply => "no reply".to_owned(),
        Some(_) => "querying…".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn listed_addresses_are_deduplicated_bounded_and_explained() {
        let mut b = ServerBrowser::start(BrowserConfig { lan_bind: None });
        let many: Vec<String> = (0..200)
            .map(|i| format!("192.0.2.{}:4778", i % 250))
            .collect();
        b.set_listed(&["bad host:1".into(), "192.0.2.1:4778".into()], &many);
        assert_eq!(b.listed.len(), MAX_LISTED);
        let rows = b.rows(Instant::now());
        assert_eq!(rows[0].origin, Origin::Favourite);
        assert!(
            rows[0].status.contains("not a host name"),
            "{}",
            rows[0].status
        );
        assert_eq!(rows[1].address, "192.0.2.1:4778");
        assert_eq!(rows[2].origin, Origin::Recent);
        assert!(!rows.iter().skip(2).any(|r| r.address == "192.0.2.1:4778"));
    }

    #[test]
    fn a_listed_ip_address_is_queried_on_game_port_plus_one() {
        let server = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
        server
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let qport = server.local_addr().expect("addr").port();
        let mut b = ServerBrowser::start(BrowserConfig { lan_bind: None });
        b.set_listed(&[format!("127.0.0.1:{}", qport - 1)], &[]);
        b.poll(Instant::now(), false);
        let mut buf = [0u8; 512];
        let (n, _) = server.recv_from(&mut buf).expect("a query arrives");
        assert_eq!(buf[0], fl_protocol::ids::MsgId::ServerQuery as u8);
        assert_eq!(n, 208);
        assert_eq!(b.rows(Instant::now())[0].status, "querying…");
    }
}

//! The operator's command registry, shared by every admin frontend (the `MsgAdminCommand`
//! channel, the `fl-server` stdin console, and whatever calls [`crate::runtime::ServerHandle::admin`]):
//! [`grammar`] parses a line into a typed command (refusals carry the usage), [`dispatch`] runs
//! it against the server and words the result, [`wire`] frames a result as
//! `MsgAdminResponse`/`MsgAdminResponseChunk`, and [`bans`] keeps the persisted ban list.
//!
//! Owns the grammar, the wording and the framing. Must not: authenticate (each frontend does,
//! before calling [`dispatch`]), send anything itself, or read the clock.

pub mod bans;
pub mod grammar;
pub mod wire;

use crate::server::Server;
use fl_flight::geodetic::{self, Geodetic};
use fl_flight::math::Vec3;
use fl_protocol::enums::PeerRole;
use grammar::{AdminCmd, EntityRef, Position, ShutdownCmd, Target, format_duration};
use std::fmt::Write as _;

/// What a command came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Done; the text says what happened (may be long: `peers`, `help`).
    Done(String),
    /// Refused: unknown command, bad arguments (with usage), no such peer or entity, …
    Refused(String),
}

impl Outcome {
    /// The text a frontend shows.
    pub fn text(&self) -> &str {
        match self {
            Outcome::Done(t) | Outcome::Refused(t) => t,
        }
    }

    pub fn is_done(&self) -> bool {
        matches!(self, Outcome::Done(_))
    }
}

fn refused(t: impl Into<String>) -> Outcome {
    Outcome::Refused(t.into())
}

/// Parses and runs one command line.
pub fn dispatch(server: &mut Server, line: &str) -> Outcome {
    match grammar::parse(line) {
        Ok(cmd) => {
            tracing::info!(command = line.trim(), "admin command");
            run(server, cmd)
        }
        Err(e) => refused(e.to_string()),
    }
}

/// Runs a parsed command.
pub fn run(server: &mut Server, cmd: AdminCmd) -> Outcome {
    match cmd {
        AdminCmd::Help(None) => Outcome::Done(help_all()),
        AdminCmd::Help(Some(name)) => match grammar::find(&name) {
            Some(c) => Outcome::Done(format!("usage: {}\n{}", c.usage(), c.summary)),
            None => refused(format!("help: unknown command {name:?}; try help")),
        },
        AdminCmd::Status => Outcome::Done(status(server)),
        AdminCmd::Peers => Outcome::Done(peers(server)),
        AdminCmd::TickStats => Outcome::Done(tickstats(server)),
        AdminCmd::Kick { target, reason } => kick(server, target, &reason),
        AdminCmd::Ban {
            target,
            duration_s,
            reason,
        } => ban(server, target, duration_s, &reason),
        AdminCmd::Unban(ip) => match server.unban_ip(ip) {
            Ok((false, _)) => refused(format!("unban: {ip} is not banned")),
            Ok((true, true)) => Outcome::Done(format!("unbanned {ip}")),
            Ok((true, false)) => Outcome::Done(format!(
                "unbanned {ip} until restart (the ban is in the configuration's [admission] bans; remove it there too)"
            )),
            Err(e) => Outcome::Done(format!("unbanned {ip}, but {e:#}")),
        },
        AdminCmd::Bans => Outcome::Done(bans_text(server)),
        AdminCmd::Say(text) => chat_say(server, &text),
        AdminCmd::Mute(peer) => chat_mute(server, peer, true),
        AdminCmd::Unmute(peer) => chat_mute(server, peer, false),
        AdminCmd::Spawn {
            type_id,
            at,
            faction,
            heading_deg,
            speed_mps,
        } => spawn(server, &type_id, at, faction, heading_deg, speed_mps),
        AdminCmd::Kill(e) => match resolve(server, e) {
            Ok(id) => {
                server.kill_entity(id);
                Outcome::Done(format!("killed entity {}/{}", id.index, id.generation))
            }
            Err(why) => refused(format!("kill: {why}")),
        },
        AdminCmd::Teleport { entity, at } => match resolve(server, entity) {
            Ok(id) => {
                let p = world_position(server, at);
                match server.teleport_entity(id, p) {
                    Ok(()) => Outcome::Done(format!(
                        "moved entity {}/{} to {}",
                        id.index,
                        id.generation,
                        describe(server, p)
                    )),
                    Err(why) => refused(format!("tp: {why}")),
                }
            }
            Err(why) => refused(format!("tp: {why}")),
        },
        AdminCmd::Pause => {
            server.pause();
            Outcome::Done("paused".into())
        }
        AdminCmd::Resume => {
            server.resume();
            Outcome::Done("resumed".into())
        }
        AdminCmd::Mission(wanted) => mission(server, wanted),
        AdminCmd::Shutdown(ShutdownCmd::Cancel) => {
            if server.cancel_shutdown() {
                Outcome::Done("shutdown cancelled".into())
            } else {
                refused("shutdown: no shutdown is scheduled")
            }
        }
        AdminCmd::Shutdown(ShutdownCmd::Schedule {
            seconds,
            interval_s,
            reason,
        }) => {
            let seconds = seconds.min(u32::from(u16::MAX));
            server.schedule_shutdown(seconds, &reason, interval_s);
            if seconds == 0 {
                Outcome::Done("shutting down now".into())
            } else {
                Outcome::Done(format!(
                    "shutting down in {} (notices every {}); shutdown cancel stops it",
                    format_duration(u64::from(seconds)),
                    format_duration(u64::from(
                        interval_s.unwrap_or(server.shutdown_interval_s())
                    ))
                ))
            }
        }
    }
}

/// `say`: a system chat line (no sender name) to every peer in the game.
fn chat_say(server: &mut Server, text: &str) -> Outcome {
    server.system_chat(text);
    Outcome::Done(format!("said: {text}"))
}

/// `mute` / `unmute`: the operator's chat mute of one peer (its lines are dropped; it is told).
fn chat_mute(server: &mut Server, peer: u32, muted: bool) -> Outcome {
    let verb = if muted { "muted" } else { "unmuted" };
    if server.set_chat_muted(peer, muted) {
        Outcome::Done(format!("{verb} peer {peer}"))
    } else {
        refused(format!(
            "{}: no peer {peer} (see peers)",
            if muted { "mute" } else { "unmute" }
        ))
    }
}

fn help_all() -> String {
    let mut out = String::from("commands (help <command> for one):\n");
    for c in grammar::COMMANDS {
        let aliases = if c.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also {})", c.aliases.join(", "))
        };
        let _ = writeln!(out, "{}{aliases} -- {}", c.usage(), c.summary);
    }
    out.trim_end().to_owned()
}

fn status(server: &Server) -> String {
    let mut s = format!(
        "tick {} peers {} ({} in game) entities {} load {:.2}",
        server.world().tick(),
        server.peer_count(),
        server.admitted_count(),
        server.world().len(),
        server.load_factor(),
    );
    if let Some(m) = server.mission_status() {
        let _ = write!(s, " mission {} ({})", m.id, m.state.name());
    }
    if server.is_paused() {
        s.push_str(" paused");
    }
    if let Some(left) = server.shutdown_remaining_s() {
        let _ = write!(s, " shutdown in {}", format_duration(u64::from(left)));
    }
    s
}

fn role_name(r: Option<PeerRole>) -> &'static str {
    match r {
        Some(PeerRole::Pilot) => "pilot",
        Some(PeerRole::Observer) => "observer",
        None => "joining",
    }
}

fn peers(server: &Server) -> String {
    let rows = server.peer_rows();
    if rows.is_empty() {
        return "no peers".into();
    }
    let mut out = format!(
        "{} peer(s): id callsign addr role faction entity ping loss(out/in) kbps\n",
        rows.len()
    );
    for r in rows {
        let callsign = if r.callsign.is_empty() {
            "-".to_owned()
        } else {
            r.callsign.replace(char::is_whitespace, "_")
        };
        let entity = r.entity.map_or_else(
            || "-".to_owned(),
            |e| format!("{}/{}", e.index, e.generation),
        );
        let _ = writeln!(
            out,
            "{} {callsign} {} {} {} {entity} {:.0}ms {:.1}%/{:.1}% {:.1}",
            r.id,
            r.addr,
            role_name(r.role),
            r.faction,
            r.ping_ms,
            r.loss_out * 100.0,
            r.loss_in * 100.0,
            r.kbps
        );
    }
    out.trim_end().to_owned()
}

fn tickstats(server: &Server) -> String {
    let t = server.tick_stats();
    let row = |name: &str, p: &crate::stats::Percentiles| {
        format!("{name} {:.2}/{:.2}/{:.2}/{:.2}", p.p50, p.p95, p.p99, p.max)
    };
    format!(
        "{} ticks, ms p50/p95/p99/max:\n{}\n{}\n{}\n{}\nload {:.2}{}",
        t.samples,
        row("total", &t.total),
        row("network", &t.network),
        row("world", &t.world),
        row("snapshots", &t.snapshots),
        server.load_factor(),
        if server.is_paused() { " (paused)" } else { "" }
    )
}

fn kick(server: &mut Server, target: Target, reason: &str) -> Outcome {
    let reason = if reason.is_empty() {
        "Kicked by the server operator."
    } else {
        reason
    };
    match target {
        Target::Peer(p) => {
            if server.kick_peer(p, reason) {
                Outcome::Done(format!("kicked peer {p}"))
            } else {
                refused(format!("kick: no peer {p} (see peers)"))
            }
        }
        Target::Ip(ip) => {
            let peers = server.peers_at(ip);
            if peers.is_empty() {
                return refused(format!("kick: no peer is connected from {ip}"));
            }
            for &p in &peers {
                server.kick_peer(p, reason);
            }
            Outcome::Done(format!("kicked {} peer(s) from {ip}", peers.len()))
        }
    }
}

fn ban(server: &mut Server, target: Target, duration_s: Option<u64>, reason: &str) -> Outcome {
    let ip = match target {
        Target::Ip(ip) => ip,
        Target::Peer(p) => match server.peer_addr(p) {
            Some(a) => grammar::normalise_ip(a.ip()),
            None => return refused(format!("ban: no peer {p} (see peers; or ban an address)")),
        },
    };
    let now = server.unix_time();
    let expires = duration_s.map(|d| now.saturating_add(d));
    let how_long = duration_s.map_or_else(
        || "for good".to_owned(),
        |d| format!("for {}", format_duration(d)),
    );
    match server.ban_ip(ip, expires, reason) {
        Ok(kicked) => Outcome::Done(format!(
            "banned {ip} {how_long}; kicked {} peer(s)",
            kicked.len()
        )),
        Err(e) => Outcome::Done(format!("banned {ip} {how_long} until restart only: {e:#}")),
    }
}

fn bans_text(server: &Server) -> String {
    let list = server.ban_list();
    let configured = server.configured_bans();
    if list.is_empty() && configured.is_empty() {
        return "no bans".into();
    }
    let now = server.unix_time();
    let mut out = format!("{} ban(s):\n", list.len() + configured.len());
    for (ip, b) in list.iter() {
        let left = match b.expires_unix {
            None => "permanent".to_owned(),
            Some(t) => format!("{} left", format_duration(t.saturating_sub(now))),
        };
        let _ = writeln!(out, "{ip} {left} {}", b.reason);
    }
    for ip in configured {
        let _ = writeln!(out, "{ip} permanent (configuration file)");
    }
    out.trim_end().to_owned()
}

fn resolve(server: &Server, e: EntityRef) -> Result<crate::pool::EntityId, String> {
    match e {
        EntityRef::Index(i) => server
            .world()
            .by_index(i)
            .map(|(id, _)| id)
            .ok_or_else(|| format!("no entity {i}")),
        EntityRef::PeerAircraft(p) => {
            if server.peer_addr(p).is_none() {
                return Err(format!("no peer {p} (see peers)"));
            }
            server
                .peer_entity(p)
                .ok_or_else(|| format!("peer {p} has no aircraft"))
        }
    }
}

fn world_position(server: &Server, at: Position) -> Vec3 {
    match at {
        Position::World([x, y, z]) => Vec3::new(x, y, z),
        Position::Geo { lat, lon, alt } => geodetic::to_world(
            server.world().planet(),
            Geodetic::from_degrees(lat, lon, alt),
        ),
    }
}

/// A world position as latitude, longitude and altitude.
fn describe(server: &Server, p: Vec3) -> String {
    let g = geodetic::from_world(server.world().planet(), p);
    format!("{:.5},{:.5} alt {:.0} m", g.lat_deg(), g.lon_deg(), g.alt_m)
}

fn spawn(
    server: &mut Server,
    type_id: &str,
    at: Position,
    faction: Option<u16>,
    heading_deg: f64,
    speed_mps: Option<f64>,
) -> Outcome {
    let Some(t) = server.types().index_of(type_id) else {
        return refused(format!("spawn: unknown entity type {type_id:?}"));
    };
    if !server.world().has_room() {
        return refused("spawn: the world is full");
    }
    let p = world_position(server, at);
    match server.admin_spawn(t, faction.unwrap_or(0), p, heading_deg, speed_mps) {
        Some(id) => Outcome::Done(format!(
            "spawned {type_id} entity={}/{} at {}",
            id.index,
            id.generation,
            describe(server, p)
        )),
        None => refused(format!("spawn: {type_id} could not be placed there")),
    }
}

fn mission(server: &mut Server, wanted: Option<String>) -> Outcome {
    let choices = server.mission_choices().to_vec();
    let Some(wanted) = wanted else {
        let current = server.mission_status().map_or_else(
            || "none".to_owned(),
            |m| format!("{} ({})", m.id, m.state.name()),
        );
        return Outcome::Done(if choices.is_empty() {
            format!("mission: {current}; no missions configured to switch to")
        } else {
            format!("mission: {current}; configured: {}", choices.join(", "))
        });
    };
    if choices.is_empty() {
        return refused(
            "mission: this server runs no mission director ([mission] file or rotation)",
        );
    }
    if !matches!(wanted.as_str(), "restart" | "next") && !choices.contains(&wanted) {
        return refused(format!(
            "mission: {wanted:?} is not configured; choose one of {}, restart or next",
            choices.join(", ")
        ));
    }
    server.request_mission(wanted.clone());
    Outcome::Done(format!("mission: switching to {wanted} after this tick"))
}

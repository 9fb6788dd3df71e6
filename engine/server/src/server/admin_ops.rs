//! What the admin commands do to the server: the peer table as operators see it, kicks, the ban
//! list (kept in step with the admission gauntlet), entity kill/teleport/spawn, the tick-time
//! history behind `tickstats`, and the shutdown countdown (notices at once, every
//! `shutdown_warning_interval_s`, at T-60 s, and a final 0 — all counted on the service clock,
//! which runs while paused, so a countdown is deterministic given the ticks).
//!
//! Owns these primitives; the grammar, the wording and the wire framing live in `crate::admin`.
//! Must not read the clock: the wall time bans expire by is handed in ([`Server::set_unix_time`]).

use super::{Server, TickTimings};
use crate::admin::bans::{Ban, BanFileError, BanList};
use crate::pool::EntityId;
use crate::stats::Percentiles;
use crate::world::{Body, Pilot};
use fl_flight::geodetic::{self, Enu};
use fl_flight::math::Vec3;
use fl_flight::spawn::level_orientation;
use fl_net::PeerId;
use fl_protocol::enums::PeerRole;
use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};

/// Ticks of phase timings kept for `tickstats` (one minute).
pub(super) const TICK_HISTORY: usize = 3600;
/// Service ticks per second.
const TICKS_PER_S: u64 = 60;
/// The notice always sent this many seconds before a shutdown.
pub const SHUTDOWN_LAST_MINUTE_S: u32 = 60;

/// One peer as `peers` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerRow {
    pub id: PeerId,
    pub callsign: String,
    pub addr: SocketAddr,
    /// None until admitted.
    pub role: Option<PeerRole>,
    pub faction: u16,
    pub entity: Option<EntityId>,
    /// Round-trip time, ms.
    pub ping_ms: f64,
    /// Loss on the way out and in (0..=1).
    pub loss_out: f64,
    pub loss_in: f64,
    /// Mean snapshot rate to the peer since it connected, kbit/s.
    pub kbps: f64,
}

/// Tick phase percentiles over the history.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TickStats {
    pub samples: usize,
    pub total: Percentiles,
    pub network: Percentiles,
    pub world: Percentiles,
    pub snapshots: Percentiles,
}

/// A countdown in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shutdown {
    /// Service tick at which it happens.
    due: u64,
    /// The countdown's length, s (notices fall every `interval_s` after its start).
    total_s: u32,
    interval_s: u32,
    reason: String,
    /// Seconds left in the last notice sent.
    announced: u32,
    /// The final notice has been sent: the runtime should stop.
    done: bool,
}

/// A shutdown notice's text: `reason -- when` (or `Server when`), cut to the 59 bytes
/// `MsgServerNotice::text` carries, on a codepoint boundary.
pub fn shutdown_text(reason: &str, seconds: u32) -> String {
    let when = if seconds == 0 {
        "shutting down now.".to_owned()
    } else if seconds == 60 {
        "shutting down in 1 minute.".to_owned()
    } else if seconds.is_multiple_of(60) {
        format!("shutting down in {} minutes.", seconds / 60)
    } else if seconds == 1 {
        "shutting down in 1 second.".to_owned()
    } else {
        format!("shutting down in {seconds} seconds.")
    };
    let text = if reason.is_empty() {
        format!("Server {when}")
    } else {
        format!("{reason} -- {when}")
    };
    fl_protocol::field::truncate_utf8(&text, fl_protocol::FixedStr::<60>::CAPACITY).to_owned()
}

impl Server {
    /// The wall clock, Unix seconds, as the runtime last handed it (0 = never: bans with a
    /// duration then never expire). Expires the bans that have ended.
    pub fn set_unix_time(&mut self, unix_s: u64) {
        self.unix_time = unix_s;
        match self.bans.expire(unix_s) {
            Ok(gone) => {
                for ip in gone {
                    tracing::info!(%ip, "ban expired");
                    self.admission.unban(ip);
                }
            }
            Err(e) => tracing::warn!("{e:#}"),
        }
    }

    pub fn unix_time(&self) -> u64 {
        self.unix_time
    }

    /// Installs the persisted ban list (loaded at start): every ban joins the gauntlet.
    pub fn set_ban_list(&mut self, bans: BanList) {
        for (ip, _) in bans.iter() {
            self.admission.ban(*ip);
        }
        self.bans = bans;
    }

    pub fn ban_list(&self) -> &BanList {
        &self.bans
    }

    /// Bans an address (replacing an older ban of it) and kicks its peers; the peers kicked.
    pub fn ban_ip(
        &mut self,
        ip: IpAddr,
        expires_unix: Option<u64>,
        reason: &str,
    ) -> Result<Vec<PeerId>, BanFileError> {
        let stored = self.bans.insert(
            ip,
            Ban {
                expires_unix,
                reason: reason.to_owned(),
            },
        );
        // Even if the file could not be written the ban holds for this run.
        self.admission.ban(ip);
        let kicked = self.peers_at(ip);
        for &p in &kicked {
            self.kick_peer(p, "You are banned from this server.");
        }
        match stored {
            Ok(true) => Ok(kicked),
            Ok(false) => {
                tracing::warn!(%ip, "ban list full: ban holds until restart only");
                Ok(kicked)
            }
            Err(e) => Err(e),
        }
    }

    /// Lifts a ban (from the list and from the gauntlet, configured bans included). Whether the
    /// address was banned at all, and whether the ban came from the ban list.
    pub fn unban_ip(&mut self, ip: IpAddr) -> Result<(bool, bool), BanFileError> {
        let was_banned = self.admission.unban(ip);
        let listed = self.bans.remove(ip)?.is_some();
        Ok((was_banned || listed, listed))
    }

    /// Addresses banned by the configuration file (not in the ban list).
    pub fn configured_bans(&self) -> Vec<IpAddr> {
        self.admission
            .banned()
            .filter(|ip| self.bans.get(*ip).is_none())
            .collect()
    }

    /// The peers connected from `ip`.
    pub fn peers_at(&self, ip: IpAddr) -> Vec<PeerId> {
        self.peers
            .iter()
            .filter(|(_, p)| crate::admin::grammar::normalise_ip(p.addr.ip()) == ip)
            .map(|(&id, _)| id)
            .collect()
    }

    /// A peer's address.
    pub fn peer_addr(&self, peer: PeerId) -> Option<SocketAddr> {
        self.peers.get(&peer).map(|p| p.addr)
    }

    /// Closes a peer's connection with `reason`; false when there is no such peer.
    pub fn kick_peer(&mut self, peer: PeerId, reason: &str) -> bool {
        if !self.peers.contains_key(&peer) {
            return false;
        }
        tracing::info!(peer, reason, "kicked by the operator");
        self.kick(peer, reason);
        true
    }

    /// The aircraft a peer flies.
    pub fn peer_entity(&self, peer: PeerId) -> Option<EntityId> {
        self.peers
            .get(&peer)
            .and_then(|p| p.admitted.as_ref())
            .and_then(|a| a.entity)
            .filter(|e| self.world.get(*e).is_some())
    }

    /// Every peer, in id order, as `peers` shows them.
    pub fn peer_rows(&self) -> Vec<PeerRow> {
        self.peers
            .iter()
            .map(|(&id, p)| {
                let link = self.transport.link_stats(id).unwrap_or_default();
                let secs =
                    self.service_ticks.saturating_sub(p.connected_tick) as f64 / TICKS_PER_S as f64;
                let kbps = if secs > 0.0 {
                    p.snapshots.stats.bytes as f64 * 8.0 / 1000.0 / secs
                } else {
                    0.0
                };
                PeerRow {
                    id,
                    callsign: p
                        .admitted
                        .as_ref()
                        .map(|a| a.callsign.clone())
                        .unwrap_or_default(),
                    addr: p.addr,
                    role: p.admitted.as_ref().map(|a| a.role),
                    faction: p.admitted.as_ref().map_or(0, |a| a.faction),
                    entity: p
                        .admitted
                        .as_ref()
                        .and_then(|a| a.entity)
                        .filter(|e| self.world.get(*e).is_some()),
                    ping_ms: link.rtt.as_secs_f64() * 1000.0,
                    loss_out: link.loss,
                    loss_in: link.loss_in,
                    kbps,
                }
            })
            .collect()
    }

    /// Removes an entity. A pilot's aircraft is replaced after the respawn delay like a crash.
    pub fn kill_entity(&mut self, id: EntityId) -> bool {
        if self.world.get(id).is_none() {
            return false;
        }
        // A mission object's removal counts like its destruction: the run sees it gone.
        self.world.despawn(id);
        for p in self.peers.values_mut() {
            p.snapshots.baselines.on_despawn(id.index);
        }
        true
    }

    /// Moves an entity to `position` (world metres). An aircraft keeps its speed and compass
    /// heading and is levelled in the local horizon; a projectile cannot be moved.
    pub fn teleport_entity(&mut self, id: EntityId, position: Vec3) -> Result<(), &'static str> {
        if !position.is_finite() {
            return Err("the position is not finite");
        }
        let planet = *self.world.planet();
        let Some(e) = self.world.get_mut(id) else {
            return Err("no such entity");
        };
        match &mut e.body {
            Body::Aircraft { state, .. } => {
                let old_frame = Enu::at(&planet, state.position);
                let speed = state.velocity.length();
                let dir = if speed > 1e-3 {
                    state.velocity
                } else {
                    state.forward()
                };
                let heading = old_frame.heading_of(dir);
                let frame = Enu::at(&planet, position);
                state.position = position;
                state.orientation = level_orientation(&planet, position, &frame, heading, 0.0);
                state.velocity = state.forward() * speed;
                state.body_rates = Vec3::ZERO;
                Ok(())
            }
            Body::Static { position: p, .. } => {
                *p = position;
                Ok(())
            }
            Body::Projectile { .. } => Err("a weapon in flight cannot be moved"),
        }
    }

    /// Spawns `type_index` at `position` (world metres) for the operator: an aircraft flies off
    /// trimmed level at `heading_deg` and `speed_mps` (its type's cruise when None: 200 m/s),
    /// unflown; anything else stands there.
    pub fn admin_spawn(
        &mut self,
        type_index: u32,
        faction: u16,
        position: Vec3,
        heading_deg: f64,
        speed_mps: Option<f64>,
    ) -> Option<EntityId> {
        let t = self.types.get(type_index)?;
        if t.model.is_none() {
            return self.spawn_static(type_index, faction, position);
        }
        let planet = *self.world.planet();
        let g = geodetic::from_world(&planet, position);
        let at = super::SpawnPoint {
            x: 0.0,
            z: 0.0,
            altitude_m: g.alt_m,
            heading_deg,
            speed_mps: speed_mps.unwrap_or(200.0),
            anchor: Some(super::GeoAnchor {
                lat_deg: g.lat_deg(),
                lon_deg: g.lon_deg(),
            }),
        };
        self.spawn_aircraft(type_index, faction, Pilot::None, at)
    }

    /// Records one tick's phase times (for `tickstats`).
    pub(super) fn record_timings(&mut self, t: TickTimings) {
        if self.tick_history.len() == TICK_HISTORY {
            self.tick_history.pop_front();
        }
        self.tick_history.push_back(t);
    }

    /// Phase percentiles over the last minute of ticks.
    pub fn tick_stats(&self) -> TickStats {
        let of = |f: fn(&TickTimings) -> std::time::Duration| {
            let mut ms: Vec<f64> = self
                .tick_history
                .iter()
                .map(|t| f(t).as_secs_f64() * 1000.0)
                .collect();
            Percentiles::of_ms(&mut ms)
        };
        TickStats {
            samples: self.tick_history.len(),
            total: of(|t| t.total),
            network: of(|t| t.network),
            world: of(|t| t.world),
            snapshots: of(|t| t.snapshots),
        }
    }

    /// Starts (or replaces) a shutdown countdown of `seconds` (0 = now) with notices every
    /// `interval_s` (None: the configured `shutdown_warning_interval_s`). The first notice goes
    /// out at once.
    pub fn schedule_shutdown(&mut self, seconds: u32, reason: &str, interval_s: Option<u32>) {
        let interval_s = interval_s
            .unwrap_or(self.cfg.shutdown_warning_interval_s)
            .max(1);
        tracing::info!(seconds, interval_s, reason, "shutdown scheduled");
        self.shutdown = Some(Shutdown {
            due: self.service_ticks + u64::from(seconds) * TICKS_PER_S,
            total_s: seconds,
            interval_s,
            reason: reason.to_owned(),
            announced: seconds,
            done: seconds == 0,
        });
        self.broadcast_notice(
            u16::try_from(seconds).unwrap_or(u16::MAX),
            &shutdown_text(reason, seconds),
        );
    }

    /// Cancels a countdown (players are told); false when none was running.
    pub fn cancel_shutdown(&mut self) -> bool {
        match self.shutdown.take() {
            Some(s) if !s.done => {
                tracing::info!("shutdown cancelled");
                // secondsRemaining 0 would read as "now": the spec has no cancel notice, so
                // the text says it and the countdown field stays at its maximum.
                self.broadcast_notice(u16::MAX, "Shutdown cancelled.");
                true
            }
            other => {
                self.shutdown = other;
                false
            }
        }
    }

    /// Whole seconds until the scheduled shutdown (rounded up); None when none is scheduled.
    pub fn shutdown_remaining_s(&self) -> Option<u32> {
        self.shutdown.as_ref().map(|s| {
            let ticks = s.due.saturating_sub(self.service_ticks);
            u32::try_from(ticks.div_ceil(TICKS_PER_S)).unwrap_or(u32::MAX)
        })
    }

    /// The countdown has run out and the final notice is sent: the runtime stops the server.
    pub fn shutdown_complete(&self) -> bool {
        self.shutdown.as_ref().is_some_and(|s| s.done)
    }

    /// One service tick of the countdown: a notice when a mark is passed, the final one at 0.
    pub(super) fn step_shutdown(&mut self) {
        let Some(left) = self.shutdown_remaining_s() else {
            return;
        };
        let Some(s) = self.shutdown.as_mut() else {
            return;
        };
        if s.done || left >= s.announced {
            return;
        }
        let elapsed = s.total_s - left;
        let mark = left == 0
            || elapsed.is_multiple_of(s.interval_s)
            || (left == SHUTDOWN_LAST_MINUTE_S && s.total_s > SHUTDOWN_LAST_MINUTE_S);
        if !mark {
            return;
        }
        s.announced = left;
        if left == 0 {
            s.done = true;
        }
        let text = shutdown_text(&s.reason, left);
        self.broadcast_notice(u16::try_from(left).unwrap_or(u16::MAX), &text);
    }

    /// Seconds of the configured warning interval.
    pub fn shutdown_interval_s(&self) -> u32 {
        self.cfg.shutdown_warning_interval_s
    }

    /// The missions an operator may switch to (the mission director lists its own).
    pub fn set_mission_choices(&mut self, ids: Vec<String>) {
        self.mission_choices = ids;
    }

    pub fn mission_choices(&self) -> &[String] {
        &self.mission_choices
    }

    /// Asks the mission director to switch to `id` (or `restart` / `next`) after this tick.
    pub fn request_mission(&mut self, id: String) {
        self.mission_request = Some(id);
    }

    /// The operator's pending mission switch (the director takes it).
    pub fn take_mission_request(&mut self) -> Option<String> {
        self.mission_request.take()
    }

    pub(super) fn new_tick_history() -> VecDeque<TickTimings> {
        VecDeque::with_capacity(64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notice_texts_fit_and_read_well() {
        assert_eq!(shutdown_text("", 0), "Server shutting down now.");
        assert_eq!(
            shutdown_text("Patch 1.2", 300),
            "Patch 1.2 -- shutting down in 5 minutes."
        );
        assert_eq!(shutdown_text("", 60), "Server shutting down in 1 minute.");
        assert_eq!(shutdown_text("", 90), "Server shutting down in 90 seconds.");
        let long = shutdown_text(&"é".repeat(40), 300);
        assert!(long.len() <= 59, "{}", long.len());
        assert!(long.starts_with("éé"));
    }
}

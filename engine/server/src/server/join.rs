//! Joining: the connect gauntlet's verdict on a new connection, `MsgHello`, the join request
//! (admission checks, spawning the pilot's aircraft at the next spawn point, balancing
//! factions), the `MsgConnectAck` with its type table (or `ConnectAckTypesUnchanged`), the join
//! burst (factions, alert levels, MOTD, the weather windows already announced), refusals, and
//! respawning a pilot whose aircraft crashed.

use super::{Admitted, MalformedBudget, PeerSlot, Server, SpawnPoint, send};
use crate::admission::{JoinRequest, Refusal};
use crate::input::InputGate;
use crate::jitter::JitterBuffer;
use crate::snapshot::PeerSnapshots;
use crate::world::Pilot;
use fl_net::{Channel, PeerId};
use fl_protocol::FixedStr;
use fl_protocol::enums::{AlertLevel, ConnectRefusalCode, PeerRole};
use fl_protocol::msg::handshake::{
    ConnectAck, ConnectRefusal, ConnectRequest, Hello, Motd, planet_radius_km_on_wire,
};
use fl_protocol::msg::world::{AlertLevelChange, FactionDef, FactionDefRecord};
use fl_protocol::tlv::{Ext, Extensions};
use std::net::SocketAddr;

/// Ground speed under which an aircraft on the ground counts as standing still for a respawn
/// request, m/s.
pub const RESPAWN_STILL_MPS: f64 = 1.0;

impl Server {
    pub(super) fn next_spawn_point(&mut self) -> SpawnPoint {
        let points = &self.cfg.spawn_points;
        let p = points
            .get(self.spawn_cursor % points.len().max(1))
            .copied()
            .unwrap_or(SpawnPoint::FALLBACK);
        self.spawn_cursor = self.spawn_cursor.wrapping_add(1);
        p
    }

    /// The faction with the fewest pilots (ties: lowest index).
    pub(super) fn pick_faction(&self) -> u16 {
        let count = |f: u16| {
            self.peers
                .values()
                .filter(|p| p.admitted.as_ref().is_some_and(|a| a.faction == f))
                .count()
        };
        self.cfg
            .factions
            .iter()
            .min_by_key(|f| (count(f.index), f.index))
            .map_or(0, |f| f.index)
    }

    pub(super) fn on_connected(&mut self, peer: PeerId, addr: SocketAddr, _now: u64) {
        if let Err(refusal) = self.admission.on_connect(addr.ip(), self.service_ticks) {
            tracing::info!(peer, %addr, code = ?refusal.code, "connection refused");
            self.send_refusal(peer, &refusal);
            self.transport.disconnect(peer, &refusal.reason);
            return;
        }
        self.peers.insert(
            peer,
            PeerSlot {
                addr,
                connected_tick: self.service_ticks,
                admitted: None,
                gate: InputGate::new(self.cfg.flood),
                jitter: JitterBuffer::new(self.cfg.jitter),
                snapshots: PeerSnapshots::new(&self.cfg.snapshot),
                camera_eye: [0.0; 3],
                types_generation_sent: None,
                malformed: MalformedBudget::full(self.cfg.malformed_burst, self.service_ticks),
                respawn_held: false,
                last_delay_ticks: 0,
                view: Default::default(),
                last_heard: self.service_ticks,
                designation: None,
                designation_applied: None,
            },
        );
        let mut ext = Extensions::new();
        if !self.cfg.build_version.is_empty() {
            let _ = ext.push(&Ext::HelloBuildVersion(self.cfg.build_version.clone()));
        }
        send(
            self.transport.as_mut(),
            peer,
            Channel::Reliable,
            Hello::current().into(),
            &ext,
        );
    }

    pub(super) fn refuse(&mut self, peer: PeerId, refusal: Refusal) {
        let addr = self.peers.get(&peer).map(|p| p.addr);
        tracing::info!(peer, addr = ?addr, code = ?refusal.code, reason = %refusal.reason, "join refused");
        self.send_refusal(peer, &refusal);
        self.kick(peer, &refusal.reason);
    }

    fn send_refusal(&mut self, peer: PeerId, refusal: &Refusal) {
        let msg = ConnectRefusal {
            code: refusal.code,
            reason: FixedStr::new(&refusal.reason),
        };
        send(
            self.transport.as_mut(),
            peer,
            Channel::Reliable,
            msg.into(),
            &Extensions::new(),
        );
    }

    pub(super) fn on_connect_request(
        &mut self,
        peer: PeerId,
        req: &ConnectRequest,
        ext: &Extensions,
    ) {
        let join = match self.admission.check_request(req, ext) {
            Ok(j) => j,
            Err(refusal) => return self.refuse(peer, refusal),
        };
        // The client predicts over its own copy of the ground: it must be the server's.
        let packs = crate::terrain_match::server_packs(self.world.floor());
        if let Some(refusal) = crate::terrain_match::check(&packs, &req.packs) {
            return self.refuse(peer, refusal);
        }
        if let Err(refusal) = self.admit(peer, join) {
            return self.refuse(peer, refusal);
        }
        self.send_connect_ack(peer);
        self.send_join_burst(peer);
        self.announce_join(peer);
    }

    pub(super) fn admit(&mut self, peer: PeerId, join: JoinRequest) -> Result<(), Refusal> {
        // A reconnecting pilot's grace record (faction, callsign, tallies, mission slot), or
        // the match cap; the callsign made unique either way.
        let plan = self.plan_join(join.role, &join.callsign, join.identity.as_deref())?;
        let faction = plan.faction.unwrap_or_else(|| self.pick_faction());
        let callsign = plan.callsign;
        let mut admitted = Admitted {
            role: join.role,
            entity: None,
            faction,
            type_index: None,
            respawn_at: None,
            callsign,
        };
        if join.role == PeerRole::Pilot {
            // A running mission's first free player slot decides type, side and place.
            // A reconnecting pilot gets its own slot back when it is still free.
            let slot = plan
                .mission_slot
                .and_then(|k| self.mission_slot_if_free(k))
                .or_else(|| self.free_mission_slot());
            let type_index = match slot {
                Some(s) => s.type_index,
                None => self
                    .types
                    .pilot_type(&join.entity_type, &self.cfg.player_entity_type)
                    .ok_or(Refusal {
                        code: ConnectRefusalCode::NoAirframe,
                        reason: "This server has no aircraft to fly.".into(),
                    })?,
            };
            // The client predicts and draws its own aircraft from its own copy of the type's
            // pack: refuse (naming the pack) rather than admit a pilot who cannot fly it.
            if let Some(t) = self.types.get(type_index)
                && let Some(pack) = &t.pack
                && !join.packs.iter().any(|p| p == pack)
            {
                return Err(Refusal {
                    code: ConnectRefusalCode::MissingRequiredPack,
                    reason: format!("Missing required pack(s): {pack} (for {})", t.id),
                });
            }
            if !self.world.has_room() {
                return Err(Refusal {
                    code: ConnectRefusalCode::ServerFull,
                    reason: "The server is full. Try again later.".into(),
                });
            }
            let at = match slot {
                Some(s) => {
                    admitted.faction = s.faction;
                    s.at
                }
                None => self.next_spawn_point(),
            };
            let entity = self
                .spawn_aircraft(type_index, admitted.faction, Pilot::Peer(peer), at)
                .ok_or(Refusal {
                    code: ConnectRefusalCode::ServerFull,
                    reason: "The server is full. Try again later.".into(),
                })?;
            if let Some(s) = slot {
                self.bind_mission_slot(s.slot, peer, entity);
            }
            admitted.entity = Some(entity);
            admitted.type_index = Some(type_index);
        }
        tracing::info!(peer, role = ?admitted.role, entity = ?admitted.entity, callsign = %admitted.callsign, "admitted");
        if let Some(slot) = self.peers.get_mut(&peer) {
            slot.admitted = Some(admitted);
        }
        self.register_join(peer, join.identity, plan.restored);
        Ok(())
    }

    pub(super) fn send_connect_ack(&mut self, peer: PeerId) {
        let Some(slot) = self.peers.get_mut(&peer) else {
            return;
        };
        let Some(a) = &slot.admitted else { return };
        let unchanged = slot.types_generation_sent == Some(self.types.generation());
        let mut ext = Extensions::new();
        let types = if unchanged {
            let _ = ext.push(&Ext::ConnectAckTypesUnchanged);
            Vec::new()
        } else {
            self.types.wire_defs()
        };
        slot.types_generation_sent = Some(self.types.generation());
        let ack = ConnectAck {
            tick_rate_hz: 60,
            assigned_entity_idx: a.entity.map_or(0, |e| e.index),
            assigned_entity_gen: a.entity.map_or(0, |e| e.generation),
            planet_radius_km: planet_radius_km_on_wire(self.world.planet().radius_m),
            granted_role: a.role,
            peer_id: peer,
            types,
        };
        send(
            self.transport.as_mut(),
            peer,
            Channel::Reliable,
            ack.into(),
            &ext,
        );
    }

    /// The weather windows from the one holding `since` up to the broadcasts' lead: what a
    /// joining peer never heard, and what a peer cut off for a while lost (client prediction
    /// needs the server's wind for every step it predicts).
    pub(super) fn send_weather_catch_up(&mut self, peer: PeerId, since: u64) {
        let tick = self.world.tick();
        for (msg, ext) in self.weather.catch_up_since(since, tick) {
            send(
                self.transport.as_mut(),
                peer,
                Channel::Unreliable,
                msg.into(),
                &ext,
            );
        }
    }

    /// `MsgFactionDef` of the faction table.
    pub(super) fn faction_def(&self) -> FactionDef {
        FactionDef {
            records: self
                .cfg
                .factions
                .iter()
                .map(|f| FactionDefRecord {
                    faction_index: f.index,
                    id: FixedStr::new(&f.id),
                    name: FixedStr::new(&f.name),
                })
                .collect(),
        }
    }

    pub(super) fn send_join_burst(&mut self, peer: PeerId) {
        let tick = self.world.tick();
        self.send_weather_catch_up(peer, tick);
        if !self.cfg.factions.is_empty() {
            let def = self.faction_def();
            send(
                self.transport.as_mut(),
                peer,
                Channel::Reliable,
                def.into(),
                &Extensions::new(),
            );
            for f in self.cfg.factions.clone() {
                let msg = AlertLevelChange {
                    level: AlertLevel::Peacetime,
                    faction_index: f.index,
                };
                send(
                    self.transport.as_mut(),
                    peer,
                    Channel::Reliable,
                    msg.into(),
                    &Extensions::new(),
                );
            }
        }
        self.send_mission_roster(peer);
        if !self.cfg.motd.is_empty() {
            let motd = Motd {
                display_seconds: self.cfg.motd_display_s,
                text: self.cfg.motd.clone(),
            };
            send(
                self.transport.as_mut(),
                peer,
                Channel::Reliable,
                motd.into(),
                &Extensions::new(),
            );
        }
    }

    /// A respawn press (the rising edge of buttons bit 7). Honoured for a pilot whose aircraft
    /// stands still on the ground (wheels or belly, under [`RESPAWN_STILL_MPS`]): that aircraft
    /// is removed and a new one spawns at the next spawn point this tick. Ignored while flying or
    /// rolling (respawning is no way out of a fight), and for a crashed pilot, whose new aircraft
    /// comes when `respawn_delay` has passed whether or not they press (the C++ original's rule:
    /// a request never fires before the delay).
    pub(super) fn on_respawn_request(&mut self, peer: PeerId) {
        let tick = self.world.tick();
        let Some(a) = self.peers.get_mut(&peer).and_then(|s| s.admitted.as_mut()) else {
            return;
        };
        let (Some(entity), Some(_)) = (a.entity, a.type_index) else {
            return;
        };
        if a.respawn_at.is_some() {
            return;
        }
        let still_on_ground = self.world.get(entity).is_some_and(|e| {
            e.crashed_at.is_none()
                && e.aircraft_state().is_some_and(|s| {
                    (s.wheels_on_ground != 0 || s.belly_contact)
                        && s.velocity.length() < RESPAWN_STILL_MPS
                })
        });
        if !still_on_ground {
            tracing::debug!(peer, "respawn request ignored: not standing on the ground");
            return;
        }
        tracing::info!(peer, ?entity, "respawn on request");
        self.world.despawn(entity);
        a.respawn_at = Some(tick);
    }

    pub(super) fn handle_crashes_and_respawns(&mut self) {
        let tick = self.world.tick();
        let delay = self.cfg.respawn_delay_ticks;
        let mut due = Vec::new();
        for (&peer, slot) in &mut self.peers {
            let Some(a) = &mut slot.admitted else {
                continue;
            };
            if let Some(e) = a.entity {
                // Crashed, destroyed or abandoned (ejected): the pilot needs a new aircraft.
                let gone = self
                    .world
                    .get(e)
                    .is_none_or(|ent| ent.crashed_at.is_some() || ent.combat.is_out());
                if gone && a.respawn_at.is_none() {
                    a.respawn_at = Some(tick + delay);
                }
            }
            if a.respawn_at.is_some_and(|t| tick >= t) {
                due.push(peer);
            }
        }
        for peer in due {
            let (type_index, faction) =
                match self.peers.get(&peer).and_then(|s| s.admitted.as_ref()) {
                    Some(a) => (a.type_index, a.faction),
                    None => continue,
                };
            let Some(type_index) = type_index else {
                continue;
            };
            // A mission pilot comes back at their slot's place, bound to it again.
            let slot = self.mission_slot_of(peer);
            let at = match slot {
                Some(s) => s.at,
                None => self.next_spawn_point(),
            };
            let new_entity = self.spawn_aircraft(type_index, faction, Pilot::Peer(peer), at);
            if let (Some(s), Some(e)) = (slot, new_entity) {
                self.rebind_mission_slot(s.slot, e);
            }
            if let Some(slot) = self.peers.get_mut(&peer)
                && let Some(a) = &mut slot.admitted
            {
                if let Some(old) = a.entity
                    && let Some(ent) = self.world.get_mut(old)
                {
                    // The wreck stays for its timeout but is nobody's aircraft any more.
                    ent.pilot = Pilot::None;
                }
                a.entity = new_entity;
                a.respawn_at = None;
                slot.jitter = JitterBuffer::new(self.cfg.jitter);
            }
            self.send_connect_ack(peer);
        }
    }
}

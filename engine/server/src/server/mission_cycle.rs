//! Seating the pilots already in the game in a mission run that starts after they joined (a
//! dedicated server restarting or rotating its mission): each admitted pilot without a slot
//! takes the first free `player: true` slot, in peer-id (join) order, in a new aircraft of the
//! slot's type at the slot's place, exactly as a pilot joining now would; the previous aircraft
//! is removed. Pilots beyond the slots keep flying what they have.
//!
//! Owns only that move. Must not: start, stop or step missions (the mission runner in
//! `mission.rs` does), or read the wall clock.

use super::Server;
use crate::jitter::JitterBuffer;
use crate::world::Pilot;
use fl_net::PeerId;
use fl_protocol::enums::PeerRole;

impl Server {
    /// Puts every admitted pilot not bound to a slot of the running mission into its free player
    /// slots (first free slot, pilots in peer-id order) and tells each their new aircraft
    /// (`ConnectAck`) and the mission's roster. Returns how many were seated. Does nothing when
    /// no mission runs or it has ended.
    pub fn seat_pilots_in_mission(&mut self) -> u32 {
        let pilots: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, s)| {
                s.admitted
                    .as_ref()
                    .is_some_and(|a| a.role == PeerRole::Pilot && a.type_index.is_some())
            })
            .map(|(&p, _)| p)
            .collect();
        let mut seated = 0;
        for peer in pilots {
            if self.mission_slot_of(peer).is_some() {
                continue;
            }
            let Some(slot) = self.free_mission_slot() else {
                break;
            };
            let Some(entity) =
                self.spawn_aircraft(slot.type_index, slot.faction, Pilot::Peer(peer), slot.at)
            else {
                tracing::warn!(
                    peer,
                    "no room for a mission aircraft; the pilot keeps theirs"
                );
                break;
            };
            let jitter = JitterBuffer::new(self.cfg.jitter);
            let old = self
                .peers
                .get_mut(&peer)
                .and_then(|s| {
                    let a = s.admitted.as_mut()?;
                    let old = a.entity.replace(entity);
                    a.type_index = Some(slot.type_index);
                    a.faction = slot.faction;
                    a.respawn_at = None;
                    s.jitter = jitter;
                    Some(old)
                })
                .flatten();
            if let Some(old) = old {
                self.world.despawn(old);
            }
            self.bind_mission_slot(slot.slot, peer, entity);
            self.send_connect_ack(peer);
            self.send_mission_roster(peer);
            // The slot's side may differ from the pilot's team.
            self.announce_roster_change(peer);
            tracing::info!(peer, ?entity, "pilot seated in the new mission run");
            seated += 1;
        }
        seated
    }
}

//! Combat comms: the tick's kill records broadcast to every admitted peer as `MsgCombatEvent` on
//! the reliable channel, each peer's own tallies (`Stats` and `Shots` records) unicast when
//! they changed (at once after a kill or loss, else at most twice a second), and each flying
//! peer's `MsgDatalink` (its team's fused picture and its RWR) every
//! [`DATALINK_EVERY_TICKS`] on the unreliable channel. The combat rules themselves are
//! `crate::combat`'s; this only delivers what it queued or built.

use super::{Server, send};
use crate::combat::CombatSystem;
use crate::combat::sensors::{DATALINK_EVERY_TICKS, DatalinkFrame, contacts_of, datalink_for};
use crate::pool::EntityId;
use fl_combat::sensing::Contact;
use fl_net::{Channel, PeerId};
use fl_protocol::msg::combat::{CombatEvent, CombatEventRecord};
use fl_protocol::tlv::Extensions;

/// Most records one `MsgCombatEvent` carries (its count is a byte).
const MAX_RECORDS: usize = u8::MAX as usize;

impl Server {
    /// The world's combat state (refusal counters, totals, peers' tallies).
    pub fn combat(&self) -> &CombatSystem {
        &self.combat
    }

    /// The world's combat state, for setup (the draw seed) and tests.
    pub fn combat_mut(&mut self) -> &mut CombatSystem {
        &mut self.combat
    }

    /// The world and its combat state together, for tests that hit an entity through
    /// [`CombatSystem::damage`].
    pub fn world_and_combat_mut(&mut self) -> (&mut crate::world::World, &mut CombatSystem) {
        (&mut self.world, &mut self.combat)
    }

    /// What `entity`'s sensors hold, sorted by target (empty without sensors): the only
    /// picture of the world an AI may act on. Last-known fixes, never the truth;
    /// `crate::combat::sensors::world_id` turns a contact's target into a pool id.
    pub fn contacts_of(&self, entity: EntityId) -> &[Contact] {
        contacts_of(&self.world, entity)
    }

    /// Every [`DATALINK_EVERY_TICKS`]: one `MsgDatalink` to each admitted peer flying an
    /// aircraft (unreliable; a lost one is refreshed by the next).
    pub(super) fn send_datalinks(&mut self) {
        let tick = self.world.tick();
        if !tick.is_multiple_of(DATALINK_EVERY_TICKS) {
            return;
        }
        let flying: Vec<(PeerId, EntityId)> = self
            .peers
            .iter()
            .filter_map(|(&p, s)| Some((p, s.admitted.as_ref()?.entity?)))
            .collect();
        if flying.is_empty() {
            return;
        }
        let frame = DatalinkFrame::build(&self.world);
        for (peer, entity) in flying {
            if let Some(msg) = datalink_for(&self.world, &frame, entity, tick) {
                send(
                    self.transport.as_mut(),
                    peer,
                    Channel::Unreliable,
                    msg.into(),
                    &Extensions::new(),
                );
            }
        }
    }

    fn send_records(&mut self, peer: PeerId, records: &[CombatEventRecord]) {
        for chunk in records.chunks(MAX_RECORDS) {
            let msg = CombatEvent {
                records: chunk.to_vec(),
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

    pub(super) fn send_combat_events(&mut self) {
        let kills: Vec<CombatEventRecord> = std::mem::take(&mut self.combat.kills)
            .iter()
            .map(|k| k.record())
            .collect();
        let admitted: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| p.admitted.is_some())
            .map(|(&id, _)| id)
            .collect();
        if !kills.is_empty() {
            for &peer in &admitted {
                self.send_records(peer, &kills);
            }
        }
        let tick = self.world.tick();
        for (peer, stats) in self.combat.take_stats_due(tick) {
            if admitted.contains(&peer) {
                self.send_records(peer, &stats.records());
            }
        }
    }
}

//! Combat comms: the tick's kill records broadcast to every admitted peer as `MsgCombatEvent` on
//! the reliable channel, and each peer's own tallies (`Stats` and `Shots` records) unicast when
//! they changed (at once after a kill or loss, else at most twice a second). The combat rules
//! themselves are `crate::combat`'s; this only delivers what it queued.

use super::{Server, send};
use crate::combat::CombatSystem;
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

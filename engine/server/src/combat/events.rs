//! Combat events: kill records (broadcast on the reliable channel as `MsgCombatEvent`), each
//! peer's own tallies (unicast `Stats` and `Shots` records) and the tick's cosmetic effects
//! (the `SnapshotEffects` TLV, interest-filtered and capped per peer by the snapshot pipeline).
//!
//! Scoring (docs/combat.md): a kill of an aircraft or target of another faction is +1 kill and
//! +[`SCORE_KILL`]; a team kill (same faction) is −[`SCORE_KILL`] and no kill; killing yourself
//! (your own bomb's blast) scores nothing; every aircraft of a peer that is destroyed, crashes or
//! is abandoned is one loss for that peer.
//!
//! Must not: send anything (the server's `combat_comms` does), or decide credit (damage does).

use crate::pool::EntityId;
use fl_protocol::enums::{CombatEventType, EffectType, WeaponType, ids::NO_OWNING_PEER};
use fl_protocol::msg::combat::CombatEventRecord;
use fl_protocol::tlv::EffectRecord;

/// Score of a kill (and the penalty of a team kill).
pub const SCORE_KILL: i32 = 10;
/// A peer's tallies are unicast at most this often (0.5 s) unless a kill or loss changed them.
pub const STATS_INTERVAL_TICKS: u64 = 30;
/// Most effects kept for one tick (the pipeline sends at most 16 per snapshot anyway).
pub const MAX_EFFECTS_PER_TICK: usize = 1024;
/// `tgtIdx` / `instigatorIdx` meaning none (the environment).
pub const NO_ENTITY: u32 = 0xFFFF_FFFF;

/// A kill to broadcast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KillEvent {
    pub subject: EntityId,
    pub subject_owner: Option<u32>,
    /// The credited shooter (`None`: the environment).
    pub instigator: Option<EntityId>,
    pub instigator_owner: Option<u32>,
    pub weapon: Option<WeaponType>,
    /// Same faction (not neutral) on both sides.
    pub team_kill: bool,
    /// The subject credited with its own death.
    pub suicide: bool,
    /// The subject's faction.
    pub subject_faction: u16,
    /// The credited shooter's faction when it shot (0 with no credit).
    pub instigator_faction: u16,
}

impl KillEvent {
    pub(crate) fn new(
        subject: EntityId,
        subject_owner: Option<u32>,
        subject_faction: u16,
        credit: Option<crate::combat::damage::Credit>,
    ) -> Self {
        let suicide = credit.is_some_and(|c| c.by == subject);
        Self {
            subject,
            subject_owner,
            instigator: credit.map(|c| c.by),
            instigator_owner: credit.and_then(|c| c.owner),
            weapon: credit.map(|c| c.weapon),
            team_kill: !suicide
                && credit.is_some_and(|c| c.faction != 0 && c.faction == subject_faction),
            suicide,
            subject_faction,
            instigator_faction: credit.map_or(0, |c| c.faction),
        }
    }

    /// The wire record.
    pub fn record(&self) -> CombatEventRecord {
        CombatEventRecord {
            kind: CombatEventType::Kill.to_u8(),
            weapon_class: self.weapon.map_or(0xFF, WeaponType::to_u8),
            subject_idx: self.subject.index,
            subject_gen: self.subject.generation as u16,
            instigator_idx: self.instigator.map_or(NO_ENTITY, |i| i.index),
            instigator_gen: self.instigator.map_or(0, |i| i.generation as u16),
            a: self.instigator_owner.unwrap_or(NO_OWNING_PEER),
            b: self.subject_owner.unwrap_or(NO_OWNING_PEER),
            c: 0,
        }
    }
}

/// One peer's tallies.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PeerStats {
    pub kills: u32,
    pub losses: u32,
    pub team_kills: u32,
    pub score: i32,
    /// Gun rounds fired plus stores released.
    pub shots: u64,
    /// Rounds that hit plus warheads that damaged something.
    pub hits: u64,
    pub damage_dealt: f64,
    dirty: bool,
    urgent: bool,
    last_sent: Option<u64>,
}

impl PeerStats {
    pub(crate) fn touch(&mut self, _tick: u64, urgent: bool) {
        self.dirty = true;
        self.urgent |= urgent;
    }

    pub(crate) fn due(&self, tick: u64) -> bool {
        self.dirty
            && (self.urgent
                || self
                    .last_sent
                    .is_none_or(|t| tick.saturating_sub(t) >= STATS_INTERVAL_TICKS))
    }

    pub(crate) fn sent(&mut self, tick: u64) {
        self.dirty = false;
        self.urgent = false;
        self.last_sent = Some(tick);
    }

    /// The unicast records: `Stats` (a kills, b losses, c score) and `Shots` (a shots, b hits,
    /// c damage dealt, rounded) — the second is our additive record type 2 (docs/protocol.md).
    pub fn records(&self) -> [CombatEventRecord; 2] {
        let sat = |v: u64| v.min(u64::from(u32::MAX)) as u32;
        let base = CombatEventRecord {
            kind: 0,
            weapon_class: 0xFF,
            subject_idx: NO_ENTITY,
            subject_gen: 0,
            instigator_idx: NO_ENTITY,
            instigator_gen: 0,
            a: 0,
            b: 0,
            c: 0,
        };
        let dealt = self.damage_dealt.round();
        [
            CombatEventRecord {
                kind: CombatEventType::Stats.to_u8(),
                a: self.kills,
                b: self.losses,
                c: self.score,
                ..base
            },
            CombatEventRecord {
                kind: CombatEventType::Shots.to_u8(),
                a: sat(self.shots),
                b: sat(self.hits),
                c: if dealt.is_finite() {
                    dealt.clamp(0.0, f64::from(i32::MAX)) as i32
                } else {
                    0
                },
                ..base
            },
        ]
    }
}

/// The tick's effects, with world positions kept in f64 for the interest filter.
#[derive(Debug, Clone, Default)]
pub struct EffectQueue {
    pub records: Vec<(EffectRecord, [f64; 3])>,
}

impl EffectQueue {
    pub(crate) fn begin_tick(&mut self) {
        self.records.clear();
    }

    /// Queues one effect (dropped beyond [`MAX_EFFECTS_PER_TICK`]).
    pub fn push(
        &mut self,
        kind: EffectType,
        class: Option<WeaponType>,
        src: u32,
        tgt: Option<u32>,
        pos: fl_flight::math::Vec3,
    ) {
        if self.records.len() >= MAX_EFFECTS_PER_TICK || !pos.is_finite() {
            return;
        }
        self.records.push((
            EffectRecord {
                kind: kind.to_u8(),
                weapon_class: class.map_or(0xFF, WeaponType::to_u8),
                src_idx: src,
                tgt_idx: tgt.unwrap_or(NO_ENTITY),
                pos: [pos.x as f32, pos.y as f32, pos.z as f32],
            },
            [pos.x, pos.y, pos.z],
        ));
    }

    /// Takes this tick's effects.
    pub fn take(&mut self) -> Vec<(EffectRecord, [f64; 3])> {
        std::mem::take(&mut self.records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::combat::damage::Credit;

    fn id(i: u32) -> EntityId {
        EntityId {
            index: i,
            generation: 70_001,
        }
    }

    #[test]
    fn kill_records_name_both_sides_and_the_environment() {
        let credit = Credit {
            by: id(3),
            owner: Some(0),
            faction: 1,
            weapon: WeaponType::Gun,
            tick: 5,
        };
        let k = KillEvent::new(id(9), None, 2, Some(credit)).record();
        assert_eq!(k.kind, 0);
        assert_eq!(k.weapon_class, WeaponType::Gun.to_u8());
        assert_eq!((k.subject_idx, k.instigator_idx), (9, 3));
        assert_eq!(k.subject_gen, 70_001u32 as u16);
        assert_eq!((k.a, k.b), (0, NO_OWNING_PEER));
        let env = KillEvent::new(id(9), Some(4), 2, None);
        assert!(!env.team_kill && !env.suicide);
        let r = env.record();
        assert_eq!(
            (r.instigator_idx, r.weapon_class, r.a, r.b),
            (NO_ENTITY, 0xFF, NO_OWNING_PEER, 4)
        );
        assert!(KillEvent::new(id(9), None, 1, Some(credit)).team_kill);
        let own = KillEvent::new(id(3), Some(0), 1, Some(credit));
        assert!(own.suicide && !own.team_kill);
    }

    #[test]
    fn stats_are_due_at_once_after_a_kill_and_at_most_twice_a_second_otherwise() {
        let mut s = PeerStats::default();
        assert!(!s.due(0));
        s.touch(0, false);
        assert!(s.due(0), "never sent: due");
        s.sent(0);
        s.touch(1, false);
        assert!(!s.due(1) && !s.due(29) && s.due(30));
        s.touch(2, true);
        assert!(s.due(2), "a kill goes at once");
        s.kills = 2;
        s.shots = 40;
        s.hits = 11;
        let [stats, shots] = s.records();
        assert_eq!((stats.kind, stats.a), (1, 2));
        assert_eq!((shots.kind, shots.a, shots.b), (2, 40, 11));
    }
}

//! The client's entity table: what the snapshots have said about every entity, kept across
//! snapshots because a budgeted snapshot omits low-priority entities.
//!
//! Rules (spec "Scaling to 128+", docs/client.md): despawns are applied before the same packet's
//! records; a full record creates or replaces an entry (a new 16-bit generation is a new entity —
//! a kill and reuse of the slot); a delta for an unknown entity is ignored; a delta announcing
//! another generation drops the old entry (its type is unknown until a full arrives); an entry
//! not updated for `RETENTION_TICKS` server ticks is evicted. Articulation and crew poses are
//! hold-last. Orientations are stored in the engine body frame (X right, Y up, Z aft).
//!
//! Owns the table only; which entry is the player's own is the session's business.

use fl_flight::math::{Quat, Vec3};
use fl_protocol::enums::ArtChannel;
use fl_protocol::snapshot::SnapshotRecord;
use fl_protocol::tlv::{ArticulationEntry, CrewPose};
use std::collections::BTreeMap;

/// Articulation channels as received (hold-last; bit n of `mask` = `ArtChannel` n known).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Articulation {
    pub mask: u16,
    pub values: [u8; 16],
}

impl Articulation {
    /// Merges a `SnapshotArticulation` entry (channels not in it keep their last value).
    pub fn merge(&mut self, entry: &ArticulationEntry) {
        let mut i = 0;
        for bit in 0..16u16 {
            if entry.channel_mask & (1 << bit) != 0 {
                if let Some(&v) = entry.values.get(i) {
                    self.values[usize::from(bit)] = v;
                    self.mask |= 1 << bit;
                }
                i += 1;
            }
        }
    }

    /// The actuator value of a channel, when known.
    pub fn value(&self, ch: ArtChannel) -> Option<f64> {
        let bit = ch.to_u8();
        (self.mask & (1 << bit) != 0).then(|| ch.dequantize(self.values[usize::from(bit)]))
    }
}

/// One entity as the snapshots describe it.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityEntry {
    pub idx: u32,
    /// The low 16 bits of its generation (what the wire carries).
    pub generation: u16,
    pub type_index: u32,
    pub faction: u16,
    /// Server tick of the snapshot that created this instance.
    pub first_tick: u64,
    /// Server tick of its latest record.
    pub last_tick: u64,
    pub position: Vec3,
    /// Engine-body → world rotation.
    pub orientation: Quat,
    pub velocity: Vec3,
    /// Body rates (NACA p, q, r), only on the receiver's own record.
    pub omega: Option<Vec3>,
    pub damage_level: u8,
    pub engine_fail_flags: u8,
    pub throttle_pct: u8,
    pub fuel_pct: u8,
    pub ab_engaged: bool,
    pub player_owned: bool,
    pub articulation: Articulation,
    /// Turret (azimuth, elevation) codes from `SnapshotCrew`, hold-last.
    pub turrets: Vec<(i16, i16)>,
}

/// What a record did to the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upsert {
    /// A new entity.
    New,
    /// An update of a known entity.
    Updated,
    /// The slot now holds another entity (new generation): never interpolate across this.
    Replaced,
}

/// Counters of the table's decisions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableStats {
    pub unknown_deltas: u64,
    pub generation_dropped: u64,
    pub replaced: u64,
    pub despawned: u64,
    pub evicted: u64,
    /// Records ignored because their position, velocity or orientation was not finite.
    pub non_finite: u64,
}

/// The table.
#[derive(Debug, Clone, Default)]
pub struct EntityTable {
    entries: BTreeMap<u32, EntityEntry>,
    pub stats: TableStats,
}

fn vec3(a: [f64; 3]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

impl EntityTable {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, idx: u32) -> Option<&EntityEntry> {
        self.entries.get(&idx)
    }

    /// Entries in index order.
    pub fn iter(&self) -> impl Iterator<Item = &EntityEntry> {
        self.entries.values()
    }

    /// Forgets everything (a new session).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Applies a `SnapshotDespawn` index; true when an entry was removed.
    pub fn despawn(&mut self, idx: u32) -> bool {
        let removed = self.entries.remove(&idx).is_some();
        self.stats.despawned += u64::from(removed);
        removed
    }

    /// Applies one decoded record of the snapshot of `tick`; `origin` is its origin-table entry.
    /// `None` when the record was ignored.
    pub fn apply_record(
        &mut self,
        rec: &SnapshotRecord,
        origin: [f64; 3],
        tick: u64,
    ) -> Option<Upsert> {
        let position = vec3(rec.position_m(origin));
        let velocity = vec3(rec.velocity_mps());
        let wire = rec.orientation();
        if !(position.is_finite() && velocity.is_finite() && wire.iter().all(|c| c.is_finite())) {
            // The decoder refuses non-finite origins; this keeps any other source of a NaN
            // (a caller's origin, an overflow) out of everything downstream, the renderer first.
            self.stats.non_finite += 1;
            return None;
        }
        let existing = self.entries.get(&rec.idx);
        let (kind, type_index, faction, generation, first_tick) = match (&rec.full, existing) {
            (Some(full), Some(e)) => {
                let generation = rec.generation.unwrap_or(e.generation);
                if generation == e.generation {
                    (
                        Upsert::Updated,
                        full.type_index,
                        full.faction_index,
                        generation,
                        e.first_tick,
                    )
                } else {
                    self.stats.replaced += 1;
                    (
                        Upsert::Replaced,
                        full.type_index,
                        full.faction_index,
                        generation,
                        tick,
                    )
                }
            }
            (Some(full), None) => (
                Upsert::New,
                full.type_index,
                full.faction_index,
                rec.generation.unwrap_or(0),
                tick,
            ),
            (None, None) => {
                self.stats.unknown_deltas += 1;
                return None;
            }
            (None, Some(e)) => {
                if rec.generation.is_some_and(|g| g != e.generation) {
                    // Another entity now, but without its type: wait for its full record.
                    self.entries.remove(&rec.idx);
                    self.stats.generation_dropped += 1;
                    return None;
                }
                (
                    Upsert::Updated,
                    e.type_index,
                    e.faction,
                    e.generation,
                    e.first_tick,
                )
            }
        };
        let (articulation, turrets) = match (kind, self.entries.get(&rec.idx)) {
            (Upsert::Updated, Some(e)) => (e.articulation, e.turrets.clone()),
            _ => (Articulation::default(), Vec::new()),
        };
        let entry = EntityEntry {
            idx: rec.idx,
            generation,
            type_index,
            faction,
            first_tick,
            last_tick: tick,
            position,
            orientation: fl_server::world::engine_orientation(wire),
            velocity,
            omega: rec.omega_rad_s().map(vec3),
            damage_level: rec.damage_level,
            engine_fail_flags: rec.engine_fail_flags,
            throttle_pct: rec.throttle,
            fuel_pct: rec.fuel_pct,
            ab_engaged: rec.ab_engaged,
            player_owned: rec.player_owned,
            articulation,
            turrets,
        };
        self.entries.insert(rec.idx, entry);
        Some(kind)
    }

    /// Merges `SnapshotArticulation` entries into known entities.
    pub fn apply_articulation(&mut self, entries: &[ArticulationEntry]) {
        for a in entries {
            if let Some(e) = self.entries.get_mut(&a.entity_idx) {
                e.articulation.merge(a);
            }
        }
    }

    /// Takes `SnapshotCrew` turret poses for known entities.
    pub fn apply_crew(&mut self, poses: &[CrewPose]) {
        for p in poses {
            if let Some(e) = self.entries.get_mut(&p.entity_idx) {
                e.turrets.clone_from(&p.turrets);
            }
        }
    }

    /// Evicts entries not updated within `retention` ticks of `tick` (never `keep`); returns
    /// their indices.
    pub fn evict_stale(&mut self, tick: u64, retention: u64, keep: Option<u32>) -> Vec<u32> {
        let stale: Vec<u32> = self
            .entries
            .values()
            .filter(|e| Some(e.idx) != keep && tick.saturating_sub(e.last_tick) > retention)
            .map(|e| e.idx)
            .collect();
        for idx in &stale {
            self.entries.remove(idx);
        }
        self.stats.evicted += stale.len() as u64;
        stale
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::snapshot::{EntityState, RecordKind, origin_for};

    fn record(idx: u32, generation: u32, x: f64, kind: RecordKind) -> (SnapshotRecord, [f64; 3]) {
        let state = EntityState {
            idx,
            generation,
            type_index: 1,
            faction_index: 2,
            position: [x, 1000.0, 0.0],
            orientation: [0.0, 0.0, 0.0, 1.0],
            velocity: [250.0, 0.0, 0.0],
            ..EntityState::default()
        };
        let origin = origin_for(state.position);
        (SnapshotRecord::quantize(&state, 0, origin, kind), origin)
    }

    #[test]
    fn fulls_create_deltas_update_unknown_deltas_are_ignored() {
        let mut t = EntityTable::new();
        let (d, o) = record(7, 3, 10.0, RecordKind::DELTA);
        assert_eq!(t.apply_record(&d, o, 1), None);
        assert_eq!(t.stats.unknown_deltas, 1);
        let (f, o) = record(7, 3, 10.0, RecordKind::FULL);
        assert_eq!(t.apply_record(&f, o, 2), Some(Upsert::New));
        let (d, o) = record(7, 3, 20.0, RecordKind::DELTA);
        assert_eq!(t.apply_record(&d, o, 3), Some(Upsert::Updated));
        let e = t.get(7).expect("entry");
        assert_eq!(
            (e.position.x, e.type_index, e.faction, e.last_tick),
            (20.0, 1, 2, 3)
        );
        assert_eq!(e.first_tick, 2);
    }

    #[test]
    fn a_new_generation_replaces_and_a_generation_delta_drops() {
        let mut t = EntityTable::new();
        let (f, o) = record(7, 0x0001_0003, 10.0, RecordKind::FULL);
        t.apply_record(&f, o, 1);
        assert_eq!(t.get(7).map(|e| e.generation), Some(3), "low 16 bits");
        let (f, o) = record(7, 4, 10.0, RecordKind::FULL);
        assert_eq!(t.apply_record(&f, o, 2), Some(Upsert::Replaced));
        let (mut d, o) = record(7, 5, 10.0, RecordKind::DELTA);
        d.generation = Some(5);
        assert_eq!(t.apply_record(&d, o, 3), None);
        assert!(t.get(7).is_none());
        assert_eq!(t.stats.generation_dropped, 1);
    }

    #[test]
    fn a_record_at_a_non_finite_position_never_enters_the_table() {
        let mut t = EntityTable::new();
        let (f, o) = record(7, 1, 10.0, RecordKind::FULL);
        assert_eq!(t.apply_record(&f, o, 1), Some(Upsert::New));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(t.apply_record(&f, [bad, 0.0, 0.0], 2), None);
            let (g, _) = record(8, 1, 10.0, RecordKind::FULL);
            assert_eq!(t.apply_record(&g, [0.0, bad, 0.0], 2), None);
        }
        assert_eq!(t.stats.non_finite, 6);
        let e = t.get(7).expect("the last good state stays");
        assert!(e.position.x.is_finite() && e.last_tick == 1);
        assert!(t.get(8).is_none());
    }

    #[test]
    fn retention_evicts_but_keeps_the_own_entity() {
        let mut t = EntityTable::new();
        for idx in [1, 2] {
            let (f, o) = record(idx, 1, 0.0, RecordKind::FULL);
            t.apply_record(&f, o, 10);
        }
        assert!(t.evict_stale(190, 180, Some(1)).is_empty());
        assert_eq!(t.evict_stale(191, 180, Some(1)), vec![2]);
        assert!(t.get(1).is_some());
        assert!(t.despawn(1));
        assert!(!t.despawn(1));
    }

    #[test]
    fn articulation_is_hold_last() {
        let mut a = Articulation::default();
        a.merge(&ArticulationEntry {
            entity_idx: 1,
            channel_mask: 0b11,
            values: vec![255, 0],
        });
        a.merge(&ArticulationEntry {
            entity_idx: 1,
            channel_mask: 0b10,
            values: vec![128],
        });
        assert_eq!(a.value(ArtChannel::Gear), Some(1.0));
        assert!((a.value(ArtChannel::Flaps).expect("known") - 128.0 / 255.0).abs() < 1e-12);
        assert_eq!(a.value(ArtChannel::Hook), None);
    }
}

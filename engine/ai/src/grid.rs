//! [`GridWorld`]: a ready-made [`WorldView`] over a slot-indexed entity table and a uniform XZ
//! spatial hash, for tests, tools and any server that does not bring its own index.
//!
//! Owns: bucketing by world X and Z, radius queries that visit each candidate once. Must not:
//! change during an AI pass (build it, then share it read-only across the worker threads).

use crate::view::{EntityView, WorldView};
use fl_flight::math::Vec3;
use std::collections::HashMap;

/// Cells per axis beyond which a query scans the whole table instead of the hash.
const MAX_CELLS_PER_AXIS: i64 = 64;

/// Entity table plus a uniform XZ hash. Lookups by key only — the map is never iterated, so the
/// hash's order cannot leak into results.
#[derive(Debug, Clone)]
pub struct GridWorld {
    cell_m: f64,
    slots: Vec<Option<EntityView>>,
    cells: HashMap<(i64, i64), Vec<u32>>,
}

impl GridWorld {
    /// An empty world with cells of `cell_m` metres (clamped to at least 1 m; non-finite values
    /// become 1 km).
    pub fn new(cell_m: f64) -> Self {
        let cell_m = if cell_m.is_finite() {
            cell_m.max(1.0)
        } else {
            1000.0
        };
        Self {
            cell_m,
            slots: Vec::new(),
            cells: HashMap::new(),
        }
    }

    /// A world holding `entities` (a later entity with the same index replaces an earlier one).
    pub fn from_entities(cell_m: f64, entities: impl IntoIterator<Item = EntityView>) -> Self {
        let mut w = Self::new(cell_m);
        for e in entities {
            w.insert(e);
        }
        w
    }

    fn cell_of(&self, p: Vec3) -> (i64, i64) {
        // `as` saturates (and maps NaN to 0), so hostile positions cannot panic here.
        (
            libm::floor(p.x / self.cell_m) as i64,
            libm::floor(p.z / self.cell_m) as i64,
        )
    }

    /// Puts `e` in slot `e.id.index`, replacing the slot's previous occupant.
    pub fn insert(&mut self, e: EntityView) {
        let i = e.id.index as usize;
        if i >= self.slots.len() {
            self.slots.resize(i + 1, None);
        }
        if let Some(old) = self.slots[i].take() {
            let c = self.cell_of(old.position);
            if let Some(v) = self.cells.get_mut(&c) {
                v.retain(|&x| x != e.id.index);
            }
        }
        let c = self.cell_of(e.position);
        self.cells.entry(c).or_default().push(e.id.index);
        self.slots[i] = Some(e);
    }

    /// Empties slot `index`.
    pub fn remove(&mut self, index: u32) {
        if let Some(old) = self.slots.get_mut(index as usize).and_then(Option::take) {
            let c = self.cell_of(old.position);
            if let Some(v) = self.cells.get_mut(&c) {
                v.retain(|&x| x != index);
            }
        }
    }

    /// Number of occupied slots.
    pub fn len(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// True when no slot is occupied.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The occupied slots in index order.
    pub fn iter(&self) -> impl Iterator<Item = &EntityView> {
        self.slots.iter().flatten()
    }
}

impl WorldView for GridWorld {
    fn entity(&self, index: u32) -> Option<EntityView> {
        self.slots.get(index as usize).copied().flatten()
    }

    fn for_each_near(&self, centre: Vec3, radius_m: f64, visit: &mut dyn FnMut(&EntityView)) {
        if radius_m.is_nan() || radius_m < 0.0 || !centre.is_finite() {
            return;
        }
        let lo = self.cell_of(Vec3::new(centre.x - radius_m, 0.0, centre.z - radius_m));
        let hi = self.cell_of(Vec3::new(centre.x + radius_m, 0.0, centre.z + radius_m));
        let span_x = hi.0.saturating_sub(lo.0);
        let span_z = hi.1.saturating_sub(lo.1);
        if span_x > MAX_CELLS_PER_AXIS || span_z > MAX_CELLS_PER_AXIS {
            for e in self.slots.iter().flatten() {
                visit(e);
            }
            return;
        }
        for cx in lo.0..=hi.0 {
            for cz in lo.1..=hi.1 {
                if let Some(ids) = self.cells.get(&(cx, cz)) {
                    for &i in ids {
                        if let Some(e) = self.slots.get(i as usize).and_then(Option::as_ref) {
                            visit(e);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::EntityId;

    fn e(index: u32, x: f64, z: f64) -> EntityView {
        EntityView::point(
            EntityId::new(index, 1),
            1,
            Vec3::new(x, 500.0, z),
            Vec3::ZERO,
        )
    }

    fn visited(w: &GridWorld, c: Vec3, r: f64) -> Vec<u32> {
        let mut v = Vec::new();
        w.for_each_near(c, r, &mut |x| v.push(x.id.index));
        v.sort_unstable();
        v
    }

    #[test]
    fn queries_visit_everything_in_range_exactly_once() {
        // A lattice straddling cell boundaries (and negative coordinates).
        let mut w = GridWorld::new(300.0);
        let mut i = 0;
        for gx in -10..10 {
            for gz in -10..10 {
                w.insert(e(i, f64::from(gx) * 137.0, f64::from(gz) * 151.0));
                i += 1;
            }
        }
        for (c, r) in [
            (Vec3::new(0.0, 0.0, 0.0), 400.0),
            (Vec3::new(-611.0, 500.0, 290.0), 750.0),
            (Vec3::new(1000.0, 0.0, -1000.0), 5.0),
        ] {
            let got = visited(&w, c, r);
            let mut dedup = got.clone();
            dedup.dedup();
            assert_eq!(got, dedup, "visited twice");
            for x in w.iter() {
                if (x.position - c).length() <= r {
                    assert!(got.contains(&x.id.index), "missed {}", x.id.index);
                }
            }
        }
        // A radius spanning more than 64 cells falls back to a full scan.
        assert_eq!(visited(&w, Vec3::ZERO, 1.0e6).len(), 400);
    }

    #[test]
    fn insert_replaces_and_remove_empties_a_slot() {
        let mut w = GridWorld::new(100.0);
        w.insert(e(3, 0.0, 0.0));
        w.insert(e(3, 1000.0, 0.0));
        assert_eq!(w.len(), 1);
        assert!(visited(&w, Vec3::ZERO, 10.0).is_empty());
        assert_eq!(visited(&w, Vec3::new(1000.0, 0.0, 0.0), 10.0), [3]);
        w.remove(3);
        w.remove(99);
        assert!(w.is_empty());
        assert!(w.entity(3).is_none());
    }

    #[test]
    fn hostile_numbers_do_not_panic() {
        let mut w = GridWorld::new(f64::NAN);
        w.insert(e(0, f64::NAN, f64::INFINITY));
        w.insert(e(1, 1e300, -1e300));
        for r in [f64::NAN, -1.0, 0.0, f64::INFINITY] {
            w.for_each_near(Vec3::ZERO, r, &mut |_| {});
        }
        w.for_each_near(Vec3::new(f64::NAN, 0.0, 0.0), 10.0, &mut |_| {});
        assert_eq!(w.len(), 2);
    }
}

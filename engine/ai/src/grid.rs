//! [`GridWorld`]: a ready-made [`WorldView`] over a slot-indexed entity table and the
//! workspace's one spatial hash ([`SpatialIndex`], which the server's interest management uses
//! too), for the server's AI pass, tests and tools.
//!
//! Owns: the slot table and keeping the hash in step with it. Must not: change during an AI
//! pass (build it, then share it read-only across the worker threads).

use crate::spatial::SpatialIndex;
use crate::view::{EntityView, WorldView};
use fl_flight::math::Vec3;

/// Entity table plus a uniform XZ hash; the visiting order depends only on the inserts.
#[derive(Debug, Clone)]
pub struct GridWorld {
    slots: Vec<Option<EntityView>>,
    index: SpatialIndex,
}

fn xyz(p: Vec3) -> [f64; 3] {
    [p.x, p.y, p.z]
}

impl GridWorld {
    /// An empty world with cells of `cell_m` metres (clamped to at least 1 m; non-finite values
    /// become 1 km).
    pub fn new(cell_m: f64) -> Self {
        Self {
            slots: Vec::new(),
            index: SpatialIndex::new(cell_m),
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

    /// Puts `e` in slot `e.id.index`, replacing the slot's previous occupant.
    pub fn insert(&mut self, e: EntityView) {
        let i = e.id.index as usize;
        if i >= self.slots.len() {
            self.slots.resize(i + 1, None);
        }
        if let Some(old) = self.slots[i].take() {
            self.index.remove(e.id.index, xyz(old.position));
        }
        self.index.insert(e.id.index, xyz(e.position));
        self.slots[i] = Some(e);
    }

    /// Empties slot `index`.
    pub fn remove(&mut self, index: u32) {
        if let Some(old) = self.slots.get_mut(index as usize).and_then(Option::take) {
            self.index.remove(index, xyz(old.position));
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
        // Exact: only entities within the radius (the contract allows more; none are sent).
        self.index.for_each_within(xyz(centre), radius_m, |i| {
            if let Some(e) = self.slots.get(i as usize).and_then(Option::as_ref) {
                visit(e);
            }
        });
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
        // A radius spanning more cells than the hash holds falls back to a full scan.
        assert_eq!(visited(&w, Vec3::ZERO, 1.0e6).len(), 400);
    }

    #[test]
    fn insert_replaces_and_remove_empties_a_slot() {
        let mut w = GridWorld::new(100.0);
        w.insert(e(3, 0.0, 0.0));
        w.insert(e(3, 1000.0, 0.0));
        assert_eq!(w.len(), 1);
        assert!(visited(&w, Vec3::ZERO, 10.0).is_empty());
        assert_eq!(visited(&w, Vec3::new(1000.0, 500.0, 0.0), 10.0), [3]);
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

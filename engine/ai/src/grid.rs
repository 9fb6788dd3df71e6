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

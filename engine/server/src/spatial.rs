//! Uniform XZ spatial hash over entity positions, rebuilt once per tick and read concurrently
//! afterwards (interest management, AI neighbour queries). The cell size follows the spec's
//! auto rule `clamp(draw_distance / 32, 500 m, 10 km)` unless configured. Queries return
//! candidates sorted by entity index so results never depend on hash order.

use std::collections::HashMap;

/// Auto cell size for a given interest radius.
pub fn auto_cell_size(draw_distance_m: f64) -> f64 {
    (draw_distance_m / 32.0).clamp(500.0, 10_000.0)
}

/// Above this many cells per query the index falls back to a linear scan (a hostile or absurd
/// radius must not turn one query into millions of empty cell lookups).
const MAX_CELLS_PER_QUERY: i64 = 65_536;

#[derive(Debug, Clone, Copy)]
struct Item {
    index: u32,
    pos: [f64; 3],
}

/// The spatial hash.
#[derive(Debug, Default)]
pub struct SpatialIndex {
    cell: f64,
    cells: HashMap<(i64, i64), Vec<Item>>,
    /// Recycled cell vectors (no per-tick allocation in steady state).
    spare: Vec<Vec<Item>>,
    all: Vec<Item>,
}

impl SpatialIndex {
    /// An empty index with `cell_size_m` cells.
    pub fn new(cell_size_m: f64) -> Self {
        Self {
            cell: if cell_size_m.is_finite() && cell_size_m > 1.0 {
                cell_size_m
            } else {
                10_000.0
            },
            ..Self::default()
        }
    }

    /// The cell size in metres.
    pub fn cell_size(&self) -> f64 {
        self.cell
    }

    fn key(&self, x: f64, z: f64) -> (i64, i64) {
        // Non-finite coordinates land in cell (0, 0); `as` saturates huge values.
        let f = |v: f64| {
            if v.is_finite() {
                (v / self.cell).floor() as i64
            } else {
                0
            }
        };
        (f(x), f(z))
    }

    /// Empties the index, keeping allocations.
    pub fn clear(&mut self) {
        for (_, mut v) in self.cells.drain() {
            v.clear();
            self.spare.push(v);
        }
        self.all.clear();
    }

    /// Adds an entity.
    pub fn insert(&mut self, index: u32, pos: [f64; 3]) {
        let key = self.key(pos[0], pos[2]);
        let item = Item { index, pos };
        let spare = &mut self.spare;
        self.cells
            .entry(key)
            .or_insert_with(|| spare.pop().unwrap_or_default())
            .push(item);
        self.all.push(item);
    }

    /// Indices within `radius_m` of `center` (exact 3D distance), ascending, into `out`
    /// (cleared first).
    pub fn query(&self, center: [f64; 3], radius_m: f64, out: &mut Vec<u32>) {
        out.clear();
        if radius_m.is_nan() || radius_m < 0.0 || !center.iter().all(|c| c.is_finite()) {
            return;
        }
        let r2 = radius_m * radius_m;
        let within = |p: &[f64; 3]| {
            let d = [p[0] - center[0], p[1] - center[1], p[2] - center[2]];
            d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r2
        };
        let (x0, z0) = self.key(center[0] - radius_m, center[2] - radius_m);
        let (x1, z1) = self.key(center[0] + radius_m, center[2] + radius_m);
        let span = (x1 - x0 + 1).saturating_mul(z1 - z0 + 1);
        if span > MAX_CELLS_PER_QUERY || span > self.cells.len() as i64 * 4 {
            out.extend(
                self.all
                    .iter()
                    .filter(|it| within(&it.pos))
                    .map(|it| it.index),
            );
        } else {
            for x in x0..=x1 {
                for z in z0..=z1 {
                    if let Some(items) = self.cells.get(&(x, z)) {
                        out.extend(items.iter().filter(|it| within(&it.pos)).map(|it| it.index));
                    }
                }
            }
        }
        out.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_is_exact_3d_and_sorted() {
        let mut s = SpatialIndex::new(1000.0);
        s.insert(3, [0.0, 0.0, 0.0]);
        s.insert(1, [900.0, 0.0, 0.0]);
        s.insert(2, [0.0, 1500.0, 0.0]); // inside the XZ cell range, outside in 3D
        s.insert(7, [-2500.0, 0.0, 10.0]);
        let mut out = Vec::new();
        s.query([0.0, 0.0, 0.0], 1000.0, &mut out);
        assert_eq!(out, vec![1, 3]);
        s.query([0.0, 0.0, 0.0], 3000.0, &mut out);
        assert_eq!(out, vec![1, 2, 3, 7]);
        s.clear();
        s.query([0.0, 0.0, 0.0], 3000.0, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn hostile_queries_are_bounded_and_safe() {
        let mut s = SpatialIndex::new(500.0);
        s.insert(1, [1e300, f64::NAN, -1e300]);
        s.insert(2, [10.0, 0.0, 10.0]);
        let mut out = Vec::new();
        s.query([0.0, 0.0, 0.0], 1e12, &mut out);
        assert_eq!(out, vec![2]);
        s.query([f64::NAN, 0.0, 0.0], 10.0, &mut out);
        assert!(out.is_empty());
        s.query([0.0, 0.0, 0.0], f64::NAN, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn auto_cell_size_follows_the_rule() {
        assert_eq!(auto_cell_size(200_000.0), 6250.0);
        assert_eq!(auto_cell_size(1000.0), 500.0);
        assert_eq!(auto_cell_size(1e9), 10_000.0);
    }
}

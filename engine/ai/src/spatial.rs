//! [`SpatialIndex`]: the one uniform XZ spatial hash of the workspace, used by the server's
//! interest management (rebuilt once per tick, read concurrently by the snapshot pipeline) and
//! by [`crate::GridWorld`] for the AI's neighbour queries.
//!
//! Owns: bucketing entity slots by world X and Z, exact 3-D radius queries, and the bound on a
//! query's work (a huge or hostile radius falls back to one linear scan instead of millions of
//! empty cell lookups). Must not: let hash-map order reach a result — cells are visited in
//! coordinate order and the fallback scan in insertion order, so visiting order is a pure
//! function of the inserts; `query` sorts its output.

use std::collections::HashMap;

/// Above this many cells per query the index falls back to a linear scan.
const MAX_CELLS_PER_QUERY: i64 = 65_536;

/// Cell size used when the one asked for is not a finite number.
const FALLBACK_CELL_M: f64 = 1000.0;

#[derive(Debug, Clone, Copy)]
struct Item {
    index: u32,
    pos: [f64; 3],
}

/// A uniform XZ hash of `(index, position)` items.
#[derive(Debug, Clone, Default)]
pub struct SpatialIndex {
    cell: f64,
    cells: HashMap<(i64, i64), Vec<Item>>,
    /// Recycled cell vectors (no per-tick allocation in steady state).
    spare: Vec<Vec<Item>>,
    /// Every item in insertion order (the fallback scan's order).
    all: Vec<Item>,
}

impl SpatialIndex {
    /// An empty index with `cell_size_m` cells (at least 1 m; a non-finite size becomes 1 km).
    pub fn new(cell_size_m: f64) -> Self {
        Self {
            cell: if cell_size_m.is_finite() {
                cell_size_m.max(1.0)
            } else {
                FALLBACK_CELL_M
            },
            ..Self::default()
        }
    }

    /// The cell size in metres.
    pub fn cell_size(&self) -> f64 {
        self.cell
    }

    /// Items held.
    pub fn len(&self) -> usize {
        self.all.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    fn key(&self, x: f64, z: f64) -> (i64, i64) {
        cell_key(self.cell, x, z)
    }

    /// Empties the index, keeping allocations.
    pub fn clear(&mut self) {
        // Draining visits the map in hash order, which only decides which spare vector a
        // later cell reuses — never what a query returns.
        for (_, mut v) in self.cells.drain() {
            v.clear();
            self.spare.push(v);
        }
        self.all.clear();
    }

    /// Adds an item (an index may be held more than once; see [`SpatialIndex::remove`]).
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

    /// Removes every item with `index` that was inserted at `pos` (linear in the items held;
    /// an index built once per tick never needs it).
    pub fn remove(&mut self, index: u32, pos: [f64; 3]) {
        let key = self.key(pos[0], pos[2]);
        if let Some(v) = self.cells.get_mut(&key) {
            v.retain(|it| it.index != index);
        }
        let cell = self.cell;
        self.all
            .retain(|it| it.index != index || cell_key(cell, it.pos[0], it.pos[2]) != key);
    }

    /// Calls `visit` with the index of every item whose 3-D distance from `center` is at most
    /// `radius_m`, each once, in an order that depends only on the inserts. Nothing is visited
    /// for a NaN or negative radius or a non-finite centre.
    pub fn for_each_within(&self, center: [f64; 3], radius_m: f64, mut visit: impl FnMut(u32)) {
        if radius_m.is_nan() || radius_m < 0.0 || !center.iter().all(|c| c.is_finite()) {
            return;
        }
        let r2 = radius_m * radius_m;
        let within = |p: &[f64; 3]| {
            let d = [p[0] - center[0], p[1] - center[1], p[2] - center[2]];
            d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r2
        };
        let lo = [center[0] - radius_m, center[2] - radius_m];
        let hi = [center[0] + radius_m, center[2] + radius_m];
        let (x0, z0) = self.key(lo[0], lo[1]);
        let (x1, z1) = self.key(hi[0], hi[1]);
        let span = (x1.saturating_sub(x0).saturating_add(1))
            .saturating_mul(z1.saturating_sub(z0).saturating_add(1));
        // An infinite reach has no cell range (the key of ±inf is cell 0): scan.
        let unbounded = !lo.iter().chain(&hi).all(|v| v.is_finite());
        if unbounded || span > MAX_CELLS_PER_QUERY || span > self.cells.len() as i64 * 4 {
            for it in &self.all {
                if within(&it.pos) {
                    visit(it.index);
                }
            }
        } else {
            for x in x0..=x1 {
                for z in z0..=z1 {
                    if let Some(items) = self.cells.get(&(x, z)) {
                        for it in items {
                            if within(&it.pos) {
                                visit(it.index);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Indices within `radius_m` of `center` (exact 3-D distance), ascending, into `out`
    /// (cleared first).
    pub fn query(&self, center: [f64; 3], radius_m: f64, out: &mut Vec<u32>) {
        out.clear();
        self.for_each_within(center, radius_m, |i| out.push(i));
        out.sort_unstable();
    }
}

/// The cell of a point: non-finite coordinates land in cell (0, 0); `as` saturates huge values.
fn cell_key(cell: f64, x: f64, z: f64) -> (i64, i64) {
    let f = |v: f64| {
        if v.is_finite() {
            libm::floor(v / cell) as i64
        } else {
            0
        }
    };
    (f(x), f(z))
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
        assert!(s.is_empty());
        s.query([0.0, 0.0, 0.0], 3000.0, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn hostile_queries_are_bounded_and_safe() {
        let mut s = SpatialIndex::new(500.0);
        s.insert(1, [1e300, f64::NAN, -1e300]);
        s.insert(2, [10.0, 0.0, 10.0]);
        s.insert(3, [1e5, 0.0, -1e5]);
        let mut out = Vec::new();
        s.query([0.0, 0.0, 0.0], 1e12, &mut out);
        assert_eq!(out, vec![2, 3]);
        // Radii whose cell range saturates or is infinite reach everything finite.
        for r in [1e300, f64::MAX, f64::INFINITY] {
            s.query([0.0, 0.0, 0.0], r, &mut out);
            assert_eq!(out, vec![2, 3], "radius {r}");
        }
        s.query([f64::NAN, 0.0, 0.0], 10.0, &mut out);
        assert!(out.is_empty());
        s.query([0.0, 0.0, 0.0], f64::NAN, &mut out);
        assert!(out.is_empty());
        s.query([0.0, 0.0, 0.0], -1.0, &mut out);
        assert!(out.is_empty());
        for size in [f64::NAN, f64::INFINITY, 0.0, -5.0] {
            let s = SpatialIndex::new(size);
            assert!(s.cell_size().is_finite() && s.cell_size() >= 1.0, "{size}");
        }
    }

    #[test]
    fn the_cell_walk_and_the_fallback_scan_agree() {
        // A lattice straddling cell boundaries and negative coordinates; radii small enough
        // for the cell walk and large enough for the scan must give the brute-force answer.
        let mut s = SpatialIndex::new(300.0);
        let mut pts = Vec::new();
        for gx in -10..10 {
            for gz in -10..10 {
                let p = [
                    f64::from(gx) * 137.0,
                    f64::from(gx * gz),
                    f64::from(gz) * 151.0,
                ];
                s.insert(pts.len() as u32, p);
                pts.push(p);
            }
        }
        let mut out = Vec::new();
        for (c, r) in [
            ([0.0, 0.0, 0.0], 400.0),
            ([-611.0, 50.0, 290.0], 750.0),
            ([1000.0, 0.0, -1000.0], 5.0),
            ([0.0, 0.0, 0.0], 1.0e6),
        ] {
            s.query(c, r, &mut out);
            let brute: Vec<u32> = (0..pts.len() as u32)
                .filter(|&i| {
                    let p = pts[i as usize];
                    let d = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
                    d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r * r
                })
                .collect();
            assert_eq!(out, brute, "centre {c:?} radius {r}");
        }
    }

    #[test]
    fn remove_takes_out_only_that_item() {
        let mut s = SpatialIndex::new(100.0);
        s.insert(3, [0.0, 0.0, 0.0]);
        s.insert(4, [5.0, 0.0, 0.0]);
        s.insert(3, [1000.0, 0.0, 0.0]);
        s.remove(3, [0.0, 0.0, 0.0]);
        let mut out = Vec::new();
        s.query([0.0, 0.0, 0.0], 50.0, &mut out);
        assert_eq!(out, vec![4]);
        s.query([0.0, 0.0, 0.0], 2000.0, &mut out);
        assert_eq!(out, vec![3, 4], "the other item of index 3 stays");
        assert_eq!(s.len(), 2);
    }
}

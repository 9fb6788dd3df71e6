//! Terrain colour from land cover: the albedo of each ESA WorldCover class, and the per-vertex
//! blend of a chunk's classes with their neighbours' that hides the land-cover grid.
//!
//! Owns the class colours (shaders/terrain.wgsl reads the blend from the vertex; slope rock and
//! snow stay in the shader). Must not: look at anything but the chunk it is given (no engine
//! crate, no neighbours' data), so a chunk's colours are a pure function of its mesh.

/// Linear albedo of an ESA WorldCover class (0 and unknown classes: dry ground).
pub fn class_albedo(class: u8) -> [f32; 3] {
    match class {
        10 => [0.035, 0.045, 0.025],  // tree cover
        20 => [0.160, 0.145, 0.105],  // shrubland (desert scrub)
        30 => [0.170, 0.180, 0.085],  // grassland
        40 => [0.120, 0.170, 0.060],  // cropland
        50 => [0.200, 0.195, 0.190],  // built-up
        60 => [0.300, 0.260, 0.200],  // bare / sparse
        70 => [0.800, 0.820, 0.860],  // snow and ice
        80 => [0.015, 0.035, 0.055],  // water
        90 => [0.070, 0.100, 0.060],  // wetland
        95 => [0.035, 0.070, 0.030],  // mangroves
        100 => [0.180, 0.180, 0.120], // moss and lichen
        _ => [0.240, 0.210, 0.150],
    }
}

/// Rounds of neighbour averaging: each spreads a class boundary over one more grid spacing.
const SMOOTHING_PASSES: usize = 2;

/// The albedo of every vertex of a mesh, its class's blended with its neighbours' along the
/// mesh's edges, encoded for the vertex buffer (√albedo in 0…255: the dark classes, water and
/// forest, keep their precision).
///
/// Per-vertex classes sample the land cover on the chunk's grid (≈ 76 m over the pack's finest
/// tiles), so one class per vertex draws a staircase of colour along the grid. Averaging with the
/// neighbours ([`SMOOTHING_PASSES`] times) turns the staircase into soft boundaries. Vertices on
/// the mesh's open boundary (the skirts' lower edges) and those joined to them (a chunk's edge
/// vertices) keep their own class's colour: a neighbouring chunk holds the same vertex with
/// other neighbours, and only the unblended colour is the same on both sides, so no seam shows.
/// `indices` must be within `classes` (checked by the caller); a trailing partial triangle is
/// ignored.
pub fn blended_albedo(classes: &[u8], indices: &[u32]) -> Vec<[u8; 3]> {
    let n = classes.len();
    let mut albedo: Vec<[f32; 3]> = classes.iter().map(|&c| class_albedo(c)).collect();
    let tris: Vec<[usize; 3]> = indices
        .chunks_exact(3)
        .map(|t| [t[0] as usize, t[1] as usize, t[2] as usize])
        .filter(|t| t.iter().all(|&i| i < n))
        .collect();
    // Open edges: those of exactly one triangle.
    let mut edges: Vec<(usize, usize)> = tris
        .iter()
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    edges.sort_unstable();
    let mut on_boundary = vec![false; n];
    let mut k = 0;
    while k < edges.len() {
        let mut run = 1;
        while k + run < edges.len() && edges[k + run] == edges[k] {
            run += 1;
        }
        if run == 1 {
            let (a, b) = edges[k];
            on_boundary[a] = true;
            on_boundary[b] = true;
        }
        k += run;
    }
    let mut pinned = on_boundary.clone();
    for t in &tris {
        if t.iter().any(|&i| on_boundary[i]) {
            for &i in t {
                pinned[i] = true;
            }
        }
    }
    for _ in 0..SMOOTHING_PASSES {
        // Each triangle adds its other two corners to a corner: an edge inside the mesh counts
        // twice (once per triangle), the vertex itself weighs as much as its ring.
        let mut sum: Vec<[f32; 4]> = albedo
            .iter()
            .map(|a| [a[0] * 6.0, a[1] * 6.0, a[2] * 6.0, 6.0])
            .collect();
        for t in &tris {
            for (i, j, k) in [(t[0], t[1], t[2]), (t[1], t[2], t[0]), (t[2], t[0], t[1])] {
                for o in [j, k] {
                    for c in 0..3 {
                        sum[i][c] += albedo[o][c];
                    }
                    sum[i][3] += 1.0;
                }
            }
        }
        for (v, a) in albedo.iter_mut().enumerate() {
            if !pinned[v] {
                let s = sum[v];
                *a = [s[0] / s[3], s[1] / s[3], s[2] / s[3]];
            }
        }
    }
    albedo
        .iter()
        .map(|a| a.map(|c| (c.clamp(0.0, 1.0).sqrt() * 255.0).round() as u8))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `side` × `side` vertex grid of two triangles per cell.
    fn grid(side: usize) -> Vec<u32> {
        let mut idx = Vec::new();
        for y in 0..side - 1 {
            for x in 0..side - 1 {
                let a = (y * side + x) as u32;
                let (b, c) = (a + 1, a + side as u32);
                idx.extend_from_slice(&[a, b, c + 1, a, c + 1, c]);
            }
        }
        idx
    }

    fn decode(e: [u8; 3]) -> [f32; 3] {
        e.map(|c| (f32::from(c) / 255.0).powi(2))
    }

    #[test]
    fn a_class_boundary_is_blended_inside_and_the_mesh_edge_keeps_its_class() {
        // Trees on the left half of a 9 × 9 grid, bare ground on the right.
        let side = 9;
        let classes: Vec<u8> = (0..side * side)
            .map(|i| if i % side < 4 { 10 } else { 60 })
            .collect();
        let a = blended_albedo(&classes, &grid(side));
        let trees = class_albedo(10)[0];
        let bare = class_albedo(60)[0];
        // Across the boundary in the middle row the colour steps through values between the two
        // classes, monotonically, instead of jumping once.
        let row: Vec<f32> = (0..side).map(|x| decode(a[4 * side + x])[0]).collect();
        let between = row
            .iter()
            .filter(|&&r| r > trees + 0.01 && r < bare - 0.01)
            .count();
        assert!(between >= 3, "{row:?}");
        assert!(row.windows(2).all(|w| w[1] >= w[0] - 1e-3), "{row:?}");
        // The boundary rows and columns (and those joined to them) keep the class's colour.
        for x in 0..side {
            let top = decode(a[x])[0];
            let want = class_albedo(classes[x])[0];
            assert!(
                (top - want).abs() < 0.01,
                "edge vertex {x}: {top} vs {want}"
            );
        }
        // One class everywhere stays that class.
        let same = blended_albedo(&vec![30; side * side], &grid(side));
        assert!(same.iter().all(|&e| e == same[0]));
        let g = decode(same[40]);
        let want = class_albedo(30);
        assert!((0..3).all(|c| (g[c] - want[c]).abs() < 0.005), "{g:?}");
    }

    #[test]
    fn hostile_indices_do_not_panic() {
        let a = blended_albedo(&[10, 20, 30], &[0, 1, 2, 7, 1, 0, 2]);
        assert_eq!(a.len(), 3);
        assert!(blended_albedo(&[], &[]).is_empty());
    }
}

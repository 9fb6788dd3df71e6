//! Terrain chunks for drawing: which cube-sphere quadtree chunks a camera needs (screen-space
//! error, bounded in count) and each chunk's mesh as plain data (an f64 origin, f32 positions
//! relative to it, normals, land cover per vertex, indices, skirts).
//!
//! Owns the drawing side of the terrain only; heights and land cover come from [`Terrain`], so
//! a chunk's vertices lie exactly on the surface the simulation reads. Must not: depend on a GPU
//! or window crate (the renderer takes these meshes as plain data), or feed anything back into
//! the simulation.
//!
//! * **Chunks** are [`TileKey`]s of the same quadtree as the pack's tiles: six face roots,
//!   four children each. A chunk is a grid of [`GRID`] × [`GRID`] vertices.
//! * **Selection** ([`select_chunks`]) refines the chunk with the largest projected error first
//!   while that error exceeds the threshold (pixels), up to `max_chunks` leaves and `max_level`.
//!   The error of a chunk is its grid spacing × [`ERROR_PER_SPACING`], projected at the distance
//!   from the camera to the chunk. Chunks wholly outside the view cone or beyond the horizon are
//!   kept but never refined. The leaves always cover the whole planet exactly once.
//! * **Meshes** ([`build_chunk`]): vertices on the sphere at radius R + height, heights from
//!   [`Terrain::height_dir`] (the finest level the pack provides, the procedural base
//!   elsewhere), normals from the heights (central differences over a one-vertex ring beyond the
//!   chunk, so neighbours of one level agree at their shared edge), and a skirt hanging one grid
//!   spacing down from every edge, which covers the gap where a neighbour of another level meets
//!   it (the gap is at most the coarser grid's interpolation error, under one spacing for slopes
//!   under 45°).
//! * **Streaming** ([`ChunkBuilder`]): a worker thread builds requested chunks so the render
//!   thread never waits for tiles or meshes; [`build_chunk`] is the synchronous path for tests
//!   and one-shot renders.

use std::cmp::Ordering;
use std::collections::{BTreeSet, BinaryHeap};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Arc, mpsc};

use fl_flight::gravity::EARTH_RADIUS_M;
use fl_flight::math::Vec3;

use crate::cube::{self, MAX_LEVEL, TileKey};
use crate::terrain::Terrain;

/// Vertices per chunk side.
pub const GRID: usize = 33;
/// Cells per chunk side.
pub const CELLS: usize = GRID - 1;
/// A chunk's geometric error as a fraction of its grid spacing (a coarse grid misses relief of
/// about a quarter of a cell on typical slopes).
pub const ERROR_PER_SPACING: f64 = 0.25;
/// Highest relief assumed anywhere when deciding what the horizon hides, m.
const MAX_RELIEF_M: f64 = 9_000.0;
/// Hard bound on the chunk count, whatever the settings ask.
pub const MAX_CHUNKS: usize = 16_384;

/// The camera, as chunk selection needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkView {
    /// World position (fl-flight's frame: the planet's centre at (0, −R, 0)), m.
    pub position: Vec3,
    /// Height of the ground under the camera, m (the vertical distance to nearby chunks is
    /// measured from it; 0 when unknown).
    pub ground_height_m: f64,
    /// The direction the camera looks along (unit), or `None` to refine all around.
    pub forward: Option<Vec3>,
    /// Vertical field of view, radians.
    pub vertical_fov_rad: f64,
    /// Width / height of the view.
    pub aspect: f64,
    /// Height of the viewport, pixels.
    pub viewport_height_px: u32,
    /// Largest projected error allowed, pixels (2–4 is a good range).
    pub max_error_px: f64,
}

/// Limits of the selection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkSettings {
    /// The planet's radius, m.
    pub radius_m: f64,
    /// Most chunks selected (at least the 6 roots; at most [`MAX_CHUNKS`]).
    pub max_chunks: usize,
    /// Deepest chunk level. The pack's finest tiles (level 10, 128 cells) are matched by
    /// chunks of level 12 (32 cells); deeper chunks only interpolate.
    pub max_level: u8,
}

impl Default for ChunkSettings {
    fn default() -> Self {
        Self {
            radius_m: EARTH_RADIUS_M,
            max_chunks: 768,
            max_level: 12,
        }
    }
}

/// One selected chunk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SelectedChunk {
    /// The chunk.
    pub key: TileKey,
    /// Its projected error, pixels.
    pub error_px: f64,
    /// Whether it may be seen (inside the view cone and above the horizon).
    pub visible: bool,
}

/// Geometry of a chunk used by the selection: centre direction, half-diagonal (m) and spacing.
fn chunk_geometry(key: TileKey, radius_m: f64) -> (Vec3, f64, f64) {
    let (u0, v0) = key.face_uv(0.0, 0.0);
    let (u1, v1) = key.face_uv(1.0, 1.0);
    let (u2, v2) = key.face_uv(1.0, 0.0);
    let (u3, v3) = key.face_uv(0.0, 1.0);
    let (uc, vc) = key.face_uv(0.5, 0.5);
    let c = cube::face_uv_to_dir(key.face, uc, vc);
    let a = cube::face_uv_to_dir(key.face, u0, v0);
    let b = cube::face_uv_to_dir(key.face, u1, v1);
    let e = cube::face_uv_to_dir(key.face, u2, v2);
    let f = cube::face_uv_to_dir(key.face, u3, v3);
    let diag = (a - b).length().max((e - f).length()) * radius_m;
    let spacing = diag / (CELLS as f64 * core::f64::consts::SQRT_2);
    (c, 0.5 * diag, spacing)
}

/// The projected error of `key` for `view` and whether it may be seen.
fn chunk_error(key: TileKey, view: &ChunkView, settings: &ChunkSettings) -> (f64, bool) {
    let r = settings.radius_m;
    let centre = Vec3::new(0.0, -r, 0.0);
    let rel = view.position - centre;
    let cam_dist = rel.length().max(1.0);
    let cam_dir = rel * (1.0 / cam_dist);
    let cam_alt = cam_dist - r;
    let (dir, half_diag, spacing) = chunk_geometry(key, r);
    // Horizontal: along the ground from the camera's nadir to the chunk's nearest edge.
    let arc = libm::acos(cam_dir.dot(dir).clamp(-1.0, 1.0)) * r;
    let horiz = (arc - half_diag).max(0.0);
    let vert = (cam_alt - view.ground_height_m).abs();
    let dist = (horiz * horiz + vert * vert).sqrt().max(1.0);
    let fov = view.vertical_fov_rad.clamp(0.01, 3.0);
    let px_per_rad = f64::from(view.viewport_height_px.max(1)) / (2.0 * libm::tan(0.5 * fov));
    let error_px = spacing * ERROR_PER_SPACING * px_per_rad / dist;
    // Beyond the horizon: farther than the camera's horizon plus the highest relief's.
    let horizon = |h: f64| (2.0 * r * h.max(0.0) + h.max(0.0) * h.max(0.0)).sqrt();
    let hidden = horiz > horizon(cam_alt) + horizon(MAX_RELIEF_M);
    // The view cone: the chunk's bounding sphere (at the camera's ground height) against a cone
    // whose half angle covers the view's corners.
    let in_cone = match view.forward {
        None => true,
        Some(fwd) => {
            let p = centre + dir * (r + view.ground_height_m);
            let to = p - view.position;
            let d = to.length();
            let bound = half_diag + MAX_RELIEF_M.min(half_diag);
            if d <= bound {
                true
            } else {
                let t = libm::tan(0.5 * fov);
                let half = libm::atan((t * t * (1.0 + view.aspect * view.aspect)).sqrt());
                let ang =
                    libm::acos((to.dot(fwd) / (d * fwd.length().max(1e-12))).clamp(-1.0, 1.0));
                ang - libm::asin((bound / d).min(1.0)) <= half
            }
        }
    };
    (error_px, in_cone && !hidden)
}

#[derive(Debug)]
struct Candidate {
    error_px: f64,
    visible: bool,
    key: TileKey,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    // Largest error first; ties by key, so the order (and the result) is deterministic.
    fn cmp(&self, other: &Self) -> Ordering {
        self.error_px
            .total_cmp(&other.error_px)
            .then_with(|| other.key.cmp(&self.key))
    }
}

/// The chunks to draw for `view`: the leaves of the refined quadtree, sorted by key. They
/// cover the planet exactly once; their number is at most `settings.max_chunks` (clamped to
/// 6 ..= [`MAX_CHUNKS`]). Deterministic: the same view and settings give the same list.
pub fn select_chunks(view: &ChunkView, settings: &ChunkSettings) -> Vec<SelectedChunk> {
    let max_chunks = settings.max_chunks.clamp(6, MAX_CHUNKS);
    let max_level = settings.max_level.min(MAX_LEVEL);
    let threshold = if view.max_error_px.is_finite() && view.max_error_px > 0.0 {
        view.max_error_px
    } else {
        2.0
    };
    let sane = view.position.is_finite();
    let mut heap = BinaryHeap::new();
    let push = |heap: &mut BinaryHeap<Candidate>, key: TileKey| {
        let (error_px, visible) = if sane {
            chunk_error(key, view, settings)
        } else {
            (0.0, true)
        };
        heap.push(Candidate {
            error_px: if error_px.is_finite() { error_px } else { 0.0 },
            visible,
            key,
        });
    };
    for face in 0..6u8 {
        push(
            &mut heap,
            TileKey {
                face,
                level: 0,
                i: 0,
                j: 0,
            },
        );
    }
    let mut done = Vec::new();
    while let Some(c) = heap.pop() {
        let room = done.len() + heap.len() + 1 + 3 <= max_chunks;
        if c.visible && c.error_px > threshold && c.key.level < max_level && room {
            for (di, dj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                push(
                    &mut heap,
                    TileKey {
                        face: c.key.face,
                        level: c.key.level + 1,
                        i: c.key.i * 2 + di,
                        j: c.key.j * 2 + dj,
                    },
                );
            }
        } else {
            done.push(SelectedChunk {
                key: c.key,
                error_px: c.error_px,
                visible: c.visible,
            });
        }
    }
    done.sort_by_key(|c| c.key);
    done
}

/// A chunk's mesh as plain data.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkMesh {
    /// The chunk.
    pub key: TileKey,
    /// World position the vertices are relative to (the chunk's centre at sea level), m.
    pub origin: [f64; 3],
    /// Vertex positions relative to `origin`, m: the [`GRID`]² surface vertices row by row
    /// (row = v, column = u), then the skirt vertices.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals (world axes), one per vertex.
    pub normals: Vec<[f32; 3]>,
    /// ESA WorldCover class per vertex (0 where unknown).
    pub land_cover: Vec<u8>,
    /// Triangle list, counter-clockwise seen from above.
    pub indices: Vec<u32>,
    /// How far the skirts hang below the edges, m.
    pub skirt_depth_m: f64,
    /// Lowest and highest surface height in the chunk, m.
    pub height_range_m: (f64, f64),
    /// Radius around `origin` holding every vertex, m (for culling).
    pub bound_radius_m: f64,
}

impl ChunkMesh {
    /// The world position of vertex `index` (f64, from the f32 offset).
    pub fn world_position(&self, index: usize) -> Option<Vec3> {
        let p = self.positions.get(index)?;
        Some(Vec3::new(
            self.origin[0] + f64::from(p[0]),
            self.origin[1] + f64::from(p[1]),
            self.origin[2] + f64::from(p[2]),
        ))
    }

    /// Number of surface (non-skirt) vertices.
    pub const SURFACE_VERTICES: usize = GRID * GRID;
}

/// Direction of tile-local grid point (x, y) of `key`; the grid may extend beyond the chunk
/// (and beyond its face: the warp is continued, so the point lies on the neighbouring face's
/// ground).
fn grid_dir(key: TileKey, x: i32, y: i32) -> Vec3 {
    let s = f64::from(x) / CELLS as f64;
    let t = f64::from(y) / CELLS as f64;
    let (u, v) = key.face_uv(s, t);
    cube::cube_point(
        key.face,
        cube::warp(2.0 * u - 1.0),
        cube::warp(2.0 * v - 1.0),
    )
    .normalize_or_zero()
}

/// The land cover a vertex is drawn with: [`Terrain::land_cover_dir`], except inside a
/// theater's edge blend (within `theater_margin_m` of its bounds, where the heights blend from
/// the pack's into the land around it) where each vertex takes the pack's class with the
/// heights' weight and otherwise the dry land the theater continues into (the base's dry
/// class, as outside the bounds), by a hash of its direction. The renderer blends each vertex's
/// colour with its neighbours', so the dither draws as a gradual change across the zone rather
/// than the theater's rectangle. Only the drawing uses this; `land_cover_at` is unchanged.
fn drawn_cover(terrain: &Terrain, d: Vec3) -> u8 {
    let class = terrain.land_cover_dir(d);
    let margin = terrain.config().theater_margin_m;
    if margin <= 0.0 {
        return class;
    }
    let (lat, lon) = cube::dir_to_latlon(d);
    let inside = terrain
        .index()
        .theaters
        .iter()
        .map(|t| t.bounds.inside_m(lat, lon, EARTH_RADIUS_M))
        .fold(f64::NEG_INFINITY, f64::max);
    if inside <= 0.0 || inside >= margin {
        return class;
    }
    let x = inside / margin;
    let w = x * x * (3.0 - 2.0 * x);
    // A hash of the direction's bits (deterministic; no state).
    let mut h = d.x.to_bits() ^ d.y.to_bits().rotate_left(21) ^ d.z.to_bits().rotate_left(42);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    let u = (h >> 11) as f64 / (1u64 << 53) as f64;
    if u < w {
        class
    } else {
        terrain.base().dry_cover(d)
    }
}

/// Builds the mesh of `key` on a planet of `radius_m` (synchronously: tiles not yet cached are
/// read here). Pure function of the terrain's files.
pub fn build_chunk(terrain: &Terrain, key: TileKey, radius_m: f64) -> ChunkMesh {
    let centre = Vec3::new(0.0, -radius_m, 0.0);
    let (cdir, _, spacing) = chunk_geometry(key, radius_m);
    let origin = centre + cdir * radius_m;
    // Heights on the grid plus a one-vertex ring (for normals).
    let ring = GRID + 2;
    let mut world = Vec::with_capacity(ring * ring);
    let mut dirs = Vec::with_capacity(ring * ring);
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for y in -1..=(GRID as i32) {
        for x in -1..=(GRID as i32) {
            let d = grid_dir(key, x, y);
            let h = terrain.height_dir(d);
            if (0..GRID as i32).contains(&x) && (0..GRID as i32).contains(&y) {
                lo = lo.min(h);
                hi = hi.max(h);
            }
            world.push(centre + d * (radius_m + h));
            dirs.push(d);
        }
    }
    let at = |x: usize, y: usize| (y + 1) * ring + (x + 1);
    let skirt_depth_m = spacing.max(10.0);
    let n_surface = GRID * GRID;
    let mut positions = Vec::with_capacity(n_surface + 4 * GRID);
    let mut normals = Vec::with_capacity(n_surface + 4 * GRID);
    let mut land_cover = Vec::with_capacity(n_surface + 4 * GRID);
    let rel = |p: Vec3| {
        let r = p - origin;
        [r.x as f32, r.y as f32, r.z as f32]
    };
    for y in 0..GRID {
        for x in 0..GRID {
            let i = at(x, y);
            let du = world[i + 1] - world[i - 1];
            let dv = world[i + ring] - world[i - ring];
            let mut n = du.cross(dv).normalize_or_zero();
            if n == Vec3::ZERO || !n.is_finite() {
                n = dirs[i];
            } else if n.dot(dirs[i]) < 0.0 {
                n = -n;
            }
            positions.push(rel(world[i]));
            normals.push([n.x as f32, n.y as f32, n.z as f32]);
            land_cover.push(drawn_cover(terrain, dirs[i]));
        }
    }
    let mut indices = Vec::with_capacity(CELLS * CELLS * 6 + 4 * CELLS * 6);
    for y in 0..CELLS {
        for x in 0..CELLS {
            let a = (y * GRID + x) as u32;
            let b = a + 1;
            let c = a + GRID as u32;
            let d = c + 1;
            // u × v points outward (cube.rs): a → b → d is counter-clockwise from above.
            indices.extend_from_slice(&[a, b, d, a, d, c]);
        }
    }
    // Skirts: each edge's vertices again, one skirt depth lower, joined to the edge by a strip
    // that faces away from the chunk.
    let edges: [Vec<usize>; 4] = [
        (0..GRID).collect(),                                // v = 0
        (0..GRID).map(|x| (GRID - 1) * GRID + x).collect(), // v = 1
        (0..GRID).map(|y| y * GRID).collect(),              // u = 0
        (0..GRID).map(|y| y * GRID + GRID - 1).collect(),   // u = 1
    ];
    for edge in &edges {
        let first = positions.len() as u32;
        for &v in edge {
            let (x, y) = (v % GRID, v / GRID);
            let i = at(x, y);
            positions.push(rel(world[i] - dirs[i] * skirt_depth_m));
            normals.push(normals[v]);
            land_cover.push(land_cover[v]);
        }
        for k in 0..CELLS {
            let (e0, e1) = (edge[k], edge[k + 1]);
            let (s0, s1) = (first + k as u32, first + k as u32 + 1);
            let (x0, y0) = (e0 % GRID, e0 / GRID);
            let (x1, y1) = (e1 % GRID, e1 / GRID);
            let (p0, p1) = (world[at(x0, y0)], world[at(x1, y1)]);
            let p2 = p0 - dirs[at(x0, y0)] * skirt_depth_m;
            let facing = (p1 - p0).cross(p2 - p0);
            let outward = (p0 + p1) * 0.5 - (origin + cdir * (0.5 * (lo + hi)));
            let (e0, e1) = (e0 as u32, e1 as u32);
            if facing.dot(outward) >= 0.0 {
                indices.extend_from_slice(&[e0, e1, s0, e1, s1, s0]);
            } else {
                indices.extend_from_slice(&[e0, s0, e1, e1, s0, s1]);
            }
        }
    }
    let bound_radius_m = positions
        .iter()
        .map(|p| {
            (f64::from(p[0]).powi(2) + f64::from(p[1]).powi(2) + f64::from(p[2]).powi(2)).sqrt()
        })
        .fold(0.0, f64::max);
    ChunkMesh {
        key,
        origin: [origin.x, origin.y, origin.z],
        positions,
        normals,
        land_cover,
        indices,
        skirt_depth_m,
        height_range_m: (lo, hi),
        bound_radius_m,
    }
}

/// Most requests queued with a [`ChunkBuilder`] at once; more are refused until some finish.
pub const MAX_PENDING: usize = 256;

/// Builds chunk meshes on a worker thread, so the render thread never waits for tiles or
/// meshes: [`ChunkBuilder::request`] queues a chunk, [`ChunkBuilder::poll`] returns the finished
/// ones. Dropping the builder stops its thread (after the chunk in hand).
#[derive(Debug)]
pub struct ChunkBuilder {
    tx: Option<mpsc::Sender<TileKey>>,
    rx: mpsc::Receiver<ChunkMesh>,
    pending: BTreeSet<TileKey>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ChunkBuilder {
    /// A worker over `terrain` (a clone shares its tile cache) on a planet of `radius_m`.
    pub fn new(terrain: Terrain, radius_m: f64) -> std::io::Result<Self> {
        let (tx, req_rx) = mpsc::channel::<TileKey>();
        let (done_tx, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("fl-terrain-chunks".into())
            .spawn(move || {
                while let Ok(key) = req_rx.recv() {
                    if stopped.load(AtomicOrdering::Relaxed) {
                        break;
                    }
                    if done_tx.send(build_chunk(&terrain, key, radius_m)).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Self {
            tx: Some(tx),
            rx,
            pending: BTreeSet::new(),
            stop,
            thread: Some(thread),
        })
    }

    /// Queues a chunk; `false` when it is refused (already [`MAX_PENDING`] queued, or the worker
    /// has stopped). A chunk already queued is not queued twice (and counts as accepted). Never
    /// blocks.
    pub fn request(&mut self, key: TileKey) -> bool {
        if self.pending.contains(&key) {
            return true;
        }
        if self.pending.len() >= MAX_PENDING {
            return false;
        }
        match &self.tx {
            Some(tx) if tx.send(key).is_ok() => {
                self.pending.insert(key);
                true
            }
            _ => false,
        }
    }

    /// Chunks requested and not yet returned by [`ChunkBuilder::poll`].
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The chunks finished since the last call. Never blocks.
    pub fn poll(&mut self) -> Vec<ChunkMesh> {
        let mut out = Vec::new();
        while let Ok(m) = self.rx.try_recv() {
            self.pending.remove(&m.key);
            out.push(m);
        }
        out
    }
}

impl Drop for ChunkBuilder {
    fn drop(&mut self) {
        self.stop.store(true, AtomicOrdering::Relaxed);
        self.tx = None;
        if let Some(t) = self.thread.take() {
            // The worker finishes the chunk in hand (milliseconds), then sees the flag.
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::{Edge, latlon_to_world};
    use crate::terrain::TerrainConfig;

    const R: f64 = EARTH_RADIUS_M;

    fn nevada_view(alt_m: f64) -> ChunkView {
        ChunkView {
            position: latlon_to_world(R, 36.27, -115.64, alt_m),
            ground_height_m: 1_500.0,
            forward: None,
            vertical_fov_rad: 60f64.to_radians(),
            aspect: 16.0 / 9.0,
            viewport_height_px: 720,
            max_error_px: 2.0,
        }
    }

    fn containing(sel: &[SelectedChunk], lat: f64, lon: f64) -> SelectedChunk {
        let p = cube::dir_to_face_uv(cube::latlon_to_dir(lat, lon));
        *sel.iter()
            .find(|c| {
                let k = TileKey::at(p.face, c.key.level, p.u, p.v);
                k == c.key
            })
            .expect("the leaves cover the planet")
    }

    #[test]
    fn selection_refines_near_the_camera_and_coarsens_away_covering_the_planet_once() {
        let settings = ChunkSettings::default();
        let sel = select_chunks(&nevada_view(3_500.0), &settings);
        // The leaves tile the sphere exactly: their areas (in face units) sum to 6.
        let area: f64 = sel
            .iter()
            .map(|c| 0.25f64.powi(i32::from(c.key.level)))
            .sum();
        assert!((area - 6.0).abs() < 1e-12, "area {area}");
        let here = containing(&sel, 36.27, -115.64);
        let near = containing(&sel, 36.27, -115.44); // ~18 km east
        let far = containing(&sel, 36.27, -113.0); // ~240 km east
        let other_side = containing(&sel, -36.0, 64.0);
        assert_eq!(here.key.level, settings.max_level, "{here:?}");
        assert!(near.key.level < here.key.level, "{near:?}");
        assert!(far.key.level < near.key.level, "{far:?}");
        assert!(other_side.key.level <= 1, "{other_side:?}");
        assert!(sel.len() <= settings.max_chunks);
        // Higher up, the camera's own chunk is coarser.
        let high = select_chunks(&nevada_view(60_000.0), &settings);
        assert!(containing(&high, 36.27, -115.64).key.level < here.key.level);
    }

    #[test]
    fn selection_is_bounded_and_deterministic() {
        let view = nevada_view(500.0);
        for max in [1, 6, 7, 9, 50, 300] {
            let s = ChunkSettings {
                max_chunks: max,
                max_level: 20,
                ..ChunkSettings::default()
            };
            let a = select_chunks(&view, &s);
            assert!(a.len() <= max.max(6), "{max}: {}", a.len());
            assert_eq!(a, select_chunks(&view, &s));
            let area: f64 = a.iter().map(|c| 0.25f64.powi(i32::from(c.key.level))).sum();
            assert!((area - 6.0).abs() < 1e-12);
        }
        // Hostile views: still the six roots at least, never a panic or an endless refinement.
        for bad in [f64::NAN, f64::INFINITY] {
            let mut v = view;
            v.position = Vec3::new(bad, 0.0, 0.0);
            v.max_error_px = bad;
            v.vertical_fov_rad = bad;
            let s = select_chunks(&v, &ChunkSettings::default());
            assert!((6..=ChunkSettings::default().max_chunks).contains(&s.len()));
        }
        let mut v = view;
        v.max_error_px = 1e-9;
        let s = ChunkSettings {
            max_chunks: usize::MAX,
            max_level: 255,
            ..ChunkSettings::default()
        };
        assert!(select_chunks(&v, &s).len() <= MAX_CHUNKS);
    }

    #[test]
    fn chunks_outside_the_view_cone_stay_coarse() {
        let mut v = nevada_view(3_500.0);
        let up = cube::latlon_to_dir(36.27, -115.64);
        // Looking west along the horizon: the land behind (east) is not refined.
        let west = Vec3::new(-up.z, 0.0, up.x).normalize_or_zero();
        v.forward = Some(west);
        let s = ChunkSettings::default();
        let sel = select_chunks(&v, &s);
        let ahead = containing(&sel, 36.27, -115.9);
        let behind = containing(&sel, 36.27, -115.38);
        assert!(ahead.visible && !behind.visible, "{ahead:?} {behind:?}");
        assert!(ahead.key.level > behind.key.level, "{ahead:?} {behind:?}");
    }

    fn mesh_heights_match(t: &Terrain, m: &ChunkMesh, tol: f64) {
        let c = Vec3::new(0.0, -R, 0.0);
        for i in 0..ChunkMesh::SURFACE_VERTICES {
            let p = m.world_position(i).expect("vertex");
            let d = (p - c).normalize_or_zero();
            let h = (p - c).length() - R;
            let want = t.height_dir(d);
            assert!(
                (h - want).abs() < tol,
                "{:?} vertex {i}: {h} vs {want}",
                m.key
            );
        }
    }

    #[test]
    fn base_chunk_vertices_lie_on_the_surface_with_outward_normals_and_skirts_below() {
        let t = Terrain::base_only(TerrainConfig::default());
        let key = TileKey::new(4, 7, 40, 70).expect("key");
        let m = build_chunk(&t, key, R);
        assert_eq!(m.positions.len(), GRID * GRID + 4 * GRID);
        assert_eq!(m.normals.len(), m.positions.len());
        assert_eq!(m.land_cover.len(), m.positions.len());
        assert_eq!(m.indices.len(), CELLS * CELLS * 6 + 4 * CELLS * 6);
        assert!(m.indices.iter().all(|&i| (i as usize) < m.positions.len()));
        mesh_heights_match(&t, &m, 0.05);
        let c = Vec3::new(0.0, -R, 0.0);
        for i in 0..m.positions.len() {
            let p = m.world_position(i).expect("vertex");
            let up = (p - c).normalize_or_zero();
            let n = m.normals[i];
            let n = Vec3::new(f64::from(n[0]), f64::from(n[1]), f64::from(n[2]));
            assert!(n.dot(up) > 0.2, "normal {i} points {n:?}");
        }
        // The surface triangles face outward (counter-clockwise from above).
        for tri in m.indices[..CELLS * CELLS * 6].chunks_exact(3) {
            let [a, b, d] =
                [tri[0], tri[1], tri[2]].map(|i| m.world_position(i as usize).expect("vertex"));
            let n = (b - a).cross(d - a);
            assert!(n.dot((a - c).normalize_or_zero()) > 0.0);
        }
        // Skirt vertices hang one spacing below their edge vertex.
        let s0 = ChunkMesh::SURFACE_VERTICES;
        let drop = m.world_position(0).expect("vertex") - m.world_position(s0).expect("vertex");
        assert!((drop.length() - m.skirt_depth_m).abs() < 0.05);
    }

    #[test]
    fn neighbours_of_one_level_share_their_edge_vertices_within_a_face_and_across_faces() {
        let t = Terrain::base_only(TerrainConfig::default());
        for (key, edge) in [
            (TileKey::new(1, 8, 50, 230).expect("key"), Edge::PosU),
            (TileKey::new(1, 8, 50, 230).expect("key"), Edge::PosV),
            (TileKey::new(2, 5, 0, 13).expect("key"), Edge::NegU), // onto face 5
            (TileKey::new(0, 4, 15, 3).expect("key"), Edge::PosU), // onto another face
        ] {
            let nb = key.neighbour(edge);
            let a = build_chunk(&t, key, R);
            let b = build_chunk(&t, nb, R);
            let edge_of = |m: &ChunkMesh| -> Vec<Vec3> {
                (0..ChunkMesh::SURFACE_VERTICES)
                    .filter(|i| {
                        let (x, y) = (i % GRID, i / GRID);
                        x == 0 || y == 0 || x == GRID - 1 || y == GRID - 1
                    })
                    .map(|i| m.world_position(i).expect("vertex"))
                    .collect()
            };
            let (ea, eb) = (edge_of(&a), edge_of(&b));
            // f32 offsets from each chunk's origin round to ~1e-7 of the chunk's size.
            let tol = 4e-7 * a.bound_radius_m.max(b.bound_radius_m) + 1e-3;
            let shared = ea
                .iter()
                .filter(|p| eb.iter().any(|q| (**p - *q).length() < tol))
                .count();
            assert_eq!(shared, GRID, "{key:?} {edge:?} -> {nb:?}");
        }
    }

    /// Heights along the shared edge: a fine chunk's edge vertices against the coarse
    /// neighbour's edge (linear between its vertices). Their gap is what the skirts must cover.
    #[test]
    fn skirts_cover_the_gap_to_a_coarser_neighbour() {
        let t = Terrain::base_only(TerrainConfig::default());
        let c = Vec3::new(0.0, -R, 0.0);
        // A mountainous stretch of the base: find the roughest of a few level-9 chunks.
        let fine = (0..8u32)
            .map(|k| TileKey::new(4, 9, 200 + 3 * k, 260).expect("key"))
            .map(|k| build_chunk(&t, k, R))
            .max_by(|a, b| {
                let r = |m: &ChunkMesh| m.height_range_m.1 - m.height_range_m.0;
                r(a).total_cmp(&r(b))
            })
            .expect("chunks");
        assert!(
            fine.height_range_m.1 - fine.height_range_m.0 > 50.0,
            "{fine:?}"
        );
        // Its +u neighbour one level coarser (the parent's neighbour).
        let coarse_key = fine.key.parent().neighbour(Edge::PosU);
        assert_eq!(fine.key.i % 2, 1, "the fine chunk is its parent's +u half");
        let coarse = build_chunk(&t, coarse_key, R);
        let depth = fine.skirt_depth_m.min(coarse.skirt_depth_m);
        // Coarse −u edge: column 0; the fine chunk covers half of it (rows by its j parity).
        let half = if fine.key.j % 2 == 0 { 0 } else { CELLS / 2 };
        let mut worst = 0.0f64;
        for y in 0..GRID {
            let fine_p = fine.world_position(y * GRID + GRID - 1).expect("vertex");
            // The fine row y sits at coarse row half + y/2.
            let cy = half as f64 + y as f64 / 2.0;
            let (r0, f) = (cy.floor() as usize, cy.fract());
            let r1 = (r0 + 1).min(GRID - 1);
            let h0 = (coarse.world_position(r0 * GRID).expect("vertex") - c).length();
            let h1 = (coarse.world_position(r1 * GRID).expect("vertex") - c).length();
            let gap = ((fine_p - c).length() - (h0 + (h1 - h0) * f)).abs();
            worst = worst.max(gap);
        }
        assert!(worst <= depth, "gap {worst} m, skirts {depth} m");
        assert!(worst > 0.0, "the levels really differ along the edge");
    }

    #[test]
    fn the_builder_thread_builds_what_is_requested_and_refuses_past_its_bound() {
        let t = Terrain::base_only(TerrainConfig::default());
        let mut b = ChunkBuilder::new(t.clone(), R).expect("thread");
        let keys: Vec<TileKey> = (0..3)
            .map(|i| TileKey::new(4, 6, i, 7).expect("key"))
            .collect();
        for k in &keys {
            assert!(b.request(*k));
            assert!(b.request(*k)); // queued once
        }
        assert_eq!(b.pending(), 3);
        let mut got = Vec::new();
        for _ in 0..2_000 {
            got.extend(b.poll());
            if got.len() == 3 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        got.sort_by_key(|m| m.key);
        assert_eq!(got.iter().map(|m| m.key).collect::<Vec<_>>(), keys);
        assert_eq!(got[1], build_chunk(&t, keys[1], R));
        assert_eq!(b.pending(), 0);
        // The queue is bounded.
        let mut accepted = 0;
        for i in 0..(MAX_PENDING as u32 + 50) {
            if b.request(TileKey::new(3, 12, i, 0).expect("key")) {
                accepted += 1;
            }
        }
        assert_eq!(accepted, MAX_PENDING);
        drop(b); // stops after the chunk in hand, not after the whole queue
    }
}

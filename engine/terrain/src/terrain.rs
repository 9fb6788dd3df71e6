//! The planet's surface: heights and land cover from the pack's tiles over the builtin base,
//! and the floor the simulation's ground contact reads.
//!
//! Owns the rules that turn tiles into one continuous surface:
//!
//! * **Finest level.** At a point, the finest level with a readable tile is sampled bilinearly.
//! * **Where levels meet.** Within `level_margin_cells` samples of a tile edge (or corner) beyond
//!   which that level has no readable tile, the height blends (smoothstep) into the next coarser
//!   level's height (the same rule applied one level down; below the coarsest level, the base),
//!   reaching it exactly at the edge. No step where levels 6–10 meet.
//! * **Theater edge.** Pack heights count only inside the pack's theaters. Within
//!   `theater_margin_m` of a theater's edge the height blends (smoothstep) from the pack's into
//!   the outer surface's (below), so the slope added there is at most
//!   1.5 × |pack − outer| / margin.
//! * **Outside:** the procedural [`Base`], continued as land around each theater (the skirt,
//!   `crate::skirt`): near a theater the base is land at the pack's own smoothed edge heights
//!   with procedural relief, relaxing to the ordinary base within [`crate::SKIRT_REACH_M`].
//! * **Airfields** (`crate::airfield`) over all of it: flat at the field elevation on a builtin
//!   field's runway and apron, blending back into the surface above across a ring around it.
//!
//! Every value is a pure function of the pack's files and the seed: a tile's verdict is decided
//! by decoding it the first time it matters and kept, and evicted samples decode to the same
//! bits. Must not: read the clock or depend on the cache's contents.

use crate::airfield::{self, Airfield};
use crate::base::Base;
use crate::cube::{self, FacePos, TileKey};
use crate::pack::{TerrainIndex, TileFile};
use crate::skirt::Skirt;
use crate::store::{Layer, TileData, TileStore};
use crate::tile::{TILE_CELLS, TILE_SIZE};
use fl_content::{Content, PackInfo};
use fl_flight::env::{Floor, FloorSample};
use fl_flight::gravity::{EARTH_RADIUS_M, Planet};
use fl_flight::math::Vec3;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

/// Terrain settings.
#[derive(Debug, Clone, PartialEq)]
pub struct TerrainConfig {
    /// Bound on the decoded tiles held, bytes (a height tile is 33 KB, a land-cover tile 17 KB).
    pub cache_bytes: usize,
    /// Width of the blend from pack to base inside a theater's edge, m.
    pub theater_margin_m: f64,
    /// Width of the blend from a level to the next coarser one at the edge of its tiles,
    /// in samples of the finer level.
    pub level_margin_cells: f64,
    /// The base's seed.
    pub seed: u64,
}

impl Default for TerrainConfig {
    fn default() -> Self {
        Self {
            cache_bytes: 256 * 1024 * 1024,
            theater_margin_m: 10_000.0,
            level_margin_cells: 16.0,
            seed: crate::base::DEFAULT_SEED,
        }
    }
}

/// Where a height came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeightInfo {
    /// Height above the sphere, m.
    pub height_m: f64,
    /// The finest pack level sampled (`None`: the base alone).
    pub level: Option<u8>,
    /// The pack's share of the height (1 inside a theater, 0 outside, between on the margins).
    pub pack_weight: f64,
}

/// Each terrain-bearing pack's id and terrain digest, in stack order.
pub type PackDigests = Vec<(String, [u8; 32])>;

/// The terrain of a content stack.
#[derive(Clone)]
pub struct Terrain {
    store: Arc<TileStore>,
    base: Base,
    cfg: TerrainConfig,
    digests: Arc<OnceLock<PackDigests>>,
    /// One per theater with pack heights along its edge, in index order (built at load).
    skirts: Arc<[Skirt]>,
    /// `cfg.level_margin_cells` in tile-local units (the level-edge blend's width).
    level_margin: f64,
    /// The builtin airfields, placed (held inline: the height path tests them on every call).
    airfields: [Airfield; airfield::BUILTIN.len()],
}

impl std::fmt::Debug for Terrain {
    // A summary: the index holds thousands of tiles, and worlds that hold a terrain are printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terrain")
            .field("tiles", &self.store.index().heights.len())
            .field("theaters", &self.store.index().theaters.len())
            .field("cache", &self.store.stats())
            .finish_non_exhaustive()
    }
}

fn smoothstep(x: f64) -> f64 {
    let t = x.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

impl Default for Terrain {
    fn default() -> Self {
        Self::base_only(TerrainConfig::default())
    }
}

impl Terrain {
    /// The base planet with no pack.
    pub fn base_only(cfg: TerrainConfig) -> Self {
        Self::from_index(TerrainIndex::default(), cfg)
    }

    /// The terrain of a loaded content stack (every pack's `theaters/` and `terrain/world/`).
    pub fn from_content(content: &Content, cfg: TerrainConfig) -> Self {
        Self::from_packs(&content.packs(), cfg)
    }

    /// The terrain of these packs (stack order, highest priority first).
    pub fn from_packs(packs: &[PackInfo], cfg: TerrainConfig) -> Self {
        let index = TerrainIndex::scan(packs, cfg.theater_margin_m);
        let t = Self::from_index(index, cfg);
        tracing::info!(
            packs = t
                .store
                .index()
                .packs
                .iter()
                .filter(|p| p.tiles_used > 0)
                .count(),
            tiles = t.store.index().heights.len(),
            theaters = t.store.index().theaters.len(),
            "terrain indexed"
        );
        t
    }

    fn from_index(index: TerrainIndex, cfg: TerrainConfig) -> Self {
        let mut t = Self {
            store: Arc::new(TileStore::new(index, cfg.cache_bytes)),
            base: Base::new(cfg.seed),
            level_margin: cfg.level_margin_cells / TILE_CELLS as f64,
            cfg,
            digests: Arc::new(OnceLock::new()),
            skirts: Arc::from(Vec::new()),
            airfields: airfield::BUILTIN.map(|s| Airfield::new(&s)),
        };
        t.skirts = t.build_skirts();
        // The rings fitted to the natural surface (skirts in place: the surface as it will be).
        // The base alone with the default seed (every `World` starts with one) is fitted once
        // per process: the same inputs, the same bits.
        static BASE_FIELDS: OnceLock<[Airfield; airfield::BUILTIN.len()]> = OnceLock::new();
        t.airfields =
            if t.store.index().heights.is_empty() && t.cfg.seed == crate::base::DEFAULT_SEED {
                *BASE_FIELDS.get_or_init(|| airfield::builtin(|d| t.natural_height_dir(d)))
            } else {
                airfield::builtin(|d| t.natural_height_dir(d))
            };
        t
    }

    /// Each theater's skirt from the pack's coarsest level along its edge (read with no skirt
    /// in place, so the result is a pure function of the files and the seed).
    fn build_skirts(&self) -> Arc<[Skirt]> {
        let ix = self.store.index();
        if ix.heights.is_empty() {
            return Arc::from(Vec::new());
        }
        let coarsest = |d: Vec3| {
            let fp = cube::dir_to_face_uv(d);
            let top = ix.height_levels[usize::from(fp.face)];
            if top == 0 {
                return None;
            }
            let lowest = 1u32 << top.trailing_zeros();
            self.pack_height(d, fp, lowest).map(|(h, _, _)| h)
        };
        ix.theaters
            .iter()
            .filter_map(|th| {
                Skirt::new(&th.bounds, self.cfg.theater_margin_m, |lat, lon| {
                    coarsest(cube::latlon_to_dir(lat, lon))
                })
            })
            .collect::<Vec<_>>()
            .into()
    }

    /// The surface outside the pack at `d`: the base, continued as land around each theater
    /// (see `crate::skirt`), and the skirts' total weight there (0: the ordinary base).
    fn outer(&self, d: Vec3) -> (f64, f64) {
        let b = self.base.height(d);
        if !self.skirts.iter().any(|s| s.near(d)) {
            return (b, 0.0);
        }
        let (lat, lon) = cube::dir_to_latlon(d);
        let (mut wsum, mut hsum) = (0.0, 0.0);
        for s in self.skirts.iter() {
            if let Some((w, h)) = s.at(&self.base, d, lat, lon) {
                wsum += w;
                hsum += w * h;
            }
        }
        if wsum <= 0.0 {
            return (b, 0.0);
        }
        // Overlapping skirts average by weight; the base keeps what the skirts leave.
        let w = wsum.min(1.0);
        (b + w * (hsum / wsum - b), wsum)
    }

    /// Height of the surface outside the pack at a unit direction, m: the procedural base, and
    /// near a theater the land the theater continues into. The theater-edge blend joins the
    /// pack's heights to this.
    pub fn outer_height(&self, d: Vec3) -> f64 {
        self.outer(d).0
    }

    /// An upper bound on the surface height anywhere on this terrain, m above the sphere: the
    /// highest sample of every readable pack height tile plus the skirt's relief, or the
    /// procedural base's own bound ([`Base::MAX_HEIGHT_M`]), whichever is higher. Every height
    /// is a blend (convex) of those surfaces, and bilinear sampling never exceeds its corners.
    /// Decodes every height tile once (a pure function of the pack's files): call it once at
    /// load (the server's sensing sets its line-of-sight ceiling from it).
    pub fn max_height_bound_m(&self) -> f64 {
        let mut pack = f64::NEG_INFINITY;
        for key in self.index().height_tiles() {
            if let Some(TileData::Heights(h)) = self.store.load(Layer::Heights, key)
                && let Some(&m) = h.iter().max()
            {
                pack = pack.max(f64::from(m));
            }
        }
        let fields = self
            .airfields
            .iter()
            .map(Airfield::elevation_m)
            .fold(f64::NEG_INFINITY, f64::max);
        (pack + crate::skirt::SKIRT_RELIEF_M)
            .max(Base::MAX_HEIGHT_M)
            .max(fields)
    }

    /// The builtin airfields as placed on this terrain (see `crate::airfield`).
    pub fn airfields(&self) -> &[Airfield] {
        &self.airfields
    }

    /// The tile store (for the renderer's [`crate::TileLoader`] and cache statistics).
    pub fn store(&self) -> &Arc<TileStore> {
        &self.store
    }

    /// The index of tile files (which levels and tiles exist).
    pub fn index(&self) -> &TerrainIndex {
        self.store.index()
    }

    /// The settings.
    pub fn config(&self) -> &TerrainConfig {
        &self.cfg
    }

    /// The base planet.
    pub fn base(&self) -> &Base {
        &self.base
    }

    /// Each terrain-bearing pack's digest (id, SHA-256; see [`crate::PackTerrain::digest`]),
    /// in stack order. The first call reads every terrain file; later calls are free.
    pub fn digests(&self) -> &[(String, [u8; 32])] {
        self.digests.get_or_init(|| {
            self.index()
                .packs
                .iter()
                .map(|p| (p.id.clone(), p.digest()))
                .collect()
        })
    }

    /// Computes the digests on a thread now, so a later [`Terrain::digests`] does not stall a tick.
    pub fn prepare_digests(&self) {
        let t = self.clone();
        let _ = std::thread::Builder::new()
            .name("fl-terrain-digest".into())
            .spawn(move || {
                t.digests();
            });
    }

    /// The digest of one pack's terrain (`None`: the pack is not in this stack).
    pub fn digest_of(&self, pack: &str) -> Option<[u8; 32]> {
        self.digests()
            .iter()
            .find(|(id, _)| id == pack)
            .map(|(_, d)| *d)
    }

    /// Height above the sphere at geodetic latitude/longitude (degrees), m.
    #[inline]
    pub fn height_at(&self, lat_deg: f64, lon_deg: f64) -> f64 {
        self.height_dir(cube::latlon_to_dir(lat_deg, lon_deg))
    }

    /// Height above the sphere under world position `p` on a planet of `radius_m`, m.
    #[inline]
    pub fn height_at_world(&self, radius_m: f64, p: Vec3) -> f64 {
        self.height_dir(cube::world_to_dir(radius_m, p))
    }

    /// Height at a unit direction from the planet's centre, m: the natural surface (pack over
    /// base), flattened under the builtin airfields.
    #[inline]
    pub fn height_dir(&self, d: Vec3) -> f64 {
        // A dot product per airfield rejects a point away from them all (the common case); the
        // airfield arithmetic is out of line.
        let h = self.natural_height_dir(d);
        if self.airfields.iter().any(|f| f.near(d)) {
            return self.height_near_airfield(d, h);
        }
        h
    }

    /// [`Terrain::height_dir`] within reach of an airfield, given the natural height there.
    #[inline(never)]
    fn height_near_airfield(&self, d: Vec3, natural: f64) -> f64 {
        airfield::apply(&self.airfields, d, || natural)
    }

    /// The surface without the airfields (pack over base), m.
    #[inline]
    pub(crate) fn natural_height_dir(&self, d: Vec3) -> f64 {
        // `natural_info_at(d).height_m`, with the warm case first and no `HeightInfo` built for it.
        let ix = self.store.index();
        if ix.heights.is_empty() {
            return self.outer_height(d);
        }
        let fp = cube::dir_to_face_uv(d);
        let top = ix.height_levels[usize::from(fp.face)];
        match self.warm_interior(fp, top) {
            Some((h, _)) => h,
            None => self.height_info_general(d, fp, top).height_m,
        }
    }

    /// Height with where it came from.
    #[inline]
    pub fn height_info(&self, d: Vec3) -> HeightInfo {
        self.height_info_at(d, None)
    }

    /// [`Terrain::height_info`] with the face position already known (`fp` must be `d`'s; it
    /// saves the inverse mapping and keeps a caller's lattice positions exact). The height is
    /// [`Terrain::height_dir`]'s (airfields applied, same bits); the level and the pack's weight
    /// are the natural surface's.
    #[inline]
    fn height_info_at(&self, d: Vec3, fp: Option<FacePos>) -> HeightInfo {
        let mut info = self.natural_info_at(d, fp);
        let natural = info.height_m;
        info.height_m = airfield::apply(&self.airfields, d, || natural);
        info
    }

    /// [`Terrain::height_info_at`] without the airfields.
    #[inline]
    fn natural_info_at(&self, d: Vec3, fp: Option<FacePos>) -> HeightInfo {
        let base_only = |h: f64| HeightInfo {
            height_m: h,
            level: None,
            pack_weight: 0.0,
        };
        if self.store.index().heights.is_empty() {
            return base_only(self.outer_height(d));
        }
        let fp = fp.unwrap_or_else(|| cube::dir_to_face_uv(d));
        let top = self.store.index().height_levels[usize::from(fp.face)];
        if let Some((height_m, level)) = self.warm_interior(fp, top) {
            return HeightInfo {
                height_m,
                level: Some(level),
                pack_weight: 1.0,
            };
        }
        self.height_info_general(d, fp, top)
    }

    /// [`Terrain::height_info_at`] without the warm shortcut: the level loop with its gate and
    /// blends (every case; the shortcut answers a subset of them with the same bits).
    fn height_info_general(&self, d: Vec3, fp: FacePos, top: u32) -> HeightInfo {
        let base_only = |h: f64| HeightInfo {
            height_m: h,
            level: None,
            pack_weight: 0.0,
        };
        // The theater weight is asked (once) as soon as the tile is known not to be a theater
        // interior tile; a tile deeper inside a theater than the margin needs none (and no
        // latitude/longitude): the common case, kept cheap.
        let (h, level, interior, asked) =
            match self.pack_height_gated(d, fp, top, || self.theater_weight(d)) {
                Gated::Pack(h, level, interior, asked) => (h, level, interior, asked),
                Gated::NoTile | Gated::Outside => return base_only(self.outer_height(d)),
            };
        let w = if interior {
            1.0
        } else {
            match asked {
                Some(w) => w,
                None => self.theater_weight(d),
            }
        };
        if w <= 0.0 {
            return base_only(self.outer_height(d));
        }
        let height_m = if w >= 1.0 {
            h
        } else {
            let b = self.outer_height(d);
            b + w * (h - b)
        };
        HeightInfo {
            height_m,
            level: Some(level),
            pack_weight: w,
        }
    }

    /// The common warm case, answered with one look at the thread's recent tiles: the finest
    /// level's tile at `fp` is there, lies deeper inside a theater than the blend margin, and
    /// the point is away from the level's coverage edge (outside the level margin, or every
    /// neighbour at this level known readable). Then [`Terrain::pack_height_gated`] would
    /// return this tile's bilinear sample with weight 1 at its first step (and
    /// [`Terrain::height_info_at`] the sample itself): the same arithmetic on the same
    /// samples, so the same bits, without the level loop, the gate or the blend plumbing.
    /// `None`: anything else (the general path decides).
    #[inline]
    fn warm_interior(&self, fp: FacePos, top: u32) -> Option<(f64, u8)> {
        if top == 0 {
            return None;
        }
        let level = 31 - top.leading_zeros() as u8;
        let key = TileKey::at(fp.face, level, fp.u, fp.v);
        let n = f64::from(key.tiles_per_axis());
        let s = fp.u * n - f64::from(key.i);
        let t = fp.v * n - f64::from(key.j);
        let m = self.level_margin;
        self.store
            .with_recent_heights(key, |h, interior, neighbours| {
                let away = m <= 0.0 || (s >= m && s <= 1.0 - m && t >= m && t <= 1.0 - m);
                let covered = neighbours & NEIGHBOURS_KNOWN != 0 && neighbours & 0xff == 0xff;
                (interior && (away || covered)).then(|| bilinear(h, s, t))
            })
            .flatten()
            .map(|h| (h, level))
    }

    /// The theaters' weight at `d`: 0 outside every theater, 1 deeper than the margin inside one.
    fn theater_weight(&self, d: Vec3) -> f64 {
        let (lat, lon) = cube::dir_to_latlon(d);
        let inside = self
            .store
            .index()
            .theaters
            .iter()
            .map(|t| t.bounds.inside_m(lat, lon, EARTH_RADIUS_M))
            .fold(f64::NEG_INFINITY, f64::max);
        if inside <= 0.0 {
            return 0.0;
        }
        if self.cfg.theater_margin_m <= 0.0 {
            return 1.0;
        }
        smoothstep(inside / self.cfg.theater_margin_m)
    }

    /// The pack's height from the levels in `levels` (bit mask), finest first, with the
    /// level-edge blend: (height, finest level, whether that tile is a theater interior tile and
    /// no level blend applied); `None` when no level has a readable tile here.
    fn pack_height(&self, d: Vec3, fp: FacePos, levels: u32) -> Option<(f64, u8, bool)> {
        match self.pack_height_gated(d, fp, levels, || 1.0) {
            Gated::Pack(h, level, interior, _) => Some((h, level, interior)),
            Gated::NoTile | Gated::Outside => None,
        }
    }

    /// [`Terrain::pack_height`] that asks `gate` (the theater weight) as soon as the finest
    /// readable tile is known not to be a theater interior tile, and stops there when it is 0:
    /// the height is then the outer surface whatever the pack's (so the level blend below, which
    /// may read coarser tiles and the outer surface itself, is skipped — the same value, sooner).
    /// The weight comes back with the height (`None`: not asked).
    fn pack_height_gated(
        &self,
        d: Vec3,
        fp: FacePos,
        levels: u32,
        mut gate: impl FnMut() -> f64,
    ) -> Gated {
        let mut bits = levels;
        while bits != 0 {
            let level = 31 - bits.leading_zeros() as u8;
            bits &= !(1 << level);
            let key = TileKey::at(fp.face, level, fp.u, fp.v);
            let n = f64::from(key.tiles_per_axis());
            let s = fp.u * n - f64::from(key.i);
            let t = fp.v * n - f64::from(key.j);
            let sample = |tile: &TileData| match tile {
                TileData::Heights(h) => Some(bilinear(h, s, t)),
                TileData::LandCover(_) => None,
            };
            // The thread's recent tiles answer the warm case without the index: a hit is a
            // readable file of this key (its interior flag kept with it).
            let (here, tile, interior) =
                match self
                    .store
                    .with_recent(Layer::Heights, key, |tile, interior, neighbours| {
                        (sample(tile), interior, neighbours)
                    }) {
                    Some((here, interior, neighbours)) => {
                        (here, Known::Neighbours(neighbours), interior)
                    }
                    None => {
                        if !self.store.index().may_have_height(key) {
                            continue;
                        }
                        let Some(file) = self.store.file(Layer::Heights, key) else {
                            continue;
                        };
                        let here = self
                            .store
                            .with_file_tile(Layer::Heights, key, file, sample)
                            .flatten();
                        (here, Known::File(file), file.interior)
                    }
                };
            let Some(here) = here else {
                continue;
            };
            let weight = if interior {
                None
            } else {
                let w = gate();
                if w <= 0.0 {
                    return Gated::Outside;
                }
                Some(w)
            };
            let w = self.edge_weight(key, tile, s, t);
            if w >= 1.0 {
                return Gated::Pack(here, level, interior, weight);
            }
            let coarser = match self.pack_height(d, fp, bits) {
                Some((c, _, _)) => c,
                None => self.outer_height(d),
            };
            return Gated::Pack(coarser + w * (here - coarser), level, false, weight);
        }
        Gated::NoTile
    }

    /// Which of a tile's 8 neighbours at its level are readable (bits in [`NEIGHBOURS`] order),
    /// learnt once per tile (it decodes them the first time: a pure function of the files).
    fn neighbour_mask(&self, key: TileKey, file: &TileFile) -> u16 {
        let m = file.neighbours.load(Ordering::Acquire);
        if m & NEIGHBOURS_KNOWN != 0 {
            return m;
        }
        let mut m = NEIGHBOURS_KNOWN;
        for (bit, (ds, dt)) in NEIGHBOURS.iter().enumerate() {
            if self.store.usable(Layer::Heights, key.beyond(*ds, *dt)) {
                m |= 1 << bit;
            }
        }
        file.neighbours.store(m, Ordering::Release);
        m
    }

    /// 1 away from the edges of this level's coverage, falling to 0 at an edge or corner beyond
    /// which the level has no readable tile. `tile`: the tile's file, or its neighbours' verdicts
    /// as the thread's recent tiles last saw them (the file is looked up when they were not
    /// known yet, only near an edge).
    #[inline]
    fn edge_weight(&self, key: TileKey, tile: Known<'_>, s: f64, t: f64) -> f64 {
        let m = self.level_margin;
        if m <= 0.0 || (s >= m && s <= 1.0 - m && t >= m && t <= 1.0 - m) {
            return 1.0;
        }
        self.edge_weight_near(key, tile, m, s, t)
    }

    /// [`Terrain::edge_weight`] within `m` (tile-local) of an edge: out of line, the rare case.
    #[inline(never)]
    fn edge_weight_near(&self, key: TileKey, tile: Known<'_>, m: f64, s: f64, t: f64) -> f64 {
        let mask = match tile {
            Known::Neighbours(mask) if mask & NEIGHBOURS_KNOWN != 0 => mask,
            Known::File(file) => self.neighbour_mask(key, file),
            Known::Neighbours(_) => {
                // A tile that was read has its file in the index.
                let Some(file) = self.store.file(Layer::Heights, key) else {
                    return 1.0;
                };
                let mask = self.neighbour_mask(key, file);
                self.store.note_recent_neighbours(Layer::Heights, key, mask);
                mask
            }
        };
        if mask & 0xff == 0xff {
            return 1.0;
        }
        let missing = |bit: usize| mask & (1 << bit) == 0;
        let (lo_s, hi_s, lo_t, hi_t) = (s < m, s > 1.0 - m, t < m, t > 1.0 - m);
        let mut w = 1.0f64;
        for (near, bit, dist) in [
            (lo_s, 0, s),
            (hi_s, 1, 1.0 - s),
            (lo_t, 2, t),
            (hi_t, 3, 1.0 - t),
            (lo_s && lo_t, 4, s.max(t)),
            (hi_s && lo_t, 5, (1.0 - s).max(t)),
            (lo_s && hi_t, 6, s.max(1.0 - t)),
            (hi_s && hi_t, 7, (1.0 - s).max(1.0 - t)),
        ] {
            if near && missing(bit) {
                w = w.min(smoothstep(dist / m));
            }
        }
        w
    }

    /// Land cover (ESA WorldCover class) at latitude/longitude: the nearest sample of the finest
    /// readable land-cover tile inside a theater, else the base's class.
    pub fn land_cover_at(&self, lat_deg: f64, lon_deg: f64) -> u8 {
        self.land_cover_dir(cube::latlon_to_dir(lat_deg, lon_deg))
    }

    /// Land cover at a unit direction.
    pub fn land_cover_dir(&self, d: Vec3) -> u8 {
        if !self.store.index().cover.is_empty() && self.theater_weight(d) > 0.0 {
            let fp = cube::dir_to_face_uv(d);
            let mut bits = self.store.index().cover_levels[usize::from(fp.face)];
            while bits != 0 {
                let level = 31 - bits.leading_zeros() as u8;
                bits &= !(1 << level);
                let key = TileKey::at(fp.face, level, fp.u, fp.v);
                if let Some(TileData::LandCover(c)) = self.store.load(Layer::LandCover, key) {
                    let n = f64::from(key.tiles_per_axis());
                    let col = nearest(fp.u * n - f64::from(key.i));
                    let row = nearest(fp.v * n - f64::from(key.j));
                    return c[row * TILE_SIZE + col];
                }
            }
        }
        self.outer_cover(d)
    }

    /// Land cover outside the pack: near a theater a dry-land class where the skirt rules (or
    /// where the base would be sea), else the base's class.
    fn outer_cover(&self, d: Vec3) -> u8 {
        let (h, w) = self.outer(d);
        if w <= 0.0 {
            return self.base.land_cover(d);
        }
        let base = self.base.land_cover(d);
        if h > 3200.0 {
            crate::base::class::SNOW
        } else if w >= 0.5 || base == crate::base::class::WATER {
            self.base.dry_cover(d)
        } else {
            base
        }
    }

    /// Height at a face position (u, v), m — the renderer's lattice and tests address tiles
    /// this way.
    pub fn height_at_face_uv(&self, face: u8, u: f64, v: f64) -> f64 {
        self.face_uv_info(face, u, v).height_m
    }

    /// [`Terrain::height_at_face_uv`] with where the height came from.
    pub fn face_uv_info(&self, face: u8, u: f64, v: f64) -> HeightInfo {
        let fp = FacePos {
            face: face.min(5),
            u: u.clamp(0.0, 1.0),
            v: v.clamp(0.0, 1.0),
        };
        self.height_info_at(cube::face_uv_to_dir(fp.face, fp.u, fp.v), Some(fp))
    }

    /// Height with where it came from, at latitude/longitude (degrees).
    pub fn info_at(&self, lat_deg: f64, lon_deg: f64) -> HeightInfo {
        self.height_info(cube::latlon_to_dir(lat_deg, lon_deg))
    }

    /// Height and world normal under `p` (the floor). The normal comes from the height gradient
    /// along two tangent directions (differences over 1 m); where the surface is flat
    /// (the sea) it is exactly the planet's up, as a flat floor's.
    pub fn surface(&self, planet: &Planet, p: Vec3) -> (f64, Vec3) {
        let d = cube::world_to_dir(planet.radius_m, p);
        let h = self.height_dir(d);
        let up = planet.up(p);
        // Tangents: east where it is defined, any perpendicular at the poles.
        let east = Vec3::new(d.z, 0.0, -d.x);
        let t1 = if east.length() > 1e-9 {
            east.normalize_or_zero()
        } else {
            Vec3::new(1.0, 0.0, 0.0)
        };
        let t2 = d.cross(t1).normalize_or_zero();
        const STEP_M: f64 = 1.0;
        let r = planet.radius_m + h;
        let a = STEP_M / r;
        let at = |t: Vec3| self.height_dir((d + t * a).normalize_or_zero());
        let g1 = (at(t1) - h) / STEP_M;
        let g2 = (at(t2) - h) / STEP_M;
        if g1 == 0.0 && g2 == 0.0 {
            return (h, up);
        }
        (h, (up - t1 * g1 - t2 * g2).normalize_or_zero())
    }
}

/// Bit 15 of [`TileFile::neighbours`]: the other bits are known.
const NEIGHBOURS_KNOWN: u16 = 1 << 15;

/// What is at hand about a tile read for [`Terrain::edge_weight`].
#[derive(Clone, Copy)]
enum Known<'a> {
    /// Its file (from the index).
    File(&'a TileFile),
    /// Its neighbours' verdicts as the thread's recent tiles hold them (maybe not known yet).
    Neighbours(u16),
}

/// What [`Terrain::pack_height_gated`] found.
enum Gated {
    /// No level has a readable tile here.
    NoTile,
    /// The gate (theater weight) said 0: the outer surface is the height.
    Outside,
    /// (height, finest level, interior and no level blend, the gate's weight if it was asked).
    Pack(f64, u8, bool, Option<f64>),
}

/// The 8 neighbours of a tile as tile-local positions of their centres: −u, +u, −v, +v, then
/// the corners (−u−v, +u−v, −u+v, +u+v).
const NEIGHBOURS: [(f64, f64); 8] = [
    (-0.5, 0.5),
    (1.5, 0.5),
    (0.5, -0.5),
    (0.5, 1.5),
    (-0.5, -0.5),
    (1.5, -0.5),
    (-0.5, 1.5),
    (1.5, 1.5),
];

#[inline]
fn nearest(x: f64) -> usize {
    let c = libm::floor(x * TILE_CELLS as f64 + 0.5);
    if c.is_nan() || c <= 0.0 {
        0
    } else {
        (c as usize).min(TILE_CELLS)
    }
}

/// Bilinear sample of a tile at local (s, t) ∈ [0, 1]²: column = s·128, row = t·128. At a
/// lattice point it is exactly that sample.
#[inline]
pub fn bilinear(h: &[i16], s: f64, t: f64) -> f64 {
    let x = (s * TILE_CELLS as f64).clamp(0.0, TILE_CELLS as f64);
    let y = (t * TILE_CELLS as f64).clamp(0.0, TILE_CELLS as f64);
    // x, y ∈ [0, 128] (or NaN, which `as` turns into 0 as floor's NaN would be): truncation is
    // floor here, without libm's out-of-line call. Through i32: x86-64 converts to a signed
    // integer in one instruction, to an unsigned 64-bit one in seven (the same values here).
    let c0 = (x as i32 as usize).min(TILE_CELLS - 1);
    let r0 = (y as i32 as usize).min(TILE_CELLS - 1);
    let (fx, fy) = (x - c0 as f64, y - r0 as f64);
    // The four samples from one slice (one bounds check instead of four).
    let q = &h[r0 * TILE_SIZE + c0..][..TILE_SIZE + 2];
    let at = |r: usize, c: usize| f64::from(q[r * TILE_SIZE + c]);
    let top = at(0, 0) + (at(0, 1) - at(0, 0)) * fx;
    let bot = at(1, 0) + (at(1, 1) - at(1, 0)) * fx;
    top + (bot - top) * fy
}

impl Floor for Terrain {
    fn sample(&self, planet: &Planet, p: Vec3) -> FloorSample {
        let (height_m, normal) = self.surface(planet, p);
        FloorSample {
            height_m,
            normal,
            velocity: Vec3::ZERO,
        }
    }

    fn height_m(&self, planet: &Planet, p: Vec3) -> f64 {
        self.height_at_world(planet.radius_m, p)
    }
}

/// Compile-time guard: the server steps aircraft on several threads over one terrain.
#[allow(dead_code)]
fn terrain_is_send_and_sync() {
    fn is<T: Send + Sync>() {}
    is::<Terrain>();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stream in [0, 1).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn fixture(cfg: TerrainConfig) -> Option<Terrain> {
        let pack = fl_fixtures::fixture_pack()?;
        let content = Content::load(&fl_content::LoadOptions {
            pack_dirs: vec![pack],
            on_error: fl_content::ErrorPolicy::SkipAndReport,
            ..Default::default()
        })
        .ok()?;
        Some(Terrain::from_content(&content, cfg))
    }

    /// Seeded points (with the face position a caller would pass, if any): NTTR and the
    /// bench's square, both sides of the theater's edges, tile edges and corners of levels
    /// 6–10 (exactly, a hair off and within the level margin), cube-face edges and corners,
    /// the skirt and the base far away.
    fn points() -> Vec<(Vec3, Option<FacePos>)> {
        let mut r = Rng(0x2545_f491_4f6c_dd1d);
        let mut v = Vec::new();
        let ll = |lat: f64, lon: f64| (cube::latlon_to_dir(lat, lon), None);
        for _ in 0..1500 {
            v.push(ll(35.0 + r.next() * 3.5, -117.5 + r.next() * 4.0));
        }
        for _ in 0..1500 {
            v.push(ll(37.0 + r.next() * 0.18, -115.6 + r.next() * 0.22));
        }
        for _ in 0..1500 {
            let (along, across) = (r.next(), (r.next() - 0.5) * 0.4);
            v.push(match (r.next() * 4.0) as u32 {
                0 => ll(35.0 + across, -117.5 + along * 4.0),
                1 => ll(38.5 + across, -117.5 + along * 4.0),
                2 => ll(35.0 + along * 3.5, -117.5 + across),
                _ => ll(35.0 + along * 3.5, -113.5 + across),
            });
        }
        for _ in 0..500 {
            v.push(ll(28.0 + r.next() * 17.0, -125.0 + r.next() * 19.0));
        }
        for _ in 0..500 {
            v.push(ll(r.next() * 180.0 - 90.0, r.next() * 360.0 - 180.0));
        }
        for lon in [-180.0, -135.0, -45.0, 45.0, 135.0, 180.0] {
            for lat in [0.0, 35.264_389_682_754_654, -35.264_389_682_754_654, 20.0] {
                for dl in [0.0, 1e-9, -1e-9] {
                    v.push(ll(lat, lon + dl));
                }
            }
        }
        for _ in 0..3000 {
            let level = 6 + (r.next() * 5.0) as u32;
            let n = f64::from(1u32 << level);
            let (i, j) = ((0.18 + r.next() * 0.06) * n, (0.91 + r.next() * 0.07) * n);
            // On a boundary, a hair off it, or within the 16-sample margin of it.
            let off = match (r.next() * 4.0) as u32 {
                0 => 0.0,
                1 => 1e-12,
                2 => -1e-12,
                _ => (r.next() - 0.5) * 40.0 / 128.0,
            };
            let (u, w) = match (r.next() * 3.0) as u32 {
                0 => ((libm::floor(i) + off) / n, j / n),
                1 => (i / n, (libm::floor(j) + off) / n),
                _ => ((libm::floor(i) + off) / n, (libm::floor(j) + off) / n),
            };
            let fp = FacePos {
                face: 1,
                u: u.clamp(0.0, 1.0),
                v: w.clamp(0.0, 1.0),
            };
            let d = cube::face_uv_to_dir(fp.face, fp.u, fp.v);
            // Both as the renderer asks (face position given) and as the simulation does.
            v.push((d, Some(fp)));
            v.push((d, None));
        }
        v
    }

    /// The general path, with the airfields applied as the public entry points apply them.
    fn general(t: &Terrain, d: Vec3, fp: Option<FacePos>) -> HeightInfo {
        if t.store.index().heights.is_empty() {
            return t.height_info_at(d, fp);
        }
        let fp = fp.unwrap_or_else(|| cube::dir_to_face_uv(d));
        let top = t.store.index().height_levels[usize::from(fp.face)];
        let mut info = t.height_info_general(d, fp, top);
        let natural = info.height_m;
        info.height_m = airfield::apply(&t.airfields, d, || natural);
        info
    }

    fn same(a: HeightInfo, b: HeightInfo) -> bool {
        a.height_m.to_bits() == b.height_m.to_bits()
            && a.level == b.level
            && a.pack_weight.to_bits() == b.pack_weight.to_bits()
    }

    /// The warm shortcut gives what the general path gives, bit for bit, whatever the thread's
    /// recent tiles hold: general first then the shortcut (warm), the shortcut first on a fresh
    /// thread (cold), a shuffled second pass, and a store whose cache holds one tile.
    #[test]
    fn warm_shortcut_equals_the_general_path_bit_for_bit() {
        let Some(t) = fixture(TerrainConfig::default()) else {
            eprintln!("fixture pack not found: skipped");
            return;
        };
        let pts = points();
        let mut hits = 0usize;
        for (d, fp) in &pts {
            let g = general(&t, *d, *fp);
            let f = t.height_info_at(*d, *fp);
            assert!(same(g, f), "{d:?} {fp:?}: general {g:?}, shortcut {f:?}");
            if fp.is_none() {
                // `height_dir` (height_at, height_at_world, the floor) has its own copy.
                let h = t.height_dir(*d);
                assert_eq!(g.height_m.to_bits(), h.to_bits(), "{d:?}: height_dir {h}");
            }
            if f.pack_weight == 1.0 {
                hits += 1;
            }
        }
        assert!(hits > 3000, "the shortcut's case is common: {hits}");
        let want: Vec<HeightInfo> = pts.iter().map(|(d, fp)| general(&t, *d, *fp)).collect();
        // Shortcut first, on threads whose recent tiles start empty, in another order, over a
        // store with a one-tile cache.
        let small = fixture(TerrainConfig {
            cache_bytes: 40_000,
            ..TerrainConfig::default()
        })
        .expect("fixture loads twice");
        std::thread::scope(|s| {
            for terrain in [&t, &small] {
                let (pts, want) = (&pts, &want);
                s.spawn(move || {
                    let mut order: Vec<usize> = (0..pts.len()).collect();
                    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
                    for k in (1..order.len()).rev() {
                        order.swap(k, (r.next() * (k + 1) as f64) as usize);
                    }
                    for pass in 0..2 {
                        for &k in &order {
                            let (d, fp) = pts[k];
                            let f = terrain.height_info_at(d, fp);
                            assert!(same(want[k], f), "pass {pass} {d:?} {fp:?}: {f:?}");
                            if fp.is_none() {
                                let h = terrain.height_dir(d);
                                assert_eq!(want[k].height_m.to_bits(), h.to_bits(), "{d:?}");
                            }
                        }
                    }
                });
            }
        });
        assert!(small.store().stats().bytes <= 40_000 + 33_282);
    }
}

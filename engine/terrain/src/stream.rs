//! Terrain streaming, frame by frame and GPU-agnostic: which chunks to draw now (only chunks
//! already uploaded, covering the planet exactly once), which to request from the background
//! builder, which to hand to the renderer and which to evict.
//!
//! Owns the residency bookkeeping only; the meshes come from a [`ChunkSource`] (the
//! [`ChunkBuilder`] worker thread in the game) and go to a [`ChunkSink`] (the renderer's
//! upload). Must not: block on the builder, depend on a GPU crate, or draw a chunk the sink does
//! not hold.
//!
//! The rule, each [`TerrainStream::update`]:
//! 1. select the wanted chunks ([`select_chunks`]);
//! 2. take the finished meshes; the ones still wanted (or ancestors of wanted ones) are uploaded (room is made by evicting
//!    chunks unused this frame, least recently used first; a mesh that finds no room is dropped
//!    and asked for again later);
//! 3. the drawn set, walking the quadtree from the six faces: a wanted chunk that is resident is
//!    drawn; one that is not is replaced by its resident descendants if they cover it whole,
//!    otherwise the nearest resident ancestor stands in for its whole subtree (none of that
//!    ancestor's other descendants is drawn). The root level, built synchronously at start and
//!    never evicted, guarantees that some ancestor always exists;
//! 4. request the missing wanted chunks, largest screen-space error first (visible ones before
//!    hidden ones), each preceded by its missing ancestors (coarse first), so the stand-ins
//!    refine level by level; at most `max_in_flight` outstanding;
//! 5. evict resident chunks that were neither wanted nor drawn for `keep_frames` frames, and
//!    the least recently used beyond `max_resident`.

use std::collections::{BTreeMap, BTreeSet};

use crate::chunks::{
    ChunkBuilder, ChunkMesh, ChunkSettings, ChunkView, MAX_PENDING, SelectedChunk, build_chunk,
    select_chunks,
};
use crate::cube::TileKey;
use crate::terrain::Terrain;

/// Deepest root level built synchronously (6 × 4³ = 384 chunks).
pub const MAX_ROOT_LEVEL: u8 = 3;

/// Where finished chunk meshes come from. Both calls must never block.
pub trait ChunkSource {
    /// Queues a chunk; `false` when refused (try again on a later frame).
    fn request(&mut self, key: TileKey) -> bool;
    /// The meshes finished since the last call.
    fn poll(&mut self) -> Vec<ChunkMesh>;
}

impl ChunkSource for ChunkBuilder {
    fn request(&mut self, key: TileKey) -> bool {
        ChunkBuilder::request(self, key)
    }

    fn poll(&mut self) -> Vec<ChunkMesh> {
        ChunkBuilder::poll(self)
    }
}

/// Where meshes go to be drawn (the renderer's upload, a mock in tests).
pub trait ChunkSink {
    /// Takes a mesh; `false` when it could not (the chunk is then not resident).
    fn upload(&mut self, mesh: ChunkMesh) -> bool;
    /// Drops a chunk it holds.
    fn evict(&mut self, key: TileKey);
}

/// Streaming limits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamSettings {
    /// The selection's limits (and the planet's radius).
    pub chunks: ChunkSettings,
    /// Level built synchronously at start and kept forever (0: the six face roots; at most
    /// [`MAX_ROOT_LEVEL`]).
    pub root_level: u8,
    /// Most chunks requested and not yet received (at most [`MAX_PENDING`]).
    pub max_in_flight: usize,
    /// Most chunks resident (raised to at least twice the selection's bound plus the roots, so
    /// that the wanted chunks and their stand-ins always fit).
    pub max_resident: usize,
    /// Frames an unused chunk stays resident (so looking back is cheap).
    pub keep_frames: u64,
}

impl Default for StreamSettings {
    fn default() -> Self {
        let chunks = ChunkSettings::default();
        Self {
            chunks,
            root_level: 0,
            max_in_flight: 32,
            max_resident: 3 * chunks.max_chunks,
            keep_frames: 300,
        }
    }
}

/// Errors starting a stream.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The sink refused a root chunk, so nothing could ever be drawn there.
    #[error("the renderer refused root terrain chunk {0:?}")]
    RootRefused(TileKey),
}

/// What the last update did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Chunks the selection wants.
    pub wanted: usize,
    /// Chunks drawn.
    pub drawn: usize,
    /// Drawn chunks that are not wanted (ancestors or descendants standing in).
    pub stand_ins: usize,
    /// Chunks resident after the update.
    pub resident: usize,
    /// Chunks requested and not yet received.
    pub in_flight: usize,
    /// Meshes uploaded this update.
    pub uploaded: usize,
    /// Meshes received but not uploaded (no longer wanted, no room, or the sink refused).
    pub dropped: usize,
    /// Chunks evicted this update.
    pub evicted: usize,
}

/// The per-frame streaming state (see the module docs).
#[derive(Debug)]
pub struct TerrainStream<S> {
    source: S,
    settings: StreamSettings,
    /// Resident chunks and the last frame each was wanted or drawn.
    resident: BTreeMap<TileKey, u64>,
    /// Strict ancestors of resident chunks, with how many resident chunks lie below each.
    below: BTreeMap<TileKey, u32>,
    requested: BTreeSet<TileKey>,
    frame: u64,
    wanted: Vec<SelectedChunk>,
    drawn: Vec<TileKey>,
    stats: StreamStats,
}

fn children(k: TileKey) -> [TileKey; 4] {
    [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(di, dj)| TileKey {
        face: k.face,
        level: k.level + 1,
        i: k.i * 2 + di,
        j: k.j * 2 + dj,
    })
}

impl<S: ChunkSource> TerrainStream<S> {
    /// Starts a stream: builds the root level over `terrain` synchronously and uploads it.
    pub fn new(
        terrain: &Terrain,
        source: S,
        settings: StreamSettings,
        sink: &mut impl ChunkSink,
    ) -> Result<Self, StreamError> {
        let mut settings = settings;
        settings.root_level = settings.root_level.min(MAX_ROOT_LEVEL);
        settings.max_in_flight = settings.max_in_flight.clamp(1, MAX_PENDING);
        let roots = 6usize << (2 * u32::from(settings.root_level));
        let max_chunks = settings
            .chunks
            .max_chunks
            .clamp(6, crate::chunks::MAX_CHUNKS);
        settings.max_resident = settings.max_resident.max(2 * max_chunks + roots);
        let mut s = Self {
            source,
            settings,
            resident: BTreeMap::new(),
            below: BTreeMap::new(),
            requested: BTreeSet::new(),
            frame: 0,
            wanted: Vec::new(),
            drawn: Vec::new(),
            stats: StreamStats::default(),
        };
        let n = 1u32 << settings.root_level;
        for face in 0..6u8 {
            for j in 0..n {
                for i in 0..n {
                    let key = TileKey {
                        face,
                        level: settings.root_level,
                        i,
                        j,
                    };
                    if !sink.upload(build_chunk(terrain, key, settings.chunks.radius_m)) {
                        return Err(StreamError::RootRefused(key));
                    }
                    s.insert(key);
                }
            }
        }
        s.drawn = s.resident.keys().copied().collect();
        Ok(s)
    }

    /// The settings in force (after clamping).
    pub fn settings(&self) -> &StreamSettings {
        &self.settings
    }

    /// The source (the builder), e.g. to inspect it.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The source, mutably (tests release held chunks through it).
    pub fn source_mut(&mut self) -> &mut S {
        &mut self.source
    }

    /// The chunks to draw, from the last update (sorted by key; all resident).
    pub fn drawn(&self) -> &[TileKey] {
        &self.drawn
    }

    /// The selection of the last update.
    pub fn wanted(&self) -> &[SelectedChunk] {
        &self.wanted
    }

    /// Whether `key` is resident (uploaded and not evicted).
    pub fn is_resident(&self, key: TileKey) -> bool {
        self.resident.contains_key(&key)
    }

    /// Resident chunk count.
    pub fn resident_count(&self) -> usize {
        self.resident.len()
    }

    /// What the last update did.
    pub fn stats(&self) -> StreamStats {
        self.stats
    }

    /// Whether the last update drew exactly the wanted selection.
    pub fn converged(&self) -> bool {
        self.drawn.len() == self.wanted.len()
            && self
                .drawn
                .iter()
                .zip(&self.wanted)
                .all(|(d, w)| *d == w.key)
    }

    fn insert(&mut self, key: TileKey) {
        if self.resident.insert(key, self.frame).is_none() {
            let mut k = key;
            while k.level > 0 {
                k = k.parent();
                *self.below.entry(k).or_insert(0) += 1;
            }
        }
    }

    fn remove(&mut self, key: TileKey, sink: &mut impl ChunkSink) {
        if self.resident.remove(&key).is_some() {
            let mut k = key;
            while k.level > 0 {
                k = k.parent();
                if let Some(n) = self.below.get_mut(&k) {
                    *n -= 1;
                    if *n == 0 {
                        self.below.remove(&k);
                    }
                }
            }
            sink.evict(key);
            self.stats.evicted += 1;
        }
    }

    /// The least recently used resident chunk that may go now (not of the root level, not used
    /// this frame).
    fn evictable(&self) -> Option<TileKey> {
        self.resident
            .iter()
            .filter(|(k, f)| k.level != self.settings.root_level && **f < self.frame)
            .min_by_key(|(k, f)| (**f, **k))
            .map(|(k, _)| *k)
    }

    /// One frame: see the module docs. Never waits for the source. Returns the chunks to draw.
    pub fn update(&mut self, view: &ChunkView, sink: &mut impl ChunkSink) -> &[TileKey] {
        self.frame += 1;
        self.stats = StreamStats::default();
        self.wanted = select_chunks(view, &self.settings.chunks);
        let wanted: BTreeSet<TileKey> = self.wanted.iter().map(|c| c.key).collect();
        // Wanted chunks and their ancestors: what may be uploaded (ancestors stand in).
        let mut needed = wanted.clone();
        for c in &self.wanted {
            let mut k = c.key;
            while k.level > 0 {
                k = k.parent();
                if !needed.insert(k) {
                    break;
                }
            }
        }

        // Finished meshes: upload the ones still needed.
        for mesh in self.source.poll() {
            let key = mesh.key;
            self.requested.remove(&key);
            if !needed.contains(&key) || self.resident.contains_key(&key) {
                self.stats.dropped += 1;
                continue;
            }
            if self.resident.len() >= self.settings.max_resident {
                match self.evictable() {
                    Some(old) => self.remove(old, sink),
                    None => {
                        self.stats.dropped += 1;
                        continue;
                    }
                }
            }
            if sink.upload(mesh) {
                self.insert(key);
                self.stats.uploaded += 1;
            } else {
                tracing::debug!(?key, "the renderer refused a terrain chunk");
                self.stats.dropped += 1;
            }
        }

        // What to draw.
        let mut drawn = Vec::with_capacity(self.wanted.len());
        for face in 0..6u8 {
            let root = TileKey {
                face,
                level: 0,
                i: 0,
                j: 0,
            };
            match self.draw_node(root, &wanted) {
                Some(v) => drawn.extend(v),
                None => {
                    // Unreachable while the root level is resident; draw what covers it.
                    tracing::warn!(face, "terrain face without a resident cover");
                    drawn.extend(self.cover_below(root).unwrap_or_default());
                }
            }
        }
        drawn.sort_unstable();
        for k in drawn.iter().chain(wanted.iter()) {
            if let Some(f) = self.resident.get_mut(k) {
                *f = self.frame;
            }
        }
        self.stats.stand_ins = drawn.iter().filter(|k| !wanted.contains(k)).count();
        self.drawn = drawn;

        // Requests: the most wanted missing chunks first, each after its missing ancestors
        // (coarse first, and the builder works in order), so detail refines level by level
        // instead of appearing only once a whole region is built.
        let mut missing: Vec<&SelectedChunk> = self
            .wanted
            .iter()
            .filter(|c| !self.resident.contains_key(&c.key))
            .collect();
        missing.sort_by(|a, b| {
            b.visible
                .cmp(&a.visible)
                .then(b.error_px.total_cmp(&a.error_px))
                .then(a.key.cmp(&b.key))
        });
        let root_level = self.settings.root_level;
        'leaves: for c in missing {
            let mut chain = vec![c.key];
            let mut k = c.key;
            while k.level > root_level + 1 {
                k = k.parent();
                chain.push(k);
            }
            for k in chain.into_iter().rev() {
                if self.resident.contains_key(&k) || self.requested.contains(&k) {
                    continue;
                }
                if self.requested.len() >= self.settings.max_in_flight || !self.source.request(k) {
                    break 'leaves;
                }
                self.requested.insert(k);
            }
        }

        // Eviction: idle for too long, or beyond the bound.
        let keep = self.settings.keep_frames;
        let stale: Vec<TileKey> = self
            .resident
            .iter()
            .filter(|(k, f)| {
                k.level != self.settings.root_level && f.saturating_add(keep) < self.frame
            })
            .map(|(k, _)| *k)
            .collect();
        for k in stale {
            self.remove(k, sink);
        }
        while self.resident.len() > self.settings.max_resident {
            match self.evictable() {
                Some(k) => self.remove(k, sink),
                None => break,
            }
        }

        self.stats.wanted = self.wanted.len();
        self.stats.drawn = self.drawn.len();
        self.stats.resident = self.resident.len();
        self.stats.in_flight = self.requested.len();
        &self.drawn
    }

    /// The resident chunks that cover `key` exactly once from inside it (itself, or its
    /// descendants), or `None`.
    fn cover_below(&self, key: TileKey) -> Option<Vec<TileKey>> {
        if self.resident.contains_key(&key) {
            return Some(vec![key]);
        }
        if !self.below.contains_key(&key) {
            return None;
        }
        let mut out = Vec::new();
        for c in children(key) {
            out.extend(self.cover_below(c)?);
        }
        Some(out)
    }

    /// The drawn chunks for the subtree of `key`, or `None` when its wanted leaves cannot all
    /// be covered from inside it (an ancestor must stand in).
    fn draw_node(&self, key: TileKey, wanted: &BTreeSet<TileKey>) -> Option<Vec<TileKey>> {
        if wanted.contains(&key) {
            return self.cover_below(key);
        }
        if key.level >= crate::cube::MAX_LEVEL {
            // Not wanted and not refinable: only itself could cover it.
            return self.resident.contains_key(&key).then(|| vec![key]);
        }
        let mut out = Vec::new();
        for c in children(key) {
            match self.draw_node(c, wanted) {
                Some(v) => out.extend(v),
                None => {
                    return self.resident.contains_key(&key).then(|| vec![key]);
                }
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::{self, latlon_to_world};
    use crate::terrain::TerrainConfig;
    use fl_flight::gravity::EARTH_RADIUS_M;
    use fl_flight::math::Vec3;
    use std::collections::VecDeque;

    const R: f64 = EARTH_RADIUS_M;

    /// A source that holds every request until the test releases it.
    #[derive(Debug, Default)]
    struct Held {
        queue: VecDeque<TileKey>,
        release: usize,
        requests: usize,
    }

    impl ChunkSource for Held {
        fn request(&mut self, key: TileKey) -> bool {
            if !self.queue.contains(&key) {
                self.queue.push_back(key);
            }
            self.requests += 1;
            true
        }

        fn poll(&mut self) -> Vec<ChunkMesh> {
            let n = self.release.min(self.queue.len());
            self.release -= n;
            self.queue.drain(..n).map(fake_mesh).collect()
        }
    }

    /// The stream only reads a mesh's key; an empty mesh keeps the tests fast.
    fn fake_mesh(key: TileKey) -> ChunkMesh {
        ChunkMesh {
            key,
            origin: [0.0; 3],
            positions: Vec::new(),
            normals: Vec::new(),
            land_cover: Vec::new(),
            indices: Vec::new(),
            skirt_depth_m: 0.0,
            height_range_m: (0.0, 0.0),
            bound_radius_m: 0.0,
        }
    }

    /// The renderer's side: what it holds.
    #[derive(Debug, Default)]
    struct Sink {
        held: BTreeSet<TileKey>,
        most: usize,
    }

    impl ChunkSink for Sink {
        fn upload(&mut self, mesh: ChunkMesh) -> bool {
            assert!(self.held.insert(mesh.key), "uploaded twice: {:?}", mesh.key);
            self.most = self.most.max(self.held.len());
            true
        }

        fn evict(&mut self, key: TileKey) {
            assert!(
                self.held.remove(&key),
                "evicted what it does not hold: {key:?}"
            );
        }
    }

    fn view_at(lat: f64, lon: f64, alt_m: f64) -> ChunkView {
        ChunkView {
            position: latlon_to_world(R, lat, lon, alt_m),
            ground_height_m: 0.0,
            forward: None,
            vertical_fov_rad: 60f64.to_radians(),
            aspect: 16.0 / 9.0,
            viewport_height_px: 720,
            max_error_px: 2.0,
        }
    }

    fn settings() -> StreamSettings {
        StreamSettings {
            chunks: ChunkSettings {
                max_chunks: 200,
                ..ChunkSettings::default()
            },
            max_in_flight: 8,
            max_resident: 0, // raised to the floor: 2 × 200 + roots
            keep_frames: 30,
            ..StreamSettings::default()
        }
    }

    fn start(s: StreamSettings, sink: &mut Sink) -> TerrainStream<Held> {
        let t = Terrain::base_only(TerrainConfig::default());
        TerrainStream::new(&t, Held::default(), s, sink).expect("roots")
    }

    /// The drawn chunks cover the planet exactly once: no key is an ancestor of another, the
    /// areas sum to the six faces, and sampled directions fall in exactly one chunk. All of them
    /// are held by the sink.
    fn assert_cover(drawn: &[TileKey], sink: &Sink, frame: usize) {
        let set: BTreeSet<TileKey> = drawn.iter().copied().collect();
        assert_eq!(set.len(), drawn.len(), "frame {frame}: duplicates");
        for k in drawn {
            assert!(
                sink.held.contains(k),
                "frame {frame}: {k:?} drawn, not resident"
            );
            let mut a = *k;
            while a.level > 0 {
                a = a.parent();
                assert!(!set.contains(&a), "frame {frame}: {k:?} under drawn {a:?}");
            }
        }
        let area: f64 = drawn.iter().map(|k| 0.25f64.powi(i32::from(k.level))).sum();
        assert!((area - 6.0).abs() < 1e-12, "frame {frame}: area {area}");
        // Deterministic sample directions (a golden-angle spiral) plus the camera's region.
        let n = 400;
        for s in 0..n {
            let y = 1.0 - 2.0 * (f64::from(s) + 0.5) / f64::from(n);
            let r = (1.0 - y * y).sqrt();
            let a = f64::from(s) * 2.399_963_229_728_653;
            let d = Vec3::new(r * a.cos(), y, r * a.sin());
            let p = cube::dir_to_face_uv(d);
            let hits = drawn
                .iter()
                .filter(|k| k.face == p.face && TileKey::at(p.face, k.level, p.u, p.v) == **k)
                .count();
            assert_eq!(hits, 1, "frame {frame}: {d:?} in {hits} chunks");
        }
    }

    #[test]
    fn update_never_waits_and_roots_stand_in_until_chunks_arrive() {
        let mut sink = Sink::default();
        let mut s = start(settings(), &mut sink);
        assert_eq!(sink.held.len(), 6);
        let v = view_at(36.27, -115.64, 3_000.0);
        // Nothing is released: every update returns at once and draws the roots.
        for f in 0..5 {
            let drawn = s.update(&v, &mut sink).to_vec();
            assert_cover(&drawn, &sink, f);
            assert_eq!(drawn.len(), 6);
            let st = s.stats();
            assert!(st.wanted > 6, "{st:?}");
            assert_eq!(st.in_flight, 8, "bounded in flight: {st:?}");
            // The far faces are wanted whole; the camera's face stands in for its subtree.
            assert_eq!(st.stand_ins, 1);
            assert!(!s.converged());
        }
        // Requested once each, not again every frame.
        assert_eq!(s.source().requests, 8);
        // The first requested are the most wanted: the chunks at the camera, each after its
        // ancestors, coarse first (from the camera's level-1 chunk down).
        let here = cube::dir_to_face_uv(cube::latlon_to_dir(36.27, -115.64));
        let q = &s.source().queue;
        assert_eq!(q[0], TileKey::at(here.face, 1, here.u, here.v));
        assert!(q.iter().any(|k| k.level > 4), "{q:?}");
        for (n, k) in q.iter().enumerate() {
            assert!(
                k.level == 1 || q.range(..n).any(|a| *a == k.parent()),
                "{q:?}"
            );
        }
    }

    #[test]
    fn it_converges_to_exactly_the_selection_and_uses_finer_chunks_as_soon_as_they_come() {
        let mut sink = Sink::default();
        let mut s = start(settings(), &mut sink);
        let v = view_at(36.27, -115.64, 3_000.0);
        let want: Vec<TileKey> = select_chunks(&v, &s.settings().chunks)
            .iter()
            .map(|c| c.key)
            .collect();
        let mut frames = 0;
        let mut drawn_counts = Vec::new();
        while !s.converged() {
            s.source_mut().release = 3; // a slow builder
            let drawn = s.update(&v, &mut sink).to_vec();
            assert_cover(&drawn, &sink, frames);
            drawn_counts.push(drawn.len());
            frames += 1;
            assert!(frames < 500, "no convergence: {:?}", s.stats());
        }
        assert_eq!(s.drawn(), &want[..]);
        assert_eq!(s.stats().stand_ins, 0);
        // Detail appeared progressively, not all at the end.
        assert!(drawn_counts.iter().any(|&n| n > 6 && n < want.len()));
        // Once converged it stays so and asks for nothing.
        let before = s.source().requests;
        for _ in 0..3 {
            s.update(&v, &mut sink);
            assert!(s.converged());
        }
        assert_eq!(s.source().requests, before);
    }

    #[test]
    fn a_fast_camera_with_late_chunks_always_draws_a_whole_planet_and_residency_stays_bounded() {
        let mut sink = Sink::default();
        let st = settings();
        let mut s = start(st, &mut sink);
        let bound = s.settings().max_resident;
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut frame = 0;
        // Fly east fast over Nevada at low level, climb, then dive somewhere else; the builder
        // returns a pseudo-random 0–4 chunks a frame.
        let mut path: Vec<ChunkView> = (0..120)
            .map(|f| {
                view_at(
                    36.0,
                    -118.0 + 0.05 * f64::from(f),
                    500.0 + 20.0 * f64::from(f),
                )
            })
            .collect();
        path.extend((0..60).map(|f| view_at(10.0 - f64::from(f), 30.0, 800.0)));
        for v in &path {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            s.source_mut().release = (rng % 5) as usize;
            let drawn = s.update(v, &mut sink).to_vec();
            assert_cover(&drawn, &sink, frame);
            assert!(s.resident_count() <= bound);
            assert_eq!(s.resident_count(), sink.held.len());
            assert!(s.stats().in_flight <= 8);
            frame += 1;
        }
        assert!(sink.most <= bound);
        // Late chunks (requested for places long left behind) were dropped, and idle ones
        // evicted.
        let last = *path.last().expect("path");
        let mut rounds = 0;
        while !s.converged() {
            s.source_mut().release = 8;
            let drawn = s.update(&last, &mut sink).to_vec();
            assert_cover(&drawn, &sink, frame);
            frame += 1;
            rounds += 1;
            assert!(rounds < 500, "no convergence: {:?}", s.stats());
        }
        // After keep_frames idle frames nothing but the wanted chunks and the roots remains.
        for _ in 0..=st.keep_frames {
            s.update(&last, &mut sink);
        }
        let roots = sink.held.iter().filter(|k| k.level == 0).count();
        assert_eq!(roots, 6);
        let extra: Vec<&TileKey> = sink
            .held
            .iter()
            .filter(|k| k.level > 0 && !s.drawn().contains(k))
            .collect();
        assert!(extra.is_empty(), "{extra:?}");
    }

    #[test]
    fn a_tight_resident_bound_is_kept_and_a_deeper_root_level_covers_a_coarse_selection() {
        let mut sink = Sink::default();
        let mut st = settings();
        st.root_level = 1;
        st.chunks.max_chunks = 30;
        st.keep_frames = 1_000;
        let mut s = start(st, &mut sink);
        assert_eq!(sink.held.len(), 24);
        let bound = s.settings().max_resident;
        assert_eq!(bound, 2 * 30 + 24);
        // From far out the selection is coarser than the root level: the level-1 roots stand
        // in for the wanted level-0 faces.
        let far = view_at(0.0, 0.0, 1.0e9);
        let drawn = s.update(&far, &mut sink).to_vec();
        assert_cover(&drawn, &sink, 0);
        assert!(s.wanted().iter().all(|c| c.key.level == 0));
        assert_eq!(drawn.len(), 24);
        // Many places, each briefly: the bound holds (LRU eviction), the roots stay.
        for f in 0..200 {
            let lat = -60.0 + 0.6 * f64::from(f);
            let lon = -170.0 + 1.7 * f64::from(f);
            s.source_mut().release = 8;
            let drawn = s.update(&view_at(lat, lon, 1_000.0), &mut sink).to_vec();
            assert_cover(&drawn, &sink, f as usize);
            assert!(sink.held.len() <= bound, "{}", sink.held.len());
            assert_eq!(sink.held.iter().filter(|k| k.level == 1).count(), 24);
        }
        assert!(sink.most <= bound);
    }

    #[test]
    fn a_refusing_sink_fails_the_start_and_a_refused_chunk_is_not_drawn() {
        struct No;
        impl ChunkSink for No {
            fn upload(&mut self, _: ChunkMesh) -> bool {
                false
            }
            fn evict(&mut self, _: TileKey) {}
        }
        let t = Terrain::base_only(TerrainConfig::default());
        let e = TerrainStream::new(&t, Held::default(), settings(), &mut No);
        assert!(matches!(e, Err(StreamError::RootRefused(_))));
        // Roots accepted, later chunks refused: the roots keep standing in.
        struct RootsOnly(Sink);
        impl ChunkSink for RootsOnly {
            fn upload(&mut self, m: ChunkMesh) -> bool {
                m.key.level == 0 && self.0.upload(m)
            }
            fn evict(&mut self, k: TileKey) {
                self.0.evict(k);
            }
        }
        let mut sink = RootsOnly(Sink::default());
        let mut s = TerrainStream::new(&t, Held::default(), settings(), &mut sink).expect("roots");
        let v = view_at(36.27, -115.64, 3_000.0);
        for f in 0..10 {
            s.source_mut().release = 8;
            let drawn = s.update(&v, &mut sink).to_vec();
            assert_cover(&drawn, &sink.0, f);
            assert_eq!(drawn.len(), 6);
        }
    }

    #[test]
    fn with_the_real_builder_update_returns_while_chunks_are_pending_then_converges() {
        let t = Terrain::base_only(TerrainConfig::default());
        let b = ChunkBuilder::new(t.clone(), R).expect("thread");
        let mut st = settings();
        st.chunks.max_chunks = 40;
        let mut sink = Sink::default();
        let mut s = TerrainStream::new(&t, b, st, &mut sink).expect("roots");
        let v = view_at(36.27, -115.64, 20_000.0);
        s.update(&v, &mut sink);
        // Requested this frame and not yet taken: update did not wait for them.
        assert!(s.stats().in_flight > 0);
        assert_eq!(s.stats().uploaded, 0);
        let mut frames = 0;
        while !s.converged() {
            std::thread::sleep(std::time::Duration::from_millis(5));
            let drawn = s.update(&v, &mut sink).to_vec();
            assert_cover(&drawn, &sink, frames);
            frames += 1;
            assert!(frames < 4_000, "no convergence: {:?}", s.stats());
        }
        assert_eq!(s.source().pending(), 0);
    }
}

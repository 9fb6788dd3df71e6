//! The bridge from fl-terrain's streaming to fl-render: a [`ChunkSink`] that uploads the
//! stream's finished chunk meshes to the renderer and drops the ones the stream evicts, and the
//! frame's terrain keys from the stream's drawn set. Used by fl-view's world window and the game
//! client.
//!
//! Owns nothing but counters: the stream ([`fl_terrain::stream::TerrainStream`]) is the owner of
//! residency, so [`RendererTerrain::new`] switches the renderer's own eviction off (a chunk the
//! stream believes resident must never vanish from the GPU behind its back; the renderer's
//! undrawn-for-600-frames rule would drop the planet-covering root chunks the stream keeps
//! forever, leaving holes where they stand in later). Must not: build or wait for a chunk.

use fl_render::{Gpu, Renderer, TerrainChunk, TerrainKey};
use fl_terrain::chunks::ChunkMesh;
use fl_terrain::cube::TileKey;
use std::collections::VecDeque;

use fl_terrain::stream::{ChunkSink, ChunkSource};

use crate::to_render_chunk;

/// Where the sink puts chunks: the renderer (through [`RendererTerrain`]), or a mock in tests.
pub trait TerrainTarget {
    /// Uploads a chunk; `Err` (a reason) when it was refused.
    fn upload(&mut self, chunk: &TerrainChunk) -> Result<(), String>;
    /// Drops a chunk.
    fn remove(&mut self, key: TerrainKey);
}

/// The renderer and its device as a [`TerrainTarget`].
pub struct RendererTerrain<'a> {
    gpu: &'a Gpu,
    renderer: &'a mut Renderer,
}

impl<'a> RendererTerrain<'a> {
    /// Borrows the renderer for this frame's uploads and evictions, and makes the caller (the
    /// stream) the owner of terrain residency (see the module docs).
    pub fn new(gpu: &'a Gpu, renderer: &'a mut Renderer) -> Self {
        renderer.set_terrain_caller_owned(true);
        Self { gpu, renderer }
    }
}

impl std::fmt::Debug for RendererTerrain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RendererTerrain")
            .field("chunks", &self.renderer.terrain_chunk_count())
            .finish()
    }
}

impl TerrainTarget for RendererTerrain<'_> {
    fn upload(&mut self, chunk: &TerrainChunk) -> Result<(), String> {
        self.renderer
            .upload_terrain(self.gpu, chunk)
            .map_err(|e| e.to_string())
    }

    fn remove(&mut self, key: TerrainKey) {
        self.renderer.remove_terrain(key);
    }
}

/// What the sink did over its lifetime (the caller keeps these across frames).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SinkTotals {
    /// Chunks uploaded.
    pub uploaded: u64,
    /// Chunks the target refused (then not resident; the stream asks again later).
    pub refused: u64,
    /// Chunks dropped because the stream evicted them.
    pub evicted: u64,
}

/// A [`ChunkSink`] over a [`TerrainTarget`]: each mesh becomes a [`TerrainChunk`] keyed by the
/// packed tile key ([`frame_keys`] gives the same keys for the frame).
#[derive(Debug)]
pub struct StreamSink<'t, T> {
    target: T,
    totals: &'t mut SinkTotals,
}

impl<'t, T: TerrainTarget> StreamSink<'t, T> {
    /// A sink into `target` counting into `totals`.
    pub fn new(target: T, totals: &'t mut SinkTotals) -> Self {
        Self { target, totals }
    }

    /// The target (tests inspect their mock through it).
    pub fn target(&self) -> &T {
        &self.target
    }
}

impl<T: TerrainTarget> ChunkSink for StreamSink<'_, T> {
    fn upload(&mut self, mesh: ChunkMesh) -> bool {
        let key = mesh.key;
        match self.target.upload(&to_render_chunk(mesh)) {
            Ok(()) => {
                self.totals.uploaded += 1;
                true
            }
            Err(e) => {
                tracing::warn!(?key, "terrain chunk refused by the renderer: {e}");
                self.totals.refused += 1;
                false
            }
        }
    }

    fn evict(&mut self, key: TileKey) {
        self.target.remove(key.packed());
        self.totals.evicted += 1;
    }
}

/// A [`ChunkSource`] that hands the stream at most `per_frame` finished meshes a frame and keeps
/// the rest for the next frames, so a burst of chunks finishing together (up to the stream's 32
/// in flight) spreads its uploads over several frames instead of stalling one. Nothing is
/// dropped: the kept meshes are still requested in the stream's books, and their number is
/// bounded by what it has in flight.
#[derive(Debug)]
pub struct BudgetedSource<S> {
    inner: S,
    per_frame: usize,
    ready: VecDeque<ChunkMesh>,
}

impl<S: ChunkSource> BudgetedSource<S> {
    /// `inner`'s meshes, at most `per_frame` (at least 1) a poll.
    pub fn new(inner: S, per_frame: usize) -> Self {
        Self {
            inner,
            per_frame: per_frame.max(1),
            ready: VecDeque::new(),
        }
    }

    /// Meshes finished and not yet handed over.
    pub fn waiting(&self) -> usize {
        self.ready.len()
    }
}

impl<S: ChunkSource> ChunkSource for BudgetedSource<S> {
    fn request(&mut self, key: TileKey) -> bool {
        self.inner.request(key)
    }

    fn poll(&mut self) -> Vec<ChunkMesh> {
        self.ready.extend(self.inner.poll());
        let n = self.ready.len().min(self.per_frame);
        self.ready.drain(..n).collect()
    }
}

/// The renderer keys (`Frame::terrain`) of the stream's drawn chunks.
pub fn frame_keys(drawn: &[TileKey]) -> Vec<TerrainKey> {
    drawn.iter().map(|k| k.packed()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    use fl_flight::gravity::EARTH_RADIUS_M;
    use fl_terrain::chunks::{ChunkView, build_chunk};
    use fl_terrain::cube::latlon_to_world;
    use fl_terrain::stream::{StreamSettings, TerrainStream};
    use fl_terrain::{Terrain, TerrainConfig};

    /// The renderer's side: what it holds and how often each key was uploaded and removed.
    #[derive(Default)]
    struct Mock {
        held: BTreeMap<TerrainKey, usize>,
        uploads: BTreeMap<TerrainKey, u32>,
        removes: BTreeMap<TerrainKey, u32>,
    }

    impl TerrainTarget for &mut Mock {
        fn upload(&mut self, c: &TerrainChunk) -> Result<(), String> {
            *self.uploads.entry(c.key).or_default() += 1;
            self.held.insert(c.key, c.positions.len());
            Ok(())
        }
        fn remove(&mut self, key: TerrainKey) {
            *self.removes.entry(key).or_default() += 1;
            self.held.remove(&key);
        }
    }

    /// A source that builds what was requested, a few a call, one call late (never in the
    /// call that requested it).
    struct Slow {
        terrain: Terrain,
        queue: VecDeque<TileKey>,
    }

    impl ChunkSource for Slow {
        fn request(&mut self, key: TileKey) -> bool {
            if !self.queue.contains(&key) {
                self.queue.push_back(key);
            }
            true
        }
        fn poll(&mut self) -> Vec<ChunkMesh> {
            let n = self.queue.len().min(6);
            self.queue
                .drain(..n)
                .map(|k| build_chunk(&self.terrain, k, EARTH_RADIUS_M))
                .collect()
        }
    }

    fn view(lat: f64, lon: f64, alt: f64) -> ChunkView {
        ChunkView {
            position: latlon_to_world(EARTH_RADIUS_M, lat, lon, alt),
            ground_height_m: 0.0,
            forward: None,
            vertical_fov_rad: 60f64.to_radians(),
            aspect: 16.0 / 9.0,
            viewport_height_px: 270,
            max_error_px: 4.0,
        }
    }

    fn unpack(k: TerrainKey) -> TileKey {
        let m28 = (1u64 << 28) - 1;
        TileKey::new(
            (k >> 61) as u8,
            ((k >> 56) & 31) as u8,
            ((k >> 28) & m28) as u32,
            (k & m28) as u32,
        )
        .expect("a packed tile key")
    }

    #[test]
    fn a_budgeted_source_hands_over_a_burst_over_several_polls_and_loses_nothing() {
        let terrain = Terrain::base_only(TerrainConfig::default());
        let mut src = BudgetedSource::new(
            Slow {
                terrain,
                queue: VecDeque::new(),
            },
            4,
        );
        let keys: Vec<TileKey> = (0..4u32)
            .flat_map(|j| (0..4u32).map(move |i| TileKey::new(2, 2, i, j).expect("key")))
            .collect();
        for k in &keys {
            assert!(src.request(*k));
        }
        let mut got = Vec::new();
        for _ in 0..10 {
            let batch = src.poll();
            assert!(batch.len() <= 4, "{}", batch.len());
            got.extend(batch.into_iter().map(|m| m.key));
        }
        assert_eq!(got, keys, "all of them, in order, none twice");
        assert_eq!(src.waiting(), 0);
    }

    #[test]
    fn each_chunk_is_uploaded_once_and_removed_when_the_stream_evicts_it() {
        let terrain = Terrain::base_only(TerrainConfig::default());
        let settings = StreamSettings {
            keep_frames: 5,
            ..StreamSettings::default()
        };
        let mut mock = Mock::default();
        let mut totals = SinkTotals::default();
        let mut stream = {
            let mut sink = StreamSink::new(&mut mock, &mut totals);
            TerrainStream::new(
                &terrain,
                Slow {
                    terrain: terrain.clone(),
                    queue: VecDeque::new(),
                },
                settings,
                &mut sink,
            )
            .expect("roots")
        };
        assert_eq!(mock.held.len(), 6, "the six roots");
        // Fly far enough that chunks fall behind and go idle.
        for f in 0..120 {
            let v = view(36.0, -118.0 + 0.02 * f64::from(f), 3_000.0);
            let mut sink = StreamSink::new(&mut mock, &mut totals);
            let drawn = stream.update(&v, &mut sink).to_vec();
            // Everything drawn is held by the renderer under the frame's key.
            for k in frame_keys(&drawn) {
                assert!(mock.held.contains_key(&k), "frame {f}: {k} drawn, not held");
            }
            // The renderer holds exactly what the stream believes resident.
            assert_eq!(mock.held.len(), stream.resident_count(), "frame {f}");
            for k in mock.held.keys() {
                assert!(
                    stream.is_resident(unpack(*k)),
                    "frame {f}: {k} held, not resident"
                );
            }
        }
        assert!(totals.uploaded > 6 && totals.evicted > 0, "{totals:?}");
        assert_eq!(
            totals.uploaded,
            mock.uploads.values().map(|&n| u64::from(n)).sum::<u64>()
        );
        assert_eq!(
            totals.evicted,
            mock.removes.values().map(|&n| u64::from(n)).sum::<u64>()
        );
        // A chunk is uploaded again only after it was removed, and removed only once per upload.
        for (k, &n) in &mock.uploads {
            let r = mock.removes.get(k).copied().unwrap_or(0);
            let held = u32::from(mock.held.contains_key(k));
            assert_eq!(n, r + held, "key {k}: {n} uploads, {r} removals");
        }
        // Meshes arrive whole.
        assert!(mock.held.values().all(|&n| n > 0));
    }
}

//! Decoded tiles: a cache bounded in bytes, the synchronous load the simulation uses, and a
//! loader thread the renderer asks so its thread never waits on a disk.
//!
//! Owns the decoded tiles and each tile file's verdict. A file is decoded the first time anyone
//! needs it; its verdict (good, or bad with one warning naming the file) is kept for the life of
//! the store, because a file does not change while the game runs. A good tile's samples may be
//! evicted (least recently used first) and decoded again later: the samples are a pure function
//! of the file, so what the simulation reads never depends on what the cache holds. Must not:
//! decide which tile a height comes from (the terrain does), or let a caller block on another
//! thread's load (two threads missing the same tile both decode it; the first insert wins).

use crate::cube::TileKey;
use crate::pack::{KeyMap, STATE_BAD, STATE_GOOD, STATE_UNKNOWN, TerrainIndex, TileFile};
use crate::tile::{self, MAX_TILE_FILE_BYTES};
use fl_content::AssetKind;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, RwLock};

/// Which file of a tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// `tile_<i>_<j>.png`.
    Heights,
    /// `tile_<i>_<j>_lc.png`.
    LandCover,
}

/// A decoded tile.
#[derive(Debug, Clone)]
pub enum TileData {
    /// Heights, m, row-major 129 × 129 (row = t, column = s).
    Heights(Arc<tile::Heights>),
    /// ESA WorldCover classes, row-major 129 × 129.
    LandCover(Arc<tile::Classes>),
}

impl TileData {
    /// Bytes this tile holds in the cache.
    pub fn bytes(&self) -> usize {
        match self {
            TileData::Heights(h) => h.len() * 2,
            TileData::LandCover(c) => c.len(),
        }
    }
}

#[derive(Debug)]
struct Slot {
    data: TileData,
    stamp: AtomicU64,
}

#[derive(Debug, Default)]
struct Inner {
    map: KeyMap<(Layer, u64), Slot>,
    bytes: usize,
}

/// Cache statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Tiles held.
    pub tiles: usize,
    /// Bytes held.
    pub bytes: usize,
    /// The bound.
    pub budget: usize,
    /// Tiles decoded since the store was made.
    pub decodes: u64,
    /// Tiles evicted since the store was made.
    pub evictions: u64,
}

/// Stores made so far: each gets its own id, so a thread's recent tiles never answer for
/// another store's files.
static STORE_IDS: AtomicU64 = AtomicU64::new(1);

/// Tiles a thread keeps, per thread (direct-mapped by key): 16, so a 4 × 4 block of
/// neighbouring tiles of one level (a flight area: 40 km at level 10) never evicts itself.
const RECENT: usize = 16;

/// The slot of a tile among a thread's recent tiles: the tile's (i mod 4, j mod 4) within its
/// level, turned by a constant per face, level and layer. Neighbouring tiles of one level thus
/// always take different slots (a hash of the whole key put 12 tiles around an airfield into 6
/// slots, and 40 % of warm reads missed).
#[inline]
fn recent_slot(k: (Layer, u64)) -> usize {
    let (i, j) = ((k.1 >> 28) & 3, k.1 & 3);
    let turn = (k.1 >> 56) ^ (k.1 >> 59) ^ ((k.0 as u64) << 3);
    ((i << 2 | j) ^ turn) as usize % RECENT
}

/// A recent tile: (store id, layer and key, samples, whether the tile lies deeper inside a
/// theater than the blend margin — [`TileFile::interior`] — and its neighbours' verdicts —
/// [`TileFile::neighbours`] — kept so a hit needs no index lookup).
type Recent = (u64, (Layer, u64), Option<TileData>, bool, u16);

type RecentTiles = [Recent; RECENT];

/// An empty recent-tile slot (store ids start at 1, so it matches no store).
const NO_TILE: Recent = (0, (Layer::Heights, 0), None, false, 0);

thread_local! {
    /// A thread's recent tiles: the simulation and the renderer ask for nearby points over
    /// and over, and this answers them without the index, the cache's lock or a reference
    /// count. It holds at most 16 tiles (≈ 0.5 MB) per thread beyond the cache's bound; what it
    /// holds equals what the cache would decode, so it changes no value.
    static RECENT_TILES: std::cell::RefCell<RecentTiles> =
        const { std::cell::RefCell::new([NO_TILE; RECENT]) };
}

/// The tile store: the index, the verdicts and the byte-bounded cache.
pub struct TileStore {
    id: u64,
    index: TerrainIndex,
    inner: RwLock<Inner>,
    clock: AtomicU64,
    budget: usize,
    decodes: AtomicU64,
    evictions: AtomicU64,
    bad: std::sync::Mutex<Vec<String>>,
}

impl std::fmt::Debug for TileStore {
    // A summary (the index and the cache hold thousands of entries).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TileStore")
            .field("id", &self.id)
            .field("tiles", &self.index.heights.len())
            .field("cache", &self.stats())
            .finish_non_exhaustive()
    }
}

impl TileStore {
    /// A store over `index` whose cache holds at most `budget_bytes` of samples (at least one
    /// tile is always kept, whatever the bound).
    pub fn new(index: TerrainIndex, budget_bytes: usize) -> Self {
        Self {
            id: STORE_IDS.fetch_add(1, Ordering::Relaxed),
            index,
            inner: RwLock::new(Inner::default()),
            clock: AtomicU64::new(0),
            budget: budget_bytes,
            decodes: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
            bad: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The index.
    pub fn index(&self) -> &TerrainIndex {
        &self.index
    }

    pub(crate) fn file(&self, layer: Layer, key: TileKey) -> Option<&TileFile> {
        match layer {
            Layer::Heights => self.index.heights.get(&key.packed()),
            Layer::LandCover => self.index.cover.get(&key.packed()),
        }
    }

    /// The cached tile, without loading (never blocks on a disk; `None` when absent).
    pub fn cached(&self, layer: Layer, key: TileKey) -> Option<TileData> {
        self.with_cached(layer, key, TileData::clone)
    }

    /// Applies `f` to a cached tile under the cache's read lock (no reference count touched).
    /// A hit marks the tile used now (the clock only advances on inserts, so a hit is at most
    /// one relaxed store; tiles of equal age are evicted in key order).
    fn with_cached<R>(
        &self,
        layer: Layer,
        key: TileKey,
        f: impl FnOnce(&TileData) -> R,
    ) -> Option<R> {
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        let slot = inner.map.get(&(layer, key.packed()))?;
        let now = self.clock.load(Ordering::Relaxed);
        if slot.stamp.load(Ordering::Relaxed) != now {
            slot.stamp.store(now, Ordering::Relaxed);
        }
        Some(f(&slot.data))
    }

    /// Applies `f` to the tile, loading it synchronously on a miss; `None` when absent or bad.
    pub fn with_tile<R>(
        &self,
        layer: Layer,
        key: TileKey,
        f: impl FnOnce(&TileData) -> R,
    ) -> Option<R> {
        let file = self.file(layer, key)?;
        self.with_file_tile(layer, key, file, f)
    }

    /// [`TileStore::with_tile`] for a file already looked up (saves the index lookup).
    pub(crate) fn with_file_tile<R>(
        &self,
        layer: Layer,
        key: TileKey,
        file: &TileFile,
        f: impl FnOnce(&TileData) -> R,
    ) -> Option<R> {
        let k = (layer, key.packed());
        // The thread's recent tiles first, applied in place (no reference count touched).
        let mut f = Some(f);
        let hit = self.with_recent(layer, key, |d, _, _| f.take().map(|f| f(d)));
        if let Some(hit) = hit {
            return hit;
        }
        if file.state() == STATE_BAD {
            return None;
        }
        let d = match self.cached(layer, key) {
            Some(d) => d,
            None => self.load(layer, key)?,
        };
        RECENT_TILES.with(|r| {
            r.borrow_mut()[recent_slot(k)] = (
                self.id,
                k,
                Some(d.clone()),
                file.interior,
                file.neighbours.load(Ordering::Acquire),
            );
        });
        f.take().map(|f| f(&d))
    }

    /// Applies `f` to the tile, its [`TileFile::interior`] flag and its
    /// [`TileFile::neighbours`] as last seen (0 or without bit 15: not known yet) when it is
    /// among this thread's recent tiles; `None` otherwise. A hit means the index has the file
    /// and it decoded (only such tiles are kept), so the caller needs no index lookup.
    #[inline]
    pub(crate) fn with_recent<R>(
        &self,
        layer: Layer,
        key: TileKey,
        f: impl FnOnce(&TileData, bool, u16) -> R,
    ) -> Option<R> {
        let k = (layer, key.packed());
        RECENT_TILES.with(|r| {
            let r = r.borrow();
            let (id, kk, d, interior, neighbours) = &r[recent_slot(k)];
            if *id == self.id && *kk == k {
                d.as_ref().map(|d| f(d, *interior, *neighbours))
            } else {
                None
            }
        })
    }

    /// [`TileStore::with_recent`] for a height tile, applied to its samples: the warm path's
    /// one look (no index, no lock, no reference count).
    #[inline]
    pub(crate) fn with_recent_heights<R>(
        &self,
        key: TileKey,
        f: impl FnOnce(&tile::Heights, bool, u16) -> R,
    ) -> Option<R> {
        // The thread-local's `with` holds only the call, so it inlines here (its accessor is
        // then called directly, not through the key's function pointer).
        RECENT_TILES.with(|r| self.recent_heights_in(r, key, f))
    }

    /// [`TileStore::with_recent_heights`]'s look into the thread's recent tiles.
    #[inline(never)]
    fn recent_heights_in<R>(
        &self,
        r: &std::cell::RefCell<RecentTiles>,
        key: TileKey,
        f: impl FnOnce(&tile::Heights, bool, u16) -> R,
    ) -> Option<R> {
        let k = (Layer::Heights, key.packed());
        let r = r.borrow();
        match &r[recent_slot(k)] {
            (id, kk, Some(TileData::Heights(h)), interior, neighbours)
                if *id == self.id && *kk == k =>
            {
                Some(f(h, *interior, *neighbours))
            }
            _ => None,
        }
    }

    /// Records a tile's [`TileFile::neighbours`] in this thread's recent tiles (when it is
    /// there), once the terrain has learnt them.
    pub(crate) fn note_recent_neighbours(&self, layer: Layer, key: TileKey, neighbours: u16) {
        let k = (layer, key.packed());
        RECENT_TILES.with(|r| {
            let mut r = r.borrow_mut();
            let slot = &mut r[recent_slot(k)];
            if slot.0 == self.id && slot.1 == k {
                slot.4 = neighbours;
            }
        });
    }

    /// Whether the tile exists and decodes. Decodes it once to find out (then remembers).
    pub fn usable(&self, layer: Layer, key: TileKey) -> bool {
        match self.file(layer, key).map(TileFile::state) {
            None => false,
            Some(STATE_GOOD) => true,
            Some(STATE_BAD) => false,
            Some(_) => self.load(layer, key).is_some(),
        }
    }

    /// The tile, loading it synchronously on a miss (the simulation's path). `None` when the
    /// index has no such file or the file is bad.
    pub fn load(&self, layer: Layer, key: TileKey) -> Option<TileData> {
        let file = self.file(layer, key)?;
        if file.state() == STATE_BAD {
            return None;
        }
        if let Some(d) = self.cached(layer, key) {
            return Some(d);
        }
        match self.decode(layer, file) {
            Ok(data) => {
                file.state.store(STATE_GOOD, Ordering::Release);
                self.insert(layer, key, data.clone());
                Some(data)
            }
            Err(why) => {
                // One warning per file, whichever thread gets here first.
                if file
                    .state
                    .compare_exchange(
                        STATE_UNKNOWN,
                        STATE_BAD,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    )
                    .is_ok()
                {
                    let pack = &self.index.packs[file.pack].id;
                    let msg = format!(
                        "{pack}/{}: terrain tile skipped ({why}); the coarser level is used",
                        file.rel
                    );
                    tracing::warn!("{msg}");
                    self.bad.lock().unwrap_or_else(|e| e.into_inner()).push(msg);
                }
                file.state.store(STATE_BAD, Ordering::Release);
                None
            }
        }
    }

    fn decode(&self, layer: Layer, file: &TileFile) -> Result<TileData, String> {
        self.decodes.fetch_add(1, Ordering::Relaxed);
        let root = &self.index.packs[file.pack].root;
        let path = root
            .resolve(&file.rel)
            .map_err(|e| e.to_string())?
            .ok_or("the file is gone")?;
        let limit = AssetKind::Terrain.default_limit().min(MAX_TILE_FILE_BYTES);
        let bytes = root
            .read(&path, AssetKind::Terrain, limit)
            .map_err(|e| e.to_string())?;
        match layer {
            Layer::Heights => tile::decode_heights(&bytes)
                .map(|h| TileData::Heights(Arc::new(h)))
                .map_err(|e| format!("it {e}")),
            Layer::LandCover => tile::decode_land_cover(&bytes)
                .map(|c| TileData::LandCover(Arc::new(c)))
                .map_err(|e| format!("it {e}")),
        }
    }

    fn insert(&self, layer: Layer, key: TileKey, data: TileData) {
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        let k = (layer, key.packed());
        if inner.map.contains_key(&k) {
            return;
        }
        inner.bytes += data.bytes();
        inner.map.insert(
            k,
            Slot {
                data,
                stamp: AtomicU64::new(self.clock.fetch_add(1, Ordering::Relaxed) + 1),
            },
        );
        while inner.bytes > self.budget && inner.map.len() > 1 {
            let Some(victim) = inner
                .map
                .iter()
                .filter(|(kk, _)| **kk != k)
                .min_by_key(|(kk, s)| (s.stamp.load(Ordering::Relaxed), **kk))
                .map(|(kk, _)| *kk)
            else {
                break;
            };
            if let Some(s) = inner.map.remove(&victim) {
                inner.bytes -= s.data.bytes();
                self.evictions.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The warnings about bad tile files found so far (one per file, in the order found).
    pub fn bad_tiles(&self) -> Vec<String> {
        self.bad.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Cache statistics.
    pub fn stats(&self) -> CacheStats {
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        CacheStats {
            tiles: inner.map.len(),
            bytes: inner.bytes,
            budget: self.budget,
            decodes: self.decodes.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
        }
    }
}

/// A finished background load.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// Which file.
    pub layer: Layer,
    /// Which tile.
    pub key: TileKey,
    /// The samples (`None`: no such tile, or the file is bad — the coarser level stands in).
    pub data: Option<TileData>,
}

/// Background loading for a thread that must never wait (the renderer): [`TileLoader::request`]
/// queues a tile, a loader thread decodes it into the shared cache, [`TileLoader::poll`] returns
/// what finished. Dropping the loader stops its thread.
#[derive(Debug)]
pub struct TileLoader {
    tx: Option<mpsc::Sender<(Layer, TileKey)>>,
    rx: mpsc::Receiver<Loaded>,
    pending: BTreeSet<(Layer, TileKey)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TileLoader {
    /// A loader thread over `store`.
    pub fn new(store: Arc<TileStore>) -> std::io::Result<Self> {
        let (tx, req_rx) = mpsc::channel::<(Layer, TileKey)>();
        let (done_tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("fl-terrain-loader".into())
            .spawn(move || {
                while let Ok((layer, key)) = req_rx.recv() {
                    let data = store.load(layer, key);
                    if done_tx.send(Loaded { layer, key, data }).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Self {
            tx: Some(tx),
            rx,
            pending: BTreeSet::new(),
            thread: Some(thread),
        })
    }

    /// Queues a tile (a tile already queued is not queued twice). Never blocks.
    pub fn request(&mut self, layer: Layer, key: TileKey) {
        if self.pending.insert((layer, key))
            && let Some(tx) = &self.tx
            && tx.send((layer, key)).is_err()
        {
            self.pending.remove(&(layer, key));
        }
    }

    /// Tiles requested and not yet returned by [`TileLoader::poll`].
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The loads finished since the last call. Never blocks.
    pub fn poll(&mut self) -> Vec<Loaded> {
        let mut out = Vec::new();
        while let Ok(l) = self.rx.try_recv() {
            self.pending.remove(&(l.layer, l.key));
            out.push(l);
        }
        out
    }
}

impl Drop for TileLoader {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            // The thread finishes the decode in hand (milliseconds) and sees the closed channel.
            let _ = t.join();
        }
    }
}

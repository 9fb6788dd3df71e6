//! The renderer's side: tiles requested from a loader thread arrive without the caller ever
//! blocking, land in the shared cache, and the cache stays within its byte bound.

mod support;

use fl_terrain::{Layer, Terrain, TerrainConfig, TileKey, TileLoader};
use std::time::{Duration, Instant};
use support::{content, height_png, write_manifest, write_theater, write_tile};

#[test]
fn background_loads_arrive_in_the_cache_and_bad_or_absent_tiles_say_so() {
    let dir = tempfile::tempdir().expect("tmp");
    write_manifest(dir.path(), "bg", "1.0", 10);
    write_theater(dir.path(), "all", -60.0, -179.0, 60.0, 179.0);
    let keys: Vec<TileKey> = (0..6u32)
        .map(|i| TileKey::new(4, 3, i, 3).expect("key"))
        .collect();
    for (n, k) in keys.iter().enumerate() {
        write_tile(
            dir.path(),
            4,
            3,
            &format!("tile_{}_{}", k.i, k.j),
            &height_png(|r, _| r as i32 + n as i32),
        );
    }
    write_tile(dir.path(), 4, 3, "tile_7_3", b"broken");
    let t = Terrain::from_content(
        &content(&[dir.path().to_path_buf()]),
        TerrainConfig {
            cache_bytes: 4 * 129 * 129 * 2,
            ..TerrainConfig::default()
        },
    );
    assert_eq!(t.index().levels(4), vec![3]);
    assert!(t.index().has_height_tile(keys[0]));
    let mut loader = TileLoader::new(t.store().clone()).expect("thread");
    for k in &keys {
        assert!(t.store().cached(Layer::Heights, *k).is_none());
        loader.request(Layer::Heights, *k);
        loader.request(Layer::Heights, *k); // once only
    }
    let bad = TileKey::new(4, 3, 7, 3).expect("key");
    let absent = TileKey::new(4, 3, 6, 3).expect("key");
    loader.request(Layer::Heights, bad);
    loader.request(Layer::Heights, absent);
    assert!(loader.pending() == 8);
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while got.len() < 8 && Instant::now() < deadline {
        got.extend(loader.poll());
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(got.len(), 8, "every request answered once");
    assert_eq!(loader.pending(), 0);
    for l in &got {
        let ok = l.data.is_some();
        assert_eq!(ok, keys.contains(&l.key), "{:?}", l.key);
    }
    // The cache holds at most its bound: 4 tiles of the 6.
    let s = t.store().stats();
    assert!(s.bytes <= 4 * 129 * 129 * 2 && s.tiles == 4, "{s:?}");
    assert_eq!(s.evictions, 2);
    // The most recent are cached; a non-blocking lookup finds one.
    let cached = keys
        .iter()
        .filter(|k| t.store().cached(Layer::Heights, **k).is_some())
        .count();
    assert_eq!(cached, 4);
    assert_eq!(t.store().bad_tiles().len(), 1);
    drop(loader); // stops its thread
}

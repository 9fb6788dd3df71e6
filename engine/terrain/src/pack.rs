//! What the content stack holds for terrain: the theaters' bounds and the index of tile files.
//!
//! Owns the scan of every pack in stack order (highest priority first): `theaters/*.toml`
//! (`[theater] bounds = { min_lat, min_lon, max_lat, max_lon }`, `terrain = "world"`), then
//! `terrain/world/f<face>/l<level>/*.png`, each name read as a tile key. The first pack that has a
//! tile's file provides it (as for every other asset). Unreadable names, keys out of range for
//! their level and unreadable theater files are warnings naming the file; tiles lying wholly
//! outside every theater's bounds are ignored with one warning per pack (a count). Also owns the
//! terrain digest of a pack (see [`PackTerrain::digest`]). Must not: decode tiles (the store
//! does) or let directory order reach any result.

use crate::cube::{self, MAX_LEVEL, TileKey};
use crate::tile::{MAX_TILE_FILE_BYTES, parse_tile_stem};
use fl_content::{AssetKind, PackInfo, PackRoot};
use ring::digest;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU8, AtomicU16, Ordering};

/// The terrain id the planet's tiles live under (`terrain/world/...`).
pub const WORLD_TERRAIN_ID: &str = "world";
/// Most files read from one level directory of one face (a 512 × 512-tile theater level).
pub const MAX_LEVEL_DIR_ENTRIES: usize = 1 << 19;
/// Most theater files read per pack.
const MAX_THEATERS: usize = 256;
/// Largest theater file read.
const MAX_THEATER_BYTES: u64 = 64 * 1024;

/// A theater's geographic bounds, degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// Southern edge.
    pub min_lat: f64,
    /// Western edge.
    pub min_lon: f64,
    /// Northern edge.
    pub max_lat: f64,
    /// Eastern edge.
    pub max_lon: f64,
}

impl Bounds {
    /// Distance (m, on a sphere of `radius_m`) from (lat, lon) to the nearest edge, positive
    /// inside, negative outside (the outside value is only a sign, not a true distance).
    pub fn inside_m(&self, lat: f64, lon: f64, radius_m: f64) -> f64 {
        let per_deg = radius_m * core::f64::consts::PI / 180.0;
        let ns = (lat - self.min_lat).min(self.max_lat - lat) * per_deg;
        let dl = (lon - self.min_lon).min(self.max_lon - lon);
        let ew = dl * per_deg * libm::cos(lat.to_radians()).max(0.0);
        if dl < 0.0 {
            return dl.min(ns);
        }
        ns.min(ew)
    }

    fn intersects(&self, lat: (f64, f64), lon: (f64, f64)) -> bool {
        if lat.1 < self.min_lat || lat.0 > self.max_lat {
            return false;
        }
        [-360.0, 0.0, 360.0]
            .iter()
            .any(|sh| lon.1 + sh >= self.min_lon && lon.0 + sh <= self.max_lon)
    }
}

/// A theater read from a pack.
#[derive(Debug, Clone, PartialEq)]
pub struct Theater {
    /// The pack that declares it.
    pub pack: String,
    /// `[theater] id` (the file's name when absent).
    pub id: String,
    /// Its bounds.
    pub bounds: Bounds,
}

/// A pack that takes part in the terrain.
#[derive(Debug)]
pub struct PackTerrain {
    /// Pack id.
    pub id: String,
    /// Pack version.
    pub version: String,
    /// Stack priority.
    pub priority: i32,
    pub(crate) root: PackRoot,
    /// Pack-relative files the digest covers (theaters, then terrain tiles), sorted.
    pub(crate) files: Vec<String>,
    /// Height tiles this pack provides to the terrain (after overrides and theater bounds).
    pub tiles_used: usize,
    /// Tiles ignored because they lie outside every theater.
    pub tiles_outside: usize,
}

impl PackTerrain {
    /// Whether this pack ships any terrain file or theater (so a client must have the same).
    pub fn has_terrain(&self) -> bool {
        !self.files.is_empty()
    }

    /// SHA-256 over what this pack gives the terrain: a format tag, its priority, and for every
    /// theater file and terrain tile file (sorted by pack-relative path) the path, the length and
    /// the bytes ([`empty_digest`] for a pack with none). Reads every file (≈ 40 MB for the fixture pack): call once, off the tick.
    pub fn digest(&self) -> [u8; 32] {
        if self.files.is_empty() {
            return empty_digest();
        }
        let mut ctx = digest::Context::new(&digest::SHA256);
        ctx.update(DIGEST_TAG);
        ctx.update(&self.priority.to_le_bytes());
        for rel in &self.files {
            ctx.update(rel.as_bytes());
            ctx.update(b"\0");
            let kind = if rel.starts_with("theaters/") {
                AssetKind::Config
            } else {
                AssetKind::Terrain
            };
            let bytes = match self.root.resolve(rel) {
                Ok(Some(path)) => {
                    self.root
                        .read(&path, kind, MAX_TILE_FILE_BYTES.max(MAX_THEATER_BYTES))
                }
                Ok(None) => Ok(Vec::new()),
                Err(e) => Err(e),
            };
            match bytes {
                Ok(b) => {
                    ctx.update(&(b.len() as u64).to_le_bytes());
                    ctx.update(&b);
                }
                // An unreadable file is part of what the pack is; both sides see the same error.
                Err(e) => {
                    ctx.update(&u64::MAX.to_le_bytes());
                    ctx.update(e.to_string().as_bytes());
                }
            }
        }
        let d = ctx.finish();
        let mut out = [0u8; 32];
        out.copy_from_slice(d.as_ref());
        out
    }
}

const DIGEST_TAG: &[u8] = b"fl-terrain digest v1\0";

/// The digest of a pack with no theater and no terrain file (whatever its priority): such a
/// pack changes nothing on the ground.
pub fn empty_digest() -> [u8; 32] {
    let d = digest::digest(&digest::SHA256, DIGEST_TAG);
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    out
}

/// A multiply-rotate hasher for the tile maps' integer keys (SipHash costs more than the rest
/// of a height lookup; the keys are not attacker-chosen in a way that matters: a pack can only
/// slow its own lookups).
#[derive(Debug, Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_u8(&mut self, w: u8) {
        self.write_u64(u64::from(w));
    }
    fn write_isize(&mut self, w: isize) {
        self.write_u64(w as u64);
    }
}

/// A map keyed by packed tile keys.
pub type KeyMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// One tile file of the index.
#[derive(Debug)]
pub(crate) struct TileFile {
    /// Index into [`TerrainIndex::packs`].
    pub(crate) pack: usize,
    /// Pack-relative path.
    pub(crate) rel: String,
    /// [`STATE_UNKNOWN`], [`STATE_GOOD`] or [`STATE_BAD`]: decided by the first decode, for
    /// good (the file does not change while running).
    pub(crate) state: AtomicU8,
    /// The tile lies deeper inside a theater than the blend margin (its heights need no
    /// theater weight).
    pub(crate) interior: bool,
    /// Which of the 8 neighbours at this level are usable (bit 15: known), learnt once.
    pub(crate) neighbours: AtomicU16,
}

pub(crate) const STATE_UNKNOWN: u8 = 0;
pub(crate) const STATE_GOOD: u8 = 1;
pub(crate) const STATE_BAD: u8 = 2;

impl TileFile {
    pub(crate) fn state(&self) -> u8 {
        self.state.load(Ordering::Acquire)
    }
}

/// The terrain files of a content stack.
#[derive(Debug, Default)]
pub struct TerrainIndex {
    /// Packs in stack order.
    pub packs: Vec<PackTerrain>,
    /// Every theater of the world terrain, in stack order then file-name order.
    pub theaters: Vec<Theater>,
    pub(crate) heights: KeyMap<u64, TileFile>,
    pub(crate) cover: KeyMap<u64, TileFile>,
    /// Per face, bit L set when some height tile of level L exists.
    pub(crate) height_levels: [u32; 6],
    /// Per face, bit L set when some land-cover tile of level L exists.
    pub(crate) cover_levels: [u32; 6],
    /// Per face and level (where its `height_levels` bit is set), the tiles' index range
    /// (i min, i max, j min, j max): a key outside it has no height file, with no map lookup.
    pub(crate) height_extent: [[[u32; 4]; MAX_LEVEL as usize + 1]; 6],
    /// Warnings found while scanning (also logged).
    pub warnings: Vec<String>,
}

fn warn(list: &mut Vec<String>, msg: String) {
    tracing::warn!("{msg}");
    list.push(msg);
}

fn parse_theater(text: &str, file: &str) -> Result<(Option<String>, String, Bounds), String> {
    let doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| e.message().to_owned())?;
    let th = doc
        .get("theater")
        .and_then(|v| v.as_table())
        .ok_or("no [theater] table")?;
    let id = th.get("id").and_then(|v| v.as_str()).map(str::to_owned);
    let terrain = match th.get("terrain") {
        None => WORLD_TERRAIN_ID.to_owned(),
        Some(v) => v.as_str().ok_or("`terrain` is not a string")?.to_owned(),
    };
    let b = th
        .get("bounds")
        .and_then(|v| v.as_table())
        .ok_or("`bounds` is missing or not a table")?;
    let num = |k: &str| -> Result<f64, String> {
        let v = b.get(k).ok_or(format!("`bounds.{k}` is missing"))?;
        let x = v
            .as_float()
            .or_else(|| v.as_integer().map(|i| i as f64))
            .ok_or(format!("`bounds.{k}` is not a number"))?;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(format!("`bounds.{k}` is not finite"))
        }
    };
    let bounds = Bounds {
        min_lat: num("min_lat")?,
        min_lon: num("min_lon")?,
        max_lat: num("max_lat")?,
        max_lon: num("max_lon")?,
    };
    if !(-90.0..=90.0).contains(&bounds.min_lat)
        || !(-90.0..=90.0).contains(&bounds.max_lat)
        || bounds.min_lat >= bounds.max_lat
    {
        return Err(format!(
            "{file}: latitudes must satisfy -90 <= min_lat < max_lat <= 90"
        ));
    }
    if !(-180.0..=180.0).contains(&bounds.min_lon)
        || !(-180.0..=180.0).contains(&bounds.max_lon)
        || bounds.min_lon >= bounds.max_lon
    {
        return Err("longitudes must satisfy -180 <= min_lon < max_lon <= 180".to_owned());
    }
    Ok((id, terrain, bounds))
}

/// Conservative (lat, lon) ranges of a tile: a 9 × 9 sample of its lattice padded by one sample
/// step; longitudes relative to the tile's centre so a tile on the antimeridian has a narrow
/// range, and a tile holding a pole spans every longitude.
fn tile_ranges(key: TileKey) -> ((f64, f64), (f64, f64)) {
    let at = |s: f64, t: f64| {
        let (u, v) = key.face_uv(s, t);
        cube::dir_to_latlon(cube::face_uv_to_dir(key.face, u, v))
    };
    let (_, lon_c) = at(0.5, 0.5);
    let (mut lat_lo, mut lat_hi, mut dl_lo, mut dl_hi) = (90.0f64, -90.0f64, 180.0f64, -180.0f64);
    for a in 0..=8 {
        for b in 0..=8 {
            let (lat, lon) = at(f64::from(a) / 8.0, f64::from(b) / 8.0);
            let dl = (lon - lon_c + 540.0).rem_euclid(360.0) - 180.0;
            lat_lo = lat_lo.min(lat);
            lat_hi = lat_hi.max(lat);
            dl_lo = dl_lo.min(dl);
            dl_hi = dl_hi.max(dl);
        }
    }
    let lat_pad = (lat_hi - lat_lo) / 8.0;
    let lon_pad = (dl_hi - dl_lo) / 8.0;
    let has_pole = [1.0, -1.0].iter().any(|y| {
        let p = cube::dir_to_face_uv(fl_flight::math::Vec3::new(0.0, *y, 0.0));
        p.face == key.face && TileKey::at(p.face, key.level, p.u, p.v) == key
    });
    let lat = (lat_lo - lat_pad, lat_hi + lat_pad);
    if has_pole || dl_hi - dl_lo > 180.0 {
        return (lat, (-180.0, 180.0));
    }
    (lat, (lon_c + dl_lo - lon_pad, lon_c + dl_hi + lon_pad))
}

/// Whether a tile's padded ranges lie deeper than `margin_m` (plus 10 %) inside `b`.
fn interior(b: &Bounds, lat: (f64, f64), lon: (f64, f64), margin_m: f64) -> bool {
    let per_deg = fl_flight::gravity::EARTH_RADIUS_M * core::f64::consts::PI / 180.0;
    let m_lat = 1.1 * margin_m.max(0.0) / per_deg;
    let coslat = libm::cos(lat.0.abs().max(lat.1.abs()).min(89.0).to_radians());
    let m_lon = 1.1 * margin_m.max(0.0) / (per_deg * coslat);
    lat.0 >= b.min_lat + m_lat
        && lat.1 <= b.max_lat - m_lat
        && lon.0 >= b.min_lon + m_lon
        && lon.1 <= b.max_lon - m_lon
}

impl TerrainIndex {
    /// Scans the packs (in stack order, as [`fl_content::Content::packs`] gives them);
    /// `margin_m` is the terrain's theater blend margin (tiles deeper inside are marked).
    pub fn scan(packs: &[PackInfo], margin_m: f64) -> Self {
        let mut ix = TerrainIndex::default();
        let mut roots = Vec::new();
        for p in packs {
            match PackRoot::new(&p.root) {
                Ok(r) => roots.push((p, r)),
                Err(e) => warn(
                    &mut ix.warnings,
                    format!("pack {}: terrain not read: {e}", p.id),
                ),
            }
        }
        // Theaters first: the tiles are filtered by the union of every pack's bounds.
        let mut theater_files: Vec<Vec<String>> = Vec::new();
        for (p, root) in &roots {
            let mut files = Vec::new();
            match root.list("theaters", "toml") {
                Ok(l) => {
                    for r in &l.refused {
                        warn(
                            &mut ix.warnings,
                            format!("{}: {r}: not a valid file name; ignored", p.id),
                        );
                    }
                    for (n, (stem, rel)) in l.files.iter().enumerate() {
                        if n >= MAX_THEATERS {
                            warn(
                                &mut ix.warnings,
                                format!(
                                    "{}: more than {MAX_THEATERS} theaters; the rest are ignored",
                                    p.id
                                ),
                            );
                            break;
                        }
                        files.push(rel.clone());
                        let read = root.read_text(rel, AssetKind::Config, MAX_THEATER_BYTES);
                        let parsed = read
                            .map_err(|e| e.to_string())
                            .and_then(|(_, text)| parse_theater(&text, rel));
                        match parsed {
                            Ok((id, terrain, bounds)) if terrain == WORLD_TERRAIN_ID => {
                                ix.theaters.push(Theater {
                                    pack: p.id.clone(),
                                    id: id.unwrap_or_else(|| stem.clone()),
                                    bounds,
                                });
                            }
                            Ok((_, terrain, _)) => warn(
                                &mut ix.warnings,
                                format!(
                                    "{}/{rel}: terrain \"{terrain}\" is not the world terrain (\"{WORLD_TERRAIN_ID}\"); this theater gives no terrain",
                                    p.id
                                ),
                            ),
                            Err(e) => warn(
                                &mut ix.warnings,
                                format!("{}/{rel}: theater ignored: {e}", p.id),
                            ),
                        }
                    }
                }
                Err(e) => warn(
                    &mut ix.warnings,
                    format!("{}: theaters not read: {e}", p.id),
                ),
            }
            theater_files.push(files);
        }
        for ((p, root), theaters) in roots.into_iter().zip(theater_files) {
            let pack_index = ix.packs.len();
            let mut files = theaters;
            let (mut used, mut outside) = (0usize, 0usize);
            for face in 0..6u8 {
                for level in 0..=MAX_LEVEL {
                    let dir = format!("terrain/{WORLD_TERRAIN_ID}/f{face}/l{level}");
                    let listing = match root.list_at_most(&dir, "png", MAX_LEVEL_DIR_ENTRIES) {
                        Ok(l) => l,
                        Err(e) => {
                            warn(&mut ix.warnings, format!("{}: {dir}: not read: {e}", p.id));
                            continue;
                        }
                    };
                    for r in &listing.refused {
                        warn(
                            &mut ix.warnings,
                            format!("{}/{r}: not a valid tile file name; ignored", p.id),
                        );
                    }
                    for (stem, rel) in listing.files {
                        files.push(rel.clone());
                        let Some((i, j, lc)) = parse_tile_stem(&stem) else {
                            warn(
                                &mut ix.warnings,
                                format!(
                                    "{}/{rel}: not a tile name (tile_<i>_<j>[_lc].png); ignored",
                                    p.id
                                ),
                            );
                            continue;
                        };
                        let Some(key) = TileKey::new(face, level, i, j) else {
                            warn(
                                &mut ix.warnings,
                                format!(
                                    "{}/{rel}: tile ({i}, {j}) does not exist at level {level} (indices must be below {}); ignored",
                                    p.id,
                                    1u64 << level
                                ),
                            );
                            continue;
                        };
                        let map = if lc { &mut ix.cover } else { &mut ix.heights };
                        if map.contains_key(&key.packed()) {
                            // A higher-priority pack provides this tile.
                            continue;
                        }
                        let (lat, lon) = tile_ranges(key);
                        if !ix.theaters.iter().any(|t| t.bounds.intersects(lat, lon)) {
                            if !lc {
                                outside += 1;
                            }
                            continue;
                        }
                        let interior = ix
                            .theaters
                            .iter()
                            .any(|t| interior(&t.bounds, lat, lon, margin_m));
                        map.insert(
                            key.packed(),
                            TileFile {
                                pack: pack_index,
                                rel,
                                state: AtomicU8::new(STATE_UNKNOWN),
                                interior,
                                neighbours: AtomicU16::new(0),
                            },
                        );
                        if !lc {
                            let e = &mut ix.height_extent[usize::from(face)][usize::from(level)];
                            *e = if ix.height_levels[usize::from(face)] & (1 << level) == 0 {
                                [i, i, j, j]
                            } else {
                                [e[0].min(i), e[1].max(i), e[2].min(j), e[3].max(j)]
                            };
                        }
                        let levels = if lc {
                            &mut ix.cover_levels
                        } else {
                            &mut ix.height_levels
                        };
                        levels[usize::from(face)] |= 1 << level;
                        if !lc {
                            used += 1;
                        }
                    }
                }
            }
            if outside > 0 {
                warn(
                    &mut ix.warnings,
                    format!(
                        "{}: {outside} terrain tile(s) lie outside every theater's bounds (theaters/*.toml) and are ignored",
                        p.id
                    ),
                );
            }
            files.sort();
            ix.packs.push(PackTerrain {
                id: p.id.clone(),
                version: p.version.clone(),
                priority: p.priority,
                root,
                files,
                tiles_used: used,
                tiles_outside: outside,
            });
        }
        ix
    }

    /// Whether `key` lies within the index range of its face and level's height tiles (a
    /// cheap test: `false` means no height file; `true` means there may be one).
    #[inline]
    pub(crate) fn may_have_height(&self, key: TileKey) -> bool {
        let (f, l) = (usize::from(key.face), usize::from(key.level));
        if f >= 6 || l > usize::from(MAX_LEVEL) || self.height_levels[f] & (1 << l) == 0 {
            return false;
        }
        let e = self.height_extent[f][l];
        (e[0]..=e[1]).contains(&key.i) && (e[2]..=e[3]).contains(&key.j)
    }

    /// Whether a height tile file for `key` is in the index (it may still turn out unreadable).
    pub fn has_height_tile(&self, key: TileKey) -> bool {
        self.heights.contains_key(&key.packed())
    }

    /// Whether a land-cover tile file for `key` is in the index.
    pub fn has_cover_tile(&self, key: TileKey) -> bool {
        self.cover.contains_key(&key.packed())
    }

    /// Levels with height tiles on `face`, finest first.
    pub fn levels(&self, face: u8) -> Vec<u8> {
        let bits = self
            .height_levels
            .get(usize::from(face))
            .copied()
            .unwrap_or(0);
        (0..=MAX_LEVEL)
            .rev()
            .filter(|l| bits & (1 << l) != 0)
            .collect()
    }

    /// Every height tile key in the index, sorted (face, level, i, j).
    pub fn height_tiles(&self) -> Vec<TileKey> {
        let mut v: Vec<TileKey> = self.heights.keys().map(|k| unpack(*k)).collect();
        v.sort();
        v
    }

    /// The pack-relative file and pack id of a tile (heights or land cover).
    pub fn file_of(&self, key: TileKey, land_cover: bool) -> Option<(&str, &str)> {
        let map = if land_cover {
            &self.cover
        } else {
            &self.heights
        };
        let f = map.get(&key.packed())?;
        Some((self.packs[f.pack].id.as_str(), f.rel.as_str()))
    }

    /// No tile and no theater: the base alone.
    pub fn is_empty(&self) -> bool {
        self.heights.is_empty() && self.cover.is_empty()
    }
}

/// The inverse of [`TileKey::packed`].
pub(crate) fn unpack(k: u64) -> TileKey {
    TileKey {
        face: (k >> 61) as u8,
        level: ((k >> 56) & 0x1f) as u8,
        i: ((k >> 28) & 0x0fff_ffff) as u32,
        j: (k & 0x0fff_ffff) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_keys_round_trip() {
        for k in [
            TileKey::new(5, 24, (1 << 24) - 1, 3),
            TileKey::new(0, 0, 0, 0),
            TileKey::new(1, 10, 233, 974),
        ] {
            let k = k.expect("valid");
            assert_eq!(unpack(k.packed()), k);
        }
    }

    #[test]
    fn theater_parsing_and_bounds() {
        let ok = "[theater]\nid = \"x\"\nbounds = { min_lat = 35.0, min_lon = -117.5, max_lat = 38.5, max_lon = -113 }\nterrain = \"world\"\n";
        let (id, t, b) = parse_theater(ok, "t.toml").expect("parses");
        assert_eq!(
            (id.as_deref(), t.as_str(), b.max_lon),
            (Some("x"), "world", -113.0)
        );
        assert!(b.inside_m(36.0, -115.0, 6_371_000.0) > 100_000.0);
        assert!(b.inside_m(34.0, -115.0, 6_371_000.0) < 0.0);
        assert!(b.inside_m(36.0, 170.0, 6_371_000.0) < 0.0);
        for bad in [
            "",
            "[theater]\n",
            "[theater]\nbounds = { min_lat = 40.0, min_lon = 0, max_lat = 30, max_lon = 1 }",
            "[theater]\nbounds = { min_lat = 0, min_lon = 0, max_lat = 1 }",
            "[theater]\nbounds = { min_lat = 0, min_lon = 0, max_lat = 1, max_lon = nan }",
            "[theater]\nbounds = { min_lat = 0, min_lon = 0, max_lat = 100, max_lon = 1 }",
            "[theater]\nbounds = \"everywhere\"",
        ] {
            assert!(parse_theater(bad, "t.toml").is_err(), "{bad}");
        }
    }

    #[test]
    fn tile_ranges_handle_the_antimeridian_and_poles() {
        // A face-5 tile at the equator's antimeridian: narrow, near ±180.
        let p = cube::dir_to_face_uv(cube::latlon_to_dir(36.5, 179.9));
        let k = TileKey::at(p.face, 8, p.u, p.v);
        let (lat, lon) = tile_ranges(k);
        assert!(lat.0 < 36.5 && lat.1 > 36.5);
        assert!(lon.1 - lon.0 < 5.0, "{lon:?}");
        let nttr = Bounds {
            min_lat: 35.0,
            min_lon: -117.5,
            max_lat: 38.5,
            max_lon: -113.5,
        };
        assert!(!nttr.intersects(lat, lon));
        // The pole tile spans every longitude.
        let pole = TileKey::at(2, 4, 0.5, 0.5);
        assert_eq!(tile_ranges(pole).1, (-180.0, 180.0));
    }
}

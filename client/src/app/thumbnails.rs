//! Aircraft thumbnails for the Free Flight setup: each flyable type's pack model drawn offscreen
//! with fl-render — a 3/4 view from ahead and above, studio lights, a neutral grey background —
//! at [`THUMB_SIZE`]² (drawn at twice that and averaged down, so edges are smooth), cached in
//! the user's cache directory, and handed to egui as a texture.
//!
//! The window never waits for one: a worker thread draws them with its own [`Renderer`] on the
//! window's device (wgpu's device and queue are shared between threads), and the window takes
//! at most one finished picture per frame. The cache is keyed by the model file's SHA-256 and
//! size (and the thumbnail's version and size); an entry is trusted only when its header, its
//! dimensions and its length are exactly right, else the picture is drawn again and the entry
//! rewritten. A type without a model, or whose model cannot be read, keeps no thumbnail.
//!
//! Owns the thumbnail's camera, lights, background and cache format. Must not: block the
//! window's thread, use the window's renderer (models uploaded there would stay for the whole
//! session), or trust a cache file it has not checked.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};

use fl_content::{AssetKind, Content};
use fl_render::sun::{east_north_up, geodetic_direction};
use fl_render::{
    Camera, DirectionalLight, Frame, Gpu, Instance, LodHint, OffscreenTarget, Renderer, SkyParams,
};
use fl_scene::models::{ModelLoadError, load_family, resolve_model};
use glam::{DMat3, DQuat, DVec3, Vec3};

use crate::ui::AircraftChoice;

/// Side of a thumbnail, pixels.
pub const THUMB_SIZE: u32 = 128;
/// Drawn at this many times [`THUMB_SIZE`] per side, then averaged down.
const SUPERSAMPLE: u32 = 2;
/// The background behind the aircraft (sRGB).
pub const BACKGROUND: [u8; 3] = [58, 62, 68];
/// Bumped whenever the picture changes (camera, lights, background): old entries are ignored.
const CACHE_VERSION: u32 = 1;
/// The cache file's first bytes.
const MAGIC: &[u8; 8] = b"FLTHUMB\0";
/// Header: magic, version, width, height (little-endian u32s).
const HEADER_BYTES: usize = 8 + 3 * 4;
/// Vertical field of view of the thumbnail camera.
const FOV_DEG: f64 = 30.0;
/// Camera azimuth from straight ahead of the nose towards the right wing, and elevation.
const YAW_DEG: f64 = 40.0;
const PITCH_DEG: f64 = 28.0;
/// Share of the picture's half-width the model's bounds may reach.
const FILL: f64 = 0.92;

/// An RGBA picture, [`THUMB_SIZE`]² pixels, rows top first, opaque.
#[derive(Clone, PartialEq, Eq)]
pub struct Thumbnail {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl std::fmt::Debug for Thumbnail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The pixels are too many to print; their hash tells two pictures apart.
        let digest = ring::digest::digest(&ring::digest::SHA256, &self.rgba);
        let short: String = digest.as_ref()[..6]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        write!(
            f,
            "Thumbnail({}x{}, {} bytes, sha256 {short}…)",
            self.width,
            self.height,
            self.rgba.len()
        )
    }
}

impl Thumbnail {
    /// Share of pixels that differ from the background (0–1).
    pub fn coverage(&self) -> f64 {
        let n = self.rgba.len() / 4;
        if n == 0 {
            return 0.0;
        }
        let lit = self
            .rgba
            .chunks_exact(4)
            .filter(|p| p[..3] != BACKGROUND)
            .count();
        lit as f64 / n as f64
    }

    /// The picture as an egui image.
    pub fn to_color_image(&self) -> egui::ColorImage {
        egui::ColorImage::from_rgba_unmultiplied(
            [self.width as usize, self.height as usize],
            &self.rgba,
        )
    }
}

/// Why a type has no thumbnail.
#[derive(Debug, thiserror::Error)]
pub enum ThumbnailError {
    #[error(transparent)]
    Model(#[from] ModelLoadError),
    #[error("type {0} has no model of its own (drawn as a silhouette in flight)")]
    NoModel(String),
    #[error("model of {id}: {reason}")]
    Read { id: String, reason: String },
    #[error(transparent)]
    Render(#[from] fl_render::RenderError),
}

/// The cache key of the model file type `id` is drawn from.
fn model_key(content: &Content, id: &str) -> Result<String, ThumbnailError> {
    let src = resolve_model(content, id)?;
    let Some((mesh, _)) = &src.mesh else {
        return Err(ThumbnailError::NoModel(id.to_owned()));
    };
    // Path-safe and size-bounded (the mesh kind's limit).
    let bytes = content
        .read_asset(AssetKind::Mesh, mesh)
        .map_err(|e| ThumbnailError::Read {
            id: id.to_owned(),
            reason: e.to_string(),
        })?;
    Ok(cache_key(&bytes))
}

/// The cache file name of a model file's bytes.
pub fn cache_key(model_bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, model_bytes);
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{hex}-{}-v{CACHE_VERSION}-{THUMB_SIZE}.rgba",
        model_bytes.len()
    )
}

/// The default cache directory: `<user cache dir>/thumbnails`.
pub fn default_cache_dir() -> Option<PathBuf> {
    crate::content::user_cache_dir().map(|d| d.join("thumbnails"))
}

/// Reads a cache entry; `None` for a missing, short, long or otherwise wrong one.
pub fn read_cached(path: &Path) -> Option<Thumbnail> {
    let want = HEADER_BYTES + (THUMB_SIZE * THUMB_SIZE * 4) as usize;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() != want as u64 {
        return None;
    }
    let mut bytes = Vec::with_capacity(want);
    std::fs::File::open(path)
        .ok()?
        .take(want as u64 + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() != want || &bytes[..8] != MAGIC {
        return None;
    }
    let u = |i: usize| {
        bytes
            .get(i..i + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
    };
    if u(8)? != CACHE_VERSION || u(12)? != THUMB_SIZE || u(16)? != THUMB_SIZE {
        return None;
    }
    Some(Thumbnail {
        width: THUMB_SIZE,
        height: THUMB_SIZE,
        rgba: bytes[HEADER_BYTES..].to_vec(),
    })
}

/// Writes a cache entry (through a temporary file, so a crash never leaves half of one).
pub fn write_cached(path: &Path, t: &Thumbnail) -> std::io::Result<()> {
    if t.width != THUMB_SIZE
        || t.height != THUMB_SIZE
        || t.rgba.len() != (THUMB_SIZE * THUMB_SIZE * 4) as usize
    {
        return Err(std::io::Error::other("not a thumbnail-sized picture"));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(MAGIC)?;
        for v in [CACHE_VERSION, t.width, t.height] {
            f.write_all(&v.to_le_bytes())?;
        }
        f.write_all(&t.rgba)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Where the model stands: over Nevada, 2 km up, nose north, wings level (as fl-view's shots).
fn show_pose() -> (DVec3, DQuat) {
    let (lat, lon) = (36.27_f64.to_radians(), (-115.64_f64).to_radians());
    let (east, north, up) = east_north_up(lat, lon);
    let r = fl_render::frame::PLANET_RADIUS_M;
    let position = DVec3::new(0.0, -r, 0.0) + geodetic_direction(lat, lon) * (r + 2_000.0);
    // Body X right (east), Y up, Z aft (south).
    let q = DQuat::from_mat3(&DMat3::from_cols(east, up, -north)).normalize();
    (position, q)
}

/// Draws type `id`'s model at [`THUMB_SIZE`]² on `renderer` (which keeps the uploaded model:
/// use a renderer of its own that is dropped afterwards).
pub fn render_thumbnail(
    gpu: &Gpu,
    renderer: &mut Renderer,
    content: &Content,
    id: &str,
) -> Result<Thumbnail, ThumbnailError> {
    let src = resolve_model(content, id)?;
    let Some((_, file)) = &src.mesh else {
        return Err(ThumbnailError::NoModel(id.to_owned()));
    };
    let family = load_family(&src, file)?;
    let handle = renderer.upload_family(gpu, &family);
    // The drawn vertices in the body frame (at most MAX_FIT_POINTS of them, evenly picked).
    let points = body_points(&family);
    let (yaw, pitch) = (YAW_DEG.to_radians(), PITCH_DEG.to_radians());
    // Body: forward −Z, right +X, up +Y.
    let to_eye = DVec3::new(
        yaw.sin() * pitch.cos(),
        pitch.sin(),
        -yaw.cos() * pitch.cos(),
    );
    let (centre_body, distance) = framing(&points, to_eye);
    let (position, q) = show_pose();
    let centre = position + q * centre_body;
    let eye = centre + q * to_eye * distance;
    let mut camera =
        Camera::looking_at(eye, centre, q * DVec3::Y, FOV_DEG.to_radians()).with_aspect(1.0);
    camera.near_m = (distance * 0.01).clamp(0.01, 1.0);
    let light = |cam: DVec3, rgb: f32| DirectionalLight {
        direction: (camera.orientation * cam.normalize()).as_vec3(),
        color: Vec3::splat(rgb),
    };
    let lights = vec![
        light(DVec3::new(-0.5, 0.7, 0.6), 2.6),
        light(DVec3::new(0.8, 0.1, 0.5), 0.9),
        light(DVec3::new(0.2, 0.6, -0.9), 1.2),
        light(DVec3::new(0.0, -1.0, 0.2), 0.35),
    ];
    let mut inst = Instance::new(handle, position, q);
    inst.lod = LodHint::Base;
    let frame = Frame {
        camera,
        sky: SkyParams::studio(),
        lights,
        instances: vec![inst],
        terrain: Vec::new(),
    };
    let big = THUMB_SIZE * SUPERSAMPLE;
    let target = OffscreenTarget::new(&gpu.device, big, big)?;
    renderer.render_offscreen(gpu, &frame, &target)?;
    let image = target.read_rgba(&gpu.device, &gpu.queue)?;
    Ok(downsample(image.as_raw(), big))
}

/// Most vertices the framing looks at (a bigger model is sampled evenly).
const MAX_FIT_POINTS: usize = 200_000;

/// Every vertex the undamaged model draws, in the body frame, sampled down to
/// [`MAX_FIT_POINTS`].
fn body_points(family: &fl_render::model::ModelFamily) -> Vec<DVec3> {
    let base = &family.base;
    let total: usize = base
        .nodes
        .iter()
        .filter_map(|n| n.mesh.and_then(|m| base.meshes.get(m)))
        .flat_map(|m| m.primitives.iter().map(|p| p.vertices.len()))
        .sum();
    let stride = total.div_ceil(MAX_FIT_POINTS).max(1);
    let mut out = Vec::with_capacity(total.min(MAX_FIT_POINTS));
    for (i, node) in base.nodes.iter().enumerate() {
        let Some(mesh) = node.mesh.and_then(|m| base.meshes.get(m)) else {
            continue;
        };
        if base.under_damage_node(i) {
            continue;
        }
        let m = family.body_from_mesh * base.node_model_matrix(i);
        for p in &mesh.primitives {
            for v in p.vertices.iter().step_by(stride) {
                let q = m.transform_point3(Vec3::from(v.position)).as_dvec3();
                if q.is_finite() {
                    out.push(q);
                }
            }
        }
    }
    out
}

/// The camera basis looking back along `to_eye` (body frame, body +Y up): right, up, back.
fn basis(to_eye: DVec3) -> (DVec3, DVec3, DVec3) {
    let back = to_eye.normalize_or(DVec3::Z);
    let mut right = DVec3::Y.cross(back);
    if right.length_squared() < 1e-12 {
        right = DVec3::X;
    }
    let right = right.normalize();
    (right, back.cross(right), back)
}

/// Where the camera looks and how far back it stands along `to_eye` so that every point is
/// in view, the farthest reaching [`FILL`] of the square picture's half-width, the picture
/// centred on the points' extent across the view.
fn framing(points: &[DVec3], to_eye: DVec3) -> (DVec3, f64) {
    if points.is_empty() {
        return (DVec3::ZERO, 10.0);
    }
    let (right, up, back) = basis(to_eye);
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    for p in points {
        let v = DVec3::new(p.dot(right), p.dot(up), p.dot(back));
        lo = lo.min(v);
        hi = hi.max(v);
    }
    let mid = (lo + hi) * 0.5;
    let centre = right * mid.x + up * mid.y + back * mid.z;
    let t = (FOV_DEG.to_radians() * 0.5).tan() * FILL;
    let d = points
        .iter()
        .map(|p| {
            let r = *p - centre;
            // In front of the eye at depth d − r·back; inside while |x|, |y| ≤ t · depth.
            r.dot(back) + r.dot(right).abs().max(r.dot(up).abs()) / t
        })
        .fold(0.0_f64, f64::max);
    let d = if d.is_finite() {
        d.clamp(0.1, 1.0e6)
    } else {
        10.0
    };
    (centre, d)
}

/// Averages `SUPERSAMPLE`² blocks of a `side`² studio picture (black where nothing was drawn:
/// the studio sky is exactly black) over the neutral background.
fn downsample(rgba: &[u8], side: u32) -> Thumbnail {
    let s = SUPERSAMPLE as usize;
    let side = side as usize;
    let out_side = side / s;
    let mut out = Vec::with_capacity(out_side * out_side * 4);
    for oy in 0..out_side {
        for ox in 0..out_side {
            let mut sum = [0u32; 3];
            for dy in 0..s {
                for dx in 0..s {
                    let i = ((oy * s + dy) * side + ox * s + dx) * 4;
                    let p = rgba.get(i..i + 3).unwrap_or(&[0, 0, 0]);
                    let bg = p == [0, 0, 0];
                    for c in 0..3 {
                        sum[c] += u32::from(if bg { BACKGROUND[c] } else { p[c] });
                    }
                }
            }
            let n = (s * s) as u32;
            for v in sum {
                out.push(((v + n / 2) / n) as u8);
            }
            out.push(255);
        }
    }
    Thumbnail {
        width: out_side as u32,
        height: out_side as u32,
        rgba: out,
    }
}

/// A finished thumbnail (or why there is none) from the worker.
#[derive(Debug)]
pub struct Finished {
    pub type_id: String,
    pub result: Result<Thumbnail, String>,
    /// Read from the cache rather than drawn.
    pub cached: bool,
}

/// Draws (or reads from the cache) the thumbnail of each of `type_ids`, in order, on a thread
/// of its own with its own renderer on `gpu`'s device; each result is sent as it is ready.
pub fn start_worker(
    gpu: &Gpu,
    content: Arc<Content>,
    type_ids: Vec<String>,
    cache_dir: Option<PathBuf>,
) -> std::io::Result<Receiver<Finished>> {
    let gpu = gpu.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("fl-thumbnails".into())
        .spawn(move || {
            let mut renderer: Option<Result<Renderer, String>> = None;
            for id in type_ids {
                let (result, cached) =
                    one(&gpu, &mut renderer, &content, &id, cache_dir.as_deref());
                if tx
                    .send(Finished {
                        type_id: id,
                        result,
                        cached,
                    })
                    .is_err()
                {
                    return; // the window is gone
                }
            }
        })?;
    Ok(rx)
}

fn one(
    gpu: &Gpu,
    renderer: &mut Option<Result<Renderer, String>>,
    content: &Content,
    id: &str,
    cache_dir: Option<&Path>,
) -> (Result<Thumbnail, String>, bool) {
    let key = match model_key(content, id) {
        Ok(k) => k,
        Err(e) => return (Err(e.to_string()), false),
    };
    let path = cache_dir.map(|d| d.join(&key));
    if let Some(t) = path.as_deref().and_then(read_cached) {
        return (Ok(t), true);
    }
    // The renderer (its pipelines) only when something has to be drawn.
    let r = renderer.get_or_insert_with(|| Renderer::new(gpu).map_err(|e| e.to_string()));
    let r = match r {
        Ok(r) => r,
        Err(e) => return (Err(e.clone()), false),
    };
    match render_thumbnail(gpu, r, content, id) {
        Ok(t) => {
            if let Some(p) = &path
                && let Err(e) = write_cached(p, &t)
            {
                tracing::debug!("thumbnail cache {}: {e}", p.display());
            }
            (Ok(t), false)
        }
        Err(e) => (Err(e.to_string()), false),
    }
}

/// The window's side: starts the worker once content and the device are there, and puts at
/// most one finished thumbnail a frame on its aircraft.
#[derive(Debug, Default)]
pub struct Thumbnails {
    rx: Option<Receiver<Finished>>,
    started: bool,
    /// Thumbnails put on aircraft, and those read from the cache (for logs).
    pub shown: usize,
    pub from_cache: usize,
}

impl Thumbnails {
    /// Starts drawing the thumbnails of `aircraft` (once).
    pub fn start_once(&mut self, gpu: &Gpu, content: &Arc<Content>, aircraft: &[AircraftChoice]) {
        if self.started {
            return;
        }
        self.started = true;
        let ids: Vec<String> = aircraft
            .iter()
            .filter(|a| a.thumbnail.is_none())
            .map(|a| a.type_id.clone())
            .collect();
        if ids.is_empty() {
            return;
        }
        match start_worker(gpu, content.clone(), ids, default_cache_dir()) {
            Ok(rx) => self.rx = Some(rx),
            Err(e) => tracing::warn!("cannot start the thumbnail thread: {e}"),
        }
    }

    /// Takes at most one finished thumbnail and puts it on its aircraft as a texture.
    pub fn poll(&mut self, ctx: &egui::Context, aircraft: &mut [AircraftChoice]) {
        let Some(rx) = &self.rx else { return };
        let f = match rx.try_recv() {
            Ok(f) => f,
            Err(TryRecvError::Empty) => return,
            Err(TryRecvError::Disconnected) => {
                self.rx = None;
                return;
            }
        };
        match f.result {
            Ok(t) => {
                if let Some(a) = aircraft.iter_mut().find(|a| a.type_id == f.type_id) {
                    a.thumbnail = Some(ctx.load_texture(
                        format!("thumbnail {}", f.type_id),
                        t.to_color_image(),
                        egui::TextureOptions::LINEAR,
                    ));
                    self.shown += 1;
                    self.from_cache += usize::from(f.cached);
                    tracing::debug!(
                        "thumbnail of {} {}",
                        f.type_id,
                        if f.cached { "from the cache" } else { "drawn" }
                    );
                    ctx.request_repaint();
                }
            }
            Err(e) => tracing::info!("no thumbnail for {}: {e}", f.type_id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(seed: u8) -> Thumbnail {
        Thumbnail {
            width: THUMB_SIZE,
            height: THUMB_SIZE,
            rgba: (0..THUMB_SIZE * THUMB_SIZE * 4)
                .map(|i| (i as u8).wrapping_mul(seed))
                .collect(),
        }
    }

    #[test]
    fn the_cache_round_trips_and_refuses_anything_else() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("sub").join(cache_key(b"model"));
        assert_eq!(read_cached(&path), None, "missing");
        let t = picture(7);
        write_cached(&path, &t).expect("written");
        assert_eq!(read_cached(&path), Some(t.clone()));
        let good = std::fs::read(&path).expect("read");
        // Truncated, one byte long, wrong magic, version or size: re-rendered, not trusted.
        let bad = |mutate: &dyn Fn(&mut Vec<u8>)| {
            let mut b = good.clone();
            mutate(&mut b);
            std::fs::write(&path, &b).expect("write");
            read_cached(&path)
        };
        assert_eq!(bad(&|b| b.truncate(b.len() - 1)), None);
        assert_eq!(bad(&|b| b.push(0)), None);
        assert_eq!(bad(&|b| b[0] = b'X'), None);
        assert_eq!(bad(&|b| b[8] = 99), None);
        assert_eq!(bad(&|b| b[12] = 64), None);
        assert_eq!(bad(&|b| b[16] = 0), None);
        assert_eq!(bad(&|b| b.clear()), None);
        // A directory where the entry should be.
        let d = dir.path().join("dir.rgba");
        std::fs::create_dir(&d).expect("mkdir");
        assert_eq!(read_cached(&d), None);
        // A wrongly sized picture is never written.
        let small = Thumbnail {
            width: 4,
            height: 4,
            rgba: vec![0; 64],
        };
        assert!(write_cached(&dir.path().join("small.rgba"), &small).is_err());
        assert!(!dir.path().join("small.rgba").exists());
    }

    #[test]
    fn keys_follow_the_bytes_and_the_size() {
        let a = cache_key(b"abc");
        assert_eq!(a, cache_key(b"abc"));
        assert_ne!(a, cache_key(b"abd"));
        assert!(
            a.starts_with("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad-3-"),
            "{a}"
        );
        assert!(a.ends_with(&format!("-{THUMB_SIZE}.rgba")));
    }

    #[test]
    fn downsampling_blends_the_edges_into_the_background() {
        // 4×4 studio picture: the top-left 2×2 block all white, the top-right block half
        // white, the bottom blocks empty (black).
        let side = 2 * SUPERSAMPLE;
        let mut px = vec![0u8; (side * side * 4) as usize];
        let mut set = |x: u32, y: u32| {
            let i = ((y * side + x) * 4) as usize;
            px[i..i + 4].copy_from_slice(&[255, 255, 255, 255]);
        };
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (3, 1)] {
            set(x, y);
        }
        let t = downsample(&px, side);
        assert_eq!((t.width, t.height), (2, 2));
        let p = |x: usize, y: usize| &t.rgba[(y * 2 + x) * 4..(y * 2 + x) * 4 + 4];
        assert_eq!(p(0, 0), [255, 255, 255, 255]);
        let half = |c: u8| ((u32::from(c) * 2 + 255 * 2 + 2) / 4) as u8;
        assert_eq!(
            p(1, 0),
            [
                half(BACKGROUND[0]),
                half(BACKGROUND[1]),
                half(BACKGROUND[2]),
                255
            ]
        );
        assert_eq!(p(0, 1), [BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], 255]);
        assert!((t.coverage() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn the_framing_keeps_every_point_inside_and_touches_the_edge() {
        // A flat, off-centre cross of points (an aircraft's planform, roughly).
        let points: Vec<DVec3> = [
            (-6.0, 0.0, 0.5),
            (6.0, 0.0, 0.5),
            (0.0, 0.0, -7.0),
            (0.0, 0.0, 5.0),
            (0.0, 2.5, 4.0),
            (0.0, -1.0, -1.0),
        ]
        .into_iter()
        .map(|(x, y, z)| DVec3::new(x, y, z) + DVec3::new(3.0, 1.0, -2.0))
        .collect();
        for to_eye in [
            DVec3::Z,
            DVec3::new(0.5, 0.3, -0.8).normalize(),
            DVec3::Y, // straight above: the fallback axes
        ] {
            let (centre, d) = framing(&points, to_eye);
            let (right, up, back) = basis(to_eye);
            let eye = centre + back * d;
            let t = (FOV_DEG.to_radians() * 0.5).tan();
            let projected: Vec<(f64, f64)> = points
                .iter()
                .map(|p| {
                    let v = *p - eye;
                    let depth = -v.dot(back);
                    assert!(depth > 0.0, "in front of the eye");
                    (v.dot(right) / (depth * t), v.dot(up) / (depth * t))
                })
                .collect();
            let worst = projected
                .iter()
                .map(|(x, y)| x.abs().max(y.abs()))
                .fold(0.0_f64, f64::max);
            assert!((worst - FILL).abs() < 1e-9, "{to_eye}: {worst}");
            // Centred across the view: the extents left and right nearly balance.
            let (xmin, xmax) = projected
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), (x, _)| {
                    (a.min(*x), b.max(*x))
                });
            assert!((xmin + xmax).abs() < 0.2, "{to_eye}: {xmin} .. {xmax}");
        }
        assert_eq!(framing(&[], DVec3::Z), (DVec3::ZERO, 10.0));
    }

    #[test]
    fn a_type_without_a_model_has_no_key() {
        let c = Content::builtin().expect("builtin");
        assert!(matches!(
            model_key(&c, "builtin:jet-trainer"),
            Err(ThumbnailError::NoModel(_))
        ));
        assert!(matches!(
            model_key(&c, "nope:nope"),
            Err(ThumbnailError::Model(_))
        ));
    }
}

//! The world from a geodetic camera: the pack's terrain (fl-terrain's chunk selection and
//! meshes) drawn by fl-render under the sky of a given UTC time and weather. Used by
//! `fl-view --lat … --lon … --out shot.png`, the world golden images and the frame benchmark.
//!
//! Owns turning a camera given as latitude, longitude, altitude, heading and pitch into an
//! `fl_render::Frame` with terrain chunks, and the one-shot (synchronous) chunk build. Must not:
//! keep state between renders (a live view streams chunks with `fl_terrain::stream::TerrainStream`
//! over a `fl_terrain::chunks::ChunkBuilder` instead; an image cannot show a stand-in, so the
//! one-shot path builds every visible chunk of the selection before drawing).

use std::time::Instant;

use fl_flight::gravity::EARTH_RADIUS_M;
use fl_flight::math::Vec3;
use fl_render::sun::{UtcTime, east_north_up, geodetic_direction};
use fl_render::{Camera, Frame, Gpu, OffscreenTarget, Renderer, SkyParams, TerrainChunk, Weather};
use fl_terrain::Terrain;
use fl_terrain::chunks::{ChunkSettings, ChunkView, build_chunk, select_chunks};
use glam::DVec3;

use crate::error::ViewError;
use fl_scene::to_render_chunk;

/// A camera over the planet and what the sky is doing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldView {
    /// Latitude, degrees (−90 … 90).
    pub lat_deg: f64,
    /// Longitude, degrees (−180 … 180).
    pub lon_deg: f64,
    /// Altitude above the sphere (mean sea level), m (−500 … 1,000,000).
    pub alt_m: f64,
    /// Compass heading, degrees clockwise from north.
    pub heading_deg: f64,
    /// Pitch above the local horizon, degrees (−90 … 90).
    pub pitch_deg: f64,
    /// The time (sets the sun).
    pub time: UtcTime,
    /// Fog and cloud cover.
    pub weather: Weather,
    /// Image width, pixels.
    pub width: u32,
    /// Image height, pixels.
    pub height: u32,
    /// Vertical field of view, degrees.
    pub vertical_fov_deg: f64,
    /// Largest terrain error on screen, pixels.
    pub max_error_px: f64,
}

impl WorldView {
    /// A view with a 60° field of view, 2 px terrain error, clear weather.
    pub fn new(lat_deg: f64, lon_deg: f64, alt_m: f64, heading_deg: f64, pitch_deg: f64) -> Self {
        WorldView {
            lat_deg,
            lon_deg,
            alt_m,
            heading_deg,
            pitch_deg,
            time: UtcTime::new(2026, 6, 21, 19, 0, 0.0),
            weather: Weather::CLEAR,
            width: 1280,
            height: 720,
            vertical_fov_deg: 60.0,
            max_error_px: 2.0,
        }
    }

    /// Checks every field's range; the error names the argument as fl-view's options do.
    pub fn validate(&self) -> Result<(), ViewError> {
        let check = |arg: &'static str, v: f64, lo: f64, hi: f64| {
            if v.is_finite() && (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(ViewError::argument(
                    arg,
                    v,
                    format!("must be between {lo} and {hi}"),
                ))
            }
        };
        check("lat", self.lat_deg, -90.0, 90.0)?;
        check("lon", self.lon_deg, -180.0, 180.0)?;
        check("alt", self.alt_m, -500.0, 1_000_000.0)?;
        check("heading", self.heading_deg, -360.0, 360.0)?;
        check("pitch", self.pitch_deg, -90.0, 90.0)?;
        check("fov", self.vertical_fov_deg, 1.0, 170.0)?;
        check("max-error", self.max_error_px, 0.25, 100.0)?;
        for (v, name) in [(self.width, "width"), (self.height, "height")] {
            if !(1..=8192).contains(&v) {
                return Err(ViewError::argument(
                    "size",
                    format!("{}x{}", self.width, self.height),
                    format!("the {name} must be 1 … 8192 pixels"),
                ));
            }
        }
        Ok(())
    }

    /// The camera's world position (fl-flight's planet: centre at (0, −R, 0)).
    pub fn position(&self) -> DVec3 {
        let d = geodetic_direction(self.lat_deg.to_radians(), self.lon_deg.to_radians());
        d * (EARTH_RADIUS_M + self.alt_m) - DVec3::new(0.0, EARTH_RADIUS_M, 0.0)
    }

    /// The direction the camera looks along: the heading on the local horizon, tilted by pitch.
    pub fn forward(&self) -> DVec3 {
        let (e, n, u) = east_north_up(self.lat_deg.to_radians(), self.lon_deg.to_radians());
        let (h, p) = (self.heading_deg.to_radians(), self.pitch_deg.to_radians());
        (n * h.cos() + e * h.sin()) * p.cos() + u * p.sin()
    }

    /// The renderer's camera.
    pub fn camera(&self) -> Camera {
        let pos = self.position();
        let (_, _, up) = east_north_up(self.lat_deg.to_radians(), self.lon_deg.to_radians());
        Camera {
            near_m: 0.5,
            ..Camera::looking_at(
                pos,
                pos + self.forward(),
                up,
                self.vertical_fov_deg.to_radians(),
            )
        }
        .with_aspect(f64::from(self.width) / f64::from(self.height.max(1)))
    }

    /// The chunk selection's view of this camera over `terrain`.
    pub fn chunk_view(&self, terrain: &Terrain) -> ChunkView {
        let p = self.position();
        let f = self.forward();
        ChunkView {
            position: Vec3::new(p.x, p.y, p.z),
            ground_height_m: terrain.height_at(self.lat_deg, self.lon_deg),
            forward: Some(Vec3::new(f.x, f.y, f.z)),
            vertical_fov_rad: self.vertical_fov_deg.to_radians(),
            aspect: f64::from(self.width) / f64::from(self.height.max(1)),
            viewport_height_px: self.height,
            max_error_px: self.max_error_px,
        }
    }
}

/// What a world render did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WorldStats {
    /// Chunks the selection chose (covering the planet).
    pub selected: usize,
    /// Chunks built (those that may be seen).
    pub built: usize,
    /// Chunks the renderer drew (after its culling).
    pub drawn: usize,
    /// Time to select and build the chunks, s.
    pub build_s: f64,
}

/// Selects the chunks `view` needs and builds the ones that may be seen, synchronously (on as
/// many threads as the machine has, at most 8).
pub fn build_terrain(terrain: &Terrain, view: &WorldView) -> Vec<TerrainChunk> {
    let selected = select_chunks(&view.chunk_view(terrain), &ChunkSettings::default());
    let keys: Vec<_> = selected
        .iter()
        .filter(|c| c.visible)
        .map(|c| c.key)
        .collect();
    // Counted, so the world window can prove it never builds on its render thread.
    crate::world_window::SYNC_CHUNK_BUILDS
        .fetch_add(keys.len() as u64, std::sync::atomic::Ordering::Relaxed);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let per = keys.len().div_ceil(threads).max(1);
    let mut out: Vec<TerrainChunk> = Vec::with_capacity(keys.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = keys
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|k| to_render_chunk(build_chunk(terrain, *k, EARTH_RADIUS_M)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            match h.join() {
                Ok(v) => out.extend(v),
                Err(_) => tracing::warn!("a terrain chunk builder thread panicked"),
            }
        }
    });
    out
}

/// The frame for `view` drawing `chunks` (no instances).
pub fn world_frame(view: &WorldView, chunks: &[TerrainChunk]) -> Frame {
    world_frame_keys(view, chunks.iter().map(|c| c.key).collect())
}

/// The frame for `view` drawing the uploaded chunks `terrain` (no instances): the sky of the
/// view's time and weather.
pub fn world_frame_keys(view: &WorldView, terrain: Vec<u64>) -> Frame {
    let mut sky = SkyParams::at(view.time);
    sky.weather = view.weather;
    Frame {
        camera: view.camera(),
        sky,
        lights: Vec::new(),
        instances: Vec::new(),
        terrain,
    }
}

/// Renders the world from `view` over `terrain` into an image (top row first).
pub fn render_world(
    gpu: &Gpu,
    renderer: &mut Renderer,
    terrain: &Terrain,
    view: &WorldView,
) -> Result<(image::RgbaImage, WorldStats), ViewError> {
    view.validate()?;
    let t0 = Instant::now();
    let selected = select_chunks(&view.chunk_view(terrain), &ChunkSettings::default()).len();
    let chunks = build_terrain(terrain, view);
    let build_s = t0.elapsed().as_secs_f64();
    for c in &chunks {
        if let Err(e) = renderer.upload_terrain(gpu, c) {
            tracing::warn!("{e}");
        }
    }
    let frame = world_frame(view, &chunks);
    let target = OffscreenTarget::new(&gpu.device, view.width, view.height)?;
    renderer.render_offscreen(gpu, &frame, &target)?;
    let image = target.read_rgba(&gpu.device, &gpu.queue)?;
    Ok((
        image,
        WorldStats {
            selected,
            built: chunks.len(),
            drawn: renderer.last_frame_stats().terrain_chunks,
            build_s,
        },
    ))
}

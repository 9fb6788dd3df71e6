//! The world window (`fl-view --lat … --lon …` without `--out`): a free-flying camera over the
//! pack's terrain, streamed by `fl_terrain::stream::TerrainStream` over the threaded
//! `ChunkBuilder` into fl-render through [`fl_scene::stream_sink`], under the sky of `--time` and
//! `--weather`. A scripted run (`--frames N`, `--fly-seconds S`) flies straight ahead and exits,
//! optionally writing `--screenshot`, and prints the run's statistics.
//!
//! Owns the camera's motion, the keys, the per-run statistics and the ground probe. Must not:
//! build a chunk or read a terrain tile on the render thread once the first frame is drawn
//! (chunks come from the builder's thread, the ground height under the camera from the probe's).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use fl_flight::gravity::EARTH_RADIUS_M;
use fl_flight::math::Vec3;
use fl_render::sun::{direction_to_geodetic, east_north_up};
use fl_render::surface::{Vsync, WindowSurface, gpu_for_window};
use fl_render::{Gpu, OffscreenTarget, Renderer};
use fl_terrain::Terrain;
use fl_terrain::chunks::{ChunkBuilder, ChunkView};
use fl_terrain::cube::TileKey;
use fl_terrain::stream::{StreamSettings, TerrainStream};
use glam::DVec3;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use crate::cli::Report;
use crate::error::ViewError;
use crate::world::WorldView;
use fl_scene::GroundProbe;
use fl_scene::stream_sink::{BudgetedSource, RendererTerrain, SinkTotals, StreamSink, frame_keys};

/// The keys, as the window title and docs/fl-view.md list them.
pub const KEYS: &str = "W/S or Up/Down: pitch, A/D or Left/Right: turn, R/F or +/-: speed, PgUp/PgDn: climb/descend, Space: pause, Esc/Q: quit";

/// The simulated time per frame of a `--frames` run (the path is then the same on any machine).
pub const SCRIPTED_STEP_S: f64 = 1.0 / 60.0;
/// Most chunk meshes uploaded in one frame (a burst waits for the next frames; see
/// [`BudgetedSource`]).
pub const UPLOADS_PER_FRAME: usize = 8;
/// Lowest the camera goes above the ground under it, m.
pub const MIN_CLEARANCE_M: f64 = 5.0;
/// Most frames a `--screenshot` run keeps drawing at the end, camera stopped, for the stream to
/// converge (it reports whether it did).
pub const MAX_SETTLE_FRAMES: u64 = 3_000;
/// Most seconds a scripted run may fly (bounds `--fly-seconds`).
pub const MAX_FLY_SECONDS: f64 = 3_600.0;

/// Turn rate (heading), degrees per second of held key.
const TURN_DEG_S: f64 = 30.0;
/// Pitch rate, degrees per second of held key.
const PITCH_DEG_S: f64 = 20.0;
/// Climb rate of PageUp/PageDown, m/s.
const CLIMB_M_S: f64 = 500.0;

/// How a world window run goes.
#[derive(Debug, Clone)]
pub struct FlightOptions {
    /// The start camera, the sky's time and weather, the window size.
    pub view: WorldView,
    /// Forward speed at start, m/s.
    pub speed_mps: f64,
    /// Close after this many frames (the camera moves [`SCRIPTED_STEP_S`] per frame).
    pub frames: Option<u64>,
    /// Close after this many seconds of (wall-clock) flight.
    pub fly_seconds: Option<f64>,
    /// At the end, let the terrain settle and write this PNG of the last view.
    pub screenshot: Option<PathBuf>,
}

/// The camera: a place, a heading and pitch on the local horizon, a speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlyCamera {
    /// Latitude, longitude (degrees), altitude above sea level (m), heading and pitch (degrees).
    pub view: WorldView,
    /// Forward speed, m/s (0 … 100,000).
    pub speed_mps: f64,
}

/// Keys held this frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Controls {
    /// Nose up (+1), down (−1).
    pub pitch: i8,
    /// Turn right (+1), left (−1).
    pub turn: i8,
    /// Climb (+1), descend (−1).
    pub climb: i8,
    /// Motion paused.
    pub paused: bool,
}

impl FlyCamera {
    /// Moves the camera `dt` seconds along its forward direction (the heading is re-read on the
    /// local horizon of the new place, so the track is a great circle; the pitch is kept, so
    /// level flight stays level), applies the held keys, and keeps it [`MIN_CLEARANCE_M`] above
    /// `ground_m`.
    pub fn step(&mut self, dt: f64, c: Controls, ground_m: f64) {
        let dt = if dt.is_finite() {
            dt.clamp(0.0, 0.25)
        } else {
            0.0
        };
        if c.paused || dt == 0.0 {
            return;
        }
        let v = &mut self.view;
        v.heading_deg = (v.heading_deg + f64::from(c.turn) * TURN_DEG_S * dt).rem_euclid(360.0);
        v.pitch_deg = (v.pitch_deg + f64::from(c.pitch) * PITCH_DEG_S * dt).clamp(-89.0, 89.0);
        let p = v.position() + v.forward() * self.speed_mps * dt;
        let forward = v.forward();
        let centre = p + DVec3::new(0.0, EARTH_RADIUS_M, 0.0);
        let r = centre.length();
        if !(r.is_finite() && r > 0.0) {
            return;
        }
        let (lat, lon) = direction_to_geodetic(centre / r);
        let (e, n, _) = east_north_up(lat, lon);
        v.lat_deg = lat.to_degrees().clamp(-90.0, 90.0);
        v.lon_deg = lon.to_degrees();
        v.alt_m = r - EARTH_RADIUS_M + f64::from(c.climb) * CLIMB_M_S * dt;
        v.alt_m = v.alt_m.clamp(ground_m + MIN_CLEARANCE_M, 1_000_000.0);
        // The pitch stays as set on the local horizon (level flight follows the curvature);
        // the heading is re-read so the track is a great circle.
        let h = forward.dot(e).atan2(forward.dot(n)).to_degrees();
        if h.is_finite() {
            v.heading_deg = h.rem_euclid(360.0);
        }
    }

    /// The chunk selection's view, with the ground height given (from the probe).
    pub fn chunk_view(&self, ground_m: f64) -> ChunkView {
        let v = &self.view;
        let p = v.position();
        let f = v.forward();
        ChunkView {
            position: Vec3::new(p.x, p.y, p.z),
            ground_height_m: ground_m,
            forward: Some(Vec3::new(f.x, f.y, f.z)),
            vertical_fov_rad: v.vertical_fov_deg.to_radians(),
            aspect: f64::from(v.width) / f64::from(v.height.max(1)),
            viewport_height_px: v.height,
            max_error_px: v.max_error_px,
        }
    }
}

/// CPU frame times in 0.1 ms bins up to 10 s (bounded memory however long the window runs).
#[derive(Debug, Clone)]
struct Histogram {
    bins: Vec<u32>,
    n: u64,
    max_ms: f64,
}

impl Histogram {
    const BIN_MS: f64 = 0.1;
    fn new() -> Self {
        Self {
            bins: vec![0; 100_000],
            n: 0,
            max_ms: 0.0,
        }
    }
    fn add(&mut self, ms: f64) {
        let i = ((ms / Self::BIN_MS) as usize).min(self.bins.len() - 1);
        self.bins[i] = self.bins[i].saturating_add(1);
        self.n += 1;
        self.max_ms = self.max_ms.max(ms);
    }
    fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let target = ((self.n as f64 * q).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (i, &c) in self.bins.iter().enumerate() {
            seen += u64::from(c);
            if seen >= target {
                return (i as f64 + 0.5) * Self::BIN_MS;
            }
        }
        self.max_ms
    }
}

/// What a world window run did (printed at the end; the tests read it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlightStats {
    /// Frames drawn (presented).
    pub frames: u64,
    /// Frames drawn while chunk requests were still outstanding (the frame went on without them).
    pub pending_frames: u64,
    /// Frames that drew a coarser (or finer) chunk standing in for a wanted one not yet built.
    pub stand_in_frames: u64,
    /// Chunks built on the render thread after the first frame (a blocking build); the window
    /// has no such path, so a non-zero count is a bug.
    pub blocking_builds: u64,
    /// Chunks built synchronously before the first frame (the stream's root level).
    pub root_chunks: u64,
    /// Chunks uploaded, refused and evicted through the sink.
    pub sink: SinkTotals,
    /// Most chunks resident at once.
    pub max_resident: usize,
    /// The stream's resident bound.
    pub resident_bound: usize,
    /// Stream residents missing on the GPU at the end (must be 0).
    pub lost_on_gpu: usize,
    /// Median and largest CPU time to stream, build and submit a frame, ms.
    pub cpu_median_ms: f64,
    /// See `cpu_median_ms`.
    pub cpu_p95_ms: f64,
    /// See `cpu_median_ms`.
    pub cpu_max_ms: f64,
    /// Median and largest CPU time of the stream's update (selection, uploads, evictions), ms:
    /// the part of `cpu_*` spent on terrain.
    pub stream_median_ms: f64,
    /// See `stream_median_ms`.
    pub stream_max_ms: f64,
    /// Median and largest time between presented frames, ms.
    pub interval_median_ms: f64,
    /// See `interval_median_ms`.
    pub interval_max_ms: f64,
    /// Distance flown, m.
    pub flown_m: f64,
    /// Frames drawn at the end for the terrain to settle before the screenshot.
    pub settle_frames: u64,
    /// Whether the terrain had converged (no stand-in, nothing pending) when the run ended.
    pub converged: bool,
}

impl FlightStats {
    /// The report's lines (`key=value` pairs, one line, so scripts and tests can read them).
    pub fn line(&self) -> String {
        format!(
            "world-stats frames={} pending_frames={} stand_in_frames={} blocking_builds={} root_chunks={} uploaded={} refused={} evicted={} max_resident={} resident_bound={} lost_on_gpu={} cpu_median_ms={:.2} cpu_p95_ms={:.2} cpu_max_ms={:.2} stream_median_ms={:.2} stream_max_ms={:.2} interval_median_ms={:.2} interval_max_ms={:.2} flown_m={:.0} settle_frames={} converged={}",
            self.frames,
            self.pending_frames,
            self.stand_in_frames,
            self.blocking_builds,
            self.root_chunks,
            self.sink.uploaded,
            self.sink.refused,
            self.sink.evicted,
            self.max_resident,
            self.resident_bound,
            self.lost_on_gpu,
            self.cpu_median_ms,
            self.cpu_p95_ms,
            self.cpu_max_ms,
            self.stream_median_ms,
            self.stream_max_ms,
            self.interval_median_ms,
            self.interval_max_ms,
            self.flown_m,
            self.settle_frames,
            self.converged
        )
    }
}

/// Counts chunks built synchronously by fl-view (the one-shot path's `world::build_terrain`);
/// the window compares it before and after its frames.
pub static SYNC_CHUNK_BUILDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn sync_builds() -> u64 {
    SYNC_CHUNK_BUILDS.load(std::sync::atomic::Ordering::Relaxed)
}

struct Live {
    window: Arc<Window>,
    surface: WindowSurface,
    gpu: Gpu,
    renderer: Renderer,
    stream: TerrainStream<BudgetedSource<ChunkBuilder>>,
    probe: GroundProbe,
}

struct App {
    opts: FlightOptions,
    terrain: Terrain,
    camera: FlyCamera,
    controls: Controls,
    held: BTreeSet<&'static str>,
    live: Option<Live>,
    error: Option<ViewError>,
    totals: SinkTotals,
    stats: FlightStats,
    cpu: Histogram,
    stream_cpu: Histogram,
    interval: Histogram,
    last_present: Option<Instant>,
    last_step: Option<Instant>,
    started_flight: Option<Instant>,
    builds_at_start: u64,
    settling: bool,
    adapter: String,
}

/// Opens the world window and flies until it is closed (or the scripted run ends).
pub fn run_world_window(terrain: Terrain, opts: FlightOptions) -> Result<Report, ViewError> {
    let event_loop = crate::window::open_event_loop()?;
    let camera = FlyCamera {
        view: opts.view,
        speed_mps: opts.speed_mps,
    };
    let mut app = App {
        opts,
        terrain,
        camera,
        controls: Controls::default(),
        held: BTreeSet::new(),
        live: None,
        error: None,
        totals: SinkTotals::default(),
        stats: FlightStats::default(),
        cpu: Histogram::new(),
        stream_cpu: Histogram::new(),
        interval: Histogram::new(),
        last_present: None,
        last_step: None,
        started_flight: None,
        builds_at_start: 0,
        settling: false,
        adapter: String::new(),
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| ViewError::NoDisplay {
            reason: e.to_string(),
        })?;
    if let Some(e) = app.error {
        return Err(e);
    }
    app.stats.lost_on_gpu = app.lost_on_gpu();
    if let Some(live) = &app.live {
        app.stats.converged = live.stream.converged() && live.stream.stats().in_flight == 0;
    }
    let mut s = app.stats.clone();
    s.sink = app.totals;
    s.cpu_median_ms = app.cpu.quantile(0.5);
    s.cpu_p95_ms = app.cpu.quantile(0.95);
    s.cpu_max_ms = app.cpu.max_ms;
    s.stream_median_ms = app.stream_cpu.quantile(0.5);
    s.stream_max_ms = app.stream_cpu.max_ms;
    s.interval_median_ms = app.interval.quantile(0.5);
    s.interval_max_ms = app.interval.max_ms;
    let mut lines = vec![format!(
        "world window on {}: {} frame(s) from lat {}°, lon {}°, alt {} m; ended at lat {:.4}°, lon {:.4}°, alt {:.0} m",
        app.adapter,
        s.frames,
        app.opts.view.lat_deg,
        app.opts.view.lon_deg,
        app.opts.view.alt_m,
        app.camera.view.lat_deg,
        app.camera.view.lon_deg,
        app.camera.view.alt_m
    )];
    lines.push(s.line());
    if let Some(p) = &app.opts.screenshot {
        lines.push(format!("wrote {}", p.display()));
    }
    Ok(Report { lines })
}

fn key_name(key: &Key) -> Option<&'static str> {
    Some(match key.as_ref() {
        Key::Named(NamedKey::ArrowUp) => "w",
        Key::Named(NamedKey::ArrowDown) => "s",
        Key::Named(NamedKey::ArrowLeft) => "a",
        Key::Named(NamedKey::ArrowRight) => "d",
        Key::Named(NamedKey::PageUp) => "pgup",
        Key::Named(NamedKey::PageDown) => "pgdn",
        Key::Named(NamedKey::Space) => "space",
        Key::Named(NamedKey::Escape) => "q",
        Key::Character(c) => match c.to_ascii_lowercase().as_str() {
            "w" => "w",
            "s" => "s",
            "a" => "a",
            "d" => "d",
            "r" | "+" | "=" => "r",
            "f" | "-" => "f",
            "q" => "q",
            _ => return None,
        },
        _ => return None,
    })
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: ViewError) {
        self.error = Some(e);
        event_loop.exit();
    }

    fn scripted(&self) -> bool {
        self.opts.frames.is_some() || self.opts.fly_seconds.is_some()
    }

    fn title(&self) -> String {
        let v = &self.camera.view;
        format!(
            "fl-view world | {:.4}° {:.4}° {:.0} m | hdg {:.0}° pitch {:.0}° | {:.0} m/s{} | {KEYS}",
            v.lat_deg,
            v.lon_deg,
            v.alt_m,
            v.heading_deg,
            v.pitch_deg,
            self.camera.speed_mps,
            if self.controls.paused {
                " (paused)"
            } else {
                ""
            }
        )
    }

    fn controls_from_keys(&mut self) {
        let axis =
            |p: &str, n: &str| i8::from(self.held.contains(p)) - i8::from(self.held.contains(n));
        // Stick convention: Up/W pushes the nose down, Down/S pulls it up.
        self.controls.pitch = axis("s", "w");
        self.controls.turn = axis("d", "a");
        self.controls.climb = axis("pgup", "pgdn");
    }

    /// Whether the run is over after `frames` frames (and, with a screenshot, settled).
    fn done(&mut self) -> bool {
        let flown = match (self.opts.frames, self.opts.fly_seconds, self.started_flight) {
            (Some(n), _, _) if self.stats.frames >= n => true,
            (_, Some(s), Some(t0)) if t0.elapsed().as_secs_f64() >= s => true,
            _ => false,
        };
        if !flown {
            return false;
        }
        let Some(live) = &self.live else { return true };
        if self.opts.screenshot.is_none() {
            self.stats.converged = live.stream.converged() && live.stream.stats().in_flight == 0;
            return true;
        }
        // Stop and let the terrain settle, so the picture shows the terrain as it ends up.
        self.settling = true;
        let settled = live.stream.converged() && live.stream.stats().in_flight == 0;
        self.stats.converged = settled;
        settled || self.stats.settle_frames >= MAX_SETTLE_FRAMES
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let scripted = self.scripted();
        let Some(live) = &mut self.live else {
            return;
        };
        let Some(out) = live.surface.acquire(&live.gpu) else {
            live.window.request_redraw();
            return;
        };
        let t0 = Instant::now();
        // Motion: a fixed step in a --frames run (the same path on any machine), else the clock.
        let dt = if self.settling {
            0.0
        } else if self.opts.frames.is_some() {
            SCRIPTED_STEP_S
        } else {
            self.last_step
                .map_or(0.0, |t| t.elapsed().as_secs_f64().min(0.25))
        };
        self.last_step = Some(t0);
        self.started_flight.get_or_insert(t0);
        let v = self.camera.view;
        let ground = live.probe.height(v.lat_deg, v.lon_deg);
        let before = self.camera.view.position();
        self.camera.step(dt, self.controls, ground);
        self.stats.flown_m += (self.camera.view.position() - before).length();
        let (w, h) = live.surface.size();
        self.camera.view.width = w;
        self.camera.view.height = h;
        let chunk_view = self.camera.chunk_view(ground);
        let t_stream = Instant::now();
        let drawn = {
            let mut sink = StreamSink::new(
                RendererTerrain::new(&live.gpu, &mut live.renderer),
                &mut self.totals,
            );
            frame_keys(live.stream.update(&chunk_view, &mut sink))
        };
        self.stream_cpu.add(t_stream.elapsed().as_secs_f64() * 1e3);
        let st = live.stream.stats();
        let frame = crate::world::world_frame_keys(&self.camera.view, drawn);
        if let Err(e) = live
            .renderer
            .render_to_surface(&live.gpu, &frame, &live.surface, &out)
        {
            self.fail(event_loop, e.into());
            return;
        }
        self.cpu.add(t0.elapsed().as_secs_f64() * 1e3);
        live.window.pre_present_notify();
        live.surface.present(&live.gpu, out);
        let now = Instant::now();
        if let Some(t) = self.last_present {
            self.interval.add((now - t).as_secs_f64() * 1e3);
        }
        self.last_present = Some(now);
        self.stats.frames += 1;
        if self.settling {
            self.stats.settle_frames += 1;
        }
        if st.in_flight > 0 {
            self.stats.pending_frames += 1;
        }
        if st.stand_ins > 0 {
            self.stats.stand_in_frames += 1;
        }
        self.stats.max_resident = self.stats.max_resident.max(st.resident);
        self.stats.blocking_builds = sync_builds().saturating_sub(self.builds_at_start);
        if self.stats.frames == 1 || self.stats.frames.is_multiple_of(30) {
            let title = self.title();
            if let Some(live) = &self.live {
                live.window.set_title(&title);
            }
        }
        if scripted && self.done() {
            if let Err(e) = self.finish() {
                self.fail(event_loop, e);
                return;
            }
            event_loop.exit();
            return;
        }
        if let Some(live) = &self.live {
            live.window.request_redraw();
        }
    }

    /// End of a scripted run: write the screenshot.
    fn finish(&mut self) -> Result<(), ViewError> {
        let Some(live) = &mut self.live else {
            return Ok(());
        };
        if let Some(path) = &self.opts.screenshot {
            let (w, h) = live.surface.size();
            let frame =
                crate::world::world_frame_keys(&self.camera.view, frame_keys(live.stream.drawn()));
            let target = OffscreenTarget::new(&live.gpu.device, w, h)?;
            live.renderer.render_offscreen(&live.gpu, &frame, &target)?;
            let image = target.read_rgba(&live.gpu.device, &live.gpu.queue)?;
            image
                .save(path)
                .map_err(|e| fl_render::RenderError::WriteImage {
                    path: path.clone(),
                    reason: e.to_string(),
                })?;
        }
        Ok(())
    }

    /// The chunks the stream holds (the drawn ones, their ancestors and the roots) that the GPU
    /// no longer has (the stream owns residency, so this must be 0).
    fn lost_on_gpu(&self) -> usize {
        let Some(live) = &self.live else { return 0 };
        let mut keys: BTreeSet<TileKey> = BTreeSet::new();
        for k in live.stream.drawn() {
            let mut k = *k;
            while keys.insert(k) && k.level > 0 {
                k = k.parent();
            }
        }
        keys.iter()
            .filter(|k| live.stream.is_resident(**k) && !live.renderer.has_terrain(k.packed()))
            .count()
    }

    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<Live, ViewError> {
        let v = self.opts.view;
        let attrs = Window::default_attributes()
            .with_title("fl-view world")
            .with_inner_size(PhysicalSize::new(v.width, v.height));
        let window =
            event_loop
                .create_window(attrs)
                .map(Arc::new)
                .map_err(|e| ViewError::NoDisplay {
                    reason: e.to_string(),
                })?;
        let inner = window.inner_size();
        let (w, h) = (inner.width.max(1), inner.height.max(1));
        let (gpu, surface) = gpu_for_window(window.clone(), w, h, Vsync::On)?;
        self.adapter = gpu.info.name.clone();
        let mut renderer = Renderer::new(&gpu)?;
        let builder = ChunkBuilder::new(self.terrain.clone(), EARTH_RADIUS_M).map_err(|e| {
            ViewError::argument(
                "lat",
                v.lat_deg,
                format!("cannot start the terrain builder thread: {e}"),
            )
        })?;
        let stream = {
            let mut sink =
                StreamSink::new(RendererTerrain::new(&gpu, &mut renderer), &mut self.totals);
            TerrainStream::new(
                &self.terrain,
                BudgetedSource::new(builder, UPLOADS_PER_FRAME),
                StreamSettings::default(),
                &mut sink,
            )
            .map_err(|e| fl_render::RenderError::Surface(e.to_string()))?
        };
        self.stats.root_chunks = self.totals.uploaded;
        self.stats.resident_bound = stream.settings().max_resident;
        let probe = GroundProbe::new(self.terrain.clone(), v.lat_deg, v.lon_deg).map_err(|e| {
            ViewError::argument(
                "lat",
                v.lat_deg,
                format!("cannot start the ground probe thread: {e}"),
            )
        })?;
        self.builds_at_start = sync_builds();
        Ok(Live {
            window,
            surface,
            gpu,
            renderer,
            stream,
            probe,
        })
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.live.is_some() {
            return;
        }
        match self.start(event_loop) {
            Ok(live) => {
                self.live = Some(live);
                let title = self.title();
                if let Some(live) = &self.live {
                    live.window.set_title(&title);
                    live.window.request_redraw();
                }
                // A flying camera redraws continuously.
                event_loop.set_control_flow(ControlFlow::Poll);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                if let Some(live) = &mut self.live {
                    live.surface.resize(&live.gpu, size.width, size.height);
                    live.window.request_redraw();
                }
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            WindowEvent::KeyboardInput { event, .. } => {
                let Some(name) = key_name(&event.logical_key) else {
                    return;
                };
                if event.state == ElementState::Pressed {
                    match name {
                        "q" => event_loop.exit(),
                        "r" => {
                            self.camera.speed_mps =
                                (self.camera.speed_mps * 1.25).clamp(1.0, 100_000.0)
                        }
                        "f" => {
                            self.camera.speed_mps =
                                (self.camera.speed_mps / 1.25).clamp(1.0, 100_000.0)
                        }
                        "space" if !event.repeat => self.controls.paused = !self.controls.paused,
                        _ => {
                            self.held.insert(name);
                        }
                    }
                } else {
                    self.held.remove(name);
                }
                self.controls_from_keys();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cam() -> FlyCamera {
        FlyCamera {
            view: WorldView::new(36.27, -115.64, 3_000.0, 90.0, 0.0),
            speed_mps: 250.0,
        }
    }

    #[test]
    fn flying_east_moves_east_at_the_speed_and_stays_level() {
        let mut c = cam();
        let p0 = c.view.position();
        for _ in 0..600 {
            c.step(SCRIPTED_STEP_S, Controls::default(), 1_000.0);
        }
        let d = (c.view.position() - p0).length();
        assert!((d - 2_500.0).abs() < 1.0, "{d}");
        assert!(c.view.lon_deg > -115.64 && (c.view.lat_deg - 36.27).abs() < 0.01);
        // Level flight follows the curvature (each 4 m step climbs by micrometres).
        assert!((c.view.alt_m - 3_000.0).abs() < 0.01, "{}", c.view.alt_m);
        assert_eq!(c.view.pitch_deg, 0.0);
        assert!(
            (c.view.heading_deg - 90.0).abs() < 0.1,
            "{}",
            c.view.heading_deg
        );
    }

    #[test]
    fn keys_turn_pitch_and_climb_and_the_ground_stops_the_camera() {
        let mut c = cam();
        let turn = Controls {
            turn: 1,
            pitch: 1,
            ..Controls::default()
        };
        c.step(1.0 / 4.0, turn, 0.0);
        assert!(c.view.heading_deg > 90.0 && c.view.pitch_deg > 0.0);
        let mut c = cam();
        c.view.pitch_deg = -60.0;
        for _ in 0..1_000 {
            c.step(0.1, Controls::default(), 2_500.0);
        }
        assert!(
            (c.view.alt_m - (2_500.0 + MIN_CLEARANCE_M)).abs() < 1e-6,
            "{}",
            c.view.alt_m
        );
        let mut c = cam();
        let paused = Controls {
            paused: true,
            ..Controls::default()
        };
        c.step(0.1, paused, 0.0);
        assert_eq!(c, cam());
        c.step(f64::NAN, Controls::default(), 0.0);
        assert_eq!(c.view.lat_deg, cam().view.lat_deg);
    }

    #[test]
    fn keys_map_to_the_documented_controls() {
        let ch = |c: &str| Key::Character(c.into());
        for (k, want) in [
            (Key::Named(NamedKey::ArrowUp), Some("w")),
            (Key::Named(NamedKey::ArrowDown), Some("s")),
            (Key::Named(NamedKey::ArrowLeft), Some("a")),
            (Key::Named(NamedKey::ArrowRight), Some("d")),
            (Key::Named(NamedKey::PageUp), Some("pgup")),
            (Key::Named(NamedKey::PageDown), Some("pgdn")),
            (Key::Named(NamedKey::Escape), Some("q")),
            (Key::Named(NamedKey::Space), Some("space")),
            (ch("W"), Some("w")),
            (ch("+"), Some("r")),
            (ch("-"), Some("f")),
            (ch("F"), Some("f")),
            (ch("x"), None),
            (Key::Named(NamedKey::Tab), None),
        ] {
            assert_eq!(key_name(&k), want, "{k:?}");
        }
    }

    #[test]
    fn histogram_quantiles() {
        let mut h = Histogram::new();
        for ms in [1.0, 2.0, 3.0, 4.0, 100.0] {
            h.add(ms);
        }
        assert!((h.quantile(0.5) - 3.05).abs() < 1e-9, "{}", h.quantile(0.5));
        assert_eq!(h.max_ms, 100.0);
        h.add(1e9);
        assert_eq!(h.max_ms, 1e9);
    }
}

//! The command line and what each mode does with it: a model shot (`--model … --out`), the
//! model window (`--model` without `--out`), the world from a camera (`--lat --lon … --out`) and
//! the world window (`--lat --lon` without `--out`, a free-flying camera over streamed terrain).
//! The binary only parses, calls [`run`] and prints; the tests drive the same code.

use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use fl_render::{Gpu, LodHint, Renderer};

use crate::args::{in_range, parse_size, parse_time, parse_weather};
use crate::error::ViewError;
use fl_render::model::ModelFamily;
use fl_terrain::{Terrain, TerrainConfig};

use crate::pack::{ModelSource, load_family, load_pack, resolve_model};
use crate::scene::{Lighting, ModelScene, PoseArg, ViewState, resolve_poses};
use crate::shot::{Timings, model_shot, timed};
use crate::world::{WorldView, render_world};

/// fl-view: look at a content pack's models and world.
#[derive(Debug, Parser)]
#[command(name = "fl-view", version, about, long_about = None)]
pub struct Cli {
    /// The content pack to load (as the game loads it: builtin layer + this pack).
    #[arg(long, value_name = "DIR")]
    pub pack: Option<PathBuf>,
    /// The entity type whose model to show, e.g. fl-base:f16a.
    #[arg(long, value_name = "TYPE_ID", conflicts_with_all = ["lat", "lon"])]
    pub model: Option<String>,
    /// Write one picture to this PNG and exit (without it: open a window).
    #[arg(long, value_name = "FILE.png")]
    pub out: Option<PathBuf>,
    /// Image (or window) size.
    #[arg(long, value_name = "WxH", default_value = "1280x720")]
    pub size: String,
    /// Model: camera azimuth around the model, degrees from the nose towards the right wing.
    #[arg(long, value_name = "DEG", allow_negative_numbers = true)]
    pub yaw: Option<f64>,
    /// Model: camera elevation, degrees (−89…89; default 20). World: camera pitch above the
    /// horizon, degrees (−90…90; default 0).
    #[arg(long, value_name = "DEG", allow_negative_numbers = true)]
    pub pitch: Option<f64>,
    /// Model: camera distance from the model's centre, metres (default: framed from its
    /// bounding radius).
    #[arg(long, value_name = "M")]
    pub distance: Option<f64>,
    /// Model: level of detail: base, auto, or N for the pack's `_lodN` file.
    #[arg(long, value_name = "base|auto|N", default_value = "base")]
    pub lod: String,
    /// Model: show the battle-damage nodes (`<node>_b`).
    #[arg(long)]
    pub damaged: bool,
    /// Model: articulation: turn a node about a local axis, NODE=AXIS:DEG (repeatable).
    #[arg(long, value_name = "NODE=AXIS:DEG")]
    pub pose: Vec<PoseArg>,
    /// Model: lighting.
    #[arg(long, value_enum, default_value = "studio")]
    pub light: Lighting,
    /// Model: draw the model's triangle edges (where the graphics device can).
    #[arg(long)]
    pub wireframe: bool,
    /// World: latitude, degrees (−90…90).
    #[arg(
        long,
        value_name = "DEG",
        allow_negative_numbers = true,
        requires = "lon"
    )]
    pub lat: Option<f64>,
    /// World: longitude, degrees (−180…180).
    #[arg(
        long,
        value_name = "DEG",
        allow_negative_numbers = true,
        requires = "lat"
    )]
    pub lon: Option<f64>,
    /// World: altitude above sea level, metres (−500…100000).
    #[arg(
        long,
        value_name = "M",
        allow_negative_numbers = true,
        default_value_t = 1000.0
    )]
    pub alt: f64,
    /// World: compass heading, degrees (0…360).
    #[arg(long, value_name = "DEG", default_value_t = 0.0)]
    pub heading: f64,
    /// World: UTC date and time, YYYY-MM-DDTHH:MM[:SS].
    #[arg(long, value_name = "UTC", default_value = "2026-06-21T19:00")]
    pub time: String,
    /// World: weather preset: clear, partly_cloudy, overcast, rain, storm, snow, blizzard.
    #[arg(long, value_name = "PRESET", default_value = "clear")]
    pub weather: String,
    /// Window: close by itself after this many frames (scripts, screenshots). In the world
    /// window the camera then moves 1/60 s per frame, so the path is the same on any machine.
    #[arg(long, value_name = "N")]
    pub frames: Option<u64>,
    /// World window: the camera's forward speed at start, m/s (0…100000; R/F change it).
    #[arg(
        long,
        value_name = "M/S",
        allow_negative_numbers = true,
        default_value_t = 250.0
    )]
    pub speed: f64,
    /// World window: fly straight ahead for this many seconds (wall clock), then close.
    #[arg(long, value_name = "S")]
    pub fly_seconds: Option<f64>,
    /// World window: at the end of a scripted run (--frames or --fly-seconds), let the terrain
    /// settle and write the last view to this PNG.
    #[arg(long, value_name = "FILE.png")]
    pub screenshot: Option<PathBuf>,
}

/// What a finished command did (printed by the binary).
#[derive(Debug, Clone)]
pub struct Report {
    /// One line per thing to tell the user.
    pub lines: Vec<String>,
}

/// Parses `--lod`.
pub fn parse_lod(s: &str) -> Result<LodHint, ViewError> {
    match s.to_ascii_lowercase().as_str() {
        "base" => Ok(LodHint::Base),
        "auto" => Ok(LodHint::Auto),
        n => n
            .parse::<u8>()
            .ok()
            .filter(|n| usize::from(*n) < fl_render::model::MAX_LODS)
            .map(LodHint::Lod)
            .ok_or_else(|| {
                ViewError::argument(
                    "lod",
                    s,
                    format!(
                        "use base, auto or a level 0…{}",
                        fl_render::model::MAX_LODS - 1
                    ),
                )
            }),
    }
}

/// Runs the command.
pub fn run(cli: &Cli) -> Result<Report, ViewError> {
    let started = Instant::now();
    let size = parse_size(&cli.size)?;
    if let Some(id) = &cli.model {
        return run_model(cli, id, size, started);
    }
    if let (Some(lat), Some(lon)) = (cli.lat, cli.lon) {
        return run_world(cli, lat, lon, size, started);
    }
    Err(ViewError::argument(
        "model",
        "",
        "nothing to show: give --model TYPE_ID, or --lat and --lon for the world",
    ))
}

/// A model ready to upload: everything that needs no device, checked (so a typo or a broken
/// file fails before any window opens).
#[derive(Debug)]
pub struct PreparedModel {
    /// The type and its mesh file.
    pub src: ModelSource,
    /// The loaded family (`None`: the category's silhouette).
    pub family: Option<ModelFamily>,
    /// `--pose` as node poses.
    pub poses: Vec<fl_render::NodePose>,
    /// `--lod`.
    pub lod: LodHint,
    /// `--yaw`, `--pitch`, checked.
    pub yaw_pitch: (f64, f64),
}

/// Checks the model options, loads the content and the model from disk.
pub fn prepare_model(cli: &Cli, id: &str) -> Result<PreparedModel, ViewError> {
    let lod = parse_lod(&cli.lod)?;
    let yaw = in_range("yaw", cli.yaw.unwrap_or(45.0), -360.0, 360.0, "°")?;
    let pitch = in_range("pitch", cli.pitch.unwrap_or(20.0), -89.0, 89.0, "°")?;
    if let Some(d) = cli.distance {
        in_range("distance", d, 0.01, 1.0e6, " m")?;
    }
    let content = load_content(cli.pack.as_deref())?;
    let src = resolve_model(&content, id)?;
    let family = match &src.mesh {
        Some((_, file)) => {
            // A missing texture or a broken optional LOD file is a warning fl-render has
            // already logged (once, naming the files tried); the model is still shown.
            Some(load_family(&src, file)?)
        }
        None => None,
    };
    let poses = match &family {
        Some(f) => resolve_poses(&f.base, &cli.pose)?,
        None if !cli.pose.is_empty() => {
            return Err(ViewError::argument(
                "pose",
                &cli.pose[0].node,
                format!(
                    "{} has no mesh (drawn as its category's silhouette), so no nodes",
                    src.id
                ),
            ));
        }
        None => Vec::new(),
    };
    let lod_files = family.as_ref().map_or(0, |f| f.lods.len());
    if let LodHint::Lod(n) = lod
        && usize::from(n) >= lod_files
    {
        return Err(ViewError::argument(
            "lod",
            &cli.lod,
            if lod_files > 0 {
                format!(
                    "{id} has {lod_files} _lodN file(s): use 0…{}, base or auto",
                    lod_files - 1
                )
            } else {
                format!("{id} has no _lodN files: use base or auto")
            },
        ));
    }
    Ok(PreparedModel {
        src,
        family,
        poses,
        lod,
        yaw_pitch: (yaw, pitch),
    })
}

/// The builtin layer and `--pack`, or the builtin layer alone.
pub fn load_content(pack: Option<&std::path::Path>) -> Result<fl_content::Content, ViewError> {
    match pack {
        Some(dir) => load_pack(dir),
        None => fl_content::Content::builtin().map_err(|e| ViewError::Pack {
            path: PathBuf::from("(builtin)"),
            findings: format!("  {e}"),
        }),
    }
}

/// A model uploaded and framed: the device, the renderer, the scene and the view.
pub struct ModelSetup {
    /// The device.
    pub gpu: Gpu,
    /// The renderer, with the model uploaded.
    pub renderer: Renderer,
    /// The model on show.
    pub scene: ModelScene,
    /// The initial view.
    pub state: ViewState,
    /// A line naming the model and where it came from.
    pub what: String,
}

impl std::fmt::Debug for ModelSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelSetup")
            .field("what", &self.what)
            .finish()
    }
}

/// Uploads a prepared model on `gpu` (the window's device must be one that can present to its
/// surface, so the caller makes it).
pub fn upload_model(
    cli: &Cli,
    prepared: PreparedModel,
    gpu: Gpu,
    aspect: f64,
    timings: &mut Timings,
) -> Result<ModelSetup, ViewError> {
    let mut renderer = timed(&mut timings.device, || Renderer::new(&gpu))?;
    let src = &prepared.src;
    let (scene, what) = match (&prepared.family, &src.mesh) {
        (Some(family), Some((mesh, file))) => {
            let handle = renderer.upload_family(&gpu, family);
            (
                ModelScene::new(handle, family, prepared.poses.clone()),
                format!(
                    "{} ({}): mesh {mesh} = {}",
                    src.id,
                    src.name,
                    file.display()
                ),
            )
        }
        _ => (
            ModelScene::silhouette(renderer.silhouette(src.category), 8.0),
            format!(
                "{} ({}): no mesh; drawn as the {:?} silhouette",
                src.id, src.name, src.category
            ),
        ),
    };
    if cli.damaged && !scene.has_damage {
        tracing::warn!(
            "{} has no battle-damage nodes (<node>_b); --damaged changes nothing",
            src.id
        );
    }
    let (yaw_deg, pitch_deg) = prepared.yaw_pitch;
    let state = ViewState {
        yaw_deg,
        pitch_deg,
        distance_m: cli
            .distance
            .unwrap_or_else(|| scene.default_distance(aspect)),
        lod: prepared.lod,
        damaged: cli.damaged,
        articulated: true,
        lighting: cli.light,
        wireframe: cli.wireframe,
    };
    Ok(ModelSetup {
        gpu,
        renderer,
        scene,
        state,
        what,
    })
}

fn run_model(cli: &Cli, id: &str, size: (u32, u32), started: Instant) -> Result<Report, ViewError> {
    let aspect = f64::from(size.0) / f64::from(size.1);
    let mut timings = Timings::default();
    let load_start = Instant::now();
    let prepared = prepare_model(cli, id)?;
    timings.load = load_start.elapsed();
    let Some(out) = &cli.out else {
        return crate::window::run_window(cli, prepared, size);
    };
    let gpu = timed(&mut timings.device, Gpu::new)?;
    let mut setup = upload_model(cli, prepared, gpu, aspect, &mut timings)?;
    let render_start = Instant::now();
    model_shot(
        &setup.gpu,
        &mut setup.renderer,
        &setup.scene,
        &setup.state,
        size,
        out,
    )?;
    timings.render = render_start.elapsed();
    timings.total = started.elapsed();
    Ok(Report {
        lines: vec![
            setup.what,
            format!(
                "wrote {} ({}x{}, {}, yaw {}°, pitch {}°, distance {:.1} m, lod {:?}{}{}) on {}",
                out.display(),
                size.0,
                size.1,
                match setup.state.lighting {
                    Lighting::Studio => "studio light",
                    Lighting::Daylight => "daylight",
                },
                setup.state.yaw_deg,
                setup.state.pitch_deg,
                setup.state.distance_m,
                setup.state.lod,
                if setup.state.damaged { ", damaged" } else { "" },
                if setup.renderer.wireframe_supported() && setup.state.wireframe {
                    ", wireframe"
                } else {
                    ""
                },
                setup.gpu.info.name
            ),
            timings.to_string(),
        ],
    })
}

/// The world options, checked (the ranges the issue gives; the heading as a compass reading).
pub fn world_view(cli: &Cli, lat: f64, lon: f64, size: (u32, u32)) -> Result<WorldView, ViewError> {
    let mut view = WorldView::new(
        in_range("lat", lat, -90.0, 90.0, "°")?,
        in_range("lon", lon, -180.0, 180.0, "°")?,
        in_range("alt", cli.alt, -500.0, 100_000.0, " m")?,
        in_range("heading", cli.heading, 0.0, 360.0, "°")?,
        in_range("pitch", cli.pitch.unwrap_or(0.0), -90.0, 90.0, "°")?,
    );
    view.time = parse_time(&cli.time)?;
    view.weather = parse_weather(&cli.weather)?;
    (view.width, view.height) = size;
    view.validate()?;
    Ok(view)
}

/// The world window: checks the flight options, loads the terrain, flies.
fn run_world_window(cli: &Cli, view: WorldView) -> Result<Report, ViewError> {
    let speed_mps = in_range("speed", cli.speed, 0.0, 100_000.0, " m/s")?;
    if let Some(s) = cli.fly_seconds {
        in_range(
            "fly-seconds",
            s,
            0.0,
            crate::world_window::MAX_FLY_SECONDS,
            " s",
        )?;
    }
    if cli.screenshot.is_some() && cli.frames.is_none() && cli.fly_seconds.is_none() {
        return Err(ViewError::argument(
            "screenshot",
            "",
            "needs a scripted run: add --frames N or --fly-seconds S",
        ));
    }
    let content = load_content(cli.pack.as_deref())?;
    let terrain = Terrain::from_content(&content, TerrainConfig::default());
    crate::world_window::run_world_window(
        terrain,
        crate::world_window::FlightOptions {
            view,
            speed_mps,
            frames: cli.frames,
            fly_seconds: cli.fly_seconds,
            screenshot: cli.screenshot.clone(),
        },
    )
}

fn run_world(
    cli: &Cli,
    lat: f64,
    lon: f64,
    size: (u32, u32),
    started: Instant,
) -> Result<Report, ViewError> {
    let view = world_view(cli, lat, lon, size)?;
    let Some(out) = &cli.out else {
        return run_world_window(cli, view);
    };
    if cli.screenshot.is_some() || cli.fly_seconds.is_some() {
        return Err(ViewError::argument(
            if cli.screenshot.is_some() {
                "screenshot"
            } else {
                "fly-seconds"
            },
            "",
            "belongs to the world window; with --out the picture is the one-shot image",
        ));
    }
    let mut timings = Timings::default();
    let terrain = timed(&mut timings.load, || -> Result<Terrain, ViewError> {
        let content = load_content(cli.pack.as_deref())?;
        Ok(Terrain::from_content(&content, TerrainConfig::default()))
    })?;
    let gpu = timed(&mut timings.device, Gpu::new)?;
    let mut renderer = timed(&mut timings.device, || Renderer::new(&gpu))?;
    let render_start = Instant::now();
    let (image, stats) = render_world(&gpu, &mut renderer, &terrain, &view)?;
    image
        .save(out)
        .map_err(|e| fl_render::RenderError::WriteImage {
            path: out.clone(),
            reason: e.to_string(),
        })?;
    timings.render = render_start.elapsed();
    timings.total = started.elapsed();
    Ok(Report {
        lines: vec![
            format!(
                "wrote {} ({}x{}): lat {}°, lon {}°, alt {} m, heading {}°, pitch {}°, {} UTC, weather {} on {}",
                out.display(),
                size.0,
                size.1,
                view.lat_deg,
                view.lon_deg,
                view.alt_m,
                view.heading_deg,
                view.pitch_deg,
                cli.time,
                cli.weather,
                gpu.info.name
            ),
            format!(
                "terrain: {} chunk(s) selected, {} built in {:.2} s, {} drawn",
                stats.selected, stats.built, stats.build_s, stats.drawn
            ),
            timings.to_string(),
        ],
    })
}

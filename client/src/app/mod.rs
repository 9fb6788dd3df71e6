//! The game as a person plays it: a window with the menus, the flight with its HUD, and the
//! loading behind them (`fighters-legacy` without `--headless`). [`run`] opens the window and
//! runs until the player quits or a scripted flight (`--seconds`, `--screenshot`) ends.
//!
//! Owns the options of a windowed run and its outcome. The pieces: [`window`] (the winit
//! application and the frame loop), [`apply`] (the settings applied while running),
//! [`launch`] (sessions started off the render thread), [`scene`] (the renderer's frame),
//! [`sound`] (the engine heard), [`camera`] and [`keyboard`], [`missions`] (the packs'
//! missions as the menus list them), [`thumbnails`] (the Free Flight aircraft pictures),
//! [`record`] (the debrief's numbers) and [`world`] (the streamed terrain under the eye).

pub mod apply;
pub mod camera;
pub mod keyboard;
pub mod launch;
pub mod missions;
pub mod record;
pub mod scene;
pub mod social;
pub mod sound;
pub mod thumbnails;
mod window;
pub mod world;

use std::path::PathBuf;
use std::time::Duration;

use fl_net::quic::Fingerprint;

use crate::client::ClientConfig;
use crate::content::ContentOptions;
use crate::local_server::LocalServerConfig;
use crate::session::SessionConfig;

pub use window::{NEVADA_AIRFIELD, utc_for_local_hour, weather_preset};

/// A flight the command line scripts: straight into single player, flown by an autopilot,
/// ended after `seconds` in flight with an optional screenshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Scripted {
    pub autopilot: String,
    pub seconds: f64,
    pub screenshot: Option<PathBuf>,
    /// Fly this mission (`<pack id>:<file stem>`) through its brief instead of free flight.
    pub mission: Option<String>,
}

/// Everything a windowed run needs.
#[derive(Debug, Clone)]
pub struct AppOptions {
    pub content_options: ContentOptions,
    /// The aircraft type to fly (`--aircraft`; the free-flight setup can choose another).
    pub aircraft: Option<String>,
    pub local: LocalServerConfig,
    pub session: SessionConfig,
    /// `--callsign` was given (it wins over the settings' callsign).
    pub callsign_given: bool,
    pub client: ClientConfig,
    /// Servers: an identity to accept (`--pin`) and the trust-on-first-use file.
    pub pin: Option<Fingerprint>,
    pub known_hosts: Option<PathBuf>,
    /// `--connect`: join this server at start instead of showing the main menu.
    pub connect: Option<String>,
    pub scripted: Option<Scripted>,
    /// The settings file (`None`: defaults, never saved).
    pub settings_path: Option<PathBuf>,
    /// The bindings file, `bindings.toml` (`None`: the default controls).
    pub bindings_path: Option<PathBuf>,
    /// Window size, physical pixels (`--size`; `None`: the settings' `graphics.resolution`).
    pub size: Option<(u32, u32)>,
}

/// Why the window ended badly.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("no display to open a window on ({0}); run with --headless to fly without one")]
    NoDisplay(String),
    #[error("the window is not open")]
    NoWindow,
    #[error(transparent)]
    Render(#[from] fl_render::RenderError),
    #[error("{0}")]
    Start(String),
    #[error("{0}")]
    Session(String),
    #[error("cannot save the screenshot {path}: {reason}")]
    Screenshot { path: PathBuf, reason: String },
}

/// How a windowed run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct AppOutcome {
    /// Frames presented.
    pub frames: u64,
    /// From the start of the process's window to the first frame of the Flight screen.
    pub first_flight_frame: Option<Duration>,
    /// The screenshot a scripted run wrote.
    pub screenshot: Option<PathBuf>,
    /// A scripted run flew its whole time.
    pub finished: bool,
}

/// Opens the window and runs the game until it is closed.
pub fn run(opts: AppOptions) -> Result<AppOutcome, AppError> {
    let event_loop = window::open_event_loop()?;
    let mut app = window::App::new(opts);
    event_loop
        .run_app(&mut app)
        .map_err(|e| AppError::NoDisplay(e.to_string()))?;
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    Ok(AppOutcome {
        frames: app.frames,
        first_flight_frame: app.first_flight_frame,
        screenshot: app.screenshot_written.clone(),
        finished: app.finished,
    })
}

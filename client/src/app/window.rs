//! The game window: a winit 0.30 application over fl-render and egui. Each frame it services
//! the session (the client's 60 Hz input clock runs on its own, whatever the frame rate), lets
//! the terrain stream upload what its builder thread finished, draws the world from the
//! camera, then the HUD and the current screen with egui, and applies what the player did to
//! the screen state machine, performing its effects (start or stop a session, pause the
//! embedded server, capture the mouse, save the settings, quit). The player's settings are
//! applied every frame wherever they can be without a restart (`apply_settings`).
//!
//! Owns the window, the GPU objects, the running flight and the frame loop. Must not: decide
//! which screen follows which (`screens`), draw a screen's widgets (`ui`), build terrain or
//! start a session on the render thread (`launch`, `fl_scene`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::{Duration, Instant};

use fl_content::Content;
use fl_render::sun::{UtcTime, east_north_up};
use fl_render::surface::{Vsync, WindowSurface, gpu_for_window};
use fl_render::{Gpu, OffscreenTarget, Renderer, UiFrame, UiPainter, Weather};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{DeviceEvent, DeviceId, ElementState, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{CursorGrabMode, Fullscreen as WinitFullscreen, Window, WindowId};

use crate::client::Pilot;
use crate::hud::{self, HudExtras};
use crate::screens::{Effect, Event, Screen, Screens, SessionKind};
use crate::session::SessionState;
use crate::settings::{GameSettings, Graphics, ModelDetail, VsyncMode};
use crate::ui::{self, StartPosition, UiState};

use super::apply::{WindowMode, audio_levels, fl_bus};
use super::camera::{CameraMode, CameraRig, Eye, Subject};
use super::keyboard::{InputHub, PilotState, add_pause};
use super::launch::{self, Destination, LaunchMsg, LaunchRequest, Launched};
use super::scene::{SceneModels, Sky, build_frame, dquat, dvec, instances};
use super::sound::{FlightHearing, FlightSound, GameSound};
use super::world::{WorldTerrain, altitude_of, local_up, world_point};
use super::{AppError, AppOptions};

/// The Nevada airfield free flights start at (runway threshold area), degrees.
pub const NEVADA_AIRFIELD: (f64, f64) = (36.2362, -115.0342);
/// Runway heading of the free-flight start, degrees.
const NEVADA_RUNWAY_HEADING_DEG: f64 = 210.0;
/// Speed of an air start, m/s (a trainer's comfortable cruise).
const AIR_START_SPEED_MPS: f64 = 180.0;
/// How long a scripted run may wait for its session on top of `--seconds`.
const SCRIPTED_GRACE: Duration = Duration::from_secs(60);

struct Gfx {
    window: Arc<Window>,
    gpu: Gpu,
    surface: WindowSurface,
    renderer: Renderer,
    painter: UiPainter,
    egui: egui_winit::State,
    /// Compiled pipelines kept between runs; saved once after the first frame.
    pipeline_cache: Option<fl_render::DiskPipelineCache>,
    pipeline_cache_saved: bool,
    /// The window mode the settings asked for when it was last applied (a `--size` window
    /// keeps its size until the player changes the setting).
    mode: WindowMode,
}

/// A running session and everything drawn for it.
struct Flight {
    launched: Launched,
    world: WorldTerrain,
    models: SceneModels,
    rig: CameraRig,
    /// The player's pilot state for this flight (the controls are the [`InputHub`]'s).
    pilot: PilotState,
    autopilot: Option<Box<dyn Pilot + Send>>,
    sky: Sky,
    /// Session time lost to single-player pauses (the embedded server stood still too).
    paused_total: Duration,
    paused_at: Option<Instant>,
    flight_started: Option<Instant>,
    record: super::record::FlightRecord,
    /// Entity viewed instead of the own aircraft (`[`/`]`).
    view_index: Option<u32>,
    /// The last 10 s of the link, for the F3 overlay.
    netgraph: crate::netgraph::NetGraph,
    /// The flight heard: own aircraft, others, guns, effects.
    sound: FlightSound,
    /// The flight seen beyond the models: tracers, fireballs, smoke, flames.
    effects: crate::effects::VisualEffects,
    /// The mission flown (single player from a brief), for the HUD's objective and the debrief.
    mission: Option<FlownMission>,
}

/// The seed a single-player mission runs with (combat draws, the scripts' `math.random`): fixed,
/// so a retry replays the same mission for the same flying.
const MISSION_SEED: u64 = 1;

/// A mission as the client knows it from its own content (the server runs the same file).
struct FlownMission {
    name: String,
    objectives: Vec<fl_content::mission::Objective>,
}

impl FlownMission {
    fn progress(&self, client: &crate::client::Client) -> Vec<crate::objectives::Progress> {
        let session = client.session();
        crate::objectives::progress(&self.objectives, session.mission(), &session.combat().kills)
    }
}

impl Flight {
    fn now(&self) -> Duration {
        let paused = self.paused_total + self.paused_at.map_or(Duration::ZERO, |t| t.elapsed());
        self.launched.started.elapsed().saturating_sub(paused)
    }
}

pub(super) struct App {
    opts: AppOptions,
    gfx: Option<Gfx>,
    ctx: egui::Context,
    screens: Screens,
    ui: UiState,
    settings_path: Option<PathBuf>,
    content_rx: Option<Receiver<Result<LoadedContent, String>>>,
    content: Option<Arc<Content>>,
    /// The Free Flight aircraft pictures, drawn on a thread once content and the device are up.
    thumbnails: super::thumbnails::Thumbnails,
    launch_rx: Option<Receiver<LaunchMsg>>,
    /// The launch's question about a new server's identity (dropping it declines).
    trust_question: Option<launch::TrustQuestion>,
    flight: Option<Flight>,
    pending_screenshot: Option<PathBuf>,
    /// A session start that failed before its thread ran (a bad address): reported next frame.
    pending_failure: Option<String>,
    /// A chat or console box opened by a key this frame: that key's character is not typed
    /// into it.
    swallow_text: bool,
    /// The sky of the next or current flight.
    sky: Sky,
    show_netgraph: bool,
    /// Keyboard, mouse and devices through the bindings: flight controls, game actions, menu
    /// keys and hot-plug notices (devices polled once per frame).
    input: InputHub,
    /// The sound device (silent when there is none).
    audio: fl_audio::AudioOutput,
    /// Whether the window has the keyboard focus (the sound may mute without it).
    focused: bool,
    /// Menu music, the pack's sounds, the output's tick.
    game_sound: GameSound,
    started: Instant,
    last_present: Option<Instant>,
    /// Set when the app must end with an error.
    pub(super) error: Option<AppError>,
    /// A scripted run reached its end.
    pub(super) finished: bool,
    pub(super) frames: u64,
    pub(super) first_flight_frame: Option<Duration>,
    pub(super) screenshot_written: Option<PathBuf>,
}

impl App {
    pub(super) fn new(opts: AppOptions) -> App {
        let (settings, warning, settings_path) = match &opts.settings_path {
            Some(p) => {
                let loaded = GameSettings::load(p);
                if let Some(from) = &loaded.migrated_from {
                    tracing::info!(
                        "settings read from {}; they will be saved to {}",
                        from.display(),
                        p.display()
                    );
                }
                (loaded.settings, loaded.warning, Some(p.clone()))
            }
            None => (GameSettings::default(), None, None),
        };
        let mut ui = UiState::new(settings);
        // The Join screen's browser listens for LAN servers on the discovery port.
        ui.browser_config = crate::browser::BrowserConfig::default();
        let (bindings, bindings_file, bindings_warning) =
            load_bindings(opts.bindings_path.as_deref());
        // The Loading screen's controls help shows the player's bindings.
        ui.controls = ui::Rebinder::new(bindings.clone());
        ui.settings_warning = match (warning, bindings_warning) {
            (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
            (a, b) => a.or(b),
        };
        if let Some(id) = &opts.aircraft {
            ui.free_flight.aircraft = Some(id.clone());
        }
        if opts.scripted.is_some() {
            // An autopilot flies a scripted flight: it starts in the air.
            ui.free_flight.start = StartPosition::Air {
                altitude_m: 3_000.0,
            };
        }
        let content_rx = Some(load_content_in_background(
            opts.content_options.clone(),
            opts.aircraft.clone(),
        ));
        App {
            opts,
            gfx: None,
            ctx: egui::Context::default(),
            screens: Screens::new(),
            ui,
            settings_path,
            content_rx,
            content: None,
            thumbnails: Default::default(),
            launch_rx: None,
            trust_question: None,
            flight: None,
            pending_screenshot: None,
            pending_failure: None,
            swallow_text: false,
            sky: Sky {
                time: utc_for_local_hour(10.0, NEVADA_AIRFIELD.1),
                weather: Weather::CLEAR,
            },
            show_netgraph: false,
            input: InputHub::start(bindings, bindings_file),
            audio: fl_audio::AudioOutput::open(),
            focused: true,
            game_sound: GameSound::default(),
            started: Instant::now(),
            last_present: None,
            error: None,
            finished: false,
            frames: 0,
            first_flight_frame: None,
            screenshot_written: None,
        }
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: AppError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        event_loop.exit();
    }

    fn start_gfx(&mut self, event_loop: &ActiveEventLoop) -> Result<Gfx, AppError> {
        let mode = WindowMode::of(&self.ui.settings.graphics);
        let (w, h) = match (self.opts.size, mode) {
            (Some(size), _) => size,
            (None, WindowMode::Windowed(r)) => (r.width, r.height),
            (None, WindowMode::Borderless) => {
                let r = self.ui.settings.graphics.resolution.clamped();
                (r.width, r.height)
            }
        };
        let mut attrs = Window::default_attributes()
            .with_title("fighters-legacy")
            .with_inner_size(PhysicalSize::new(w, h));
        // `--size` asks for a window of that size: no fullscreen for this run (until the
        // player changes the setting).
        if mode == WindowMode::Borderless && self.opts.size.is_none() {
            attrs = attrs.with_fullscreen(Some(WinitFullscreen::Borderless(None)));
        }
        let window = event_loop
            .create_window(attrs)
            .map(Arc::new)
            .map_err(|e| AppError::NoDisplay(e.to_string()))?;
        let inner = window.inner_size();
        let vsync = vsync_of(self.ui.settings.graphics.vsync);
        let (mut gpu, surface) = gpu_for_window(
            window.clone(),
            inner.width.max(1),
            inner.height.max(1),
            vsync,
        )?;
        tracing::info!(adapter = %gpu.info.name, "window opened");
        let pipeline_cache = crate::content::user_cache_dir()
            .map(|d| fl_render::DiskPipelineCache::open(&mut gpu, &d.join("pipelines")));
        let renderer = Renderer::new(&gpu)?;
        let painter = UiPainter::for_surface(&gpu, &surface);
        let egui = egui_winit::State::new(
            self.ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            None,
            Some(gpu.device.limits().max_texture_dimension_2d as usize),
        );
        Ok(Gfx {
            window,
            gpu,
            surface,
            renderer,
            painter,
            egui,
            pipeline_cache,
            pipeline_cache_saved: false,
            mode,
        })
    }

    /// Applies one event to the screens and performs the effects.
    fn handle(&mut self, event_loop: &ActiveEventLoop, event: Event) {
        let before = self.screens.current();
        let effects = self.screens.handle(event);
        let after = self.screens.current();
        if after != before {
            tracing::info!("screen {before:?} -> {after:?}");
        }
        for fx in effects {
            self.perform(event_loop, fx);
        }
    }

    fn perform(&mut self, event_loop: &ActiveEventLoop, fx: Effect) {
        match fx {
            Effect::CaptureMouse(on) => {
                if let Some(g) = &self.gfx {
                    capture_mouse(&g.window, on && self.opts.scripted.is_none());
                }
                self.input.release_all();
            }
            Effect::StartSession(kind) => self.start_session(kind),
            Effect::StopSession => self.stop_session("left the flight"),
            Effect::PauseServer => {
                if let Some(f) = &mut self.flight {
                    if let Some(s) = &f.launched.server {
                        s.pause();
                    }
                    f.paused_at.get_or_insert_with(Instant::now);
                }
            }
            Effect::ResumeServer => {
                if let Some(f) = &mut self.flight {
                    if let Some(s) = &f.launched.server {
                        s.resume();
                    }
                    if let Some(t) = f.paused_at.take() {
                        f.paused_total += t.elapsed();
                    }
                }
            }
            Effect::SaveSettings => {
                self.ui.save_settings(self.settings_path.as_deref());
                self.apply_rebinding();
            }
            Effect::RememberServer(address) => {
                self.ui.settings.remember_server(&address);
                self.ui.save_settings(self.settings_path.as_deref());
            }
            Effect::TrustServer => {
                // The launch records the identity and joins.
                self.ui.tofu_prompt = None;
                if let Some(q) = self.trust_question.take() {
                    q.answer(true);
                }
            }
            Effect::ShowMessage(m) => tracing::info!("{m}"),
            Effect::Exit => event_loop.exit(),
        }
    }

    /// Applies the settings that take effect without a restart, once a frame (cheap when
    /// nothing changed), so the Settings screen's changes show while it is up: vsync, the
    /// window mode and size, the render scale, the network tuning of a running flight and the sound levels. The
    /// field of view, the HUD, the UI scale, the frame cap and the detail levels are read where
    /// they are used, every frame.
    fn apply_settings(&mut self) {
        let settings = &self.ui.settings;
        if let Some(g) = &mut self.gfx {
            g.surface
                .set_vsync(&g.gpu, vsync_of(settings.graphics.vsync));
            g.surface
                .set_render_scale(&g.gpu, settings.graphics.render_scale);
            let mode = WindowMode::of(&settings.graphics);
            if mode != g.mode {
                g.mode = mode;
                apply_window_mode(g, mode);
            }
        }
        if let Some(f) = &mut self.flight {
            let client = &mut f.launched.client;
            let wanted = settings.net.apply_to(client.config());
            if &wanted != client.config() {
                client.set_config(wanted);
            }
        }
        self.apply_audio_settings();
    }

    /// The settings' sound levels on the output: the master volume (muted while the window is
    /// in the background, when the player asked for that).
    fn apply_audio_settings(&self) {
        let levels = audio_levels(&self.ui.settings.audio, self.focused);
        if self.audio.master_volume() != levels.master {
            self.audio.set_master_volume(levels.master);
        }
        for (bus, v) in levels.buses {
            let bus = fl_bus(bus);
            if self.audio.bus_volume(bus) != v {
                self.audio.set_bus_volume(bus, v);
            }
        }
        // Muting in the background is the player's choice; otherwise the mix plays on in full
        // (the master above is already 0 while muted).
        let unfocused = if self.ui.settings.audio.mute_when_unfocused {
            0.0
        } else {
            1.0
        };
        self.audio.set_unfocused_gain(unfocused);
    }

    fn start_session(&mut self, kind: SessionKind) {
        let setup = self.ui.free_flight.clone();
        let mut local = self.opts.local.clone();
        let (lat, lon) = NEVADA_AIRFIELD;
        let (altitude_m, speed_mps) = match setup.start {
            StartPosition::Air { altitude_m } => (altitude_m, AIR_START_SPEED_MPS),
            // Parked on the runway (the server's ground spawn: speed 0).
            StartPosition::Runway => (0.0, 0.0),
        };
        let place = fl_server::server::GeoAnchor {
            lat_deg: lat,
            lon_deg: lon,
        };
        local.server.spawn_points = vec![fl_server::server::SpawnPoint {
            x: 0.0,
            z: 0.0,
            altitude_m,
            heading_deg: NEVADA_RUNWAY_HEADING_DEG,
            speed_mps,
            anchor: Some(place),
        }];
        local.server.weather.start_hour = setup.time_of_day_h.clamp(0.0, 23.99);
        local.server.weather.cycle = vec![fl_server::weather::PresetWeather::typical(
            weather_preset(&setup.weather),
        )];
        // A mission from a brief: the embedded server loads the same file from the same content
        // and starts it before the player joins (docs/ui.md, *The missions list*).
        let mut mission_sky = None;
        if let SessionKind::SinglePlayer { mission: Some(id) } = &kind {
            let loaded = match self.content.as_deref() {
                Some(c) => c.load_mission(id).map_err(|e| e.to_string()),
                None => Err(format!("mission {id}: the content has not loaded yet")),
            };
            match loaded {
                Ok(checked) => {
                    let m = &checked.mission;
                    mission_sky = Some((
                        m.start_seconds_of_day() / 3600.0,
                        m.anchor.lon_deg,
                        m.weather.name().to_owned(),
                    ));
                    local.mission = Some(fl_server::mission_director::MissionDirector::new(
                        vec![checked],
                        // The player retries from the debrief: the run stays ended until then.
                        fl_server::mission_director::OnEnd::Hold,
                        0,
                        MISSION_SEED,
                    ));
                }
                Err(e) => {
                    self.launch_rx = None;
                    self.pending_failure = Some(e);
                    return;
                }
            }
        }
        let destination = match &kind {
            SessionKind::SinglePlayer { .. } => Destination::SinglePlayer,
            SessionKind::Multiplayer { address } => match crate::address::parse_target(address) {
                Ok((host, port)) => Destination::Server {
                    host,
                    port,
                    pin: self.opts.pin,
                    known_hosts: self
                        .opts
                        .known_hosts
                        .clone()
                        .unwrap_or_else(crate::headless::default_known_hosts),
                },
                Err(e) => {
                    let msg = format!("{address}: {e}");
                    self.launch_rx = None;
                    // Reported through the state machine so the player sees it.
                    self.pending_failure = Some(msg);
                    return;
                }
            },
        };
        let mut session = self.opts.session.clone();
        let callsign = &self.ui.settings.player.callsign;
        if !callsign.is_empty() && !self.opts.callsign_given {
            session.callsign = callsign.clone();
        }
        let aircraft = setup
            .aircraft
            .clone()
            .or_else(|| self.opts.aircraft.clone())
            .or_else(|| {
                // Our own trainer when its pack is loaded, else the builtin one.
                self.content
                    .as_deref()
                    .map(|c| crate::content::default_aircraft(c).to_owned())
            });
        let req = LaunchRequest {
            destination,
            content: self.content.clone(),
            content_options: self.opts.content_options.clone(),
            aircraft,
            local,
            session,
            // The player's network tuning over the command line's configuration.
            client: self.ui.settings.net.apply_to(&self.opts.client),
        };
        self.sky = match &mission_sky {
            // The mission's own local time at its anchor and its weather.
            Some((hour, lon, preset)) => Sky {
                time: utc_for_local_hour(*hour, *lon),
                weather: weather_named(preset),
            },
            None => Sky {
                time: utc_for_local_hour(setup.time_of_day_h, lon),
                weather: weather_named(&setup.weather),
            },
        };
        self.ui.debrief = None;
        self.launch_rx = Some(launch::start(req));
    }

    fn stop_session(&mut self, reason: &str) {
        self.launch_rx = None;
        // An unanswered trust prompt is declined: the launch ends without recording anything.
        self.trust_question = None;
        self.ui.tofu_prompt = None;
        // The overlays close and the operator token is forgotten with the session.
        self.ui.social.reset();
        self.ui.social_view = Default::default();
        if let Some(mut f) = self.flight.take() {
            self.ui.debrief = Some(debrief(&f));
            f.launched.client.disconnect(reason);
            let now = f.now();
            let mut idle = crate::autopilot::Idle;
            f.launched.client.frame(now, &mut idle);
            if let Some(s) = f.launched.server.take() {
                s.stop();
            }
        }
    }
}

impl App {
    /// One of the game's own actions, pressed in flight (pause is the caller's: an Escape key).
    fn game_action(&mut self, a: fl_input::Action) {
        use fl_input::Action as A;
        match a {
            A::Screenshot => self.pending_screenshot = Some(screenshot_path()),
            A::NetGraph => self.show_netgraph = !self.show_netgraph,
            A::CameraNext => {
                if let Some(f) = &mut self.flight {
                    f.rig.cycle();
                }
            }
            A::ViewNext | A::ViewPrev => {
                if let Some(f) = &mut self.flight {
                    f.view_index = next_view(f, a == A::ViewNext);
                }
            }
            A::Chat => {
                let online = matches!(
                    self.screens.session(),
                    Some(SessionKind::Multiplayer { .. })
                );
                if online && !self.ui.social.typing() {
                    self.ui
                        .social
                        .open_chat(fl_protocol::enums::ChatChannel::All);
                    self.swallow_text = true;
                    self.input.release_all();
                }
            }
            _ => {}
        }
    }

    /// Content for the menus (aircraft list), loaded on a thread at start.
    fn poll_content(&mut self) {
        let Some(rx) = &self.content_rx else { return };
        match rx.try_recv() {
            Ok(Ok((c, missions))) => {
                self.ui.aircraft = aircraft_choices(&c);
                // Free Flight offers what a plain start flies: our FL-1 trainer when loaded.
                if self.ui.free_flight.aircraft.is_none() {
                    self.ui.free_flight.aircraft =
                        Some(crate::content::default_aircraft(&c).to_owned());
                }
                self.ui.missions = missions;
                self.content = Some(c);
                self.content_rx = None;
            }
            Ok(Err(e)) => {
                self.ui.banner = Some(e);
                self.content_rx = None;
            }
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => self.content_rx = None,
        }
    }

    /// Progress and the end of a session start.
    fn poll_launch(&mut self, event_loop: &ActiveEventLoop) {
        if let Some(msg) = self.pending_failure.take() {
            self.handle(event_loop, Event::SessionFailed(msg));
        }
        loop {
            let Some(rx) = &self.launch_rx else { return };
            let msg = match rx.try_recv() {
                Ok(m) => m,
                Err(TryRecvError::Empty) => return,
                Err(TryRecvError::Disconnected) => {
                    self.launch_rx = None;
                    self.handle(
                        event_loop,
                        Event::SessionFailed("the loading thread stopped unexpectedly".into()),
                    );
                    return;
                }
            };
            match msg {
                LaunchMsg::Progress(line) => self.handle(event_loop, Event::Progress(line)),
                LaunchMsg::Trust(q) => {
                    self.ui.tofu_prompt = Some(ui::TofuPrompt {
                        address: q.server.clone(),
                        fingerprint_hex: q.fingerprint.to_string(),
                    });
                    self.trust_question = Some(q);
                }
                LaunchMsg::Failed(e) => {
                    self.launch_rx = None;
                    self.handle(event_loop, Event::SessionFailed(e));
                }
                LaunchMsg::Ready(launched) => {
                    self.launch_rx = None;
                    match self.begin_flight(*launched) {
                        Ok(f) => {
                            self.input.new_flight();
                            self.flight = Some(f);
                            self.handle(
                                event_loop,
                                Event::Progress("streaming terrain around the aircraft…".into()),
                            );
                        }
                        Err(e) => self.handle(event_loop, Event::SessionFailed(e.to_string())),
                    }
                }
            }
        }
    }

    fn begin_flight(&mut self, launched: Launched) -> Result<Flight, AppError> {
        let mission = match self.screens.session() {
            Some(SessionKind::SinglePlayer { mission: Some(id) }) => {
                match launched.content.load_mission(id) {
                    Ok(checked) => Some(FlownMission {
                        name: checked.mission.name.clone(),
                        objectives: checked.mission.objectives(),
                    }),
                    Err(e) => {
                        tracing::warn!("mission {id}: {e}");
                        None
                    }
                }
            }
            _ => None,
        };
        let gfx = self.gfx.as_mut().ok_or(AppError::NoWindow)?;
        let terrain = crate::content::terrain_of(&launched.content);
        let world = WorldTerrain::start(&gfx.gpu, &mut gfx.renderer, terrain, NEVADA_AIRFIELD)
            .map_err(|e| AppError::Start(e.to_string()))?;
        let autopilot = match &self.opts.scripted {
            Some(s) => Some(crate::autopilot::by_name(&s.autopilot).ok_or_else(|| {
                AppError::Start(format!(
                    "unknown autopilot {:?} (known: {})",
                    s.autopilot,
                    crate::autopilot::AUTOPILOTS.join(", ")
                ))
            })?),
            None => None,
        };
        Ok(Flight {
            launched,
            world,
            models: SceneModels::default(),
            rig: CameraRig::default(),
            pilot: PilotState::default(),
            autopilot,
            sky: self.sky,
            paused_total: Duration::ZERO,
            paused_at: None,
            flight_started: None,
            record: super::record::FlightRecord::new(),
            view_index: None,
            netgraph: crate::netgraph::NetGraph::new(),
            sound: FlightSound::default(),
            effects: crate::effects::VisualEffects::default(),
            mission,
        })
    }

    /// Services the session and reports its changes to the screens.
    fn service_session(&mut self, event_loop: &ActiveEventLoop) {
        let screen = self.screens.current();
        let Some(f) = &mut self.flight else { return };
        if f.paused_at.is_none() {
            let now = f.now();
            let mut player;
            let pilot: &mut dyn Pilot = match &mut f.autopilot {
                Some(a) => a.as_mut(),
                None => {
                    player = self.input.pilot(&mut f.pilot);
                    &mut player
                }
            };
            f.launched.client.frame(now, pilot);
            f.netgraph.sample(now, &f.launched.client);
        }
        if matches!(
            self.screens.session(),
            Some(SessionKind::Multiplayer { .. })
        ) {
            super::social::send_requests(&mut self.ui, &mut f.launched.client);
            super::social::refresh_view(&mut self.ui, &f.launched.client, f.now(), true);
        }
        let client = &f.launched.client;
        let ended = client.session().state() == SessionState::Ended;
        let own = client.render_frame().own().is_some();
        let reason = || {
            client
                .end_reason()
                .map_or_else(|| "the session ended".to_owned(), |r| r.to_string())
        };
        match screen {
            Screen::Loading if ended => {
                let msg = reason();
                self.flight = None;
                self.handle(event_loop, Event::SessionFailed(msg));
            }
            Screen::Loading if own => self.handle(event_loop, Event::SessionReady),
            Screen::Flight | Screen::Pause if ended => {
                let msg = reason();
                let online = matches!(
                    self.screens.session(),
                    Some(SessionKind::Multiplayer { .. })
                );
                let lost = if online && super::social::rejoinable(client.end_reason()) {
                    Event::ConnectionLost(msg)
                } else {
                    Event::SessionLost(msg)
                };
                self.stop_session("session ended");
                self.handle(event_loop, lost);
            }
            Screen::Flight | Screen::Pause if self.screens.debrief().is_none() => {
                // The server ended the mission: on to the debrief (the session stays up until
                // the player leaves or retries).
                if let Some(out) = client.session().mission().outcome {
                    let text = mission_result(Some(out.success)).to_owned();
                    self.handle(event_loop, Event::MissionEnded(text));
                }
            }
            _ => {}
        }
    }

    /// Hands a key or mouse button to the Controls tab's listening capture. Returns whether
    /// it took the event. The left button over the panel stays the menus' (the Cancel button
    /// must stay clickable): it binds when clicked outside the panel.
    fn capture_input(&mut self, event: &WindowEvent) -> bool {
        let ev = match event {
            WindowEvent::KeyboardInput { event, .. } => fl_input::InputEvent::key(
                &event.logical_key,
                event.state == ElementState::Pressed,
                event.repeat,
            ),
            WindowEvent::MouseInput { state, button, .. } => {
                if *button == winit::event::MouseButton::Left && self.ctx.is_pointer_over_egui() {
                    return false;
                }
                Some(fl_input::InputEvent::Mouse {
                    button: fl_input::MouseButton::from(*button),
                    pressed: *state == ElementState::Pressed,
                })
            }
            _ => return false,
        };
        match ev {
            Some(ev) => {
                self.ui.controls.event(&ev);
                true
            }
            // A key bindings cannot name: swallowed, so it does not act on the menus either.
            None => matches!(event, WindowEvent::KeyboardInput { .. }),
        }
    }

    /// Settings closed: flies with and saves the Controls tab's changes, if any.
    fn apply_rebinding(&mut self) {
        if let Some(b) = self.ui.controls.take_changes()
            && let Err(e) = self.input.apply_bindings(b)
        {
            tracing::warn!("bindings not saved: {e}");
            self.ui.settings_warning = Some(format!("The controls could not be saved: {e}"));
        }
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        // Devices first, so this frame's input ticks and menus see them.
        let flying = self.screens.current() == Screen::Flight;
        let mut pad_keys = self.input.poll(self.started.elapsed(), flying);
        if self.screens.current() == Screen::Settings {
            // The Controls tab edits a copy of the flown bindings and sees the devices as the
            // mapper does; a listening capture takes the pads' input (A binds, not clicks).
            let c = &mut self.ui.controls;
            c.enter(self.input.bindings());
            c.devices = self.input.mapper().devices().clone();
            if c.listening() {
                for ev in self.input.last_events() {
                    c.event(&fl_input::InputEvent::Device(ev.clone()));
                }
                pad_keys.clear();
            }
        } else {
            // Left Settings without its Back (e.g. a session failing): keep the changes.
            self.apply_rebinding();
        }
        // The game's own actions pressed since the last frame (keys arrive between frames).
        for a in self.input.take_game_actions() {
            if a == fl_input::Action::Pause {
                add_pause(&mut pad_keys);
            } else {
                self.game_action(a);
            }
        }
        self.poll_content();
        // Thumbnails for the menus (a scripted flight never shows them).
        if let (Some(g), Some(c), None) = (&self.gfx, &self.content, &self.opts.scripted) {
            self.thumbnails.start_once(&g.gpu, c, &self.ui.aircraft);
        }
        self.thumbnails.poll(&self.ctx, &mut self.ui.aircraft);
        self.poll_launch(event_loop);
        self.service_session(event_loop);
        self.apply_settings();
        if self.gfx.is_none() {
            return;
        }
        let screen = self.screens.current();
        let in_flight_screens = matches!(screen, Screen::Flight | Screen::Pause);
        let dt = self
            .last_present
            .map_or(1.0 / 60.0, |t| t.elapsed().as_secs_f64().min(0.25));
        let Some(gfx) = &mut self.gfx else { return };
        let (w, h) = gfx.surface.size();
        let aspect = f64::from(w) / f64::from(h.max(1));
        let fov = self.ui.settings.camera.fov_deg;
        let graphics = &self.ui.settings.graphics;
        // The world: the flight's when one runs, else an empty sky over the airfield.
        let (frame, reading) = match &mut self.flight {
            Some(f) if in_flight_screens || screen == Screen::Loading => {
                let (frame, reading) = flight_frame(f, gfx, dt, fov, aspect, (w, h), graphics);
                (frame, reading)
            }
            _ => {
                // The flight's tracers and smoke do not follow the player into the menus.
                gfx.renderer.set_particles(&[]);
                (menu_frame(&self.sky, fov, aspect), None)
            }
        };
        if let Some(f) = &mut self.flight {
            let throttle = f
                .autopilot
                .is_none()
                .then(|| self.input.mapper().controls().throttle);
            let hearing = FlightHearing {
                content: &f.launched.content,
                client: &f.launched.client,
                reading: reading.as_ref(),
                throttle,
                camera: in_flight_screens
                    .then_some((frame.camera.position, frame.camera.orientation)),
                bank: self.game_sound.bank().map(|b| b.as_ref()),
                now: f.now(),
            };
            f.sound.update(&self.audio, &hearing);
        }
        self.game_sound.frame(
            &self.audio,
            self.content.as_ref(),
            screen,
            self.flight.is_some(),
            self.flight
                .as_ref()
                .and_then(|f| f.launched.client.session().mission().music),
            self.started.elapsed(),
        );
        let Some(out) = gfx.surface.acquire(&gfx.gpu) else {
            gfx.window.request_redraw();
            return;
        };
        if let Err(e) = gfx
            .renderer
            .render_to_surface(&gfx.gpu, &frame, &gfx.surface, &out)
        {
            self.fail(event_loop, e.into());
            return;
        }
        // HUD and screens.
        let mut raw = gfx.egui.take_egui_input(&gfx.window);
        if std::mem::take(&mut self.swallow_text) {
            raw.events.retain(|e| !matches!(e, egui::Event::Text(_)));
        }
        // The pad's menu keys arrive as keys: the screens answer them as the keyboard's.
        raw.events.extend(pad_keys);
        let hud_settings = self.ui.settings.to_hud();
        let online = matches!(
            self.screens.session(),
            Some(SessionKind::Multiplayer { .. })
        );
        let mut extras = self
            .flight
            .as_ref()
            .map(|f| hud_extras(f, reading.as_ref(), online))
            .unwrap_or_default();
        extras
            .notices
            .extend(self.input.notices(self.started.elapsed()));
        let show_hud = in_flight_screens && screen == Screen::Flight;
        let netgraph = self
            .flight
            .as_ref()
            .filter(|_| self.show_netgraph && show_hud)
            .map(|f| &f.netgraph);
        let screens = &self.screens;
        let ui_state = &mut self.ui;
        let mut events = Vec::new();
        let output = self.ctx.run_ui(raw, |ui| {
            let ctx = ui.ctx().clone();
            let screen_rect = ctx.content_rect();
            let painter = ctx.layer_painter(egui::LayerId::background());
            if show_hud && let Some(r) = &reading {
                hud::draw(&painter, screen_rect, r, &extras, &hud_settings);
            }
            if let Some(g) = netgraph {
                let size = crate::netgraph::NetGraph::preferred_size(
                    screen_rect.height(),
                    hud_settings.ui_scale,
                );
                let rect = egui::Rect::from_min_size(
                    egui::pos2(screen_rect.right() - size.x - 8.0, screen_rect.top() + 8.0),
                    size,
                );
                g.draw(&painter, rect);
            }
            events = ui::show(&ctx, screens, ui_state);
        });
        gfx.egui
            .handle_platform_output(&gfx.window, output.platform_output.clone());
        let ui_frame = UiFrame::from_output(&self.ctx, output);
        if let Err(e) = gfx
            .painter
            .paint_on_surface(&gfx.gpu, &gfx.surface, &out, ui_frame)
        {
            self.fail(event_loop, e.into());
            return;
        }
        gfx.window.pre_present_notify();
        gfx.surface.present(&gfx.gpu, out);
        self.last_present = Some(Instant::now());
        self.frames += 1;
        if !gfx.pipeline_cache_saved {
            gfx.pipeline_cache_saved = true;
            if let Some(cache) = &gfx.pipeline_cache {
                match cache.save(&gfx.gpu) {
                    Ok(bytes) => tracing::debug!(bytes, "pipeline cache saved"),
                    Err(e) => tracing::warn!("pipeline cache not saved: {e}"),
                }
            }
        }
        if screen == Screen::Flight && self.first_flight_frame.is_none() {
            let t = self.started.elapsed();
            self.first_flight_frame = Some(t);
            tracing::info!(
                seconds = t.as_secs_f64(),
                pipeline_cache = ?gfx.pipeline_cache.as_ref().map(|c| c.start()),
                "first flight frame"
            );
        }
        if let Some(path) = self.pending_screenshot.take()
            && let Err(e) = self.screenshot(&frame, reading.as_ref(), &extras, &path)
        {
            self.ui.banner = Some(format!("screenshot failed: {e}"));
        }
        for ev in events {
            self.handle(event_loop, ev);
        }
        if let Some(f) = &mut self.flight {
            match self.screens.current() {
                Screen::Flight => {
                    f.flight_started.get_or_insert_with(Instant::now);
                }
                Screen::Debrief if self.ui.debrief.is_none() => {
                    self.ui.debrief = Some(debrief(f));
                }
                _ => {}
            }
        }
        self.scripted_step(event_loop, &frame, reading.as_ref(), &extras);
        if let Some(g) = &self.gfx {
            g.window.request_redraw();
        }
    }

    /// A scripted run (`--seconds`, `--screenshot`): fly, then save and leave.
    fn scripted_step(
        &mut self,
        event_loop: &ActiveEventLoop,
        frame: &fl_render::Frame,
        reading: Option<&crate::instruments::Reading>,
        extras: &HudExtras,
    ) {
        if let Some(address) = self.opts.connect.take() {
            // `--connect`: straight to joining that server.
            self.handle(event_loop, Event::OpenJoin);
            self.handle(event_loop, Event::Connect(address));
            return;
        }
        let Some(s) = self.opts.scripted.clone() else {
            return;
        };
        if self.screens.current() == Screen::MainMenu
            && self.flight.is_none()
            && self.launch_rx.is_none()
        {
            if let Some(m) = self.screens.message() {
                let m = m.to_owned();
                self.fail(event_loop, AppError::Session(m));
                return;
            }
            match &s.mission {
                // A mission: through its list and brief as a player would, once the content
                // (which holds the mission) has loaded.
                Some(id) if self.content.is_some() => {
                    self.handle(event_loop, Event::Missions);
                    self.handle(event_loop, Event::SelectMission(id.clone()));
                    self.handle(event_loop, Event::FlyMission);
                }
                Some(_) => {}
                // The first frame: straight into single player.
                None => self.handle(event_loop, Event::Fly),
            }
            return;
        }
        let limit = Duration::from_secs_f64(s.seconds) + SCRIPTED_GRACE;
        if self.started.elapsed() > limit && self.first_flight_frame.is_none() {
            self.fail(
                event_loop,
                AppError::Session(format!(
                    "the flight did not start within {} s",
                    limit.as_secs()
                )),
            );
            return;
        }
        let Some(f) = &mut self.flight else { return };
        // A mission that ended shows its debrief: the run still ends on time.
        if !matches!(self.screens.current(), Screen::Flight | Screen::Debrief) {
            return;
        }
        let t0 = *f.flight_started.get_or_insert_with(Instant::now);
        if t0.elapsed().as_secs_f64() < s.seconds {
            return;
        }
        if let Some(path) = &s.screenshot {
            if let Err(e) = self.screenshot(frame, reading, extras, path) {
                self.fail(event_loop, e);
                return;
            }
            self.screenshot_written = Some(path.clone());
        }
        self.finished = true;
        self.stop_session("scripted flight finished");
        event_loop.exit();
    }

    /// Draws `frame` and the HUD offscreen at the window's size and writes a PNG (the menus
    /// are left out: a screenshot is of the flight).
    fn screenshot(
        &mut self,
        frame: &fl_render::Frame,
        reading: Option<&crate::instruments::Reading>,
        extras: &HudExtras,
        path: &std::path::Path,
    ) -> Result<(), AppError> {
        let hud_settings = self.ui.settings.to_hud();
        let gfx = self.gfx.as_mut().ok_or(AppError::NoWindow)?;
        let (w, h) = gfx.surface.size();
        // The player's render scale, so the picture is the one on the screen.
        let target =
            OffscreenTarget::with_render_scale(&gfx.gpu.device, w, h, gfx.surface.render_scale())?;
        gfx.renderer.render_offscreen(&gfx.gpu, frame, &target)?;
        if let Some(r) = reading {
            // A context of its own: the offscreen painter needs the whole font atlas, which
            // the window's context sent to the window's painter long ago.
            let ctx = egui::Context::default();
            let scale = gfx.window.scale_factor() as f32;
            let raw = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(w as f32 / scale, h as f32 / scale),
                )),
                ..egui::RawInput::default()
            };
            ctx.set_pixels_per_point(scale);
            let output = ctx.run_ui(raw, |ui| {
                let painter = ui.ctx().layer_painter(egui::LayerId::background());
                hud::draw(&painter, ui.ctx().content_rect(), r, extras, &hud_settings);
            });
            let mut painter = UiPainter::for_offscreen(&gfx.gpu);
            painter.paint_offscreen(&gfx.gpu, &target, UiFrame::from_output(&ctx, output))?;
        }
        let image = target.read_rgba(&gfx.gpu.device, &gfx.gpu.queue)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| AppError::Screenshot {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })?;
        }
        image.save(path).map_err(|e| AppError::Screenshot {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        tracing::info!("screenshot saved to {}", path.display());
        Ok(())
    }
}

/// The world from the flight's camera: services the terrain stream and returns the frame and
/// the own aircraft's instrument reading.
fn flight_frame(
    f: &mut Flight,
    gfx: &mut Gfx,
    dt: f64,
    fov_deg: f64,
    aspect: f64,
    (_, h): (u32, u32),
    graphics: &Graphics,
) -> (fl_render::Frame, Option<crate::instruments::Reading>) {
    let reading = f.launched.client.reading();
    let rf = f.launched.client.render_frame();
    // A paused single-player world stands still: no time in the air passes.
    let record_dt = if f.paused_at.is_some() { 0.0 } else { dt };
    f.record.update(
        record_dt,
        reading.as_ref(),
        rf.own().map(|o| dvec(o.position)),
    );
    let viewed = f.view_index.and_then(|i| rf.entity(i)).or_else(|| rf.own());
    let g = reading.as_ref().map_or(1.0, |r| r.g);
    let eye = match viewed {
        Some(e) => {
            let s = Subject {
                position: dvec(e.position),
                orientation: dquat(e.orientation),
                velocity: dvec(e.velocity),
                load_factor_g: if e.own { g } else { 1.0 },
            };
            f.rig.update(
                dt,
                &s,
                local_up(s.position),
                f.world.ground_m(),
                altitude_of,
            )
        }
        None => {
            let (lat, lon) = NEVADA_AIRFIELD;
            let (e, n, u) = east_north_up(lat.to_radians(), lon.to_radians());
            let p = world_point(lat, lon, 3_000.0);
            Eye {
                position: p,
                forward: (n + e * 0.2 - u * 0.1).normalize(),
                up: u,
                near_m: 0.5,
            }
        }
    };
    let in_cockpit = f.rig.mode == CameraMode::Cockpit && viewed.is_some_and(|e| e.own);
    let drawn = f.world.update(
        &gfx.gpu,
        &mut gfx.renderer,
        &eye,
        (fov_deg, aspect, h),
        graphics.terrain_detail.max_error_px(),
    );
    let content = f.launched.content.clone();
    let types = f.launched.client.session().types();
    let models = &mut f.models;
    let (gpu, renderer) = (&gfx.gpu, &mut gfx.renderer);
    let own_type = rf.own().map(|e| e.type_index);
    let mut drawn_entities = instances(rf, in_cockpit, |t| {
        models.get(gpu, renderer, &content, types, t)
    });
    if graphics.model_detail == ModelDetail::Full {
        for i in &mut drawn_entities {
            i.lod = fl_render::LodHint::Base;
        }
    }
    let frame = build_frame(&eye, fov_deg, aspect, &f.sky, drawn_entities, drawn);
    // Combat and aircraft effects as particles (tracers, launches, fireballs, flames, smoke).
    let now = f.now();
    f.effects.ingest(f.launched.client.effects(), rf, now);
    let particles = f.effects.particles(rf, now, local_up(eye.position));
    gfx.renderer.set_particles(&particles);
    // The cockpit eye of the own type, once its model is known.
    if let Some(t) = own_type
        && let Some(eye_body) = f
            .models
            .get(
                &gfx.gpu,
                &mut gfx.renderer,
                &content,
                f.launched.client.session().types(),
                t,
            )
            .eye_body
    {
        f.rig.cockpit_eye_body = eye_body;
    }
    (frame, reading)
}

/// The sky behind the menus: over the airfield, looking at the horizon.
fn menu_frame(sky: &Sky, fov_deg: f64, aspect: f64) -> fl_render::Frame {
    let (lat, lon) = NEVADA_AIRFIELD;
    let (e, n, u) = east_north_up(lat.to_radians(), lon.to_radians());
    let p = world_point(lat, lon, 2_000.0);
    let eye = Eye {
        position: p,
        forward: (n * 0.8 + e * 0.6 + u * 0.12).normalize(),
        up: u,
        near_m: 0.5,
    };
    build_frame(&eye, fov_deg, aspect, sky, Vec::new(), Vec::new())
}

/// Bingo: this fraction of the internal tanks left means time to head home.
const BINGO_FRACTION: f64 = 0.25;

/// The HUD's extras: max G and bingo from the record and the tanks; ping and loss online only
/// (single player talks to its own process over loopback: nothing to read there).
fn hud_extras(
    f: &Flight,
    reading: Option<&crate::instruments::Reading>,
    online: bool,
) -> HudExtras {
    let bingo_kg = reading
        .filter(|r| r.fuel_fraction > 0.0 && r.fuel_kg.is_finite())
        .map_or(0.0, |r| r.fuel_kg / r.fuel_fraction * BINGO_FRACTION);
    let mut extras =
        crate::netgraph::extras_from_client(&f.launched.client, f.now(), f.record.max_g, bingo_kg);
    if !online {
        extras.ping_ms = None;
        extras.loss_percent = None;
    }
    combat_cues(f, &mut extras);
    if let Some(m) = &f.mission {
        extras.objective = crate::objectives::hud_line(&m.progress(&f.launched.client));
    }
    extras
}

/// The debrief's words for a mission's end (`None`: it had not ended).
fn mission_result(success: Option<bool>) -> &'static str {
    match success {
        Some(true) => "Mission accomplished",
        Some(false) => "Mission failed",
        None => "Not finished",
    }
}

/// The weapon cues and scopes from the own combat state (the prediction's, from
/// `SnapshotOwnState`) and the session's latest `MsgDatalink` (`hud::cues`); the kill feed
/// already in `extras.combat` stays. The designated track is the one the last input carried
/// (`PilotInput::designate`, stepped by the designate key through `hud::cues::next_designation`
/// in `keyboard::PilotState`, or set by an autopilot).
fn combat_cues(f: &Flight, extras: &mut HudExtras) {
    let client = &f.launched.client;
    let content = &f.launched.content;
    let prediction = client.prediction();
    let Some(state) = prediction.state() else {
        return;
    };
    let stations = client
        .own_type_id()
        .and_then(|id| content.types().iter().find(|t| t.id() == id))
        .map(|t| hud::cues::station_infos(content, &t.def))
        .unwrap_or_default();
    let radar_mode = match client.last_input().and_then(|i| i.radar) {
        Some(fl_protocol::enums::RadarMode::Silent) => "OFF",
        Some(fl_protocol::enums::RadarMode::Search) => "SRCH",
        Some(fl_protocol::enums::RadarMode::Stt) => "STT",
        _ => "TWS",
    };
    let inputs = hud::cues::CueInputs {
        state,
        gravity: prediction.planet().gravity(state.position),
        own_index: client.session().own_entity().map(|o| o.idx),
        combat: prediction.combat(),
        stations: &stations,
        datalink: client.session().combat().datalink.as_ref(),
        designated: client
            .last_input()
            .and_then(|i| i.designate)
            .filter(|&t| t != fl_protocol::tlv::DESIGNATE_NONE),
        radar_mode,
    };
    let (cues, scopes) = hud::cues::build(&inputs);
    let mine = extras.combat.get_or_insert_with(Default::default);
    mine.weapon = cues.weapon;
    mine.gun = cues.gun;
    mine.target = cues.target;
    mine.seeker = cues.seeker;
    mine.envelope = cues.envelope;
    extras.scopes = scopes;
}

fn debrief(f: &Flight) -> ui::DebriefStats {
    let mission_end = f
        .mission
        .as_ref()
        .and_then(|_| f.launched.client.session().mission().outcome);
    let ended = match (f.launched.client.end_reason(), mission_end) {
        (Some(r), _) => r.to_string(),
        // The server ended the mission: its result is the outcome line already.
        (None, Some(out)) => mission_result(Some(out.success)).to_owned(),
        (None, None) => "You ended the flight.".to_owned(),
    };
    ui::DebriefStats {
        time_flown_s: f.flight_started.map_or(0.0, |t| t.elapsed().as_secs_f64()),
        distance_m: f.record.distance_m,
        max_g: f.record.max_g,
        landings: f.record.landings,
        ended,
        mission: f.mission.as_ref().map(|m| {
            let session = f.launched.client.session();
            let outcome = session.mission().outcome;
            let tallies = session.combat().tallies;
            ui::MissionDebrief {
                name: m.name.clone(),
                result: mission_result(outcome.map(|o| o.success)).to_owned(),
                elapsed_s: outcome.map(|o| f64::from(o.elapsed_s)),
                objectives: m
                    .progress(&f.launched.client)
                    .into_iter()
                    .map(|p| (p.status.mark().to_owned(), p.objective.text))
                    .collect(),
                kills: tallies.kills,
                losses: tallies.losses,
            }
        }),
    }
}

fn aircraft_choices(content: &Content) -> Vec<ui::AircraftChoice> {
    content
        .types()
        .iter()
        .filter(|t| content.aircraft_type(t.id()).is_ok())
        .map(|t| ui::AircraftChoice {
            type_id: t.id().to_owned(),
            name: t.def.name.clone(),
            pack: t.id().split(':').next().unwrap_or_default().to_owned(),
            thumbnail: None,
        })
        .collect()
}

/// The content and its missions as the menus list them (read on the loading thread).
type LoadedContent = (Arc<Content>, Vec<ui::MissionChoice>);

fn load_content_in_background(
    opts: crate::content::ContentOptions,
    aircraft: Option<String>,
) -> Receiver<Result<LoadedContent, String>> {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("fl-content".into())
        .spawn({
            let tx = tx.clone();
            move || {
                let r = crate::content::load(&opts, aircraft.as_deref())
                    .map(|c| {
                        let missions = super::missions::mission_choices(&c);
                        (c, missions)
                    })
                    .map_err(|e| e.to_string());
                let _ = tx.send(r);
            }
        });
    if let Err(e) = spawned {
        let _ = tx.send(Err(format!("cannot start the content loading thread: {e}")));
    }
    rx
}

fn capture_mouse(window: &Window, on: bool) {
    if on {
        let grabbed = window
            .set_cursor_grab(CursorGrabMode::Locked)
            .or_else(|_| window.set_cursor_grab(CursorGrabMode::Confined));
        if let Err(e) = grabbed {
            tracing::debug!("cannot capture the mouse: {e}");
        }
        window.set_cursor_visible(false);
    } else {
        let _ = window.set_cursor_grab(CursorGrabMode::None);
        window.set_cursor_visible(true);
    }
}

/// Shows the window in `mode`: borderless on its monitor, or windowed at a size (the surface
/// follows on the `Resized` event, or at once when the platform resized synchronously).
fn apply_window_mode(g: &mut Gfx, mode: WindowMode) {
    match mode {
        WindowMode::Borderless => {
            g.window
                .set_fullscreen(Some(WinitFullscreen::Borderless(None)));
        }
        WindowMode::Windowed(r) => {
            if g.window.fullscreen().is_some() {
                g.window.set_fullscreen(None);
            }
            if let Some(size) = g
                .window
                .request_inner_size(PhysicalSize::new(r.width, r.height))
            {
                g.surface.resize(&g.gpu, size.width, size.height);
            }
        }
    }
    tracing::info!(?mode, "window mode applied");
}

fn vsync_of(v: VsyncMode) -> Vsync {
    match v {
        VsyncMode::On => Vsync::On,
        VsyncMode::Adaptive => Vsync::Adaptive,
        VsyncMode::Off => Vsync::Off,
    }
}

/// UTC on the summer solstice of 2026 when the local solar time at `lon_deg` is `hour`.
pub fn utc_for_local_hour(hour: f64, lon_deg: f64) -> UtcTime {
    let h = if hour.is_finite() {
        hour.rem_euclid(24.0)
    } else {
        12.0
    };
    let utc = h - lon_deg / 15.0;
    let day = 21 + utc.div_euclid(24.0) as i64;
    let utc = utc.rem_euclid(24.0);
    let whole = utc.floor();
    let minutes = (utc - whole) * 60.0;
    UtcTime::new(
        2026,
        6,
        day.clamp(20, 22) as u32,
        whole as u32,
        minutes.floor() as u32,
        (minutes - minutes.floor()) * 60.0,
    )
}

/// The weather preset a free-flight setup names (clear when unknown).
pub fn weather_preset(name: &str) -> fl_protocol::enums::WeatherPreset {
    use fl_protocol::enums::WeatherPreset as W;
    match name {
        "partly_cloudy" => W::PartlyCloudy,
        "overcast" => W::Overcast,
        "rain" => W::Rain,
        "storm" => W::Storm,
        "snow" => W::Snow,
        "blizzard" => W::Blizzard,
        _ => W::Clear,
    }
}

/// The renderer's weather for a preset (its typical fog).
fn weather_named(name: &str) -> Weather {
    let p = fl_server::weather::PresetWeather::typical(weather_preset(name));
    Weather::from_message(p.preset as u8, p.fog_density, p.fog_start_m)
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_some() {
            return;
        }
        match self.start_gfx(event_loop) {
            Ok(g) => {
                g.window.request_redraw();
                self.gfx = Some(g);
                event_loop.set_control_flow(ControlFlow::Poll);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if self.screens.current() == Screen::Settings
            && self.ui.controls.listening()
            && self.capture_input(&event)
        {
            // The press binds; the menus never see it (Esc cancels the capture, not Settings).
            return;
        }
        if self.screens.current() == Screen::Settings
            && self.ui.controls.asking()
            && let WindowEvent::KeyboardInput { event: key, .. } = &event
            && key.logical_key == winit::keyboard::Key::Named(winit::keyboard::NamedKey::Escape)
        {
            // Esc on the conflict prompt is its Cancel, as in the capture before it.
            if key.state == ElementState::Pressed {
                self.ui.controls.resolve(fl_input::Choice::Cancel);
            }
            return;
        }
        let consumed = match &mut self.gfx {
            Some(g) => g.egui.on_window_event(&g.window, &event).consumed,
            None => false,
        };
        match event {
            WindowEvent::CloseRequested => {
                self.stop_session("window closed");
                event_loop.exit();
            }
            WindowEvent::Resized(size) => {
                if let Some(g) = &mut self.gfx {
                    g.surface.resize(&g.gpu, size.width, size.height);
                }
            }
            WindowEvent::Focused(focused) => {
                self.focused = focused;
                self.audio.set_focus(focused);
                if !focused {
                    self.input.release_all();
                    // Tab's release will not come while another window has the keyboard.
                    self.ui.social.scoreboard_held = false;
                }
                self.apply_audio_settings();
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            WindowEvent::MouseWheel { delta, .. } if self.screens.current() == Screen::Flight => {
                if let Some(f) = &mut self.flight {
                    let lines = match delta {
                        MouseScrollDelta::LineDelta(_, y) => f64::from(y),
                        MouseScrollDelta::PixelDelta(p) => p.y / 40.0,
                    };
                    f.rig.zoom(lines);
                }
            }
            WindowEvent::KeyboardInput { event, .. } => {
                let screen = self.screens.current();
                let online = matches!(
                    self.screens.session(),
                    Some(SessionKind::Multiplayer { .. })
                );
                if online
                    && matches!(screen, Screen::Flight | Screen::Pause)
                    && !event.repeat
                    && let Some(k) = super::social::overlay_key(
                        &event.logical_key,
                        event.physical_key,
                        event.state == ElementState::Pressed,
                    )
                    && (screen == Screen::Flight || k == super::social::OverlayKey::Console)
                    && super::social::apply_overlay_key(&mut self.ui.social, k)
                {
                    self.swallow_text = true;
                    self.input.release_all();
                }
                // Typing in the chat box or the console never flies the aircraft.
                let flying = screen == Screen::Flight
                    && !self.ui.social.typing()
                    && !(consumed && self.ctx.egui_wants_keyboard_input());
                let pressed = event.state == ElementState::Pressed;
                // Releases always count (a key let go in a menu is let go); presses fly only on
                // the Flight screen.
                if flying || !pressed {
                    self.input
                        .key(&event.logical_key, pressed, event.repeat, flying);
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let flying = self.screens.current() == Screen::Flight;
                let pressed = state == ElementState::Pressed;
                if flying || !pressed {
                    self.input.mouse(button, pressed, flying);
                }
            }
            _ => {}
        }
    }

    fn device_event(&mut self, _: &ActiveEventLoop, _: DeviceId, event: DeviceEvent) {
        if let DeviceEvent::MouseMotion { delta: (dx, dy) } = event
            && self.screens.current() == Screen::Flight
            && let Some(f) = &mut self.flight
        {
            f.rig.mouse(dx, dy);
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        // The FPS cap: wait until the next frame is due (vsync paces the rest).
        let cap = self.ui.settings.graphics.fps_cap;
        match (cap, self.last_present) {
            (c, Some(t)) if c > 0 => {
                let next = t + Duration::from_secs_f64(1.0 / f64::from(c));
                if Instant::now() < next {
                    event_loop.set_control_flow(ControlFlow::WaitUntil(next));
                    return;
                }
                event_loop.set_control_flow(ControlFlow::Poll);
            }
            _ => event_loop.set_control_flow(ControlFlow::Poll),
        }
        if let Some(g) = &self.gfx {
            g.window.request_redraw();
        }
    }
}

/// The next (or previous) entity to view after the current one, by pool index; back to the
/// own aircraft after the last.
fn next_view(f: &Flight, forward: bool) -> Option<u32> {
    let mut others: Vec<u32> = f
        .launched
        .client
        .render_frame()
        .entities
        .iter()
        .filter(|e| !e.own)
        .map(|e| e.idx)
        .collect();
    others.sort_unstable();
    if others.is_empty() {
        return None;
    }
    let pos = f
        .view_index
        .and_then(|v| others.iter().position(|&i| i == v));
    match (pos, forward) {
        (None, true) => others.first().copied(),
        (None, false) => others.last().copied(),
        (Some(p), true) => others.get(p + 1).copied(),
        (Some(p), false) => p.checked_sub(1).and_then(|p| others.get(p).copied()),
    }
}

/// The player's bindings from `path` (`None`: the defaults). Never fails: a bad file is moved
/// aside by fl-input and the defaults are used; what went wrong is logged and returned for the
/// menu's warning line.
fn load_bindings(
    path: Option<&std::path::Path>,
) -> (
    fl_input::Bindings,
    Option<fl_input::store::BindingsFile>,
    Option<String>,
) {
    let Some(path) = path else {
        return (fl_input::Bindings::defaults(), None, None);
    };
    let loaded = fl_input::store::load(path);
    for w in &loaded.warnings {
        tracing::warn!("bindings: {w}");
    }
    let warning = loaded
        .warnings
        .iter()
        .find(|w| w.contains("could not") || w.contains("newer"))
        .cloned();
    (loaded.bindings, Some(loaded.file), warning)
}

/// Where F12 saves: the user's pictures folder (else the data directory, else here).
fn screenshot_path() -> PathBuf {
    let dir = directories::UserDirs::new()
        .and_then(|d| d.picture_dir().map(|p| p.join("fighters-legacy")))
        .or_else(|| crate::content::user_data_dir().map(|d| d.join("screenshots")))
        .unwrap_or_else(|| PathBuf::from("."));
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut n = 0u32;
    loop {
        let p = dir.join(format!("fighters-legacy-{secs}-{n}.png"));
        if !p.exists() || n >= 1_000 {
            return p;
        }
        n += 1;
    }
}

/// Opens the event loop, or says why there is no display.
pub(super) fn open_event_loop() -> Result<EventLoop<()>, AppError> {
    #[cfg(all(unix, not(target_os = "macos")))]
    let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
    if !set("DISPLAY") && !set("WAYLAND_DISPLAY") && !set("WAYLAND_SOCKET") {
        return Err(AppError::NoDisplay(
            "neither DISPLAY nor WAYLAND_DISPLAY is set".to_owned(),
        ));
    }
    EventLoop::new().map_err(|e| AppError::NoDisplay(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_solar_time_becomes_utc_across_midnight() {
        // Nevada is 7 h 40 min behind UTC in solar time.
        let t = utc_for_local_hour(10.0, -115.0);
        assert_eq!((t.year, t.month, t.day), (2026, 6, 21));
        assert!(
            (t.hours - (10.0 + 115.0 / 15.0)).abs() < 1e-6,
            "{}",
            t.hours
        );
        let late = utc_for_local_hour(22.0, -115.0);
        assert_eq!(late.day, 22);
        assert!((late.hours - (22.0 + 115.0 / 15.0 - 24.0)).abs() < 1e-6);
        let east = utc_for_local_hour(2.0, 120.0);
        assert_eq!(east.day, 20);
        let bad = utc_for_local_hour(f64::NAN, -115.0);
        assert!(bad.hours.is_finite() && (0.0..24.0).contains(&bad.hours));
    }

    #[test]
    fn weather_names_map_to_presets_and_unknown_is_clear() {
        use fl_protocol::enums::WeatherPreset as W;
        for (name, _) in ui::WEATHER_PRESETS {
            let p = weather_preset(name);
            assert!(name == "clear" || p != W::Clear, "{name}");
        }
        assert_eq!(weather_preset("lava"), W::Clear);
        assert!(weather_named("storm").cloud_cover > weather_named("clear").cloud_cover);
    }
}

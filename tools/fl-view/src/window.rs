//! The model window (winit): an orbit camera (drag with the left mouse button to orbit, the
//! wheel to zoom) and keys for the level of detail, battle damage, articulation, lighting and
//! the wireframe switch. With no display it fails with one line suggesting `--out`.

use std::sync::Arc;
use std::time::Instant;

use fl_render::surface::{Vsync, WindowSurface, gpu_for_window};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use crate::cli::{Cli, ModelSetup, PreparedModel, Report, upload_model};
use crate::error::ViewError;
use crate::scene::{Lighting, model_frame};
use crate::shot::Timings;

/// The keys, as the window title's help and docs/fl-view.md list them.
pub const KEYS: &str = "drag: orbit, wheel: zoom, L: LOD, D: damage, A: articulation, T: lighting, W: wireframe, Esc: quit";

struct Live {
    window: Arc<Window>,
    surface: WindowSurface,
    setup: ModelSetup,
}

struct App<'a> {
    cli: &'a Cli,
    id: String,
    prepared: Option<PreparedModel>,
    size: (u32, u32),
    live: Option<Live>,
    error: Option<ViewError>,
    frames: u64,
    started: Instant,
    first_frame: Option<f64>,
    timings: Timings,
    dragging: bool,
    last_cursor: Option<(f64, f64)>,
}

/// Opens the window and runs until it is closed (or `--frames` frames were drawn).
pub fn run_window(
    cli: &Cli,
    prepared: PreparedModel,
    size: (u32, u32),
) -> Result<Report, ViewError> {
    let event_loop = open_event_loop()?;
    let mut app = App {
        cli,
        id: prepared.src.id.clone(),
        prepared: Some(prepared),
        size,
        live: None,
        error: None,
        frames: 0,
        started: Instant::now(),
        first_frame: None,
        timings: Timings::default(),
        dragging: false,
        last_cursor: None,
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| ViewError::NoDisplay {
            reason: e.to_string(),
        })?;
    if let Some(e) = app.error {
        return Err(e);
    }
    let mut lines = Vec::new();
    if let Some(live) = &app.live {
        lines.push(live.setup.what.clone());
    }
    lines.push(format!(
        "window closed after {} frame(s); first frame {}",
        app.frames,
        app.first_frame
            .map_or_else(|| "never drawn".to_owned(), |s| format!("after {s:.2} s"))
    ));
    Ok(Report { lines })
}

impl App<'_> {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: ViewError) {
        self.error = Some(e);
        event_loop.exit();
    }

    fn title(&self) -> String {
        let Some(live) = &self.live else {
            return "fl-view".to_owned();
        };
        let s = &live.setup.state;
        format!(
            "fl-view {} | lod {:?} | damage {} | articulation {} | {} | wireframe {} | {}",
            self.id,
            s.lod,
            if s.damaged { "on" } else { "off" },
            if live.setup.scene.poses.is_empty() {
                "none (--pose)"
            } else if s.articulated {
                "on"
            } else {
                "off"
            },
            match s.lighting {
                Lighting::Studio => "studio",
                Lighting::Daylight => "daylight",
            },
            match (s.wireframe, live.setup.renderer.wireframe_supported()) {
                (_, false) => "unavailable on this device",
                (true, true) => "on",
                (false, true) => "off",
            },
            KEYS
        )
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let Some(live) = &mut self.live else {
            return;
        };
        let (w, h) = live.surface.size();
        let frame = model_frame(
            &live.setup.scene,
            &live.setup.state,
            f64::from(w.max(1)) / f64::from(h.max(1)),
        );
        live.setup
            .renderer
            .set_wireframe(live.setup.state.wireframe);
        let Some(out) = live.surface.acquire(&live.setup.gpu) else {
            live.window.request_redraw();
            return;
        };
        if let Err(e) =
            live.setup
                .renderer
                .render_to_surface(&live.setup.gpu, &frame, &live.surface, &out)
        {
            self.fail(event_loop, e.into());
            return;
        }
        live.window.pre_present_notify();
        live.surface.present(&live.setup.gpu, out);
        self.frames += 1;
        if self.first_frame.is_none() {
            let s = self.started.elapsed().as_secs_f64();
            self.first_frame = Some(s);
            eprintln!("first frame after {s:.2} s");
        }
        if let Some(limit) = self.cli.frames {
            if self.frames >= limit {
                event_loop.exit();
            } else {
                live.window.request_redraw();
            }
        }
    }
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.live.is_some() {
            return;
        }
        let attrs = Window::default_attributes()
            .with_title("fl-view")
            .with_inner_size(PhysicalSize::new(self.size.0, self.size.1));
        let window = match event_loop.create_window(attrs) {
            Ok(w) => Arc::new(w),
            Err(e) => {
                return self.fail(
                    event_loop,
                    ViewError::NoDisplay {
                        reason: e.to_string(),
                    },
                );
            }
        };
        let inner = window.inner_size();
        let (w, h) = (inner.width.max(1), inner.height.max(1));
        let (gpu, surface) = match gpu_for_window(window.clone(), w, h, Vsync::On) {
            Ok(v) => v,
            Err(e) => return self.fail(event_loop, e.into()),
        };
        let Some(prepared) = self.prepared.take() else {
            return;
        };
        let mut timings = self.timings;
        let setup = match upload_model(
            self.cli,
            prepared,
            gpu,
            f64::from(w) / f64::from(h),
            &mut timings,
        ) {
            Ok(s) => s,
            Err(e) => return self.fail(event_loop, e),
        };
        self.timings = timings;
        self.live = Some(Live {
            window,
            surface,
            setup,
        });
        let title = self.title();
        if let Some(live) = &self.live {
            live.window.set_title(&title);
            live.window.request_redraw();
        }
        event_loop.set_control_flow(ControlFlow::Wait);
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let mut changed = false;
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                if let Some(live) = &mut self.live {
                    live.surface
                        .resize(&live.setup.gpu, size.width, size.height);
                    changed = true;
                }
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => {
                self.dragging = state == ElementState::Pressed;
            }
            WindowEvent::CursorMoved { position, .. } => {
                let now = (position.x, position.y);
                if let (true, Some(last), Some(live)) =
                    (self.dragging, self.last_cursor, self.live.as_mut())
                {
                    let s = &mut live.setup.state;
                    s.yaw_deg = (s.yaw_deg - (now.0 - last.0) * 0.4).rem_euclid(360.0);
                    s.pitch_deg = (s.pitch_deg + (now.1 - last.1) * 0.4).clamp(-89.0, 89.0);
                    changed = true;
                }
                self.last_cursor = Some(now);
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => f64::from(y),
                    MouseScrollDelta::PixelDelta(p) => p.y / 40.0,
                };
                if let Some(live) = &mut self.live {
                    let s = &mut live.setup.state;
                    s.distance_m = (s.distance_m * 0.9f64.powf(lines)).clamp(
                        live.setup.scene.radius_m * 0.2,
                        live.setup.scene.radius_m * 200.0,
                    );
                    changed = true;
                }
            }
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                match event.logical_key.as_ref() {
                    Key::Named(NamedKey::Escape) => event_loop.exit(),
                    Key::Character(c) => {
                        if let Some(live) = &mut self.live {
                            let s = &mut live.setup.state;
                            match c.to_ascii_lowercase().as_str() {
                                "q" => event_loop.exit(),
                                "l" => s.next_lod(live.setup.scene.lod_files),
                                "d" => s.damaged = !s.damaged,
                                "a" => s.articulated = !s.articulated,
                                "t" => {
                                    s.lighting = match s.lighting {
                                        Lighting::Studio => Lighting::Daylight,
                                        Lighting::Daylight => Lighting::Studio,
                                    }
                                }
                                "w" => s.wireframe = !s.wireframe,
                                _ => {}
                            }
                            changed = true;
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        if changed {
            let title = self.title();
            if let Some(live) = &self.live {
                live.window.set_title(&title);
                live.window.request_redraw();
            }
        }
    }
}

/// The event loop of a window, or `NoDisplay` in the user's terms when there is no display:
/// checked before winit, so no library gets a chance to panic over a missing X11 or Wayland
/// library.
pub(crate) fn open_event_loop() -> Result<EventLoop<()>, ViewError> {
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        return Err(ViewError::NoDisplay {
            reason: "neither DISPLAY nor WAYLAND_DISPLAY is set".to_owned(),
        });
    }
    EventLoop::new().map_err(|e| ViewError::NoDisplay {
        reason: e.to_string(),
    })
}

//! Offscreen pictures of a model from the orbit camera, written as a PNG (the world's picture is
//! world.rs's). Reports how long each stage took, so a modder sees where the time goes.

use std::path::Path;
use std::time::{Duration, Instant};

use fl_render::{Frame, Gpu, OffscreenTarget, Renderer};

use crate::error::ViewError;
use crate::scene::{ModelScene, ViewState, model_frame};

/// How long the stages of one picture took (wall clock, for the user; never asserted).
#[derive(Debug, Clone, Copy, Default)]
pub struct Timings {
    /// Creating the device and the renderer (pipelines).
    pub device: Duration,
    /// Loading the content and the model (or the world's data).
    pub load: Duration,
    /// Drawing, reading back and writing the PNG.
    pub render: Duration,
    /// From the start of the command to the PNG on disk.
    pub total: Duration,
}

impl std::fmt::Display for Timings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "first image in {:.2} s (device {:.2} s, load {:.2} s, render {:.2} s)",
            self.total.as_secs_f64(),
            self.device.as_secs_f64(),
            self.load.as_secs_f64(),
            self.render.as_secs_f64()
        )
    }
}

/// Draws `frame` at `w`×`h` and writes the PNG.
pub fn render_to_png(
    gpu: &Gpu,
    renderer: &mut Renderer,
    frame: &Frame,
    size: (u32, u32),
    out: &Path,
) -> Result<(), ViewError> {
    let target = OffscreenTarget::new(&gpu.device, size.0, size.1)?;
    renderer.render_offscreen(gpu, frame, &target)?;
    target.save_png(&gpu.device, &gpu.queue, out)?;
    Ok(())
}

/// Renders the model scene to `out`.
pub fn model_shot(
    gpu: &Gpu,
    renderer: &mut Renderer,
    scene: &ModelScene,
    state: &ViewState,
    size: (u32, u32),
    out: &Path,
) -> Result<(), ViewError> {
    if renderer.set_wireframe(state.wireframe) != state.wireframe {
        eprintln!(
            "warning: wireframe unavailable on {} (no POLYGON_MODE_LINE); drawn filled",
            gpu.info.name
        );
    }
    let frame = model_frame(scene, state, f64::from(size.0) / f64::from(size.1));
    render_to_png(gpu, renderer, &frame, size, out)
}

/// Measures one stage.
pub fn timed<T>(slot: &mut Duration, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let v = f();
    *slot += t.elapsed();
    v
}

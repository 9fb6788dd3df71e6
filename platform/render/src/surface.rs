//! The window surface path: create a surface from any raw-window-handle window (the game's
//! winit window; this crate does not depend on winit), configure it, resize it, pick a present
//! mode, and hand out frames to draw into.

use std::sync::Arc;

use crate::RenderError;
use crate::gpu::Gpu;
use crate::target::{SceneBuffers, check_size, max_side, scaled_size};

/// How frames are paced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Vsync {
    /// Wait for the display's refresh (Fifo; always supported). No tearing.
    #[default]
    On,
    /// Present at once when the display allows it (Mailbox, else Immediate, else Fifo).
    Off,
    /// Fifo where the display waits, tearing only when a frame is late (FifoRelaxed, else Fifo).
    Adaptive,
}

/// A window the surface can be made from: anything with raw window and display handles that can
/// be shared across threads (winit's `Window` in an `Arc`).
pub trait WindowHandles:
    wgpu::rwh::HasWindowHandle + wgpu::rwh::HasDisplayHandle + Send + Sync + 'static
{
}
impl<T: wgpu::rwh::HasWindowHandle + wgpu::rwh::HasDisplayHandle + Send + Sync + 'static>
    WindowHandles for T
{
}

/// A configured window surface and the HDR buffers of its size.
#[derive(Debug)]
pub struct WindowSurface {
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    pub(crate) scene: SceneBuffers,
    /// The view format frames are drawn in (an sRGB format, so the tonemapper writes linear).
    pub(crate) view_format: wgpu::TextureFormat,
    vsync: Vsync,
    /// Scene pixels per window pixel along each side (see [`crate::RENDER_SCALE_RANGE`]).
    render_scale: f32,
}

/// One acquired frame: draw into it with `Renderer::render_to_surface`, then
/// [`WindowSurface::present`].
#[derive(Debug)]
pub struct SurfaceFrame {
    pub(crate) texture: wgpu::SurfaceTexture,
    pub(crate) view: wgpu::TextureView,
    suboptimal: bool,
}

/// Creates the instance, the surface for `window` and a device that can present to it.
pub fn gpu_for_window<W: WindowHandles>(
    window: Arc<W>,
    width: u32,
    height: u32,
    vsync: Vsync,
) -> Result<(Gpu, WindowSurface), RenderError> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let surface = instance
        .create_surface(window)
        .map_err(|e| RenderError::Surface(e.to_string()))?;
    let gpu = Gpu::with_instance(instance, Some(&surface))?;
    let ws = WindowSurface::configure(&gpu, surface, width, height, vsync)?;
    Ok((gpu, ws))
}

fn choose_present_mode(caps: &[wgpu::PresentMode], vsync: Vsync) -> wgpu::PresentMode {
    let wanted: &[wgpu::PresentMode] = match vsync {
        Vsync::On => &[wgpu::PresentMode::Fifo],
        Vsync::Off => &[
            wgpu::PresentMode::Mailbox,
            wgpu::PresentMode::Immediate,
            wgpu::PresentMode::Fifo,
        ],
        Vsync::Adaptive => &[wgpu::PresentMode::FifoRelaxed, wgpu::PresentMode::Fifo],
    };
    wanted
        .iter()
        .copied()
        .find(|m| caps.contains(m))
        .unwrap_or(wgpu::PresentMode::Fifo)
}

impl WindowSurface {
    /// Configures `surface` for `gpu` at `width` × `height` (a zero size, as when minimised,
    /// is kept at 1 × 1 until the next resize).
    pub fn configure(
        gpu: &Gpu,
        surface: wgpu::Surface<'static>,
        width: u32,
        height: u32,
        vsync: Vsync,
    ) -> Result<WindowSurface, RenderError> {
        let caps = surface.get_capabilities(&gpu.adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| {
                RenderError::Surface("the adapter cannot present to this surface".into())
            })?;
        let view_format = format.add_srgb_suffix();
        let (width, height) = (width.max(1), height.max(1));
        check_size(&gpu.device, width, height)?;
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width,
            height,
            present_mode: choose_present_mode(&caps.present_modes, vsync),
            // One frame in flight keeps input-to-photon latency low; drivers that cannot go
            // below two clamp it themselves.
            desired_maximum_frame_latency: 1,
            color_space: wgpu::SurfaceColorSpace::Auto,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: if view_format == format {
                vec![]
            } else {
                vec![view_format]
            },
        };
        surface.configure(&gpu.device, &config);
        tracing::info!(?format, present_mode = ?config.present_mode, width, height, "surface configured");
        Ok(WindowSurface {
            surface,
            scene: SceneBuffers::new(&gpu.device, width, height),
            config,
            view_format,
            vsync,
            render_scale: 1.0,
        })
    }

    /// Resizes after the window did (a zero size is ignored: the window is minimised).
    pub fn resize(&mut self, gpu: &Gpu, width: u32, height: u32) {
        if width == 0 || height == 0 || check_size(&gpu.device, width, height).is_err() {
            return;
        }
        if (width, height) == (self.config.width, self.config.height) {
            return;
        }
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(&gpu.device, &self.config);
        self.rebuild_scene(gpu);
    }

    /// Draws the scene at `scale` times the window's size (clamped to
    /// [`crate::RENDER_SCALE_RANGE`]); the tonemap pass resamples it to the window. The HUD
    /// and screens are painted at the window's own size either way.
    pub fn set_render_scale(&mut self, gpu: &Gpu, scale: f32) {
        let scale = if scale.is_nan() { 1.0 } else { scale };
        let scale = scale.clamp(
            *crate::RENDER_SCALE_RANGE.start(),
            *crate::RENDER_SCALE_RANGE.end(),
        );
        if scale == self.render_scale {
            return;
        }
        self.render_scale = scale;
        self.rebuild_scene(gpu);
    }

    /// The render scale in use.
    pub fn render_scale(&self) -> f32 {
        self.render_scale
    }

    /// The size the scene is drawn at.
    pub fn scene_size(&self) -> (u32, u32) {
        (self.scene.width, self.scene.height)
    }

    fn rebuild_scene(&mut self, gpu: &Gpu) {
        let (w, h) = scaled_size(
            self.config.width,
            self.config.height,
            self.render_scale,
            max_side(&gpu.device),
        );
        if (w, h) != (self.scene.width, self.scene.height) {
            self.scene = SceneBuffers::new(&gpu.device, w, h);
        }
    }

    /// Changes the present mode.
    pub fn set_vsync(&mut self, gpu: &Gpu, vsync: Vsync) {
        if vsync == self.vsync {
            return;
        }
        let caps = self.surface.get_capabilities(&gpu.adapter);
        self.vsync = vsync;
        self.config.present_mode = choose_present_mode(&caps.present_modes, vsync);
        self.surface.configure(&gpu.device, &self.config);
    }

    /// The surface's size.
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// The present mode in use.
    pub fn present_mode(&self) -> wgpu::PresentMode {
        self.config.present_mode
    }

    /// The next frame to draw, or `None` when there is none to draw this time (timed out,
    /// occluded, or the surface was outdated or lost and has been reconfigured).
    pub fn acquire(&mut self, gpu: &Gpu) -> Option<SurfaceFrame> {
        let (texture, suboptimal) = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) => (t, false),
            wgpu::CurrentSurfaceTexture::Suboptimal(t) => (t, true),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return None;
            }
            other => {
                tracing::warn!(state = ?other, "surface outdated or lost: reconfiguring");
                self.surface.configure(&gpu.device, &self.config);
                return None;
            }
        };
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.view_format),
            ..Default::default()
        });
        Some(SurfaceFrame {
            texture,
            view,
            suboptimal,
        })
    }

    /// Shows a drawn frame.
    pub fn present(&mut self, gpu: &Gpu, frame: SurfaceFrame) {
        gpu.queue.present(frame.texture);
        if frame.suboptimal {
            self.surface.configure(&gpu.device, &self.config);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn present_mode_falls_back_to_fifo() {
        use wgpu::PresentMode as P;
        assert_eq!(choose_present_mode(&[P::Fifo], Vsync::Off), P::Fifo);
        assert_eq!(
            choose_present_mode(&[P::Fifo, P::Immediate], Vsync::Off),
            P::Immediate
        );
        assert_eq!(
            choose_present_mode(&[P::Fifo, P::Mailbox, P::Immediate], Vsync::Off),
            P::Mailbox
        );
        assert_eq!(choose_present_mode(&[P::Fifo], Vsync::Adaptive), P::Fifo);
        assert_eq!(
            choose_present_mode(&[P::Immediate, P::Fifo], Vsync::On),
            P::Fifo
        );
    }
}

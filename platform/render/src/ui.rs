//! Painting egui's output (menus, the HUD, overlays) over a rendered frame: an offscreen target
//! or an acquired window frame, after the scene has been drawn and tonemapped into it.
//!
//! Owns: egui's textures on the GPU (the font atlas and any image), uploading the tessellated
//! meshes and drawing them with `egui_wgpu::Renderer` in a pass that loads (keeps) the scene.
//! Must not: run egui itself (the caller owns the `egui::Context` and its input) or know what is
//! drawn.
//!
//! Colour space: egui's colours are sRGB-encoded. Both outputs of this crate are sRGB views
//! (the offscreen target is [`OFFSCREEN_FORMAT`], window frames are drawn through the sRGB view
//! of the surface), so the painter is made for the output's format and egui-wgpu then picks its
//! linear-framebuffer shader: a `Color32::from_rgb(0, 255, 0)` reads back as (0, 255, 0).

use crate::RenderError;
use crate::gpu::Gpu;
use crate::surface::{SurfaceFrame, WindowSurface};
use crate::target::{OFFSCREEN_FORMAT, OffscreenTarget, check_size};

/// One frame of egui output, ready to paint: the tessellated meshes, the texture changes to
/// apply first, and the scale they were tessellated at.
#[derive(Debug)]
pub struct UiFrame {
    /// Meshes from `egui::Context::tessellate`.
    pub primitives: Vec<egui::ClippedPrimitive>,
    /// New, changed and freed textures (the font atlas arrives here once, then in pieces).
    pub textures: egui::TexturesDelta,
    /// Physical pixels per egui point.
    pub pixels_per_point: f32,
}

impl UiFrame {
    /// Tessellates `output` (from `ctx.run_ui` or `ctx.end_pass`) with `ctx`.
    pub fn from_output(ctx: &egui::Context, output: egui::FullOutput) -> UiFrame {
        let pixels_per_point = output.pixels_per_point;
        let primitives = ctx.tessellate(output.shapes, pixels_per_point);
        UiFrame {
            primitives,
            textures: output.textures_delta,
            pixels_per_point,
        }
    }
}

/// Paints [`UiFrame`]s over frames of one colour format.
pub struct UiPainter {
    renderer: egui_wgpu::Renderer,
    format: wgpu::TextureFormat,
}

impl std::fmt::Debug for UiPainter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UiPainter")
            .field("format", &self.format)
            .finish_non_exhaustive()
    }
}

impl UiPainter {
    /// A painter for views of `format` (an sRGB format for this crate's outputs).
    pub fn new(gpu: &Gpu, format: wgpu::TextureFormat) -> UiPainter {
        let options = egui_wgpu::RendererOptions {
            // Dithering adds noise that changes golden images from run to run of the shader
            // compiler; the HUD is lines and text, where banding does not show.
            dithering: false,
            ..egui_wgpu::RendererOptions::default()
        };
        UiPainter {
            renderer: egui_wgpu::Renderer::new(&gpu.device, format, options),
            format,
        }
    }

    /// A painter for [`OffscreenTarget`]s.
    pub fn for_offscreen(gpu: &Gpu) -> UiPainter {
        UiPainter::new(gpu, OFFSCREEN_FORMAT)
    }

    /// A painter for the frames of `surface`.
    pub fn for_surface(gpu: &Gpu, surface: &WindowSurface) -> UiPainter {
        UiPainter::new(gpu, surface.view_format)
    }

    /// The colour format this painter draws into.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Paints `ui` over the image already in `target` (render the scene first).
    pub fn paint_offscreen(
        &mut self,
        gpu: &Gpu,
        target: &OffscreenTarget,
        mut ui: UiFrame,
    ) -> Result<(), RenderError> {
        self.check_format(gpu, OFFSCREEN_FORMAT, &mut ui)?;
        self.paint_view(gpu, &target.view, [target.width(), target.height()], ui)
    }

    /// Paints `ui` over an acquired window frame of `surface` (after
    /// `Renderer::render_to_surface`, before presenting).
    pub fn paint_on_surface(
        &mut self,
        gpu: &Gpu,
        surface: &WindowSurface,
        frame: &SurfaceFrame,
        mut ui: UiFrame,
    ) -> Result<(), RenderError> {
        self.check_format(gpu, surface.view_format, &mut ui)?;
        let (w, h) = surface.size();
        self.paint_view(gpu, &frame.view, [w, h], ui)
    }

    /// Paints `ui` over `view`, `size_px` = (width, height) pixels. The view must have this
    /// painter's [`format`](Self::format) (wgpu cannot be asked a view's format).
    ///
    /// Texture changes are applied even when the frame itself cannot be drawn (a zero size, a
    /// bad scale): egui sends the font atlas once, and losing it would blank every later frame.
    pub fn paint_view(
        &mut self,
        gpu: &Gpu,
        view: &wgpu::TextureView,
        size_px: [u32; 2],
        mut ui: UiFrame,
    ) -> Result<(), RenderError> {
        let free = self.apply_textures(gpu, &mut ui);
        let result = self.draw(gpu, view, size_px, &ui);
        // Freed after the frame that may still use them.
        for id in &free {
            self.renderer.free_texture(id);
        }
        result
    }

    fn draw(
        &mut self,
        gpu: &Gpu,
        view: &wgpu::TextureView,
        size_px: [u32; 2],
        ui: &UiFrame,
    ) -> Result<(), RenderError> {
        check_size(&gpu.device, size_px[0], size_px[1])?;
        let ppp = ui.pixels_per_point;
        if !(ppp.is_finite() && (0.05..=64.0).contains(&ppp)) {
            return Err(RenderError::Invalid(format!(
                "egui pixels per point {ppp} outside 0.05..=64"
            )));
        }
        if ui.primitives.is_empty() {
            return Ok(());
        }
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: size_px,
            pixels_per_point: ppp,
        };
        let (device, queue) = (&gpu.device, &gpu.queue);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("egui"),
        });
        let callbacks =
            self.renderer
                .update_buffers(device, queue, &mut encoder, &ui.primitives, &screen);
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            // Over the scene: keep what the renderer drew.
                            load: wgpu::LoadOp::Load,
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                })
                .forget_lifetime();
            self.renderer.render(&mut pass, &ui.primitives, &screen);
        }
        queue.submit(callbacks.into_iter().chain([encoder.finish()]));
        Ok(())
    }

    /// Refuses a frame of another format, applying (and freeing) its textures all the same.
    fn check_format(
        &mut self,
        gpu: &Gpu,
        expected: wgpu::TextureFormat,
        ui: &mut UiFrame,
    ) -> Result<(), RenderError> {
        if expected == self.format {
            return Ok(());
        }
        let free = self.apply_textures(gpu, ui);
        for id in &free {
            self.renderer.free_texture(id);
        }
        Err(RenderError::Invalid(format!(
            "a UI painter for {:?} cannot paint into {expected:?}",
            self.format
        )))
    }

    /// Uploads `ui`'s new and changed textures, leaving its delta empty; returns the textures
    /// to free once the frame is drawn.
    fn apply_textures(&mut self, gpu: &Gpu, ui: &mut UiFrame) -> Vec<egui::TextureId> {
        let mut textures = std::mem::take(&mut ui.textures);
        // Sorted: the map's order is not deterministic.
        let mut set: Vec<_> = textures.set.drain().collect();
        set.sort_by_key(|(id, _)| texture_order(*id));
        for (id, deltas) in &set {
            for delta in deltas {
                self.renderer
                    .update_texture(&gpu.device, &gpu.queue, *id, delta);
            }
        }
        let mut free: Vec<_> = textures.free.drain().collect();
        free.sort_by_key(|id| texture_order(*id));
        textures.clear();
        free
    }
}

/// A total order of texture ids (managed before user textures).
fn texture_order(id: egui::TextureId) -> (u8, u64) {
    match id {
        egui::TextureId::Managed(n) => (0, n),
        egui::TextureId::User(n) => (1, n),
    }
}

//! Render targets: the HDR colour and depth buffers every frame draws into, and the offscreen
//! target with PNG readback (tests, the screenshot key, fl-view).

use std::path::Path;

use crate::RenderError;

/// Format of the HDR scene buffer (linear radiance before exposure and tonemapping).
pub const HDR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
/// Depth format: reverse-Z needs a float depth buffer.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Format of the offscreen target's displayable image.
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Largest target side accepted (a 16K screenshot).
pub const MAX_SIDE: u32 = 16_384;
/// Range of the render scale: the scene's pixels per output pixel along each side. Below 1 the
/// scene is drawn smaller and upscaled (faster on a weak GPU); above 1 it is drawn larger and
/// filtered down (smoother edges).
pub const RENDER_SCALE_RANGE: std::ops::RangeInclusive<f32> = 0.25..=2.0;

/// The scene buffers' size for an output of `width` × `height` at `scale` (clamped to
/// [`RENDER_SCALE_RANGE`]; NaN is 1), each side at least 1 and at most `max_side`.
pub fn scaled_size(width: u32, height: u32, scale: f32, max_side: u32) -> (u32, u32) {
    let scale = if scale.is_nan() {
        1.0
    } else {
        scale.clamp(*RENDER_SCALE_RANGE.start(), *RENDER_SCALE_RANGE.end())
    };
    let side = |n: u32| ((n as f64 * f64::from(scale)).round() as u32).clamp(1, max_side.max(1));
    (side(width), side(height))
}

/// The HDR colour and depth buffers of one output size.
#[derive(Debug)]
pub struct SceneBuffers {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// HDR colour view.
    pub hdr_view: wgpu::TextureView,
    /// Depth view.
    pub depth_view: wgpu::TextureView,
}

impl SceneBuffers {
    /// Buffers of `width` × `height`.
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> SceneBuffers {
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let make = |label, format| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
        };
        let hdr = make("hdr colour", HDR_FORMAT);
        let depth = make("depth", DEPTH_FORMAT);
        SceneBuffers {
            width,
            height,
            hdr_view: hdr.create_view(&wgpu::TextureViewDescriptor::default()),
            depth_view: depth.create_view(&wgpu::TextureViewDescriptor::default()),
        }
    }
}

/// The largest side this device accepts for a target: [`MAX_SIDE`] or the device's limit.
pub fn max_side(device: &wgpu::Device) -> u32 {
    device.limits().max_texture_dimension_2d.min(MAX_SIDE)
}

/// Checks a requested size: non-zero and at most [`max_side`].
pub fn check_size(device: &wgpu::Device, width: u32, height: u32) -> Result<(), RenderError> {
    let max = max_side(device);
    if width == 0 || height == 0 || width > max || height > max {
        return Err(RenderError::Invalid(format!(
            "target size {width}x{height} outside 1..={max}"
        )));
    }
    Ok(())
}

/// An offscreen image the renderer draws into, readable as RGBA8 (sRGB-encoded) pixels.
#[derive(Debug)]
pub struct OffscreenTarget {
    pub(crate) scene: SceneBuffers,
    pub(crate) texture: wgpu::Texture,
    pub(crate) view: wgpu::TextureView,
    width: u32,
    height: u32,
}

impl OffscreenTarget {
    /// A target of `width` × `height` pixels.
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> Result<Self, RenderError> {
        Self::with_render_scale(device, width, height, 1.0)
    }

    /// A target of `width` × `height` pixels whose scene is drawn at `scale` times that size
    /// (see [`RENDER_SCALE_RANGE`]) and resampled into it.
    pub fn with_render_scale(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        scale: f32,
    ) -> Result<Self, RenderError> {
        check_size(device, width, height)?;
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen output"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: OFFSCREEN_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let (sw, sh) = scaled_size(width, height, scale, max_side(device));
        Ok(OffscreenTarget {
            scene: SceneBuffers::new(device, sw, sh),
            texture,
            view,
            width,
            height,
        })
    }

    /// Width, pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height, pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The size the scene is drawn at before it is resampled into the image.
    pub fn scene_size(&self) -> (u32, u32) {
        (self.scene.width, self.scene.height)
    }

    /// The last rendered image, top row first. Rows are copied through a buffer whose rows are
    /// padded to wgpu's 256-byte alignment; the padding is dropped here.
    pub fn read_rgba(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<image::RgbaImage, RenderError> {
        let (w, h) = (self.width(), self.height());
        let unpadded = w as usize * 4;
        let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as usize;
        let padded = unpadded.div_ceil(align) * align;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: (padded * h as usize) as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("readback"),
        });
        enc.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded as u32),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        queue.submit([enc.finish()]);
        let slice = buffer.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        rx.recv()
            .map_err(|e| RenderError::Readback(e.to_string()))?
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        let mut pixels = Vec::with_capacity(unpadded * h as usize);
        {
            let data = slice
                .get_mapped_range()
                .map_err(|e| RenderError::Readback(e.to_string()))?;
            for row in data.chunks_exact(padded) {
                pixels.extend_from_slice(&row[..unpadded]);
            }
        }
        buffer.unmap();
        image::RgbaImage::from_raw(w, h, pixels)
            .ok_or_else(|| RenderError::Readback("image size mismatch".into()))
    }

    /// Reads the image back and writes it as a PNG.
    pub fn save_png(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        path: &Path,
    ) -> Result<(), RenderError> {
        let img = self.read_rgba(device, queue)?;
        img.save_with_format(path, image::ImageFormat::Png)
            .map_err(|e| RenderError::WriteImage {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_size_rounds_clamps_and_never_reaches_zero() {
        assert_eq!(scaled_size(1280, 720, 1.0, MAX_SIDE), (1280, 720));
        assert_eq!(scaled_size(1280, 720, 0.5, MAX_SIDE), (640, 360));
        assert_eq!(scaled_size(1281, 721, 0.5, MAX_SIDE), (641, 361));
        assert_eq!(scaled_size(1280, 720, 2.0, MAX_SIDE), (2560, 1440));
        // Out of range and NaN are clamped, not trusted.
        assert_eq!(scaled_size(1000, 1000, 100.0, MAX_SIDE), (2000, 2000));
        assert_eq!(scaled_size(1000, 1000, 0.0, MAX_SIDE), (250, 250));
        assert_eq!(scaled_size(1000, 1000, f32::NAN, MAX_SIDE), (1000, 1000));
        assert_eq!(scaled_size(1, 1, 0.25, MAX_SIDE), (1, 1));
        // The device's limit wins over a large scale.
        assert_eq!(scaled_size(10_000, 100, 2.0, MAX_SIDE), (MAX_SIDE, 200));
    }
}

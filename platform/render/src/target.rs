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

/// Checks a requested size: non-zero and at most [`MAX_SIDE`] (and the device's limit).
pub fn check_size(device: &wgpu::Device, width: u32, height: u32) -> Result<(), RenderError> {
    let max = device.limits().max_texture_dimension_2d.min(MAX_SIDE);
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
}

impl OffscreenTarget {
    /// A target of `width` × `height` pixels.
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> Result<Self, RenderError> {
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
        Ok(OffscreenTarget {
            scene: SceneBuffers::new(device, width, height),
            texture,
            view,
        })
    }

    /// Width, pixels.
    pub fn width(&self) -> u32 {
        self.scene.width
    }

    /// Height, pixels.
    pub fn height(&self) -> u32 {
        self.scene.height
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

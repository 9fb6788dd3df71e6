//! GPU uploads of model data: textures (RGBA8 with a mip chain made here, or block-compressed
//! levels as the file holds them) and solid placeholder textures.

use crate::gpu::Gpu;
use crate::model::TexturePixels;

pub(crate) fn solid_texture(gpu: &Gpu, label: &str, rgba: [u8; 4]) -> wgpu::TextureView {
    let tex = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: 1,
            height: 1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    gpu.queue.write_texture(
        tex.as_image_copy(),
        &rgba,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(4),
            rows_per_image: Some(1),
        },
        wgpu::Extent3d {
            width: 1,
            height: 1,
            depth_or_array_layers: 1,
        },
    );
    tex.create_view(&wgpu::TextureViewDescriptor::default())
}

/// Uploads an image with a full mip chain (RGBA8: made here; blocks: as the file holds them).
/// Block formats on a device without BC support are skipped with a warning (the factors stay).
pub(crate) fn upload_image(
    gpu: &Gpu,
    image: &crate::model::ImageData,
    srgb: bool,
    bc: bool,
) -> Option<wgpu::TextureView> {
    use wgpu::util::DeviceExt;
    let (w, h) = (image.width, image.height);
    match &image.pixels {
        TexturePixels::Rgba8(px) => {
            let mut rgba = image::RgbaImage::from_raw(w, h, px.clone())?;
            // A texture larger than the device allows is scaled down to fit (never a
            // validation error).
            let max = gpu.device.limits().max_texture_dimension_2d.max(1);
            if w > max || h > max {
                let s = f64::from(max) / f64::from(w.max(h));
                let (nw, nh) = (
                    ((f64::from(w) * s) as u32).clamp(1, max),
                    ((f64::from(h) * s) as u32).clamp(1, max),
                );
                tracing::warn!(image = %image.source.display(), "{w}x{h} is over the device's {max}; scaled to {nw}x{nh}");
                rgba =
                    image::imageops::resize(&rgba, nw, nh, image::imageops::FilterType::Triangle);
            }
            let (w, h) = rgba.dimensions();
            let levels = (32 - w.max(h).leading_zeros()).max(1);
            let mut data = Vec::new();
            let mut level = rgba;
            for i in 0..levels {
                data.extend_from_slice(level.as_raw());
                if i + 1 < levels {
                    let (nw, nh) = ((level.width() / 2).max(1), (level.height() / 2).max(1));
                    level = image::imageops::resize(
                        &level,
                        nw,
                        nh,
                        image::imageops::FilterType::Triangle,
                    );
                }
            }
            let format = if srgb {
                wgpu::TextureFormat::Rgba8UnormSrgb
            } else {
                wgpu::TextureFormat::Rgba8Unorm
            };
            let tex = gpu.device.create_texture_with_data(
                &gpu.queue,
                &wgpu::TextureDescriptor {
                    label: Some("model texture"),
                    size: wgpu::Extent3d {
                        width: w,
                        height: h,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: levels,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                    view_formats: &[],
                },
                wgpu::util::TextureDataOrder::MipMajor,
                &data,
            );
            Some(tex.create_view(&wgpu::TextureViewDescriptor::default()))
        }
        TexturePixels::Blocks { format, levels } => {
            if !bc {
                tracing::warn!(image = %image.source.display(), "the device cannot sample BC textures; using the material's factors");
                return None;
            }
            let max = gpu.device.limits().max_texture_dimension_2d;
            if w > max || h > max {
                tracing::warn!(image = %image.source.display(), "{w}x{h} is over the device's {max}; using the material's factors");
                return None;
            }
            // Block textures need sides that are multiples of 4 at level 0.
            if !w.is_multiple_of(4) || !h.is_multiple_of(4) {
                tracing::warn!(image = %image.source.display(), "block texture side not a multiple of 4; using the material's factors");
                return None;
            }
            let max_levels = 32 - w.max(h).leading_zeros();
            let n = (levels.len() as u32).min(max_levels).max(1);
            let data: Vec<u8> = levels.iter().take(n as usize).flatten().copied().collect();
            let tex = gpu.device.create_texture_with_data(
                &gpu.queue,
                &wgpu::TextureDescriptor {
                    label: Some("model texture (blocks)"),
                    size: wgpu::Extent3d {
                        width: w,
                        height: h,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: n,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: format.wgpu_format(),
                    usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                    view_formats: &[],
                },
                wgpu::util::TextureDataOrder::MipMajor,
                &data,
            );
            Some(tex.create_view(&wgpu::TextureViewDescriptor::default()))
        }
    }
}

//! Texture resolution for glTF images, as a pack lays them out.
//!
//! The pack's glTF images name `../../textures/<name>.ktx2`, built at release from the PNG
//! masters in each model's `textures-src/`; a source checkout has only the PNGs. For each image:
//! the KTX2 file if it exists and is a format we read (uncompressed RGBA8, or BC1/3/4/5/7 blocks
//! that the GPU samples directly), else `textures-src/<name>.png` beside the model, else nothing
//! — the material's factors alone — with one warning naming what was tried. Never fatal.
//! Every decode is bounded: sides at most [`MAX_TEXTURE_SIDE`], files at most
//! [`MAX_TEXTURE_FILE_BYTES`].

use std::path::{Path, PathBuf};

use super::{ModelWarning, read_bounded};

/// Largest texture side accepted.
pub const MAX_TEXTURE_SIDE: u32 = 8192;
/// Largest texture file read.
pub const MAX_TEXTURE_FILE_BYTES: u64 = 128 * 1024 * 1024;

/// Block-compressed formats read from KTX2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockFormat {
    /// BC1 (DXT1), RGBA.
    Bc1 { srgb: bool },
    /// BC3 (DXT5).
    Bc3 { srgb: bool },
    /// BC4, one channel.
    Bc4,
    /// BC5, two channels (normal maps).
    Bc5,
    /// BC7.
    Bc7 { srgb: bool },
}

impl BlockFormat {
    /// Bytes per 4×4 block.
    pub fn block_bytes(self) -> usize {
        match self {
            BlockFormat::Bc1 { .. } | BlockFormat::Bc4 => 8,
            _ => 16,
        }
    }

    /// The wgpu format (sRGB variants where the file says so).
    pub fn wgpu_format(self) -> wgpu::TextureFormat {
        use wgpu::TextureFormat as F;
        match self {
            BlockFormat::Bc1 { srgb: true } => F::Bc1RgbaUnormSrgb,
            BlockFormat::Bc1 { srgb: false } => F::Bc1RgbaUnorm,
            BlockFormat::Bc3 { srgb: true } => F::Bc3RgbaUnormSrgb,
            BlockFormat::Bc3 { srgb: false } => F::Bc3RgbaUnorm,
            BlockFormat::Bc4 => F::Bc4RUnorm,
            BlockFormat::Bc5 => F::Bc5RgUnorm,
            BlockFormat::Bc7 { srgb: true } => F::Bc7RgbaUnormSrgb,
            BlockFormat::Bc7 { srgb: false } => F::Bc7RgbaUnorm,
        }
    }
}

/// Decoded pixels.
#[derive(Clone, PartialEq, Eq)]
pub enum TexturePixels {
    /// Straight RGBA8, one level (mipmaps are made at upload).
    Rgba8(Vec<u8>),
    /// Block-compressed levels as the file holds them (level 0 first).
    Blocks {
        /// The block format.
        format: BlockFormat,
        /// Bytes of each mip level.
        levels: Vec<Vec<u8>>,
    },
}

impl std::fmt::Debug for TexturePixels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TexturePixels::Rgba8(p) => write!(f, "Rgba8({} bytes)", p.len()),
            TexturePixels::Blocks { format, levels } => {
                write!(f, "Blocks({format:?}, {} levels)", levels.len())
            }
        }
    }
}

/// One image, ready to upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageData {
    /// The file the pixels came from (or the model, for embedded images).
    pub source: PathBuf,
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// The pixels.
    pub pixels: TexturePixels,
}

/// Texture files already read while loading a model family, by resolved path: each is decoded
/// once and its warning (if any) given once. It also carries the directory every file of the
/// family must stay inside (the pack's root), when the caller knows it.
#[derive(Debug, Default)]
pub struct ImageCache {
    loaded: std::collections::HashMap<PathBuf, Option<ImageData>>,
    scope: Option<PathBuf>,
}

impl ImageCache {
    /// A cache whose files must all resolve (symbolic links followed) inside `root`: a pack's
    /// glTF may name `../../textures/x.ktx2`, but never a file outside the pack.
    pub fn within(root: &Path) -> ImageCache {
        ImageCache {
            loaded: Default::default(),
            scope: Some(std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf())),
        }
    }

    /// `Err(root)` when `path` exists and resolves outside the scope. A path that does not
    /// resolve is let through: reading it fails with its own, clearer error.
    pub(crate) fn admit(&self, path: &Path) -> Result<(), PathBuf> {
        match (&self.scope, std::fs::canonicalize(path)) {
            (Some(root), Ok(real)) if !real.starts_with(root) => Err(root.clone()),
            _ => Ok(()),
        }
    }
}

/// `dir/uri` for a relative file URI; `None` for data URIs, other schemes and absolute paths.
pub fn resolve_relative(dir: &Path, uri: &str) -> Option<PathBuf> {
    if uri.starts_with("data:") || uri.contains("://") || uri.is_empty() {
        return None;
    }
    let p = Path::new(uri);
    if p.is_absolute() || p.has_root() {
        return None;
    }
    Some(dir.join(p))
}

/// Decodes PNG or JPEG bytes into RGBA8 within the size limits.
pub fn decode_image_bytes(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| e.to_string())?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_TEXTURE_SIDE);
    limits.max_image_height = Some(MAX_TEXTURE_SIDE);
    limits.max_alloc = Some(512 * 1024 * 1024);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| e.to_string())?.to_rgba8();
    let (w, h) = img.dimensions();
    Ok((w, h, img.into_raw()))
}

fn decode_image_file(path: &Path) -> Result<ImageData, String> {
    let bytes = read_bounded(path, MAX_TEXTURE_FILE_BYTES).map_err(|e| e.to_string())?;
    let (width, height, pixels) = decode_image_bytes(&bytes)?;
    Ok(ImageData {
        source: path.to_path_buf(),
        width,
        height,
        pixels: TexturePixels::Rgba8(pixels),
    })
}

const KTX2_MAGIC: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

/// Reads a KTX2 container: uncompressed RGBA8 (level 0) or BC blocks (all levels). Basis
/// Universal and supercompressed files are refused with a reason (the caller falls back).
pub fn decode_ktx2(bytes: &[u8]) -> Result<(u32, u32, TexturePixels), String> {
    let u32_at = |o: usize| -> Result<u32, String> {
        bytes
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| "truncated KTX2 header".to_string())
    };
    let u64_at = |o: usize| -> Result<u64, String> {
        bytes
            .get(o..o + 8)
            .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
            .ok_or_else(|| "truncated KTX2 level index".to_string())
    };
    if bytes.get(..12) != Some(&KTX2_MAGIC[..]) {
        return Err("not a KTX2 file (bad identifier)".into());
    }
    let vk_format = u32_at(12)?;
    let width = u32_at(20)?;
    let height = u32_at(24)?.max(1);
    let depth = u32_at(28)?;
    let layers = u32_at(32)?;
    let faces = u32_at(36)?;
    let level_count = u32_at(40)?.max(1);
    let supercompression = u32_at(44)?;
    if width == 0 || width > MAX_TEXTURE_SIDE || height > MAX_TEXTURE_SIDE {
        return Err(format!("{width}x{height} outside 1..={MAX_TEXTURE_SIDE}"));
    }
    if depth > 1 || layers > 1 || faces != 1 {
        return Err("3D, array and cube KTX2 textures are not supported for models".into());
    }
    if supercompression != 0 {
        return Err(format!(
            "supercompression scheme {supercompression} (BasisLZ/zstd/zlib) is not supported"
        ));
    }
    let format = match vk_format {
        37 | 43 => None,
        131 | 133 => Some(BlockFormat::Bc1 { srgb: false }),
        132 | 134 => Some(BlockFormat::Bc1 { srgb: true }),
        137 => Some(BlockFormat::Bc3 { srgb: false }),
        138 => Some(BlockFormat::Bc3 { srgb: true }),
        139 => Some(BlockFormat::Bc4),
        141 => Some(BlockFormat::Bc5),
        145 => Some(BlockFormat::Bc7 { srgb: false }),
        146 => Some(BlockFormat::Bc7 { srgb: true }),
        0 => return Err("Basis Universal (vkFormat 0) is not supported".into()),
        other => return Err(format!("vkFormat {other} is not supported")),
    };
    let level_count = level_count.min(16) as usize;
    let mut levels = Vec::with_capacity(level_count);
    for level in 0..level_count {
        let at = 80 + level * 24;
        let offset = u64_at(at)?;
        let length = u64_at(at + 8)?;
        let (w, h) = (
            (width >> level).max(1) as u64,
            (height >> level).max(1) as u64,
        );
        let expected = match format {
            None => w * h * 4,
            Some(f) => w.div_ceil(4) * h.div_ceil(4) * f.block_bytes() as u64,
        };
        if length != expected {
            return Err(format!(
                "level {level}: {length} bytes where {w}x{h} needs {expected}"
            ));
        }
        let end = offset
            .checked_add(length)
            .filter(|&e| e <= bytes.len() as u64)
            .ok_or_else(|| format!("level {level} runs past the end of the file"))?;
        levels.push(bytes[offset as usize..end as usize].to_vec());
        if format.is_none() {
            break; // RGBA8: mipmaps are regenerated at upload.
        }
    }
    let pixels = match format {
        None => TexturePixels::Rgba8(levels.swap_remove(0)),
        Some(format) => TexturePixels::Blocks { format, levels },
    };
    Ok((width, height, pixels))
}

fn decode_ktx2_file(path: &Path) -> Result<ImageData, String> {
    let bytes = read_bounded(path, MAX_TEXTURE_FILE_BYTES).map_err(|e| e.to_string())?;
    let (width, height, pixels) = decode_ktx2(&bytes)?;
    Ok(ImageData {
        source: path.to_path_buf(),
        width,
        height,
        pixels,
    })
}

/// Loads one glTF image by the rules above; a failure is one warning and `None`.
pub(crate) fn load_image(
    model: &Path,
    dir: &Path,
    img: &gltf::Image<'_>,
    buffers: &[Vec<u8>],
    warnings: &mut Vec<ModelWarning>,
    cache: &mut ImageCache,
) -> Option<ImageData> {
    let warn = |warnings: &mut Vec<ModelWarning>, path: PathBuf, message: String| {
        warnings.push(ModelWarning { path, message });
    };
    match img.source() {
        gltf::image::Source::View { view, .. } => {
            let data = buffers
                .get(view.buffer().index())
                .and_then(|b| b.get(view.offset()..view.offset() + view.length()));
            match data.map(decode_image_bytes) {
                Some(Ok((width, height, pixels))) => Some(ImageData {
                    source: model.to_path_buf(),
                    width,
                    height,
                    pixels: TexturePixels::Rgba8(pixels),
                }),
                Some(Err(e)) => {
                    warn(
                        warnings,
                        model.to_path_buf(),
                        format!(
                            "embedded image {}: {e}; using the material's factors",
                            img.index()
                        ),
                    );
                    None
                }
                None => None,
            }
        }
        gltf::image::Source::Uri { uri, .. } => {
            let Some(file) = resolve_relative(dir, uri) else {
                warn(
                    warnings,
                    model.to_path_buf(),
                    format!(
                        "image {}: unsupported URI {:.60}; using the material's factors",
                        img.index(),
                        uri
                    ),
                );
                return None;
            };
            if let Some(hit) = cache.loaded.get(&file) {
                return hit.clone();
            }
            let found = resolve_file(dir, &file, img.index(), warnings, cache);
            cache.loaded.insert(file, found.clone());
            found
        }
    }
}

/// The KTX2/PNG/factors rule for one image file named by the glTF (see the module's doc).
fn resolve_file(
    dir: &Path,
    file: &Path,
    index: usize,
    warnings: &mut Vec<ModelWarning>,
    scope: &ImageCache,
) -> Option<ImageData> {
    let mut tried = Vec::new();
    let is_ktx2 = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ktx2"));
    if let Err(root) = scope.admit(file) {
        tried.push(format!(
            "{}: resolves outside the pack ({}); refused",
            file.display(),
            root.display()
        ));
    } else if file.is_file() {
        let r = if is_ktx2 {
            decode_ktx2_file(file)
        } else {
            decode_image_file(file)
        };
        match r {
            Ok(d) => return Some(d),
            Err(e) => tried.push(format!("{}: {e}", file.display())),
        }
    } else {
        tried.push(format!("{}: not found", file.display()));
    }
    // The source checkout's master: textures-src/<stem>.png beside the model.
    if let Some(stem) = file.file_stem() {
        let png = dir
            .join("textures-src")
            .join(Path::new(stem).with_extension("png"));
        if png != file {
            if let Err(root) = scope.admit(&png) {
                tried.push(format!(
                    "{}: resolves outside the pack ({}); refused",
                    png.display(),
                    root.display()
                ));
            } else if png.is_file() {
                match decode_image_file(&png) {
                    Ok(d) => {
                        tracing::debug!(image = %png.display(), "KTX2 not available; using the source PNG");
                        return Some(d);
                    }
                    Err(e) => tried.push(format!("{}: {e}", png.display())),
                }
            } else {
                tried.push(format!("{}: not found", png.display()));
            }
        }
    }
    warnings.push(ModelWarning {
        path: file.to_path_buf(),
        message: format!(
            "texture for image {} not loaded ({}); using the material's factors",
            index,
            tried.join("; ")
        ),
    });
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ktx2(vk_format: u32, w: u32, h: u32, levels: &[&[u8]], supercompression: u32) -> Vec<u8> {
        let mut out = KTX2_MAGIC.to_vec();
        for v in [
            vk_format,
            1,
            w,
            h,
            0,
            0,
            1,
            levels.len() as u32,
            supercompression,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&[0u8; 32]); // dfd/kvd/sgd index
        let mut offset = 80 + 24 * levels.len() as u64;
        for l in levels {
            out.extend_from_slice(&offset.to_le_bytes());
            out.extend_from_slice(&(l.len() as u64).to_le_bytes());
            out.extend_from_slice(&(l.len() as u64).to_le_bytes());
            offset += l.len() as u64;
        }
        for l in levels {
            out.extend_from_slice(l);
        }
        out
    }

    #[test]
    fn reads_uncompressed_and_bc7_ktx2() {
        let px = [255u8, 0, 0, 255, 0, 255, 0, 255];
        let (w, h, p) = decode_ktx2(&ktx2(43, 2, 1, &[&px], 0)).expect("rgba8");
        assert_eq!((w, h), (2, 1));
        assert_eq!(p, TexturePixels::Rgba8(px.to_vec()));
        let block = [7u8; 16];
        let (_, _, p) = decode_ktx2(&ktx2(146, 4, 4, &[&block], 0)).expect("bc7");
        assert_eq!(
            p,
            TexturePixels::Blocks {
                format: BlockFormat::Bc7 { srgb: true },
                levels: vec![block.to_vec()]
            }
        );
    }

    #[test]
    fn hostile_ktx2_is_refused_with_a_reason() {
        let px = [1u8; 8];
        let good = ktx2(37, 2, 1, &[&px], 0);
        assert!(decode_ktx2(&good[..50]).is_err(), "truncated header");
        assert!(
            decode_ktx2(&good[..good.len() - 1]).is_err(),
            "truncated data"
        );
        assert!(decode_ktx2(b"not a ktx2 file at all, just text").is_err());
        assert!(
            decode_ktx2(&ktx2(37, 100_000, 1, &[&px], 0)).is_err(),
            "absurd size"
        );
        assert!(
            decode_ktx2(&ktx2(37, 2, 1, &[&px], 2))
                .expect_err("refused")
                .contains("supercompression")
        );
        assert!(
            decode_ktx2(&ktx2(0, 2, 1, &[&px], 0))
                .expect_err("refused")
                .contains("Basis")
        );
        // A level whose offset points far outside the file.
        let mut bad = good.clone();
        bad[80..88].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(decode_ktx2(&bad).is_err());
    }

    #[test]
    fn uris_stay_relative() {
        let d = Path::new("/pack/aircraft/f16a");
        assert_eq!(
            resolve_relative(d, "../../textures/a.ktx2"),
            Some(d.join("../../textures/a.ktx2"))
        );
        assert_eq!(resolve_relative(d, "/etc/passwd"), None);
        assert_eq!(resolve_relative(d, "data:image/png;base64,AAAA"), None);
        assert_eq!(resolve_relative(d, "http://example.invalid/x.png"), None);
    }
}

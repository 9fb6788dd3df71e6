//! One tile's files: decoding a height or land-cover PNG, and reading a tile's file name.
//!
//! Owns the tile format: 129 × 129 samples with shared edges (PNG row = t, the face's v;
//! column = s, the face's u; s = column/128, t = row/128), heights as 16-bit grayscale with
//! metres = value − 32768, land cover as the ESA WorldCover class in the low byte of a 16-bit
//! (or 8-bit) grayscale sample. Anything else is refused *before* the pixel buffer is allocated,
//! and the decoder's own allocations are capped. Must not: touch the file system or a cache.

use thiserror::Error;

/// Samples per tile side.
pub const TILE_SIZE: usize = 129;
/// Cells per tile side (samples − 1).
pub const TILE_CELLS: usize = TILE_SIZE - 1;
/// Samples per tile.
pub const TILE_SAMPLES: usize = TILE_SIZE * TILE_SIZE;
/// The height datum: a stored value of 32768 is 0 m.
pub const HEIGHT_OFFSET: i32 = 32768;
/// Largest PNG file accepted (a 129² 16-bit tile is ≈ 33 KiB raw; compressed it is smaller).
pub const MAX_TILE_FILE_BYTES: u64 = 1024 * 1024;
/// The decoder's allocation cap (the 33 KiB image plus its working buffers).
const DECODER_LIMIT_BYTES: usize = 256 * 1024;

/// Why a tile file was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TileError {
    /// Not 129 × 129.
    #[error("is {width}x{height}, a tile must be 129x129")]
    Size {
        /// Width found.
        width: u32,
        /// Height found.
        height: u32,
    },
    /// Not grayscale of the right depth.
    #[error("is {found}, a {what} tile must be {want}")]
    Format {
        /// Height or land cover.
        what: &'static str,
        /// What was found (`8-bit RGB`).
        found: String,
        /// What is accepted.
        want: &'static str,
    },
    /// The PNG does not decode (truncated, corrupt, over the decoder's limits).
    #[error("is not a readable PNG: {0}")]
    Decode(String),
}

/// The heights of one tile, metres, row-major (row = t, column = s).
pub type Heights = Vec<i16>;
/// The land-cover classes of one tile, row-major.
pub type Classes = Vec<u8>;

fn reader<'a>(
    bytes: &'a [u8],
    what: &'static str,
    allow_8_bit: bool,
) -> Result<png::Reader<std::io::Cursor<&'a [u8]>>, TileError> {
    let mut dec = png::Decoder::new_with_limits(
        std::io::Cursor::new(bytes),
        png::Limits {
            bytes: DECODER_LIMIT_BYTES,
        },
    );
    dec.set_transformations(png::Transformations::IDENTITY);
    let r = dec
        .read_info()
        .map_err(|e| TileError::Decode(e.to_string()))?;
    let info = r.info();
    if info.width as usize != TILE_SIZE || info.height as usize != TILE_SIZE {
        return Err(TileError::Size {
            width: info.width,
            height: info.height,
        });
    }
    let depth_ok = match info.bit_depth {
        png::BitDepth::Sixteen => true,
        png::BitDepth::Eight => allow_8_bit,
        _ => false,
    };
    if info.color_type != png::ColorType::Grayscale || !depth_ok {
        return Err(TileError::Format {
            what,
            found: format!("{}-bit {:?}", info.bit_depth as u8, info.color_type),
            want: if allow_8_bit {
                "8- or 16-bit grayscale"
            } else {
                "16-bit grayscale"
            },
        });
    }
    Ok(r)
}

fn frame(
    mut r: png::Reader<std::io::Cursor<&[u8]>>,
    bytes_per_sample: usize,
) -> Result<Vec<u8>, TileError> {
    // The size is known from the checked header: 129 × 129 × 1 or 2 bytes.
    let mut buf = vec![0u8; TILE_SAMPLES * bytes_per_sample];
    let out = r
        .next_frame(&mut buf)
        .map_err(|e| TileError::Decode(e.to_string()))?;
    if out.buffer_size() != buf.len() {
        return Err(TileError::Decode(format!(
            "frame of {} bytes, expected {}",
            out.buffer_size(),
            buf.len()
        )));
    }
    Ok(buf)
}

/// Decodes a height tile: metres = stored value − 32768.
pub fn decode_heights(bytes: &[u8]) -> Result<Heights, TileError> {
    let r = reader(bytes, "height", false)?;
    let buf = frame(r, 2)?;
    Ok(buf
        .chunks_exact(2)
        .map(|c| {
            let v = i32::from(u16::from_be_bytes([c[0], c[1]]));
            // 0..=65535 − 32768 is exactly the i16 range.
            (v - HEIGHT_OFFSET) as i16
        })
        .collect())
}

/// Decodes a land-cover tile: the class is the sample's low byte.
pub fn decode_land_cover(bytes: &[u8]) -> Result<Classes, TileError> {
    let r = reader(bytes, "land-cover", true)?;
    let sixteen = r.info().bit_depth == png::BitDepth::Sixteen;
    let buf = frame(r, if sixteen { 2 } else { 1 })?;
    Ok(if sixteen {
        buf.chunks_exact(2).map(|c| c[1]).collect()
    } else {
        buf
    })
}

/// A tile file's name, read: `tile_<i>_<j>` (heights) or `tile_<i>_<j>_lc` (land cover), with
/// canonical decimal indices (no sign, no leading zero), so one key has exactly one file name.
pub fn parse_tile_stem(stem: &str) -> Option<(u32, u32, bool)> {
    let rest = stem.strip_prefix("tile_")?;
    let (rest, lc) = match rest.strip_suffix("_lc") {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let (i, j) = rest.split_once('_')?;
    Some((canonical_u32(i)?, canonical_u32(j)?, lc))
}

fn canonical_u32(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 10 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if s.len() > 1 && s.starts_with('0') {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Encodes a grayscale PNG (test helper; also used to build hostile packs).
    pub(crate) fn encode(width: u32, height: u32, depth: png::BitDepth, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, width, height);
            enc.set_color(png::ColorType::Grayscale);
            enc.set_depth(depth);
            let mut w = enc.write_header().expect("header");
            w.write_image_data(data).expect("data");
        }
        out
    }

    pub(crate) fn height_png(f: impl Fn(usize, usize) -> i32) -> Vec<u8> {
        let mut data = Vec::with_capacity(TILE_SAMPLES * 2);
        for row in 0..TILE_SIZE {
            for col in 0..TILE_SIZE {
                let v = (f(row, col) + HEIGHT_OFFSET).clamp(0, 65535) as u16;
                data.extend_from_slice(&v.to_be_bytes());
            }
        }
        encode(129, 129, png::BitDepth::Sixteen, &data)
    }

    #[test]
    fn heights_decode_with_the_datum_and_row_major_layout() {
        let png = height_png(|row, col| row as i32 * 1000 - col as i32 - 32768);
        let h = decode_heights(&png).expect("decodes");
        assert_eq!(h.len(), TILE_SAMPLES);
        assert_eq!(h[0], -32768);
        assert_eq!(h[1], -32768, "clamped to the format's range");
        assert_eq!(h[TILE_SIZE], (1000 - 32768) as i16);
        let png = height_png(|row, col| row as i32 - col as i32);
        let h = decode_heights(&png).expect("decodes");
        assert_eq!(h[5 * TILE_SIZE + 2], 3);
    }

    #[test]
    fn wrong_size_depth_colour_truncation_and_garbage_are_errors() {
        let small = encode(64, 64, png::BitDepth::Sixteen, &vec![0; 64 * 64 * 2]);
        assert!(matches!(
            decode_heights(&small),
            Err(TileError::Size { .. })
        ));
        let eight = encode(129, 129, png::BitDepth::Eight, &vec![0; TILE_SAMPLES]);
        assert!(matches!(
            decode_heights(&eight),
            Err(TileError::Format { .. })
        ));
        assert_eq!(
            decode_land_cover(&eight).expect("8-bit land cover").len(),
            TILE_SAMPLES
        );
        // Noisy samples, so the image data fills most of the file and every cut lands in it.
        let ok = height_png(|r, c| {
            let x = ((r * TILE_SIZE + c) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            ((x >> 40) % 20_000) as i32
        });
        assert!(ok.len() > 5_000, "{}", ok.len());
        assert!(decode_heights(&ok).is_ok());
        for cut in [8, 20, 33, 40, 100, ok.len() / 2, ok.len() - 100] {
            assert!(decode_heights(&ok[..cut]).is_err(), "cut at {cut}");
        }
        assert!(decode_heights(b"not a png at all").is_err());
        assert!(decode_heights(&[]).is_err());
        let mut flipped = ok.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0xff;
        assert!(decode_heights(&flipped).is_err());
    }

    #[test]
    fn absurd_dimensions_are_refused_from_the_header() {
        // A header claiming 100000 x 100000: refused before any pixel buffer exists.
        let mut png = height_png(|_, _| 0);
        png[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        png[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        // Fix the IHDR CRC so the decoder reaches the size check rather than a checksum error.
        let crc = crc32(&png[12..29]);
        png[29..33].copy_from_slice(&crc.to_be_bytes());
        assert!(matches!(
            decode_heights(&png),
            Err(TileError::Size { width: 100_000, .. }) | Err(TileError::Decode(_))
        ));
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for &b in data {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    #[test]
    fn tile_names() {
        assert_eq!(parse_tile_stem("tile_14_58"), Some((14, 58, false)));
        assert_eq!(parse_tile_stem("tile_14_58_lc"), Some((14, 58, true)));
        for bad in [
            "tile_14",
            "tile__58",
            "tile_014_58",
            "tile_-1_3",
            "tile_1_2_3",
            "tile_a_b",
            "tiles_1_2",
            "tile_1_2_sat",
            "tile_99999999999_1",
            "",
        ] {
            assert_eq!(parse_tile_stem(bad), None, "{bad}");
        }
    }
}

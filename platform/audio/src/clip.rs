//! Sound files decoded into mono clips, with bounds: a pack's WAV (PCM 8/16/24/32-bit or IEEE
//! float, any channel count up to 8, downmixed) is parsed here chunk by chunk; an Ogg Vorbis file
//! goes through rodio's decoder (symphonia). Every file is refused above [`MAX_FILE_BYTES`] or
//! [`MAX_SECONDS`], and every refusal is a [`ClipError`] naming the file.
//!
//! Owns the decoding and its limits. Must not: find files in packs (`pack`), play anything, or
//! trust a size a file declares before checking it against the bytes it holds.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// Largest sound file read, bytes.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Longest sound decoded, seconds.
pub const MAX_SECONDS: f64 = 60.0;
/// Sample rates accepted, Hz.
pub const SAMPLE_RATES: std::ops::RangeInclusive<u32> = 8_000..=96_000;
/// Most channels accepted (downmixed to mono).
pub const MAX_CHANNELS: u16 = 8;
/// Most RIFF chunks walked before the `data` chunk.
const MAX_CHUNKS: usize = 256;

/// A decoded sound: mono samples in −1 … 1 at their own rate. Cheap to clone (shared).
#[derive(Clone, PartialEq)]
pub struct Clip {
    rate: u32,
    samples: Arc<[f32]>,
}

impl std::fmt::Debug for Clip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clip")
            .field("rate", &self.rate)
            .field("samples", &self.samples.len())
            .finish()
    }
}

impl Clip {
    /// A clip of `samples` at `rate` Hz; `None` when empty or the rate is outside
    /// [`SAMPLE_RATES`]. Non-finite samples become 0 and the rest is clamped to −1 … 1.
    pub fn new(rate: u32, samples: Vec<f32>) -> Option<Clip> {
        if samples.is_empty() || !SAMPLE_RATES.contains(&rate) {
            return None;
        }
        let samples: Vec<f32> = samples
            .into_iter()
            .map(|s| {
                if s.is_finite() {
                    s.clamp(-1.0, 1.0)
                } else {
                    0.0
                }
            })
            .collect();
        Some(Clip {
            rate,
            samples: samples.into(),
        })
    }

    /// Samples per second.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// The samples (never empty).
    pub fn samples(&self) -> &[f32] {
        &self.samples
    }

    /// Length, seconds.
    pub fn seconds(&self) -> f64 {
        self.samples.len() as f64 / f64::from(self.rate)
    }

    /// The shared samples (tests count who holds them).
    #[cfg(test)]
    pub(crate) fn shared(&self) -> Arc<[f32]> {
        self.samples.clone()
    }

    /// Whether `other` shares these very samples (a clone of the same clip): cheap, unlike `==`,
    /// which compares every sample.
    pub fn same(&self, other: &Clip) -> bool {
        Arc::ptr_eq(&self.samples, &other.samples)
    }

    /// The sample at fractional position `pos` (linear interpolation); past the end the next
    /// sample is the first when `looping`, else silence.
    pub(crate) fn at(&self, pos: f64, looping: bool) -> f32 {
        let s = &self.samples;
        let len = s.len();
        let i = pos as usize;
        if i >= len {
            return 0.0;
        }
        let frac = (pos - i as f64) as f32;
        let b = match s.get(i + 1) {
            Some(&b) => b,
            None if looping => s[0],
            None => 0.0,
        };
        s[i] + (b - s[i]) * frac
    }
}

/// Why a sound file was refused. `file` names it (a path or an asset name).
#[derive(Debug, thiserror::Error)]
pub enum ClipError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: {size} bytes; sound files are limited to {limit} bytes")]
    TooLarge { file: String, size: u64, limit: u64 },
    #[error(
        "{file}: neither a WAV (RIFF/WAVE) nor an Ogg Vorbis (OggS) file (starts with {magic})"
    )]
    UnknownFormat { file: String, magic: String },
    #[error("{file}: malformed WAV: {reason}")]
    BadWav { file: String, reason: String },
    #[error("{file}: unsupported WAV encoding: {what}")]
    Unsupported { file: String, what: String },
    #[error("{file}: {seconds:.1} s long; sounds are limited to {limit} s")]
    TooLong {
        file: String,
        seconds: f64,
        limit: f64,
    },
    #[error("{file}: holds no samples")]
    Empty { file: String },
    #[error("{file}: Ogg Vorbis: {reason}")]
    BadOgg { file: String, reason: String },
}

/// Reads and decodes the sound file at `path` (its extension does not matter: the contents
/// decide), reading no more than [`MAX_FILE_BYTES`].
pub fn read_file(path: &Path) -> Result<Clip, ClipError> {
    let file = path.display().to_string();
    let io = |source| ClipError::Io {
        file: file.clone(),
        source,
    };
    let f = std::fs::File::open(path).map_err(io)?;
    let meta = f.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(io(std::io::Error::other("not a regular file")));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(ClipError::TooLarge {
            file,
            size: meta.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    f.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    decode(&bytes, &file)
}

/// Decodes a WAV or Ogg Vorbis file held in memory; `file` names it in errors.
pub fn decode(bytes: &[u8], file: &str) -> Result<Clip, ClipError> {
    decode_limited(bytes, file, MAX_SECONDS)
}

/// [`decode`] with another length limit, seconds (music is longer than an effect).
pub fn decode_limited(bytes: &[u8], file: &str, max_seconds: f64) -> Result<Clip, ClipError> {
    // An hour at most, whatever the caller asks: the decoded samples are held in memory.
    let max_seconds = if max_seconds.is_nan() {
        MAX_SECONDS
    } else {
        max_seconds.clamp(0.0, 3_600.0)
    };
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(ClipError::TooLarge {
            file: file.to_owned(),
            size: bytes.len() as u64,
            limit: MAX_FILE_BYTES,
        });
    }
    match bytes {
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'A',
            b'V',
            b'E',
            ..,
        ] => wav(bytes, file, max_seconds),
        [b'O', b'g', b'g', b'S', ..] => ogg(bytes, file, max_seconds),
        _ => Err(ClipError::UnknownFormat {
            file: file.to_owned(),
            magic: magic_of(bytes),
        }),
    }
}

fn magic_of(bytes: &[u8]) -> String {
    let head: String = bytes
        .iter()
        .take(4)
        .map(|&b| {
            if b.is_ascii_graphic() {
                char::from(b)
            } else {
                '.'
            }
        })
        .collect();
    if head.is_empty() {
        "nothing: the file is empty".to_owned()
    } else {
        format!("{head:?}")
    }
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// How a WAV's samples are stored.
#[derive(Debug, Clone, Copy, PartialEq)]
struct WavFormat {
    float: bool,
    channels: u16,
    rate: u32,
    bits: u16,
}

impl WavFormat {
    fn bytes_per_sample(self) -> usize {
        usize::from(self.bits / 8)
    }

    /// One sample at the start of `b` (holds at least `bytes_per_sample`), in −1 … 1.
    fn sample(self, b: &[u8]) -> f32 {
        match (self.float, self.bits) {
            (false, 8) => (f32::from(b[0]) - 128.0) / 128.0,
            (false, 16) => f32::from(i16::from_le_bytes([b[0], b[1]])) / 32_768.0,
            (false, 24) => (i32::from_le_bytes([0, b[0], b[1], b[2]]) >> 8) as f32 / 8_388_608.0,
            (false, _) => {
                (f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])) / 2_147_483_648.0) as f32
            }
            (true, 32) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            (true, _) => {
                f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as f32
            }
        }
    }
}

fn parse_fmt(body: &[u8], file: &str) -> Result<WavFormat, ClipError> {
    let bad = |reason: &str| ClipError::BadWav {
        file: file.to_owned(),
        reason: reason.to_owned(),
    };
    let unsupported = |what: String| ClipError::Unsupported {
        file: file.to_owned(),
        what,
    };
    let (Some(mut tag), Some(channels), Some(rate), Some(align), Some(bits)) = (
        u16_at(body, 0),
        u16_at(body, 2),
        u32_at(body, 4),
        u16_at(body, 12),
        u16_at(body, 14),
    ) else {
        return Err(bad("the fmt chunk is shorter than 16 bytes"));
    };
    if tag == 0xFFFE {
        // WAVE_FORMAT_EXTENSIBLE: the sub-format GUID starts with the real tag.
        tag = u16_at(body, 24).ok_or_else(|| bad("the extensible fmt chunk is too short"))?;
    }
    let float = match tag {
        1 => false,
        3 => true,
        t => {
            return Err(unsupported(format!(
                "format tag {t:#06x} (only PCM and IEEE float are read)"
            )));
        }
    };
    let bits_ok = if float {
        matches!(bits, 32 | 64)
    } else {
        matches!(bits, 8 | 16 | 24 | 32)
    };
    if !bits_ok {
        return Err(unsupported(format!(
            "{bits}-bit {}",
            if float { "float" } else { "PCM" }
        )));
    }
    if channels == 0 || channels > MAX_CHANNELS {
        return Err(unsupported(format!(
            "{channels} channels (1 to {MAX_CHANNELS} are read)"
        )));
    }
    if !SAMPLE_RATES.contains(&rate) {
        return Err(unsupported(format!(
            "{rate} Hz ({} to {} Hz are read)",
            SAMPLE_RATES.start(),
            SAMPLE_RATES.end()
        )));
    }
    let f = WavFormat {
        float,
        channels,
        rate,
        bits,
    };
    if usize::from(align) != f.bytes_per_sample() * usize::from(channels) {
        return Err(bad(&format!(
            "block align {align} does not match {channels} channels of {bits} bits"
        )));
    }
    Ok(f)
}

/// Decodes a RIFF/WAVE file.
pub fn decode_wav(bytes: &[u8], file: &str) -> Result<Clip, ClipError> {
    wav(bytes, file, MAX_SECONDS)
}

fn wav(bytes: &[u8], file: &str, max_seconds: f64) -> Result<Clip, ClipError> {
    let bad = |reason: String| ClipError::BadWav {
        file: file.to_owned(),
        reason,
    };
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err(bad("no RIFF/WAVE header".to_owned()));
    }
    let mut at = 12usize;
    let mut format = None;
    let mut data = None;
    for _ in 0..MAX_CHUNKS {
        if at >= bytes.len() {
            break;
        }
        let (Some(id), Some(size)) = (bytes.get(at..at + 4), u32_at(bytes, at + 4)) else {
            return Err(bad(format!("truncated chunk header at byte {at}")));
        };
        let start = at + 8;
        let size = size as usize;
        let Some(body) = start
            .checked_add(size)
            .and_then(|end| bytes.get(start..end))
        else {
            return Err(bad(format!(
                "the {:?} chunk declares {size} bytes but only {} remain (truncated file?)",
                String::from_utf8_lossy(id),
                bytes.len() - start.min(bytes.len())
            )));
        };
        match id {
            b"fmt " => format = Some(parse_fmt(body, file)?),
            b"data" => {
                data = Some(body);
                break;
            }
            _ => {}
        }
        // Chunks are padded to an even size.
        at = start + size + (size & 1);
    }
    let Some(format) = format else {
        return Err(bad("no fmt chunk before the data".to_owned()));
    };
    let Some(data) = data else {
        return Err(bad("no data chunk".to_owned()));
    };
    let frame = format.bytes_per_sample() * usize::from(format.channels);
    let frames = data.len() / frame;
    if frames == 0 {
        return Err(ClipError::Empty {
            file: file.to_owned(),
        });
    }
    let seconds = frames as f64 / f64::from(format.rate);
    if seconds > max_seconds {
        return Err(ClipError::TooLong {
            file: file.to_owned(),
            seconds,
            limit: max_seconds,
        });
    }
    let bps = format.bytes_per_sample();
    let k = 1.0 / f32::from(format.channels);
    let samples = data
        .chunks_exact(frame)
        .map(|f| f.chunks_exact(bps).map(|s| format.sample(s)).sum::<f32>() * k)
        .collect();
    Clip::new(format.rate, samples).ok_or_else(|| ClipError::Empty {
        file: file.to_owned(),
    })
}

/// Decodes an Ogg Vorbis file through rodio (symphonia), stopping at [`MAX_SECONDS`].
pub fn decode_ogg(bytes: &[u8], file: &str) -> Result<Clip, ClipError> {
    ogg(bytes, file, MAX_SECONDS)
}

fn ogg(bytes: &[u8], file: &str, max_seconds: f64) -> Result<Clip, ClipError> {
    let bad = |reason: String| ClipError::BadOgg {
        file: file.to_owned(),
        reason,
    };
    let owned = bytes.to_vec();
    let len = owned.len() as u64;
    // The decoder is third-party code reading a hostile file: a panic in it is a refusal.
    let decoded = std::panic::catch_unwind(move || -> Result<(u32, u16, Vec<f32>), String> {
        use rodio::Source;
        let dec = rodio::Decoder::builder()
            .with_data(std::io::Cursor::new(owned))
            .with_byte_len(len)
            .with_hint("ogg")
            .with_seekable(true)
            .build()
            .map_err(|e| e.to_string())?;
        let rate = dec.sample_rate().get();
        let channels = dec.channels().get();
        if !SAMPLE_RATES.contains(&rate) || channels == 0 || channels > MAX_CHANNELS {
            return Err(format!("{channels} channels at {rate} Hz is not read"));
        }
        let limit = (max_seconds * f64::from(rate)) as usize * usize::from(channels);
        let interleaved: Vec<f32> = dec.take(limit + 1).collect();
        Ok((rate, channels, interleaved))
    })
    .map_err(|_| bad("the decoder failed on this file".to_owned()))?;
    let (rate, channels, interleaved) = decoded.map_err(bad)?;
    let ch = usize::from(channels);
    let frames = interleaved.len() / ch;
    if frames == 0 {
        return Err(ClipError::Empty {
            file: file.to_owned(),
        });
    }
    let seconds = frames as f64 / f64::from(rate);
    if seconds > max_seconds {
        return Err(ClipError::TooLong {
            file: file.to_owned(),
            seconds,
            limit: max_seconds,
        });
    }
    let k = 1.0 / f32::from(channels);
    let samples = interleaved
        .chunks_exact(ch)
        .map(|f| f.iter().sum::<f32>() * k)
        .collect();
    Clip::new(rate, samples).ok_or_else(|| ClipError::Empty {
        file: file.to_owned(),
    })
}

/// A RIFF/WAVE file of 16-bit PCM mono `samples` at `rate` (clamped to −1 … 1): for tests and for
/// writing what the mixer rendered.
pub fn wav_bytes(rate: u32, samples: &[f32]) -> Vec<u8> {
    let data = u32::try_from(samples.len() * 2).unwrap_or(u32::MAX - 36);
    let mut out = Vec::with_capacity(44 + samples.len() * 2);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * 2).to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    for s in samples {
        let v = if s.is_finite() {
            s.clamp(-1.0, 1.0)
        } else {
            0.0
        };
        out.extend_from_slice(&((v * 32_767.0).round() as i16).to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(n: usize) -> Vec<f32> {
        (0..n).map(|i| 0.5 * (i as f32 * 0.05).sin()).collect()
    }

    fn err(bytes: &[u8]) -> String {
        match decode(bytes, "engine/x_idle.wav") {
            Ok(c) => panic!("decoded {c:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_written_wav_reads_back() {
        let s = tone(4410);
        let clip = decode(&wav_bytes(44_100, &s), "t.wav").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(clip.rate(), 44_100);
        assert_eq!(clip.samples().len(), s.len());
        let worst = clip
            .samples()
            .iter()
            .zip(&s)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{worst}");
        assert!((clip.seconds() - 0.1).abs() < 1e-9);
    }

    /// A WAV with its own format fields and data.
    fn wav_with(tag: u16, channels: u16, rate: u32, bits: u16, data: &[u8]) -> Vec<u8> {
        let align = channels * bits / 8;
        let mut out = b"RIFF\0\0\0\0WAVE".to_vec();
        // An unknown chunk first, odd-sized: skipped with its pad byte.
        out.extend_from_slice(b"LIST");
        out.extend_from_slice(&3u32.to_le_bytes());
        out.extend_from_slice(b"abc\0");
        out.extend_from_slice(b"fmt ");
        out.extend_from_slice(&16u32.to_le_bytes());
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&channels.to_le_bytes());
        out.extend_from_slice(&rate.to_le_bytes());
        out.extend_from_slice(&(rate * u32::from(align)).to_le_bytes());
        out.extend_from_slice(&align.to_le_bytes());
        out.extend_from_slice(&bits.to_le_bytes());
        out.extend_from_slice(b"data");
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn other_encodings_are_read_and_downmixed() {
        // Stereo 16-bit: left 0.5, right −0.5 → mono 0.
        let mut d = Vec::new();
        for _ in 0..10 {
            d.extend_from_slice(&16_384i16.to_le_bytes());
            d.extend_from_slice(&(-16_384i16).to_le_bytes());
        }
        let c = decode(&wav_with(1, 2, 48_000, 16, &d), "s.wav").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.samples().len(), 10);
        assert!(c.samples().iter().all(|s| s.abs() < 1e-6));
        // 8-bit unsigned, 24-bit and float.
        let c = decode(&wav_with(1, 1, 8_000, 8, &[255, 128, 0]), "8.wav")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.samples(), &[127.0 / 128.0, 0.0, -1.0]);
        let c = decode(
            &wav_with(1, 1, 22_050, 24, &[0, 0, 0x40, 0, 0, 0xC0]),
            "24.wav",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.samples(), &[0.5, -0.5]);
        let c = decode(&wav_with(3, 1, 44_100, 32, &0.25f32.to_le_bytes()), "f.wav")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.samples(), &[0.25]);
        // Float NaN and out-of-range values are cleaned.
        let mut d = f32::NAN.to_le_bytes().to_vec();
        d.extend_from_slice(&7.0f32.to_le_bytes());
        let c = decode(&wav_with(3, 1, 44_100, 32, &d), "n.wav").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.samples(), &[0.0, 1.0]);
    }

    #[test]
    fn hostile_wavs_are_refused_with_the_file_named() {
        let good = wav_bytes(44_100, &tone(1000));
        // Truncated: the data chunk declares more than the file holds.
        let e = err(&good[..good.len() - 100]);
        assert!(
            e.contains("engine/x_idle.wav") && e.contains("truncated"),
            "{e}"
        );
        // Cut inside the header.
        assert!(
            err(&good[..30]).contains("malformed WAV"),
            "{}",
            err(&good[..30])
        );
        assert!(err(&good[..6]).contains("neither a WAV"));
        assert!(err(&[]).contains("empty"));
        // Wrong header.
        let mut wrong = good.clone();
        wrong[8..12].copy_from_slice(b"AVI ");
        assert!(err(&wrong).contains("neither a WAV"));
        // A huge declared data size.
        let mut huge = good.clone();
        huge[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(
            err(&huge).contains("declares 4294967295 bytes"),
            "{}",
            err(&huge)
        );
        // A huge declared fmt size.
        let mut huge_fmt = good.clone();
        huge_fmt[16..20].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        assert!(err(&huge_fmt).contains("truncated"));
        // Unsupported encodings and nonsense formats.
        let e = err(&wav_with(2, 1, 44_100, 16, &[0; 4]));
        assert!(e.contains("format tag 0x0002"), "{e}");
        assert!(err(&wav_with(1, 0, 44_100, 16, &[0; 4])).contains("0 channels"));
        assert!(err(&wav_with(1, 9, 44_100, 16, &[0; 18])).contains("9 channels"));
        assert!(err(&wav_with(1, 1, 1_000_000, 16, &[0; 4])).contains("1000000 Hz"));
        assert!(err(&wav_with(1, 1, 0, 16, &[0; 4])).contains("0 Hz"));
        assert!(err(&wav_with(1, 1, 44_100, 12, &[0; 4])).contains("12-bit PCM"));
        assert!(err(&wav_with(1, 1, 44_100, 16, &[])).contains("no samples"));
        let mut misaligned = wav_with(1, 2, 44_100, 16, &[0; 8]);
        misaligned[44..46].copy_from_slice(&3u16.to_le_bytes());
        assert!(
            err(&misaligned).contains("block align"),
            "{}",
            err(&misaligned)
        );
        // Data before fmt.
        let mut no_fmt = b"RIFF\0\0\0\0WAVEdata".to_vec();
        no_fmt.extend_from_slice(&4u32.to_le_bytes());
        no_fmt.extend_from_slice(&[0; 4]);
        assert!(err(&no_fmt).contains("no fmt chunk"));
    }

    #[test]
    fn too_long_and_too_large_files_are_refused() {
        // 61 s of 8 kHz 8-bit mono: 488 kB, under the byte limit but over the length limit.
        let d = vec![128u8; 61 * 8_000];
        let e = err(&wav_with(1, 1, 8_000, 8, &d));
        assert!(e.contains("61.0 s long"), "{e}");
        let big = vec![0u8; MAX_FILE_BYTES as usize + 1];
        assert!(err(&big).contains("limited to 16777216 bytes"));
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let p = dir.path().join("big.wav");
        std::fs::write(&p, &big).unwrap_or_else(|e| panic!("{e}"));
        let e = read_file(&p)
            .err()
            .map_or_else(|| panic!("no error"), |e| e.to_string());
        assert!(e.contains("big.wav") && e.contains("limited"), "{e}");
        let e = read_file(dir.path())
            .err()
            .map_or_else(|| panic!("no error"), |e| e.to_string());
        assert!(e.contains("cannot read"), "{e}");
    }

    #[test]
    fn hostile_oggs_are_refused_without_a_panic() {
        let mut bytes = b"OggS".to_vec();
        bytes.extend_from_slice(&[0u8; 200]);
        assert!(err(&bytes).contains("Ogg Vorbis"), "{}", err(&bytes));
        let mut noise = b"OggS".to_vec();
        let mut x = 0x1234_5678u32;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            noise.push(x as u8);
        }
        assert!(err(&noise).contains("Ogg Vorbis"));
    }
}

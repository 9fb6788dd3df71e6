//! The pipeline cache on disk: compiled pipelines kept between runs so a warm start skips the
//! driver's shader compilation. One file per class of adapter (wgpu's
//! `pipeline_cache_key`: vendor and device), wrapped in our own header with a length and a
//! checksum, because wgpu checks the adapter and the length but not the bytes.
//!
//! Owns reading, checking and writing that file, and handing the cache to the [`Gpu`]. Must not
//! decide where the file lives (the game passes its cache folder) or fail a start: a missing,
//! foreign, truncated or corrupt file means compiling from scratch, with a log line.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::Gpu;

/// Our header: magic, format version, data length, FNV-1a 64 of the data.
const MAGIC: &[u8; 8] = b"FLPIPEC\0";
const VERSION: u32 = 1;
const HEADER_LEN: usize = 8 + 4 + 8 + 8;
/// A driver's cache of a few dozen pipelines is a few MiB; anything past this is not ours.
pub const MAX_CACHE_BYTES: u64 = 256 << 20;

/// Why the cached pipelines could not be used or kept (never fatal: the game compiles anew).
#[derive(Debug, thiserror::Error)]
pub enum PipelineCacheError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is {len} bytes, more than a pipeline cache can be ({MAX_CACHE_BYTES})")]
    TooLarge { path: PathBuf, len: u64 },
    #[error("{path} is not a pipeline cache of this game ({why})")]
    NotOurs { path: PathBuf, why: &'static str },
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// How the cache was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheStart {
    /// The adapter or backend keeps no application cache (only Vulkan does in wgpu 30).
    Unsupported,
    /// No file yet (first run on this adapter).
    Cold,
    /// A checked file of this many bytes was handed to the driver.
    Warm(usize),
    /// The file was unusable (see the log); starting empty.
    Discarded,
}

/// The cache file of one adapter.
#[derive(Debug)]
pub struct DiskPipelineCache {
    path: Option<PathBuf>,
    start: CacheStart,
}

impl DiskPipelineCache {
    /// Opens the cache for `gpu`'s adapter in `dir` and installs it on `gpu`, so every pipeline
    /// the [`crate::Renderer`] builds afterwards goes through it. Call before
    /// [`crate::Renderer::new`]. Never fails: an unusable file is logged and ignored.
    pub fn open(gpu: &mut Gpu, dir: &Path) -> DiskPipelineCache {
        let supported = gpu
            .device
            .features()
            .contains(wgpu::Features::PIPELINE_CACHE);
        let key = wgpu::util::pipeline_cache_key(&gpu.adapter.get_info());
        let (true, Some(key)) = (supported, key) else {
            return DiskPipelineCache {
                path: None,
                start: CacheStart::Unsupported,
            };
        };
        let path = dir.join(key);
        let (data, start) = match read_checked(&path) {
            Ok(Some(data)) => {
                let n = data.len();
                (Some(data), CacheStart::Warm(n))
            }
            Ok(None) => (None, CacheStart::Cold),
            Err(e) => {
                tracing::warn!("pipeline cache ignored: {e}");
                (None, CacheStart::Discarded)
            }
        };
        // SAFETY: `data` is bytes this function's `save` wrote from `PipelineCache::get_data`
        // on an adapter of the same key: our header's length and checksum prove the bytes are
        // the ones written, and wgpu itself checks its header (format, ABI, adapter, driver,
        // length), falling back to an empty cache (`fallback: true`) when they do not match.
        #[allow(unsafe_code)]
        let cache = unsafe {
            gpu.device
                .create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                    label: Some("fl-render pipeline cache"),
                    data: data.as_deref(),
                    fallback: true,
                })
        };
        gpu.pipeline_cache = Some(cache);
        tracing::info!(path = %path.display(), ?start, "pipeline cache");
        DiskPipelineCache {
            path: Some(path),
            start,
        }
    }

    /// How the cache started.
    pub fn start(&self) -> CacheStart {
        self.start
    }

    /// The file (none when unsupported).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Writes what the driver has compiled so far (atomically: a crash mid-write leaves the
    /// old file). Returns the bytes written (0 when the driver had nothing or no cache).
    pub fn save(&self, gpu: &Gpu) -> Result<usize, PipelineCacheError> {
        let (Some(path), Some(cache)) = (&self.path, &gpu.pipeline_cache) else {
            return Ok(0);
        };
        let Some(data) = cache.get_data() else {
            return Ok(0);
        };
        if data.is_empty() || data.len() as u64 > MAX_CACHE_BYTES {
            return Ok(0);
        }
        write_checked(path, &data)?;
        Ok(data.len())
    }
}

fn fnv1a64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The checked data of `path`, `None` when there is no file.
fn read_checked(path: &Path) -> Result<Option<Vec<u8>>, PipelineCacheError> {
    let read_err = |source| PipelineCacheError::Read {
        path: path.to_owned(),
        source,
    };
    let len = match std::fs::metadata(path) {
        Ok(m) => m.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_err(e)),
    };
    if len > MAX_CACHE_BYTES + HEADER_LEN as u64 {
        return Err(PipelineCacheError::TooLarge {
            path: path.to_owned(),
            len,
        });
    }
    let bytes = std::fs::read(path).map_err(read_err)?;
    unwrap_checked(&bytes)
        .map(|d| Some(d.to_vec()))
        .map_err(|why| PipelineCacheError::NotOurs {
            path: path.to_owned(),
            why,
        })
}

/// The data inside our header, or why the bytes are not a whole cache file of ours.
fn unwrap_checked(bytes: &[u8]) -> Result<&[u8], &'static str> {
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return Err("no header");
    }
    let word = |at: usize, n: usize| {
        bytes[at..at + n]
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
    };
    if word(8, 4) != u64::from(VERSION) {
        return Err("another format version");
    }
    let data = &bytes[HEADER_LEN..];
    if word(12, 8) != data.len() as u64 {
        return Err("truncated or extended");
    }
    if word(20, 8) != fnv1a64(data) {
        return Err("checksum mismatch");
    }
    Ok(data)
}

fn wrap_checked(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a64(data).to_le_bytes());
    out.extend_from_slice(data);
    out
}

fn write_checked(path: &Path, data: &[u8]) -> Result<(), PipelineCacheError> {
    let write_err = |source| PipelineCacheError::Write {
        path: path.to_owned(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(write_err)?;
    let mut tmp = tempfile_in(dir).map_err(write_err)?;
    tmp.1.write_all(&wrap_checked(data)).map_err(write_err)?;
    tmp.1.sync_all().map_err(write_err)?;
    drop(tmp.1);
    std::fs::rename(&tmp.0, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp.0);
        write_err(e)
    })
}

/// A new file beside the cache (same folder, so the rename is atomic).
fn tempfile_in(dir: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    for n in 0..16u32 {
        let p = dir.join(format!(".pipeline-cache-{}-{n}.tmp", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(f) => return Ok((p, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        "no free temporary name for the pipeline cache",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_cache_unwraps_to_the_same_bytes() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let wrapped = wrap_checked(&data);
        assert_eq!(unwrap_checked(&wrapped), Ok(&data[..]));
    }

    #[test]
    fn damaged_files_are_refused_with_the_reason() {
        let data = vec![42u8; 300];
        let good = wrap_checked(&data);
        assert_eq!(unwrap_checked(b"short"), Err("no header"));
        assert_eq!(unwrap_checked(&[0u8; 64]), Err("no header"));
        assert_eq!(
            unwrap_checked(&good[..good.len() - 1]),
            Err("truncated or extended")
        );
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(unwrap_checked(&longer), Err("truncated or extended"));
        let mut flipped = good.clone();
        flipped[HEADER_LEN + 100] ^= 1;
        assert_eq!(unwrap_checked(&flipped), Err("checksum mismatch"));
        let mut version = good;
        version[8] = 9;
        assert_eq!(unwrap_checked(&version), Err("another format version"));
    }

    #[test]
    fn files_are_read_back_and_a_missing_one_is_cold() {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = dir.path().join("sub").join("cache");
        assert!(matches!(read_checked(&p), Ok(None)));
        write_checked(&p, b"driver bytes").expect("written");
        assert_eq!(
            read_checked(&p).expect("read").as_deref(),
            Some(&b"driver bytes"[..])
        );
        std::fs::write(&p, b"garbage garbage garbage garbage").expect("overwrite");
        assert!(matches!(
            read_checked(&p),
            Err(PipelineCacheError::NotOurs { .. })
        ));
        // No temporary files are left beside it.
        let names: Vec<_> = std::fs::read_dir(p.parent().expect("dir"))
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    /// On an adapter with an application pipeline cache (Vulkan, lavapipe included): the
    /// renderer's pipelines fill it, it is saved, and a second device starts warm from it; a
    /// corrupt file starts cold without an error.
    #[test]
    fn the_renderer_fills_the_cache_and_a_second_start_is_warm() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut gpu = match Gpu::new() {
            Ok(g) => g,
            Err(e) => {
                fl_fixtures::no_adapter(&e.to_string());
                return;
            }
        };
        let cache = DiskPipelineCache::open(&mut gpu, dir.path());
        if cache.start() == CacheStart::Unsupported {
            assert!(
                gpu.info.backend != "Vulkan"
                    || !gpu
                        .adapter
                        .features()
                        .contains(wgpu::Features::PIPELINE_CACHE),
                "a Vulkan adapter with PIPELINE_CACHE must get a cache"
            );
            return;
        }
        assert_eq!(cache.start(), CacheStart::Cold);
        let _renderer = crate::Renderer::new(&gpu).expect("renderer");
        let written = cache.save(&gpu).expect("saved");
        assert!(written > 0, "the driver returned no cache data");
        let path = cache.path().expect("a path").to_owned();

        let mut second = Gpu::new().expect("second device");
        let warm = DiskPipelineCache::open(&mut second, dir.path());
        assert_eq!(warm.start(), CacheStart::Warm(written));
        let _renderer = crate::Renderer::new(&second).expect("renderer from a warm cache");

        let mut bytes = std::fs::read(&path).expect("read");
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&path, &bytes).expect("corrupt it");
        let mut third = Gpu::new().expect("third device");
        let discarded = DiskPipelineCache::open(&mut third, dir.path());
        assert_eq!(discarded.start(), CacheStart::Discarded);
        let _renderer = crate::Renderer::new(&third).expect("renderer after a bad cache");
    }
}

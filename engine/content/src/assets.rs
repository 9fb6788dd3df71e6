//! Asset kinds and path-safe, size-bounded file access inside one pack.
//!
//! Owns: where each kind of asset lives in a pack (directory and extensions), its size limit, and
//! the only code in this crate that opens pack files: every path is resolved under the pack's
//! canonical root, symlinks are followed and refused when they land outside it, non-regular files
//! are refused, and no read returns more than the kind's limit. Must not: interpret file contents,
//! or accept a name that has not passed [`crate::names::check_asset_name`].

use crate::error::{AssetError, ContentError};
use std::fmt;
use std::fs;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

const MIB: u64 = 1024 * 1024;

/// Most files accepted in one definition directory (`entities/`, `weapons/`, `sensors/`).
pub const MAX_DIR_ENTRIES: usize = 4096;

/// What an asset is; decides its directory, extensions and size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AssetKind {
    /// glTF mesh: `aircraft/<name>.glb` (or `.gltf`). All meshes live under `aircraft/`,
    /// whatever the entity's category (the pack's convention).
    Mesh,
    /// Texture: `textures/<name>.ktx2` (or `.png`).
    Texture,
    /// Sound or music: `audio/<name>.ogg`.
    Audio,
    /// Flight model: `aircraft/<name>.toml`.
    FlightModel,
    /// Mission: `missions/<name>.yaml`.
    Mission,
    /// Lua AI script: `ai/<name>.lua`.
    AiScript,
    /// Hand-written manual prose: `manual/<name>.md`.
    Manual,
    /// Pack configuration: `data/<name>.toml` (e.g. `playlist`).
    Config,
    /// Terrain tile: `terrain/<name>.png` (e.g. `world/f1/l6/tile_14_58`).
    Terrain,
    /// Entity definition: `entities/<name>.toml`.
    EntityDef,
    /// Weapon definition: `weapons/<name>.toml`.
    WeaponDef,
    /// Sensor definition: `sensors/<name>.toml`.
    SensorDef,
}

impl AssetKind {
    /// Every kind.
    pub const ALL: [AssetKind; 12] = [
        Self::Mesh,
        Self::Texture,
        Self::Audio,
        Self::FlightModel,
        Self::Mission,
        Self::AiScript,
        Self::Manual,
        Self::Config,
        Self::Terrain,
        Self::EntityDef,
        Self::WeaponDef,
        Self::SensorDef,
    ];

    /// The pack subdirectory.
    pub fn dir(self) -> &'static str {
        match self {
            Self::Mesh | Self::FlightModel => "aircraft",
            Self::Texture => "textures",
            Self::Audio => "audio",
            Self::Mission => "missions",
            Self::AiScript => "ai",
            Self::Manual => "manual",
            Self::Config => "data",
            Self::Terrain => "terrain",
            Self::EntityDef => "entities",
            Self::WeaponDef => "weapons",
            Self::SensorDef => "sensors",
        }
    }

    /// File extensions tried in order (the first found in a pack wins within that pack).
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Self::Mesh => &["glb", "gltf"],
            Self::Texture => &["ktx2", "png"],
            // Ogg Vorbis (fl-base-pack); uncompressed WAV for short loops a pack generates
            // (our own pack's engine sounds).
            Self::Audio => &["ogg", "wav"],
            Self::Mission => &["yaml"],
            Self::AiScript => &["lua"],
            Self::Manual => &["md"],
            Self::Terrain => &["png"],
            Self::FlightModel
            | Self::Config
            | Self::EntityDef
            | Self::WeaponDef
            | Self::SensorDef => &["toml"],
        }
    }

    /// Largest file of this kind that is read, bytes. Far above anything a real pack ships (the
    /// fixture pack's largest file is ~1 MiB), far below what would hurt a server.
    pub fn default_limit(self) -> u64 {
        match self {
            Self::Mesh | Self::Texture | Self::Audio => 64 * MIB,
            Self::Terrain => 16 * MIB,
            Self::FlightModel => fl_flight::schema::MAX_FILE_BYTES,
            Self::Mission => 4 * MIB,
            Self::AiScript | Self::Manual | Self::Config => MIB,
            Self::EntityDef | Self::WeaponDef | Self::SensorDef => MIB,
        }
    }

    /// Lower-case name for messages.
    pub fn label(self) -> &'static str {
        match self {
            Self::Mesh => "mesh",
            Self::Texture => "texture",
            Self::Audio => "audio",
            Self::FlightModel => "flight model",
            Self::Mission => "mission",
            Self::AiScript => "AI script",
            Self::Manual => "manual",
            Self::Config => "config",
            Self::Terrain => "terrain",
            Self::EntityDef => "entity definition",
            Self::WeaponDef => "weapon definition",
            Self::SensorDef => "sensor definition",
        }
    }

    /// The pack-relative paths a name may resolve to, in the order tried.
    pub fn candidates(self, name: &str) -> Vec<String> {
        self.extensions()
            .iter()
            .map(|ext| format!("{}/{name}.{ext}", self.dir()))
            .collect()
    }
}

impl fmt::Display for AssetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Size limits, per kind, with an optional global cap (servers with little memory, tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AssetLimits {
    /// When set, no file larger than this is read, whatever its kind.
    pub global_cap: Option<u64>,
}

impl AssetLimits {
    /// The limit for a kind.
    pub fn limit(&self, kind: AssetKind) -> u64 {
        let l = kind.default_limit();
        self.global_cap.map_or(l, |c| c.min(l))
    }
}

/// A pack directory, canonicalised: the boundary no read may cross.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackRoot {
    root: PathBuf,
}

impl PackRoot {
    /// Canonicalises `dir`, which must be a directory.
    pub fn new(dir: &Path) -> Result<Self, ContentError> {
        let root = fs::canonicalize(dir).map_err(|source| ContentError::Io {
            path: dir.into(),
            source,
        })?;
        if !root.is_dir() {
            return Err(ContentError::Io {
                path: dir.into(),
                source: std::io::Error::new(ErrorKind::NotADirectory, "not a directory"),
            });
        }
        Ok(Self { root })
    }

    /// The canonical root.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Resolves a pack-relative path (made of checked components) to a canonical path inside the
    /// root. `Ok(None)` when nothing is there (a dangling symlink counts as nothing);
    /// [`AssetError::Escapes`] when it resolves outside the root.
    pub fn resolve(&self, rel: &str) -> Result<Option<PathBuf>, AssetError> {
        let candidate = self.root.join(rel);
        match fs::symlink_metadata(&candidate) {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::NotFound || e.kind() == ErrorKind::NotADirectory => {
                return Ok(None);
            }
            Err(source) => {
                return Err(AssetError::Io {
                    path: candidate,
                    source,
                });
            }
        }
        let real = match fs::canonicalize(&candidate) {
            Ok(r) => r,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                tracing::debug!(path = %candidate.display(), "dangling symlink treated as absent");
                return Ok(None);
            }
            Err(source) => {
                return Err(AssetError::Io {
                    path: candidate,
                    source,
                });
            }
        };
        if !real.starts_with(&self.root) {
            return Err(AssetError::Escapes {
                path: candidate,
                resolved: real,
                root: self.root.clone(),
            });
        }
        Ok(Some(real))
    }

    /// Finds `name` of `kind` in this pack: the first extension that exists.
    pub fn find(&self, kind: AssetKind, name: &str) -> Result<Option<PathBuf>, AssetError> {
        for rel in kind.candidates(name) {
            if let Some(p) = self.resolve(&rel)? {
                return Ok(Some(p));
            }
        }
        Ok(None)
    }

    /// Reads a resolved path: a regular file no larger than `limit` bytes.
    pub fn read(&self, path: &Path, kind: AssetKind, limit: u64) -> Result<Vec<u8>, AssetError> {
        let io = |source| AssetError::Io {
            path: path.into(),
            source,
        };
        // Check before opening: opening a FIFO would block.
        let meta = fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(AssetError::NotAFile { path: path.into() });
        }
        if meta.len() > limit {
            return Err(AssetError::TooLarge {
                path: path.into(),
                size: meta.len(),
                limit,
                kind,
            });
        }
        let file = fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(AssetError::NotAFile { path: path.into() });
        }
        let cap = usize::try_from(meta.len().min(limit)).unwrap_or(0);
        let mut buf = Vec::with_capacity(cap);
        file.take(limit.saturating_add(1))
            .read_to_end(&mut buf)
            .map_err(io)?;
        if buf.len() as u64 > limit {
            return Err(AssetError::TooLarge {
                path: path.into(),
                size: buf.len() as u64,
                limit,
                kind,
            });
        }
        Ok(buf)
    }

    /// Reads a pack-relative text file (a manifest or a definition), refusing escapes, non-files,
    /// oversize files and invalid UTF-8.
    pub fn read_text(
        &self,
        rel: &str,
        kind: AssetKind,
        limit: u64,
    ) -> Result<(PathBuf, String), ContentError> {
        let path = self.resolve(rel)?.ok_or_else(|| ContentError::Io {
            path: self.root.join(rel),
            source: std::io::Error::new(ErrorKind::NotFound, "not found"),
        })?;
        let bytes = self.read(&path, kind, limit)?;
        let text = String::from_utf8(bytes).map_err(|e| ContentError::Syntax {
            file: path.clone(),
            line: 1,
            message: format!("file is not UTF-8 ({e})"),
        })?;
        Ok((path, text))
    }

    /// Lists `<dir>/*.<ext>` (not recursive), sorted by file name: `(stem, pack-relative path)`.
    /// Names that are not valid asset-name components are returned in the second list so the
    /// caller can warn about them. A missing directory is empty.
    pub fn list(&self, dir: &str, ext: &str) -> Result<DirListing, ContentError> {
        self.list_at_most(dir, ext, MAX_DIR_ENTRIES)
    }

    /// [`PackRoot::list`] with another bound on the directory's entries (terrain levels hold
    /// many more files than a definition directory; the caller picks a bound it can afford).
    pub fn list_at_most(
        &self,
        dir: &str,
        ext: &str,
        max_entries: usize,
    ) -> Result<DirListing, ContentError> {
        let Some(real) = self.resolve(dir)? else {
            return Ok(DirListing::default());
        };
        if !real.is_dir() {
            return Ok(DirListing::default());
        }
        let rd = fs::read_dir(&real).map_err(|source| ContentError::Io {
            path: real.clone(),
            source,
        })?;
        let mut out = DirListing::default();
        let suffix = format!(".{ext}");
        for (n, entry) in rd.enumerate() {
            if n >= max_entries {
                return Err(ContentError::TooManyFiles {
                    dir: real,
                    max: max_entries,
                });
            }
            let entry = entry.map_err(|source| ContentError::Io {
                path: real.clone(),
                source,
            })?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                out.refused
                    .push(format!("{}/{}", dir, name.to_string_lossy()));
                continue;
            };
            let Some(stem) = name.strip_suffix(&suffix) else {
                continue;
            };
            if crate::names::check_asset_name(stem).is_err() {
                out.refused.push(format!("{dir}/{name}"));
                continue;
            }
            out.files.push((stem.to_owned(), format!("{dir}/{name}")));
        }
        out.files.sort();
        out.refused.sort();
        Ok(out)
    }
}

/// The result of [`PackRoot::list`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirListing {
    /// `(stem, pack-relative path)`, sorted.
    pub files: Vec<(String, String)>,
    /// Pack-relative paths whose names are not acceptable asset names (not loaded).
    pub refused: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_follow_the_pack_convention() {
        assert_eq!(
            AssetKind::Mesh.candidates("f16a/f16a"),
            ["aircraft/f16a/f16a.glb", "aircraft/f16a/f16a.gltf"]
        );
        assert_eq!(
            AssetKind::FlightModel.candidates("f16a/f16a"),
            ["aircraft/f16a/f16a.toml"]
        );
        assert_eq!(
            AssetKind::Audio.candidates("music/menu_theme"),
            ["audio/music/menu_theme.ogg", "audio/music/menu_theme.wav"]
        );
        assert_eq!(
            AssetKind::Texture.candidates("f5e"),
            ["textures/f5e.ktx2", "textures/f5e.png"]
        );
    }

    #[test]
    fn global_cap_only_lowers_limits() {
        let l = AssetLimits {
            global_cap: Some(10),
        };
        assert_eq!(l.limit(AssetKind::Mesh), 10);
        let l = AssetLimits {
            global_cap: Some(u64::MAX),
        };
        assert_eq!(l.limit(AssetKind::Mesh), AssetKind::Mesh.default_limit());
        assert_eq!(
            AssetLimits::default().limit(AssetKind::FlightModel),
            fl_flight::schema::MAX_FILE_BYTES
        );
    }
}

//! The client's content stack: loaded exactly as the server loads its own (`fl_content::
//! load_stack`), from the user's mods folder in the OS data directory plus `--mods DIR` and
//! `--pack DIR`, and logged once in the findings format.
//!
//! Owns: where the user's mods folder is (`<data dir>/mods`, the `directories` crate's data
//! directory for `fighters-legacy`; on Linux `$XDG_DATA_HOME/fighters-legacy/mods`, else
//! `~/.local/share/fighters-legacy/mods`), the choice of aircraft (`--aircraft`) against the
//! loaded types, and the pack manifest the session reports. A missing mods folder is fine (no
//! packs). Must not: load content any other way than the server does.

use fl_content::{AircraftChoiceError, Content, StackSources, load_stack, log_loaded};
use std::path::PathBuf;
use std::sync::Arc;

/// Where the client's packs come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentOptions {
    /// Scan the user's mods folder ([`user_mods_dir`]).
    pub user_mods: bool,
    /// More mods directories (`--mods`).
    pub mods_dirs: Vec<PathBuf>,
    /// Pack directories (`--pack`).
    pub pack_dirs: Vec<PathBuf>,
}

impl Default for ContentOptions {
    fn default() -> Self {
        Self {
            user_mods: true,
            mods_dirs: Vec::new(),
            pack_dirs: Vec::new(),
        }
    }
}

/// Why the client's content did not load.
#[derive(Debug, thiserror::Error)]
pub enum ContentLoadError {
    /// Not even the builtin layer loaded.
    #[error("content failed to load:\n{0}")]
    Failed(String),
    /// `--aircraft` names no loaded type that flies.
    #[error("--aircraft")]
    Aircraft(#[from] AircraftChoiceError),
}

/// The data directory of this client (`None` when the OS gives none, e.g. no home directory).
pub fn user_data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "fighters-legacy").map(|d| d.data_dir().to_owned())
}

/// The user's mods folder: `<data dir>/mods`.
pub fn user_mods_dir() -> Option<PathBuf> {
    user_data_dir().map(|d| d.join("mods"))
}

/// Where a missing pack goes, for messages: the user's mods folder, or a hint when there is none.
pub fn where_packs_go() -> String {
    match user_mods_dir() {
        Some(d) => format!("put the pack in {}/ or pass --pack DIR", d.display()),
        None => "pass --pack DIR (this system has no user data directory)".to_owned(),
    }
}

impl ContentOptions {
    /// The stack's sources: the user's mods folder first, then `--mods`, then `--pack`.
    pub fn sources(&self) -> StackSources {
        let mut mods_dirs = Vec::new();
        if self.user_mods
            && let Some(d) = user_mods_dir()
        {
            mods_dirs.push(d);
        }
        mods_dirs.extend(self.mods_dirs.iter().cloned());
        StackSources {
            mods_dirs,
            pack_dirs: self.pack_dirs.clone(),
        }
    }
}

/// Loads the stack, logs its findings once (a broken pack is skipped and reported, as on the
/// server), and checks `aircraft` (a type id that must exist and fly) when given.
pub fn load(
    opts: &ContentOptions,
    aircraft: Option<&str>,
) -> Result<Arc<Content>, ContentLoadError> {
    let content = load_sources(&opts.sources())?;
    if let Some(id) = aircraft {
        content.aircraft_type(id)?;
    }
    Ok(content)
}

/// Loads a stack from explicit sources and logs its findings once (also the embedded server's
/// path when it is not handed the client's content).
pub fn load_sources(sources: &StackSources) -> Result<Arc<Content>, ContentLoadError> {
    let load = load_stack(sources);
    let Some(content) = load.content else {
        let lines: Vec<String> = load
            .findings
            .items
            .iter()
            .map(ToString::to_string)
            .collect();
        return Err(ContentLoadError::Failed(lines.join("\n")));
    };
    log_loaded(&content);
    Ok(Arc::new(content))
}

/// The mounted packs as the session reports them in `MsgConnectRequest` (id, version).
pub fn manifest(content: &Content) -> Vec<(String, String)> {
    content
        .packs()
        .into_iter()
        .map(|p| (p.id, p.version))
        .collect()
}

/// Each mounted pack's terrain digest for `PackManifestEntry.contentHash` (the first call reads
/// every terrain file once: ≈ 40 MB for the fixture pack).
pub fn pack_hashes(content: &Arc<Content>) -> Vec<(String, [u8; 32])> {
    terrain_of(content).digests().to_vec()
}

/// The terrain of a loaded stack, built once per `Content` in this process: the prediction, the
/// manifest's digests and the embedded server share it (one scan, one set of warnings, one tile
/// cache, one digest pass). Heights are a pure function of the files, so sharing changes none.
pub fn terrain_of(content: &Arc<Content>) -> fl_terrain::Terrain {
    type Built = Vec<(std::sync::Weak<Content>, fl_terrain::Terrain)>;
    static BUILT: std::sync::Mutex<Built> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    built.retain(|(w, _)| w.strong_count() > 0);
    if let Some((_, t)) = built
        .iter()
        .find(|(w, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(content)))
    {
        return t.clone();
    }
    let t = fl_terrain::Terrain::from_content(content, fl_terrain::TerrainConfig::default());
    built.push((Arc::downgrade(content), t.clone()));
    t
}

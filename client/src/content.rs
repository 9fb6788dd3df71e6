//! The client's content stack: loaded exactly as the server loads its own (`fl_content::
//! load_stack`), from the mods folders the game finds by itself (next to the executable, the
//! checkout's, the user's in the OS data directory) plus `--mods DIR` and `--pack DIR`, and
//! logged once in the findings format.
//!
//! Owns: where the game's mods folders are ([`game_mods_dirs`]: `<exe dir>/mods`; the checkout's
//! `mods/`, found by walking up from the executable and then from the working directory to the
//! first directory holding both `mods/` and `Cargo.toml`; the user's `<data dir>/mods`, the
//! `directories` crate's data directory for `fighters-legacy`: on Linux
//! `$XDG_DATA_HOME/fighters-legacy/mods`, else `~/.local/share/fighters-legacy/mods`), the
//! default aircraft (our own pack's trainer when it is loaded, else the builtin one), the choice
//! of aircraft (`--aircraft`) against the loaded types, and the pack manifest the session
//! reports. A missing mods folder is fine (no packs: the builtin layer alone). Must not: load
//! content any other way than the server does.

use fl_content::{AircraftChoiceError, Content, StackSources, load_stack, log_loaded};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Our own pack's aircraft (`mods/fl-trainer`): flown by default when the pack is loaded.
pub const OWN_TRAINER: &str = "fl-trainer:jet-trainer";

/// Where the client's packs come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentOptions {
    /// Scan the mods folders the game finds by itself ([`game_mods_dirs`]: next to the
    /// executable, the checkout's, the user's).
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

/// The cache directory of this client (compiled pipelines, thumbnails): safe to delete.
pub fn user_cache_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "fighters-legacy").map(|d| d.cache_dir().to_owned())
}

/// The user's mods folder: `<data dir>/mods`.
pub fn user_mods_dir() -> Option<PathBuf> {
    user_data_dir().map(|d| d.join("mods"))
}

/// How far up the directory tree the checkout is looked for.
const MAX_WALK_UP: usize = 32;

/// The first directory at or above `start` that holds both a `mods/` directory and a
/// `Cargo.toml` file: a source checkout of the game (at most [`MAX_WALK_UP`] levels).
pub fn checkout_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .take(MAX_WALK_UP)
        .find(|d| d.join("mods").is_dir() && d.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// The mods folders the game scans by itself, in order, each once: `<exe dir>/mods` (an
/// installed game), the checkout's `mods/` (from the executable's directory, else from the
/// working directory: `cargo run` and the tests), and the user's `<data dir>/mods`. Folders that
/// do not exist are left out (except the user's, which the loader treats as "no packs").
pub fn game_mods_dirs() -> Vec<PathBuf> {
    let exe = std::env::current_exe().ok();
    let cwd = std::env::current_dir().ok();
    mods_dirs_from(
        exe.as_deref().and_then(Path::parent),
        cwd.as_deref(),
        user_mods_dir(),
    )
}

/// [`game_mods_dirs`] from given places (tests).
pub fn mods_dirs_from(
    exe_dir: Option<&Path>,
    cwd: Option<&Path>,
    user: Option<PathBuf>,
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut push = |d: PathBuf| {
        // Compared canonicalised: the exe's folder and the checkout may be one place.
        let key = std::fs::canonicalize(&d).unwrap_or_else(|_| d.clone());
        if !seen.contains(&key) {
            seen.push(key);
            out.push(d);
        }
    };
    if let Some(d) = exe_dir.map(|e| e.join("mods")).filter(|d| d.is_dir()) {
        push(d);
    }
    if let Some(root) = exe_dir
        .and_then(checkout_root)
        .or_else(|| cwd.and_then(checkout_root))
    {
        push(root.join("mods"));
    }
    if let Some(u) = user {
        push(u);
    }
    out
}

/// The aircraft flown when none is chosen: our own pack's trainer when it is loaded and flies
/// (a real model and sounds), else the builtin trainer (drawn as a silhouette).
pub fn default_aircraft(content: &Content) -> &'static str {
    if content.aircraft_type(OWN_TRAINER).is_ok() {
        OWN_TRAINER
    } else {
        fl_content::builtin::DEFAULT_PLAYER_TYPE
    }
}

/// Where a missing pack goes, for messages: the user's mods folder, or a hint when there is none.
pub fn where_packs_go() -> String {
    match user_mods_dir() {
        Some(d) => format!("put the pack in {}/ or pass --pack DIR", d.display()),
        None => "pass --pack DIR (this system has no user data directory)".to_owned(),
    }
}

impl ContentOptions {
    /// The stack's sources: the game's own mods folders first ([`game_mods_dirs`]), then
    /// `--mods`, then `--pack`.
    pub fn sources(&self) -> StackSources {
        let mut mods_dirs = Vec::new();
        if self.user_mods {
            mods_dirs.extend(game_mods_dirs());
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
    }

    fn canon(p: &Path) -> PathBuf {
        std::fs::canonicalize(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    #[test]
    fn the_checkout_is_the_first_folder_up_with_mods_and_a_cargo_toml() {
        let t = tmp();
        let root = t.path().join("game");
        let deep = root.join("target/debug/deps");
        std::fs::create_dir_all(&deep).unwrap_or_else(|e| panic!("{e}"));
        // A crate directory (Cargo.toml, no mods/) and a mods/ without Cargo.toml are not it.
        std::fs::write(root.join("target/Cargo.toml"), "").unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(root.join("target/debug/mods")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(checkout_root(&deep), None);
        std::fs::create_dir_all(root.join("mods")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("Cargo.toml"), "[workspace]").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(checkout_root(&deep), Some(root.clone()));
    }

    #[test]
    fn the_game_scans_beside_the_exe_then_the_checkout_then_the_user_folder() {
        let t = tmp();
        let root = t.path().join("game");
        let exe_dir = root.join("target/release");
        for d in [exe_dir.join("mods"), root.join("mods")] {
            std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(root.join("Cargo.toml"), "").unwrap_or_else(|e| panic!("{e}"));
        let user = t.path().join("data/mods");
        assert_eq!(
            mods_dirs_from(Some(&exe_dir), None, Some(user.clone())),
            [exe_dir.join("mods"), root.join("mods"), user.clone()]
        );
        // An installed game elsewhere: the checkout is found from the working directory.
        let elsewhere = t.path().join("opt/bin");
        std::fs::create_dir_all(&elsewhere).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            mods_dirs_from(Some(&elsewhere), Some(&root.join("client")), None),
            [root.join("mods")]
        );
        // The exe in the checkout's root: its mods/ is the checkout's, scanned once.
        assert_eq!(
            mods_dirs_from(Some(&root), Some(&root), Some(root.join("mods"))),
            [root.join("mods")]
        );
        // Nothing found: only the user's folder (missing is fine: no packs).
        assert_eq!(
            mods_dirs_from(Some(&elsewhere), Some(&elsewhere), Some(user.clone())),
            [user]
        );
    }

    #[test]
    fn our_pack_in_the_checkout_loads_by_default_and_is_the_default_aircraft() {
        // The tests run inside the checkout, so the default sources find its mods/.
        let checkout_mods = canon(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods"));
        assert!(
            game_mods_dirs()
                .iter()
                .any(|d| std::fs::canonicalize(d).ok().as_ref() == Some(&checkout_mods)),
            "{:?}",
            game_mods_dirs()
        );
        let content = load_sources(&StackSources {
            mods_dirs: vec![checkout_mods.clone()],
            pack_dirs: Vec::new(),
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(content.packs().iter().any(|p| p.id == "fl-trainer"));
        assert_eq!(default_aircraft(&content), OWN_TRAINER);
        // The builtin layer stays the fallback without it.
        let bare = Content::builtin().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(default_aircraft(&bare), "builtin:jet-trainer");
        // And a pack cannot take the builtin trainer's place: its id stays the builtin one.
        assert!(content.entity_type("builtin:jet-trainer").is_some());
    }
}

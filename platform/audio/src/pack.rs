//! From an aircraft type to its engine loops on disk, through the content stack. An entity
//! definition has no sound key, so the loops are found by name (docs/modding.md): for the flight
//! model `<dir>/<stem>`, `audio/engine/<stem>_idle`, `_mil` and, for an afterburning engine,
//! `_ab` (`.ogg` or `.wav`, the `Audio` asset kind). The idle loop is looked up through the stack
//! (the highest pack that has it wins, as for a mesh) and its siblings only inside that same
//! pack, so one pack's idle is never mixed with another's military loop. Every file is read
//! path-safe (no escape from the pack root) and bounded ([`crate::clip::MAX_FILE_BYTES`]).
//!
//! Owns the naming convention and the lookup. Must not: decode (`clip`) or play anything.

use std::path::PathBuf;

use fl_content::{AssetError, AssetKind, Content, PackRoot, ResolvedAsset};

use crate::clip::{self, ClipError};
use crate::engine::EngineLoops;

/// Why a type's engine loops could not be found or read.
#[derive(Debug, thiserror::Error)]
pub enum EngineSoundError {
    #[error("no loaded type {0:?}")]
    UnknownType(String),
    #[error("{0} has no flight model, so no engine loops")]
    NoFlightModel(String),
    #[error("{type_id}: no engine loops ({looked_for}); its engine is silent")]
    NotFound { type_id: String, looked_for: String },
    #[error("{type_id}: engine loop {name:?} is in pack {pack} but {missing:?} is not")]
    Incomplete {
        type_id: String,
        pack: String,
        name: String,
        missing: String,
    },
    #[error("{type_id}: {source}")]
    Asset {
        type_id: String,
        #[source]
        source: AssetError,
    },
    #[error(transparent)]
    Clip(#[from] ClipError),
}

/// The asset names of an engine's loops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineLoopNames {
    pub idle: String,
    pub mil: String,
    pub afterburner: String,
}

impl EngineLoopNames {
    /// The names for a flight-model asset name (`trainer/trainer` → `engine/trainer_idle`, …);
    /// `None` for an empty name.
    pub fn for_flight_model(flight_model: &str) -> Option<EngineLoopNames> {
        let stem = flight_model.rsplit('/').next().filter(|s| !s.is_empty())?;
        Some(EngineLoopNames {
            idle: format!("engine/{stem}_idle"),
            mil: format!("engine/{stem}_mil"),
            afterburner: format!("engine/{stem}_ab"),
        })
    }
}

/// A type's engine loops as found in one pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineLoopFiles {
    /// The type id.
    pub type_id: String,
    /// The pack the loops come from.
    pub pack: String,
    pub idle: PathBuf,
    pub mil: PathBuf,
    pub afterburner: Option<PathBuf>,
    root: PathBuf,
}

/// Finds the engine loops of type `type_id`.
pub fn find_engine_loops(
    content: &Content,
    type_id: &str,
) -> Result<EngineLoopFiles, EngineSoundError> {
    let t = content
        .entity_type(type_id)
        .ok_or_else(|| EngineSoundError::UnknownType(type_id.to_owned()))?;
    let id = t.id().to_owned();
    let names = t
        .def
        .flight_model
        .as_deref()
        .and_then(EngineLoopNames::for_flight_model)
        .ok_or_else(|| EngineSoundError::NoFlightModel(id.clone()))?;
    let asset = |source| EngineSoundError::Asset {
        type_id: id.clone(),
        source,
    };
    let (pack, idle) = match content.resolve_asset(AssetKind::Audio, &names.idle) {
        Ok(ResolvedAsset::File { pack, path }) => (pack, path),
        Ok(ResolvedAsset::Builtin(_)) | Err(AssetError::NotFound { .. }) => {
            return Err(EngineSoundError::NotFound {
                type_id: id.clone(),
                looked_for: AssetKind::Audio.candidates(&names.idle).join(" or "),
            });
        }
        Err(e) => return Err(asset(e)),
    };
    let root = content
        .packs()
        .into_iter()
        .find(|p| p.id == pack)
        .map(|p| p.root)
        .ok_or_else(|| EngineSoundError::NotFound {
            type_id: id.clone(),
            looked_for: format!("pack {pack}"),
        })?;
    let pack_root = PackRoot::new(&root).map_err(|e| {
        asset(AssetError::Io {
            path: root.clone(),
            source: std::io::Error::other(e.to_string()),
        })
    })?;
    let mil = pack_root
        .find(AssetKind::Audio, &names.mil)
        .map_err(asset)?
        .ok_or_else(|| EngineSoundError::Incomplete {
            type_id: id.clone(),
            pack: pack.clone(),
            name: names.idle.clone(),
            missing: names.mil.clone(),
        })?;
    let afterburner = pack_root
        .find(AssetKind::Audio, &names.afterburner)
        .map_err(asset)?;
    Ok(EngineLoopFiles {
        type_id: id,
        pack,
        idle,
        mil,
        afterburner,
        root: pack_root.path().to_owned(),
    })
}

impl EngineLoopFiles {
    /// Reads and decodes the loops (each file confined to its pack and size-bounded).
    pub fn load(&self) -> Result<EngineLoops, EngineSoundError> {
        let root = PackRoot::new(&self.root).map_err(|e| EngineSoundError::Asset {
            type_id: self.type_id.clone(),
            source: AssetError::Io {
                path: self.root.clone(),
                source: std::io::Error::other(e.to_string()),
            },
        })?;
        let read = |path: &PathBuf| -> Result<clip::Clip, EngineSoundError> {
            let bytes = root
                .read(path, AssetKind::Audio, clip::MAX_FILE_BYTES)
                .map_err(|source| EngineSoundError::Asset {
                    type_id: self.type_id.clone(),
                    source,
                })?;
            Ok(clip::decode(&bytes, &path.display().to_string())?)
        };
        Ok(EngineLoops {
            idle: read(&self.idle)?,
            mil: read(&self.mil)?,
            afterburner: self.afterburner.as_ref().map(read).transpose()?,
        })
    }
}

/// Finds and decodes the engine loops of type `type_id`.
pub fn load_engine_loops(
    content: &Content,
    type_id: &str,
) -> Result<EngineLoops, EngineSoundError> {
    find_engine_loops(content, type_id)?.load()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_content::{StackSources, load_stack};
    use std::path::Path;

    /// Our pack in the checkout.
    pub(crate) fn our_pack() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/fl-trainer")
    }

    fn content_of(packs: Vec<PathBuf>) -> Content {
        load_stack(&StackSources {
            mods_dirs: Vec::new(),
            pack_dirs: packs,
        })
        .content
        .unwrap_or_else(|| panic!("nothing loaded"))
    }

    #[test]
    fn names_follow_the_flight_model_stem() {
        let n = EngineLoopNames::for_flight_model("trainer/trainer").unwrap_or_else(|| panic!());
        assert_eq!(n.idle, "engine/trainer_idle");
        assert_eq!(n.mil, "engine/trainer_mil");
        assert_eq!(n.afterburner, "engine/trainer_ab");
        assert_eq!(
            EngineLoopNames::for_flight_model("f16a")
                .unwrap_or_else(|| panic!())
                .idle,
            "engine/f16a_idle"
        );
        assert!(EngineLoopNames::for_flight_model("").is_none());
        assert!(EngineLoopNames::for_flight_model("a/").is_none());
    }

    #[test]
    fn our_trainer_has_idle_and_military_loops() {
        let content = content_of(vec![our_pack()]);
        let files =
            find_engine_loops(&content, "fl-trainer:jet-trainer").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(files.pack, "fl-trainer");
        assert!(files.idle.ends_with("audio/engine/trainer_idle.wav"));
        assert!(files.mil.ends_with("audio/engine/trainer_mil.wav"));
        assert_eq!(files.afterburner, None);
        let loops = files.load().unwrap_or_else(|e| panic!("{e}"));
        for c in [&loops.idle, &loops.mil] {
            assert_eq!(c.rate(), 44_100);
            assert!((c.seconds() - 3.0).abs() < 1e-9);
        }
        // The builtin trainer has no loops: a typed error, not a panic.
        let e = load_engine_loops(&content, "builtin:trainer").map(|_| ());
        assert!(e.is_err());
        assert!(matches!(
            load_engine_loops(&content, "nobody:nothing"),
            Err(EngineSoundError::UnknownType(_))
        ));
    }

    /// A copy of our pack in a temp dir, with `edit` applied to its audio/engine directory.
    fn edited_pack(edit: impl FnOnce(&Path)) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().join("fl-trainer");
        copy_dir(&our_pack(), &root);
        edit(&root.join("audio/engine"));
        (dir, root)
    }

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{e}"));
        for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{e}")) {
            let entry = entry.unwrap_or_else(|e| panic!("{e}"));
            let target = to.join(entry.file_name());
            if entry.path().is_dir() {
                copy_dir(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }

    #[test]
    fn an_afterburner_loop_and_broken_files_are_handled() {
        let (_d, root) = edited_pack(|eng| {
            let ab = clip::wav_bytes(22_050, &[0.1, -0.1, 0.2, -0.2]);
            std::fs::write(eng.join("trainer_ab.wav"), ab).unwrap_or_else(|e| panic!("{e}"));
        });
        let content = content_of(vec![root.clone()]);
        let loops =
            load_engine_loops(&content, "fl-trainer:jet-trainer").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(loops.afterburner.map(|c| c.rate()), Some(22_050));

        // A military loop that is not a sound: the error names the file.
        let (_d, root) = edited_pack(|eng| {
            std::fs::write(eng.join("trainer_mil.wav"), b"not a sound at all")
                .unwrap_or_else(|e| panic!("{e}"));
        });
        let content = content_of(vec![root]);
        let e = load_engine_loops(&content, "fl-trainer:jet-trainer")
            .err()
            .map_or_else(|| panic!("no error"), |e| e.to_string());
        assert!(
            e.contains("trainer_mil.wav") && e.contains("neither a WAV"),
            "{e}"
        );

        // No military loop beside the idle one.
        let (_d, root) = edited_pack(|eng| {
            std::fs::remove_file(eng.join("trainer_mil.wav")).unwrap_or_else(|e| panic!("{e}"));
        });
        let content = content_of(vec![root]);
        let e = find_engine_loops(&content, "fl-trainer:jet-trainer").map(|_| ());
        assert!(
            matches!(e, Err(EngineSoundError::Incomplete { .. })),
            "{e:?}"
        );

        // No loops at all.
        let (_d, root) = edited_pack(|eng| {
            std::fs::remove_dir_all(eng).unwrap_or_else(|e| panic!("{e}"));
        });
        let content = content_of(vec![root]);
        let e = find_engine_loops(&content, "fl-trainer:jet-trainer")
            .err()
            .map_or_else(|| panic!("no error"), |e| e.to_string());
        assert!(
            e.contains("audio/engine/trainer_idle.ogg or audio/engine/trainer_idle.wav"),
            "{e}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_loop_linked_outside_its_pack_is_refused() {
        let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let secret = outside.path().join("secret.wav");
        std::fs::write(&secret, clip::wav_bytes(44_100, &[0.0; 64]))
            .unwrap_or_else(|e| panic!("{e}"));
        let (_d, root) = edited_pack(|eng| {
            std::fs::remove_file(eng.join("trainer_mil.wav")).unwrap_or_else(|e| panic!("{e}"));
            std::os::unix::fs::symlink(&secret, eng.join("trainer_mil.wav"))
                .unwrap_or_else(|e| panic!("{e}"));
        });
        let content = content_of(vec![root]);
        let e = find_engine_loops(&content, "fl-trainer:jet-trainer")
            .err()
            .map_or_else(|| panic!("no error"), |e| e.to_string());
        assert!(e.contains("outside the pack root"), "{e}");
    }
}

//! `fl-modgen`: writes the generated files of our own content pack, `mods/fl-trainer`: the jet
//! trainer's glTF models (the airframe at four levels of detail, its shadow mesh and its
//! cockpit) and its synthesized engine loops. The pack's text files (manifest, entity, flight
//! model, mission) are authored by hand beside them. Output is a pure function of this code:
//! the same bytes on every run and platform, so a test can hold the committed files to it
//! (docs/modding.md).
//!
//! Modules: [`mesh`] (lofted surfaces), [`glb`] (the glTF writer), [`trainer`] (the airframe and
//! cockpit), [`audio`] (the engine loops and WAV).

pub mod audio;
pub mod glb;
pub mod mesh;
pub mod trainer;

use std::path::{Path, PathBuf};

/// The pack's directory in the checkout, relative to the workspace root.
pub const PACK_DIR: &str = "mods/fl-trainer";

/// What the files name as their generator (no version: a version bump must not change them).
pub const GENERATOR: &str = "fl-modgen (fighters-legacy)";

/// One generated file: its path inside the pack and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Path relative to the pack root, `/`-separated.
    pub path: String,
    /// Contents.
    pub bytes: Vec<u8>,
}

/// Why writing or checking failed.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// A file or directory could not be written or read.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The workspace's copy of the pack (`<workspace>/mods/fl-trainer`), found from this crate's
/// manifest directory at build time.
pub fn default_pack_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("..")
        .join(PACK_DIR)
}

/// Every generated file, in a fixed order.
pub fn generate() -> Vec<GeneratedFile> {
    let stem = "trainer";
    let dir = "aircraft/trainer";
    let mut out = Vec::new();
    let names = [
        format!("{stem}.glb"),
        format!("{stem}_lod0.glb"),
        format!("{stem}_lod1.glb"),
        format!("{stem}_lod2.glb"),
    ];
    for (name, detail) in names.iter().zip(trainer::DETAILS) {
        out.push(GeneratedFile {
            path: format!("{dir}/{name}"),
            bytes: trainer::exterior(stem, detail, GENERATOR),
        });
    }
    out.push(GeneratedFile {
        path: format!("{dir}/{stem}_shadow.glb"),
        bytes: trainer::exterior(stem, trainer::DETAILS[2], GENERATOR),
    });
    out.push(GeneratedFile {
        path: format!("{dir}/{stem}_cockpit.glb"),
        bytes: trainer::cockpit(GENERATOR),
    });
    for spec in audio::trainer_loops() {
        out.push(GeneratedFile {
            path: format!("audio/engine/{}.wav", spec.name),
            bytes: audio::wav(&audio::synthesize(&spec)),
        });
    }
    out
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GenError + '_ {
    move |source| GenError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes every generated file under `pack` (directories created; other files left alone).
/// Returns the paths written.
pub fn write(pack: &Path) -> Result<Vec<PathBuf>, GenError> {
    let mut written = Vec::new();
    for f in generate() {
        let path = pack.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, &f.bytes).map_err(io(&path))?;
        written.push(path);
    }
    Ok(written)
}

/// The generated files under `pack` that are missing or differ from what [`generate`] makes
/// (pack-relative paths, with the reason).
pub fn drift(pack: &Path) -> Vec<String> {
    generate()
        .into_iter()
        .filter_map(|f| {
            let path = pack.join(&f.path);
            match std::fs::read(&path) {
                Ok(b) if b == f.bytes => None,
                Ok(b) => Some(format!(
                    "{}: differs ({} bytes on disk, {} generated)",
                    f.path,
                    b.len(),
                    f.bytes.len()
                )),
                Err(e) => Some(format!("{}: {e}", f.path)),
            }
        })
        .collect()
}

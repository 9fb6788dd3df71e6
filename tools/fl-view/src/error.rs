//! The viewer's error type: every failure names the thing (argument, model id, pack) and the
//! file involved. The binary prints the chain and exits with [`EXIT_FAILURE`].

use std::path::PathBuf;

/// Exit status of every failure the viewer reports (bad arguments, unknown model, unreadable
/// glTF, a pack that does not load, no display, no graphics adapter).
pub const EXIT_FAILURE: i32 = 2;

/// Why the viewer could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// A command-line value outside its range or of the wrong form.
    #[error("--{arg} {value:?}: {problem}")]
    Argument {
        /// The option's long name.
        arg: &'static str,
        /// The value given.
        value: String,
        /// What is wrong and what is accepted.
        problem: String,
    },
    /// The pack given with `--pack` did not load (its manifest or layout is broken).
    #[error("pack {path} did not load:\n{findings}")]
    Pack {
        /// The directory given.
        path: PathBuf,
        /// The loader's findings, one per line.
        findings: String,
    },
    /// No loaded type has this id.
    #[error("unknown model id {id:?} (packs loaded: {packs}); the loaded types are: {known}")]
    UnknownModel {
        /// The id asked for.
        id: String,
        /// The packs searched.
        packs: String,
        /// Every loaded type id.
        known: String,
    },
    /// The type's mesh asset could not be found or is not a file inside its pack.
    #[error("model {id}: mesh asset {mesh:?} (entity definition of {id}): {reason}")]
    Mesh {
        /// The type id.
        id: String,
        /// The mesh asset name.
        mesh: String,
        /// Why (not found in any pack, escapes its pack, ...).
        reason: String,
    },
    /// The glTF file could not be read (the message names the file).
    #[error("model {id}: {source}")]
    Model {
        /// The type id.
        id: String,
        /// The loader's error, naming the file.
        #[source]
        source: fl_render::model::ModelError,
    },
    /// No window can be opened here.
    #[error("no display to open a window on ({reason}); use --out FILE.png to render offscreen")]
    NoDisplay {
        /// What the windowing system said.
        reason: String,
    },
    /// The renderer failed (no graphics adapter, a shader error, writing the PNG).
    #[error(transparent)]
    Render(#[from] fl_render::RenderError),
}

impl ViewError {
    /// An argument error.
    pub fn argument(arg: &'static str, value: impl ToString, problem: impl Into<String>) -> Self {
        ViewError::Argument {
            arg,
            value: value.to_string(),
            problem: problem.into(),
        }
    }
}

impl From<fl_scene::models::ModelLoadError> for ViewError {
    fn from(e: fl_scene::models::ModelLoadError) -> Self {
        use fl_scene::models::ModelLoadError as M;
        match e {
            M::UnknownType { id, packs, known } => ViewError::UnknownModel { id, packs, known },
            M::Mesh { id, mesh, reason } => ViewError::Mesh { id, mesh, reason },
            M::Model { id, source } => ViewError::Model { id, source },
        }
    }
}

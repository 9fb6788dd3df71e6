//! The crate's error type: every failure a caller can act on, naming the file or the thing.

use std::path::PathBuf;

use crate::model::ModelError;

/// Why a render operation failed.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No wgpu adapter could be found (no GPU and no software Vulkan such as lavapipe).
    #[error("no graphics adapter available: {0}")]
    NoAdapter(String),
    /// The adapter refused to create a device.
    #[error("could not create a graphics device on {adapter}: {reason}")]
    Device { adapter: String, reason: String },
    /// A WGSL file or a pipeline built from it failed validation.
    #[error("{file}:{line}:{column}: {message}")]
    Shader {
        file: &'static str,
        line: u32,
        column: u32,
        message: String,
    },
    /// A window surface could not be created or configured.
    #[error("surface: {0}")]
    Surface(String),
    /// Reading back a rendered image failed.
    #[error("readback failed: {0}")]
    Readback(String),
    /// Writing an image file failed.
    #[error("writing {path}: {reason}")]
    WriteImage { path: PathBuf, reason: String },
    /// A model could not be loaded.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A size or count outside what the renderer supports.
    #[error("{0}")]
    Invalid(String),
}

//! fl-script: the sandboxed Lua 5.4 runtime that runs a content pack's `ai/*.lua` scripts —
//! aircraft controllers (`compute_control`) and mission directors — one Lua state per scripted
//! entity.
//!
//! Owns: the sandbox (restricted libraries, text-only chunks, `require` confined to the pack's
//! `ai/` folder, memory limit, instruction budget per call), the script-facing API
//! (`guidance`, `world`, `detected_contacts`, `nearby_entities`, `get_entity`, `say`, `print`)
//! and the plain-data types that cross the host seam. Must not: depend on fl-server or
//! fl-content (the server implements [`ScriptHost`]), read the wall clock, or panic or stall on
//! anything a script does — a broken script is disabled and the caller told so.
//!
//! Threading: a [`ScriptInstance`] is `Send` (mlua's `send` feature), so the server may move
//! scripted entities between its AI worker threads; one instance is called by one thread at a
//! time (`compute_control` takes `&mut self`). The host is only borrowed for the call.
//!
//! The modder's reference is `docs/lua-api.md`.

pub mod guidance;
mod runtime;
mod sources;
mod types;

pub use runtime::{CallOutcome, Limits, ScriptInstance};
pub use sources::{MAX_SCRIPT_BYTES, MAX_SCRIPTS, ScriptSources, valid_script_name};
pub use types::{
    AircraftView, Contact, ContactState, EntityInfo, MusicState, NearbyEntity, NullHost,
    ScriptControls, ScriptEvent, ScriptHost, WorldAction,
};

/// Everything that can go wrong loading a script.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// A script name that is not `[A-Za-z0-9_]{1,64}`.
    #[error(
        "bad script name `{0}`: names are 1-64 letters, digits or underscores (no path, no extension)"
    )]
    BadName(String),
    /// No script of that name in the pack's `ai/` folder.
    #[error("no script `{0}` in the pack's ai/ folder")]
    Missing(String),
    /// A script file over [`MAX_SCRIPT_BYTES`].
    #[error("script `{name}` is {bytes} bytes, over the {max}-byte limit")]
    TooBig {
        /// The script.
        name: String,
        /// Its size.
        bytes: u64,
        /// The limit.
        max: usize,
    },
    /// More than [`MAX_SCRIPTS`] scripts in the folder.
    #[error("more than {0} scripts in the ai/ folder")]
    TooMany(usize),
    /// A script that is not UTF-8 text (precompiled bytecode included).
    #[error("script `{0}` is not UTF-8 Lua source (bytecode is refused)")]
    NotText(String),
    /// The folder could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// What was read.
        path: std::path::PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The Lua state could not be built (out of memory while setting the sandbox up).
    #[error("building the Lua sandbox: {0}")]
    Sandbox(String),
    /// The script failed while loading (syntax error, error or limit at top level).
    #[error("{0}")]
    Load(String),
}

#[cfg(test)]
mod tests {
    /// Fails to compile, not at run time, if a `!Send` field creeps back into the instance.
    fn assert_send<T: Send>() {}

    #[test]
    fn script_instance_is_send() {
        assert_send::<crate::ScriptInstance>();
        assert_send::<crate::ScriptSources>();
        assert_send::<crate::CallOutcome>();
    }
}

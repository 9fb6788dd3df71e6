//! Errors and warnings of the content system.
//!
//! Owns: the typed error for everything that stops a pack, a definition or an asset from loading
//! (each naming the file, and the key and line where there is one), the asset-read error, and the
//! non-fatal warning. Must not: decide policy (whether an error aborts a load or skips a pack is
//! `load`'s business) or format anything beyond `Display`.

use crate::names::NameProblem;
use std::fmt;
use std::path::PathBuf;

/// Something that stops a pack, a definition or a flight model from loading.
#[derive(Debug, thiserror::Error)]
pub enum ContentError {
    /// A file or directory could not be read.
    #[error("{path}: cannot read")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A file is larger than its kind allows.
    #[error("{path}: file is {size} bytes; the limit for this kind of file is {limit} bytes")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (at least; reading stops one byte past the limit).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The text is not valid TOML (or not UTF-8).
    #[error("{file}:{line}: TOML syntax error: {message}")]
    Syntax {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A key is missing, has the wrong type, or holds a value the schema refuses.
    #[error("{file}:{line}: `{key}`: {problem}")]
    Invalid {
        /// The file.
        file: PathBuf,
        /// 1-based line of the key (or of its table when the key is missing).
        line: usize,
        /// Dotted key path, e.g. `mod.id` or `hardpoints[2].default`.
        key: String,
        /// What is wrong.
        problem: String,
    },
    /// An id, namespace, name or asset name is unsafe or reserved.
    #[error("{file}:{line}: `{key}` = {value:?}: {problem}")]
    BadName {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// Dotted key path.
        key: String,
        /// The refused value (control characters are escaped by `{:?}`).
        value: String,
        /// Why it is refused.
        problem: NameProblem,
    },
    /// The pack targets an engine API major version this engine does not implement.
    #[error(
        "{file}:{line}: `mod.engine-api` = {found:?}: this engine implements API major {supported}; the pack is not loaded"
    )]
    EngineApi {
        /// The manifest.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The declared version.
        found: String,
        /// The supported major.
        supported: u32,
    },
    /// Two pack directories declare the same pack id.
    #[error("pack id {id:?} is declared by both {first} and {second}; the second is not loaded")]
    DuplicatePack {
        /// The id.
        id: String,
        /// The manifest loaded.
        first: PathBuf,
        /// The manifest refused.
        second: PathBuf,
    },
    /// A pack depends on a pack that is not present (or was not loaded).
    #[error(
        "{file}: `mod.depends`: pack {pack:?} needs {missing:?}, which is not loaded; {pack:?} is not loaded"
    )]
    MissingDependency {
        /// The manifest.
        file: PathBuf,
        /// The dependent pack.
        pack: String,
        /// The missing pack id.
        missing: String,
    },
    /// Packs depend on each other in a cycle.
    #[error("{file}: `mod.depends`: dependency cycle {}; none of these packs is loaded", cycle.join(" -> "))]
    DependencyCycle {
        /// One manifest on the cycle.
        file: PathBuf,
        /// The cycle, first id repeated at the end.
        cycle: Vec<String>,
    },
    /// Two definitions of the same kind in one pack declare the same id.
    #[error(
        "{second}: {kind} id {id:?} is already declared by {first} in the same pack; the second is not loaded"
    )]
    DuplicateDef {
        /// `entity`, `weapon` or `sensor`.
        kind: &'static str,
        /// The id.
        id: String,
        /// The file loaded.
        first: PathBuf,
        /// The file refused.
        second: PathBuf,
    },
    /// An entity's `flight_model` names an asset no pack provides.
    #[error(
        "{file}:{line}: `entity.flight_model` = {asset:?}: no pack provides aircraft/{asset}.toml (asset names include their subdirectory, e.g. \"f16a/f16a\")"
    )]
    FlightModelMissing {
        /// The entity file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The asset name.
        asset: String,
    },
    /// A flight model failed to parse.
    #[error("flight model {asset:?}")]
    FlightModelSchema {
        /// The asset name.
        asset: String,
        /// The schema error (file, key, line).
        #[source]
        source: fl_flight::schema::SchemaError,
    },
    /// A flight model parsed but cannot be simulated, or the validator found an error.
    #[error("flight model {asset:?}: {file}:{line}: `{key}`: {problem}")]
    FlightModelInvalid {
        /// The asset name.
        asset: String,
        /// The model file.
        file: PathBuf,
        /// 1-based line (1 when unknown).
        line: usize,
        /// The offending key.
        key: String,
        /// What is wrong.
        problem: String,
    },
    /// A hardpoint's default store is not a known weapon.
    #[error(
        "{file}:{line}: `{key}` = {weapon:?}: no loaded pack defines this weapon, so the default loadout's mass and drag are unknown"
    )]
    UnknownDefaultWeapon {
        /// The entity file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// Dotted key.
        key: String,
        /// The weapon id.
        weapon: String,
    },
    /// A definition directory holds more files than any pack needs.
    #[error("{dir}: more than {max} entries; refused")]
    TooManyFiles {
        /// The directory.
        dir: PathBuf,
        /// The limit.
        max: usize,
    },
    /// A file inside a pack could not be resolved or read safely.
    #[error(transparent)]
    Asset(#[from] AssetError),
    /// The builtin content failed to load (a bug in this crate's own data; tests catch it).
    #[error("builtin content: {0}")]
    Builtin(String),
}

/// Why an asset could not be returned.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    /// The asset name is unsafe or malformed.
    #[error("asset name {name:?}: {problem}")]
    BadName {
        /// The name.
        name: String,
        /// Why it is refused.
        problem: NameProblem,
    },
    /// No pack in the stack provides the asset.
    #[error("asset {name:?} ({kind}) is not provided by any loaded pack (looked for {looked_for})")]
    NotFound {
        /// The name.
        name: String,
        /// Its kind.
        kind: crate::assets::AssetKind,
        /// The pack-relative paths tried, for the message.
        looked_for: String,
    },
    /// The path resolves (through a symlink or otherwise) outside its pack root.
    #[error("{path}: resolves to {resolved}, outside the pack root {root}; refused")]
    Escapes {
        /// The path inside the pack.
        path: PathBuf,
        /// Where it really points.
        resolved: PathBuf,
        /// The pack root.
        root: PathBuf,
    },
    /// The path exists but is not a regular file (a directory, FIFO, device, ...).
    #[error("{path}: not a regular file; refused")]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The file is larger than its kind allows.
    #[error("{path}: file is {size} bytes; the limit for {kind} assets is {limit} bytes; refused")]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
        /// Its kind.
        kind: crate::assets::AssetKind,
    },
    /// An I/O error.
    #[error("{path}: cannot read")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// A non-fatal finding: an unknown key, an unresolved optional reference, a suspicious value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ContentWarning {
    /// The file (empty for stack-level findings without one).
    pub file: PathBuf,
    /// 1-based line (0 when there is none).
    pub line: usize,
    /// Dotted key path (may be empty).
    pub key: String,
    /// What was noticed.
    pub message: String,
}

impl ContentWarning {
    /// A warning about a key in a file.
    pub fn new(
        file: impl Into<PathBuf>,
        line: usize,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            file: file.into(),
            line,
            key: key.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ContentWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        if !self.key.is_empty() {
            write!(f, ": `{}`", self.key)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl From<fl_flight::schema::SchemaWarning> for ContentWarning {
    fn from(w: fl_flight::schema::SchemaWarning) -> Self {
        Self {
            file: w.file,
            line: w.line,
            key: w.key,
            message: w.message,
        }
    }
}

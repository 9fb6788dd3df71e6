//! The scripts a pack's `ai/` folder holds, by name: the only thing `require` and a mission's
//! `ai: "lua <name>"` can reach.
//!
//! Owns: reading the folder once, bounded (count, size, UTF-8 text only), and name validation.
//! Must not: resolve paths from script-supplied names (a name is a key, never a path).

use crate::ScriptError;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// The largest script file accepted, bytes.
pub const MAX_SCRIPT_BYTES: usize = 256 * 1024;
/// The most scripts one folder may hold.
pub const MAX_SCRIPTS: usize = 512;

/// True for a script name: 1–64 ASCII letters, digits or underscores.
pub fn valid_script_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A pack's scripts, name (file stem) → source.
#[derive(Debug, Clone, Default)]
pub struct ScriptSources {
    scripts: BTreeMap<String, String>,
}

impl ScriptSources {
    /// Scripts from a name → source map (tests, generated content). Names and sizes are checked.
    pub fn from_map<I, K, V>(scripts: I) -> Result<Self, ScriptError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let mut out = BTreeMap::new();
        for (k, v) in scripts {
            let (name, src) = (k.into(), v.into());
            if !valid_script_name(&name) {
                return Err(ScriptError::BadName(name));
            }
            if src.len() > MAX_SCRIPT_BYTES {
                return Err(ScriptError::TooBig {
                    name,
                    bytes: src.len() as u64,
                    max: MAX_SCRIPT_BYTES,
                });
            }
            if src.as_bytes().first() == Some(&0x1b) {
                return Err(ScriptError::NotText(name));
            }
            out.insert(name, src);
            if out.len() > MAX_SCRIPTS {
                return Err(ScriptError::TooMany(MAX_SCRIPTS));
            }
        }
        Ok(Self { scripts: out })
    }

    /// Every `*.lua` file directly in `dir` (a pack's `ai/` folder). Files whose stem is not a
    /// valid script name are skipped (they cannot be named by `require` anyway); sub-folders
    /// are not searched.
    pub fn from_dir(dir: &Path) -> Result<Self, ScriptError> {
        let io = |source| ScriptError::Io {
            path: dir.to_path_buf(),
            source,
        };
        let mut out = BTreeMap::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let entry = entry.map_err(io)?;
            let path = entry.path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if path.extension().and_then(|e| e.to_str()) != Some("lua") || !valid_script_name(stem)
            {
                continue;
            }
            let file_io = |source| ScriptError::Io {
                path: path.clone(),
                source,
            };
            let meta = entry.metadata().map_err(file_io)?;
            if !meta.is_file() {
                continue;
            }
            if meta.len() > MAX_SCRIPT_BYTES as u64 {
                return Err(ScriptError::TooBig {
                    name: stem.to_string(),
                    bytes: meta.len(),
                    max: MAX_SCRIPT_BYTES,
                });
            }
            let mut bytes = Vec::new();
            std::fs::File::open(&path)
                .and_then(|f| f.take(MAX_SCRIPT_BYTES as u64 + 1).read_to_end(&mut bytes))
                .map_err(file_io)?;
            if bytes.len() > MAX_SCRIPT_BYTES {
                return Err(ScriptError::TooBig {
                    name: stem.to_string(),
                    bytes: bytes.len() as u64,
                    max: MAX_SCRIPT_BYTES,
                });
            }
            if bytes.first() == Some(&0x1b) {
                return Err(ScriptError::NotText(stem.to_string()));
            }
            let src =
                String::from_utf8(bytes).map_err(|_| ScriptError::NotText(stem.to_string()))?;
            out.insert(stem.to_string(), src);
            if out.len() > MAX_SCRIPTS {
                return Err(ScriptError::TooMany(MAX_SCRIPTS));
            }
        }
        Ok(Self { scripts: out })
    }

    /// The source of `name`, if the folder has it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.scripts.get(name).map(String::as_str)
    }

    /// The script names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.scripts.keys().map(String::as_str)
    }
}

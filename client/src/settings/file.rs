//! `user.toml` on disk: reading it robustly, migrating the older `settings.toml`, moving a
//! broken file aside and saving atomically (docs/settings.md).
//!
//! Reading never fails and never loses the player's text: every value is read on its own, so a
//! bad one costs only itself (its default is used). A file with anything unusable in it — a
//! TOML syntax error, a value of the wrong type or an unknown name, a number that is not a
//! number, bytes that are not UTF-8, a size over [`MAX_FILE_BYTES`] — is renamed to
//! `user.invalid.toml` (`user.invalid.1.toml`, … when taken), a clean `user.toml` with every
//! valid value is written in its place, and a warning says so. A TOML syntax error is salvaged
//! statement by statement. Values out of range are clamped with a warning (the file is fine).
//! Keys this version does not know are kept and written back.
//!
//! Must not: apply settings, or read more than [`MAX_FILE_BYTES`] + 1 bytes of any file.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::GameSettings;
use super::format::parse_bytes;

/// The settings file's name.
pub const FILE_NAME: &str = "user.toml";
/// The older settings file (a flat list of keys), read when there is no `user.toml` yet.
pub const LEGACY_FILE_NAME: &str = "settings.toml";
/// Bytes of a settings file read at most; a bigger file is not a settings file.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;
/// Problems named in a warning at most (the rest are counted).
pub(super) const MAX_NAMED: usize = 6;
/// Numbered `.invalid.N` names tried at most before giving up on moving a file aside.
const MAX_INVALID_COPIES: u32 = 999;
/// The first line of every saved file.
const HEADER: &str = "# fighters-legacy settings (docs/settings.md). Edited by the game's Settings screen;\n\
# keys it does not know are kept.\n\n";

/// Why the settings could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("could not create the settings folder {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not write the settings file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not encode the settings: {0}")]
    Encode(#[from] toml::ser::Error),
}

/// What loading found.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub settings: GameSettings,
    /// For the player (the main menu shows it): what was wrong and what was done about it.
    pub warning: Option<String>,
    /// The older `settings.toml` the settings were read from (there was no `user.toml`). It is
    /// left as it was; the next save writes `user.toml`.
    pub migrated_from: Option<PathBuf>,
    /// Where a broken file was moved (a clean one with its valid values replaced it).
    pub moved_to: Option<PathBuf>,
    /// Keys this version does not know (kept in the settings and written back), `section.key`.
    pub unknown: Vec<String>,
}

/// Where the settings live: `<OS config dir>/fighters-legacy/user.toml` (`None` when the OS
/// gives no config directory, e.g. no home directory; the game then runs on defaults).
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "fighters-legacy")
        .map(|d| d.config_dir().join(FILE_NAME))
}

/// The older settings file beside `path` (`None` when `path` is that file).
pub fn legacy_path(path: &Path) -> Option<PathBuf> {
    let legacy = path.with_file_name(LEGACY_FILE_NAME);
    (legacy != path).then_some(legacy)
}

/// Where a broken `path` is moved: `user.invalid.toml`, or with `n > 0` `user.invalid.n.toml`
/// (a name without an extension gets `.invalid` / `.invalid.n` added).
pub fn invalid_path(path: &Path, n: u32) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "settings".to_owned());
    let ext = path.extension().map(|e| e.to_string_lossy().into_owned());
    let number = if n == 0 {
        String::new()
    } else {
        format!(".{n}")
    };
    let name = match ext {
        Some(e) => format!("{stem}.invalid{number}.{e}"),
        None => format!("{stem}.invalid{number}"),
    };
    path.with_file_name(name)
}

/// Reads at most [`MAX_FILE_BYTES`] + 1 bytes of `path` (`Ok(None)`: there is no such file).
fn read_bounded(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// `n` sentences as one, the first [`MAX_NAMED`] named.
fn list(items: &[String]) -> String {
    let mut s = items
        .iter()
        .take(MAX_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if items.len() > MAX_NAMED {
        s.push_str(&format!("; and {} more", items.len() - MAX_NAMED));
    }
    s
}

impl GameSettings {
    /// Loads the settings from `path` (`user.toml`), or from the older `settings.toml` beside
    /// it when `path` does not exist. Never fails: what cannot be used is reported in
    /// [`Loaded::warning`] and the defaults stand in for it. See the module's notes for a
    /// broken file.
    pub fn load(path: &Path) -> Loaded {
        let unreadable = |p: &Path, e: std::io::Error| Loaded {
            settings: GameSettings::default(),
            warning: Some(format!(
                "Could not read the settings file {}: {e}. Using the default settings.",
                p.display()
            )),
            migrated_from: None,
            moved_to: None,
            unknown: Vec::new(),
        };
        match read_bounded(path) {
            // Unreadable (permissions…): left where it is, the player can fix it.
            Err(e) => unreadable(path, e),
            Ok(Some(bytes)) => Self::load_current(path, &bytes),
            Ok(None) => {
                let legacy = legacy_path(path);
                match legacy.as_deref().map(|l| (l, read_bounded(l))) {
                    Some((l, Err(e))) => unreadable(l, e),
                    Some((l, Ok(Some(bytes)))) => Self::load_legacy(l, &bytes),
                    _ => Loaded {
                        settings: GameSettings::default(),
                        warning: None,
                        migrated_from: None,
                        moved_to: None,
                        unknown: Vec::new(),
                    },
                }
            }
        }
    }

    fn load_current(path: &Path, bytes: &[u8]) -> Loaded {
        let (settings, report) = parse_bytes(bytes, false);
        if !report.unknown.is_empty() {
            tracing::info!(path = %path.display(), keys = ?report.unknown, "settings: unknown keys kept");
        }
        let mut warning = Vec::new();
        let mut moved_to = None;
        if !report.invalid.is_empty() {
            tracing::warn!(path = %path.display(), problems = ?report.invalid, "settings file partly unusable");
            let kept = match move_aside(path) {
                Ok(to) => {
                    let kept = format!("your file was kept as {}", to.display());
                    moved_to = Some(to);
                    // A clean file with every valid value, so the next start reads the same
                    // settings (and does not fall back to an older settings.toml).
                    match settings.save(path) {
                        Ok(()) => kept,
                        Err(e) => format!("{kept}, but the cleaned settings were not saved: {e}"),
                    }
                }
                Err(e) => format!("the file could not be moved aside ({e}) and was left as it is"),
            };
            warning.push(format!(
                "The settings file {} had values that could not be used: {}. Every valid value was kept and the defaults stand in for the rest; {kept}.",
                path.display(),
                list(&report.invalid)
            ));
        }
        if !report.adjusted.is_empty() {
            warning.push(format!(
                "Settings file {}: {}.",
                path.display(),
                list(&report.adjusted)
            ));
        }
        Loaded {
            settings,
            warning: (!warning.is_empty()).then(|| warning.join(" ")),
            migrated_from: None,
            moved_to,
            unknown: report.unknown,
        }
    }

    /// The older flat file: read with the same care, but never moved or rewritten (it is the
    /// player's; the next save writes `user.toml` and leaves it be).
    fn load_legacy(path: &Path, bytes: &[u8]) -> Loaded {
        let (settings, report) = parse_bytes(bytes, true);
        tracing::debug!(from = %path.display(), "settings brought over from the older file");
        let mut problems = report.invalid.clone();
        problems.extend(report.adjusted.iter().cloned());
        let warning = (!problems.is_empty()).then(|| {
            format!(
                "The older settings file {} was brought over with changes: {}. It was left as it is.",
                path.display(),
                list(&problems)
            )
        });
        Loaded {
            settings,
            warning,
            migrated_from: Some(path.to_owned()),
            moved_to: None,
            unknown: report.unknown,
        }
    }

    /// The file's text.
    pub fn to_toml(&self) -> Result<String, SettingsError> {
        Ok(format!(
            "{HEADER}{}",
            toml::to_string_pretty(&self.to_table())?
        ))
    }

    /// Reads settings from `text` (a `user.toml`): `Err` names the values that could not be
    /// used (loading a file keeps the valid ones; see [`GameSettings::load`]).
    pub fn from_toml(text: &str) -> Result<GameSettings, String> {
        let (s, report) = parse_bytes(text.as_bytes(), false);
        if report.invalid.is_empty() {
            Ok(s)
        } else {
            Err(list(&report.invalid))
        }
    }

    /// Writes the settings to `path` atomically (a temporary file in the same folder, synced,
    /// then renamed over `path`), creating the folder.
    pub fn save(&self, path: &Path) -> Result<(), SettingsError> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(|source| SettingsError::CreateDir {
            path: dir.clone(),
            source,
        })?;
        let text = self.to_toml()?;
        let write = |source| SettingsError::Write {
            path: path.to_owned(),
            source,
        };
        let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(write)?;
        std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(write)?;
        tmp.as_file().sync_all().map_err(write)?;
        tmp.persist(path).map_err(|e| write(e.error))?;
        Ok(())
    }
}

/// Renames `path` to the first free [`invalid_path`].
fn move_aside(path: &Path) -> std::io::Result<PathBuf> {
    for n in 0..=MAX_INVALID_COPIES {
        let to = invalid_path(path, n);
        // `symlink_metadata`: a dangling link is taken too (renaming over it would lose it).
        if std::fs::symlink_metadata(&to).is_ok() {
            continue;
        }
        std::fs::rename(path, &to)?;
        return Ok(to);
    }
    Err(std::io::Error::other(format!(
        "{MAX_INVALID_COPIES} older invalid copies are in the way"
    )))
}

#[cfg(test)]
mod tests;

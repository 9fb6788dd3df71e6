//! The player's settings file (`settings.toml` in the OS config directory): units, field of
//! view, UI scale, vsync, the frame-rate cap, the callsign and the recent servers.
//!
//! Owns: the on-disk format, its validation and the atomic save. A bad file never loses the
//! player's data and never stops the game: it is kept beside as `settings.toml.bad` and the
//! defaults are used, with a warning the window shows. Must not: apply the settings (the window
//! and the HUD read them).

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::hud::{HudSettings, Units};

/// The settings file's name.
pub const FILE_NAME: &str = "settings.toml";
/// Bytes of a settings file read at most; a bigger file is not a settings file.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;
/// Recent servers kept.
pub const MAX_RECENT_SERVERS: usize = 10;
/// Characters of a recent server's address kept (longer ones are dropped on load).
pub const MAX_ADDRESS_CHARS: usize = 256;
/// Bytes of a callsign (the protocol's `FixedStr<32>` less its terminator).
pub const MAX_CALLSIGN_BYTES: usize = 31;
/// Field of view, degrees (vertical).
pub const FOV_RANGE_DEG: std::ops::RangeInclusive<f64> = 40.0..=110.0;
/// UI scale.
pub const UI_SCALE_RANGE: std::ops::RangeInclusive<f32> = 0.5..=3.0;
/// A frame-rate cap other than 0 (none).
pub const FPS_CAP_RANGE: std::ops::RangeInclusive<u32> = 30..=1000;
/// Unknown keys named in a warning at most.
const MAX_UNKNOWN_NAMED: usize = 5;

/// How frames wait for the display. The window maps these one to one onto
/// `fl_render::surface::Vsync` (`On`, `Adaptive`, `Off`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VsyncMode {
    /// Wait for the display's refresh: no tearing.
    #[default]
    On,
    /// Wait, but tear rather than wait a whole refresh when a frame is late.
    Adaptive,
    /// Present at once (lowest latency; may tear). "fast" is accepted as another name.
    #[serde(alias = "fast")]
    Off,
}

impl VsyncMode {
    /// All modes, in the order the Settings screen lists them.
    pub const ALL: [VsyncMode; 3] = [VsyncMode::On, VsyncMode::Adaptive, VsyncMode::Off];

    /// The Settings screen's name for the mode.
    pub fn label(self) -> &'static str {
        match self {
            VsyncMode::On => "On",
            VsyncMode::Adaptive => "Adaptive",
            VsyncMode::Off => "Off (fastest)",
        }
    }
}

/// The units as written in the file (`hud::Units` is the HUD's own type, without serde).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum UnitsName {
    #[default]
    Imperial,
    Metric,
}

mod units_serde {
    use super::{Units, UnitsName};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(u: &Units, s: S) -> Result<S::Ok, S::Error> {
        match u {
            Units::Imperial => UnitsName::Imperial,
            Units::Metric => UnitsName::Metric,
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Units, D::Error> {
        Ok(match UnitsName::deserialize(d)? {
            UnitsName::Imperial => Units::Imperial,
            UnitsName::Metric => Units::Metric,
        })
    }
}

/// The player's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameSettings {
    /// Knots and feet (`imperial`) or metric (`metric`).
    #[serde(with = "units_serde")]
    pub units: Units,
    /// The 3D camera's vertical field of view, degrees ([`FOV_RANGE_DEG`]).
    pub fov_deg: f64,
    /// Size of the menus and the HUD relative to the default ([`UI_SCALE_RANGE`]).
    pub ui_scale: f32,
    pub vsync: VsyncMode,
    /// Frames per second at most; 0 = no cap ([`FPS_CAP_RANGE`] otherwise).
    pub fps_cap: u32,
    /// The name other players see (at most [`MAX_CALLSIGN_BYTES`] bytes; empty: the server
    /// names the pilot).
    pub callsign: String,
    /// Servers joined, newest first, without repeats ([`MAX_RECENT_SERVERS`] at most).
    pub recent_servers: Vec<String>,
}

impl Default for GameSettings {
    fn default() -> Self {
        GameSettings {
            units: Units::Imperial,
            fov_deg: 60.0,
            ui_scale: 1.0,
            vsync: VsyncMode::On,
            fps_cap: 0,
            callsign: "Pilot".to_owned(),
            recent_servers: Vec::new(),
        }
    }
}

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

/// Where the settings live: `<OS config dir>/fighters-legacy/settings.toml` (`None` when the
/// OS gives no config directory, e.g. no home directory; the game then runs on defaults).
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "fighters-legacy")
        .map(|d| d.config_dir().join(FILE_NAME))
}

/// Where a bad settings file is kept: `<path>.bad`.
pub fn bad_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".bad");
    PathBuf::from(s)
}

/// Cuts `s` to at most `max` bytes on a character boundary.
fn truncate_bytes(s: &mut String, max: usize) {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
}

/// A callsign as the game sends it: control characters removed, surrounding spaces trimmed,
/// at most [`MAX_CALLSIGN_BYTES`] bytes.
pub fn sanitize_callsign(s: &str) -> String {
    let mut out: String = s.chars().filter(|c| !c.is_control()).collect();
    out = out.trim().to_owned();
    truncate_bytes(&mut out, MAX_CALLSIGN_BYTES);
    out.trim_end().to_owned()
}

impl GameSettings {
    /// What the HUD needs.
    pub fn to_hud(&self) -> HudSettings {
        HudSettings {
            units: self.units,
            ui_scale: self.ui_scale,
            vertical_fov_deg: self.fov_deg,
        }
    }

    /// Puts `address` first in the recent servers (once; the oldest falls off past
    /// [`MAX_RECENT_SERVERS`]). Blank or over-long addresses are not remembered.
    pub fn remember_server(&mut self, address: &str) {
        let address = address.trim();
        if address.is_empty() || address.chars().count() > MAX_ADDRESS_CHARS {
            return;
        }
        self.recent_servers.retain(|a| a != address);
        self.recent_servers.insert(0, address.to_owned());
        self.recent_servers.truncate(MAX_RECENT_SERVERS);
    }

    /// Brings every value into its range; returns what was changed, as sentences. Values that
    /// are not numbers are an error (the file is then treated as corrupt).
    fn validate(&mut self) -> Result<Vec<String>, String> {
        if !self.fov_deg.is_finite() {
            return Err(format!(
                "fov_deg is {}, not a number of degrees",
                self.fov_deg
            ));
        }
        if !self.ui_scale.is_finite() {
            return Err(format!("ui_scale is {}, not a number", self.ui_scale));
        }
        let mut notes = Vec::new();
        let fov = self
            .fov_deg
            .clamp(*FOV_RANGE_DEG.start(), *FOV_RANGE_DEG.end());
        if fov != self.fov_deg {
            notes.push(format!(
                "fov_deg {} is outside {}..={}; using {fov}",
                self.fov_deg,
                FOV_RANGE_DEG.start(),
                FOV_RANGE_DEG.end()
            ));
            self.fov_deg = fov;
        }
        let scale = self
            .ui_scale
            .clamp(*UI_SCALE_RANGE.start(), *UI_SCALE_RANGE.end());
        if scale != self.ui_scale {
            notes.push(format!(
                "ui_scale {} is outside {}..={}; using {scale}",
                self.ui_scale,
                UI_SCALE_RANGE.start(),
                UI_SCALE_RANGE.end()
            ));
            self.ui_scale = scale;
        }
        if self.fps_cap != 0 {
            let cap = self
                .fps_cap
                .clamp(*FPS_CAP_RANGE.start(), *FPS_CAP_RANGE.end());
            if cap != self.fps_cap {
                notes.push(format!(
                    "fps_cap {} is outside {}..={} (or 0 for none); using {cap}",
                    self.fps_cap,
                    FPS_CAP_RANGE.start(),
                    FPS_CAP_RANGE.end()
                ));
                self.fps_cap = cap;
            }
        }
        let callsign = sanitize_callsign(&self.callsign);
        if callsign != self.callsign {
            notes.push(format!(
                "the callsign was shortened or cleaned to {callsign:?} (at most {MAX_CALLSIGN_BYTES} bytes, no control characters)"
            ));
            self.callsign = callsign;
        }
        // Keep the newest occurrence of each address, drop blank and absurd ones, and the
        // oldest past the limit.
        let before = self.recent_servers.len();
        let mut recent: Vec<String> = Vec::new();
        for a in self.recent_servers.drain(..) {
            let a = a.trim().to_owned();
            if a.is_empty() || a.chars().count() > MAX_ADDRESS_CHARS || recent.contains(&a) {
                continue;
            }
            if recent.len() == MAX_RECENT_SERVERS {
                break;
            }
            recent.push(a);
        }
        if recent.len() != before {
            notes.push(format!(
                "recent_servers: kept {} of {before} (blank, repeated, over-long or past the {MAX_RECENT_SERVERS} newest)",
                recent.len()
            ));
        }
        self.recent_servers = recent;
        Ok(notes)
    }

    /// Parses settings text: the settings with their values in range, the unknown keys, and
    /// the adjustments made. An error is a file that is not settings at all.
    pub fn parse(text: &str) -> Result<(GameSettings, Vec<String>, Vec<String>), String> {
        let de = toml::Deserializer::parse(text).map_err(|e| e.to_string())?;
        let mut unknown = Vec::new();
        let mut settings: GameSettings = serde_ignored::deserialize(de, |p| {
            if unknown.len() < 64 {
                unknown.push(p.to_string())
            }
        })
        .map_err(|e: toml::de::Error| e.to_string())?;
        let notes = settings.validate()?;
        Ok((settings, unknown, notes))
    }

    /// Loads the settings from `path`. A missing file gives the defaults and no warning. A
    /// file that cannot be used (not TOML, wrong types, a value that is not a number, over
    /// [`MAX_FILE_BYTES`]) gives the defaults and a warning, and is kept as `<path>.bad` so the
    /// player's data is never lost (the next save writes a fresh file). Unknown keys and values
    /// out of range are warned about; the rest of the file is used.
    pub fn load(path: &Path) -> (GameSettings, Option<String>) {
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return (GameSettings::default(), None);
            }
            Err(e) => {
                // Unreadable (permissions…): leave it where it is, the player can fix it.
                return (
                    GameSettings::default(),
                    Some(format!(
                        "Could not read the settings file {}: {e}. Using the default settings.",
                        path.display()
                    )),
                );
            }
        };
        let mut bytes = Vec::new();
        if let Err(e) = file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes) {
            return (
                GameSettings::default(),
                Some(format!(
                    "Could not read the settings file {}: {e}. Using the default settings.",
                    path.display()
                )),
            );
        }
        let parsed = if bytes.len() as u64 > MAX_FILE_BYTES {
            Err(format!("it is larger than {} KiB", MAX_FILE_BYTES / 1024))
        } else {
            match std::str::from_utf8(&bytes) {
                Ok(text) => Self::parse(text),
                Err(_) => Err("it is not UTF-8 text".to_owned()),
            }
        };
        match parsed {
            Ok((settings, unknown, notes)) => {
                let mut parts = Vec::new();
                if !unknown.is_empty() {
                    let named: Vec<&str> = unknown
                        .iter()
                        .take(MAX_UNKNOWN_NAMED)
                        .map(String::as_str)
                        .collect();
                    let more = unknown.len().saturating_sub(MAX_UNKNOWN_NAMED);
                    parts.push(format!(
                        "ignored unknown setting(s) {}{}",
                        named.join(", "),
                        if more > 0 {
                            format!(" and {more} more")
                        } else {
                            String::new()
                        }
                    ));
                }
                parts.extend(notes);
                let warning = (!parts.is_empty())
                    .then(|| format!("Settings file {}: {}.", path.display(), parts.join("; ")));
                (settings, warning)
            }
            Err(reason) => {
                let bad = bad_path(path);
                let kept = match std::fs::rename(path, &bad) {
                    Ok(()) => format!("it was kept as {}", bad.display()),
                    Err(e) => format!("it could not be moved to {} ({e})", bad.display()),
                };
                tracing::warn!(path = %path.display(), %reason, "settings file unusable");
                (
                    GameSettings::default(),
                    Some(format!(
                        "The settings file {} could not be used ({reason}); the default settings are used and {kept}.",
                        path.display()
                    )),
                )
            }
        }
    }

    /// Writes the settings to `path` atomically (a temporary file in the same folder, then a
    /// rename), creating the folder.
    pub fn save(&self, path: &Path) -> Result<(), SettingsError> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(|source| SettingsError::CreateDir {
            path: dir.clone(),
            source,
        })?;
        let text = toml::to_string_pretty(self)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().expect("temp dir")
    }

    #[test]
    fn a_missing_file_gives_the_defaults_without_a_warning() {
        let d = dir();
        let (s, w) = GameSettings::load(&d.path().join(FILE_NAME));
        assert_eq!(s, GameSettings::default());
        assert_eq!(w, None);
    }

    #[test]
    fn save_then_load_round_trips_and_creates_the_folder() {
        let d = dir();
        let path = d.path().join("a/b").join(FILE_NAME);
        let mut s = GameSettings {
            units: Units::Metric,
            fov_deg: 75.5,
            ui_scale: 1.25,
            vsync: VsyncMode::Adaptive,
            fps_cap: 144,
            callsign: "Maverick".into(),
            recent_servers: vec![],
        };
        s.remember_server("example.org:4778");
        s.save(&path).expect("save");
        let (back, w) = GameSettings::load(&path);
        assert_eq!(w, None);
        assert_eq!(back, s);
        // Nothing but the file is left in the folder (the temporary file was renamed).
        let names: Vec<_> = std::fs::read_dir(path.parent().expect("dir"))
            .expect("read dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, [std::ffi::OsString::from(FILE_NAME)]);
    }

    #[test]
    fn save_replaces_an_existing_file() {
        let d = dir();
        let path = d.path().join(FILE_NAME);
        GameSettings::default().save(&path).expect("save");
        let s = GameSettings {
            fov_deg: 90.0,
            ..GameSettings::default()
        };
        s.save(&path).expect("save again");
        assert_eq!(GameSettings::load(&path).0.fov_deg, 90.0);
    }

    fn load_text(text: &[u8]) -> (GameSettings, Option<String>, tempfile::TempDir) {
        let d = dir();
        let path = d.path().join(FILE_NAME);
        std::fs::write(&path, text).expect("write");
        let (s, w) = GameSettings::load(&path);
        (s, w, d)
    }

    fn assert_kept_as_bad(d: &tempfile::TempDir, original: &[u8]) {
        let path = d.path().join(FILE_NAME);
        assert!(!path.exists(), "the bad file was moved away");
        assert_eq!(
            std::fs::read(bad_path(&path)).expect("the .bad file"),
            original,
            "the player's data is kept byte for byte"
        );
    }

    #[test]
    fn bad_toml_gives_defaults_a_warning_and_keeps_the_file() {
        let text = b"units = \"metric\"\nfov_deg = = 3\n";
        let (s, w, d) = load_text(text);
        assert_eq!(s, GameSettings::default());
        let w = w.expect("a warning");
        assert!(w.contains("settings.toml.bad"), "{w}");
        assert_kept_as_bad(&d, text);
    }

    #[test]
    fn wrong_types_are_a_bad_file() {
        for text in [
            &b"fov_deg = \"wide\"\n"[..],
            b"units = \"furlongs\"\n",
            b"fps_cap = -5\n",
            b"recent_servers = \"a\"\n",
            b"vsync = 3\n",
        ] {
            let (s, w, d) = load_text(text);
            assert_eq!(s, GameSettings::default(), "{text:?}");
            assert!(w.is_some(), "{text:?}");
            assert_kept_as_bad(&d, text);
        }
    }

    #[test]
    fn not_a_number_is_a_bad_file() {
        for text in [
            &b"fov_deg = nan\n"[..],
            b"ui_scale = inf\n",
            b"fov_deg = -nan\n",
        ] {
            let (s, w, d) = load_text(text);
            assert_eq!(s, GameSettings::default(), "{text:?}");
            assert!(w.expect("warning").contains("not a number"));
            assert_kept_as_bad(&d, text);
        }
    }

    #[test]
    fn a_huge_or_binary_file_is_a_bad_file() {
        let mut huge = b"callsign = \"".to_vec();
        huge.extend(std::iter::repeat_n(b'x', 70 * 1024));
        huge.extend(b"\"\n");
        let (s, w, d) = load_text(&huge);
        assert_eq!(s, GameSettings::default());
        assert!(w.expect("warning").contains("larger than 64 KiB"));
        assert_kept_as_bad(&d, &huge);

        let binary = [0xff, 0xfe, 0x00, 0x41];
        let (_, w, d) = load_text(&binary);
        assert!(w.expect("warning").contains("not UTF-8"));
        assert_kept_as_bad(&d, &binary);
    }

    #[test]
    fn unknown_keys_are_ignored_with_a_warning_and_the_rest_is_used() {
        let text = b"units = \"metric\"\ncolour = \"red\"\n[joystick]\ndeadzone = 0.1\n";
        let (s, w, d) = load_text(text);
        assert_eq!(s.units, Units::Metric);
        let w = w.expect("warning");
        assert!(w.contains("colour") && w.contains("joystick"), "{w}");
        // A usable file stays where it is.
        assert!(d.path().join(FILE_NAME).exists());
        assert!(!bad_path(&d.path().join(FILE_NAME)).exists());
    }

    #[test]
    fn values_out_of_range_are_clamped_with_a_warning() {
        let text = b"fov_deg = 500.0\nui_scale = 0.01\nfps_cap = 5\n";
        let (s, w, _d) = load_text(text);
        assert_eq!(
            (s.fov_deg, s.ui_scale, s.fps_cap),
            (110.0, 0.5, 30),
            "clamped"
        );
        let w = w.expect("warning");
        assert!(w.contains("fov_deg") && w.contains("ui_scale") && w.contains("fps_cap"));
        let (s, _, _d) = load_text(b"fps_cap = 100000\nfov_deg = 1\n");
        assert_eq!((s.fps_cap, s.fov_deg), (1000, 40.0));
        // 0 is "no cap", not below the range.
        let (s, w, _d) = load_text(b"fps_cap = 0\n");
        assert_eq!((s.fps_cap, w), (0, None));
    }

    #[test]
    fn recent_servers_are_bounded_deduplicated_newest_first() {
        let mut s = GameSettings::default();
        for i in 0..15 {
            s.remember_server(&format!("host{i}:4778"));
        }
        s.remember_server("host3:4778");
        s.remember_server("  ");
        assert_eq!(s.recent_servers.len(), MAX_RECENT_SERVERS);
        assert_eq!(s.recent_servers[0], "host3:4778");
        assert_eq!(s.recent_servers[1], "host14:4778");
        assert_eq!(
            s.recent_servers
                .iter()
                .filter(|a| *a == "host3:4778")
                .count(),
            1
        );

        // From a file: repeats, blanks and the excess are dropped, order kept.
        let mut text = String::from("recent_servers = [\"a:1\", \"b:2\", \"a:1\", \"\"");
        for i in 0..20 {
            text.push_str(&format!(", \"h{i}:1\""));
        }
        text.push_str("]\n");
        let (s, w, _d) = load_text(text.as_bytes());
        assert_eq!(s.recent_servers.len(), MAX_RECENT_SERVERS);
        assert_eq!(&s.recent_servers[..3], ["a:1", "b:2", "h0:1"]);
        assert!(w.expect("warning").contains("recent_servers"));
    }

    #[test]
    fn callsigns_are_cleaned_and_bounded() {
        assert_eq!(sanitize_callsign("  Ace\u{7}\n "), "Ace");
        let long = "é".repeat(40);
        let c = sanitize_callsign(&long);
        assert!(c.len() <= MAX_CALLSIGN_BYTES && c.chars().all(|ch| ch == 'é'));
        assert_eq!(c.chars().count(), 15);
        let (s, w, _d) = load_text(format!("callsign = \"{long}\"\n").as_bytes());
        assert_eq!(s.callsign, c);
        assert!(w.is_some());
    }

    #[test]
    fn vsync_names_and_units_in_the_file() {
        let (s, w, _d) = load_text(b"vsync = \"fast\"\nunits = \"metric\"\n");
        assert_eq!((s.vsync, s.units, w), (VsyncMode::Off, Units::Metric, None));
        let text = toml::to_string(&GameSettings::default()).expect("encode");
        assert!(text.contains("units = \"imperial\""), "{text}");
        assert!(text.contains("vsync = \"on\""), "{text}");
    }

    #[test]
    fn to_hud_carries_units_scale_and_fov() {
        let s = GameSettings {
            units: Units::Metric,
            fov_deg: 80.0,
            ui_scale: 1.5,
            ..GameSettings::default()
        };
        assert_eq!(
            s.to_hud(),
            HudSettings {
                units: Units::Metric,
                ui_scale: 1.5,
                vertical_fov_deg: 80.0
            }
        );
    }

    #[test]
    fn default_path_is_settings_toml_in_the_config_dir() {
        if let Some(p) = default_path() {
            assert!(p.ends_with(FILE_NAME));
            assert!(p.to_string_lossy().contains("fighters-legacy"));
        }
    }
}

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
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::{
    Audio, AudioBus, Camera, Choice, FOV_RANGE_DEG, FPS_CAP_RANGE, GameSettings, Graphics, Hud,
    HudColour, MAX_CALLSIGN_BYTES, MAX_RECENT_SERVERS, Net, Player, RENDER_SCALE_RANGE, Resolution,
    UI_SCALE_RANGE, VOLUME_RANGE, net_ranges, sanitize_callsign, usable_address,
};
use crate::hud::Units;

/// The settings file's name.
pub const FILE_NAME: &str = "user.toml";
/// The older settings file (a flat list of keys), read when there is no `user.toml` yet.
pub const LEGACY_FILE_NAME: &str = "settings.toml";
/// Bytes of a settings file read at most; a bigger file is not a settings file.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;
/// Problems named in a warning at most (the rest are counted).
const MAX_NAMED: usize = 6;
/// Lines a broken file's salvage joins at most to complete one multi-line value.
const MAX_JOINED_LINES: usize = 64;
/// Bytes the salvage's joined attempts parse at most in all (a file of unclosed arrays would
/// otherwise cost 64 parses of up to 64 lines per line); past it, lines are read one by one.
const SALVAGE_JOIN_BUDGET_BYTES: usize = 2 * 1024 * 1024;
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

/// What reading found besides the values.
#[derive(Debug, Default)]
struct Report {
    /// Values that could not be used (the file is broken): sentences.
    invalid: Vec<String>,
    /// Values brought into range or cleaned: sentences.
    adjusted: Vec<String>,
    /// Keys not known, `section.key`.
    unknown: Vec<String>,
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
        tracing::info!(from = %path.display(), "settings brought over from the older file");
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

    /// The settings as a TOML table (the file's content without its comment header).
    pub fn to_table(&self) -> Table {
        let mut root = self.unknown.clone();
        root.insert(
            "graphics".into(),
            Value::Table(graphics_table(&self.graphics)),
        );
        root.insert("audio".into(), Value::Table(audio_table(&self.audio)));
        root.insert("hud".into(), Value::Table(hud_table(&self.hud)));
        root.insert("camera".into(), Value::Table(camera_table(&self.camera)));
        root.insert("net".into(), Value::Table(net_table(&self.net)));
        root.insert("player".into(), Value::Table(player_table(&self.player)));
        root
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

/// Reads settings from a file's bytes (`legacy`: the older flat `settings.toml`).
fn parse_bytes(bytes: &[u8], legacy: bool) -> (GameSettings, Report) {
    let mut report = Report::default();
    let mut bytes = bytes;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        report.invalid.push(format!(
            "the file is larger than {} KiB (only its start was read)",
            MAX_FILE_BYTES / 1024
        ));
        // Up to the last whole line of the part that fits.
        let cut = &bytes[..MAX_FILE_BYTES as usize];
        let end = cut.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        bytes = &cut[..end];
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => {
            report
                .invalid
                .push("it is not all UTF-8 text (the readable lines were used)".to_owned());
            String::from_utf8_lossy(bytes)
        }
    };
    let mut root = match toml::from_str::<Table>(&text) {
        Ok(t) => t,
        Err(e) => {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let at = line.map_or_else(String::new, |l| format!(" on line {l}"));
            report.invalid.push(format!(
                "it is not valid TOML{at} ({}; the readable lines were used)",
                e.message().trim()
            ));
            salvage(&text, &mut report)
        }
    };
    if legacy {
        lift_legacy_keys(&mut root);
    }
    let settings = from_table(root, &mut report);
    (settings, report)
}

/// Where each key of the older flat file lives now.
const LEGACY_KEYS: [(&str, &str, &str); 7] = [
    ("units", "hud", "units"),
    ("ui_scale", "hud", "ui_scale"),
    ("fov_deg", "camera", "fov_deg"),
    ("vsync", "graphics", "vsync"),
    ("fps_cap", "graphics", "fps_cap"),
    ("callsign", "player", "callsign"),
    ("recent_servers", "player", "recent_servers"),
];

/// Moves the older file's top-level keys into their sections (a section's own key wins).
fn lift_legacy_keys(root: &mut Table) {
    for (old, section, key) in LEGACY_KEYS {
        let Some(v) = root.remove(old) else { continue };
        let entry = root
            .entry(section.to_owned())
            .or_insert_with(|| Value::Table(Table::new()));
        if let Value::Table(t) = entry {
            t.entry(key.to_owned()).or_insert(v);
        }
    }
}

/// Adds what `from` has and `into` lacks, table by table (the first occurrence of a key wins,
/// as it would have had the file parsed).
fn merge_missing(into: &mut Table, from: Table) {
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(Value::Table(a)), Value::Table(b)) => merge_missing(a, b),
            (Some(_), _) => {}
            (None, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// The table at `path` under `root`, made when missing (`None`: a value is in the way).
fn table_at<'t>(root: &'t mut Table, path: &[String]) -> Option<&'t mut Table> {
    let mut t = root;
    for p in path {
        let v = t
            .entry(p.clone())
            .or_insert_with(|| Value::Table(Table::new()));
        t = match v {
            Value::Table(inner) => inner,
            _ => return None,
        };
    }
    Some(t)
}

/// A `[a.b]` header's path (`None`: not a plain table header).
fn header_path(line: &str) -> Option<Vec<String>> {
    let t = line.trim();
    if !t.starts_with('[') || t.starts_with("[[") {
        return None;
    }
    let mut table = toml::from_str::<Table>(t).ok()?;
    let mut path = Vec::new();
    loop {
        if table.len() != 1 {
            break;
        }
        let (k, v) = table.into_iter().next()?;
        path.push(k);
        match v {
            Value::Table(inner) => table = inner,
            _ => return None,
        }
    }
    (!path.is_empty()).then_some(path)
}

/// Whether a line that does not parse on its own may open a value spanning lines (an array,
/// an inline table or a multi-line string after its `=`).
fn may_continue(line: &str) -> bool {
    line.split_once('=')
        .is_some_and(|(_, v)| v.contains(['[', '{']) || v.contains("\"\"\"") || v.contains("'''"))
}

/// Every statement of a file that TOML refused which reads on its own: each header and each
/// `key = value` (joined with the following lines when the value spans lines) is parsed alone,
/// and what parses is put where the file had it. Statements after an array-of-tables header
/// (`[[x]]`) are skipped (settings have none; the moved-aside file keeps them).
fn salvage(text: &str, report: &mut Report) -> Table {
    let lines: Vec<&str> = text.lines().collect();
    let mut root = Table::new();
    let mut section: Option<Vec<String>> = Some(Vec::new());
    let mut dropped = 0usize;
    let mut budget = SALVAGE_JOIN_BUDGET_BYTES;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        i += 1;
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.starts_with('[') && !t.contains('=') {
            section = header_path(t);
            if section.is_none() {
                dropped += 1;
            }
            continue;
        }
        let Some(path) = &section else {
            dropped += 1;
            continue;
        };
        let mut parsed = toml::from_str::<Table>(line).ok().map(|t| (t, 0));
        if parsed.is_none() && may_continue(line) {
            let mut chunk = line.to_owned();
            for extra in 1..=MAX_JOINED_LINES.min(lines.len() - i) {
                chunk.push('\n');
                chunk.push_str(lines[i + extra - 1]);
                if chunk.len() > budget {
                    break;
                }
                budget -= chunk.len();
                if let Ok(t) = toml::from_str::<Table>(&chunk) {
                    parsed = Some((t, extra));
                    break;
                }
            }
        }
        match parsed {
            Some((t, extra)) => {
                i += extra;
                if let Some(into) = table_at(&mut root, path) {
                    merge_missing(into, t);
                }
            }
            None => dropped += 1,
        }
    }
    if dropped > 0 {
        report.invalid.push(format!(
            "{dropped} line(s) could not be read and were left out"
        ));
    }
    root
}

/// The TOML type of `v`, for messages.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "text",
        Value::Integer(_) => "a whole number",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "true/false",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "a list",
        Value::Table(_) => "a table",
    }
}

/// `v` shown briefly in a message (long text cut).
fn shown(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// One section being read: known keys are taken out as they are read, what is left is
/// unknown.
struct Section<'r> {
    name: &'static str,
    table: Table,
    report: &'r mut Report,
}

impl<'r> Section<'r> {
    fn new(root: &mut Table, name: &'static str, report: &'r mut Report) -> Section<'r> {
        let table = match root.remove(name) {
            None => Table::new(),
            Some(Value::Table(t)) => t,
            Some(other) => {
                report.invalid.push(format!(
                    "{name} is {} ({}), not a [{name}] section",
                    type_name(&other),
                    shown(&other)
                ));
                Table::new()
            }
        };
        Section {
            name,
            table,
            report,
        }
    }

    fn invalid(&mut self, key: &str, why: String) {
        self.report
            .invalid
            .push(format!("{}.{key} {why}; using the default", self.name));
    }

    fn adjusted(&mut self, key: &str, what: String) {
        self.report
            .adjusted
            .push(format!("{}.{key} {what}", self.name));
    }

    /// A number (a whole number is one too); `None` when absent or unusable (noted).
    fn number(&mut self, key: &str) -> Option<f64> {
        let v = self.table.remove(key)?;
        let x = match &v {
            Value::Float(f) => *f,
            Value::Integer(i) => *i as f64,
            other => {
                self.invalid(key, format!("is {}, not a number", type_name(other)));
                return None;
            }
        };
        if !x.is_finite() {
            self.invalid(key, format!("is {x}, not a number"));
            return None;
        }
        Some(x)
    }

    fn f64_in(&mut self, key: &str, range: RangeInclusive<f64>, default: f64) -> f64 {
        let Some(x) = self.number(key) else {
            return default;
        };
        let c = x.clamp(*range.start(), *range.end());
        if c != x {
            self.adjusted(
                key,
                format!(
                    "{x} is outside {}..={}; using {c}",
                    range.start(),
                    range.end()
                ),
            );
        }
        c
    }

    fn f32_in(&mut self, key: &str, range: RangeInclusive<f32>, default: f32) -> f32 {
        let r = f64::from(*range.start())..=f64::from(*range.end());
        self.f64_in(key, r, f64::from(default)) as f32
    }

    /// A whole number in `range` (a float with no fraction is accepted; a negative one or a
    /// fraction is unusable).
    fn u32_in(&mut self, key: &str, range: RangeInclusive<u32>, default: u32) -> u32 {
        let Some(x) = self.number(key) else {
            return default;
        };
        if x < 0.0 || x.fract() != 0.0 {
            self.invalid(key, format!("is {x}, not a whole number from 0"));
            return default;
        }
        let (lo, hi) = (f64::from(*range.start()), f64::from(*range.end()));
        let c = x.clamp(lo, hi);
        if c != x {
            self.adjusted(key, format!("{x} is outside {lo}..={hi}; using {c}"));
        }
        c as u32
    }

    fn flag(&mut self, key: &str, default: bool) -> bool {
        match self.table.remove(key) {
            None => default,
            Some(Value::Boolean(b)) => b,
            Some(other) => {
                self.invalid(key, format!("is {}, not true or false", type_name(&other)));
                default
            }
        }
    }

    fn text(&mut self, key: &str) -> Option<String> {
        match self.table.remove(key)? {
            Value::String(s) => Some(s),
            other => {
                self.invalid(key, format!("is {}, not text", type_name(&other)));
                None
            }
        }
    }

    /// Text read with `parse` (its error says why it cannot be used).
    fn parsed<T>(&mut self, key: &str, parse: impl Fn(&str) -> Result<T, String>) -> Option<T> {
        let s = self.text(key)?;
        match parse(&s) {
            Ok(v) => Some(v),
            Err(why) => {
                self.invalid(key, format!("is {why}"));
                None
            }
        }
    }

    fn choice<T: Choice>(&mut self, key: &str, default: T) -> T {
        self.parsed(key, |s| {
            T::from_name(s).ok_or_else(|| format!("{s:?}, not one of {}", T::names()))
        })
        .unwrap_or(default)
    }

    /// A list of text; items that are not text are left out (noted).
    fn texts(&mut self, key: &str) -> Option<Vec<String>> {
        match self.table.remove(key)? {
            Value::Array(items) => {
                let total = items.len();
                let texts: Vec<String> = items
                    .into_iter()
                    .filter_map(|v| match v {
                        Value::String(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                if texts.len() != total {
                    self.report.invalid.push(format!(
                        "{}.{key}: {} item(s) were not text and were left out",
                        self.name,
                        total - texts.len()
                    ));
                }
                Some(texts)
            }
            other => {
                self.invalid(key, format!("is {}, not a list", type_name(&other)));
                None
            }
        }
    }

    /// The keys not read: unknown to this version, kept as they are.
    fn rest(self) -> Table {
        for k in self.table.keys() {
            if self.report.unknown.len() < 64 {
                self.report.unknown.push(format!("{}.{k}", self.name));
            }
        }
        self.table
    }
}

fn units_named(s: &str) -> Result<Units, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "imperial" => Ok(Units::Imperial),
        "metric" => Ok(Units::Metric),
        _ => Err(format!("{s:?}, not \"imperial\" or \"metric\"")),
    }
}

fn units_name(u: Units) -> &'static str {
    match u {
        Units::Imperial => "imperial",
        Units::Metric => "metric",
    }
}

/// Reads every section of `root`; what is left over is kept as unknown.
fn from_table(mut root: Table, r: &mut Report) -> GameSettings {
    let d = GameSettings::default();
    let graphics = {
        let mut s = Section::new(&mut root, "graphics", r);
        let resolution = match s.parsed("resolution", Resolution::parse) {
            Some(res) => {
                let c = res.clamped();
                if c != res {
                    s.adjusted(
                        "resolution",
                        format!(
                            "{res} is outside {}..={}; using {c}",
                            Resolution::MIN,
                            Resolution::MAX
                        ),
                    );
                }
                c
            }
            None => d.graphics.resolution,
        };
        let fullscreen = s.choice("fullscreen", d.graphics.fullscreen);
        let vsync = s.choice("vsync", d.graphics.vsync);
        let render_scale = s.f32_in("render_scale", RENDER_SCALE_RANGE, d.graphics.render_scale);
        let terrain_detail = s.choice("terrain_detail", d.graphics.terrain_detail);
        let model_detail = s.choice("model_detail", d.graphics.model_detail);
        // 0 is "no cap", not below the range.
        let fps_cap = match s.u32_in("fps_cap", 0..=u32::MAX, d.graphics.fps_cap) {
            0 => 0,
            cap => {
                let c = cap.clamp(*FPS_CAP_RANGE.start(), *FPS_CAP_RANGE.end());
                if c != cap {
                    s.adjusted(
                        "fps_cap",
                        format!(
                            "{cap} is outside {}..={} (or 0 for none); using {c}",
                            FPS_CAP_RANGE.start(),
                            FPS_CAP_RANGE.end()
                        ),
                    );
                }
                c
            }
        };
        Graphics {
            resolution,
            fullscreen,
            vsync,
            render_scale,
            terrain_detail,
            model_detail,
            fps_cap,
            unknown: s.rest(),
        }
    };
    let audio = {
        let mut s = Section::new(&mut root, "audio", r);
        let mut a = Audio::default();
        for bus in AudioBus::ALL {
            let v = s.f32_in(bus.key(), VOLUME_RANGE, a.volume(bus));
            *a.volume_mut(bus) = v;
        }
        a.mute_when_unfocused = s.flag("mute_when_unfocused", a.mute_when_unfocused);
        a.unknown = s.rest();
        a
    };
    let hud = {
        let mut s = Section::new(&mut root, "hud", r);
        Hud {
            units: s.parsed("units", units_named).unwrap_or(d.hud.units),
            colour: s.parsed("colour", HudColour::parse).unwrap_or(d.hud.colour),
            ui_scale: s.f32_in("ui_scale", UI_SCALE_RANGE, d.hud.ui_scale),
            unknown: s.rest(),
        }
    };
    let camera = {
        let mut s = Section::new(&mut root, "camera", r);
        Camera {
            fov_deg: s.f64_in("fov_deg", FOV_RANGE_DEG, d.camera.fov_deg),
            unknown: s.rest(),
        }
    };
    let net = {
        let mut s = Section::new(&mut root, "net", r);
        let dn = &d.net;
        let mut n = Net {
            correction_half_life_ms: s.u32_in(
                "correction_half_life_ms",
                net_ranges::CORRECTION_HALF_LIFE_MS,
                dn.correction_half_life_ms,
            ),
            snap_distance_m: s.f64_in(
                "snap_distance_m",
                net_ranges::SNAP_DISTANCE_M,
                dn.snap_distance_m,
            ),
            correction_speed_mps: s.f64_in(
                "correction_speed_mps",
                net_ranges::CORRECTION_SPEED_MPS,
                dn.correction_speed_mps,
            ),
            interp_send_intervals: s.f64_in(
                "interp_send_intervals",
                net_ranges::INTERP_SEND_INTERVALS,
                dn.interp_send_intervals,
            ),
            interp_jitter_multiplier: s.f64_in(
                "interp_jitter_multiplier",
                net_ranges::INTERP_JITTER_MULTIPLIER,
                dn.interp_jitter_multiplier,
            ),
            interp_min_delay_ms: s.u32_in(
                "interp_min_delay_ms",
                net_ranges::INTERP_MIN_DELAY_MS,
                dn.interp_min_delay_ms,
            ),
            interp_max_delay_ms: s.u32_in(
                "interp_max_delay_ms",
                net_ranges::INTERP_MAX_DELAY_MS,
                dn.interp_max_delay_ms,
            ),
            max_extrapolation_ms: s.u32_in(
                "max_extrapolation_ms",
                net_ranges::MAX_EXTRAPOLATION_MS,
                dn.max_extrapolation_ms,
            ),
            unknown: Table::new(),
        };
        if n.interp_max_delay_ms < n.interp_min_delay_ms {
            s.adjusted(
                "interp_max_delay_ms",
                format!(
                    "{} is below interp_min_delay_ms; using {}",
                    n.interp_max_delay_ms, n.interp_min_delay_ms
                ),
            );
            n.interp_max_delay_ms = n.interp_min_delay_ms;
        }
        n.unknown = s.rest();
        n
    };
    let player = {
        let mut s = Section::new(&mut root, "player", r);
        let callsign = match s.text("callsign") {
            Some(c) => {
                let clean = sanitize_callsign(&c);
                if clean != c {
                    s.adjusted(
                        "callsign",
                        format!("was shortened or cleaned to {clean:?} (at most {MAX_CALLSIGN_BYTES} bytes, no control characters)"),
                    );
                }
                clean
            }
            None => d.player.callsign.clone(),
        };
        let recent_servers = match s.texts("recent_servers") {
            Some(list) => {
                // The newest occurrence of each address; blank and absurd ones and the
                // oldest past the limit dropped.
                let before = list.len();
                let mut recent: Vec<String> = Vec::new();
                for a in &list {
                    let Some(a) = usable_address(a) else { continue };
                    if recent.len() == MAX_RECENT_SERVERS {
                        break;
                    }
                    if !recent.iter().any(|r| r == a) {
                        recent.push(a.to_owned());
                    }
                }
                if recent.len() != before {
                    s.adjusted(
                        "recent_servers",
                        format!("kept {} of {before} (blank, repeated, over-long or past the {MAX_RECENT_SERVERS} newest)", recent.len()),
                    );
                }
                recent
            }
            None => Vec::new(),
        };
        Player {
            callsign,
            recent_servers,
            unknown: s.rest(),
        }
    };
    for k in root.keys() {
        if r.unknown.len() < 64 {
            r.unknown.push(k.clone());
        }
    }
    GameSettings {
        graphics,
        audio,
        hud,
        camera,
        net,
        player,
        unknown: root,
    }
}

/// An f32 as the f64 TOML stores, by its shortest decimal form (0.8, not 0.800000011920929).
fn f32_value(v: f32) -> Value {
    Value::Float(v.to_string().parse::<f64>().unwrap_or(f64::from(v)))
}

fn int(v: u32) -> Value {
    Value::Integer(i64::from(v))
}

fn text(s: impl Into<String>) -> Value {
    Value::String(s.into())
}

fn graphics_table(g: &Graphics) -> Table {
    let mut t = g.unknown.clone();
    t.insert("resolution".into(), text(g.resolution.to_string()));
    t.insert("fullscreen".into(), text(g.fullscreen.name()));
    t.insert("vsync".into(), text(g.vsync.name()));
    t.insert("render_scale".into(), f32_value(g.render_scale));
    t.insert("terrain_detail".into(), text(g.terrain_detail.name()));
    t.insert("model_detail".into(), text(g.model_detail.name()));
    t.insert("fps_cap".into(), int(g.fps_cap));
    t
}

fn audio_table(a: &Audio) -> Table {
    let mut t = a.unknown.clone();
    for bus in AudioBus::ALL {
        t.insert(bus.key().into(), f32_value(a.volume(bus)));
    }
    t.insert(
        "mute_when_unfocused".into(),
        Value::Boolean(a.mute_when_unfocused),
    );
    t
}

fn hud_table(h: &Hud) -> Table {
    let mut t = h.unknown.clone();
    t.insert("units".into(), text(units_name(h.units)));
    t.insert("colour".into(), text(h.colour.to_string()));
    t.insert("ui_scale".into(), f32_value(h.ui_scale));
    t
}

fn camera_table(c: &Camera) -> Table {
    let mut t = c.unknown.clone();
    t.insert("fov_deg".into(), Value::Float(c.fov_deg));
    t
}

fn net_table(n: &Net) -> Table {
    let mut t = n.unknown.clone();
    t.insert(
        "correction_half_life_ms".into(),
        int(n.correction_half_life_ms),
    );
    t.insert("snap_distance_m".into(), Value::Float(n.snap_distance_m));
    t.insert(
        "correction_speed_mps".into(),
        Value::Float(n.correction_speed_mps),
    );
    t.insert(
        "interp_send_intervals".into(),
        Value::Float(n.interp_send_intervals),
    );
    t.insert(
        "interp_jitter_multiplier".into(),
        Value::Float(n.interp_jitter_multiplier),
    );
    t.insert("interp_min_delay_ms".into(), int(n.interp_min_delay_ms));
    t.insert("interp_max_delay_ms".into(), int(n.interp_max_delay_ms));
    t.insert("max_extrapolation_ms".into(), int(n.max_extrapolation_ms));
    t
}

fn player_table(p: &Player) -> Table {
    let mut t = p.unknown.clone();
    t.insert("callsign".into(), text(p.callsign.clone()));
    t.insert(
        "recent_servers".into(),
        Value::Array(
            p.recent_servers
                .iter()
                .cloned()
                .map(Value::String)
                .collect(),
        ),
    );
    t
}

#[cfg(test)]
mod tests;

//! `bindings.toml`: the player's bindings as differences from the defaults, in the OS config
//! directory (`<config>/fighters-legacy/bindings.toml`; `$XDG_CONFIG_HOME` on Linux).
//!
//! The format (docs/controls.md): `version = 2`; a `[keyboard]` and a `[gamepad]` table and one
//! `[devices."<device id>"]` table per device (with its `name`), each holding
//! `<action> = { primary = …, alternate = … }` for the slots that differ from the defaults. A
//! slot is `"none"` (cleared), an input name (`"G"`, `"MouseLeft"`, `"South"`, `"button:288"`),
//! or a table for an axis: `{ input = "axis:6", invert, deadzone, saturation, expo, detent }`.
//! Version 1 was `[keys] <action> = "<key>"` and is migrated.
//!
//! Owns reading (bounded, never failing: a corrupt file is moved aside to
//! `bindings.invalid.toml` — `bindings.invalid.1.toml` … when that exists — and the defaults
//! are used), migration, and writing (atomic: a temporary file renamed over the old one). What
//! the game does not understand — unknown tables, actions, keys, values from a newer game — is
//! written back as it was; a slot is rewritten only when the player changed it. Must not panic
//! or lose the player's file: an older or newer version is copied to `bindings.v<N>.toml`
//! before the first save replaces it.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use toml::{Table, Value};

use crate::action::Action;
use crate::axis::{AxisPart, AxisSettings, DEVICE_DEADZONE};
use crate::binding::{Binding, Bindings, Input, Place, Slot, Source, check};
use crate::device::{DeviceId, clean_name};
use crate::keys::{KeyName, MouseButton};
use crate::pad::{PadAxis, PadButton};

/// The file's name in the config directory.
pub const FILE_NAME: &str = "bindings.toml";
/// The version this game writes.
pub const VERSION: i64 = 2;
/// Larger files are not read (a bindings file is a few kilobytes).
pub const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Device tables read at most.
const MAX_DEVICE_TABLES: usize = 64;
/// Warnings kept at most (a hostile file cannot flood the log).
const MAX_WARNINGS: usize = 32;
/// Numbered names tried for a file moved aside or copied.
const MAX_ASIDE: u32 = 1_000;

/// Where the bindings live: `<OS config dir>/fighters-legacy/bindings.toml` (the settings'
/// folder; `None` when the OS gives no config directory: the game then flies on defaults).
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "fighters-legacy")
        .map(|d| d.config_dir().join(FILE_NAME))
}

/// Why a file's text was refused as a whole (it is then moved aside).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("it is not valid TOML: {0}")]
    Toml(String),
    #[error("its `version` must be a whole number from 1 up, not {0}")]
    Version(String),
    #[error("it is larger than {MAX_FILE_BYTES} bytes")]
    TooLarge,
    #[error("it is not UTF-8 text")]
    NotUtf8,
}

/// Why the bindings could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("could not create the folder {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not keep a copy of {path} before replacing it: {source}")]
    Backup {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not encode the bindings: {0}")]
    Encode(#[from] toml::ser::Error),
}

type SlotKey = (Source, Action, Slot);

/// The file as read, kept so that what the game does not understand is written back as it was.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    doc: Table,
    /// What each slot in the file gave (`None`: it did not parse, and is kept as written).
    loaded: BTreeMap<SlotKey, Option<Option<Binding>>>,
    /// The file's version (0: there was no file).
    pub from_version: i64,
}

/// A parsed file.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub bindings: Bindings,
    pub document: Document,
    /// What was not understood (kept in the file) or was migrated.
    pub warnings: Vec<String>,
}

fn warn(w: &mut Vec<String>, s: String) {
    if w.len() < MAX_WARNINGS {
        w.push(s);
    }
}

/// Parses a file's text. Only a file that is not TOML or has a nonsensical version is an
/// error; anything inside that does not parse is a warning and stays in the document.
pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    let table: Table = text
        .parse()
        .map_err(|e: toml::de::Error| ParseError::Toml(e.message().to_owned()))?;
    let version = match table.get("version") {
        None => 1,
        Some(Value::Integer(v)) if *v >= 1 => *v,
        Some(other) => {
            let mut s = other.to_string();
            s.truncate(40);
            return Err(ParseError::Version(s));
        }
    };
    let mut warnings = Vec::new();
    let mut bindings = Bindings::defaults();
    if version > VERSION {
        warn(
            &mut warnings,
            format!(
                "the bindings file is from a newer game (version {version}); the defaults are \
                 used and the file is copied to bindings.v{version}.toml before it is replaced"
            ),
        );
        return Ok(Parsed {
            bindings,
            document: Document {
                doc: table,
                loaded: BTreeMap::new(),
                from_version: version,
            },
            warnings,
        });
    }
    let doc = if version == 1 {
        migrate_v1(table, &mut warnings)
    } else {
        table
    };
    let mut loaded = BTreeMap::new();
    for (name, source) in [("keyboard", Source::Keyboard), ("gamepad", Source::Gamepad)] {
        match doc.get(name) {
            Some(Value::Table(t)) => {
                read_source(&source, name, t, &mut bindings, &mut loaded, &mut warnings)
            }
            Some(_) => warn(
                &mut warnings,
                format!("[{name}] is not a table; it is kept as written"),
            ),
            None => {}
        }
    }
    match doc.get("devices") {
        Some(Value::Table(devices)) => {
            for (id_text, v) in devices.iter().take(MAX_DEVICE_TABLES) {
                let id: DeviceId = match id_text.parse() {
                    Ok(id) => id,
                    Err(e) => {
                        warn(&mut warnings, format!("[devices]: {e}; kept as written"));
                        continue;
                    }
                };
                let Value::Table(t) = v else {
                    warn(
                        &mut warnings,
                        format!("devices.\"{id}\" is not a table; kept as written"),
                    );
                    continue;
                };
                if let Some(Value::String(n)) = t.get("name") {
                    bindings.device_names.insert(id.clone(), clean_name(n));
                }
                let what = format!("devices.\"{id}\"");
                read_source(
                    &Source::Device(id),
                    &what,
                    t,
                    &mut bindings,
                    &mut loaded,
                    &mut warnings,
                );
            }
        }
        Some(_) => warn(
            &mut warnings,
            "[devices] is not a table; it is kept as written".to_owned(),
        ),
        None => {}
    }
    Ok(Parsed {
        bindings,
        document: Document {
            doc,
            loaded,
            from_version: version,
        },
        warnings,
    })
}

/// Version 1 (`[keys] <action> = "<key>"`) as version 2 (`[keyboard] <action> = { primary =
/// "<key>" }`); everything else stays.
fn migrate_v1(mut t: Table, warnings: &mut Vec<String>) -> Table {
    t.remove("version");
    match t.remove("keys") {
        Some(Value::Table(keys)) => {
            let mut kb = match t.remove("keyboard") {
                Some(Value::Table(kb)) => kb,
                Some(other) => {
                    warn(
                        warnings,
                        "version 1 had a [keyboard] that is not a table; kept as keyboard_v1"
                            .to_owned(),
                    );
                    t.insert("keyboard_v1".to_owned(), other);
                    Table::new()
                }
                None => Table::new(),
            };
            for (action, key) in keys {
                if kb.contains_key(&action) {
                    warn(
                        warnings,
                        format!(
                            "[keys] {action} and [keyboard] {action} both exist; the latter is kept"
                        ),
                    );
                    continue;
                }
                let mut slot = Table::new();
                slot.insert(Slot::Primary.name().to_owned(), key);
                kb.insert(action, Value::Table(slot));
            }
            t.insert("keyboard".to_owned(), Value::Table(kb));
        }
        Some(other) => {
            warn(
                warnings,
                "version 1's [keys] is not a table; it is kept as written".to_owned(),
            );
            t.insert("keys".to_owned(), other);
        }
        None => {}
    }
    t
}

/// Reads one source's table.
fn read_source(
    source: &Source,
    what: &str,
    t: &Table,
    bindings: &mut Bindings,
    loaded: &mut BTreeMap<SlotKey, Option<Option<Binding>>>,
    warnings: &mut Vec<String>,
) {
    for (name, v) in t {
        if matches!(source, Source::Device(_)) && name == "name" {
            continue;
        }
        let Some(action) = Action::from_name(name) else {
            warn(
                warnings,
                format!("{what}: unknown action {name:?}; kept as written"),
            );
            continue;
        };
        let Value::Table(row) = v else {
            warn(
                warnings,
                format!(
                    "{what}.{name}: expected {{ primary = …, alternate = … }}; kept as written"
                ),
            );
            continue;
        };
        for (k, _) in row {
            if k != "primary" && k != "alternate" {
                warn(
                    warnings,
                    format!("{what}.{name}: unknown key {k:?}; kept as written"),
                );
            }
        }
        for slot in Slot::BOTH {
            let Some(sv) = row.get(slot.name()) else {
                continue;
            };
            let key = (source.clone(), action, slot);
            let parsed = parse_slot(source, action, sv, warnings).and_then(|b| {
                bindings
                    .set(source, action, slot, b)
                    .map_err(|e| e.to_string())
            });
            match parsed {
                Ok(()) => {
                    let now = bindings.get(source, action, slot).cloned();
                    loaded.insert(key, Some(now));
                }
                Err(e) => {
                    warn(
                        warnings,
                        format!(
                            "{what}.{name}.{}: {e}; the default is used and the entry kept",
                            slot.name()
                        ),
                    );
                    loaded.insert(key, None);
                }
            }
        }
    }
}

/// One slot's value.
fn parse_slot(
    source: &Source,
    action: Action,
    v: &Value,
    warnings: &mut Vec<String>,
) -> Result<Option<Binding>, String> {
    let binding = match v {
        Value::String(s) if s == "none" => return Ok(None),
        Value::String(s) => {
            let input = parse_input(source, s)?;
            let axis = match (&input, source) {
                (Input::PadAxis(..), _) => AxisSettings::pad(),
                (Input::Axis(..), _) => AxisSettings {
                    deadzone: DEVICE_DEADZONE,
                    ..AxisSettings::default()
                },
                _ => AxisSettings::default(),
            };
            Binding { input, axis }
        }
        Value::Table(t) => {
            let Some(Value::String(s)) = t.get("input") else {
                return Err("an axis binding needs input = \"…\"".to_owned());
            };
            let input = parse_input(source, s)?;
            let num = |k: &str, default: f32| -> Result<f32, String> {
                match t.get(k) {
                    None => Ok(default),
                    Some(Value::Float(f)) => Ok(*f as f32),
                    Some(Value::Integer(i)) => Ok(*i as f32),
                    Some(_) => Err(format!("{k} must be a number")),
                }
            };
            let invert = match t.get("invert") {
                None => false,
                Some(Value::Boolean(b)) => *b,
                Some(_) => return Err("invert must be true or false".to_owned()),
            };
            let detent = match t.get("detent") {
                None => None,
                Some(_) => Some(num("detent", 1.0)?),
            };
            for k in t.keys() {
                if ![
                    "input",
                    "invert",
                    "deadzone",
                    "saturation",
                    "expo",
                    "detent",
                ]
                .contains(&k.as_str())
                {
                    warn(
                        warnings,
                        format!("{action}: unknown axis setting {k:?} ignored (kept in the file)"),
                    );
                }
            }
            Binding {
                input,
                axis: AxisSettings {
                    invert,
                    deadzone: num("deadzone", 0.0)?,
                    saturation: num("saturation", 1.0)?,
                    expo: num("expo", 0.0)?,
                    detent,
                },
            }
        }
        _ => return Err("expected \"none\", an input name or an axis table".to_owned()),
    };
    check(source, action, &binding).map_err(|e| e.to_string())?;
    Ok(Some(binding))
}

/// An input's name within its source.
fn parse_input(source: &Source, s: &str) -> Result<Input, String> {
    let unknown = || {
        let shown: String = s.chars().take(40).collect();
        format!("unknown input {shown:?}")
    };
    let half = |s: &str| -> (String, AxisPart) {
        if let Some(b) = s.strip_suffix('+') {
            (b.to_owned(), AxisPart::Plus)
        } else if let Some(b) = s.strip_suffix('-') {
            (b.to_owned(), AxisPart::Minus)
        } else {
            (s.to_owned(), AxisPart::Whole)
        }
    };
    let number = |n: &str| -> Option<u32> {
        (!n.is_empty() && n.len() <= 10 && n.bytes().all(|b| b.is_ascii_digit()))
            .then(|| n.parse().ok())
            .flatten()
    };
    match source {
        Source::Keyboard => MouseButton::parse(s)
            .map(Input::Mouse)
            .or_else(|| KeyName::parse(s).map(Input::Key))
            .ok_or_else(unknown),
        Source::Gamepad => {
            if let Some(b) = PadButton::parse(s) {
                return Ok(Input::PadButton(b));
            }
            let (base, part) = half(s);
            PadAxis::parse(&base)
                .map(|a| Input::PadAxis(a, part))
                .ok_or_else(unknown)
        }
        Source::Device(_) => {
            if let Some(n) = s.strip_prefix("button:") {
                return number(n).map(Input::Button).ok_or_else(unknown);
            }
            let (base, part) = half(s);
            base.strip_prefix("axis:")
                .and_then(number)
                .map(|c| Input::Axis(c, part))
                .ok_or_else(unknown)
        }
    }
}

/// An input's name in the file.
pub fn input_name(input: &Input) -> String {
    let half = |p: &AxisPart| match p {
        AxisPart::Whole => "",
        AxisPart::Plus => "+",
        AxisPart::Minus => "-",
    };
    match input {
        Input::Key(k) => k.as_str().to_owned(),
        Input::Mouse(m) => m.name(),
        Input::PadButton(b) => b.name().to_owned(),
        Input::PadAxis(a, p) => format!("{}{}", a.name(), half(p)),
        Input::Button(c) => format!("button:{c}"),
        Input::Axis(c, p) => format!("axis:{c}{}", half(p)),
    }
}

/// A number as written: four decimals (0.1, not 0.10000000149011612).
fn number(v: f32) -> Value {
    Value::Float((f64::from(v) * 10_000.0).round() / 10_000.0)
}

/// A slot's value in the file.
fn slot_value(b: Option<&Binding>) -> Value {
    let Some(b) = b else {
        return Value::String("none".to_owned());
    };
    if !b.input.is_axis() {
        return Value::String(input_name(&b.input));
    }
    let s = b.axis.sanitized();
    let mut t = Table::new();
    t.insert("input".into(), Value::String(input_name(&b.input)));
    t.insert("invert".into(), Value::Boolean(s.invert));
    t.insert("deadzone".into(), number(s.deadzone));
    t.insert("saturation".into(), number(s.saturation));
    t.insert("expo".into(), number(s.expo));
    if let Some(d) = s.detent {
        t.insert("detent".into(), number(d));
    }
    Value::Table(t)
}

/// The table of `source` in `doc`, made when `create` (replacing a non-table found there).
fn source_table<'a>(doc: &'a mut Table, source: &Source, create: bool) -> Option<&'a mut Table> {
    let (parent, key) = match source {
        Source::Keyboard => (doc, "keyboard".to_owned()),
        Source::Gamepad => (doc, "gamepad".to_owned()),
        Source::Device(id) => {
            if create && !matches!(doc.get("devices"), Some(Value::Table(_))) {
                doc.insert("devices".into(), Value::Table(Table::new()));
            }
            match doc.get_mut("devices") {
                Some(Value::Table(d)) => (d, id.to_string()),
                _ => return None,
            }
        }
    };
    if create && !matches!(parent.get(&key), Some(Value::Table(_))) {
        parent.insert(key.clone(), Value::Table(Table::new()));
    }
    match parent.get_mut(&key) {
        Some(Value::Table(t)) => Some(t),
        _ => None,
    }
}

/// The file's text for `bindings`, keeping what `document` holds that the game does not
/// understand and every slot the player did not change.
pub fn render(bindings: &Bindings, document: &Document) -> Result<String, toml::ser::Error> {
    let mut doc = document.doc.clone();
    // Slots in the file the player did not change stay as written.
    let mut kept = std::collections::BTreeSet::new();
    for (key @ (source, action, slot), was) in &document.loaded {
        let now = bindings.get(source, *action, *slot).cloned();
        let unchanged = match was {
            Some(parsed) => now == *parsed,
            None => {
                let place = Place {
                    source: source.clone(),
                    action: *action,
                    slot: *slot,
                };
                now == Bindings::default_of(&place)
            }
        };
        if unchanged {
            kept.insert(key.clone());
        } else if let Some(t) = source_table(&mut doc, source, false)
            && let Some(Value::Table(row)) = t.get_mut(action.name())
        {
            row.remove(slot.name());
        }
    }
    for (place, binding) in bindings.differences() {
        let key = (place.source.clone(), place.action, place.slot);
        if kept.contains(&key) {
            continue;
        }
        let Some(t) = source_table(&mut doc, &place.source, true) else {
            continue;
        };
        if !matches!(t.get(place.action.name()), Some(Value::Table(_))) {
            t.insert(place.action.name().to_owned(), Value::Table(Table::new()));
        }
        if let Some(Value::Table(row)) = t.get_mut(place.action.name()) {
            row.insert(place.slot.name().to_owned(), slot_value(binding.as_ref()));
        }
    }
    prune(&mut doc, bindings);
    let mut out = Table::new();
    out.insert("version".into(), Value::Integer(VERSION));
    for (k, v) in doc {
        if k != "version" {
            out.insert(k, v);
        }
    }
    toml::to_string(&out)
}

/// Drops the action and source tables left empty, names the devices that keep bindings, and
/// drops device tables that hold nothing but their name.
fn prune(doc: &mut Table, bindings: &Bindings) {
    let prune_rows = |t: &mut Table| {
        t.retain(|k, v| match v {
            Value::Table(row) => !(Action::from_name(k).is_some() && row.is_empty()),
            _ => true,
        });
    };
    for name in ["keyboard", "gamepad"] {
        if let Some(Value::Table(t)) = doc.get_mut(name) {
            prune_rows(t);
            if t.is_empty() {
                doc.remove(name);
            }
        }
    }
    if let Some(Value::Table(devices)) = doc.get_mut("devices") {
        devices.retain(|id_text, v| {
            let Value::Table(t) = v else { return true };
            prune_rows(t);
            let Ok(id) = id_text.parse::<DeviceId>() else {
                return true;
            };
            if t.keys().all(|k| k == "name") {
                return false;
            }
            if let Some(n) = bindings.device_names.get(&id).filter(|n| !n.is_empty()) {
                t.insert("name".into(), Value::String(n.clone()));
            }
            true
        });
        if devices.is_empty() {
            doc.remove("devices");
        }
    }
}

/// The bindings file on disk.
#[derive(Debug, Clone)]
pub struct BindingsFile {
    path: PathBuf,
    document: Document,
    /// The file on disk is of another version: copy it before the first save replaces it.
    backup_pending: bool,
}

/// What [`load`] gives: the bindings to fly with, the file to save them to, and what to tell
/// the player.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub bindings: Bindings,
    pub file: BindingsFile,
    pub warnings: Vec<String>,
}

/// Reads at most [`MAX_FILE_BYTES`] + 1 bytes.
fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Loads the bindings from `path`. Never fails: no file gives the defaults; a file that cannot
/// be used as a whole is moved aside (`bindings.invalid.toml`, …) with a warning and the
/// defaults are used; entries that do not parse are warnings and are kept in the file.
pub fn load(path: &Path) -> Loaded {
    let fresh = |warnings| Loaded {
        bindings: Bindings::defaults(),
        file: BindingsFile {
            path: path.to_owned(),
            document: Document::default(),
            backup_pending: false,
        },
        warnings,
    };
    let bytes = match read_bounded(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return fresh(Vec::new()),
        Err(e) => {
            return fresh(vec![format!(
                "{} could not be read ({e}); the default controls are used",
                path.display()
            )]);
        }
    };
    let parsed = if bytes.len() as u64 > MAX_FILE_BYTES {
        Err(ParseError::TooLarge)
    } else {
        String::from_utf8(bytes)
            .map_err(|_| ParseError::NotUtf8)
            .and_then(|text| parse(&text))
    };
    match parsed {
        Ok(p) => {
            let from = p.document.from_version;
            let mut warnings = p.warnings;
            if from == 1 {
                warn(
                    &mut warnings,
                    format!(
                        "{} is version 1: migrated (the old file is kept as bindings.v1.toml \
                         when the bindings are next saved)",
                        path.display()
                    ),
                );
            }
            Loaded {
                bindings: p.bindings,
                file: BindingsFile {
                    path: path.to_owned(),
                    document: p.document,
                    backup_pending: from != VERSION,
                },
                warnings,
            }
        }
        Err(why) => {
            let moved = match move_aside(path) {
                Ok(to) => format!("it was renamed to {}", to.display()),
                Err(e) => format!("it could not be renamed ({e}) and is left as it is"),
            };
            fresh(vec![format!(
                "{} could not be used: {why}; {moved}; the default controls are used",
                path.display()
            )])
        }
    }
}

/// `<stem>.<tag>.toml`, else `<stem>.<tag>.1.toml`, … next to `path`: the first that `take`
/// succeeds on (it fails with `AlreadyExists` for a name in use).
fn free_name(
    path: &Path,
    tag: &str,
    mut take: impl FnMut(&Path) -> std::io::Result<()>,
) -> std::io::Result<PathBuf> {
    let stem = path
        .file_stem()
        .map_or_else(|| "bindings".into(), |s| s.to_string_lossy().into_owned());
    for n in 0..MAX_ASIDE {
        let name = if n == 0 {
            format!("{stem}.{tag}.toml")
        } else {
            format!("{stem}.{tag}.{n}.toml")
        };
        let candidate = path.with_file_name(name);
        match take(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!("{MAX_ASIDE} {stem}.{tag}.*.toml files exist already"),
    ))
}

/// Moves a bad file aside without replacing an earlier one: a hard link to a free name (which
/// fails if the name is taken), then the old name removed; where links are not supported, a
/// rename to a name that did not exist.
fn move_aside(path: &Path) -> std::io::Result<PathBuf> {
    let to = free_name(path, "invalid", |c| match std::fs::hard_link(path, c) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
            if c.exists() {
                Err(std::io::ErrorKind::AlreadyExists.into())
            } else {
                std::fs::rename(path, c)
            }
        }
        other => other,
    })?;
    if path.exists() {
        std::fs::remove_file(path)?;
    }
    Ok(to)
}

impl BindingsFile {
    /// A file at `path` not read yet (it is written on save).
    pub fn new(path: PathBuf) -> Self {
        BindingsFile {
            path,
            document: Document::default(),
            backup_pending: false,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bindings` (atomically: a temporary file renamed over the old one). The first
    /// save over a file of another version copies it to `bindings.v<N>.toml` first.
    pub fn save(&mut self, bindings: &Bindings) -> Result<(), StoreError> {
        let text = render(bindings, &self.document)?;
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: dir.to_owned(),
                source,
            })?;
        }
        if self.backup_pending && self.path.exists() {
            let tag = format!("v{}", self.document.from_version);
            free_name(&self.path, &tag, |c| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(c)?;
                std::fs::copy(&self.path, c).map(|_| ())
            })
            .map_err(|source| StoreError::Backup {
                path: self.path.clone(),
                source,
            })?;
        }
        write_atomic(&self.path, text.as_bytes()).map_err(|source| StoreError::Write {
            path: self.path.clone(),
            source,
        })?;
        self.backup_pending = false;
        // What was written is what the next save compares against.
        if let Ok(p) = parse(&text) {
            self.document = p.document;
        }
        Ok(())
    }
}

/// Writes `bytes` to a temporary file next to `path`, flushes it and renames it over `path`.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let name = path.file_name().map_or_else(
        || "bindings.toml".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::IdKey;

    fn stick() -> DeviceId {
        DeviceId {
            key: IdKey::Uuid([3, 0, 0, 0, 0x6d, 4, 0, 0, 0x15, 0xc2, 0, 0, 0, 1, 0, 0]),
            ordinal: 1,
        }
    }

    fn customised() -> Bindings {
        let mut b = Bindings::defaults();
        let kb = Source::Keyboard;
        b.set(&kb, Action::Gear, Slot::Primary, Binding::key("L"))
            .expect("valid");
        b.set(&kb, Action::PitchDown, Slot::Alternate, None)
            .expect("valid");
        b.set(
            &kb,
            Action::Gun,
            Slot::Alternate,
            Some(Binding::of(Input::Mouse(MouseButton::Middle))),
        )
        .expect("valid");
        b.set(
            &Source::Gamepad,
            Action::Yaw,
            Slot::Primary,
            Some(Binding::axis(
                Input::PadAxis(PadAxis::RightX, AxisPart::Whole),
                AxisSettings {
                    deadzone: 0.15,
                    expo: 0.3,
                    ..AxisSettings::default()
                },
            )),
        )
        .expect("valid");
        let dev = Source::Device(stick());
        b.set(
            &dev,
            Action::Throttle,
            Slot::Primary,
            Some(Binding::axis(
                Input::Axis(6, AxisPart::Whole),
                AxisSettings {
                    invert: true,
                    deadzone: 0.02,
                    saturation: 0.95,
                    expo: 0.0,
                    detent: Some(0.85),
                },
            )),
        )
        .expect("valid");
        b.set(
            &dev,
            Action::YawLeft,
            Slot::Alternate,
            Some(Binding::of(Input::Axis(5, AxisPart::Minus))),
        )
        .expect("valid");
        b.set(
            &dev,
            Action::Gun,
            Slot::Primary,
            Some(Binding::of(Input::Button(288))),
        )
        .expect("valid");
        b.device_names
            .insert(stick(), "Thrustmaster T.16000M".into());
        b
    }

    #[test]
    fn round_trip_keeps_every_binding_and_writes_only_differences() {
        let b = customised();
        let text = render(&b, &Document::default()).expect("encodes");
        assert!(text.starts_with("version = 2\n"), "{text}");
        assert!(!text.contains("\"W\""), "a default is not written:\n{text}");
        assert!(text.contains("name = \"Thrustmaster T.16000M\""), "{text}");
        assert!(text.contains("deadzone = 0.15"), "no float noise:\n{text}");
        let back = parse(&text).expect("parses");
        assert_eq!(back.warnings, Vec::<String>::new());
        assert_eq!(back.bindings, b);
        assert_eq!(back.bindings.differences(), b.differences());
        // The defaults write an empty file but for the version.
        let empty = render(&Bindings::defaults(), &Document::default()).expect("encodes");
        assert_eq!(empty.trim(), "version = 2");
    }

    #[test]
    fn version_1_is_migrated() {
        let v1 = "[keys]\ngear = \"L\"\nhook = \"K\"\nwarp = \"Q\"\n\n[video]\nfov = 90\n";
        let p = parse(v1).expect("parses");
        assert_eq!(p.document.from_version, 1);
        let gear = p
            .bindings
            .get(&Source::Keyboard, Action::Gear, Slot::Primary);
        assert_eq!(gear, Binding::key("L").as_ref());
        let hook = p
            .bindings
            .get(&Source::Keyboard, Action::Hook, Slot::Primary);
        assert_eq!(hook, Binding::key("K").as_ref());
        // The alternate slots stay at their defaults.
        assert_eq!(
            p.bindings
                .get(&Source::Keyboard, Action::PitchDown, Slot::Alternate),
            Binding::key("ArrowUp").as_ref()
        );
        assert!(p.warnings.iter().any(|w| w.contains("warp")));
        let out = render(&p.bindings, &p.document).expect("encodes");
        let back: Table = out.parse().expect("toml");
        assert_eq!(back.get("version"), Some(&Value::Integer(2)));
        assert!(back.get("keys").is_none(), "{out}");
        assert_eq!(back["video"]["fov"], Value::Integer(90), "{out}");
        assert_eq!(
            back["keyboard"]["warp"]["primary"],
            Value::String("Q".into())
        );
        assert_eq!(parse(&out).expect("v2").bindings, p.bindings);
    }

    #[test]
    fn unknown_entries_are_kept_untouched() {
        let text = r#"
version = 2
future_option = [1, 2, 3]

[keyboard]
gear = { primary = "L", tertiary = "M" }
teleport = { primary = "Y" }
hook = { primary = "Hyper9" }

[gamepad]
gun = { primary = { input = "South", rumble = true } }

[devices."name:Mystery Box#0"]
name = "Mystery Box"
flux = { primary = "button:3" }

[devices.bogus]
gun = "button:1"

[extra.deep]
x = 1
"#;
        let p = parse(text).expect("parses");
        assert!(p.warnings.len() >= 5, "{:#?}", p.warnings);
        // The hook's unknown key name keeps the default.
        assert_eq!(
            p.bindings
                .get(&Source::Keyboard, Action::Hook, Slot::Primary),
            Binding::key("H").as_ref()
        );
        // Change something unrelated and save: everything unknown is still there.
        let mut b = p.bindings.clone();
        b.set(
            &Source::Keyboard,
            Action::Canopy,
            Slot::Primary,
            Binding::key("U"),
        )
        .expect("valid");
        let out = render(&b, &p.document).expect("encodes");
        let t: Table = out.parse().expect("toml");
        assert_eq!(
            t["future_option"],
            Value::Array(vec![1.into(), 2.into(), 3.into()])
        );
        assert_eq!(t["keyboard"]["gear"]["tertiary"], Value::String("M".into()));
        assert_eq!(
            t["keyboard"]["teleport"]["primary"],
            Value::String("Y".into())
        );
        assert_eq!(
            t["keyboard"]["hook"]["primary"],
            Value::String("Hyper9".into())
        );
        assert_eq!(
            t["keyboard"]["canopy"]["primary"],
            Value::String("U".into())
        );
        assert_eq!(
            t["gamepad"]["gun"]["primary"]["rumble"],
            Value::Boolean(true)
        );
        assert_eq!(
            t["devices"]["name:Mystery Box#0"]["flux"]["primary"],
            Value::String("button:3".into())
        );
        assert_eq!(
            t["devices"]["bogus"]["gun"],
            Value::String("button:1".into())
        );
        assert_eq!(t["extra"]["deep"]["x"], Value::Integer(1));
        // Rebinding the slot that did not parse replaces it.
        b.set(
            &Source::Keyboard,
            Action::Hook,
            Slot::Primary,
            Binding::key("N"),
        )
        .expect("valid");
        let out = render(&b, &p.document).expect("encodes");
        let t: Table = out.parse().expect("toml");
        assert_eq!(t["keyboard"]["hook"]["primary"], Value::String("N".into()));
        // A slot put back to its default disappears from the file.
        b.set(
            &Source::Keyboard,
            Action::Gear,
            Slot::Primary,
            Binding::key("G"),
        )
        .expect("valid");
        let out = render(&b, &p.document).expect("encodes");
        let t: Table = out.parse().expect("toml");
        assert!(t["keyboard"]["gear"].get("primary").is_none(), "{out}");
        assert_eq!(t["keyboard"]["gear"]["tertiary"], Value::String("M".into()));
    }

    #[test]
    fn hostile_values_are_refused_without_harm() {
        for text in [
            "version = \"two\"",
            "version = 0",
            "version = -5",
            "version = 2.5",
            "[keyboard\ngear = 1",
            "= = =",
        ] {
            assert!(parse(text).is_err(), "{text:?}");
        }
        let p = parse(
            "version = 2\n[keyboard]\npitch = { primary = \"W\" }\ngear = { primary = 12 }\n\
             gun = { primary = \"Escape\" }\n[devices.\"name:S#0\"]\nroll = { primary = { input = \
             \"axis:0\", deadzone = \"lots\" } }\nyaw = { primary = { input = \"axis:99999999999\" } }\n\
             pause = { primary = { input = \"axis:1\", deadzone = 1e30, expo = -4, detent = nan } }\n",
        )
        .expect("parses");
        assert_eq!(p.warnings.len(), 5, "{:#?}", p.warnings);
        let pause = p
            .bindings
            .get(
                &Source::Device("name:S#0".parse().expect("id")),
                Action::Pause,
                Slot::Primary,
            )
            .map(|b| b.axis);
        let pause = pause.expect("the pause axis binds");
        assert_eq!(pause.deadzone, crate::axis::MAX_DEADZONE);
        assert_eq!((pause.expo, pause.detent), (0.0, None));
    }

    #[test]
    fn a_newer_version_is_not_read_and_is_copied_before_saving() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(FILE_NAME);
        std::fs::write(
            &path,
            "version = 3\n[keyboard]\ngear = { primary = \"L\" }\n",
        )
        .expect("write");
        let mut l = load(&path);
        assert_eq!(l.bindings, Bindings::defaults());
        assert!(l.warnings[0].contains("newer"), "{:?}", l.warnings);
        l.file.save(&l.bindings).expect("save");
        let copy = std::fs::read_to_string(dir.path().join("bindings.v3.toml")).expect("copy");
        assert!(copy.starts_with("version = 3"));
        // The newer file's entries survive in the new one too.
        let now = std::fs::read_to_string(&path).expect("read");
        assert!(
            now.starts_with("version = 2") && now.contains("primary = \"L\""),
            "{now}"
        );
    }

    #[test]
    fn a_corrupt_file_is_moved_aside_and_the_defaults_are_used() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(FILE_NAME);
        for (n, bad) in [
            b"version = 2\n[keyboard\n".to_vec(),
            vec![0xff, 0xfe, 0x00, 0x41],
            vec![b'#'; MAX_FILE_BYTES as usize + 10],
        ]
        .into_iter()
        .enumerate()
        {
            std::fs::write(&path, &bad).expect("write");
            let l = load(&path);
            assert_eq!(l.bindings, Bindings::defaults());
            assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
            let aside = if n == 0 {
                dir.path().join("bindings.invalid.toml")
            } else {
                dir.path().join(format!("bindings.invalid.{n}.toml"))
            };
            assert!(l.warnings[0].contains("renamed to"), "{:?}", l.warnings);
            assert_eq!(
                std::fs::read(&aside).expect("kept"),
                bad,
                "{}",
                aside.display()
            );
            assert!(!path.exists());
        }
        // No file: defaults and no warning.
        let l = load(&path);
        assert!(l.warnings.is_empty());
        assert_eq!(l.bindings, Bindings::defaults());
    }

    #[test]
    fn save_is_atomic_and_load_gives_back_what_was_saved() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("nested").join(FILE_NAME);
        let mut l = load(&path);
        let b = customised();
        l.file.save(&b).expect("save");
        let names: Vec<String> = std::fs::read_dir(path.parent().expect("dir"))
            .expect("list")
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        assert_eq!(names, [FILE_NAME], "no temporary file left behind");
        let again = load(&path);
        assert!(again.warnings.is_empty(), "{:?}", again.warnings);
        assert_eq!(again.bindings, b);
        // A version 1 file is copied aside on the first save.
        std::fs::write(&path, "[keys]\ngear = \"L\"\n").expect("write");
        let mut v1 = load(&path);
        v1.file.save(&v1.bindings).expect("save");
        assert!(path.with_file_name("bindings.v1.toml").exists());
        assert_eq!(load(&path).bindings, v1.bindings);
    }

    #[test]
    fn the_default_path_is_in_the_config_dir() {
        if let Some(p) = default_path() {
            assert!(
                p.ends_with(Path::new("fighters-legacy").join(FILE_NAME)),
                "{}",
                p.display()
            );
        }
    }
}

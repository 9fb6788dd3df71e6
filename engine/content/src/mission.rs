//! Missions: one `missions/*.yaml` file read in full into the typed [`Mission`] the server runs,
//! and checked against the loaded content.
//!
//! Owns: the mission format as fl-base-pack writes it (see `docs/missions.md`), read through the
//! same bounded YAML reading as [`crate::mission_header`] (size, nesting, nodes, aliases) into a
//! line-numbered tree and from there into typed values, every unit converted to SI once here
//! (degrees → radians, `time` → seconds of the local solar day); trigger conditions and actions
//! parsed into [`Condition`] / [`Action`]; the named [`ANCHORS`]; and [`Mission::validate`] /
//! [`Content::load_mission`]: types, loadouts, sensors, Lua scripts (the mission's own pack's
//! `ai/`), builtin controller lines (fl-ai's factory, the one grammar the server builds them
//! with), side and object-id references. Every problem is a [`Finding`] naming the file, the
//! line and the dotted key.
//! Must not: run a mission, spawn, run Lua, read anything but the mission file and the loaded
//! [`Content`], or panic on any input.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};

use crate::assets::AssetKind;
use crate::content::Content;
use crate::findings::{Finding, Severity};
use crate::mission_header::{MAX_MISSION_HEADER_BYTES, MissionTime, StartKind, yaml_options};

/// Largest mission file read, bytes (the same bound as the mission list's header reader).
pub const MAX_MISSION_BYTES: u64 = MAX_MISSION_HEADER_BYTES;
/// Most objects in one mission.
pub const MAX_OBJECTS: usize = 4_096;
/// Most triggers in one mission.
pub const MAX_TRIGGERS: usize = 4_096;
/// Longest id, type id, side, script or controller line kept, characters.
pub const MAX_ID_CHARS: usize = 200;
/// Most findings kept for one file (a hostile file cannot flood a report).
pub const MAX_FINDINGS: usize = 200;

/// The named anchors a mission's `anchor:` may name: `(name, latitude °N, longitude °E)`.
///
/// `home` is the sandbox home of the C++ original and of fl-base-pack's missions: 36.24917° N,
/// 114.99611° W, in the Nevada basin-and-range, where the builtin airfield stands (runway
/// 2,500 × 45 m along 090, field elevation fixed at 569.6 m; the pack's `ai/instructor.lua`
/// relies on these numbers). Every fl-base-pack mission uses `home` and no other; a mission may
/// instead give its own anchor as `anchor: { lat: …, lon: … }` (degrees).
pub const ANCHORS: &[(&str, f64, f64)] = &[("home", 36.24917, -114.99611)];

/// The weather presets `weather.preset` and `set_weather` accept.
pub const WEATHER_PRESETS: [&str; 7] = [
    "clear",
    "partly_cloudy",
    "overcast",
    "rain",
    "storm",
    "snow",
    "blizzard",
];

/// Keys of the C++ original's mission schema this engine does not implement yet: a mission using
/// them still loads (it was written for that engine and is otherwise valid), with a warning that
/// the key is ignored. Every other unknown key is an error: a misspelt key (`heding`, `trigers`)
/// would otherwise silently change the mission.
const NOT_YET_TOP: [&str; 2] = ["airspace_zones", "cameras"];
const NOT_YET_OBJECT: [&str; 2] = ["route", "crew"];

/// Where a mission's coordinates are measured from.
#[derive(Debug, Clone, PartialEq)]
pub struct Anchor {
    /// The anchor's name (`home`), or `None` for `anchor: { lat, lon }`.
    pub name: Option<String>,
    /// Latitude, degrees north.
    pub lat_deg: f64,
    /// Longitude, degrees east.
    pub lon_deg: f64,
}

/// `wind:`: a steady wind (the pack writes speeds in m/s, as the C++ original documents).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wind {
    /// The direction the wind blows FROM, rad clockwise from true north at the anchor.
    pub from_heading_rad: f64,
    /// m/s, ≥ 0.
    pub speed_mps: f64,
}

/// `weather.preset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeatherPreset {
    /// `clear`.
    Clear,
    /// `partly_cloudy`.
    PartlyCloudy,
    /// `overcast`.
    Overcast,
    /// `rain`.
    Rain,
    /// `storm`.
    Storm,
    /// `snow`.
    Snow,
    /// `blizzard`.
    Blizzard,
}

impl WeatherPreset {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "clear" => Self::Clear,
            "partly_cloudy" => Self::PartlyCloudy,
            "overcast" => Self::Overcast,
            "rain" => Self::Rain,
            "storm" => Self::Storm,
            "snow" => Self::Snow,
            "blizzard" => Self::Blizzard,
            _ => return None,
        })
    }

    /// The pack's name of the preset.
    pub fn name(self) -> &'static str {
        WEATHER_PRESETS[self as usize]
    }
}

/// One entry of `sides:` (`blue`, or `{ id: blue, allies: [green] }`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// The side's id, as objects name it.
    pub id: String,
    /// Sides declared friendly to this one (symmetric; every other side is hostile).
    pub allies: Vec<String>,
}

/// Where an object is placed horizontally.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Placement {
    /// `pos: [east, alt, north]`: metres east and north of the anchor, in the anchor's level
    /// frame.
    Anchor {
        /// m east.
        east_m: f64,
        /// m north.
        north_m: f64,
    },
    /// `lat:` / `lon:` (degrees): an absolute place.
    LatLon {
        /// Degrees north.
        lat_deg: f64,
        /// Degrees east.
        lon_deg: f64,
    },
}

/// An object's `ai:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AiSpec {
    /// A builtin controller line for fl-ai's factory (`sam 15000`, `aaa`, `loiter 0 0 3000`):
    /// `behaviour` is the first word, `line` the whole text.
    Builtin {
        /// The behaviour name (one of `fl_ai::factory::BEHAVIOURS`).
        behaviour: String,
        /// The whole line, for `fl_ai::factory::build_from_line`.
        line: String,
    },
    /// `lua <script>`: `ai/<script>.lua` of the mission's own pack.
    Lua {
        /// The script's asset name (no `.lua`).
        script: String,
    },
}

/// One entry of `objects:`.
#[derive(Debug, Clone, PartialEq)]
pub struct MissionObject {
    /// `id`, unique in the mission (what triggers and scripts name).
    pub id: String,
    /// `type` (e.g. `fl-base:f5e`).
    pub type_id: String,
    /// `side`, one of the mission's sides.
    pub side: String,
    /// Horizontal placement.
    pub placement: Placement,
    /// MSL altitude, m: `alt:` if given, else `pos[1]` (0 with `lat`/`lon` and no `alt`). A
    /// ground start takes its height from the terrain and ignores this.
    pub alt_m: f64,
    /// `heading`, rad clockwise from true north (0 when absent).
    pub heading_rad: f64,
    /// `speed`, m/s along the heading; `None` = the type's cruise default for an air start.
    pub speed_mps: Option<f64>,
    /// `player: true`: a joinable player slot.
    pub player: bool,
    /// `start`.
    pub start: StartKind,
    /// `ai:`; `None` = the type's own `ai_script` (for a non-player object).
    pub ai: Option<AiSpec>,
    /// `loadout:` station by station (`None` entries = `~`, `-` or empty: the station left
    /// empty); stations past the list keep their defaults. `None` = the type's default fit.
    pub loadout: Option<Vec<Option<String>>>,
    /// The line of the object's entry.
    pub line: usize,
}

/// A trigger's `on:`.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// `destroy(<id>)`: the object is destroyed (an unoccupied player slot is not).
    Destroy(String),
    /// `timer(<seconds>)`: this many seconds of mission time have elapsed.
    Timer(f64),
    /// `mission_start`: once, when the mission begins.
    MissionStart,
}

/// A trigger's `do:`.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// `mission_success`: ends the mission as a success.
    MissionSuccess,
    /// `mission_failure`: ends the mission as a failure.
    MissionFailure,
    /// `set_weather <preset>`.
    SetWeather(WeatherPreset),
    /// `set_time <hours>`: sets the local solar time of day, here in seconds (0 … 86,400).
    SetTime(f64),
}

/// One entry of `triggers:`: fires once, the first time `on` holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Trigger {
    /// The condition.
    pub on: Condition,
    /// The action.
    pub action: Action,
    /// The line of the trigger's entry.
    pub line: usize,
}

/// A whole mission, every value in SI.
#[derive(Debug, Clone, PartialEq)]
pub struct Mission {
    /// `name`.
    pub name: String,
    /// `description` (briefing text), if any.
    pub description: Option<String>,
    /// `map` (terrain id, e.g. `world`; not checked against assets: a missing theater falls
    /// back to the procedural planet).
    pub map: String,
    /// `layer` (weather/lighting layer id, free text).
    pub layer: Option<String>,
    /// `anchor`.
    pub anchor: Anchor,
    /// `time`: local solar time at the anchor.
    pub time: MissionTime,
    /// `wind` (calm when absent).
    pub wind: Wind,
    /// `weather.preset` (`clear` when absent).
    pub weather: WeatherPreset,
    /// `time_scale`: game seconds per real second (1 when absent).
    pub time_scale: f64,
    /// `sides`, in file order.
    pub sides: Vec<Side>,
    /// `objects`, in file order.
    pub objects: Vec<MissionObject>,
    /// `triggers`, in file order (the order they are evaluated in).
    pub triggers: Vec<Trigger>,
}

impl Mission {
    /// Seconds since local solar midnight at the anchor when the mission starts.
    pub fn start_seconds_of_day(&self) -> f64 {
        f64::from(self.time.hour) * 3600.0 + f64::from(self.time.minute) * 60.0
    }

    /// The object with id `id`.
    pub fn object(&self, id: &str) -> Option<&MissionObject> {
        self.objects.iter().find(|o| o.id == id)
    }

    /// The player slots, in file order.
    pub fn player_slots(&self) -> impl Iterator<Item = &MissionObject> {
        self.objects.iter().filter(|o| o.player)
    }

    /// The world position (fl-flight's frame: planet centre at (0, −R, 0)) of `object` on
    /// `planet`, at its `alt_m` above the geodetic surface. `pos` east/north are measured in the
    /// anchor's level frame, as fl-ai's factory measures behaviour lines.
    pub fn world_position(
        &self,
        object: &MissionObject,
        planet: &fl_flight::gravity::Planet,
    ) -> fl_flight::math::Vec3 {
        use fl_flight::geodetic::{self, Geodetic};
        match object.placement {
            Placement::Anchor { east_m, north_m } => fl_ai::factory::CoordinateAnchor::new(
                planet,
                self.anchor.lat_deg,
                self.anchor.lon_deg,
            )
            .point(east_m, object.alt_m, -north_m),
            Placement::LatLon { lat_deg, lon_deg } => geodetic::to_world(
                planet,
                Geodetic::from_degrees(lat_deg, lon_deg, object.alt_m),
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The line-numbered tree.

#[derive(Debug, Clone)]
enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

#[derive(Debug, Clone)]
struct Node {
    line: usize,
    value: Value,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = serde_saphyr::Spanned::<Value>::deserialize(d)?;
        Ok(Node {
            line: usize::try_from(s.referenced.line()).unwrap_or(0),
            value: s.value,
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(n) = seq.next_element::<Node>()? {
            out.push(n);
        }
        Ok(Value::Seq(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = map.next_key::<Node>()? {
            let v = map.next_value::<Node>()?;
            out.push((k, v));
        }
        Ok(Value::Map(out))
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a true/false",
        Value::Int(_) => "a whole number",
        Value::Float(_) => "a number",
        Value::Str(_) => "text",
        Value::Seq(_) => "a list",
        Value::Map(_) => "a mapping",
    }
}

/// Trims and bounds text for messages and ids (control characters replaced).
fn clean(s: &str, max: usize) -> String {
    let t = s.trim();
    let mut out: String = t
        .chars()
        .take(max)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if t.chars().count() > max {
        out.push('…');
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Reading.

/// The result of reading one mission file: the mission when its structure is sound, and every
/// finding (errors and warnings) in file order.
#[derive(Debug, Clone)]
pub struct MissionCheck {
    /// The file read.
    pub file: PathBuf,
    /// The mission, when it has no structural error (content checks may still add errors).
    pub mission: Option<Mission>,
    /// Errors and warnings.
    pub findings: Vec<Finding>,
}

impl MissionCheck {
    /// Errors among the findings.
    pub fn errors(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count()
    }

    /// Warnings among the findings.
    pub fn warnings(&self) -> usize {
        self.findings.len() - self.errors()
    }

    /// Whether the mission can run: it was read and nothing is an error.
    pub fn is_valid(&self) -> bool {
        self.mission.is_some() && self.errors() == 0
    }
}

struct Reader<'a> {
    file: &'a Path,
    findings: Vec<Finding>,
    errors: usize,
}

impl Reader<'_> {
    fn push(&mut self, severity: Severity, line: usize, key: &str, message: String) {
        if severity == Severity::Error {
            self.errors += 1;
        }
        if self.findings.len() < MAX_FINDINGS {
            self.findings.push(Finding {
                severity,
                file: self.file.to_owned(),
                line,
                key: key.to_owned(),
                message,
            });
        }
    }
    fn error(&mut self, line: usize, key: &str, message: String) {
        self.push(Severity::Error, line, key, message);
    }
    fn warn(&mut self, line: usize, key: &str, message: String) {
        self.push(Severity::Warning, line, key, message);
    }

    fn wrong(&mut self, node: &Node, key: &str, want: &str) {
        self.error(
            node.line,
            key,
            format!("expected {want}, found {}", kind(&node.value)),
        );
    }

    /// A mapping's entries by key, with unknown keys reported (`not_yet` ones as warnings).
    fn fields<'n>(
        &mut self,
        node: &'n Node,
        key: &str,
        known: &[&str],
        not_yet: &[&str],
    ) -> Option<BTreeMap<&'n str, (usize, &'n Node)>> {
        let Value::Map(entries) = &node.value else {
            self.wrong(node, key, "a mapping");
            return None;
        };
        let mut out = BTreeMap::new();
        for (k, v) in entries {
            let name = match &k.value {
                Value::Str(s) => s.as_str(),
                other => {
                    self.error(
                        k.line,
                        key,
                        format!("a key must be text, found {}", kind(other)),
                    );
                    continue;
                }
            };
            let path = if key.is_empty() {
                clean(name, 64)
            } else {
                format!("{key}.{}", clean(name, 64))
            };
            if known.contains(&name) {
                if out.insert(name, (k.line, v)).is_some() {
                    self.error(k.line, &path, "given more than once".into());
                }
            } else if not_yet.contains(&name) {
                self.warn(
                    k.line,
                    &path,
                    "not supported by this engine yet; ignored".into(),
                );
            } else {
                self.error(
                    k.line,
                    &path,
                    format!("unknown key; known keys here: {}", known.join(", ")),
                );
            }
        }
        Some(out)
    }

    fn text(&mut self, node: &Node, key: &str, max: usize) -> Option<String> {
        match &node.value {
            Value::Str(s) => {
                let t = clean(s, max);
                if t.is_empty() {
                    self.error(node.line, key, "must not be empty".into());
                    None
                } else {
                    Some(t)
                }
            }
            _ => {
                self.wrong(node, key, "text");
                None
            }
        }
    }

    fn number(&mut self, node: &Node, key: &str) -> Option<f64> {
        let v = match node.value {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
            _ => {
                self.wrong(node, key, "a number");
                return None;
            }
        };
        if v.is_finite() {
            Some(v)
        } else {
            self.error(node.line, key, format!("{v} is not a finite number"));
            None
        }
    }

    fn number_in(&mut self, node: &Node, key: &str, lo: f64, hi: f64, unit: &str) -> Option<f64> {
        let v = self.number(node, key)?;
        if (lo..=hi).contains(&v) {
            Some(v)
        } else {
            self.error(
                node.line,
                key,
                format!("{v} is out of range ({lo} to {hi}{unit})"),
            );
            None
        }
    }

    fn int_in(&mut self, node: &Node, key: &str, lo: i64, hi: i64) -> Option<i64> {
        match node.value {
            Value::Int(i) if (lo..=hi).contains(&i) => Some(i),
            Value::Int(i) => {
                self.error(
                    node.line,
                    key,
                    format!("{i} is out of range ({lo} to {hi})"),
                );
                None
            }
            _ => {
                self.wrong(node, key, "a whole number");
                None
            }
        }
    }

    fn boolean(&mut self, node: &Node, key: &str) -> Option<bool> {
        match node.value {
            Value::Bool(b) => Some(b),
            _ => {
                self.wrong(node, key, "true or false");
                None
            }
        }
    }
}

/// Longest distance a position may be from its anchor, m (past it a value is a unit mistake).
const MAX_OFFSET_M: f64 = 5_000_000.0;
/// Highest altitude accepted, m.
const MAX_ALT_M: f64 = 100_000.0;
/// Fastest spawn speed accepted, m/s.
const MAX_SPEED_MPS: f64 = 3_000.0;
/// Longest timer, s (a week).
const MAX_TIMER_S: f64 = 7.0 * 86_400.0;

const TOP_KEYS: [&str; 12] = [
    "name",
    "description",
    "map",
    "layer",
    "anchor",
    "time",
    "wind",
    "weather",
    "time_scale",
    "sides",
    "objects",
    "triggers",
];
const OBJECT_KEYS: [&str; 13] = [
    "type", "id", "side", "pos", "lat", "lon", "alt", "heading", "speed", "player", "start", "ai",
    "loadout",
];

/// Reads a mission from its text: structure, values and references inside the file (sides,
/// object ids, trigger syntax). `file` names the findings.
pub fn parse_mission(text: &str, file: &Path) -> MissionCheck {
    let mut r = Reader {
        file,
        findings: Vec::new(),
        errors: 0,
    };
    let mission = parse_into(text, &mut r);
    MissionCheck {
        file: file.to_owned(),
        mission: if r.errors == 0 { mission } else { None },
        findings: r.findings,
    }
}

/// Reads a mission from the file's bytes (at most [`MAX_MISSION_BYTES`], UTF-8).
pub fn parse_mission_bytes(bytes: &[u8], file: &Path) -> MissionCheck {
    let fail = |message: String| MissionCheck {
        file: file.to_owned(),
        mission: None,
        findings: vec![Finding {
            severity: Severity::Error,
            file: file.to_owned(),
            line: 0,
            key: String::new(),
            message,
        }],
    };
    if bytes.len() as u64 > MAX_MISSION_BYTES {
        return fail(format!(
            "the file is {} bytes; a mission may have at most {MAX_MISSION_BYTES}",
            bytes.len()
        ));
    }
    match std::str::from_utf8(bytes) {
        Ok(t) => parse_mission(t, file),
        Err(e) => fail(format!(
            "the file is not UTF-8 text (bad byte at offset {})",
            e.valid_up_to()
        )),
    }
}

/// Reads a mission file from disk, bounded (for tools; the game reads through its pack).
pub fn read_mission_file(path: &Path) -> MissionCheck {
    use std::io::Read;
    let fail = |message: String| MissionCheck {
        file: path.to_owned(),
        mission: None,
        findings: vec![Finding {
            severity: Severity::Error,
            file: path.to_owned(),
            line: 0,
            key: String::new(),
            message,
        }],
    };
    let f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return fail(format!("cannot read the file: {e}")),
    };
    if f.metadata().is_ok_and(|m| !m.is_file()) {
        return fail("not a regular file".into());
    }
    let mut bytes = Vec::new();
    if let Err(e) = f.take(MAX_MISSION_BYTES + 1).read_to_end(&mut bytes) {
        return fail(format!("cannot read the file: {e}"));
    }
    parse_mission_bytes(&bytes, path)
}

fn parse_into(text: &str, r: &mut Reader<'_>) -> Option<Mission> {
    if text.len() as u64 > MAX_MISSION_BYTES {
        r.error(
            0,
            "",
            format!(
                "the file is {} bytes; a mission may have at most {MAX_MISSION_BYTES}",
                text.len()
            ),
        );
        return None;
    }
    // YAML 1.2 booleans only: under YAML 1.1 rules the trigger key `on` (and a value `no`) would
    // read as a boolean.
    let mut options = yaml_options();
    options.strict_booleans = true;
    let root: Node = match serde_saphyr::from_str_with_options(text, options) {
        Ok(n) => n,
        Err(e) => {
            let inner = e.without_snippet();
            let message = inner.to_string();
            let message = message.lines().next().unwrap_or("not YAML").trim();
            let line = inner
                .location()
                .map(|l| usize::try_from(l.line()).unwrap_or(0))
                .unwrap_or(0);
            r.error(
                line,
                "",
                format!("not a valid mission YAML: {}", clean(message, 300)),
            );
            return None;
        }
    };
    if matches!(root.value, Value::Null) {
        r.error(
            0,
            "",
            "the file is empty; a mission needs at least `name`".into(),
        );
        return None;
    }
    let f = r.fields(&root, "", &TOP_KEYS, &NOT_YET_TOP)?;
    let get = |k: &str| f.get(k).map(|(_, n)| *n);

    let name = match get("name") {
        Some(n) => r.text(n, "name", 120),
        None => {
            r.error(0, "name", "missing; every mission needs a name".into());
            None
        }
    };
    let description = get("description").and_then(|n| r.text(n, "description", 4_000));
    let map = match get("map") {
        Some(n) => r.text(n, "map", MAX_ID_CHARS),
        None => Some("world".to_owned()),
    };
    let layer = get("layer").and_then(|n| r.text(n, "layer", MAX_ID_CHARS));
    let anchor = match get("anchor") {
        None => {
            r.error(
                0,
                "anchor",
                "missing; name one (anchor: home) or give anchor: { lat, lon }".into(),
            );
            None
        }
        Some(n) => anchor(r, n),
    };
    let time = match get("time") {
        None => Some(MissionTime {
            hour: 12,
            minute: 0,
        }),
        Some(n) => {
            let t = r.fields(n, "time", &["hour", "minute"], &[]);
            t.and_then(|t| {
                let hour = match t.get("hour") {
                    Some((_, h)) => r.int_in(h, "time.hour", 0, 23),
                    None => Some(0),
                };
                let minute = match t.get("minute") {
                    Some((_, m)) => r.int_in(m, "time.minute", 0, 59),
                    None => Some(0),
                };
                Some(MissionTime {
                    hour: u8::try_from(hour?).ok()?,
                    minute: u8::try_from(minute?).ok()?,
                })
            })
        }
    };
    let wind = match get("wind") {
        None => Some(Wind {
            from_heading_rad: 0.0,
            speed_mps: 0.0,
        }),
        Some(n) => r
            .fields(n, "wind", &["heading", "speed"], &[])
            .and_then(|w| {
                let h = match w.get("heading") {
                    Some((_, h)) => r.number_in(h, "wind.heading", 0.0, 360.0, "°"),
                    None => Some(0.0),
                };
                let s = match w.get("speed") {
                    Some((_, s)) => r.number_in(s, "wind.speed", 0.0, 150.0, " m/s"),
                    None => Some(0.0),
                };
                Some(Wind {
                    from_heading_rad: h?.to_radians(),
                    speed_mps: s?,
                })
            }),
    };
    let weather = match get("weather") {
        None => Some(WeatherPreset::Clear),
        Some(n) => r
            .fields(n, "weather", &["preset"], &[])
            .and_then(|w| match w.get("preset") {
                None => Some(WeatherPreset::Clear),
                Some((_, p)) => preset(r, p, "weather.preset"),
            }),
    };
    let time_scale = match get("time_scale") {
        None => Some(1.0),
        Some(n) => r.number_in(n, "time_scale", 0.01, 1000.0, ""),
    };
    let sides = match get("sides") {
        None => {
            r.error(
                0,
                "sides",
                "missing; list the mission's sides (sides: [blue, red])".into(),
            );
            None
        }
        Some(n) => sides(r, n),
    };
    let side_ids: BTreeSet<String> = sides.iter().flatten().map(|s| s.id.clone()).collect();
    let objects = match get("objects") {
        None => {
            r.error(
                0,
                "objects",
                "missing; a mission places at least one object".into(),
            );
            None
        }
        Some(n) => objects(r, n, &side_ids),
    };
    let ids: BTreeSet<&str> = objects.iter().flatten().map(|o| o.id.as_str()).collect();
    let triggers = match get("triggers") {
        None => Some(Vec::new()),
        Some(n) => triggers(r, n, objects.as_ref().map(|_| &ids)),
    };
    Some(Mission {
        name: name?,
        description,
        map: map?,
        layer,
        anchor: anchor?,
        time: time?,
        wind: wind?,
        weather: weather?,
        time_scale: time_scale?,
        sides: sides?,
        objects: objects?,
        triggers: triggers?,
    })
}

fn preset(r: &mut Reader<'_>, n: &Node, key: &str) -> Option<WeatherPreset> {
    let s = r.text(n, key, 64)?;
    let p = WeatherPreset::parse(&s);
    if p.is_none() {
        r.error(
            n.line,
            key,
            format!(
                "unknown preset {s:?}; use one of {}",
                WEATHER_PRESETS.join(", ")
            ),
        );
    }
    p
}

fn anchor(r: &mut Reader<'_>, n: &Node) -> Option<Anchor> {
    if let Value::Str(_) = n.value {
        let name = r.text(n, "anchor", 64)?;
        return match ANCHORS.iter().find(|(a, _, _)| *a == name) {
            Some((a, lat, lon)) => Some(Anchor {
                name: Some((*a).to_owned()),
                lat_deg: *lat,
                lon_deg: *lon,
            }),
            None => {
                let known: Vec<&str> = ANCHORS.iter().map(|a| a.0).collect();
                r.error(
                    n.line,
                    "anchor",
                    format!(
                        "unknown anchor {name:?}; known: {} (or give anchor: {{ lat, lon }})",
                        known.join(", ")
                    ),
                );
                None
            }
        };
    }
    let f = r.fields(n, "anchor", &["lat", "lon"], &[])?;
    let lat = match f.get("lat") {
        Some((_, v)) => r.number_in(v, "anchor.lat", -90.0, 90.0, "°"),
        None => {
            r.error(n.line, "anchor.lat", "missing".into());
            None
        }
    };
    let lon = match f.get("lon") {
        Some((_, v)) => r.number_in(v, "anchor.lon", -180.0, 180.0, "°"),
        None => {
            r.error(n.line, "anchor.lon", "missing".into());
            None
        }
    };
    Some(Anchor {
        name: None,
        lat_deg: lat?,
        lon_deg: lon?,
    })
}

fn sides(r: &mut Reader<'_>, n: &Node) -> Option<Vec<Side>> {
    let Value::Seq(items) = &n.value else {
        r.wrong(n, "sides", "a list");
        return None;
    };
    if items.is_empty() {
        r.error(n.line, "sides", "must name at least one side".into());
        return None;
    }
    let mut out: Vec<Side> = Vec::new();
    let mut ok = true;
    for (i, item) in items.iter().enumerate().take(64) {
        let key = format!("sides[{i}]");
        let side = match &item.value {
            Value::Str(_) => r.text(item, &key, 64).map(|id| Side {
                id,
                allies: Vec::new(),
            }),
            Value::Map(_) => r
                .fields(item, &key, &["id", "allies"], &["alert"])
                .and_then(|f| {
                    let id = match f.get("id") {
                        Some((_, v)) => r.text(v, &format!("{key}.id"), 64),
                        None => {
                            r.error(item.line, &format!("{key}.id"), "missing".into());
                            None
                        }
                    };
                    let allies = match f.get("allies") {
                        None => Some(Vec::new()),
                        Some((_, v)) => match &v.value {
                            Value::Seq(a) => a
                                .iter()
                                .enumerate()
                                .map(|(j, x)| r.text(x, &format!("{key}.allies[{j}]"), 64))
                                .collect(),
                            _ => {
                                r.wrong(v, &format!("{key}.allies"), "a list");
                                None
                            }
                        },
                    };
                    Some(Side {
                        id: id?,
                        allies: allies?,
                    })
                }),
            _ => {
                r.wrong(item, &key, "a side id or { id, allies }");
                None
            }
        };
        match side {
            Some(s) if out.iter().any(|o| o.id == s.id) => {
                r.error(item.line, &key, format!("side {:?} listed twice", s.id));
                ok = false;
            }
            Some(s) => out.push(s),
            None => ok = false,
        }
    }
    if items.len() > 64 {
        r.error(
            n.line,
            "sides",
            format!("{} sides; at most 64", items.len()),
        );
        ok = false;
    }
    for (i, s) in out.iter().enumerate() {
        for a in &s.allies {
            if !out.iter().any(|o| &o.id == a) {
                let line = items.get(i).map_or(n.line, |x| x.line);
                r.error(
                    line,
                    &format!("sides[{i}].allies"),
                    format!("{a:?} is not one of the mission's sides"),
                );
                ok = false;
            }
        }
    }
    ok.then_some(out)
}

fn objects(r: &mut Reader<'_>, n: &Node, sides: &BTreeSet<String>) -> Option<Vec<MissionObject>> {
    let Value::Seq(items) = &n.value else {
        r.wrong(n, "objects", "a list");
        return None;
    };
    if items.is_empty() {
        r.error(n.line, "objects", "must place at least one object".into());
        return None;
    }
    if items.len() > MAX_OBJECTS {
        r.error(
            n.line,
            "objects",
            format!("{} objects; at most {MAX_OBJECTS}", items.len()),
        );
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, item) in items.iter().enumerate() {
        match object(r, item, i, sides) {
            Some(o) => {
                if let Some(first) = seen.get(&o.id) {
                    r.error(
                        item.line,
                        &format!("objects[{i}].id"),
                        format!("duplicate object id {:?} (first at line {first})", o.id),
                    );
                    ok = false;
                } else {
                    seen.insert(o.id.clone(), item.line);
                    out.push(o);
                }
            }
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn object(
    r: &mut Reader<'_>,
    n: &Node,
    i: usize,
    sides: &BTreeSet<String>,
) -> Option<MissionObject> {
    let k = |s: &str| format!("objects[{i}].{s}");
    let f = r.fields(n, &format!("objects[{i}]"), &OBJECT_KEYS, &NOT_YET_OBJECT)?;
    let req = |r: &mut Reader<'_>, key: &str| {
        let v = f.get(key).map(|(_, v)| *v);
        if v.is_none() {
            r.error(n.line, &k(key), "missing".into());
        }
        v
    };
    let type_id = req(r, "type").and_then(|v| r.text(v, &k("type"), MAX_ID_CHARS));
    let id = req(r, "id").and_then(|v| r.text(v, &k("id"), MAX_ID_CHARS));
    let side = req(r, "side").and_then(|v| {
        let s = r.text(v, &k("side"), 64)?;
        if !sides.is_empty() && !sides.contains(&s) {
            r.error(
                v.line,
                &k("side"),
                format!("{s:?} is not one of the mission's sides"),
            );
            return None;
        }
        Some(s)
    });
    let get = |key: &str| f.get(key).map(|(_, v)| *v);
    // Placement: `pos` or `lat`/`lon`.
    let mut pos_alt = None;
    let placement = match (get("pos"), get("lat"), get("lon")) {
        (Some(p), None, None) => match &p.value {
            Value::Seq(xs) if xs.len() == 3 => {
                let e = r.number_in(&xs[0], &k("pos[0]"), -MAX_OFFSET_M, MAX_OFFSET_M, " m");
                let a = r.number_in(&xs[1], &k("pos[1]"), -1_000.0, MAX_ALT_M, " m");
                let no = r.number_in(&xs[2], &k("pos[2]"), -MAX_OFFSET_M, MAX_OFFSET_M, " m");
                pos_alt = a;
                match (e, a, no) {
                    (Some(east_m), Some(_), Some(north_m)) => {
                        Some(Placement::Anchor { east_m, north_m })
                    }
                    _ => None,
                }
            }
            _ => {
                r.error(
                    p.line,
                    &k("pos"),
                    "expected [east, alt, north] (three numbers, metres)".into(),
                );
                None
            }
        },
        (None, Some(la), Some(lo)) => {
            let lat = r.number_in(la, &k("lat"), -90.0, 90.0, "°");
            let lon = r.number_in(lo, &k("lon"), -180.0, 180.0, "°");
            Some(Placement::LatLon {
                lat_deg: lat?,
                lon_deg: lon?,
            })
        }
        (None, None, None) => {
            r.error(
                n.line,
                &k("pos"),
                "missing; give pos: [east, alt, north] or lat/lon".into(),
            );
            None
        }
        (Some(p), _, _) => {
            r.error(
                p.line,
                &k("pos"),
                "give either pos or lat/lon, not both".into(),
            );
            None
        }
        (None, _, _) => {
            r.error(n.line, &k("lat"), "lat and lon go together".into());
            None
        }
    };
    let alt = match get("alt") {
        Some(v) => r.number_in(v, &k("alt"), -1_000.0, MAX_ALT_M, " m"),
        None => Some(pos_alt.unwrap_or(0.0)),
    };
    let heading = match get("heading") {
        Some(v) => r.number_in(v, &k("heading"), -360.0, 360.0, "°"),
        None => Some(0.0),
    };
    let speed = match get("speed") {
        Some(v) => r
            .number_in(v, &k("speed"), 0.0, MAX_SPEED_MPS, " m/s")
            .map(Some),
        None => Some(None),
    };
    let player = match get("player") {
        Some(v) => r.boolean(v, &k("player")),
        None => Some(false),
    };
    let start = match get("start") {
        None => Some(StartKind::Air),
        Some(v) => match r.text(v, &k("start"), 64).as_deref() {
            Some("air") => Some(StartKind::Air),
            Some("ground") => Some(StartKind::Ground),
            Some(other) => {
                r.error(v.line, &k("start"), format!("{other:?}: use ground or air"));
                None
            }
            None => None,
        },
    };
    let ai = match get("ai") {
        None => Some(None),
        Some(v) => ai_spec(r, v, &k("ai")).map(Some),
    };
    if player == Some(true) && ai.as_ref().is_some_and(Option::is_some) {
        if let Some(v) = get("ai") {
            r.warn(
                v.line,
                &k("ai"),
                "ignored on a player slot (a pilot flies it)".into(),
            );
        }
    }
    let loadout = match get("loadout") {
        None => Some(None),
        Some(v) => loadout(r, v, &k("loadout")).map(Some),
    };
    Some(MissionObject {
        id: id?,
        type_id: type_id?,
        side: side?,
        placement: placement?,
        alt_m: alt?,
        heading_rad: heading?.to_radians(),
        speed_mps: speed?,
        player: player?,
        start: start?,
        ai: ai?,
        loadout: loadout?,
        line: n.line,
    })
}

fn ai_spec(r: &mut Reader<'_>, v: &Node, key: &str) -> Option<AiSpec> {
    let line = r.text(v, key, MAX_ID_CHARS)?;
    let mut words = line.split_whitespace();
    let first = words.next().unwrap_or("");
    if first == "lua" {
        let rest: Vec<&str> = words.collect();
        return match rest.as_slice() {
            [script] => Some(AiSpec::Lua {
                script: script.trim_end_matches(".lua").to_owned(),
            }),
            _ => {
                r.error(
                    v.line,
                    key,
                    format!("{line:?}: write lua <script> (one script name, no .lua)"),
                );
                None
            }
        };
    }
    if !fl_ai::factory::BEHAVIOURS.contains(&first) {
        r.error(
            v.line,
            key,
            format!(
                "unknown controller {first:?}; use lua <script> or one of the builtin behaviours: {}",
                fl_ai::factory::BEHAVIOURS.join(", ")
            ),
        );
        return None;
    }
    // Build it once with fl-ai's own factory (the server builds it the same way), so bad
    // arguments are refused here rather than when the mission starts.
    if let Err(e) =
        fl_ai::factory::build_from_line(&line, &fl_ai::factory::FactoryContext::default())
    {
        r.error(v.line, key, format!("{line:?}: {e}"));
        return None;
    }
    Some(AiSpec::Builtin {
        behaviour: first.to_owned(),
        line,
    })
}

fn loadout(r: &mut Reader<'_>, v: &Node, key: &str) -> Option<Vec<Option<String>>> {
    let Value::Seq(items) = &v.value else {
        r.wrong(v, key, "a list of weapon ids (\"~\" for an empty station)");
        return None;
    };
    if items.len() > 64 {
        r.error(v.line, key, format!("{} stations; at most 64", items.len()));
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, x) in items.iter().enumerate() {
        match &x.value {
            Value::Null => out.push(None),
            Value::Str(s) if matches!(s.trim(), "" | "~" | "-") => out.push(None),
            Value::Str(s) => out.push(Some(clean(s, MAX_ID_CHARS))),
            _ => {
                r.wrong(x, &format!("{key}[{i}]"), "a weapon id or \"~\"");
                ok = false;
            }
        }
    }
    ok.then_some(out)
}

fn triggers(r: &mut Reader<'_>, n: &Node, ids: Option<&BTreeSet<&str>>) -> Option<Vec<Trigger>> {
    let items = match &n.value {
        Value::Seq(items) => items,
        Value::Null => return Some(Vec::new()),
        _ => {
            r.wrong(n, "triggers", "a list");
            return None;
        }
    };
    if items.len() > MAX_TRIGGERS {
        r.error(
            n.line,
            "triggers",
            format!("{} triggers; at most {MAX_TRIGGERS}", items.len()),
        );
        return None;
    }
    let mut out = Vec::new();
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        let key = format!("triggers[{i}]");
        let Some(f) = r.fields(item, &key, &["on", "do"], &[]) else {
            ok = false;
            continue;
        };
        let on = match f.get("on") {
            Some((_, v)) => condition(r, v, &format!("{key}.on"), ids),
            None => {
                r.error(item.line, &format!("{key}.on"), "missing".into());
                None
            }
        };
        let action = match f.get("do") {
            Some((_, v)) => action(r, v, &format!("{key}.do")),
            None => {
                r.error(item.line, &format!("{key}.do"), "missing".into());
                None
            }
        };
        match (on, action) {
            (Some(on), Some(action)) => out.push(Trigger {
                on,
                action,
                line: item.line,
            }),
            _ => ok = false,
        }
    }
    ok.then_some(out)
}

/// `name(arg)` → `(name, Some(arg))`; `name` → `(name, None)`; anything else `None`.
fn call(s: &str) -> Option<(&str, Option<&str>)> {
    let s = s.trim();
    match s.split_once('(') {
        None => Some((s, None)),
        Some((name, rest)) => {
            let arg = rest.strip_suffix(')')?;
            if arg.contains(['(', ')']) {
                return None;
            }
            Some((name.trim(), Some(arg.trim())))
        }
    }
}

fn condition(
    r: &mut Reader<'_>,
    v: &Node,
    key: &str,
    ids: Option<&BTreeSet<&str>>,
) -> Option<Condition> {
    let text = r.text(v, key, MAX_ID_CHARS)?;
    let bad = |r: &mut Reader<'_>, why: &str| {
        r.error(
            v.line,
            key,
            format!(
                "{text:?}: {why}; conditions are destroy(<object id>), timer(<seconds>) and mission_start"
            ),
        );
        None
    };
    match call(&text) {
        Some(("destroy", Some(id))) if !id.is_empty() => {
            if let Some(ids) = ids {
                if !ids.contains(id) {
                    r.error(
                        v.line,
                        key,
                        format!("destroy({id}): no object has the id {id:?}"),
                    );
                    return None;
                }
            }
            Some(Condition::Destroy(id.to_owned()))
        }
        Some(("timer", Some(s))) => match s.parse::<f64>() {
            Ok(t) if t.is_finite() && (0.0..=MAX_TIMER_S).contains(&t) => Some(Condition::Timer(t)),
            _ => bad(r, "timer takes a number of seconds (0 to a week)"),
        },
        Some(("mission_start", None)) => Some(Condition::MissionStart),
        Some(("destroy" | "timer", _)) => bad(r, "missing argument"),
        _ => bad(r, "not a condition"),
    }
}

fn action(r: &mut Reader<'_>, v: &Node, key: &str) -> Option<Action> {
    let text = r.text(v, key, MAX_ID_CHARS)?;
    let mut words = text.split_whitespace();
    let first = words.next().unwrap_or("");
    let rest: Vec<&str> = words.collect();
    match (first, rest.as_slice()) {
        ("mission_success", []) => Some(Action::MissionSuccess),
        ("mission_failure", []) => Some(Action::MissionFailure),
        ("set_weather", [p]) => match WeatherPreset::parse(p) {
            Some(p) => Some(Action::SetWeather(p)),
            None => {
                r.error(
                    v.line,
                    key,
                    format!(
                        "set_weather {p}: unknown preset; use one of {}",
                        WEATHER_PRESETS.join(", ")
                    ),
                );
                None
            }
        },
        ("set_time", [h]) => match h.parse::<f64>() {
            Ok(h) if h.is_finite() && (0.0..=24.0).contains(&h) => {
                Some(Action::SetTime(h * 3600.0))
            }
            _ => {
                r.error(v.line, key, format!("set_time {h}: give hours, 0 to 24"));
                None
            }
        },
        _ => {
            r.error(
                v.line,
                key,
                format!(
                    "{text:?}: not an action; actions are mission_success, mission_failure, \
                     set_weather <preset> and set_time <hours>"
                ),
            );
            None
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Validation against the content.

impl Mission {
    /// Checks the mission against the loaded content: every object's type exists (ids match
    /// case-insensitively, as the registry does), with its sensors and its own `ai_script`;
    /// every `lua <script>` is `ai/<script>.lua` of the pack `pack` (the mission's own pack;
    /// `None` = any loaded pack); every loadout store is a known weapon its station allows, on
    /// a station the type has. Findings name `file`, the object's line and the key.
    pub fn validate(&self, content: &Content, pack: Option<&str>, file: &Path) -> Vec<Finding> {
        let mut r = Reader {
            file,
            findings: Vec::new(),
            errors: 0,
        };
        let script_exists = |name: &str| -> bool {
            content.packs.iter().any(|p| {
                pack.is_none_or(|id| p.manifest.id == id)
                    && matches!(p.root.find(AssetKind::AiScript, name), Ok(Some(_)))
            })
        };
        let pack_label = pack.unwrap_or("any loaded pack");
        for (i, o) in self.objects.iter().enumerate() {
            let k = |s: &str| format!("objects[{i}].{s}");
            if let Some(AiSpec::Lua { script }) = &o.ai {
                if crate::names::check_asset_name(script).is_err() || !script_exists(script) {
                    r.error(
                        o.line,
                        &k("ai"),
                        format!(
                            "script {script:?} does not exist (no ai/{script}.lua in {pack_label})"
                        ),
                    );
                }
            }
            let Some(t) = content.entity_type(&o.type_id) else {
                r.error(
                    o.line,
                    &k("type"),
                    format!("type {:?} does not exist in the loaded content", o.type_id),
                );
                continue;
            };
            for s in &t.def.sensors {
                if content.sensor(s).is_none() {
                    r.error(
                        o.line,
                        &k("type"),
                        format!(
                            "type {:?} names sensor {s:?}, which does not exist",
                            o.type_id
                        ),
                    );
                }
            }
            // The type's own script flies the object whenever no `ai:` and no pilot does (a
            // world object, a player slot nobody holds): a mission only runs complete types.
            if let Some(s) = &t.def.ai_script {
                let found = crate::names::check_asset_name(s).is_ok()
                    && content
                        .packs
                        .iter()
                        .any(|p| matches!(p.root.find(AssetKind::AiScript, s), Ok(Some(_))));
                if !found && o.ai.is_none() {
                    r.error(
                        o.line,
                        &k("type"),
                        format!(
                            "type {:?} names script {s:?}, which does not exist (no ai/{s}.lua in the loaded packs)",
                            o.type_id
                        ),
                    );
                }
            }
            if let Some(l) = &o.loadout {
                if l.len() > t.def.hardpoints.len() {
                    r.error(
                        o.line,
                        &k("loadout"),
                        format!(
                            "{} stations given; type {:?} has {}",
                            l.len(),
                            o.type_id,
                            t.def.hardpoints.len()
                        ),
                    );
                }
                for (j, (store, hp)) in l.iter().zip(&t.def.hardpoints).enumerate() {
                    let Some(w) = store else { continue };
                    if content.weapon(w).is_none() {
                        r.error(
                            o.line,
                            &format!("{}[{j}]", k("loadout")),
                            format!("weapon {w:?} does not exist in the loaded content"),
                        );
                    } else if !hp.allowed.iter().any(|a| a.eq_ignore_ascii_case(w)) {
                        r.error(
                            o.line,
                            &format!("{}[{j}]", k("loadout")),
                            format!(
                                "station {} of {:?} does not take {w:?} (allowed: {})",
                                hp.slot,
                                o.type_id,
                                hp.allowed.join(", ")
                            ),
                        );
                    }
                }
            }
        }
        r.findings
    }
}

/// A mission that read and validated: what the server runs.
#[derive(Debug, Clone)]
pub struct CheckedMission {
    /// `<pack id>:<file stem>`.
    pub id: String,
    /// The pack it came from.
    pub pack: String,
    /// Its file.
    pub path: PathBuf,
    /// The mission.
    pub mission: Mission,
    /// Warnings (keys ignored and the like); never errors.
    pub warnings: Vec<Finding>,
}

/// Why a mission was refused: every finding, errors first in file order.
#[derive(Debug, Clone, thiserror::Error)]
#[error("mission {id} refused: {}", summary(findings))]
pub struct MissionRefused {
    /// The id asked for.
    pub id: String,
    /// Errors and warnings.
    pub findings: Vec<Finding>,
}

fn summary(findings: &[Finding]) -> String {
    let errors: Vec<String> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(ToString::to_string)
        .collect();
    match errors.as_slice() {
        [] => "no mission".into(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
    }
}

impl Content {
    /// Reads and validates one mission file of the pack `pack` (its id): structure, then the
    /// content checks of [`Mission::validate`].
    pub fn check_mission_file(&self, pack: Option<&str>, path: &Path) -> MissionCheck {
        let mut check = read_mission_file(path);
        if let Some(m) = &check.mission {
            check.findings.extend(m.validate(self, pack, path));
        }
        check
    }

    /// Loads the mission `<pack id>:<file stem>` through its pack (bounded, path-safe), reads
    /// and validates it. The server's entry point.
    pub fn load_mission(&self, id: &str) -> Result<CheckedMission, MissionRefused> {
        let refuse = |message: String| MissionRefused {
            id: id.to_owned(),
            findings: vec![Finding {
                severity: Severity::Error,
                file: PathBuf::new(),
                line: 0,
                key: String::new(),
                message,
            }],
        };
        let Some((pack_id, stem)) = id.split_once(':') else {
            return Err(refuse(format!(
                "{id:?} is not a mission id (write <pack id>:<file stem>)"
            )));
        };
        let Some(p) = self.packs.iter().find(|p| p.manifest.id == pack_id) else {
            return Err(refuse(format!("no loaded pack has the id {pack_id:?}")));
        };
        let path = match p.root.find(AssetKind::Mission, stem) {
            Ok(Some(path)) => path,
            Ok(None) => {
                return Err(refuse(format!(
                    "pack {pack_id} has no missions/{stem}.yaml"
                )));
            }
            Err(e) => return Err(refuse(e.to_string())),
        };
        let limit = MAX_MISSION_BYTES.min(AssetKind::Mission.default_limit());
        let bytes = p
            .root
            .read(&path, AssetKind::Mission, limit)
            .map_err(|e| refuse(e.to_string()))?;
        let mut check = parse_mission_bytes(&bytes, &path);
        if let Some(m) = &check.mission {
            check
                .findings
                .extend(m.validate(self, Some(pack_id), &path));
        }
        let valid = check.is_valid();
        match check.mission {
            Some(mission) if valid => Ok(CheckedMission {
                id: id.to_owned(),
                pack: pack_id.to_owned(),
                path,
                mission,
                warnings: check.findings,
            }),
            _ => Err(MissionRefused {
                id: id.to_owned(),
                findings: check.findings,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUNNERY: &str = "# prose
name: \"Training 3\"
map: world
layer: world_clear
anchor: home
time: { hour: 11, minute: 30 }
wind: { heading: 270, speed: 4 }
weather:
  preset: clear
time_scale: 1.0
sides: [blue, red]
objects:
  - type: fl-base:f5e
    id: player1
    side: blue
    pos: [-1200, 0, 0]
    heading: 90
    player: true
    start: ground
  - type: fl-base:ural375
    id: ops
    side: blue
    pos: [-900, 0, -120]
    start: ground
    ai: \"lua train_gunnery\"
  - { type: fl-base:zsu23_4, id: flak1, side: red, pos: [1, 2, 3], ai: \"aaa 1800\", speed: 200 }
  - { type: fl-base:f16a, id: p2, side: red, lat: 36.5, lon: -115, alt: 3000,
      loadout: [fl-base:m61a1, \"~\", ~, \"-\"] }
triggers:
  - on: destroy(player1)
    do: mission_failure
  - on: timer(1800)
    do: mission_success
  - { on: mission_start, do: set_weather storm }
";

    fn parse(text: &str) -> MissionCheck {
        parse_mission(text, Path::new("m.yaml"))
    }

    #[test]
    fn a_pack_style_mission_reads_in_si() {
        let c = parse(GUNNERY);
        assert!(c.findings.is_empty(), "{:#?}", c.findings);
        let m = c.mission.expect("mission");
        assert_eq!(m.name, "Training 3");
        assert_eq!(m.anchor.name.as_deref(), Some("home"));
        assert_eq!((m.anchor.lat_deg, m.anchor.lon_deg), (36.24917, -114.99611));
        assert_eq!(m.start_seconds_of_day(), 11.0 * 3600.0 + 30.0 * 60.0);
        assert!((m.wind.from_heading_rad - 1.5 * std::f64::consts::PI).abs() < 1e-12);
        assert_eq!(m.wind.speed_mps, 4.0);
        assert_eq!(m.sides.len(), 2);
        let p = &m.objects[0];
        assert_eq!(
            p.placement,
            Placement::Anchor {
                east_m: -1200.0,
                north_m: 0.0
            }
        );
        assert!((p.heading_rad - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        assert!(p.player && p.start == StartKind::Ground && p.line == 13);
        assert_eq!(
            m.objects[1].ai,
            Some(AiSpec::Lua {
                script: "train_gunnery".into()
            })
        );
        assert_eq!(m.objects[1].line, 20);
        assert!(
            matches!(&m.objects[2].ai, Some(AiSpec::Builtin { behaviour, .. }) if behaviour == "aaa")
        );
        assert_eq!(m.objects[2].speed_mps, Some(200.0));
        assert_eq!(m.objects[2].alt_m, 2.0);
        assert_eq!(
            m.objects[3].placement,
            Placement::LatLon {
                lat_deg: 36.5,
                lon_deg: -115.0
            }
        );
        assert_eq!(m.objects[3].alt_m, 3000.0);
        assert_eq!(
            m.objects[3].loadout,
            Some(vec![Some("fl-base:m61a1".into()), None, None, None])
        );
        assert_eq!(m.triggers[0].on, Condition::Destroy("player1".into()));
        assert_eq!(m.triggers[0].action, Action::MissionFailure);
        assert_eq!(m.triggers[0].line, 30);
        assert_eq!(m.triggers[1].on, Condition::Timer(1800.0));
        assert_eq!(m.triggers[2].on, Condition::MissionStart);
        assert_eq!(
            m.triggers[2].action,
            Action::SetWeather(WeatherPreset::Storm)
        );
    }

    #[test]
    fn positions_are_east_and_north_of_the_anchor() {
        use fl_flight::geodetic::{Enu, from_world};
        let m = parse(GUNNERY).mission.expect("mission");
        let planet = fl_flight::gravity::Planet::earth();
        let origin = m.world_position(
            &MissionObject {
                placement: Placement::Anchor {
                    east_m: 0.0,
                    north_m: 0.0,
                },
                alt_m: 0.0,
                ..m.objects[0].clone()
            },
            &planet,
        );
        let frame = Enu::at(&planet, origin);
        let p = m.world_position(&m.objects[0], &planet); // 1200 m west
        let local = frame.from_world(p - origin);
        assert!(
            (local.x + 1200.0).abs() < 0.5 && local.y.abs() < 0.5,
            "{local:?}"
        );
        let g = from_world(&planet, origin);
        assert!((g.lat_rad.to_degrees() - 36.24917).abs() < 1e-9);
        assert!((g.lon_rad.to_degrees() + 114.99611).abs() < 1e-9);
    }
}

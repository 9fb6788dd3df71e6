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
use crate::mission_header::{MAX_MISSION_HEADER_BYTES, yaml_options};
pub use crate::mission_header::{MissionTime, StartKind};

mod objectives;
mod read;
mod validate;
mod yaml;

pub use objectives::{Goal, Objective, Stake};
pub use read::{parse_mission, parse_mission_bytes, read_mission_file};
pub use validate::{
    CheckedMission, MAX_MISSION_SCRIPT_BYTES, MAX_SCRIPT_BYTES, MAX_SCRIPTS_PER_PACK,
    MissionRefused, MissionScriptError,
};
pub use yaml::MissionCheck;

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

    #[test]
    fn known_but_unsupported_keys_warn_and_other_forms_read() {
        let c = parse(
            "name: x
anchor: { lat: 37.5, lon: -115.25 }
cameras: { shots: [] }
sides:
  - { id: blue, allies: [green], alert: war_state }
  - green
  - red
objects:
  - { type: a:b, id: p, side: blue, pos: [0, 0, 0], player: true, ai: aaa, route: [[0, 0, 0]] }
  - { type: a:b, id: q, side: red, lat: 37, lon: -115, crew: {} }
triggers:
",
        );
        let m = c
            .mission
            .as_ref()
            .unwrap_or_else(|| panic!("{:#?}", c.findings));
        assert_eq!(
            m.anchor,
            Anchor {
                name: None,
                lat_deg: 37.5,
                lon_deg: -115.25
            }
        );
        assert_eq!(
            m.sides[0],
            Side {
                id: "blue".into(),
                allies: vec!["green".into()]
            }
        );
        assert_eq!(m.objects[1].alt_m, 0.0);
        assert!(m.triggers.is_empty());
        let got: Vec<(usize, &str, Severity)> = c
            .findings
            .iter()
            .map(|f| (f.line, f.key.as_str(), f.severity))
            .collect();
        assert_eq!(
            got,
            [
                (3, "cameras", Severity::Warning),
                (5, "sides[0].alert", Severity::Warning),
                (9, "objects[0].route", Severity::Warning),
                (9, "objects[0].ai", Severity::Warning),
                (10, "objects[1].crew", Severity::Warning),
            ]
        );
        assert!(c.is_valid());
        // Placement conflicts and unknown allies are errors.
        let bad = parse(
            "name: x\nanchor: home\nsides: [{id: a, allies: [b]}]\nobjects:\n  - {type: t, id: x, side: a, pos: [0, 0, 0], lat: 1, lon: 2}\n  - {type: t, id: y, side: a, lat: 1}\n",
        );
        let keys: Vec<&str> = bad.findings.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(
            keys,
            ["sides[0].allies", "objects[0].pos", "objects[1].lat"]
        );
        assert!(!bad.is_valid() && bad.mission.is_none());
    }
}

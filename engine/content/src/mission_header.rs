//! Mission headers: what the game's mission list and brief show of each pack's
//! `missions/*.yaml` — the name, an optional `description`, the map, anchor, start time and
//! weather preset, the player's aircraft and start, and how many objects each side has.
//!
//! Owns: reading one mission file's header (bounded in size, nesting and node count; every
//! problem a typed [`MissionHeaderError`], never a panic) and listing every loaded pack's
//! missions in a deterministic order (stack order, then file name), a broken file listed with
//! its reason beside the others. Mission ids are `<pack id>:<file stem>`.
//! Must not: validate or run a mission (types, triggers, scripts and unknown keys are the
//! missions runner's, issue 14), refuse a key it does not read, or let one broken file hide
//! another.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use crate::assets::AssetKind;
use crate::content::Content;

/// Largest mission file whose header is read, bytes (the fixture pack's largest is ~5 KiB).
pub const MAX_MISSION_HEADER_BYTES: u64 = 1024 * 1024;
/// Deepest YAML nesting accepted (the pack's missions nest 4 levels).
pub const MAX_DEPTH: usize = 32;
/// Most YAML nodes (mappings, sequences, scalars) in one mission.
pub const MAX_NODES: usize = 200_000;
/// Longest name kept, characters (a longer one is shortened with an ellipsis).
pub const MAX_NAME_CHARS: usize = 120;
/// Longest description kept, characters (a longer one is shortened with an ellipsis).
pub const MAX_DESCRIPTION_CHARS: usize = 4_000;
/// Longest short value kept (map, anchor, preset, type id, side), characters.
pub const MAX_VALUE_CHARS: usize = 64;

/// How the player's aircraft starts (`start:` of its object; absent means in the air).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartKind {
    /// `start: ground`: parked on the surface (a runway start).
    Ground,
    /// `start: air` (or no `start:`): flying at its position.
    Air,
}

/// The mission's start time, `time: { hour, minute }` (local solar time at the anchor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MissionTime {
    /// 0–23.
    pub hour: u8,
    /// 0–59.
    pub minute: u8,
}

impl std::fmt::Display for MissionTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)
    }
}

/// The first `player: true` object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerSlot {
    /// Its `type` (e.g. `fl-base:f5e`; empty when the object names none).
    pub type_id: String,
    /// Its `side` (empty when the object names none).
    pub side: String,
    /// Its `start`.
    pub start: StartKind,
}

/// What the mission list and brief show of one mission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissionHeader {
    /// `name` (trimmed, never empty).
    pub name: String,
    /// `description`: the briefing text, when the mission has one (fl-base-pack's missions do
    /// not: their prose is in YAML comments, written for modders).
    pub description: Option<String>,
    /// `map` (e.g. `world`).
    pub map: Option<String>,
    /// `anchor` (e.g. `home`).
    pub anchor: Option<String>,
    /// `time`.
    pub time: Option<MissionTime>,
    /// `weather.preset` (e.g. `partly_cloudy`).
    pub weather: Option<String>,
    /// `sides`, in file order.
    pub sides: Vec<String>,
    /// The player's slot (the first object with `player: true`).
    pub player: Option<PlayerSlot>,
    /// How many objects are player slots.
    pub player_slots: usize,
    /// Objects by `side` (player slots included; objects without a side under `""`).
    pub objects_by_side: BTreeMap<String, usize>,
}

impl MissionHeader {
    /// Every object of the mission.
    pub fn object_count(&self) -> usize {
        self.objects_by_side.values().sum()
    }

    /// `(friendly, hostile)` objects as the player sees them: friendly are the others on the
    /// player's side (the player's slots left out), hostile every object on another side but
    /// `neutral` or none. `None` without a player slot that names its side.
    pub fn friendly_and_hostile(&self) -> Option<(usize, usize)> {
        let side = self.player.as_ref().map(|p| p.side.as_str())?;
        if side.is_empty() {
            return None;
        }
        let mut friendly = 0usize;
        let mut hostile = 0usize;
        for (s, n) in &self.objects_by_side {
            if s == side {
                friendly += n;
            } else if !s.is_empty() && !s.eq_ignore_ascii_case("neutral") {
                hostile += n;
            }
        }
        Some((friendly.saturating_sub(self.player_slots), hostile))
    }
}

/// Why a mission's header could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MissionHeaderError {
    /// The file could not be found or read (or is not a regular file inside its pack).
    #[error("cannot read the file: {0}")]
    Read(String),
    /// The file is larger than [`MAX_MISSION_HEADER_BYTES`].
    #[error("the file is {size} bytes; a mission may have at most {limit}")]
    TooLarge {
        /// Its size (at least).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The file is not UTF-8 text.
    #[error("the file is not UTF-8 text")]
    NotText,
    /// Not YAML, a key of the wrong type, or past a bound (nesting, nodes, aliases). The
    /// message names the line and column.
    #[error("{message}")]
    Yaml {
        /// 1-based line, when the parser knows it.
        line: Option<u64>,
        /// The parser's message (one line).
        message: String,
    },
    /// The document is not a mapping with a non-empty `name`.
    #[error("the mission has no `name`")]
    MissingName,
    /// A value the header shows is out of range or unknown.
    #[error("`{key}`: {problem}")]
    BadValue {
        /// Dotted key, e.g. `time.hour` or `objects[0].start`.
        key: String,
        /// What is wrong.
        problem: String,
    },
}

/// One mission file of a loaded pack: its header, or why it could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissionListing {
    /// `<pack id>:<file stem>` (e.g. `fl-base-pack:f5e_gunnery`).
    pub id: String,
    /// The pack's id.
    pub pack: String,
    /// The pack's display name.
    pub pack_name: String,
    /// The file stem (`f5e_gunnery`).
    pub stem: String,
    /// The file's path (inside its pack).
    pub path: PathBuf,
    /// The header, or why it could not be read.
    pub header: Result<MissionHeader, MissionHeaderError>,
}

#[derive(Deserialize)]
struct RawMission {
    name: Option<String>,
    description: Option<String>,
    map: Option<String>,
    anchor: Option<String>,
    time: Option<RawTime>,
    weather: Option<RawWeather>,
    sides: Option<Vec<String>>,
    objects: Option<Vec<RawObject>>,
}

#[derive(Deserialize)]
struct RawTime {
    hour: Option<u32>,
    minute: Option<u32>,
}

#[derive(Deserialize)]
struct RawWeather {
    preset: Option<String>,
}

#[derive(Deserialize)]
struct RawObject {
    #[serde(rename = "type")]
    type_id: Option<String>,
    side: Option<String>,
    player: Option<bool>,
    start: Option<String>,
}

/// Trims `s` and keeps at most `max` characters (an ellipsis marks a cut).
fn bounded(s: &str, max: usize) -> String {
    let t = s.trim();
    if t.chars().count() <= max {
        return t.to_owned();
    }
    let mut out: String = t.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn short(s: Option<String>) -> Option<String> {
    s.map(|v| bounded(&v, MAX_VALUE_CHARS))
        .filter(|v| !v.is_empty())
}

fn yaml_error(e: &serde_saphyr::Error) -> MissionHeaderError {
    let inner = e.without_snippet();
    let message = inner.to_string();
    // One line, bounded: the list shows it as it is.
    let message = message.lines().next().unwrap_or("not YAML").trim();
    MissionHeaderError::Yaml {
        line: inner.location().map(|l| l.line()).filter(|l| *l > 0),
        message: bounded(message, 300),
    }
}

/// The bounded YAML reading every mission parse shares ([`crate::mission`] too): one document,
/// nesting, node, alias and scalar-byte budgets from the limits above, so a hostile file ends in
/// a typed error before it can cost memory or stack.
pub(crate) fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_depth: MAX_DEPTH,
            flow_nesting_limit: MAX_DEPTH,
            max_nodes: MAX_NODES,
            max_events: 4 * MAX_NODES,
            max_documents: 1,
            max_aliases: 1_000,
            max_anchors: 1_000,
            max_total_scalar_bytes: MAX_MISSION_HEADER_BYTES as usize,
            max_recorded_anchor_bytes: MAX_MISSION_HEADER_BYTES as usize,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: MAX_NODES,
            max_replay_stack_depth: MAX_DEPTH,
        },
    }
}

/// Parses a mission's header from its text.
pub fn parse_header(text: &str) -> Result<MissionHeader, MissionHeaderError> {
    if text.len() as u64 > MAX_MISSION_HEADER_BYTES {
        return Err(MissionHeaderError::TooLarge {
            size: text.len() as u64,
            limit: MAX_MISSION_HEADER_BYTES,
        });
    }
    if text.trim().is_empty() {
        return Err(MissionHeaderError::MissingName);
    }
    let options = yaml_options();
    let raw: RawMission =
        serde_saphyr::from_str_with_options(text, options).map_err(|e| yaml_error(&e))?;
    let name = raw
        .name
        .map(|n| bounded(&n, MAX_NAME_CHARS))
        .filter(|n| !n.is_empty())
        .ok_or(MissionHeaderError::MissingName)?;
    let time = match raw.time {
        None => None,
        Some(t) => {
            let hour = t.hour.unwrap_or(0);
            let minute = t.minute.unwrap_or(0);
            if hour > 23 {
                return Err(MissionHeaderError::BadValue {
                    key: "time.hour".into(),
                    problem: format!("{hour} is not an hour of the day (0 to 23)"),
                });
            }
            if minute > 59 {
                return Err(MissionHeaderError::BadValue {
                    key: "time.minute".into(),
                    problem: format!("{minute} is not a minute (0 to 59)"),
                });
            }
            Some(MissionTime {
                hour: hour as u8,
                minute: minute as u8,
            })
        }
    };
    let mut player = None;
    let mut player_slots = 0usize;
    let mut objects_by_side: BTreeMap<String, usize> = BTreeMap::new();
    for (i, o) in raw.objects.unwrap_or_default().into_iter().enumerate() {
        let start = match o.start.as_deref().map(str::trim) {
            None | Some("air") => StartKind::Air,
            Some("ground") => StartKind::Ground,
            Some(other) => {
                return Err(MissionHeaderError::BadValue {
                    key: format!("objects[{i}].start"),
                    problem: format!("{:?}: use ground or air", bounded(other, MAX_VALUE_CHARS)),
                });
            }
        };
        let side = o
            .side
            .map(|s| bounded(&s, MAX_VALUE_CHARS))
            .unwrap_or_default();
        *objects_by_side.entry(side.clone()).or_default() += 1;
        if o.player == Some(true) {
            player_slots += 1;
            player.get_or_insert_with(|| PlayerSlot {
                type_id: o
                    .type_id
                    .map(|t| bounded(&t, MAX_VALUE_CHARS))
                    .unwrap_or_default(),
                side,
                start,
            });
        }
    }
    Ok(MissionHeader {
        name,
        description: raw
            .description
            .map(|d| bounded(&d, MAX_DESCRIPTION_CHARS))
            .filter(|d| !d.is_empty()),
        map: short(raw.map),
        anchor: short(raw.anchor),
        time,
        weather: short(raw.weather.and_then(|w| w.preset)),
        sides: raw
            .sides
            .unwrap_or_default()
            .iter()
            .map(|s| bounded(s, MAX_VALUE_CHARS))
            .collect(),
        player,
        player_slots,
        objects_by_side,
    })
}

/// Parses a mission's header from the file's bytes (at most [`MAX_MISSION_HEADER_BYTES`]).
pub fn parse_header_bytes(bytes: &[u8]) -> Result<MissionHeader, MissionHeaderError> {
    if bytes.len() as u64 > MAX_MISSION_HEADER_BYTES {
        return Err(MissionHeaderError::TooLarge {
            size: bytes.len() as u64,
            limit: MAX_MISSION_HEADER_BYTES,
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|_| MissionHeaderError::NotText)?;
    parse_header(text)
}

impl Content {
    /// Every mission of every loaded pack: packs in stack order (highest priority first), each
    /// pack's `missions/*.yaml` by file name. A file that cannot be read is listed with its
    /// reason; a pack whose `missions/` cannot be listed gives one such entry.
    pub fn missions(&self) -> Vec<MissionListing> {
        let mut out = Vec::new();
        for p in &self.packs {
            let pack = p.manifest.id.clone();
            let pack_name = p.manifest.name.clone();
            let dir = AssetKind::Mission.dir();
            let entry = |stem: &str, path: PathBuf, header| MissionListing {
                id: format!("{pack}:{stem}"),
                pack: pack.clone(),
                pack_name: pack_name.clone(),
                stem: stem.to_owned(),
                path,
                header,
            };
            let listing = match p.root.list(dir, "yaml") {
                Ok(l) => l,
                Err(e) => {
                    out.push(entry(
                        dir,
                        p.root.path().join(dir),
                        Err(MissionHeaderError::Read(e.to_string())),
                    ));
                    continue;
                }
            };
            let mut files: Vec<(String, String, bool)> = listing
                .files
                .into_iter()
                .map(|(stem, rel)| (stem, rel, true))
                .chain(listing.refused.into_iter().map(|rel| {
                    // Shown in the list: control characters replaced, length bounded.
                    let stem: String = rel
                        .rsplit('/')
                        .next()
                        .unwrap_or(&rel)
                        .trim_end_matches(".yaml")
                        .chars()
                        .map(|c| if c.is_control() { '?' } else { c })
                        .take(MAX_VALUE_CHARS)
                        .collect();
                    (stem, rel, false)
                }))
                .collect();
            files.sort();
            for (stem, rel, ok) in files {
                let path = p.root.path().join(&rel);
                let header = if ok {
                    read_in_pack(p, &rel)
                } else {
                    Err(MissionHeaderError::Read(
                        "the file name is not a valid asset name (use lower-case letters, digits, _ and -)"
                            .into(),
                    ))
                };
                out.push(entry(&stem, path, header));
            }
        }
        out
    }
}

fn read_in_pack(p: &crate::content::Pack, rel: &str) -> Result<MissionHeader, MissionHeaderError> {
    let path = match p.root.resolve(rel) {
        Ok(Some(path)) => path,
        Ok(None) => return Err(MissionHeaderError::Read("not found".into())),
        Err(e) => return Err(MissionHeaderError::Read(e.to_string())),
    };
    let limit = MAX_MISSION_HEADER_BYTES.min(AssetKind::Mission.default_limit());
    match p.root.read(&path, AssetKind::Mission, limit) {
        Ok(bytes) => parse_header_bytes(&bytes),
        Err(crate::error::AssetError::TooLarge { size, limit, .. }) => {
            Err(MissionHeaderError::TooLarge { size, limit })
        }
        Err(e) => Err(MissionHeaderError::Read(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUNNERY: &str = r#"
# comments are prose for modders
name: "Training 3 — Gunnery"
map: world
layer: world_clear
anchor: home
time: { hour: 11, minute: 0 }
wind: { heading: 250, speed: 4 }
weather:
  preset: clear
sides: [blue, red]
objects:
  - type: fl-base:f5e
    id: player1
    side: blue
    pos: [-1200, 0, 0]
    player: true
    start: ground
  - type: fl-base:ural375
    id: ops
    side: blue
    start: ground
    ai: "lua train_gunnery"
  - { type: fl-base:ural375, id: t1, side: red, start: ground }
  - { type: fl-base:ural375, id: t2, side: red, start: ground }
  - { type: fl-base:ural375, id: t3, side: red }
triggers:
  - on: destroy(player1)
    do: mission_failure
"#;

    #[test]
    fn a_pack_style_mission_reads() {
        let h = parse_header(GUNNERY).expect("reads");
        assert_eq!(h.name, "Training 3 — Gunnery");
        assert_eq!(h.description, None);
        assert_eq!(h.map.as_deref(), Some("world"));
        assert_eq!(h.anchor.as_deref(), Some("home"));
        assert_eq!(
            h.time,
            Some(MissionTime {
                hour: 11,
                minute: 0
            })
        );
        assert_eq!(h.time.map(|t| t.to_string()).as_deref(), Some("11:00"));
        assert_eq!(h.weather.as_deref(), Some("clear"));
        assert_eq!(h.sides, ["blue", "red"]);
        assert_eq!(
            h.player,
            Some(PlayerSlot {
                type_id: "fl-base:f5e".into(),
                side: "blue".into(),
                start: StartKind::Ground
            })
        );
        assert_eq!(h.player_slots, 1);
        assert_eq!(h.objects_by_side.get("blue"), Some(&2));
        assert_eq!(h.objects_by_side.get("red"), Some(&3));
        assert_eq!(h.object_count(), 5);
        assert_eq!(h.friendly_and_hostile(), Some((1, 3)));
    }

    #[test]
    fn description_and_air_start_and_missing_optionals() {
        let h = parse_header(
            "name: '  Solo  '\ndescription: |\n  Fly.\n  Land.\nobjects:\n  - {type: x:y, side: blue, player: true}\n  - {type: x:z, side: neutral}\n",
        )
        .expect("reads");
        assert_eq!(h.name, "Solo");
        assert_eq!(h.description.as_deref(), Some("Fly.\nLand."));
        assert_eq!(h.player.as_ref().map(|p| p.start), Some(StartKind::Air));
        assert_eq!(h.friendly_and_hostile(), Some((0, 0)));
        assert_eq!(
            (h.map, h.anchor, h.time, h.weather),
            (None, None, None, None)
        );
        let none = parse_header("name: x").expect("reads");
        assert_eq!(none.player, None);
        assert_eq!(none.friendly_and_hostile(), None);
        assert_eq!(none.object_count(), 0);
    }

    #[test]
    fn long_text_is_shortened_not_refused() {
        let long = "a".repeat(10_000);
        let h = parse_header(&format!("name: {long}\ndescription: {long}\nmap: {long}\n"))
            .expect("reads");
        assert_eq!(h.name.chars().count(), MAX_NAME_CHARS);
        assert!(h.name.ends_with('…'));
        assert_eq!(
            h.description.as_deref().map(|d| d.chars().count()),
            Some(MAX_DESCRIPTION_CHARS)
        );
        assert_eq!(h.map.map(|m| m.chars().count()), Some(MAX_VALUE_CHARS));
    }

    #[test]
    fn hostile_inputs_are_typed_errors() {
        // Not YAML.
        for bad in [
            "name: [unclosed\n  : : :",
            "name: x\n  - : [\n",
            "\tname: 'x",
        ] {
            let e = parse_header(bad).expect_err(bad);
            assert!(
                matches!(e, MissionHeaderError::Yaml { line: Some(_), .. }),
                "{e:?}"
            );
        }
        // Not a mapping.
        let e = parse_header("- a\n- b\n").expect_err("a list");
        assert!(matches!(e, MissionHeaderError::Yaml { .. }), "{e:?}");
        // Wrong types.
        for bad in [
            "name: [1, 2]",
            "name: x\nobjects: 5",
            "name: x\ntime: noon",
            "name: x\ntime: {hour: -3}",
            "name: x\nobjects:\n  - {player: maybe}",
            "name: x\nsides: {a: b}",
            "name: x\nweather: [clear]",
        ] {
            let e = parse_header(bad).expect_err(bad);
            assert!(matches!(e, MissionHeaderError::Yaml { .. }), "{bad}: {e:?}");
            assert!(!e.to_string().contains('\n'), "one line: {e}");
        }
        // Missing or empty name.
        for bad in [
            "",
            "   \n",
            "map: world",
            "name: ''",
            "name: '   '",
            "name: ~",
        ] {
            assert_eq!(
                parse_header(bad),
                Err(MissionHeaderError::MissingName),
                "{bad:?}"
            );
        }
        // Values out of range.
        assert!(matches!(
            parse_header("name: x\ntime: {hour: 24, minute: 0}"),
            Err(MissionHeaderError::BadValue { key, .. }) if key == "time.hour"
        ));
        assert!(matches!(
            parse_header("name: x\ntime: {hour: 1, minute: 60}"),
            Err(MissionHeaderError::BadValue { key, .. }) if key == "time.minute"
        ));
        assert!(matches!(
            parse_header("name: x\nobjects:\n  - {side: a}\n  - {start: runway}"),
            Err(MissionHeaderError::BadValue { key, .. }) if key == "objects[1].start"
        ));
        // Not UTF-8.
        assert_eq!(
            parse_header_bytes(b"name: \xff\xfe"),
            Err(MissionHeaderError::NotText)
        );
        // Two documents.
        assert!(parse_header("name: a\n---\nname: b\n").is_err());
    }

    #[test]
    fn size_nesting_and_alias_bombs_are_bounded() {
        let huge = format!("name: x\nmap: {}\n", "a".repeat(2 * 1024 * 1024));
        assert!(matches!(
            parse_header(&huge),
            Err(MissionHeaderError::TooLarge { .. })
        ));
        assert!(matches!(
            parse_header_bytes(huge.as_bytes()),
            Err(MissionHeaderError::TooLarge { .. })
        ));
        // Deep nesting, flow and block.
        let deep_flow = format!(
            "name: x\nobjects: {}{}",
            "[".repeat(5_000),
            "]".repeat(5_000)
        );
        assert!(matches!(
            parse_header(&deep_flow),
            Err(MissionHeaderError::Yaml { .. })
        ));
        let mut deep_block = String::from("name: x\nextra:\n");
        for i in 0..200 {
            deep_block.push_str(&" ".repeat(i + 1));
            deep_block.push_str("k:\n");
        }
        assert!(matches!(
            parse_header(&deep_block),
            Err(MissionHeaderError::Yaml { .. })
        ));
        // A billion laughs: aliases of aliases.
        let mut bomb = String::from("name: x\na0: &a0 [l, l, l, l, l, l, l, l, l, l]\n");
        for i in 1..12 {
            let prev = format!("*a{}", i - 1);
            bomb.push_str(&format!(
                "a{i}: &a{i} [{}]\n",
                [prev.as_str(); 10].join(", ")
            ));
        }
        assert!(
            matches!(parse_header(&bomb), Err(MissionHeaderError::Yaml { message, .. }) if message.contains("alias")),
            "alias bomb refused"
        );
    }

    #[test]
    fn errors_read_as_one_line() {
        assert_eq!(
            parse_header("name: x\ntime: noon").map_err(|e| e.to_string()),
            Err("expected mapping start at line 2, column 7".into())
        );
        assert_eq!(
            MissionHeaderError::MissingName.to_string(),
            "the mission has no `name`"
        );
    }

    fn load(packs: Vec<PathBuf>) -> Content {
        Content::load(&crate::load::LoadOptions {
            pack_dirs: packs,
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn own_pack() -> PathBuf {
        fl_fixtures::workspace_root().join("mods/fl-trainer")
    }

    #[test]
    fn our_packs_free_flight_is_listed() {
        let c = load(vec![own_pack()]);
        let m = c.missions();
        assert_eq!(m.len(), 2, "{m:#?}");
        assert_eq!(m[1].id, "fl-trainer:gun_drone");
        let f = &m[0];
        assert_eq!(f.id, "fl-trainer:free_flight_nevada");
        assert_eq!(f.pack, "fl-trainer");
        let h = f.header.as_ref().expect("reads");
        assert_eq!(h.name, "Free Flight — Nevada Airfield");
        assert_eq!(
            h.player.as_ref().map(|p| (p.type_id.as_str(), p.start)),
            Some(("fl-trainer:jet-trainer", StartKind::Ground))
        );
        assert_eq!(h.friendly_and_hostile(), Some((0, 0)));
        assert_eq!(h.time.map(|t| t.to_string()).as_deref(), Some("10:00"));
    }

    /// Every mission of the fixture pack reads, with the values its files hold.
    #[test]
    fn the_fixture_packs_missions_read() {
        let Some(pack) = fl_fixtures::fixture_pack() else {
            return;
        };
        let c = load(vec![pack.clone(), own_pack()]);
        let m = c.missions();
        let ids: Vec<&str> = m.iter().map(|m| m.id.as_str()).collect();
        // Stack order (fl-base-pack's priority is higher), then file name.
        assert_eq!(
            ids,
            [
                "fl-base-pack:f16a_intercept",
                "fl-base-pack:f16a_radar_missile",
                "fl-base-pack:f5e_defensive",
                "fl-base-pack:f5e_gunnery",
                "fl-base-pack:f5e_intercept",
                "fl-base-pack:f5e_ir_missile",
                "fl-base-pack:ia_dogfight",
                "fl-base-pack:ia_gun_run",
                "fl-base-pack:ia_sead",
                "fl-base-pack:s01_first_light",
                "fl-base-pack:s02_line_holds",
                "fl-base-pack:t38a_first_flight",
                "fl-base-pack:t38a_navigation",
                "fl-trainer:free_flight_nevada",
                "fl-trainer:gun_drone",
            ]
        );
        for l in &m {
            let h = l
                .header
                .as_ref()
                .unwrap_or_else(|e| panic!("{}: {e}", l.id));
            assert!(!h.name.is_empty());
            assert_eq!(h.map.as_deref(), Some("world"), "{}", l.id);
            assert_eq!(h.anchor.as_deref(), Some("home"), "{}", l.id);
            assert!(h.time.is_some() && h.weather.is_some(), "{}", l.id);
            assert!(h.player.is_some(), "{} has a player slot", l.id);
        }
        let by = |id: &str| {
            m.iter()
                .find(|l| l.id == id)
                .and_then(|l| l.header.as_ref().ok())
                .unwrap_or_else(|| panic!("{id}"))
        };
        let bfm = by("fl-base-pack:f5e_intercept");
        assert_eq!(bfm.name, "Tiger by the Tail");
        assert_eq!(
            bfm.time,
            Some(MissionTime {
                hour: 9,
                minute: 30
            })
        );
        assert_eq!(bfm.weather.as_deref(), Some("partly_cloudy"));
        assert_eq!(
            bfm.player,
            Some(PlayerSlot {
                type_id: "fl-base:f5e".into(),
                side: "blue".into(),
                start: StartKind::Ground
            })
        );
        assert_eq!(bfm.friendly_and_hostile(), Some((0, 1)));
        let gunnery = by("fl-base-pack:f5e_gunnery");
        assert_eq!(gunnery.name, "Training 3 — Gunnery");
        assert_eq!(gunnery.friendly_and_hostile(), Some((1, 3)));
        let first_light = by("fl-base-pack:s01_first_light");
        assert_eq!(
            first_light.time,
            Some(MissionTime {
                hour: 5,
                minute: 50
            })
        );
        assert_eq!(
            first_light.player.as_ref().map(|p| p.type_id.as_str()),
            Some("fl-base:f16a")
        );
        assert_eq!(first_light.friendly_and_hostile(), Some((0, 2)));
        // The pack writes no `description:` (its prose is comments for modders); ours do.
        assert!(
            m.iter()
                .filter(|l| l.pack == "fl-base-pack")
                .all(|l| l.header.as_ref().is_ok_and(|h| h.description.is_none()))
        );
    }

    /// A pack with broken mission files lists them, each with its reason, beside the good one.
    #[test]
    fn broken_missions_are_listed_with_their_reason() {
        let dir = tempfile::tempdir().expect("temp dir");
        let pack = dir.path().join("p");
        std::fs::create_dir_all(pack.join("missions")).expect("mkdir");
        std::fs::write(
            pack.join("manifest.toml"),
            "[mod]\nname = \"P\"\nid = \"p\"\nversion = \"1.0.0\"\nengine-api = \"1.0\"\npriority = 10\n",
        )
        .expect("write");
        let w = |name: &str, body: &[u8]| {
            std::fs::write(pack.join("missions").join(name), body).expect("write");
        };
        w(
            "a_good.yaml",
            b"name: Good\nobjects: [{type: p:x, side: blue, player: true}]\n",
        );
        w("b_not_yaml.yaml", b"name: [\n::");
        w("c_no_name.yaml", b"map: world\n");
        w(
            "d_huge.yaml",
            &vec![b'#'; (MAX_MISSION_HEADER_BYTES + 1) as usize],
        );
        w("e_binary.yaml", b"\xff\xfe\x00");
        w("Bad Name.yaml", b"name: x\n");
        w("notes.txt", b"not a mission");
        let c = load(vec![pack]);
        let m = c.missions();
        let got: Vec<(&str, Result<&str, String>)> = m
            .iter()
            .map(|l| {
                (
                    l.id.as_str(),
                    l.header
                        .as_ref()
                        .map(|h| h.name.as_str())
                        .map_err(|e| e.to_string()),
                )
            })
            .collect();
        assert_eq!(got.len(), 6, "{got:#?}");
        assert_eq!(got[0].0, "p:Bad Name");
        assert!(
            got[0]
                .1
                .as_ref()
                .is_err_and(|e| e.contains("not a valid asset name"))
        );
        assert_eq!(got[1], ("p:a_good", Ok("Good")));
        assert_eq!(got[2].0, "p:b_not_yaml");
        assert!(matches!(m[2].header, Err(MissionHeaderError::Yaml { .. })));
        assert_eq!(
            got[3],
            ("p:c_no_name", Err("the mission has no `name`".into()))
        );
        assert!(matches!(
            m[4].header,
            Err(MissionHeaderError::TooLarge { .. })
        ));
        assert_eq!(m[5].header, Err(MissionHeaderError::NotText));
    }
}

//! The mission list the menus show: every loaded pack's missions (`Content::missions`, read on
//! the content thread) turned into [`MissionChoice`]s — the name, the description when the
//! mission has one, and the facts its header gives (map and anchor, start time, weather, the
//! player's aircraft and start, friendly and hostile objects). A mission that cannot be read is
//! listed with the reason.
//!
//! Owns the wording of those facts. Must not: read files (the header reader in fl-content does)
//! or start a mission (flying missions comes with the missions issue).

use fl_content::mission::{Goal, Mission, Placement, Stake};
use fl_content::mission_header::{MissionListing, StartKind};
use fl_content::{Content, MissionHeader};

use crate::ui::{BriefMark, MarkKind, MissionChoice, weather_label};

/// Every mission of every loaded pack, in the list's order (stack order, then file name).
pub fn mission_choices(content: &Content) -> Vec<MissionChoice> {
    content
        .missions()
        .iter()
        .map(|m| choice(content, m))
        .collect()
}

/// One listing as the menus show it (`content` names the player's aircraft type).
pub fn choice(content: &Content, m: &MissionListing) -> MissionChoice {
    match &m.header {
        Ok(h) => {
            // The whole mission, checked as the server will check it: a refused one is listed
            // with the reason and cannot be flown.
            let (objectives, map, broken) = match content.load_mission(&m.id) {
                Ok(checked) => (
                    checked
                        .mission
                        .objectives()
                        .into_iter()
                        .map(|o| (o.stake == Stake::Win, o.text))
                        .collect(),
                    brief_map(&checked.mission),
                    None,
                ),
                Err(refused) => (Vec::new(), Vec::new(), Some(refused.to_string())),
            };
            MissionChoice {
                id: m.id.clone(),
                title: h.name.clone(),
                pack: m.pack_name.clone(),
                brief: h.description.clone().unwrap_or_default(),
                facts: facts(content, h),
                broken,
                objectives,
                map,
            }
        }
        Err(e) => MissionChoice {
            id: m.id.clone(),
            title: m.stem.clone(),
            pack: m.pack_name.clone(),
            brief: String::new(),
            facts: vec![("File".to_owned(), format!("missions/{}.yaml", m.stem))],
            broken: Some(e.to_string()),
            objectives: Vec::new(),
            map: Vec::new(),
        },
    }
}

/// Mean Earth radius for the brief's flat map, m (a few kilometres of error across a theatre
/// does not show on a sketch).
const MAP_EARTH_RADIUS_M: f64 = 6_371_000.0;

/// The objects the player may know before flying, for the brief's map: the player's slot, every
/// object of the player's side and its allies, and the objects the objectives name as targets.
/// Other hostiles stay off the map (finding them is the mission).
pub fn brief_map(m: &Mission) -> Vec<BriefMark> {
    let player_side = m.objects.iter().find(|o| o.player).map(|o| o.side.as_str());
    let friendly = |side: &str| {
        player_side.is_some_and(|p| {
            p == side
                || m.sides.iter().any(|s| {
                    (s.id == p && s.allies.iter().any(|a| a == side))
                        || (s.id == side && s.allies.iter().any(|a| a == p))
                })
        })
    };
    let targets: Vec<String> = m
        .objectives()
        .into_iter()
        .filter_map(|o| match (o.stake, o.goal) {
            (Stake::Win, Goal::Destroy { id, .. }) => Some(id),
            _ => None,
        })
        .collect();
    let cos_lat = m.anchor.lat_deg.to_radians().cos();
    m.objects
        .iter()
        .filter_map(|o| {
            let kind = if o.player {
                MarkKind::Player
            } else if targets.contains(&o.id) {
                MarkKind::Target
            } else if friendly(&o.side) {
                MarkKind::Friendly
            } else {
                return None;
            };
            let (east_m, north_m) = match o.placement {
                Placement::Anchor { east_m, north_m } => (east_m, north_m),
                Placement::LatLon { lat_deg, lon_deg } => (
                    (lon_deg - m.anchor.lon_deg).to_radians() * cos_lat * MAP_EARTH_RADIUS_M,
                    (lat_deg - m.anchor.lat_deg).to_radians() * MAP_EARTH_RADIUS_M,
                ),
            };
            (east_m.is_finite() && north_m.is_finite()).then(|| BriefMark {
                east_m,
                north_m,
                label: o.id.clone(),
                kind,
            })
        })
        .collect()
}

/// The brief's lines: (label, value).
fn facts(content: &Content, h: &MissionHeader) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut push = |k: &str, v: String| out.push((k.to_owned(), v));
    match (&h.map, &h.anchor) {
        (Some(map), Some(anchor)) => push("Map", format!("{map} (at {anchor})")),
        (Some(map), None) => push("Map", map.clone()),
        (None, Some(anchor)) => push("Map", format!("at {anchor}")),
        (None, None) => {}
    }
    if let Some(t) = h.time {
        push("Time", format!("{t} local"));
    }
    if let Some(w) = &h.weather {
        push("Weather", weather_label(w).to_owned());
    }
    match &h.player {
        Some(p) => {
            let aircraft = if p.type_id.is_empty() {
                "not named".to_owned()
            } else {
                match content.entity_type(&p.type_id) {
                    Some(t) => format!("{} ({})", t.def.name, p.type_id),
                    None => format!("{} (not loaded)", p.type_id),
                }
            };
            push("Your aircraft", aircraft);
            push(
                "Start",
                match p.start {
                    StartKind::Ground => "on the ground".to_owned(),
                    StartKind::Air => "in the air".to_owned(),
                },
            );
        }
        None => push("Your aircraft", "no player slot".to_owned()),
    }
    match h.friendly_and_hostile() {
        Some((friendly, hostile)) => {
            push("Friendly", friendly.to_string());
            push("Hostile", hostile.to_string());
        }
        None => push("Objects", h.object_count().to_string()),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own_content() -> Content {
        Content::load(&fl_content::LoadOptions {
            pack_dirs: vec![fl_fixtures::workspace_root().join("mods/fl-trainer")],
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn our_free_flight_reads_as_a_brief() {
        let c = own_content();
        let m = mission_choices(&c);
        assert_eq!(m.len(), 2);
        let f = &m[0];
        assert_eq!(f.id, "fl-trainer:free_flight_nevada");
        assert_eq!(f.title, "Free Flight — Nevada Airfield");
        assert_eq!(f.pack, "fl-trainer");
        assert_eq!(f.broken, None);
        let facts: Vec<(&str, &str)> = f
            .facts
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            facts,
            [
                ("Map", "world (at home)"),
                ("Time", "10:00 local"),
                ("Weather", "Clear"),
                ("Your aircraft", "FL-1 Jet Trainer (fl-trainer:jet-trainer)"),
                ("Start", "on the ground"),
                ("Friendly", "0"),
                ("Hostile", "0"),
            ]
        );
    }

    #[test]
    fn our_gun_drone_sortie_briefs_its_objectives_and_map() {
        let c = own_content();
        let m = mission_choices(&c);
        let d = m
            .iter()
            .find(|m| m.id == "fl-trainer:gun_drone")
            .expect("listed");
        assert_eq!(d.broken, None, "it validates");
        assert!(d.brief.starts_with("Range control has a target drone up"));
        assert_eq!(
            d.objectives,
            [
                (true, "Destroy drone".to_owned()),
                (true, "Follow the radio calls".to_owned()),
                (false, "Do not lose your aircraft".to_owned()),
                (false, "Time limit 10:00".to_owned()),
            ]
        );
        let marks: Vec<(&str, MarkKind, f64, f64)> = d
            .map
            .iter()
            .map(|b| (b.label.as_str(), b.kind, b.east_m, b.north_m))
            .collect();
        assert_eq!(
            marks,
            [
                ("player1", MarkKind::Player, -3000.0, 0.0),
                ("drone", MarkKind::Target, 1000.0, 0.0),
            ]
        );
    }

    #[test]
    fn the_map_keeps_unnamed_hostiles_off_and_shows_friends_and_allies() {
        let checked = fl_content::mission::parse_mission(
            "name: x\nanchor: home\nsides: [{id: blue, allies: [green]}, red, green]\nobjects:\n\
             \x20 - { type: a:b, id: me, side: blue, pos: [0, 0, 0], player: true }\n\
             \x20 - { type: a:b, id: wing, side: green, pos: [100, 0, 200] }\n\
             \x20 - { type: a:b, id: sam, side: red, pos: [9000, 0, 9000] }\n\
             \x20 - { type: a:b, id: far, side: blue, lat: 36.34917, lon: -114.99611 }\n",
            std::path::Path::new("m.yaml"),
        );
        let m = checked
            .mission
            .unwrap_or_else(|| panic!("{:?}", checked.findings));
        let marks = brief_map(&m);
        let labels: Vec<&str> = marks.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(
            labels,
            ["me", "wing", "far"],
            "the SAM is for the pilot to find"
        );
        let far = &marks[2];
        assert!(far.east_m.abs() < 1.0, "{far:?}");
        assert!(
            (far.north_m - 11_119.5).abs() < 1.0,
            "0.1 degree north: {far:?}"
        );
    }

    #[test]
    fn a_broken_listing_keeps_its_reason_and_an_unloaded_type_says_so() {
        let c = own_content();
        let broken = MissionListing {
            id: "p:x".into(),
            pack: "p".into(),
            pack_name: "P".into(),
            stem: "x".into(),
            path: "missions/x.yaml".into(),
            header: Err(fl_content::MissionHeaderError::MissingName),
        };
        let b = choice(&c, &broken);
        assert_eq!(b.title, "x");
        assert_eq!(b.broken.as_deref(), Some("the mission has no `name`"));
        let h = fl_content::mission_header::parse_header(
            "name: Y\nweather: {preset: storm}\nobjects:\n  - {type: fl-base:mig29a, side: red, player: true, start: air}\n  - {side: blue}\n",
        )
        .expect("reads");
        let ok = choice(
            &c,
            &MissionListing {
                header: Ok(h),
                ..broken
            },
        );
        let get = |k: &str| {
            ok.facts
                .iter()
                .find(|(l, _)| l == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("Your aircraft"), Some("fl-base:mig29a (not loaded)"));
        assert_eq!(get("Start"), Some("in the air"));
        assert_eq!(get("Weather"), Some("Storm"));
        assert_eq!((get("Friendly"), get("Hostile")), (Some("0"), Some("1")));
        assert_eq!(get("Map"), None);
    }
}

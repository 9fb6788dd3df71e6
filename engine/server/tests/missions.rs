//! The mission runner over the fixture pack, in virtual time: `fl-base-pack:f5e_gunnery` spawns
//! its objects where the mission places them and binds a joining pilot to its player slot;
//! destroying a `destroy(...)` target ends a mission in success and every peer hears the
//! outcome once; destroying the player's aircraft, or a `timer`, ends one in failure (the timer
//! on its exact tick); `set_weather` reaches the clients; and the same mission and seed twice
//! give the same status and the same world, tick by tick.

mod common;

use common::{Harness, TestClient};
use fl_content::Content;
use fl_content::Severity;
use fl_content::mission::{CheckedMission, parse_mission};
use fl_flight::geodetic::from_world;
use fl_protocol::Message;
use fl_protocol::enums::{MissionResultCode, PeerRole, WeatherPreset};
use fl_server::server::ServerConfig;
use fl_server::server::mission::{MissionState, MissionStatus};
use std::path::Path;

fn content() -> Option<Content> {
    common::fixture_content("the gunnery mission and its types")
}

fn harness(content: &Content) -> Harness {
    let types = fl_server::types::TypeRegistry::from_content(content, 1);
    Harness::with_types(7, ServerConfig::default(), types)
}

/// A mission written here, validated against the fixture pack's content like a pack's own.
fn inline(content: &Content, text: &str) -> CheckedMission {
    let path = Path::new("inline.yaml");
    let check = parse_mission(text, path);
    let mission = check
        .mission
        .unwrap_or_else(|| panic!("parses: {:#?}", check.findings));
    let errors: Vec<_> = mission
        .validate(content, Some("fl-base-pack"), path)
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let scripts = content
        .mission_scripts(&mission, "fl-base-pack")
        .expect("the fixture's scripts read");
    CheckedMission {
        id: "test:inline".into(),
        pack: "fl-base-pack".into(),
        path: path.into(),
        mission,
        warnings: Vec::new(),
        scripts,
    }
}

/// A client that joins as a pilot reporting the fixture pack, parked.
fn join(h: &mut Harness) -> TestClient {
    common::join_reporting(
        h,
        PeerRole::Pilot,
        "pilot",
        &["fl-base-pack"],
        common::parked_controls,
    )
}

fn outcomes(c: &TestClient) -> Vec<fl_protocol::msg::world::MissionOutcome> {
    c.messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::MissionOutcome(o) => Some(o.clone()),
            _ => None,
        })
        .collect()
}

fn roster(c: &TestClient) -> Vec<(String, u32, u16)> {
    c.messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::MissionRoster(r) => Some(r.records.clone()),
            _ => None,
        })
        .flatten()
        .map(|r| (r.object_id.as_str().to_owned(), r.entity_idx, r.entity_gen))
        .collect()
}

fn status(h: &Harness) -> MissionStatus {
    h.server.mission_status().expect("a mission runs")
}

/// Horizontal distance (m, along the surface at the anchor's latitude, roughly) between two
/// world points.
fn horizontal_gap_m(h: &Harness, a: fl_flight::math::Vec3, b: fl_flight::math::Vec3) -> f64 {
    let planet = h.server.world().planet();
    let (ga, gb) = (from_world(planet, a), from_world(planet, b));
    let north = (ga.lat_rad - gb.lat_rad) * planet.radius_m;
    let east = (ga.lon_rad - gb.lon_rad) * planet.radius_m * libm::cos(ga.lat_rad);
    libm::sqrt(north * north + east * east)
}

#[test]
fn the_gunnery_mission_spawns_its_objects_where_it_says_and_binds_the_player_slot() {
    let Some(content) = content() else { return };
    let checked = content
        .load_mission("fl-base-pack:f5e_gunnery")
        .unwrap_or_else(|e| panic!("{e}"));
    let mut h = harness(&content);
    h.server.start_mission(&checked, 1).expect("starts");
    let s = status(&h);
    assert_eq!(s.id, "fl-base-pack:f5e_gunnery");
    assert_eq!(s.state, MissionState::Running);
    // ops + three targets; the player slot waits for a pilot.
    assert_eq!((s.objects, s.player_slots, s.slots_bound), (4, 1, 0));
    assert_eq!(h.server.world().len(), 4);
    let m = &checked.mission;
    let planet = *h.server.world().planet();
    for id in ["ops", "target1", "target2", "target3"] {
        let e = h.server.mission_entity(id).expect("spawned");
        let ent = h.server.world().get(e).expect("in the world");
        let want = m.world_position(m.object(id).expect("object"), &planet);
        let gap = horizontal_gap_m(&h, ent.position(), want);
        assert!(
            gap < 0.5,
            "{id} is {gap:.2} m from where the mission puts it"
        );
        let side = &m.object(id).expect("object").side;
        assert_eq!(Some(ent.faction), h.server.mission_faction(side), "{id}");
    }
    assert_ne!(
        h.server.mission_faction("blue"),
        h.server.mission_faction("red")
    );

    let mut c = join(&mut h);
    let s = status(&h);
    assert_eq!((s.objects, s.slots_bound), (5, 1));
    let own = h.server.mission_entity("player1").expect("bound");
    assert_eq!(c.admitted().map(|a| a.assigned_entity_idx), Some(own.index));
    let ent = h.server.world().get(own).expect("the player's aircraft");
    assert_eq!(ent.faction, h.server.mission_faction("blue").expect("blue"));
    assert_eq!(
        h.server.types().get(ent.type_index).map(|t| t.id.as_str()),
        Some("fl-base:f5e")
    );
    let want = m.world_position(m.object("player1").expect("slot"), &planet);
    let gap = horizontal_gap_m(&h, ent.position(), want);
    assert!(gap < 1.0, "the player starts {gap:.2} m from its slot");
    assert!(ent.velocity().length() < 1.0, "a ground start is parked");
    // The roster names every object with its entity.
    let names: Vec<String> = roster(&c).into_iter().map(|r| r.0).collect();
    for id in ["ops", "target1", "target2", "target3", "player1"] {
        assert!(names.iter().any(|n| n == id), "{id} missing from {names:?}");
    }
    let r = roster(&c);
    let p1 = r.iter().find(|r| r.0 == "player1").expect("player1");
    assert_eq!((p1.1, p1.2), (own.index, own.generation as u16));
    h.run(60, &mut [&mut c]);
    let on_wheels = h
        .server
        .world()
        .get(own)
        .and_then(|e| e.aircraft_state())
        .is_some_and(|s| s.wheels_on_ground != 0 && s.velocity.length() < 1.0);
    assert!(on_wheels, "the parked aircraft stands on its wheels");
    assert_eq!(status(&h).state, MissionState::Running);
    assert_eq!(status(&h).elapsed_ticks, 73);
}

const STRIKE: &str = "name: strike
anchor: home
time: { hour: 14, minute: 0 }
sides: [blue, red]
objects:
  - { type: fl-base:ural375, id: target1, side: red, pos: [3000, 0, 2000], heading: 45, start: ground }
  - { type: fl-base:ural375, id: target2, side: red, pos: [3100, 0, 2000], start: ground }
triggers:
  - on: destroy(target1)
    do: mission_success
  - on: destroy(target2)
    do: mission_failure
  - on: timer(600)
    do: mission_failure
";

#[test]
fn destroying_the_target_ends_in_success_and_every_peer_hears_it_once() {
    let Some(content) = content() else { return };
    let mut h = harness(&content);
    let mut c = join(&mut h);
    let checked = inline(&content, STRIKE);
    h.server.start_mission(&checked, 3).expect("starts");
    h.run(30, &mut [&mut c]);
    assert_eq!(status(&h).state, MissionState::Running);
    assert_eq!(status(&h).triggers_fired, 0);
    let names: Vec<String> = roster(&c).into_iter().map(|r| r.0).collect();
    assert_eq!(names, ["target1", "target2"], "sent at the start");
    let target = h.server.mission_entity("target1").expect("spawned");
    assert!(h.server.destroy_entity(target));
    h.run(1, &mut [&mut c]);
    let s = status(&h);
    assert_eq!(s.state, MissionState::Success);
    assert_eq!((s.triggers_fired, s.elapsed_ticks), (1, 31));
    // Later triggers no longer fire, the clock stops.
    let other = h.server.mission_entity("target2").expect("spawned");
    assert!(h.server.destroy_entity(other));
    h.run(30, &mut [&mut c]);
    assert_eq!(status(&h), s);
    // Stopped, its objects leave; the same mission starts again from zero.
    let pilots = h.server.world().len() - 2;
    assert_eq!(h.server.stop_mission(), Some(s.clone()));
    assert!(h.server.mission_status().is_none());
    h.run(1, &mut [&mut c]);
    assert_eq!(h.server.world().len(), pilots);
    h.server.start_mission(&checked, 3).expect("starts again");
    assert_eq!(status(&h).objects, 2);
    assert_eq!(status(&h).elapsed_ticks, 0);
    assert!(
        h.server.start_mission(&checked, 3).is_err(),
        "one at a time"
    );
    let got = outcomes(&c);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].outcome, MissionResultCode::Success);
    assert_eq!(got[0].triggers_fired, 1);
    assert!((f64::from(got[0].elapsed_seconds) - 31.0 / 60.0).abs() < 1e-4);
    // The mission's 14:00 local solar time at home (115° W: 21:40 UTC) reaches the clock.
    let last = c
        .messages
        .iter()
        .rev()
        .find_map(|p| match &p.message {
            Message::WeatherState(w) => Some(w.clone()),
            _ => None,
        })
        .expect("weather");
    assert_eq!(last.time_of_day_tenths, 140);
    let utc_h = 14.0 + 114.99611 / 15.0;
    let want = 2_461_212.5 + utc_h / 24.0;
    assert!(
        (last.utc_julian_day - want).abs() < 5.0 / 86_400.0,
        "{} vs {want}",
        last.utc_julian_day
    );
}

#[test]
fn destroying_the_players_aircraft_ends_the_gunnery_mission_in_failure() {
    let Some(content) = content() else { return };
    let checked = content
        .load_mission("fl-base-pack:f5e_gunnery")
        .unwrap_or_else(|e| panic!("{e}"));
    let mut h = harness(&content);
    h.server.start_mission(&checked, 1).expect("starts");
    // An unoccupied slot is not destroyed.
    h.run(20, &mut []);
    assert_eq!(status(&h).state, MissionState::Running);
    let mut c = join(&mut h);
    h.run(20, &mut [&mut c]);
    assert_eq!(status(&h).state, MissionState::Running);
    let own = h.server.mission_entity("player1").expect("bound");
    assert!(h.server.destroy_entity(own));
    h.run(1, &mut [&mut c]);
    let s = status(&h);
    assert_eq!(s.state, MissionState::Failure);
    assert_eq!(s.triggers_fired, 1);
    h.run(5, &mut [&mut c]);
    let got = outcomes(&c);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].outcome, MissionResultCode::Failure);
    // After the respawn delay the pilot comes back at the slot, and the roster follows.
    let delay = ServerConfig::default().respawn_delay_ticks as usize;
    h.run(delay + 5, &mut [&mut c]);
    let again = h.server.mission_entity("player1").expect("bound again");
    assert_ne!(again, own);
    let m = &checked.mission;
    let planet = *h.server.world().planet();
    let want = m.world_position(m.object("player1").expect("slot"), &planet);
    let pos = h.server.world().get(again).expect("respawned").position();
    let gap = horizontal_gap_m(&h, pos, want);
    assert!(gap < 1.0, "respawned {gap:.2} m from the slot");
    let last = roster(&c).into_iter().rfind(|r| r.0 == "player1");
    assert_eq!(
        last.map(|r| (r.1, r.2)),
        Some((again.index, again.generation as u16))
    );
    assert_eq!(status(&h).state, MissionState::Failure);
    assert_eq!(outcomes(&c).len(), 1, "the outcome is sent once");
}

#[test]
fn a_timer_fires_on_its_tick_and_its_failure_wins() {
    let Some(content) = content() else { return };
    let mut h = harness(&content);
    let checked = inline(
        &content,
        "name: timed
anchor: home
sides: [blue, red]
objects:
  - { type: fl-base:ural375, id: t, side: red, pos: [0, 0, 500], start: ground }
triggers:
  - { on: mission_start, do: set_time 18.5 }
  - { on: timer(2), do: mission_failure }
  - { on: timer(2), do: mission_success }
",
    );
    h.server.start_mission(&checked, 1).expect("starts");
    h.run(1, &mut []);
    assert_eq!(
        status(&h).triggers_fired,
        1,
        "mission_start on the first tick"
    );
    h.run(118, &mut []);
    assert_eq!(status(&h).state, MissionState::Running, "tick 119 is early");
    h.run(1, &mut []);
    let s = status(&h);
    assert_eq!(s.state, MissionState::Failure, "tick 120 = 2 s");
    assert_eq!((s.elapsed_ticks, s.triggers_fired), (120, 2));
    assert!((s.elapsed_s - 2.0).abs() < 1e-9);
}

#[test]
fn set_weather_reaches_the_clients_from_a_window_not_yet_announced_and_new_sides_are_named() {
    let Some(content) = content() else { return };
    let mut h = harness(&content);
    let mut c = join(&mut h);
    let checked = inline(
        &content,
        "name: weather
anchor: home
weather: { preset: overcast }
sides: [blue, green]
objects:
  - { type: fl-base:ural375, id: t, side: green, pos: [0, 0, 500], start: ground }
triggers:
  - { on: timer(1), do: set_weather storm }
",
    );
    h.server.start_mission(&checked, 1).expect("starts");
    // `green` is no configured faction: it gets the next index, and the peer learns its name.
    assert_eq!(h.server.mission_faction("green"), Some(3));
    h.run(5, &mut [&mut c]);
    let labelled = c.messages.iter().any(|p| match &p.message {
        Message::FactionDef(d) => d
            .records
            .iter()
            .any(|r| r.faction_index == 3 && r.id.as_str() == "green"),
        _ => false,
    });
    assert!(labelled, "a MsgFactionDef names the new faction");
    let presets = |c: &TestClient| -> Vec<WeatherPreset> {
        c.messages
            .iter()
            .filter_map(|p| match &p.message {
                Message::WeatherState(w) => Some(w.preset),
                _ => None,
            })
            .collect()
    };
    h.run(415, &mut [&mut c]);
    assert_eq!(status(&h).triggers_fired, 1);
    // Windows announced before the start keep the server's own weather, then the mission's
    // preset, then the storm: no announced window is ever rewritten.
    let mut seen = presets(&c);
    seen.dedup();
    assert_eq!(
        seen,
        [
            WeatherPreset::Clear,
            WeatherPreset::Overcast,
            WeatherPreset::Storm
        ]
    );
}

const BUSY: &str = "name: busy
anchor: home
time: { hour: 9, minute: 15 }
wind: { heading: 300, speed: 6 }
sides: [blue, red]
objects:
  - { type: fl-base:f5e, id: b1, side: blue, pos: [-4000, 3000, 0], heading: 90, speed: 220, ai: \"heading 90 3000 220\" }
  - { type: fl-base:f5e, id: r1, side: red, pos: [6000, 2500, 800], heading: 270, ai: \"lua fighter\" }
  - { type: fl-base:zsu23_4, id: aaa1, side: red, pos: [0, 0, 300], ai: aaa }
  - { type: fl-base:ural375, id: truck, side: red, pos: [200, 0, 300], start: ground }
triggers:
  - { on: destroy(truck), do: mission_success }
  - { on: timer(8), do: mission_failure }
";

fn busy_run(content: &Content) -> (Vec<u64>, MissionStatus) {
    let mut h = harness(content);
    let checked = inline(content, BUSY);
    h.server.start_mission(&checked, 99).expect("starts");
    let mut hashes = Vec::new();
    for _ in 0..600 {
        h.run(1, &mut []);
        hashes.push(h.server.world().state_hash());
    }
    (hashes, status(&h))
}

#[test]
fn the_same_mission_and_seed_twice_give_the_same_world_and_status() {
    let Some(content) = content() else { return };
    let (a, sa) = busy_run(&content);
    let (b, sb) = busy_run(&content);
    assert_eq!(sa, sb);
    assert_eq!(sa.objects, 4);
    assert_eq!(sa.state, MissionState::Failure, "{sa:?}");
    assert_eq!(sa.elapsed_ticks, 480);
    let first = a.iter().zip(&b).position(|(x, y)| x != y);
    assert_eq!(first, None, "the worlds part at tick {first:?}");
}

//! Missions whose objects are flown or directed by Lua, over the fixture pack: a director that
//! calls `world.mission_success` ends the mission in success; a script that errors is disabled,
//! its message lands in `script_errors`, its entity falls back to a builtin controller and the
//! run goes on; the pack's `f5e_gunnery` runs its `train_gunnery` director; a type's default
//! script (`fl-base:mig21bis` → `fighter.lua`) flies an object without `ai:`; scripts' radio
//! lines and music reach the peers; a director's ground truth knows which aircraft a player
//! flies; and the same mission and seed twice, on several workers,
//! give the same status and world tick by tick.

mod common;

use common::{Harness, TestClient};
use fl_content::Content;
use fl_content::Severity;
use fl_content::mission::{CheckedMission, parse_mission};
use fl_protocol::Message;
use fl_protocol::enums::{GameState, PeerRole};
use fl_server::server::ServerConfig;
use fl_server::server::mission::{MissionState, MissionStatus};
use std::path::Path;

fn content() -> Option<Content> {
    common::fixture_content("the Lua missions and their scripts")
}

fn harness_with(content: &Content, workers: usize) -> Harness {
    let types = fl_server::types::TypeRegistry::from_content(content, 1);
    let mut cfg = ServerConfig::default();
    cfg.world.sim_workers = workers;
    Harness::with_types(7, cfg, types)
}

fn harness(content: &Content) -> Harness {
    harness_with(content, 1)
}

/// A mission written here over the fixture's content, with `extra` scripts added to the
/// fixture pack's `ai/` folder as the mission carries it (validation of script names is
/// skipped for those: they exist only here).
fn inline(content: &Content, text: &str, extra: &[(&str, &str)]) -> CheckedMission {
    let path = Path::new("inline.yaml");
    let check = parse_mission(text, path);
    let mission = check
        .mission
        .unwrap_or_else(|| panic!("parses: {:#?}", check.findings));
    let errors: Vec<_> = mission
        .validate(content, Some("fl-base-pack"), path)
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .filter(|f| {
            !extra
                .iter()
                .any(|(n, _)| f.message.contains(&format!("{n:?}")))
        })
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let mut scripts = content
        .mission_scripts(&mission, "fl-base-pack")
        .expect("the fixture's scripts read");
    let folder = scripts.entry("fl-base-pack".into()).or_default();
    for (name, src) in extra {
        folder.insert((*name).into(), (*src).into());
    }
    CheckedMission {
        id: "test:lua".into(),
        pack: "fl-base-pack".into(),
        path: path.into(),
        mission,
        warnings: Vec::new(),
        scripts,
    }
}

fn status(h: &Harness) -> MissionStatus {
    h.server.mission_status().expect("a mission runs")
}

fn join(h: &mut Harness) -> TestClient {
    join_as(h, PeerRole::Observer)
}

fn join_as(h: &mut Harness, role: PeerRole) -> TestClient {
    common::join_reporting(h, role, "watcher", &["fl-base-pack"], |_| {})
}

const DIRECTOR: &str = "
local said = false
function compute_control(state, tick, dt)
  if not said then
    said = true
    say('range is hot')
    world.set_music_state('combat')
    world.score_objective(state.faction, 5)
  end
  if world.get_elapsed_time() >= 3.0 then world.mission_success() end
  return {}
end
";

#[test]
fn a_lua_director_ends_the_mission_in_success_after_its_time_and_talks_to_the_peers() {
    let Some(content) = content() else { return };
    let mut h = harness(&content);
    let mut c = join(&mut h);
    let checked = inline(
        &content,
        "name: directed
anchor: home
sides: [blue, red]
objects:
  - { type: fl-base:ural375, id: ops, side: blue, pos: [0, 0, 0], start: ground, ai: \"lua test_director\" }
triggers:
  - { on: timer(60), do: mission_failure }
",
        &[("test_director", DIRECTOR)],
    );
    h.server.start_mission(&checked, 3).expect("starts");
    assert_eq!(status(&h).scripts, 1);
    h.run(170, &mut [&mut c]);
    let s = status(&h);
    assert_eq!(s.state, MissionState::Running, "{s:?}");
    assert_eq!((s.objectives_scored, s.objective_points), (1, 5));
    h.run(20, &mut [&mut c]);
    let s = status(&h);
    assert_eq!(s.state, MissionState::Success, "{s:?}");
    // The script saw 3.0 s on its 181st call (mission tick 180); the runner counted that tick.
    assert_eq!(s.elapsed_ticks, 181);
    assert!(s.script_errors.is_empty(), "{:?}", s.script_errors);
    let radio: Vec<(String, String)> = c
        .messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::RadioTransmission(r) => {
                Some((r.speaker.as_str().to_owned(), r.text.as_str().to_owned()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(radio, [("ops".to_owned(), "range is hot".to_owned())]);
    let music: Vec<GameState> = c
        .messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::MusicState(m) => Some(m.state),
            _ => None,
        })
        .collect();
    assert_eq!(music, [GameState::FlightCombat]);
}

#[test]
fn a_script_that_errors_is_disabled_named_and_its_aircraft_flies_on() {
    let Some(content) = content() else { return };
    let mut h = harness_with(&content, 2);
    let broken = "
function compute_control(state, tick, dt)
  if tick >= 30 then
    local t = nil
    return t.boom
  end
  return { throttle = 0.9 }
end
";
    let checked = inline(
        &content,
        "name: broken
anchor: home
sides: [blue, red]
objects:
  - { type: fl-base:f5e, id: jet, side: red, pos: [0, 3000, 0], heading: 90, speed: 200, ai: \"lua test_broken\" }
  - { type: fl-base:ural375, id: truck, side: red, pos: [200, 0, 300], start: ground, ai: \"lua test_missing_fn\" }
  - { type: fl-base:ural375, id: truck2, side: red, pos: [400, 0, 300], start: ground, ai: \"lua test_broken\" }
triggers:
  - { on: timer(20), do: mission_failure }
",
        &[("test_broken", broken), ("test_missing_fn", "x = 1")],
    );
    h.server.start_mission(&checked, 3).expect("starts");
    assert_eq!(status(&h).scripts, 3);
    h.run(120, &mut []);
    let s = status(&h);
    assert_eq!(s.state, MissionState::Running);
    assert_eq!(s.scripts, 0, "{s:?}");
    assert_eq!(s.script_errors.len(), 3, "{:?}", s.script_errors);
    // In the order they broke: the truck's on the first tick; then, on tick 30, the jet's
    // (object 0) before truck2's (object 2), whichever worker thread got there first.
    assert!(
        s.script_errors[0].contains("test_missing_fn")
            && s.script_errors[0].contains("compute_control"),
        "{}",
        s.script_errors[0]
    );
    for e in &s.script_errors[1..] {
        assert!(
            e.contains("ai/test_broken.lua:5") && e.contains("attempt to index a nil value"),
            "names the script and the line: {e}"
        );
    }
    assert!(
        s.script_errors[0].starts_with("object truck (line "),
        "{}",
        s.script_errors[0]
    );
    assert!(
        s.script_errors[1].starts_with("object jet (line "),
        "{}",
        s.script_errors[1]
    );
    assert!(
        s.script_errors[2].starts_with("object truck2 (line "),
        "{}",
        s.script_errors[2]
    );
    // The jet is still flying (the loiter fallback holds it up).
    let jet = h.server.mission_entity("jet").expect("jet");
    let e = h.server.world().get(jet).expect("alive");
    assert!(e.crashed_at.is_none());
    assert!(e.velocity().length() > 100.0);
}

#[test]
fn the_gunnery_mission_runs_its_train_gunnery_director() {
    let Some(content) = content() else { return };
    let checked = content
        .load_mission("fl-base-pack:f5e_gunnery")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        checked.scripts["fl-base-pack"].contains_key("instructor"),
        "the whole ai/ folder is carried, for require"
    );
    let mut h = harness(&content);
    h.server.start_mission(&checked, 5).expect("starts");
    h.run(300, &mut []);
    let s = status(&h);
    assert_eq!(s.state, MissionState::Running, "{s:?}");
    assert_eq!(s.scripts, 1, "{s:?}");
    assert!(s.script_errors.is_empty(), "{:?}", s.script_errors);
}

#[test]
fn a_type_default_script_flies_an_object_without_ai() {
    let Some(content) = content() else { return };
    let checked = content
        .load_mission("fl-base-pack:f5e_intercept")
        .unwrap_or_else(|e| panic!("{e}"));
    let mut h = harness(&content);
    h.server.start_mission(&checked, 5).expect("starts");
    let s = status(&h);
    assert!(s.scripts >= 1, "the MiG's fighter.lua attaches: {s:?}");
    let bandit = h
        .server
        .mission_entity("bandit1")
        .expect("the bandit spawned");
    let e = h.server.world().get(bandit).expect("alive");
    let fl_server::world::Pilot::Ai(ctrl) = &e.pilot else {
        panic!("the bandit is AI-flown")
    };
    assert_eq!(ctrl.behaviour(), "lua");
    assert_eq!(ctrl.status().as_deref(), Some("fighter"));
    h.run(240, &mut []);
    let s = status(&h);
    assert!(s.script_errors.is_empty(), "{:?}", s.script_errors);
    let e = h.server.world().get(bandit).expect("alive");
    assert!(e.crashed_at.is_none());
}

const TWO_SIDES: &str = "name: lua-determinism
anchor: home
sides: [blue, red]
objects:
  - { type: fl-base:f5e, id: b1, side: blue, pos: [-4000, 3000, 0], heading: 90, speed: 220, ai: \"lua fighter\" }
  - { type: fl-base:f5e, id: b2, side: blue, pos: [-4000, 3200, 600], heading: 90, speed: 220, ai: \"lua fighter\" }
  - { type: fl-base:mig21bis, id: r1, side: red, pos: [6000, 2500, 800], heading: 270, speed: 230 }
  - { type: fl-base:mig21bis, id: r2, side: red, pos: [6000, 2700, -400], heading: 270, speed: 230 }
  - { type: fl-base:ural375, id: ops, side: blue, pos: [0, 0, 0], start: ground, ai: \"lua test_rng\" }
triggers:
  - { on: timer(12), do: mission_failure }
";

const RNG: &str = "
function compute_control(state, tick, dt)
  if tick % 60 == 0 then
    local n = #nearby_entities(state.pos.x, state.pos.z, 50000)
    print(string.format('%d %d %.17g', tick, n, math.random()))
    if math.random() < 0.3 then world.score_objective(state.faction, math.random(1, 9)) end
  end
  return {}
end
";

fn lua_run(content: &Content, workers: usize) -> (Vec<u64>, MissionStatus) {
    let mut h = harness_with(content, workers);
    let checked = inline(content, TWO_SIDES, &[("test_rng", RNG)]);
    h.server.start_mission(&checked, 1234).expect("starts");
    let mut hashes = Vec::new();
    for _ in 0..600 {
        h.run(1, &mut []);
        hashes.push(h.server.world().state_hash());
    }
    (hashes, status(&h))
}

#[test]
fn the_same_lua_mission_and_seed_give_the_same_world_and_status_on_any_worker_count() {
    let Some(content) = content() else { return };
    let (a, sa) = lua_run(&content, 1);
    let (b, sb) = lua_run(&content, 1);
    let (c, sc) = lua_run(&content, 2);
    assert_eq!(sa.scripts, 5, "{sa:?}");
    assert!(
        sa.objectives_scored > 0,
        "the director drew and scored: {sa:?}"
    );
    assert!(sa.script_errors.is_empty(), "{:?}", sa.script_errors);
    assert_eq!(sa, sb);
    assert_eq!(sa, sc);
    for (other, label) in [(&b, "a second run"), (&c, "two workers")] {
        let first = a.iter().zip(other).position(|(x, y)| x != y);
        assert_eq!(first, None, "{label}: the worlds part at tick {first:?}");
    }
}

#[test]
fn a_director_finds_the_player_flown_aircraft_by_ground_truth() {
    let Some(content) = content() else { return };
    let mut h = harness(&content);
    let finder = "
local found = false
function compute_control(state, tick, dt)
  if found then return {} end
  for _, near in ipairs(nearby_entities(state.pos.x, state.pos.z, 200000)) do
    local e = get_entity(near.idx)
    if e and e.player_owned and not e.dead and e.faction == state.faction then
      found = true
      say('student ' .. near.idx)
    end
  end
  return {}
end
";
    let checked = inline(
        &content,
        "name: student
anchor: home
sides: [blue, red]
objects:
  - { type: fl-base:f5e, id: player1, side: blue, pos: [-1200, 0, 0], heading: 90, player: true, start: ground }
  - { type: fl-base:ural375, id: ops, side: blue, pos: [-900, 0, -120], start: ground, ai: \"lua test_finder\" }
  - { type: fl-base:ural375, id: truck, side: blue, pos: [-800, 0, -120], start: ground }
",
        &[("test_finder", finder)],
    );
    h.server.start_mission(&checked, 3).expect("starts");
    let mut c = join_as(&mut h, PeerRole::Pilot);
    h.run(30, &mut [&mut c]);
    let student = h
        .server
        .mission_entity("player1")
        .expect("the slot is bound");
    let radio: Vec<String> = c
        .messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::RadioTransmission(r) => Some(r.text.as_str().to_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(radio, [format!("student {}", student.index)]);
}

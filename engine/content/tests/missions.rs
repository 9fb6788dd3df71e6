//! Missions read and validated against loaded content: every fixture-pack mission whose types and
//! scripts the fixture carries loads, the others are refused naming exactly what is missing (the
//! fixture lacks `fl-base:mig29a` and `ai/trainer.lua` on purpose), and broken missions written
//! here are refused with the file, line, key and message a modder needs. Without the fixture pack
//! the fixture test records an `FL-SKIP` (`fl-fixtures`) and returns; under
//! `FL_REQUIRE_FIXTURES=1` it fails instead.

use fl_content::mission::{Action, AiSpec, Condition, parse_mission};
use fl_content::{Content, LoadOptions, Severity};
use std::path::{Path, PathBuf};

fn load(packs: Vec<PathBuf>) -> Content {
    Content::load(&LoadOptions {
        pack_dirs: packs,
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The error messages of a refused mission, as `line: key: message`.
fn errors_of(c: &Content, id: &str) -> Vec<String> {
    match c.load_mission(id) {
        Ok(m) => panic!("{id} loaded: {:#?}", m.warnings),
        Err(e) => e
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| format!("{}: {}: {}", f.line, f.key, f.message))
            .collect(),
    }
}

#[test]
fn the_fixture_packs_missions_load_or_name_what_is_missing() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = load(vec![pack]);
    let valid = [
        "f16a_intercept",
        "f5e_gunnery",
        "f5e_intercept",
        "f5e_ir_missile",
        "ia_dogfight",
        "ia_gun_run",
        "ia_sead",
        "s01_first_light",
    ];
    let listed: Vec<String> = c.missions().into_iter().map(|l| l.stem).collect();
    assert_eq!(listed.len(), 13, "{listed:?}");
    for stem in &listed {
        let id = format!("fl-base-pack:{stem}");
        let r = c.load_mission(&id);
        if valid.contains(&stem.as_str()) {
            let m = r.unwrap_or_else(|e| panic!("{e}\n{:#?}", e.findings));
            assert!(m.warnings.is_empty(), "{id}: {:#?}", m.warnings);
            assert_eq!(m.id, id);
            assert_eq!(m.pack, "fl-base-pack");
            assert_eq!(m.mission.player_slots().count(), 1, "{id}");
            assert!(!m.mission.triggers.is_empty(), "{id}");
        } else {
            assert!(r.is_err(), "{id} should be refused");
        }
    }
    let mig = "type \"fl-base:mig29a\" does not exist in the loaded content";
    assert_eq!(
        errors_of(&c, "fl-base-pack:f16a_radar_missile"),
        [format!("43: objects[2].type: {mig}")]
    );
    assert_eq!(
        errors_of(&c, "fl-base-pack:f5e_defensive"),
        [format!("52: objects[2].type: {mig}")]
    );
    assert_eq!(
        errors_of(&c, "fl-base-pack:s02_line_holds"),
        [format!("34: objects[1].type: {mig}")]
    );
    let trainer = "type \"fl-base:t38a\" names script \"trainer\", which does not exist \
                   (no ai/trainer.lua in the loaded packs)";
    assert_eq!(
        errors_of(&c, "fl-base-pack:t38a_first_flight"),
        [format!("32: objects[0].type: {trainer}")]
    );
    assert_eq!(
        errors_of(&c, "fl-base-pack:t38a_navigation"),
        [format!("25: objects[0].type: {trainer}")]
    );

    // The values the runner gets, in SI.
    let sead = c
        .load_mission("fl-base-pack:ia_sead")
        .expect("valid")
        .mission;
    assert_eq!(sead.name, "Instant Action — SEAD");
    assert_eq!(sead.anchor.name.as_deref(), Some("home"));
    assert_eq!(sead.start_seconds_of_day(), 15.5 * 3600.0);
    assert_eq!(sead.wind.speed_mps, 6.0);
    let battery = sead.object("battery").expect("battery");
    assert!(
        matches!(&battery.ai, Some(AiSpec::Builtin { behaviour, line }) if behaviour == "sam" && line == "sam 15000")
    );
    let player = sead.object("player1").expect("player");
    assert_eq!(player.speed_mps, Some(220.0));
    assert_eq!(player.loadout.as_ref().map(Vec::len), Some(9));
    assert_eq!(
        sead.triggers
            .iter()
            .map(|t| (t.on.clone(), t.action.clone()))
            .collect::<Vec<_>>(),
        [
            (Condition::Destroy("battery".into()), Action::MissionSuccess),
            (Condition::Destroy("player1".into()), Action::MissionFailure),
            (Condition::Timer(540.0), Action::MissionFailure),
        ]
    );
    let gunnery = c
        .load_mission("fl-base-pack:f5e_gunnery")
        .expect("valid")
        .mission;
    assert_eq!(
        gunnery.object("ops").and_then(|o| o.ai.clone()),
        Some(AiSpec::Lua {
            script: "train_gunnery".into()
        })
    );
}

/// A pack `t` (namespace `t`, type `t:jet`) with an `ai/pilot.lua` and the given missions.
fn pack_with(missions: &[(&str, &str)]) -> (tempfile::TempDir, Content) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("t");
    fl_content::example::write_example_pack(&root, "t", "t", "jet").expect("pack");
    std::fs::create_dir_all(root.join("ai")).expect("mkdir");
    std::fs::write(
        root.join("ai/pilot.lua"),
        "function compute_control() end\n",
    )
    .expect("w");
    std::fs::create_dir_all(root.join("missions")).expect("mkdir");
    for (stem, text) in missions {
        std::fs::write(root.join(format!("missions/{stem}.yaml")), text).expect("w");
    }
    let c = load(vec![root]);
    (dir, c)
}

const GOOD: &str = "name: Good
anchor: home
sides: [blue, red]
objects:
  - type: t:jet
    id: player1
    side: blue
    pos: [0, 1000, 0]
    player: true
  - type: builtin:jet-trainer
    id: bandit
    side: red
    pos: [0, 1000, 5000]
    heading: 180
    ai: lua pilot
    loadout: [builtin:gun-20mm]
triggers:
  - on: destroy(bandit)
    do: mission_success
";

#[test]
fn a_good_mission_of_a_pack_loads() {
    let (_d, c) = pack_with(&[("good", GOOD)]);
    let m = c.load_mission("t:good").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.mission.objects.len(), 2);
    assert!(m.warnings.is_empty());
    assert!(c.load_mission("t:nope").is_err());
    assert!(c.load_mission("nope:good").is_err());
    assert!(c.load_mission("good").is_err());
}

/// Each broken mission is refused with exactly these errors (`line: key: message`).
#[test]
fn broken_missions_are_refused_with_line_key_and_message() {
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "unknown_type",
            GOOD.replace("type: t:jet", "type: t:f99"),
            vec!["5: objects[0].type: type \"t:f99\" does not exist in the loaded content"],
        ),
        (
            "bad_trigger",
            GOOD.replace("destroy(bandit)", "destroy(bandit"),
            vec![
                "18: triggers[0].on: \"destroy(bandit\": not a condition; conditions are \
                 destroy(<object id>), timer(<seconds>) and mission_start",
            ],
        ),
        (
            "trigger_unknown_id",
            GOOD.replace("destroy(bandit)", "destroy(bandti)"),
            vec!["18: triggers[0].on: destroy(bandti): no object has the id \"bandti\""],
        ),
        (
            "bad_action",
            GOOD.replace("mission_success", "mission_sucess"),
            vec![
                "19: triggers[0].do: \"mission_sucess\": not an action; actions are \
                 mission_success, mission_failure, set_weather <preset> and set_time <hours>",
            ],
        ),
        (
            "missing_script",
            GOOD.replace("lua pilot", "lua ace"),
            vec!["10: objects[1].ai: script \"ace\" does not exist (no ai/ace.lua in t)"],
        ),
        (
            "unknown_controller",
            GOOD.replace("lua pilot", "kamikaze 3"),
            vec![
                "15: objects[1].ai: unknown controller \"kamikaze\"; use lua <script> or one of \
                 the builtin behaviours: loiter, heading, waypoint, pursuit, lead, lag, attack, \
                 evade, break, patrol_attack, defend, sam, aaa",
            ],
        ),
        (
            "bad_controller_args",
            GOOD.replace("lua pilot", "sam far"),
            vec!["15: objects[1].ai: \"sam far\": sam: `range` = `far`: expected a finite number"],
        ),
        (
            "wrong_types",
            GOOD.replace("heading: 180", "heading: south")
                .replace("player: true", "player: yes")
                .replace("[0, 1000, 5000]", "[0, 1000]"),
            vec![
                "9: objects[0].player: expected true or false, found text",
                "13: objects[1].pos: expected [east, alt, north] (three numbers, metres)",
                "14: objects[1].heading: expected a number, found text",
            ],
        ),
        (
            "unknown_key",
            GOOD.replace("    heading: 180", "    heding: 180")
                .replace("anchor: home", "anchor: home\ncameras: {}"),
            vec![
                "15: objects[1].heding: unknown key; known keys here: type, id, side, pos, lat, \
                 lon, alt, heading, speed, player, start, ai, loadout",
            ],
        ),
        (
            "duplicate_id",
            GOOD.replace("id: bandit", "id: player1")
                .replace("destroy(bandit)", "destroy(player1)"),
            vec!["10: objects[1].id: duplicate object id \"player1\" (first at line 5)"],
        ),
        (
            "unknown_side_and_weapon",
            GOOD.replace("side: red", "side: green")
                .replace("builtin:gun-20mm", "t:laser"),
            vec!["12: objects[1].side: \"green\" is not one of the mission's sides"],
        ),
        (
            "unknown_weapon",
            GOOD.replace("builtin:gun-20mm", "t:laser"),
            vec![
                "10: objects[1].loadout[0]: weapon \"t:laser\" does not exist in the loaded content",
            ],
        ),
        (
            "out_of_range",
            GOOD.replace(
                "anchor: home",
                "anchor: home\ntime: { hour: 25 }\nwind: { speed: -3 }",
            ),
            vec![
                "3: time.hour: 25 is out of range (0 to 23)",
                "4: wind.speed: -3 is out of range (0 to 150 m/s)",
            ],
        ),
        (
            "unknown_anchor",
            GOOD.replace("anchor: home", "anchor: moon"),
            vec!["2: anchor: unknown anchor \"moon\"; known: home (or give anchor: { lat, lon })"],
        ),
        (
            "not_yaml",
            GOOD.replace("objects:", "objects: [\n"),
            vec!["not a valid mission YAML"],
        ),
    ];
    let missions: Vec<(&str, &str)> = cases.iter().map(|(s, t, _)| (*s, t.as_str())).collect();
    let (_d, c) = pack_with(&missions);
    for (stem, _, want) in &cases {
        let got = errors_of(&c, &format!("t:{stem}"));
        if *stem == "not_yaml" {
            assert_eq!(got.len(), 1, "{got:?}");
            assert!(
                got[0].contains(want[0]) && !got[0].starts_with("0:"),
                "{got:?}"
            );
            continue;
        }
        assert_eq!(got, *want, "{stem}");
    }
    // The ignored-but-known key is a warning with its line, beside the error.
    let w = c.load_mission("t:unknown_key").expect_err("refused");
    assert!(
        w.findings.iter().any(|f| f.severity == Severity::Warning
            && f.line == 3
            && f.key == "cameras"
            && f.message.contains("not supported")),
        "{:#?}",
        w.findings
    );
    // The refusal reads as one line naming the file and the first error.
    let text = c
        .load_mission("t:unknown_type")
        .expect_err("refused")
        .to_string();
    assert!(
        text.starts_with("mission t:unknown_type refused: ")
            && text.contains("unknown_type.yaml:5: error: `objects[0].type`"),
        "{text}"
    );
}

#[test]
fn hostile_files_are_typed_errors_never_panics() {
    let file = Path::new("h.yaml");
    let err = |text: &str| {
        let c = parse_mission(text, file);
        assert!(
            c.mission.is_none() && c.errors() > 0,
            "{text:.80}: {:#?}",
            c.findings
        );
        c.findings
    };
    // Size.
    let huge = format!("name: x\nmap: {}\n", "a".repeat(2 * 1024 * 1024));
    assert!(err(&huge)[0].message.contains("at most"));
    assert!(
        fl_content::mission::parse_mission_bytes(b"name: \xff", file).findings[0]
            .message
            .contains("UTF-8")
    );
    // Nesting, flow and block.
    err(&format!(
        "name: x\nobjects: {}{}",
        "[".repeat(5_000),
        "]".repeat(5_000)
    ));
    let mut deep = String::from("name: x\nobjects:\n");
    for i in 0..200 {
        deep.push_str(&" ".repeat(i + 1));
        deep.push_str("- k:\n");
    }
    err(&deep);
    // Alias bomb.
    let mut bomb = String::from("name: x\na0: &a0 [l, l, l, l, l, l, l, l, l, l]\n");
    for i in 1..12 {
        let prev = format!("*a{}", i - 1);
        bomb.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            [prev.as_str(); 10].join(", ")
        ));
    }
    err(&bomb);
    // Too many objects, non-finite numbers, odd keys, not a mapping, empty.
    let many = format!(
        "name: x\nanchor: home\nsides: [a]\nobjects:\n{}",
        "  - {type: t:jet, id: x, side: a, pos: [0, 0, 0]}\n".repeat(5_000)
    );
    assert!(
        err(&many)
            .iter()
            .any(|f| f.message.contains("at most 4096"))
    );
    let nan = err(
        "name: x\nanchor: home\nsides: [a]\nobjects:\n  - {type: t, id: x, side: a, pos: [.nan, 0, 0]}\n",
    );
    assert!(
        nan.iter()
            .any(|f| f.line == 5 && f.message.contains("non-finite")),
        "{nan:#?}"
    );
    let inf = err(
        "name: x\nanchor: home\nsides: [a]\nobjects:\n  - {type: t, id: x, side: a, pos: [1e999, 0, 0]}\n",
    );
    assert!(inf.iter().any(|f| f.line == 5), "{inf:#?}");
    err("name: x\n? [a, b]\n: c\n");
    err("- a\n- b\n");
    err("");
    err("name: a\n---\nname: b\n");
    // Findings are bounded.
    let typos = format!(
        "name: x\n{}",
        (0..1_000).map(|i| format!("k{i}: 1\n")).collect::<String>()
    );
    assert!(err(&typos).len() <= fl_content::mission::MAX_FINDINGS);
}

#[test]
fn a_mission_carries_its_packs_ai_folder_and_refuses_hostile_scripts() {
    let no_lua = GOOD.replace("    ai: lua pilot\n", "    ai: loiter\n");
    let (d, c) = pack_with(&[("good", GOOD), ("plain", &no_lua)]);
    let m = c.load_mission("t:good").unwrap_or_else(|e| panic!("{e}"));
    let folder = &m.scripts["t"];
    assert_eq!(
        folder.keys().collect::<Vec<_>>(),
        ["pilot"],
        "the whole ai/ folder of the mission's pack"
    );
    assert!(folder["pilot"].contains("compute_control"));
    let plain = c.load_mission("t:plain").unwrap_or_else(|e| panic!("{e}"));
    assert!(plain.scripts.is_empty(), "no Lua, no scripts carried");

    // A helper script that is not text, or too large, refuses the mission by name.
    let ai = d.path().join("t/ai");
    std::fs::write(ai.join("helper.lua"), b"\x1bLua\xff\xfe").expect("w");
    let e = c.load_mission("t:good").expect_err("bytecode refused");
    assert!(e.to_string().contains("helper"), "{e}");
    std::fs::write(ai.join("helper.lua"), "-- x\n".repeat(60_000)).expect("w");
    let e = c.load_mission("t:good").expect_err("oversize refused");
    assert!(e.to_string().contains("helper"), "{e}");
    std::fs::remove_file(ai.join("helper.lua")).expect("rm");
    assert!(c.load_mission("t:good").is_ok());
}

#[test]
fn a_types_default_script_is_carried_from_the_pack_that_holds_it() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = load(vec![pack]);
    // The bandit (fl-base:mig21bis, no `ai:`) flies the type's ai/fighter.lua.
    let m = c
        .load_mission("fl-base-pack:f5e_intercept")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(m.scripts["fl-base-pack"].contains_key("fighter"));
    assert!(m.scripts["fl-base-pack"].contains_key("instructor"));
}

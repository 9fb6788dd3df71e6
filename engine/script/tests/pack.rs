//! The fixture pack's own scripts run in the sandbox: every `ai/*.lua` with a
//! `compute_control` loads and runs a few hundred ticks against a mock world without being
//! disabled, and a script with the same seed gives the same controls bit for bit.

mod common;

use common::{MockHost, drift, own_aircraft};
use fl_script::{CallOutcome, Limits, ScriptControls, ScriptInstance, ScriptSources};

fn pack_sources() -> Option<ScriptSources> {
    let pack = fl_fixtures::reference(fl_fixtures::FIXTURE_PACK)?;
    match ScriptSources::from_dir(&pack.join("ai")) {
        Ok(s) => Some(s),
        Err(e) => panic!("the fixture pack's ai/ folder should read: {e}"),
    }
}

/// Runs `name` for `ticks` ticks; returns its controls and the host's events.
fn fly(
    sources: &ScriptSources,
    name: &str,
    seed: u64,
    ticks: u64,
) -> (Vec<ScriptControls>, MockHost) {
    let mut inst = match ScriptInstance::load(sources, name, seed, Limits::default()) {
        Ok(i) => i,
        Err(e) => panic!("{name} should load: {e}"),
    };
    let mut host = MockHost::busy();
    let mut own = own_aircraft();
    let dt = 1.0 / 60.0;
    let mut out = Vec::new();
    for tick in 0..ticks {
        match inst.compute_control(&mut host, &own, tick, dt) {
            CallOutcome::Controls(c) => out.push(c),
            CallOutcome::Disabled { reason, .. } => {
                panic!("{name} disabled at tick {tick}: {reason}")
            }
        }
        host.advance(dt);
        drift(&mut own, dt);
    }
    (out, host)
}

#[test]
fn every_pack_script_runs_three_hundred_ticks() {
    let Some(sources) = pack_sources() else {
        return;
    };
    let names: Vec<String> = sources.names().map(str::to_string).collect();
    // The fixture carries these on purpose (trainer.lua is left out of it on purpose).
    for expected in [
        "fighter",
        "instructor",
        "director",
        "convoy_director",
        "train_gunnery",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "fixture lacks ai/{expected}.lua"
        );
    }
    let mut controllers = 0;
    for name in &names {
        let src = sources.get(name).unwrap_or_default();
        if !src.contains("function compute_control") {
            // A library (instructor, director): it must load on its own.
            if let Err(e) = ScriptInstance::load(&sources, name, 1, Limits::default()) {
                panic!("library {name} should load: {e}");
            }
            continue;
        }
        controllers += 1;
        let (controls, _) = fly(&sources, name, 7, 300);
        assert_eq!(controls.len(), 300);
    }
    assert!(
        controllers >= 7,
        "only {controllers} controller scripts ran"
    );
}

#[test]
fn fighter_engages_the_locked_contact() {
    let Some(sources) = pack_sources() else {
        return;
    };
    let (controls, _) = fly(&sources, "fighter", 7, 300);
    // The busy sky has a locked hostile 6 km east-north-east: fighter.lua steers and throttles
    // up for it (its patrol throttle is 0.7-0.75).
    assert!(
        controls.iter().all(|c| c.throttle == 1.0),
        "{:?}",
        controls[0]
    );
    assert!(controls.iter().any(|c| c.aileron != 0.0));
    assert!(controls.iter().all(|c| (-1.0..=1.0).contains(&c.elevator)));
    // How much of the budget a real controller uses (reported in docs/lua-api.md).
    let mut inst = ScriptInstance::load(&sources, "fighter", 7, Limits::default()).expect("loads");
    let mut host = MockHost::busy();
    let mut most = 0;
    for tick in 0..60 {
        let _ = inst.compute_control(&mut host, &own_aircraft(), tick, 1.0 / 60.0);
        most = most.max(inst.instructions_last_call());
    }
    eprintln!(
        "fighter.lua: at most {most} instructions per call (1,000 granularity), {} bytes",
        inst.used_memory()
    );
    assert!(
        most < Limits::default().instructions_per_call / 10,
        "{most}"
    );
}

#[test]
fn lessons_talk_to_the_world() {
    let Some(sources) = pack_sources() else {
        return;
    };
    // First flight: the player-owned friendly at 3 km and 120 m/s is airborne, so step 1 scores.
    let (_, host) = fly(&sources, "train_first_flight", 7, 300);
    use fl_script::{ScriptEvent, WorldAction};
    assert!(
        host.events.iter().any(
            |e| matches!(e, ScriptEvent::Print(p) if p.starts_with("LESSON start: First Flight"))
        ),
        "{:?}",
        host.events
    );
    assert!(
        host.events
            .contains(&ScriptEvent::World(WorldAction::ScoreObjective {
                faction: 1,
                points: 1
            })),
        "{:?}",
        host.events
    );
}

#[test]
fn same_script_and_seed_give_identical_controls() {
    let Some(sources) = pack_sources() else {
        return;
    };
    let bits = |cs: &[ScriptControls]| -> Vec<[u64; 5]> {
        cs.iter()
            .map(|c| {
                [
                    c.aileron.to_bits(),
                    c.elevator.to_bits(),
                    c.rudder.to_bits(),
                    c.throttle.to_bits(),
                    c.release as u64,
                ]
            })
            .collect()
    };
    let (a, _) = fly(&sources, "fighter", 99, 400);
    let (b, _) = fly(&sources, "fighter", 99, 400);
    assert_eq!(bits(&a), bits(&b));
}

#[test]
fn math_random_follows_the_host_seed() {
    let src = r#"
        function compute_control()
          return { aileron = math.random() * 2 - 1, elevator = math.random(-1000, 1000) / 1000 }
        end"#;
    let sources = ScriptSources::from_map([("rng", src)]).expect("valid");
    let run = |seed| -> Vec<u64> {
        let mut inst =
            ScriptInstance::load(&sources, "rng", seed, Limits::default()).expect("loads");
        (0..50)
            .map(|t| {
                match inst.compute_control(&mut MockHost::default(), &own_aircraft(), t, 1.0 / 60.0)
                {
                    CallOutcome::Controls(c) => {
                        c.aileron.to_bits() ^ c.elevator.to_bits().rotate_left(1)
                    }
                    other => panic!("{other:?}"),
                }
            })
            .collect()
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

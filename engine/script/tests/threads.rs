//! Scripted entities on worker threads: an instance loaded on one thread and called on others
//! gives the same bits as one that never moved, instances on two threads at once do not disturb
//! each other, and a runaway script on a worker thread is still contained.

mod common;

use common::{MockHost, drift, own_aircraft};
use fl_script::{CallOutcome, Limits, ScriptInstance, ScriptSources};

fn pack_sources() -> Option<ScriptSources> {
    let pack = fl_fixtures::reference(fl_fixtures::FIXTURE_PACK)?;
    match ScriptSources::from_dir(&pack.join("ai")) {
        Ok(s) => Some(s),
        Err(e) => panic!("the fixture pack's ai/ folder should read: {e}"),
    }
}

/// Flies `inst` for ticks `from..to` against its own busy mock world; the controls as bits.
fn fly(inst: &mut ScriptInstance, from: u64, to: u64) -> Vec<[u64; 4]> {
    let dt = 1.0 / 60.0;
    let mut host = MockHost::busy();
    let mut own = own_aircraft();
    for _ in 0..from {
        host.advance(dt);
        drift(&mut own, dt);
    }
    let mut out = Vec::new();
    for tick in from..to {
        match inst.compute_control(&mut host, &own, tick, dt) {
            CallOutcome::Controls(c) => out.push([
                c.aileron.to_bits(),
                c.elevator.to_bits(),
                c.rudder.to_bits(),
                c.throttle.to_bits(),
            ]),
            CallOutcome::Disabled { reason, .. } => panic!("disabled at tick {tick}: {reason}"),
        }
        host.advance(dt);
        drift(&mut own, dt);
    }
    out
}

fn load(sources: &ScriptSources, seed: u64) -> ScriptInstance {
    match ScriptInstance::load(sources, "fighter", seed, Limits::default()) {
        Ok(i) => i,
        Err(e) => panic!("fighter should load: {e}"),
    }
}

#[test]
fn an_instance_moved_between_threads_flies_the_same_bits() {
    let Some(sources) = pack_sources() else {
        return;
    };
    let mut still = load(&sources, 99);
    let reference = fly(&mut still, 0, 200);

    // Loaded here, first half on one thread, second half on another, handed back by value.
    let moved = load(&sources, 99);
    let (moved, first) = std::thread::spawn(move || {
        let mut m = moved;
        let f = fly(&mut m, 0, 100);
        (m, f)
    })
    .join()
    .expect("first worker");
    let (_, second) = std::thread::spawn(move || {
        let mut m = moved;
        let s = fly(&mut m, 100, 200);
        (m, s)
    })
    .join()
    .expect("second worker");
    let travelled: Vec<_> = first.into_iter().chain(second).collect();
    assert_eq!(reference.len(), 200);
    assert_eq!(travelled, reference);
}

#[test]
fn two_threads_of_instances_match_one_thread() {
    let Some(sources) = pack_sources() else {
        return;
    };
    let seeds: Vec<u64> = (0..8).collect();
    let serial: Vec<_> = seeds
        .iter()
        .map(|&s| fly(&mut load(&sources, s), 0, 60))
        .collect();
    let mut fleet: Vec<ScriptInstance> = seeds.iter().map(|&s| load(&sources, s)).collect();
    let (a, b) = fleet.split_at_mut(4);
    let (ra, rb) = std::thread::scope(|scope| {
        let ha = scope.spawn(|| a.iter_mut().map(|i| fly(i, 0, 60)).collect::<Vec<_>>());
        let hb = scope.spawn(|| b.iter_mut().map(|i| fly(i, 0, 60)).collect::<Vec<_>>());
        (ha.join().expect("worker a"), hb.join().expect("worker b"))
    });
    let parallel: Vec<_> = ra.into_iter().chain(rb).collect();
    assert_eq!(parallel, serial);
    // Different seeds are different states: the check above is not comparing one run to itself.
    assert_eq!(parallel.len(), 8);
}

#[test]
fn a_runaway_script_on_a_worker_thread_is_contained() {
    let sources =
        ScriptSources::from_map([("spin", "function compute_control() while true do end end")])
            .expect("valid");
    let inst = ScriptInstance::load(&sources, "spin", 1, Limits::default()).expect("loads");
    let (inst, first) = std::thread::spawn(move || {
        let mut i = inst;
        let o = i.compute_control(&mut MockHost::default(), &own_aircraft(), 1, 1.0 / 60.0);
        (i, o)
    })
    .join()
    .expect("worker");
    match first {
        CallOutcome::Disabled { reason, just_now } => {
            assert!(just_now);
            assert!(reason.contains("instruction budget"), "{reason}");
            assert!(reason.contains("ai/spin.lua"), "{reason}");
        }
        other => panic!("should be disabled: {other:?}"),
    }
    // Still disabled after moving back.
    assert_eq!(
        inst.disabled_reason().map(|r| r.contains("spin")),
        Some(true)
    );
}

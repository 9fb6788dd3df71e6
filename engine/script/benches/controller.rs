//! Cost of the pack's `fighter.lua` `compute_control` per entity per tick, against a mock world
//! with three contacts (one locked hostile): the number behind "100 Lua-flown aircraft within
//! 1 ms of a 60 Hz tick". Includes building the `state` table, the contacts, the instruction
//! hook and reading the controls back — everything the server pays per scripted entity.
//! The last case splits 100 entities over two threads, as the server's two AI workers would.

#[path = "../tests/common/mod.rs"]
mod common;

use common::{MockHost, drift, own_aircraft};
use criterion::{Criterion, criterion_group, criterion_main};
use fl_script::{AircraftView, CallOutcome, Limits, ScriptInstance, ScriptSources};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let Some(pack) = fl_fixtures::reference(fl_fixtures::FIXTURE_PACK) else {
        return;
    };
    let sources = match ScriptSources::from_dir(&pack.join("ai")) {
        Ok(s) => s,
        Err(e) => panic!("pack ai/ should read: {e}"),
    };
    let mut inst = match ScriptInstance::load(&sources, "fighter", 1, Limits::default()) {
        Ok(i) => i,
        Err(e) => panic!("fighter should load: {e}"),
    };
    let mut host = MockHost::busy();
    let mut own = own_aircraft();
    let mut tick = 0u64;
    c.bench_function("fighter_compute_control", |b| {
        b.iter(|| {
            tick += 1;
            drift(&mut own, 1.0 / 60.0);
            match inst.compute_control(&mut host, black_box(&own), tick, 1.0 / 60.0) {
                CallOutcome::Controls(c) => black_box(c),
                CallOutcome::Disabled { reason, .. } => panic!("{reason}"),
            }
        })
    });

    // A furball: 43 contacts on the radar (fighter.lua walks the list twice a tick).
    let mut crowd = MockHost::crowded(40);
    c.bench_function("fighter_compute_control_43_contacts", |b| {
        b.iter(|| {
            tick += 1;
            drift(&mut own, 1.0 / 60.0);
            match inst.compute_control(&mut crowd, black_box(&own), tick, 1.0 / 60.0) {
                CallOutcome::Controls(c) => black_box(c),
                CallOutcome::Disabled { reason, .. } => panic!("{reason}"),
            }
        })
    });

    // The floor: a script that returns an empty table (bridge, state table, hook, reading back).
    let empty = ScriptSources::from_map([("empty", "function compute_control() return {} end")])
        .unwrap_or_default();
    if let Ok(mut floor) = ScriptInstance::load(&empty, "empty", 1, Limits::default()) {
        c.bench_function("empty_compute_control", |b| {
            b.iter(|| black_box(floor.compute_control(&mut host, black_box(&own), 1, 1.0 / 60.0)))
        });
    }

    // 100 entities, each with its own state (what a tick of 100 Lua-flown aircraft costs).
    let mut fleet: Vec<ScriptInstance> = (0..100)
        .map(
            |i| match ScriptInstance::load(&sources, "fighter", i, Limits::default()) {
                Ok(s) => s,
                Err(e) => panic!("fighter should load: {e}"),
            },
        )
        .collect();
    let mut tick = 0u64;
    c.bench_function("fighter_100_entities_one_tick", |b| {
        b.iter(|| {
            tick += 1;
            drift(&mut own, 1.0 / 60.0);
            tick_all(&mut fleet, &mut host, &own, tick);
        })
    });

    // The same 100 entities split over two threads, each owning its 50 instances and its own
    // host, as the server's two AI workers would. Spawning the two scoped threads is inside the
    // measurement (a server with persistent workers pays a hand-off instead).
    let (left, right) = fleet.split_at_mut(50);
    let mut hosts = [MockHost::busy(), MockHost::busy()];
    let mut tick = 0u64;
    c.bench_function("fighter_100_entities_one_tick_2_threads", |b| {
        b.iter(|| {
            tick += 1;
            drift(&mut own, 1.0 / 60.0);
            let own = &own;
            let [h0, h1] = &mut hosts;
            std::thread::scope(|s| {
                s.spawn(|| tick_all(left, h0, own, tick));
                s.spawn(|| tick_all(right, h1, own, tick));
            });
        })
    });
}

/// One tick of `fleet`: every instance called once.
fn tick_all(fleet: &mut [ScriptInstance], host: &mut MockHost, own: &AircraftView, tick: u64) {
    for inst in fleet {
        match inst.compute_control(host, black_box(own), tick, 1.0 / 60.0) {
            CallOutcome::Controls(c) => {
                black_box(c);
            }
            CallOutcome::Disabled { reason, .. } => panic!("{reason}"),
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

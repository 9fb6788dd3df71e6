//! Exact prediction with AI aircraft in the world: a perfect link, the player flying
//! aerobatics among AI fighters that patrol and attack (the `fl-server --ai N` behaviour),
//! several simulated minutes. Every compare must be bit-exact in every part of the state —
//! pose, velocities and the rest of the flight state — and an injected difference must be
//! reported in the part it belongs to.

use fighters_legacy::autopilot::Aerobatics;
use fighters_legacy::prediction::{StateDiff, WORD_NAMES};
use fighters_legacy::sim::{Sim, SimConfig};
use fl_net::linksim::{DirectionConfig, LinkConfig};
use fl_server::pool::EntityId;
use fl_server::server::SpawnPoint;
use fl_server::world::{Body, Pilot as WorldPilot};
use std::time::Duration;

/// Spawns `n` AI aircraft the way `fl-server --ai N` does (its default behaviour line, both
/// factions, ahead of the spawn point heading back towards it).
fn spawn_ai(sim: &mut Sim, n: usize) {
    let server = sim.server_mut().expect("server");
    let t = server
        .types()
        .pilot_type("", "builtin:jet-trainer")
        .expect("flyable type");
    let base = server
        .config()
        .spawn_points
        .first()
        .copied()
        .unwrap_or(SpawnPoint::FALLBACK);
    for i in 0..n {
        let ctrl = fl_ai::build_from_line(
            "patrol_attack target=threat",
            &fl_ai::FactoryContext::default(),
        )
        .expect("behaviour");
        let at = SpawnPoint {
            x: base.x + (i as f64 - n as f64 / 2.0) * 300.0,
            z: base.z + 3000.0 + (i % 4) as f64 * 500.0,
            heading_deg: 180.0,
            ..base
        };
        let faction = if i % 2 == 0 { 2 } else { 1 };
        server
            .spawn_aircraft(t, faction, WorldPilot::Ai(ctrl), at)
            .expect("room");
    }
}

#[test]
fn ai_in_the_world_leaves_prediction_bit_exact_in_every_part() {
    let mut sim = Sim::new(SimConfig::default(), Box::new(Aerobatics::default())).expect("sim");
    spawn_ai(&mut sim, 16);
    sim.run_for(Duration::from_secs(180));
    let p = &sim.client().prediction().stats;
    let words: Vec<(&str, u64)> = WORD_NAMES
        .iter()
        .zip(p.word_corrections.iter())
        .filter(|(_, n)| **n > 0)
        .map(|(w, n)| (*w, *n))
        .collect();
    println!(
        "compared {} corrections {} pose {} (max {:.3e} m) velocity {} (max {:.3e} m/s) other {} \
         (max {:.3e}) words {:?} snaps {} | independent {:?}",
        p.compared,
        p.corrections,
        p.pose.count,
        p.pose.size.max(),
        p.velocity.count,
        p.velocity.size.max(),
        p.other.count,
        p.other.size.max(),
        words,
        p.snaps,
        sim.report().exactness,
    );
    assert!(p.compared > 10_000, "{} compares", p.compared);
    assert_eq!(p.corrections, 0, "differing words: {words:?}");
    assert_eq!((p.pose.count, p.velocity.count, p.other.count), (0, 0, 0));
    assert_eq!(sim.report().exactness.mismatches, 0);
}

/// The parts of every correction, for the messages.
fn breakdown(sim: &Sim) -> String {
    let p = &sim.client().prediction().stats;
    let words: Vec<(&str, u64)> = WORD_NAMES
        .iter()
        .zip(p.word_corrections.iter())
        .filter(|(_, n)| **n > 0)
        .map(|(w, n)| (*w, *n))
        .collect();
    format!(
        "compared {} corrections {} (server repeats {}) pose {} velocity {} other {} words {words:?} \
         timeline shifts {}",
        p.compared,
        p.corrections,
        p.repeat_corrections,
        p.pose.count,
        p.velocity.count,
        p.other.count,
        p.timeline_shifts
    )
}

#[test]
fn inputs_arriving_right_at_the_tick_boundary_still_make_their_slot() {
    // The input path's delay puts each input between 1 ms before and 0.2 ms after the server
    // tick that serves it (the unlucky phase between the client's clock and the server's, plus
    // a little scheduling jitter; one in six a moment late, rarely three in a row): without a tick of margin in the server's jitter buffer some inputs miss their
    // slot, the server repeats the previous one, and the client counts corrections.
    let dir = DirectionConfig {
        latency: Duration::from_micros(15_667),
        jitter: Duration::from_micros(1_200),
        ..DirectionConfig::default()
    };
    let cfg = SimConfig {
        seed: 3,
        // Snapshots come back at once, so the server's delay estimate stays at one tick and
        // its buffer at its smallest depth (as on loopback).
        link: LinkConfig {
            to_server: dir,
            to_client: DirectionConfig::default(),
        },
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg, Box::new(Aerobatics::default())).expect("sim");
    spawn_ai(&mut sim, 8);
    sim.run_for(Duration::from_secs(60));
    let p = &sim.client().prediction().stats;
    println!("{}", breakdown(&sim));
    assert!(p.compared > 3_000, "{}", breakdown(&sim));
    assert_eq!(p.corrections, 0, "{}", breakdown(&sim));
}

#[test]
fn a_difference_elsewhere_in_the_servers_state_is_counted_and_named() {
    // Ten seconds of exact flight, then the server's own aircraft loses 5 kg of fuel outside
    // its integrator (as a bookkeeping bug would): the next compare differs, is counted as an
    // "other" correction with the fuel named and sized, and is not a server repeat.
    let mut sim = Sim::new(SimConfig::default(), Box::new(Aerobatics::default())).expect("sim");
    spawn_ai(&mut sim, 4);
    sim.run_for(Duration::from_secs(10));
    assert_eq!(
        sim.client().prediction().stats.corrections,
        0,
        "{}",
        breakdown(&sim)
    );
    let own = sim.client().session().own_entity().expect("own entity");
    let id = EntityId {
        index: own.idx,
        generation: own.generation,
    };
    let server = sim.server_mut().expect("server");
    let entity = server.world_mut().get_mut(id).expect("own aircraft");
    let Body::Aircraft { state, .. } = &mut entity.body else {
        panic!("not an aircraft");
    };
    state.fuel_kg -= 5.0;
    sim.run_for(Duration::from_secs(2));
    let p = &sim.client().prediction().stats;
    let fuel = WORD_NAMES
        .iter()
        .position(|w| *w == "fuel_kg")
        .expect("fuel word");
    assert_eq!(p.corrections, 1, "{}", breakdown(&sim));
    assert_eq!(p.word_corrections[fuel], 1, "{}", breakdown(&sim));
    assert_eq!(p.other.count, 1, "{}", breakdown(&sim));
    assert!(
        (p.other.size.max() - 5.0).abs() < 0.01,
        "sized in kg: {}",
        p.other.size.max()
    );
    assert_eq!(p.repeat_corrections, 0, "{}", breakdown(&sim));
}

#[test]
fn an_injected_difference_is_reported_in_its_part() {
    let base = fl_flight::AircraftState::flying(
        fl_flight::math::Vec3::new(0.0, 3000.0, 0.0),
        0.0,
        200.0,
        1000.0,
    );
    assert!(StateDiff::between(&base, &base).is_exact());

    let mut fuel = base;
    fuel.fuel_kg += 0.25;
    let d = StateDiff::between(&fuel, &base);
    assert!(!d.pose() && !d.velocity() && d.other());
    assert_eq!(d.word_names().collect::<Vec<_>>(), ["fuel_kg"]);
    assert!((d.other_max - 0.25).abs() < 1e-9);
    assert_eq!(d.position_m, 0.0);

    let mut pos = base;
    pos.position.x += 0.5;
    let d = StateDiff::between(&pos, &base);
    assert!(d.pose() && !d.velocity() && !d.other());
    assert!((d.position_m - 0.5).abs() < 1e-9);

    let mut vel = base;
    vel.body_rates.y += 0.01;
    let d = StateDiff::between(&vel, &base);
    assert!(!d.pose() && d.velocity() && !d.other());
    assert!((d.body_rates_rps - 0.01).abs() < 1e-12);
}

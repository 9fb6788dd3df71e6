//! Sync test over NTTR: the server's world and the client's prediction, each with its own
//! `fl-terrain` built from the same content stack (the fixture pack), step an F-16A parked on a
//! mountain slope with the same inputs — rolling, braking, steering and a taxi run — and
//! agree to the last bit at every tick, ground contact on the slope included. A client on other
//! ground (the base alone) diverges, so the comparison can fail.

use fighters_legacy::entities::{Articulation, EntityEntry};
use fighters_legacy::prediction::{ClientPrediction, PredictionConfig};
use fighters_legacy::session::{OwnEntity, OwnSnapshot};
use fighters_legacy::weather::WeatherTimeline;
use fl_content::{Content, ErrorPolicy, LoadOptions};
use fl_flight::env::{Floor, WindField};
use fl_flight::geodetic::Geodetic;
use fl_flight::math::Vec3;
use fl_flight::{AircraftModel, AircraftState, Controls};
use fl_server::world::{Body, Entity, Pilot, World, WorldConfig};
use fl_terrain::{Terrain, TerrainConfig};
use std::sync::Arc;

fn controls(tick: u32) -> Controls {
    let t = f64::from(tick) / 60.0;
    let mut c = Controls {
        gear_down: true,
        ..Controls::default()
    };
    match t {
        // Brakes off: it rolls down the slope on its own weight.
        t if t < 4.0 => c.wheel_brake = 0.0,
        // Brakes on, steering.
        t if t < 7.0 => {
            c.wheel_brake = 0.6;
            c.yaw = 0.5;
        }
        // Taxi power, some right pedal: a run across the slope.
        t if t < 14.0 => {
            c.throttle = 0.6;
            c.yaw = -0.2;
        }
        _ => {
            c.wheel_brake = 1.0;
        }
    }
    c
}

fn entry(idx: u32, s: &AircraftState) -> EntityEntry {
    EntityEntry {
        idx,
        generation: 1,
        type_index: 0,
        faction: 0,
        first_tick: 0,
        last_tick: 0,
        position: s.position,
        orientation: s.orientation,
        velocity: s.velocity,
        omega: Some(s.body_rates),
        damage_level: 0,
        engine_fail_flags: 0,
        throttle_pct: 0,
        fuel_pct: 100,
        ab_engaged: false,
        player_owned: true,
        articulation: Articulation::default(),
        turrets: Vec::new(),
    }
}

/// Steps the server world and a client prediction side by side; returns the ticks that
/// differed and (ticks with a wheel on the ground, ground distance rolled).
fn run(
    model: &Arc<AircraftModel>,
    server_ground: Terrain,
    client_ground: Terrain,
    start: AircraftState,
    ticks: u32,
) -> (Vec<u32>, u32, f64) {
    let mut world = World::new(WorldConfig::default());
    world.set_terrain(server_ground);
    let id = world
        .spawn(Entity {
            type_index: 0,
            faction: 0,
            body: Body::Aircraft {
                model: model.clone(),
                limits: fl_ai::FlightLimits::from_model(model),
                state: start,
            },
            pilot: Pilot::Peer(1),
            controls: Controls::default(),
            hp_fraction: 1.0,
            crashed_at: None,
            combat: Default::default(),
        })
        .expect("spawn");
    let mut p = ClientPrediction::new(PredictionConfig::default(), world.planet().radius_m);
    p.set_terrain(client_ground);
    p.set_model(Some(model.clone()));
    let weather = WeatherTimeline::default();
    let own = OwnSnapshot {
        entity: OwnEntity {
            idx: id.index,
            generation: id.generation,
        },
        type_index: 0,
        exact: Some(start),
        own_state_refused: false,
        combat: None,
        record: entry(id.index, &start),
        acked_seq: None,
        delay_ticks: None,
    };
    p.reconcile(world.tick(), &own, &weather);
    assert_eq!(
        p.state().map(AircraftState::to_words),
        Some(start.to_words())
    );
    let calm = WindField::calm();
    let (mut differ, mut on_ground) = (Vec::new(), 0);
    for tick in 0..ticks {
        let c = controls(tick);
        world.set_controls(id, c);
        world.step(&calm);
        p.push_input(tick + 1, c, &weather);
        let server = *world
            .get(id)
            .and_then(Entity::aircraft_state)
            .expect("aircraft");
        assert!(
            server.crashed.is_none(),
            "crashed at tick {tick}: {server:?}"
        );
        let client = p.state().expect("predicting");
        if server.to_words().map(f64::to_bits) != client.to_words().map(f64::to_bits) {
            differ.push(tick);
        }
        if server.wheels_on_ground != 0 {
            on_ground += 1;
        }
    }
    let end = world.get(id).map(Entity::position).expect("aircraft");
    (differ, on_ground, (end - start.position).length())
}

#[test]
fn server_and_client_ground_contact_over_nttr_are_bit_identical() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let content = Content::load(&LoadOptions {
        pack_dirs: vec![pack],
        on_error: ErrorPolicy::SkipAndReport,
        ..Default::default()
    })
    .expect("fixture pack loads");
    let model = content
        .entity_type("fl-base:f16a")
        .and_then(|t| t.flight_model.clone())
        .expect("F-16A flies");
    // Two independent terrains from the same files; the client's cache holds a few tiles only,
    // so it evicts and decodes again while the server's keeps everything.
    let server_ground = Terrain::from_content(&content, TerrainConfig::default());
    let client_ground = Terrain::from_content(
        &content,
        TerrainConfig {
            cache_bytes: 200_000,
            ..TerrainConfig::default()
        },
    );
    let planet = fl_flight::gravity::Planet::earth();
    // A slope of 2–4° on the flank of a range inside NTTR, found by scanning north.
    let (mut lat, lon) = (36.40, -115.70);
    let slope = loop {
        let p = fl_terrain::cube::latlon_to_world(planet.radius_m, lat, lon, 0.0);
        let f = server_ground.sample(&planet, p);
        let cos = f.normal.dot(planet.up(p));
        if (0.9975..0.9994).contains(&cos) {
            break cos.acos().to_degrees();
        }
        lat += 0.0005;
        assert!(lat < 36.9, "no slope found");
    };
    let start = fl_flight::spawn::parked_at(
        &model,
        &planet,
        &server_ground,
        Geodetic::from_degrees(lat, lon, 0.0),
        0.3,
        model.max_fuel_kg,
    );
    assert!(start.position.is_finite() && start.position != Vec3::ZERO);
    let ground_h = server_ground.height_at(lat, lon);
    assert!(ground_h > 800.0, "a mountain flank, {ground_h} m");

    let (differ, on_ground, moved) =
        run(&model, server_ground.clone(), client_ground, start, 40 * 60);
    println!(
        "slope {slope:.1} deg at ({lat:.4}, {lon}), {ground_h:.0} m; {on_ground} ticks on wheels, moved {moved:.0} m"
    );
    assert!(
        differ.is_empty(),
        "ticks that differed: {:?}",
        &differ[..differ.len().min(10)]
    );
    assert!(on_ground > 600, "{on_ground} ticks on the ground");
    assert!(moved > 50.0, "it rolled and ran ({moved} m)");

    // The same run with the client on the base alone: it diverges (the test can fail).
    let (differ, _, _) = run(&model, server_ground, Terrain::default(), start, 120);
    assert!(!differ.is_empty(), "another ground gives other states");
}

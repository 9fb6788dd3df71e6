//! Flying away from the world origin (the north pole), where world Y is not up: a pilot spawned
//! at the Nevada "home" anchor flies wings level at 3,000 m in the default gusting weather, and
//! the client's prediction (the same fl-flight code, with the weather message's wind turned into
//! the local frame at the aircraft) stays bit-exact with the server.

use fighters_legacy::autopilot::Level;
use fighters_legacy::sim::{Sim, SimConfig};
use fl_flight::geodetic::{self, Enu};
use fl_flight::gravity::Planet;
use fl_server::server::{GeoAnchor, SpawnPoint};
use std::time::Duration;

#[test]
fn a_pilot_spawned_in_nevada_predicts_exactly_in_gusting_wind() {
    let mut cfg = SimConfig::default();
    cfg.server.spawn_points = vec![SpawnPoint {
        x: 0.0,
        z: 0.0,
        altitude_m: 3000.0,
        heading_deg: 90.0,
        speed_mps: 200.0,
        anchor: Some(GeoAnchor::NEVADA_HOME),
    }];
    // One AI target orbiting 9 km north of the anchor (remote interpolation over Nevada).
    cfg.targets = 1;
    let mut sim = Sim::new(cfg, Box::new(Level)).expect("sim");
    sim.run_for(Duration::from_secs(60));
    let c = sim.client();
    let p = &c.prediction().stats;
    let r = sim.report();
    assert!(c.end_reason().is_none(), "{:?}", c.end_reason());
    assert!(
        p.exact_basis_compares > 3000,
        "{} exact-basis compares",
        p.exact_basis_compares
    );
    assert_eq!(p.compared, p.exact_basis_compares);
    assert_eq!(p.corrections, 0, "zero corrections");
    assert_eq!(r.exactness.mismatches, 0, "the server's world agrees");
    assert!(
        c.session().weather().len() > 1,
        "gusting wind windows were flown"
    );
    // The target orbits in front of the pilot over Nevada and is drawn within centimetres.
    println!("remote error vs truth: {:?}", r.remote_error_m);
    assert!(r.remote_error_m.count > 1000, "{:?}", r.remote_error_m);
    assert!(r.remote_error_m.max < 0.5, "{:?}", r.remote_error_m);
    let server = sim.server().expect("server");
    let target = server
        .world()
        .iter()
        .find_map(|(_, e)| match &e.body {
            fl_server::world::Body::Aircraft { state, .. } if e.faction == 2 => {
                Some(state.position)
            }
            _ => None,
        })
        .expect("the target");
    let tg = geodetic::from_world(&Planet::earth(), target);
    assert!(
        (tg.lat_deg() - 36.24917).abs() < 0.2,
        "target latitude {}",
        tg.lat_deg()
    );
    assert!(
        (tg.lon_deg() + 114.99611).abs() < 0.2,
        "target longitude {}",
        tg.lon_deg()
    );
    assert!(
        (tg.alt_m - 3000.0).abs() < 100.0,
        "target altitude {}",
        tg.alt_m
    );
    // It flew east over Nevada, level, near the autopilot's 3,000 m (its proportional altitude
    // loop settles about 110 m high at this speed: the same as over the origin).
    let s = c.prediction().state().expect("predicting");
    let planet = Planet::earth();
    let g = geodetic::from_world(&planet, s.position);
    assert!((g.alt_m - 3000.0).abs() < 150.0, "altitude {}", g.alt_m);
    assert!(
        (g.lat_deg() - 36.24917).abs() < 0.05,
        "latitude {}",
        g.lat_deg()
    );
    let east_km = (g.lon_deg() + 114.99611).to_radians() * 6371.0 * 36.25f64.to_radians().cos();
    assert!(east_km > 8.0 && east_km < 16.0, "{east_km} km east");
    let enu = Enu::at(&planet, s.position);
    let track = enu.heading_of(s.velocity).to_degrees();
    assert!((track - 90.0).abs() < 10.0, "track {track}");
    assert!(
        s.velocity.dot(enu.up).abs() < 5.0,
        "climb {}",
        s.velocity.dot(enu.up)
    );
}

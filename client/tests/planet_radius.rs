//! Client and server fly on the same planet, bit for bit. `MsgConnectAck` carries the planet
//! radius as f32 kilometres (the spec's field); a server configured with a radius f32 cannot
//! represent must not simulate on its f64 value while the client rebuilds another one from the
//! ack, or every prediction (gravity, altitude, the floor) drifts from the server's.

use fighters_legacy::autopilot::Aerobatics;
use fighters_legacy::sim::{Sim, SimConfig};
use fl_server::server::ServerConfig;
use std::time::Duration;

fn sim_on_planet(radius_m: f64) -> Sim {
    let mut server = ServerConfig::default();
    server.world.planet_radius_m = radius_m;
    let cfg = SimConfig {
        server,
        ..SimConfig::default()
    };
    Sim::new(cfg, Box::new(Aerobatics::default())).expect("sim")
}

#[test]
fn a_radius_f32_cannot_hold_gives_both_sides_the_same_planet() {
    // 6371.0003 km is not an f32: the nearest is 6371.00048828125 km.
    let configured = 6_371_000.3;
    assert_ne!(
        f64::from((configured / 1000.0) as f32) * 1000.0,
        configured,
        "the test needs a radius f32 cannot represent"
    );
    let mut sim = sim_on_planet(configured);
    sim.run_for(Duration::from_secs(20));
    let server_radius = sim.server().expect("server").world().planet().radius_m;
    let client_radius = sim
        .client()
        .session()
        .admission()
        .expect("admitted")
        .planet_radius_m;
    assert_eq!(
        client_radius.to_bits(),
        server_radius.to_bits(),
        "client {client_radius} m, server {server_radius} m"
    );
    assert_eq!(
        client_radius,
        f64::from((configured / 1000.0) as f32) * 1000.0,
        "the radius both use is the one the ack's f32 field carries"
    );

    // And therefore the predicted trajectory is the server's, bit for bit.
    let c = sim.client();
    let p = &c.prediction().stats;
    let r = sim.report();
    assert!(c.end_reason().is_none(), "{:?}", c.end_reason());
    assert!(p.exact_basis_compares > 1_000, "{p:?}");
    assert_eq!(p.corrections, 0, "zero corrections");
    assert!(r.exactness.checked_exact_basis > 1_000);
    assert_eq!(r.exactness.mismatches, 0, "the server's world agrees");
}

#[test]
fn a_small_planet_is_the_same_planet_on_both_sides() {
    // A 600 km moon, again not an f32 in kilometres: the same rounding rule holds far from
    // Earth's radius.
    let mut sim = sim_on_planet(600_123.4);
    sim.run_for(Duration::from_secs(10));
    let server_radius = sim.server().expect("server").world().planet().radius_m;
    let client_radius = sim
        .client()
        .session()
        .admission()
        .expect("admitted")
        .planet_radius_m;
    assert_eq!(client_radius.to_bits(), server_radius.to_bits());
    assert_eq!(sim.report().exactness.mismatches, 0);
}

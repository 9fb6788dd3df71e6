//! The local frame away from the origin: a spawn at a latitude/longitude lands there with the
//! local heading and holds trimmed level flight under local gravity, a parked aircraft sits level
//! on the local ground, and a westerly wind blows east along the local horizon in Nevada.

mod common;

use fl_flight::env::WindField;
use fl_flight::geodetic::{self, Enu, Geodetic};
use fl_flight::integrator::{CalmWorld, outputs, step};
use fl_flight::math::Vec3;
use fl_flight::spawn::{parked_at, trim_level_at};

/// The Nevada test point (36.25° N, 115° W), where local up is 53.75° from world Y.
fn nevada(alt_m: f64) -> Geodetic {
    Geodetic::from_degrees(36.25, -115.0, alt_m)
}

#[test]
fn a_trimmed_spawn_at_a_lat_lon_lands_there_with_the_local_heading() {
    let m = common::test_jet();
    let w = CalmWorld::default();
    for heading_deg in [0.0_f64, 90.0, 225.0] {
        let t = trim_level_at(
            &m,
            &w.planet,
            nevada(5000.0),
            220.0,
            0.5 * m.max_fuel_kg,
            heading_deg.to_radians(),
        )
        .expect("trim");
        let s = t.state;
        let g = geodetic::from_world(&w.planet, s.position);
        assert!((g.lat_deg() - 36.25).abs() < 1e-9, "{g:?}");
        assert!((g.lon_deg() + 115.0).abs() < 1e-9, "{g:?}");
        assert!((g.alt_m - 5000.0).abs() < 1e-6, "{g:?}");
        let enu = Enu::at(&w.planet, s.position);
        let a = geodetic::attitude(&enu, s.orientation);
        let dh = (a.heading_rad.to_degrees() - heading_deg + 540.0).rem_euclid(360.0) - 180.0;
        assert!(
            dh.abs() < 1e-9,
            "heading {heading_deg}: {}",
            a.heading_rad.to_degrees()
        );
        assert!(a.roll_rad.abs() < 1e-9, "wings level: {}", a.roll_rad);
        assert!((a.pitch_rad - t.alpha).abs() < 1e-9, "nose up by alpha");
        assert!(s.velocity.dot(enu.up).abs() < 1e-9, "level velocity");
        assert!(
            (enu.heading_of(s.velocity).to_degrees() - heading_deg.rem_euclid(360.0)).abs() < 1e-9
        );

        // Ten seconds on the trim controls: altitude and heading hold, as they do at the origin.
        let mut s = s;
        for tick in 0..600 {
            step(&m, &mut s, &t.controls, &w.env(tick));
        }
        let o = outputs(&m, &s, &w.env(600));
        assert!(
            (o.altitude_m - 5000.0).abs() < 30.0,
            "heading {heading_deg}: altitude {} after 10 s",
            o.altitude_m
        );
        let enu = Enu::at(&w.planet, s.position);
        let track = enu.heading_of(s.velocity).to_degrees();
        let dh = (track - heading_deg + 540.0).rem_euclid(360.0) - 180.0;
        assert!(
            dh.abs() < 1.0,
            "heading {heading_deg}: track {track} after 10 s"
        );
    }
}

#[test]
fn a_parked_aircraft_sits_level_on_the_local_ground() {
    let m = common::test_jet();
    let w = CalmWorld::default();
    let mut s = parked_at(
        &m,
        &w.planet,
        &w.floor,
        nevada(0.0),
        270f64.to_radians(),
        m.max_fuel_kg,
    );
    let enu = Enu::at(&w.planet, s.position);
    let a = geodetic::attitude(&enu, s.orientation);
    assert!((a.heading_rad.to_degrees() - 270.0).abs() < 1e-9);
    assert!(a.pitch_rad.abs() < 1e-9 && a.roll_rad.abs() < 1e-9);
    let start = s.position;
    let controls = fl_flight::Controls {
        wheel_brake: 1.0,
        gear_down: true,
        ..fl_flight::Controls::default()
    };
    for tick in 0..600 {
        let ev = step(&m, &mut s, &controls, &w.env(tick));
        assert!(
            s.crashed.is_none(),
            "tick {tick}: {ev:?} alt {} v {:?}",
            w.planet.altitude(s.position),
            s.velocity
        );
    }
    let moved = (s.position - start).length();
    assert!(moved < 0.05, "parked in Nevada moved {moved} m in 10 s");
}

#[test]
fn a_westerly_blows_east_along_the_local_horizon_in_nevada() {
    let m = common::test_jet();
    let mut w = CalmWorld::default();
    let east = trim_level_at(
        &m,
        &w.planet,
        nevada(3000.0),
        200.0,
        m.max_fuel_kg,
        std::f64::consts::FRAC_PI_2,
    )
    .expect("trim")
    .state;
    let north = trim_level_at(&m, &w.planet, nevada(3000.0), 200.0, m.max_fuel_kg, 0.0)
        .expect("trim")
        .state;
    let calm_e = outputs(&m, &east, &w.env(0));
    let calm_n = outputs(&m, &north, &w.env(0));
    // A 20 m/s wind FROM 270° (the level frame's +x, as the weather message writes it).
    w.wind = WindField {
        steady: Vec3::new(20.0, 0.0, 0.0),
        ..WindField::calm()
    };
    let tail = outputs(&m, &east, &w.env(0));
    assert!(
        (calm_e.tas_mps - tail.tas_mps - 20.0).abs() < 1e-6,
        "a tailwind flying east: {} -> {}",
        calm_e.tas_mps,
        tail.tas_mps
    );
    // Flying north it is a crosswind from the left: no vertical part, so alpha is unchanged.
    let cross = outputs(&m, &north, &w.env(0));
    assert!(
        cross.beta_deg < -5.0,
        "air from the left: beta {}",
        cross.beta_deg
    );
    assert!(
        (cross.alpha_deg - calm_n.alpha_deg).abs() < 0.05,
        "a horizontal wind does not change alpha: {} vs {}",
        cross.alpha_deg,
        calm_n.alpha_deg
    );
    // The world vector the integrator uses is the local east.
    let p = east.position;
    let alt = w.planet.altitude(p);
    let v = w.wind.world_at(&w.planet, p, alt, 0, 0);
    let enu = Enu::at(&w.planet, p);
    assert!((v - enu.east * 20.0).length() < 1e-12);
    assert!(v.dot(enu.up).abs() < 1e-12);
}

//! Away from the world origin (the north pole) world Y is not up: in Nevada, 36.25° N 115° W,
//! local up is 53.75° from it. The autopilot's altitude and heading holds work in the local
//! east-north-up frame of the aircraft's position.

mod common;

use common::{Sim, ai_jet};
use fl_ai::{FactoryContext, build_from_line};
use fl_flight::geodetic::{self, Enu, Geodetic};

const LAT: f64 = 36.25;
const LON: f64 = -115.0;

/// Signed difference of two compass headings, degrees in (−180, 180].
fn heading_diff(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(360.0);
    if d > 180.0 { d - 360.0 } else { d }
}

/// Flies `line` for 60 s from level flight at 5,000 m in Nevada on heading `start_deg`; returns
/// (largest altitude error after `settle_s`, largest track error from `want_deg` after
/// `settle_s`, start and end positions).
fn fly(line: &str, start_deg: f64, want_deg: f64, settle_s: f64) -> (f64, f64, Geodetic, Geodetic) {
    let mut sim = Sim::new(vec![ai_jet()]);
    let me = sim.add_at(
        0,
        Geodetic::from_degrees(LAT, LON, 5000.0),
        start_deg,
        220.0,
        1,
    );
    let ctrl = build_from_line(line, &FactoryContext::default()).expect("behaviour");
    sim.set_controller(me, ctrl);
    let start = geodetic::from_world(&sim.planet, sim.state(me).position);
    let (mut alt_err, mut hdg_err) = (0.0_f64, 0.0_f64);
    sim.run(60.0, |s| {
        let st = s.state(me);
        let t = s.tick as f64 / 60.0;
        assert!(st.crashed.is_none(), "{line}: crashed at {t:.1} s");
        if t >= settle_s {
            let g = geodetic::from_world(&s.planet, st.position);
            alt_err = alt_err.max((g.alt_m - 5000.0).abs());
            let track = Enu::at(&s.planet, st.position)
                .heading_of(st.velocity)
                .to_degrees();
            hdg_err = hdg_err.max(heading_diff(track, want_deg).abs());
        }
    });
    let end = geodetic::from_world(&sim.planet, sim.state(me).position);
    (alt_err, hdg_err, start, end)
}

#[test]
fn heading_090_at_5000_m_in_nevada_flies_east_on_the_local_horizon() {
    let (alt_err, hdg_err, start, end) = fly("heading 90 5000 220", 90.0, 90.0, 0.0);
    println!(
        "heading 090: altitude error {alt_err:.2} m, track error {hdg_err:.3}°, {:.0} m east, {:.1} m north",
        (end.lon_rad - start.lon_rad) * 6_371_000.0 * libm::cos(start.lat_rad),
        (end.lat_rad - start.lat_rad) * 6_371_000.0
    );
    assert!(alt_err < 15.0, "altitude error {alt_err:.2} m");
    assert!(hdg_err < 1.0, "heading error {hdg_err:.3}°");
    // East: longitude grows by about 60 s × 220 m/s of arc, latitude stays.
    let east_m = (end.lon_rad - start.lon_rad) * 6_371_000.0 * libm::cos(start.lat_rad);
    assert!(
        east_m > 12_000.0 && east_m < 14_000.0,
        "moved {east_m:.0} m east"
    );
    let north_m = (end.lat_rad - start.lat_rad) * 6_371_000.0;
    assert!(north_m.abs() < 50.0, "drifted {north_m:.1} m north");
}

#[test]
fn a_turn_onto_a_new_heading_in_nevada_settles_on_it_at_altitude() {
    // From east to south (≈ 35 s at 45° of bank): the turn is on the local horizon, altitude
    // held through it.
    let (alt_err, hdg_err, _, end) = fly("heading 180 5000 220", 90.0, 180.0, 50.0);
    assert!(hdg_err < 1.0, "heading error {hdg_err:.3}° after the turn");
    assert!(alt_err < 30.0, "altitude error {alt_err:.2} m");
    assert!((end.alt_m - 5000.0).abs() < 30.0);
}

#[test]
fn holding_course_without_a_target_in_nevada_keeps_altitude_and_heading() {
    // Pursuit with no threat in range holds the captured course and altitude.
    let (alt_err, hdg_err, start, end) = fly("pursuit target=threat", 90.0, 90.0, 0.0);
    assert!(alt_err < 15.0, "altitude error {alt_err:.2} m");
    // A held course is a great circle: from 090 at 36° N it turns 0.1° in 13 km.
    assert!(hdg_err < 1.0, "heading error {hdg_err:.3}°");
    assert!(end.lon_rad > start.lon_rad);
}

#[test]
fn coordinates_of_a_behaviour_line_are_measured_from_its_anchor() {
    use fl_ai::CoordinateAnchor;
    let mut sim = Sim::new(vec![ai_jet()]);
    let anchor = CoordinateAnchor::new(&sim.planet, LAT, LON);
    let ctx = FactoryContext {
        anchor: Some(anchor),
        ..FactoryContext::default()
    };
    // A loiter 3 km around the anchor at 4,000 m; the jet starts 6 km east of it at 5,000 m.
    let start = geodetic::from_world(&sim.planet, anchor.point(6000.0, 5000.0, 0.0));
    let me = sim.add_at(0, start, 0.0, 220.0, 1);
    let ctrl = build_from_line("loiter 0 0 4000 radius=3000", &ctx).expect("behaviour");
    sim.set_controller(me, ctrl);
    let centre = anchor.point(0.0, 4000.0, 0.0);
    let mut worst = 0.0_f64;
    sim.run(240.0, |s| {
        if s.tick > 150 * 60 {
            let p = s.state(me).position;
            let enu = Enu::at(&s.planet, p);
            let d = p - centre;
            let horiz = (d - enu.up * d.dot(enu.up)).length();
            let alt = geodetic::from_world(&s.planet, p).alt_m;
            worst = worst.max((horiz - 3000.0).abs()).max((alt - 4000.0).abs());
        }
    });
    assert!(
        worst < 150.0,
        "orbit off the anchored circle by {worst:.0} m"
    );

    // A waypoint 10 km north of the anchor at 4,500 m, reached from the anchor flying east.
    let mut sim = Sim::new(vec![ai_jet()]);
    let me = sim.add_at(0, Geodetic::from_degrees(LAT, LON, 4000.0), 90.0, 220.0, 1);
    let ctrl = build_from_line("waypoint 0 4500 -10000 capture=300", &ctx).expect("behaviour");
    sim.set_controller(me, ctrl);
    let target = anchor.point(0.0, 4500.0, -10_000.0);
    let mut closest = f64::INFINITY;
    sim.run(120.0, |s| {
        closest = closest.min((s.state(me).position - target).length());
    });
    assert!(closest < 300.0, "closest approach {closest:.0} m");
}

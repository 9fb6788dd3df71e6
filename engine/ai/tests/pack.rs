//! The same behaviours flown by the fixture pack's aircraft (F-5E, F-16A with its FBW, T-38A,
//! MiG-21bis), whose handling differs widely: the controllers must stay inside each airframe's
//! structural and alpha limits and still do their job. Without the pack each test records an
//! `FL-SKIP` (see `fl-fixtures`) and returns; under `FL_REQUIRE_FIXTURES=1` it fails instead.

mod common;

use common::*;
use fl_ai::*;
use fl_flight::math::Vec3;

const AIRCRAFT: [&str; 4] = fl_fixtures::PACK_AIRCRAFT;

#[test]
fn pack_aircraft_loiter_in_the_band() {
    let Some(pack) = pack() else { return };
    for name in AIRCRAFT {
        let mut sim = Sim::new(vec![pack_model(&pack, name)]);
        let a = sim.add(0, Vec3::new(0.0, 3000.0, 0.0), 0.0, 170.0, 1);
        let centre = Vec3::new(4000.0, 0.0, 0.0);
        let l = Loiter::new(LoiterParams {
            centre: Some(centre),
            altitude_m: Some(3000.0),
            radius_m: 3000.0,
            speed_mps: Some(170.0),
            ..LoiterParams::default()
        })
        .expect("valid");
        sim.set_controller(a, Box::new(l));
        sim.run(60.0, |_| {});
        let (mut dmin, mut dmax, mut amin, mut amax) = (f64::MAX, 0.0f64, f64::MAX, 0.0f64);
        sim.run(90.0, |s| {
            let d = horizontal_distance(s.state(a).position, centre);
            dmin = dmin.min(d);
            dmax = dmax.max(d);
            amin = amin.min(s.altitude(a));
            amax = amax.max(s.altitude(a));
        });
        sim.assert_healthy();
        println!("{name}: radius [{dmin:.0}, {dmax:.0}], altitude [{amin:.0}, {amax:.0}]");
        assert!(dmin > 2850.0 && dmax < 3150.0, "{name}: [{dmin}, {dmax}]");
        assert!(amin > 2970.0 && amax < 3030.0, "{name}: [{amin}, {amax}]");
    }
}

#[test]
fn pack_aircraft_break_hard_within_their_limits() {
    let Some(pack) = pack() else { return };
    for name in AIRCRAFT {
        let model = pack_model(&pack, name);
        let stall_deg = model.alpha_stall.to_degrees();
        let limit_deg = model.alpha_limit.map(f64::to_degrees);
        let mut sim = Sim::new(vec![model]);
        let a = sim.add(0, Vec3::new(0.0, 4000.0, 0.0), 0.0, 220.0, 1);
        let t = sim.add(0, Vec3::new(1500.0, 4000.0, 2000.0), 0.0, 230.0, 2);
        let line = straight(&sim, t, 0.0);
        sim.set_controller(t, line);
        let b =
            BreakTurn::new(Target::Entity(sim.id(t)), BreakTurnParams::default()).expect("valid");
        sim.set_controller(a, Box::new(b));
        let lim = sim.limits[0];
        let (mut n_max, mut alpha_max, mut late_min) = (0.0f64, 0.0f64, f64::MAX);
        let start_alt = sim.altitude(a);
        sim.run(20.0, |s| {
            n_max = n_max.max(s.load_factor(a));
            alpha_max = alpha_max.max(s.alpha_deg(a));
            if s.tick > 4 * 60 {
                late_min = late_min.min(s.load_factor(a));
            }
        });
        sim.assert_healthy();
        let lost = start_alt - sim.altitude(a);
        println!(
            "{name}: n max {n_max:.2} (limit {}), held ≥ {late_min:.2} g, alpha max {alpha_max:.1}° \
             (stall {stall_deg:.1}°, FBW {limit_deg:?}), lost {lost:.0} m",
            lim.max_g
        );
        assert!(n_max <= lim.max_g, "{name} over-g: {n_max}");
        assert!(n_max > 0.6 * lim.max_g, "{name} never pulled: {n_max}");
        assert!(late_min > 2.0, "{name} did not hold the pull: {late_min}");
        let alpha_cap = limit_deg.unwrap_or(stall_deg).max(stall_deg);
        assert!(
            alpha_max < alpha_cap,
            "{name} alpha {alpha_max} beyond {alpha_cap}"
        );
        assert!(lost < 400.0, "{name} lost {lost} m");
    }
}

#[test]
fn pack_aircraft_pursue_and_close() {
    let Some(pack) = pack() else { return };
    for name in AIRCRAFT {
        let mut sim = Sim::new(vec![pack_model(&pack, name)]);
        let t = sim.add(0, Vec3::new(1500.0, 4500.0, -6000.0), 30.0, 170.0, 2);
        let a = sim.add(0, Vec3::new(0.0, 4000.0, 0.0), 0.0, 200.0, 1);
        let line = straight(&sim, t, 30.0);
        sim.set_controller(t, line);
        let p = Pursuit::lead(Target::Entity(sim.id(t)), 1.0).expect("valid");
        sim.set_controller(a, Box::new(p));
        let mut closed = None;
        let mut n_max = 0.0f64;
        sim.run(120.0, |s| {
            n_max = n_max.max(s.load_factor(a));
            if closed.is_none() && s.range(a, t) < 1000.0 {
                closed = Some(s.tick as f64 / 60.0);
            }
        });
        sim.assert_healthy();
        println!("{name}: inside 1 km after {closed:?} s, n max {n_max:.2}");
        assert!(closed.is_some(), "{name} never closed to 1 km");
        assert!(n_max <= sim.limits[0].max_g, "{name} over-g {n_max}");
    }
}

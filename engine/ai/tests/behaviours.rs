//! Flight tests: every behaviour flies a real aircraft (our synthetic fighter, `tests/data/
//! ai_jet.toml`, no fixture pack needed) through `fl_flight::step` at 60 Hz for tens of seconds,
//! sampled the way the server samples (views → read-only world → controllers → step), and the
//! test asserts what the behaviour is for.

mod common;

use common::*;
use fl_ai::guidance::bank_angle;
use fl_ai::*;
use fl_flight::math::Vec3;

const HOSTILE: u16 = 2;
const FRIENDLY: u16 = 1;

/// Heading of a horizontal velocity, radians clockwise from north (−Z).
fn heading(v: Vec3) -> f64 {
    libm::atan2(v.x, -v.z)
}

fn loiter_run(direction: Direction) -> (f64, f64, f64, f64, f64, f64) {
    let mut sim = Sim::new(vec![ai_jet()]);
    let a = sim.add(0, Vec3::new(0.0, 3000.0, 0.0), 0.0, 160.0, FRIENDLY);
    let centre = Vec3::new(5000.0, 0.0, 0.0);
    let loiter = Loiter::new(LoiterParams {
        centre: Some(centre),
        altitude_m: Some(3000.0),
        radius_m: 3000.0,
        direction,
        speed_mps: Some(160.0),
        ..LoiterParams::default()
    })
    .expect("valid loiter");
    sim.set_controller(a, Box::new(loiter));
    // Converge for 60 s, then measure for 120 s.
    sim.run(60.0, |_| {});
    let (mut dmin, mut dmax, mut amin, mut amax) = (f64::MAX, 0.0f64, f64::MAX, 0.0f64);
    let mut swept = 0.0;
    let mut last_angle = None::<f64>;
    let mut spin = 0.0;
    let mut speed_err = 0.0f64;
    sim.run(120.0, |s| {
        speed_err = speed_err.max((s.tas(a) - 160.0).abs());
        let p = s.state(a).position;
        let d = horizontal_distance(p, centre);
        dmin = dmin.min(d);
        dmax = dmax.max(d);
        let alt = s.altitude(a);
        amin = amin.min(alt);
        amax = amax.max(alt);
        let r = p - centre;
        let ang = libm::atan2(r.x, -r.z);
        if let Some(l) = last_angle {
            swept += guidance::wrap_pi(ang - l);
        }
        last_angle = Some(ang);
        spin += r.cross(s.state(a).velocity).y;
    });
    sim.assert_healthy();
    let laps = swept.abs() / (2.0 * std::f64::consts::PI) * spin.signum();
    (dmin, dmax, amin, amax, laps, speed_err)
}

#[test]
fn loiter_stays_in_the_orbit_band_and_holds_altitude() {
    for dir in [Direction::Clockwise, Direction::CounterClockwise] {
        let (dmin, dmax, amin, amax, laps, speed_err) = loiter_run(dir);
        println!(
            "{dir:?}: radius [{dmin:.0}, {dmax:.0}] alt [{amin:.1}, {amax:.1}] laps {laps:.2} \
             speed ±{speed_err:.2} m/s"
        );
        assert!(speed_err < 3.0, "{dir:?} speed hold off by {speed_err}");
        assert!(
            dmin > 2850.0 && dmax < 3150.0,
            "{dir:?} left the band: [{dmin}, {dmax}]"
        );
        assert!(
            amin > 2970.0 && amax < 3030.0,
            "{dir:?} altitude [{amin}, {amax}]"
        );
        // 120 s on a 3 km circle at 160 m/s is just over one lap; clockwise spins negative
        // about +Y (seen from above, right-handed +Y is counter-clockwise).
        match dir {
            Direction::Clockwise => assert!(laps < -0.9, "{laps}"),
            Direction::CounterClockwise => assert!(laps > 0.9, "{laps}"),
        }
    }
}

#[test]
fn waypoints_are_captured_in_order_then_orbited() {
    let mut sim = Sim::new(vec![ai_jet()]);
    let a = sim.add(0, Vec3::new(0.0, 3000.0, 0.0), 0.0, 180.0, FRIENDLY);
    // A box with climbs and descents; the last leg turns back through 135°.
    let points = vec![
        Vec3::new(0.0, 3500.0, -8000.0),
        Vec3::new(8000.0, 3000.0, -8000.0),
        Vec3::new(8000.0, 2500.0, 0.0),
        Vec3::new(2000.0, 3000.0, 2000.0),
    ];
    let capture = 500.0;
    let w = Waypoint::new(WaypointParams {
        points: points.clone(),
        capture_radius_m: capture,
        speed_mps: Some(180.0),
        ..WaypointParams::default()
    })
    .expect("valid route");
    sim.set_controller(a, Box::new(w));
    let mut seen: Vec<(String, f64, Vec3)> = Vec::new();
    let mut closest = vec![f64::MAX; points.len()];
    sim.run(240.0, |s| {
        let st = s.status(a).unwrap_or_default();
        let p = s.state(a).position;
        for (k, wp) in points.iter().enumerate() {
            closest[k] = closest[k].min((p - *wp).length());
        }
        if seen.last().map(|x| &x.0) != Some(&st) {
            seen.push((st, s.tick as f64 / 60.0, p));
        }
    });
    sim.assert_healthy();
    for (st, t, p) in &seen {
        println!(
            "{t:6.1} s  {st:10}  at ({:.0}, {:.0}, {:.0})",
            p.x, p.y, p.z
        );
    }
    println!("closest approach {closest:?}");
    let order: Vec<&str> = seen.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(order, ["wp 1/4", "wp 2/4", "wp 3/4", "wp 4/4", "finished"]);
    for (k, d) in closest.iter().enumerate() {
        assert!(
            *d < capture,
            "waypoint {k} never inside the capture radius: {d:.0} m"
        );
    }
    // Each capture happened near its point, including its altitude.
    for (k, wp) in points.iter().enumerate() {
        let at = seen[k + 1].2;
        assert!(
            (at - *wp).length() <= capture + 5.0,
            "capture {k} at {at:?}"
        );
    }
    // Finished: orbiting the last point instead of flying off.
    let last = points[3];
    let d = horizontal_distance(sim.state(a).position, last);
    assert!(d < 4000.0, "{d}");
}

#[test]
fn looping_route_starts_over() {
    let mut sim = Sim::new(vec![ai_jet()]);
    let a = sim.add(0, Vec3::new(0.0, 3000.0, 0.0), 0.0, 180.0, FRIENDLY);
    let points = vec![
        Vec3::new(0.0, 3000.0, -6000.0),
        Vec3::new(6000.0, 3000.0, -3000.0),
        Vec3::new(1000.0, 3000.0, 1000.0),
    ];
    let w = Waypoint::new(WaypointParams {
        points,
        looped: true,
        speed_mps: Some(180.0),
        ..WaypointParams::default()
    })
    .expect("valid route");
    sim.set_controller(a, Box::new(w));
    let mut order = Vec::new();
    sim.run(300.0, |s| {
        let st = s.status(a).unwrap_or_default();
        if order.last() != Some(&st) {
            order.push(st);
        }
    });
    sim.assert_healthy();
    println!("{order:?}");
    assert!(order.len() >= 7, "{order:?}");
    let expect = ["wp 1/3", "wp 2/3", "wp 3/3"];
    for (k, st) in order.iter().enumerate() {
        assert_eq!(st, expect[k % 3], "{order:?}");
    }
}

/// Time (s) until the range first drops below `range_m`, or `None`.
fn time_to_close(sim: &mut Sim, a: u32, t: u32, range_m: f64, seconds: f64) -> Option<f64> {
    let mut when = None;
    sim.run(seconds, |s| {
        if when.is_none() && s.range(a, t) < range_m {
            when = Some(s.tick as f64 / 60.0);
        }
    });
    when
}

#[test]
fn pursuit_closes_on_a_straight_flying_target() {
    let mut sim = Sim::new(vec![ai_jet()]);
    let t = sim.add(0, Vec3::new(1000.0, 4500.0, -6000.0), 0.0, 180.0, HOSTILE);
    let a = sim.add(0, Vec3::new(0.0, 4000.0, 0.0), 0.0, 200.0, FRIENDLY);
    let straight_line = straight(&sim, t, 0.0);
    sim.set_controller(t, straight_line);
    sim.set_controller(
        a,
        Box::new(Pursuit::pure(Target::Entity(sim.id(t))).expect("valid")),
    );
    let start = sim.range(a, t);
    let mut ranges = Vec::new();
    sim.run(66.0, |s| {
        if s.tick % 300 == 0 {
            ranges.push(s.range(a, t));
        }
    });
    sim.assert_healthy();
    println!("start {start:.0} m, every 5 s: {ranges:.0?}");
    // The range shrinks every 5 s and ends inside 1 km.
    for w in ranges.windows(2) {
        assert!(w[1] < w[0], "{ranges:?}");
    }
    assert!(*ranges.last().unwrap_or(&start) < 1000.0, "{ranges:?}");
}

fn crossing(mode: PursuitMode) -> (Sim, u32, u32) {
    let mut sim = Sim::new(vec![ai_jet()]);
    // Target 8 km north crossing east at 220 m/s; pursuer heading north at 230 m/s.
    let t = sim.add(0, Vec3::new(0.0, 4000.0, -8000.0), 90.0, 220.0, HOSTILE);
    let a = sim.add(0, Vec3::new(0.0, 4000.0, 0.0), 0.0, 230.0, FRIENDLY);
    let straight_line = straight(&sim, t, 90.0);
    sim.set_controller(t, straight_line);
    let p = Pursuit::new(Target::Entity(sim.id(t)), mode, PursuitParams::default()).expect("valid");
    sim.set_controller(a, Box::new(p));
    (sim, a, t)
}

#[test]
fn lead_pursuit_closes_faster_than_pure_pursuit_on_a_crossing_target() {
    let (mut pure, a, t) = crossing(PursuitMode::Pure);
    let t_pure = time_to_close(&mut pure, a, t, 1000.0, 120.0).expect("pure pursuit closes");
    pure.assert_healthy();
    let (mut lead, a, t) = crossing(PursuitMode::Lead { nav_gain: 1.0 });
    let t_lead = time_to_close(&mut lead, a, t, 1000.0, 120.0).expect("lead pursuit closes");
    lead.assert_healthy();
    println!("to 1 km: pure {t_pure:.1} s, lead {t_lead:.1} s");
    assert!(t_lead + 4.0 < t_pure, "lead {t_lead} vs pure {t_pure}");
}

#[test]
fn zero_gains_degenerate_to_pure_pursuit_bit_for_bit() {
    let (mut pure, a, _) = crossing(PursuitMode::Pure);
    let (mut lead0, _, _) = crossing(PursuitMode::Lead { nav_gain: 0.0 });
    let (mut lag0, _, _) = crossing(PursuitMode::Lag { lag_fraction: 0.0 });
    for _ in 0..(20 * 60) {
        pure.tick();
        lead0.tick();
        lag0.tick();
        let c = pure.crafts[a as usize].last;
        assert_eq!(c, lead0.crafts[a as usize].last);
        assert_eq!(c, lag0.crafts[a as usize].last);
    }
    assert_eq!(pure.state(a).hash_bits(), lead0.state(a).hash_bits());
    // And a non-zero gain really changes the flight (so the comparison above can fail).
    let (mut lead, _, _) = crossing(PursuitMode::Lead { nav_gain: 1.0 });
    lead.run(20.0, |_| {});
    assert_ne!(pure.state(a).hash_bits(), lead.state(a).hash_bits());
}

/// Angle (deg) between the target's velocity and the line from the target to the pursuer:
/// 180° is dead astern, 90° on the beam.
fn aspect_deg(sim: &Sim, a: u32, t: u32) -> f64 {
    let to_me = sim.state(a).position - sim.state(t).position;
    let v = sim.state(t).velocity;
    libm::acos((to_me.dot(v) / (to_me.length() * v.length())).clamp(-1.0, 1.0)).to_degrees()
}

#[test]
fn lag_pursuit_arrives_behind_the_target_more_slowly() {
    let (mut pure, a, t) = crossing(PursuitMode::Pure);
    let t_pure = time_to_close(&mut pure, a, t, 1500.0, 120.0).expect("pure pursuit closes");
    let aspect_pure = aspect_deg(&pure, a, t);
    let (mut lag, a, t) = crossing(PursuitMode::Lag { lag_fraction: 0.5 });
    let t_lag = time_to_close(&mut lag, a, t, 1500.0, 120.0).expect("lag pursuit closes");
    let aspect_lag = aspect_deg(&lag, a, t);
    lag.assert_healthy();
    println!(
        "to 1.5 km: pure {t_pure:.1} s (aspect {aspect_pure:.0}°), lag {t_lag:.1} s (aspect {aspect_lag:.0}°)"
    );
    assert!(t_lag > t_pure + 2.0, "lag {t_lag} vs pure {t_pure}");
    assert!(
        aspect_lag > 160.0,
        "lag should arrive in the target's six: {aspect_lag}"
    );
}

#[test]
fn evade_opens_the_range_from_a_pursuer() {
    let run = |evade: bool| {
        let mut sim = Sim::new(vec![ai_jet()]);
        let a = sim.add(0, Vec3::new(0.0, 4000.0, 0.0), 0.0, 200.0, FRIENDLY);
        let t = sim.add(0, Vec3::new(0.0, 4000.0, -8000.0), 180.0, 200.0, HOSTILE);
        let chase = Pursuit::pure(Target::Entity(sim.id(a))).expect("valid");
        sim.set_controller(t, Box::new(chase));
        if evade {
            let e = Evade::new(Target::Entity(sim.id(t)), EvadeParams::default()).expect("valid");
            sim.set_controller(a, Box::new(e));
        } else {
            let s = straight(&sim, a, 0.0);
            sim.set_controller(a, s);
        }
        let start = sim.range(a, t);
        let mut samples = Vec::new();
        let mut min = f64::MAX;
        sim.run(90.0, |s| {
            min = min.min(s.range(a, t));
            if s.tick % 900 == 0 {
                samples.push(s.range(a, t));
            }
        });
        sim.assert_healthy();
        (start, min, samples)
    };
    let (start, min_e, ev) = run(true);
    let (_, min_s, st) = run(false);
    println!(
        "start {start:.0}; evading every 15 s {ev:.0?} (min {min_e:.0}); straight {st:.0?} (min {min_s:.0})"
    );
    // Not evading, the pursuer gets to gun range; evading, the range turns and keeps opening.
    assert!(min_s < 500.0, "{min_s}");
    assert!(min_e > 2000.0, "{min_e}");
    for w in ev.windows(2) {
        assert!(
            w[1] > w[0],
            "the range must keep opening once turned away: {ev:?}"
        );
    }
    let last = ev.len() - 1;
    assert!(ev[last] - ev[0] > 1500.0, "{ev:?}");
}

#[test]
fn break_turn_rolls_then_pulls_high_g_and_holds_it() {
    let mut sim = Sim::new(vec![ai_jet()]);
    let a = sim.add(0, Vec3::new(0.0, 4000.0, 0.0), 0.0, 220.0, FRIENDLY);
    // Threat in the right-rear quarter, same heading, slightly faster.
    let t = sim.add(0, Vec3::new(1500.0, 4000.0, 2000.0), 0.0, 230.0, HOSTILE);
    let straight_line = straight(&sim, t, 0.0);
    sim.set_controller(t, straight_line);
    let params = BreakTurnParams::default();
    sim.set_controller(
        a,
        Box::new(BreakTurn::new(Target::Entity(sim.id(t)), params).expect("valid")),
    );
    let limits = sim.limits[0];
    let cap = params.g_fraction * limits.max_g * 0.9;
    let mut pull_start = None;
    let (mut n_max, mut alpha_max) = (0.0f64, 0.0f64);
    let mut hold_min = f64::MAX;
    let mut turned = 0.0;
    let mut last_heading = heading(sim.state(a).velocity);
    let start_alt = sim.altitude(a);
    let mut alt_min = f64::MAX;
    let mut ab_always = true;
    let mut side = 0.0;
    sim.run(20.0, |s| {
        let now = s.tick as f64 / 60.0;
        if pull_start.is_none() && s.status(a).as_deref() == Some("pull") {
            pull_start = Some(now);
            side = bank_angle(s.state(a).orientation, Vec3::Y).signum();
        }
        let n = s.load_factor(a);
        n_max = n_max.max(n);
        alpha_max = alpha_max.max(s.alpha_deg(a));
        if pull_start.is_some_and(|p0| now > p0 + 2.0) {
            hold_min = hold_min.min(n);
        }
        let h = heading(s.state(a).velocity);
        turned += guidance::wrap_pi(h - last_heading);
        last_heading = h;
        alt_min = alt_min.min(s.altitude(a));
        ab_always &= s.crafts[a as usize].last.afterburner;
    });
    sim.assert_healthy();
    let pull_start = pull_start.expect("the break reached its pull phase");
    println!(
        "pull at {pull_start:.2} s, n max {n_max:.2}, held ≥ {hold_min:.2} g, alpha max {alpha_max:.1}°, \
         turned {:.0}°, lost {:.0} m",
        turned.to_degrees(),
        start_alt - alt_min
    );
    assert!(
        pull_start <= params.roll_s + 0.05,
        "roll phase too long: {pull_start}"
    );
    assert!(side > 0.0, "the threat is on the right: break right");
    assert!(n_max > cap, "never pulled hard: {n_max}");
    assert!(n_max <= limits.max_g, "over-g: {n_max}");
    assert!(hold_min > 4.5, "did not hold the pull: {hold_min}");
    assert!(alpha_max < 20.0, "beyond the stall alpha: {alpha_max}");
    assert!(
        turned.to_degrees() > 300.0,
        "turned only {:.0}°",
        turned.to_degrees()
    );
    assert!(
        start_alt - alt_min < 300.0,
        "sliced down {:.0} m",
        start_alt - alt_min
    );
    assert!(ab_always, "afterburner not requested throughout");
}

#[test]
fn ground_guard_keeps_a_diving_pursuer_off_the_floor() {
    let mut sim = Sim::new(vec![ai_jet()]);
    // The target skims at 120 m; the pursuer starts 2 km above and behind it.
    let t = sim.add(0, Vec3::new(0.0, 120.0, -3000.0), 0.0, 180.0, HOSTILE);
    let a = sim.add(0, Vec3::new(0.0, 2000.0, 0.0), 0.0, 230.0, FRIENDLY);
    let straight_line = straight(&sim, t, 0.0);
    sim.set_controller(t, straight_line);
    sim.set_controller(
        a,
        Box::new(Pursuit::pure(Target::Entity(sim.id(t))).expect("valid")),
    );
    let mut agl_min = f64::MAX;
    sim.run(60.0, |s| agl_min = agl_min.min(s.altitude(a)));
    sim.assert_healthy();
    println!("lowest {agl_min:.0} m");
    // Never below the guard height (200 m by default).
    assert!(agl_min > 200.0, "{agl_min}");
}

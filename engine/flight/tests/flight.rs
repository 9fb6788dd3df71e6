//! End-to-end behaviour of the integrator: control signs, stability, trimmed flight held by a
//! simple autopilot, ground handling, FBW limits and crash detection.

mod common;

use fl_flight::env::{NoFloor, WindField};
use fl_flight::integrator::{CalmWorld, StepEnv, outputs, step};
use fl_flight::math::Vec3;
use fl_flight::model::AircraftModel;
use fl_flight::spawn::{parked, trim_level};
use fl_flight::state::{AircraftState, Controls, CrashKind};

fn fly(m: &AircraftModel, w: &CalmWorld, s: &mut AircraftState, c: &Controls, ticks: u64) {
    for t in 0..ticks {
        step(m, s, c, &w.env(t));
    }
}

fn trimmed(m: &AircraftModel, w: &CalmWorld, alt: f64, tas: f64) -> (AircraftState, Controls) {
    let fuel = 0.5 * m.max_fuel_kg;
    let t = trim_level(m, &w.planet, alt, tas, fuel, 0.0).expect("trim");
    (t.state, t.controls)
}

#[test]
fn trimmed_state_is_steady_without_control() {
    let w = CalmWorld::default();
    for (name, m) in common::all_models() {
        let (mut s, c) = trimmed(&m, &w, 5000.0, 200.0);
        fly(&m, &w, &mut s, &c, 60);
        let o = outputs(&m, &s, &w.env(60));
        assert!(
            (o.altitude_m - 5000.0).abs() < 3.0,
            "{name}: drifted to {}",
            o.altitude_m
        );
        assert!(
            s.body_rates.length() < 0.05,
            "{name}: rates {:?}",
            s.body_rates
        );
        assert!(
            (o.load_factor - 1.0).abs() < 0.05,
            "{name}: n {}",
            o.load_factor
        );
    }
}

#[test]
fn positive_pitch_pulls_the_nose_up() {
    let w = CalmWorld::default();
    for (name, m) in common::all_models() {
        let (mut s, c) = trimmed(&m, &w, 5000.0, 200.0);
        let a0 = outputs(&m, &s, &w.env(0)).alpha_deg;
        let pull = Controls {
            pitch: (c.pitch + 0.3).min(1.0),
            ..c
        };
        fly(&m, &w, &mut s, &pull, 30);
        let o = outputs(&m, &s, &w.env(30));
        assert!(s.body_rates.y > 0.02, "{name}: q = {}", s.body_rates.y);
        assert!(
            o.alpha_deg > a0 + 0.5,
            "{name}: alpha {a0} -> {}",
            o.alpha_deg
        );
        assert!(o.load_factor > 1.2, "{name}: n {}", o.load_factor);
    }
}

#[test]
fn positive_roll_rolls_right() {
    let w = CalmWorld::default();
    for (name, m) in common::all_models() {
        let (mut s, c) = trimmed(&m, &w, 5000.0, 200.0);
        fly(&m, &w, &mut s, &Controls { roll: 0.5, ..c }, 30);
        assert!(s.body_rates.x > 0.1, "{name}: p = {}", s.body_rates.x);
        // Right wing (engine +X) has gone down in the world.
        let right = s.orientation.rotate(Vec3::new(1.0, 0.0, 0.0));
        assert!(right.y < -0.05, "{name}: right wing {right:?}");
    }
}

#[test]
fn positive_rudder_yaws_the_nose_right() {
    let w = CalmWorld::default();
    for (name, m) in common::all_models() {
        let (mut s, c) = trimmed(&m, &w, 5000.0, 200.0);
        fly(&m, &w, &mut s, &Controls { yaw: 0.5, ..c }, 20);
        assert!(s.body_rates.z > 0.005, "{name}: r = {}", s.body_rates.z);
        let fwd = s.forward();
        assert!(
            fwd.x > 0.0,
            "{name}: nose should point towards +X (right of north), got {fwd:?}"
        );
        let o = outputs(&m, &s, &w.env(20));
        assert!(
            o.beta_deg < 0.0,
            "{name}: nose right of the wind means beta < 0, got {}",
            o.beta_deg
        );
    }
}

#[test]
fn positive_cn_beta_is_weathercock_stable() {
    let w = CalmWorld::default();
    for (name, m) in common::all_models() {
        assert!(m.cn_beta > 0.0);
        let (mut s, c) = trimmed(&m, &w, 5000.0, 200.0);
        // Yaw the airframe 3 degrees left of its velocity: the wind now comes from the right (beta > 0).
        s.orientation =
            fl_flight::math::Quat::from_axis_angle(Vec3::Y, 3f64.to_radians()).then(s.orientation);
        let b0 = outputs(&m, &s, &w.env(0)).beta_deg;
        assert!(b0 > 2.5, "{name}: beta {b0}");
        fly(&m, &w, &mut s, &c, 15);
        assert!(
            s.body_rates.z > 0.0,
            "{name}: positive beta must yaw the nose right, r = {}",
            s.body_rates.z
        );
        let mut least = b0;
        for t in 15..195 {
            step(&m, &mut s, &c, &w.env(t));
            least = least.min(outputs(&m, &s, &w.env(t)).beta_deg.abs());
        }
        assert!(
            least < 0.3 * b0,
            "{name}: the nose never swung into the wind: |beta| stayed above {least}"
        );
    }
}

/// A simple altitude-hold autopilot: PD on altitude and vertical speed into pitch, P on speed into
/// throttle, wings levelled by roll.
fn autopilot(
    m: &AircraftModel,
    w: &CalmWorld,
    s: &AircraftState,
    trim: &Controls,
    alt_ref: f64,
    tas_ref: f64,
    tick: u64,
) -> Controls {
    let o = outputs(m, s, &w.env(tick));
    let pitch = trim.pitch + 0.004 * (alt_ref - o.altitude_m)
        - 0.03 * o.vertical_speed_mps
        - 0.6 * s.body_rates.y;
    let right = s.orientation.rotate(Vec3::new(1.0, 0.0, 0.0));
    let roll = 2.0 * right.y - 0.5 * s.body_rates.x;
    let throttle = trim.throttle + 0.05 * (tas_ref - o.tas_mps);
    Controls {
        pitch: pitch.clamp(-1.0, 1.0),
        roll: roll.clamp(-1.0, 1.0),
        throttle: throttle.clamp(0.0, 1.0),
        ..*trim
    }
}

#[test]
fn trimmed_level_flight_held_within_one_metre_for_sixty_seconds() {
    let w = CalmWorld::default();
    for (name, m) in common::all_models() {
        let (mut s, trim) = trimmed(&m, &w, 6000.0, 220.0);
        let mut worst: f64 = 0.0;
        for t in 0..3600 {
            let c = autopilot(&m, &w, &s, &trim, 6000.0, 220.0, t);
            step(&m, &mut s, &c, &w.env(t));
            let alt = w.planet.altitude(s.position);
            worst = worst.max((alt - 6000.0).abs());
        }
        assert!(worst <= 1.0, "{name}: altitude error reached {worst:.3} m");
    }
}

#[test]
fn stable_across_the_envelope_including_post_stall() {
    let w = CalmWorld::default();
    let mut rng = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for (name, m) in common::all_models() {
        for &(alt, mach) in &[
            (0.0, 0.3),
            (0.0, 0.95),
            (6000.0, 0.5),
            (11000.0, 1.4),
            (15000.0, 0.9),
        ] {
            let a = fl_flight::atmosphere::isa(alt).speed_of_sound_m_s;
            let mut s = AircraftState::flying(
                Vec3::new(0.0, alt + 3000.0, 0.0),
                0.0,
                mach * a,
                m.max_fuel_kg,
            );
            s.spool = 1.0;
            for t in 0..1200u64 {
                let c = Controls {
                    pitch: if t % 240 < 120 { 1.0 } else { next() },
                    roll: next(),
                    yaw: next(),
                    throttle: 1.0,
                    afterburner: t % 400 < 200,
                    ..Controls::default()
                };
                step(
                    &m,
                    &mut s,
                    &c,
                    &StepEnv {
                        floor: &NoFloor,
                        ..w.env(t)
                    },
                );
                assert!(
                    s.is_finite(),
                    "{name} at {alt} m M{mach}: non-finite state at tick {t}"
                );
                assert!(
                    s.body_rates.length() < 40.0,
                    "{name} at {alt} m M{mach}: rates {:?} at tick {t}",
                    s.body_rates
                );
            }
        }
    }
}

#[test]
fn parked_at_idle_stays_put_then_takes_off_under_full_power() {
    let w = CalmWorld::default();
    for (name, m) in common::all_models() {
        let mut s = parked(&m, &w.planet, &w.floor, 0.0, 0.0, 0.0, m.max_fuel_kg);
        let start = s.position;
        let idle = Controls {
            gear_down: true,
            ..Controls::default()
        };
        fly(&m, &w, &mut s, &idle, 600);
        let moved = (s.position - start).length();
        assert!(moved < 0.05, "{name}: drifted {moved} m at idle");
        assert!(s.crashed.is_none(), "{name}: crashed while parked");
        // Full power, afterburner, rotate at 1.15 Vs.
        let vs = fl_flight::perf::Trimmer::new(
            &m,
            &fl_flight::perf::Condition {
                altitude_m: 0.0,
                mass_kg: m.mass(m.max_fuel_kg, 0.0),
                payload_cd0: 0.0,
            },
        )
        .stall_speed()
        .expect("stall speed");
        let mut lifted = None;
        for t in 600..600 + 60 * 90 {
            let o = outputs(&m, &s, &w.env(t));
            let pitch = if o.tas_mps > 1.15 * vs {
                (0.35 - 0.05 * (o.alpha_deg - 10.0)).clamp(-1.0, 1.0)
            } else {
                0.0
            };
            let c = Controls {
                throttle: 1.0,
                afterburner: true,
                gear_down: true,
                pitch,
                ..Controls::default()
            };
            let ev = step(&m, &mut s, &c, &w.env(t));
            assert!(
                s.crashed.is_none(),
                "{name}: crashed during the take-off run"
            );
            if ev.liftoff {
                lifted = Some(t);
            }
            if lifted.is_some() && o.altitude_m > 50.0 {
                break;
            }
        }
        assert!(lifted.is_some(), "{name}: never lifted off");
        assert!(
            w.planet.altitude(s.position) > 50.0,
            "{name}: did not climb away"
        );
        let dx = s.position - start;
        assert!(
            dx.x.abs() < 30.0,
            "{name}: veered {} m off the centreline",
            dx.x
        );
    }
}

#[test]
fn fbw_holds_the_structural_g_limit() {
    let Some(pack) = common::pack() else { return };
    let m = common::load(&common::pack_model_path(&pack, "f16a"));
    assert!(m.has_fbw);
    let w = CalmWorld::default();
    let (mut s, c) = trimmed(&m, &w, 3000.0, 260.0);
    let mut peak: f64 = 0.0;
    for t in 0..240 {
        step(&m, &mut s, &Controls { pitch: 1.0, ..c }, &w.env(t));
        peak = peak.max(outputs(&m, &s, &w.env(t)).load_factor);
    }
    assert!(
        peak > 0.9 * m.max_g,
        "limiter too conservative: peak {peak}"
    );
    assert!(
        peak <= 1.05 * m.max_g,
        "limiter overshoots: peak {peak} g vs {}",
        m.max_g
    );
    // Forward stick is held off the negative limit just as firmly.
    let (mut s, c) = trimmed(&m, &w, 3000.0, 260.0);
    let mut low: f64 = 0.0;
    for t in 0..240 {
        step(&m, &mut s, &Controls { pitch: -1.0, ..c }, &w.env(t));
        low = low.min(outputs(&m, &s, &w.env(t)).load_factor);
    }
    assert!(
        low >= 1.05 * m.min_g,
        "negative limiter overshoots: {low} g"
    );
    // Slow, the alpha cap holds instead.
    let (mut s, c) = trimmed(&m, &w, 3000.0, 110.0);
    let mut amax: f64 = 0.0;
    for t in 0..300 {
        step(
            &m,
            &mut s,
            &Controls {
                pitch: 1.0,
                throttle: 1.0,
                ..c
            },
            &w.env(t),
        );
        amax = amax.max(outputs(&m, &s, &w.env(t)).alpha_deg);
    }
    let cap = m.alpha_limit.expect("f16a has an alpha limit").to_degrees();
    assert!(
        amax <= cap + 1.5,
        "alpha reached {amax} against a {cap} cap"
    );
}

#[test]
fn a_dive_into_the_ground_is_a_crash_not_a_tunnel() {
    let w = CalmWorld::default();
    let m = common::test_jet();
    let mut s = AircraftState::flying(Vec3::new(0.0, 300.0, 0.0), 0.0, 0.0, m.max_fuel_kg);
    s.velocity = Vec3::new(0.0, -600.0, -50.0);
    let mut crashed = None;
    for t in 0..120 {
        let ev = step(&m, &mut s, &Controls::default(), &w.env(t));
        if ev.crashed.is_some() {
            crashed = ev.crashed;
            break;
        }
    }
    assert_eq!(crashed, Some(CrashKind::Impact));
    let alt = w.planet.altitude(s.position);
    assert!(
        alt.abs() < 1e-6,
        "wreck should rest on the floor, altitude {alt}"
    );
    fly(&m, &w, &mut s, &Controls::default(), 10);
    assert!(w.planet.altitude(s.position).abs() < 1e-6);
}

#[test]
fn wheels_up_touchdown_is_a_belly_landing() {
    let w = CalmWorld::default();
    let m = common::test_jet();
    let cg_h = m.gear.wheels[0].point[2] - m.gear.static_deflection_m;
    let (_, c) = trimmed(&m, &w, 500.0, 110.0);
    // Wings level, nose level, belly 0.3 m above the runway, sinking at 1 m/s.
    let mut s = AircraftState::flying(
        Vec3::new(0.0, 0.45 * cg_h + 0.3, 0.0),
        0.0,
        110.0,
        0.5 * m.max_fuel_kg,
    );
    s.velocity.y = -1.0;
    let mut belly = false;
    for t in 0..3600 {
        let ev = step(&m, &mut s, &Controls { throttle: 0.0, ..c }, &w.env(t));
        belly |= ev.belly_landing;
        assert!(
            ev.crashed.is_none(),
            "a gentle wheels-up landing must not be a crash (tick {t})"
        );
    }
    assert!(belly, "no belly landing reported");
    assert!(
        s.velocity.length() < 2.0,
        "the belly skid should stop the aircraft, v = {}",
        s.velocity.length()
    );
}

#[test]
fn a_hard_touchdown_collapses_the_gear() {
    let w = CalmWorld::default();
    let m = common::test_jet();
    let mut s = parked(&m, &w.planet, &w.floor, 0.0, 0.0, 0.0, m.max_fuel_kg);
    s.position.y += 2.0;
    s.velocity = Vec3::new(0.0, -8.0, -70.0);
    s.wheels_on_ground = 0;
    let mut crash = None;
    for t in 0..60 {
        if let Some(k) = step(
            &m,
            &mut s,
            &Controls {
                gear_down: true,
                ..Controls::default()
            },
            &w.env(t),
        )
        .crashed
        {
            crash = Some(k);
            break;
        }
    }
    assert_eq!(crash, Some(CrashKind::GearCollapse));
}

#[test]
fn engine_spools_lights_the_burner_and_burns_fuel() {
    let w = CalmWorld::default();
    let m = common::test_jet();
    let (mut s, c) = trimmed(&m, &w, 5000.0, 200.0);
    s.spool = 0.0;
    let tau = m.engine.spool_time_s;
    let ticks = (tau * 60.0).round() as u64;
    let full = Controls {
        throttle: 1.0,
        afterburner: true,
        ..c
    };
    let fuel0 = s.fuel_kg;
    fly(&m, &w, &mut s, &full, ticks);
    // First-order lag: 1 − e^{-1} ≈ 63% after one time constant (discrete: 1 − (1 − dt/τ)^n).
    let expect = 1.0 - (1.0 - 1.0 / (60.0 * tau)).powi(ticks as i32);
    assert!(
        (s.spool - expect).abs() < 1e-9,
        "spool {} vs {expect}",
        s.spool
    );
    assert_eq!(
        s.afterburner, 0.0,
        "the burner must not light below the spool threshold"
    );
    fly(&m, &w, &mut s, &full, 600);
    assert!(s.afterburner > 0.99, "burner {}", s.afterburner);
    let burnt = fuel0 - s.fuel_kg;
    assert!(
        burnt > m.engine.ff_mil * 3.0 && burnt < m.engine.ff_ab * 14.0,
        "burnt {burnt} kg"
    );
    // With the burner lit, fuel drops at the afterburner flow.
    let before = s.fuel_kg;
    fly(&m, &w, &mut s, &full, 60);
    let rate = before - s.fuel_kg;
    assert!(
        (rate - m.engine.ff_ab).abs() < 0.02 * m.engine.ff_ab,
        "AB flow {rate} kg/s"
    );
    // Run the tank dry: the engine winds down and thrust goes away.
    s.fuel_kg = 0.5;
    fly(&m, &w, &mut s, &full, 600);
    assert_eq!(s.fuel_kg, 0.0);
    assert!(
        s.spool < 0.05 && s.afterburner < 0.01,
        "spool {} ab {}",
        s.spool,
        s.afterburner
    );
}

#[test]
fn gear_and_speedbrake_slew_at_their_rates() {
    let w = CalmWorld::default();
    let m = common::test_jet();
    let (mut s, c) = trimmed(&m, &w, 5000.0, 150.0);
    let down = Controls {
        gear_down: true,
        speedbrake: 1.0,
        ..c
    };
    let half = (m.gear.transit_time_s * 30.0).round() as u64;
    fly(&m, &w, &mut s, &down, half);
    assert!((s.gear - 0.5).abs() < 0.02, "gear at half time: {}", s.gear);
    assert_eq!(s.speedbrake, 1.0);
    fly(&m, &w, &mut s, &down, half + 1);
    assert_eq!(s.gear, 1.0);
    // Gear and brake drag slow the aircraft compared with a clean twin.
    let (mut clean, _) = trimmed(&m, &w, 5000.0, 150.0);
    let (mut dirty, _) = trimmed(&m, &w, 5000.0, 150.0);
    dirty.gear = 1.0;
    dirty.speedbrake = 1.0;
    fly(&m, &w, &mut clean, &c, 300);
    fly(&m, &w, &mut dirty, &down, 300);
    assert!(dirty.velocity.length() < clean.velocity.length() - 5.0);
}

#[test]
fn airspeeds_agree_at_sea_level_and_separate_at_altitude() {
    let w = CalmWorld::default();
    let m = common::test_jet();
    let (s, _) = trimmed(&m, &w, 0.0, 150.0);
    let o = outputs(&m, &s, &w.env(0));
    assert!((o.tas_mps - 150.0).abs() < 1e-9);
    assert!((o.eas_mps - 150.0).abs() < 1e-9);
    assert!((o.cas_mps - 150.0).abs() < 1e-6, "CAS at SL {}", o.cas_mps);
    assert_eq!(o.ias_mps, o.cas_mps);
    let (s, _) = trimmed(&m, &w, 10_000.0, 250.0);
    let o = outputs(&m, &s, &w.env(0));
    assert!(
        o.eas_mps < o.cas_mps && o.cas_mps < o.tas_mps,
        "EAS {} CAS {} TAS {}",
        o.eas_mps,
        o.cas_mps,
        o.tas_mps
    );
    // Continuity of CAS through Mach 1 (subsonic isentropic vs Rayleigh pitot).
    let p = fl_flight::atmosphere::isa(9000.0).pressure_pa;
    let below = fl_flight::integrator::calibrated_airspeed(1.0 - 1e-9, p);
    let above = fl_flight::integrator::calibrated_airspeed(1.0 + 1e-9, p);
    assert!((below - above).abs() < 1e-3);
}

#[test]
fn wind_and_turbulence_move_the_air_not_the_rules() {
    let m = common::test_jet();
    let mut w = CalmWorld::default();
    let (s, _) = trimmed(&m, &w, 3000.0, 200.0);
    let calm = outputs(&m, &s, &w.env(0));
    // A 20 m/s headwind (air moving towards +Z while the jet flies towards −Z) adds to airspeed.
    w.wind = WindField {
        steady: Vec3::new(0.0, 0.0, 20.0),
        ..WindField::calm()
    };
    let head = outputs(&m, &s, &w.env(0));
    assert!((head.tas_mps - calm.tas_mps - 20.0).abs() < 1e-9);
    // A profile that grows with height.
    w.wind = WindField {
        profile: vec![(0.0, Vec3::ZERO), (6000.0, Vec3::new(0.0, 0.0, 30.0))],
        ..WindField::calm()
    };
    let prof = outputs(&m, &s, &w.env(0));
    assert!(
        (prof.tas_mps - calm.tas_mps - 15.0).abs() < 1e-6,
        "{}",
        prof.tas_mps - calm.tas_mps
    );
    // Turbulence: same (entity, tick) ⇒ same air data; another entity ⇒ different gusts.
    w.wind = WindField {
        turbulence_m_s: 4.0,
        ..WindField::calm()
    };
    let a = outputs(
        &m,
        &s,
        &StepEnv {
            entity: 5,
            ..w.env(777)
        },
    );
    let b = outputs(
        &m,
        &s,
        &StepEnv {
            entity: 5,
            ..w.env(777)
        },
    );
    let c = outputs(
        &m,
        &s,
        &StepEnv {
            entity: 6,
            ..w.env(777)
        },
    );
    assert_eq!(a, b);
    assert_ne!(a.alpha_deg, c.alpha_deg);
}

#[test]
fn taxis_steers_with_the_nosewheel_and_brakes_to_a_stop() {
    let w = CalmWorld::default();
    for (name, m) in common::all_models() {
        let mut s = parked(&m, &w.planet, &w.floor, 0.0, 0.0, 0.0, m.max_fuel_kg);
        let roll = Controls {
            throttle: 0.6,
            gear_down: true,
            ..Controls::default()
        };
        // Roll forward on a little power.
        let mut t = 0;
        while t < 60 * 60 && s.velocity.length() < 5.0 {
            step(&m, &mut s, &roll, &w.env(t));
            t += 1;
        }
        assert!(
            s.velocity.length() >= 5.0,
            "{name}: never reached taxi speed"
        );
        // Right pedal: the nose wheel turns the aircraft right (positive yaw rate, heading moving
        // from north towards east) without lifting a wheel.
        let mut turned = 0.0;
        for _ in 0..480 {
            let v = s.velocity.length();
            let throttle = if v < 3.5 { 0.3 } else { 0.0 };
            let wheel_brake = if v > 4.5 { 0.3 } else { 0.0 };
            let c = Controls {
                throttle,
                wheel_brake,
                yaw: 0.4,
                ..roll
            };
            step(&m, &mut s, &c, &w.env(t));
            turned += s.body_rates.z * fl_flight::DT;
            assert_eq!(
                s.wheels_on_ground, 0b111,
                "{name}: a wheel lifted while taxiing (tick {t})"
            );
            t += 1;
        }
        assert!(turned > 0.35, "{name}: turned only {turned} rad right");
        assert!(s.crashed.is_none(), "{name}: crashed while taxiing");
        // Brakes stop it, and hold it.
        let brake = Controls {
            wheel_brake: 1.0,
            throttle: 0.0,
            ..roll
        };
        for _ in 0..1200 {
            step(&m, &mut s, &brake, &w.env(t));
            t += 1;
        }
        let v = s.velocity.length();
        assert!(v < 0.01, "{name}: still rolling at {v} m/s");
    }
}

#[test]
fn lands_from_an_approach_and_stops_on_the_runway() {
    let w = CalmWorld::default();
    for (name, m) in common::all_models() {
        let fuel = 0.3 * m.max_fuel_kg;
        let mass = m.mass(fuel, 0.0);
        let vs = fl_flight::perf::Trimmer::new(
            &m,
            &fl_flight::perf::Condition {
                altitude_m: 0.0,
                mass_kg: mass,
                payload_cd0: 0.0,
            },
        )
        .stall_speed()
        .expect("stall speed");
        let v_app = 1.3 * vs;
        let t0 = trim_level(&m, &w.planet, 60.0, v_app, fuel, 0.0).expect("approach trim");
        let mut s = t0.state;
        s.gear = 1.0;
        let mut touched = false;
        let mut t = 0;
        while t < 60 * 120 {
            let o = outputs(&m, &s, &w.env(t));
            let c = if s.wheels_on_ground == 0 {
                // Glide path: hold ~2.5 m/s sink with pitch, speed with throttle.
                let target_vs = if o.altitude_m > 8.0 { -2.5 } else { -1.2 };
                let pitch = t0.controls.pitch + 0.08 * (target_vs - o.vertical_speed_mps)
                    - 0.8 * s.body_rates.y;
                let right = s.orientation.rotate(Vec3::new(1.0, 0.0, 0.0));
                let throttle = t0.controls.throttle + 0.08 * (v_app - o.tas_mps);
                Controls {
                    pitch: pitch.clamp(-1.0, 1.0),
                    roll: (2.0 * right.y - 0.5 * s.body_rates.x).clamp(-1.0, 1.0),
                    throttle: throttle.clamp(0.0, 1.0),
                    gear_down: true,
                    ..Controls::default()
                }
            } else {
                touched = true;
                Controls {
                    gear_down: true,
                    wheel_brake: if o.tas_mps < 0.8 * v_app { 1.0 } else { 0.0 },
                    pitch: -0.2,
                    ..Controls::default()
                }
            };
            let ev = step(&m, &mut s, &c, &w.env(t));
            assert!(
                ev.crashed.is_none(),
                "{name}: crashed on landing at tick {t}"
            );
            t += 1;
            if touched && s.velocity.length() < 0.1 {
                break;
            }
        }
        assert!(touched, "{name}: never touched down");
        assert!(
            s.velocity.length() < 0.1,
            "{name}: still moving at {}",
            s.velocity.length()
        );
        assert_eq!(
            s.wheels_on_ground, 0b111,
            "{name}: not resting on all three wheels"
        );
        assert!(
            s.position.x.abs() < 20.0,
            "{name}: left the runway sideways by {} m",
            s.position.x
        );
    }
}

//! The pack's trainer flies, stepped by the same `fl-flight` code the server runs, with the
//! flight model loaded through the content stack: it meets its performance gates, takes off
//! from a runway under full power with take-off flap, and trimmed at cruise it holds altitude
//! and speed hands-off for a minute.

use fl_content::{StackSources, load_stack};
use fl_flight::integrator::{CalmWorld, outputs, step};
use fl_flight::model::AircraftModel;
use fl_flight::perf::{Condition, Trimmer};
use fl_flight::spawn::{parked, trim_level};
use fl_flight::state::Controls;
use std::sync::Arc;

fn model() -> Arc<AircraftModel> {
    let load = load_stack(&StackSources {
        mods_dirs: Vec::new(),
        pack_dirs: vec![fl_modgen::default_pack_dir()],
    });
    let content = load.content.unwrap_or_else(|| panic!("nothing loaded"));
    let t = content
        .aircraft_type("fl-trainer:jet-trainer")
        .unwrap_or_else(|e| panic!("{e}"));
    t.flight_model.clone().unwrap_or_else(|| panic!("no model"))
}

#[test]
fn meets_its_performance_gates() {
    let m = model();
    let path = fl_modgen::default_pack_dir().join("aircraft/trainer/trainer.expect.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let file =
        fl_flight::perf::expect::parse_expect(&path, &text).unwrap_or_else(|e| panic!("{e}"));
    assert!(file.warnings.is_empty(), "{:?}", file.warnings);
    let results = fl_flight::perf::expect::judge_all(&m, &file);
    assert_eq!(
        results.len(),
        file.rows.len() + 1,
        "the rows and the placard check"
    );
    for r in &results {
        assert!(
            r.pass,
            "{} {}: got {:?}, expected {} ± {} ({:?})",
            r.row.metric, r.conditions, r.got, r.row.expected, r.allowed, r.note
        );
    }
}

#[test]
fn takes_off_from_a_runway_under_full_power() {
    let w = CalmWorld::default();
    let m = model();
    let mut s = parked(&m, &w.planet, &w.floor, 0.0, 0.0, 0.0, m.max_fuel_kg);
    let start = s.position;
    let vs = Trimmer::new(
        &m,
        &Condition {
            altitude_m: 0.0,
            mass_kg: m.mass(m.max_fuel_kg, 0.0),
            payload_cd0: 0.0,
        },
    )
    .stall_speed()
    .unwrap_or(f64::NAN);
    let (mut liftoff, mut fifty) = (None, None);
    for tick in 0..60 * 90u64 {
        let o = outputs(&m, &s, &w.env(tick));
        // Rotate at 1.1 Vs (clean) towards ~9° of alpha, as a pilot would, with half flap.
        let pitch = if o.tas_mps > 1.1 * vs {
            (0.5 - 0.08 * (o.alpha_deg - 9.0)).clamp(-1.0, 1.0)
        } else {
            0.0
        };
        let c = Controls {
            throttle: 1.0,
            gear_down: true,
            flaps: 0.5,
            pitch,
            ..Controls::default()
        };
        let ev = step(&m, &mut s, &c, &w.env(tick));
        assert!(
            s.crashed.is_none(),
            "crashed at {:.1} s",
            tick as f64 / 60.0
        );
        if ev.liftoff && liftoff.is_none() {
            liftoff = Some((tick, (s.position - start).length(), o.tas_mps));
        }
        if o.altitude_m > 50.0 {
            fifty = Some(tick);
            break;
        }
    }
    let (lt, roll_m, v_lof) = liftoff.unwrap_or_else(|| panic!("never lifted off"));
    println!(
        "stall {vs:.1} m/s; lift-off after {roll_m:.0} m, {:.1} s, at {v_lof:.1} m/s; 50 m after {:.1} s",
        lt as f64 / 60.0,
        fifty.map_or(f64::NAN, |t| t as f64 / 60.0)
    );
    // The Nevada runway is 2,500 m long.
    assert!(roll_m < 1200.0, "ground roll {roll_m:.0} m");
    assert!(
        v_lof < 1.4 * vs,
        "lift-off at {v_lof:.1} m/s (stall {vs:.1})"
    );
    let t50 = fifty.unwrap_or_else(|| panic!("never climbed past 50 m"));
    assert!(t50 < 60 * 45, "50 m after {:.1} s", t50 as f64 / 60.0);
    assert!(
        (s.position - start).x.abs() < 20.0,
        "veered {:.1} m off the centreline",
        (s.position - start).x
    );
}

#[test]
fn trims_level_and_holds_it_hands_off() {
    let w = CalmWorld::default();
    let m = model();
    for (alt, tas) in [(1000.0, 130.0), (6000.0, 200.0)] {
        let t = trim_level(&m, &w.planet, alt, tas, 0.5 * m.max_fuel_kg, 0.0)
            .unwrap_or_else(|| panic!("no trim at {alt} m, {tas} m/s"));
        let c = t.controls;
        assert!(
            c.throttle > 0.0 && c.throttle < 1.0,
            "throttle {}",
            c.throttle
        );
        assert!(c.pitch.abs() < 0.5, "trim elevator {}", c.pitch);
        let mut s = t.state;
        let (mut worst_alt, mut worst_v): (f64, f64) = (0.0, 0.0);
        for tick in 0..3600 {
            step(&m, &mut s, &c, &w.env(tick));
            let o = outputs(&m, &s, &w.env(tick));
            worst_alt = worst_alt.max((o.altitude_m - alt).abs());
            worst_v = worst_v.max((o.tas_mps - tas).abs() / tas);
        }
        assert!(
            worst_alt < 30.0,
            "{alt}/{tas}: altitude wandered {worst_alt:.1} m"
        );
        assert!(
            worst_v < 0.02,
            "{alt}/{tas}: speed wandered {:.2} %",
            worst_v * 100.0
        );
    }
}

//! With no pack at all the builtin types exist, and the builtin jet trainer flies well enough to
//! enjoy: it validates cleanly, meets its own performance gates, trims level across the envelope,
//! holds its trim hands-off, damps disturbances, recovers from a full-aft-stick stall and takes off
//! from a runway under full power. Every check steps the same `fl-flight` code the server runs.

use fl_content::builtin::{self, DEBUG_ENTITY, JET_TRAINER, JET_TRAINER_FLIGHT_MODEL};
use fl_content::{AssetKind, Category, Content, ResolvedAsset, TypeSource};
use fl_flight::integrator::{CalmWorld, FlightOutputs, outputs, step};
use fl_flight::math::Vec3;
use fl_flight::model::AircraftModel;
use fl_flight::perf::{Condition, Power, Trimmer};
use fl_flight::schema::parse_flight_model;
use fl_flight::spawn::{parked, trim_level};
use fl_flight::state::{AircraftState, Controls};
use std::path::Path;
use std::sync::Arc;

fn content() -> Content {
    Content::builtin().unwrap_or_else(|e| panic!("{e}"))
}

fn trainer() -> Arc<AircraftModel> {
    content()
        .flight_model(JET_TRAINER_FLIGHT_MODEL)
        .cloned()
        .unwrap_or_else(|| panic!("the builtin flight model is not loaded"))
}

/// Bank angle, degrees (the tests only use its magnitude).
fn bank_deg(s: &AircraftState) -> f64 {
    let right = s.orientation.rotate(Vec3::new(1.0, 0.0, 0.0));
    right.y.clamp(-1.0, 1.0).asin().to_degrees()
}

#[test]
fn builtin_types_exist_without_any_pack() {
    let c = content();
    assert!(c.packs().is_empty());
    assert!(c.warnings().is_empty(), "{:?}", c.warnings());
    let ids: Vec<&str> = c.types().iter().map(|t| t.id()).collect();
    assert_eq!(ids, [DEBUG_ENTITY, JET_TRAINER]);
    assert_eq!(c.type_index(DEBUG_ENTITY), Some(0));
    assert_eq!(c.type_index(builtin::DEFAULT_PLAYER_TYPE), Some(1));

    let debug = c
        .entity_type(DEBUG_ENTITY)
        .unwrap_or_else(|| panic!("debug entity"));
    assert_eq!(debug.source, TypeSource::Builtin);
    assert_eq!(debug.def.category, Category::AirVehicle);
    assert!(
        debug.flight_model.is_none(),
        "the debug entity does not fly"
    );
    assert!(
        debug.def.mesh.is_none(),
        "the debug entity is drawn as the placeholder"
    );
    let r = c.type_record(0).unwrap_or_else(|| panic!("record 0"));
    assert_eq!(
        (
            r.id.as_str(),
            r.name.as_str(),
            r.mesh.as_str(),
            r.flight_model.as_str()
        ),
        (DEBUG_ENTITY, "Debug Entity", "", "")
    );

    let jet = c
        .entity_type(JET_TRAINER)
        .unwrap_or_else(|| panic!("trainer"));
    assert!(jet.flight_model.is_some());
    // One station: the builtin gun, loaded by default.
    assert_eq!(jet.def.hardpoints.len(), 1);
    let hp = &jet.def.hardpoints[0];
    assert_eq!(hp.allowed, vec![builtin::GUN_20MM.to_owned()]);
    assert_eq!(hp.default.as_deref(), Some(builtin::GUN_20MM));
    let gun = c
        .weapon(builtin::GUN_20MM)
        .unwrap_or_else(|| panic!("the builtin gun"));
    assert_eq!(gun.rounds, 300);
    let g = gun.gun.unwrap_or_else(|| panic!("gun parameters"));
    assert!((g.rate_of_fire_rpm - 1200.0).abs() < 1e-9);
    assert!((g.muzzle_velocity_mps - 1900.0 * 1852.0 / 3600.0).abs() < 1e-6);
    let r = c.type_record(1).unwrap_or_else(|| panic!("record 1"));
    assert_eq!(r.flight_model, JET_TRAINER_FLIGHT_MODEL);
    // The gun's ammunition is the whole payload (150 lb, no drag).
    assert!(
        (r.payload_mass_kg - 150.0 * 0.453_592_37).abs() < 0.01,
        "{}",
        r.payload_mass_kg
    );
    assert_eq!((r.payload_cd0, r.category), (0.0, 0));
}

#[test]
fn builtin_flight_model_bytes_are_served_by_asset_name() {
    let c = content();
    let bytes = c
        .read_asset(AssetKind::FlightModel, JET_TRAINER_FLIGHT_MODEL)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bytes, builtin::JET_TRAINER_TOML.as_bytes());
    assert!(matches!(
        c.resolve_asset(AssetKind::FlightModel, JET_TRAINER_FLIGHT_MODEL),
        Ok(ResolvedAsset::Builtin(_))
    ));
    assert!(
        c.read_asset(AssetKind::Mesh, "builtin/jet-trainer")
            .is_err()
    );
    // The client resolves the wire's flight-model name to the very same model.
    let (m, w) = c
        .load_flight_model(JET_TRAINER_FLIGHT_MODEL)
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(w.is_empty());
    assert_eq!(*m, *trainer());
}

#[test]
fn validates_with_no_findings_at_all() {
    let p = parse_flight_model(Path::new("jet-trainer.toml"), builtin::JET_TRAINER_TOML)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let findings = fl_flight::validate::validate(&p.value);
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn meets_its_performance_gates() {
    let m = trainer();
    let file = fl_flight::perf::expect::parse_expect(
        Path::new("jet-trainer.expect.toml"),
        builtin::JET_TRAINER_EXPECT_TOML,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(file.warnings.is_empty(), "{:?}", file.warnings);
    assert_eq!(file.rows.len(), 9);
    let results = fl_flight::perf::expect::judge_all(&m, &file);
    assert_eq!(
        results.len(),
        10,
        "nine rows and the built-in placard check"
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
fn sensible_stall_and_maximum_speeds() {
    let m = trainer();
    let full = m.mass(m.max_fuel_kg, 0.0);
    let sl = Trimmer::new(
        &m,
        &Condition {
            altitude_m: 0.0,
            mass_kg: full,
            payload_cd0: 0.0,
        },
    );
    let vs = sl.stall_speed().unwrap_or(f64::NAN);
    // A light jet trainer stalls clean between ~90 and ~115 kt.
    assert!((46.0..60.0).contains(&vs), "stall {vs} m/s");
    let (v_min, v_max) = sl
        .level_band(Power::Military)
        .unwrap_or((f64::NAN, f64::NAN));
    assert!(
        v_min < vs * 1.05 && v_max > 3.5 * vs,
        "level band {v_min}..{v_max}"
    );
    // Fast enough to be fun, slower than its placard everywhere it can fly level.
    for alt in [0.0, 3000.0, 6000.0, 9000.0, 11000.0] {
        let t = Trimmer::new(
            &m,
            &Condition {
                altitude_m: alt,
                mass_kg: full,
                payload_cd0: 0.0,
            },
        );
        let mach = t.max_level_mach(Power::Military).unwrap_or(f64::NAN);
        assert!(
            (0.6..=m.max_mach).contains(&mach),
            "{alt} m: max level M{mach}"
        );
    }
    // Climbs like a trainer, with a ceiling in the teens of kilometres, not the stratosphere.
    let (roc, _) = sl.best_climb(Power::Military).unwrap_or((f64::NAN, 0.0));
    assert!((20.0..45.0).contains(&roc), "sea-level climb {roc} m/s");
    let high = Trimmer::new(
        &m,
        &Condition {
            altitude_m: 15_000.0,
            mass_kg: full,
            payload_cd0: 0.0,
        },
    );
    assert!(
        high.best_climb(Power::Military)
            .is_none_or(|(r, _)| r < 1.0),
        "still climbing at 15 km"
    );
    // The structure, not the wing, limits the turn at speed: 7 g is reachable above corner speed.
    let corner = sl.corner_speed(Power::Military).unwrap_or(f64::NAN);
    assert!((110.0..170.0).contains(&corner), "corner {corner} m/s");
}

#[test]
fn trims_level_and_holds_it_hands_off_for_sixty_seconds() {
    let w = CalmWorld::default();
    let m = trainer();
    for (alt, tas) in [
        (500.0, 90.0),
        (1000.0, 130.0),
        (3000.0, 150.0),
        (6000.0, 200.0),
        (9000.0, 200.0),
    ] {
        let t = trim_level(&m, &w.planet, alt, tas, 0.5 * m.max_fuel_kg, 0.0)
            .unwrap_or_else(|| panic!("no trim at {alt} m, {tas} m/s"));
        let c = t.controls;
        assert!(
            c.throttle > 0.0 && c.throttle < 1.0,
            "{alt}/{tas}: throttle {}",
            c.throttle
        );
        assert!(
            c.pitch.abs() < 0.5,
            "{alt}/{tas}: trim elevator {}",
            c.pitch
        );
        let a = t.alpha.to_degrees();
        assert!((-3.0..8.0).contains(&a), "{alt}/{tas}: trim alpha {a}");
        let mut s = t.state;
        let mut worst_alt: f64 = 0.0;
        let mut worst_v: f64 = 0.0;
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
        assert!(
            bank_deg(&s).abs() < 0.5,
            "{alt}/{tas}: banked {}",
            bank_deg(&s)
        );
        assert!(
            s.body_rates.length() < 0.01,
            "{alt}/{tas}: rates {:?}",
            s.body_rates
        );
    }
}

#[test]
fn disturbances_die_out_hands_off() {
    let w = CalmWorld::default();
    let m = trainer();
    for (alt, tas) in [(3000.0, 150.0), (6000.0, 200.0)] {
        for (label, pulse) in [
            (
                "pitch pulse",
                Controls {
                    pitch: 0.15,
                    ..Controls::default()
                },
            ),
            (
                "roll doublet",
                Controls {
                    roll: 0.3,
                    ..Controls::default()
                },
            ),
            (
                "rudder kick",
                Controls {
                    yaw: 0.3,
                    ..Controls::default()
                },
            ),
        ] {
            let t = trim_level(&m, &w.planet, alt, tas, 0.5 * m.max_fuel_kg, 0.0)
                .unwrap_or_else(|| panic!("trim {alt}/{tas}"));
            let trim = t.controls;
            let mut s = t.state;
            let mut at10: Option<(f64, FlightOutputs)> = None;
            let mut max_alpha: f64 = f64::MIN;
            let mut worst_alt: f64 = 0.0;
            for tick in 0..3600u64 {
                // Half a second of input (a doublet reverses for the second half-second), then
                // hands off at the trim setting.
                let c = match tick {
                    0..30 => Controls {
                        pitch: trim.pitch + pulse.pitch,
                        roll: pulse.roll,
                        yaw: pulse.yaw,
                        ..trim
                    },
                    30..60 if pulse.roll != 0.0 => Controls {
                        roll: -pulse.roll,
                        ..trim
                    },
                    _ => trim,
                };
                step(&m, &mut s, &c, &w.env(tick));
                assert!(
                    s.is_finite() && s.crashed.is_none(),
                    "{label} at {alt}: {s:?}"
                );
                let o = outputs(&m, &s, &w.env(tick));
                max_alpha = max_alpha.max(o.alpha_deg);
                worst_alt = worst_alt.max((o.altitude_m - alt).abs());
                if tick == 599 {
                    at10 = Some((bank_deg(&s), o));
                }
            }
            let o = outputs(&m, &s, &w.env(3600));
            let (bank10, _) = at10.unwrap_or((0.0, o));
            let bank60 = bank_deg(&s);
            assert!(
                max_alpha < 16.0 - 6.0,
                "{label} at {alt}: alpha reached {max_alpha}"
            );
            assert!(
                worst_alt < 250.0,
                "{label} at {alt}: altitude excursion {worst_alt:.0} m"
            );
            assert!(
                (o.tas_mps - tas).abs() < 0.1 * tas,
                "{label} at {alt}: speed {}",
                o.tas_mps
            );
            assert!(
                o.beta_deg.abs() < 0.2,
                "{label} at {alt}: sideslip {} (Dutch roll undamped)",
                o.beta_deg
            );
            // The spiral mode converges: the bank left by the disturbance shrinks, never grows.
            assert!(
                bank60.abs() <= bank10.abs() + 0.1,
                "{label} at {alt}: bank {bank10:.1} -> {bank60:.1}"
            );
            assert!(
                bank60.abs() < 15.0,
                "{label} at {alt}: bank {bank60:.1} after a minute"
            );
            assert!(
                s.body_rates.length() < 0.03,
                "{label} at {alt}: rates {:?}",
                s.body_rates
            );
        }
    }
}

#[test]
fn a_full_aft_stick_stall_recovers_when_the_stick_is_released() {
    let w = CalmWorld::default();
    let m = trainer();
    let t = trim_level(&m, &w.planet, 3000.0, 100.0, 0.5 * m.max_fuel_kg, 0.0)
        .unwrap_or_else(|| panic!("trim"));
    let trim = t.controls;
    let mut s = t.state;
    let mut stalled = false;
    let mut max_rate: f64 = 0.0;
    // Ten seconds of full aft stick at low power, then let go.
    for tick in 0..600u64 {
        let c = Controls {
            pitch: 1.0,
            throttle: 0.2,
            ..trim
        };
        step(&m, &mut s, &c, &w.env(tick));
        stalled |= outputs(&m, &s, &w.env(tick)).stalled;
        max_rate = max_rate.max(s.body_rates.length());
    }
    assert!(stalled, "full aft stick never reached the stall");
    let mut recovered_at = None;
    for tick in 600..600 + 60 * 30u64 {
        step(&m, &mut s, &trim, &w.env(tick));
        let o = outputs(&m, &s, &w.env(tick));
        max_rate = max_rate.max(s.body_rates.length());
        if recovered_at.is_none() && !o.stalled && o.alpha_deg < 12.0 && o.tas_mps > 60.0 {
            recovered_at = Some(tick - 600);
        }
        assert!(s.crashed.is_none());
    }
    let ticks = recovered_at.unwrap_or_else(|| panic!("never recovered"));
    assert!(
        ticks < 60 * 15,
        "recovery took {:.1} s",
        ticks as f64 / 60.0
    );
    assert!(
        max_rate < 1.5,
        "departed: body rate {max_rate:.2} rad/s (a spin, not a stall)"
    );
    assert!(
        bank_deg(&s).abs() < 30.0,
        "ended in a {:.0}° bank",
        bank_deg(&s)
    );
}

#[test]
fn takes_off_from_a_runway_under_full_power() {
    let w = CalmWorld::default();
    let m = trainer();
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
    let mut liftoff = None;
    let mut fifty = None;
    for tick in 0..60 * 90u64 {
        let o = outputs(&m, &s, &w.env(tick));
        // Rotate at 1.15 Vs towards ~9° of alpha, as a pilot would.
        let pitch = if o.tas_mps > 1.15 * vs {
            (0.5 - 0.08 * (o.alpha_deg - 9.0)).clamp(-1.0, 1.0)
        } else {
            0.0
        };
        let c = Controls {
            throttle: 1.0,
            gear_down: true,
            pitch,
            ..Controls::default()
        };
        let ev = step(&m, &mut s, &c, &w.env(tick));
        assert!(
            s.crashed.is_none(),
            "crashed during the take-off at {:.1} s",
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
    assert!(roll_m < 900.0, "ground roll {roll_m:.0} m");
    assert!(lt < 60 * 35, "lift-off after {:.1} s", lt as f64 / 60.0);
    assert!(
        v_lof > vs && v_lof < 1.4 * vs,
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

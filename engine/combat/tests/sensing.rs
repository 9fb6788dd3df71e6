//! Sensing flows over the fixture pack's own sensor defs, signatures and terrain: masking by a
//! real ridge, notching, measured probability of detection against the defs, lock coasting,
//! radar modes, the datalink picture, and hostile inputs.

mod sensing_support;
use sensing_support as support;

use fl_combat::sensing::{
    CheckTime, ContactState, Doppler, Emitter, EntityId, Environment, Gates, Identification, Lobe,
    LosConfig, Miss, Observer, RadarMode, Relation, Sensing, SensingWorld, SensorKind, SensorSpec,
    Signatures, Target, ThreatLevel, evaluate_sensor, fuse_team, invert_emissions, line_of_sight,
    picture_for, pod_at_rate, rwr_for,
};
use fl_flight::env::{FlatFloor, Floor, FloorSample};
use fl_flight::gravity::Planet;
use fl_flight::math::{Quat, Vec3};
use support::{look_at, on_meridian};

const DT: f64 = 0.1;
static FLAT: FlatFloor = FlatFloor { height_m: 0.0 };

fn world(floor: &(dyn Floor + Sync), seed: u64) -> SensingWorld<'_> {
    SensingWorld {
        planet: Planet::earth(),
        floor,
        los: LosConfig::default(),
        env: Environment::default(),
        seed,
    }
}

fn observer(id: u32, planet: &Planet, at: Vec3, facing: Vec3) -> Observer {
    Observer {
        id: EntityId::new(id, 1),
        position: at,
        orientation: look_at(planet, at, facing),
        skill: 0.5,
    }
}

fn target(id: u32, at: Vec3, velocity: Vec3) -> Target {
    Target {
        id: EntityId::new(id, 1),
        position: at,
        velocity,
        forward: velocity.normalize_or_zero(),
        signatures: Signatures::BASELINE,
        ground_m: None,
    }
}

fn time(tick: u64) -> CheckTime {
    CheckTime {
        tick,
        interval_s: DT,
    }
}

/// A radar in the pack's shape without needing the pack (apg66's numbers, for the tests that
/// must also run where the reference material is absent).
fn test_radar() -> SensorSpec {
    SensorSpec::new(
        SensorKind::Radar,
        true,
        false,
        Lobe::from_pack_units(60.0, 30.0, 0.5, 30.0, 0.35, 0.0),
        Some(Lobe::from_pack_units(55.0, 25.0, 0.3, 22.0, 0.70, 4.0)),
    )
}

/// Runs `checks` checks from `tick0`; how many of them ended with the first target held.
fn held_checks(
    s: &mut Sensing,
    sensors: &[SensorSpec],
    obs: &Observer,
    tgts: &[Target],
    w: &SensingWorld<'_>,
    tick0: u64,
    checks: u64,
) -> u64 {
    let tgt = tgts[0].id;
    (0..checks)
        .filter(|k| {
            s.check(sensors, obs, tgts, w, &time(tick0 + 6 * k));
            s.contact(tgt).is_some()
        })
        .count() as u64
}

#[test]
fn every_pack_sensor_converts_to_a_usable_spec() {
    let Some(pack) = support::pack() else { return };
    let mut n = 0;
    let mut files: Vec<_> = std::fs::read_dir(pack.join("sensors"))
        .expect("sensors dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    for p in files {
        let spec = support::sensor_file(&p);
        assert_eq!(spec.validate(), Ok(()), "{}", p.display());
        n += 1;
    }
    assert!(n >= 15, "{n} sensor files");
    let eye = support::sensor(&pack, "eyeball_day");
    assert_eq!(eye.kind, SensorKind::Visual);
    assert!(eye.track.is_none() && eye.coast_s() == 0.0);
    assert!(support::sensor(&pack, "1s91").omnidirectional);
    assert!(matches!(
        support::sensor(&pack, "n019").doppler,
        Doppler::PulseDoppler { .. }
    ));
}

#[test]
fn fl_content_sensor_defs_convert_to_the_same_specs() {
    let Some(pack) = support::pack() else { return };
    let content = support::content(&pack);
    let mut n = 0;
    for def in content.sensors() {
        let spec = fl_combat::sensing::from_content::spec_from_def(def);
        assert_eq!(spec.validate(), Ok(()), "{}", def.id);
        // The same numbers as this crate's own reading of the file.
        // Builtin defs name their repository path (assets/builtin/…), pack defs a full path.
        let file = if def.file.is_relative() {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(&def.file)
        } else {
            def.file.clone()
        };
        let mine = support::sensor_file(&file);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
        assert_eq!(
            (spec.kind, spec.emitter, spec.omnidirectional),
            (mine.kind, mine.emitter, mine.omnidirectional),
            "{}",
            def.id
        );
        let pairs = [(spec.search, mine.search)]
            .into_iter()
            .chain(spec.track.zip(mine.track));
        for (a, b) in pairs {
            assert!(close(a.max_range_m, b.max_range_m), "{}", def.id);
            assert!(close(a.min_range_m, b.min_range_m), "{}", def.id);
            assert!(
                close(a.pod, b.pod) && close(a.lock_hold_s, b.lock_hold_s),
                "{}",
                def.id
            );
            if !spec.omnidirectional {
                assert!(close(a.az_half_rad, b.az_half_rad), "{}", def.id);
                assert!(close(a.el_half_rad, b.el_half_rad), "{}", def.id);
            }
        }
        assert_eq!(spec.track.is_some(), mine.track.is_some(), "{}", def.id);
        assert!(close(spec.coast_s(), mine.coast_s()), "{}", def.id);
        n += 1;
    }
    assert!(n >= 15, "{n} sensors");
}

/// The Spring Mountains (NTTR, ~36.2° N) stand 2–2.4 km high between the Pahrump valley and the
/// Las Vegas valley, both under 1 km.
#[test]
fn a_target_behind_a_real_ridge_is_not_detected() {
    let Some(pack) = support::pack() else { return };
    let terrain = support::terrain(&pack);
    let planet = Planet::earth();
    let r = planet.radius_m;
    let at = |lat: f64, lon: f64, agl: f64| {
        fl_terrain::cube::latlon_to_world(r, lat, lon, terrain.height_at(lat, lon) + agl)
    };
    // The ridge really is there (read from the tiles, not assumed).
    let crest = (0..=20)
        .map(|k| terrain.height_at(36.2, -115.85 + 0.02 * f64::from(k)))
        .fold(f64::MIN, f64::max);
    let ends = terrain
        .height_at(36.2, -116.0)
        .max(terrain.height_at(36.2, -115.25));
    assert!(crest > ends + 1000.0, "crest {crest} m, ends {ends} m");

    // A ground radar watching the whole sky on the Pahrump side; a truck-low aircraft beyond
    // the ridge (~67 km), and the same aircraft high above it.
    let mut radar = support::sensor(&pack, "1s91");
    radar.search.max_range_m = 100_000.0; // reach past the ridge: range is not what is tested
    let sam = at(36.2, -116.0, 5.0);
    let low = at(36.2, -115.25, 150.0);
    let high = at(36.2, -115.25, 6000.0);
    let w = world(&terrain, 11);
    assert!(!line_of_sight(&terrain, &planet, sam, low, &w.los));
    assert!(line_of_sight(&terrain, &planet, sam, high, &w.los));
    // Over flat ground the low one would be in plain view: it is the ridge that hides it.
    assert!(line_of_sight(&FLAT, &planet, sam, low, &w.los));

    let obs = observer(1, &planet, sam, low);
    let sensors = [radar];
    for (pos, expect_seen) in [(low, false), (high, true)] {
        let tgt = target(2, pos, Vec3::new(200.0, 0.0, 0.0));
        let mut s = Sensing::default();
        let held = held_checks(&mut s, &sensors, &obs, &[tgt], &w, 0, 200);
        assert_eq!(held > 0, expect_seen, "target at {pos:?}: held {held}/200");
        let e = evaluate_sensor(&radar, 0, &obs, &tgt, &w, &time(0), &Gates::default());
        assert_eq!(e.miss == Some(Miss::Masked), !expect_seen, "{e:?}");
    }
}

/// A Gaussian ridge across the meridian: the same check without the reference material.
struct Hill;
impl Floor for Hill {
    fn sample(&self, planet: &Planet, p: Vec3) -> FloorSample {
        FloorSample {
            height_m: self.height_m(planet, p),
            normal: planet.up(p),
            velocity: Vec3::ZERO,
        }
    }
    fn height_m(&self, _: &Planet, p: Vec3) -> f64 {
        let u = (p.z + 15_000.0) / 1_500.0;
        1_200.0 * fl_flight::math::exp(-u * u)
    }
}

#[test]
fn a_target_behind_a_hill_is_not_detected_and_one_above_it_is() {
    let planet = Planet::earth();
    let hill = Hill;
    let w = world(&hill, 3);
    let me = on_meridian(&planet, 0.0, 300.0);
    let sensors = [test_radar()];
    for (alt, expect) in [(300.0, false), (4000.0, true)] {
        let there = on_meridian(&planet, 30_000.0, alt);
        let obs = observer(1, &planet, me, there);
        let tgt = target(2, there, Vec3::new(250.0, 0.0, 0.0));
        let mut s = Sensing::default();
        let held = held_checks(&mut s, &sensors, &obs, &[tgt], &w, 0, 100);
        assert_eq!(held > 0, expect, "alt {alt}: held {held}");
    }
    // A held target that dives behind the hill starts its coast within the line-of-sight
    // recheck interval, whatever check in that interval it dives on.
    let recheck = u64::from(fl_combat::sensing::SensingLimits::default().los_recheck_checks);
    for dive_at in 0..recheck {
        let high = on_meridian(&planet, 30_000.0, 4000.0);
        let low = on_meridian(&planet, 30_000.0, 300.0);
        let obs = observer(1, &planet, me, high);
        let mut s = Sensing::default();
        let mut tgt = target(2, high, Vec3::new(250.0, 0.0, 0.0));
        let mut k = 0;
        while s.contact(tgt.id).is_none() {
            s.check(&sensors, &obs, &[tgt], &w, &time(6 * k));
            k += 1;
        }
        for _ in 0..dive_at {
            s.check(&sensors, &obs, &[tgt], &w, &time(6 * k));
            k += 1;
        }
        tgt.position = low;
        let mut seen_after = 0;
        loop {
            s.check(&sensors, &obs, &[tgt], &w, &time(6 * k));
            k += 1;
            if s.contact(tgt.id).map(|c| c.state) == Some(ContactState::Coasting) {
                break;
            }
            seen_after += 1;
            assert!(
                seen_after < recheck,
                "still seen {seen_after} checks after diving"
            );
        }
    }
}

#[test]
fn a_notching_target_drops_a_look_down_radar_but_not_a_look_up_one() {
    let planet = Planet::earth();
    let w = world(&FLAT, 5);
    let sensors = [test_radar()];
    let high = on_meridian(&planet, 0.0, 6000.0);
    let low_far = on_meridian(&planet, 20_000.0, 300.0);
    let low = on_meridian(&planet, 0.0, 300.0);
    let high_far = on_meridian(&planet, 20_000.0, 6000.0);
    // Beaming: flying across the line of sight (world X is horizontal and across the meridian
    // here); closing: flying towards the radar along the meridian.
    let beam = Vec3::new(250.0, 0.0, 0.0);
    let closing = Vec3::new(0.0, 0.0, 250.0);
    let cases = [
        ("look-down, beaming", high, low_far, beam, false),
        ("look-down, closing", high, low_far, closing, true),
        ("look-up, beaming", low, high_far, beam, true),
    ];
    for (what, from, to, v, expect) in cases {
        let obs = observer(1, &planet, from, to);
        let tgt = target(2, to, v);
        let mut s = Sensing::default();
        let held = held_checks(&mut s, &sensors, &obs, &[tgt], &w, 0, 100);
        assert_eq!(held > 0, expect, "{what}: held {held}/100");
        let e = evaluate_sensor(&sensors[0], 0, &obs, &tgt, &w, &time(0), &Gates::default());
        assert_eq!(e.miss == Some(Miss::Notched), !expect, "{what}: {e:?}");
    }
    // A held contact that turns to beam is dropped too (after its coast).
    let obs = observer(1, &planet, high, low_far);
    let mut s = Sensing::default();
    let mut tgt = target(2, low_far, closing);
    assert!(held_checks(&mut s, &sensors, &obs, &[tgt], &w, 0, 100) > 0);
    tgt.velocity = beam;
    s.check(&sensors, &obs, &[tgt], &w, &time(10_000));
    assert_eq!(
        s.contact(tgt.id).map(|c| c.state),
        Some(ContactState::Coasting)
    );
    // That check was the first miss; the check `hold` s after it drops the contact.
    let hold = sensors[0].coast_s();
    let n = (hold / DT).round() as u64;
    assert_eq!(
        held_checks(&mut s, &sensors, &obs, &[tgt], &w, 10_006, n + 5),
        n - 1,
        "coasts {hold} s, then drops"
    );
    // IR does not notch; a seeker with no notch susceptibility is not notched either.
    let mut ir = test_radar();
    ir.kind = SensorKind::Ir;
    ir.emitter = false;
    ir.doppler = Doppler::default_for(SensorKind::Ir);
    let tgt = target(2, low_far, beam);
    let e = evaluate_sensor(&ir, 0, &obs, &tgt, &w, &time(0), &Gates::default());
    assert_eq!(e.miss, None);
    let seeker = Gates {
        notch_factor: 0.0,
        ..Gates::default()
    };
    let e = evaluate_sensor(&sensors[0], 0, &obs, &tgt, &w, &time(0), &seeker);
    assert_eq!(e.miss, None);
}

/// Acquisition rate over many seeded trials against a binomial tolerance (4.5 σ).
fn measured_rate(spec: &SensorSpec, skill: f64, interval_s: f64, trials: u32) -> f64 {
    let planet = Planet::earth();
    let w = world(&FLAT, 0x5eed);
    let me = on_meridian(&planet, 0.0, 5000.0);
    let there = on_meridian(&planet, 0.6 * spec.search.max_range_m, 5000.0);
    let sensors = [*spec];
    let tgt = target(9_999, there, Vec3::new(0.0, 0.0, -200.0));
    let hits = (0..trials)
        .filter(|&i| {
            let mut obs = observer(i, &planet, me, there);
            obs.skill = skill;
            let mut s = Sensing::default();
            s.check(
                &sensors,
                &obs,
                &[tgt],
                &w,
                &CheckTime {
                    tick: 777,
                    interval_s,
                },
            );
            s.contact(tgt.id).is_some()
        })
        .count();
    hits as f64 / f64::from(trials)
}

fn assert_binomial(measured: f64, p: f64, n: u32, what: &str) {
    let sigma = (p * (1.0 - p) / f64::from(n)).sqrt();
    assert!(
        (measured - p).abs() <= 4.5 * sigma + 1e-12,
        "{what}: measured {measured:.4}, expected {p:.4} ± {:.4}",
        4.5 * sigma
    );
}

#[test]
fn measured_detection_probability_matches_the_defs_pod() {
    let Some(pack) = support::pack() else { return };
    let n = 6000;
    for name in [
        "apg66",
        "apq159",
        "eyeball_day",
        "oeps29",
        "aim9p_seeker",
        "1s91",
    ] {
        let spec = support::sensor(&pack, name);
        let p = spec.search.pod;
        assert_binomial(measured_rate(&spec, 0.5, DT, n), p, n, name);
    }
    // At another cadence the per-check probability converts so the rate per second holds.
    let spec = support::sensor(&pack, "apg66");
    let p30 = pod_at_rate(spec.search.pod, 30.0);
    assert!(p30 < spec.search.pod);
    assert_binomial(
        measured_rate(&spec, 0.5, 1.0 / 30.0, n),
        p30,
        n,
        "apg66 at 30 Hz",
    );
    // Skill scales it up: 0.5 + skill.
    assert_binomial(
        measured_rate(&spec, 1.0, DT, n),
        1.5 * spec.search.pod,
        n,
        "apg66, skill 1",
    );
}

#[test]
fn time_to_lock_follows_the_track_pod() {
    // Once detected, the lock comes on the track die: the fraction locked on the first check
    // after detection is the track lobe's pod.
    let planet = Planet::earth();
    let w = world(&FLAT, 77);
    let spec = test_radar();
    let me = on_meridian(&planet, 0.0, 5000.0);
    let there = on_meridian(&planet, 20_000.0, 5000.0);
    let tgt = target(50_000, there, Vec3::new(0.0, 0.0, -200.0));
    let n = 4000;
    let mut locked_next = 0u32;
    let mut trials = 0u32;
    for i in 0..n {
        let obs = observer(i, &planet, me, there);
        let mut s = Sensing::default();
        let mut tick = 0;
        while s.contact(tgt.id).is_none() {
            s.check(&[spec], &obs, &[tgt], &w, &time(tick));
            tick += 6;
            assert!(tick < 6_000);
        }
        // The acquiring check itself may already lock: count only contacts still Detected.
        if s.contact(tgt.id).map(|c| c.state) != Some(ContactState::Detected) {
            continue;
        }
        s.check(&[spec], &obs, &[tgt], &w, &time(tick));
        trials += 1;
        locked_next += u32::from(s.contact(tgt.id).map(|c| c.state) == Some(ContactState::Locked));
    }
    let p = spec.track.expect("track lobe").pod;
    assert!(trials > 500, "{trials}");
    assert_binomial(
        f64::from(locked_next) / f64::from(trials),
        p,
        trials,
        "lock",
    );
}

#[test]
fn a_lock_is_held_through_a_short_gap_and_lost_after_lock_hold() {
    let planet = Planet::earth();
    let w = world(&FLAT, 21);
    let spec = test_radar();
    let hold = spec.coast_s();
    let me = on_meridian(&planet, 0.0, 5000.0);
    let there = on_meridian(&planet, 20_000.0, 5000.0);
    let behind = on_meridian(&planet, -20_000.0, 5000.0);
    for seed_obs in 0..50 {
        let obs = observer(seed_obs, &planet, me, there);
        let tgt_in = target(50_000, there, Vec3::new(0.0, 0.0, -200.0));
        let tgt_out = Target {
            position: behind,
            ..tgt_in
        };
        let mut s = Sensing::default();
        let mut tick = 0;
        while s.contact(tgt_in.id).map(|c| c.state) != Some(ContactState::Locked) {
            s.check(&[spec], &obs, &[tgt_in], &w, &time(tick));
            tick += 6;
            assert!(tick < 60_000, "never locked");
        }
        // A 2 s gap (behind the radar): coasting, then locked again at once, no die.
        for _ in 0..20 {
            s.check(&[spec], &obs, &[tgt_out], &w, &time(tick));
            tick += 6;
            let c = s.contact(tgt_in.id).expect("coasting");
            assert_eq!(c.state, ContactState::Coasting);
            assert_eq!(c.position, there, "last-known position, not the truth");
        }
        s.check(&[spec], &obs, &[tgt_in], &w, &time(tick));
        tick += 6;
        assert_eq!(
            s.contact(tgt_in.id).map(|c| c.state),
            Some(ContactState::Locked),
            "observer {seed_obs}"
        );
        // A gap as long as the hold: held until the check `hold` s after the first miss.
        let checks = (hold / DT).round() as u64;
        for k in 0..=checks {
            s.check(&[spec], &obs, &[tgt_out], &w, &time(tick));
            tick += 6;
            let held = s.contact(tgt_in.id).is_some();
            assert_eq!(held, k < checks, "check {k} of the gap ({hold} s hold)");
        }
        // Back in view: a new acquisition (a die), not a recovery.
        assert_eq!(s.track(tgt_in.id, 0), None);
    }
}

#[test]
fn radar_modes_silent_search_tws_stt() {
    let planet = Planet::earth();
    let w = world(&FLAT, 8);
    let mut irst = test_radar();
    irst.kind = SensorKind::Ir;
    irst.emitter = false;
    irst.doppler = Doppler::None;
    irst.head_on_factor = 1.0;
    let sensors = [test_radar(), irst];
    let me = on_meridian(&planet, 0.0, 5000.0);
    let a = on_meridian(&planet, 15_000.0, 5000.0);
    let b = on_meridian(&planet, 25_000.0, 5200.0);
    let obs = observer(1, &planet, me, a);
    let tgts = [
        target(2, a, Vec3::new(0.0, 0.0, -200.0)),
        target(3, b, Vec3::new(0.0, 0.0, -200.0)),
    ];
    let radar = SensorKind::Radar.bit();
    let run = |s: &mut Sensing, from: u64, checks: u64| {
        for k in 0..checks {
            s.check(&sensors, &obs, &tgts, &w, &time(from + 6 * k));
        }
    };

    // Silent: the radar detects nothing and paints nobody; the IRST still works.
    let mut s = Sensing::default();
    s.set_mode(RadarMode::Silent);
    for k in 0..200 {
        s.check(&sensors, &obs, &tgts, &w, &time(6 * k));
        assert!(
            s.contacts()
                .iter()
                .all(|c| c.kinds & radar == 0 && c.painting == 0)
        );
    }
    assert!(!s.contacts().is_empty(), "passive IR keeps seeing");
    // Radar only, silent: nothing at all.
    let mut s = Sensing::default();
    s.apply_mode_byte(0).expect("silent");
    for k in 0..200 {
        s.check(&sensors[..1], &obs, &tgts, &w, &time(6 * k));
        assert!(s.contacts().is_empty());
    }

    // TWS: soft locks on both, not firing quality; search strobes.
    let mut s = Sensing::default();
    run(&mut s, 0, 300);
    assert!(s.contacts().iter().all(|c| c.state == ContactState::Locked));
    assert_eq!(s.contacts().len(), 2);
    assert!(
        s.contacts()
            .iter()
            .all(|c| !c.firing_quality && c.painting == radar)
    );
    // Search: the radar's locks fall back to Detected at once.
    s.set_mode(RadarMode::Search);
    s.check(&sensors[..1], &obs, &tgts, &w, &time(10_000));
    assert!(
        s.contacts()
            .iter()
            .all(|c| c.state == ContactState::Detected)
    );
    let radar_only = [sensors[0]];
    let mut r = Sensing::default();
    r.set_mode(RadarMode::Search);
    for k in 0..300 {
        r.check(&radar_only, &obs, &tgts, &w, &time(6 * k));
        assert!(r.contacts().iter().all(|c| c.state != ContactState::Locked));
    }
    assert_eq!(r.contacts().len(), 2);
    // STT on target 3: a firing-quality lock on it alone; the other radar contact coasts out.
    r.set_mode(RadarMode::Stt);
    r.designate(Some(tgts[1].id));
    for k in 0..300 {
        r.check(&radar_only, &obs, &tgts, &w, &time(20_000 + 6 * k));
    }
    let fq: Vec<EntityId> = r
        .contacts()
        .iter()
        .filter(|c| c.firing_quality)
        .map(|c| c.target)
        .collect();
    assert_eq!(fq, vec![tgts[1].id]);
    assert_eq!(r.contacts().len(), 1, "{:?}", r.contacts());
    assert_eq!(r.firing_quality_lock().map(|c| c.target), Some(tgts[1].id));
    // Break lock (target gone from view): the designation clears and STT picks the nearest.
    let gone = [tgts[0]];
    for k in 0..300 {
        r.check(&radar_only, &obs, &gone, &w, &time(40_000 + 6 * k));
    }
    assert_eq!(r.designated(), Some(tgts[0].id));
    assert_eq!(r.firing_quality_lock().map(|c| c.target), Some(tgts[0].id));
    // A bad mode byte is refused without effect.
    assert!(r.apply_mode_byte(9).is_err());
    assert_eq!(r.mode(), RadarMode::Stt);
}

#[test]
fn tws_locks_at_most_its_capacity() {
    let planet = Planet::earth();
    let w = world(&FLAT, 4);
    let sensors = [test_radar()];
    let me = on_meridian(&planet, 0.0, 5000.0);
    let ahead = on_meridian(&planet, 10_000.0, 5000.0);
    let obs = observer(1, &planet, me, ahead);
    let tgts: Vec<Target> = (0..14)
        .map(|i| {
            let p = on_meridian(&planet, 8_000.0 + 1_500.0 * f64::from(i), 5000.0);
            target(100 + i, p, Vec3::new(0.0, 0.0, -200.0))
        })
        .collect();
    let mut s = Sensing::default();
    for k in 0..400 {
        s.check(&sensors, &obs, &tgts, &w, &time(6 * k));
    }
    let locked: Vec<u32> = s
        .contacts()
        .iter()
        .filter(|c| c.state == ContactState::Locked)
        .map(|c| c.target.index())
        .collect();
    assert_eq!(locked.len(), 10, "{locked:?}");
    assert_eq!(s.contacts().len(), 14);
}

#[test]
fn contacts_do_not_depend_on_the_order_targets_come_in() {
    let planet = Planet::earth();
    let hill = Hill;
    let w = world(&hill, 99);
    let sensors = [test_radar(), support_eyeball()];
    let me = on_meridian(&planet, 0.0, 2000.0);
    let ahead = on_meridian(&planet, 10_000.0, 2000.0);
    let obs = observer(1, &planet, me, ahead);
    let tgts: Vec<Target> = (0..40)
        .map(|i| {
            let f = f64::from(i);
            let p = on_meridian(&planet, 3_000.0 + 900.0 * f, 200.0 + 150.0 * f);
            let mut t = target(
                10 + i,
                p + Vec3::new(300.0 * (f - 20.0), 0.0, 0.0),
                Vec3::ZERO,
            );
            t.velocity = Vec3::new(60.0 * (f - 20.0), 0.0, -100.0);
            t
        })
        .collect();
    let mut rev = tgts.clone();
    rev.reverse();
    let mut dup = tgts.clone();
    dup.extend_from_slice(&tgts[..10]);
    let (mut a, mut b, mut c) = (Sensing::default(), Sensing::default(), Sensing::default());
    for k in 0..120 {
        a.check(&sensors, &obs, &tgts, &w, &time(6 * k));
        b.check(&sensors, &obs, &rev, &w, &time(6 * k));
        c.check(&sensors, &obs, &dup, &w, &time(6 * k));
        assert_eq!(a.contacts(), b.contacts(), "check {k}");
        assert_eq!(a.contacts(), c.contacts(), "check {k}");
    }
    assert!(!a.contacts().is_empty());
}

fn support_eyeball() -> SensorSpec {
    SensorSpec::new(
        SensorKind::Visual,
        false,
        false,
        Lobe::from_pack_units(90.0, 60.0, 0.0, 8.0, 0.15, 0.0),
        None,
    )
}

#[test]
fn datalink_fuses_a_wingmans_contact_and_the_rwr_hears_the_lock() {
    let planet = Planet::earth();
    let w = world(&FLAT, 31);
    let radar = [test_radar()];
    let lead_pos = on_meridian(&planet, 0.0, 5000.0);
    let wing_pos = on_meridian(&planet, -2_000.0, 5000.0);
    let bandit_pos = on_meridian(&planet, 20_000.0, 5000.0);
    let lead = observer(1, &planet, lead_pos, bandit_pos);
    // The wingman looks the other way and sees nothing himself.
    let wing = observer(2, &planet, wing_pos, on_meridian(&planet, -9_000.0, 5000.0));
    let bandit = target(3, bandit_pos, Vec3::new(0.0, 0.0, 200.0));
    let mut s_lead = Sensing::default();
    let mut s_wing = Sensing::default();
    s_lead.set_mode(RadarMode::Stt);
    s_lead.designate(Some(bandit.id));
    for k in 0..200 {
        s_lead.check(&radar, &lead, &[bandit], &w, &time(6 * k));
        s_wing.check(&radar, &wing, &[bandit], &w, &time(6 * k));
    }
    assert!(s_wing.contacts().is_empty());
    let c = s_lead.contact(bandit.id).expect("lead holds the bandit");
    assert!(c.firing_quality);

    let relation = |id: EntityId| {
        if id == bandit.id {
            Relation::Hostile
        } else {
            Relation::Friendly
        }
    };
    let fused = fuse_team([s_lead.contacts(), s_wing.contacts()], relation);
    let pic = picture_for(wing.id, s_wing.contacts(), &fused, wing.position, 48);
    assert_eq!(pic.len(), 1);
    assert_eq!(pic[0].target, bandit.id);
    assert!(
        !pic[0].own,
        "the wingman holds it only through the datalink"
    );
    assert_eq!(
        pic[0].ident,
        Identification::Foe,
        "the lead's STT identified it"
    );
    assert_eq!(pic[0].state, ContactState::Locked);

    let strobes = invert_emissions(
        [
            Emitter {
                id: lead.id,
                position: lead.position,
                contacts: s_lead.contacts(),
            },
            Emitter {
                id: wing.id,
                position: wing.position,
                contacts: s_wing.contacts(),
            },
        ],
        &[],
    );
    let rwr = rwr_for(
        bandit.id,
        bandit.position,
        &strobes,
        |_| Relation::Hostile,
        16,
    );
    assert_eq!(rwr.len(), 1);
    assert_eq!(rwr[0].emitter, lead.id);
    assert_eq!(rwr[0].level, ThreatLevel::Lock);
    assert_eq!(rwr[0].channel, SensorKind::Radar);
    assert_eq!(rwr[0].position, lead.position);
}

#[test]
fn hostile_inputs_never_panic_and_never_detect() {
    let planet = Planet::earth();
    let w = world(&FLAT, 1);
    let me = on_meridian(&planet, 0.0, 5000.0);
    let there = on_meridian(&planet, 15_000.0, 5000.0);
    let good_obs = observer(1, &planet, me, there);
    let good_tgt = target(2, there, Vec3::new(0.0, 0.0, -200.0));
    let nan = Vec3::new(f64::NAN, 0.0, 0.0);
    let inf = Vec3::new(0.0, f64::INFINITY, 0.0);
    let huge = Vec3::new(1e300, -1e300, 1e300);

    let mut bad_specs = Vec::new();
    let corruptions: [fn(&mut Lobe); 10] = [
        |l: &mut Lobe| l.pod = 1.5,
        |l: &mut Lobe| l.pod = f64::NAN,
        |l: &mut Lobe| l.max_range_m = 0.0,
        |l: &mut Lobe| l.max_range_m = -5000.0,
        |l: &mut Lobe| l.max_range_m = f64::INFINITY,
        |l: &mut Lobe| l.min_range_m = -1.0,
        |l: &mut Lobe| l.min_range_m = 1e9,
        |l: &mut Lobe| l.az_half_rad = f64::NAN,
        |l: &mut Lobe| l.el_half_rad = -0.5,
        |l: &mut Lobe| l.lock_hold_s = 1e9,
    ];
    for f in corruptions {
        let mut s = test_radar();
        f(&mut s.search);
        bad_specs.push(s);
        let mut s = test_radar();
        if let Some(t) = s.track.as_mut() {
            f(t);
        }
        bad_specs.push(s);
    }
    let mut s = test_radar();
    s.head_on_factor = f64::NAN;
    bad_specs.push(s);
    for spec in &bad_specs {
        assert!(spec.validate().is_err(), "{spec:?}");
        let mut st = Sensing::default();
        for k in 0..50 {
            st.check(&[*spec], &good_obs, &[good_tgt], &w, &time(6 * k));
        }
        assert!(st.contacts().is_empty(), "{spec:?}");
    }

    let spec = test_radar();
    let mut bad_obs = Vec::new();
    for p in [nan, inf, huge] {
        bad_obs.push(Observer {
            position: p,
            ..good_obs
        });
    }
    bad_obs.push(Observer {
        orientation: Quat {
            w: f64::NAN,
            x: 0.0,
            y: 0.0,
            z: 0.0,
        },
        ..good_obs
    });
    for o in &bad_obs {
        let mut st = Sensing::default();
        for k in 0..50 {
            st.check(&[spec], o, &[good_tgt], &w, &time(6 * k));
        }
        assert!(st.contacts().is_empty(), "{o:?}");
    }
    let mut bad_tgts = Vec::new();
    for p in [nan, inf, huge, me] {
        bad_tgts.push(Target {
            position: p,
            ..good_tgt
        });
    }
    for sig in [f64::NAN, -1.0, 0.0, f64::NEG_INFINITY] {
        bad_tgts.push(Target {
            signatures: Signatures {
                rcs: sig,
                ..Signatures::BASELINE
            },
            ..good_tgt
        });
    }
    for t in &bad_tgts {
        let mut st = Sensing::default();
        for k in 0..50 {
            st.check(&[spec], &good_obs, &[*t], &w, &time(6 * k));
        }
        assert!(st.contacts().is_empty(), "{t:?}");
    }
    // NaN velocity, forward, ground and interval: no panic (the notch and coast see NaN).
    let odd = Target {
        velocity: nan,
        forward: inf,
        ground_m: Some(f64::NAN),
        ..good_tgt
    };
    let mut st = Sensing::default();
    for k in 0..50 {
        st.check(
            &[spec],
            &good_obs,
            &[odd],
            &w,
            &CheckTime {
                tick: k,
                interval_s: f64::NAN,
            },
        );
    }
    assert!(
        st.contacts().is_empty(),
        "a NaN interval gives no dice a chance"
    );
    // A corrupt environment and LOS config.
    let mut w2 = world(&FLAT, 1);
    w2.env.radar_range_fraction = f64::NAN;
    w2.env.cloud = f64::INFINITY;
    w2.los.max_samples = 0;
    let mut st = Sensing::default();
    for k in 0..50 {
        st.check(&[spec], &good_obs, &[good_tgt], &w2, &time(6 * k));
    }
    assert!(st.contacts().is_empty(), "no line of sight can be proven");
    // More sensors than slots, and an empty suite: no panic.
    let many = vec![spec; 40];
    let mut st = Sensing::default();
    st.check(&many, &good_obs, &[good_tgt], &w, &time(0));
    st.check(&[], &good_obs, &[good_tgt], &w, &time(6));
    assert!(st.contacts().is_empty());
}

#[test]
fn the_picture_is_capped_and_keeps_the_nearest() {
    let planet = Planet::earth();
    let w = world(&FLAT, 12);
    let sensors = [test_radar()];
    let me = on_meridian(&planet, 0.0, 5000.0);
    let ahead = on_meridian(&planet, 10_000.0, 5000.0);
    let obs = observer(1, &planet, me, ahead);
    let tgts: Vec<Target> = (0..40)
        .map(|i| {
            let p = on_meridian(&planet, 5_000.0 + 1_000.0 * f64::from(i), 5000.0);
            target(100 + i, p, Vec3::new(0.0, 0.0, -200.0))
        })
        .collect();
    let mut s = Sensing::default();
    for k in 0..400 {
        s.check(&sensors, &obs, &tgts, &w, &time(6 * k));
        assert!(s.contacts().len() <= 32);
    }
    let held: Vec<u32> = s.contacts().iter().map(|c| c.target.index()).collect();
    let nearest: Vec<u32> = (100..132).collect();
    assert_eq!(held, nearest);
    // A target that leaves the world is forgotten at once.
    s.forget(tgts[0].id);
    assert!(s.contact(tgts[0].id).is_none());
}

#[test]
fn an_irst_sees_a_tailpipe_farther_than_a_nose() {
    let Some(pack) = support::pack() else { return };
    let planet = Planet::earth();
    let w = world(&FLAT, 6);
    let irst = support::sensor(&pack, "oeps29");
    let sig = support::signatures(&pack, "f16a");
    let me = on_meridian(&planet, 0.0, 5000.0);
    // 70% of the F-16A's IR-scaled reach: inside from behind, outside nose-on.
    let r = 0.7 * irst.search.max_range_m * sig.ir;
    let there = on_meridian(&planet, r, 5000.0);
    let obs = observer(1, &planet, me, there);
    let away = Vec3::new(0.0, 0.0, -1.0); // flying away from the observer: tail-on
    for (forward, expect) in [(away, true), (away * -1.0, false)] {
        let t = Target {
            signatures: sig,
            forward,
            ..target(2, there, forward * 200.0)
        };
        let e = evaluate_sensor(&irst, 0, &obs, &t, &w, &time(0), &Gates::default());
        assert_eq!(e.search_seen, expect, "{forward:?}: {e:?}");
    }
}

#[test]
fn a_radar_without_doppler_loses_range_looking_down_and_clutter_hides_the_deck() {
    let planet = Planet::earth();
    let w = world(&FLAT, 13);
    let high = on_meridian(&planet, 0.0, 6000.0);
    // 60% of the baseline range, below: a pulse-doppler set sees it, a plain pulse set does not.
    let spec = test_radar();
    let low_far = on_meridian(&planet, 0.6 * spec.search.max_range_m, 300.0);
    let obs = observer(1, &planet, high, low_far);
    let tgt = target(2, low_far, Vec3::new(0.0, 0.0, 250.0));
    let e = evaluate_sensor(&spec, 0, &obs, &tgt, &w, &time(0), &Gates::default());
    assert_eq!(e.miss, None);
    let pulse = SensorSpec {
        doppler: Doppler::NO_LOOK_DOWN,
        ..spec
    };
    let e = evaluate_sensor(&pulse, 0, &obs, &tgt, &w, &time(0), &Gates::default());
    assert_eq!(e.miss, Some(Miss::OutOfLobe));
    // Looking up at the same range it is unaffected.
    let low = on_meridian(&planet, 0.0, 300.0);
    let high_far = on_meridian(&planet, 0.6 * spec.search.max_range_m, 6000.0);
    let up = observer(1, &planet, low, high_far);
    let t_up = target(2, high_far, Vec3::new(0.0, 0.0, 250.0));
    let e = evaluate_sensor(&pulse, 0, &up, &t_up, &w, &time(0), &Gates::default());
    assert_eq!(e.miss, None);

    // Low-altitude clutter: acquisition on the deck at the factor's share of the pod.
    let gun_dish = SensorSpec {
        low_clutter: Some(fl_combat::sensing::LowAltitudeClutter::UNDER_60_M),
        omnidirectional: true,
        ..spec
    };
    let site = on_meridian(&planet, 0.0, 5.0);
    let n = 6000u32;
    for (agl, factor) in [(30.0, 0.25), (200.0, 1.0)] {
        let there = on_meridian(&planet, 8_000.0, agl);
        let t = target(50_000, there, Vec3::new(0.0, 0.0, 250.0));
        let hits = (0..n)
            .filter(|&i| {
                let o = observer(i, &planet, site, there);
                let mut s = Sensing::default();
                s.check(&[gun_dish], &o, &[t], &w, &time(99));
                s.contact(t.id).is_some()
            })
            .count();
        let p = spec.search.pod * factor;
        assert_binomial(hits as f64 / f64::from(n), p, n, &format!("{agl} m AGL"));
    }
}

//! Flows through the flyout: missiles against targets that fly, break and drop flares; a semi-
//! active shot losing its support; a bomb against hand-worked ballistics; gun rounds against
//! fast crossers; bit-exact replays; hostile specs.
//!
//! The weapon specs are built here from the fl-base-pack's numbers (weapons/*.toml and
//! sensors/*_seeker.toml), converted to SI once, as the integrator does.

mod support;

use fl_combat::flyout::countermeasures::Decoy;
use fl_combat::flyout::seeker::LockState;
use fl_combat::flyout::spec::{FT_M, KT_MPS, NM_M};
use fl_combat::flyout::*;
use fl_flight::atmosphere::G0;
use fl_flight::math::Vec3;
use support::*;

#[test]
fn an_aim9p_inside_its_range_hits_a_non_manoeuvring_target() {
    let ground = flat();
    let env = FlyoutEnv::earth(&ground);
    let spec = aim9p();
    let shooter = (at(0.0, 0.0), Vec3::new(250.0, 0.0, 0.0));
    let cases = [
        (
            "tail 2 km",
            Target::straight(at(2000.0, 0.0), Vec3::new(230.0, 0.0, 0.0)),
        ),
        (
            "tail 5 km",
            Target::straight(at(5000.0, 0.0), Vec3::new(230.0, 0.0, 0.0)),
        ),
        (
            "head-on 7 km",
            Target::straight(at(7000.0, 0.0), Vec3::new(-230.0, 0.0, 0.0)),
        ),
        (
            "crossing 4 km, 15 deg off",
            Target::straight(at(3864.0, 1035.0), Vec3::new(177.0, 0.0, -177.0)),
        ),
        (
            "high 3 km, 10 deg up",
            Target::straight(
                Vec3::new(2954.0, ALT + 521.0, 0.0),
                Vec3::new(200.0, 0.0, 50.0),
            ),
        ),
    ];
    for (name, target) in cases {
        let mut shot = Shot::new(&spec, &env, shooter, target, &always);
        assert_eq!(
            shot.missile.seeker.state,
            LockState::Locked,
            "{name}: locked at launch"
        );
        match shot.run(&env) {
            Outcome::Hit(d) => {
                assert!(d.miss_distance_m <= 30.0 * FT_M, "{name}: {d:?}");
                assert!(d.damage > 0.0 && d.damage <= 60.0, "{name}: {d:?}");
                println!(
                    "{name}: hit at {:.2} s, miss {:.4} m, damage {:.1}",
                    d.time_s, d.miss_distance_m, d.damage
                );
            }
            Outcome::Miss(e) => panic!("{name}: missed ({e:?})"),
        }
    }
}

#[test]
fn a_9g_break_at_the_edge_of_the_envelope_escapes() {
    let ground = flat();
    let env = FlyoutEnv::earth(&ground);
    let spec = aim9p();
    let shooter = (at(0.0, 0.0), Vec3::new(250.0, 0.0, 0.0));
    let tail = |range_m: f64| Target::straight(at(range_m, 0.0), Vec3::new(250.0, 0.0, 0.0));
    let hits = |target: Target| {
        let mut shot = Shot::new(&spec, &env, shooter, target, &always);
        matches!(shot.run(&env), Outcome::Hit(_))
    };
    // The edge of the envelope against a co-speed target holding its course, tail-on: the
    // longest range (250 m steps) that still kills.
    let mut edge = 2000.0;
    while hits(tail(edge + 250.0)) {
        edge += 250.0;
        assert!(edge < 9.0 * NM_M, "no edge inside max range");
    }
    println!("tail-on edge against a co-speed target at {ALT} m: {edge} m");
    assert!(
        edge >= 4000.0,
        "the AIM-9P kills tail-on well inside its range: edge {edge} m"
    );

    // The same target, breaking at 9 g into a level turn (either side) once the missile is
    // inside 1.5 or 3 km, escapes: the missile arrives slow, with little lift to follow.
    for within in [1500.0, 3000.0] {
        for side in [9.0, -9.0] {
            let breaking = Target {
                turn_g: side,
                ..tail(edge)
            };
            let mut shot = Shot::new(&spec, &env, shooter, breaking, &always);
            shot.break_within_m = Some(within);
            let out = shot.run(&env);
            println!("9 g break inside {within} m at the edge: {out:?}");
            assert!(
                matches!(out, Outcome::Miss(_)),
                "a 9 g break at the edge escapes: {out:?}"
            );
            assert!(shot.target.break_at_s.is_finite(), "the target did break");
        }
    }

    // Well inside the envelope the same break does not save it: the energy left, not the break
    // alone, decides.
    let close = Target {
        turn_g: 9.0,
        ..tail(2000.0)
    };
    let mut shot = Shot::new(&spec, &env, shooter, close, &always);
    shot.break_within_m = Some(1500.0);
    let out = shot.run(&env);
    assert!(matches!(out, Outcome::Hit(_)), "{out:?}");
    assert!(shot.target.break_at_s.is_finite());
}

#[test]
fn flares_decoy_a_rear_aspect_ir_shot_at_the_packs_rate() {
    let ground = flat();
    let env = FlyoutEnv::earth(&ground);
    let spec = aim9p();
    let p = spec.params().flare_susceptibility;
    let shooter = (at(0.0, 0.0), Vec3::new(250.0, 0.0, 0.0));
    let target = Target::straight(at(3000.0, 0.0), Vec3::new(230.0, 0.0, 0.0));
    let n = 800u32;
    let (mut decoyed, mut decoyed_hits, mut clean_hits) = (0u32, 0u32, 0u32);
    for trial in 0..n {
        let mut shot = Shot::new(&spec, &env, shooter, target, &always);
        shot.missile.id = 5000 + u64::from(trial);
        shot.flare_at_s = Some(2.0);
        let hit = matches!(shot.run(&env), Outcome::Hit(_));
        if shot.ever_decoyed {
            decoyed += 1;
            decoyed_hits += u32::from(hit);
        } else {
            clean_hits += u32::from(hit);
        }
    }
    let rate = f64::from(decoyed) / f64::from(n);
    let sigma = (p * (1.0 - p) / f64::from(n)).sqrt();
    println!(
        "flares: {decoyed}/{n} decoyed ({rate:.3}, pack {p}, sigma {sigma:.4}); hits: decoyed {decoyed_hits}, clean {clean_hits}/{}",
        n - decoyed
    );
    assert!(
        (rate - p).abs() < 4.0 * sigma,
        "decoy rate {rate} vs {p} ± 4σ ({sigma})"
    );
    // A shot the flare did not take still kills; one it took does not.
    assert_eq!(clean_hits, n - decoyed);
    assert_eq!(decoyed_hits, 0);
}

#[test]
fn a_semi_active_aim7_loses_guidance_when_the_launchers_lock_drops() {
    let ground = flat();
    let env = FlyoutEnv::earth(&ground);
    let spec = aim7m();
    let shooter = (at(0.0, 0.0), Vec3::new(250.0, 0.0, 0.0));
    // Head-on at 15 km; the target starts a 2 g turn at 4 s (gentle enough to stay out of the
    // notch: this test is about support, not beaming).
    let target = Target {
        break_at_s: 4.0,
        turn_g: 2.0,
        ..Target::straight(at(15_000.0, 0.0), Vec3::new(-250.0, 0.0, 0.0))
    };
    let mut held = Shot::new(&spec, &env, shooter, target, &always);
    assert_eq!(held.missile.seeker.state, LockState::Locked);
    assert!(
        matches!(held.run(&env), Outcome::Hit(_)),
        "supported throughout, it kills"
    );

    // The launcher loses its lock 3 s after launch (tick 180 is the last supported step).
    let drop_after = 180u32;
    let lock = move |tick: u32| tick <= drop_after;
    let mut dropped = Shot::new(&spec, &env, shooter, target, &lock);
    let out = dropped.run(&env);
    assert!(
        matches!(out, Outcome::Miss(_)),
        "unsupported, it misses: {out:?}"
    );
    // 1.5 s of hold is 90 ticks of coasting, then it is lost for good.
    let hold_ticks = (spec.params().seeker.lock_hold_s / DT).round() as u32;
    for &(tick, state, lateral) in &dropped.trace {
        let expected = if tick <= drop_after {
            LockState::Locked
        } else if tick <= drop_after + hold_ticks {
            LockState::Coasting
        } else {
            LockState::Lost
        };
        assert_eq!(state, expected, "tick {tick}");
        // The step after the seeker is lost flies with no lift at all: a ballistic arc.
        if tick > drop_after + hold_ticks + 1 {
            assert_eq!(lateral, Vec3::ZERO, "tick {tick}");
        }
    }
    assert!(
        dropped.trace.len() as u32 > drop_after + hold_ticks + 60,
        "it flew on after losing guidance"
    );

    // Launched without the launcher's lock, it leaves searching on the cue and never locks.
    let never = |_: u32| false;
    let mut blind = Shot::new(&spec, &env, shooter, target, &never);
    assert_eq!(blind.missile.seeker.state, LockState::Searching);
    assert!(matches!(blind.run(&env), Outcome::Miss(_)));
    assert!(blind.trace.iter().all(|&(_, s, _)| s != LockState::Locked));
}

#[test]
fn a_radar_seeker_loses_a_notching_target_and_chaff_can_take_it() {
    let ground = flat();
    let env = FlyoutEnv::earth(&ground);
    let spec = aim7m();
    let shooter = (at(0.0, 0.0), Vec3::new(250.0, 0.0, 0.0));
    // Beaming: the target flies across the line of sight at 10 km.
    let beam = Target::straight(at(10_000.0, 0.0), Vec3::new(0.0, 0.0, 250.0));
    let view = beam.view();
    assert!(
        !would_lock(&spec, &env, shooter.0, shooter.1, &view, true),
        "in the notch at launch"
    );
    let closing = Target::straight(at(10_000.0, 0.0), Vec3::new(-250.0, 0.0, 0.0));
    assert!(would_lock(
        &spec,
        &env,
        shooter.0,
        shooter.1,
        &closing.view(),
        true
    ));

    // Chaff near the target at susceptibility 1 takes a locked radar seeker.
    let mut chaff_spec = *spec.params();
    chaff_spec.chaff_susceptibility = 1.0;
    let chaff_spec = MissileSpec::new(chaff_spec).expect("valid");
    let mut m = launch(
        &chaff_spec,
        &env,
        &LaunchParams {
            id: 3,
            position: shooter.0,
            velocity: shooter.1,
            nose: shooter.1,
            target: Some(closing.view()),
            launcher_lock: true,
        },
    );
    assert_eq!(m.seeker.state, LockState::Locked);
    let chaff = [Decoy {
        id: 11,
        position: closing.position + Vec3::new(0.0, -30.0, 0.0),
        velocity: Vec3::ZERO,
        age_s: 0.5,
    }];
    let inputs = MissileInputs {
        seed: 1,
        target: Some(closing.view()),
        launcher_lock: true,
        flares: &chaff,
        chaff: &chaff,
    };
    assert_eq!(
        step(&chaff_spec, &mut m, &inputs, &env, DT),
        MissileEvent::Flying
    );
    assert_eq!(m.seeker.state, LockState::Decoyed);
    assert_eq!(m.seeker.decoy, Some(11));
}

#[test]
fn lock_on_after_launch_steers_on_the_cue_then_acquires() {
    let ground = flat();
    let env = FlyoutEnv::earth(&ground);
    let spec = aim9p();
    // 40° off the nose: outside the 25° basket at launch.
    let shooter = (at(0.0, 0.0), Vec3::new(250.0, 0.0, 0.0));
    let target = Target::straight(at(2300.0, 1930.0), Vec3::new(200.0, 0.0, 0.0));
    let mut shot = Shot::new(&spec, &env, shooter, target, &always);
    assert_eq!(shot.missile.seeker.state, LockState::Searching);
    let out = shot.run(&env);
    assert!(
        shot.trace.iter().any(|&(_, s, _)| s == LockState::Locked),
        "acquired after launch"
    );
    assert!(matches!(out, Outcome::Hit(_)), "{out:?}");
}

#[test]
fn a_shot_far_beyond_its_range_runs_out_of_energy() {
    let ground = flat();
    let env = FlyoutEnv::earth(&ground);
    let spec = aim9p();
    let shooter = (at(0.0, 0.0), Vec3::new(250.0, 0.0, 0.0));
    // Cued at a target 30 km away and running: the seeker never sees it.
    let target = Target::straight(at(30_000.0, 0.0), Vec3::new(250.0, 0.0, 0.0));
    let mut shot = Shot::new(&spec, &env, shooter, target, &always);
    let out = shot.run(&env);
    assert!(
        matches!(
            out,
            Outcome::Miss(MissileEvent::SelfDestructed(_, SelfDestruct::Energy))
        ),
        "{out:?}"
    );
}

fn mk82(drag: bool) -> BallisticSpec {
    // weapons/mk82.toml: blast 120 ft, damage 200.
    let mut p = BallisticParams::bomb(120.0 * FT_M, 200.0);
    if !drag {
        p.drag_k_m2_per_kg = 0.0;
    }
    BallisticSpec::new(p).expect("valid")
}

/// Drops a bomb from level flight at `height` above ground at 300 m; returns (impact, time).
fn drop_bomb(spec: &BallisticSpec, height: f64, speed: f64) -> (Vec3, f64, Round) {
    let ground = FlatGround { height_m: 300.0 };
    let env = FlyoutEnv::earth(&ground);
    let mut r = fire(
        spec,
        &FireParams {
            position: Vec3::new(0.0, 300.0 + height, 0.0),
            velocity: Vec3::new(speed, 0.0, 0.0),
            direction: Vec3::new(0.0, -1.0, 0.0),
            seed: 1,
            tick: 0,
            shooter: 1,
            round: 0,
        },
    );
    for _ in 0..(120 * 60) {
        match step_round(spec, &mut r, &env, DT) {
            RoundEvent::Flying => {}
            RoundEvent::HitGround(p) => return (p, r.age_s, r),
            other => panic!("{other:?}"),
        }
    }
    panic!("never landed");
}

#[test]
fn a_mk82_lands_where_the_hand_calculation_says_and_stops_at_the_terrain() {
    let (h, v) = (1000.0, 250.0);
    let eject = spec::DEFAULT_BOMB_EJECT_SPEED_MPS;
    // Vacuum: h = eject·t + g t²/2, x = v t.
    let t_vac = (-eject + (eject * eject + 2.0 * G0 * h).sqrt()) / G0;
    let x_vac = v * t_vac;

    // Without drag the flyout is the vacuum parabola; the sphere's curvature (the ground falls
    // away ~1 m over 3.5 km, and gravity tilts back towards the pole) is what the 3 m allow.
    let (p, _t, mut r) = drop_bomb(&mk82(false), h, v);
    assert!((p.x - x_vac).abs() < 3.0, "no drag: {} vs {x_vac}", p.x);

    // With drag, worked by hand as a first-order perturbation of the vacuum path: along it the
    // drag deceleration is c(t)|v|v with c = ½ρk (ρ at the path's altitude). Integrated twice
    // it shortens the horizontal run by δx and holds the bomb up by δz at the vacuum impact
    // time; falling that δz more takes δz/|v_z| longer, which adds v·δz/|v_z| of run back.
    let spec = mk82(true);
    let k = spec.params().drag_k_m2_per_kg;
    let n = 4000;
    let dt = t_vac / f64::from(n);
    let (mut dvx, mut dx, mut dvz, mut dz) = (0.0, 0.0, 0.0, 0.0);
    for i in 0..n {
        let t = (f64::from(i) + 0.5) * dt;
        let vz = eject + G0 * t;
        let alt = 300.0 + h - eject * t - 0.5 * G0 * t * t;
        let c = 0.5 * fl_flight::atmosphere::isa(alt).density_kg_m3 * k;
        let speed = (v * v + vz * vz).sqrt();
        dvx -= c * speed * v * dt;
        dvz += c * speed * vz * dt;
        dx += dvx * dt;
        dz += dvz * dt;
    }
    let hand = x_vac + dx + v * dz / (eject + G0 * t_vac);
    let (p, t, _) = drop_bomb(&spec, h, v);
    println!(
        "Mk 82 from {h} m at {v} m/s: {:.1} m in {t:.2} s (vacuum {x_vac:.1} m in {t_vac:.2} s, by hand {hand:.1} m)",
        p.x
    );
    assert!(
        p.x < x_vac && t > t_vac,
        "drag shortens the run and lengthens the fall"
    );
    // Second-order terms and the sphere are what the 12 m allow (the drag's whole effect is
    // ~130 m: drag off by a fifth either way fails this).
    assert!((p.x - hand).abs() < 12.0, "{} vs hand-worked {hand}", p.x);

    // It stops at the terrain and stays there.
    let alt = fl_flight::gravity::Planet::earth().altitude(p);
    assert!((alt - 300.0).abs() < 0.05, "impact altitude {alt}");
    let ground = FlatGround { height_m: 300.0 };
    let env = FlyoutEnv::earth(&ground);
    let before = r;
    assert_eq!(
        step_round(&mk82(false), &mut r, &env, DT),
        RoundEvent::Ended
    );
    assert_eq!(r, before);
}

#[test]
fn a_gun_rounds_segment_catches_a_fast_crosser_and_misses_one_a_radius_beyond() {
    // weapons/m61a1.toml: 2,000 kt muzzle velocity, 5 ft, 4 damage; no dispersion here.
    let mut p = BallisticParams::gun(2000.0 * KT_MPS, 5.0 * FT_M, 4.0);
    p.dispersion_half_angle_rad = 0.0;
    let spec = BallisticSpec::new(p).expect("valid");
    let ground = flat();
    let env = FlyoutEnv::earth(&ground);
    let radius = 5.0;
    let shooter = Vec3::new(0.0, ALT, 0.0);
    // Time the crosser (400 m/s, across the line of fire) to meet the round mid-tick, ~600 m out.
    let run = |offset_y: f64| -> (Option<SegmentHit>, bool) {
        let mut r = fire(
            &spec,
            &FireParams {
                position: shooter,
                velocity: Vec3::ZERO,
                direction: Vec3::new(1.0, 0.0, 0.0),
                seed: 0,
                tick: 0,
                shooter: 1,
                round: 0,
            },
        );
        // Where the round is after 37.5 ticks.
        let mut probe = r;
        for _ in 0..37 {
            step_round(&spec, &mut probe, &env, DT);
        }
        let mut half = probe;
        step_round(&spec, &mut half, &env, DT / 2.0);
        let meet = half.position + Vec3::new(0.0, offset_y, 0.0);
        let vt = Vec3::new(0.0, 0.0, 400.0);
        let t_meet = 37.5 * DT;
        let mut endpoint_inside = false;
        for tick in 0..60 {
            let t0 = meet + vt * (tick as f64 * DT - t_meet);
            let t1 = t0 + vt * DT;
            step_round(&spec, &mut r, &env, DT);
            endpoint_inside |= (r.position - t1).length() <= radius;
            if let Some(hit) = swept_sphere_hit(r.previous_position, r.position, t0, t1, radius) {
                return (Some(hit), endpoint_inside);
            }
        }
        (None, endpoint_inside)
    };
    let (hit, endpoint_inside) = run(0.0);
    let hit = hit.expect("the crossing target is hit");
    assert!(hit.fraction > 0.0 && hit.fraction < 1.0);
    assert!(
        !endpoint_inside,
        "no tick ends with the round inside the target: only the segment test sees it"
    );
    // Passing one radius beyond touching (two radii off the line of fire): a miss.
    let (miss, _) = run(2.0 * radius);
    assert!(miss.is_none(), "{miss:?}");
    // Just inside touching: a hit.
    assert!(run(0.9 * radius).0.is_some());
}

fn hash(h: &mut u64, x: f64) {
    *h = (*h ^ x.to_bits()).wrapping_mul(0x100_0000_01b3);
}

fn engagement_bits() -> u64 {
    let ground = flat();
    let env = FlyoutEnv::earth(&ground);
    let spec = aim9p();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let target = Target {
        break_at_s: 3.0,
        turn_g: 5.0,
        ..Target::straight(at(4000.0, 300.0), Vec3::new(220.0, 0.0, 20.0))
    };
    let mut shot = Shot::new(
        &spec,
        &env,
        (at(0.0, 0.0), Vec3::new(250.0, 0.0, 0.0)),
        target,
        &always,
    );
    shot.flare_at_s = Some(2.0);
    let out = shot.run(&env);
    for &(t, _, a) in &shot.trace {
        for x in [f64::from(t), a.x, a.y, a.z] {
            hash(&mut h, x);
        }
    }
    let m = shot.missile;
    for x in [
        m.position.x,
        m.position.y,
        m.position.z,
        m.velocity.x,
        m.velocity.y,
        m.velocity.z,
    ] {
        hash(&mut h, x);
    }
    if let Outcome::Hit(d) = out {
        hash(&mut h, d.miss_distance_m);
    }
    let gun = BallisticSpec::new(BallisticParams::gun(1000.0, 1.0, 8.0)).expect("valid");
    for round in 0..100 {
        let mut r = fire(
            &gun,
            &FireParams {
                position: at(0.0, 0.0),
                velocity: Vec3::new(250.0, 0.0, 0.0),
                direction: Vec3::new(1.0, 0.1, 0.0),
                seed: 9,
                tick: 77,
                shooter: 4,
                round,
            },
        );
        for _ in 0..90 {
            step_round(&gun, &mut r, &env, DT);
        }
        for x in [r.position.x, r.position.y, r.position.z] {
            hash(&mut h, x);
        }
    }
    h
}

#[test]
fn the_same_inputs_give_the_same_bits() {
    assert_eq!(engagement_bits(), engagement_bits());
}

#[test]
fn hostile_specs_are_refused_with_a_typed_error() {
    let bad = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.0, 1e12];
    type Set = fn(&mut MissileParams, f64);
    let fields: [(&str, Set); 17] = [
        ("motor_burn_s", |p, v| p.motor_burn_s = v),
        ("max_speed_mps", |p, v| p.max_speed_mps = v),
        ("max_g", |p, v| p.max_g = v),
        ("max_range_m", |p, v| p.max_range_m = v),
        ("min_range_m", |p, v| p.min_range_m = v),
        ("time_of_flight_s", |p, v| p.time_of_flight_s = v),
        ("blast_radius_m", |p, v| p.blast_radius_m = v),
        ("damage", |p, v| p.damage = v),
        ("flare_susceptibility", |p, v| p.flare_susceptibility = v),
        ("chaff_susceptibility", |p, v| p.chaff_susceptibility = v),
        ("notch_susceptibility", |p, v| p.notch_susceptibility = v),
        ("lock_hold_s", |p, v| p.seeker.lock_hold_s = v),
        ("search az", |p, v| p.seeker.search.az_half_angle_rad = v),
        ("track el", |p, v| p.seeker.track.el_half_angle_rad = v),
        ("search max range", |p, v| p.seeker.search.max_range_m = v),
        ("track pod", |p, v| p.seeker.track.pod = v),
        ("drag", |p, v| p.drag_k_m2_per_kg = Some(v)),
    ];
    for (name, set) in fields {
        for v in bad {
            let mut p = aim9p_params();
            set(&mut p, v);
            let e = MissileSpec::new(p);
            assert!(e.is_err(), "{name} = {v} accepted");
            let msg = e.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(!msg.is_empty());
        }
    }
    // Zeros where nothing could fly are refused; zeros that mean "none" are accepted.
    for (name, set) in [
        ("max_range_m", (|p, v| p.max_range_m = v) as Set),
        ("time_of_flight_s", |p, v| p.time_of_flight_s = v),
        ("search az", |p, v| p.seeker.search.az_half_angle_rad = v),
    ] {
        let mut p = aim9p_params();
        set(&mut p, 0.0);
        assert!(
            matches!(MissileSpec::new(p), Err(SpecError::NotPositive { .. })),
            "{name} = 0"
        );
    }
    for set in [
        (|p, v| p.motor_burn_s = v) as Set,
        |p, v| p.max_g = v,
        |p, v| p.min_range_m = v,
        |p, v| p.blast_radius_m = v,
        |p, v| p.flare_susceptibility = v,
        |p, v| p.seeker.lock_hold_s = v,
    ] {
        let mut p = aim9p_params();
        set(&mut p, 0.0);
        assert!(MissileSpec::new(p).is_ok());
    }
    let mut p = aim9p_params();
    p.seeker.track.min_range_m = 9000.0;
    assert!(matches!(
        MissileSpec::new(p),
        Err(SpecError::LobeRanges { lobe: "track", .. })
    ));
    let mut p = aim9p_params();
    p.min_range_m = 20_000.0;
    assert!(matches!(
        MissileSpec::new(p),
        Err(SpecError::ArmingBeyondRange { .. })
    ));
    let mut p = aim9p_params();
    p.max_range_m = 1000.0;
    assert!(matches!(
        MissileSpec::new(p),
        Err(SpecError::RangeInsideBoost { .. })
    ));

    type BSet = fn(&mut BallisticParams, f64);
    let bfields: [BSet; 9] = [
        |p, v| p.muzzle_speed_mps = v,
        |p, v| p.motor_burn_s = v,
        |p, v| p.max_speed_mps = v,
        |p, v| p.drag_k_m2_per_kg = v,
        |p, v| p.dispersion_half_angle_rad = v,
        |p, v| p.time_to_live_s = v,
        |p, v| p.arming_distance_m = v,
        |p, v| p.blast_radius_m = v,
        |p, v| p.damage = v,
    ];
    for set in bfields {
        for v in bad {
            let mut p = BallisticParams::gun(1000.0, 1.0, 8.0);
            set(&mut p, v);
            assert!(BallisticSpec::new(p).is_err(), "{p:?}");
        }
    }
    let mut p = BallisticParams::gun(1000.0, 1.0, 8.0);
    p.time_to_live_s = 0.0;
    assert!(matches!(
        BallisticSpec::new(p),
        Err(SpecError::NotPositive { .. })
    ));
}

#[test]
fn hostile_inputs_to_a_valid_missile_never_panic_or_poison_it() {
    let ground = flat();
    let env = FlyoutEnv::earth(&ground);
    let spec = aim9p();
    let nan = Vec3::new(f64::NAN, 0.0, f64::INFINITY);
    let good = Target::straight(at(3000.0, 0.0), Vec3::new(230.0, 0.0, 0.0));
    let mut m = launch(
        &spec,
        &env,
        &LaunchParams {
            id: 1,
            position: at(0.0, 0.0),
            velocity: Vec3::new(250.0, 0.0, 0.0),
            nose: Vec3::ZERO,
            target: Some(TargetView::new(nan, nan)),
            launcher_lock: true,
        },
    );
    assert_eq!(m.seeker.state, LockState::Searching);
    let flares = [Decoy {
        id: 1,
        position: nan,
        velocity: nan,
        age_s: f64::NAN,
    }];
    for dt in [f64::NAN, -1.0, 0.0, f64::INFINITY, 1e9, DT] {
        for target in [
            Some(TargetView::new(nan, Vec3::ZERO)),
            None,
            Some(good.view()),
        ] {
            let mut view = target;
            if let Some(v) = view.as_mut() {
                v.signature = f64::NAN;
            }
            let inputs = MissileInputs {
                seed: 0,
                target: view,
                launcher_lock: true,
                flares: &flares,
                chaff: &flares,
            };
            let _ = step(&spec, &mut m, &inputs, &env, dt);
            assert!(
                m.position.is_finite() && m.velocity.is_finite(),
                "dt {dt}: {m:?}"
            );
        }
    }
    // A launch from nowhere ends at once.
    let m = launch(
        &spec,
        &env,
        &LaunchParams {
            id: 2,
            position: nan,
            velocity: Vec3::ZERO,
            nose: Vec3::new(1.0, 0.0, 0.0),
            target: None,
            launcher_lock: false,
        },
    );
    assert!(m.ended);
}

#[test]
fn every_pack_missile_is_a_valid_spec_and_kills_inside_its_range() {
    let Some(pack) = fl_fixtures::fixture_pack_or("checking the pack's missiles") else {
        return;
    };
    // The numbers the other tests use are the pack's.
    assert_eq!(pack_missile(&pack, "aim9p"), aim9p_params());
    assert_eq!(MissileSpec::new(pack_missile(&pack, "aim7m")), Ok(aim7m()));

    let ground = flat();
    let env = FlyoutEnv::earth(&ground);
    for name in ["aim9p", "aim7m", "r60m", "r73e", "r27r1", "3m9m"] {
        let params = pack_missile(&pack, name);
        let spec = match MissileSpec::new(params) {
            Ok(s) => s,
            Err(e) => panic!("{name}: {e}"),
        };
        // Air-launched: head-on, inside both the missile's range and its seeker's track lobe.
        // The SA-6: from a launcher on the ground, 30° up, at an inbound fighter 5 km up.
        let (shooter, nose, target) = if name == "3m9m" {
            let ground_launcher = (Vec3::new(0.0, 2.0, 0.0), Vec3::ZERO);
            let inbound = Target::straight(
                Vec3::new(12_000.0, 5000.0, 0.0),
                Vec3::new(-250.0, 0.0, 0.0),
            );
            (ground_launcher, Vec3::new(0.866, 0.5, 0.0), inbound)
        } else {
            let range = (0.6 * params.max_range_m).min(0.8 * params.seeker.track.max_range_m);
            let head_on = Target::straight(at(range, 0.0), Vec3::new(-250.0, 0.0, 0.0));
            (
                (at(0.0, 0.0), Vec3::new(250.0, 0.0, 0.0)),
                Vec3::new(1.0, 0.0, 0.0),
                head_on,
            )
        };
        let mut shot = Shot::new(&spec, &env, shooter, target, &always);
        shot.missile = launch(
            &spec,
            &env,
            &LaunchParams {
                id: 1,
                position: shooter.0,
                velocity: shooter.1,
                nose,
                target: Some(target.view()),
                launcher_lock: true,
            },
        );
        assert_eq!(shot.missile.seeker.state, LockState::Locked, "{name}");
        let out = shot.run(&env);
        println!("{name}: drag k {:.3e} m²/kg: {out:?}", spec.drag_k());
        assert!(matches!(out, Outcome::Hit(_)), "{name}: {out:?}");
    }
}

#[test]
fn a_rocket_burns_out_at_its_speed_then_falls_onto_sloping_terrain() {
    // weapons/lau3.toml: 1.1 s burn, 1,450 kt, 0.2 nm arming, 30 ft, 12 damage.
    let mut p = BallisticParams::rocket(1.1, 1450.0 * KT_MPS, 0.2 * NM_M, 30.0 * FT_M, 12.0);
    p.dispersion_half_angle_rad = 0.0;
    let spec = BallisticSpec::new(p).expect("valid");
    // A hillside rising 1 m every 10 m eastwards, given as a closure (as the server gives
    // fl-terrain).
    let hill = |q: Vec3| 200.0 + 0.1 * q.x.max(0.0);
    let env = FlyoutEnv::earth(&hill);
    let dive = Vec3::new(0.94, -0.34, 0.0); // ~20° down
    let mut r = fire(
        &spec,
        &FireParams {
            position: Vec3::new(0.0, 1500.0, 0.0),
            velocity: dive * 200.0,
            direction: dive,
            seed: 0,
            tick: 0,
            shooter: 1,
            round: 0,
        },
    );
    assert!(!r.armed);
    let mut burnout_speed = None;
    let mut armed_at = None;
    let impact = loop {
        let ev = step_round(&spec, &mut r, &env, DT);
        if burnout_speed.is_none() && r.burn_left_s <= 0.0 {
            burnout_speed = Some(r.velocity.length());
        }
        if armed_at.is_none() && r.armed {
            armed_at = Some((r.position - r.origin).length());
        }
        match ev {
            RoundEvent::Flying => {}
            RoundEvent::HitGround(at) => break at,
            other => panic!("{other:?}"),
        }
        assert!(r.age_s < 60.0, "never landed");
    };
    let v = burnout_speed.expect("burns out");
    // Diving, gravity adds a little to the motor's level-flight 746 m/s.
    assert!(
        v > 1450.0 * KT_MPS && v < 1450.0 * KT_MPS + 15.0,
        "burnout speed {v}"
    );
    let armed = armed_at.expect("arms");
    assert!(
        (0.2 * NM_M..0.2 * NM_M + 15.0).contains(&armed),
        "armed at {armed} m"
    );
    let alt = fl_flight::gravity::Planet::earth().altitude(impact);
    assert!(
        (alt - hill(impact)).abs() < 0.5,
        "lands on the hill: {alt} vs {}",
        hill(impact)
    );
    assert!(!r.alive);
}

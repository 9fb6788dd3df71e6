//! Flyout cost: one missile step (locked, with and without flares in its view), and 1,000 gun
//! rounds stepped with a swept hit test each against four targets.
//!
//! Run: `cargo bench -p fl-combat --bench flyout`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fl_combat::flyout::countermeasures::Decoy;
use fl_combat::flyout::spec::{DEFAULT_TIME_OF_FLIGHT_S, DEG_RAD, FT_M, KT_MPS, NM_M};
use fl_combat::flyout::*;
use fl_flight::math::Vec3;
use std::hint::black_box;

const DT: f64 = 1.0 / 60.0;

fn aim9p() -> MissileSpec {
    let lobe = |half: f64, max_nm: f64, pod: f64| SeekerLobe {
        az_half_angle_rad: half * DEG_RAD,
        el_half_angle_rad: half * DEG_RAD,
        min_range_m: 0.0,
        max_range_m: max_nm * NM_M,
        pod,
    };
    let spec = MissileSpec::new(MissileParams {
        motor_burn_s: 5.0,
        max_speed_mps: 1500.0 * KT_MPS,
        max_g: 20.0,
        max_range_m: 9.0 * NM_M,
        min_range_m: 0.3 * NM_M,
        time_of_flight_s: DEFAULT_TIME_OF_FLIGHT_S,
        blast_radius_m: 30.0 * FT_M,
        damage: 60.0,
        flare_susceptibility: 0.6,
        chaff_susceptibility: 0.0,
        notch_susceptibility: 0.0,
        seeker: SeekerParams {
            kind: SeekerKind::Infrared,
            fire_and_forget: true,
            search: lobe(25.0, 5.0, 0.55),
            track: lobe(20.0, 4.0, 0.9),
            lock_hold_s: 1.0,
        },
        drag_k_m2_per_kg: None,
    });
    match spec {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

fn bench(c: &mut Criterion) {
    let ground = FlatGround { height_m: 0.0 };
    let env = FlyoutEnv::earth(&ground);
    let spec = aim9p();
    // A target 6 km ahead, running: the missile stays locked and flies for a long time.
    let target0 = Vec3::new(6000.0, 5000.0, 0.0);
    let vt = Vec3::new(240.0, 0.0, 30.0);
    let launched = launch(
        &spec,
        &env,
        &LaunchParams {
            id: 1,
            position: Vec3::new(0.0, 5000.0, 0.0),
            velocity: Vec3::new(250.0, 0.0, 0.0),
            nose: Vec3::new(1.0, 0.0, 0.0),
            target: Some(TargetView::new(target0, vt)),
            launcher_lock: true,
        },
    );

    let mut g = c.benchmark_group("missile");
    g.throughput(Throughput::Elements(1));
    for flares_n in [0usize, 8] {
        g.bench_function(format!("step/{flares_n}_flares"), |b| {
            let mut m = launched;
            let mut tick = 0u64;
            let mut flares: Vec<Decoy> = Vec::new();
            b.iter(|| {
                tick += 1;
                let t = target0 + vt * m.time_s;
                if flares_n > 0 {
                    flares.clear();
                    // Fresh ids every tick keep the decoy draws (not just the memory look-up) in
                    // the measurement; a zero susceptibility would skip them.
                    for i in 0..flares_n {
                        flares.push(Decoy {
                            id: tick * 16 + i as u64,
                            position: t + Vec3::new(-20.0 * i as f64, -5.0, 0.0),
                            velocity: vt,
                            age_s: 0.5,
                        });
                    }
                }
                let inputs = MissileInputs {
                    seed: 7,
                    target: Some(TargetView::new(t, vt)),
                    launcher_lock: true,
                    flares: &flares,
                    chaff: &[],
                };
                let ev = step(&spec, &mut m, &inputs, &env, DT);
                if ev != MissileEvent::Flying || m.seeker.state != LockState::Locked {
                    m = launched;
                }
                black_box(ev)
            });
        });
    }
    g.finish();

    let gun = match BallisticSpec::new(BallisticParams::gun(1030.0, 1.5, 4.0)) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let fire_round = |i: u32, tick: u64| {
        fire(
            &gun,
            &FireParams {
                position: Vec3::new(0.0, 3000.0, 0.0),
                velocity: Vec3::new(250.0, 0.0, 0.0),
                direction: Vec3::new(1.0, 0.02, 0.0),
                seed: 1,
                tick,
                shooter: 1,
                round: i,
            },
        )
    };
    let mut g = c.benchmark_group("rounds");
    g.throughput(Throughput::Elements(1000));
    g.bench_function("1000_step_and_hit_test_4_targets", |b| {
        let mut rounds: Vec<Round> = (0..1000).map(|i| fire_round(i, 0)).collect();
        let mut tick = 0u64;
        b.iter(|| {
            tick += 1;
            let targets = [0.0, 1.0, 2.0, 3.0].map(|k: f64| {
                let from = Vec3::new(600.0 + 100.0 * k, 3010.0, -50.0 + 0.3 * (tick % 300) as f64);
                (from, from + Vec3::new(0.0, 0.0, 5.0))
            });
            let mut hits = 0u32;
            for (i, r) in rounds.iter_mut().enumerate() {
                if step_round(&gun, r, &env, DT) != RoundEvent::Flying {
                    *r = fire_round(i as u32, tick);
                    continue;
                }
                for (t0, t1) in &targets {
                    if swept_sphere_hit(r.previous_position, r.position, *t0, *t1, 8.0).is_some() {
                        hits += 1;
                    }
                }
            }
            black_box(hits)
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

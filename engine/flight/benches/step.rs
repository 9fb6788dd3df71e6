//! Step cost: one F-16A-class aircraft (our test jet when the pack is absent), and 1,000 aircraft
//! stepped in one loop.
//!
//! Run: `cargo bench -p fl-flight --bench step`. The pack is found by `fl-fixtures` (set
//! `FL_SHARED_DIR` if it is not at `<workspace>/../shared`); without it the bench says so
//! (`FL-SKIP`) and measures the test jet.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use fl_flight::env::{FlatFloor, WindField};
use fl_flight::gravity::Planet;
use fl_flight::integrator::{StepEnv, step};
use fl_flight::math::Vec3;
use fl_flight::model::AircraftModel;
use fl_flight::schema::read_flight_model;
use fl_flight::spawn::trim_level;
use fl_flight::state::Controls;
use std::hint::black_box;
use std::path::Path;

fn model() -> (String, AircraftModel) {
    let (name, path) = match fl_fixtures::fixture_pack_or("benchmarking test_jet instead") {
        Some(pack) => ("f16a", fl_fixtures::pack_model_path(&pack, "f16a")),
        None => (
            "test_jet",
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/test_jet.toml"),
        ),
    };
    let parsed = match read_flight_model(&path) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    match AircraftModel::from_def(&parsed.value) {
        Ok(m) => (name.to_string(), m),
        Err(e) => panic!("{e}"),
    }
}

fn bench(c: &mut Criterion) {
    let (name, m) = model();
    let planet = Planet::earth();
    let wind = WindField {
        steady: Vec3::new(5.0, 0.0, 0.0),
        profile: Vec::new(),
        turbulence_m_s: 2.0,
    };
    let floor = FlatFloor::default();
    let Some(trim) = trim_level(&m, &planet, 5000.0, 230.0, m.max_fuel_kg, 0.0) else {
        panic!("cannot trim the benchmark aircraft");
    };
    let controls = Controls {
        roll: 0.1,
        ..trim.controls
    };

    let mut g = c.benchmark_group("step");
    g.throughput(Throughput::Elements(1));
    g.bench_function(format!("{name}/one"), |b| {
        let mut s = trim.state;
        let mut tick = 0u64;
        b.iter(|| {
            let env = StepEnv {
                planet: &planet,
                wind: &wind,
                floor: &floor,
                tick,
                entity: 0,
                aero: true,
            };
            tick += 1;
            if tick.is_multiple_of(600) {
                s = trim.state;
            }
            black_box(step(&m, &mut s, black_box(&controls), &env));
        });
    });
    g.throughput(Throughput::Elements(1000));
    g.bench_function(format!("{name}/x1000"), |b| {
        b.iter_batched_ref(
            || {
                (0..1000)
                    .map(|i| {
                        let mut s = trim.state;
                        s.position.x += f64::from(i) * 500.0;
                        s
                    })
                    .collect::<Vec<_>>()
            },
            |fleet| {
                for (i, s) in fleet.iter_mut().enumerate() {
                    let env = StepEnv {
                        planet: &planet,
                        wind: &wind,
                        floor: &floor,
                        tick: 1,
                        entity: i as u32,
                        aero: true,
                    };
                    black_box(step(&m, s, &controls, &env));
                }
            },
            BatchSize::LargeInput,
        );
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

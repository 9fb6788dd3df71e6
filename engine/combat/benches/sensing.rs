//! Sensing cost per aircraft per check: 320 aircraft scattered over a 100 km square of the
//! fixture pack's NTTR terrain (the procedural base where the pack is absent), 100 m to 10 km
//! up, each with a radar (apg66) and the day eyeball, every other aircraft handed in as a
//! candidate (no spatial pre-filter), terrain masking on. Also: the same over flat ground, one
//! line-of-sight query, and a whole world's pass.
//!
//! Run: `cargo bench -p fl-combat --bench sensing`.

#[path = "../tests/sensing_support/mod.rs"]
mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use fl_combat::sensing::{
    CheckTime, EntityId, Environment, Lobe, LosConfig, Observer, Sensing, SensingWorld, SensorKind,
    SensorSpec, Signatures, Target, line_of_sight_counted,
};
use fl_flight::env::{FlatFloor, Floor};
use fl_flight::geodetic::{self, Enu};
use fl_flight::gravity::Planet;
use fl_terrain::{Layer, Terrain, TerrainConfig, TileData};
use std::hint::black_box;
use std::time::Duration;

const AIRCRAFT: u32 = 320;
const CENTRE: (f64, f64) = (37.0, -115.6);
const HALF_SIDE_M: f64 = 50_000.0;

/// A tiny deterministic generator for the scatter (not the simulation's dice).
struct Lcg(u64);
impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

struct Scene {
    terrain: Terrain,
    sensors: [SensorSpec; 2],
    observers: Vec<Observer>,
    targets: Vec<Target>,
}

fn scene() -> Scene {
    let (terrain, sensors, sig) = match support::pack() {
        Some(pack) => (
            support::terrain(&pack),
            [
                support::sensor(&pack, "apg66"),
                support::sensor(&pack, "eyeball_day"),
            ],
            support::signatures(&pack, "f16a"),
        ),
        None => (
            Terrain::base_only(TerrainConfig::default()),
            [
                SensorSpec::new(
                    SensorKind::Radar,
                    true,
                    false,
                    Lobe::from_pack_units(60.0, 30.0, 0.5, 30.0, 0.35, 0.0),
                    Some(Lobe::from_pack_units(55.0, 25.0, 0.3, 22.0, 0.70, 4.0)),
                ),
                SensorSpec::new(
                    SensorKind::Visual,
                    false,
                    false,
                    Lobe::from_pack_units(90.0, 60.0, 0.0, 8.0, 0.15, 0.0),
                    None,
                ),
            ],
            Signatures::BASELINE,
        ),
    };
    let planet = Planet::earth();
    let centre = fl_terrain::cube::latlon_to_world(planet.radius_m, CENTRE.0, CENTRE.1, 0.0);
    let enu = Enu::at(&planet, centre);
    let mut rng = Lcg(0x5eed);
    let mut observers = Vec::new();
    let mut targets = Vec::new();
    for i in 0..AIRCRAFT {
        let e = (rng.unit() * 2.0 - 1.0) * HALF_SIDE_M;
        let n = (rng.unit() * 2.0 - 1.0) * HALF_SIDE_M;
        let flat = centre + enu.to_world(e, n, 0.0);
        let ground = terrain.height_m(&planet, flat);
        let alt = ground + 100.0 + rng.unit() * 9_900.0;
        let position = geodetic::at_altitude(&planet, flat, alt);
        let here = Enu::at(&planet, position);
        let heading = rng.unit() * std::f64::consts::TAU;
        let orientation = geodetic::orientation(&here, heading, 0.0, 0.0);
        let forward = here.horizontal_direction(heading);
        let id = EntityId::new(i, 1);
        observers.push(Observer {
            id,
            position,
            orientation,
            skill: 0.5,
        });
        targets.push(Target {
            id,
            position,
            velocity: forward * 230.0,
            forward,
            signatures: sig,
            ground_m: Some(terrain.height_m(&planet, position)),
        });
    }
    Scene {
        terrain,
        sensors,
        observers,
        targets,
    }
}

/// The highest sample of any of the pack's height tiles plus a margin: a ceiling the server could
/// compute once per world. Valid here because every chord of the scene stays inside the theater
/// (outside it the base and the skirt add up to ~3.4 km, under NTTR's peaks anyway).
fn pack_ceiling(t: &Terrain) -> Option<f64> {
    let mut max = i16::MIN;
    for key in t.index().height_tiles() {
        if let Some(TileData::Heights(h)) = t.store().load(Layer::Heights, key) {
            max = max.max(h.iter().copied().max().unwrap_or(i16::MIN));
        }
    }
    (max > i16::MIN).then(|| f64::from(max) + 100.0)
}

fn world(floor: &(dyn Floor + Sync)) -> SensingWorld<'_> {
    SensingWorld {
        planet: Planet::earth(),
        floor,
        los: LosConfig::default(),
        env: Environment::default(),
        seed: 42,
    }
}

/// Every observer's state after `checks` checks (contacts held: the steady state a server sees).
fn warmed(s: &Scene, w: &SensingWorld<'_>, checks: u64) -> Vec<Sensing> {
    let mut states: Vec<Sensing> = (0..AIRCRAFT).map(|_| Sensing::default()).collect();
    for k in 0..checks {
        for (st, o) in states.iter_mut().zip(&s.observers) {
            st.check(&s.sensors, o, &s.targets, w, &time(k));
        }
    }
    states
}

fn time(check: u64) -> CheckTime {
    CheckTime {
        tick: 6 * check,
        interval_s: 0.1,
    }
}

fn bench(c: &mut Criterion) {
    let s = scene();
    let flat = FlatFloor::default();
    let on_terrain = world(&s.terrain);
    let on_flat = world(&flat);

    let mut states = warmed(&s, &on_terrain, 50);
    let held: usize = states.iter().map(|st| st.contacts().len()).sum();
    println!(
        "scene: {AIRCRAFT} aircraft, {:.1} contacts held per aircraft after 5 s",
        held as f64 / f64::from(AIRCRAFT)
    );

    let mut g = c.benchmark_group("sensing");
    let mut k = 1_000u64;
    // One aircraft's check against the other 319, terrain masking on (the number asked for).
    g.bench_function("check_one_aircraft_320_terrain", |b| {
        b.iter(|| {
            k += 1;
            let i = (k % u64::from(AIRCRAFT)) as usize;
            states[i].check(
                &s.sensors,
                &s.observers[i],
                &s.targets,
                &on_terrain,
                &time(k),
            );
            black_box(states[i].contacts().len())
        })
    });
    let mut flat_states = warmed(&s, &on_flat, 50);
    g.bench_function("check_one_aircraft_320_flat", |b| {
        b.iter(|| {
            k += 1;
            let i = (k % u64::from(AIRCRAFT)) as usize;
            flat_states[i].check(&s.sensors, &s.observers[i], &s.targets, &on_flat, &time(k));
            black_box(flat_states[i].contacts().len())
        })
    });
    // One line of sight between random pairs over the terrain.
    let mut pair = 0usize;
    let mut samples = 0u64;
    let mut queries = 0u64;
    g.bench_function("line_of_sight_terrain", |b| {
        b.iter(|| {
            pair = (pair + 7) % (AIRCRAFT as usize * AIRCRAFT as usize);
            let (i, j) = (pair / AIRCRAFT as usize, pair % AIRCRAFT as usize);
            let r = line_of_sight_counted(
                &s.terrain,
                &on_terrain.planet,
                s.observers[i].position,
                s.targets[j].position,
                &on_terrain.los,
            );
            samples += u64::from(r.samples);
            queries += 1;
            black_box(r.clear)
        })
    });
    // The same with a ceiling known for this world.
    if let Some(ceiling) = pack_ceiling(&s.terrain) {
        println!("pack ceiling: {ceiling:.0} m");
        let mut tight = world(&s.terrain);
        tight.los.ceiling_m = ceiling;
        let mut tight_states = warmed(&s, &tight, 50);
        g.bench_function("check_one_aircraft_320_terrain_ceiling", |b| {
            b.iter(|| {
                k += 1;
                let i = (k % u64::from(AIRCRAFT)) as usize;
                tight_states[i].check(&s.sensors, &s.observers[i], &s.targets, &tight, &time(k));
                black_box(tight_states[i].contacts().len())
            })
        });
    }
    g.finish();
    if queries > 0 {
        println!(
            "line of sight: {:.1} terrain samples per query (random pairs, up to 141 km)",
            samples as f64 / queries as f64
        );
    }

    // A whole world's check (every aircraft once): divide by 320 for the per-aircraft cost.
    let mut g = c.benchmark_group("sensing_world");
    g.sample_size(10);
    g.bench_function("check_all_320_terrain", |b| {
        b.iter(|| {
            k += 1;
            for (st, o) in states.iter_mut().zip(&s.observers) {
                st.check(&s.sensors, o, &s.targets, &on_terrain, &time(k));
            }
            black_box(states[0].contacts().len())
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(6));
    targets = bench
}
criterion_main!(benches);

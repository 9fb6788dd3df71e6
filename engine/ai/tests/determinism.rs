//! Determinism of the AI pass: 24 aircraft of three factions fly every behaviour (threat
//! selection with exact distance ties included) for 20 s. Sampling them in shuffled orders, on 1
//! to 4 threads, and against a world that visits neighbours in a different random order every
//! query must give bit-identical controls on every tick and bit-identical final states.

mod common;

use common::*;
use fl_ai::*;
use fl_flight::math::Vec3;
use fl_flight::{Controls, StepEnv, step};

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn shuffle<T>(v: &mut [T], seed: u64) {
    let mut s = seed;
    for i in (1..v.len()).rev() {
        s = splitmix(s);
        let j = (s % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

/// A world that visits the candidates of every query in a fresh random order.
struct ShuffledWorld {
    inner: GridWorld,
    seed: u64,
}

impl WorldView for ShuffledWorld {
    fn entity(&self, index: u32) -> Option<EntityView> {
        self.inner.entity(index)
    }
    fn for_each_near(&self, centre: Vec3, radius_m: f64, visit: &mut dyn FnMut(&EntityView)) {
        let mut found = Vec::new();
        self.inner
            .for_each_near(centre, radius_m, &mut |e| found.push(*e));
        let key = self.seed ^ centre.x.to_bits() ^ centre.z.to_bits().rotate_left(17);
        shuffle(&mut found, key);
        for e in &found {
            visit(e);
        }
    }
}

/// The scenario: positions on a ring plus a pair of hostiles at exactly equal distance from
/// aircraft 0, factions 0/1/2, one controller of every kind (and the factory's templates).
fn scenario() -> Sim {
    let mut sim = Sim::new(vec![ai_jet()]);
    for i in 0..22u32 {
        let ang = f64::from(i) * 0.7;
        let r = 3000.0 + 400.0 * f64::from(i % 5);
        let pos = Vec3::new(
            r * libm::sin(ang),
            3000.0 + 150.0 * f64::from(i % 4),
            -r * libm::cos(ang),
        );
        let faction = [1u16, 2, 0, 2, 1][(i % 5) as usize];
        sim.add(
            0,
            pos,
            f64::from(i) * 37.0,
            180.0 + 5.0 * f64::from(i % 6),
            faction,
        );
    }
    // Two hostiles (faction 2) exactly 1,200 m east and west of aircraft 0's start.
    let p0 = sim.state(0).position;
    sim.add(0, Vec3::new(p0.x + 1200.0, 3000.0, p0.z), 90.0, 190.0, 2);
    sim.add(0, Vec3::new(p0.x - 1200.0, 3000.0, p0.z), 270.0, 190.0, 2);
    sim
}

fn controllers(sim: &Sim) -> Vec<Box<dyn Controller>> {
    let world = sim.world();
    let ctx = FactoryContext {
        world: Some(&world),
        ..FactoryContext::default()
    };
    let threat = Target::NearestThreat { radius_m: 15_000.0 };
    (0..sim.crafts.len() as u32)
        .map(|i| -> Box<dyn Controller> {
            let line = match i % 11 {
                0 => "pursuit threat",
                1 => "loiter radius=2500",
                2 => "lead threat 1.5",
                3 => "lag threat 0.5",
                4 => "evade threat",
                5 => "break threat",
                6 => "defend 4000",
                7 => "patrol_attack threat 6000 0.25",
                8 => "waypoint 0 3000 -6000 6000 3500 0 0 3000 6000 loop",
                9 => "lead 3 nav_gain=0.8 speed=220 ab=true",
                _ => "",
            };
            if line.is_empty() {
                Box::new(BreakTurn::new(threat, BreakTurnParams::default()).expect("valid"))
            } else {
                build_from_line(line, &ctx).unwrap_or_else(|e| panic!("{line}: {e}"))
            }
        })
        .collect()
}

#[derive(Clone, Copy)]
enum Mode {
    InOrder,
    Shuffled(u64),
    Threads(usize),
    ShuffledWorld(u64),
}

fn controls_bits(c: &Controls) -> [u64; 7] {
    [
        c.pitch.to_bits(),
        c.roll.to_bits(),
        c.yaw.to_bits(),
        c.throttle.to_bits(),
        u64::from(c.afterburner),
        c.speedbrake.to_bits(),
        c.flaps.to_bits(),
    ]
}

/// Flies the scenario for `ticks` and returns every tick's controls (as bits) and the final
/// state hashes.
fn fly(mode: Mode, ticks: u64) -> (Vec<Vec<[u64; 7]>>, Vec<u64>) {
    let mut sim = scenario();
    let mut ctrls = controllers(&sim);
    let n = sim.crafts.len();
    let mut history = Vec::new();
    for _ in 0..ticks {
        let tick = sim.tick;
        let grid = sim.world();
        let views: Vec<EntityView> = (0..n as u32).map(|i| sim.view(i)).collect();
        let mut out = vec![Controls::default(); n];
        match mode {
            Mode::InOrder => {
                for i in 0..n {
                    out[i] = ctrls[i].sample(&views[i], &grid, tick);
                }
            }
            Mode::Shuffled(seed) => {
                let mut order: Vec<usize> = (0..n).collect();
                shuffle(&mut order, seed ^ tick);
                for i in order {
                    out[i] = ctrls[i].sample(&views[i], &grid, tick);
                }
            }
            Mode::ShuffledWorld(seed) => {
                let world = ShuffledWorld {
                    inner: grid,
                    seed: seed ^ tick,
                };
                for i in (0..n).rev() {
                    out[i] = ctrls[i].sample(&views[i], &world, tick);
                }
            }
            Mode::Threads(k) => {
                let chunk = n.div_ceil(k);
                let world: &dyn WorldView = &grid;
                let views = &views;
                let results: Vec<Vec<(usize, Controls)>> = std::thread::scope(|s| {
                    let handles: Vec<_> = ctrls
                        .chunks_mut(chunk)
                        .enumerate()
                        .map(|(c, part)| {
                            s.spawn(move || {
                                // Each worker walks its share backwards.
                                part.iter_mut()
                                    .enumerate()
                                    .rev()
                                    .map(|(j, ctrl)| {
                                        let i = c * chunk + j;
                                        (i, ctrl.sample(&views[i], world, tick))
                                    })
                                    .collect::<Vec<_>>()
                            })
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| h.join().expect("worker"))
                        .collect()
                });
                for (i, c) in results.into_iter().flatten() {
                    out[i] = c;
                }
            }
        }
        history.push(out.iter().map(controls_bits).collect());
        for (i, c) in out.iter().enumerate() {
            let env = StepEnv {
                planet: &sim.planet,
                wind: &sim.wind,
                floor: &sim.floor,
                tick,
                entity: i as u32,
                aero: true,
            };
            let craft = &mut sim.crafts[i];
            step(&sim.models[craft.model], &mut craft.state, c, &env);
        }
        sim.tick += 1;
    }
    let hashes = sim.crafts.iter().map(|c| c.state.hash_bits()).collect();
    (history, hashes)
}

#[test]
fn controls_are_bit_identical_for_any_order_thread_count_and_visit_order() {
    let ticks = 20 * 60;
    let (base, base_states) = fly(Mode::InOrder, ticks);
    // The scenario is not trivially constant: controls change over time and differ by aircraft.
    assert_ne!(base[10], base[ticks as usize - 1]);
    assert_ne!(base[100][0], base[100][1]);
    for mode in [
        Mode::Shuffled(1),
        Mode::Shuffled(0xdead_beef),
        Mode::Threads(1),
        Mode::Threads(2),
        Mode::Threads(3),
        Mode::Threads(4),
        Mode::ShuffledWorld(7),
        Mode::ShuffledWorld(8),
    ] {
        let (h, s) = fly(mode, ticks);
        for (t, (a, b)) in base.iter().zip(&h).enumerate() {
            if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                panic!(
                    "controls of aircraft {i} differ at tick {t}: {:?} vs {:?}",
                    a[i], b[i]
                );
            }
        }
        assert_eq!(base_states, s);
    }
}

#[test]
fn equal_distance_threats_resolve_to_the_lower_index_whatever_the_visit_order() {
    let sim = scenario();
    let me = sim.view(0);
    let grid = sim.world();
    let n = sim.crafts.len() as u32;
    let (east, west) = (n - 2, n - 1);
    // The pair is exactly equidistant from aircraft 0 and closer than anyone hostile.
    let d_e = me.distance_sq(sim.view(east).position);
    let d_w = me.distance_sq(sim.view(west).position);
    assert_eq!(d_e, d_w);
    let mut firsts = std::collections::BTreeSet::new();
    for seed in 0..32u64 {
        let world = ShuffledWorld {
            inner: grid.clone(),
            seed,
        };
        let t = nearest_threat(&me, &world, 10_000.0).expect("a threat");
        assert_eq!(t.id.index, east.min(west));
        // The shuffled world really does change the visiting order.
        let mut first = None;
        world.for_each_near(me.position, 10_000.0, &mut |e| {
            first.get_or_insert(e.id.index);
        });
        firsts.insert(first);
    }
    assert!(firsts.len() > 1, "the visit order never changed");
}

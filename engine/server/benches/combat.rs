//! Server tick cost with combat: 256 AI F-5Es of the fixture pack flying (loiter), unarmed versus
//! armed with 32 of them firing their guns continuously and 16 launching their AIM-9Ps — the
//! tick's p50 and p99 over 600 ticks, one worker thread; and the unarmed world without sensing
//! (every F-5E's APQ-159 and eyeball checked at 10 Hz otherwise), for sensing's cost per check.
//! The shooters fire through the AI's own weapons path ([`Shooter`]: a loiter that holds the
//! trigger or presses release), as the server's AI pass replaces any input set from outside.
//! Prints a table; `harness = false`
//! because the world changes as it fights (a criterion iteration would not repeat the same work).
//!
//! `cargo bench -p fl-server --bench combat`

use fl_ai::{Controller, EntityView, FactoryContext, WeaponIntent, WorldView, build_from_line};
use fl_content::{Content, LoadOptions};
use fl_flight::Controls;
use fl_net::linksim::{SimEndpointConfig, SimNetwork};
use fl_server::pool::EntityId;
use fl_server::server::{Server, ServerConfig, SpawnPoint};
use fl_server::types::TypeRegistry;
use fl_server::world::Pilot;
use std::time::{Duration, Instant};

const AIRCRAFT: u32 = 256;
const GUNNERS: usize = 32;
const LAUNCHERS: usize = 16;
const TICKS: usize = 600;

fn server(types: &TypeRegistry, armed: bool, sensing: bool) -> (Server, Vec<EntityId>) {
    let net = SimNetwork::new(1);
    let ep = net
        .server(
            "127.0.0.1:4778".parse().expect("addr"),
            SimEndpointConfig::default(),
        )
        .expect("endpoint");
    let mut s = Server::new(ServerConfig::default(), Box::new(ep), types.clone());
    let t = s.types().index_of("fl-base:f5e").expect("f5e");
    let mut ids = Vec::new();
    for i in 0..AIRCRAFT {
        let k = i as usize;
        let fire = if !armed || k.is_multiple_of(2) {
            Fire::Never
        } else if k < GUNNERS * 2 {
            Fire::Gun
        } else if k < (GUNNERS + LAUNCHERS) * 2 {
            Fire::Store
        } else {
            Fire::Never
        };
        let ctrl: Box<dyn Controller> = Box::new(Shooter {
            fly: build_from_line("loiter", &FactoryContext::default()).expect("loiter"),
            fire,
        });
        // Pairs in trail 300 m apart, the pairs 1.5 km apart: every gunner has a target.
        let at = SpawnPoint {
            x: f64::from(i / 2 % 16) * 1500.0,
            z: f64::from(i / 32) * 1500.0 + f64::from(i % 2) * 300.0,
            altitude_m: 3000.0,
            heading_deg: 0.0,
            speed_mps: 200.0,
            anchor: None,
        };
        let id = s
            .spawn_aircraft(t, (i % 2 + 1) as u16, Pilot::Ai(ctrl), at)
            .expect("room");
        if !sensing {
            s.world_mut().get_mut(id).expect("spawned").combat.sensing = None;
        }
        if !armed {
            let e = s.world_mut().get_mut(id).expect("spawned");
            for st in &mut e.combat.loadout.stations {
                *st = None;
            }
        }
        ids.push(id);
    }
    (s, ids)
}

fn run(types: &TypeRegistry, armed: bool, sensing: bool) -> (Vec<Duration>, String, u64) {
    let (mut s, _ids) = server(types, armed, sensing);
    let mut times = Vec::with_capacity(TICKS);
    for _ in 0..TICKS {
        let t0 = Instant::now();
        s.tick();
        times.push(t0.elapsed());
    }
    let c = s.combat().totals;
    (
        times,
        format!(
            "rounds {} hits {} stores {} detonations {} kills {}",
            c.rounds_fired, c.rounds_hit, c.stores_released, c.detonations, c.kills
        ),
        c.sensing_checks,
    )
}

/// What a [`Shooter`] does with its weapons.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fire {
    Never,
    /// The trigger held every tick.
    Gun,
    /// Release pressed for two ticks every two seconds (one store per press).
    Store,
}

/// Flies `fly` and fires as `fire` says, through the AI's weapons path.
#[derive(Debug)]
struct Shooter {
    fly: Box<dyn Controller>,
    fire: Fire,
}

impl Controller for Shooter {
    fn sample(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> Controls {
        self.fly.sample(me, world, tick)
    }

    fn weapons(&mut self, _me: &EntityView, _world: &dyn WorldView, tick: u64) -> WeaponIntent {
        WeaponIntent {
            trigger: self.fire == Fire::Gun,
            release: self.fire == Fire::Store && tick % 120 < 2,
            ..WeaponIntent::default()
        }
    }

    fn behaviour(&self) -> &'static str {
        "bench shooter"
    }
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1000.0
}

fn main() {
    let Some(pack) = fl_fixtures::fixture_pack_or("the combat tick benchmark") else {
        return;
    };
    let content = Content::load(&LoadOptions {
        pack_dirs: vec![pack],
        ..LoadOptions::default()
    })
    .unwrap_or_else(|e| panic!("the fixture pack loads: {e}"));
    let types = TypeRegistry::from_content(&content, 1);
    let (mut blind, _, _) = run(&types, false, false);
    let (mut unarmed, _, checks) = run(&types, false, true);
    let (mut armed, what, _) = run(&types, true, true);
    let (b50, b99) = (pct(&mut blind, 0.5), pct(&mut blind, 0.99));
    let (u50, u99) = (pct(&mut unarmed, 0.5), pct(&mut unarmed, 0.99));
    let (a50, a99) = (pct(&mut armed, 0.5), pct(&mut armed, 0.99));
    println!("server tick, {AIRCRAFT} AI F-5Es, {TICKS} ticks, 1 worker");
    println!("  unarmed, no sensing: p50 {b50:.3} ms  p99 {b99:.3} ms");
    println!("  unarmed: p50 {u50:.3} ms  p99 {u99:.3} ms");
    let per_tick = checks as f64 / TICKS as f64;
    println!(
        "  sensing: {per_tick:.1} checks a tick, {:.1} µs a check (p50 difference)",
        (u50 - b50) * 1000.0 / per_tick
    );
    println!(
        "  armed, {GUNNERS} gunners firing, {LAUNCHERS} launching: p50 {a50:.3} ms  p99 {a99:.3} ms  ({what})"
    );
    println!("  ratio: p50 {:.2}  p99 {:.2}", a50 / u50, a99 / u99);
}

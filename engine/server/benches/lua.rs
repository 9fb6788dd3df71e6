//! Lua controller cost through the real server tick: 100 F-5Es of the fixture pack, opposing
//! pairs 6 km apart with sensing on, flown by the pack's `ai/fighter.lua`
//! ([`fl_server::lua_controller::LuaController`]) versus the same world flown by the builtin
//! loiter. Prints the tick's p50/p99 for both over 600 ticks, on 1 and 2 worker threads, and the
//! difference per entity per tick — the Lua controller's cost (a fighter.lua call, its queries,
//! the `state` table, the controls back). Two layouts: the pairs 80 km apart (each fighter's
//! sensors hold about its own opponent) and 8 km apart (a furball: every radar holds dozens of
//! contacts, and fighter.lua walks its contact list twice a tick). `harness = false`: the world
//! changes as it flies.
//!
//! `cargo bench -p fl-server --bench lua`

use fl_ai::{FactoryContext, build_from_line};
use fl_content::{Content, LoadOptions};
use fl_net::linksim::{SimEndpointConfig, SimNetwork};
use fl_script::{Limits, ScriptInstance, ScriptSources};
use fl_server::lua_controller::{LuaController, ScriptSink};
use fl_server::server::{Server, ServerConfig, SpawnPoint};
use fl_server::types::TypeRegistry;
use fl_server::world::Pilot;
use std::sync::Arc;
use std::time::{Duration, Instant};

const AIRCRAFT: u32 = 100;
const TICKS: usize = 600;

fn run(
    types: &TypeRegistry,
    sources: &ScriptSources,
    lua: bool,
    workers: usize,
    spacing_m: f64,
) -> Vec<Duration> {
    let net = SimNetwork::new(1);
    let ep = net
        .server(
            "127.0.0.1:4779".parse().expect("addr"),
            SimEndpointConfig::default(),
        )
        .expect("endpoint");
    let mut cfg = ServerConfig::default();
    cfg.world.sim_workers = workers;
    let mut s = Server::new(cfg, Box::new(ep), types.clone());
    let t = s.types().index_of("fl-base:f5e").expect("f5e");
    let sink = Arc::new(ScriptSink::default());
    for i in 0..AIRCRAFT {
        let fallback = build_from_line("loiter alt=3000 speed=200", &FactoryContext::default())
            .expect("loiter");
        let pilot = if lua {
            let inst = ScriptInstance::load(sources, "fighter", u64::from(i), Limits::default())
                .expect("fighter.lua loads");
            Pilot::Ai(Box::new(LuaController::new(
                i as usize,
                inst,
                0,
                t,
                100.0,
                Some(fallback),
                sink.clone(),
            )))
        } else {
            Pilot::Ai(fallback)
        };
        // Blue and red pairs 6 km apart, on a 10 × 5 grid `spacing_m` apart.
        let at = SpawnPoint {
            x: f64::from(i / 2 % 10) * spacing_m,
            z: f64::from(i / 20) * spacing_m + f64::from(i % 2) * 6000.0,
            altitude_m: 3000.0,
            heading_deg: if i % 2 == 0 { 0.0 } else { 180.0 },
            speed_mps: 200.0,
            anchor: None,
        };
        s.spawn_aircraft(t, (i % 2 + 1) as u16, pilot, at)
            .expect("room");
    }
    let mut times = Vec::with_capacity(TICKS);
    for _ in 0..TICKS {
        let t0 = Instant::now();
        s.tick();
        times.push(t0.elapsed());
        let _ = sink.drain();
    }
    let errors = sink.drain().errors;
    assert!(errors.is_empty(), "fighter.lua broke: {errors:?}");
    times
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1000.0
}

fn main() {
    let Some(pack) = fl_fixtures::fixture_pack_or("the Lua controller benchmark") else {
        return;
    };
    let content = Content::load(&LoadOptions {
        pack_dirs: vec![pack.clone()],
        ..LoadOptions::default()
    })
    .unwrap_or_else(|e| panic!("the fixture pack loads: {e}"));
    let types = TypeRegistry::from_content(&content, 1);
    let sources = ScriptSources::from_dir(&pack.join("ai")).expect("the pack's ai/ folder");
    println!("server tick, {AIRCRAFT} AI F-5Es, {TICKS} ticks");
    for spacing in [80_000.0, 8_000.0] {
        for workers in [1, 2] {
            let mut builtin = run(&types, &sources, false, workers, spacing);
            let mut lua = run(&types, &sources, true, workers, spacing);
            let (b50, b99) = (pct(&mut builtin, 0.5), pct(&mut builtin, 0.99));
            let (l50, l99) = (pct(&mut lua, 0.5), pct(&mut lua, 0.99));
            let k = spacing / 1000.0;
            println!(
                "  {k} km, {workers} worker(s): builtin loiter p50 {b50:.3} ms  p99 {b99:.3} ms"
            );
            println!(
                "  {k} km, {workers} worker(s): fighter.lua    p50 {l50:.3} ms  p99 {l99:.3} ms"
            );
            println!(
                "  {k} km, {workers} worker(s): Lua cost {:.3} ms a tick for {AIRCRAFT}, {:.2} µs per entity per tick (p50 difference)",
                l50 - b50,
                (l50 - b50) * 1000.0 / f64::from(AIRCRAFT)
            );
        }
    }
}

//! A plain timing loop for A/B comparisons on a noisy machine, where criterion's intervals are
//! wider than the change being measured: `cargo run --release -p fl-script --example call_cost
//! -- fighter|dense|empty [calls]` prints µs per `compute_control` call on one warm state
//! (`dense`: fighter.lua with 40 more contacts on its radar). Run it a few times and compare
//! the minimum.

#[path = "../tests/common/mod.rs"]
mod common;

use common::{MockHost, drift, own_aircraft};
use fl_script::{Limits, ScriptInstance, ScriptSources};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let which = std::env::args().nth(1).unwrap_or_else(|| "fighter".into());
    let calls: u64 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(50_000)
        .max(1);
    let (sources, name) = if which == "empty" {
        let src = "function compute_control() return {} end";
        (ScriptSources::from_map([("empty", src)])?, "empty")
    } else {
        let pack = fl_fixtures::reference(fl_fixtures::FIXTURE_PACK)
            .ok_or("the fixture pack is not available")?;
        (ScriptSources::from_dir(&pack.join("ai"))?, "fighter")
    };
    let mut inst = ScriptInstance::load(&sources, name, 1, Limits::default())?;
    let mut host = if which == "dense" {
        MockHost::crowded(40)
    } else {
        MockHost::busy()
    };
    let mut own = own_aircraft();
    // Wall clock is fine here: this is a measuring tool, not simulation.
    let t = std::time::Instant::now();
    for tick in 0..calls {
        drift(&mut own, 1.0 / 60.0);
        if let fl_script::CallOutcome::Disabled { reason, .. } =
            std::hint::black_box(inst.compute_control(&mut host, &own, tick, 1.0 / 60.0))
        {
            return Err(reason.into());
        }
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / calls as f64;
    println!("{name}: {us:.2} µs per call over {calls} calls");
    Ok(())
}

//! Proof (a): over a perfect link the own aircraft's prediction equals the server's state bit
//! for bit at every reconcile, through ten minutes of scripted aerobatics in gusting wind with
//! turbulence. The server and the client are stepped directly in virtual time (no wall clock);
//! ten simulated minutes take about a second.
//!
//! Two independent checks: the client compares each prediction with the exact state the server
//! sends (`SnapshotOwnState`), and the sim compares every prediction with the server world's own
//! state after the same step (state hash). "Exact basis" predictions are those made from an
//! exact server state with the server's announced wind on every step. The first second after
//! the spawn is the spawn itself (the server applies its trim controls until the first input
//! is drained, and its input buffer settles): it is counted apart and snaps.

use fighters_legacy::autopilot::Aerobatics;
use fighters_legacy::sim::{Sim, SimConfig};
use fl_net::linksim::{DirectionConfig, LinkConfig};
use std::time::Duration;

fn run(cfg: SimConfig, seconds: u64) -> Sim {
    let mut sim = Sim::new(cfg, Box::new(Aerobatics::default())).expect("sim");
    sim.run_for(Duration::from_secs(seconds));
    sim
}

fn assert_exact(sim: &Sim, min_compares: u64) {
    let c = sim.client();
    let p = &c.prediction().stats;
    let r = sim.report();
    println!(
        "reconciles {} compared {} exact-basis {} corrections {} (exact-basis {}) replayed mean {:.2} \
         snaps {} settle-snaps {} | independent: {:?} | own pop max {:.2e} m",
        p.reconciles,
        p.compared,
        p.exact_basis_compares,
        p.corrections,
        p.exact_basis_corrections,
        p.replayed.mean(),
        p.snaps,
        p.settle_snaps,
        r.exactness,
        c.metrics.own_pop_m.max(),
    );
    assert!(c.end_reason().is_none(), "{:?}", c.end_reason());
    assert_eq!(
        p.snaps, 0,
        "no respawn or teleport: the aircraft flew the whole time"
    );
    assert!(
        p.exact_basis_compares >= min_compares,
        "{} exact-basis compares",
        p.exact_basis_compares
    );
    assert_eq!(
        p.compared, p.exact_basis_compares,
        "every prediction after the spawn second had an exact basis"
    );
    assert_eq!(p.corrections, 0, "zero corrections");
    // The server's input buffer settles once after the spawn (priming, then its depth adapts);
    // that shift happens inside the spawn-settle second and never again.
    assert!(
        p.timeline_shifts <= 1,
        "{} timeline shifts",
        p.timeline_shifts
    );
    assert!(r.exactness.checked_exact_basis >= min_compares);
    assert_eq!(r.exactness.mismatches, 0, "the server's world agrees");
    assert_eq!(c.metrics.visual_pops, 0);
}

#[test]
fn ten_minutes_of_aerobatics_predict_bit_exact_at_zero_latency() {
    let sim = run(SimConfig::default(), 600);
    // One reconcile per tick for ten minutes.
    assert_exact(&sim, 35_900);
    // The routine really flew: the aircraft is still up and fast after every figure.
    let s = sim.client().prediction().state().expect("predicting");
    assert!(s.position.y > 500.0 && s.velocity.length() > 80.0, "{s:?}");
    assert!(
        sim.client().session().weather().len() > 1,
        "gusting wind windows"
    );
}

#[test]
fn a_fixed_latency_link_replays_exactly_too() {
    // 60 ms each way: every snapshot replays about eight unacknowledged inputs.
    let cfg = SimConfig {
        seed: 3,
        link: LinkConfig::symmetric(DirectionConfig::with_latency(Duration::from_millis(60))),
        frame_interval: Duration::from_nanos(1_000_000_000 / 144),
        ..SimConfig::default()
    };
    let sim = run(cfg, 120);
    assert_exact(&sim, 7_000);
    let replayed = sim.client().prediction().stats.replayed.mean();
    assert!(replayed > 6.0, "a real replay window: {replayed}");
}

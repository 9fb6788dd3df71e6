//! Proof (b): 100 ms RTT, ±20 ms jitter, 2 % loss each way (LinkSim: 30 ms one-way latency plus
//! a uniform 0–40 ms jitter; the client renders at 144 Hz). Prints the numbers the issue asks
//! for and checks them against sane bounds:
//! - own-aircraft correction p50/p99/max (position error of the prediction for the acked input),
//! - the largest per-frame change of the rendered own position beyond the aircraft's own motion
//!   (goal: under 5 cm per frame),
//! - remote interpolation error against time-aligned server truth for a target flying a wide
//!   orbit at about 250 m/s (p50/p99).
//!
//! The whole client is deterministic: the same seed gives the same summary, bit for bit.

use fighters_legacy::autopilot::Aerobatics;
use fighters_legacy::headless::{HeadlessSummary, summarize};
use fighters_legacy::sim::{Sim, SimConfig};
use fl_net::linksim::{DirectionConfig, LinkConfig};
use std::time::Duration;

fn lossy(seed: u64, seconds: u64) -> (HeadlessSummary, Sim) {
    let dir = DirectionConfig {
        latency: Duration::from_millis(30),
        jitter: Duration::from_millis(40),
        loss: 0.02,
        ..DirectionConfig::default()
    };
    let cfg = SimConfig {
        seed,
        link: LinkConfig::symmetric(dir),
        frame_interval: Duration::from_nanos(1_000_000_000 / 144),
        targets: 1,
        target_speed_mps: 262.0,
        ..SimConfig::default()
    };
    // Default server settings: under 2 % loss the congestion response throttles the budget,
    // whose floor is reserved for records above the TLVs, so remote aircraft keep coming.
    let mut sim = Sim::new(cfg, Box::new(Aerobatics::default())).expect("sim");
    sim.run_for(Duration::from_secs(seconds));
    let r = sim.report();
    (
        summarize(
            sim.client(),
            "linksim",
            "aerobatics",
            r.virtual_seconds,
            Some(&r),
        ),
        sim,
    )
}

#[test]
fn a_lossy_jittery_link_stays_smooth() {
    for seed in [7, 8, 9] {
        check(seed);
    }
}

fn check(seed: u64) {
    let (s, sim) = lossy(seed, 180);
    println!("seed {seed}:");
    let p = &s.prediction;
    let remote = s.interpolation.remote_error_m.expect("truth known");
    println!(
        "RTT {:.1} ms, transport loss {:.3}, snapshots {} (interval {:.1} ms mean, jitter {:.1} ms), \
         interpolation delay {:.0} ms",
        s.network.rtt_ms,
        s.network.loss,
        s.snapshots.applied,
        s.snapshots.interval_ms.mean,
        s.snapshots.jitter_ms,
        s.interpolation.delay_ms
    );
    println!(
        "own correction m: p50 {:.5} p99 {:.5} max {:.4} over {} compares ({} corrections); \
         replayed inputs mean {:.1}; timeline shifts {}",
        p.correction_m.p50,
        p.correction_m.p99,
        p.correction_m.max,
        p.compared,
        p.corrections,
        p.replayed_inputs.mean,
        p.timeline_shifts
    );
    println!(
        "rendered own position beyond its motion, per frame: p99 {:.2e} m, max {:.4} m; pops > 5 cm: {}",
        s.render.own_pop_m.p99, s.render.own_pop_m.max, s.render.visual_pops
    );
    println!(
        "remote interpolation error at {:.0} m/s: p50 {:.3} m, p99 {:.3} m, max {:.3} m over {} frames \
         (interpolated/extrapolated/held {:?})",
        s.interpolation.target_speed_mps.unwrap_or(0.0),
        remote.p50,
        remote.p99,
        remote.max,
        remote.count,
        sim.report().remote_poses
    );
    assert_eq!(sim.report().remote_missing, 0, "the target is always drawn");
    assert!(s.session.ended.is_none(), "{:?}", s.session.ended);
    assert!(
        (80.0..130.0).contains(&s.network.rtt_ms),
        "{}",
        s.network.rtt_ms
    );
    assert!(s.snapshots.applied > 3000);
    assert!(p.compared > 3000 && p.replayed_inputs.mean > 5.0);
    assert!(p.correction_m.p50 < 0.001, "{:?}", p.correction_m);
    assert!(p.correction_m.p99 < 0.05, "{:?}", p.correction_m);
    assert!(p.correction_m.max < 2.0, "{:?}", p.correction_m);
    assert!(
        p.timeline_shifts <= 2,
        "loss is concealed without moving the timeline"
    );
    assert_eq!(p.snaps, 0);
    assert!(
        s.render.own_pop_m.max < 0.05,
        "no visible pop: {} m in one frame",
        s.render.own_pop_m.max
    );
    assert_eq!(s.render.visual_pops, 0);
    assert!(remote.count > 20_000);
    assert!(
        s.interpolation.target_speed_mps.unwrap_or(0.0) > 230.0,
        "a fast target"
    );
    assert!(remote.p50 < 0.05 && remote.p99 < 0.1, "{remote:?}");
    assert!(remote.max < 0.5, "{remote:?}");
    let poses = sim.report().remote_poses;
    assert!(poses[2] == 0 && poses[1] * 20 < poses[0], "{poses:?}");
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let a = serde_json::to_string(&lossy(11, 20).0).expect("json");
    let b = serde_json::to_string(&lossy(11, 20).0).expect("json");
    assert_eq!(a, b);
    let c = serde_json::to_string(&lossy(12, 20).0).expect("json");
    assert_ne!(a, c, "another seed, another schedule");
}

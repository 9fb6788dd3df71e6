//! The wall-clock runtime: it ticks, pauses (the world stops, the thread keeps running),
//! publishes metrics, and stops and joins promptly when dropped.

mod common;

use fl_server::runtime::{Command, RuntimeConfig, spawn};
use fl_server::server::ServerConfig;
use std::time::{Duration, Instant};

fn wait_for(mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn runs_pauses_reports_and_joins() {
    let h = common::Harness::new(40, ServerConfig::default());
    let cfg = RuntimeConfig {
        metrics_interval: Duration::from_millis(100),
        ..RuntimeConfig::default()
    };
    let handle = spawn(h.server, cfg, None).expect("thread");
    assert!(wait_for(|| handle.metrics().ticks > 10), "no ticks");
    let m = handle.metrics();
    assert!(m.total.p99 >= m.total.p50);
    assert!(m.to_json().contains("\"ticks\""));

    handle.command(Command::Pause);
    assert!(wait_for(|| handle.metrics().paused));
    handle.command(Command::Resume);
    assert!(wait_for(|| !handle.metrics().paused));

    let started = Instant::now();
    drop(handle);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "stop took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_shutdown_countdown_ends_the_thread() {
    let h = common::Harness::new(41, ServerConfig::default());
    let handle = spawn(h.server, RuntimeConfig::default(), None).expect("thread");
    handle.command(Command::Shutdown {
        seconds: 0,
        reason: "maintenance".into(),
    });
    assert!(wait_for(|| handle.is_finished()));
}

//! bot-swarm end to end: a short run over each transport admits every bot and delivers decodable
//! snapshots at the tick rate; the QUIC mode refuses LinkSim-only options.

use bot_swarm::{SwarmOptions, run_linksim, run_quic};
use fl_net::linksim::{DirectionConfig, LinkConfig};
use serde_json::Value;
use std::time::Duration;

fn small() -> SwarmOptions {
    SwarmOptions {
        clients: 4,
        ai: 4,
        seconds: 1.0,
        ..SwarmOptions::default()
    }
}

/// `min_rate`: snapshots per client per second the run must reach (virtual time makes LinkSim's
/// exact; over QUIC only "some" is asserted, since wall-clock pacing depends on the machine).
fn check_delivery(report: &Value, clients: u64, min_rate: f64) {
    let c = &report["clients_summary"];
    assert_eq!(c["admitted"].as_u64(), Some(clients), "{report:#}");
    assert_eq!(c["refused"].as_u64(), Some(0), "{report:#}");
    assert_eq!(c["decode_errors"].as_u64(), Some(0), "{report:#}");
    let per_s = c["snapshots_per_client_per_s"].as_f64().unwrap_or(0.0);
    assert!(per_s > min_rate, "snapshots per client per second: {per_s}");
    let largest = c["largest_snapshot_bytes"].as_u64().unwrap_or(u64::MAX);
    assert!(
        largest <= 1200,
        "largest snapshot {largest} B over the budget"
    );
    // Every bot sees itself, the other bots and the AI.
    let records = c["records_per_snapshot"].as_f64().unwrap_or(0.0);
    assert!(records >= 7.0, "records per snapshot: {records}");
}

#[test]
fn linksim_run_admits_every_bot_and_delivers_snapshots() {
    let report = run_linksim(&small()).expect("linksim run");
    assert_eq!(report["mode"], "linksim");
    check_delivery(&report, 4, 59.0);
}

#[test]
fn quic_run_over_loopback_admits_every_bot_and_delivers_snapshots() {
    let report = run_quic(&small()).expect("quic run");
    assert_eq!(report["mode"], "quic");
    let server = report["server"].as_str().unwrap_or("");
    assert!(server.starts_with("127.0.0.1:"), "server address {server}");
    check_delivery(&report, 4, 0.0);
    assert!(report["server_tick"]["tick_hz"].as_f64().unwrap_or(0.0) > 0.0);
}

#[test]
fn quic_refuses_simulated_link_options_and_too_many_clients() {
    let lossy = SwarmOptions {
        link: LinkConfig::symmetric(DirectionConfig {
            latency: Duration::from_millis(50),
            ..DirectionConfig::default()
        }),
        ..small()
    };
    assert!(run_quic(&lossy).is_err());
    let many = SwarmOptions {
        clients: bot_swarm::MAX_QUIC_CLIENTS + 1,
        ..small()
    };
    assert!(run_quic(&many).is_err());
}

//! bot-swarm end to end: a short run over each transport admits every bot and delivers decodable
//! snapshots at the tick rate, and its JSON summary carries every documented field with the
//! run's values; the QUIC mode refuses LinkSim-only options, and a QUIC run through the
//! impairment relay reports the relay's ground truth.

use bot_swarm::{Impairment, Report, SwarmOptions, run_linksim, run_quic};
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
fn check_delivery(report: &Report, clients: usize, min_rate: f64) {
    let c = &report.clients_summary;
    assert_eq!(c.admitted, clients, "{report:#?}");
    assert_eq!(c.refused, 0, "{report:#?}");
    assert_eq!(c.decode_errors, 0, "{report:#?}");
    let per_s = c.snapshots_per_client_per_s;
    assert!(per_s > min_rate, "snapshots per client per second: {per_s}");
    let largest = c.largest_snapshot_bytes;
    assert!(
        largest <= 1200,
        "largest snapshot {largest} B over the budget"
    );
    // Every bot sees itself, the other bots and the AI.
    let records = c.records_per_snapshot;
    assert!(records >= 7.0, "records per snapshot: {records}");
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// The printed JSON: parses, has every documented field in order, and carries the report's
/// values.
fn check_json(report: &Report) {
    let text = serde_json::to_string_pretty(report).expect("serializes");
    let v: Value = serde_json::from_str(&text).expect("parses");
    let quic = report.mode == "quic";
    let mut top = vec!["mode"];
    if quic {
        top.push("server");
    }
    top.extend([
        "clients",
        "ai",
        "seconds",
        "workers",
        "budget_bytes",
        "compress",
        "entities",
        "wall_seconds",
        "server_tick",
        "clients_summary",
    ]);
    if !quic {
        top.push("combat");
    }
    assert_eq!(keys(&v), top, "{text}");
    assert_eq!(v["mode"], report.mode);
    assert_eq!(v["clients"], 4);
    assert_eq!(v["ai"], 4);
    assert_eq!(v["seconds"], 1.0);
    assert_eq!(v["workers"], 1);
    assert_eq!(v["budget_bytes"], 1200);
    assert_eq!(v["compress"], true);
    assert_eq!(v["entities"], 8, "4 bots and 4 AI aircraft");
    assert!(v["wall_seconds"].as_f64().is_some_and(|s| s > 0.0));

    let tick = &v["server_tick"];
    let mut tick_keys = vec!["total", "network", "world", "snapshots", "load_factor"];
    if quic {
        tick_keys.extend(["tick_hz", "dropped_ticks"]);
        assert!(
            tick["tick_hz"].as_f64().is_some_and(|hz| hz > 0.0),
            "{tick}"
        );
        assert!(tick["dropped_ticks"].as_u64().is_some(), "{tick}");
    }
    assert_eq!(keys(tick), tick_keys, "{tick}");
    assert!(
        tick["load_factor"]
            .as_f64()
            .is_some_and(|f| f > 0.0 && f <= 1.0)
    );
    for phase in ["total", "network", "world", "snapshots"] {
        let p = &tick[phase];
        assert_eq!(keys(p), ["p50_ms", "p95_ms", "p99_ms", "max_ms"], "{phase}");
        let ms: Vec<f64> = keys(p)
            .iter()
            .map(|k| p[k].as_f64().unwrap_or(-1.0))
            .collect();
        assert!(
            ms[0] >= 0.0 && ms.windows(2).all(|w| w[0] <= w[1]),
            "{phase}: {p}"
        );
    }
    assert!(tick["total"]["max_ms"].as_f64().is_some_and(|m| m > 0.0));

    let c = &v["clients_summary"];
    assert_eq!(
        keys(c),
        [
            "admitted",
            "refused",
            "disconnected",
            "downstream_kbs_per_client",
            "snapshot_interval_ticks_mean",
            "snapshots_per_client_per_s",
            "snapshot_share_of_ticks",
            "stale_snapshots",
            "decode_errors",
            "largest_snapshot_bytes",
            "records_per_snapshot",
            "bytes_per_record",
            "chat_sent_per_s",
            "chat_received_per_s"
        ]
    );
    let s = &report.clients_summary;
    assert_eq!(c["admitted"], 4);
    assert_eq!(c["refused"], 0);
    assert_eq!(c["disconnected"], 0);
    assert_eq!(c["decode_errors"], 0);
    assert_eq!(c["stale_snapshots"], s.stale_snapshots);
    assert_eq!(c["largest_snapshot_bytes"], s.largest_snapshot_bytes);
    assert_eq!(
        c["snapshots_per_client_per_s"],
        s.snapshots_per_client_per_s
    );
    assert_eq!(c["records_per_snapshot"], s.records_per_snapshot);
    let kbs = &c["downstream_kbs_per_client"];
    assert_eq!(keys(kbs), ["mean", "min", "max"]);
    let (mean, min, max) = (
        kbs["mean"].as_f64().unwrap_or(-1.0),
        kbs["min"].as_f64().unwrap_or(-1.0),
        kbs["max"].as_f64().unwrap_or(-1.0),
    );
    assert!(0.0 < min && min <= mean && mean <= max, "{kbs}");
}

#[test]
fn linksim_run_admits_every_bot_and_delivers_snapshots() {
    let report = run_linksim(&small()).expect("linksim run");
    assert_eq!(report.mode, "linksim");
    check_delivery(&report, 4, 59.0);
    check_json(&report);
}

#[test]
fn quic_run_over_loopback_admits_every_bot_and_delivers_snapshots() {
    let report = run_quic(&small()).expect("quic run");
    assert_eq!(report.mode, "quic");
    let server = report.server.as_deref().unwrap_or("");
    assert!(server.starts_with("127.0.0.1:"), "server address {server}");
    check_delivery(&report, 4, 0.0);
    check_json(&report);
}

#[test]
fn chatting_bots_hear_every_line_and_the_status_page_is_polled() {
    // LinkSim: 4 bots at the server's rate limit (1 line/s); every All line reaches all 4
    // (the sender's echo included).
    let report = run_linksim(&SwarmOptions {
        seconds: 3.0,
        chat_per_s: 1.0,
        ..small()
    })
    .expect("linksim run");
    let c = &report.clients_summary;
    assert!((c.chat_sent_per_s - 4.0).abs() < 0.5, "{c:#?}");
    assert!(
        c.chat_received_per_s > 3.0 * c.chat_sent_per_s,
        "every line fans out to every bot: {c:#?}"
    );
    assert!(
        run_linksim(&SwarmOptions {
            status_page: true,
            ..small()
        })
        .is_err(),
        "the status page needs the runtime"
    );
    // QUIC: the status page is served and read while the bots fly.
    let report = run_quic(&SwarmOptions {
        status_page: true,
        chat_per_s: 1.0,
        ..small()
    })
    .expect("quic run");
    check_delivery(&report, 4, 0.0);
    assert!(
        report.status_page_polls.is_some_and(|p| p >= 1),
        "{report:#?}"
    );
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

#[test]
fn quic_run_through_the_impairment_relay_reports_its_ground_truth() {
    let opts = SwarmOptions {
        impair: Some(Impairment::profile("50ms-20ms-2pct").expect("profile")),
        seed: 7,
        ..small()
    };
    let report = run_quic(&opts).expect("quic run through the relay");
    let imp = report.impair.as_ref().expect("the relay's report");
    assert_eq!(imp.profile, "50ms-20ms-2pct");
    assert_eq!(imp.seed, 7);
    let r = &imp.relay;
    // One flow per bot, traffic both ways, and the relay's books balance.
    assert_eq!(r.flows, 4, "{r:?}");
    for d in [&r.to_server, &r.to_client] {
        assert!(d.packets_in > 0 && d.packets_out > 0, "{r:?}");
        assert_eq!(
            d.packets_in + d.duplicated,
            d.packets_out
                + d.dropped_loss
                + d.dropped_blackout
                + d.dropped_queue
                + d.dropped_overflow
                + d.send_errors
                + d.in_flight,
            "{r:?}"
        );
        assert!(
            d.delay.mean_ms >= 30.0,
            "the profile holds each packet ≥ 30 ms: {r:?}"
        );
    }
    // Loopback with a 100 ms RTT still admits bots and delivers snapshots (how many is the
    // machine's business; the link matrix measures it).
    let c = &report.clients_summary;
    assert!(c.admitted >= 1, "{report:#?}");
    assert_eq!(c.decode_errors, 0, "{report:#?}");
    // The JSON carries the relay's ground truth after the documented fields.
    let v: Value = serde_json::to_value(&report).expect("serializes");
    let relay = &v["impair"]["relay"];
    assert_eq!(v["impair"]["profile"], "50ms-20ms-2pct");
    assert_eq!(relay["flows"], 4);
    assert_eq!(relay["to_server"]["packets_in"], r.to_server.packets_in);
    assert!(relay["to_client"]["delay"]["p99_ms"].as_f64().is_some());
    assert_eq!(keys(&v).last().map(String::as_str), Some("impair"));

    // LinkSim simulates its own link: the relay is refused there.
    assert!(run_linksim(&opts).is_err());
    assert!(Impairment::profile("moon").is_err());
}

#[test]
fn impair_takes_a_profile_or_a_json_file() {
    let p = Impairment::from_arg("bursty-3pct").expect("profile");
    assert_eq!(p.name, "bursty-3pct");
    assert!(p.config.to_server.gilbert_elliott.is_some());
    let dir = std::env::temp_dir().join(format!("bot-swarm-impair-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = dir.join("link.json");
    std::fs::write(
        &good,
        r#"{"to_client": {"delay_ms": 80, "jitter_ms": 10, "jitter_model": "uniform"}}"#,
    )
    .expect("write");
    let f = Impairment::from_arg(good.to_str().expect("utf-8")).expect("file");
    assert_eq!(f.config.to_client.delay_ms, 80.0);
    assert_eq!(f.config.to_server.delay_ms, 0.0);
    let bad = dir.join("bad.json");
    for text in [
        r#"{"to_client": {"loss": 2}}"#,
        r#"{"nope": 1}"#,
        "not json",
    ] {
        std::fs::write(&bad, text).expect("write");
        assert!(
            Impairment::from_arg(bad.to_str().expect("utf-8")).is_err(),
            "{text}"
        );
    }
    assert!(Impairment::from_arg(dir.join("missing.json").to_str().expect("utf-8")).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_armed_missile_fight_fires_and_an_unarmed_world_never_does() {
    let Some(pack) = fl_fixtures::fixture_pack_or("the bot-swarm missile fight") else {
        return;
    };
    let fight = SwarmOptions {
        clients: 2,
        ai: 2,
        seconds: 30.0,
        packs: vec![pack.clone()],
        missile_fight: true,
        ..SwarmOptions::default()
    };
    let armed = run_linksim(&fight).expect("armed run");
    let c = armed.combat.expect("linksim reports combat");
    assert_eq!(armed.ai, 2 + 2 * bot_swarm::FIGHT_SIDE, "{armed:#?}");
    assert!(c.stores_released > 0, "no missile in 30 s of a 4v4: {c:?}");
    assert!(c.sensing_checks > 0, "{c:?}");
    let unarmed = run_linksim(&SwarmOptions {
        armed: false,
        ..fight
    })
    .expect("unarmed run");
    let u = unarmed.combat.expect("linksim reports combat");
    assert_eq!(
        (u.rounds_fired, u.stores_released),
        (0, 0),
        "an unarmed world fired: {u:?}"
    );
}

//! What a QUIC link reports about itself matches the impairment relay's ground truth: the loss
//! on the way in (datagram sequence gaps) is the fraction the relay dropped in that direction,
//! and the RTT is the relay's two one-way delays. Loopback only, every wait bounded; the
//! assertions compare counts with generous statistical tolerances and never time anything.

mod common;
use common::{any_port, connect_through};

use std::thread::sleep;
use std::time::{Duration, Instant};

use fl_net::impair::{DirectionConfig, ImpairConfig, Relay};
use fl_net::quic::{QuicServer, ServerConfig};
use fl_net::{Channel, ClientEvent, ClientTransport, LinkStats, ServerTransport};

/// Generous: the machine may be a loaded 2-core box.
const PATIENCE: Duration = Duration::from_secs(60);

fn whole_loss(s: &LinkStats) -> f64 {
    s.datagrams_missing as f64 / (s.datagrams_in + s.datagrams_missing).max(1) as f64
}

#[test]
fn reported_loss_and_rtt_match_the_relays_ground_truth() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server =
        QuicServer::bind(any_port(), dir.path(), ServerConfig::default()).expect("bind loopback");
    // 6 % down, 3 % up, 40 ms ± 5 ms each way (correlated, no reordering).
    let down = DirectionConfig {
        delay_ms: 40.0,
        jitter_ms: 5.0,
        loss: 0.06,
        ..DirectionConfig::default()
    };
    let up = DirectionConfig {
        loss: 0.03,
        ..down.clone()
    };
    let cfg = ImpairConfig {
        to_server: up,
        to_client: down,
        ..ImpairConfig::default()
    };
    let relay = Relay::start(any_port(), server.local_addr(), &cfg, 99).expect("relay starts");
    let (mut client, peer) = connect_through(
        &mut server,
        relay.local_addr(),
        &dir.path().join("known_hosts"),
        PATIENCE,
    );
    let mut s_events = Vec::new();
    let mut c_events = Vec::new();

    // A game's traffic: a datagram each way about every 16 ms (snapshots down, inputs up).
    const DATAGRAMS: u32 = 600;
    let payload = vec![0x5a; 300];
    let end = Instant::now() + PATIENCE;
    for _ in 0..DATAGRAMS {
        let _ = server.send(peer, Channel::Unreliable, &payload);
        let _ = client.send(Channel::Unreliable, &payload[..60]);
        s_events.clear();
        c_events.clear();
        server.poll(&mut s_events);
        client.poll(&mut c_events);
        assert!(
            !c_events
                .iter()
                .any(|e| matches!(e, ClientEvent::Disconnected { .. })),
            "client disconnected"
        );
        assert!(Instant::now() < end, "took too long");
        sleep(Duration::from_millis(16));
    }
    // Let the last ones land (bounded), then read both sides.
    sleep(Duration::from_millis(300));
    server.poll(&mut s_events);
    client.poll(&mut c_events);
    let c = client.link_stats();
    let s = server.link_stats(peer).expect("peer stats");
    let truth = relay.stats();

    let relay_down = truth.to_client.dropped_loss as f64 / truth.to_client.packets_in as f64;
    let relay_up = truth.to_server.dropped_loss as f64 / truth.to_server.packets_in as f64;
    let rtt_truth_ms = truth.to_client.delay.mean_ms + truth.to_server.delay.mean_ms;
    let rtt_ms = c.rtt.as_secs_f64() * 1000.0;
    eprintln!(
        "down: client saw {:.4} ({} in, {} missing), relay dropped {relay_down:.4}; \
         up: server saw {:.4}, relay dropped {relay_up:.4}, client's quinn estimate {:.4}; \
         rtt {rtt_ms:.1} ms, relay delays {rtt_truth_ms:.1} ms",
        whole_loss(&c),
        c.datagrams_in,
        c.datagrams_missing,
        whole_loss(&s),
        c.loss,
    );
    // Nearly every datagram accounted for: received or missing.
    assert!(
        c.datagrams_in + c.datagrams_missing >= u64::from(DATAGRAMS) * 9 / 10,
        "{c:?}"
    );
    // Sampling noise of ~600 datagrams at 3–6 % is ~1 point; allow 3.
    assert!(
        (whole_loss(&c) - relay_down).abs() < 0.03,
        "down: reported {} vs relay {relay_down}",
        whole_loss(&c)
    );
    assert!(
        (whole_loss(&s) - relay_up).abs() < 0.03,
        "up: reported {} vs relay {relay_up}",
        whole_loss(&s)
    );
    // The recent figure covers the last LOSS_IN_WINDOW datagrams: same ballpark.
    assert!((c.loss_in - relay_down).abs() < 0.05, "{c:?}");
    // RTT: the two one-way delays, plus what acknowledgement and a busy 2-core machine add
    // (quinn subtracts the peer's reported ack delay; scheduling delays it cannot see).
    assert!(
        rtt_ms >= rtt_truth_ms - 10.0 && rtt_ms <= rtt_truth_ms + 40.0,
        "rtt {rtt_ms} ms vs relay {rtt_truth_ms} ms"
    );
}

#[test]
fn the_measurement_window_restarts_the_queue_delay_but_not_the_whole_run() {
    use std::net::UdpSocket;
    let sink = UdpSocket::bind(any_port()).expect("bind sink");
    let sink_addr = sink.local_addr().expect("sink addr");
    // 100 kbit/s: a burst of 20 × 500 bytes queues for up to ~0.8 s.
    let dir = DirectionConfig {
        rate_bps: Some(100_000),
        queue_bytes: 20_000,
        ..DirectionConfig::default()
    };
    let cfg = ImpairConfig {
        to_server: dir.clone(),
        to_client: dir,
        ..ImpairConfig::default()
    };
    let relay = Relay::start(any_port(), sink_addr, &cfg, 1).expect("relay starts");
    let src = UdpSocket::bind(any_port()).expect("bind source");
    sink.set_read_timeout(Some(Duration::from_millis(200)))
        .expect("timeout");
    let mut buf = [0u8; 2048];
    let mut receive = |n: usize| {
        let end = Instant::now() + PATIENCE;
        let mut got = 0;
        while got < n && Instant::now() < end {
            if sink.recv_from(&mut buf).is_ok() {
                got += 1;
            }
        }
        got
    };
    for _ in 0..20 {
        src.send_to(&[0u8; 500], relay.local_addr()).expect("send");
    }
    assert_eq!(receive(20), 20, "the burst arrives");
    let whole = relay.stats().to_server.queue_delay;
    assert!(whole.max_ms > 300.0, "{whole:?}");
    relay.restart_window();
    assert_eq!(relay.window_queue_delay().to_server.count, 0);
    // Spaced packets after the restart: next to no queue.
    for _ in 0..5 {
        src.send_to(&[0u8; 100], relay.local_addr()).expect("send");
        assert_eq!(receive(1), 1);
    }
    let window = relay.window_queue_delay().to_server;
    assert_eq!(window.count, 5);
    assert!(window.max_ms < 50.0, "{window:?}");
    assert!(relay.stats().to_server.queue_delay.max_ms >= whole.max_ms);
}

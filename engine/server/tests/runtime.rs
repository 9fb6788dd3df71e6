//! The wall-clock runtime with a client over LinkSim (the network's clock follows the wall
//! clock): it ticks and publishes metrics; paused, the world stands still (tick and positions)
//! while the network is still serviced, and it resumes; a shutdown counts down to peers with
//! notices of decreasing seconds, then ends the thread and closes the connections; dropping the
//! handle stops and joins the thread. Every wait is bounded; nothing asserts on elapsed time.

mod common;

use common::{Harness, TestClient};
use fl_net::linksim::{LinkConfig, SimNetwork};
use fl_protocol::Message;
use fl_protocol::enums::PeerRole;
use fl_protocol::tlv::Extensions;
use fl_server::runtime::{Command, Metrics, RuntimeConfig, ServerHandle, spawn};
use fl_server::server::{ServerConfig, shutdown_text};
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

/// The most any wait in this file may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(30);

/// Moves the simulated network's clock with the wall clock and pumps the clients at about the
/// tick rate, while the runtime thread owns the server.
struct Live {
    net: SimNetwork,
    last: Instant,
}

impl Live {
    fn new(net: SimNetwork) -> Self {
        Self {
            net,
            last: Instant::now(),
        }
    }

    fn pump(&mut self, clients: &mut [&mut TestClient]) {
        let now = Instant::now();
        self.net.advance(now - self.last);
        self.last = now;
        for c in clients.iter_mut() {
            c.pump();
        }
        std::thread::sleep(common::TICK);
    }

    /// Pumps until `done` holds; panics with `what` after [`PATIENCE`].
    fn until(
        &mut self,
        what: &str,
        clients: &mut [&mut TestClient],
        mut done: impl FnMut(&[&mut TestClient]) -> bool,
    ) {
        let deadline = Instant::now() + PATIENCE;
        while !done(clients) {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            self.pump(clients);
        }
    }
}

fn localhost(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
}

/// A runtime publishing metrics every 50 ms, and a pilot client connected to it (not yet asked
/// to join).
fn start(seed: u64) -> (ServerHandle, Live, TestClient) {
    // Countdown notices every second (the default is every 5 minutes, plus T-60 s).
    let h = Harness::new(
        seed,
        ServerConfig {
            shutdown_warning_interval_s: 1,
            ..ServerConfig::default()
        },
    );
    let pilot = h.connect(localhost(1), LinkConfig::default());
    let Harness { net, server } = h;
    let cfg = RuntimeConfig {
        metrics_interval: Duration::from_millis(50),
        ..RuntimeConfig::default()
    };
    let handle = spawn(server, cfg, None).expect("thread");
    (handle, Live::new(net), pilot)
}

/// The own aircraft's `(snapshot tick, position)` in every snapshot received so far.
fn own_track(c: &TestClient) -> Vec<(u64, [f64; 3])> {
    let Some(own) = c.admitted().map(|a| a.assigned_entity_idx) else {
        return Vec::new();
    };
    c.snapshots
        .iter()
        .filter_map(|(snap, _, _)| {
            let r = snap.records.iter().find(|r| r.idx == own)?;
            let origin = *snap.origins.get(r.origin_index as usize)?;
            Some((snap.tick_index, r.position_m(origin)))
        })
        .collect()
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt()
}

/// Polls the published metrics until `done` holds (pumping the clients meanwhile).
fn metrics_until(
    handle: &ServerHandle,
    live: &mut Live,
    what: &str,
    clients: &mut [&mut TestClient],
    mut done: impl FnMut(&Metrics) -> bool,
) -> Metrics {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let m = handle.metrics();
        if done(&m) {
            return m;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        live.pump(clients);
    }
}

#[test]
fn a_paused_world_stands_still_while_the_network_is_serviced() {
    let (handle, mut live, mut pilot) = start(40);
    pilot.request(PeerRole::Pilot, Extensions::new());
    live.until("the pilot's first 20 snapshots", &mut [&mut pilot], |c| {
        own_track(c[0]).len() >= 20
    });
    let m = handle.metrics();
    assert!(m.ticks > 0 && m.world_tick > 0 && !m.paused, "{m:?}");
    assert!(m.total.p99 >= m.total.p50 && m.total.max >= m.total.p99);

    handle.command(Command::Pause);
    let paused = metrics_until(&handle, &mut live, "paused", &mut [&mut pilot], |m| {
        m.paused
    });
    let frozen_at = paused.world_tick;
    // The runtime goes on ticking (a second of it) while the world's tick stays put.
    let later = metrics_until(
        &handle,
        &mut live,
        "60 runtime ticks while paused",
        &mut [&mut pilot],
        |m| m.ticks >= paused.ticks + 60,
    );
    assert!(later.paused);
    assert_eq!(later.world_tick, frozen_at, "the world ticked while paused");

    // The network is still serviced: an observer joining now is answered.
    let mut observer = TestClient::new(
        live.net
            .connect_from(
                std::net::SocketAddr::new(localhost(2), 0),
                common::server_addr(),
                LinkConfig::default(),
                Default::default(),
            )
            .expect("connect"),
    );
    observer.send_inputs = false;
    observer.request(PeerRole::Observer, Extensions::new());
    live.until(
        "the observer's ConnectAck during the pause",
        &mut [&mut pilot, &mut observer],
        |c| c[1].admitted().is_some(),
    );
    assert_eq!(handle.metrics().world_tick, frozen_at);
    let before = own_track(&pilot);
    assert!(
        before.iter().all(|&(t, _)| t <= frozen_at),
        "a snapshot from after the pause: {before:?} (frozen at {frozen_at})"
    );
    let (last_tick, last_pos) = *before.last().expect("snapshots before the pause");

    handle.command(Command::Resume);
    let resumed = metrics_until(&handle, &mut live, "resumed", &mut [&mut pilot], |m| {
        !m.paused && m.world_tick > frozen_at + 10
    });
    assert!(resumed.ticks > later.ticks);
    live.until("a snapshot after the resume", &mut [&mut pilot], |c| {
        own_track(c[0]).iter().any(|&(t, _)| t > frozen_at)
    });
    let after = own_track(&pilot);
    let &(next_tick, next_pos) = after
        .iter()
        .find(|&&(t, _)| t > frozen_at)
        .expect("a snapshot after the resume");
    // The aircraft continues from where it stopped: the first snapshot after the resume is a
    // few ticks on from the last before the pause (over a second of runtime ticks passed in
    // between) and the aircraft moved only those ticks' worth (it flies at about 200 m/s,
    // about 3.3 m a tick; a second of flight would be 200 m).
    let ticks_on = next_tick - last_tick;
    assert!(
        (1..=20).contains(&ticks_on),
        "snapshot ticks {last_tick} → {next_tick}"
    );
    let moved = distance(last_pos, next_pos);
    assert!(
        moved <= 10.0 * ticks_on as f64,
        "moved {moved:.1} m in {ticks_on} ticks"
    );
    assert!(moved > 0.0, "the world moves again");
    drop(handle);
}

#[test]
fn a_shutdown_counts_down_to_the_peers_then_ends_the_thread() {
    let (handle, mut live, mut pilot) = start(41);
    pilot.request(PeerRole::Pilot, Extensions::new());
    live.until("admission", &mut [&mut pilot], |c| {
        c[0].admitted().is_some()
    });
    handle.command(Command::Shutdown {
        seconds: 4,
        reason: "maintenance".into(),
    });
    // The countdown is published (the dedicated server advertises it on the LAN).
    let m = metrics_until(
        &handle,
        &mut live,
        "the countdown in the metrics",
        &mut [&mut pilot],
        |m| m.shutdown_seconds.is_some(),
    );
    assert!(m.shutdown_seconds.is_some_and(|s| s <= 4), "{m:?}");
    live.until("the disconnect", &mut [&mut pilot], |c| {
        c[0].disconnected.is_some()
    });
    let deadline = Instant::now() + PATIENCE;
    while !handle.is_finished() {
        assert!(Instant::now() < deadline, "the thread did not end");
        live.pump(&mut [&mut pilot]);
    }
    let notices: Vec<(u16, String)> = pilot
        .messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::ServerNotice(n) => Some((n.seconds_remaining, n.text.to_string())),
            _ => None,
        })
        .collect();
    let seconds: Vec<u16> = notices.iter().map(|n| n.0).collect();
    // 4, 3, 2, 1, 0 — a countdown. A machine that stalls the runtime for a whole second may
    // miss a mark, so the exact middle is not asserted: it starts at the full count, strictly
    // decreases through at least two intermediate marks, and ends at 0.
    assert_eq!(seconds.first(), Some(&4), "{notices:?}");
    assert_eq!(seconds.last(), Some(&0), "{notices:?}");
    assert!(seconds.windows(2).all(|w| w[0] > w[1]), "{notices:?}");
    assert!(seconds.len() >= 4, "{notices:?}");
    assert_eq!(notices[0].1, "maintenance -- shutting down in 4 seconds.");
    assert_eq!(
        notices.last().map(|n| n.1.as_str()),
        Some("maintenance -- shutting down now.")
    );
    for (s, text) in &notices[1..notices.len() - 1] {
        assert_eq!(text, &shutdown_text("maintenance", u32::from(*s)));
    }
    assert!(
        pilot
            .disconnected
            .as_deref()
            .is_some_and(|r| r.contains("shutting down")),
        "{:?}",
        pilot.disconnected
    );
}

#[test]
fn dropping_the_handle_stops_and_joins_the_thread() {
    let (handle, mut live, mut pilot) = start(42);
    metrics_until(&handle, &mut live, "ticks", &mut [&mut pilot], |m| {
        m.ticks > 10
    });
    // Drop on another thread so a hang fails this test instead of blocking it.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(handle);
        let _ = tx.send(());
    });
    assert!(
        rx.recv_timeout(PATIENCE).is_ok(),
        "dropping the handle did not join the thread"
    );
}

#[test]
fn the_tick_observer_sees_every_tick_the_runtime_runs() {
    let h = Harness::new(43, ServerConfig::default());
    let Harness { net, server } = h;
    let seen: std::sync::Arc<std::sync::Mutex<Vec<u64>>> = Default::default();
    let sink = {
        let seen = seen.clone();
        Box::new(move |s: &fl_server::server::Server| {
            if let Ok(mut v) = seen.lock() {
                v.push(s.world().tick());
            }
        })
    };
    let cfg = RuntimeConfig {
        metrics_interval: Duration::from_millis(50),
        ..RuntimeConfig::default()
    };
    let handle = fl_server::runtime::spawn_observed(server, cfg, None, Some(sink)).expect("thread");
    let mut live = Live::new(net);
    let m = metrics_until(&handle, &mut live, "ticks", &mut [], |m| m.ticks > 20);
    let ticks = seen.lock().map(|v| v.clone()).unwrap_or_default();
    assert!(
        ticks.len() as u64 >= m.ticks,
        "{} calls for {} ticks",
        ticks.len(),
        m.ticks
    );
    // One call per tick, after it: the world's tick advances by one each time.
    assert!(
        ticks.windows(2).all(|w| w[1] == w[0] + 1),
        "{:?}",
        &ticks[..ticks.len().min(30)]
    );
    drop(handle);
}

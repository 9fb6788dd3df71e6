//! Issue 13, the lag-compensation proof on the path a player runs: the real fl-server runtime on
//! real QUIC on 127.0.0.1, behind the impairment relay (`fl_net::impair::Relay`), and the real
//! client (`ClientSession` over QUIC + `Client`, drawing at 144 Hz in real time) flying a
//! scripted shooter that aims every input where its last drawn frame showed a crossing AI
//! target. After each server tick (`runtime::spawn_observed`), the input that tick applied is
//! scored against the server's own history, rewound by what the server computes for the pilot
//! (its ack-stamp latency plus the `InputViewDelay` the client reported) — and, for the same
//! shot, without any rewind.
//!
//! What it shows: at 100 ms RTT with ±20 ms jitter (and with 2 % loss on top) the shots land in
//! the same places on the target as on a clean link; without the rewind they miss; and a
//! screen further behind than the 31-tick window is not credited with the target's old
//! position. The LinkSim twin in virtual time is `lag_compensation.rs`.
//!
//! Real time on a shared machine: the runs are sequential (one test holds a lock), and the
//! bounds leave room for a late frame or a late tick, never for a shot rewound to somewhere the
//! pilot's screen did not show.

mod lagcomp_support;

use fighters_legacy::client::{Client, ClientConfig};
use fighters_legacy::session::{ClientSession, SessionConfig, SessionState};
use fighters_legacy::sim::Sim;
use fl_net::impair::{DirectionConfig, ImpairConfig, Relay};
use fl_net::quic::{QuicServer, ServerConfig as QuicConfig, TrustPolicy};
use fl_server::lagcomp::MAX_REWIND_TICKS;
use fl_server::pool::EntityId;
use fl_server::runtime::{RuntimeConfig, spawn_observed};
use fl_server::server::{Server, ServerConfig};
use fl_server::types::TypeRegistry;
use lagcomp_support::{Rewind, Shooter, ShotFinder, Sight, Stats, Trigger, same_places};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const FPS: f64 = 144.0;
/// Join, spawn, anchor the prediction and fill the interpolation buffer before scoring.
const WARMUP: Duration = Duration::from_secs(4);

/// The real-time runs share two cores: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// The shots scored on the server thread.
#[derive(Default)]
struct Scoring {
    finder: Option<ShotFinder>,
    measuring: bool,
    rewound: Stats,
    unrewound: Stats,
}

/// One link's results: the same shots with the server's rewind and without.
struct Run {
    rewound: Stats,
    unrewound: Stats,
}

fn each_way(delay_ms: f64, jitter_ms: f64, loss: f64) -> ImpairConfig {
    ImpairConfig::symmetric(DirectionConfig {
        delay_ms,
        jitter_ms,
        loss,
        ..DirectionConfig::default()
    })
}

/// Flies the shooter through a relay impairing the link by `impair`, scoring every shot
/// applied in the `seconds` after the warm-up.
fn engagement(impair: &ImpairConfig, seed: u64, seconds: u64) -> Run {
    let dir = tempfile::tempdir().expect("tempdir");
    let quic = QuicServer::bind(
        SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        dir.path(),
        QuicConfig::default(),
    )
    .expect("bind QUIC on loopback");
    let addr = fl_net::ServerTransport::local_addr(&quic);
    let fingerprint = quic.fingerprint();
    let mut config = ServerConfig::default();
    // Snapshot rate is not what this is about (the congestion response has its own tests).
    config.snapshot.congestion.enabled = false;
    let types = TypeRegistry::builtin().expect("builtin types");
    let mut server = Server::new(config, Box::new(quic), types);
    let target = Sim::spawn_target(&mut server, 0, 250.0).expect("target");
    let relay = Relay::start(
        SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        addr,
        impair,
        seed,
    )
    .expect("relay on loopback");

    let trigger = Arc::new(Mutex::new(Trigger::default()));
    let scoring = Arc::new(Mutex::new(Scoring::default()));
    let sink = {
        let trigger = trigger.clone();
        let scoring = scoring.clone();
        Box::new(move |s: &Server| {
            let Ok(mut guard) = scoring.lock() else {
                return;
            };
            let sc = &mut *guard;
            let Some(finder) = sc.finder.as_mut() else {
                return;
            };
            let shooter = finder.shooter;
            if let Some(aim) = finder.new_shot(s, &trigger)
                && sc.measuring
            {
                sc.rewound.score(s, shooter, target, &aim, Rewind::Server);
                sc.unrewound.score(s, shooter, target, &aim, Rewind::Off);
            }
        })
    };
    let runtime =
        spawn_observed(server, RuntimeConfig::default(), None, Some(sink)).expect("server runtime");

    let session = ClientSession::connect_quic(
        relay.local_addr(),
        "localhost",
        TrustPolicy::Pinned(fingerprint),
        SessionConfig {
            callsign: "shooter".into(),
            ..SessionConfig::default()
        },
        Duration::ZERO,
    )
    .expect("connect through the relay");
    let mut client = Client::new(session, ClientConfig::default(), None);
    let mut pilot = Shooter(trigger.clone());
    let frame_period = Duration::from_secs_f64(1.0 / FPS);
    let end = WARMUP + Duration::from_secs(seconds);
    let started = Instant::now();
    loop {
        let now = started.elapsed();
        let frame = client.frame(now, &mut pilot);
        // The next input aims where this frame showed the target.
        let sight = Sight::of(frame, target.index);
        if let Ok(mut t) = trigger.lock() {
            t.sight = sight;
        }
        if let (Some(own), Ok(mut sc)) = (client.session().own_entity(), scoring.lock()) {
            if sc.finder.is_none() {
                sc.finder = Some(ShotFinder::new(EntityId {
                    index: own.idx,
                    generation: own.generation,
                }));
            }
            sc.measuring = now >= WARMUP;
        }
        assert_ne!(
            client.session().state(),
            SessionState::Ended,
            "the session ended: {:?}",
            client.end_reason().map(|e| e.message())
        );
        if now >= end {
            break;
        }
        let spent = started.elapsed().saturating_sub(now);
        std::thread::sleep(frame_period.saturating_sub(spent));
    }
    client.disconnect("lag-compensation run finished");
    client.frame(started.elapsed(), &mut pilot);
    runtime.stop();
    drop(relay);
    let mut sc = scoring.lock().expect("scoring");
    Run {
        rewound: std::mem::take(&mut sc.rewound),
        unrewound: std::mem::take(&mut sc.unrewound),
    }
}

/// Shots rewound to the frame they were aimed on hit where they were aimed. In real time a
/// shot can also ride on a tick whose input came late (the server repeats the last input and
/// guesses its screen a tick on) or on a frame the OS scheduled late: those are off by a
/// fraction of a tick, and few.
fn on_target(s: &Stats, what: &str) {
    let off = s.misfits_over(0.05);
    assert!(
        off * 100 <= 3 * s.shots,
        "{what}: {off} of {} shots rewound off the screen's frame by more than 0.05 tick",
        s.shots
    );
    assert!(
        s.misfit_max() <= 1.0,
        "{what}: rewind vs screen {}",
        s.misfit_max()
    );
    assert!(s.hit_rate() >= 0.97, "{what}: hit rate {}", s.hit_rate());
    assert!(
        s.error_p(0.95) <= 0.5,
        "{what}: error p95 {}",
        s.error_p(0.95)
    );
}

#[test]
fn on_real_quic_through_the_relay_shots_land_where_the_shooter_saw_the_target() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    const SECONDS: u64 = 12;
    let clean = engagement(&ImpairConfig::default(), 51, SECONDS);
    // 50 ± 20 ms each way: 100 ms round trip with 20 ms of jitter.
    let lag = engagement(&each_way(50.0, 20.0, 0.0), 52, SECONDS);
    let lossy = engagement(&each_way(50.0, 20.0, 0.02), 53, SECONDS);
    for (name, r) in [
        ("clean loopback", &clean),
        ("100 ms RTT ± 20 ms", &lag),
        ("100 ms RTT ± 20 ms, 2 % loss", &lossy),
    ] {
        r.rewound.print(&format!("{name}, rewound"));
        r.unrewound.print(&format!("{name}, no rewind"));
    }
    for (name, r) in [("clean", &clean), ("lag", &lag), ("lossy", &lossy)] {
        // Nearly an input per tick (a late input makes the server repeat the last one).
        assert!(
            r.rewound.shots > 50 * SECONDS as usize,
            "{name}: a shot per input: {}",
            r.rewound.shots
        );
        on_target(&r.rewound, name);
    }
    // The lagged link rewinds the round trip too (6 ticks at 100 ms) on top of the
    // interpolation delay and the input buffer.
    assert!(lag.rewound.mean_rewind() > clean.rewound.mean_rewind() + 4.0);
    assert!(lag.rewound.mean_rewind() < MAX_REWIND_TICKS);
    same_places(&clean.rewound, &lag.rewound, 0.15);
    same_places(&clean.rewound, &lossy.rewound, 0.15);
    // Without the rewind the same shots go where the target was a round trip and an
    // interpolation delay earlier, tens of metres behind it: they miss.
    for (name, r) in [("lag", &lag), ("lossy", &lossy)] {
        assert!(
            r.unrewound.hit_rate() < 0.05,
            "{name}: hit rate without rewind {}",
            r.unrewound.hit_rate()
        );
    }
}

#[test]
fn on_real_quic_a_screen_further_behind_than_the_window_is_not_credited() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // 280 ms each way: the screen is some 36 ticks plus the interpolation delay behind the
    // server, beyond the 31-tick window; the rewind stops there and the shots fall behind.
    let far = engagement(&each_way(280.0, 0.0, 0.0), 54, 8);
    far.rewound.print("560 ms RTT, rewound (clamped)");
    assert!(far.rewound.shots > 300, "{}", far.rewound.shots);
    assert_eq!(
        far.rewound.mean_rewind(),
        MAX_REWIND_TICKS,
        "every shot clamped to the window"
    );
    assert!(
        far.rewound.hit_rate() < 0.05,
        "hit rate past the window {}",
        far.rewound.hit_rate()
    );
}

//! Issue 9: outages. Up to the idle timeout a session survives a blackout and resumes without a
//! reconnect; "connection interrupted" shows within 2 s of silence (a session flag, not an
//! end); the own aircraft keeps flying on prediction and converges after the outage without a
//! teleport; remote aircraft resume from the new snapshots. A vanished server shows the banner
//! within 2 s and ends the session at the (configurable) idle timeout.
//!
//! The deterministic proofs run over LinkSim in virtual time; the real ones run the real QUIC
//! session through the impairment relay (`fl_net::impair`) on loopback against the embedded
//! fl-server, measuring from the relay's own blackout window. The relay flight also checks the
//! spawn over real QUIC (no snap of the own aircraft in its first 2 s at 150 and 300 ms RTT).

use fighters_legacy::autopilot::{Aerobatics, Level};
use fighters_legacy::bridge::{PoseSource, RenderEntity};
use fighters_legacy::client::{Client, ClientConfig, Pilot};
use fighters_legacy::local_server::{LocalServer, LocalServerConfig};
use fighters_legacy::messages::EndReason;
use fighters_legacy::session::{ClientSession, SessionConfig, SessionState};
use fighters_legacy::sim::{Sim, SimConfig};
use fl_net::impair::{Blackout, DirectionConfig as ImpairDirection, ImpairConfig, Relay};
use fl_net::linksim::{DirectionConfig, LinkConfig};
use fl_net::quic::TrustPolicy;
use std::time::{Duration, Instant};

/// Per-frame pop of a rendered entity beyond its own velocity × dt, m.
fn pop(prev: &RenderEntity, cur: &RenderEntity, dt: f64) -> f64 {
    let moved = cur.position - prev.position;
    (moved - (cur.velocity + prev.velocity) * (0.5 * dt)).length()
}

/// The same in real time: a frame that came late (a busy machine) measures the aircraft's own
/// acceleration over dt² rather than a pop, so frames more than 40 ms apart are left out.
fn real_time_pop(prev: &RenderEntity, cur: &RenderEntity, dt: f64) -> f64 {
    if dt > 0.040 { 0.0 } else { pop(prev, cur, dt) }
}

#[test]
fn a_3s_blackout_over_linksim_interrupts_resumes_and_converges() {
    let cfg = SimConfig {
        seed: 31,
        link: LinkConfig::symmetric(DirectionConfig {
            latency: Duration::from_millis(40),
            jitter: Duration::from_millis(10),
            ..DirectionConfig::default()
        }),
        frame_interval: Duration::from_nanos(1_000_000_000 / 120),
        targets: 1,
        target_speed_mps: 265.0,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg, Box::new(Aerobatics::default())).expect("sim");
    sim.run_for(Duration::from_secs(5));
    let out_at = sim.now();
    sim.blackout(Duration::from_secs(3)).expect("blackout");
    let back_at = out_at + Duration::from_secs(3);
    let target = sim.targets()[0].index;
    let mut banner_at = None;
    let mut resumed_snapshot_at = None;
    let applied_before = sim.client().session().stats().snapshots_applied;
    let mut last_own: Option<RenderEntity> = None;
    let mut own_pop_after = 0.0f64;
    let mut remote_after: Vec<(Duration, RenderEntity)> = Vec::new();
    let mut last_t = sim.now();
    while sim.now() < out_at + Duration::from_secs(8) {
        let frames = sim.client().metrics.frames;
        sim.step();
        if sim.client().metrics.frames == frames {
            continue;
        }
        let now = sim.now();
        let c = sim.client();
        assert_ne!(
            c.session().state(),
            SessionState::Ended,
            "{:?}",
            c.end_reason()
        );
        if banner_at.is_none() && c.session().interrupted_since().is_some() {
            banner_at = Some(now);
            let text = c.session().interruption_notice(now).expect("a banner");
            assert!(
                text.starts_with("Connection interrupted: nothing heard from the server for 1 s")
                    && text.contains("15 s"),
                "{text}"
            );
        }
        if c.session().interrupted_since().is_none() {
            assert_eq!(c.session().interruption_notice(now), None);
        }
        if resumed_snapshot_at.is_none()
            && now > back_at
            && c.session().stats().snapshots_applied > applied_before
            && c.session()
                .last_snapshot_tick()
                .is_some_and(|t| t as f64 * fighters_legacy::TICK_S > back_at.as_secs_f64() - 0.5)
        {
            resumed_snapshot_at = Some(now);
        }
        let f = c.render_frame();
        let own = f.own().cloned().expect("the own aircraft keeps flying");
        assert_eq!(
            own.source,
            PoseSource::Predicted,
            "on prediction throughout"
        );
        if let Some(prev) = &last_own
            && now > back_at
        {
            own_pop_after = own_pop_after.max(pop(prev, &own, (now - last_t).as_secs_f64()));
        }
        last_own = Some(own);
        if now > back_at
            && let Some(e) = f.entity(target)
        {
            remote_after.push((now, e.clone()));
        }
        last_t = now;
    }
    let c = sim.client();
    let st = c.session().stats();
    let p = &c.prediction().stats;
    let banner = banner_at.expect("the banner showed") - out_at;
    let resumed = resumed_snapshot_at.expect("snapshots resumed") - back_at;
    // Remote target: frames after the resume whose motion is not its own velocity.
    let jumps: Vec<f64> = remote_after
        .windows(2)
        .map(|w| pop(&w[0].1, &w[1].1, (w[1].0 - w[0].0).as_secs_f64()))
        .filter(|&j| j > 0.5)
        .collect();
    println!(
        "LinkSim 3 s blackout: banner after {:.2} s, snapshots back {:.2} s after the path, \
         interruptions {}, longest outage {:.2} s, outage jump {:.1} m, own pop after resume \
         max {:.3} m/frame, snaps {}, clock re-anchors {}, remote jumps {:?}",
        banner.as_secs_f64(),
        resumed.as_secs_f64(),
        st.interruptions,
        st.longest_outage.as_secs_f64(),
        p.outage_jump_max_m,
        own_pop_after,
        p.snaps,
        c.bridge().stats.clock_reanchors,
        jumps,
    );
    assert!(banner >= Duration::from_millis(900) && banner <= Duration::from_secs(2));
    assert!(resumed <= Duration::from_secs(1), "{resumed:?}");
    assert_eq!(st.interruptions, 1);
    assert!(c.session().interrupted_since().is_none(), "the banner went");
    assert!(st.longest_outage >= Duration::from_secs(3));
    assert_eq!(p.snaps, 0, "no teleport");
    assert!(p.outage_reconciles >= 1);
    // The correction glides in at most at the configured speed (60 m/s: 0.5 m a frame at
    // 120 fps), plus the aircraft's own motion error of a few cm.
    assert!(
        own_pop_after <= 0.55,
        "own pop {own_pop_after} m in one frame"
    );
    assert_eq!(c.bridge().stats.clock_reanchors, 1);
    // The remote target resumes at its new samples with one jump (from where it was held),
    // not a slide through the void.
    assert!(jumps.len() <= 1, "{jumps:?}");
}

#[test]
fn silence_shows_the_banner_then_ends_at_the_idle_timeout_over_linksim() {
    let cfg = SimConfig {
        seed: 32,
        link: LinkConfig::symmetric(DirectionConfig {
            latency: Duration::from_millis(20),
            ..DirectionConfig::default()
        }),
        session: SessionConfig {
            idle_timeout: Duration::from_secs(6),
            ..SessionConfig::default()
        },
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg, Box::new(Level)).expect("sim");
    sim.run_for(Duration::from_secs(3));
    let heard = sim.now();
    sim.blackout(Duration::from_secs(60)).expect("blackout");
    let mut banner_at = None;
    let ended = sim.run_until(Duration::from_secs(20), |s| {
        if banner_at.is_none() && s.client().session().interrupted_since().is_some() {
            banner_at = Some(s.now());
        }
        s.client().session().state() == SessionState::Ended
    });
    assert!(ended);
    let end_at = sim.now() - heard;
    let banner = banner_at.expect("the banner showed") - heard;
    let c = sim.client();
    println!(
        "LinkSim silence: banner after {:.2} s, ended after {:.2} s: {:?}",
        banner.as_secs_f64(),
        end_at.as_secs_f64(),
        c.end_reason().map(|e| e.message())
    );
    assert!(banner <= Duration::from_secs(2), "{banner:?}");
    assert_eq!(c.end_reason(), Some(&EndReason::TimedOut));
    assert!(end_at >= Duration::from_secs(6) && end_at < Duration::from_secs(7));
    assert_eq!(c.session().stats().interruptions, 1);
}

#[test]
fn a_blackout_longer_than_linksims_old_ten_seconds_survives_a_longer_idle_timeout() {
    // The simulated endpoints take the session's idle timeout (they used to give up after a
    // fixed 10 s, so `--linksim --idle-timeout 15` ended a 12 s blackout anyway).
    let cfg = SimConfig {
        seed: 33,
        link: LinkConfig::symmetric(DirectionConfig {
            latency: Duration::from_millis(20),
            ..DirectionConfig::default()
        }),
        session: SessionConfig {
            idle_timeout: Duration::from_secs(15),
            ..SessionConfig::default()
        },
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg, Box::new(Level)).expect("sim");
    sim.run_for(Duration::from_secs(3));
    sim.blackout(Duration::from_secs(12)).expect("blackout");
    sim.run_for(Duration::from_secs(14));
    let c = sim.client();
    assert_eq!(
        c.end_reason(),
        None,
        "the session survived the 12 s blackout"
    );
    assert_eq!(c.session().state(), SessionState::InWorld);
    assert!(c.session().interrupted_since().is_none(), "and resumed");
}

/// One real-time flight through the relay: per frame (time since the relay started, what the
/// client shows).
struct Flight {
    banner_at: Option<Duration>,
    /// First frame after `watch_from` with a snapshot tick newer than the one before it.
    snapshot_back_at: Option<Duration>,
    ended: Option<(Duration, EndReason)>,
    own_pop_after_m: f64,
    snapshots_in_second_after: u64,
    interruptions: u64,
    longest_outage: Duration,
    outage_jump_m: f64,
    snaps: u64,
    /// From the relay's start to the first frame the own aircraft was drawn.
    first_drawn_at: Option<Duration>,
    /// Largest per-frame departure of the own aircraft from its own velocity in its first 2 s
    /// on screen, as a speed (m/s): a blended correction glides at a few m/s, a snap jumps
    /// whole ticks of flight (≈ 3 m in one frame, hundreds of m/s).
    spawn_pop_mps: f64,
}

fn fly_through_relay(
    impair: &ImpairConfig,
    session: SessionConfig,
    seconds: f64,
    watch_from: Duration,
) -> Flight {
    let server = LocalServer::start(LocalServerConfig::default(), Duration::from_secs(30))
        .expect("local server");
    let info = server.info().expect("ready");
    let relay =
        Relay::start("127.0.0.1:0".parse().expect("addr"), info.addr, impair, 9).expect("relay");
    let relay_started = Instant::now();
    let session = ClientSession::connect_quic(
        relay.local_addr(),
        "localhost",
        TrustPolicy::Pinned(info.fingerprint),
        session,
        Duration::ZERO,
    )
    .expect("connect");
    let started = Instant::now();
    let mut client = Client::new(session, ClientConfig::default(), None);
    let mut pilot: Box<dyn Pilot> = Box::new(Level);
    let mut f = Flight {
        banner_at: None,
        snapshot_back_at: None,
        ended: None,
        own_pop_after_m: 0.0,
        snapshots_in_second_after: 0,
        interruptions: 0,
        longest_outage: Duration::ZERO,
        outage_jump_m: 0.0,
        snaps: 0,
        first_drawn_at: None,
        spawn_pop_mps: 0.0,
    };
    let mut last_own: Option<(Duration, RenderEntity)> = None;
    let mut tick_at_watch = None;
    let mut applied_at_back = None;
    let frame = Duration::from_millis(8);
    while relay_started.elapsed().as_secs_f64() < seconds {
        // Motion is measured against the `now` the frame was built for, not the time read after
        // it (a busy machine would put the frame's own run time into dt).
        let now = started.elapsed();
        client.frame(now, pilot.as_mut());
        let t = relay_started.elapsed();
        let s = client.session();
        if s.state() == SessionState::Ended {
            f.ended = s.end_reason().map(|e| (t, e.clone()));
            break;
        }
        if f.banner_at.is_none() && s.interrupted_since().is_some() {
            f.banner_at = Some(t);
        }
        if std::env::var_os("OUTAGE_TRACE").is_some()
            && t >= watch_from.saturating_sub(Duration::from_secs(2))
        {
            eprintln!(
                "{:.3} tick {:?} own {:?} applied {} interrupted {:?} snaps {} pose {:?}",
                t.as_secs_f64(),
                s.last_snapshot_tick(),
                s.own_entity(),
                s.stats().snapshots_applied,
                s.interrupted_since(),
                client.prediction().stats.snaps,
                client.render_frame().own().map(|o| o.position),
            );
        }
        if t >= watch_from {
            let tick = s.last_snapshot_tick();
            let at = *tick_at_watch.get_or_insert(tick);
            if f.snapshot_back_at.is_none() && tick > at {
                f.snapshot_back_at = Some(t);
                applied_at_back = Some(s.stats().snapshots_applied);
            }
        }
        if let (Some(back), Some(n)) = (f.snapshot_back_at, applied_at_back)
            && t <= back + Duration::from_secs(1)
        {
            f.snapshots_in_second_after = s.stats().snapshots_applied - n;
        }
        if let Some(own) = client.render_frame().own().cloned() {
            let first = *f.first_drawn_at.get_or_insert(t);
            if let Some((tl, prev)) = &last_own
                && t <= first + Duration::from_secs(2)
            {
                let dt = (now - *tl).as_secs_f64();
                if dt > 0.0 {
                    f.spawn_pop_mps = f.spawn_pop_mps.max(real_time_pop(prev, &own, dt) / dt);
                }
            }
            if let Some((tl, prev)) = &last_own
                && t >= watch_from
            {
                f.own_pop_after_m =
                    f.own_pop_after_m
                        .max(real_time_pop(prev, &own, (now - *tl).as_secs_f64()));
            }
            last_own = Some((now, own));
        }
        std::thread::sleep(frame);
    }
    let st = client.session().stats();
    f.interruptions = st.interruptions;
    f.longest_outage = st.longest_outage;
    f.outage_jump_m = client.prediction().stats.outage_jump_max_m;
    f.snaps = client.prediction().stats.snaps;
    let ps = &client.prediction().stats;
    println!(
        "prediction: compared {} corrections {} settle compares {} settle snaps {} timeline \
         shifts {} ({} ticks), visual pops {}",
        ps.compared,
        ps.corrections,
        ps.settle_compares,
        ps.settle_snaps,
        ps.timeline_shifts,
        ps.timeline_shift_ticks,
        client.metrics.visual_pops
    );
    println!("relay truth: {:?}", relay.stats().to_client);
    f
}

// Real QUIC through the relay. These needed quinn's BBR congestion controller in fl-net (now
// its configuration): with quinn's default (Cubic) the window collapses in the blackout,
// datagrams queue up in quinn (seconds of snapshots), and after it the stale queue is drained
// first at the minimum window between backed-off probes. Measured through the relay with Cubic:
// `blackout-3s` gave stale snapshots (built at t ≈ 6 s) 0.3 s after the path returned, then
// nothing for ~3 s, fresh ones ~3.8 s after it; `blackout-8s` gave nothing at all within 4 s of
// the path returning. With BBR: snapshots back 8–37 ms after the path (46–47 in the next
// second) for 1, 3 and 8 s, one interruption each, the largest own-aircraft correction
// 0.0 / 0.2 / 1.0–1.7 m, blended. The 1 s profile also runs in the link matrix; it and the
// 8 s one (17 s) are `--ignored` to keep `./dev test` short. `OUTAGE_TRACE=1` prints every
// frame around the blackout.
#[test]
#[ignore = "a 10 s real-time run; blackout-1s is in the link matrix too"]
fn a_1s_blackout_through_the_relay_resumes_within_a_second() {
    blackout_through_the_relay("blackout-1s");
}

#[test]
fn a_3s_blackout_through_the_relay_resumes_within_a_second() {
    blackout_through_the_relay("blackout-3s");
}

#[test]
#[ignore = "a 17 s real-time run"]
fn an_8s_blackout_through_the_relay_resumes_within_a_second() {
    blackout_through_the_relay("blackout-8s");
}

fn blackout_through_the_relay(profile: &str) {
    let impair = ImpairConfig::profile(profile).expect("profile");
    let b = impair.blackouts[0];
    let (out, back) = (b.start(), b.start() + b.duration());
    let f = fly_through_relay(
        &impair,
        SessionConfig::default(),
        back.as_secs_f64() + 4.0,
        back,
    );
    println!(
        "relay blackout {:?}..{:?}: banner at {:?}, snapshots back at {:?} ({} in the second \
         after), interruptions {}, longest outage {:?}, outage jump {:.1} m, own pop after the \
         path returned max {:.3} m/frame, snaps {}, ended {:?}",
        out,
        back,
        f.banner_at,
        f.snapshot_back_at,
        f.snapshots_in_second_after,
        f.interruptions,
        f.longest_outage,
        f.outage_jump_m,
        f.own_pop_after_m,
        f.snaps,
        f.ended
    );
    assert!(f.ended.is_none(), "the session survives: {:?}", f.ended);
    // A blackout of about the banner's threshold may end before it shows; a longer one must
    // show it within 2 s.
    if b.duration() >= Duration::from_secs(2) {
        let banner = f.banner_at.expect("the banner showed");
        assert!(
            banner >= out && banner <= out + Duration::from_secs(2),
            "{banner:?}"
        );
        assert_eq!(f.interruptions, 1);
    } else {
        assert!(f.interruptions <= 1, "{}", f.interruptions);
    }
    let resumed = f.snapshot_back_at.expect("snapshots came back");
    assert!(
        resumed <= back + Duration::from_secs(1),
        "snapshots back {:?} after the path",
        resumed.saturating_sub(back)
    );
    // At full rate again (60 Hz; the server's congestion response may hold some back).
    assert!(
        f.snapshots_in_second_after >= 30,
        "{} snapshots in the second after",
        f.snapshots_in_second_after
    );
    assert_eq!(f.snaps, 0, "no teleport");
    // A correction glides at most at 60 m/s: under a metre a frame even at a stalled 60 fps.
    assert!(f.own_pop_after_m < 1.5, "own pop {} m", f.own_pop_after_m);
}

#[test]
fn a_vanished_server_shows_the_banner_then_ends_at_the_idle_timeout() {
    // Silence is all a client sees of a SIGKILLed server: the relay drops everything from
    // 3 s on, for longer than the test.
    let impair = ImpairConfig {
        to_server: ImpairDirection::default(),
        to_client: ImpairDirection::default(),
        blackouts: vec![Blackout {
            start_ms: 3000,
            duration_ms: 600_000,
        }],
    };
    let f = fly_through_relay(
        &impair,
        SessionConfig {
            idle_timeout: Duration::from_secs(4),
            ..SessionConfig::default()
        },
        20.0,
        Duration::from_secs(3),
    );
    println!(
        "vanished server at 3 s: banner at {:?}, ended {:?}",
        f.banner_at, f.ended
    );
    let banner = f.banner_at.expect("the banner showed");
    assert!(banner <= Duration::from_secs(5), "{banner:?}");
    let (at, why) = f.ended.expect("the session ended");
    assert_eq!(why, EndReason::TimedOut);
    assert!(
        at >= Duration::from_millis(6500) && at <= Duration::from_secs(12),
        "ended at {at:?}"
    );
}

#[test]
fn no_snap_after_spawn_through_the_relay() {
    for one_way_ms in [75.0, 150.0] {
        let dir = ImpairDirection {
            delay_ms: one_way_ms,
            ..ImpairDirection::default()
        };
        let impair = ImpairConfig {
            to_server: dir.clone(),
            to_client: dir,
            blackouts: Vec::new(),
        };
        let f = fly_through_relay(&impair, SessionConfig::default(), 5.0, Duration::MAX);
        println!(
            "spawn through the relay at {} ms RTT: first drawn at {:?}, largest departure from \
             its own velocity in its first 2 s {:.2} m/s, snaps {}",
            2.0 * one_way_ms,
            f.first_drawn_at,
            f.spawn_pop_mps,
            f.snaps
        );
        assert!(f.ended.is_none(), "{:?}", f.ended);
        let drawn = f.first_drawn_at.expect("the own aircraft was drawn");
        assert!(drawn < Duration::from_secs(3), "{drawn:?}");
        // Measured as a speed, not metres per frame: the settling corrections of a loaded
        // machine (late inputs the server repeated) blend at 2-5 m/s, which at 120 frames/s is
        // 0.02-0.06 m a frame and scaled with the frame time; a metre bound flaked under load.
        // 10 m/s is 5 % of the spawn speed; one tick of flight snapped in a frame is ~400 m/s.
        assert!(f.spawn_pop_mps <= 10.0, "spawn pop {} m/s", f.spawn_pop_mps);
    }
}

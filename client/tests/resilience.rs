//! Proof (c): a session survives a 2 s blackout, ends cleanly with a message when the server
//! restarts (and a new session joins the restarted server), and every refusal a real fl-server
//! produces reaches the player as its sentence. LinkSim, virtual time.

mod common;

use common::RealWorld;
use fighters_legacy::autopilot::Aerobatics;
use fighters_legacy::messages::{EndReason, refusal_message};
use fighters_legacy::session::{SessionConfig, SessionSendError, SessionState};
use fighters_legacy::sim::{Sim, SimConfig};
use fl_net::linksim::{DirectionConfig, LinkConfig};
use fl_protocol::enums::{ConnectRefusalCode, PeerRole};
use fl_server::server::ServerConfig;
use std::net::IpAddr;
use std::time::Duration;

fn ip(n: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, n])
}

fn sim(seed: u64) -> Sim {
    let cfg = SimConfig {
        seed,
        link: LinkConfig::symmetric(DirectionConfig::with_latency(Duration::from_millis(40))),
        frame_interval: Duration::from_nanos(1_000_000_000 / 90),
        targets: 1,
        ..SimConfig::default()
    };
    Sim::new(cfg, Box::new(Aerobatics::default())).expect("sim")
}

#[test]
fn a_two_second_blackout_is_survived() {
    let mut sim = sim(21);
    sim.run_for(Duration::from_secs(8));
    assert_eq!(sim.client().session().state(), SessionState::InWorld);
    assert_eq!(sim.report().exactness.mismatches, 0, "exact before the gap");
    let before = sim.client().session().stats().snapshots_applied;
    let held_before = sim.client().bridge().stats.held_poses;
    let extra_before = sim.client().bridge().stats.extrapolated_poses;
    sim.blackout(Duration::from_secs(2)).expect("link");
    sim.run_for(Duration::from_secs(2));
    let during = sim.client().session().stats().snapshots_applied - before;
    assert!(during <= 3, "{during} snapshots through a blackout");
    let b = &sim.client().bridge().stats;
    assert!(
        b.extrapolated_poses > extra_before,
        "remote aircraft extrapolated on the gap"
    );
    assert!(b.held_poses > held_before, "then held");
    // Inputs sent during the blackout never reached the server (it repeated the last one), so
    // predictions made meanwhile were wrong; a few seconds later prediction is exact again.
    sim.run_for(Duration::from_secs(3));
    let after_recovery = sim.report().exactness;
    sim.run_for(Duration::from_secs(5));
    let end = sim.report().exactness;
    assert!(end.checked_exact_basis > after_recovery.checked_exact_basis + 250);
    assert_eq!(
        end.mismatches, after_recovery.mismatches,
        "exact again after the gap"
    );
    let c = sim.client();
    assert_eq!(
        c.session().state(),
        SessionState::InWorld,
        "{:?}",
        c.end_reason()
    );
    let server_tick = sim.server().expect("server").world().tick();
    let last = c.session().last_snapshot_tick().expect("snapshots");
    assert!(
        server_tick - last < 10,
        "snapshots flow again: {last} vs {server_tick}"
    );
    let p = &c.prediction().stats;
    let r = c.metrics.last_reconcile.expect("reconciling");
    assert!(r.tick + 10 > server_tick && r.compared, "{r:?}");
    println!(
        "blackout: reconciles {} corrections {} snaps {} shifts {} ({} ticks) pops {} max pop {:.4} m",
        p.reconciles,
        p.corrections,
        p.snaps,
        p.timeline_shifts,
        p.timeline_shift_ticks,
        c.metrics.visual_pops,
        c.metrics.own_pop_m.max()
    );
}

#[test]
fn a_server_restart_ends_the_session_with_its_message_and_a_new_one_joins() {
    let mut sim = sim(22);
    sim.run_for(Duration::from_secs(4));
    assert_eq!(sim.client().session().state(), SessionState::InWorld);
    sim.shutdown_server("Server restarting for an update");
    let ended = sim.run_until(Duration::from_secs(2), |s| {
        s.client().session().state() == SessionState::Ended
    });
    assert!(ended);
    let end = sim.client().end_reason().expect("reason").clone();
    assert_eq!(
        end,
        EndReason::ServerShutdown {
            notice: "Server restarting for an update".into()
        }
    );
    assert_eq!(
        end.message(),
        "The server shut down: Server restarting for an update"
    );

    sim.start_server(ServerConfig::default()).expect("restart");
    sim.reconnect().expect("new session");
    assert!(sim.run_until(Duration::from_secs(3), |s| {
        s.client().session().state() == SessionState::InWorld
            && s.client().metrics.last_reconcile.is_some()
    }));
    sim.run_for(Duration::from_secs(3));
    let c = sim.client();
    assert_eq!(c.session().state(), SessionState::InWorld);
    assert!(c.prediction().stats.exact_basis_compares > 100);
    assert_eq!(c.prediction().stats.exact_basis_corrections, 0);
}

/// Joins `cfg`'s server from `from` and returns how the session ended.
fn refused(
    world: &mut RealWorld,
    from: IpAddr,
    session: SessionConfig,
) -> (ConnectRefusalCode, String, String) {
    let mut s = world.session_from(from, session);
    world.settle(&mut s, 120);
    match s.end_reason() {
        Some(e @ EndReason::Refused { code, reason }) => (*code, reason.clone(), e.message()),
        other => panic!("expected a refusal, got {other:?} in state {:?}", s.state()),
    }
}

#[test]
fn every_refusal_a_server_produces_reaches_the_player() {
    let base = ServerConfig::default;
    let check = |(code, reason, message): (ConnectRefusalCode, String, String),
                 want: ConnectRefusalCode| {
        assert_eq!(code, want, "{reason}");
        assert_eq!(message, refusal_message(want, &reason));
        println!("{want:?}: {message}");
    };

    let mut cfg = base();
    cfg.admission.bans.insert(ip(1));
    let mut w = RealWorld::new(31, cfg);
    check(
        refused(&mut w, ip(1), SessionConfig::default()),
        ConnectRefusalCode::Banned,
    );

    let mut cfg = base();
    cfg.admission.allowlist = Some([ip(9)].into_iter().collect());
    let mut w = RealWorld::new(32, cfg);
    check(
        refused(&mut w, ip(1), SessionConfig::default()),
        ConnectRefusalCode::AccessDenied,
    );

    let mut cfg = base();
    cfg.admission.connect_burst = 1;
    cfg.admission.connect_rate = 1;
    let mut w = RealWorld::new(33, cfg);
    let mut first = w.session_from(ip(1), SessionConfig::default());
    w.settle(&mut first, 30);
    assert_eq!(first.state(), SessionState::InWorld);
    let rate_limited = refused(&mut w, ip(1), SessionConfig::default());
    // One token per 10 s, spent by `first` a moment ago: the wait named is the bucket's.
    assert!(
        rate_limited.2.ends_with("Try again in 10 s."),
        "{}",
        rate_limited.2
    );
    check(rate_limited, ConnectRefusalCode::RateLimited);

    let mut cfg = base();
    cfg.admission.max_per_ip = 1;
    let mut w = RealWorld::new(34, cfg);
    let mut first = w.session_from(ip(1), SessionConfig::default());
    w.settle(&mut first, 30);
    check(
        refused(&mut w, ip(1), SessionConfig::default()),
        ConnectRefusalCode::TooManyConnections,
    );

    let mut cfg = base();
    cfg.operator_password = Some("secret".into());
    cfg.admission.admin_auth_max_failures = 2;
    let mut w = RealWorld::new(35, cfg);
    let mut first = w.session_from(ip(1), SessionConfig::default());
    w.settle(&mut first, 30);
    // A token the wire cannot carry is refused here, not cut and sent to fail (and to count
    // towards the lockout).
    let long = "x".repeat(fl_protocol::msg::admin::ADMIN_TOKEN_MAX_BYTES + 1);
    assert!(matches!(
        first.send_admin(&long, "status"),
        Err(SessionSendError::AdminTokenTooLong { .. })
    ));
    for _ in 0..2 {
        first.send_admin("guess", "status").expect("sent");
    }
    w.settle(&mut first, 30);
    assert_eq!(
        first.end_reason(),
        Some(&EndReason::ClosedByServer("Access denied.".into()))
    );
    check(
        refused(&mut w, ip(1), SessionConfig::default()),
        ConnectRefusalCode::AdminLockout,
    );

    let mut cfg = base();
    cfg.admission.allow_observers = false;
    let mut w = RealWorld::new(36, cfg);
    check(
        refused(
            &mut w,
            ip(1),
            SessionConfig {
                role: PeerRole::Observer,
                ..SessionConfig::default()
            },
        ),
        ConnectRefusalCode::RoleDenied,
    );

    let mut cfg = base();
    cfg.admission.required_packs = vec!["fl-base".into()];
    let mut w = RealWorld::new(37, cfg);
    let (code, reason, message) = refused(&mut w, ip(1), SessionConfig::default());
    check(
        (code, reason, message.clone()),
        ConnectRefusalCode::MissingRequiredPack,
    );
    assert!(message.contains("fl-base"), "{message}");

    let mut cfg = base();
    cfg.admission.password = Some("pw".into());
    let mut w = RealWorld::new(38, cfg);
    check(
        refused(&mut w, ip(1), SessionConfig::default()),
        ConnectRefusalCode::BadPassword,
    );
    let mut ok = w.session_from(
        ip(2),
        SessionConfig {
            password: Some("pw".into()),
            ..SessionConfig::default()
        },
    );
    w.settle(&mut ok, 30);
    assert_eq!(
        ok.state(),
        SessionState::InWorld,
        "the right password joins"
    );

    let mut cfg = base();
    cfg.world.entity_cap = 0;
    let mut w = RealWorld::new(39, cfg);
    let (code, reason, message) = refused(&mut w, ip(1), SessionConfig::default());
    check((code, reason, message), ConnectRefusalCode::ServerFull);
}

//! Lag compensation on a running server: the history the world records every tick (labelled
//! like the snapshots), the rewind a peer's shots get from its ack stamp and its reported
//! `InputViewDelay` (hostile reports refused or clamped, never beyond the 31-tick window), AI
//! shooters that never rewind, and hitscan against the rewound world — never through a recycled
//! slot's history.

mod common;

use common::{Harness, TestClient};
use fl_flight::math::Vec3;
use fl_net::linksim::{DirectionConfig, LinkConfig};
use fl_protocol::enums::PeerRole;
use fl_protocol::tlv::{Ext, Extensions, MAX_VIEW_DELAY_MILLITICKS, tag};
use fl_server::lagcomp::{MAX_REWIND_TICKS, Ray};
use fl_server::pool::EntityId;
use fl_server::server::{ServerConfig, SpawnPoint};
use fl_server::world::Pilot;
use std::net::IpAddr;
use std::time::Duration;

fn ip(n: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, n])
}

fn own(c: &TestClient) -> EntityId {
    let a = c.admitted().expect("admitted");
    EntityId {
        index: a.assigned_entity_idx,
        generation: a.assigned_entity_gen,
    }
}

fn pilot(h: &mut Harness, link: LinkConfig) -> TestClient {
    let mut c = h.connect(ip(1), link);
    for _ in 0..120 {
        if c.connected {
            break;
        }
        h.step(&mut [&mut c]);
    }
    c.request(PeerRole::Pilot, Extensions::new());
    for _ in 0..120 {
        if c.admitted().is_some() {
            break;
        }
        h.step(&mut [&mut c]);
    }
    assert!(c.admitted().is_some(), "admitted");
    c
}

fn delay_ext(raw: &[u8]) -> Extensions {
    let mut ext = Extensions::new();
    ext.push_raw(tag::INPUT_VIEW_DELAY, raw).expect("fits");
    ext
}

/// The view tick the server holds for the client's applied input, against what the client
/// sent with it.
fn check_view(h: &Harness, c: &TestClient, delay_ticks: f64) -> f64 {
    let shooter = own(c);
    let view = h.server.shooter_view(shooter).expect("a peer flies it");
    let seq = view.applied_seq.expect("an input was applied");
    let ack = c.sent_ticks[&seq] as f64;
    let vt = view.view_tick.expect("a view");
    assert_eq!(vt, ack - delay_ticks, "seq {seq}");
    let now = h.server.world().tick() as f64;
    let rewind = h.server.rewind_ticks(shooter);
    assert_eq!(rewind, (now - vt).clamp(0.0, MAX_REWIND_TICKS));
    rewind
}

#[test]
fn a_peer_rewinds_by_its_latency_plus_its_reported_delay_and_never_past_the_window() {
    let mut h = Harness::new(31, ServerConfig::default());
    // 50 ms each way: the ack stamp trails the server by about six ticks.
    let link = LinkConfig::symmetric(DirectionConfig {
        latency: Duration::from_millis(50),
        ..DirectionConfig::default()
    });
    let mut c = pilot(&mut h, link);

    // 2.5 ticks of interpolation delay reported with every input.
    c.input_ext = delay_ext(&2500u16.to_le_bytes());
    h.run(120, &mut [&mut c]);
    let r = check_view(&h, &c, 2.5);
    println!("rewind at 100 ms RTT with 2.5 ticks of interpolation delay: {r:.2} ticks");
    assert!((8.5..=16.0).contains(&r), "latency + delay: {r}");

    // Absent: the latency alone.
    c.input_ext = Extensions::new();
    h.run(30, &mut [&mut c]);
    let r0 = check_view(&h, &c, 0.0);
    assert!((r - r0 - 2.5).abs() <= 1.0, "{r} vs {r0}");

    // Hostile: an absurd delay (over a second) and a wrong length are refused (latency alone).
    for raw in [
        (MAX_VIEW_DELAY_MILLITICKS + 1).to_le_bytes().to_vec(),
        vec![0xFF, 0xFF],
        vec![1, 2, 3],
        vec![],
    ] {
        c.input_ext = delay_ext(&raw);
        h.run(30, &mut [&mut c]);
        check_view(&h, &c, 0.0);
    }

    // The largest accepted delay: clamped to the window.
    c.input_ext = Extensions::new();
    c.input_ext
        .push(&Ext::InputViewDelay(vec![MAX_VIEW_DELAY_MILLITICKS]))
        .expect("fits");
    h.run(30, &mut [&mut c]);
    assert_eq!(check_view(&h, &c, 60.0), MAX_REWIND_TICKS);

    // A client acknowledging an ancient snapshot: clamped to the window as well.
    c.input_ext = Extensions::new();
    c.ignore_ticks.extend(0..1_000_000);
    h.run(60, &mut [&mut c]);
    let shooter = own(&c);
    assert_eq!(h.server.rewind_ticks(shooter), MAX_REWIND_TICKS);
}

#[test]
fn ai_shooters_and_unflown_entities_never_rewind() {
    let mut h = Harness::new(32, ServerConfig::default());
    let t = h
        .server
        .types()
        .pilot_type("", "builtin:jet-trainer")
        .expect("a flyable type");
    let ai = h
        .server
        .spawn_aircraft(
            t,
            2,
            Pilot::Ai(Box::new(
                fl_ai::Loiter::new(fl_ai::LoiterParams::default()).expect("defaults are valid"),
            )),
            SpawnPoint::FALLBACK,
        )
        .expect("spawned");
    let nobody = h
        .server
        .spawn_aircraft(t, 2, Pilot::None, SpawnPoint::FALLBACK)
        .expect("spawned");
    h.run(60, &mut []);
    assert_eq!(h.server.shooter_view(ai), None);
    assert_eq!(h.server.rewind_ticks(ai), 0.0);
    assert_eq!(h.server.rewind_ticks(nobody), 0.0);
}

/// A ray from 800 m east of `p`, pointing west at it.
fn shot_at(p: Vec3) -> Ray {
    Ray {
        origin: p + Vec3::new(800.0, 0.0, 0.0),
        dir: Vec3::new(-1.0, 0.0, 0.0),
        range_m: 1200.0,
    }
}

#[test]
fn the_world_records_every_tick_and_hitscan_reads_the_rewound_world() {
    let mut h = Harness::new(33, ServerConfig::default());
    let t = h
        .server
        .types()
        .pilot_type("", "builtin:jet-trainer")
        .expect("a flyable type");
    // A target flying north at 200 m/s, and a shooter far away (never in the rays' way).
    let target = h
        .server
        .spawn_aircraft(t, 2, Pilot::None, SpawnPoint::FALLBACK)
        .expect("spawned");
    let shooter = h
        .server
        .spawn_aircraft(
            t,
            1,
            Pilot::None,
            SpawnPoint {
                x: 20_000.0,
                ..SpawnPoint::FALLBACK
            },
        )
        .expect("spawned");
    h.run(50, &mut []);
    let world = h.server.world();
    let now = world.tick();
    let history = world.history();
    // The newest record is the current state, with the snapshot's label.
    assert_eq!(history.newest_tick(), Some(now));
    let current = world.get(target).expect("alive").transform();
    assert_eq!(history.transform_at(target, now), Some(current));
    assert_eq!(history.oldest_tick(), Some(now - MAX_REWIND_TICKS as u64));

    // Where the target was 12.5 ticks ago: hit with that rewind, missed without it (it has
    // flown on some 40 m).
    let then = history
        .position_at(target, now as f64 - 12.5)
        .expect("held");
    assert!((then - current.position).length() > 30.0);
    let radius = h
        .server
        .types()
        .collision_radius_m(world.get(target).expect("alive").type_index);
    let hit = h
        .server
        .ray_hits_rewound(&shot_at(then), shooter, 12.5)
        .expect("hit where it was");
    assert_eq!(hit.entity, target);
    assert!(hit.rewound);
    assert!((hit.distance_m - (800.0 - radius)).abs() < 1e-6);
    assert_eq!(
        h.server.ray_hits_rewound(&shot_at(then), shooter, 0.0),
        None
    );
    assert_eq!(
        h.server
            .ray_hits_rewound(&shot_at(current.position), shooter, 0.0)
            .map(|h| h.entity),
        Some(target)
    );
    // The shooter never hits itself, even point blank.
    let own_pos = world.get(shooter).expect("alive").position();
    assert_eq!(
        h.server.ray_hits_rewound(&shot_at(own_pos), shooter, 0.0),
        None
    );

    // The target is destroyed; its slot is recycled by a new aircraft somewhere else.
    h.server.world_mut().despawn(target);
    let newcomer = h
        .server
        .spawn_aircraft(
            t,
            2,
            Pilot::None,
            SpawnPoint {
                z: -5000.0,
                ..SpawnPoint::FALLBACK
            },
        )
        .expect("spawned");
    assert_eq!(newcomer.index, target.index, "the slot is reused");
    assert_ne!(newcomer.generation, target.generation);
    // Before and after the next step, a shot where the old occupant was finds nothing: the
    // history of the slot belongs to another generation.
    assert_eq!(
        h.server.ray_hits_rewound(&shot_at(then), shooter, 12.5),
        None
    );
    let new_pos = h.server.world().get(newcomer).expect("alive").position();
    assert_eq!(
        h.server
            .ray_hits_rewound(&shot_at(new_pos), shooter, 12.5)
            .map(|h| (h.entity, h.rewound)),
        Some((newcomer, false)),
        "spawned after the record: tested where it is"
    );
    h.run(10, &mut []);
    assert_eq!(
        h.server
            .ray_hits_rewound(&shot_at(then), shooter, 20.0)
            .map(|h| h.entity),
        None
    );
}

//! The snapshot pipeline end to end over LinkSim: the byte budget and the own entity, full
//! records converging to deltas once acknowledged, a lost full recovered in about one RTT, and
//! despawns arriving through heavy loss.

mod common;

use common::{Harness, TestClient};
use fl_ai::{Loiter, LoiterParams};
use fl_flight::math::Vec3;
use fl_net::linksim::{DirectionConfig, LinkConfig};
use fl_protocol::enums::PeerRole;
use fl_protocol::tlv::{Ext, Extensions, tag};
use fl_server::server::{ServerConfig, SpawnPoint};
use fl_server::world::Pilot;
use std::net::IpAddr;
use std::time::Duration;

fn ip(n: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, n])
}

fn join(h: &mut Harness, link: LinkConfig) -> TestClient {
    let mut c = h.connect(ip(1), link);
    for _ in 0..120 {
        if c.connected {
            break;
        }
        h.step(&mut [&mut c]);
    }
    c.request(PeerRole::Pilot, Extensions::new());
    for _ in 0..240 {
        if c.admitted().is_some() {
            break;
        }
        h.step(&mut [&mut c]);
    }
    assert!(c.admitted().is_some(), "admitted");
    c
}

fn spawn_ai(h: &mut Harness, n: usize) {
    let t = h
        .server
        .types()
        .index_of("builtin:jet-trainer")
        .expect("trainer");
    for i in 0..n {
        let at = SpawnPoint {
            x: (i % 16) as f64 * 600.0 - 4500.0,
            z: (i / 16) as f64 * 600.0 + 800.0,
            altitude_m: 2000.0 + (i % 5) as f64 * 300.0,
            heading_deg: (i * 37 % 360) as f64,
            speed_mps: 180.0,
            anchor: None,
        };
        let ctrl = Loiter::new(LoiterParams {
            centre: Some(Vec3::new(at.x, at.altitude_m, at.z)),
            radius_m: 2000.0,
            ..LoiterParams::default()
        })
        .expect("valid loiter");
        h.server
            .spawn_aircraft(t, 2, Pilot::Ai(Box::new(ctrl)), at)
            .expect("room");
    }
}

#[test]
fn the_budget_holds_and_the_own_entity_is_always_sent() {
    let mut h = Harness::new(10, ServerConfig::default());
    spawn_ai(&mut h, 150);
    let mut c = join(&mut h, LinkConfig::default());
    let own = c.admitted().expect("ack").assigned_entity_idx;
    c.snapshots.clear();
    h.run(240, &mut [&mut c]);
    assert!(c.snapshots.len() > 200);
    let mut seen = std::collections::BTreeSet::new();
    for (snap, _, bytes) in &c.snapshots {
        assert!(
            *bytes <= 1200,
            "a {bytes}-byte snapshot breaks the 1200-byte budget"
        );
        assert!(
            snap.records.iter().any(|r| r.idx == own),
            "own entity missing at {}",
            snap.tick_index
        );
        assert!(snap.records.len() < 151, "the budget must defer something");
        seen.extend(snap.records.iter().map(|r| r.idx));
    }
    // Everyone in range is sent eventually (no starvation).
    assert_eq!(
        seen.len(),
        151,
        "only {} of 151 entities were ever sent",
        seen.len()
    );
}

#[test]
fn fulls_converge_to_deltas_once_acked() {
    let mut h = Harness::new(11, ServerConfig::default());
    spawn_ai(&mut h, 10);
    let mut c = join(&mut h, LinkConfig::default());
    h.run(60, &mut [&mut c]);
    let (last, _, _) = c.snapshots.last().expect("snapshots");
    assert!(last.records.len() >= 11);
    assert_eq!(
        last.records.iter().filter(|r| r.full.is_some()).count(),
        0,
        "every record is a delta once acked"
    );
}

#[test]
fn a_lost_full_is_recovered_within_about_one_rtt() {
    let mut h = Harness::new(12, ServerConfig::default());
    let link = LinkConfig::symmetric(DirectionConfig::with_latency(Duration::from_millis(50)));
    let mut c = join(&mut h, link);
    h.run(60, &mut [&mut c]);
    // A new entity appears; the client pretends the first snapshots carrying it were lost.
    spawn_ai(&mut h, 1);
    let new_idx = h
        .server
        .world()
        .iter()
        .map(|(id, _)| id.index)
        .max()
        .expect("entities");
    let first_tick = h.server.world().tick() + 1;
    for t in first_tick..first_tick + 3 {
        c.ignore_ticks.insert(t);
    }
    let mut delivered_full_at = None;
    for _ in 0..120 {
        h.step(&mut [&mut c]);
        for (snap, _, _) in &c.snapshots {
            if c.ignore_ticks.contains(&snap.tick_index) {
                continue;
            }
            if delivered_full_at.is_none()
                && snap
                    .records
                    .iter()
                    .any(|r| r.idx == new_idx && r.full.is_some())
            {
                delivered_full_at = Some(snap.tick_index);
            }
        }
    }
    let at = delivered_full_at.expect("the full is re-sent after the loss");
    // RTT 100 ms = 6 ticks: recovered within a handful of ticks of the loss.
    assert!(
        at <= first_tick + 3 + 10,
        "recovered at {at}, loss began at {first_tick}"
    );
    // And it converged to deltas afterwards.
    let (last, _, _) = c.snapshots.last().expect("snapshots");
    let rec = last
        .records
        .iter()
        .find(|r| r.idx == new_idx)
        .expect("still sent");
    assert!(rec.full.is_none());
}

#[test]
fn despawns_arrive_under_twenty_percent_loss() {
    let mut h = Harness::new(13, ServerConfig::default());
    let lossy = DirectionConfig {
        loss: 0.2,
        latency: Duration::from_millis(30),
        ..DirectionConfig::default()
    };
    spawn_ai(&mut h, 20);
    let mut c = join(&mut h, LinkConfig::symmetric(lossy));
    h.run(120, &mut [&mut c]);
    let victims: Vec<_> = h
        .server
        .world()
        .iter()
        .filter(|(_, e)| e.owner().is_none())
        .map(|(id, _)| id)
        .take(10)
        .collect();
    for id in &victims {
        h.server.world_mut().despawn(*id);
    }
    c.snapshots.clear();
    h.run(120, &mut [&mut c]);
    let mut heard = std::collections::BTreeSet::new();
    for (_, ext, _) in &c.snapshots {
        if let Some(Ext::SnapshotDespawn(ids)) = ext.get(tag::SNAPSHOT_DESPAWN) {
            heard.extend(ids);
        }
    }
    for id in victims {
        assert!(
            heard.contains(&id.index),
            "despawn of {} never arrived",
            id.index
        );
    }
}

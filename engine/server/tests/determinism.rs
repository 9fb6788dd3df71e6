//! The world tick is bit-identical for 1 and N worker threads, with AI pilots and peer pilots.

mod common;

use common::Harness;
use fl_ai::{FactoryContext, build_from_line};
use fl_net::linksim::LinkConfig;
use fl_protocol::enums::PeerRole;
use fl_protocol::tlv::Extensions;
use fl_server::server::{ServerConfig, SpawnPoint};
use fl_server::world::Pilot;
use std::net::IpAddr;

fn run(workers: usize) -> Vec<u64> {
    let mut cfg = ServerConfig::default();
    cfg.world.sim_workers = workers;
    let mut h = Harness::new(30, cfg);
    let t = h
        .server
        .types()
        .index_of("builtin:jet-trainer")
        .expect("trainer");
    let behaviours = [
        "loiter",
        "pursuit target=threat",
        "evade target=threat",
        "break target=threat",
        "lead target=threat",
        "patrol_attack target=threat",
    ];
    for i in 0..24u32 {
        let line = behaviours[i as usize % behaviours.len()];
        let ctrl = build_from_line(line, &FactoryContext::default())
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        let at = SpawnPoint {
            x: f64::from(i % 6) * 900.0,
            z: f64::from(i / 6) * 900.0,
            altitude_m: 2500.0,
            heading_deg: f64::from(i * 45 % 360),
            speed_mps: 190.0,
            anchor: None,
        };
        h.server
            .spawn_aircraft(t, (i % 2 + 1) as u16, Pilot::Ai(ctrl), at)
            .expect("room");
    }
    let mut c = h.connect(IpAddr::from([127, 0, 0, 1]), LinkConfig::default());
    h.run(3, &mut [&mut c]);
    c.request(PeerRole::Pilot, Extensions::new());
    let mut hashes = Vec::new();
    for _ in 0..600 {
        h.step(&mut [&mut c]);
        hashes.push(h.server.world().state_hash());
    }
    hashes
}

#[test]
fn worker_count_does_not_change_a_bit() {
    let serial = run(1);
    let parallel = run(3);
    assert_eq!(serial.len(), parallel.len());
    for (t, (a, b)) in serial.iter().zip(&parallel).enumerate() {
        assert_eq!(a, b, "diverged at tick {t}");
    }
}

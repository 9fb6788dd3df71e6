//! Two servers fed the same inputs reach the same state, bit for bit, while weapons fire: gun
//! bursts with seeded dispersion, an AIM-9P in flight through flares, a bomb, damage and a kill
//! — on one worker thread and on three.

mod combat_support;
mod common;

use combat_support::{Fight, config};
use fl_protocol::enums::buttons;

/// The state hash of every tick of a scripted fight on `workers` threads.
fn fight(workers: usize) -> Option<(Vec<u64>, u64, u64)> {
    let mut cfg = config();
    cfg.world.sim_workers = workers;
    let mut f = Fight::new(61, 2, cfg, "combat determinism")?;
    let (me, them) = (f.own(0), f.own(1));
    f.trim_all();
    f.place_ahead(me, them, 300.0);
    let drone = f.drone_ahead(me, 1500.0);
    let mk82 = f.h.server.types().weapon("fl-base:mk82")?.clone();
    f.h.server
        .world_mut()
        .get_mut(me)
        .expect("me")
        .combat
        .load(4, &mk82)
        .expect("loads");
    let mut hashes = Vec::new();
    for t in 0..1500u32 {
        // The shooter: a gun burst at the aircraft in trail, a missile at the drone beyond, a
        // bomb, flares now and then; the target pops flares while it can.
        let flares = if t % 40 < 2 { buttons::CHAFF_FLARE } else { 0 };
        f.clients[0].buttons = flares
            | match t {
                10..=70 | 200..=230 => buttons::GUN,
                100..=103 | 300..=303 => buttons::FIRE_STORE,
                _ => 0,
            };
        f.clients[0].selected_station = if t >= 280 { 4 } else { 255 };
        f.clients[1].buttons = if t % 20 < 2 { buttons::CHAFF_FLARE } else { 0 };
        f.run(1);
        hashes.push(f.h.server.world().state_hash());
    }
    let c = f.h.server.combat();
    assert!(c.totals.rounds_fired > 0 && c.totals.stores_released >= 2);
    assert!(c.totals.decoys > 0);
    assert!(c.totals.kills >= 1, "the gun burst kills: {:?}", c.totals);
    let drone_hp = f.h.server.world().get(drone).map(|e| e.combat.hp);
    assert!(
        drone_hp.is_some_and(|hp| hp < 100.0),
        "the missile hits the drone"
    );
    Some((hashes, c.totals.rounds_hit, c.totals.detonations))
}

#[test]
fn two_servers_with_the_same_inputs_fight_to_the_same_bits() {
    let Some((a, hits_a, det_a)) = fight(1) else {
        return;
    };
    let (b, hits_b, det_b) = fight(1).expect("the pack is still there");
    let (c, hits_c, det_c) = fight(3).expect("the pack is still there");
    assert!(hits_a > 0, "rounds hit");
    assert!(det_a > 0, "something went off");
    assert_eq!((hits_a, det_a), (hits_b, det_b));
    assert_eq!((hits_a, det_a), (hits_c, det_c));
    for (t, ((x, y), z)) in a.iter().zip(&b).zip(&c).enumerate() {
        assert_eq!(x, y, "two serial servers diverged at tick {t}");
        assert_eq!(x, z, "serial and three workers diverged at tick {t}");
    }
    // The hash sees the fight: it changes while weapons fire.
    assert!(a.windows(2).any(|w| w[0] != w[1]));
}

//! Subsystem damage and fire end to end with the fixture pack's F-5E (docs/combat.md
//! "Subsystems and fire"): a hit that fails an engine sets its `engineFailFlags` bit in the
//! record and the aircraft accelerates less, failed controls cut the roll rate, failed avionics
//! leave only what the eyes see, and a fire burns hit points down until it destroys the aircraft.
//! Each hit is steered onto one pool by zeroing the other pools' weights (the draw itself and
//! its weights are unit-tested in `combat::damage`).

mod combat_support;
mod common;

use combat_support::{Fight, config, effects, records_of};
use fl_content::entity::Subsystem;
use fl_protocol::enums::{EffectType, WeaponType, engine_fail};
use fl_server::combat::damage::Credit;
use fl_server::pool::EntityId;
use fl_server::world::Body;

/// Two trimmed F-5Es side by side 3 km apart (too far to meet), both on full throttle.
fn pair(seed: u64, why: &str) -> Option<(Fight, EntityId, EntityId)> {
    let mut f = Fight::new(seed, 2, config(), why)?;
    let (a, b) = (f.own(0), f.own(1));
    f.trim_all();
    f.place_ahead(a, b, 3000.0);
    f.run(2);
    Some((f, a, b))
}

/// Hits `victim` for `amount` with every pool but `which` weightless, so the strike lands there.
fn hit_on(f: &mut Fight, victim: EntityId, by: EntityId, which: Subsystem, amount: f64) {
    let (world, combat) = f.h.server.world_and_combat_mut();
    let tick = world.tick();
    let e = world.get_mut(victim).expect("victim");
    for p in &mut e.combat.systems.pools {
        if p.which != which {
            p.weight = 0.0;
        }
    }
    let credit = Credit {
        by,
        owner: None,
        faction: 1,
        weapon: WeaponType::Gun,
        tick,
    };
    assert!(combat.damage(world, victim, amount, credit));
    let e = world.get(victim).expect("victim");
    assert!(e.combat.systems.failed(which), "{which:?} failed");
}

fn speed(f: &Fight, id: EntityId) -> f64 {
    f.h.server
        .world()
        .get(id)
        .expect("alive")
        .velocity()
        .length()
}

fn roll_rate(f: &Fight, id: EntityId) -> f64 {
    match &f.h.server.world().get(id).expect("alive").body {
        Body::Aircraft { state, .. } => state.body_rates.x,
        _ => panic!("an aircraft"),
    }
}

#[test]
fn an_engine_hit_flags_the_engine_and_the_aircraft_accelerates_less() {
    let Some((mut f, a, b)) = pair(61, "engine failure") else {
        return;
    };
    // A light hit (the hull stays Intact) that is enough for the left J85's 40 hp.
    hit_on(&mut f, b, a, Subsystem::EngineLeft, 45.0);
    f.h.server.world_mut().get_mut(b).expect("b").combat.hp = 100.0;
    for c in &mut f.clients {
        c.throttle = 1.0;
    }
    let (va, vb) = (speed(&f, a), speed(&f, b));
    f.run(180);
    let (da, db) = (speed(&f, a) - va, speed(&f, b) - vb);
    eprintln!(
        "speed gained in 3 s at full throttle: intact {da:.2} m/s, left engine out {db:.2} m/s"
    );
    assert!(da > 1.0, "the intact aircraft accelerates: {da}");
    assert!(db < 0.8 * da, "half the thrust: {db} vs {da}");
    let e = f.h.server.world().get(b).expect("b");
    assert_eq!(
        e.combat.engine_fail_flags() & engine_fail::LEFT,
        engine_fail::LEFT
    );
    let rec = records_of(&f.clients[0], b.index);
    let last = rec.last().expect("b in a's snapshots");
    assert_eq!(
        last.engine_fail_flags & engine_fail::LEFT,
        engine_fail::LEFT
    );
    assert_eq!(last.engine_fail_flags & engine_fail::RIGHT, 0);
    assert_eq!(last.damage_level, 0, "the hull itself is intact");
}

#[test]
fn a_controls_hit_cuts_the_roll_rate() {
    let Some((mut f, a, b)) = pair(62, "controls failure") else {
        return;
    };
    hit_on(&mut f, b, a, Subsystem::Controls, 30.0);
    f.h.server.world_mut().get_mut(b).expect("b").combat.hp = 100.0;
    for c in &mut f.clients {
        c.aileron = 1.0;
    }
    f.run(30);
    let (pa, pb) = (roll_rate(&f, a).abs(), roll_rate(&f, b).abs());
    eprintln!(
        "roll rate after 0.5 s of full aileron: intact {pa:.3} rad/s, controls failed {pb:.3} rad/s"
    );
    assert!(pa > 0.3, "the intact aircraft rolls: {pa}");
    assert!(pb < 0.6 * pa, "{pb} vs {pa}");
}

#[test]
fn a_fire_burns_hit_points_down_shows_fire_and_destroys() {
    let Some((mut f, a, b)) = pair(63, "fire") else {
        return;
    };
    let tick = f.h.server.world().tick();
    {
        let e = f.h.server.world_mut().get_mut(b).expect("b");
        e.combat.systems.burning_since = Some(tick);
        e.combat.hp = 3.0;
    }
    f.run(30);
    let hp = f.hp(b);
    // 2 % of 100 hp a second: 1 hp in 30 ticks.
    assert!((hp - 2.0).abs() < 0.05, "hp {hp}");
    f.run(120);
    let e = f.h.server.world().get(b).expect("the wreck");
    assert!(e.combat.is_out(), "burnt out of the fight");
    assert!(!e.combat.systems.burning());
    let fires: Vec<_> = effects(&f.clients[0])
        .into_iter()
        .filter(|r| r.kind == EffectType::Fire.to_u8() && r.src_idx == b.index)
        .collect();
    assert!(
        fires.len() >= 4,
        "a Fire effect at 4 Hz while it burned: {}",
        fires.len()
    );
    let _ = a;
}

#[test]
fn failed_avionics_drop_radar_contacts_but_keep_visual_ones() {
    let Some((mut f, a, b)) = pair(64, "avionics failure") else {
        return;
    };
    // b flies 3 km ahead of a, in the eye's reach; a drone 15 km ahead is the radar's alone.
    let far = f.drone_ahead(a, 15_000.0);
    let contacts = |f: &Fight| {
        f.h.server
            .contacts_of(a)
            .iter()
            .map(|c| c.target.0)
            .collect::<Vec<_>>()
    };
    let id = |e: EntityId| fl_server::combat::sensors::sensing_id(e).0;
    f.run(60);
    let before = contacts(&f);
    assert!(
        before.contains(&id(b)) && before.contains(&id(far)),
        "{before:?}"
    );
    f.run(300);
    let still = contacts(&f);
    assert!(
        still.contains(&id(far)),
        "5 s on the radar still holds it: {still:?}"
    );
    hit_on(&mut f, a, b, Subsystem::Avionics, 20.0);
    f.h.server.world_mut().get_mut(a).expect("a").combat.hp = 100.0;
    assert!(
        f.h.server
            .world()
            .get(a)
            .expect("a")
            .combat
            .avionics_failed()
    );
    f.run(300);
    let after = contacts(&f);
    eprintln!(
        "contacts (b {}, far {}): before {before:?}, 5 s after the avionics failed {after:?}",
        id(b),
        id(far)
    );
    assert!(after.contains(&id(b)), "the eye still sees 3 km: {after:?}");
    assert!(
        !after.contains(&id(far)),
        "the radar's 15 km contact is gone: {after:?}"
    );
}

//! Combat end to end over LinkSim with the fixture pack's F-5E: a gun burst kills a target in
//! trail and the kill is broadcast (with the damage tiers walking up in its record on the way),
//! an AIM-9P launched at a target 2 km ahead flies as a snapshot entity and hits it, and a Mk 82
//! falls onto the ground and its blast reaches a depot there.

mod combat_support;
mod common;

use combat_support::{Fight, combat_records, config, effects, kills, last_of, records_of};
use fl_protocol::enums::{
    CombatEventType, DamageLevel, EffectType, ObjectCategory, ProjectileKind, WeaponType, buttons,
    engine_fail, ids::NO_OWNING_PEER,
};
use fl_server::world::Body;

#[test]
fn a_gun_burst_kills_the_aircraft_300_m_ahead_and_everyone_hears_the_kill() {
    let Some(mut f) = Fight::new(41, 2, config(), "a gun kill") else {
        return;
    };
    let (me, them) = (f.own(0), f.own(1));
    f.trim_all();
    f.place_ahead(me, them, 300.0);
    f.run(2);
    let full_hp = f.hp(them);
    assert_eq!(full_hp, 100.0, "the F-5E's max_hp");
    f.clients[0].buttons = buttons::GUN;
    let mut killed_at = None;
    for t in 0..180 {
        f.run(1);
        if f.h
            .server
            .world()
            .get(them)
            .is_none_or(|e| e.combat.is_out())
        {
            killed_at = Some(t);
            break;
        }
    }
    let killed_at = killed_at.expect("the burst kills it within 3 s");
    f.clients[0].buttons = 0;
    f.run(10);
    // 8 damage a round against 100 hp: the 13th round kills, ~0.65 s at 1,200 rpm.
    assert!(
        (30..=60).contains(&killed_at),
        "killed after {killed_at} ticks"
    );
    let peers: Vec<u32> = f
        .clients
        .iter()
        .map(|c| c.admitted().expect("admitted").peer_id)
        .collect();
    for c in &f.clients {
        let k = kills(c);
        assert_eq!(k.len(), 1, "one kill record, broadcast: {k:?}");
        let k = k[0].clone();
        assert_eq!(k.weapon_class, WeaponType::Gun.to_u8());
        assert_eq!((k.subject_idx, k.instigator_idx), (them.index, me.index));
        assert_eq!(k.subject_gen, them.generation as u16);
        assert_eq!((k.a, k.b), (peers[0], peers[1]));
    }
    let stats = last_of(&f.clients[0], CombatEventType::Stats).expect("own stats");
    assert_eq!(
        (stats.a, stats.b, stats.c),
        (1, 0, 10),
        "one kill, no loss, score 10"
    );
    let shots = last_of(&f.clients[0], CombatEventType::Shots).expect("own shots");
    assert!(
        shots.a >= 13 && shots.b >= 13 && shots.b <= shots.a,
        "{shots:?}"
    );
    let theirs = last_of(&f.clients[1], CombatEventType::Stats).expect("their stats");
    assert_eq!((theirs.a, theirs.b), (0, 1), "the victim's loss");
    // Only the shooter's own tallies reach the shooter.
    assert!(
        combat_records(&f.clients[0])
            .iter()
            .filter(|r| r.event_type() == Some(CombatEventType::Stats))
            .all(|r| r.b == 0)
    );
    let fx = effects(&f.clients[1]);
    assert!(fx.iter().any(|e| e.kind == EffectType::WeaponFired.to_u8()
        && e.src_idx == me.index
        && e.weapon_class == WeaponType::Gun.to_u8()));
    assert!(
        fx.iter()
            .any(|e| e.kind == EffectType::Impact.to_u8() && e.tgt_idx == them.index)
    );
    // The F-5E's tiers walk up in the victim's record: light at 70 %, heavy at 35 % (its thrust
    // impaired), critical at 10 %, then destroyed.
    let levels: Vec<(u8, u8)> = records_of(&f.clients[1], them.index)
        .iter()
        .map(|r| (r.damage_level, r.engine_fail_flags))
        .collect();
    let mut seen: Vec<u8> = levels.iter().map(|l| l.0).collect();
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    seen.dedup();
    assert_eq!(seen, vec![0, 1, 2, 3, 4], "{levels:?}");
    for (level, flags) in levels {
        let impaired =
            level == DamageLevel::Heavy.to_u8() || level == DamageLevel::Critical.to_u8();
        assert_eq!(flags & engine_fail::GENERIC != 0, impaired, "level {level}");
    }
    // The pilot of the destroyed aircraft gets a new one after the respawn delay.
    f.run(200);
    assert_ne!(f.own(1), them, "the victim respawned");
    assert_eq!(
        kills(&f.clients[1]).len(),
        1,
        "the falling wreck adds no kill"
    );
    assert_eq!(f.h.server.combat().refused.total(), 0);
}

#[test]
fn an_aim9p_launched_at_a_target_2_km_ahead_flies_in_the_snapshots_and_hits_it() {
    let Some(mut f) = Fight::new(42, 1, config(), "an AIM-9P shot") else {
        return;
    };
    let me = f.own(0);
    let target = f.drone_ahead(me, 2000.0);
    f.run(2);
    let aim9 =
        f.h.server
            .types()
            .index_of("fl-base:aim9p")
            .expect("the AIM-9P has a projectile type");
    let ack = f.clients[0].admitted().expect("admitted").clone();
    let def = ack
        .types
        .iter()
        .find(|t| t.type_index == aim9)
        .expect("the client is told the missile's type");
    assert_eq!(def.category, ObjectCategory::Projectile);
    assert_eq!(def.projectile_kind, ProjectileKind::Missile);
    f.clients[0].buttons = buttons::FIRE_STORE;
    f.run(5);
    f.clients[0].buttons = 0;
    let mut hit = false;
    let mut missile_seen = false;
    for _ in 0..600 {
        f.run(1);
        missile_seen |=
            f.h.server
                .world()
                .iter()
                .any(|(_, e)| e.type_index == aim9 && matches!(e.body, Body::Projectile { .. }));
        if f.hp(target) < 100.0 {
            hit = true;
            break;
        }
    }
    assert!(missile_seen, "the missile is an entity of the world");
    assert!(hit, "the AIM-9P hits");
    f.run(5);
    let hp = f.hp(target);
    assert!(
        hp <= 100.0 - 30.0,
        "a proximity hit within its 9 m radius: {hp} hp left"
    );
    let c = &f.clients[0];
    // The missile was in the snapshots as a full record of its projectile type.
    assert!(
        c.snapshots
            .iter()
            .flat_map(|(s, _, _)| s.records.iter())
            .any(|r| r.full.as_ref().is_some_and(|i| i.type_index == aim9)),
        "the missile was sent as an entity"
    );
    let fx = effects(c);
    assert!(
        fx.iter()
            .any(|e| e.kind == EffectType::MissileLaunch.to_u8()
                && e.src_idx == me.index
                && e.tgt_idx == target.index)
    );
    assert!(fx.iter().any(|e| e.kind == EffectType::Detonation.to_u8()
        && e.tgt_idx == target.index
        && e.weapon_class == WeaponType::Missile.to_u8()));
    // One AIM-9P left; the selection moved to the other rail.
    let e = f.h.server.world().get(me).expect("shooter");
    let left: u32 = e
        .combat
        .loadout
        .stations
        .iter()
        .flatten()
        .filter(|s| s.weapon.id == "fl-base:aim9p")
        .map(|s| s.rounds)
        .sum();
    assert_eq!(left, 1);
    assert_eq!(e.combat.selected, Some(2));
    // The store's mass left the flight model: 190 lb.
    let Body::Aircraft { state, .. } = &e.body else {
        panic!("aircraft");
    };
    let t = f.h.server.types().get(e.type_index).expect("type");
    assert!(
        (t.payload_mass_kg - state.payload_kg - 190.0 * 0.453_592_37).abs() < 1e-6,
        "{} → {}",
        t.payload_mass_kg,
        state.payload_kg
    );
    // The shot missed nobody's tally: a drone has no peer.
    assert!(kills(c).iter().all(|k| k.b == NO_OWNING_PEER));
    // It is gone from the world once it went off.
    assert!(
        !f.h.server
            .world()
            .iter()
            .any(|(_, e)| matches!(e.body, Body::Projectile { .. }))
    );
}

/// Drops a Mk 82 from the first pilot's station 3 at 600 m, 200 m/s; with `depot` set, a fuel
/// depot stands there first. Returns where it went off, the depot's hp after, the fight.
fn drop_mk82(depot_at: Option<[f64; 3]>) -> Option<([f32; 3], Option<f64>, Fight)> {
    let mut cfg = config();
    cfg.spawn_points[0].altitude_m = 600.0;
    let mut f = Fight::new(43, 1, cfg, "a Mk 82 drop")?;
    let me = f.own(0);
    let mk82 =
        f.h.server
            .types()
            .weapon("fl-base:mk82")
            .expect("mk82")
            .clone();
    let depot = depot_at.map(|p| {
        let t =
            f.h.server
                .types()
                .index_of("fl-base:fuel_depot")
                .expect("depot");
        f.h.server
            .spawn_static(t, 2, fl_flight::math::Vec3::new(p[0], p[1], p[2]))
            .expect("room")
    });
    {
        let e = f.h.server.world_mut().get_mut(me).expect("me");
        e.combat.load(3, &mk82).expect("station 3 takes a Mk 82");
        // Not on a wingtip rail.
        assert!(e.combat.load(1, &mk82).is_err());
    }
    f.clients[0].selected_station = 3;
    f.run(3);
    f.clients[0].buttons = buttons::FIRE_STORE;
    f.run(4);
    f.clients[0].buttons = 0;
    for _ in 0..1200 {
        f.run(1);
        if f.h.server.combat().totals.detonations > 0 {
            break;
        }
    }
    f.run(3);
    let det = effects(&f.clients[0])
        .into_iter()
        .find(|e| e.kind == EffectType::Detonation.to_u8())?;
    assert_eq!(det.weapon_class, WeaponType::Bomb.to_u8());
    assert_eq!(det.src_idx, me.index);
    let hp = depot.and_then(|d| f.h.server.world().get(d).map(|e| e.combat.hp));
    Some((det.pos, hp, f))
}

#[test]
fn a_mk82_falls_onto_the_ground_and_its_blast_reaches_a_depot_there() {
    let Some((at, _, f)) = drop_mk82(None) else {
        if fl_fixtures::fixture_pack().is_some() {
            panic!("the bomb never went off");
        }
        return;
    };
    // On the ground: the floor's height under the point (the base planet's here).
    let world = f.h.server.world();
    let p = fl_flight::math::Vec3::new(f64::from(at[0]), f64::from(at[1]), f64::from(at[2]));
    let agl =
        world.planet().altitude(p) - world.floor().height_at_world(world.planet().radius_m, p);
    assert!(agl.abs() < 1.0, "detonated {agl} m above the ground");
    assert_eq!(f.h.server.combat().totals.stores_released, 1);
    assert!(
        !world
            .iter()
            .any(|(_, e)| matches!(e.body, Body::Projectile { .. })),
        "the bomb is gone"
    );
    // The same drop onto a depot standing there: the same point (deterministic), and its blast
    // takes a direct hit's 200 hp off the depot's 400.
    let ground = [f64::from(at[0]), f64::from(at[1]), f64::from(at[2])];
    let (_, hp, _) = drop_mk82(Some(ground)).expect("the second drop goes off too");
    let hp = hp.expect("the depot stands");
    assert!((200.0..=201.0).contains(&hp), "depot left with {hp} hp");
}

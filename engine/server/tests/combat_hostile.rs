//! Hostile fire-control input, each refused without effect and counted: a trigger hammered
//! faster than the gun's rate, a station the aircraft does not have, an empty station, a store
//! already released, a gun "released" as a store, chaff and flares with none left, a radar mode
//! out of range. Plus jettison (selectedStation 254 with the release bit) counting the stores
//! down and taking their mass off the flight model.

mod combat_support;
mod common;

use combat_support::{Fight, config};
use fl_protocol::enums::buttons;
use fl_server::combat::Refusals;
use fl_server::pool::EntityId;
use fl_server::world::Body;

fn fight(seed: u64, why: &str) -> Option<(Fight, EntityId)> {
    let f = Fight::new(seed, 1, config(), why)?;
    let me = f.own(0);
    Some((f, me))
}

/// Rounds left on each station of `id` (None for an empty station).
fn rounds(f: &Fight, id: EntityId) -> Vec<Option<u32>> {
    f.h.server
        .world()
        .get(id)
        .expect("aircraft")
        .combat
        .loadout
        .stations
        .iter()
        .map(|s| s.as_ref().map(|s| s.rounds))
        .collect()
}

fn refused(f: &Fight) -> Refusals {
    f.h.server.combat().refused
}

fn projectiles(f: &Fight) -> usize {
    f.h.server
        .world()
        .iter()
        .filter(|(_, e)| matches!(e.body, Body::Projectile { .. }))
        .count()
}

/// Holds `bits` for 4 ticks, then lets go for 20 (a press the jitter buffer cannot merge).
fn press(f: &mut Fight, bits: u8) {
    f.clients[0].buttons = bits;
    f.run(4);
    f.clients[0].buttons = 0;
    f.run(20);
}

#[test]
fn a_trigger_hammered_every_tick_never_beats_the_guns_rate() {
    let Some((mut f, me)) = fight(51, "gun rate") else {
        return;
    };
    let full = rounds(&f, me)[0].expect("a gun");
    // The M39A2 fires at the default 1,200 rpm: 20 rounds a second, held.
    f.clients[0].buttons = buttons::GUN;
    f.run(60);
    f.clients[0].buttons = 0;
    f.run(10);
    let held = full - rounds(&f, me)[0].expect("gun");
    assert!(
        (20..=21).contains(&held),
        "held for a second: {held} rounds"
    );
    assert_eq!(
        refused(&f).rate,
        0,
        "holding the trigger is not hammering it"
    );
    // Now pressed and released every other tick for a second: as many presses as ticks allow,
    // never more rounds than the rate.
    let before = rounds(&f, me)[0].expect("gun");
    for t in 0..60 {
        f.clients[0].buttons = if t % 2 == 0 { buttons::GUN } else { 0 };
        f.run(1);
    }
    f.clients[0].buttons = 0;
    f.run(10);
    let hammered = before - rounds(&f, me)[0].expect("gun");
    assert!(hammered <= 21, "{hammered} rounds in a second of hammering");
    assert!(hammered >= 10, "presses do fire: {hammered}");
    assert!(
        refused(&f).rate > 0,
        "early presses are refused and counted"
    );
    assert_eq!(
        f.h.server.combat().totals.rounds_fired,
        u64::from(held + hammered)
    );
}

#[test]
fn stations_the_aircraft_lacks_or_emptied_release_nothing() {
    let Some((mut f, me)) = fight(52, "station refusals") else {
        return;
    };
    let start = rounds(&f, me);
    assert_eq!(start[1], Some(1), "one AIM-9P per rail");
    // A station the F-5E does not have (it has 7): refused, nothing released, selection kept.
    f.clients[0].selected_station = 40;
    press(&mut f, buttons::FIRE_STORE);
    assert!(refused(&f).no_such_station >= 1);
    assert_eq!(rounds(&f, me), start);
    assert_eq!(projectiles(&f), 0);
    let sel = f.h.server.world().get(me).expect("me").combat.selected;
    assert_eq!(sel, Some(1), "the selection stays on the first rail");
    // An empty pylon.
    f.clients[0].selected_station = 3;
    press(&mut f, buttons::FIRE_STORE);
    assert_eq!(refused(&f).empty_station, 1);
    assert_eq!(rounds(&f, me), start);
    // The gun is not a store to release.
    f.clients[0].selected_station = 0;
    press(&mut f, buttons::FIRE_STORE);
    assert_eq!(refused(&f).not_releasable, 1);
    assert_eq!(rounds(&f, me), start);
    // Fire the left rail's missile, then ask for it again: it is not carried any more.
    f.clients[0].selected_station = 1;
    press(&mut f, buttons::FIRE_STORE);
    assert_eq!(rounds(&f, me)[1], None, "released");
    assert_eq!(f.h.server.combat().totals.stores_released, 1);
    press(&mut f, buttons::FIRE_STORE);
    assert_eq!(refused(&f).empty_station, 2);
    assert_eq!(
        rounds(&f, me)[2],
        Some(1),
        "the right rail still has its missile"
    );
    assert_eq!(f.h.server.combat().totals.stores_released, 1);
}

#[test]
fn expendables_run_out_and_a_bad_radar_mode_changes_nothing() {
    let Some((mut f, me)) = fight(53, "countermeasures") else {
        return;
    };
    let l = |f: &Fight| {
        let c = &f.h.server.world().get(me).expect("me").combat;
        (c.loadout.chaff, c.loadout.flares, c.radar_mode)
    };
    assert_eq!(l(&f), (30, 15, 2), "the F-5E's magazine; radar in TWS");
    for _ in 0..30 {
        f.clients[0].buttons = buttons::CHAFF_FLARE;
        f.run(2);
        f.clients[0].buttons = 0;
        f.run(2);
    }
    assert_eq!(
        l(&f),
        (0, 0, 2),
        "one chaff and (while any) one flare a press"
    );
    assert_eq!(f.h.server.combat().totals.decoys, 45);
    assert_eq!(refused(&f).no_countermeasures, 0);
    press(&mut f, buttons::CHAFF_FLARE);
    assert_eq!(refused(&f).no_countermeasures, 1);
    assert_eq!(f.h.server.combat().totals.decoys, 45);
    // Radar modes: 3 (STT) is taken, 7 is refused and the mode stays.
    f.clients[0].radar_mode = 3;
    f.run(5);
    assert_eq!(l(&f).2, 3);
    f.clients[0].radar_mode = 7;
    f.run(5);
    assert_eq!(l(&f).2, 3);
    assert!(refused(&f).bad_radar_mode >= 1);
}

#[test]
fn jettison_drops_every_external_store_and_their_mass() {
    let Some((mut f, me)) = fight(54, "jettison") else {
        return;
    };
    let payload = |f: &Fight| match &f.h.server.world().get(me).expect("me").body {
        Body::Aircraft { state, .. } => state.payload_kg,
        _ => panic!("aircraft"),
    };
    let before = payload(&f);
    f.clients[0].selected_station = fl_server::combat::JETTISON_STATION;
    press(&mut f, buttons::FIRE_STORE);
    let r = rounds(&f, me);
    assert_eq!(r[1], None);
    assert_eq!(r[2], None);
    assert!(r[0].is_some(), "the gun stays");
    assert_eq!(f.h.server.combat().totals.jettisoned, 2);
    assert_eq!(projectiles(&f), 0, "jettisoned stores fall away unarmed");
    let lb = 0.453_592_37;
    assert!(
        (before - payload(&f) - 2.0 * 190.0 * lb).abs() < 1e-6,
        "{before} → {}",
        payload(&f)
    );
    // Nothing left to jettison.
    press(&mut f, buttons::FIRE_STORE);
    assert_eq!(refused(&f).empty_station, 1);
    assert_eq!(refused(&f).total(), 1);
}

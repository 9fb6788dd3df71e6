//! Fire control over a scripted world: the gun fires only at a hostile contact inside its range
//! and cone, a missile only at a locked contact inside its envelope (a radar missile only in STT),
//! with the launch interval, shoot-look-shoot and the one-tick release press.

use fl_ai::weapons::{
    ContactView, FireControl, SeekerClass, StationView, StoreKind, WeaponIntent, radar,
};
use fl_ai::{EntityId, EntityView};
use fl_flight::DT;
use fl_flight::math::Vec3;

mod scripted;

use scripted::{Scripted, hostile};

/// The shooter: at 3 km, nose along world −Z (a point view's orientation).
fn me() -> EntityView {
    EntityView::point(
        EntityId::new(0, 1),
        1,
        Vec3::new(0.0, 3000.0, 0.0),
        Vec3::new(0.0, 0.0, -200.0),
    )
}

/// A contact `range` ahead, `off_deg` to the right of the nose.
fn contact(range: f64, off_deg: f64, locked: bool) -> ContactView {
    let a = off_deg.to_radians();
    hostile(
        EntityId::new(1, 1),
        Vec3::new(range * a.sin(), 3000.0, -range * a.cos()),
        Vec3::new(0.0, 0.0, -200.0),
        locked,
    )
}

fn gun(rounds: u32) -> StationView {
    StationView {
        station: 0,
        kind: StoreKind::Gun {
            range_m: 1100.0,
            muzzle_velocity_mps: f64::INFINITY,
        },
        rounds,
    }
}

fn missile(station: u8, seeker: SeekerClass) -> StationView {
    StationView {
        station,
        kind: StoreKind::Missile {
            seeker,
            min_range_m: 300.0,
            max_range_m: 10_000.0,
            seeker_half_angle_rad: 0.3,
            time_of_flight_s: 20.0,
        },
        rounds: 1,
    }
}

/// One tick of fire control against `w`; a release takes a store off its station (as the
/// server's release does).
fn decide(w: &mut Scripted, fc: &mut FireControl, tick: u64) -> WeaponIntent {
    let c = w.contacts.first().copied();
    let i = fc.decide(&me(), w, c.as_ref(), tick);
    if i.release
        && let Some(s) = w.stations.iter_mut().find(|s| Some(s.station) == i.station)
    {
        s.rounds = s.rounds.saturating_sub(1);
    }
    i
}

/// Fire control past its first tick (buttons count as held at spawn: the first tick lets go).
fn settled(w: &mut Scripted) -> FireControl {
    let mut fc = FireControl::default();
    let first = decide(w, &mut fc, 0);
    assert_eq!(first, WeaponIntent::default(), "the first tick lets go");
    fc
}

#[test]
fn the_gun_fires_only_at_a_hostile_contact_in_range_and_on_the_nose() {
    let trig = |c: Option<ContactView>, rounds: u32| {
        let mut w = Scripted {
            contacts: c.into_iter().collect(),
            stations: vec![gun(rounds)],
            radar: radar::TWS,
        };
        let mut fc = settled(&mut w);
        decide(&mut w, &mut fc, 1).trigger
    };
    assert!(trig(Some(contact(500.0, 0.3, false)), 300));
    assert!(
        !trig(Some(contact(1500.0, 0.0, false)), 300),
        "beyond range"
    );
    assert!(
        !trig(Some(contact(500.0, 20.0, false)), 300),
        "off the nose"
    );
    assert!(!trig(Some(contact(500.0, 180.0, false)), 300), "behind");
    assert!(!trig(Some(contact(500.0, 0.0, false)), 0), "empty magazine");
    assert!(!trig(None, 300), "no contact");
    let mut friend = contact(500.0, 0.0, true);
    friend.hostile = false;
    assert!(!trig(Some(friend), 300), "a friend on the nose");
    let mut stale = contact(500.0, 0.0, true);
    stale.age_s = 10.0;
    assert!(!trig(Some(stale), 300), "a stale contact");
}

#[test]
fn a_finite_muzzle_velocity_leads_a_crossing_target() {
    let me = me();
    // A target crossing left to right at 200 m/s, 600 m ahead: rounds at 1000 m/s take ~0.6 s.
    let p = Vec3::new(0.0, 3000.0, -600.0);
    let v = Vec3::new(200.0, 0.0, -200.0);
    let aim = fl_ai::weapons::gun_aim_point(&me, p, v, 1000.0);
    assert!(aim.x > 100.0 && aim.x < 140.0, "{aim:?}");
    assert_eq!(fl_ai::weapons::gun_aim_point(&me, p, v, f64::INFINITY), p);
}

#[test]
fn an_ir_missile_launches_on_a_locked_contact_with_interval_and_shoot_look_shoot() {
    let mut w = Scripted {
        contacts: vec![contact(3000.0, 5.0, true)],
        stations: vec![
            missile(1, SeekerClass::Infrared),
            missile(2, SeekerClass::Infrared),
        ],
        radar: radar::TWS,
    };
    let mut fc = settled(&mut w);
    let first = decide(&mut w, &mut fc, 100);
    assert!(first.release && first.station == Some(1), "{first:?}");
    // The press lasts one tick.
    assert!(!decide(&mut w, &mut fc, 101).release);
    // Looking: no second launch at the same target for 0.8 × 20 s = 16 s.
    let look = (16.0 / DT) as u64;
    let mut launches = vec![];
    for t in 102..(100 + look + 120) {
        if decide(&mut w, &mut fc, t).release {
            launches.push(t);
        }
    }
    assert_eq!(launches.len(), 1, "{launches:?}");
    assert!(launches[0] >= 100 + look, "{launches:?}");
    // The second came off the other station.
    assert_eq!(w.stations.iter().map(|s| s.rounds).sum::<u32>(), 0);
    // Unlocked, out of the lobe, too close or too far: never.
    for c in [
        contact(3000.0, 5.0, false),
        contact(3000.0, 30.0, true),
        contact(200.0, 0.0, true),
        contact(7000.0, 0.0, true),
    ] {
        let mut w = Scripted {
            contacts: vec![c],
            stations: vec![missile(1, SeekerClass::Infrared)],
            radar: radar::TWS,
        };
        let mut fc = settled(&mut w);
        let i = decide(&mut w, &mut fc, 1);
        assert!(!i.release, "{c:?}");
        // No gun is carried: no trigger either.
        assert!(!i.trigger);
    }
}

#[test]
fn a_radar_missile_asks_for_stt_and_waits_for_it() {
    let mut w = Scripted {
        contacts: vec![contact(4000.0, 0.0, true)],
        stations: vec![missile(3, SeekerClass::Radar)],
        radar: radar::TWS,
    };
    let mut fc = settled(&mut w);
    let i = decide(&mut w, &mut fc, 1);
    assert_eq!(i.radar_mode, Some(radar::STT));
    assert!(!i.release);
    w.radar = radar::STT;
    let i = decide(&mut w, &mut fc, 2);
    assert!(i.release && i.station == Some(3), "{i:?}");
}

#[test]
fn a_launch_the_server_did_not_make_is_retried_after_the_interval() {
    // The world never takes the store off (a refused press): the look is dropped and the
    // interval alone spaces the presses.
    let w = Scripted {
        contacts: vec![contact(3000.0, 0.0, true)],
        stations: vec![missile(1, SeekerClass::Infrared)],
        radar: radar::TWS,
    };
    let mut fc = FireControl::default();
    let mut presses = vec![];
    for t in 0..(10 * 60) {
        let c = w.contacts.first().copied();
        if fc.decide(&me(), &w, c.as_ref(), t).release {
            presses.push(t);
        }
    }
    assert_eq!(presses, vec![1, 241, 481], "every 4 s");
}

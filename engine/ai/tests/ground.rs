//! The ground sites' decisions over a scripted world: a `sam` searches until a hostile contact
//! is inside its range and arc, then locks it (STT, designated), lays its launcher above the
//! line of sight and launches once laid, one missile per look; an `aaa` lays its gun on anything
//! hostile near its range and fires only inside it.

use fl_ai::weapons::{ContactView, SeekerClass, StationView, StoreKind, WeaponIntent, radar};
use fl_ai::{Controller, EntityId, EntityView};
use fl_flight::math::{Quat, Vec3, atan2};

mod scripted;

use scripted::{Scripted, hostile};

/// The site at the world origin (up = +Y), its launcher's nose along `nose`.
fn site(orientation: Quat) -> EntityView {
    let mut v = EntityView::point(EntityId::new(0, 1), 1, Vec3::ZERO, Vec3::ZERO);
    v.orientation = orientation;
    v
}

/// A hostile contact at `p`.
fn contact(p: Vec3, locked: bool) -> ContactView {
    hostile(EntityId::new(4, 2), p, Vec3::new(230.0, 0.0, 0.0), locked)
}

fn sa6_rail() -> StationView {
    StationView {
        station: 0,
        kind: StoreKind::Missile {
            seeker: SeekerClass::Radar,
            min_range_m: 3700.0,
            max_range_m: 24_000.0,
            seeker_half_angle_rad: 20f64.to_radians(),
            time_of_flight_s: 60.0,
        },
        rounds: 3,
    }
}

fn build(line: &str) -> Box<dyn Controller> {
    fl_ai::build_from_line(line, &fl_ai::FactoryContext::default()).expect("builds")
}

fn angle(a: Vec3, b: Vec3) -> f64 {
    atan2(a.cross(b).length(), a.dot(b))
}

/// The orientation whose nose (−Z) points along `d` (unit, in the YZ plane).
fn nose_up(d: Vec3) -> Quat {
    // Pitch up about +X by the elevation of `d` above −Z.
    Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), atan2(d.y, -d.z))
}

fn run(c: &mut dyn Controller, me: &EntityView, w: &Scripted, tick: u64) -> WeaponIntent {
    let _ = c.sample(me, w, tick);
    c.weapons(me, w, tick)
}

#[test]
fn a_sam_searches_locks_inside_its_range_lays_and_launches_once_per_look() {
    let mut sam = build("sam 15000");
    let level = site(Quat::IDENTITY);
    let mut w = Scripted {
        contacts: vec![],
        stations: vec![sa6_rail()],
        radar: radar::SEARCH,
    };
    // Nothing: search, nothing designated, no aim.
    let i = run(sam.as_mut(), &level, &w, 0);
    assert_eq!(i.radar_mode, Some(radar::SEARCH));
    assert!(i.designate.is_none() && i.aim.is_none() && !i.release);
    // A hostile 20 km ahead: held by the radar, outside the range: still search.
    w.contacts = vec![contact(Vec3::new(0.0, 5000.0, -20_000.0), false)];
    let i = run(sam.as_mut(), &level, &w, 1);
    assert_eq!(i.radar_mode, Some(radar::SEARCH));
    assert!(i.designate.is_none() && !i.release);
    // 12 km ahead, 3 km up: STT on it, designated, the launcher laid 10° above the sight line.
    let p = Vec3::new(0.0, 3000.0, -12_000.0);
    w.contacts = vec![contact(p, true)];
    w.radar = radar::STT;
    let i = run(sam.as_mut(), &level, &w, 2);
    assert_eq!(i.radar_mode, Some(radar::STT));
    assert_eq!(i.designate, Some(EntityId::new(4, 2)));
    let aim = i.aim.expect("aims");
    let sight = p.normalize_or_zero();
    assert!((angle(aim, sight) - 10f64.to_radians()).abs() < 1e-9);
    assert!(aim.y > sight.y, "lofted upward");
    // Not laid yet (the launcher is level): no launch whatever the lock.
    for t in 3..30 {
        assert!(!run(sam.as_mut(), &level, &w, t).release);
    }
    // Laid on the aim: one launch, then none during the look.
    let laid = site(nose_up(aim));
    let mut releases = Vec::new();
    for t in 30..30 + 20 * 60 {
        if run(sam.as_mut(), &laid, &w, t).release {
            // The server takes the round off the rail (fire control checks it did).
            w.stations[0].rounds -= 1;
            releases.push(t);
        }
    }
    assert_eq!(releases.len(), 1, "{releases:?}");
    assert_eq!(sam.status().as_deref(), Some("engaging 4:2"));
    // The target gone: back to search.
    w.contacts.clear();
    let i = run(sam.as_mut(), &laid, &w, 2000);
    assert_eq!(i.radar_mode, Some(radar::SEARCH));
    assert_eq!(sam.status().as_deref(), Some("search"));
}

#[test]
fn a_sam_engages_only_inside_its_arc() {
    // ±60° about the emplacement's facing (−Z at the first sample).
    let mut sam = build("sam 15000 60");
    let me = site(Quat::IDENTITY);
    let w = Scripted {
        contacts: vec![contact(Vec3::new(0.0, 3000.0, 10_000.0), true)],
        stations: vec![sa6_rail()],
        radar: radar::STT,
    };
    for t in 0..120 {
        let i = run(sam.as_mut(), &me, &w, t);
        assert!(i.designate.is_none() && i.aim.is_none() && !i.release);
    }
    // The default arc (±90°) does not reach behind either; `180` does.
    let mut all_round = build("sam 15000 180");
    let i = run(all_round.as_mut(), &me, &w, 0);
    assert!(i.designate.is_some() && i.aim.is_some());
}

#[test]
fn an_aaa_site_lays_its_gun_near_its_range_and_fires_only_inside_it() {
    let mut aaa = build("aaa");
    let gun = StationView {
        station: 0,
        kind: StoreKind::Gun {
            range_m: 2500.0,
            muzzle_velocity_mps: f64::INFINITY,
        },
        rounds: 2000,
    };
    let mut w = Scripted {
        contacts: vec![],
        stations: vec![gun],
        radar: radar::TWS,
    };
    let _ = run(aaa.as_mut(), &site(Quat::IDENTITY), &w, 0); // the first tick lets go
    let ahead = |d: f64| Vec3::new(0.0, 300.0, -d);
    let trigger_at = |aaa: &mut Box<dyn Controller>, w: &mut Scripted, d: f64, t: u64| {
        w.contacts = vec![contact(ahead(d), false)];
        let laid = site(nose_up(ahead(d).normalize_or_zero()));
        run(aaa.as_mut(), &laid, w, t)
    };
    // 5 km: not laid, not fired.
    let i = trigger_at(&mut aaa, &mut w, 5000.0, 1);
    assert!(i.aim.is_none() && !i.trigger);
    // 3 km: laid (within 1.5× the range), not fired.
    let i = trigger_at(&mut aaa, &mut w, 3000.0, 2);
    assert!(i.aim.is_some() && !i.trigger);
    // 2 km, gun on the target: fired.
    let i = trigger_at(&mut aaa, &mut w, 2000.0, 3);
    assert!(i.trigger, "{i:?}");
    // ... but not with the gun pointed 30° away.
    w.contacts = vec![contact(ahead(2000.0), false)];
    let off = site(Quat::from_axis_angle(Vec3::Y, 30f64.to_radians()));
    assert!(!run(aaa.as_mut(), &off, &w, 4).trigger);
    // A line's own range overrides the gun's.
    let mut short = build("aaa 1000");
    let _ = run(short.as_mut(), &site(Quat::IDENTITY), &w, 0);
    assert!(!trigger_at(&mut short, &mut w, 2000.0, 1).trigger);
}

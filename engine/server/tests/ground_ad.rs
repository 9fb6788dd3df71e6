//! Ground air defence from the pack: an SA-6 battery run by `sam 15000` shoots down an F-5E
//! flying straight through its range (the kill credited to the battery) and only tracks one that
//! stays outside it; a ZSU-23-4 run by `aaa` hits a low, slow pass inside its gun's range and
//! never fires at one beyond it. The sites see through their own sensors (1S91, RPK-2) and fire
//! through the player's fire control.

mod common;

use common::Harness;
use fl_server::pool::EntityId;
use fl_server::server::{GeoAnchor, ServerConfig, SpawnPoint};
use fl_server::world::Pilot;

fn harness() -> Option<Harness> {
    let pack = fl_fixtures::fixture_pack_or("the SA-6, the ZSU-23-4 and the F-5E")?;
    let content = fl_content::Content::load(&fl_content::LoadOptions {
        pack_dirs: vec![pack],
        ..fl_content::LoadOptions::default()
    })
    .unwrap_or_else(|e| panic!("the fixture pack loads: {e}"));
    let types = fl_server::types::TypeRegistry::from_content(&content, 1);
    Some(Harness::with_types(11, ServerConfig::default(), types))
}

fn at(x: f64, z: f64, altitude_m: f64, heading_deg: f64, speed_mps: f64) -> SpawnPoint {
    SpawnPoint {
        x,
        z,
        altitude_m,
        heading_deg,
        speed_mps,
        anchor: Some(GeoAnchor::NEVADA_HOME),
    }
}

fn controller(line: &str) -> Pilot {
    Pilot::Ai(
        fl_ai::build_from_line(line, &fl_ai::FactoryContext::default())
            .unwrap_or_else(|e| panic!("{line}: {e}")),
    )
}

fn site(h: &mut Harness, type_id: &str, line: &str, heading_deg: f64) -> EntityId {
    let t = h.server.types().index_of(type_id).expect("type");
    h.server
        .spawn_site(t, 1, controller(line), at(0.0, 0.0, 3.0, heading_deg, 0.0))
        .expect("room")
}

/// An F-5E of the other side holding its heading, altitude and speed (no weapons decisions).
fn f5e(h: &mut Harness, spawn: SpawnPoint) -> EntityId {
    let t = h.server.types().index_of("fl-base:f5e").expect("type");
    let line = format!(
        "heading {} {} {}",
        spawn.heading_deg, spawn.altitude_m, spawn.speed_mps
    );
    h.server
        .spawn_aircraft(t, 2, controller(&line), spawn)
        .expect("room")
}

fn out(h: &Harness, id: EntityId) -> bool {
    h.server.world().get(id).is_none_or(|e| e.combat.is_out())
}

fn distance(h: &Harness, a: EntityId, b: EntityId) -> f64 {
    let w = h.server.world();
    (w.get(a).expect("a").position() - w.get(b).expect("b").position()).length()
}

/// The site's contact on `target`, if its sensors hold one.
fn tracked(h: &Harness, site: EntityId, target: EntityId) -> bool {
    fl_server::combat::sensors::contacts_of(h.server.world(), site)
        .iter()
        .any(|c| c.target == fl_server::combat::sensors::sensing_id(target))
}

#[test]
fn an_sa6_shoots_down_an_f5e_crossing_its_range_and_is_credited() {
    let Some(mut h) = harness() else { return };
    let battery = site(&mut h, "fl-base:sa6_battery", "sam 15000", 0.0);
    // 5,000 m up, 20 km east and 4 km north of the battery, flying west at 230 m/s: it crosses
    // the battery's northern arc, 4 km abeam (6.4 km slant) at the closest.
    let target = f5e(&mut h, at(20_000.0, -4_000.0, 5000.0, 270.0, 230.0));
    let mut killed_at = None;
    let mut closest = f64::INFINITY;
    let mut first_launch = None;
    for tick in 0..(150 * 60) {
        h.run(1, &mut []);
        if first_launch.is_none() && h.server.combat().totals.stores_released > 0 {
            first_launch = Some((tick, distance(&h, battery, target)));
        }
        if out(&h, target) {
            killed_at = Some(tick);
            break;
        }
        closest = closest.min(distance(&h, battery, target));
    }
    let totals = h.server.combat().totals;
    let refused = h.server.combat().refused;
    let killed_at = killed_at.unwrap_or_else(|| {
        panic!("no kill in 150 s: {totals:?} {refused:?}, closest {closest:.0} m")
    });
    let (launch_tick, launch_range) = first_launch.expect("a launch");
    assert!(
        launch_range <= 15_000.0,
        "launched at {launch_range:.0} m, outside the 15 km range"
    );
    let e = h
        .server
        .world()
        .get(target)
        .expect("the wreck is still there");
    let credit = e.combat.last_hit.expect("credited");
    assert_eq!(credit.by, battery, "the kill is the battery's");
    assert!(
        totals.kills >= 1 && totals.stores_released <= 3,
        "{totals:?}"
    );
    assert_eq!(refused.total(), 0, "{refused:?}");
    assert!(!out(&h, battery));
    eprintln!(
        "first launch at {:.1} s from {launch_range:.0} m; killed at {:.1} s after {} missiles",
        launch_tick as f64 / 60.0,
        killed_at as f64 / 60.0,
        totals.stores_released
    );
}

#[test]
fn an_sa6_tracks_but_never_fires_at_a_target_outside_its_range() {
    let Some(mut h) = harness() else { return };
    let battery = site(&mut h, "fl-base:sa6_battery", "sam 15000", 0.0);
    // 20 km abeam to the north, flying west: inside the 1S91's 50 km search, never inside 15 km.
    let target = f5e(&mut h, at(15_000.0, -20_000.0, 5000.0, 270.0, 230.0));
    let mut ever_tracked = false;
    for _ in 0..(60 * 60) {
        h.run(1, &mut []);
        ever_tracked |= tracked(&h, battery, target);
        assert!(distance(&h, battery, target) > 15_000.0);
    }
    let totals = h.server.combat().totals;
    assert!(ever_tracked, "the battery's radar held a contact on it");
    assert_eq!(totals.stores_released, 0, "{totals:?}");
    assert!(!out(&h, target));
}

#[test]
fn a_zsu_hits_a_low_slow_pass_inside_its_gun_range() {
    let Some(mut h) = harness() else { return };
    let zsu = site(&mut h, "fl-base:zsu23_4", "aaa", 0.0);
    // 300 m up, 8 km east and 1.2 km north, flying west at 150 m/s.
    let target = f5e(&mut h, at(8_000.0, -1_200.0, 300.0, 270.0, 150.0));
    let mut fired_beyond = 0;
    for _ in 0..(90 * 60) {
        let before = h.server.combat().totals.rounds_fired;
        h.run(1, &mut []);
        if out(&h, target) {
            break;
        }
        if h.server.combat().totals.rounds_fired > before && distance(&h, zsu, target) > 2600.0 {
            fired_beyond += 1;
        }
    }
    let totals = h.server.combat().totals;
    let refused = h.server.combat().refused;
    assert!(totals.rounds_fired > 0, "{totals:?} {refused:?}");
    assert!(totals.rounds_hit > 0, "{totals:?}");
    assert_eq!(fired_beyond, 0, "no round beyond the gun's range");
    if out(&h, target) {
        let e = h.server.world().get(target).expect("the wreck");
        assert_eq!(e.combat.last_hit.map(|c| c.by), Some(zsu), "credited");
    }
    let hp = h.server.world().get(target).map_or(0.0, |e| e.hp_fraction);
    eprintln!(
        "AAA: {} rounds fired, {} hit, target hp {:.2}, out {}",
        totals.rounds_fired,
        totals.rounds_hit,
        hp,
        out(&h, target)
    );
}

#[test]
fn a_zsu_never_fires_at_a_pass_beyond_its_gun_range() {
    let Some(mut h) = harness() else { return };
    let zsu = site(&mut h, "fl-base:zsu23_4", "aaa", 0.0);
    // 4 km abeam: inside the RPK-2's search and track, outside the 2.5 km gun.
    let target = f5e(&mut h, at(8_000.0, -4_000.0, 300.0, 270.0, 150.0));
    let mut ever_tracked = false;
    for _ in 0..(90 * 60) {
        h.run(1, &mut []);
        ever_tracked |= tracked(&h, zsu, target);
    }
    let totals = h.server.combat().totals;
    assert!(ever_tracked);
    assert_eq!(totals.rounds_fired, 0, "{totals:?}");
    assert!(!out(&h, target));
}

/// An SA-6 (all-round arc, 30 km range) on the Pahrump side of the Spring Mountains, with the
/// pack's terrain; `alt_agl` above the first point east of the crest that the ridge hides from
/// 100 m: an F-5E flying west there. Returns the battery's designation and radar mode after 3 s
/// and the launches, the target, and whether it is out of the fight.
fn behind_ridge(alt_agl: f64) -> Option<(Option<EntityId>, u8, u64, EntityId, bool)> {
    use fl_combat::sensing as sn;
    let mut h = harness()?;
    let pack = fl_fixtures::fixture_pack_or("NTTR terrain")?;
    let content = fl_content::Content::load(&fl_content::LoadOptions {
        pack_dirs: vec![pack],
        ..Default::default()
    })
    .expect("pack loads");
    h.server.set_terrain(fl_terrain::Terrain::from_content(
        &content,
        fl_terrain::TerrainConfig::default(),
    ));
    let t = h
        .server
        .types()
        .index_of("fl-base:sa6_battery")
        .expect("type");
    let anchor = |lat_deg, lon_deg| Some(GeoAnchor { lat_deg, lon_deg });
    let battery = h
        .server
        .spawn_site(
            t,
            1,
            controller("sam 30000 180"),
            SpawnPoint {
                anchor: anchor(36.2, -116.0),
                ..at(0.0, 0.0, 5.0, 0.0, 0.0)
            },
        )
        .expect("room");
    let planet = *h.server.world().planet();
    let floor = h.server.world().floor();
    let los = h.server.combat().los_config();
    let sam_at = h.server.world().get(battery).expect("site").position();
    let point = |lat: f64, lon: f64, agl: f64| {
        fl_terrain::cube::latlon_to_world(
            planet.radius_m,
            lat,
            lon,
            floor.height_at(lat, lon) + agl,
        )
    };
    let lon = (0..=40)
        .map(|k| -115.80 + 0.005 * f64::from(k))
        .find(|&lon| !sn::line_of_sight(floor, &planet, sam_at, point(36.2, lon, 100.0), &los))
        .expect("the ridge hides a low target");
    let ground = floor.height_at(36.2, lon);
    let target = f5e(
        &mut h,
        SpawnPoint {
            anchor: anchor(36.2, lon),
            ..at(0.0, 0.0, ground + alt_agl, 270.0, 200.0)
        },
    );
    h.run(3 * 60, &mut []);
    let e = h.server.world().get(battery).expect("site");
    let designated = e
        .combat
        .sensing
        .as_deref()
        .and_then(|s| s.designated())
        .and_then(|d| fl_server::combat::sensors::world_id(h.server.world(), d));
    Some((
        designated,
        e.combat.radar_mode,
        h.server.combat().totals.stores_released,
        target,
        out(&h, target),
    ))
}

#[test]
fn an_sa6_does_not_engage_a_target_behind_terrain_but_does_one_above_it() {
    let Some((designated, mode, released, _, lost)) = behind_ridge(100.0) else {
        return;
    };
    assert!(!lost, "the low one is still flying");
    assert_eq!(designated, None, "nothing designated behind the ridge");
    assert_eq!(mode, 1, "the radar keeps searching");
    assert_eq!(released, 0);
    // The same spot 5 km above the ground: in the open, engaged.
    let Some((designated, mode, _, target, _)) = behind_ridge(5000.0) else {
        return;
    };
    assert_eq!(designated, Some(target), "the open one is designated");
    assert_eq!(mode, 3, "STT");
}

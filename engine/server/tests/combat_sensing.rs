//! Sensing on the server, end to end with the fixture pack: the SA-6's 1S91 does not see a
//! target behind an NTTR ridge but sees one in the open; a bad radar mode byte changes nothing;
//! a pilot's `MsgDatalink` carries its fused track of an enemy, the enemy's lock as an RWR lock
//! strobe and its radar missile as a launch strobe; a semi-active missile whose launcher drops
//! its STT lock goes dumb and misses (while one whose launcher holds it hits); and designating
//! what the radar holds no contact on is refused.

mod combat_support;
mod common;

use combat_support::{Fight, config, station_input};
use fl_combat::sensing::{self as sn, RadarMode};
use fl_flight::math::Vec3;
use fl_protocol::Message;
use fl_protocol::enums::{ThreatLevel, buttons};
use fl_protocol::msg::combat::Datalink;
use fl_protocol::tlv::{Ext, Extensions};
use fl_server::combat::sensors::sensing_id;
use fl_server::pool::EntityId;
use fl_server::server::{GeoAnchor, ServerConfig, SpawnPoint};
use fl_server::world::{Body, Pilot};

const F16A: &str = "fl-base:f16a";
const SA6: &str = "fl-base:sa6_battery";

fn f16_config() -> ServerConfig {
    ServerConfig {
        player_entity_type: F16A.into(),
        ..config()
    }
}

/// Every datalink message client `c` heard, in order.
fn datalinks(f: &Fight, c: usize) -> Vec<Datalink> {
    f.clients[c]
        .messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::Datalink(d) => Some(d.clone()),
            _ => None,
        })
        .collect()
}

/// An F-16A nobody flies, `ahead_m` along the pilot's nose, nose pointing back at the pilot
/// (a static body: it stays put), of the pilot's enemy faction.
fn enemy_facing(f: &mut Fight, pilot: EntityId, ahead_m: f64) -> EntityId {
    let world = f.h.server.world();
    let planet = *world.planet();
    let (p, fwd, faction) = {
        let e = world.get(pilot).expect("pilot");
        let s = e.aircraft_state().expect("aircraft");
        (s.position, s.forward(), e.faction)
    };
    let at = p + fwd * ahead_m;
    let t = f.h.server.types().index_of(F16A).expect("f16a");
    let enemy =
        f.h.server
            .spawn_static(t, if faction == 2 { 1 } else { 2 }, at)
            .expect("room");
    let e = f.h.server.world_mut().get_mut(enemy).expect("enemy");
    e.body = Body::Static {
        position: at,
        orientation: sn::look_along(p - at, planet.up(at)),
    };
    enemy
}

#[test]
fn the_sa6_radar_does_not_see_a_target_behind_an_nttr_ridge_but_sees_one_in_the_open() {
    let Some(mut f) = Fight::new(5, 0, config(), "sensing over the NTTR") else {
        return;
    };
    let Some(pack) = fl_fixtures::fixture_pack_or("NTTR terrain") else {
        return;
    };
    let content = fl_content::Content::load(&fl_content::LoadOptions {
        pack_dirs: vec![pack],
        ..Default::default()
    })
    .expect("pack loads");
    f.h.server.set_terrain(fl_terrain::Terrain::from_content(
        &content,
        fl_terrain::TerrainConfig::default(),
    ));
    let planet = *f.h.server.world().planet();
    let r = planet.radius_m;
    let floor = f.h.server.world().floor();
    let at = |lat: f64, lon: f64, agl: f64| {
        fl_terrain::cube::latlon_to_world(r, lat, lon, floor.height_at(lat, lon) + agl)
    };
    // The SAM on the Pahrump side of the Spring Mountains; the targets east of the crest
    // (read from the tiles: the first point 100 m above the ground that the ridge hides).
    let sam_at = at(36.2, -116.0, 5.0);
    let los = f.h.server.combat().los_config();
    // The ceiling is the pack's highest terrain bound (NTTR's peaks are ~3.6 km), not the
    // default 9 km.
    assert!(
        (3_500.0..5_000.0).contains(&los.ceiling_m),
        "{}",
        los.ceiling_m
    );
    let lon = (0..=40)
        .map(|k| -115.80 + 0.005 * f64::from(k))
        .find(|&lon| !sn::line_of_sight(floor, &planet, sam_at, at(36.2, lon, 100.0), &los))
        .expect("the ridge hides a low target within the 1S91's reach");
    let low = at(36.2, lon, 100.0);
    let ground_low = floor.height_at(36.2, lon);
    assert!(sn::line_of_sight(
        floor,
        &planet,
        sam_at,
        at(36.2, lon, 5000.0),
        &los
    ));
    assert!(
        (low - sam_at).length() < 35_000.0,
        "inside the 1S91's reach"
    );

    let sa6 = f.h.server.types().index_of(SA6).expect("sa6");
    let sam = f.h.server.spawn_static(sa6, 1, sam_at).expect("room");
    // Two F-16As flying west at the SAM (not beaming it: the notch is not what is tested), one
    // under the ridge's shadow, one 5 km above the ground at the same spot.
    let f16 = f.h.server.types().index_of(F16A).expect("f16a");
    let fly = |f: &mut Fight, alt: f64| {
        f.h.server
            .spawn_aircraft(
                f16,
                2,
                Pilot::None,
                SpawnPoint {
                    x: 0.0,
                    z: 0.0,
                    altitude_m: alt,
                    heading_deg: 270.0,
                    speed_mps: 200.0,
                    anchor: Some(GeoAnchor {
                        lat_deg: 36.2,
                        lon_deg: lon,
                    }),
                },
            )
            .expect("room")
    };
    let hidden = fly(&mut f, ground_low + 100.0);
    let open = fly(&mut f, ground_low + 5000.0);
    let mut seen = (0, 0);
    for _ in 0..180 {
        f.run(1);
        let c = f.h.server.contacts_of(sam);
        seen.0 += usize::from(c.iter().any(|c| c.target == sensing_id(hidden)));
        seen.1 += usize::from(c.iter().any(|c| c.target == sensing_id(open)));
    }
    assert_eq!(seen.0, 0, "the ridge hides the low one");
    assert!(seen.1 > 60, "the high one is held most of 3 s: {}", seen.1);
    assert!(f.h.server.combat().totals.sensing_checks >= 29);
}

#[test]
fn a_radar_mode_out_of_range_is_refused_and_changes_nothing() {
    let Some(mut f) = Fight::new(6, 1, f16_config(), "radar modes") else {
        return;
    };
    let me = f.own(0);
    f.trim_all();
    f.run(2);
    assert_eq!(f.mode_of(me), RadarMode::Tws, "the boot mode");
    let before = f.h.server.combat().refused.bad_radar_mode;
    f.clients[0].radar_mode = 7;
    f.run(5);
    assert!(f.h.server.combat().refused.bad_radar_mode > before);
    assert_eq!(f.mode_of(me), RadarMode::Tws, "unchanged");
    f.clients[0].radar_mode = 1;
    f.run(3);
    assert_eq!(f.mode_of(me), RadarMode::Search);
}

#[test]
fn the_datalink_carries_the_track_an_enemy_lock_and_its_radar_missile_launch() {
    let Some(mut f) = Fight::new(7, 1, f16_config(), "datalink") else {
        return;
    };
    let me = f.own(0);
    f.trim_all();
    let enemy = enemy_facing(&mut f, me, 15_000.0);
    // The enemy's radar in STT: it designates the nearest radar contact and locks it.
    f.set_mode(enemy, RadarMode::Stt);
    f.run(240);
    let lock =
        f.h.server
            .contacts_of(enemy)
            .iter()
            .find(|c| c.firing_quality)
            .copied();
    assert_eq!(
        lock.map(|c| c.target),
        Some(sensing_id(me)),
        "the enemy locks the pilot"
    );
    let links = datalinks(&f, 0);
    assert!(links.len() >= 20, "~6 Hz for 4 s: {}", links.len());
    let last = links.last().expect("a datalink");
    let track = last
        .tracks
        .iter()
        .find(|t| t.target_idx == enemy.index)
        .expect("the pilot's own radar track of the enemy");
    assert_eq!(
        track.flags & fl_protocol::msg::combat::TRACK_FLAG_OWN_SENSOR,
        0x02
    );
    let rel = Vec3::new(
        f64::from(track.rel_pos[0]),
        f64::from(track.rel_pos[1]),
        f64::from(track.rel_pos[2]),
    );
    assert!((rel.length() - 15_000.0).abs() < 2_000.0, "{rel:?}");
    assert!(
        last.threats
            .iter()
            .any(|t| t.emitter_idx == enemy.index && t.level == ThreatLevel::Lock),
        "a lock strobe: {:?}",
        last.threats
    );
    // Now it fires an AIM-7M at the pilot: the RWR hears the launch.
    let station = f.station_of(enemy, "aim7m");
    let fire = |buttons: u8| station_input(station, buttons, 255);
    f.set_input(enemy, fire(0));
    f.run(1);
    f.set_input(enemy, fire(buttons::FIRE_STORE));
    f.run(1);
    assert_eq!(f.h.server.combat().totals.stores_released, 1);
    let n = datalinks(&f, 0).len();
    f.run(30);
    let launch = datalinks(&f, 0)[n..].iter().any(|d| {
        d.threats
            .iter()
            .any(|t| t.emitter_idx == enemy.index && t.level == ThreatLevel::Launch)
    });
    assert!(launch, "a launch strobe while the Sparrow guides");
}

/// Fires an AIM-7M from an STT-locked enemy 12 km ahead of the pilot; `drop_lock_after` ticks
/// after launch the launcher's radar goes to Search (or never). Returns the pilot's hit points
/// when the missile is gone.
fn sparrow_shot(seed: u64, drop_lock_after: Option<usize>) -> Option<f64> {
    let mut f = Fight::new(seed, 1, f16_config(), "semi-active support")?;
    let me = f.own(0);
    f.trim_all();
    let enemy = enemy_facing(&mut f, me, 12_000.0);
    f.set_mode(enemy, RadarMode::Stt);
    let locked = (0..600).any(|_| {
        f.run(1);
        f.h.server
            .contacts_of(enemy)
            .iter()
            .any(|c| c.firing_quality && c.target == sensing_id(me))
    });
    assert!(locked, "the launcher locks the pilot");
    let station = f.station_of(enemy, "aim7m");
    let fire = |buttons: u8, radar_mode: u8| station_input(station, buttons, radar_mode);
    f.set_input(enemy, fire(0, 255));
    f.run(1);
    f.set_input(enemy, fire(buttons::FIRE_STORE, 255));
    f.run(1);
    assert_eq!(f.h.server.combat().totals.stores_released, 1, "fired");
    let missile_alive = |f: &Fight| {
        f.h.server
            .world()
            .iter()
            .any(|(_, e)| e.combat.projectile.is_some())
    };
    let full = f.hp(me);
    for t in 0..(60 * 40) {
        if drop_lock_after == Some(t) {
            f.set_input(enemy, fire(0, 1));
        }
        f.run(1);
        if !missile_alive(&f) {
            break;
        }
    }
    assert!(!missile_alive(&f), "the missile's flight ended");
    assert_eq!(full, 100.0);
    Some(f.h.server.world().get(me).map_or(0.0, |e| e.combat.hp))
}

#[test]
fn a_semi_active_missile_goes_dumb_when_the_launcher_drops_its_lock() {
    let Some(held) = sparrow_shot(8, None) else {
        return;
    };
    assert!(
        held < 100.0,
        "supported to the end, it hits: {held} hp left"
    );
    let dropped = sparrow_shot(8, Some(60)).expect("the pack is there");
    assert_eq!(dropped, 100.0, "support dropped after 1 s: it misses");
}

#[test]
fn designating_what_the_radar_holds_no_contact_on_is_refused() {
    let Some(mut f) = Fight::new(9, 1, f16_config(), "designation") else {
        return;
    };
    let me = f.own(0);
    f.trim_all();
    // An enemy 15 km behind the pilot: outside its radar's lobe, no contact.
    let behind = enemy_facing(&mut f, me, -15_000.0);
    let ahead = enemy_facing(&mut f, me, 15_000.0);
    f.run(240);
    let contacts = f.h.server.contacts_of(me);
    assert!(contacts.iter().any(|c| c.target == sensing_id(ahead)));
    assert!(!contacts.iter().any(|c| c.target == sensing_id(behind)));
    let designated = |f: &Fight| {
        f.h.server
            .world()
            .get(me)
            .and_then(|e| e.combat.sensing.as_deref())
            .expect("sensing")
            .designated()
    };
    let push = |f: &mut Fight, idx: u32| {
        let mut ext = Extensions::new();
        ext.push(&Ext::InputDesignate(idx)).expect("fits");
        f.clients[0].input_ext = ext;
    };
    push(&mut f, behind.index);
    f.run(5);
    assert_eq!(
        f.h.server.combat().refused.bad_designation,
        1,
        "refused once"
    );
    assert_eq!(designated(&f), None, "without effect");
    // An empty slot is refused the same way.
    push(&mut f, 4000);
    f.run(5);
    assert_eq!(f.h.server.combat().refused.bad_designation, 2);
    // A held contact is designated, and STT then locks it.
    push(&mut f, ahead.index);
    f.clients[0].radar_mode = 3;
    f.run(60);
    assert_eq!(designated(&f), Some(sensing_id(ahead)));
    assert!(
        f.h.server
            .contacts_of(me)
            .iter()
            .any(|c| c.firing_quality && c.target == sensing_id(ahead)),
        "STT on the designated contact"
    );
    assert_eq!(f.h.server.combat().refused.bad_designation, 2);
}

#[test]
fn every_pack_sensor_converts_with_the_documented_exceptions() {
    use fl_combat::sensing::{Doppler, LowAltitudeClutter, SensorKind};
    use fl_server::combat::sensors::spec_from_def;
    let Some(pack) = fl_fixtures::fixture_pack_or("sensor conversion") else {
        return;
    };
    let content = fl_content::Content::load(&fl_content::LoadOptions {
        pack_dirs: vec![pack],
        ..Default::default()
    })
    .expect("pack loads");
    let mut n = 0;
    for def in content.sensors() {
        let spec = spec_from_def(def);
        assert_eq!(spec.validate(), Ok(()), "{}", def.id);
        assert_eq!(
            spec.search.max_range_m, def.search.max_range_m,
            "{}",
            def.id
        );
        assert_eq!(
            spec.search.lock_hold_s, 0.0,
            "the search lobe holds nothing"
        );
        if let (Some(t), Some(d)) = (spec.track, def.track.as_ref()) {
            assert_eq!(t.lock_hold_s, def.lock_hold_s, "{}", def.id);
            assert_eq!(t.pod, d.pod, "{}", def.id);
        }
        let bare = def.id.rsplit(':').next().unwrap_or(&def.id);
        match bare {
            "apq159" | "rp22" => assert_eq!(spec.doppler, Doppler::NO_LOOK_DOWN, "{bare}"),
            _ if spec.kind == SensorKind::Radar => {
                assert!(
                    matches!(spec.doppler, Doppler::PulseDoppler { .. }),
                    "{bare}"
                )
            }
            _ => assert_eq!(spec.doppler, Doppler::None, "{bare}"),
        }
        assert_eq!(
            spec.low_clutter,
            (bare == "rpk2").then_some(LowAltitudeClutter::UNDER_60_M),
            "{bare}"
        );
        n += 1;
    }
    assert!(n >= 15, "{n} sensors");
    // Types carry their suites: the F-16A's APG-66 and eyeball, the SA-6's 1S91.
    let types = fl_server::types::TypeRegistry::from_content(&content, 1);
    let kit = |id: &str| {
        let i = types.index_of(id).expect("type");
        types.get(i).and_then(|t| t.combat.clone()).expect("kit")
    };
    assert_eq!(kit(F16A).sensors.specs.len(), 2);
    assert_eq!(kit(SA6).sensors.specs.len(), 1);
    assert!(kit(SA6).sensors.reach_m > 40_000.0);
}

/// Every contact table of a ring of 18 F-16As (three per check slot, so the checks of one tick
/// run in parallel) after 2 s, on `workers` threads.
fn ring_contacts(workers: usize) -> Option<Vec<Vec<sn::Contact>>> {
    let mut cfg = f16_config();
    cfg.world.sim_workers = workers;
    let mut f = Fight::new(10, 1, cfg, "parallel sensing")?;
    let me = f.own(0);
    f.trim_all();
    let mut ids = vec![me];
    for k in 0..17 {
        // Alternately ahead and behind, 3–20 km: some see each other, some do not.
        let d = (3_000.0 + 1_000.0 * f64::from(k)) * if k % 2 == 0 { 1.0 } else { -1.0 };
        ids.push(enemy_facing(&mut f, me, d));
    }
    f.run(120);
    Some(
        ids.iter()
            .map(|&id| f.h.server.contacts_of(id).to_vec())
            .collect(),
    )
}

#[test]
fn parallel_checks_give_the_same_contacts_as_serial_ones() {
    let Some(serial) = ring_contacts(1) else {
        return;
    };
    let parallel = ring_contacts(3).expect("the pack is there");
    assert!(
        serial.iter().filter(|c| !c.is_empty()).count() > 5,
        "observers hold contacts"
    );
    assert_eq!(serial, parallel);
}

//! Spawning at a latitude/longitude and the weather's wind away from the world origin (the north
//! pole), where world Y is not up: in Nevada local up is 53.75° from it.

mod common;

use common::Harness;
use fl_flight::geodetic::{self, Enu};
use fl_net::linksim::LinkConfig;
use fl_protocol::enums::PeerRole;
use fl_protocol::enums::WeatherPreset;
use fl_protocol::tlv::Extensions;
use fl_server::config_file::parse;
use fl_server::pool::EntityId;
use fl_server::server::{GeoAnchor, ServerConfig, SpawnPoint};
use fl_server::weather::{PresetWeather, Weather, WeatherConfig, wind_field_from_message};
use fl_server::world::{Body, Pilot};
use std::net::IpAddr;
use std::path::Path;

fn heading_diff(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(360.0);
    if d > 180.0 { d - 360.0 } else { d }
}

/// (latitude°, longitude°, altitude m, heading°, roll°, climb m/s) of an aircraft.
fn where_is(h: &Harness, id: EntityId) -> (f64, f64, f64, f64, f64, f64) {
    let planet = *h.server.world().planet();
    let e = h.server.world().get(id).expect("entity");
    let Body::Aircraft { state, .. } = &e.body else {
        panic!("not an aircraft");
    };
    let g = geodetic::from_world(&planet, state.position);
    let enu = Enu::at(&planet, state.position);
    let a = geodetic::attitude(&enu, state.orientation);
    (
        g.lat_deg(),
        g.lon_deg(),
        g.alt_m,
        a.heading_rad.to_degrees(),
        a.roll_rad.to_degrees(),
        state.velocity.dot(enu.up),
    )
}

#[test]
fn a_spawn_at_a_lat_lon_lands_there_at_its_altitude_with_the_local_heading() {
    let mut h = Harness::new(1, ServerConfig::default());
    let t = h
        .server
        .types()
        .index_of("builtin:jet-trainer")
        .expect("trainer");
    for heading_deg in [0.0, 90.0, 270.0] {
        let at = SpawnPoint {
            x: 0.0,
            z: 0.0,
            altitude_m: 3000.0,
            heading_deg,
            speed_mps: 200.0,
            anchor: Some(GeoAnchor::NEVADA_HOME),
        };
        let id = h
            .server
            .spawn_aircraft(t, 1, Pilot::None, at)
            .expect("room");
        let (lat, lon, alt, hdg, roll, climb) = where_is(&h, id);
        assert!((lat - 36.24917).abs() < 1e-9, "{lat}");
        assert!((lon + 114.99611).abs() < 1e-9, "{lon}");
        assert!((alt - 3000.0).abs() < 1e-6, "{alt}");
        assert!(
            heading_diff(hdg, heading_deg).abs() < 1e-9,
            "{hdg} vs {heading_deg}"
        );
        assert!(
            roll.abs() < 1e-9 && climb.abs() < 1e-9,
            "level: {roll}° {climb} m/s"
        );
    }
}

#[test]
fn the_spawn_section_puts_a_joining_pilot_on_the_anchor_line() {
    let (file, unknown) = parse(
        Path::new("server.toml"),
        "[spawn]\nlat_deg = 36.24917\nlon_deg = -114.99611\naltitude_m = 2500.0\nheading_deg = 270.0\n",
    )
    .expect("parses");
    assert!(unknown.is_empty(), "{unknown:?}");
    let cfg = file.server_config();
    assert_eq!(cfg.spawn_points.len(), 8);
    let mut h = Harness::new(2, cfg);
    let mut c = h.connect(IpAddr::from([127, 0, 0, 1]), LinkConfig::default());
    h.run(3, &mut [&mut c]);
    c.request(PeerRole::Pilot, Extensions::new());
    h.run(10, &mut [&mut c]);
    let ack = c.admitted().expect("admitted");
    let id = EntityId {
        index: ack.assigned_entity_idx,
        generation: ack.assigned_entity_gen,
    };
    let (lat, lon, alt, hdg, roll, _) = where_is(&h, id);
    // The line abreast is 2.8 km long across the heading (north-south for 270°), centred on
    // the anchor; ten ticks of flight west at 200 m/s is 33 m.
    let north_m = (lat - 36.24917).to_radians() * 6_371_000.0;
    let west_m = -(lon + 114.99611).to_radians() * 6_371_000.0 * 36.24917f64.to_radians().cos();
    assert!(north_m.abs() <= 1400.5, "{north_m} m north of the anchor");
    assert!(
        (0.0..100.0).contains(&west_m),
        "{west_m} m west of the anchor"
    );
    assert!((alt - 2500.0).abs() < 20.0, "{alt}");
    assert!(heading_diff(hdg, 270.0).abs() < 2.0, "{hdg}");
    assert!(roll.abs() < 5.0, "{roll}");
}

#[test]
fn spawn_settings_out_of_range_name_their_key() {
    for (text, key) in [
        ("[spawn]\nlat_deg = 95.0\nlon_deg = 0.0\n", "spawn.lat_deg"),
        ("[spawn]\nlat_deg = 36.0\n", "spawn.lon_deg"),
        ("[spawn]\nlon_deg = -115.0\n", "spawn.lat_deg"),
        ("[spawn]\nheading_deg = 360.0\n", "spawn.heading_deg"),
        ("[spawn]\naltitude_m = 1e9\n", "spawn.altitude_m"),
    ] {
        let e = parse(Path::new("s.toml"), text).expect_err(text);
        assert!(e.to_string().contains(key), "{text}: {e}");
    }
    // No anchor: the line over the origin, as before.
    let (file, _) = parse(Path::new("s.toml"), "").expect("empty");
    assert_eq!(
        file.server_config().spawn_points,
        ServerConfig::default().spawn_points
    );
}

#[test]
fn the_weather_wind_blows_as_the_spec_says_relative_to_local_north_in_nevada() {
    // The spec: windX/windZ are the blowing-toward direction, a westerly (FROM 270°) has
    // windX > 0, and wind is horizontal. Away from the origin that is the level frame: x east,
    // z south, on the local horizon.
    let planet = fl_flight::gravity::Planet::earth();
    let p = geodetic::to_world(
        &planet,
        geodetic::Geodetic::from_degrees(36.25, -115.0, 3000.0),
    );
    let enu = Enu::at(&planet, p);
    for from_deg in [270.0, 0.0, 45.0, 180.0] {
        let preset = PresetWeather {
            wind_from_deg: from_deg,
            gust_mps: 0.0,
            turbulence_mps: 0.0,
            profile: Vec::new(),
            ..PresetWeather::typical(WeatherPreset::Clear)
        };
        let w = Weather::new(WeatherConfig {
            cycle: vec![preset.clone()],
            ..WeatherConfig::default()
        });
        let (msg, ext) = w.announcement(600);
        let field = wind_field_from_message(&msg, &ext);
        let v = field.world_at(&planet, p, 3000.0, 0, 600);
        assert!(
            v.dot(enu.up).abs() < 1e-9,
            "from {from_deg}: horizontal, got {} m/s vertical",
            v.dot(enu.up)
        );
        let speed = v.length();
        assert!(
            (speed - preset.wind_mps).abs() < 1e-3,
            "from {from_deg}: {speed} m/s"
        );
        let toward = enu.heading_of(v).to_degrees();
        assert!(
            heading_diff(toward, from_deg + 180.0).abs() < 1e-3,
            "from {from_deg}: blows toward {toward}"
        );
    }
}

#[test]
fn the_spawn_flag_sets_the_anchor_altitude_and_heading() {
    let (mut file, _) = parse(Path::new("s.toml"), "").expect("empty");
    file.spawn
        .apply_arg("36.24917,-114.99611,3000,270")
        .expect("valid");
    assert_eq!(file.spawn.lat_deg, Some(36.24917));
    assert_eq!(file.spawn.lon_deg, Some(-114.99611));
    assert_eq!(file.spawn.altitude_m, 3000.0);
    assert_eq!(file.spawn.heading_deg, 270.0);
    file.spawn.check(Path::new("s.toml")).expect("in range");
    let points = file.server_config().spawn_points;
    assert!(
        points
            .iter()
            .all(|p| p.anchor == Some(GeoAnchor::NEVADA_HOME))
    );
    for bad in ["36", "36,-115,1,2,3", "36,abc", "nan,0"] {
        let e = file.spawn.apply_arg(bad).expect_err(bad);
        assert!(e.contains("--spawn"), "{bad}: {e}");
    }
    file.spawn.apply_arg("95,0").expect("parses");
    let e = file.spawn.check(Path::new("s.toml")).expect_err("95° N");
    assert!(e.to_string().contains("spawn.lat_deg"), "{e}");
}

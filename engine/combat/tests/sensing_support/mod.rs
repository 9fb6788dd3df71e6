//! Shared helpers of fl-combat's sensing tests and bench: the fixture pack's sensor files and
//! entity signatures read into this crate's specs straight from the TOML (an independent reading
//! to check `sensing::from_content` against), the pack's terrain, and aiming an observer.
#![allow(dead_code)]

use fl_combat::sensing::{Lobe, SensorKind, SensorSpec, Signatures};
use fl_content::{Content, ErrorPolicy, LoadOptions};
use fl_flight::geodetic::{self, Enu};
use fl_flight::gravity::Planet;
use fl_flight::math::{Quat, Vec3, asin};
use fl_terrain::{Terrain, TerrainConfig};
use std::path::{Path, PathBuf};

/// The fixture pack directory, or `None` (skip recorded by fl-fixtures).
pub fn pack() -> Option<PathBuf> {
    fl_fixtures::fixture_pack()
}

fn lobe(t: &toml::Table) -> Lobe {
    let f = |k: &str, d: f64| {
        t.get(k)
            .and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))
            .unwrap_or(d)
    };
    Lobe::from_pack_units(
        f("az_half_angle_deg", 0.0),
        f("el_half_angle_deg", 0.0),
        f("min_range_nm", 0.0),
        f("max_range_nm", 0.0),
        f("pod", 0.0),
        f("lock_hold_s", 0.0),
    )
}

/// A pack sensor file (`sensors/<name>.toml`) as a spec with this crate's kind defaults.
pub fn sensor_file(path: &Path) -> SensorSpec {
    let text = std::fs::read_to_string(path).expect("sensor file");
    let doc: toml::Table = text.parse().expect("sensor toml");
    let s = doc["sensor"].as_table().expect("[sensor]");
    let kind = SensorKind::from_pack_name(s["type"].as_str().expect("type")).expect("kind");
    let b = |k: &str| s.get(k).and_then(toml::Value::as_bool).unwrap_or(false);
    let search = lobe(doc["search"].as_table().expect("[search]"));
    let track = doc.get("track").and_then(toml::Value::as_table).map(lobe);
    SensorSpec::new(kind, b("emitter"), b("omnidirectional"), search, track)
}

/// `sensors/<name>.toml` of the fixture pack.
pub fn sensor(pack: &Path, name: &str) -> SensorSpec {
    sensor_file(&pack.join("sensors").join(format!("{name}.toml")))
}

/// `[signatures]` of `entities/<name>.toml`.
pub fn signatures(pack: &Path, name: &str) -> Signatures {
    let path = pack.join("entities").join(format!("{name}.toml"));
    let doc: toml::Table = std::fs::read_to_string(path)
        .expect("entity file")
        .parse()
        .expect("entity toml");
    let t = doc["signatures"].as_table().expect("[signatures]");
    let f = |k: &str| t.get(k).and_then(toml::Value::as_float).unwrap_or(1.0);
    Signatures {
        rcs: f("rcs"),
        ir: f("ir"),
        visual: f("visual"),
        laser: f("laser"),
    }
}

/// The fixture pack's terrain, loaded as the server does.
pub fn terrain(pack: &Path) -> Terrain {
    Terrain::from_content(&content(pack), TerrainConfig::default())
}

/// An orientation whose nose points from `from` at `to`, wings level in the local frame.
pub fn look_at(planet: &Planet, from: Vec3, to: Vec3) -> Quat {
    let enu = Enu::at(planet, from);
    let d = (to - from).normalize_or_zero();
    let pitch = asin(d.dot(enu.up).clamp(-1.0, 1.0));
    geodetic::orientation(&enu, enu.heading_of(d), pitch, 0.0)
}

/// A world point `along_m` north of the world origin (the north pole) at altitude `alt_m`:
/// positions along one great circle for geometry tests away from any terrain.
pub fn on_meridian(planet: &Planet, along_m: f64, alt_m: f64) -> Vec3 {
    geodetic::at_altitude(planet, Vec3::new(0.0, 0.0, -along_m), alt_m)
}

/// The pack loaded through fl-content, as the server loads it.
pub fn content(pack: &Path) -> Content {
    Content::load(&LoadOptions {
        pack_dirs: vec![pack.to_path_buf()],
        on_error: ErrorPolicy::SkipAndReport,
        ..Default::default()
    })
    .expect("content loads")
}

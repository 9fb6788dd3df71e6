//! Shared helpers for fl-flight's end-to-end tests: where the fixture pack lives, and loading
//! models. The one place that resolves the shared directory.
#![allow(dead_code)]

use fl_flight::model::AircraftModel;
use fl_flight::schema::read_flight_model;
use std::path::{Path, PathBuf};

/// The shared directory: `$FL_SHARED_DIR`, else `<workspace>/../shared`, else `/work/shared`.
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("FL_SHARED_DIR") {
        return Some(PathBuf::from(d));
    }
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let candidate = ws.join("../shared");
    if candidate.is_dir() {
        return Some(candidate);
    }
    let fallback = PathBuf::from("/work/shared");
    fallback.is_dir().then_some(fallback)
}

/// The fixture pack, or `None` (after printing why) when absent. Panics instead when
/// `FL_REQUIRE_FIXTURES=1`.
pub fn pack() -> Option<PathBuf> {
    let p = shared_dir()
        .map(|d| d.join("fixtures/fl-base-pack"))
        .filter(|p| p.join("aircraft").is_dir());
    if p.is_none() {
        if std::env::var("FL_REQUIRE_FIXTURES").as_deref() == Ok("1") {
            panic!("FL_REQUIRE_FIXTURES=1 but the fixture pack was not found (set FL_SHARED_DIR)");
        }
        println!("skipped: fixtures not found");
    }
    p
}

/// The pack's aircraft with flight models (directory names).
pub const PACK_AIRCRAFT: [&str; 4] = ["f5e", "f16a", "t38a", "mig21bis"];

/// Path of a pack aircraft's model.
pub fn pack_model_path(pack: &Path, name: &str) -> PathBuf {
    pack.join("aircraft")
        .join(name)
        .join(format!("{name}.toml"))
}

/// Loads and compiles a model file, failing the test on any error.
pub fn load(path: &Path) -> AircraftModel {
    let parsed = read_flight_model(path).unwrap_or_else(|e| panic!("{e}"));
    AircraftModel::from_def(&parsed.value).unwrap_or_else(|e| panic!("{e}"))
}

/// Our own test aircraft (always available).
pub fn test_jet() -> AircraftModel {
    // Both crates that include this file sit two levels below the workspace root.
    load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../engine/flight/tests/data/test_jet.toml"),
    )
}

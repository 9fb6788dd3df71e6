//! Shared helpers for fl-flight's end-to-end tests: the fixture pack (through the workspace's
//! one locator, `fl-fixtures`) and loading models.
#![allow(dead_code)]

use fl_flight::model::AircraftModel;
use fl_flight::schema::read_flight_model;
use std::path::{Path, PathBuf};

pub use fl_fixtures::{PACK_AIRCRAFT, pack_model_path};

/// The fixture pack, or `None` after recording the whole test as skipped (a failure under
/// `FL_REQUIRE_FIXTURES=1`).
#[track_caller]
pub fn pack() -> Option<PathBuf> {
    fl_fixtures::fixture_pack()
}

/// Loads and compiles a model file, failing the test on any error.
pub fn load(path: &Path) -> AircraftModel {
    let parsed = read_flight_model(path).unwrap_or_else(|e| panic!("{e}"));
    AircraftModel::from_def(&parsed.value).unwrap_or_else(|e| panic!("{e}"))
}

/// Our own test aircraft (always available).
pub fn test_jet() -> AircraftModel {
    load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/test_jet.toml"))
}

/// Our test jet, then every pack aircraft. Without the pack the test runs on the test jet alone
/// and records itself as a partial skip (a failure under `FL_REQUIRE_FIXTURES=1`).
#[track_caller]
pub fn all_models() -> Vec<(String, AircraftModel)> {
    let mut v = vec![("test_jet".to_string(), test_jet())];
    if let Some(pack) = fl_fixtures::fixture_pack_or("flew test_jet only") {
        for a in PACK_AIRCRAFT {
            v.push((a.to_string(), load(&pack_model_path(&pack, a))));
        }
    }
    v
}

//! The one locator of the project's shared reference material (the protocol spec and the
//! community fixture pack that live beside the checkout, never copied into it) for every test
//! and bench in the workspace, and the one way a test says it did not fully run.
//!
//! Where: `$FL_SHARED_DIR` when it is set (then only there, so pointing it at an empty
//! directory simulates a checkout without the material), else `<workspace>/../shared`, else
//! `/work/shared`.
//!
//! When something is missing:
//! - with `FL_REQUIRE_FIXTURES=1` (what `./dev test` sets when it found the material) the test
//!   panics, naming what is missing and every place it looked;
//! - otherwise the test records a skip — one line `FL-SKIP: <binary>::<test>: <why>` written
//!   straight to stderr (libtest's capture does not swallow it), and appended to the file
//!   named by `$FL_SKIP_LOG` when set, which is how `./dev test` counts skips — and carries on
//!   without it: a whole-test skip returns, a partial one runs what it can and says what it
//!   left out. No test shrinks or returns silently.

use std::io::Write;
use std::path::{Path, PathBuf};

mod machine;
pub use machine::{REQUIRE_GPU_VAR, Xvfb, adapter_or_skip, no_adapter, wait_bounded};

/// Environment variable naming the shared directory.
pub const SHARED_DIR_VAR: &str = "FL_SHARED_DIR";
/// Environment variable that turns every missing-material skip into a failure (`1`).
pub const REQUIRE_VAR: &str = "FL_REQUIRE_FIXTURES";
/// Environment variable naming a file every skip line is appended to.
pub const SKIP_LOG_VAR: &str = "FL_SKIP_LOG";
/// The tag that starts every skip line.
pub const SKIP_TAG: &str = "FL-SKIP";
/// The fixture pack, relative to the shared directory.
pub const FIXTURE_PACK: &str = "fixtures/fl-base-pack";
/// The network protocol spec, relative to the shared directory.
pub const PROTOCOL_SPEC: &str = "spec/network-protocol.txt";
/// The fixture pack's aircraft that carry flight models (directory names).
pub const PACK_AIRCRAFT: [&str; 4] = ["f5e", "f16a", "t38a", "mig21bis"];

/// The workspace root (this crate sits at `tools/fl-fixtures`).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = here.join("../..");
    std::fs::canonicalize(&root).unwrap_or(root)
}

/// The places searched for the shared directory, in order.
pub fn candidates() -> Vec<PathBuf> {
    match std::env::var_os(SHARED_DIR_VAR).filter(|v| !v.is_empty()) {
        // Set means "there and nowhere else": a wrong value must not be papered over by a
        // fallback that happens to exist on this machine.
        Some(dir) => vec![PathBuf::from(dir)],
        None => vec![
            workspace_root().join("../shared"),
            PathBuf::from("/work/shared"),
        ],
    }
}

/// The shared directory: the first candidate that is a directory.
pub fn shared_dir() -> Option<PathBuf> {
    candidates().into_iter().find(|d| d.is_dir())
}

/// Whether missing material fails the test instead of skipping it.
pub fn required() -> bool {
    std::env::var(REQUIRE_VAR).as_deref() == Ok("1")
}

/// `rel` (a path inside the shared directory) if it exists there; otherwise panics under
/// `FL_REQUIRE_FIXTURES=1` or records a whole-test skip and returns `None`.
#[track_caller]
pub fn reference(rel: &str) -> Option<PathBuf> {
    find(rel, None)
}

/// Like [`reference`] for a test that still runs a reduced form without the material:
/// `instead` says what it runs (recorded in the skip line), e.g. "flew test_jet only".
#[track_caller]
pub fn reference_or(rel: &str, instead: &str) -> Option<PathBuf> {
    find(rel, Some(instead))
}

/// The fixture pack directory (see [`reference`]).
#[track_caller]
pub fn fixture_pack() -> Option<PathBuf> {
    reference(FIXTURE_PACK)
}

/// The fixture pack directory for a test that runs a reduced form without it (see
/// [`reference_or`]).
#[track_caller]
pub fn fixture_pack_or(instead: &str) -> Option<PathBuf> {
    reference_or(FIXTURE_PACK, instead)
}

/// A fixture-pack aircraft's flight model file.
pub fn pack_model_path(pack: &Path, name: &str) -> PathBuf {
    pack.join("aircraft")
        .join(name)
        .join(format!("{name}.toml"))
}

/// Records that the current test did not run for a reason other than missing reference
/// material (e.g. the machine has no IPv6 loopback). Not affected by `FL_REQUIRE_FIXTURES`.
pub fn skip(why: &str) {
    record(why);
}

#[track_caller]
fn find(rel: &str, instead: Option<&str>) -> Option<PathBuf> {
    // Only the first shared directory that exists counts (as for `./dev`): material is never
    // pieced together from two places.
    let looked = shared_dir().map_or_else(candidates, |d| vec![d]);
    if let Some(found) = looked.iter().map(|d| d.join(rel)).find(|p| p.exists()) {
        return Some(found);
    }
    let places = looked
        .iter()
        .map(|d| d.join(rel).display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if required() {
        panic!(
            "{REQUIRE_VAR}=1 but the reference material `{rel}` was not found (looked at: \
             {places}). Put the shared directory beside the checkout as ../shared or set \
             {SHARED_DIR_VAR}; unset {REQUIRE_VAR} to skip instead."
        );
    }
    let why = match instead {
        Some(instead) => format!("`{rel}` not found (looked at: {places}); {instead}"),
        None => format!("`{rel}` not found (looked at: {places}); test not run"),
    };
    record(&why);
    None
}

/// `<test binary>::<test name>`: libtest names each test's thread after the test; the binary's
/// file name (cargo's hash suffix removed) says which crate's file it is.
fn test_name() -> String {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|stem| match stem.rsplit_once('-') {
            Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_owned(),
            _ => stem,
        })
        .unwrap_or_else(|| "?".to_owned());
    match std::thread::current().name() {
        Some(t) if t != "main" => format!("{binary}::{t}"),
        _ => binary,
    }
}

fn skip_line(test: &str, why: &str) -> String {
    format!("{SKIP_TAG}: {test}: {why}\n")
}

fn record(why: &str) {
    let line = skip_line(&test_name(), why);
    // Straight to the stderr handle, not through `eprint!`, which a passing test's capture
    // would swallow.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    if let Some(log) = std::env::var_os(SKIP_LOG_VAR).filter(|v| !v.is_empty()) {
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            // One write of one short line: appends from parallel test processes do not
            // interleave within it.
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = appended {
            let _ = writeln!(
                std::io::stderr().lock(),
                "{SKIP_TAG}: cannot append to {}: {e}",
                Path::new(&log).display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skip_line_is_tagged_and_one_line() {
        let l = skip_line("flight::trims", "`fixtures/fl-base-pack` not found");
        assert_eq!(
            l,
            "FL-SKIP: flight::trims: `fixtures/fl-base-pack` not found\n"
        );
        assert_eq!(l.matches('\n').count(), 1);
    }

    #[test]
    fn the_test_name_is_this_thread_s() {
        let name = test_name();
        assert!(
            name.ends_with("::tests::the_test_name_is_this_thread_s"),
            "{name}"
        );
        assert!(name.starts_with("fl_fixtures::"), "{name}");
    }

    #[test]
    fn the_workspace_root_holds_the_workspace_manifest() {
        let text = std::fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap_or_default();
        assert!(
            text.contains("[workspace]"),
            "{}",
            workspace_root().display()
        );
    }
}

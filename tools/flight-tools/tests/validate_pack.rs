//! `validate-pack`: the modder's check, on a good pack (exit 0, summary with the loaded types),
//! on a pack with a TOML syntax error (exit 1, the finding in the one format with what to
//! change), and on the fixture pack (no errors).

use std::path::Path;
use std::process::Command;

fn validate(packs: &[&Path]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_validate-pack"))
        .args(packs)
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_good_pack_passes_with_its_types_listed() {
    let dir = tempfile::tempdir().expect("tempdir");
    fl_content::example::write_example_pack(dir.path(), "my-pack", "my", "trainer").expect("pack");
    let (code, out) = validate(&[dir.path()]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        out.lines().last(),
        Some(
            "validate-pack: 0 error(s), 0 warning(s); 1 pack(s) [my-pack]; 3 type(s): \
             builtin:debug-entity, builtin:jet-trainer, my:trainer"
        ),
        "{out}"
    );
}

#[test]
fn a_toml_syntax_error_fails_with_file_line_and_what_to_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    fl_content::example::write_example_pack(dir.path(), "my-pack", "my", "trainer").expect("pack");
    // A manifest with a missing closing quote on line 3.
    let manifest = dir.path().join("manifest.toml");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[2].starts_with("name = "), "{text}");
    std::fs::write(
        &manifest,
        text.replace("name = \"my-pack\"", "name = \"my-pack"),
    )
    .expect("w");
    let (code, out) = validate(&[dir.path()]);
    assert_eq!(code, Some(1), "{out}");
    let file = std::fs::canonicalize(&manifest).expect("canonical");
    let first = out.lines().next().expect("a finding");
    let expected = format!("{}:3: error: TOML syntax error: ", file.display());
    assert!(first.starts_with(&expected), "{first}\nexpected {expected}");
    assert!(first.contains("key = \"value\""), "{first}");
    assert!(
        out.lines()
            .last()
            .is_some_and(|l| l.starts_with("validate-pack: 1 error(s), 0 warning(s); 0 pack(s) []")),
        "{out}"
    );
}

#[test]
fn the_fixture_pack_has_no_errors() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let (code, out) = validate(&[pack.as_path()]);
    assert_eq!(code, Some(0), "{out}");
    let last = out.lines().last().expect("summary");
    assert!(
        last.starts_with("validate-pack: 0 error(s)") && last.contains("fl-base:f5e"),
        "{last}"
    );
    assert!(
        out.contains("pack fl-base-pack: not used by this build yet: ")
            && out.contains("frontlines/")
            && !out.contains("missions")
            && !out.contains("Lua")
            && !out.contains("glTF models"),
        "{out}"
    );
}

//! `validate-mission`, the real binary: a pack's good mission passes (exit 0), a broken one is
//! refused with file:line, key and message (exit 1), and on the fixture pack exactly the
//! missions whose types or scripts the fixture lacks are refused, naming them.

use std::path::Path;
use std::process::Command;

fn run(pack: &Path, missions: &[&Path]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_validate-mission"))
        .arg(pack)
        .args(missions)
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

const GOOD: &str = "name: Good
anchor: home
sides: [blue, red]
objects:
  - { type: my:trainer, id: player1, side: blue, pos: [0, 1000, 0], player: true }
  - { type: builtin:jet-trainer, id: bandit, side: red, pos: [0, 1000, 5000], ai: sam 3000 }
triggers:
  - on: destroy(bandit)
    do: mission_success
";

#[test]
fn good_passes_and_broken_is_refused_with_file_line_and_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    fl_content::example::write_example_pack(dir.path(), "my-pack", "my", "trainer").expect("pack");
    let missions = dir.path().join("missions");
    std::fs::create_dir_all(&missions).expect("mkdir");
    let good = missions.join("good.yaml");
    std::fs::write(&good, GOOD).expect("w");
    let (code, out) = run(dir.path(), &[&good]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "my-pack:good: valid",
            "validate-mission: 1 mission(s), 1 valid, 0 refused; 0 error(s), 0 warning(s)"
        ]
    );

    let bad = missions.join("bad.yaml");
    std::fs::write(
        &bad,
        GOOD.replace("destroy(bandit)", "destroy(bandid)")
            .replace("ai: sam 3000", "ai: lua ghost"),
    )
    .expect("w");
    let (code, out) = run(dir.path(), &[&good, &bad]);
    assert_eq!(code, Some(1), "{out}");
    let b = bad.display();
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "my-pack:good: valid".to_owned(),
            format!(
                "{b}:8: error: `triggers[0].on`: destroy(bandid): no object has the id \"bandid\""
            ),
            "my-pack:bad: refused".to_owned(),
            "validate-mission: 2 mission(s), 1 valid, 1 refused; 1 error(s), 0 warning(s)"
                .to_owned(),
        ]
    );
    // The structural error fixed, the missing script is the content check's refusal.
    std::fs::write(&bad, GOOD.replace("ai: sam 3000", "ai: lua ghost")).expect("w");
    let (code, out) = run(dir.path(), &[&bad]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!(
            "{b}:6: error: `objects[1].ai`: script \"ghost\" does not exist (no ai/ghost.lua in my-pack)"
        )),
        "{out}"
    );
    // A file that does not exist is an error, not a crash.
    let (code, out) = run(dir.path(), &[&missions.join("nope.yaml")]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("cannot read the file"), "{out}");
}

#[test]
fn the_fixture_pack_refuses_exactly_what_it_lacks() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(pack.join("missions"))
        .expect("missions")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let (code, out) = run(&pack, &refs);
    assert_eq!(code, Some(1), "{out}");
    let refused: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_suffix(": refused"))
        .collect();
    assert_eq!(
        refused,
        [
            "fl-base-pack:f16a_radar_missile",
            "fl-base-pack:f5e_defensive",
            "fl-base-pack:s02_line_holds",
            "fl-base-pack:t38a_first_flight",
            "fl-base-pack:t38a_navigation",
        ],
        "{out}"
    );
    let errors: Vec<&str> = out.lines().filter(|l| l.contains(": error: ")).collect();
    assert_eq!(errors.len(), 5, "{out}");
    assert_eq!(
        errors
            .iter()
            .filter(|l| l.contains("\"fl-base:mig29a\" does not exist"))
            .count(),
        3,
        "{out}"
    );
    assert_eq!(
        errors
            .iter()
            .filter(|l| l.contains("no ai/trainer.lua"))
            .count(),
        2,
        "{out}"
    );
    assert_eq!(
        out.lines().last(),
        Some("validate-mission: 13 mission(s), 8 valid, 5 refused; 5 error(s), 0 warning(s)"),
        "{out}"
    );
}

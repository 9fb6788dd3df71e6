//! `fl-server --check` and start-up with packs: every finding in the one format
//! (`file:line: error|warning: `key`: message`), a summary line with counts and the loaded types,
//! exit 1 on any error; a server whose `player_entity_type` is unknown refuses to start with the
//! ids that exist; a running server logs each finding once, lists its types and the pack assets
//! it does not use yet, as plain text when its log is a file.

mod process;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn server() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fl-server"));
    // NO_COLOR would hide colour codes whatever the setup does.
    c.env_remove("RUST_LOG").env_remove("NO_COLOR");
    c
}

fn example(dir: &Path) {
    fl_content::example::write_example_pack(dir, "my-pack", "my", "trainer").expect("pack");
}

#[test]
fn check_passes_a_good_pack_and_lists_its_types() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pack = dir.path().join("my-pack");
    example(&pack);
    let out = server()
        .current_dir(dir.path())
        .arg("--check")
        .arg("--pack")
        .arg(&pack)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let last = stdout.lines().last().expect("a summary line");
    assert_eq!(
        last,
        "fl-server --check: 0 error(s), 0 warning(s); 1 pack(s) [my-pack]; 3 type(s): \
         builtin:debug-entity, builtin:jet-trainer, my:trainer"
    );
    assert!(
        !dir.path().join("server.toml").exists(),
        "--check writes nothing"
    );
}

#[test]
fn check_reports_a_toml_syntax_error_with_what_to_change_and_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pack = dir.path().join("my-pack");
    example(&pack);
    let entity = pack.join("entities/trainer.toml");
    let text = std::fs::read_to_string(&entity).expect("entity");
    // Line 9 of the entity: an unquoted text value.
    let broken = text.replace(
        "name               = \"trainer (example)\"",
        "name = trainer",
    );
    assert_ne!(broken, text);
    std::fs::write(&entity, broken).expect("write");
    let out = server()
        .current_dir(dir.path())
        .arg("--check")
        .arg("--pack")
        .arg(&pack)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let canonical = std::fs::canonicalize(&entity).expect("canonical");
    let line = stdout
        .lines()
        .find(|l| l.contains("error"))
        .expect("an error line");
    let prefix = format!("{}:", canonical.display());
    let rest = line.strip_prefix(&prefix).expect("file first");
    let (lineno, rest) = rest.split_once(": ").expect("line number");
    assert!(lineno.parse::<usize>().is_ok_and(|n| n > 1), "{line}");
    assert!(rest.starts_with("error: TOML syntax error: "), "{line}");
    // The parser's own words ("invalid boolean" for `trainer`) and what to change.
    assert!(
        rest.contains("text values need quotes: key = \"value\""),
        "{line}"
    );
    assert!(
        stdout
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("fl-server --check: 1 error(s)")),
        "{stdout}"
    );
}

#[test]
fn an_unknown_player_entity_type_stops_the_server_with_the_ids_that_exist() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("server.toml"),
        "[world]\nplayer_entity_type = \"fl-base:f16a\"\n",
    )
    .expect("config");
    let out = server()
        .current_dir(dir.path())
        .args(["--bind", "127.0.0.1", "--port", "0", "--data-dir", "data"])
        .stdout(Stdio::piped())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "never listened");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("player_entity_type")
            && err.contains("unknown aircraft type \"fl-base:f16a\"")
            && err.contains("builtin:jet-trainer"),
        "{err}"
    );
    let out = server()
        .current_dir(dir.path())
        .arg("--check")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("server.toml: error: `world.player_entity_type`: unknown aircraft type"),
    );
}

#[test]
fn a_running_server_logs_each_finding_once_in_plain_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pack = dir.path().join("my-pack");
    example(&pack);
    // A warning to count: an unknown key.
    let entity = pack.join("entities/trainer.toml");
    let text = std::fs::read_to_string(&entity).expect("entity");
    std::fs::write(
        &entity,
        text.replace("[signatures]", "[signatures]\nglow = 1.0"),
    )
    .expect("w");
    // And an asset nothing reads yet.
    std::fs::create_dir_all(pack.join("frontlines")).expect("dir");
    std::fs::write(
        pack.join("frontlines/first.toml"),
        "# a kind no build reads\n",
    )
    .expect("frontline");
    std::fs::write(
        dir.path().join("server.toml"),
        "[world]\nplayer_entity_type = \"my:trainer\"\n",
    )
    .expect("config");
    let log_path = dir.path().join("server.log");
    let mut child = server()
        .current_dir(dir.path())
        .args(["--bind", "127.0.0.1", "--port", "0", "--data-dir", "data"])
        .arg("--pack")
        .arg(&pack)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log_path).expect("log"))
        .spawn()
        .expect("starts");
    let rx = process::stdout_lines(&mut child);
    let line = rx.recv_timeout(Duration::from_secs(60));
    let _ = child.kill();
    let _ = child.wait();
    let line = line.expect("a listening line");
    assert!(line.starts_with("listening on 127.0.0.1:"), "{line}");
    let log = std::fs::read(&log_path).expect("log");
    let text = String::from_utf8_lossy(&log);
    assert!(!log.contains(&0x1b), "colour codes in a log file: {text}");
    assert_eq!(
        text.matches("`signatures.glow`").count(),
        1,
        "the finding is logged once: {text}"
    );
    assert!(text.contains(": warning: `signatures.glow`: "), "{text}");
    assert!(
        text.contains("3 type(s): builtin:debug-entity, builtin:jet-trainer, my:trainer"),
        "{text}"
    );
    assert!(
        text.contains(
            "pack my-pack: not used by this build yet: 1 files in frontlines/ (not a content kind"
        ),
        "{text}"
    );
}

#[test]
fn check_reports_server_toml_problems_in_the_same_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |text: &str| {
        std::fs::write(dir.path().join("server.toml"), text).expect("config");
        let out = server()
            .current_dir(dir.path())
            .arg("--check")
            .output()
            .expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, out) = run("[world]\nplayer_entity_type = \n");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.starts_with("server.toml:2: error: TOML syntax error: ")
            && out.contains("key = \"value\""),
        "{out}"
    );
    let (code, out) = run("[server]\nport = \"x\"\n");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.starts_with("server.toml:2: error: invalid type"),
        "a well-formed value of the wrong type is not a syntax error: {out}"
    );
    let (code, out) = run("[discovery]\nbeacon_interval_ms = 0\n");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.starts_with("server.toml: error: `discovery.beacon_interval_ms`: must be between"),
        "{out}"
    );
    let (code, out) = run("[world]\nnope = 1\n");
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("server.toml: warning: `world.nope`: unknown key (ignored)")
            && out.contains("0 error(s), 1 warning(s)"),
        "{out}"
    );
}

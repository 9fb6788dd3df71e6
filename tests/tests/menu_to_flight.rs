//! A player's first minute, on the real path: the game binary opens its window under Xvfb at
//! the main menu, and real key presses (XTEST, as a keyboard sends them) take it through Free
//! Flight → Fly → Loading → Flight; F12 saves a screenshot that shows sky, terrain and the HUD;
//! Esc pauses, End Flight shows the debrief, Main Menu, then Quit ends the process with
//! status 0. Each step waits for the game's own log line of the screen change. The player's
//! `bindings.toml` is corrupt: it is moved aside with a warning and the default keys fly.

use std::path::PathBuf;
use std::time::Duration;

use fl_e2e::{Keys, RunningGame, ScratchHome, Xvfb, assert_flight_picture, game_binary};

const STEP: Duration = Duration::from_secs(60);
/// Between two focus moves: egui moves the focus once per frame, and a new screen takes its
/// focus on its first frame, so each arrow key needs a frame of its own (debug builds on
/// lavapipe draw a few frames a second).
const BETWEEN_KEYS: Duration = Duration::from_millis(1200);

/// Presses arrow `key` `n` times, a frame apart.
fn step(keys: &Keys<'_>, key: &str, n: usize) {
    for _ in 0..n {
        std::thread::sleep(BETWEEN_KEYS);
        keys.press(key);
    }
    std::thread::sleep(BETWEEN_KEYS);
}

/// Presses `key` until the game logs `needle` (a key pressed before the first frame has drawn
/// the menu's focus is lost, so a few tries are allowed).
fn press_until(game: &mut RunningGame, keys: &Keys<'_>, key: &str, needle: &str) -> String {
    for _ in 0..5 {
        keys.press(key);
        if let Some(line) = game.try_wait_for(needle, Duration::from_secs(8)) {
            return line;
        }
    }
    panic!("{key} never led to {needle:?}:\n{}", game.log());
}

/// Writes `bindings_toml` as the player's bindings, starts the game in `x` and waits for its
/// window; `None` when the test cannot go on here (no graphics adapter, no xdotool: recorded).
fn launch<'a>(
    x: &'a Xvfb,
    home: &ScratchHome,
    bindings_toml: &str,
) -> Option<(RunningGame, Keys<'a>)> {
    let bindings = home.bindings();
    std::fs::create_dir_all(bindings.parent().expect("a folder")).expect("config folder");
    std::fs::write(&bindings, bindings_toml).expect("bindings.toml");
    let mut cmd = x.command(&game_binary().to_string_lossy());
    cmd.args(["--size", "640x360", "--settings"])
        .arg(home.settings())
        .env(
            "RUST_LOG",
            "warn,fighters_legacy=info,fl_server::server::mission=info",
        );
    home.apply(&mut cmd);
    let mut game = RunningGame::spawn(cmd, home.path().join("game.log"));
    let Some(_) = game.try_wait_for("window opened", Duration::from_secs(180)) else {
        let log = game.log();
        if log.contains("no graphics adapter") {
            fl_fixtures::no_adapter(&log);
            return None;
        }
        panic!("the game ended before its window opened:\n{log}");
    };
    let keys = Keys::for_window(x, "fighters-legacy", STEP)?;
    Some((game, keys))
}

#[test]
fn the_keyboard_takes_a_player_from_the_menu_to_flight_and_out() {
    let Some(x) = Xvfb::start() else { return };
    let home = ScratchHome::new();
    let bindings = home.bindings();
    let corrupt = "version = 2\n[keyboard\ngear = { primary = \"L\" }\n";
    let Some((mut game, keys)) = launch(&x, &home, corrupt) else {
        return;
    };

    // The corrupt bindings were moved aside, unchanged, and the game said so.
    let aside = bindings.with_file_name("bindings.invalid.toml");
    assert_eq!(
        std::fs::read_to_string(&aside).ok().as_deref(),
        Some(corrupt),
        "{}",
        game.log()
    );
    assert!(!bindings.exists());
    assert!(game.log().contains("could not be used"), "{}", game.log());

    press_until(&mut game, &keys, "Return", "screen MainMenu -> FreeFlight");
    press_until(&mut game, &keys, "Return", "screen FreeFlight -> Loading");
    game.wait_for("screen Loading -> Flight", Duration::from_secs(240));
    game.wait_for("first flight frame", STEP);

    keys.press("F12");
    let saved = game.wait_for("screenshot saved to ", STEP);
    let path = PathBuf::from(
        saved
            .split("screenshot saved to ")
            .nth(1)
            .expect("a path")
            .trim(),
    );
    assert!(
        path.starts_with(home.path()),
        "the screenshot went outside the player's folders: {}",
        path.display()
    );
    let img = image::open(&path).expect("a PNG").to_rgba8();
    assert_eq!((img.width(), img.height()), (640, 360));
    assert_flight_picture(&img);

    press_until(&mut game, &keys, "Escape", "screen Flight -> Pause");
    // Resume, Settings, End Flight.
    step(&keys, "Down", 2);
    press_until(&mut game, &keys, "Return", "screen Pause -> Debrief");
    press_until(&mut game, &keys, "Return", "screen Debrief -> MainMenu");
    // Free Flight, Missions, Join a Server, Settings, Quit.
    step(&keys, "Down", 4);
    keys.press("Return");
    let Some(status) = game.wait_exit(STEP) else {
        panic!("Quit did not end the game:\n{}", game.log());
    };
    assert!(status.success(), "exit {status}:\n{}", game.log());
    let log = game.log();
    assert!(!log.contains("panicked"), "{log}");
}

/// The game flies from the player's `bindings.toml`: the screenshot moved from F12 to F9 (a
/// difference from the defaults, as the file stores it) takes effect in flight, and F12 no longer
/// does anything.
#[test]
fn a_key_rebound_in_bindings_toml_acts_in_flight() {
    let Some(x) = Xvfb::start() else { return };
    let home = ScratchHome::new();
    let rebound = "version = 2\n\n[keyboard.screenshot]\nprimary = \"F9\"\n";
    let Some((mut game, keys)) = launch(&x, &home, rebound) else {
        return;
    };
    press_until(&mut game, &keys, "Return", "screen MainMenu -> FreeFlight");
    press_until(&mut game, &keys, "Return", "screen FreeFlight -> Loading");
    game.wait_for("screen Loading -> Flight", Duration::from_secs(240));
    game.wait_for("first flight frame", STEP);
    keys.press("F12");
    assert!(
        game.try_wait_for("screenshot saved to ", Duration::from_secs(5))
            .is_none(),
        "F12 is no longer the screenshot key:\n{}",
        game.log()
    );
    press_until(&mut game, &keys, "F9", "screenshot saved to ");
    assert!(!game.log().contains("panicked"), "{}", game.log());
    assert_eq!(
        std::fs::read_to_string(home.bindings()).ok().as_deref(),
        Some(rebound),
        "reading the bindings never rewrites them"
    );
}

/// A mission on the real path: Missions → our *Gunnery — Target Drone* → its brief → Fly This
/// Mission starts the embedded server with the mission (its Lua drone flying), the player
/// joins its slot; Esc → End Flight shows the mission's debrief, whose first button retries the
/// same mission (a new session); from there Quit to Menu and Quit.
#[test]
fn a_mission_is_flown_from_its_brief_and_retried_from_its_debrief() {
    let Some(x) = Xvfb::start() else { return };
    let home = ScratchHome::new();
    let Some((mut game, keys)) = launch(&x, &home, "version = 2\n") else {
        return;
    };
    // Free Flight, Missions.
    step(&keys, "Down", 1);
    press_until(
        &mut game,
        &keys,
        "Return",
        "screen MainMenu -> MissionSelect",
    );
    // Free Flight — Nevada Airfield, Gunnery — Target Drone.
    step(&keys, "Down", 1);
    press_until(
        &mut game,
        &keys,
        "Return",
        "screen MissionSelect -> MissionBrief",
    );
    // The brief focuses Fly This Mission.
    press_until(&mut game, &keys, "Return", "screen MissionBrief -> Loading");
    game.wait_for("screen Loading -> Flight", Duration::from_secs(240));
    game.wait_for("first flight frame", STEP);
    let log = game.log();
    assert!(
        log.contains("mission started") && log.contains("fl-trainer:gun_drone"),
        "the embedded server runs the mission:\n{log}"
    );

    press_until(&mut game, &keys, "Escape", "screen Flight -> Pause");
    // Resume, Settings, End Flight.
    step(&keys, "Down", 2);
    press_until(&mut game, &keys, "Return", "screen Pause -> Debrief");
    // The debrief focuses Retry Mission.
    press_until(&mut game, &keys, "Return", "screen Debrief -> Loading");
    game.wait_for("screen Loading -> Flight", Duration::from_secs(240));
    let started = game.log().matches("mission started").count();
    assert_eq!(
        started,
        2,
        "the retry started the mission afresh:\n{}",
        game.log()
    );

    press_until(&mut game, &keys, "Escape", "screen Flight -> Pause");
    // Resume, Settings, End Flight, Quit to Menu.
    step(&keys, "Down", 3);
    press_until(&mut game, &keys, "Return", "screen Pause -> MainMenu");
    step(&keys, "Down", 4);
    keys.press("Return");
    let Some(status) = game.wait_exit(STEP) else {
        panic!("Quit did not end the game:\n{}", game.log());
    };
    assert!(status.success(), "exit {status}:\n{}", game.log());
    assert!(!game.log().contains("panicked"), "{}", game.log());
}

//! fl-e2e: the helpers of the end-to-end tests in `tests/tests/` — finding the game binary
//! that cargo built, starting it in a scratch home (no settings, mods or caches of the
//! machine's user), watching its log as it runs, driving its window with real X key presses
//! (xdotool under Xvfb), and judging a screenshot as a player would (sky, terrain, HUD).
//!
//! Must not: link the game's crates (the tests run the binary a player runs) or wait without
//! a bound.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub mod browser;

pub use fl_fixtures::{Xvfb, wait_bounded};

/// The name of the game's binary.
pub const GAME: &str = "fighters-legacy";
/// Environment variable naming another binary to test (e.g. a release build).
pub const GAME_BIN_VAR: &str = "FL_GAME_BIN";

/// The game binary: `$FL_GAME_BIN`, else the one cargo built beside this test
/// (`target/<profile>/fighters-legacy`). `cargo test --workspace` builds it; for this crate
/// alone run `cargo build -p fighters-legacy` first.
pub fn game_binary() -> PathBuf {
    if let Some(p) = std::env::var_os(GAME_BIN_VAR) {
        return PathBuf::from(p);
    }
    built_binary(GAME, "fighters-legacy")
}

/// The dedicated server binary cargo built beside this test (`cargo test --workspace` builds
/// it; for this crate alone run `cargo build -p fl-server` first).
pub fn server_binary() -> PathBuf {
    built_binary("fl-server", "fl-server")
}

/// `target/<profile>/<name>`, the binary of `package` that cargo built beside this test.
fn built_binary(name: &str, package: &str) -> PathBuf {
    // target/<profile>/deps/<test>-<hash> → target/<profile>/fighters-legacy
    let exe = std::env::current_exe().unwrap_or_default();
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .map(Path::to_owned)
        .unwrap_or_default();
    let bin = profile_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{name} is not built at {} (run `cargo build -p {package}`)",
        bin.display()
    );
    bin
}

/// A scratch home for one run: settings, data, cache, config and screenshots all inside it, so a
/// test neither reads nor writes the machine user's files.
#[derive(Debug)]
pub struct ScratchHome {
    dir: tempfile::TempDir,
}

impl ScratchHome {
    pub fn new() -> ScratchHome {
        ScratchHome {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The game's settings file inside the scratch home.
    pub fn settings(&self) -> PathBuf {
        self.path().join("settings.toml")
    }

    /// The game's bindings file inside the scratch home (where the game looks by default:
    /// `$XDG_CONFIG_HOME/fighters-legacy/bindings.toml`).
    pub fn bindings(&self) -> PathBuf {
        self.path()
            .join("config")
            .join("fighters-legacy")
            .join("bindings.toml")
    }

    /// `cmd` pointed at the scratch home (XDG folders included).
    pub fn apply(&self, cmd: &mut Command) {
        let p = self.path();
        cmd.env("HOME", p)
            .env("XDG_DATA_HOME", p.join("data"))
            .env("XDG_CACHE_HOME", p.join("cache"))
            .env("XDG_CONFIG_HOME", p.join("config"));
    }
}

impl Default for ScratchHome {
    fn default() -> Self {
        Self::new()
    }
}

/// The game running in a window, its log going to a file the test reads as it grows.
#[derive(Debug)]
pub struct RunningGame {
    pub child: Child,
    log: PathBuf,
    seen: usize,
}

impl RunningGame {
    /// Starts `cmd` with stdout and stderr appended to `log`.
    pub fn spawn(mut cmd: Command, log: PathBuf) -> RunningGame {
        let file = std::fs::File::create(&log).expect("the log file");
        let err = file.try_clone().expect("the log file again");
        let child = cmd
            .stdout(Stdio::from(file))
            .stderr(Stdio::from(err))
            .spawn()
            .expect("the game starts");
        RunningGame {
            child,
            log,
            seen: 0,
        }
    }

    /// Everything logged so far.
    pub fn log(&self) -> String {
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut s);
        }
        s
    }

    /// Waits until a line logged after the previous match contains `needle`; returns it. Panics
    /// with the log when `limit` passes or the game exits first.
    pub fn wait_for(&mut self, needle: &str, limit: Duration) -> String {
        match self.try_wait_for(needle, limit) {
            Some(line) => line,
            None => panic!("no {needle:?} in the log within {limit:?}:\n{}", self.log()),
        }
    }

    /// Like [`RunningGame::wait_for`], but `None` when `limit` passes or the game exits first
    /// (the game is left running in the first case).
    pub fn try_wait_for(&mut self, needle: &str, limit: Duration) -> Option<String> {
        let until = Instant::now() + limit;
        loop {
            // Whether it had exited before this read: its last lines are then in the log.
            let exited = matches!(self.child.try_wait(), Ok(Some(_)));
            let log = self.log();
            if let Some(at) = log[self.seen.min(log.len())..].find(needle) {
                let start = self.seen + at;
                let line_start = log[..start].rfind('\n').map_or(0, |i| i + 1);
                let line_end = log[start..].find('\n').map_or(log.len(), |i| start + i);
                self.seen = line_end;
                return Some(log[line_start..line_end].to_owned());
            }
            if exited || Instant::now() > until {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the game to exit by itself (killing it past `limit`).
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        wait_bounded(&mut self.child, limit)
    }
}

impl Drop for RunningGame {
    fn drop(&mut self) {
        // Our own child, by its handle; a no-op when it has exited.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Real key presses into the window titled `title` on `x`'s display, through the XTEST
/// extension (xdotool): what a keyboard would send.
#[derive(Debug)]
pub struct Keys<'a> {
    x: &'a Xvfb,
    window: String,
}

impl<'a> Keys<'a> {
    /// Finds the game's window and gives it the input focus. `None` (after recording a skip)
    /// when xdotool is not installed (`./dev` installs it).
    pub fn for_window(x: &'a Xvfb, title: &str, limit: Duration) -> Option<Keys<'a>> {
        let until = Instant::now() + limit;
        loop {
            let found = x
                .command("xdotool")
                .args(["search", "--name", title])
                .output();
            let out = match found {
                Ok(o) => o,
                Err(_) => {
                    fl_fixtures::skip("xdotool is not installed (./dev installs it)");
                    return None;
                }
            };
            let ids = String::from_utf8_lossy(&out.stdout);
            if let Some(id) = ids.lines().next().filter(|l| !l.trim().is_empty()) {
                let keys = Keys {
                    x,
                    window: id.trim().to_owned(),
                };
                keys.xdotool(&["windowfocus", "--sync", &keys.window]);
                return Some(keys);
            }
            assert!(Instant::now() < until, "no window titled {title:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn xdotool(&self, args: &[&str]) {
        let status = self
            .x
            .command("xdotool")
            .args(args)
            .stdout(Stdio::null())
            .status()
            .expect("xdotool runs");
        assert!(status.success(), "xdotool {args:?}: {status}");
    }

    /// Presses and releases `key` (an X keysym name: `Return`, `Escape`, `Down`, `F12`).
    pub fn press(&self, key: &str) {
        self.xdotool(&["windowfocus", &self.window]);
        self.xdotool(&["key", "--delay", "60", key]);
    }
}

/// Fraction of pixels whose colour is far from the image's mean colour (a blank or one-colour
/// picture scores ~0).
pub fn varied_fraction(img: &image::RgbaImage) -> f64 {
    let n = f64::from(img.width() * img.height()).max(1.0);
    let mut mean = [0.0f64; 3];
    for p in img.pixels() {
        for (c, m) in mean.iter_mut().enumerate() {
            *m += f64::from(p[c]) / n;
        }
    }
    let far = img
        .pixels()
        .filter(|p| {
            (0..3)
                .map(|c| (f64::from(p[c]) - mean[c]).abs())
                .sum::<f64>()
                > 60.0
        })
        .count();
    far as f64 / n
}

/// Pixels that look like HUD symbology: the HUD's green (bright green, little red and blue).
pub fn hud_green_pixels(img: &image::RgbaImage) -> usize {
    img.pixels()
        .filter(|p| p[1] > 150 && p[1] > p[0].saturating_add(60) && p[1] > p[2].saturating_add(40))
        .count()
}

/// Asserts that `img` shows a flight as a player sees it: not flat (terrain and a sky
/// gradient), sky at the top, and the HUD's green symbology.
pub fn assert_flight_picture(img: &image::RgbaImage) {
    let varied = varied_fraction(img);
    let green = hud_green_pixels(img);
    println!("varied {varied:.3}, HUD-green pixels {green}");
    assert!(
        varied > 0.05,
        "a flat picture ({varied:.3}): no terrain or sky gradient"
    );
    assert!(green > 200, "no HUD in the picture ({green} green pixels)");
    let top = img.get_pixel(img.width() / 2, 5);
    assert!(
        top[2] > top[0],
        "the top of the picture is not sky: {top:?}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_picture_is_not_varied_and_has_no_hud() {
        let flat = image::RgbaImage::from_pixel(64, 32, image::Rgba([90, 120, 200, 255]));
        assert_eq!(varied_fraction(&flat), 0.0);
        assert_eq!(hud_green_pixels(&flat), 0);
    }

    #[test]
    fn green_symbology_and_a_split_picture_are_seen() {
        let mut img = image::RgbaImage::from_pixel(64, 32, image::Rgba([90, 120, 200, 255]));
        for y in 16..32 {
            for x in 0..64 {
                img.put_pixel(x, y, image::Rgba([60, 50, 30, 255]));
            }
        }
        for x in 0..40 {
            img.put_pixel(x, 10, image::Rgba([40, 230, 60, 255]));
        }
        assert!(varied_fraction(&img) > 0.4);
        assert_eq!(hud_green_pixels(&img), 40);
    }
}

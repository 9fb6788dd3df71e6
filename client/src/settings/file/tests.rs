//! The file format's tests: round trip, migration from `settings.toml`, unknown keys kept, a
//! partly broken file (valid values kept, file moved aside, warning), values out of range.

use super::*;
use crate::hud::Units;
use crate::settings::{
    AudioBus, Fullscreen, Graphics, HudColour, MAX_FAVOURITE_SERVERS, MAX_RECENT_SERVERS,
    ModelDetail, Resolution, TerrainDetail, VsyncMode, sanitize_callsign,
};
use toml::{Table, Value};

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// Every setting away from its default.
fn changed() -> GameSettings {
    let mut s = GameSettings::default();
    s.graphics.resolution = Resolution::new(1920, 1080);
    s.graphics.fullscreen = Fullscreen::Borderless;
    s.graphics.vsync = VsyncMode::Adaptive;
    s.graphics.render_scale = 1.25;
    s.graphics.terrain_detail = TerrainDetail::High;
    s.graphics.model_detail = ModelDetail::Full;
    s.graphics.fps_cap = 144;
    for (i, bus) in AudioBus::ALL.into_iter().enumerate() {
        *s.audio.volume_mut(bus) = 0.1 * (i as f32 + 1.0);
    }
    s.audio.mute_when_unfocused = false;
    s.hud.units = Units::Metric;
    s.hud.colour = HudColour([12, 34, 56]);
    s.hud.ui_scale = 1.35;
    s.camera.fov_deg = 75.5;
    s.net.correction_half_life_ms = 250;
    s.net.snap_distance_m = 40.0;
    s.net.correction_speed_mps = 90.0;
    s.net.interp_send_intervals = 2.5;
    s.net.interp_jitter_multiplier = 1.5;
    s.net.interp_min_delay_ms = 30;
    s.net.interp_max_delay_ms = 800;
    s.net.max_extrapolation_ms = 300;
    s.player.callsign = "Maverick".into();
    s.remember_server("example.org:4778");
    s.remember_server("[::1]:4779");
    s
}

fn names_in(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Writes `text` as `user.toml` in a fresh folder and loads it.
fn load_text(text: &[u8]) -> (Loaded, tempfile::TempDir) {
    let d = dir();
    let path = d.path().join(FILE_NAME);
    std::fs::write(&path, text).expect("write");
    (GameSettings::load(&path), d)
}

/// The broken file was moved to `user.invalid.toml` byte for byte and a clean `user.toml`
/// with the loaded values replaced it.
fn assert_moved_aside(l: &Loaded, d: &tempfile::TempDir, original: &[u8]) {
    let path = d.path().join(FILE_NAME);
    let invalid = d.path().join("user.invalid.toml");
    assert_eq!(l.moved_to.as_deref(), Some(invalid.as_path()));
    assert_eq!(
        std::fs::read(&invalid).expect("the invalid copy"),
        original,
        "the player's text is kept byte for byte"
    );
    let w = l.warning.as_deref().expect("a warning");
    assert!(w.contains("user.invalid.toml"), "{w}");
    let again = GameSettings::load(&path);
    assert_eq!(
        again.settings, l.settings,
        "the clean file has the valid values"
    );
    assert_eq!(again.warning, None);
    assert_eq!(again.moved_to, None);
}

#[test]
fn a_missing_file_gives_the_defaults_without_a_warning() {
    let d = dir();
    let l = GameSettings::load(&d.path().join(FILE_NAME));
    assert_eq!(l.settings, GameSettings::default());
    assert_eq!((l.warning, l.migrated_from, l.moved_to), (None, None, None));
    assert!(names_in(d.path()).is_empty(), "loading writes nothing");
}

#[test]
fn save_then_load_round_trips_every_setting_and_creates_the_folder() {
    let d = dir();
    let path = d.path().join("a/b").join(FILE_NAME);
    let s = changed();
    s.save(&path).expect("save");
    let l = GameSettings::load(&path);
    assert_eq!(l.warning, None);
    assert_eq!(l.settings, s);
    // Nothing but the file is left in the folder (the temporary file was renamed).
    assert_eq!(names_in(path.parent().expect("dir")), [FILE_NAME]);
    // Defaults round trip too, and the file is sectioned TOML with its header.
    let text = GameSettings::default().to_toml().expect("encode");
    assert!(text.starts_with("# fighters-legacy settings"), "{text}");
    for section in [
        "[graphics]",
        "[audio]",
        "[hud]",
        "[camera]",
        "[net]",
        "[player]",
    ] {
        assert!(text.contains(section), "{section} in\n{text}");
    }
    assert!(text.contains("master = 0.8\n"), "f32 written short: {text}");
    assert_eq!(GameSettings::from_toml(&text), Ok(GameSettings::default()));
}

#[test]
fn save_replaces_an_existing_file() {
    let d = dir();
    let path = d.path().join(FILE_NAME);
    GameSettings::default().save(&path).expect("save");
    let mut s = GameSettings::default();
    s.camera.fov_deg = 90.0;
    s.save(&path).expect("save again");
    assert_eq!(GameSettings::load(&path).settings.camera.fov_deg, 90.0);
    assert_eq!(names_in(d.path()), [FILE_NAME]);
}

/// The older flat file as the previous version wrote it.
const LEGACY_TEXT: &str = r#"units = "metric"
fov_deg = 85.0
ui_scale = 1.25
vsync = "fast"
fps_cap = 120
callsign = "Goose"
recent_servers = [
    "a.example:4778",
    "b.example:4778",
]
"#;

#[test]
fn settings_toml_is_migrated_and_left_as_it_was() {
    let d = dir();
    let legacy = d.path().join(LEGACY_FILE_NAME);
    std::fs::write(&legacy, LEGACY_TEXT).expect("write");
    let path = d.path().join(FILE_NAME);
    let l = GameSettings::load(&path);
    assert_eq!(l.warning, None);
    assert_eq!(l.migrated_from.as_deref(), Some(legacy.as_path()));
    let s = &l.settings;
    assert_eq!(s.hud.units, Units::Metric);
    assert_eq!(s.camera.fov_deg, 85.0);
    assert_eq!(s.hud.ui_scale, 1.25);
    assert_eq!(s.graphics.vsync, VsyncMode::Off);
    assert_eq!(s.graphics.fps_cap, 120);
    assert_eq!(s.player.callsign, "Goose");
    assert_eq!(
        s.player.recent_servers,
        ["a.example:4778", "b.example:4778"]
    );
    assert!(
        s.unknown.is_empty(),
        "the old keys were moved, not kept twice"
    );
    // Nothing written yet; the old file untouched.
    assert_eq!(names_in(d.path()), [LEGACY_FILE_NAME]);

    // The next save writes user.toml, which wins from then on; settings.toml stays.
    let mut s = l.settings;
    s.camera.fov_deg = 70.0;
    s.save(&path).expect("save");
    let l = GameSettings::load(&path);
    assert_eq!((l.migrated_from, l.settings.camera.fov_deg), (None, 70.0));
    assert_eq!(
        std::fs::read_to_string(&legacy).expect("old file"),
        LEGACY_TEXT
    );
    assert_eq!(names_in(d.path()), [LEGACY_FILE_NAME, FILE_NAME]);
}

#[test]
fn a_broken_settings_toml_gives_its_valid_values_and_is_never_moved() {
    let d = dir();
    let legacy = d.path().join(LEGACY_FILE_NAME);
    let text = "units = \"metric\"\nfov_deg = \"wide\"\ncallsign = \"Iceman\"\nvsync = = 3\n";
    std::fs::write(&legacy, text).expect("write");
    let l = GameSettings::load(&d.path().join(FILE_NAME));
    assert_eq!(l.settings.hud.units, Units::Metric);
    assert_eq!(l.settings.player.callsign, "Iceman");
    assert_eq!(l.settings.camera.fov_deg, 60.0);
    let w = l.warning.expect("a warning");
    assert!(
        w.contains("camera.fov_deg") && w.contains("left as it is"),
        "{w}"
    );
    assert_eq!(l.moved_to, None);
    assert_eq!(std::fs::read_to_string(&legacy).expect("kept"), text);
    assert_eq!(names_in(d.path()), [LEGACY_FILE_NAME]);
}

#[test]
fn a_settings_toml_path_given_itself_reads_the_new_format() {
    // `--settings settings.toml`: that file is the settings file; no migration from itself.
    assert_eq!(legacy_path(Path::new("/x/settings.toml")), None);
    assert_eq!(
        legacy_path(Path::new("/x/user.toml")),
        Some(PathBuf::from("/x/settings.toml"))
    );
}

#[test]
fn unknown_keys_and_sections_are_kept_and_written_back() {
    let text = br#"theme = "dark"
[graphics]
vsync = "off"
hdr = true
[graphics.post]
bloom = 0.5
[hud]
units = "metric"
declutter = ["ladder", "tape"]
[mods]
enabled = ["fl-base", "my-pack"]
"#;
    let (l, d) = load_text(text);
    assert_eq!(l.warning, None, "unknown keys are not a problem");
    assert_eq!(l.moved_to, None);
    assert_eq!(
        l.unknown,
        [
            "graphics.hdr",
            "graphics.post",
            "hud.declutter",
            "mods",
            "theme"
        ]
    );
    let s = &l.settings;
    assert_eq!(
        (s.graphics.vsync, s.hud.units),
        (VsyncMode::Off, Units::Metric)
    );
    assert_eq!(s.graphics.unknown.get("hdr"), Some(&Value::Boolean(true)));
    // Saved and read again: all there, in their sections.
    let path = d.path().join(FILE_NAME);
    s.save(&path).expect("save");
    let saved = std::fs::read_to_string(&path).expect("read");
    let table: Table = toml::from_str(&saved).expect("the saved file is TOML");
    assert_eq!(table["theme"].as_str(), Some("dark"));
    assert_eq!(table["graphics"]["hdr"].as_bool(), Some(true));
    assert_eq!(table["graphics"]["post"]["bloom"].as_float(), Some(0.5));
    assert_eq!(table["hud"]["declutter"][1].as_str(), Some("tape"));
    assert_eq!(table["mods"]["enabled"][1].as_str(), Some("my-pack"));
    assert_eq!(GameSettings::load(&path).settings, *s);
}

#[test]
fn a_partly_broken_file_keeps_every_valid_value_moves_aside_and_warns() {
    let text = br##"[graphics]
vsync = "adaptive"
fullscreen = "sometimes"
fps_cap = "fast"
terrain_detail = "high"
[audio]
music = 0.25
engine = "loud"
mute_when_unfocused = "yes"
[hud]
units = "metric"
colour = "#102030"
ui_scale = true
[camera]
fov_deg = "wide"
[player]
callsign = "Viper"
recent_servers = ["a:1", 7, "b:2"]
"##;
    let (l, d) = load_text(text);
    let s = &l.settings;
    let def = GameSettings::default();
    // Valid values kept.
    assert_eq!(s.graphics.vsync, VsyncMode::Adaptive);
    assert_eq!(s.graphics.terrain_detail, TerrainDetail::High);
    assert_eq!(s.audio.music, 0.25);
    assert_eq!(s.hud.units, Units::Metric);
    assert_eq!(s.hud.colour, HudColour([0x10, 0x20, 0x30]));
    assert_eq!(s.player.callsign, "Viper");
    assert_eq!(s.player.recent_servers, ["a:1", "b:2"]);
    // Invalid ones defaulted.
    assert_eq!(s.graphics.fullscreen, def.graphics.fullscreen);
    assert_eq!(s.graphics.fps_cap, def.graphics.fps_cap);
    assert_eq!(s.audio.engine, def.audio.engine);
    assert_eq!(s.audio.mute_when_unfocused, def.audio.mute_when_unfocused);
    assert_eq!(s.hud.ui_scale, def.hud.ui_scale);
    assert_eq!(s.camera.fov_deg, def.camera.fov_deg);
    let w = l.warning.clone().expect("warning");
    for key in ["graphics.fullscreen", "graphics.fps_cap", "audio.engine"] {
        assert!(w.contains(key), "{key} named in {w}");
    }
    // Seven problems: six named, the last counted.
    assert!(w.contains("and 1 more"), "the rest counted: {w}");
    assert_moved_aside(&l, &d, text);
    assert_eq!(names_in(d.path()), ["user.invalid.toml", FILE_NAME]);
}

#[test]
fn a_second_broken_file_takes_the_next_invalid_name() {
    let d = dir();
    let path = d.path().join(FILE_NAME);
    for (n, text) in [
        "[graphics]\nvsync = 1\n",
        "[camera]\nfov_deg = nan\n",
        "[hud\n",
    ]
    .iter()
    .enumerate()
    {
        std::fs::write(&path, text).expect("write");
        let l = GameSettings::load(&path);
        let want = invalid_path(&path, n as u32);
        assert_eq!(l.moved_to.as_deref(), Some(want.as_path()), "{text}");
        assert_eq!(std::fs::read_to_string(&want).expect("copy"), *text);
    }
    assert_eq!(
        names_in(d.path()),
        [
            "user.invalid.1.toml",
            "user.invalid.2.toml",
            "user.invalid.toml",
            FILE_NAME
        ]
    );
}

#[test]
fn invalid_names() {
    let p = Path::new("/c/user.toml");
    assert_eq!(invalid_path(p, 0), Path::new("/c/user.invalid.toml"));
    assert_eq!(invalid_path(p, 3), Path::new("/c/user.invalid.3.toml"));
    assert_eq!(
        invalid_path(Path::new("/c/prefs"), 1),
        Path::new("/c/prefs.invalid.1")
    );
}

#[test]
fn a_toml_syntax_error_is_salvaged_line_by_line() {
    let text = br#"# my settings
[graphics]
vsync = "off"
fps_cap = = 90
resolution = "1600x900"
[hud]
units = "metric"
colour = amber
[player]
callsign = "Jester"
recent_servers = [
    "one:1",
    "two:2",
]
[[joysticks]]
name = "stick"
[camera]
fov_deg = 95
"#;
    let (l, d) = load_text(text);
    let s = &l.settings;
    assert_eq!(s.graphics.vsync, VsyncMode::Off);
    assert_eq!(s.graphics.resolution, Resolution::new(1600, 900));
    assert_eq!(s.graphics.fps_cap, 0);
    assert_eq!(s.hud.units, Units::Metric);
    assert_eq!(s.hud.colour, HudColour::default());
    assert_eq!(s.player.callsign, "Jester");
    assert_eq!(s.player.recent_servers, ["one:1", "two:2"]);
    assert_eq!(s.camera.fov_deg, 95.0);
    let w = l.warning.clone().expect("warning");
    assert!(w.contains("not valid TOML on line 4"), "{w}");
    assert_moved_aside(&l, &d, text);
}

#[test]
fn numbers_that_are_not_numbers_are_defaulted() {
    for text in [
        &b"[camera]\nfov_deg = nan\n"[..],
        b"[hud]\nui_scale = inf\n",
        b"[audio]\nmaster = -nan\n",
        b"[graphics]\nfps_cap = 59.5\n",
        b"[graphics]\nfps_cap = -5\n",
    ] {
        let (l, d) = load_text(text);
        assert_eq!(l.settings, GameSettings::default(), "{text:?}");
        assert!(l.warning.is_some(), "{text:?}");
        assert_moved_aside(&l, &d, text);
    }
}

#[test]
fn a_section_that_is_not_a_table_is_defaulted() {
    let text = b"graphics = 3\n[hud]\nunits = \"metric\"\n";
    let (l, d) = load_text(text);
    assert_eq!(l.settings.graphics, Graphics::default());
    assert_eq!(l.settings.hud.units, Units::Metric);
    assert!(
        l.warning
            .as_deref()
            .is_some_and(|w| w.contains("not a [graphics] section"))
    );
    assert_moved_aside(&l, &d, text);
}

#[test]
fn a_huge_or_binary_file_keeps_what_can_be_read() {
    let mut huge = b"[hud]\nunits = \"metric\"\n".to_vec();
    while huge.len() < 70 * 1024 {
        huge.extend_from_slice(b"# padding padding padding padding padding padding\n");
    }
    huge.extend_from_slice(b"[camera]\nfov_deg = 100\n");
    let (l, d) = load_text(&huge);
    assert_eq!(l.settings.hud.units, Units::Metric);
    assert_eq!(l.settings.camera.fov_deg, 60.0, "past the limit: not read");
    assert!(
        l.warning
            .as_deref()
            .is_some_and(|w| w.contains("larger than 64 KiB"))
    );
    assert_moved_aside(&l, &d, &huge);

    let binary = b"[hud]\nunits = \"metric\"\n\xff\xfe\x00\x41\n[camera]\nfov_deg = 50\n";
    let (l, d) = load_text(binary);
    assert_eq!(l.settings.hud.units, Units::Metric);
    assert_eq!(l.settings.camera.fov_deg, 50.0);
    assert!(l.warning.as_deref().is_some_and(|w| w.contains("UTF-8")));
    assert_moved_aside(&l, &d, binary);
}

#[test]
fn values_out_of_range_are_clamped_with_a_warning_and_the_file_stays() {
    let text = br#"[graphics]
resolution = "10x99999"
render_scale = 9.0
fps_cap = 5
[audio]
master = 2
radio = -1.0
[hud]
ui_scale = 0.01
[camera]
fov_deg = 500
[net]
correction_half_life_ms = 100000
snap_distance_m = 0
interp_send_intervals = 0.2
interp_min_delay_ms = 200
interp_max_delay_ms = 60
max_extrapolation_ms = 5000
"#;
    let (l, d) = load_text(text);
    let s = &l.settings;
    assert_eq!(s.graphics.resolution, Resolution::new(640, 16_384));
    assert_eq!(s.graphics.render_scale, 2.0);
    assert_eq!(s.graphics.fps_cap, 30);
    assert_eq!((s.audio.master, s.audio.radio), (1.0, 0.0));
    assert_eq!(s.hud.ui_scale, 0.5);
    assert_eq!(s.camera.fov_deg, 110.0);
    assert_eq!(s.net.correction_half_life_ms, 1000);
    assert_eq!(s.net.snap_distance_m, 1.0);
    assert_eq!(s.net.interp_send_intervals, 1.0);
    assert_eq!(
        (s.net.interp_min_delay_ms, s.net.interp_max_delay_ms),
        (200, 200),
        "the ceiling is raised to the floor"
    );
    assert_eq!(s.net.max_extrapolation_ms, 1000);
    let w = l.warning.expect("warning");
    assert!(
        w.contains("graphics.resolution") && w.contains("more"),
        "{w}"
    );
    // Understood, only adjusted: the file stays where it is.
    assert_eq!(l.moved_to, None);
    assert_eq!(names_in(d.path()), [FILE_NAME]);

    let (l, _d) = load_text(b"[graphics]\nfps_cap = 100000\n");
    assert_eq!(l.settings.graphics.fps_cap, 1000);
    // 0 is "no cap", not below the range; a whole float is a whole number.
    let (l, _d) = load_text(b"[graphics]\nfps_cap = 0\n[camera]\nfov_deg = 90\n");
    assert_eq!((l.settings.graphics.fps_cap, l.warning), (0, None));
    assert_eq!(l.settings.camera.fov_deg, 90.0);
    let (l, _d) = load_text(b"[graphics]\nfps_cap = 144.0\n");
    assert_eq!((l.settings.graphics.fps_cap, l.warning), (144, None));
}

#[test]
fn recent_servers_from_a_file_are_bounded_and_deduplicated() {
    let mut text = String::from("[player]\nrecent_servers = [\"a:1\", \"b:2\", \" a:1 \", \"\"");
    for i in 0..20 {
        text.push_str(&format!(", \"h{i}:1\""));
    }
    text.push_str("]\n");
    let (l, _d) = load_text(text.as_bytes());
    let r = &l.settings.player.recent_servers;
    assert_eq!(r.len(), MAX_RECENT_SERVERS);
    assert_eq!(&r[..3], ["a:1", "b:2", "h0:1"]);
    assert!(l.warning.expect("warning").contains("recent_servers"));
    assert_eq!(l.moved_to, None);
}

#[test]
fn favourite_servers_round_trip_bounded_and_deduplicated() {
    let mut text = String::from("[player]\nfavourite_servers = [\"a:1\", \" a:1 \", \"\"");
    for i in 0..40 {
        text.push_str(&format!(", \"h{i}:1\""));
    }
    text.push_str("]\n");
    let (l, _d) = load_text(text.as_bytes());
    let f = &l.settings.player.favourite_servers;
    assert_eq!(f.len(), MAX_FAVOURITE_SERVERS);
    assert_eq!(&f[..2], ["a:1", "h0:1"]);
    assert!(l.warning.expect("warning").contains("favourite_servers"));
    let table = l.settings.to_table();
    let saved = table["player"]["favourite_servers"]
        .as_array()
        .expect("written");
    assert_eq!(saved.len(), MAX_FAVOURITE_SERVERS);
}

#[test]
fn callsigns_from_a_file_are_cleaned() {
    let long = "é".repeat(40);
    let (l, _d) = load_text(format!("[player]\ncallsign = \"{long}\"\n").as_bytes());
    assert_eq!(l.settings.player.callsign, sanitize_callsign(&long));
    assert!(l.warning.is_some());
    assert_eq!(l.moved_to, None);
}

#[test]
fn names_are_read_in_any_case_and_written_lower_case() {
    let (l, _d) = load_text(
        b"[graphics]\nvsync = \"FAST\"\nfullscreen = \"Borderless\"\n[hud]\nunits = \"Metric\"\ncolour = \"CYAN\"\n",
    );
    let s = &l.settings;
    assert_eq!(l.warning, None);
    assert_eq!(
        (s.graphics.vsync, s.graphics.fullscreen, s.hud.units),
        (VsyncMode::Off, Fullscreen::Borderless, Units::Metric)
    );
    let text = s.to_toml().expect("encode");
    assert!(text.contains("vsync = \"off\""), "{text}");
    assert!(text.contains("colour = \"cyan\""), "{text}");
    assert!(text.contains("units = \"metric\""), "{text}");
}

#[test]
fn hostile_salvage_inputs_end() {
    // Unclosed arrays up to the size limit: each is tried against at most 64 following
    // lines, and all the joined attempts together parse a bounded number of bytes.
    let mut text = String::from("[graphics]\nvsync = \"off\"\n");
    while text.len() < MAX_FILE_BYTES as usize - 100 {
        text.push_str("a = [\n");
    }
    let (l, _d) = load_text(text.as_bytes());
    assert_eq!(l.settings.graphics.vsync, VsyncMode::Off);
    assert!(l.moved_to.is_some());
}

#[test]
fn default_path_is_user_toml_in_the_config_dir() {
    if let Some(p) = default_path() {
        assert!(p.ends_with(FILE_NAME));
        assert!(p.to_string_lossy().contains("fighters-legacy"));
    }
}

//! The player's settings, kept in `user.toml` in the OS config directory (docs/settings.md):
//! graphics, audio volumes per bus, the HUD, the camera, advanced network tuning, and the
//! player's callsign and recent servers.
//!
//! Owns: the settings' types, ranges and defaults ([`GameSettings`]); the keys and their checks
//! (`format`), reading what can be read of a file TOML refuses (`salvage`), and the file on
//! disk — every valid value of a partly broken file kept and the file moved aside as
//! `user.invalid.toml`, the migration from the older `settings.toml`, the atomic save (`file`).
//! Must not: apply the settings (the window, the HUD and the client read them).

mod choices;
mod file;
mod format;
mod salvage;

use std::ops::RangeInclusive;
use std::time::Duration;

use crate::client::ClientConfig;
use crate::hud::{HudSettings, Units};

pub use choices::{
    Choice, Fullscreen, HudColour, ModelDetail, Resolution, TerrainDetail, VsyncMode,
};
pub use file::{
    FILE_NAME, LEGACY_FILE_NAME, Loaded, MAX_FILE_BYTES, SettingsError, default_path, invalid_path,
    legacy_path,
};

/// Recent servers kept.
pub const MAX_RECENT_SERVERS: usize = 10;
/// Favourite servers kept (the server browser's saved list).
pub const MAX_FAVOURITE_SERVERS: usize = 32;
/// Characters of a recent server's address kept (longer ones are dropped on load).
pub const MAX_ADDRESS_CHARS: usize = 256;
/// Bytes of a callsign (the protocol's `FixedStr<32>` less its terminator).
pub const MAX_CALLSIGN_BYTES: usize = 31;
/// Field of view, degrees (vertical).
pub const FOV_RANGE_DEG: RangeInclusive<f64> = 40.0..=110.0;
/// UI scale.
pub const UI_SCALE_RANGE: RangeInclusive<f32> = 0.5..=3.0;
/// A frame-rate cap other than 0 (none).
pub const FPS_CAP_RANGE: RangeInclusive<u32> = 30..=1000;
/// Render scale (the scene's resolution relative to the window's).
pub const RENDER_SCALE_RANGE: RangeInclusive<f32> = 0.5..=2.0;
/// A bus volume.
pub const VOLUME_RANGE: RangeInclusive<f32> = 0.0..=1.0;

/// The `[graphics]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct Graphics {
    /// The window's size when not fullscreen. `--size` on the command line wins for that run.
    pub resolution: Resolution,
    pub fullscreen: Fullscreen,
    pub vsync: VsyncMode,
    /// The 3D scene's resolution relative to the window's ([`RENDER_SCALE_RANGE`]), applied
    /// live by fl-render (scene buffers of that size, resampled by the tonemap pass).
    pub render_scale: f32,
    pub terrain_detail: TerrainDetail,
    pub model_detail: ModelDetail,
    /// Frames per second at most; 0 = no cap ([`FPS_CAP_RANGE`] otherwise).
    pub fps_cap: u32,
    /// Keys of this section this version does not know, written back as they were.
    pub unknown: toml::Table,
}

impl Default for Graphics {
    fn default() -> Self {
        Graphics {
            resolution: Resolution::default(),
            fullscreen: Fullscreen::Off,
            vsync: VsyncMode::On,
            render_scale: 1.0,
            terrain_detail: TerrainDetail::Medium,
            model_detail: ModelDetail::Auto,
            fps_cap: 0,
            unknown: toml::Table::new(),
        }
    }
}

/// A sound bus: a group of sounds with one volume (`fl_audio`'s buses, once it has them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AudioBus {
    Master,
    Engine,
    Weapons,
    Radio,
    Music,
    Ui,
}

impl AudioBus {
    pub const ALL: [AudioBus; 6] = [
        AudioBus::Master,
        AudioBus::Engine,
        AudioBus::Weapons,
        AudioBus::Radio,
        AudioBus::Music,
        AudioBus::Ui,
    ];

    /// The key in `[audio]`.
    pub fn key(self) -> &'static str {
        match self {
            AudioBus::Master => "master",
            AudioBus::Engine => "engine",
            AudioBus::Weapons => "weapons",
            AudioBus::Radio => "radio",
            AudioBus::Music => "music",
            AudioBus::Ui => "ui",
        }
    }

    /// The Settings screen's label.
    pub fn label(self) -> &'static str {
        match self {
            AudioBus::Master => "Master volume",
            AudioBus::Engine => "Engine",
            AudioBus::Weapons => "Weapons",
            AudioBus::Radio => "Radio",
            AudioBus::Music => "Music",
            AudioBus::Ui => "Interface",
        }
    }
}

/// The `[audio]` section: one volume per bus, 0 … 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Audio {
    pub master: f32,
    pub engine: f32,
    pub weapons: f32,
    pub radio: f32,
    pub music: f32,
    pub ui: f32,
    /// Silence the game while its window is not the focused one.
    pub mute_when_unfocused: bool,
    pub unknown: toml::Table,
}

impl Audio {
    pub fn volume(&self, bus: AudioBus) -> f32 {
        match bus {
            AudioBus::Master => self.master,
            AudioBus::Engine => self.engine,
            AudioBus::Weapons => self.weapons,
            AudioBus::Radio => self.radio,
            AudioBus::Music => self.music,
            AudioBus::Ui => self.ui,
        }
    }

    pub fn volume_mut(&mut self, bus: AudioBus) -> &mut f32 {
        match bus {
            AudioBus::Master => &mut self.master,
            AudioBus::Engine => &mut self.engine,
            AudioBus::Weapons => &mut self.weapons,
            AudioBus::Radio => &mut self.radio,
            AudioBus::Music => &mut self.music,
            AudioBus::Ui => &mut self.ui,
        }
    }
}

impl Default for Audio {
    fn default() -> Self {
        Audio {
            // fl-audio's own starting level, so a player without a file hears what they did.
            master: fl_audio::mixer::DEFAULT_MASTER_VOLUME,
            engine: 1.0,
            weapons: 1.0,
            radio: 1.0,
            music: 0.7,
            ui: 1.0,
            mute_when_unfocused: true,
            unknown: toml::Table::new(),
        }
    }
}

/// The `[hud]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct Hud {
    /// Knots and feet (`imperial`) or metric (`metric`).
    pub units: Units,
    pub colour: HudColour,
    /// Size of the menus and the HUD relative to the default ([`UI_SCALE_RANGE`]).
    pub ui_scale: f32,
    pub unknown: toml::Table,
}

impl Default for Hud {
    fn default() -> Self {
        Hud {
            units: Units::Imperial,
            colour: HudColour::default(),
            ui_scale: 1.0,
            unknown: toml::Table::new(),
        }
    }
}

/// The `[camera]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct Camera {
    /// The 3D camera's vertical field of view, degrees ([`FOV_RANGE_DEG`]).
    pub fov_deg: f64,
    pub unknown: toml::Table,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            fov_deg: 60.0,
            unknown: toml::Table::new(),
        }
    }
}

/// The `[net]` section: how the own aircraft's corrections are smoothed and how far in the past
/// the other aircraft are drawn. The defaults are the client's tested ones (`ClientConfig`);
/// the ranges keep every combination flyable.
#[derive(Debug, Clone, PartialEq)]
pub struct Net {
    /// Half-life of the own aircraft's visual correction, ms (0: corrections show at once).
    pub correction_half_life_ms: u32,
    /// A correction further than this is a teleport and snaps, m.
    pub snap_distance_m: f64,
    /// The drawn correction closes at most this fast, m/s.
    pub correction_speed_mps: f64,
    /// The interpolation delay in measured snapshot intervals.
    pub interp_send_intervals: f64,
    /// Multiplier of the arrival-lateness allowance added to that delay.
    pub interp_jitter_multiplier: f64,
    /// The interpolation delay's floor and ceiling, ms.
    pub interp_min_delay_ms: u32,
    pub interp_max_delay_ms: u32,
    /// Longest extrapolation of another aircraft past its newest snapshot, ms.
    pub max_extrapolation_ms: u32,
    pub unknown: toml::Table,
}

/// Ranges of the `[net]` knobs.
pub mod net_ranges {
    use std::ops::RangeInclusive;
    pub const CORRECTION_HALF_LIFE_MS: RangeInclusive<u32> = 0..=1000;
    pub const SNAP_DISTANCE_M: RangeInclusive<f64> = 1.0..=500.0;
    pub const CORRECTION_SPEED_MPS: RangeInclusive<f64> = 5.0..=1000.0;
    /// Below one interval the newest snapshot is always late.
    pub const INTERP_SEND_INTERVALS: RangeInclusive<f64> = 1.0..=4.0;
    pub const INTERP_JITTER_MULTIPLIER: RangeInclusive<f64> = 0.0..=4.0;
    pub const INTERP_MIN_DELAY_MS: RangeInclusive<u32> = 0..=250;
    pub const INTERP_MAX_DELAY_MS: RangeInclusive<u32> = 50..=2000;
    pub const MAX_EXTRAPOLATION_MS: RangeInclusive<u32> = 0..=1000;
}

impl Default for Net {
    fn default() -> Self {
        let c = ClientConfig::default();
        let ms = |d: Duration| u32::try_from(d.as_millis()).unwrap_or(u32::MAX);
        Net {
            correction_half_life_ms: ms(c.prediction.visual_half_life),
            snap_distance_m: c.prediction.snap_distance_m,
            correction_speed_mps: c.prediction.max_correction_speed_mps,
            interp_send_intervals: c.interpolation.send_interval_ratio,
            interp_jitter_multiplier: c.interpolation.jitter_multiplier,
            interp_min_delay_ms: ms(c.interpolation.min_delay),
            interp_max_delay_ms: ms(c.interpolation.max_delay),
            max_extrapolation_ms: ms(c.interpolation.max_extrapolation),
            unknown: toml::Table::new(),
        }
    }
}

impl Net {
    /// `base` with these knobs set (everything else in it untouched).
    pub fn apply_to(&self, base: &ClientConfig) -> ClientConfig {
        let ms = |v: u32| Duration::from_millis(u64::from(v));
        let mut c = base.clone();
        c.prediction.visual_half_life = ms(self.correction_half_life_ms);
        c.prediction.snap_distance_m = self.snap_distance_m;
        c.prediction.max_correction_speed_mps = self.correction_speed_mps;
        c.interpolation.send_interval_ratio = self.interp_send_intervals;
        c.interpolation.jitter_multiplier = self.interp_jitter_multiplier;
        c.interpolation.min_delay = ms(self.interp_min_delay_ms);
        c.interpolation.max_delay = ms(self.interp_max_delay_ms.max(self.interp_min_delay_ms));
        c.interpolation.max_extrapolation = ms(self.max_extrapolation_ms);
        c
    }
}

/// The `[player]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct Player {
    /// The name other players see (at most [`MAX_CALLSIGN_BYTES`] bytes; empty: the server
    /// names the pilot).
    pub callsign: String,
    /// Servers joined, newest first, without repeats ([`MAX_RECENT_SERVERS`] at most).
    pub recent_servers: Vec<String>,
    /// The server browser's saved servers, in the order added, without repeats
    /// ([`MAX_FAVOURITE_SERVERS`] at most).
    pub favourite_servers: Vec<String>,
    pub unknown: toml::Table,
}

impl Default for Player {
    fn default() -> Self {
        Player {
            callsign: "Pilot".to_owned(),
            recent_servers: Vec::new(),
            favourite_servers: Vec::new(),
            unknown: toml::Table::new(),
        }
    }
}

/// The player's settings: one field per section of `user.toml`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GameSettings {
    pub graphics: Graphics,
    pub audio: Audio,
    pub hud: Hud,
    pub camera: Camera,
    pub net: Net,
    pub player: Player,
    /// Top-level keys and sections this version does not know, written back as they were.
    pub unknown: toml::Table,
}

/// Cuts `s` to at most `max` bytes on a character boundary.
fn truncate_bytes(s: &mut String, max: usize) {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
}

/// A callsign as the game sends it: control characters removed, surrounding spaces trimmed,
/// at most [`MAX_CALLSIGN_BYTES`] bytes.
pub fn sanitize_callsign(s: &str) -> String {
    let mut out: String = s.chars().filter(|c| !c.is_control()).collect();
    out = out.trim().to_owned();
    truncate_bytes(&mut out, MAX_CALLSIGN_BYTES);
    out.trim_end().to_owned()
}

/// An address worth remembering: trimmed, not blank, not absurdly long.
fn usable_address(address: &str) -> Option<&str> {
    let a = address.trim();
    (!a.is_empty() && a.chars().count() <= MAX_ADDRESS_CHARS).then_some(a)
}

impl GameSettings {
    /// What the HUD needs.
    pub fn to_hud(&self) -> HudSettings {
        HudSettings {
            units: self.hud.units,
            ui_scale: self.hud.ui_scale,
            vertical_fov_deg: self.camera.fov_deg,
            colour: self.hud.colour.to_color32(),
        }
    }

    /// Puts `address` first in the recent servers (once; the oldest falls off past
    /// [`MAX_RECENT_SERVERS`]). Blank or over-long addresses are not remembered.
    pub fn remember_server(&mut self, address: &str) {
        let Some(address) = usable_address(address) else {
            return;
        };
        let recent = &mut self.player.recent_servers;
        recent.retain(|a| a != address);
        recent.insert(0, address.to_owned());
        recent.truncate(MAX_RECENT_SERVERS);
    }

    /// Adds `address` to the favourite servers, or removes it when it is there. Returns
    /// whether it is a favourite now (a blank or over-long address, or a full list: not added).
    pub fn toggle_favourite(&mut self, address: &str) -> bool {
        let Some(address) = usable_address(address) else {
            return false;
        };
        let favs = &mut self.player.favourite_servers;
        if let Some(i) = favs.iter().position(|a| a == address) {
            favs.remove(i);
            return false;
        }
        if favs.len() >= MAX_FAVOURITE_SERVERS {
            return false;
        }
        favs.push(address.to_owned());
        true
    }

    /// The Settings screen's *Restore Defaults*: every setting back to its default except the
    /// player's name and server list, which are not preferences; unknown keys are kept.
    pub fn restore_defaults(&mut self) {
        let keep = |u: &mut toml::Table| std::mem::take(u);
        let defaults = GameSettings::default();
        let player = std::mem::take(&mut self.player);
        *self = GameSettings {
            graphics: Graphics {
                unknown: keep(&mut self.graphics.unknown),
                ..defaults.graphics
            },
            audio: Audio {
                unknown: keep(&mut self.audio.unknown),
                ..defaults.audio
            },
            hud: Hud {
                unknown: keep(&mut self.hud.unknown),
                ..defaults.hud
            },
            camera: Camera {
                unknown: keep(&mut self.camera.unknown),
                ..defaults.camera
            },
            net: Net {
                unknown: keep(&mut self.net.unknown),
                ..defaults.net
            },
            player,
            unknown: keep(&mut self.unknown),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_defaults_are_the_clients_own() {
        let base = ClientConfig::default();
        assert_eq!(Net::default().apply_to(&base), base);
        let n = Net {
            correction_half_life_ms: 0,
            interp_min_delay_ms: 200,
            interp_max_delay_ms: 100,
            ..Net::default()
        };
        let c = n.apply_to(&base);
        assert_eq!(c.prediction.visual_half_life, Duration::ZERO);
        // A ceiling under the floor is raised to it.
        assert_eq!(c.interpolation.max_delay, Duration::from_millis(200));
        assert_eq!(
            c.max_catchup_ticks, base.max_catchup_ticks,
            "the rest untouched"
        );
    }

    #[test]
    fn recent_servers_are_bounded_deduplicated_newest_first() {
        let mut s = GameSettings::default();
        for i in 0..15 {
            s.remember_server(&format!("host{i}:4778"));
        }
        s.remember_server("host3:4778");
        s.remember_server("  ");
        s.remember_server(&"x".repeat(MAX_ADDRESS_CHARS + 1));
        let r = &s.player.recent_servers;
        assert_eq!(r.len(), MAX_RECENT_SERVERS);
        assert_eq!(r[0], "host3:4778");
        assert_eq!(r[1], "host14:4778");
        assert_eq!(r.iter().filter(|a| *a == "host3:4778").count(), 1);
    }

    #[test]
    fn favourites_toggle_and_are_bounded() {
        let mut s = GameSettings::default();
        assert!(s.toggle_favourite(" a:1 "));
        assert_eq!(s.player.favourite_servers, ["a:1"]);
        assert!(!s.toggle_favourite("a:1"), "a second toggle removes it");
        assert!(s.player.favourite_servers.is_empty());
        assert!(!s.toggle_favourite("   "));
        for i in 0..40 {
            s.toggle_favourite(&format!("h{i}:1"));
        }
        assert_eq!(s.player.favourite_servers.len(), MAX_FAVOURITE_SERVERS);
    }

    #[test]
    fn callsigns_are_cleaned_and_bounded() {
        assert_eq!(sanitize_callsign("  Ace\u{7}\n "), "Ace");
        let long = "é".repeat(40);
        let c = sanitize_callsign(&long);
        assert!(c.len() <= MAX_CALLSIGN_BYTES && c.chars().all(|ch| ch == 'é'));
        assert_eq!(c.chars().count(), 15);
    }

    #[test]
    fn to_hud_carries_units_scale_fov_and_colour() {
        let mut s = GameSettings::default();
        s.hud.units = Units::Metric;
        s.hud.ui_scale = 1.5;
        s.hud.colour = HudColour([1, 2, 3]);
        s.camera.fov_deg = 80.0;
        assert_eq!(
            s.to_hud(),
            HudSettings {
                units: Units::Metric,
                ui_scale: 1.5,
                vertical_fov_deg: 80.0,
                colour: egui::Color32::from_rgb(1, 2, 3),
            }
        );
        assert_eq!(GameSettings::default().to_hud(), HudSettings::default());
    }

    #[test]
    fn restore_defaults_keeps_the_player_and_unknown_keys() {
        let mut s = GameSettings::default();
        s.camera.fov_deg = 90.0;
        s.audio.music = 0.1;
        s.player.callsign = "Viper".into();
        s.remember_server("a:1");
        s.graphics
            .unknown
            .insert("hdr".into(), toml::Value::Boolean(true));
        s.unknown
            .insert("mods".into(), toml::Value::Table(toml::Table::new()));
        let mut expected = GameSettings {
            player: s.player.clone(),
            unknown: s.unknown.clone(),
            ..GameSettings::default()
        };
        expected.graphics.unknown = s.graphics.unknown.clone();
        s.restore_defaults();
        assert_eq!(s, expected);
    }
}

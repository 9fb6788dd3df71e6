//! What the window does with the player's settings while the game runs, as plain decisions the
//! window carries out: the window mode (windowed at a size, or borderless fullscreen) and the
//! sound levels (the master volume, muted in the background when asked; the other buses once
//! fl-audio mixes by bus).
//!
//! Owns these decisions, so they can be tested without a window or a sound device. Must not:
//! touch winit, the surface or the audio output (`window` does).

use crate::settings::{Audio, AudioBus, Fullscreen, Graphics, Resolution};

/// How the window should be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowMode {
    /// A normal window of this size.
    Windowed(Resolution),
    /// Borderless, covering its monitor.
    Borderless,
}

impl WindowMode {
    /// The mode the graphics settings ask for.
    pub fn of(g: &Graphics) -> WindowMode {
        match g.fullscreen {
            Fullscreen::Off => WindowMode::Windowed(g.resolution.clamped()),
            Fullscreen::Borderless => WindowMode::Borderless,
        }
    }
}

/// The sound levels to set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AudioLevels {
    /// The output's master volume (0 while muted in the background).
    pub master: f32,
    /// The other buses' volumes, for `fl_audio::AudioOutput::set_bus_volume` ([`fl_bus`]).
    pub buses: [(AudioBus, f32); 5],
}

/// fl-audio's bus for a settings bus (one to one; the settings keep their own type for serde).
pub fn fl_bus(bus: AudioBus) -> fl_audio::Bus {
    match bus {
        AudioBus::Master => fl_audio::Bus::Master,
        AudioBus::Engine => fl_audio::Bus::Engine,
        AudioBus::Weapons => fl_audio::Bus::Weapons,
        AudioBus::Radio => fl_audio::Bus::Radio,
        AudioBus::Music => fl_audio::Bus::Music,
        AudioBus::Ui => fl_audio::Bus::Ui,
    }
}

/// The levels for `audio` with the window focused or not.
pub fn audio_levels(audio: &Audio, focused: bool) -> AudioLevels {
    let unit = |v: f32| {
        if v.is_finite() {
            v.clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let muted = audio.mute_when_unfocused && !focused;
    let bus = |b: AudioBus| (b, unit(audio.volume(b)));
    AudioLevels {
        master: if muted { 0.0 } else { unit(audio.master) },
        buses: [
            bus(AudioBus::Engine),
            bus(AudioBus::Weapons),
            bus(AudioBus::Radio),
            bus(AudioBus::Music),
            bus(AudioBus::Ui),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_mode_follows_fullscreen_and_resolution() {
        let mut g = Graphics::default();
        assert_eq!(
            WindowMode::of(&g),
            WindowMode::Windowed(Resolution::new(1280, 720))
        );
        g.resolution = Resolution::new(1, 1);
        assert_eq!(
            WindowMode::of(&g),
            WindowMode::Windowed(Resolution::MIN),
            "never a useless window"
        );
        g.fullscreen = Fullscreen::Borderless;
        assert_eq!(WindowMode::of(&g), WindowMode::Borderless);
    }

    #[test]
    fn the_background_mutes_only_when_asked() {
        let mut a = Audio {
            master: 0.6,
            music: 0.3,
            ..Audio::default()
        };
        assert_eq!(audio_levels(&a, true).master, 0.6);
        assert_eq!(audio_levels(&a, false).master, 0.0);
        a.mute_when_unfocused = false;
        assert_eq!(audio_levels(&a, false).master, 0.6);
        let l = audio_levels(&a, false);
        assert!(l.buses.contains(&(AudioBus::Music, 0.3)));
        a.engine = f32::NAN;
        a.master = 7.0;
        let l = audio_levels(&a, true);
        assert_eq!(l.master, 1.0);
        assert!(l.buses.contains(&(AudioBus::Engine, 0.0)));
    }
}

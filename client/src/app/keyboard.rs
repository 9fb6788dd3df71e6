//! The default flight controls until the binding system of the controls issue replaces them:
//! keyboard keys to stick, pedals, throttle, afterburner, gear, flaps, speed brake and wheel
//! brakes, as a [`Pilot`] the client asks once per 60 Hz input tick. Stick and pedals ramp
//! toward the held keys and recentre when released (a key is all-or-nothing, a stick is not),
//! so the aircraft answers the same at any frame rate.
//!
//! Owns the key map and the control state. Must not read the window or the clock: the window
//! feeds key presses, the input clock asks for commands.

use std::collections::BTreeSet;

use winit::keyboard::{Key, NamedKey};

use crate::client::{Pilot, PilotView};
use crate::input_clock::PilotInput;

/// A flight control a key drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    /// Stick back (nose up).
    PitchUp,
    /// Stick forward (nose down).
    PitchDown,
    RollLeft,
    RollRight,
    YawLeft,
    YawRight,
    ThrottleUp,
    ThrottleDown,
    /// Toggles.
    Afterburner,
    Gear,
    /// Steps the flaps 0 → ½ → 1 → 0.
    Flaps,
    SpeedBrake,
    /// Held.
    WheelBrake,
}

/// The documented default keys (README "Controls").
pub const KEYS_HELP: &[(&str, &str)] = &[
    (
        "W / S or Up / Down",
        "stick forward / back (nose down / up)",
    ),
    ("A / D or Left / Right", "roll left / right"),
    ("Q / E", "rudder left / right"),
    ("+ / - or Page Up / Page Down", "throttle up / down"),
    ("Tab", "afterburner on / off"),
    ("G", "gear up / down"),
    ("F", "flaps: up, half, full"),
    ("B", "speed brake in / out"),
    ("Space (hold)", "wheel brakes"),
    ("C", "next camera: cockpit, chase, fly-by, free"),
    (
        "Mouse / wheel",
        "look around / zoom (chase and free cameras)",
    ),
    ("[ / ]", "view the previous / next aircraft"),
    ("F3", "net graph"),
    ("F12", "screenshot"),
    ("Esc", "pause menu"),
];

/// The flight control a key drives (`None` for keys that are not flight controls).
pub fn action_for(key: &Key) -> Option<Action> {
    Some(match key.as_ref() {
        Key::Named(NamedKey::ArrowUp) => Action::PitchDown,
        Key::Named(NamedKey::ArrowDown) => Action::PitchUp,
        Key::Named(NamedKey::ArrowLeft) => Action::RollLeft,
        Key::Named(NamedKey::ArrowRight) => Action::RollRight,
        Key::Named(NamedKey::PageUp) => Action::ThrottleUp,
        Key::Named(NamedKey::PageDown) => Action::ThrottleDown,
        Key::Named(NamedKey::Tab) => Action::Afterburner,
        Key::Named(NamedKey::Space) => Action::WheelBrake,
        Key::Character(c) => match c.to_ascii_lowercase().as_str() {
            "w" => Action::PitchDown,
            "s" => Action::PitchUp,
            "a" => Action::RollLeft,
            "d" => Action::RollRight,
            "q" => Action::YawLeft,
            "e" => Action::YawRight,
            "+" | "=" => Action::ThrottleUp,
            "-" => Action::ThrottleDown,
            "g" => Action::Gear,
            "f" => Action::Flaps,
            "b" => Action::SpeedBrake,
            _ => return None,
        },
        _ => return None,
    })
}

/// Stick and pedal travel per input tick while a key is held (full deflection in ~0.25 s).
const STICK_RATE: f32 = 1.0 / 15.0;
/// Recentring per input tick (faster than deflecting: letting go means letting go).
const CENTRE_RATE: f32 = 1.0 / 8.0;
/// Throttle travel per input tick while held (idle to military in 1.5 s).
const THROTTLE_RATE: f32 = 1.0 / 90.0;

/// The keyboard as a pilot.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyboardPilot {
    held: BTreeSet<Action>,
    pub pitch: f32,
    pub roll: f32,
    pub yaw: f32,
    pub throttle: f32,
    pub afterburner: bool,
    pub gear_down: bool,
    pub flaps: f32,
    pub speedbrake: bool,
    /// Throttle, gear and flaps were taken from the aircraft as it spawned.
    synced: bool,
}

impl KeyboardPilot {
    /// Controls for an air start: gear up, 80 % throttle (the server trims the spawn).
    pub fn airborne() -> Self {
        Self {
            held: BTreeSet::new(),
            pitch: 0.0,
            roll: 0.0,
            yaw: 0.0,
            throttle: 0.8,
            afterburner: false,
            gear_down: false,
            flaps: 0.0,
            speedbrake: false,
            synced: false,
        }
    }

    /// Takes throttle, gear and flaps from the first predicted state (the spawn's trim), so the
    /// aircraft does not lurch from the keyboard's defaults.
    fn sync(&mut self, state: &fl_flight::AircraftState) {
        if self.synced {
            return;
        }
        self.synced = true;
        if state.spool.is_finite() {
            self.throttle = state.spool.clamp(0.0, 1.0) as f32;
        }
        self.gear_down = state.gear > 0.5;
        if state.flaps.is_finite() {
            self.flaps = state.flaps.clamp(0.0, 1.0) as f32;
        }
    }

    /// A key went down (`repeat`: the OS's auto-repeat, which must not re-toggle).
    pub fn press(&mut self, a: Action, repeat: bool) {
        if repeat {
            return;
        }
        match a {
            Action::Afterburner => self.afterburner = !self.afterburner,
            Action::Gear => self.gear_down = !self.gear_down,
            Action::Flaps => {
                self.flaps = if self.flaps < 0.25 {
                    0.5
                } else if self.flaps < 0.75 {
                    1.0
                } else {
                    0.0
                }
            }
            Action::SpeedBrake => self.speedbrake = !self.speedbrake,
            held => {
                self.held.insert(held);
            }
        }
    }

    pub fn release(&mut self, a: Action) {
        self.held.remove(&a);
    }

    /// Lets go of everything (the window lost focus, the game paused).
    pub fn release_all(&mut self) {
        self.held.clear();
    }

    fn axis(&self, plus: Action, minus: Action) -> f32 {
        f32::from(u8::from(self.held.contains(&plus)))
            - f32::from(u8::from(self.held.contains(&minus)))
    }

    /// One input tick of the ramps.
    fn tick(&mut self) {
        fn ramp(v: &mut f32, target: f32) {
            let rate = if target == 0.0 {
                CENTRE_RATE
            } else {
                STICK_RATE
            };
            let d = (target - *v).clamp(-rate, rate);
            *v = (*v + d).clamp(-1.0, 1.0);
        }
        let (p, r, y) = (
            self.axis(Action::PitchUp, Action::PitchDown),
            self.axis(Action::RollRight, Action::RollLeft),
            self.axis(Action::YawRight, Action::YawLeft),
        );
        ramp(&mut self.pitch, p);
        ramp(&mut self.roll, r);
        ramp(&mut self.yaw, y);
        let t = self.axis(Action::ThrottleUp, Action::ThrottleDown);
        self.throttle = (self.throttle + t * THROTTLE_RATE).clamp(0.0, 1.0);
    }
}

impl Pilot for KeyboardPilot {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        if let Some(state) = view.state {
            self.sync(state);
        }
        self.tick();
        PilotInput {
            throttle: self.throttle,
            pitch: self.pitch,
            roll: self.roll,
            yaw: self.yaw,
            afterburner: self.afterburner,
            wheel_brake: self.held.contains(&Action::WheelBrake),
            flaps: self.flaps,
            speedbrake: if self.speedbrake { 1.0 } else { 0.0 },
            gear_down: self.gear_down,
            ..PilotInput::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> PilotView<'static> {
        PilotView {
            seq: 0,
            ticks: 0,
            state: None,
            planet_radius_m: 6_371_000.0,
        }
    }

    #[test]
    fn held_keys_ramp_the_stick_and_release_recentres_it() {
        let mut p = KeyboardPilot::airborne();
        p.press(Action::PitchUp, false);
        let first = p.command(&view());
        assert!(first.pitch > 0.0 && first.pitch < 0.1, "{}", first.pitch);
        for _ in 0..30 {
            p.command(&view());
        }
        assert_eq!(p.command(&view()).pitch, 1.0);
        p.release(Action::PitchUp);
        for _ in 0..8 {
            p.command(&view());
        }
        assert_eq!(p.command(&view()).pitch, 0.0);
    }

    #[test]
    fn toggles_ignore_auto_repeat_and_flaps_step() {
        let mut p = KeyboardPilot::airborne();
        p.press(Action::Gear, false);
        p.press(Action::Gear, true);
        assert!(p.command(&view()).gear_down);
        let steps: Vec<f32> = (0..4)
            .map(|_| {
                p.press(Action::Flaps, false);
                p.flaps
            })
            .collect();
        assert_eq!(steps, vec![0.5, 1.0, 0.0, 0.5]);
        p.press(Action::WheelBrake, false);
        assert!(p.command(&view()).wheel_brake);
        p.release_all();
        assert!(!p.command(&view()).wheel_brake);
    }

    #[test]
    fn throttle_moves_with_held_keys_and_stays_in_range() {
        let mut p = KeyboardPilot::airborne();
        p.press(Action::ThrottleUp, false);
        for _ in 0..200 {
            p.command(&view());
        }
        assert_eq!(p.throttle, 1.0);
        p.release(Action::ThrottleUp);
        p.press(Action::ThrottleDown, false);
        for _ in 0..45 {
            p.command(&view());
        }
        assert!((p.throttle - 0.5).abs() < 1e-3, "{}", p.throttle);
    }

    #[test]
    fn keys_map_to_the_documented_actions() {
        let ch = |c: &str| Key::Character(c.into());
        assert_eq!(action_for(&ch("W")), Some(Action::PitchDown));
        assert_eq!(
            action_for(&Key::Named(NamedKey::ArrowDown)),
            Some(Action::PitchUp)
        );
        assert_eq!(action_for(&ch("g")), Some(Action::Gear));
        assert_eq!(action_for(&ch("=")), Some(Action::ThrottleUp));
        assert_eq!(action_for(&ch("x")), None);
        assert_eq!(action_for(&Key::Named(NamedKey::Escape)), None);
    }
}

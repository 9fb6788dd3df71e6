//! The default keyboard map: which winit key drives which flight control, and the list of
//! default keys the README and the game show ([`KEYS_HELP`]).
//!
//! Owns the key → [`Action`] table. Must not hold any state (the held keys are
//! [`FlightInput`](crate::FlightInput)'s) or read the window.

use winit::keyboard::{Key, NamedKey};

/// A flight control a key (or a gamepad button, see [`pad_action`](crate::pad_action)) drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

/// The documented default keys (README "Playing").
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            action_for(&Key::Named(NamedKey::Space)),
            Some(Action::WheelBrake)
        );
        assert_eq!(action_for(&ch("x")), None);
        assert_eq!(action_for(&Key::Named(NamedKey::Escape)), None);
    }

    #[test]
    fn every_flight_key_of_the_help_maps_to_an_action() {
        // The first nine rows are flight controls; each names at least one key that maps.
        let first_key = |row: &str| {
            let k = row.split([' ', '/']).next().unwrap_or_default().to_owned();
            match k.as_str() {
                "Tab" => Key::Named(NamedKey::Tab),
                "Space" => Key::Named(NamedKey::Space),
                c => Key::Character(c.into()),
            }
        };
        for (keys, what) in &KEYS_HELP[..9] {
            assert!(action_for(&first_key(keys)).is_some(), "{keys}: {what}");
        }
    }
}

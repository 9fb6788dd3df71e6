//! The gilrs backend: gamepads plugged in now or later, their buttons and axes translated into
//! [`PadEvent`]s. gilrs's default filters stay on (its D-pad axes become D-pad buttons, small
//! jitter is dropped).
//!
//! Owns the `gilrs::Gilrs` context and the translation table. Must not decide what a button does
//! (`flight`, `nav`) or stop the game: failing to start is an error the caller logs, and then the
//! keyboard flies alone.

use gilrs::{Axis, Button, EventType, Gilrs};

use crate::pad::{MAX_NAME_CHARS, PadAxis, PadButton, PadEvent, PadId};

/// Events taken from gilrs in one [`Gamepads::poll`] at most (the rest wait for the next).
pub const MAX_EVENTS_PER_POLL: usize = 512;

/// Why the gamepads are unavailable.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("gamepad support could not start: {0}")]
    Gamepads(String),
}

/// The connected gamepads, through gilrs.
pub struct Gamepads {
    gilrs: Gilrs,
    /// Pads found at start, reported as connected by the first poll.
    found: Vec<PadEvent>,
}

impl std::fmt::Debug for Gamepads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gamepads")
            .field("connected", &self.gilrs.gamepads().count())
            .finish_non_exhaustive()
    }
}

impl Gamepads {
    /// Starts gilrs. No pad plugged in, or no udev, is not an error (pads plugged in later are
    /// reported when they come); a platform gilrs cannot serve is.
    pub fn new() -> Result<Self, InputError> {
        let gilrs = Gilrs::new().map_err(|e| InputError::Gamepads(e.to_string()))?;
        let found = gilrs
            .gamepads()
            .map(|(id, g)| PadEvent::Connected {
                pad: PadId(usize::from(id)),
                name: bounded(g.name()),
            })
            .collect();
        Ok(Self { gilrs, found })
    }

    /// Appends what happened since the last poll to `out` (at most [`MAX_EVENTS_PER_POLL`]).
    pub fn poll(&mut self, out: &mut Vec<PadEvent>) {
        out.append(&mut self.found);
        for _ in 0..MAX_EVENTS_PER_POLL {
            let Some(ev) = self.gilrs.next_event() else {
                break;
            };
            let pad = PadId(usize::from(ev.id));
            let name = || bounded(self.gilrs.gamepad(ev.id).name());
            let translated = match ev.event {
                EventType::Connected => Some(PadEvent::Connected { pad, name: name() }),
                EventType::Disconnected => Some(PadEvent::Disconnected { pad, name: name() }),
                other => translate(pad, other),
            };
            out.extend(translated);
        }
    }

    /// The names of the pads connected now.
    pub fn names(&self) -> Vec<String> {
        self.gilrs
            .gamepads()
            .map(|(_, g)| bounded(g.name()))
            .collect()
    }
}

/// A device-supplied name cut to a sane length.
fn bounded(name: &str) -> String {
    name.chars().take(MAX_NAME_CHARS).collect()
}

/// A gilrs button or axis event as a [`PadEvent`] (`None` for what the game does not read:
/// unknown buttons, the mode button, repeats, force feedback).
pub fn translate(pad: PadId, ev: EventType) -> Option<PadEvent> {
    match ev {
        EventType::ButtonPressed(b, _) | EventType::ButtonReleased(b, _) => {
            let button = button_of(b)?;
            Some(PadEvent::Button {
                pad,
                button,
                pressed: matches!(ev, EventType::ButtonPressed(..)),
            })
        }
        // Analogue triggers report their travel as a button value.
        EventType::ButtonChanged(b, value, _) => Some(PadEvent::Axis {
            pad,
            axis: trigger_of(b)?,
            value,
        }),
        EventType::AxisChanged(a, value, _) => Some(PadEvent::Axis {
            pad,
            axis: axis_of(a)?,
            value,
        }),
        _ => None,
    }
}

/// gilrs's button as ours. The analogue triggers are axes ([`trigger_of`]); their digital
/// press is left out so a trigger never also acts as a button.
pub fn button_of(b: Button) -> Option<PadButton> {
    Some(match b {
        Button::South => PadButton::South,
        Button::East => PadButton::East,
        Button::West => PadButton::West,
        Button::North => PadButton::North,
        Button::LeftTrigger => PadButton::LeftShoulder,
        Button::RightTrigger => PadButton::RightShoulder,
        Button::Select => PadButton::Select,
        Button::Start => PadButton::Start,
        Button::LeftThumb => PadButton::LeftStick,
        Button::RightThumb => PadButton::RightStick,
        Button::DPadUp => PadButton::DPadUp,
        Button::DPadDown => PadButton::DPadDown,
        Button::DPadLeft => PadButton::DPadLeft,
        Button::DPadRight => PadButton::DPadRight,
        _ => return None,
    })
}

/// gilrs's analogue trigger buttons (LT2 / RT2) as trigger axes.
pub fn trigger_of(b: Button) -> Option<PadAxis> {
    match b {
        Button::LeftTrigger2 => Some(PadAxis::LeftTrigger),
        Button::RightTrigger2 => Some(PadAxis::RightTrigger),
        _ => None,
    }
}

/// gilrs's axis as ours. Pads whose triggers are the Z axes (−1 released … 1 pulled on some
/// drivers) read only their pulled half; the D-pad axes arrive as D-pad buttons through gilrs's
/// default filter.
pub fn axis_of(a: Axis) -> Option<PadAxis> {
    Some(match a {
        Axis::LeftStickX => PadAxis::LeftX,
        Axis::LeftStickY => PadAxis::LeftY,
        Axis::RightStickX => PadAxis::RightX,
        Axis::RightStickY => PadAxis::RightY,
        Axis::LeftZ => PadAxis::LeftTrigger,
        Axis::RightZ => PadAxis::RightTrigger,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gilrs_buttons_and_axes_translate_to_ours() {
        assert_eq!(button_of(Button::South), Some(PadButton::South));
        assert_eq!(
            button_of(Button::RightTrigger),
            Some(PadButton::RightShoulder)
        );
        assert_eq!(button_of(Button::DPadLeft), Some(PadButton::DPadLeft));
        assert_eq!(
            button_of(Button::RightTrigger2),
            None,
            "an axis, not a button"
        );
        assert_eq!(button_of(Button::Mode), None);
        assert_eq!(button_of(Button::Unknown), None);
        assert_eq!(trigger_of(Button::LeftTrigger2), Some(PadAxis::LeftTrigger));
        assert_eq!(trigger_of(Button::South), None);
        assert_eq!(axis_of(Axis::LeftStickY), Some(PadAxis::LeftY));
        assert_eq!(axis_of(Axis::RightZ), Some(PadAxis::RightTrigger));
        assert_eq!(axis_of(Axis::DPadX), None);
        assert_eq!(axis_of(Axis::Unknown), None);
    }

    #[test]
    fn non_input_events_translate_to_nothing() {
        assert_eq!(translate(PadId(0), EventType::Dropped), None);
        assert_eq!(
            translate(PadId(0), EventType::ForceFeedbackEffectCompleted),
            None
        );
    }

    #[test]
    fn starting_without_any_pad_is_not_an_error_and_pads_found_are_reported_once() {
        // On a machine with no pads (CI) gilrs starts and reports nothing; with pads plugged in,
        // the first poll reports each as connected, once.
        let mut pads = match Gamepads::new() {
            Ok(p) => p,
            Err(e) => panic!("gilrs must start without devices: {e}"),
        };
        let names = pads.names();
        let connected = |out: &[PadEvent]| -> Vec<String> {
            out.iter()
                .filter_map(|e| match e {
                    PadEvent::Connected { name, .. } => Some(name.clone()),
                    _ => None,
                })
                .collect()
        };
        let mut out = Vec::new();
        pads.poll(&mut out);
        assert_eq!(connected(&out), names);
        out.clear();
        pads.poll(&mut out);
        assert_eq!(connected(&out), Vec::<String>::new());
    }
}

//! The gilrs backend: gamepads, joysticks and other controllers gilrs sees, plugged in now or
//! later, their buttons and axes translated into [`DeviceEvent`]s. gilrs's default filters stay
//! on (its D-pad axes become D-pad buttons, small jitter is dropped).
//!
//! A device whose layout gilrs knows (an SDL mapping, or a driver that reports the standard
//! gamepad buttons and sticks) is a [`DeviceKind::Gamepad`] and its controls carry their
//! standard names, so the default gamepad map drives it; anything else (a joystick, a throttle
//! with buttons) is a [`DeviceKind::Joystick`] with raw codes only, bound through the Settings
//! screen. gilrs-core's Linux backend skips controllers with no button or fewer than two axes;
//! the evdev fallback ([`crate::evdev`]) picks exactly those up.
//!
//! Owns the `gilrs::Gilrs` context and the translation table. Must not decide what a control
//! does (the bindings') or stop the game: failing to start is an error the caller logs, and then
//! the keyboard flies alone.

use gilrs::{Axis, Button, EventType, Gamepad, GamepadId, Gilrs, MappingSource};

use crate::device::{DeviceEvent, DeviceInfo, DeviceKind, DeviceSlot};
use crate::pad::{MAX_NAME_CHARS, PadAxis, PadButton};

/// Events taken from gilrs in one [`Gamepads::poll`] at most (the rest wait for the next).
pub const MAX_EVENTS_PER_POLL: usize = 512;

/// Why a device backend is unavailable.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("gamepad support could not start: {0}")]
    Gamepads(String),
}

/// The controllers gilrs sees.
pub struct Gamepads {
    gilrs: Gilrs,
    /// Devices found at start, reported as connected by the first poll.
    found: Vec<DeviceEvent>,
}

impl std::fmt::Debug for Gamepads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gamepads")
            .field("connected", &self.gilrs.gamepads().count())
            .finish_non_exhaustive()
    }
}

/// The slot of a gilrs device (gilrs ids are small; the evdev fallback's slots start at
/// [`EVDEV_SLOT_BASE`](crate::EVDEV_SLOT_BASE)).
fn slot_of(id: GamepadId) -> DeviceSlot {
    DeviceSlot(u32::try_from(usize::from(id)).unwrap_or(u32::MAX))
}

impl Gamepads {
    /// Starts gilrs. No device plugged in, or no udev, is not an error (devices plugged in later
    /// are reported when they come); a platform gilrs cannot serve is.
    pub fn new() -> Result<Self, InputError> {
        let gilrs = Gilrs::new().map_err(|e| InputError::Gamepads(e.to_string()))?;
        let mut found = Vec::new();
        for (id, g) in gilrs.gamepads() {
            connected(id, &g, &mut found);
        }
        Ok(Self { gilrs, found })
    }

    /// Appends what happened since the last poll to `out` (at most [`MAX_EVENTS_PER_POLL`]).
    pub fn poll(&mut self, out: &mut Vec<DeviceEvent>) {
        out.append(&mut self.found);
        for _ in 0..MAX_EVENTS_PER_POLL {
            let Some(ev) = self.gilrs.next_event() else {
                break;
            };
            let slot = slot_of(ev.id);
            match ev.event {
                EventType::Connected => {
                    let g = self.gilrs.gamepad(ev.id);
                    connected(ev.id, &g, out);
                }
                EventType::Disconnected => out.push(DeviceEvent::Disconnected { slot }),
                other => {
                    let gamepad = kind_of(&self.gilrs.gamepad(ev.id)) == DeviceKind::Gamepad;
                    out.extend(translate(slot, other, gamepad));
                }
            }
        }
    }

    /// The names of the devices connected now.
    pub fn names(&self) -> Vec<String> {
        self.gilrs
            .gamepads()
            .map(|(_, g)| bounded(g.name()))
            .collect()
    }
}

/// A device's connect event and the values of the axes gilrs already knows.
fn connected(id: GamepadId, g: &Gamepad<'_>, out: &mut Vec<DeviceEvent>) {
    let slot = slot_of(id);
    let kind = kind_of(g);
    out.push(DeviceEvent::Connected {
        slot,
        info: DeviceInfo {
            name: bounded(g.name()),
            uuid: g.uuid(),
            kind,
        },
    });
    for (code, data) in g.state().axes() {
        let named = match g.axis_or_btn_name(code) {
            Some(gilrs::ev::AxisOrBtn::Axis(a)) if kind == DeviceKind::Gamepad => axis_of(a),
            _ => None,
        };
        out.push(DeviceEvent::Axis {
            slot,
            code: raw_code(code),
            named,
            value: data.value(),
        });
    }
}

/// A gamepad when gilrs knows its layout: an SDL mapping, or the standard south button and left
/// stick (a joystick's trigger is not a gamepad's A).
fn kind_of(g: &Gamepad<'_>) -> DeviceKind {
    let standard =
        g.button_code(Button::South).is_some() && g.axis_code(Axis::LeftStickX).is_some();
    if g.mapping_source() == MappingSource::SdlMappings || standard {
        DeviceKind::Gamepad
    } else {
        DeviceKind::Joystick
    }
}

/// gilrs's platform code as ours: on Linux the evdev code (the same the evdev fallback
/// reports), elsewhere gilrs's packed code.
fn raw_code(code: gilrs::ev::Code) -> u32 {
    let c = code.into_u32();
    if cfg!(target_os = "linux") {
        c & 0xffff
    } else {
        c
    }
}

/// A device-supplied name cut to a sane length.
fn bounded(name: &str) -> String {
    name.chars().take(MAX_NAME_CHARS).collect()
}

/// A gilrs button or axis event as a [`DeviceEvent`] (`None` for what the game does not read:
/// repeats, force feedback, a gamepad's digital trigger press). `gamepad`: the device has a
/// standard layout, so its controls carry their names.
pub fn translate(slot: DeviceSlot, ev: EventType, gamepad: bool) -> Option<DeviceEvent> {
    match ev {
        EventType::ButtonPressed(b, code) | EventType::ButtonReleased(b, code) => {
            // A gamepad's analogue triggers are axes (below); their digital press is left out
            // so a trigger never also acts as a button.
            if gamepad && trigger_of(b).is_some() {
                return None;
            }
            Some(DeviceEvent::Button {
                slot,
                code: raw_code(code),
                named: button_of(b).filter(|_| gamepad),
                pressed: matches!(ev, EventType::ButtonPressed(..)),
            })
        }
        // Analogue triggers report their travel as a button value.
        EventType::ButtonChanged(b, value, code) => {
            let axis = trigger_of(b).filter(|_| gamepad)?;
            Some(DeviceEvent::Axis {
                slot,
                code: raw_code(code),
                named: Some(axis),
                value,
            })
        }
        EventType::AxisChanged(a, value, code) => Some(DeviceEvent::Axis {
            slot,
            code: raw_code(code),
            named: axis_of(a).filter(|_| gamepad),
            value,
        }),
        _ => None,
    }
}

/// gilrs's button as ours. The analogue triggers are axes ([`trigger_of`]).
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
        let s = DeviceSlot(0);
        assert_eq!(translate(s, EventType::Dropped, true), None);
        assert_eq!(
            translate(s, EventType::ForceFeedbackEffectCompleted, true),
            None
        );
    }

    #[test]
    fn starting_without_any_device_is_not_an_error_and_devices_found_are_reported_once() {
        // On a machine with no controllers (CI) gilrs starts and reports nothing; with some
        // plugged in, the first poll reports each as connected, once.
        let mut pads = match Gamepads::new() {
            Ok(p) => p,
            Err(e) => panic!("gilrs must start without devices: {e}"),
        };
        let names = pads.names();
        let connected = |out: &[DeviceEvent]| -> Vec<String> {
            out.iter()
                .filter_map(|e| match e {
                    DeviceEvent::Connected { info, .. } => Some(info.name.clone()),
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

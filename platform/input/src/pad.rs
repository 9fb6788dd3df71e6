//! Gamepads' standard controls as plain data: the buttons and axes of an Xbox-style layout
//! ([`PadButton`], [`PadAxis`]) with their names, the named events menu navigation reads
//! ([`PadEvent`], made from [`DeviceEvent`](crate::DeviceEvent)s), the deadzone, and
//! [`PadSet`], the held state of every pad built from those events.
//!
//! Owns the pad state machine: clamping hostile values, at most [`MAX_PADS`] pads, a button
//! press counted once until its release, a disconnect letting go of everything that pad held.
//! Must not: know what a button does in flight or in a menu (`flight`, `nav`), or touch gilrs.

use std::collections::BTreeMap;

/// Stick and trigger travel ignored around rest (a worn stick does not creep the aircraft).
pub const DEADZONE: f32 = 0.1;
/// Pads tracked at most (a flood of fake devices cannot grow the state).
pub const MAX_PADS: usize = 16;
/// Characters of a pad's name kept (for notices).
pub const MAX_NAME_CHARS: usize = 48;

/// A pad, as the backend numbers it (stable while it stays connected).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PadId(pub usize);

/// The buttons the game reads (positions on an Xbox-style pad; gilrs maps others onto them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PadButton {
    /// A on Xbox, cross on PlayStation.
    South,
    /// B, circle.
    East,
    /// X, square.
    West,
    /// Y, triangle.
    North,
    /// LB / L1.
    LeftShoulder,
    /// RB / R1.
    RightShoulder,
    Select,
    Start,
    /// Pressing the left stick in.
    LeftStick,
    RightStick,
    DPadUp,
    DPadDown,
    DPadLeft,
    DPadRight,
}

impl PadButton {
    const ALL: [PadButton; 14] = [
        PadButton::South,
        PadButton::East,
        PadButton::West,
        PadButton::North,
        PadButton::LeftShoulder,
        PadButton::RightShoulder,
        PadButton::Select,
        PadButton::Start,
        PadButton::LeftStick,
        PadButton::RightStick,
        PadButton::DPadUp,
        PadButton::DPadDown,
        PadButton::DPadLeft,
        PadButton::DPadRight,
    ];

    fn bit(self) -> u32 {
        1 << (self as u32)
    }

    /// Every button, in declaration order.
    pub fn all() -> [PadButton; 14] {
        Self::ALL
    }

    /// The name in `bindings.toml` (the position on an Xbox-style pad).
    pub fn name(self) -> &'static str {
        match self {
            PadButton::South => "South",
            PadButton::East => "East",
            PadButton::West => "West",
            PadButton::North => "North",
            PadButton::LeftShoulder => "LeftShoulder",
            PadButton::RightShoulder => "RightShoulder",
            PadButton::Select => "Select",
            PadButton::Start => "Start",
            PadButton::LeftStick => "LeftStick",
            PadButton::RightStick => "RightStick",
            PadButton::DPadUp => "DPadUp",
            PadButton::DPadDown => "DPadDown",
            PadButton::DPadLeft => "DPadLeft",
            PadButton::DPadRight => "DPadRight",
        }
    }

    pub fn parse(s: &str) -> Option<PadButton> {
        Self::ALL.into_iter().find(|b| b.name() == s)
    }

    /// How the help shows it (Xbox names; PlayStation: A = cross, B = circle, X = square,
    /// Y = triangle).
    pub fn label(self) -> &'static str {
        match self {
            PadButton::South => "A",
            PadButton::East => "B",
            PadButton::West => "X",
            PadButton::North => "Y",
            PadButton::LeftShoulder => "LB",
            PadButton::RightShoulder => "RB",
            PadButton::Select => "Back",
            PadButton::Start => "Start",
            PadButton::LeftStick => "left stick click",
            PadButton::RightStick => "right stick click",
            PadButton::DPadUp => "D-pad up",
            PadButton::DPadDown => "D-pad down",
            PadButton::DPadLeft => "D-pad left",
            PadButton::DPadRight => "D-pad right",
        }
    }
}

/// The axes the game reads. Sticks are −1 … 1 with up and right positive; triggers 0 … 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PadAxis {
    LeftX,
    /// Up (stick pushed away from the player) is positive.
    LeftY,
    RightX,
    RightY,
    /// LT / L2, 0 released … 1 fully pulled.
    LeftTrigger,
    RightTrigger,
}

impl PadAxis {
    /// Every axis, in index order.
    pub const ALL: [PadAxis; 6] = [
        PadAxis::LeftX,
        PadAxis::LeftY,
        PadAxis::RightX,
        PadAxis::RightY,
        PadAxis::LeftTrigger,
        PadAxis::RightTrigger,
    ];

    fn index(self) -> usize {
        self as usize
    }

    /// Rests at 0 and reports 0 … 1.
    pub fn is_trigger(self) -> bool {
        matches!(self, PadAxis::LeftTrigger | PadAxis::RightTrigger)
    }

    /// The name in `bindings.toml`.
    pub fn name(self) -> &'static str {
        match self {
            PadAxis::LeftX => "LeftX",
            PadAxis::LeftY => "LeftY",
            PadAxis::RightX => "RightX",
            PadAxis::RightY => "RightY",
            PadAxis::LeftTrigger => "LeftTrigger",
            PadAxis::RightTrigger => "RightTrigger",
        }
    }

    pub fn parse(s: &str) -> Option<PadAxis> {
        Self::ALL.into_iter().find(|a| a.name() == s)
    }

    /// How the help shows it.
    pub fn label(self) -> &'static str {
        match self {
            PadAxis::LeftX => "left stick left / right",
            PadAxis::LeftY => "left stick forward / back",
            PadAxis::RightX => "right stick left / right",
            PadAxis::RightY => "right stick forward / back",
            PadAxis::LeftTrigger => "LT",
            PadAxis::RightTrigger => "RT",
        }
    }

    /// `v` made a valid value of this axis (not finite: at rest).
    fn limit(self, v: f32) -> f32 {
        if !v.is_finite() {
            0.0
        } else if self.is_trigger() {
            v.clamp(0.0, 1.0)
        } else {
            v.clamp(-1.0, 1.0)
        }
    }
}

/// What a gamepad backend reports.
#[derive(Debug, Clone, PartialEq)]
pub enum PadEvent {
    Connected {
        pad: PadId,
        name: String,
    },
    /// The pad is gone: everything it held is let go.
    Disconnected {
        pad: PadId,
        name: String,
    },
    Button {
        pad: PadId,
        button: PadButton,
        pressed: bool,
    },
    Axis {
        pad: PadId,
        axis: PadAxis,
        value: f32,
    },
}

impl PadEvent {
    pub fn pad(&self) -> PadId {
        match self {
            PadEvent::Connected { pad, .. }
            | PadEvent::Disconnected { pad, .. }
            | PadEvent::Button { pad, .. }
            | PadEvent::Axis { pad, .. } => *pad,
        }
    }
}

/// `v` with the travel inside `dz` around rest removed and the rest rescaled, so the output
/// still reaches ±1 and starts from 0 at the deadzone's edge (no jump). Not finite: 0.
pub fn deadzone(v: f32, dz: f32) -> f32 {
    if !v.is_finite() {
        return 0.0;
    }
    let dz = if dz.is_finite() {
        dz.clamp(0.0, 0.95)
    } else {
        0.0
    };
    let a = v.abs().min(1.0);
    if a <= dz {
        0.0
    } else {
        v.signum() * (a - dz) / (1.0 - dz)
    }
}

/// One pad's held state.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct PadState {
    /// Raw values (clamped), by [`PadAxis`] index.
    axes: [f32; 6],
    /// Held buttons, one bit per [`PadButton`].
    held: u32,
}

/// A button that went down or up (each press reported once, however the backend repeats it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub pad: PadId,
    pub button: PadButton,
    pub pressed: bool,
}

/// The held state of every connected pad, built from [`PadEvent`]s.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PadSet {
    pads: BTreeMap<PadId, PadState>,
}

impl PadSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Pads known (connected, or heard from without a connect event).
    pub fn len(&self) -> usize {
        self.pads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pads.is_empty()
    }

    /// The state of `pad`, made when there is room for it.
    fn state(&mut self, pad: PadId) -> Option<&mut PadState> {
        if !self.pads.contains_key(&pad) && self.pads.len() >= MAX_PADS {
            return None;
        }
        Some(self.pads.entry(pad).or_default())
    }

    /// Applies one event. Returns the button edge it made: a press of a button already held, or
    /// a release of one not held, makes none.
    pub fn apply(&mut self, ev: &PadEvent) -> Option<Edge> {
        match ev {
            PadEvent::Connected { pad, .. } => {
                // A reconnect starts from rest.
                if let Some(s) = self.state(*pad) {
                    *s = PadState::default();
                }
                None
            }
            PadEvent::Disconnected { pad, .. } => {
                self.pads.remove(pad);
                None
            }
            PadEvent::Axis { pad, axis, value } => {
                if let Some(s) = self.state(*pad) {
                    s.axes[axis.index()] = axis.limit(*value);
                }
                None
            }
            &PadEvent::Button {
                pad,
                button,
                pressed,
            } => {
                let s = self.state(pad)?;
                let was = s.held & button.bit() != 0;
                if was == pressed {
                    return None;
                }
                if pressed {
                    s.held |= button.bit();
                } else {
                    s.held &= !button.bit();
                }
                Some(Edge {
                    pad,
                    button,
                    pressed,
                })
            }
        }
    }

    /// `axis` of every pad past the deadzone, summed and clamped to the axis's range (pads at
    /// rest add nothing).
    pub fn axis(&self, axis: PadAxis) -> f32 {
        let sum: f32 = self
            .pads
            .values()
            .map(|s| deadzone(s.axes[axis.index()], DEADZONE))
            .sum();
        axis.limit(sum)
    }

    /// `axis` of one pad as reported (clamped, no deadzone); 0 for an unknown pad.
    pub fn raw(&self, pad: PadId, axis: PadAxis) -> f32 {
        self.pads.get(&pad).map_or(0.0, |s| s.axes[axis.index()])
    }

    /// Some pad holds `button`.
    pub fn any_held(&self, button: PadButton) -> bool {
        self.pads.values().any(|s| s.held & button.bit() != 0)
    }

    /// `pad` holds `button`.
    pub fn held(&self, pad: PadId, button: PadButton) -> bool {
        self.pads
            .get(&pad)
            .is_some_and(|s| s.held & button.bit() != 0)
    }

    /// The pads known, in id order.
    pub fn ids(&self) -> impl Iterator<Item = PadId> + '_ {
        self.pads.keys().copied()
    }

    /// The buttons `pad` holds, in [`PadButton`] order.
    pub fn held_buttons(&self, pad: PadId) -> impl Iterator<Item = PadButton> + '_ {
        PadButton::ALL
            .into_iter()
            .filter(move |b| self.held(pad, *b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: PadId = PadId(0);

    fn axis(axis: PadAxis, value: f32) -> PadEvent {
        PadEvent::Axis {
            pad: P,
            axis,
            value,
        }
    }

    fn button(button: PadButton, pressed: bool) -> PadEvent {
        PadEvent::Button {
            pad: P,
            button,
            pressed,
        }
    }

    #[test]
    fn deadzone_removes_rest_and_rescales_without_a_jump() {
        assert_eq!(deadzone(0.05, 0.1), 0.0);
        assert_eq!(deadzone(-0.1, 0.1), 0.0);
        assert!(deadzone(0.11, 0.1) > 0.0 && deadzone(0.11, 0.1) < 0.02);
        assert!((deadzone(0.55, 0.1) - 0.5).abs() < 1e-6);
        assert_eq!(deadzone(1.0, 0.1), 1.0);
        assert_eq!(deadzone(-1.0, 0.1), -1.0);
        assert_eq!(deadzone(7.0, 0.1), 1.0);
        assert_eq!(deadzone(f32::NAN, 0.1), 0.0);
        assert_eq!(deadzone(f32::INFINITY, 0.1), 0.0);
        assert_eq!(deadzone(0.5, f32::NAN), 0.5);
    }

    #[test]
    fn a_press_is_one_edge_until_released() {
        let mut s = PadSet::new();
        let down = s.apply(&button(PadButton::North, true));
        assert_eq!(
            down,
            Some(Edge {
                pad: P,
                button: PadButton::North,
                pressed: true
            })
        );
        assert_eq!(s.apply(&button(PadButton::North, true)), None);
        assert!(s.held(P, PadButton::North));
        assert!(s.apply(&button(PadButton::North, false)).is_some());
        assert_eq!(s.apply(&button(PadButton::North, false)), None);
        assert!(!s.any_held(PadButton::North));
    }

    #[test]
    fn axes_are_clamped_dead_zoned_and_summed_over_pads() {
        let mut s = PadSet::new();
        s.apply(&axis(PadAxis::LeftX, 0.08));
        assert_eq!(s.axis(PadAxis::LeftX), 0.0, "inside the deadzone");
        s.apply(&axis(PadAxis::LeftX, 0.8));
        s.apply(&PadEvent::Axis {
            pad: PadId(1),
            axis: PadAxis::LeftX,
            value: 0.8,
        });
        assert_eq!(s.axis(PadAxis::LeftX), 1.0, "two pads sum, clamped");
        s.apply(&axis(PadAxis::LeftTrigger, -0.7));
        assert_eq!(s.raw(P, PadAxis::LeftTrigger), 0.0, "triggers are 0..1");
        s.apply(&axis(PadAxis::RightY, f32::NAN));
        assert_eq!(s.raw(P, PadAxis::RightY), 0.0);
    }

    #[test]
    fn disconnect_lets_go_and_reconnect_starts_at_rest() {
        let mut s = PadSet::new();
        s.apply(&axis(PadAxis::LeftY, 1.0));
        s.apply(&button(PadButton::South, true));
        s.apply(&PadEvent::Disconnected {
            pad: P,
            name: "Pad".into(),
        });
        assert_eq!(s.axis(PadAxis::LeftY), 0.0);
        assert!(!s.any_held(PadButton::South));
        assert!(s.is_empty());
        s.apply(&axis(PadAxis::LeftY, 1.0));
        s.apply(&PadEvent::Connected {
            pad: P,
            name: "Pad".into(),
        });
        assert_eq!(s.axis(PadAxis::LeftY), 0.0);
    }

    #[test]
    fn the_number_of_pads_is_bounded() {
        let mut s = PadSet::new();
        for i in 0..1_000 {
            s.apply(&PadEvent::Button {
                pad: PadId(i),
                button: PadButton::South,
                pressed: true,
            });
        }
        assert_eq!(s.len(), MAX_PADS);
        assert_eq!(
            s.held_buttons(PadId(3)).collect::<Vec<_>>(),
            [PadButton::South]
        );
    }
}

//! The flight controls from the keyboard and the gamepads together: [`FlightInput`] takes key
//! presses and [`PadEvent`]s as they come and gives one [`Controls`] value per 60 Hz input tick.
//!
//! Keys are all-or-nothing, so the stick and pedals ramp toward the held keys and recentre when
//! they are let go; a pad's sticks are already proportional and are added as they are (past the
//! deadzone). The sum is clamped, so a pad at rest leaves the keyboard in charge and either can
//! fly. Toggles (afterburner, gear, flaps, speed brake) fire once per press from either device;
//! the throttle moves while keys or triggers are held. Ticks, not frames, so the aircraft answers
//! the same at any frame rate.
//!
//! Owns the control state and the pad's flight map ([`pad_action`]). Must not read a device, the
//! window or the clock: callers feed events and tick it.

use std::collections::BTreeSet;

use crate::keyboard::Action;
use crate::pad::{PadAxis, PadButton, PadEvent, PadSet};

/// Stick and pedal travel per input tick while a key is held (full deflection in ~0.25 s).
pub const STICK_RATE: f32 = 1.0 / 15.0;
/// Recentring per input tick (faster than deflecting: letting go means letting go).
pub const CENTRE_RATE: f32 = 1.0 / 8.0;
/// Throttle travel per input tick while a key or a fully pulled trigger is held (idle to
/// military in 1.5 s).
pub const THROTTLE_RATE: f32 = 1.0 / 90.0;

/// The controls of one input tick, device-neutral.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Controls {
    /// Stick aft (+, nose up) / forward (−), −1 … 1.
    pub pitch: f32,
    /// Stick right (+), −1 … 1.
    pub roll: f32,
    /// Right pedal (+), −1 … 1.
    pub yaw: f32,
    /// 0 idle … 1 military.
    pub throttle: f32,
    pub afterburner: bool,
    pub gear_down: bool,
    /// Commanded flaps: 0, ½ or 1.
    pub flaps: f32,
    pub speedbrake: bool,
    pub wheel_brake: bool,
}

/// What a pad button does in flight (the default map, [`PAD_HELP`](crate::PAD_HELP)); `None`
/// for buttons flight leaves alone (Start pauses, the D-pad is the menus').
pub fn pad_action(b: PadButton) -> Option<Action> {
    Some(match b {
        PadButton::South => Action::WheelBrake,
        PadButton::East => Action::SpeedBrake,
        PadButton::West => Action::Flaps,
        PadButton::North => Action::Gear,
        PadButton::RightShoulder => Action::Afterburner,
        _ => return None,
    })
}

/// The keyboard and gamepads as one set of flight controls.
#[derive(Debug, Clone, PartialEq)]
pub struct FlightInput {
    keys: BTreeSet<Action>,
    pads: PadSet,
    /// The keyboard's ramped stick and pedals (the pads' are added at each tick).
    key_pitch: f32,
    key_roll: f32,
    key_yaw: f32,
    throttle: f32,
    afterburner: bool,
    gear_down: bool,
    flaps: f32,
    speedbrake: bool,
}

impl FlightInput {
    /// Controls for an air start: gear up, 80 % throttle (the server trims the spawn).
    pub fn airborne() -> Self {
        Self {
            keys: BTreeSet::new(),
            pads: PadSet::new(),
            key_pitch: 0.0,
            key_roll: 0.0,
            key_yaw: 0.0,
            throttle: 0.8,
            afterburner: false,
            gear_down: false,
            flaps: 0.0,
            speedbrake: false,
        }
    }

    /// Sets throttle, gear and flaps (e.g. from the aircraft as it spawned). Values that are not
    /// finite are ignored; the rest are clamped.
    pub fn set_trim(&mut self, throttle: f32, gear_down: bool, flaps: f32) {
        if throttle.is_finite() {
            self.throttle = throttle.clamp(0.0, 1.0);
        }
        self.gear_down = gear_down;
        if flaps.is_finite() {
            self.flaps = flaps.clamp(0.0, 1.0);
        }
    }

    /// A key went down (`repeat`: the OS's auto-repeat, which must not re-toggle).
    pub fn press(&mut self, a: Action, repeat: bool) {
        if repeat {
            return;
        }
        if !self.toggle(a) {
            self.keys.insert(a);
        }
    }

    /// A key went up.
    pub fn release(&mut self, a: Action) {
        self.keys.remove(&a);
    }

    /// Lets go of every key (the window lost focus, the game paused). The pads' sticks stay
    /// where they are: they report where they physically rest, and say so when they move.
    pub fn release_keys(&mut self) {
        self.keys.clear();
    }

    /// Applies a toggle action; `false` for held actions.
    fn toggle(&mut self, a: Action) -> bool {
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
            _ => return false,
        }
        true
    }

    /// A gamepad event. `flying`: the aircraft has the controls (the Flight screen, not a menu):
    /// only then does a button press toggle or hold anything. Axes, releases, connects and
    /// disconnects always apply, so a stick held through a menu is where it really is and a
    /// disconnected pad lets go of everything it held.
    pub fn pad_event(&mut self, ev: &PadEvent, flying: bool) {
        if let PadEvent::Button { pressed: true, .. } = ev
            && !flying
        {
            return;
        }
        if let Some(edge) = self.pads.apply(ev)
            && edge.pressed
            && let Some(a) = pad_action(edge.button)
        {
            self.toggle(a);
        }
    }

    fn key_axis(&self, plus: Action, minus: Action) -> f32 {
        f32::from(u8::from(self.keys.contains(&plus)))
            - f32::from(u8::from(self.keys.contains(&minus)))
    }

    /// One input tick: the keyboard's ramps and the throttle move, and the combined controls
    /// come out.
    pub fn tick(&mut self) -> Controls {
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
            self.key_axis(Action::PitchUp, Action::PitchDown),
            self.key_axis(Action::RollRight, Action::RollLeft),
            self.key_axis(Action::YawRight, Action::YawLeft),
        );
        ramp(&mut self.key_pitch, p);
        ramp(&mut self.key_roll, r);
        ramp(&mut self.key_yaw, y);
        let keys = self.key_axis(Action::ThrottleUp, Action::ThrottleDown);
        let triggers = self.pads.axis(PadAxis::RightTrigger) - self.pads.axis(PadAxis::LeftTrigger);
        let t = (keys + triggers).clamp(-1.0, 1.0);
        self.throttle = (self.throttle + t * THROTTLE_RATE).clamp(0.0, 1.0);
        self.controls()
    }

    /// The controls as they stand (without moving anything).
    pub fn controls(&self) -> Controls {
        let sum = |k: f32, pad: f32| (k + pad).clamp(-1.0, 1.0);
        Controls {
            // Pushing the stick away is nose down.
            pitch: sum(self.key_pitch, -self.pads.axis(PadAxis::LeftY)),
            roll: sum(self.key_roll, self.pads.axis(PadAxis::LeftX)),
            yaw: sum(self.key_yaw, self.pads.axis(PadAxis::RightX)),
            throttle: self.throttle,
            afterburner: self.afterburner,
            gear_down: self.gear_down,
            flaps: self.flaps,
            speedbrake: self.speedbrake,
            wheel_brake: self.keys.contains(&Action::WheelBrake)
                || self.pads.any_held(PadButton::South),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pad::PadId;

    const P: PadId = PadId(3);

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

    fn connected() -> PadEvent {
        PadEvent::Connected {
            pad: P,
            name: "Test Pad".into(),
        }
    }

    #[test]
    fn held_keys_ramp_the_stick_and_release_recentres_it() {
        let mut p = FlightInput::airborne();
        p.press(Action::PitchUp, false);
        let first = p.tick();
        assert!(first.pitch > 0.0 && first.pitch < 0.1, "{}", first.pitch);
        for _ in 0..30 {
            p.tick();
        }
        assert_eq!(p.tick().pitch, 1.0);
        p.release(Action::PitchUp);
        for _ in 0..8 {
            p.tick();
        }
        assert_eq!(p.tick().pitch, 0.0);
    }

    #[test]
    fn key_toggles_ignore_auto_repeat_and_flaps_step() {
        let mut p = FlightInput::airborne();
        p.press(Action::Gear, false);
        p.press(Action::Gear, true);
        assert!(p.tick().gear_down);
        let steps: Vec<f32> = (0..4)
            .map(|_| {
                p.press(Action::Flaps, false);
                p.controls().flaps
            })
            .collect();
        assert_eq!(steps, vec![0.5, 1.0, 0.0, 0.5]);
        p.press(Action::WheelBrake, false);
        assert!(p.tick().wheel_brake);
        p.release_keys();
        assert!(!p.tick().wheel_brake);
    }

    #[test]
    fn throttle_moves_with_held_keys_and_stays_in_range() {
        let mut p = FlightInput::airborne();
        p.press(Action::ThrottleUp, false);
        for _ in 0..200 {
            p.tick();
        }
        assert_eq!(p.controls().throttle, 1.0);
        p.release(Action::ThrottleUp);
        p.press(Action::ThrottleDown, false);
        for _ in 0..45 {
            p.tick();
        }
        assert!(
            (p.controls().throttle - 0.5).abs() < 1e-3,
            "{}",
            p.controls().throttle
        );
    }

    #[test]
    fn a_connected_pad_at_rest_leaves_the_keyboard_in_charge() {
        let mut with_pad = FlightInput::airborne();
        let mut keys_only = FlightInput::airborne();
        with_pad.pad_event(&connected(), true);
        // Sticks resting a little off centre, triggers released: all inside the deadzone.
        for (a, v) in [
            (PadAxis::LeftX, 0.06),
            (PadAxis::LeftY, -0.08),
            (PadAxis::RightX, 0.09),
            (PadAxis::RightY, -0.05),
            (PadAxis::LeftTrigger, 0.04),
            (PadAxis::RightTrigger, 0.0),
        ] {
            with_pad.pad_event(&axis(a, v), true);
        }
        for p in [&mut with_pad, &mut keys_only] {
            p.press(Action::RollLeft, false);
            p.press(Action::PitchUp, false);
            p.press(Action::ThrottleUp, false);
        }
        for _ in 0..20 {
            assert_eq!(with_pad.tick(), keys_only.tick());
        }
        assert_eq!(with_pad.controls().roll, -1.0);
    }

    #[test]
    fn pad_sticks_fly_and_add_to_the_keys() {
        let mut p = FlightInput::airborne();
        p.pad_event(&connected(), true);
        p.pad_event(&axis(PadAxis::LeftY, 1.0), true);
        p.pad_event(&axis(PadAxis::LeftX, -0.55), true);
        p.pad_event(&axis(PadAxis::RightX, 0.55), true);
        let c = p.tick();
        assert_eq!(c.pitch, -1.0, "stick pushed away: nose down, at once");
        assert!((c.roll + 0.5).abs() < 1e-6, "{}", c.roll);
        assert!((c.yaw - 0.5).abs() < 1e-6, "{}", c.yaw);
        // Keyboard right roll on top of the pad's left: they sum.
        p.press(Action::RollRight, false);
        for _ in 0..20 {
            p.tick();
        }
        assert!((p.controls().roll - 0.5).abs() < 1e-6);
        p.press(Action::PitchDown, false);
        for _ in 0..20 {
            p.tick();
        }
        assert_eq!(p.controls().pitch, -1.0, "the sum is clamped");
    }

    #[test]
    fn triggers_move_the_throttle_in_proportion() {
        let mut p = FlightInput::airborne();
        p.set_trim(0.5, false, 0.0);
        p.pad_event(&axis(PadAxis::RightTrigger, 1.0), true);
        for _ in 0..45 {
            p.tick();
        }
        assert!((p.controls().throttle - 1.0).abs() < 1e-4);
        p.pad_event(&axis(PadAxis::RightTrigger, 0.0), true);
        // Half-pulled left trigger (0.55 raw is 0.5 past the deadzone): half the rate.
        p.pad_event(&axis(PadAxis::LeftTrigger, 0.55), true);
        for _ in 0..90 {
            p.tick();
        }
        assert!(
            (p.controls().throttle - 0.5).abs() < 1e-3,
            "{}",
            p.controls().throttle
        );
    }

    #[test]
    fn pad_toggles_fire_once_per_press_and_only_in_flight() {
        let mut p = FlightInput::airborne();
        p.pad_event(&connected(), true);
        p.pad_event(&button(PadButton::North, true), true);
        // A repeated press report (a driver, a filter) does not toggle again.
        p.pad_event(&button(PadButton::North, true), true);
        assert!(p.controls().gear_down);
        p.pad_event(&button(PadButton::North, false), true);
        p.pad_event(&button(PadButton::North, true), true);
        assert!(!p.controls().gear_down);
        p.pad_event(&button(PadButton::North, false), true);
        type Check = fn(&Controls) -> bool;
        let cases: [(PadButton, Check); 3] = [
            (PadButton::RightShoulder, |c| c.afterburner),
            (PadButton::East, |c| c.speedbrake),
            (PadButton::West, |c| c.flaps == 0.5),
        ];
        for (b, check) in cases {
            p.pad_event(&button(b, true), true);
            assert!(check(&p.controls()), "{b:?}");
            p.pad_event(&button(b, false), true);
        }
        // In a menu (A presses a button there) nothing toggles or brakes.
        p.pad_event(&button(PadButton::North, true), false);
        p.pad_event(&button(PadButton::South, true), false);
        assert!(!p.controls().gear_down);
        assert!(!p.tick().wheel_brake);
        p.pad_event(&button(PadButton::North, false), false);
        p.pad_event(&button(PadButton::South, false), false);
        // A held in flight brakes; Start does nothing to the controls.
        p.pad_event(&button(PadButton::South, true), true);
        p.pad_event(&button(PadButton::Start, true), true);
        let c = p.tick();
        assert!(c.wheel_brake && !c.gear_down && c.afterburner);
    }

    #[test]
    fn disconnect_releases_the_pads_held_axes_and_buttons() {
        let mut p = FlightInput::airborne();
        p.pad_event(&connected(), true);
        p.pad_event(&axis(PadAxis::LeftX, 1.0), true);
        p.pad_event(&axis(PadAxis::RightTrigger, 1.0), true);
        p.pad_event(&button(PadButton::South, true), true);
        p.pad_event(&button(PadButton::North, true), true);
        let before = p.tick();
        assert_eq!(before.roll, 1.0);
        assert!(before.wheel_brake && before.gear_down);
        p.pad_event(
            &PadEvent::Disconnected {
                pad: P,
                name: "Test Pad".into(),
            },
            true,
        );
        let after = p.tick();
        assert_eq!(after.roll, 0.0);
        assert!(!after.wheel_brake);
        assert!(after.gear_down, "a toggle stays where the pad left it");
        let t = after.throttle;
        assert_eq!(p.tick().throttle, t, "the trigger no longer pushes");
        // The keyboard still flies.
        p.press(Action::RollLeft, false);
        for _ in 0..20 {
            p.tick();
        }
        assert_eq!(p.controls().roll, -1.0);
    }

    #[test]
    fn trim_is_clamped_and_ignores_nonsense() {
        let mut p = FlightInput::airborne();
        p.set_trim(f32::NAN, true, 7.0);
        let c = p.controls();
        assert_eq!((c.throttle, c.gear_down, c.flaps), (0.8, true, 1.0));
        p.set_trim(-3.0, false, f32::INFINITY);
        let c = p.controls();
        assert_eq!((c.throttle, c.gear_down, c.flaps), (0.0, false, 1.0));
    }
}

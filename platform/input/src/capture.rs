//! What the Settings screen's rebinding needs, as pure state: [`Capture`], the "press to bind"
//! state machine (a key or button binds on press; an axis binds when it moves far enough from
//! where it was when the capture started, so a pedal or a throttle resting off-centre never
//! blocks binding), the conflict prompt and its choice, and [`readout`], the live value of every
//! axis of every device, raw and through its bindings.
//!
//! Owns the capture thresholds and how a captured axis is set up (part of its travel,
//! inversion from the direction it moved, default deadzone). Must not draw anything or read a
//! device: the screen feeds the same [`InputEvent`]s the mapper gets (the mapper first, so a
//! device that just connected is known) and shows [`Capture::state`].

use std::collections::BTreeMap;

use crate::action::{Action, ActionKind};
use crate::axis::{AxisPart, AxisSettings, DEVICE_DEADZONE, PAD_DEADZONE};
use crate::binding::{BindError, Binding, Bindings, Input, Place, Resolution, Slot, Source};
use crate::device::{DeviceId, DeviceKind, DeviceSet, DeviceSlot, axis_label};
use crate::mapper::{InputEvent, travel_of};
use crate::pad::PadAxis;

/// An axis binds once it has moved this fraction of its travel from where it was when the
/// capture started.
pub const CAPTURE_TRAVEL: f32 = 0.35;

/// Where a capture stands.
#[derive(Debug, Clone, PartialEq)]
pub enum CaptureState {
    /// Waiting for a press or a movement.
    Listening,
    /// The input is bound elsewhere in the same source: ask the player (see
    /// [`Capture::resolve`]).
    Conflict(Conflict),
    /// Bound (the bindings were changed).
    Done(Place),
    /// Escape, or the player's choice: nothing changed.
    Cancelled,
}

/// The conflict prompt's facts.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// Where the input would go.
    pub target: Place,
    pub binding: Binding,
    /// Where it is bound now.
    pub others: Vec<Place>,
}

/// The player's answer to a conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The other actions lose the input.
    Replace,
    /// The other action takes this one's old binding.
    Swap,
    Cancel,
}

/// One "press to bind".
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    action: Action,
    slot: Slot,
    /// Only inputs of this source bind (`None`: any; a device input then binds to that device).
    source: Option<Source>,
    /// Every axis's value when the capture started (or when it first reported since).
    baseline: BTreeMap<(DeviceSlot, u32), f32>,
    state: CaptureState,
    hint: Option<String>,
}

impl Capture {
    /// Starts listening for `action`'s `slot`; `source` limits which inputs bind (the screen's
    /// device column, or `None` for whatever the player presses first).
    pub fn start(action: Action, slot: Slot, source: Option<Source>, devices: &DeviceSet) -> Self {
        let baseline = devices
            .iter()
            .flat_map(|(s, d)| d.axes.iter().map(move |(c, a)| ((s, *c), a.value)))
            .collect();
        Capture {
            action,
            slot,
            source,
            baseline,
            state: CaptureState::Listening,
            hint: None,
        }
    }

    pub fn state(&self) -> &CaptureState {
        &self.state
    }

    pub fn action(&self) -> Action {
        self.action
    }

    /// What to ask the player to do.
    pub fn prompt(&self) -> &'static str {
        match self.action {
            Action::Pitch => "Pull the stick back (nose up), or press Esc",
            Action::Roll => "Move the stick right, or press Esc",
            Action::Yaw => "Push the right pedal (or twist the stick right), or press Esc",
            Action::Throttle => "Push the throttle forward, or press Esc",
            _ => "Press a key or button, or move an axis, or press Esc",
        }
    }

    /// Why the last input did not bind (e.g. a key for an axis action).
    pub fn hint(&self) -> Option<&str> {
        self.hint.as_deref()
    }

    pub fn cancel(&mut self) {
        if matches!(
            self.state,
            CaptureState::Listening | CaptureState::Conflict(_)
        ) {
            self.state = CaptureState::Cancelled;
        }
    }

    /// One event (after the mapper had it). Binds into `bindings` when there is no conflict.
    pub fn event(
        &mut self,
        ev: &InputEvent,
        devices: &DeviceSet,
        bindings: &mut Bindings,
    ) -> &CaptureState {
        if self.state != CaptureState::Listening {
            return &self.state;
        }
        let found = match ev {
            InputEvent::Key {
                key,
                pressed: true,
                repeat: false,
            } => {
                if key.is_escape() {
                    self.state = CaptureState::Cancelled;
                    return &self.state;
                }
                Some((Source::Keyboard, Binding::of(Input::Key(key.clone()))))
            }
            InputEvent::Mouse {
                button,
                pressed: true,
            } => Some((Source::Keyboard, Binding::of(Input::Mouse(*button)))),
            InputEvent::Device(dev) => self.device_input(dev, devices),
            _ => None,
        };
        let Some((source, binding)) = found else {
            return &self.state;
        };
        if self.source.as_ref().is_some_and(|s| *s != source) {
            return &self.state;
        }
        let target = Place {
            source,
            action: self.action,
            slot: self.slot,
        };
        if let Err(e) = crate::binding::check(&target.source, target.action, &binding) {
            self.hint = Some(match e {
                BindError::NeedsAxis { .. } => format!(
                    "{} needs an axis: move one (keys bind to its up / down halves)",
                    self.action.label()
                ),
                other => other.to_string(),
            });
            return &self.state;
        }
        if let Source::Device(id) = &target.source
            && let Some((_, d)) = devices.find(id)
        {
            bindings
                .device_names
                .insert(id.clone(), d.info.name.clone());
        }
        let others: Vec<Place> = bindings
            .conflicts(&target.source, &binding.input)
            .into_iter()
            .filter(|p| *p != target)
            .collect();
        if others.is_empty() {
            match bindings.set(&target.source, target.action, target.slot, Some(binding)) {
                Ok(()) => self.state = CaptureState::Done(target),
                Err(e) => self.hint = Some(e.to_string()),
            }
        } else {
            self.state = CaptureState::Conflict(Conflict {
                target,
                binding,
                others,
            });
        }
        &self.state
    }

    /// The player's answer to the conflict prompt.
    pub fn resolve(&mut self, choice: Choice, bindings: &mut Bindings) -> &CaptureState {
        let CaptureState::Conflict(c) = &self.state else {
            return &self.state;
        };
        let resolution = match choice {
            Choice::Replace => Resolution::Replace,
            Choice::Swap => Resolution::Swap,
            Choice::Cancel => {
                self.state = CaptureState::Cancelled;
                return &self.state;
            }
        };
        let c = c.clone();
        self.state = match bindings.assign(&c.target, c.binding, resolution) {
            Ok(_) => CaptureState::Done(c.target),
            Err(e) => {
                self.hint = Some(e.to_string());
                CaptureState::Cancelled
            }
        };
        &self.state
    }

    /// A device's press or movement as a binding, with the source it belongs to.
    fn device_input(
        &mut self,
        ev: &crate::device::DeviceEvent,
        devices: &DeviceSet,
    ) -> Option<(Source, Binding)> {
        use crate::device::DeviceEvent as E;
        match ev {
            E::Disconnected { slot } | E::Connected { slot, .. } => {
                self.baseline.retain(|(s, _), _| s != slot);
                None
            }
            E::Button {
                slot,
                code,
                named,
                pressed: true,
            } => {
                let d = devices.get(*slot)?;
                if self.source == Some(Source::Gamepad) {
                    let n = (*named).filter(|_| d.is_gamepad())?;
                    Some((Source::Gamepad, Binding::of(Input::PadButton(n))))
                } else {
                    Some((
                        Source::Device(d.id.clone()),
                        Binding::of(Input::Button(*code)),
                    ))
                }
            }
            E::Axis {
                slot,
                code,
                named,
                value,
            } => {
                let d = devices.get(*slot)?;
                let unipolar = d.axes.get(code).is_some_and(|a| a.unipolar);
                let base = *self.baseline.entry((*slot, *code)).or_insert(*value);
                let delta = value - base;
                let span = if unipolar { 1.0 } else { 2.0 };
                if !delta.is_finite() || delta.abs() < CAPTURE_TRAVEL * span {
                    return None;
                }
                let (part, invert) = self.axis_setup(unipolar, base, delta);
                if self.source == Some(Source::Gamepad) {
                    let n = (*named).filter(|_| d.is_gamepad())?;
                    let settings = AxisSettings {
                        invert,
                        ..self.settings_for(DeviceKind::Gamepad)
                    };
                    Some((
                        Source::Gamepad,
                        Binding::axis(Input::PadAxis(n, part), settings),
                    ))
                } else {
                    let settings = AxisSettings {
                        invert,
                        ..self.settings_for(d.info.kind)
                    };
                    Some((
                        Source::Device(d.id.clone()),
                        Binding::axis(Input::Axis(*code, part), settings),
                    ))
                }
            }
            _ => None,
        }
    }

    /// Which part of a moved axis binds, and whether it is inverted: centred actions take the
    /// whole axis and the direction the prompt asked for is positive; a lever or button bound
    /// to an axis resting at an end (a throttle, a toe brake) takes its whole travel, moving
    /// away from rest being "more"; one resting near the centre takes the half it moved into.
    fn axis_setup(&self, unipolar: bool, base: f32, delta: f32) -> (AxisPart, bool) {
        match self.action.kind() {
            ActionKind::Axis | ActionKind::Lever => (AxisPart::Whole, delta < 0.0),
            _ if !unipolar && base.abs() < 0.5 => (
                if delta > 0.0 {
                    AxisPart::Plus
                } else {
                    AxisPart::Minus
                },
                false,
            ),
            _ => (AxisPart::Whole, delta < 0.0),
        }
    }

    /// The settings a freshly captured axis starts with.
    fn settings_for(&self, kind: DeviceKind) -> AxisSettings {
        let deadzone = match (self.action.kind(), kind) {
            (ActionKind::Axis, DeviceKind::Gamepad) => PAD_DEADZONE,
            (ActionKind::Axis, DeviceKind::Joystick) => DEVICE_DEADZONE,
            (_, DeviceKind::Gamepad) => PAD_DEADZONE,
            _ => DEVICE_DEADZONE,
        };
        AxisSettings {
            deadzone,
            ..AxisSettings::default()
        }
    }
}

/// One axis in the live readout.
#[derive(Debug, Clone, PartialEq)]
pub struct AxisReadout {
    pub code: u32,
    /// "X", "Throttle", "left stick forward / back", …
    pub label: String,
    pub named: Option<PadAxis>,
    /// As the device reports it: −1 … 1 (a trigger 0 … 1).
    pub raw: f32,
    /// Through each binding that reads it: the control it gives (−1 … 1 for stick and pedals,
    /// 0 … 1 for the throttle and buttons).
    pub processed: Vec<(Place, f32)>,
}

/// One device in the live readout.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceReadout {
    pub slot: DeviceSlot,
    pub id: DeviceId,
    pub name: String,
    pub kind: DeviceKind,
    /// Every axis reported so far, by code.
    pub axes: Vec<AxisReadout>,
    /// The raw codes of the buttons held now.
    pub held: Vec<u32>,
}

/// Every axis of every connected device, raw and through its bindings.
pub fn readout(devices: &DeviceSet, bindings: &Bindings) -> Vec<DeviceReadout> {
    devices
        .iter()
        .map(|(slot, d)| DeviceReadout {
            slot,
            id: d.id.clone(),
            name: d.info.name.clone(),
            kind: d.info.kind,
            axes: d
                .axes
                .iter()
                .map(|(code, a)| AxisReadout {
                    code: *code,
                    label: a
                        .named
                        .map_or_else(|| axis_label(*code), |n| n.label().to_owned()),
                    named: a.named,
                    raw: a.value,
                    processed: bindings
                        .iter()
                        .filter_map(|(p, b)| {
                            let (c, t) = travel_of(d, &p.source, &b.input)?;
                            (c == *code).then(|| {
                                let v = match p.action.kind() {
                                    ActionKind::Axis => b.axis.centred(t),
                                    ActionKind::Lever => b.axis.throttle(t).0,
                                    _ => b.axis.lever(t),
                                };
                                (p, v)
                            })
                        })
                        .collect(),
                })
                .collect(),
            held: d.held_codes().collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{DeviceEvent, DeviceInfo, IdKey};
    use crate::keys::KeyName;
    use crate::mapper::Mapper;
    use crate::pad::PadButton;

    const PEDALS: DeviceSlot = DeviceSlot(70);
    const PAD: DeviceSlot = DeviceSlot(1);

    /// A mapper (the device state) and the bindings the screen edits.
    struct Screen {
        mapper: Mapper,
        bindings: Bindings,
    }

    impl Screen {
        fn new() -> Self {
            let mut s = Screen {
                mapper: Mapper::new(Bindings::defaults()),
                bindings: Bindings::defaults(),
            };
            s.feed_all(&[
                connect(PEDALS, "Pedals", DeviceKind::Joystick),
                connect(PAD, "Pad", DeviceKind::Gamepad),
                // Pedals: rudder centred, both toe brakes resting at −1, reported at connect.
                axis(PEDALS, 5, None, 0.0),
                axis(PEDALS, 0, None, -1.0),
                axis(PEDALS, 1, None, -1.0),
            ]);
            s
        }

        fn feed_all(&mut self, evs: &[InputEvent]) {
            for e in evs {
                self.mapper.event(e, false);
            }
        }

        fn feed(&mut self, c: &mut Capture, ev: InputEvent) -> CaptureState {
            self.mapper.event(&ev, false);
            c.event(&ev, self.mapper.devices(), &mut self.bindings)
                .clone()
        }

        fn capture(&self, action: Action, source: Option<Source>) -> Capture {
            Capture::start(action, Slot::Primary, source, self.mapper.devices())
        }
    }

    fn connect(slot: DeviceSlot, name: &str, kind: DeviceKind) -> InputEvent {
        InputEvent::Device(DeviceEvent::Connected {
            slot,
            info: DeviceInfo {
                name: name.into(),
                uuid: [0; 16],
                kind,
            },
        })
    }

    fn axis(slot: DeviceSlot, code: u32, named: Option<PadAxis>, value: f32) -> InputEvent {
        InputEvent::Device(DeviceEvent::Axis {
            slot,
            code,
            named,
            value,
        })
    }

    fn key(k: &str) -> InputEvent {
        InputEvent::Key {
            key: KeyName::parse(k).expect("key"),
            pressed: true,
            repeat: false,
        }
    }

    fn pedals() -> Source {
        Source::Device(DeviceId {
            key: IdKey::Name("Pedals".into()),
            ordinal: 0,
        })
    }

    fn place(source: Source, action: Action) -> Place {
        Place {
            source,
            action,
            slot: Slot::Primary,
        }
    }

    #[test]
    fn a_key_binds_on_press_and_escape_cancels() {
        let mut s = Screen::new();
        let mut c = s.capture(Action::Hook, None);
        assert_eq!(
            s.feed(&mut c, key("K")),
            CaptureState::Done(place(Source::Keyboard, Action::Hook))
        );
        assert_eq!(
            s.bindings
                .get(&Source::Keyboard, Action::Hook, Slot::Primary)
                .map(|b| b.input.clone()),
            Some(Input::Key(KeyName::parse("K").expect("K")))
        );
        let before = s.bindings.clone();
        let mut c = s.capture(Action::Hook, None);
        assert_eq!(s.feed(&mut c, key("Escape")), CaptureState::Cancelled);
        assert_eq!(s.bindings, before);
    }

    #[test]
    fn an_off_centre_axis_at_rest_never_blocks_binding_and_moves_bind() {
        let mut s = Screen::new();
        let mut c = s.capture(Action::WheelBrake, None);
        // Noise and small movements of every axis do not bind…
        for (code, v) in [(0, -0.9), (1, -0.8), (5, 0.3), (0, -0.5)] {
            assert_eq!(
                s.feed(&mut c, axis(PEDALS, code, None, v)),
                CaptureState::Listening
            );
        }
        // …pressing the left toe brake well past 35 % of its travel does. It rests at an end,
        // so its whole travel is the press.
        let done = s.feed(&mut c, axis(PEDALS, 0, None, 0.2));
        assert_eq!(
            done,
            CaptureState::Done(place(pedals(), Action::WheelBrake))
        );
        let b = s
            .bindings
            .get(&pedals(), Action::WheelBrake, Slot::Primary)
            .cloned();
        assert_eq!(
            b.as_ref().map(|b| b.input.clone()),
            Some(Input::Axis(0, AxisPart::Whole))
        );
        assert!(b.is_some_and(|b| !b.axis.invert));
        assert_eq!(
            s.bindings.device_names.get(&DeviceId {
                key: IdKey::Name("Pedals".into()),
                ordinal: 0
            }),
            Some(&"Pedals".to_owned())
        );
    }

    #[test]
    fn a_centred_axis_binds_by_direction() {
        let mut s = Screen::new();
        // Rudder: the player pushes the left pedal although asked for the right: inverted.
        let mut c = s.capture(Action::Yaw, None);
        s.feed(&mut c, axis(PEDALS, 5, None, -0.8));
        let b = s
            .bindings
            .get(&pedals(), Action::Yaw, Slot::Primary)
            .cloned();
        assert!(
            b.as_ref()
                .is_some_and(|b| b.axis.invert && b.axis.deadzone == DEVICE_DEADZONE)
        );
        // A button action on the other half of a centred axis takes only that half.
        s.feed_all(&[axis(PEDALS, 5, None, 0.0)]);
        let mut c = s.capture(Action::RollLeft, None);
        assert_eq!(
            s.feed(&mut c, axis(PEDALS, 5, None, -0.8)),
            CaptureState::Conflict(Conflict {
                target: place(pedals(), Action::RollLeft),
                binding: Binding::axis(
                    Input::Axis(5, AxisPart::Minus),
                    AxisSettings {
                        deadzone: DEVICE_DEADZONE,
                        ..AxisSettings::default()
                    }
                ),
                others: vec![place(pedals(), Action::Yaw)],
            }),
            "the whole axis is the rudder's"
        );
    }

    #[test]
    fn an_axis_action_ignores_keys_with_a_hint() {
        let mut s = Screen::new();
        let mut c = s.capture(Action::Pitch, None);
        assert_eq!(s.feed(&mut c, key("W")), CaptureState::Listening);
        assert!(c.hint().is_some_and(|h| h.contains("needs an axis")));
        assert!(c.prompt().contains("Pull the stick back"));
    }

    #[test]
    fn a_conflict_asks_and_each_choice_does_what_it_says() {
        for (choice, gear, hook) in [
            (Choice::Replace, None, Some("G")),
            (Choice::Swap, Some("H"), Some("G")),
            (Choice::Cancel, Some("G"), Some("H")),
        ] {
            let mut s = Screen::new();
            let mut c = s.capture(Action::Hook, None);
            let st = s.feed(&mut c, key("G"));
            let CaptureState::Conflict(conf) = st else {
                panic!("expected a conflict, got {st:?}");
            };
            assert_eq!(conf.others, [place(Source::Keyboard, Action::Gear)]);
            c.resolve(choice, &mut s.bindings);
            let k = |a| {
                s.bindings
                    .get(&Source::Keyboard, a, Slot::Primary)
                    .map(|b| b.input.label())
            };
            assert_eq!(k(Action::Gear).as_deref(), gear, "{choice:?}");
            assert_eq!(k(Action::Hook).as_deref(), hook, "{choice:?}");
        }
    }

    #[test]
    fn a_source_limits_what_binds() {
        let mut s = Screen::new();
        let mut c = s.capture(Action::Gun, Some(Source::Gamepad));
        assert_eq!(s.feed(&mut c, key("K")), CaptureState::Listening);
        assert_eq!(
            s.feed(&mut c, axis(PEDALS, 0, None, 1.0)),
            CaptureState::Listening
        );
        let st = s.feed(
            &mut c,
            InputEvent::Device(DeviceEvent::Button {
                slot: PAD,
                code: 310,
                named: Some(PadButton::RightShoulder),
                pressed: true,
            }),
        );
        // RB is the afterburner's on the gamepad.
        assert!(
            matches!(st, CaptureState::Conflict(ref c) if c.others == [place(Source::Gamepad, Action::Afterburner)])
        );
    }

    #[test]
    fn the_readout_shows_every_axis_raw_and_processed() {
        let mut s = Screen::new();
        let mut c = s.capture(Action::Yaw, None);
        s.feed(&mut c, axis(PEDALS, 5, None, 0.9));
        s.feed_all(&[axis(PEDALS, 5, None, 0.5)]);
        s.mapper.set_bindings(s.bindings.clone());
        let r = readout(s.mapper.devices(), s.mapper.bindings());
        let pedals = r.iter().find(|d| d.slot == PEDALS).expect("pedals");
        assert_eq!(pedals.axes.len(), 3);
        let rudder = pedals.axes.iter().find(|a| a.code == 5).expect("rudder");
        assert_eq!(rudder.raw, 0.5);
        assert_eq!(rudder.processed.len(), 1);
        let (p, v) = &rudder.processed[0];
        assert_eq!(p.action, Action::Yaw);
        assert!(
            (v - (0.5 - DEVICE_DEADZONE) / (1.0 - DEVICE_DEADZONE)).abs() < 1e-5,
            "{v}"
        );
        let brake = pedals.axes.iter().find(|a| a.code == 0).expect("brake");
        assert!(brake.processed.is_empty());
        if cfg!(target_os = "linux") {
            assert_eq!(rudder.label, "Rz");
        }
        // A gamepad's sticks show their default bindings once they report.
        s.feed_all(&[axis(PAD, 1, Some(PadAxis::LeftY), 0.5)]);
        let r = readout(s.mapper.devices(), s.mapper.bindings());
        let pad = r.iter().find(|d| d.slot == PAD).expect("pad");
        let y = &pad.axes[0];
        assert_eq!(y.processed[0].0.action, Action::Pitch);
        assert!(y.processed[0].1 < 0.0, "inverted: pushed away is nose down");
    }
}

//! The pure mapper: input events in ([`InputEvent`]: keys, mouse buttons, device events), one
//! [`Controls`] value per 60 Hz input tick out, through the [`Bindings`], plus the game's own
//! actions (camera, pause, …) fired by presses.
//!
//! How inputs combine:
//! - Keys are all-or-nothing, so the stick and pedals ramp toward the held keys
//!   ([`STICK_RATE`]) and recentre when they are let go ([`CENTRE_RATE`]); a rate action bound
//!   to an axis (a trigger on "throttle up") moves in proportion to its travel.
//! - Device axes bound to pitch, roll and yaw are proportional and are added to the keyboard's
//!   ramps; the sum is clamped, so a pad or stick at rest leaves the keyboard in charge and any
//!   device can fly alone.
//! - The throttle is one value that the last thing to move sets: a throttle lever when it moves
//!   (its resting position never snaps the throttle at connect), keys and triggers while held.
//!   A lever with a detent sets the afterburner when it crosses it.
//! - Toggles and steps fire once per press, from any source (OS key repeat and repeated press
//!   reports are ignored); an axis bound to a button presses past half travel (released below
//!   0.4: no chatter).
//! - Presses act only while `flying` (the Flight screen); releases, axes and hot-plug always
//!   apply, so a stick held through a menu is where it really is and a device that goes away
//!   lets go of everything it held.
//!
//! Owns the control state. Must not read a device, the window or the clock: callers feed events
//! and tick it, so it is tested without hardware.

use std::collections::{BTreeMap, BTreeSet};

use crate::action::{Action, ActionKind};
use crate::axis::Travel;
use crate::binding::{Binding, Bindings, Input, Place, Source};
use crate::device::{Change, Device, DeviceEvent, DeviceSet, DeviceSlot};
use crate::keys::{KeyName, MouseButton};
use crate::pad::PadButton;

/// Stick and pedal travel per input tick while a key is held (full deflection in ~0.25 s).
pub const STICK_RATE: f32 = 1.0 / 15.0;
/// Recentring per input tick (faster than deflecting: letting go means letting go).
pub const CENTRE_RATE: f32 = 1.0 / 8.0;
/// Throttle travel per input tick while a key or a fully pulled trigger is held (idle to
/// military in 1.5 s).
pub const THROTTLE_RATE: f32 = 1.0 / 90.0;
/// Ticks the eject binding must be held before the seat fires (1 s: no accidental ejection).
pub const EJECT_HOLD_TICKS: u32 = 60;
/// An axis bound to a button presses at this much travel…
pub const BUTTON_ON: f32 = 0.5;
/// …and releases below this much.
pub const BUTTON_OFF: f32 = 0.4;
/// A throttle lever takes the throttle when it moves this far from where it was last seen.
pub const LEVER_TAKEOVER: f32 = 0.01;
/// Game actions kept until taken at most.
const MAX_GAME_ACTIONS: usize = 32;

/// One event for the mapper.
#[derive(Debug, Clone, PartialEq)]
pub enum InputEvent {
    /// A key went down or up (`repeat`: the OS's auto-repeat, which must not re-toggle).
    Key {
        key: KeyName,
        pressed: bool,
        repeat: bool,
    },
    Mouse {
        button: MouseButton,
        pressed: bool,
    },
    Device(DeviceEvent),
}

impl InputEvent {
    /// A winit key event (`None` for keys bindings cannot name).
    pub fn key(key: &winit::keyboard::Key, pressed: bool, repeat: bool) -> Option<InputEvent> {
        Some(InputEvent::Key {
            key: KeyName::from_key(key)?,
            pressed,
            repeat,
        })
    }
}

/// The controls of one input tick, device-neutral: every control the client's input message
/// carries.
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
    pub gun: bool,
    /// Release the selected store (held; the server edge-detects it).
    pub fire_store: bool,
    pub chaff_flare: bool,
    pub ecm: bool,
    /// The eject binding has been held for [`EJECT_HOLD_TICKS`].
    pub eject: bool,
    pub respawn: bool,
    pub hook_down: bool,
    pub canopy_open: bool,
    /// Station-select presses since the last tick: next (+) less previous (−).
    pub station_step: i8,
    /// Radar-mode presses since the last tick.
    pub radar_step: u8,
    /// Designate presses since the last tick (each steps to the next hostile track).
    pub designate_step: u8,
}

/// Where an axis binding acting on a device is remembered between events.
type AxisKey = (Place, DeviceSlot);

/// Keys, mouse and devices as one set of flight controls, through the bindings.
#[derive(Debug, Clone)]
pub struct Mapper {
    bindings: Bindings,
    devices: DeviceSet,
    /// Keys and mouse buttons pressed while flying and not yet released.
    keys: BTreeSet<KeyName>,
    mouse: BTreeSet<MouseButton>,
    /// Device buttons pressed while flying and not yet released: (slot, code) → name.
    buttons: BTreeMap<(DeviceSlot, u32), Option<PadButton>>,
    /// Axis bindings of button actions past their press threshold.
    axis_pressed: BTreeSet<AxisKey>,
    /// Held and rate actions pressed since the last tick (a tap shorter than a tick counts).
    tapped: BTreeSet<Action>,
    /// Throttle levers: where each was last seen, and its afterburner side of the detent.
    levers: BTreeMap<AxisKey, (f32, Option<bool>)>,
    /// The lever that has the throttle (until a key or trigger moves it).
    lever_active: Option<AxisKey>,
    key_pitch: f32,
    key_roll: f32,
    key_yaw: f32,
    throttle: f32,
    afterburner: bool,
    gear_down: bool,
    flaps: f32,
    speedbrake: bool,
    hook_down: bool,
    canopy_open: bool,
    ecm: bool,
    station_step: i32,
    radar_step: u32,
    designate_step: u32,
    eject_ticks: u32,
    game: Vec<Action>,
}

/// Per-action levels and axis sums of one moment.
struct Levels {
    /// 0 … 1 by action index (keys and buttons 1; axes their travel).
    level: [f32; Action::ALL.len()],
    /// Summed centred axes by action index.
    axis: [f32; Action::ALL.len()],
}

fn idx(a: Action) -> usize {
    a as usize
}

impl Mapper {
    /// A mapper with `bindings`, controls set for an air start: gear up, 80 % throttle (the
    /// server trims the spawn).
    pub fn new(bindings: Bindings) -> Self {
        Mapper {
            bindings,
            devices: DeviceSet::new(),
            keys: BTreeSet::new(),
            mouse: BTreeSet::new(),
            buttons: BTreeMap::new(),
            axis_pressed: BTreeSet::new(),
            tapped: BTreeSet::new(),
            levers: BTreeMap::new(),
            lever_active: None,
            key_pitch: 0.0,
            key_roll: 0.0,
            key_yaw: 0.0,
            throttle: 0.8,
            afterburner: false,
            gear_down: false,
            flaps: 0.0,
            speedbrake: false,
            hook_down: false,
            canopy_open: false,
            ecm: false,
            station_step: 0,
            radar_step: 0,
            designate_step: 0,
            eject_ticks: 0,
            game: Vec::new(),
        }
    }

    pub fn bindings(&self) -> &Bindings {
        &self.bindings
    }

    /// Controls back to an air start for a new flight (throttle 80 %, gear up, every toggle
    /// off, stick centred), keeping the bindings, the devices and what is held.
    pub fn reset_controls(&mut self) {
        let fresh = Mapper::new(Bindings::empty());
        self.key_pitch = fresh.key_pitch;
        self.key_roll = fresh.key_roll;
        self.key_yaw = fresh.key_yaw;
        self.throttle = fresh.throttle;
        self.afterburner = fresh.afterburner;
        self.gear_down = fresh.gear_down;
        self.flaps = fresh.flaps;
        self.speedbrake = fresh.speedbrake;
        self.hook_down = fresh.hook_down;
        self.canopy_open = fresh.canopy_open;
        self.ecm = fresh.ecm;
        self.station_step = 0;
        self.radar_step = 0;
        self.designate_step = 0;
        self.eject_ticks = 0;
        self.tapped.clear();
        self.game.clear();
        self.lever_active = None;
    }

    /// Replaces the bindings (the Settings screen applied a change). Held keys and buttons
    /// stay held; what axis bindings remembered starts over.
    pub fn set_bindings(&mut self, bindings: Bindings) {
        self.bindings = bindings;
        self.axis_pressed.clear();
        self.levers.clear();
        self.lever_active = None;
    }

    /// The connected devices and their axes (for capture and the live readout).
    pub fn devices(&self) -> &DeviceSet {
        &self.devices
    }

    /// Takes the hot-plug notices (oldest first).
    pub fn take_notices(&mut self) -> Vec<String> {
        self.devices.take_notices()
    }

    /// Takes the game actions pressed since the last call, in order.
    pub fn take_game_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.game)
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

    /// Lets go of every key and mouse button (the window lost focus, the game paused). Devices
    /// stay as they are: they report where they physically rest, and say so when they move.
    pub fn release_keys(&mut self) {
        self.keys.clear();
        self.mouse.clear();
    }

    /// One event. `flying`: the aircraft has the controls (the Flight screen); only then do
    /// presses act.
    pub fn event(&mut self, ev: &InputEvent, flying: bool) {
        match ev {
            InputEvent::Key {
                key,
                pressed,
                repeat,
            } => {
                if !pressed {
                    self.keys.remove(key);
                } else if flying && !repeat && self.keys.insert(key.clone()) {
                    self.pressed(|source, input| {
                        *source == Source::Keyboard && matches!(input, Input::Key(k) if k == key)
                    });
                }
            }
            InputEvent::Mouse { button, pressed } => {
                if !pressed {
                    self.mouse.remove(button);
                } else if flying && self.mouse.insert(*button) {
                    self.pressed(|source, input| {
                        *source == Source::Keyboard && *input == Input::Mouse(*button)
                    });
                }
            }
            InputEvent::Device(dev) => self.device_event(dev, flying),
        }
    }

    fn device_event(&mut self, ev: &DeviceEvent, flying: bool) {
        let slot = ev.slot();
        match self.devices.apply(ev) {
            Change::Connected | Change::Disconnected => self.forget(slot),
            Change::Button { code, pressed } => {
                if !pressed {
                    self.buttons.remove(&(slot, code));
                    return;
                }
                if !flying {
                    return;
                }
                let Some(d) = self.devices.get(slot) else {
                    return;
                };
                let named = match ev {
                    DeviceEvent::Button { named, .. } => *named,
                    _ => None,
                };
                self.buttons.insert((slot, code), named);
                let id = d.id.clone();
                let gamepad = d.is_gamepad();
                self.pressed(|source, input| match (source, input) {
                    (Source::Device(i), Input::Button(c)) => *i == id && *c == code,
                    (Source::Gamepad, Input::PadButton(n)) => gamepad && Some(*n) == named,
                    _ => false,
                });
            }
            Change::Axis { code, .. } => self.axis_moved(slot, code, flying),
            Change::Nothing => {}
        }
    }

    /// Forgets what a device slot held (it went away, or something new connected there).
    fn forget(&mut self, slot: DeviceSlot) {
        self.buttons.retain(|(s, _), _| *s != slot);
        self.axis_pressed.retain(|(_, s)| *s != slot);
        self.levers.retain(|(_, s), _| *s != slot);
        if self.lever_active.as_ref().is_some_and(|(_, s)| *s == slot) {
            self.lever_active = None;
        }
    }

    /// A press of an input: every action bound to it (by `matches`) fires once.
    fn pressed(&mut self, matches: impl Fn(&Source, &Input) -> bool) {
        let actions: BTreeSet<Action> = self
            .bindings
            .entries()
            .filter(|(source, _, _, b)| matches(source, &b.input))
            .map(|(_, action, _, _)| action)
            .collect();
        for a in actions {
            self.fire(a);
        }
    }

    /// One press of `a`.
    fn fire(&mut self, a: Action) {
        match a.kind() {
            ActionKind::Toggle => match a {
                Action::Afterburner => self.afterburner = !self.afterburner,
                Action::Gear => self.gear_down = !self.gear_down,
                Action::SpeedBrake => self.speedbrake = !self.speedbrake,
                Action::Hook => self.hook_down = !self.hook_down,
                Action::Canopy => self.canopy_open = !self.canopy_open,
                Action::Ecm => self.ecm = !self.ecm,
                _ => {}
            },
            ActionKind::Step => match a {
                Action::Flaps => {
                    self.flaps = if self.flaps < 0.25 {
                        0.5
                    } else if self.flaps < 0.75 {
                        1.0
                    } else {
                        0.0
                    }
                }
                Action::StationNext => self.station_step = self.station_step.saturating_add(1),
                Action::StationPrev => self.station_step = self.station_step.saturating_sub(1),
                Action::RadarMode => self.radar_step = self.radar_step.saturating_add(1),
                Action::Designate => self.designate_step = self.designate_step.saturating_add(1),
                _ => {}
            },
            ActionKind::Game => {
                if self.game.len() < MAX_GAME_ACTIONS {
                    self.game.push(a);
                }
            }
            ActionKind::Held | ActionKind::Rate => {
                self.tapped.insert(a);
            }
            ActionKind::Axis | ActionKind::Lever => {}
        }
    }

    /// The axis bindings that read `code` of the device in `slot`.
    fn axis_places(&self, slot: DeviceSlot, code: u32) -> Vec<(Place, Binding)> {
        let Some(d) = self.devices.get(slot) else {
            return Vec::new();
        };
        self.bindings
            .entries()
            .filter(|(source, _, _, b)| reads(d, source, &b.input) == Some(code))
            .map(|(source, action, slot, b)| {
                (
                    Place {
                        source: source.clone(),
                        action,
                        slot,
                    },
                    b.clone(),
                )
            })
            .collect()
    }

    /// An axis moved: throttle levers and axes acting as buttons react now; centred axes are
    /// read at the tick.
    fn axis_moved(&mut self, slot: DeviceSlot, code: u32, flying: bool) {
        for (place, binding) in self.axis_places(slot, code) {
            let Some(t) = self
                .devices
                .get(slot)
                .and_then(|d| travel(d, &place.source, &binding.input))
            else {
                continue;
            };
            let key = (place.clone(), slot);
            match place.action.kind() {
                ActionKind::Axis => {}
                ActionKind::Lever => {
                    let (value, ab) = binding.axis.throttle(t);
                    self.lever_moved(key, value, ab);
                }
                kind => {
                    let v = binding.axis.lever(t);
                    let was = self.axis_pressed.contains(&key);
                    let now = if was { v > BUTTON_OFF } else { v >= BUTTON_ON };
                    if now == was {
                        continue;
                    }
                    if now {
                        self.axis_pressed.insert(key);
                        // A rate action reads the travel itself; a held one its threshold.
                        if flying && !matches!(kind, ActionKind::Rate | ActionKind::Held) {
                            self.fire(place.action);
                        }
                    } else {
                        self.axis_pressed.remove(&key);
                    }
                }
            }
        }
    }

    /// A throttle lever reported `value`: it takes the throttle once it has moved
    /// [`LEVER_TAKEOVER`] from where it was first seen (its resting position at connect never
    /// snaps the throttle), and keeps it until a key or trigger moves the throttle.
    fn lever_moved(&mut self, key: AxisKey, value: f32, ab: Option<bool>) {
        let active = self.lever_active.as_ref() == Some(&key);
        let (seen, seen_ab) = match self.levers.get(&key) {
            Some(s) => *s,
            None => {
                self.levers.insert(key, (value, ab));
                return;
            }
        };
        if !active && (value - seen).abs() < LEVER_TAKEOVER {
            return;
        }
        self.throttle = value;
        if let Some(on) = ab
            && (!active || seen_ab != ab)
        {
            self.afterburner = on;
        }
        self.levers.insert(key.clone(), (value, ab));
        self.lever_active = Some(key);
    }

    /// Every action's level and the centred axes' sums, as the inputs stand.
    fn levels(&self) -> Levels {
        let mut l = Levels {
            level: [0.0; Action::ALL.len()],
            axis: [0.0; Action::ALL.len()],
        };
        for a in &self.tapped {
            l.level[idx(*a)] = 1.0;
        }
        for (source, action, slot_of_binding, b) in self.bindings.entries() {
            let i = idx(action);
            let kind = action.kind();
            match &b.input {
                Input::Key(k) => {
                    if self.keys.contains(k) {
                        l.level[i] = 1.0;
                    }
                }
                Input::Mouse(m) => {
                    if self.mouse.contains(m) {
                        l.level[i] = 1.0;
                    }
                }
                Input::PadButton(n) => {
                    let held = self.buttons.iter().any(|((s, _), name)| {
                        *name == Some(*n) && self.devices.get(*s).is_some_and(|d| d.is_gamepad())
                    });
                    if held {
                        l.level[i] = 1.0;
                    }
                }
                Input::Button(code) => {
                    if let Source::Device(id) = source
                        && let Some((slot, _)) = self.devices.find(id)
                        && self.buttons.contains_key(&(slot, *code))
                    {
                        l.level[i] = 1.0;
                    }
                }
                Input::PadAxis(..) | Input::Axis(..) => {
                    for (slot, d) in self.devices.iter() {
                        let Some(t) = travel(d, source, &b.input) else {
                            continue;
                        };
                        match kind {
                            ActionKind::Axis => l.axis[i] += b.axis.centred(t),
                            ActionKind::Rate => l.level[i] = l.level[i].max(b.axis.lever(t)),
                            ActionKind::Lever => {}
                            _ => {
                                let place = Place {
                                    source: source.clone(),
                                    action,
                                    slot: slot_of_binding,
                                };
                                if self.axis_pressed.contains(&(place, slot)) {
                                    l.level[i] = 1.0;
                                }
                            }
                        }
                    }
                }
            }
        }
        l
    }

    /// One input tick: the keyboard's ramps, the throttle and the eject timer move, and the
    /// controls come out (with the station and radar presses since the last tick).
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
        let l = self.levels();
        let pair = |plus: Action, minus: Action| {
            (l.level[idx(plus)] - l.level[idx(minus)]).clamp(-1.0, 1.0)
        };
        ramp(
            &mut self.key_pitch,
            pair(Action::PitchUp, Action::PitchDown),
        );
        ramp(
            &mut self.key_roll,
            pair(Action::RollRight, Action::RollLeft),
        );
        ramp(&mut self.key_yaw, pair(Action::YawRight, Action::YawLeft));
        let rate = pair(Action::ThrottleUp, Action::ThrottleDown);
        if rate != 0.0 {
            self.throttle = (self.throttle + rate * THROTTLE_RATE).clamp(0.0, 1.0);
            // The keys have the throttle now; the lever takes it back when it moves
            // [`LEVER_TAKEOVER`] from where it was last seen.
            self.lever_active = None;
        }
        if l.level[idx(Action::Eject)] >= BUTTON_ON {
            self.eject_ticks = self.eject_ticks.saturating_add(1);
        } else {
            self.eject_ticks = 0;
        }
        let out = self.compose(&l);
        self.tapped.clear();
        self.station_step = 0;
        self.radar_step = 0;
        self.designate_step = 0;
        out
    }

    /// The controls as they stand (without moving anything).
    pub fn controls(&self) -> Controls {
        self.compose(&self.levels())
    }

    fn compose(&self, l: &Levels) -> Controls {
        let sum = |k: f32, a: Action| (k + l.axis[idx(a)]).clamp(-1.0, 1.0);
        let on = |a: Action| l.level[idx(a)] >= BUTTON_ON;
        Controls {
            pitch: sum(self.key_pitch, Action::Pitch),
            roll: sum(self.key_roll, Action::Roll),
            yaw: sum(self.key_yaw, Action::Yaw),
            throttle: self.throttle,
            afterburner: self.afterburner,
            gear_down: self.gear_down,
            flaps: self.flaps,
            speedbrake: self.speedbrake,
            wheel_brake: on(Action::WheelBrake),
            gun: on(Action::Gun),
            fire_store: on(Action::FireStore),
            chaff_flare: on(Action::ChaffFlare),
            ecm: self.ecm,
            eject: self.eject_ticks >= EJECT_HOLD_TICKS,
            respawn: on(Action::Respawn),
            hook_down: self.hook_down,
            canopy_open: self.canopy_open,
            station_step: self.station_step.clamp(-100, 100) as i8,
            radar_step: self.radar_step.min(100) as u8,
            designate_step: self.designate_step.min(100) as u8,
        }
    }
}

/// The axis code `input` reads on device `d` from `source` (`None`: it does not read `d`).
fn reads(d: &Device, source: &Source, input: &Input) -> Option<u32> {
    match (source, input) {
        (Source::Device(id), Input::Axis(code, _)) if d.id == *id => Some(*code),
        (Source::Gamepad, Input::PadAxis(a, _)) if d.is_gamepad() => d
            .axes
            .iter()
            .find(|(_, s)| s.named == Some(*a))
            .map(|(c, _)| *c),
        _ => None,
    }
}

/// What `input` (an axis) reads on device `d` from `source`.
fn travel(d: &Device, source: &Source, input: &Input) -> Option<Travel> {
    travel_of(d, source, input).map(|(_, t)| t)
}

/// The axis code `input` reads on device `d` from `source`, and its travel.
pub(crate) fn travel_of(d: &Device, source: &Source, input: &Input) -> Option<(u32, Travel)> {
    let code = reads(d, source, input)?;
    let s = d.axes.get(&code)?;
    let part = match input {
        Input::Axis(_, p) | Input::PadAxis(_, p) => *p,
        _ => return None,
    };
    Some((code, Travel::read(s.value, s.unipolar, part)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::axis::{AxisPart, AxisSettings};
    use crate::binding::Slot;
    use crate::device::{DeviceId, DeviceInfo, DeviceKind};
    use crate::pad::PadAxis;

    const P: DeviceSlot = DeviceSlot(3);

    fn key(k: &str, pressed: bool) -> InputEvent {
        InputEvent::Key {
            key: KeyName::parse(k).expect("key"),
            pressed,
            repeat: false,
        }
    }

    fn defaults() -> Mapper {
        Mapper::new(Bindings::defaults())
    }

    fn press(m: &mut Mapper, k: &str) {
        m.event(&key(k, true), true);
    }

    fn release(m: &mut Mapper, k: &str) {
        m.event(&key(k, false), true);
    }

    fn pad_axis(axis: PadAxis, value: f32) -> InputEvent {
        InputEvent::Device(DeviceEvent::Axis {
            slot: P,
            code: 100 + axis as u32,
            named: Some(axis),
            value,
        })
    }

    fn pad_button(button: PadButton, pressed: bool) -> InputEvent {
        InputEvent::Device(DeviceEvent::Button {
            slot: P,
            code: 300 + button as u32,
            named: Some(button),
            pressed,
        })
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

    fn pad() -> InputEvent {
        connect(P, "Test Pad", DeviceKind::Gamepad)
    }

    #[test]
    fn held_keys_ramp_the_stick_and_release_recentres_it() {
        let mut p = defaults();
        press(&mut p, "S");
        let first = p.tick();
        assert!(first.pitch > 0.0 && first.pitch < 0.1, "{}", first.pitch);
        for _ in 0..30 {
            p.tick();
        }
        assert_eq!(p.tick().pitch, 1.0);
        release(&mut p, "S");
        for _ in 0..8 {
            p.tick();
        }
        assert_eq!(p.tick().pitch, 0.0);
    }

    #[test]
    fn key_toggles_ignore_auto_repeat_and_flaps_step() {
        let mut p = defaults();
        press(&mut p, "G");
        p.event(
            &InputEvent::Key {
                key: KeyName::parse("G").expect("G"),
                pressed: true,
                repeat: true,
            },
            true,
        );
        assert!(p.tick().gear_down);
        let steps: Vec<f32> = (0..4)
            .map(|_| {
                press(&mut p, "F");
                release(&mut p, "F");
                p.controls().flaps
            })
            .collect();
        assert_eq!(steps, vec![0.5, 1.0, 0.0, 0.5]);
        press(&mut p, "Space");
        assert!(p.tick().wheel_brake);
        p.release_keys();
        assert!(!p.tick().wheel_brake);
    }

    #[test]
    fn keys_outside_flight_do_nothing_but_their_release_counts() {
        let mut p = defaults();
        p.event(&key("G", true), false);
        p.event(&key("S", true), false);
        assert!(!p.tick().gear_down);
        assert_eq!(p.controls().pitch, 0.0);
        press(&mut p, "S");
        p.event(&key("S", false), false);
        p.tick();
        assert_eq!(p.tick().pitch, 0.0);
    }

    #[test]
    fn throttle_moves_with_held_keys_and_stays_in_range() {
        let mut p = defaults();
        press(&mut p, "+");
        for _ in 0..200 {
            p.tick();
        }
        assert_eq!(p.controls().throttle, 1.0);
        release(&mut p, "+");
        press(&mut p, "PageDown");
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
    fn a_tap_shorter_than_a_tick_still_counts_once() {
        let mut p = defaults();
        press(&mut p, "Control");
        release(&mut p, "Control");
        assert!(p.tick().gun, "the tap fired one tick");
        assert!(!p.tick().gun);
        // Mouse buttons bind too (the gun's alternate).
        p.event(
            &InputEvent::Mouse {
                button: MouseButton::Left,
                pressed: true,
            },
            true,
        );
        assert!(p.tick().gun && p.tick().gun);
        p.release_keys();
        assert!(!p.tick().gun);
    }

    #[test]
    fn every_message_control_has_a_default_key() {
        let mut p = defaults();
        for k in ["H", "O", "J"] {
            press(&mut p, k);
        }
        press(&mut p, "L");
        press(&mut p, "V");
        press(&mut p, "Backspace");
        press(&mut p, "X");
        press(&mut p, "X");
        release(&mut p, "X");
        press(&mut p, "X");
        press(&mut p, "R");
        press(&mut p, "N");
        release(&mut p, "N");
        press(&mut p, "N");
        let c = p.tick();
        assert!(c.hook_down && c.canopy_open && c.ecm);
        assert!(c.fire_store && c.chaff_flare && c.respawn);
        assert_eq!((c.station_step, c.radar_step, c.designate_step), (2, 1, 2));
        let c = p.tick();
        assert_eq!(
            (c.station_step, c.radar_step, c.designate_step),
            (0, 0, 0),
            "steps are per tick"
        );
        press(&mut p, "Z");
        assert_eq!(p.tick().station_step, -1);
    }

    #[test]
    fn eject_needs_a_held_second() {
        let mut p = defaults();
        press(&mut p, "End");
        for _ in 0..EJECT_HOLD_TICKS - 1 {
            assert!(!p.tick().eject);
        }
        assert!(p.tick().eject);
        release(&mut p, "End");
        assert!(!p.tick().eject);
        // A tap never ejects.
        press(&mut p, "End");
        release(&mut p, "End");
        for _ in 0..5 {
            assert!(!p.tick().eject);
        }
    }

    #[test]
    fn game_actions_fire_once_per_press_in_flight() {
        let mut p = defaults();
        for k in ["C", "F12", "F3", "]", "[", "P", "T"] {
            press(&mut p, k);
            release(&mut p, k);
        }
        p.event(&key("C", true), false);
        assert_eq!(
            p.take_game_actions(),
            [
                Action::CameraNext,
                Action::Screenshot,
                Action::NetGraph,
                Action::ViewNext,
                Action::ViewPrev,
                Action::Pause,
                Action::Chat
            ]
        );
        assert_eq!(p.take_game_actions(), []);
    }

    #[test]
    fn a_connected_pad_at_rest_leaves_the_keyboard_in_charge() {
        let mut with_pad = defaults();
        let mut keys_only = defaults();
        with_pad.event(&pad(), true);
        for (a, v) in [
            (PadAxis::LeftX, 0.06),
            (PadAxis::LeftY, -0.08),
            (PadAxis::RightX, 0.09),
            (PadAxis::RightY, -0.05),
            (PadAxis::LeftTrigger, 0.04),
            (PadAxis::RightTrigger, 0.0),
        ] {
            with_pad.event(&pad_axis(a, v), true);
        }
        for p in [&mut with_pad, &mut keys_only] {
            press(p, "A");
            press(p, "S");
            press(p, "+");
        }
        for _ in 0..20 {
            assert_eq!(with_pad.tick(), keys_only.tick());
        }
        assert_eq!(with_pad.controls().roll, -1.0);
    }

    #[test]
    fn pad_sticks_fly_and_add_to_the_keys() {
        let mut p = defaults();
        p.event(&pad(), true);
        p.event(&pad_axis(PadAxis::LeftY, 1.0), true);
        p.event(&pad_axis(PadAxis::LeftX, -0.55), true);
        p.event(&pad_axis(PadAxis::RightX, 0.55), true);
        let c = p.tick();
        assert_eq!(c.pitch, -1.0, "stick pushed away: nose down, at once");
        assert!((c.roll + 0.5).abs() < 1e-6, "{}", c.roll);
        assert!((c.yaw - 0.5).abs() < 1e-6, "{}", c.yaw);
        press(&mut p, "D");
        for _ in 0..20 {
            p.tick();
        }
        assert!((p.controls().roll - 0.5).abs() < 1e-6);
        press(&mut p, "W");
        for _ in 0..20 {
            p.tick();
        }
        assert_eq!(p.controls().pitch, -1.0, "the sum is clamped");
    }

    #[test]
    fn triggers_move_the_throttle_in_proportion() {
        let mut p = defaults();
        p.event(&pad(), true);
        p.set_trim(0.5, false, 0.0);
        p.event(&pad_axis(PadAxis::RightTrigger, 1.0), true);
        for _ in 0..45 {
            p.tick();
        }
        assert!((p.controls().throttle - 1.0).abs() < 1e-4);
        p.event(&pad_axis(PadAxis::RightTrigger, 0.0), true);
        // Half-pulled left trigger (0.55 raw is 0.5 past the deadzone): half the rate.
        p.event(&pad_axis(PadAxis::LeftTrigger, 0.55), true);
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
        let mut p = defaults();
        p.event(&pad(), true);
        p.event(&pad_button(PadButton::North, true), true);
        p.event(&pad_button(PadButton::North, true), true);
        assert!(p.controls().gear_down);
        p.event(&pad_button(PadButton::North, false), true);
        p.event(&pad_button(PadButton::North, true), true);
        assert!(!p.controls().gear_down);
        p.event(&pad_button(PadButton::North, false), true);
        type Check = fn(&Controls) -> bool;
        let cases: [(PadButton, Check); 3] = [
            (PadButton::RightShoulder, |c| c.afterburner),
            (PadButton::East, |c| c.speedbrake),
            (PadButton::West, |c| c.flaps == 0.5),
        ];
        for (b, check) in cases {
            p.event(&pad_button(b, true), true);
            assert!(check(&p.controls()), "{b:?}");
            p.event(&pad_button(b, false), true);
        }
        // In a menu (A presses a button there) nothing toggles or brakes.
        p.event(&pad_button(PadButton::North, true), false);
        p.event(&pad_button(PadButton::South, true), false);
        assert!(!p.controls().gear_down);
        assert!(!p.tick().wheel_brake);
        p.event(&pad_button(PadButton::North, false), false);
        p.event(&pad_button(PadButton::South, false), false);
        p.event(&pad_button(PadButton::South, true), true);
        p.event(&pad_button(PadButton::Start, true), true);
        let c = p.tick();
        assert!(c.wheel_brake && !c.gear_down && c.afterburner);
        // Clicking the left stick designates (a step: one per press, counted per tick).
        p.event(&pad_button(PadButton::LeftStick, true), true);
        p.event(&pad_button(PadButton::LeftStick, true), true);
        assert_eq!(p.tick().designate_step, 1, "a held click is one press");
        assert_eq!(p.tick().designate_step, 0);
    }

    #[test]
    fn a_joystick_without_a_layout_ignores_the_gamepad_map() {
        let mut p = defaults();
        p.event(&connect(P, "Stick", DeviceKind::Joystick), true);
        p.event(&pad_axis(PadAxis::LeftX, 1.0), true);
        p.event(&pad_button(PadButton::North, true), true);
        let c = p.tick();
        assert_eq!(c.roll, 0.0);
        assert!(!c.gear_down);
    }

    #[test]
    fn disconnect_releases_what_the_device_held_and_the_keyboard_flies() {
        let mut p = defaults();
        p.event(&pad(), true);
        p.event(&pad_axis(PadAxis::LeftX, 1.0), true);
        p.event(&pad_axis(PadAxis::RightTrigger, 1.0), true);
        p.event(&pad_button(PadButton::South, true), true);
        p.event(&pad_button(PadButton::North, true), true);
        let before = p.tick();
        assert_eq!(before.roll, 1.0);
        assert!(before.wheel_brake && before.gear_down);
        p.event(
            &InputEvent::Device(DeviceEvent::Disconnected { slot: P }),
            true,
        );
        let after = p.tick();
        assert_eq!(after.roll, 0.0);
        assert!(!after.wheel_brake);
        assert!(after.gear_down, "a toggle stays where the pad left it");
        let t = after.throttle;
        assert_eq!(p.tick().throttle, t, "the trigger no longer pushes");
        assert_eq!(
            p.take_notices(),
            [
                "Gamepad \"Test Pad\" connected",
                "Gamepad \"Test Pad\" disconnected — the keyboard still flies"
            ]
        );
        press(&mut p, "A");
        for _ in 0..20 {
            p.tick();
        }
        assert_eq!(p.controls().roll, -1.0);
    }

    fn hotas() -> (Mapper, Source) {
        let stick = DeviceId {
            key: crate::device::IdKey::Name("Throttle".into()),
            ordinal: 0,
        };
        let src = Source::Device(stick);
        let mut b = Bindings::defaults();
        b.set(
            &src,
            Action::Throttle,
            Slot::Primary,
            Some(Binding::axis(
                Input::Axis(6, AxisPart::Whole),
                AxisSettings {
                    detent: Some(0.9),
                    ..AxisSettings::default()
                },
            )),
        )
        .expect("valid");
        b.set(
            &src,
            Action::WheelBrake,
            Slot::Primary,
            Some(Binding::of(Input::Axis(9, AxisPart::Whole))),
        )
        .expect("valid");
        b.set(
            &src,
            Action::Gear,
            Slot::Primary,
            Some(Binding::of(Input::Axis(10, AxisPart::Plus))),
        )
        .expect("valid");
        let mut m = Mapper::new(b);
        m.event(
            &connect(DeviceSlot(40), "Throttle", DeviceKind::Joystick),
            true,
        );
        (m, src)
    }

    fn raw_axis(code: u32, value: f32) -> InputEvent {
        InputEvent::Device(DeviceEvent::Axis {
            slot: DeviceSlot(40),
            code,
            named: None,
            value,
        })
    }

    #[test]
    fn a_throttle_lever_takes_over_when_it_moves_and_keys_take_it_back() {
        let (mut m, _) = hotas();
        m.set_trim(0.3, false, 0.0);
        // Resting at idle at connect: the spawn's 0.3 stands.
        m.event(&raw_axis(6, -1.0), true);
        assert_eq!(m.tick().throttle, 0.3);
        // Moved to the middle of its travel: half of the way to the detent.
        m.event(&raw_axis(6, 0.0), true);
        let c = m.tick();
        assert!((c.throttle - 0.5 / 0.9).abs() < 1e-5, "{}", c.throttle);
        assert!(!c.afterburner);
        // Past the detent: military and the afterburner.
        m.event(&raw_axis(6, 0.9), true);
        let c = m.tick();
        assert_eq!(c.throttle, 1.0);
        assert!(c.afterburner);
        // The afterburner key still toggles it off while the lever rests past the detent.
        press(&mut m, "Shift");
        assert!(!m.tick().afterburner);
        // Keys take the throttle back…
        press(&mut m, "-");
        for _ in 0..9 {
            m.tick();
        }
        release(&mut m, "-");
        assert!((m.tick().throttle - 0.9).abs() < 1e-4);
        // …until the lever moves again (back below the detent: the afterburner goes out).
        m.event(&raw_axis(6, 0.5), true);
        let c = m.tick();
        assert!((c.throttle - 0.75 / 0.9).abs() < 1e-5, "{}", c.throttle);
        assert!(!c.afterburner);
    }

    #[test]
    fn an_axis_bound_to_a_button_presses_past_half_with_hysteresis() {
        let (mut m, _) = hotas();
        // A toe brake resting at −1 (its whole travel is the press).
        m.event(&raw_axis(9, -1.0), true);
        assert!(!m.tick().wheel_brake);
        m.event(&raw_axis(9, 0.05), true);
        assert!(m.tick().wheel_brake, "past half its travel");
        m.event(&raw_axis(9, -0.15), true);
        assert!(m.tick().wheel_brake, "still above the release point");
        m.event(&raw_axis(9, -0.3), true);
        assert!(!m.tick().wheel_brake);
        // A toggle on half an axis fires once per push past half.
        for v in [0.0, 0.6, 0.7, 0.55, 0.0, 0.8] {
            m.event(&raw_axis(10, v), true);
        }
        assert!(!m.tick().gear_down, "two pushes: down and up again");
        m.event(&raw_axis(10, 0.0), true);
        m.event(&raw_axis(10, 0.9), true);
        assert!(m.tick().gear_down);
    }

    #[test]
    fn a_new_flight_starts_from_an_air_start_with_the_devices_kept() {
        let mut p = defaults();
        p.event(&pad(), true);
        press(&mut p, "G");
        press(&mut p, "Shift");
        press(&mut p, "S");
        for _ in 0..10 {
            p.tick();
        }
        p.reset_controls();
        let c = p.controls();
        assert!(!c.gear_down && !c.afterburner && c.throttle == 0.8);
        assert_eq!(p.devices().len(), 1);
        // S is still held: the stick ramps again from the centre.
        let c = p.tick();
        assert!(c.pitch > 0.0 && c.pitch < 0.1, "{}", c.pitch);
    }

    #[test]
    fn trim_is_clamped_and_ignores_nonsense() {
        let mut p = defaults();
        p.set_trim(f32::NAN, true, 7.0);
        let c = p.controls();
        assert_eq!((c.throttle, c.gear_down, c.flaps), (0.8, true, 1.0));
        p.set_trim(-3.0, false, f32::INFINITY);
        let c = p.controls();
        assert_eq!((c.throttle, c.gear_down, c.flaps), (0.0, false, 1.0));
    }
}

//! The bindings model: which input drives which [`Action`]. Inputs are grouped by [`Source`]
//! (the keyboard and mouse, any gamepad by its standard controls, or one particular device),
//! and each source gives every action a primary and an alternate binding ([`Slot`]), so the
//! keyboard, a gamepad and a HOTAS each have their own two columns and none crowds out another.
//!
//! Owns the defaults (the keys and pad map a new player flies with, unchanged from before
//! bindings existed), validity (an axis action takes only an axis; an input must belong to its
//! source), conflict detection, and the replace / swap choice. Must not hold input state (the
//! mapper's) or know the file format (`store`).

use std::collections::BTreeMap;

use crate::action::Action;
use crate::axis::{AxisPart, AxisSettings};
use crate::device::DeviceId;
use crate::keys::{KeyName, MouseButton};
use crate::pad::{PadAxis, PadButton};

/// Where a binding's input comes from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// The keyboard and the mouse.
    Keyboard,
    /// Any gamepad with a standard layout, by its controls' names (the default pad map).
    Gamepad,
    /// One device, by its raw codes (joysticks, throttles, pedals, or one particular pad).
    Device(DeviceId),
}

impl Source {
    /// How the Settings screen titles it (`names`: known device names).
    pub fn label(&self, names: &BTreeMap<DeviceId, String>) -> String {
        match self {
            Source::Keyboard => "Keyboard and mouse".to_owned(),
            Source::Gamepad => "Gamepad (any)".to_owned(),
            Source::Device(id) => names
                .get(id)
                .filter(|n| !n.is_empty())
                .map_or_else(|| id.to_string(), |n| format!("{n} ({})", id.ordinal + 1)),
        }
    }
}

/// An action's two bindings per source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    Primary,
    Alternate,
}

impl Slot {
    pub const BOTH: [Slot; 2] = [Slot::Primary, Slot::Alternate];

    pub fn index(self) -> usize {
        match self {
            Slot::Primary => 0,
            Slot::Alternate => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Slot::Primary => "primary",
            Slot::Alternate => "alternate",
        }
    }
}

/// A physical input.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Input {
    Key(KeyName),
    Mouse(MouseButton),
    /// A gamepad's button by its standard name (any gamepad).
    PadButton(PadButton),
    /// Part of a gamepad's axis by its standard name (any gamepad).
    PadAxis(PadAxis, AxisPart),
    /// A device's button by its raw code.
    Button(u32),
    /// Part of a device's axis by its raw code.
    Axis(u32, AxisPart),
}

impl Input {
    pub fn is_axis(&self) -> bool {
        matches!(self, Input::PadAxis(..) | Input::Axis(..))
    }

    /// The input can belong to `source`.
    pub fn fits(&self, source: &Source) -> bool {
        match self {
            Input::Key(_) | Input::Mouse(_) => *source == Source::Keyboard,
            Input::PadButton(_) | Input::PadAxis(..) => *source == Source::Gamepad,
            Input::Button(_) | Input::Axis(..) => matches!(source, Source::Device(_)),
        }
    }

    /// Both read the same physical control (the same key or button, or axis parts that share
    /// travel).
    pub fn overlaps(&self, other: &Input) -> bool {
        match (self, other) {
            (Input::PadAxis(a, p), Input::PadAxis(b, q)) => a == b && p.overlaps(*q),
            (Input::Axis(a, p), Input::Axis(b, q)) => a == b && p.overlaps(*q),
            _ => self == other,
        }
    }

    /// How the help and the Settings screen show it.
    pub fn label(&self) -> String {
        let part = |p: &AxisPart| match p {
            AxisPart::Whole => "",
            AxisPart::Plus => " +",
            AxisPart::Minus => " −",
        };
        match self {
            Input::Key(k) => k.label().to_owned(),
            Input::Mouse(b) => b.label(),
            Input::PadButton(b) => b.label().to_owned(),
            Input::PadAxis(a, p) => format!("{}{}", a.label(), part(p)),
            Input::Button(c) => format!("button {c}"),
            Input::Axis(c, p) => format!("{}{}", crate::device::axis_label(*c), part(p)),
        }
    }
}

/// An input bound to an action, with the axis maths when it is an axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub input: Input,
    /// Used only when `input` is an axis.
    pub axis: AxisSettings,
}

impl Binding {
    pub fn key(name: &str) -> Option<Binding> {
        Some(Binding::of(Input::Key(KeyName::parse(name)?)))
    }

    /// A binding with default axis settings.
    pub fn of(input: Input) -> Binding {
        Binding {
            input,
            axis: AxisSettings::default(),
        }
    }

    pub fn axis(input: Input, axis: AxisSettings) -> Binding {
        Binding { input, axis }
    }
}

/// Why a binding was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindError {
    #[error("{action} is an axis: bind a device axis to it (keys bind to its up / down halves)")]
    NeedsAxis { action: Action },
    #[error("that input does not belong to this source")]
    WrongSource,
    #[error("Escape is reserved: it always opens the pause menu and cancels a capture")]
    Reserved,
}

/// Checks that `binding` may drive `action` from `source`.
pub fn check(source: &Source, action: Action, binding: &Binding) -> Result<(), BindError> {
    if !binding.input.fits(source) {
        return Err(BindError::WrongSource);
    }
    if let Input::Key(k) = &binding.input
        && k.is_escape()
    {
        return Err(BindError::Reserved);
    }
    if action.needs_axis() && !binding.input.is_axis() {
        return Err(BindError::NeedsAxis { action });
    }
    Ok(())
}

/// Where a binding sits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    pub source: Source,
    pub action: Action,
    pub slot: Slot,
}

/// What to do when an input is already bound elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// The other place loses the input.
    Replace,
    /// The other place takes the target's old binding (cleared when it cannot take it, e.g. a
    /// key for an axis action).
    Swap,
}

type Row = [Option<Binding>; 2];

/// Every binding of every source.
#[derive(Debug, Clone, PartialEq)]
pub struct Bindings {
    tables: BTreeMap<Source, BTreeMap<Action, Row>>,
    /// Device names, for the Settings screen and `bindings.toml` (a device need not be
    /// connected to show its bindings).
    pub device_names: BTreeMap<DeviceId, String>,
}

impl Default for Bindings {
    fn default() -> Self {
        Self::defaults()
    }
}

impl Bindings {
    /// No bindings at all.
    pub fn empty() -> Self {
        Bindings {
            tables: BTreeMap::new(),
            device_names: BTreeMap::new(),
        }
    }

    /// The defaults: the keys and gamepad map a new player takes off with.
    pub fn defaults() -> Self {
        let mut b = Bindings::empty();
        for (action, primary, alternate) in DEFAULT_KEYS {
            for (slot, name) in [(Slot::Primary, primary), (Slot::Alternate, alternate)] {
                let input = match MouseButton::parse(name) {
                    Some(m) => Some(Input::Mouse(m)),
                    None => KeyName::parse(name).map(Input::Key),
                };
                if let Some(input) = input {
                    b.put(&Source::Keyboard, *action, slot, Some(Binding::of(input)));
                }
            }
        }
        for (action, input) in default_pad() {
            let binding = if input.is_axis() {
                let mut s = AxisSettings::pad();
                // Pushing the stick away (up, +) is nose down.
                s.invert = *action == Action::Pitch;
                Binding::axis(input.clone(), s)
            } else {
                Binding::of(input.clone())
            };
            b.put(&Source::Gamepad, *action, Slot::Primary, Some(binding));
        }
        b
    }

    /// The default binding of a place.
    pub fn default_of(place: &Place) -> Option<Binding> {
        match place.source {
            Source::Device(_) => None,
            _ => DEFAULTS.with(|d| d.get(&place.source, place.action, place.slot).cloned()),
        }
    }

    /// The binding at a place.
    pub fn get(&self, source: &Source, action: Action, slot: Slot) -> Option<&Binding> {
        self.tables
            .get(source)
            .and_then(|t| t.get(&action))
            .and_then(|row| row[slot.index()].as_ref())
    }

    /// Sets (or clears) the binding at a place without checks.
    fn put(&mut self, source: &Source, action: Action, slot: Slot, binding: Option<Binding>) {
        let table = self.tables.entry(source.clone()).or_default();
        let row = table.entry(action).or_default();
        row[slot.index()] = binding;
        if row.iter().all(Option::is_none) {
            table.remove(&action);
        }
        if table.is_empty() {
            self.tables.remove(source);
        }
    }

    /// Sets the binding at a place (`None` clears it). Conflicts are the caller's (see
    /// [`Bindings::conflicts`] and [`Bindings::assign`]).
    pub fn set(
        &mut self,
        source: &Source,
        action: Action,
        slot: Slot,
        binding: Option<Binding>,
    ) -> Result<(), BindError> {
        if let Some(b) = &binding {
            check(source, action, b)?;
        }
        let binding = binding.map(|b| Binding {
            axis: b.axis.sanitized(),
            ..b
        });
        self.put(source, action, slot, binding);
        Ok(())
    }

    /// Changes the axis settings of the binding at a place (nothing when there is none).
    pub fn set_axis_settings(&mut self, place: &Place, settings: AxisSettings) {
        if let Some(mut b) = self.get(&place.source, place.action, place.slot).cloned() {
            b.axis = settings.sanitized();
            self.put(&place.source, place.action, place.slot, Some(b));
        }
    }

    /// Every binding without copying its place: (source, action, slot, binding).
    pub fn entries(&self) -> impl Iterator<Item = (&Source, Action, Slot, &Binding)> + '_ {
        self.tables.iter().flat_map(|(source, table)| {
            table.iter().flat_map(move |(action, row)| {
                Slot::BOTH.into_iter().filter_map(move |slot| {
                    row[slot.index()]
                        .as_ref()
                        .map(|b| (source, *action, slot, b))
                })
            })
        })
    }

    /// Every binding, by source, action and slot.
    pub fn iter(&self) -> impl Iterator<Item = (Place, &Binding)> + '_ {
        self.tables.iter().flat_map(|(source, table)| {
            table.iter().flat_map(move |(action, row)| {
                Slot::BOTH.into_iter().filter_map(move |slot| {
                    row[slot.index()].as_ref().map(|b| {
                        (
                            Place {
                                source: source.clone(),
                                action: *action,
                                slot,
                            },
                            b,
                        )
                    })
                })
            })
        })
    }

    /// The sources that have bindings (the keyboard and gamepad always).
    pub fn sources(&self) -> Vec<Source> {
        let mut s: Vec<Source> = vec![Source::Keyboard, Source::Gamepad];
        s.extend(
            self.tables
                .keys()
                .filter(|k| matches!(k, Source::Device(_)))
                .cloned(),
        );
        s.extend(
            self.device_names
                .keys()
                .map(|id| Source::Device(id.clone()))
                .filter(|d| !self.tables.contains_key(d)),
        );
        s
    }

    /// The places in `source` whose input overlaps `input`.
    pub fn conflicts(&self, source: &Source, input: &Input) -> Vec<Place> {
        self.iter()
            .filter(|(p, b)| p.source == *source && b.input.overlaps(input))
            .map(|(p, _)| p)
            .collect()
    }

    /// Binds `binding` at `target`, resolving conflicts with `resolution` (ignored when there
    /// are none). Returns the places that lost or swapped their binding.
    pub fn assign(
        &mut self,
        target: &Place,
        binding: Binding,
        resolution: Resolution,
    ) -> Result<Vec<Place>, BindError> {
        check(&target.source, target.action, &binding)?;
        let old = self
            .get(&target.source, target.action, target.slot)
            .cloned();
        let others: Vec<Place> = self
            .conflicts(&target.source, &binding.input)
            .into_iter()
            .filter(|p| p != target)
            .collect();
        for p in &others {
            let give = match resolution {
                Resolution::Replace => None,
                Resolution::Swap => old
                    .clone()
                    .filter(|o| check(&p.source, p.action, o).is_ok()),
            };
            self.put(&p.source, p.action, p.slot, give);
        }
        self.set(&target.source, target.action, target.slot, Some(binding))?;
        Ok(others)
    }

    /// Puts `source`'s bindings back to the defaults (a device's: none).
    pub fn reset_source(&mut self, source: &Source) {
        self.tables.remove(source);
        if let Some(t) = Bindings::defaults().tables.remove(source) {
            self.tables.insert(source.clone(), t);
        }
    }

    /// The places whose binding differs from the default, with the binding (`None`: cleared).
    pub fn differences(&self) -> Vec<(Place, Option<Binding>)> {
        let defaults = Bindings::defaults();
        let mut places: Vec<Place> = self.iter().map(|(p, _)| p).collect();
        places.extend(defaults.iter().map(|(p, _)| p));
        places.sort();
        places.dedup();
        places
            .into_iter()
            .filter_map(|p| {
                let now = self.get(&p.source, p.action, p.slot);
                let def = defaults.get(&p.source, p.action, p.slot);
                (now != def).then(|| (p.clone(), now.cloned()))
            })
            .collect()
    }
}

thread_local! {
    /// The defaults, built once per thread for [`Bindings::default_of`].
    static DEFAULTS: Bindings = Bindings::defaults();
}

/// The default keys: (action, primary, alternate). Names as in `bindings.toml`; "" is none.
/// The flight keys are the ones the game had before bindings existed, except that Tab (now the
/// scoreboard) and Enter (now chat, with T) went to the afterburner's Shift and the store's L.
pub const DEFAULT_KEYS: &[(Action, &str, &str)] = &[
    (Action::PitchDown, "W", "ArrowUp"),
    (Action::PitchUp, "S", "ArrowDown"),
    (Action::RollLeft, "A", "ArrowLeft"),
    (Action::RollRight, "D", "ArrowRight"),
    (Action::YawLeft, "Q", ""),
    (Action::YawRight, "E", ""),
    (Action::ThrottleUp, "+", "PageUp"),
    (Action::ThrottleDown, "-", "PageDown"),
    (Action::Afterburner, "Shift", ""),
    (Action::Gear, "G", ""),
    (Action::Flaps, "F", ""),
    (Action::SpeedBrake, "B", ""),
    (Action::WheelBrake, "Space", ""),
    (Action::Hook, "H", ""),
    (Action::Canopy, "O", ""),
    (Action::Eject, "End", ""),
    (Action::Respawn, "Backspace", ""),
    (Action::Gun, "Control", "MouseLeft"),
    (Action::FireStore, "L", "MouseRight"),
    (Action::StationNext, "X", ""),
    (Action::StationPrev, "Z", ""),
    (Action::RadarMode, "R", ""),
    (Action::Designate, "N", ""),
    (Action::ChaffFlare, "V", ""),
    (Action::Ecm, "J", ""),
    (Action::CameraNext, "C", ""),
    (Action::ViewNext, "]", ""),
    (Action::ViewPrev, "[", ""),
    (Action::Pause, "P", ""),
    (Action::Screenshot, "F12", ""),
    (Action::NetGraph, "F3", ""),
    (Action::Chat, "T", "Enter"),
];

/// The default gamepad map (primary bindings of [`Source::Gamepad`]).
fn default_pad() -> &'static [(Action, Input)] {
    use AxisPart::Whole;
    const PAD: &[(Action, Input)] = &[
        (Action::Pitch, Input::PadAxis(PadAxis::LeftY, Whole)),
        (Action::Roll, Input::PadAxis(PadAxis::LeftX, Whole)),
        (Action::Yaw, Input::PadAxis(PadAxis::RightX, Whole)),
        (
            Action::ThrottleUp,
            Input::PadAxis(PadAxis::RightTrigger, Whole),
        ),
        (
            Action::ThrottleDown,
            Input::PadAxis(PadAxis::LeftTrigger, Whole),
        ),
        (
            Action::Afterburner,
            Input::PadButton(PadButton::RightShoulder),
        ),
        (Action::Gear, Input::PadButton(PadButton::North)),
        (Action::Flaps, Input::PadButton(PadButton::West)),
        (Action::SpeedBrake, Input::PadButton(PadButton::East)),
        (Action::WheelBrake, Input::PadButton(PadButton::South)),
        (Action::Gun, Input::PadButton(PadButton::LeftShoulder)),
        (Action::FireStore, Input::PadButton(PadButton::RightStick)),
        (Action::StationNext, Input::PadButton(PadButton::DPadRight)),
        (Action::StationPrev, Input::PadButton(PadButton::DPadLeft)),
        (Action::RadarMode, Input::PadButton(PadButton::DPadUp)),
        (Action::Designate, Input::PadButton(PadButton::LeftStick)),
        (Action::ChaffFlare, Input::PadButton(PadButton::DPadDown)),
        (Action::CameraNext, Input::PadButton(PadButton::Select)),
    ];
    PAD
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::IdKey;

    fn key(k: &str) -> Binding {
        Binding::key(k).expect("a key")
    }

    fn place(source: Source, action: Action, slot: Slot) -> Place {
        Place {
            source,
            action,
            slot,
        }
    }

    fn stick() -> Source {
        Source::Device(DeviceId {
            key: IdKey::Name("Stick".into()),
            ordinal: 0,
        })
    }

    #[test]
    fn defaults_are_valid_and_free_of_conflicts() {
        let d = Bindings::defaults();
        for (p, b) in d.iter() {
            assert_eq!(check(&p.source, p.action, b), Ok(()), "{p:?}");
            assert_eq!(
                d.conflicts(&p.source, &b.input),
                std::slice::from_ref(&p),
                "{p:?}"
            );
        }
        // Every default key name parses (a typo would silently drop a default).
        for (a, primary, alternate) in DEFAULT_KEYS {
            for n in [primary, alternate] {
                assert!(
                    n.is_empty() || d.iter().any(|(p, _)| p.action == *a),
                    "{a}: {n}"
                );
            }
            assert!(d.get(&Source::Keyboard, *a, Slot::Primary).is_some(), "{a}");
            let alt = d.get(&Source::Keyboard, *a, Slot::Alternate).is_some();
            assert_eq!(alt, !alternate.is_empty(), "{a}: {alternate}");
        }
        assert_eq!(d.differences(), []);
        // Every action but the stick and throttle axes has a key: a new player can do it all
        // from the keyboard.
        for a in Action::ALL.into_iter().filter(|a| !a.needs_axis()) {
            assert!(d.get(&Source::Keyboard, a, Slot::Primary).is_some(), "{a}");
        }
        let pitch = d.get(&Source::Gamepad, Action::Pitch, Slot::Primary);
        assert!(pitch.is_some_and(|b| b.axis.invert && b.axis.deadzone == 0.1));
    }

    #[test]
    fn axis_actions_take_only_axes_and_inputs_their_own_source() {
        let mut b = Bindings::empty();
        assert_eq!(
            b.set(
                &Source::Keyboard,
                Action::Pitch,
                Slot::Primary,
                Some(key("W"))
            ),
            Err(BindError::NeedsAxis {
                action: Action::Pitch
            })
        );
        assert_eq!(
            b.set(
                &Source::Gamepad,
                Action::Gear,
                Slot::Primary,
                Some(key("G"))
            ),
            Err(BindError::WrongSource)
        );
        assert_eq!(
            b.set(
                &stick(),
                Action::Gear,
                Slot::Primary,
                Some(Binding::of(Input::PadButton(PadButton::South)))
            ),
            Err(BindError::WrongSource)
        );
        assert_eq!(
            b.set(
                &Source::Keyboard,
                Action::Pause,
                Slot::Primary,
                Some(Binding::of(Input::Key(KeyName::escape())))
            ),
            Err(BindError::Reserved)
        );
        // An axis may drive a button action (a toe brake, a trigger).
        assert_eq!(
            b.set(
                &stick(),
                Action::WheelBrake,
                Slot::Primary,
                Some(Binding::of(Input::Axis(2, AxisPart::Whole)))
            ),
            Ok(())
        );
    }

    #[test]
    fn conflicts_are_found_within_a_source_and_resolved_by_choice() {
        let mut b = Bindings::defaults();
        // G is the gear's; binding it to the hook conflicts.
        let g = Input::Key(KeyName::parse("G").expect("G"));
        let gear = place(Source::Keyboard, Action::Gear, Slot::Primary);
        let hook = place(Source::Keyboard, Action::Hook, Slot::Primary);
        assert_eq!(
            b.conflicts(&Source::Keyboard, &g),
            std::slice::from_ref(&gear)
        );
        // The same key on another source is no conflict.
        assert_eq!(b.conflicts(&Source::Gamepad, &g), []);
        // Swap: the gear takes the hook's H.
        let moved = b.assign(&hook, key("G"), Resolution::Swap);
        assert_eq!(moved, Ok(vec![gear.clone()]));
        assert_eq!(
            b.get(&Source::Keyboard, Action::Gear, Slot::Primary),
            Some(&key("H"))
        );
        assert_eq!(
            b.get(&Source::Keyboard, Action::Hook, Slot::Primary),
            Some(&key("G"))
        );
        // Replace: the gear loses G; the canopy keeps nothing of it.
        let canopy = place(Source::Keyboard, Action::Canopy, Slot::Primary);
        b.assign(&canopy, key("H"), Resolution::Replace)
            .expect("valid");
        assert_eq!(b.get(&Source::Keyboard, Action::Gear, Slot::Primary), None);
        assert_eq!(
            b.get(&Source::Keyboard, Action::Canopy, Slot::Primary),
            Some(&key("H"))
        );
        // A swap the other place cannot take (a key for an axis) clears it instead.
        let mut d = Bindings::empty();
        let x = Binding::of(Input::Axis(0, AxisPart::Whole));
        d.set(&stick(), Action::Roll, Slot::Primary, Some(x.clone()))
            .expect("valid");
        d.set(
            &stick(),
            Action::Gun,
            Slot::Primary,
            Some(Binding::of(Input::Button(288))),
        )
        .expect("valid");
        let gun = place(stick(), Action::Gun, Slot::Primary);
        d.assign(&gun, x, Resolution::Swap).expect("valid");
        assert_eq!(d.get(&stick(), Action::Roll, Slot::Primary), None);
    }

    #[test]
    fn axis_halves_conflict_only_where_they_overlap() {
        let mut b = Bindings::empty();
        let s = stick();
        b.set(
            &s,
            Action::YawLeft,
            Slot::Primary,
            Some(Binding::of(Input::Axis(5, AxisPart::Minus))),
        )
        .expect("valid");
        assert_eq!(b.conflicts(&s, &Input::Axis(5, AxisPart::Plus)), []);
        assert_eq!(b.conflicts(&s, &Input::Axis(5, AxisPart::Whole)).len(), 1);
        assert_eq!(b.conflicts(&s, &Input::Axis(6, AxisPart::Minus)), []);
    }

    #[test]
    fn reset_per_source_restores_defaults_and_forgets_a_device() {
        let mut b = Bindings::defaults();
        b.set(
            &Source::Keyboard,
            Action::Gear,
            Slot::Primary,
            Some(key("L")),
        )
        .expect("valid");
        b.set(&Source::Gamepad, Action::Gear, Slot::Primary, None)
            .expect("valid");
        b.set(
            &stick(),
            Action::Gun,
            Slot::Primary,
            Some(Binding::of(Input::Button(288))),
        )
        .expect("valid");
        assert_eq!(b.differences().len(), 3);
        b.reset_source(&Source::Keyboard);
        assert_eq!(b.differences().len(), 2);
        b.reset_source(&stick());
        assert_eq!(b.get(&stick(), Action::Gun, Slot::Primary), None);
        b.reset_source(&Source::Gamepad);
        assert_eq!(b, Bindings::defaults());
    }

    #[test]
    fn settings_are_sanitised_when_set() {
        let mut b = Bindings::empty();
        let p = place(stick(), Action::Roll, Slot::Primary);
        b.set(
            &p.source,
            p.action,
            p.slot,
            Some(Binding::axis(
                Input::Axis(0, AxisPart::Whole),
                AxisSettings {
                    deadzone: f32::NAN,
                    ..AxisSettings::default()
                },
            )),
        )
        .expect("valid");
        b.set_axis_settings(
            &p,
            AxisSettings {
                expo: 4.0,
                ..AxisSettings::default()
            },
        );
        let s = b.get(&p.source, p.action, p.slot).map(|b| b.axis);
        assert_eq!(s.map(|s| (s.deadzone, s.expo)), Some((0.0, 1.0)));
        assert_eq!(
            Bindings::default_of(&place(Source::Keyboard, Action::Gear, Slot::Primary)),
            Some(key("G"))
        );
    }
}

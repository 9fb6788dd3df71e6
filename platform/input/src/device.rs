//! Game controllers as plain data: what a backend (gilrs, the evdev fallback, a test) reports
//! ([`DeviceEvent`]), how a device is known across sessions ([`DeviceId`]), and
//! [`DeviceSet`], the connected devices with the state of every axis and button, built from
//! those events.
//!
//! Owns: the stable identity (the backend's slot is only a number for this run; a binding
//! names the [`DeviceId`]), hot-plug (a disconnect lets go of everything the device held, and
//! says so in a notice), and bounds on a hostile flood (devices, axes and buttons tracked).
//! Must not: know bindings or actions (the mapper's), or touch a backend.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::pad::{MAX_NAME_CHARS, PadAxis, PadButton, PadEvent, PadId};

/// Devices tracked at most.
pub const MAX_DEVICES: usize = 16;
/// Axes tracked per device at most.
pub const MAX_AXES: usize = 64;
/// Buttons held per device at most.
pub const MAX_HELD: usize = 128;
/// Notices kept until taken at most.
const MAX_NOTICES: usize = 16;

/// A device as its backend numbers it for this run (not stable across runs: see [`DeviceId`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeviceSlot(pub u32);

/// What kind of controller a device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DeviceKind {
    /// A gamepad with a standard layout (gilrs knows its mapping): its controls have names
    /// ([`PadButton`], [`PadAxis`]) and the default gamepad bindings apply to it.
    Gamepad,
    /// A joystick, throttle, pedals or any other controller: raw button and axis codes.
    Joystick,
}

/// What a backend says about a device when it connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    pub name: String,
    /// The backend's identity of the model (gilrs's UUID: bus, vendor, product, version);
    /// all zero when the backend has none.
    pub uuid: [u8; 16],
    pub kind: DeviceKind,
}

/// How a device is recognised across sessions.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IdKey {
    /// The backend's model UUID (when not all zero).
    Uuid([u8; 16]),
    /// The device's name (when the backend has no UUID).
    Name(String),
}

/// A device's stable identity: its model ([`IdKey`]) and its ordinal among the connected
/// devices of that model (two identical sticks are `#0` and `#1`), so a binding follows the
/// device whatever slot or port it is plugged into. Written `uuid:<32 hex>#<n>` or
/// `name:<name>#<n>`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeviceId {
    pub key: IdKey,
    pub ordinal: u8,
}

impl DeviceId {
    /// The identity key of a device (its UUID, else its cleaned name).
    pub fn key_of(info: &DeviceInfo) -> IdKey {
        if info.uuid.iter().any(|b| *b != 0) {
            IdKey::Uuid(info.uuid)
        } else {
            IdKey::Name(clean_name(&info.name))
        }
    }
}

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            IdKey::Uuid(u) => {
                f.write_str("uuid:")?;
                for b in u {
                    write!(f, "{b:02x}")?;
                }
            }
            IdKey::Name(n) => write!(f, "name:{n}")?,
        }
        write!(f, "#{}", self.ordinal)
    }
}

/// Why a device id string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a device id (expected uuid:<32 hex digits>#<n> or name:<name>#<n>): {0:?}")]
pub struct BadDeviceId(pub String);

impl std::str::FromStr for DeviceId {
    type Err = BadDeviceId;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadDeviceId(s.chars().take(80).collect());
        let (key, ordinal) = s.rsplit_once('#').ok_or_else(bad)?;
        if ordinal.is_empty() || ordinal.len() > 3 || !ordinal.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let ordinal: u8 = ordinal.parse().map_err(|_| bad())?;
        let key = if let Some(hex) = key.strip_prefix("uuid:") {
            if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad());
            }
            let mut u = [0u8; 16];
            for (i, b) in u.iter_mut().enumerate() {
                *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
            }
            IdKey::Uuid(u)
        } else if let Some(name) = key.strip_prefix("name:") {
            let clean = clean_name(name);
            if clean != name || clean.is_empty() {
                return Err(bad());
            }
            IdKey::Name(clean)
        } else {
            return Err(bad());
        };
        Ok(DeviceId { key, ordinal })
    }
}

/// A device-supplied name made safe to show and store: control characters dropped, at most
/// [`MAX_NAME_CHARS`], trimmed.
pub fn clean_name(name: &str) -> String {
    let s: String = name
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME_CHARS)
        .collect();
    s.trim().to_owned()
}

/// What a device backend reports.
#[derive(Debug, Clone, PartialEq)]
pub enum DeviceEvent {
    Connected {
        slot: DeviceSlot,
        info: DeviceInfo,
    },
    /// The device is gone: everything it held is let go.
    Disconnected {
        slot: DeviceSlot,
    },
    Button {
        slot: DeviceSlot,
        /// The platform's code (on Linux the evdev key code, gilrs or evdev alike).
        code: u32,
        /// Its standard name on a gamepad.
        named: Option<PadButton>,
        pressed: bool,
    },
    Axis {
        slot: DeviceSlot,
        /// The platform's code (on Linux the evdev absolute-axis code).
        code: u32,
        /// Its standard name on a gamepad.
        named: Option<PadAxis>,
        /// −1 … 1 (a named trigger: 0 released … 1 pulled).
        value: f32,
    },
}

impl DeviceEvent {
    pub fn slot(&self) -> DeviceSlot {
        match self {
            DeviceEvent::Connected { slot, .. }
            | DeviceEvent::Disconnected { slot }
            | DeviceEvent::Button { slot, .. }
            | DeviceEvent::Axis { slot, .. } => *slot,
        }
    }

    /// The gamepad event menu navigation reads (`None` for controls without a standard name).
    pub fn pad_event(&self) -> Option<PadEvent> {
        let pad = PadId(self.slot().0 as usize);
        match self {
            DeviceEvent::Connected { info, .. } => Some(PadEvent::Connected {
                pad,
                name: info.name.clone(),
            }),
            DeviceEvent::Disconnected { .. } => Some(PadEvent::Disconnected {
                pad,
                name: String::new(),
            }),
            DeviceEvent::Button {
                named: Some(button),
                pressed,
                ..
            } => Some(PadEvent::Button {
                pad,
                button: *button,
                pressed: *pressed,
            }),
            DeviceEvent::Axis {
                named: Some(axis),
                value,
                ..
            } => Some(PadEvent::Axis {
                pad,
                axis: *axis,
                value: *value,
            }),
            _ => None,
        }
    }
}

/// One axis's last report.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisState {
    /// Clamped to the axis's range; 0 for values that were not finite.
    pub value: f32,
    /// Rests at 0 and reports 0 … 1 (a trigger).
    pub unipolar: bool,
    pub named: Option<PadAxis>,
}

/// A connected device and the state of its controls.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    pub id: DeviceId,
    pub info: DeviceInfo,
    /// Axes by code, as reported so far (a backend reports each at connect or when it moves).
    pub axes: BTreeMap<u32, AxisState>,
    /// Held buttons: (code, standard name).
    held: BTreeMap<u32, Option<PadButton>>,
}

impl Device {
    pub fn held(&self, code: u32) -> bool {
        self.held.contains_key(&code)
    }

    /// The raw codes of the buttons held, in code order.
    pub fn held_codes(&self) -> impl Iterator<Item = u32> + '_ {
        self.held.keys().copied()
    }

    pub fn held_named(&self, b: PadButton) -> bool {
        self.held.values().any(|n| *n == Some(b))
    }

    /// The value of the axis with the standard name `a` (0 when it has not reported).
    pub fn named_axis(&self, a: PadAxis) -> Option<&AxisState> {
        self.axes.values().find(|s| s.named == Some(a))
    }

    pub fn is_gamepad(&self) -> bool {
        self.info.kind == DeviceKind::Gamepad
    }
}

/// What [`DeviceSet::apply`] changed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change {
    Nothing,
    Connected,
    Disconnected,
    /// A button went down or up (a repeated report of a held button is `Nothing`).
    Button {
        code: u32,
        pressed: bool,
    },
    /// An axis moved from `before` (`None`: its first report).
    Axis {
        code: u32,
        before: Option<f32>,
    },
}

/// The connected devices, built from [`DeviceEvent`]s.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceSet {
    devices: BTreeMap<DeviceSlot, Device>,
    notices: Vec<String>,
}

impl DeviceSet {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.devices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }

    pub fn get(&self, slot: DeviceSlot) -> Option<&Device> {
        self.devices.get(&slot)
    }

    /// The connected devices, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (DeviceSlot, &Device)> + '_ {
        self.devices.iter().map(|(s, d)| (*s, d))
    }

    /// The connected device with this identity.
    pub fn find(&self, id: &DeviceId) -> Option<(DeviceSlot, &Device)> {
        self.iter().find(|(_, d)| d.id == *id)
    }

    /// Takes the hot-plug notices (oldest first).
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    fn notice(&mut self, n: String) {
        if self.notices.len() >= MAX_NOTICES {
            self.notices.remove(0);
        }
        self.notices.push(n);
    }

    /// The identity a newly connected device gets: the lowest ordinal no connected device of
    /// its model holds (a replugged stick gets its number back; its twin keeps its own).
    fn next_id(&self, info: &DeviceInfo) -> DeviceId {
        let key = DeviceId::key_of(info);
        let taken: BTreeSet<u8> = self
            .devices
            .values()
            .filter(|d| d.id.key == key)
            .map(|d| d.id.ordinal)
            .collect();
        let ordinal = (0..=u8::MAX)
            .find(|o| !taken.contains(o))
            .unwrap_or(u8::MAX);
        DeviceId { key, ordinal }
    }

    /// Applies one event and says what changed.
    pub fn apply(&mut self, ev: &DeviceEvent) -> Change {
        match ev {
            DeviceEvent::Connected { slot, info } => {
                // A reconnect in the same slot starts over (and may be another device).
                if let Some(old) = self.devices.remove(slot) {
                    self.notice(disconnected_notice(&old.info));
                }
                if self.devices.len() >= MAX_DEVICES {
                    return Change::Nothing;
                }
                let info = DeviceInfo {
                    name: clean_name(&info.name),
                    ..info.clone()
                };
                let id = self.next_id(&info);
                self.notice(connected_notice(&info));
                self.devices.insert(
                    *slot,
                    Device {
                        id,
                        info,
                        axes: BTreeMap::new(),
                        held: BTreeMap::new(),
                    },
                );
                Change::Connected
            }
            DeviceEvent::Disconnected { slot } => match self.devices.remove(slot) {
                Some(d) => {
                    self.notice(disconnected_notice(&d.info));
                    Change::Disconnected
                }
                None => Change::Nothing,
            },
            DeviceEvent::Button {
                slot,
                code,
                named,
                pressed,
            } => {
                let Some(d) = self.devices.get_mut(slot) else {
                    return Change::Nothing;
                };
                let was = d.held.contains_key(code);
                if was == *pressed {
                    return Change::Nothing;
                }
                if *pressed {
                    if d.held.len() >= MAX_HELD {
                        return Change::Nothing;
                    }
                    d.held.insert(*code, *named);
                } else {
                    d.held.remove(code);
                }
                Change::Button {
                    code: *code,
                    pressed: *pressed,
                }
            }
            DeviceEvent::Axis {
                slot,
                code,
                named,
                value,
            } => {
                let Some(d) = self.devices.get_mut(slot) else {
                    return Change::Nothing;
                };
                let unipolar = named.is_some_and(|a| a.is_trigger());
                let v = if !value.is_finite() {
                    0.0
                } else if unipolar {
                    value.clamp(0.0, 1.0)
                } else {
                    value.clamp(-1.0, 1.0)
                };
                let before = d.axes.get(code).map(|s| s.value);
                if before.is_none() && d.axes.len() >= MAX_AXES {
                    return Change::Nothing;
                }
                d.axes.insert(
                    *code,
                    AxisState {
                        value: v,
                        unipolar,
                        named: *named,
                    },
                );
                Change::Axis {
                    code: *code,
                    before,
                }
            }
        }
    }
}

fn kind_word(info: &DeviceInfo) -> &'static str {
    match info.kind {
        DeviceKind::Gamepad => "Gamepad",
        DeviceKind::Joystick => "Controller",
    }
}

fn quoted(name: &str) -> String {
    let clean = clean_name(name);
    if clean.is_empty() {
        "(unnamed)".to_owned()
    } else {
        format!("\"{clean}\"")
    }
}

fn connected_notice(info: &DeviceInfo) -> String {
    format!("{} {} connected", kind_word(info), quoted(&info.name))
}

fn disconnected_notice(info: &DeviceInfo) -> String {
    format!(
        "{} {} disconnected — the keyboard still flies",
        kind_word(info),
        quoted(&info.name)
    )
}

/// A name for a raw axis code in the readout (Linux evdev names, else the number).
pub fn axis_label(code: u32) -> String {
    const EVDEV: [&str; 11] = [
        "X", "Y", "Z", "Rx", "Ry", "Rz", "Throttle", "Rudder", "Wheel", "Gas", "Brake",
    ];
    match code {
        c if cfg!(target_os = "linux") && (c as usize) < EVDEV.len() => EVDEV[c as usize].into(),
        c if cfg!(target_os = "linux") && (0x10..=0x17).contains(&c) => {
            let n = c - 0x10;
            format!("Hat{}{}", n / 2, if n % 2 == 0 { "X" } else { "Y" })
        }
        c => format!("axis {c}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn info(name: &str, uuid: u8, kind: DeviceKind) -> DeviceInfo {
        let mut u = [0u8; 16];
        u[15] = uuid;
        DeviceInfo {
            name: name.into(),
            uuid: u,
            kind,
        }
    }

    fn connect(set: &mut DeviceSet, slot: u32, i: &DeviceInfo) {
        set.apply(&DeviceEvent::Connected {
            slot: DeviceSlot(slot),
            info: i.clone(),
        });
    }

    #[test]
    fn identical_devices_get_ordinals_that_follow_them_not_their_slots() {
        let stick = info("Stick", 7, DeviceKind::Joystick);
        let mut set = DeviceSet::new();
        connect(&mut set, 4, &stick);
        connect(&mut set, 9, &stick);
        let id = |set: &DeviceSet, s| set.get(DeviceSlot(s)).map(|d| d.id.to_string());
        assert_eq!(
            id(&set, 4).as_deref(),
            Some("uuid:00000000000000000000000000000007#0")
        );
        assert_eq!(
            id(&set, 9).as_deref(),
            Some("uuid:00000000000000000000000000000007#1")
        );
        // The first is unplugged and comes back in another slot: it is #0 again, the other
        // stays #1.
        set.apply(&DeviceEvent::Disconnected {
            slot: DeviceSlot(4),
        });
        connect(&mut set, 12, &stick);
        assert!(id(&set, 12).is_some_and(|s| s.ends_with("#0")));
        assert!(id(&set, 9).is_some_and(|s| s.ends_with("#1")));
        // No UUID: the name identifies it.
        connect(&mut set, 20, &info("Pedals\u{1b}", 0, DeviceKind::Joystick));
        assert_eq!(id(&set, 20).as_deref(), Some("name:Pedals#0"));
    }

    #[test]
    fn device_ids_round_trip_and_reject_nonsense() {
        for s in [
            "uuid:030000005e0400008e02000010010000#0",
            "name:Saitek Pro Flight Rudder Pedals#2",
            "name:Weird # Name#1",
        ] {
            let id: DeviceId = s.parse().expect(s);
            assert_eq!(id.to_string(), s);
        }
        for s in [
            "",
            "uuid:12#0",
            "uuid:zz0000005e0400008e02000010010000#0",
            "name:#0",
            "name:X#",
            "name:X#999",
            "name:X#-1",
            "joystick:X#0",
            "name:a\u{7}b#0",
        ] {
            assert!(s.parse::<DeviceId>().is_err(), "{s:?}");
        }
    }

    #[test]
    fn hot_plug_lets_go_and_says_so() {
        let pad = info("Test Pad", 1, DeviceKind::Gamepad);
        let mut set = DeviceSet::new();
        connect(&mut set, 0, &pad);
        let s = DeviceSlot(0);
        set.apply(&DeviceEvent::Button {
            slot: s,
            code: 304,
            named: Some(PadButton::South),
            pressed: true,
        });
        set.apply(&DeviceEvent::Axis {
            slot: s,
            code: 0,
            named: Some(PadAxis::LeftX),
            value: 1.0,
        });
        assert!(set.get(s).is_some_and(|d| d.held(304)));
        assert_eq!(
            set.apply(&DeviceEvent::Disconnected { slot: s }),
            Change::Disconnected
        );
        assert!(set.is_empty());
        assert_eq!(
            set.take_notices(),
            [
                "Gamepad \"Test Pad\" connected",
                "Gamepad \"Test Pad\" disconnected — the keyboard still flies"
            ]
        );
        // Events from a device that is gone change nothing.
        assert_eq!(
            set.apply(&DeviceEvent::Button {
                slot: s,
                code: 304,
                named: None,
                pressed: true
            }),
            Change::Nothing
        );
        connect(&mut set, 3, &info("", 0, DeviceKind::Joystick));
        assert_eq!(set.take_notices(), ["Controller (unnamed) connected"]);
    }

    #[test]
    fn floods_are_bounded_and_values_clamped() {
        let mut set = DeviceSet::new();
        for i in 0..100 {
            connect(&mut set, i, &info("Pad", 1, DeviceKind::Gamepad));
        }
        assert_eq!(set.len(), MAX_DEVICES);
        let s = DeviceSlot(0);
        for code in 0..1_000 {
            set.apply(&DeviceEvent::Axis {
                slot: s,
                code,
                named: None,
                value: 5.0,
            });
            set.apply(&DeviceEvent::Button {
                slot: s,
                code,
                named: None,
                pressed: true,
            });
        }
        let d = set.get(s).expect("pad 0");
        assert_eq!(d.axes.len(), MAX_AXES);
        assert!(d.axes.values().all(|a| a.value == 1.0));
        assert_eq!(d.held.len(), MAX_HELD);
        set.apply(&DeviceEvent::Axis {
            slot: s,
            code: 5000,
            named: Some(PadAxis::LeftTrigger),
            value: -1.0,
        });
        set.apply(&DeviceEvent::Axis {
            slot: s,
            code: 1,
            named: None,
            value: f32::NAN,
        });
        let d = set.get(s).expect("pad 0");
        assert_eq!(d.axes.get(&1).map(|a| a.value), Some(0.0));
        assert!(set.take_notices().len() <= MAX_NOTICES);
    }

    #[test]
    fn gamepad_events_reach_menu_navigation_by_name_only() {
        let s = DeviceSlot(2);
        let named = DeviceEvent::Button {
            slot: s,
            code: 1,
            named: Some(PadButton::DPadUp),
            pressed: true,
        };
        assert_eq!(
            named.pad_event(),
            Some(PadEvent::Button {
                pad: PadId(2),
                button: PadButton::DPadUp,
                pressed: true
            })
        );
        let raw = DeviceEvent::Axis {
            slot: s,
            code: 6,
            named: None,
            value: 0.3,
        };
        assert_eq!(raw.pad_event(), None);
    }

    #[test]
    fn raw_axes_have_readable_labels() {
        if cfg!(target_os = "linux") {
            assert_eq!(axis_label(0), "X");
            assert_eq!(axis_label(6), "Throttle");
            assert_eq!(axis_label(0x11), "Hat0Y");
        }
        assert_eq!(axis_label(0x30), "axis 48");
    }
}

//! fl-input: the game's controls from devices, through the player's bindings. Keyboard keys and
//! mouse buttons (winit), gamepads, joysticks, throttles and pedals (gilrs, and on Linux an
//! evdev fallback for the controllers gilrs skips) become one neutral [`Controls`] value per
//! 60 Hz input tick plus the game's own actions; gamepads also navigate the menus
//! ([`MenuNav`] → [`UiKey`]); devices coming and going produce notices.
//!
//! Layers, from the device up: backends ([`Gamepads`], [`evdev`]) only translate what they read
//! into [`DeviceEvent`]s; [`DeviceSet`] tracks connected devices under a stable [`DeviceId`];
//! [`Bindings`] say which input drives which [`Action`] (with [`AxisSettings`] for axes);
//! [`Mapper`] turns events into [`Controls`]; [`Capture`] and [`readout`] are the Settings
//! screen's rebinding; [`store`] keeps `bindings.toml`. Everything but the backends and the
//! file store is pure: fed events, asked once per tick, it never reads a clock or a device, so
//! it is tested without hardware (docs/controls.md).
//!
//! Must not: depend on the client or any `engine/*` crate (it hands out plain data), read the
//! wall clock (callers count ticks, see [`Ticker`]), or fail the game when a device library
//! cannot start or the bindings file is bad (the keyboard always flies, on the defaults).

pub mod action;
pub mod axis;
pub mod backend;
pub mod binding;
pub mod capture;
pub mod device;
#[cfg(target_os = "linux")]
pub mod evdev;
pub mod gamepad;
pub mod help;
pub mod keys;
pub mod mapper;
pub mod nav;
pub mod pad;
pub mod store;

pub use action::{Action, ActionGroup, ActionKind};
pub use axis::{AxisPart, AxisSettings, Travel};
pub use backend::Devices;
pub use binding::{BindError, Binding, Bindings, Input, Place, Resolution, Slot, Source};
pub use capture::{Capture, CaptureState, Choice, Conflict, DeviceReadout, readout};
pub use device::{DeviceEvent, DeviceId, DeviceInfo, DeviceKind, DeviceSet, DeviceSlot};
pub use gamepad::{Gamepads, InputError};
pub use help::{HelpRow, help_markdown, help_rows};
pub use keys::{KeyName, MouseButton};
pub use mapper::{Controls, InputEvent, Mapper};
pub use nav::{MenuNav, Ticker, UiKey};
pub use pad::{DEADZONE, PadAxis, PadButton, PadEvent, PadId, PadSet, deadzone};

/// The input clock's rate: [`Mapper::tick`] and [`MenuNav::tick`] count these.
pub const TICK_HZ: u32 = 60;

/// Slots of devices found by the evdev fallback start here (gilrs's are below).
pub const EVDEV_SLOT_BASE: u32 = 1 << 20;

//! fl-input: the game's default flight controls from devices, until the controls issue's
//! bindings (`bindings.toml`, rebinding, HOTAS) are layered on top. Keyboard keys (winit's
//! [`Key`](winit::keyboard::Key)) and gamepads (gilrs) become one neutral [`Controls`] value per
//! 60 Hz input tick; gamepads also navigate the menus ([`MenuNav`] → [`UiKey`]) and report
//! being plugged in or out as a notice the game can show.
//!
//! Owns: the default key and pad maps ([`action_for`], [`pad_action`], [`KEYS_HELP`],
//! [`PAD_HELP`]), the keyboard ramps and the pad deadzone, how keyboard and pads combine, the
//! menu-navigation repeat, and the gilrs backend ([`Gamepads`]), which only translates gilrs
//! events into [`PadEvent`]s. Everything but that backend is pure: fed events, asked once per
//! tick, it never reads a clock or a device, so it is tested without hardware.
//!
//! Must not: depend on the client or any `engine/*` crate (it hands out plain data), read the
//! wall clock (callers count ticks, see [`Ticker`]), or fail the game when no gamepad library
//! can start (the keyboard always flies).

pub mod flight;
pub mod gamepad;
pub mod keyboard;
pub mod nav;
pub mod pad;

pub use flight::{Controls, FlightInput, pad_action};
pub use gamepad::{Gamepads, InputError};
pub use keyboard::{Action, KEYS_HELP, action_for};
pub use nav::{MenuNav, Ticker, UiKey};
pub use pad::{DEADZONE, PAD_HELP, PadAxis, PadButton, PadEvent, PadId, PadSet, deadzone};

/// The input clock's rate: [`FlightInput::tick`] and [`MenuNav::tick`] count these.
pub const TICK_HZ: u32 = 60;

//! Every device backend at once: gilrs (gamepads and the controllers it takes) and, on Linux,
//! the evdev fallback for the controllers gilrs skips, polled together into one stream of
//! [`DeviceEvent`]s. Their slots never collide (the fallback's start at
//! [`EVDEV_SLOT_BASE`](crate::EVDEV_SLOT_BASE)).
//!
//! Owns starting the backends and saying why one is missing. Must not fail: with no backend at
//! all the keyboard and mouse still fly.

use crate::device::DeviceEvent;
use crate::gamepad::Gamepads;

/// The running device backends.
#[derive(Debug, Default)]
pub struct Devices {
    gilrs: Option<Gamepads>,
    #[cfg(target_os = "linux")]
    evdev: Option<crate::evdev::Evdev<crate::evdev::LinuxDir>>,
}

impl Devices {
    /// Starts every backend this platform has; the lines say which could not start (for the
    /// log: the game goes on without them).
    pub fn start() -> (Devices, Vec<String>) {
        let mut warnings = Vec::new();
        let gilrs = match Gamepads::new() {
            Ok(g) => Some(g),
            Err(e) => {
                warnings.push(format!("{e}; the keyboard and mouse still work"));
                None
            }
        };
        let devices = Devices {
            gilrs,
            #[cfg(target_os = "linux")]
            evdev: Some(crate::evdev::start()),
        };
        (devices, warnings)
    }

    /// No backend (tests, or a player who turned devices off).
    pub fn none() -> Devices {
        Devices::default()
    }

    /// Appends what every backend reports since the last poll.
    pub fn poll(&mut self, out: &mut Vec<DeviceEvent>) {
        if let Some(g) = &mut self.gilrs {
            g.poll(out);
        }
        #[cfg(target_os = "linux")]
        if let Some(e) = &mut self.evdev {
            e.poll(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starting_and_polling_never_fails_and_none_reports_nothing() {
        let (mut d, _warnings) = Devices::start();
        let mut out = Vec::new();
        d.poll(&mut out);
        d.poll(&mut out);
        let mut none = Devices::none();
        let mut quiet = Vec::new();
        none.poll(&mut quiet);
        assert!(quiet.is_empty());
    }
}

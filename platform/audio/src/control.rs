//! What the game thread and the audio thread share without a lock: the continuous values the
//! game sets every frame — bus volumes, focus, whether the world is heard, the own aircraft —
//! in atomics, read once per block by the audio side, and a counter of the frames the device
//! pulled (the game's watchdog reads it). A value written in two fields may be read half-old
//! for one block; every one of them is a level or a state that glides anyway.
//!
//! Owns the shared atomics. Must not: block, allocate, or do any mixing (`mixer`).

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use crate::engine::EngineParams;
use crate::mixer::{Bus, DEFAULT_UNFOCUSED_GAIN, Mixer, OwnAircraft};

/// An `f32` in an atomic.
#[derive(Debug, Default)]
pub(crate) struct AtomicF32(AtomicU32);

impl AtomicF32 {
    pub(crate) fn new(v: f32) -> AtomicF32 {
        AtomicF32(AtomicU32::new(v.to_bits()))
    }

    pub(crate) fn get(&self) -> f32 {
        f32::from_bits(self.0.load(Ordering::Relaxed))
    }

    pub(crate) fn set(&self, v: f32) {
        self.0.store(v.to_bits(), Ordering::Relaxed);
    }
}

/// The own aircraft, field by field.
#[derive(Debug, Default)]
struct OwnCell {
    present: AtomicBool,
    rpm: AtomicF32,
    throttle: AtomicF32,
    afterburner: AtomicF32,
    q: AtomicF32,
    gear_moving: AtomicBool,
    flaps_moving: AtomicBool,
    stall: AtomicF32,
}

/// The shared state. See the module's documentation.
#[derive(Debug)]
pub(crate) struct Shared {
    bus: [AtomicF32; 6],
    focused: AtomicBool,
    unfocused_gain: AtomicF32,
    world: AtomicBool,
    own: OwnCell,
    /// Frames the device has pulled since the output opened (all devices together).
    pub(crate) rendered: AtomicU64,
}

impl Default for Shared {
    fn default() -> Shared {
        Shared {
            bus: Bus::ALL.map(|b| AtomicF32::new(b.default_volume())),
            focused: AtomicBool::new(true),
            unfocused_gain: AtomicF32::new(DEFAULT_UNFOCUSED_GAIN),
            world: AtomicBool::new(true),
            own: OwnCell::default(),
            rendered: AtomicU64::new(0),
        }
    }
}

impl Shared {
    pub(crate) fn set_bus(&self, bus: Bus, v: f32) {
        self.bus[bus.index()].set(crate::engine::unit(v));
    }

    pub(crate) fn bus(&self, bus: Bus) -> f32 {
        self.bus[bus.index()].get()
    }

    pub(crate) fn set_focus(&self, focused: bool) {
        self.focused.store(focused, Ordering::Relaxed);
    }

    pub(crate) fn focused(&self) -> bool {
        self.focused.load(Ordering::Relaxed)
    }

    pub(crate) fn set_unfocused_gain(&self, g: f32) {
        self.unfocused_gain.set(crate::engine::unit(g));
    }

    pub(crate) fn set_world(&self, on: bool) {
        self.world.store(on, Ordering::Relaxed);
    }

    pub(crate) fn set_own(&self, p: OwnAircraft) {
        let p = p.sanitized();
        let o = &self.own;
        o.rpm.set(p.engine.rpm);
        o.throttle.set(p.engine.throttle);
        o.afterburner.set(p.engine.afterburner);
        o.q.set(p.dynamic_pressure_pa);
        o.gear_moving.store(p.gear_moving, Ordering::Relaxed);
        o.flaps_moving.store(p.flaps_moving, Ordering::Relaxed);
        o.stall.set(p.stall);
        o.present.store(p.present, Ordering::Relaxed);
    }

    pub(crate) fn own(&self) -> OwnAircraft {
        let o = &self.own;
        OwnAircraft {
            present: o.present.load(Ordering::Relaxed),
            engine: EngineParams {
                rpm: o.rpm.get(),
                throttle: o.throttle.get(),
                afterburner: o.afterburner.get(),
            },
            dynamic_pressure_pa: o.q.get(),
            gear_moving: o.gear_moving.load(Ordering::Relaxed),
            flaps_moving: o.flaps_moving.load(Ordering::Relaxed),
            stall: o.stall.get(),
        }
    }

    /// Hands every value to the mixer (once per block, on the audio side).
    pub(crate) fn apply_to(&self, m: &mut Mixer) {
        for b in Bus::ALL {
            m.set_bus_volume(b, self.bus(b));
        }
        m.set_unfocused_gain(self.unfocused_gain.get());
        m.set_focus(self.focused());
        m.set_world_audible(self.world.load(Ordering::Relaxed));
        let own = self.own();
        if own != m.own() {
            m.set_own(own);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_reach_the_mixer_clamped() {
        let s = Shared::default();
        s.set_bus(Bus::Music, 2.0);
        s.set_bus(Bus::Radio, f32::NAN);
        s.set_focus(false);
        s.set_unfocused_gain(0.1);
        let own = OwnAircraft {
            present: true,
            engine: EngineParams {
                rpm: 0.5,
                throttle: 0.7,
                afterburner: 0.0,
            },
            dynamic_pressure_pa: -4.0,
            gear_moving: true,
            flaps_moving: false,
            stall: 3.0,
        };
        s.set_own(own);
        let mut m = Mixer::new(48_000);
        s.apply_to(&mut m);
        assert_eq!(m.bus_volume(Bus::Music), 1.0);
        assert_eq!(m.bus_volume(Bus::Radio), 0.0);
        assert_eq!(
            m.bus_volume(Bus::Master),
            crate::mixer::DEFAULT_MASTER_VOLUME
        );
        assert_eq!(
            m.own(),
            OwnAircraft {
                dynamic_pressure_pa: 0.0,
                stall: 1.0,
                ..own
            }
        );
    }
}

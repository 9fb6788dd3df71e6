//! The game thread's handle on a playing sound: it writes the engine's state, the mute and the
//! stop into atomics; the audio thread reads them once per block. Nothing here blocks or
//! allocates, on either side.
//!
//! Owns the shared state between the game and the audio thread. Must not: hold a lock, or do
//! any mixing (`engine`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use crate::engine::EngineParams;

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

/// What the game thread has said about one engine sound.
#[derive(Debug, Default)]
pub(crate) struct EngineShared {
    rpm: AtomicF32,
    throttle: AtomicF32,
    afterburner: AtomicF32,
    muted: AtomicBool,
    stopped: AtomicBool,
}

impl EngineShared {
    pub(crate) fn params(&self) -> EngineParams {
        EngineParams {
            rpm: self.rpm.get(),
            throttle: self.throttle.get(),
            afterburner: self.afterburner.get(),
        }
    }

    pub(crate) fn muted(&self) -> bool {
        self.muted.load(Ordering::Relaxed)
    }

    pub(crate) fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }
}

/// The game's handle on the engine sound of the aircraft it flies: set its state each frame.
/// Dropping it (or [`EngineControl::stop`]) fades the sound out and ends it.
#[derive(Debug)]
pub struct EngineControl {
    pub(crate) shared: Arc<EngineShared>,
}

impl EngineControl {
    pub(crate) fn new() -> EngineControl {
        EngineControl {
            shared: Arc::new(EngineShared::default()),
        }
    }

    /// The engine's state (clamped to 0 … 1; NaN is 0).
    pub fn set(&self, p: EngineParams) {
        let p = p.sanitized();
        self.shared.rpm.set(p.rpm);
        self.shared.throttle.set(p.throttle);
        self.shared.afterburner.set(p.afterburner);
    }

    /// The state last set.
    pub fn params(&self) -> EngineParams {
        self.shared.params()
    }

    /// Silences the engine (it keeps running, so unmuting resumes where it is) or brings it back;
    /// the change glides over a few milliseconds.
    pub fn set_muted(&self, muted: bool) {
        self.shared.muted.store(muted, Ordering::Relaxed);
    }

    /// Whether it is muted.
    pub fn is_muted(&self) -> bool {
        self.shared.muted()
    }

    /// Fades the sound out and ends it.
    pub fn stop(&self) {
        self.shared.stopped.store(true, Ordering::Relaxed);
    }
}

impl Drop for EngineControl {
    fn drop(&mut self) {
        self.stop();
    }
}

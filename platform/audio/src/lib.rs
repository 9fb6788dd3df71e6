//! fl-audio: the game's sound. A pure, deterministic mixer graph ([`mixer`]) with buses
//! (master, engine, weapons, radio, music, UI), a focus duck and bounded voices mixes the own
//! aircraft — its engine from the pack's loops ([`pack`], [`engine`]), wind, gear and flap
//! motors, stall buffet and afterburner thump, synthesized ([`synth`]) — positional sources with
//! distance attenuation, Doppler and pan ([`spatial`]), the pack's effects, music and radio calls
//! by purpose ([`bank`], decoded with bounds by [`clip`]; music and radio players in [`radio`]).
//! [`output`] plays the mix through rodio on a short buffer ([`device`]) — or silently when
//! there is no device, looking for one again every two seconds; the game thread steers it
//! without ever blocking ([`control`]'s atomics and a bounded channel).
//!
//! Owns every sample the game plays. Must not: read the simulation (the game hands it numbers)
//! or make a missing or failing sound device fatal.

pub mod bank;
pub mod clip;
mod control;
pub mod device;
pub mod engine;
pub mod mixer;
pub mod output;
pub mod pack;
pub mod radio;
pub mod spatial;
pub mod synth;

pub use bank::{BankParts, MusicTrack, Sfx, SoundBank};
pub use clip::{Clip, ClipError};
pub use device::{AudioDevice, DeviceErrorCallback, DeviceInfo, DeviceOpener, RodioOpener};
pub use engine::{EngineLoops, EngineParams, EngineSound};
pub use mixer::{Bus, Command, Mixer, MixerStats, OwnAircraft, Positional, Sound, SourceId};
pub use output::{AudioOutput, MixSource, OutputStatus};
pub use pack::{EngineLoopFiles, EngineSoundError, find_engine_loops, load_engine_loops};
pub use spatial::{Emitter, Falloff, Listener};

/// The math types the API speaks (glam's f64 vectors and quaternions).
pub use glam::{DQuat, DVec3};

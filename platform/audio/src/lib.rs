//! fl-audio: the game's sound. Today the engine of the aircraft the player flies — the pack's
//! idle, military and afterburner loops ([`pack`]) decoded with bounds ([`clip`]), mixed by a
//! pure, deterministic mixer that follows the engine's spool, throttle and afterburner
//! ([`engine`]), played through rodio on a short buffer, or silently when there is no device
//! ([`output`]); the game thread steers it through atomics ([`control`]). Issue 12 grows it:
//! wind, gear and flap motors, positional sounds, the pack's sfx and music, volumes per bus.
//!
//! Owns every sample the game plays. Must not: read the simulation (the game hands it numbers)
//! or make a missing or failing sound device fatal.

pub mod clip;
pub mod control;
pub mod engine;
pub mod output;
pub mod pack;

pub use clip::{Clip, ClipError};
pub use control::EngineControl;
pub use engine::{EngineLoops, EngineParams, EngineSound};
pub use output::{AudioOutput, DeviceInfo, OutputStatus};
pub use pack::{EngineLoopFiles, EngineSoundError, find_engine_loops, load_engine_loops};

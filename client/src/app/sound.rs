//! The flight's sound: the engine of the aircraft the player flies, found once the own type is
//! known (its pack's `audio/engine/<flight-model stem>_idle`/`_mil`/`_ab` loops, through the
//! content stack) and steered every frame from the own aircraft's instruments — spool, the
//! commanded throttle, the afterburner — muted whenever the Flight screen is not showing (pause,
//! loading). Dropping it (the flight ends) fades the engine out.
//!
//! Owns the flight's engine handle. Must not: open or close the sound device (`fl_audio`'s
//! `AudioOutput`, the window's), or fail a flight: a type with no loops flies in silence.

use fl_audio::{AudioOutput, EngineControl, EngineParams};
use fl_content::Content;

use crate::client::Client;
use crate::instruments::Reading;

/// The engine sound of one flight.
#[derive(Debug, Default)]
pub struct FlightSound {
    engine: Option<EngineControl>,
    /// The own type whose loops were looked up (once per type).
    looked_up: Option<String>,
}

impl FlightSound {
    /// Once a frame: starts the engine when the own type is first known, then sets its state.
    /// `throttle` is the pilot's commanded throttle when known (else the spool stands in);
    /// `audible` is false while paused or loading.
    pub fn update(
        &mut self,
        audio: &AudioOutput,
        content: &Content,
        client: &Client,
        reading: Option<&Reading>,
        throttle: Option<f32>,
        audible: bool,
    ) {
        if let Some(type_id) = client.own_type_id()
            && self.looked_up.as_deref() != Some(type_id.as_str())
        {
            self.engine = match fl_audio::load_engine_loops(content, &type_id) {
                Ok(loops) => {
                    tracing::debug!(
                        "engine sound of {type_id}: idle {:.1} s, military {:.1} s, afterburner: {}",
                        loops.idle.seconds(),
                        loops.mil.seconds(),
                        loops.afterburner.as_ref().map_or(
                            "a synthesized roar".into(),
                            |c| format!("{:.1} s", c.seconds())
                        )
                    );
                    Some(audio.play_engine(loops))
                }
                Err(e) => {
                    tracing::info!("engine sound: {e}");
                    None
                }
            };
            self.looked_up = Some(type_id);
        }
        let Some(engine) = &self.engine else { return };
        match reading {
            Some(r) => {
                let rpm = r.throttle as f32;
                engine.set(EngineParams {
                    rpm,
                    throttle: throttle.unwrap_or(rpm),
                    afterburner: if r.afterburner { 1.0 } else { 0.0 },
                });
                engine.set_muted(!audible);
            }
            // No own aircraft this frame (respawning, between snapshots): quiet.
            None => engine.set_muted(true),
        }
    }

    /// Whether an engine sound was started.
    pub fn has_engine(&self) -> bool {
        self.engine.is_some()
    }
}

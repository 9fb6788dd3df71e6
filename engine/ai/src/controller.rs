//! The control-source seam: the [`Controller`] trait every server-side driver implements, and the
//! parameter error its constructors share.
//!
//! Owns: the sampling contract (read-only world, mutate only yourself, deterministic). Must not:
//! hold references into the world between ticks — a controller keeps entity handles, never views.

use crate::view::{EntityView, WorldView};
use crate::weapons::WeaponIntent;
use fl_flight::Controls;

/// Something that flies an entity: sampled once per server tick, before integration.
///
/// Contract:
/// * `sample` may read `me` and `world` and mutate only `self`; the server calls it for many
///   entities in parallel against one unchanging world;
/// * the result is a pure function of (`self`'s state, `me`, `world`, `tick`): no clocks, no
///   unseeded randomness, no hash-map iteration order, ties broken by entity index — so one worker
///   thread and N produce bit-identical controls;
/// * time is `tick` × [`fl_flight::DT`]; a controller that needs elapsed time remembers the tick
///   it started at.
pub trait Controller: Send + std::fmt::Debug {
    /// The controls for `me` at `tick`.
    fn sample(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> Controls;

    /// The weapons intent for `me` at `tick`, asked right after [`Controller::sample`] with the
    /// same view (same contract). Decisions read contacts and the own stores only
    /// ([`WorldView::contacts`], [`WorldView::stores`]). The default never fires.
    fn weapons(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> WeaponIntent {
        let _ = (me, world, tick);
        WeaponIntent::default()
    }

    /// Restart the behaviour from its beginning (phases, captured courses, integrators), as the
    /// state machine does when it enters a state. The default does nothing.
    fn reset(&mut self) {}

    /// The behaviour's factory name (`"loiter"`, `"pursuit"`, …).
    fn behaviour(&self) -> &'static str;

    /// A short description of where the behaviour is (the state machine's active state, a break
    /// turn's phase, a waypoint index) for admin status lines and tests; `None` when there is
    /// nothing to say.
    fn status(&self) -> Option<String> {
        None
    }
}

/// Controls for an entity that cannot fly: idle, surfaces neutral.
pub fn idle_controls() -> Controls {
    Controls::default()
}

/// A controller parameter outside its valid range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("`{name}` = {value}: {problem}")]
pub struct ParamError {
    /// Parameter name (as the factory spells it).
    pub name: &'static str,
    /// The offending value, as text.
    pub value: String,
    /// What is wrong with it.
    pub problem: String,
}

impl ParamError {
    /// Builds an error.
    pub fn new(
        name: &'static str,
        value: impl std::fmt::Display,
        problem: impl Into<String>,
    ) -> Self {
        Self {
            name,
            value: value.to_string(),
            problem: problem.into(),
        }
    }
}

/// Checks a finite value within `[lo, hi]`.
pub(crate) fn check_range(name: &'static str, v: f64, lo: f64, hi: f64) -> Result<f64, ParamError> {
    if !v.is_finite() {
        return Err(ParamError::new(name, v, "must be a finite number"));
    }
    if v < lo || v > hi {
        let problem = if hi == f64::INFINITY {
            format!("must be at least {lo}")
        } else {
            format!("must be between {lo} and {hi}")
        };
        return Err(ParamError::new(name, v, problem));
    }
    Ok(v)
}

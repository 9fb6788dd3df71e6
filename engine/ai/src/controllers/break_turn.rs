//! Break turn: the defensive reaction to a threat — roll the lift vector toward the threat's
//! side, then pull maximum g in a level turn with the afterburner, open-ended.
//!
//! Owns: the two phases. Roll: unloaded (about 1 g) until the canopy is within 10° of the break
//! bank or `roll_s` has passed. Pull: the load factor capped at `g_fraction` of the structural
//! limit (the autopilot's alpha limiter caps it further when slow), lift vector held at the bank
//! of a level turn at that load, toward the side chosen at the start (not re-chosen while pulling,
//! so a threat crossing the tail does not cause a reversal). Must not: decide when to stop — a
//! state machine does that.

use crate::autopilot::{Autopilot, HoldCourse, LevelSteer, Power, track};
use crate::controller::{Controller, ParamError, check_range, idle_controls};
use crate::controllers::pursuit::check_target;
use crate::guidance::heading_error;
use crate::view::{EntityView, Target, TargetTracker, WorldView};
use fl_flight::{Controls, DT};

/// Break-turn parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakTurnParams {
    /// Longest roll phase, s.
    pub roll_s: f64,
    /// Pull load factor as a fraction of the structural limit.
    pub g_fraction: f64,
    /// Use the afterburner.
    pub afterburner: bool,
}

impl Default for BreakTurnParams {
    fn default() -> Self {
        Self {
            roll_s: 1.5,
            g_fraction: 0.9,
            afterburner: true,
        }
    }
}

impl BreakTurnParams {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_range("roll_s", self.roll_s, 0.0, 10.0)?;
        check_range("g_fraction", self.g_fraction, 0.1, 1.0)?;
        Ok(())
    }
}

/// The break turn's phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakPhase {
    /// Not started (no sample with a threat yet).
    Waiting,
    /// Rolling toward the break bank.
    Roll,
    /// Pulling.
    Pull,
}

/// Breaks into a [`Target`]. See [`BreakTurnParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct BreakTurn {
    params: BreakTurnParams,
    tracker: TargetTracker,
    autopilot: Autopilot,
    hold: HoldCourse,
    steer: LevelSteer,
    phase: BreakPhase,
    side: f64,
    phase_tick: u64,
}

impl BreakTurn {
    /// A break turn into `threat`.
    pub fn new(threat: Target, params: BreakTurnParams) -> Result<Self, ParamError> {
        params.validate()?;
        check_target(&threat)?;
        Ok(Self {
            params,
            tracker: TargetTracker::new(threat),
            autopilot: Autopilot::default(),
            hold: HoldCourse::default(),
            steer: LevelSteer::default(),
            phase: BreakPhase::Waiting,
            side: 1.0,
            phase_tick: 0,
        })
    }

    /// The current phase.
    pub fn phase(&self) -> BreakPhase {
        self.phase
    }

    /// +1 when breaking right, −1 left (meaningful once started).
    pub fn side(&self) -> f64 {
        self.side
    }
}

impl Controller for BreakTurn {
    fn sample(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> Controls {
        if !me.alive {
            return idle_controls();
        }
        let power = Power::Throttle {
            throttle: 1.0,
            afterburner: self.params.afterburner,
        };
        let threat = self.tracker.resolve(me, world);
        if self.phase == BreakPhase::Waiting {
            let Some(threat) = threat else {
                let accel = self.hold.accel(me, &self.steer);
                return self.autopilot.fly(me, accel, me.limits.max_g, power);
            };
            let err = heading_error(track(me), threat.position - me.position, me.up);
            self.side = if err < 0.0 { -1.0 } else { 1.0 };
            self.phase = BreakPhase::Roll;
            self.phase_tick = tick;
        }
        // The bank of a level turn at the load the wing can give now (lift ∝ alpha up to the
        // autopilot's alpha limit), so an alpha-limited pull does not slice downhill.
        let n_pull = (self.params.g_fraction * me.limits.max_g).max(1.05);
        let n_avail = if me.alpha_rad > 2f64.to_radians() {
            me.load_factor.max(1.0) * me.limits.alpha_max_rad / me.alpha_rad
        } else {
            n_pull
        };
        let n_level = n_avail.clamp(1.05, n_pull);
        let bank = libm::acos(1.0 / n_level);
        let v_hat = track(me);
        let right = v_hat.cross(me.up).normalize_or_zero();
        let lift_up = right.cross(v_hat);
        let lift = lift_up * libm::cos(bank) + right * (self.side * libm::sin(bank));
        let elapsed = tick.saturating_sub(self.phase_tick) as f64 * DT;
        if self.phase == BreakPhase::Roll {
            // Unloaded roll onto the break bank.
            let c = self.autopilot.fly_lift(me, lift, 1.0, power);
            if self.autopilot.last_roll_error().abs() < 10f64.to_radians()
                || elapsed >= self.params.roll_s
            {
                self.phase = BreakPhase::Pull;
                self.phase_tick = tick;
            }
            return c;
        }
        self.autopilot.fly_lift(me, lift, n_pull, power)
    }

    fn reset(&mut self) {
        self.tracker.reset();
        self.hold.release();
        self.autopilot.reset();
        self.phase = BreakPhase::Waiting;
        self.side = 1.0;
        self.phase_tick = 0;
    }

    fn behaviour(&self) -> &'static str {
        "break"
    }

    fn status(&self) -> Option<String> {
        Some(
            match self.phase {
                BreakPhase::Waiting => "waiting",
                BreakPhase::Roll => "roll",
                BreakPhase::Pull => "pull",
            }
            .to_string(),
        )
    }
}

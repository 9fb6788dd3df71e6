//! The pursuit family: pure pursuit (aim at the target), lead pursuit (aim at the predicted
//! intercept point) and lag pursuit (aim behind the target), all flown in 3-D.
//!
//! Owns: the aim points. Lead: `P + V·t·nav_gain`, where `t` is the straight-line intercept time
//! at the pursuer's own speed (range over closure when no intercept exists), capped at 30 s;
//! `nav_gain = 0` is pure pursuit. Lag: `P − V·t·lag_fraction` with `t` capped at 10 s and the
//! offset at 80 % of the range (the point stays ahead of the pursuer); `lag_fraction = 0` is pure
//! pursuit. Must not: fire weapons or manage energy beyond the chosen power setting.

use crate::autopilot::{Autopilot, HoldCourse, LevelSteer, Power, pursue_accel};
use crate::controller::{Controller, ParamError, check_range, idle_controls};
use crate::guidance::time_to_go;
use crate::view::{EntityView, Target, TargetTracker, WorldView};
use fl_flight::Controls;
use fl_flight::math::Vec3;

/// Which point the pursuer aims at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PursuitMode {
    /// The target's current position.
    Pure,
    /// The predicted intercept point scaled by the navigation gain (0 = pure).
    Lead {
        /// Navigation gain.
        nav_gain: f64,
    },
    /// A point behind the target (0 = pure).
    Lag {
        /// Fraction of the time-to-go to aim behind.
        lag_fraction: f64,
    },
}

/// Pursuit parameters shared by the three modes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PursuitParams {
    /// Engine setting.
    pub power: Power,
    /// Load-factor cap as a fraction of the airframe's structural limit.
    pub g_fraction: f64,
    /// Turn-rate gain on the angle between velocity and line of sight, 1/s.
    pub k_turn: f64,
}

impl Default for PursuitParams {
    fn default() -> Self {
        Self {
            power: Power::Throttle {
                throttle: 1.0,
                afterburner: false,
            },
            g_fraction: 0.8,
            k_turn: 0.8,
        }
    }
}

impl PursuitParams {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_power(&self.power)?;
        check_range("g_fraction", self.g_fraction, 0.1, 1.0)?;
        check_range("k_turn", self.k_turn, 0.05, 10.0)?;
        Ok(())
    }
}

pub(crate) fn check_power(p: &Power) -> Result<(), ParamError> {
    match *p {
        Power::Throttle { throttle, .. } => check_range("throttle", throttle, 0.0, 1.0).map(|_| ()),
        Power::Speed { mps, .. } => check_range("speed", mps, 1.0, 3000.0).map(|_| ()),
    }
}

/// Pure, lead or lag pursuit of a [`Target`].
#[derive(Debug, Clone, PartialEq)]
pub struct Pursuit {
    mode: PursuitMode,
    params: PursuitParams,
    tracker: TargetTracker,
    autopilot: Autopilot,
    hold: HoldCourse,
    steer: LevelSteer,
}

impl Pursuit {
    /// A pursuit in `mode` of `target`.
    pub fn new(
        target: Target,
        mode: PursuitMode,
        params: PursuitParams,
    ) -> Result<Self, ParamError> {
        params.validate()?;
        check_target(&target)?;
        match mode {
            PursuitMode::Pure => {}
            PursuitMode::Lead { nav_gain } => {
                check_range("nav_gain", nav_gain, 0.0, 5.0)?;
            }
            PursuitMode::Lag { lag_fraction } => {
                check_range("lag_fraction", lag_fraction, 0.0, 1.0)?;
            }
        }
        Ok(Self {
            mode,
            params,
            tracker: TargetTracker::new(target),
            autopilot: Autopilot::default(),
            hold: HoldCourse::default(),
            steer: LevelSteer::default(),
        })
    }

    /// Pure pursuit with default parameters.
    pub fn pure(target: Target) -> Result<Self, ParamError> {
        Self::new(target, PursuitMode::Pure, PursuitParams::default())
    }

    /// Lead pursuit with default parameters.
    pub fn lead(target: Target, nav_gain: f64) -> Result<Self, ParamError> {
        Self::new(
            target,
            PursuitMode::Lead { nav_gain },
            PursuitParams::default(),
        )
    }

    /// Lag pursuit with default parameters.
    pub fn lag(target: Target, lag_fraction: f64) -> Result<Self, ParamError> {
        Self::new(
            target,
            PursuitMode::Lag { lag_fraction },
            PursuitParams::default(),
        )
    }

    /// The mode.
    pub fn mode(&self) -> PursuitMode {
        self.mode
    }

    /// The point this pursuer aims at against `target`.
    pub fn aim_point(&self, me: &EntityView, target: &EntityView) -> Vec3 {
        let rel = target.position - me.position;
        match self.mode {
            PursuitMode::Pure => target.position,
            PursuitMode::Lead { nav_gain } => {
                if nav_gain == 0.0 {
                    return target.position;
                }
                let t = time_to_go(rel, me.velocity, target.velocity, 30.0);
                target.position + target.velocity * (t * nav_gain)
            }
            PursuitMode::Lag { lag_fraction } => {
                if lag_fraction == 0.0 {
                    return target.position;
                }
                let t = time_to_go(rel, me.velocity, target.velocity, 10.0);
                let offset = target.velocity * (t * lag_fraction);
                let cap = 0.8 * rel.length();
                let len = offset.length();
                let offset = if len > cap && len > 0.0 {
                    offset * (cap / len)
                } else {
                    offset
                };
                target.position - offset
            }
        }
    }
}

pub(crate) fn check_target(t: &Target) -> Result<(), ParamError> {
    if let Target::NearestThreat { radius_m } = *t {
        check_range("radius", radius_m, 1.0, 1.0e7)?;
    }
    Ok(())
}

impl Controller for Pursuit {
    fn sample(&mut self, me: &EntityView, world: &dyn WorldView, _tick: u64) -> Controls {
        if !me.alive {
            return idle_controls();
        }
        let max_g = self.params.g_fraction * me.limits.max_g;
        let accel = match self.tracker.resolve(me, world) {
            Some(target) => {
                self.hold.release();
                let aim = self.aim_point(me, &target);
                pursue_accel(me, aim, self.params.k_turn)
            }
            None => self.hold.accel(me, &self.steer),
        };
        self.autopilot.fly(me, accel, max_g, self.params.power)
    }

    fn reset(&mut self) {
        self.tracker.reset();
        self.hold.release();
        self.autopilot.reset();
    }

    fn behaviour(&self) -> &'static str {
        match self.mode {
            PursuitMode::Pure => "pursuit",
            PursuitMode::Lead { .. } => "lead",
            PursuitMode::Lag { .. } => "lag",
        }
    }
}

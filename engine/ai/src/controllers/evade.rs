//! Evade: turn the tail to a threat and run, holding altitude.
//!
//! Owns: the escape course (horizontally directly away from the threat) with a remembered turn
//! direction while the threat is near the nose (so the aircraft does not dither left/right when the
//! threat is dead ahead), and the altitude captured when the evasion began. Must not: manoeuvre
//! vertically (that is what a break turn or a split-S is for).

use crate::autopilot::{Autopilot, HoldCourse, LevelSteer, Power, track};
use crate::controller::{Controller, ParamError, check_range, idle_controls};
use crate::controllers::pursuit::{check_power, check_target};
use crate::guidance::{heading_error, horizontal};
use crate::view::{EntityView, Target, TargetTracker, WorldView};
use fl_flight::Controls;

/// Evade parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvadeParams {
    /// Engine setting.
    pub power: Power,
    /// Bank limit, degrees.
    pub max_bank_deg: f64,
    /// Altitude to hold, m; `None` keeps the altitude at the first sample.
    pub altitude_m: Option<f64>,
}

impl Default for EvadeParams {
    fn default() -> Self {
        Self {
            power: Power::Throttle {
                throttle: 1.0,
                afterburner: true,
            },
            max_bank_deg: 75.0,
            altitude_m: None,
        }
    }
}

impl EvadeParams {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_power(&self.power)?;
        check_range("max_bank", self.max_bank_deg, 5.0, 85.0)?;
        if let Some(a) = self.altitude_m {
            check_range("alt", a, -500.0, 100_000.0)?;
        }
        Ok(())
    }
}

/// Runs from a [`Target`]. See [`EvadeParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct Evade {
    params: EvadeParams,
    tracker: TargetTracker,
    autopilot: Autopilot,
    steer: LevelSteer,
    hold: HoldCourse,
    altitude: Option<f64>,
    turn_sign: f64,
}

impl Evade {
    /// An evasion from `threat`.
    pub fn new(threat: Target, params: EvadeParams) -> Result<Self, ParamError> {
        params.validate()?;
        check_target(&threat)?;
        Ok(Self {
            params,
            tracker: TargetTracker::new(threat),
            autopilot: Autopilot::default(),
            steer: LevelSteer {
                k_heading: 0.8,
                max_bank_rad: params.max_bank_deg.to_radians(),
                ..LevelSteer::default()
            },
            hold: HoldCourse::default(),
            altitude: None,
            turn_sign: 1.0,
        })
    }
}

impl Controller for Evade {
    fn sample(&mut self, me: &EntityView, world: &dyn WorldView, _tick: u64) -> Controls {
        if !me.alive {
            return idle_controls();
        }
        let alt = *self
            .altitude
            .get_or_insert(self.params.altitude_m.unwrap_or(me.altitude_m));
        let accel = match self.tracker.resolve(me, world) {
            Some(threat) => {
                self.hold.release();
                let up = me.up;
                let away = horizontal(me.position - threat.position, up);
                let trk = horizontal(track(me), up);
                let mut err = heading_error(trk, away, up);
                // Threat near the nose (escape course near the tail): keep turning the way we
                // started instead of flipping sides as the error crosses ±180°.
                if err.abs() > 150f64.to_radians() {
                    err = self.turn_sign * err.abs();
                } else if err != 0.0 {
                    self.turn_sign = err.signum();
                }
                let want = rotate_about(trk, up, err);
                self.steer.accel(me, want, 0.0, alt)
            }
            None => self.hold.accel(me, &self.steer),
        };
        self.autopilot
            .fly(me, accel, me.limits.max_g, self.params.power)
    }

    fn reset(&mut self) {
        self.tracker.reset();
        self.hold.release();
        self.autopilot.reset();
        self.altitude = None;
        self.turn_sign = 1.0;
    }

    fn behaviour(&self) -> &'static str {
        "evade"
    }
}

/// `v` turned right by `angle` (rad) about `up`, seen from above.
fn rotate_about(
    v: fl_flight::math::Vec3,
    up: fl_flight::math::Vec3,
    angle: f64,
) -> fl_flight::math::Vec3 {
    // Right of v is v × up; a right turn by `angle` is v·cos + right·sin.
    let right = v.cross(up);
    v * libm::cos(angle) + right * libm::sin(angle)
}

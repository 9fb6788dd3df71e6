//! The pursuit family: pure pursuit (aim at the target), lead pursuit (aim at the predicted
//! intercept point) and lag pursuit (aim behind the target), all flown in 3-D.
//!
//! Owns: the aim points. Lead: `P + V·t·nav_gain`, where `t` is the straight-line intercept time
//! at the pursuer's own speed (range over closure when no intercept exists), capped at 30 s;
//! `nav_gain = 0` is pure pursuit. Lag: `P − V·t·lag_fraction` with `t` capped at 10 s and the
//! offset at 80 % of the range (the point stays ahead of the pursuer); `lag_fraction = 0` is pure
//! pursuit. Firing (`PursuitParams::fire`, on by default) goes through [`FireControl`] against the
//! contact the sensors hold of the pursued target (never its true position); inside gun range the
//! nose, not the velocity vector, is steered onto the gun's aim point. Must not: manage energy
//! beyond the chosen power setting.

use crate::autopilot::{Autopilot, HoldCourse, LevelSteer, Power, pursue_accel};
use crate::controller::{Controller, ParamError, check_range, idle_controls};
use crate::guidance::time_to_go;
use crate::view::{EntityId, EntityView, Target, TargetTracker, WorldView};
use crate::weapons::{ContactView, FireControl, WeaponIntent, contact_of, nearest_hostile_contact};
use fl_flight::Controls;
use fl_flight::math::{Vec3, cos, sin};

/// Turn-rate gain while tracking with the gun, 1/s (tighter than the chase's: the aim error is
/// small and the shot needs it smaller).
pub const GUN_TRACK_GAIN: f64 = 2.0;

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
    /// Weapons free: fire the gun and missiles at the pursued target's contact.
    pub fire: bool,
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
            fire: true,
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
    fire: FireControl,
    /// The target of the last sample (what the weapons pass shoots at).
    current: Option<EntityId>,
    /// The factory name when it is not the mode's (`attack`).
    name: Option<&'static str>,
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
            fire: FireControl::default(),
            current: None,
            name: None,
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

    /// The `attack` behaviour: lead pursuit (gain 1) with `params` (weapons free unless
    /// `params.fire` is false).
    pub fn attack(target: Target, params: PursuitParams) -> Result<Self, ParamError> {
        let mut p = Self::new(target, PursuitMode::Lead { nav_gain: 1.0 }, params)?;
        p.name = Some("attack");
        Ok(p)
    }

    /// The mode.
    pub fn mode(&self) -> PursuitMode {
        self.mode
    }

    /// The fire control (its counters say how often it fired).
    pub fn fire_control(&self) -> &FireControl {
        &self.fire
    }

    /// The contact the weapons aim at: the pursued target's, else the nearest hostile one.
    fn firing_contact(&self, me: &EntityView, world: &dyn WorldView) -> Option<ContactView> {
        self.current
            .and_then(|id| contact_of(world, me.id, id))
            .filter(|c| c.hostile)
            .or_else(|| nearest_hostile_contact(world, me, self.fire.params().max_contact_age_s))
    }

    /// Where to point the velocity vector: the mode's aim point, or inside gun range the point
    /// that puts the nose (`alpha` above the velocity) on the gun's solution.
    /// The acceleration demand: the velocity swung toward [`Pursuit::aim_point`], or inside gun
    /// range toward the point that puts the nose (alpha above the velocity) on the gun's aim
    /// point, plus the line of sight's own turn rate fed forward (`ω × V`, ω = r × v_rel / r²)
    /// so a tracking shot has no steady lag behind a moving line of sight.
    fn steer_accel(&self, me: &EntityView, world: &dyn WorldView, target: &EntityView) -> Vec3 {
        if self.params.fire
            && let Some(c) = contact_of(world, me.id, target.id)
            && let Some(aim) = self.fire.gun_solution(me, world, &c)
        {
            let r = aim - me.position;
            let range = r.length();
            let alpha = if me.alpha_rad.is_finite() {
                me.alpha_rad.clamp(-0.3, 0.3)
            } else {
                0.0
            };
            let point = aim - me.body_up() * (range * sin(alpha) / cos(alpha));
            let mut a = pursue_accel(me, point, GUN_TRACK_GAIN);
            if range > 1.0 {
                let omega = r.cross(c.velocity - me.velocity) * (1.0 / (range * range));
                let ff = omega.cross(me.velocity);
                if ff.is_finite() {
                    a += ff;
                }
            }
            return a;
        }
        pursue_accel(me, self.aim_point(me, target), self.params.k_turn)
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
                self.current = Some(target.id);
                self.steer_accel(me, world, &target)
            }
            None => {
                self.current = None;
                self.hold.accel(me, &self.steer)
            }
        };
        self.autopilot.fly(me, accel, max_g, self.params.power)
    }

    fn weapons(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> WeaponIntent {
        if !self.params.fire {
            return WeaponIntent::default();
        }
        let c = self.firing_contact(me, world);
        self.fire.decide(me, world, c.as_ref(), tick)
    }

    fn reset(&mut self) {
        self.tracker.reset();
        self.hold.release();
        self.autopilot.reset();
        self.fire.reset();
        self.current = None;
    }

    fn behaviour(&self) -> &'static str {
        if let Some(n) = self.name {
            return n;
        }
        match self.mode {
            PursuitMode::Pure => "pursuit",
            PursuitMode::Lead { .. } => "lead",
            PursuitMode::Lag { .. } => "lag",
        }
    }
}

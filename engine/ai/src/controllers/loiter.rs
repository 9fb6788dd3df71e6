//! Loiter: orbit a fixed centre at a radius, altitude and direction.
//!
//! Owns: the orbit vector field (tangent plus a cross-track correction toward the circle) with the
//! circle's turn rate fed forward, the altitude hold and the speed hold. Must not: chase moving
//! centres (that is a different behaviour).

use crate::autopilot::{Autopilot, LevelSteer, Power, track};
use crate::controller::{Controller, ParamError, check_range, idle_controls};
use crate::guidance::horizontal;
use crate::view::{EntityView, WorldView};
use fl_flight::Controls;
use fl_flight::math::{Vec3, atan2};

/// Orbit direction seen from above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// Right turns (north → east → south → west).
    #[default]
    Clockwise,
    /// Left turns.
    CounterClockwise,
}

impl Direction {
    /// +1 for clockwise (right turns), −1 otherwise.
    pub fn sign(self) -> f64 {
        match self {
            Direction::Clockwise => 1.0,
            Direction::CounterClockwise => -1.0,
        }
    }
}

/// Loiter parameters. `None` fields are captured from the entity at its first sample ("loiter
/// here, at this altitude and speed").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoiterParams {
    /// Orbit centre (world; only its horizontal position matters), or the entity's position.
    pub centre: Option<Vec3>,
    /// Orbit altitude, m (geodetic), or the entity's altitude.
    pub altitude_m: Option<f64>,
    /// Orbit radius, m.
    pub radius_m: f64,
    /// Orbit direction.
    pub direction: Direction,
    /// True airspeed to hold, m/s, or the entity's airspeed.
    pub speed_mps: Option<f64>,
    /// Bank limit, degrees.
    pub max_bank_deg: f64,
}

impl Default for LoiterParams {
    fn default() -> Self {
        Self {
            centre: None,
            altitude_m: None,
            radius_m: 3000.0,
            direction: Direction::Clockwise,
            speed_mps: None,
            max_bank_deg: 60.0,
        }
    }
}

impl LoiterParams {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        if let Some(c) = self.centre
            && !c.is_finite()
        {
            return Err(ParamError::new(
                "centre",
                format!("{c:?}"),
                "must be finite",
            ));
        }
        if let Some(a) = self.altitude_m {
            check_range("alt", a, -500.0, 100_000.0)?;
        }
        check_range("radius", self.radius_m, 100.0, 1.0e6)?;
        if let Some(s) = self.speed_mps {
            check_range("speed", s, 1.0, 3000.0)?;
        }
        check_range("max_bank", self.max_bank_deg, 5.0, 85.0)?;
        Ok(())
    }
}

/// Cross-track gain: the intercept angle toward the circle is `atan(K·(d − R)/R)`.
const CROSS_TRACK_K: f64 = 2.0;

/// Orbits a fixed point. See [`LoiterParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct Loiter {
    params: LoiterParams,
    steer: LevelSteer,
    autopilot: Autopilot,
    resolved: Option<(Vec3, f64, f64)>,
}

impl Loiter {
    /// A loiter with validated parameters.
    pub fn new(params: LoiterParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Self {
            params,
            steer: LevelSteer {
                max_bank_rad: params.max_bank_deg.to_radians(),
                ..LevelSteer::default()
            },
            autopilot: Autopilot::default(),
            resolved: None,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &LoiterParams {
        &self.params
    }

    /// Centre, altitude and speed in use (after the first sample).
    pub fn resolved(&self) -> Option<(Vec3, f64, f64)> {
        self.resolved
    }

    /// The acceleration demand and power for this tick (shared with the waypoint controller's
    /// final orbit).
    pub(crate) fn demand(&mut self, me: &EntityView) -> (Vec3, Power) {
        let p = self.params;
        let (centre, alt, speed) = *self.resolved.get_or_insert_with(|| {
            (
                p.centre.unwrap_or(me.position),
                p.altitude_m.unwrap_or(me.altitude_m),
                p.speed_mps.unwrap_or(me.airspeed_mps.max(60.0)),
            )
        });
        let up = me.up;
        let trk = track(me);
        let offset = horizontal(me.position - centre, up);
        let d = offset.length();
        let radial = if d > 1.0 {
            offset * (1.0 / d)
        } else {
            horizontal(trk, up).normalize_or_zero()
        };
        let s = p.direction.sign();
        let tangent = radial.cross(up) * s;
        let r = p.radius_m;
        let chi = atan2(CROSS_TRACK_K * (d - r), r);
        let want = tangent * libm::cos(chi) - radial * libm::sin(chi);
        let v = me.speed().max(1.0);
        let ff = s * v / r * libm::cos(chi).max(0.0);
        let accel = self.steer.accel(me, want, ff, alt);
        (
            accel,
            Power::Speed {
                mps: speed,
                afterburner: false,
            },
        )
    }

    pub(crate) fn fly(&mut self, me: &EntityView) -> Controls {
        let (accel, power) = self.demand(me);
        let max_g = me.limits.max_g;
        self.autopilot.fly(me, accel, max_g, power)
    }
}

impl Controller for Loiter {
    fn sample(&mut self, me: &EntityView, _world: &dyn WorldView, _tick: u64) -> Controls {
        if !me.alive {
            return idle_controls();
        }
        self.fly(me)
    }

    fn reset(&mut self) {
        self.resolved = None;
        self.autopilot.reset();
    }

    fn behaviour(&self) -> &'static str {
        "loiter"
    }
}

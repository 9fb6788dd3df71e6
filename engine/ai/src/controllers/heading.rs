//! Heading hold: fly a compass heading at an altitude and airspeed.
//!
//! Owns: the compass course in the local east-north-up frame of the entity's position (so the
//! heading is measured from local north on the local horizon wherever the entity is, and a
//! constant heading is a rhumb line), the altitude hold and the speed hold. Near the pole (the
//! world origin) the local frame turns fast with longitude and a compass heading means little;
//! there `loiter` or `waypoint` are the behaviours to use.

use crate::autopilot::{Autopilot, LevelSteer};
use crate::controller::{Controller, ParamError, check_range, idle_controls};
use crate::view::{EntityView, WorldView};
use fl_flight::Controls;
use fl_flight::geodetic::Enu;

/// Heading-hold parameters. `None` fields are captured from the entity at its first sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadingParams {
    /// Compass heading, degrees clockwise from local north (0 … 360).
    pub heading_deg: f64,
    /// Altitude, m (geodetic), or the entity's altitude.
    pub altitude_m: Option<f64>,
    /// True airspeed to hold, m/s, or the entity's airspeed.
    pub speed_mps: Option<f64>,
    /// Bank limit, degrees.
    pub max_bank_deg: f64,
}

impl Default for HeadingParams {
    fn default() -> Self {
        Self {
            heading_deg: 0.0,
            altitude_m: None,
            speed_mps: None,
            max_bank_deg: 45.0,
        }
    }
}

impl HeadingParams {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_range("heading", self.heading_deg, 0.0, 360.0)?;
        if let Some(a) = self.altitude_m {
            check_range("alt", a, -500.0, 100_000.0)?;
        }
        if let Some(s) = self.speed_mps {
            check_range("speed", s, 1.0, 3000.0)?;
        }
        check_range("max_bank", self.max_bank_deg, 5.0, 85.0)?;
        Ok(())
    }
}

/// Flies a compass heading. See [`HeadingParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct HeadingHold {
    params: HeadingParams,
    steer: LevelSteer,
    autopilot: Autopilot,
    resolved: Option<(f64, f64)>,
}

impl HeadingHold {
    /// A heading hold with validated parameters.
    pub fn new(params: HeadingParams) -> Result<Self, ParamError> {
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
    pub fn params(&self) -> &HeadingParams {
        &self.params
    }

    /// Altitude and speed in use (after the first sample).
    pub fn resolved(&self) -> Option<(f64, f64)> {
        self.resolved
    }
}

impl Controller for HeadingHold {
    fn sample(&mut self, me: &EntityView, _world: &dyn WorldView, _tick: u64) -> Controls {
        if !me.alive {
            return idle_controls();
        }
        let p = self.params;
        let (alt, speed) = *self.resolved.get_or_insert_with(|| {
            (
                p.altitude_m.unwrap_or(me.altitude_m),
                p.speed_mps.unwrap_or(me.airspeed_mps.max(60.0)),
            )
        });
        let want = Enu::from_up(me.up).horizontal_direction(p.heading_deg.to_radians());
        self.autopilot.cruise(me, &self.steer, want, alt, speed)
    }

    fn reset(&mut self) {
        self.resolved = None;
        self.autopilot.reset();
    }

    fn behaviour(&self) -> &'static str {
        "heading"
    }
}

//! Waypoint: fly a list of 3-D points in order, optionally looping; orbit the last one when done.
//!
//! Owns: capture (inside the 3-D capture radius, or passing abeam inside three capture radii after
//! having closed on it — so a point inside the turning circle cannot trap the aircraft in an
//! endless orbit) and leg steering (horizontal course to the point, altitude of the point).
//! Must not: plan routes or avoid terrain.

use crate::autopilot::{Autopilot, LevelSteer};
use crate::controller::{Controller, ParamError, check_range, idle_controls};
use crate::controllers::loiter::{Direction, Loiter, LoiterParams};
use crate::guidance::horizontal;
use crate::view::{EntityView, WorldView};
use fl_flight::Controls;
use fl_flight::math::Vec3;

/// Waypoint parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct WaypointParams {
    /// The points (world positions; their height above the entity's local horizon sets the
    /// altitude flown on each leg).
    pub points: Vec<Vec3>,
    /// 3-D capture radius, m.
    pub capture_radius_m: f64,
    /// Start again from the first point after the last.
    pub looped: bool,
    /// True airspeed to hold, m/s, or the entity's airspeed at the first sample.
    pub speed_mps: Option<f64>,
    /// Bank limit, degrees.
    pub max_bank_deg: f64,
}

impl Default for WaypointParams {
    fn default() -> Self {
        Self {
            points: Vec::new(),
            capture_radius_m: 500.0,
            looped: false,
            speed_mps: None,
            max_bank_deg: 60.0,
        }
    }
}

impl WaypointParams {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.points.is_empty() {
            return Err(ParamError::new(
                "points",
                "[]",
                "at least one waypoint is needed",
            ));
        }
        if let Some(p) = self.points.iter().find(|p| !p.is_finite()) {
            return Err(ParamError::new(
                "points",
                format!("{p:?}"),
                "must be finite",
            ));
        }
        if self.points.len() > 4096 {
            return Err(ParamError::new(
                "points",
                self.points.len(),
                "at most 4096 waypoints",
            ));
        }
        check_range("capture", self.capture_radius_m, 10.0, 1.0e5)?;
        if let Some(s) = self.speed_mps {
            check_range("speed", s, 1.0, 3000.0)?;
        }
        check_range("max_bank", self.max_bank_deg, 5.0, 85.0)?;
        Ok(())
    }
}

/// Flies waypoints in order. See [`WaypointParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct Waypoint {
    params: WaypointParams,
    steer: LevelSteer,
    autopilot: Autopilot,
    index: usize,
    captured: u64,
    closing_seen: bool,
    speed: Option<f64>,
    finish: Option<Loiter>,
}

impl Waypoint {
    /// A waypoint follower with validated parameters.
    pub fn new(params: WaypointParams) -> Result<Self, ParamError> {
        params.validate()?;
        let steer = LevelSteer {
            max_bank_rad: params.max_bank_deg.to_radians(),
            ..LevelSteer::default()
        };
        Ok(Self {
            params,
            steer,
            autopilot: Autopilot::default(),
            index: 0,
            captured: 0,
            closing_seen: false,
            speed: None,
            finish: None,
        })
    }

    /// Index of the point being flown to (the last one once finished).
    pub fn current_index(&self) -> usize {
        self.index
    }

    /// How many captures have happened so far (counts every lap of a loop).
    pub fn captures(&self) -> u64 {
        self.captured
    }

    /// True once the last point of a non-looping route has been captured.
    pub fn finished(&self) -> bool {
        self.finish.is_some()
    }

    fn advance(&mut self, speed: f64) {
        self.captured += 1;
        self.closing_seen = false;
        let n = self.params.points.len();
        if self.index + 1 < n {
            self.index += 1;
        } else if self.params.looped {
            self.index = 0;
        } else {
            let last = self.params.points[n - 1];
            let params = LoiterParams {
                centre: Some(last),
                altitude_m: None,
                radius_m: (3.0 * self.params.capture_radius_m).max(2000.0),
                direction: Direction::Clockwise,
                speed_mps: Some(speed),
                max_bank_deg: self.params.max_bank_deg,
            };
            // Parameters derived from validated ones; a failure would be a bug, so fall back to
            // the defaults rather than panic.
            self.finish = Loiter::new(params)
                .or_else(|_| Loiter::new(LoiterParams::default()))
                .ok();
        }
    }
}

impl Controller for Waypoint {
    fn sample(&mut self, me: &EntityView, _world: &dyn WorldView, _tick: u64) -> Controls {
        if !me.alive {
            return idle_controls();
        }
        let speed = *self
            .speed
            .get_or_insert_with(|| self.params.speed_mps.unwrap_or(me.airspeed_mps.max(60.0)));
        if self.finish.is_none() {
            let wp = self.params.points[self.index];
            let rel = wp - me.position;
            let cap = self.params.capture_radius_m;
            let horiz = horizontal(rel, me.up).length();
            let range_rate = if rel.length() > 1e-9 {
                -rel.dot(me.velocity) / rel.length()
            } else {
                0.0
            };
            let passing = horiz < 3.0 * cap;
            if passing && range_rate < 0.0 {
                self.closing_seen = true;
            }
            if rel.dot(rel) <= cap * cap || (passing && self.closing_seen && range_rate > 0.0) {
                self.advance(speed);
            }
        }
        if let Some(finish) = &mut self.finish {
            let (accel, power) = finish.demand(me);
            return self.autopilot.fly(me, accel, me.limits.max_g, power);
        }
        let wp = self.params.points[self.index];
        let rel = wp - me.position;
        let want = horizontal(rel, me.up);
        let alt = me.altitude_m + rel.dot(me.up);
        self.autopilot.cruise(me, &self.steer, want, alt, speed)
    }

    fn reset(&mut self) {
        self.index = 0;
        self.captured = 0;
        self.closing_seen = false;
        self.speed = None;
        self.finish = None;
        self.autopilot.reset();
    }

    fn behaviour(&self) -> &'static str {
        "waypoint"
    }

    fn status(&self) -> Option<String> {
        Some(if self.finished() {
            "finished".to_string()
        } else {
            format!("wp {}/{}", self.index + 1, self.params.points.len())
        })
    }
}

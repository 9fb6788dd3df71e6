//! The flight's record, kept frame by frame for the HUD (max G) and the debrief: the highest
//! load factor, the distance flown and the landings.
//!
//! Owns the rules of what counts: max G is the manoeuvring load, read in the air only (gear
//! settling on a runway spawn and touchdown spikes are not a pilot's G); a landing is a touchdown after at least
//! [`MIN_AIRBORNE_S`] in the air, sinking no faster than [`MAX_LANDING_SINK_MPS`] (a bounce is
//! not a second landing, a crash is not a landing); a jump of more than [`MAX_STEP_M`] between
//! frames (a respawn) is not distance flown. Must not read the clock or the session: the
//! window hands it the frame's time step, the reading and the position.

use glam::DVec3;

use crate::instruments::Reading;

/// Time in the air before a touchdown counts as a landing, s.
pub const MIN_AIRBORNE_S: f64 = 5.0;
/// Fastest sink at touchdown that is still a landing, m/s (a firm carrier landing is ~6).
pub const MAX_LANDING_SINK_MPS: f64 = 6.0;
/// Longest step between two frames that is still flying, m (a respawn jumps further).
pub const MAX_STEP_M: f64 = 2_000.0;

/// What the debrief reports.
#[derive(Debug, Clone, PartialEq)]
pub struct FlightRecord {
    /// Highest load factor in the air, g (1 before any airborne reading).
    pub max_g: f64,
    pub distance_m: f64,
    pub landings: u32,
    last_position: Option<DVec3>,
    /// Time since the wheels left the ground (`None` while on the ground or before a reading).
    airborne_s: Option<f64>,
    /// Sink rate of the last airborne frame, m/s (positive down).
    last_sink_mps: f64,
}

impl Default for FlightRecord {
    fn default() -> Self {
        Self::new()
    }
}

impl FlightRecord {
    pub fn new() -> Self {
        Self {
            max_g: 1.0,
            distance_m: 0.0,
            landings: 0,
            last_position: None,
            airborne_s: None,
            last_sink_mps: 0.0,
        }
    }

    /// One frame: `dt` seconds since the last, the own aircraft's reading and position.
    pub fn update(&mut self, dt: f64, reading: Option<&Reading>, position: Option<DVec3>) {
        let dt = if dt.is_finite() {
            dt.clamp(0.0, 1.0)
        } else {
            0.0
        };
        if let Some(p) = position.filter(|p| p.is_finite()) {
            if let Some(last) = self.last_position {
                let d = (p - last).length();
                if d < MAX_STEP_M {
                    self.distance_m += d;
                }
            }
            self.last_position = Some(p);
        }
        let Some(r) = reading else { return };
        if !r.on_ground && r.g.is_finite() {
            self.max_g = self.max_g.max(r.g);
        }
        if r.on_ground {
            if let Some(t) = self.airborne_s.take()
                && t >= MIN_AIRBORNE_S
                && self.last_sink_mps <= MAX_LANDING_SINK_MPS
            {
                self.landings += 1;
            }
        } else {
            *self.airborne_s.get_or_insert(0.0) += dt;
            if r.vertical_speed_mps.is_finite() {
                self.last_sink_mps = -r.vertical_speed_mps;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(on_ground: bool, vs: f64, g: f64) -> Reading {
        Reading {
            on_ground,
            vertical_speed_mps: vs,
            g,
            ..Reading::default()
        }
    }

    /// `seconds` of 60 Hz frames with the same reading.
    fn fly(rec: &mut FlightRecord, seconds: f64, r: &Reading) {
        for _ in 0..(seconds * 60.0) as usize {
            rec.update(1.0 / 60.0, Some(r), None);
        }
    }

    #[test]
    fn a_takeoff_circuit_and_touchdown_is_one_landing() {
        let mut rec = FlightRecord::new();
        // A parked spawn settling on its gear reads a spike: not a manoeuvre.
        fly(&mut rec, 0.1, &reading(true, 0.0, 8.1));
        fly(&mut rec, 10.0, &reading(true, 0.0, 1.0));
        assert_eq!(rec.landings, 0, "rolling is not landing");
        assert_eq!(rec.max_g, 1.0);
        fly(&mut rec, 60.0, &reading(false, 5.0, 1.3));
        fly(&mut rec, 20.0, &reading(false, -3.0, 1.0));
        fly(&mut rec, 1.0, &reading(true, 0.0, 1.1));
        assert_eq!(rec.landings, 1);
        assert!((rec.max_g - 1.3).abs() < 1e-12);
    }

    #[test]
    fn a_bounce_a_hop_and_a_crash_are_not_landings() {
        let mut rec = FlightRecord::new();
        fly(&mut rec, 30.0, &reading(false, -2.0, 1.0));
        fly(&mut rec, 0.2, &reading(true, 0.0, 1.0));
        assert_eq!(rec.landings, 1);
        // The bounce: 2 s up, down again.
        fly(&mut rec, 2.0, &reading(false, -1.0, 1.0));
        fly(&mut rec, 0.2, &reading(true, 0.0, 1.0));
        assert_eq!(rec.landings, 1, "a bounce is not a second landing");
        // A long flight that ends sinking at 15 m/s.
        fly(&mut rec, 30.0, &reading(false, -15.0, 1.0));
        fly(&mut rec, 0.2, &reading(true, 0.0, 4.0));
        assert_eq!(rec.landings, 1, "a crash is not a landing");
        assert_eq!(rec.max_g, 1.0, "ground impacts are not max G");
    }

    #[test]
    fn distance_sums_steps_but_not_a_respawn_jump() {
        let mut rec = FlightRecord::new();
        for i in 0..=10 {
            rec.update(0.1, None, Some(DVec3::new(f64::from(i) * 20.0, 0.0, 0.0)));
        }
        assert!((rec.distance_m - 200.0).abs() < 1e-9);
        rec.update(0.1, None, Some(DVec3::new(50_000.0, 0.0, 0.0)));
        rec.update(0.1, None, Some(DVec3::new(50_010.0, 0.0, 0.0)));
        assert!((rec.distance_m - 210.0).abs() < 1e-9);
        rec.update(0.1, None, Some(DVec3::new(f64::NAN, 0.0, 0.0)));
        assert!((rec.distance_m - 210.0).abs() < 1e-9);
    }

    #[test]
    fn hostile_numbers_do_not_poison_the_record() {
        let mut rec = FlightRecord::new();
        let bad = reading(false, f64::NAN, f64::NAN);
        rec.update(f64::INFINITY, Some(&bad), None);
        rec.update(-5.0, Some(&bad), None);
        assert_eq!(rec.max_g, 1.0);
        fly(&mut rec, 6.0, &reading(false, -1.0, 1.0));
        fly(&mut rec, 0.1, &reading(true, 0.0, 1.0));
        assert_eq!(rec.landings, 1);
    }
}

//! Everything that changes while an aircraft flies: the state the integrator advances, the pilot
//! commands it consumes, and the outputs derived from both.
//!
//! Owns: [`AircraftState`] (the complete, hidden-state-free description of one aircraft, so a
//! client can reset to a server snapshot and replay), [`Controls`], frame conversions between the
//! world, the engine body frame and NACA body axes, and a bit-exact state hash. Must not: compute
//! forces (that is `aero`/`integrator`).
//!
//! Frames: the world is right-handed, Y up, metres. `orientation` rotates *engine body* vectors
//! (X right wing, Y up, Z aft — the renderer's and glTF's convention) into the world. Aerodynamics
//! use NACA body axes (x forward, y right, z down); `to_naca`/`from_naca` convert.

use crate::math::{Quat, Vec3};

/// NACA body vector (x fwd, y right, z down) from an engine-body vector (X right, Y up, Z aft).
#[inline]
pub fn to_naca(e: Vec3) -> Vec3 {
    Vec3::new(-e.z, e.x, -e.y)
}

/// Engine-body vector from a NACA body vector.
#[inline]
pub fn from_naca(n: Vec3) -> Vec3 {
    Vec3::new(n.y, -n.z, -n.x)
}

/// Why an aircraft stopped flying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashKind {
    /// The airframe hit the floor with too much energy.
    Impact,
    /// A touchdown on the wheels exceeded the gear's sink-rate limit.
    GearCollapse,
}

/// Pilot (or autopilot) commands for one tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Controls {
    /// Stick fore/aft, −1 … +1 (+1 full aft = nose up).
    pub pitch: f64,
    /// Stick left/right, −1 … +1 (+1 rolls right).
    pub roll: f64,
    /// Pedals, −1 … +1 (+1 yaws the nose right; also steers the nose wheel right).
    pub yaw: f64,
    /// Throttle, 0 idle … 1 military.
    pub throttle: f64,
    /// Afterburner requested (lights once the core is near military power).
    pub afterburner: bool,
    /// Speed brake command, 0 (stowed) … 1 (fully out); the actuator slews to it.
    pub speedbrake: f64,
    /// Gear down.
    pub gear_down: bool,
    /// Flap command, 0 … 1.
    pub flaps: f64,
    /// Wheel brakes, 0 … 1.
    pub wheel_brake: f64,
    /// Manual wing sweep, deg; `None` follows the Mach schedule.
    pub sweep_deg: Option<f64>,
}

impl Default for Controls {
    fn default() -> Self {
        Self {
            pitch: 0.0,
            roll: 0.0,
            yaw: 0.0,
            throttle: 0.0,
            afterburner: false,
            speedbrake: 0.0,
            gear_down: false,
            flaps: 0.0,
            wheel_brake: 0.0,
            sweep_deg: None,
        }
    }
}

impl Controls {
    /// The same commands with every analogue axis clamped to its range and NaN replaced by 0,
    /// so hostile input cannot poison the state.
    pub fn sanitized(&self) -> Controls {
        let f = |x: f64, lo: f64, hi: f64| if x.is_finite() { x.clamp(lo, hi) } else { 0.0 };
        Controls {
            pitch: f(self.pitch, -1.0, 1.0),
            roll: f(self.roll, -1.0, 1.0),
            yaw: f(self.yaw, -1.0, 1.0),
            throttle: f(self.throttle, 0.0, 1.0),
            speedbrake: f(self.speedbrake, 0.0, 1.0),
            flaps: f(self.flaps, 0.0, 1.0),
            wheel_brake: f(self.wheel_brake, 0.0, 1.0),
            sweep_deg: self.sweep_deg.filter(|s| s.is_finite()),
            ..*self
        }
    }
}

/// The complete state of one aircraft. Nothing else influences a step except the model, the
/// controls and the environment, so copying this value is a full snapshot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AircraftState {
    /// World position of the CG, m.
    pub position: Vec3,
    /// Inertial world velocity, m/s.
    pub velocity: Vec3,
    /// Engine-body → world rotation.
    pub orientation: Quat,
    /// Body rates (p, q, r) in NACA axes, rad/s.
    pub body_rates: Vec3,
    /// Internal fuel, kg.
    pub fuel_kg: f64,
    /// Stores mass, kg.
    pub payload_kg: f64,
    /// Stores drag.
    pub payload_cd0: f64,
    /// Engine core, 0 idle … 1 military.
    pub spool: f64,
    /// Afterburner, 0 … 1.
    pub afterburner: f64,
    /// Gear, 0 up … 1 down.
    pub gear: f64,
    /// Speedbrake, 0 … 1.
    pub speedbrake: f64,
    /// Flaps, 0 … 1.
    pub flaps: f64,
    /// Wing sweep, deg.
    pub sweep_deg: f64,
    /// TVC nozzle angle, rad (+ nose up).
    pub nozzle_rad: f64,
    /// Surface deflections last applied (NACA elevator, aileron, NACA rudder), rad.
    pub surfaces: Vec3,
    /// Bit 0..2: which wheels touched the floor last step.
    pub wheels_on_ground: u8,
    /// True while sliding on the belly after a wheels-up landing.
    pub belly_contact: bool,
    /// Set once the aircraft has crashed; the integrator then holds it on the floor.
    pub crashed: Option<CrashKind>,
    /// Non-gravitational force per unit mass last step, NACA body axes, m/s² (accelerometer).
    pub specific_force: Vec3,
}

impl AircraftState {
    /// An aircraft in flight at `position` with true airspeed `speed` along the nose, wings level
    /// with heading `heading_rad` (0 = world −Z, positive turns towards +X) and zero pitch.
    pub fn flying(position: Vec3, heading_rad: f64, speed: f64, fuel_kg: f64) -> Self {
        let orientation = Quat::from_axis_angle(Vec3::Y, -heading_rad);
        let fwd = orientation.rotate(Vec3::new(0.0, 0.0, -1.0));
        AircraftState {
            position,
            velocity: fwd * speed,
            orientation,
            body_rates: Vec3::ZERO,
            fuel_kg,
            payload_kg: 0.0,
            payload_cd0: 0.0,
            spool: 0.0,
            afterburner: 0.0,
            gear: 0.0,
            speedbrake: 0.0,
            flaps: 0.0,
            sweep_deg: 0.0,
            nozzle_rad: 0.0,
            surfaces: Vec3::ZERO,
            wheels_on_ground: 0,
            belly_contact: false,
            crashed: None,
            specific_force: Vec3::ZERO,
        }
    }

    /// Nose direction in the world.
    pub fn forward(&self) -> Vec3 {
        self.orientation.rotate(Vec3::new(0.0, 0.0, -1.0))
    }

    /// A world vector expressed in NACA body axes.
    #[inline]
    pub fn world_to_naca(&self, w: Vec3) -> Vec3 {
        to_naca(self.orientation.inverse_rotate(w))
    }

    /// A NACA body vector expressed in the world.
    #[inline]
    pub fn naca_to_world(&self, n: Vec3) -> Vec3 {
        self.orientation.rotate(from_naca(n))
    }

    /// Number of words in [`AircraftState::to_words`].
    pub const WORDS: usize = 32;

    /// The state as exact f64 words (flags and counters as small integers), in a fixed order:
    /// position, velocity, body rates, orientation (w, x, y, z), fuel, payload mass, payload cd0,
    /// spool, afterburner, gear, speedbrake, flaps, sweep, nozzle, surfaces, specific force,
    /// wheels-on-ground bits, belly contact, crash kind (0 none, 1 impact, 2 gear collapse).
    /// This is what the server sends a pilot so prediction can restart from the exact truth.
    pub fn to_words(&self) -> [f64; Self::WORDS] {
        let v = |v: Vec3| [v.x, v.y, v.z];
        let q = self.orientation;
        let mut w = [0.0; Self::WORDS];
        let parts: [&[f64]; 8] = [
            &v(self.position),
            &v(self.velocity),
            &v(self.body_rates),
            &[q.w, q.x, q.y, q.z],
            &[
                self.fuel_kg,
                self.payload_kg,
                self.payload_cd0,
                self.spool,
                self.afterburner,
                self.gear,
                self.speedbrake,
                self.flaps,
                self.sweep_deg,
                self.nozzle_rad,
            ],
            &v(self.surfaces),
            &v(self.specific_force),
            &[
                f64::from(self.wheels_on_ground),
                f64::from(u8::from(self.belly_contact)),
                match self.crashed {
                    None => 0.0,
                    Some(CrashKind::Impact) => 1.0,
                    Some(CrashKind::GearCollapse) => 2.0,
                },
            ],
        ];
        let mut i = 0;
        for part in parts {
            w[i..i + part.len()].copy_from_slice(part);
            i += part.len();
        }
        w
    }

    /// Rebuilds a state from [`AircraftState::to_words`]; `None` when the words are not a state
    /// this build could have produced (wrong count, a non-finite value, an out-of-range flag).
    pub fn from_words(w: &[f64]) -> Option<AircraftState> {
        if w.len() != Self::WORDS || !w.iter().all(|x| x.is_finite()) {
            return None;
        }
        let v = |i: usize| Vec3::new(w[i], w[i + 1], w[i + 2]);
        let small = |x: f64, max: u8| {
            (x >= 0.0 && x <= f64::from(max) && x.fract() == 0.0).then_some(x as u8)
        };
        Some(AircraftState {
            position: v(0),
            velocity: v(3),
            body_rates: v(6),
            orientation: Quat {
                w: w[9],
                x: w[10],
                y: w[11],
                z: w[12],
            },
            fuel_kg: w[13],
            payload_kg: w[14],
            payload_cd0: w[15],
            spool: w[16],
            afterburner: w[17],
            gear: w[18],
            speedbrake: w[19],
            flaps: w[20],
            sweep_deg: w[21],
            nozzle_rad: w[22],
            surfaces: v(23),
            specific_force: v(26),
            wheels_on_ground: small(w[29], 7)?,
            belly_contact: small(w[30], 1)? == 1,
            crashed: match small(w[31], 2)? {
                0 => None,
                1 => Some(CrashKind::Impact),
                _ => Some(CrashKind::GearCollapse),
            },
        })
    }

    /// A 64-bit FNV-1a hash of every bit of the state (determinism tests compare these).
    pub fn hash_bits(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for x in self.to_words() {
            for b in x.to_bits().to_le_bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        h
    }

    /// True when every float in the state is finite.
    pub fn is_finite(&self) -> bool {
        self.position.is_finite()
            && self.velocity.is_finite()
            && self.orientation.is_finite()
            && self.body_rates.is_finite()
            && self.fuel_kg.is_finite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_every_bit() {
        let mut s = AircraftState::flying(Vec3::new(1.5, 3000.25, -7.0), 0.3, 210.0, 1234.5);
        s.body_rates = Vec3::new(0.1, -0.2, 0.3);
        s.wheels_on_ground = 5;
        s.belly_contact = true;
        s.crashed = Some(CrashKind::GearCollapse);
        s.surfaces = Vec3::new(-0.1, 0.05, 1e-300);
        let back = AircraftState::from_words(&s.to_words()).expect("valid words");
        assert_eq!(back.hash_bits(), s.hash_bits());
        assert_eq!(back, s);
    }

    #[test]
    fn hostile_words_are_refused() {
        let good = AircraftState::flying(Vec3::ZERO, 0.0, 100.0, 10.0).to_words();
        assert!(AircraftState::from_words(&good[..31]).is_none());
        let mut w = good;
        w[0] = f64::NAN;
        assert!(AircraftState::from_words(&w).is_none());
        let mut w = good;
        w[29] = 8.0; // wheels bits beyond 0..=7
        assert!(AircraftState::from_words(&w).is_none());
        let mut w = good;
        w[31] = 1.5; // crash kind not an integer
        assert!(AircraftState::from_words(&w).is_none());
    }
}

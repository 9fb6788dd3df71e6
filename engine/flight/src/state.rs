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
    /// Speedbrake out.
    pub speedbrake: bool,
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
            speedbrake: false,
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

    /// FNV-1a over the bits of every field: equal hashes ⇔ (with overwhelming probability)
    /// bit-identical states. Used by the rollback/replay sync test and by desync diagnostics.
    pub fn hash_bits(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |x: u64| {
            for b in x.to_le_bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        let v3 = |v: Vec3| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
        for x in v3(self.position)
            .into_iter()
            .chain(v3(self.velocity))
            .chain(v3(self.body_rates))
        {
            eat(x);
        }
        for x in [
            self.orientation.w,
            self.orientation.x,
            self.orientation.y,
            self.orientation.z,
        ] {
            eat(x.to_bits());
        }
        for x in [
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
        ] {
            eat(x.to_bits());
        }
        for x in v3(self.surfaces).into_iter().chain(v3(self.specific_force)) {
            eat(x);
        }
        eat(u64::from(self.wheels_on_ground));
        eat(u64::from(self.belly_contact));
        eat(match self.crashed {
            None => 0,
            Some(CrashKind::Impact) => 1,
            Some(CrashKind::GearCollapse) => 2,
        });
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

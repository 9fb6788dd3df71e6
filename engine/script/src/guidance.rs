//! The `guidance` library's math: the steering helpers the pack's scripts call, in f64 on
//! fl_flight's libm-based math so they give the same bits on every platform.
//!
//! Owns: the formula behind each `guidance.*` function and its units and frames (world frame:
//! right-handed, Y up, metres, planet centre at (0, −R, 0); body frame: +X forward, +Y up,
//! +Z right; quaternions rotate body into world). Must not: touch Lua (the bindings live in
//! `api`), keep state, or call std's platform transcendentals.
//!
//! Sign conventions (the C++ original's, which the pack's scripts are tuned for): a positive
//! heading error means the target is to the right; positive aileron rolls right; positive
//! elevator pitches the nose up; positive rudder yaws the nose right; positive sideslip means
//! the air comes from the right.

use fl_flight::math::{Quat, Vec3, asin, atan2, sqrt};
use std::f64::consts::FRAC_2_PI;

/// The sim's Earth radius, m (fl_flight's `Planet::earth()`); every `radius_m` defaults to it.
pub const EARTH_RADIUS_M: f64 = 6_371_000.0;
/// Pitch demanded per metre of altitude error by [`pitch_error_from_alt`], rad/m.
pub const PITCH_PER_ALT_ERROR: f64 = 0.002;
/// The largest pitch [`pitch_error_from_alt`] demands, rad (30°).
pub const MAX_PITCH_DEMAND: f64 = 30.0 * std::f64::consts::PI / 180.0;
/// Rudder per unit aileron of [`coordinated_rudder`].
pub const COORDINATED_RUDDER_GAIN: f64 = 0.3;
/// Rudder per radian of sideslip of [`rudder_to_coordinate`].
pub const SIDESLIP_RUDDER_GAIN: f64 = 2.0;
/// Aileron per radian of bank error of [`turn_aileron`].
pub const BANK_ERROR_AILERON_GAIN: f64 = 2.0;
/// Default bank limit of [`turn_aileron`], rad (45°).
pub const DEFAULT_MAX_BANK: f64 = std::f64::consts::FRAC_PI_4;
/// Default bound of [`elevator_for_altitude_hold`] on the nose above the flight path, rad.
pub const DEFAULT_MAX_AOA: f64 = 0.20;
/// Climb rate demanded per metre of altitude error by [`elevator_for_altitude_hold`], 1/s.
pub const CLIMB_PER_ALT_ERROR: f64 = 0.2;
/// The largest climb or sink rate [`elevator_for_altitude_hold`] demands, m/s.
pub const MAX_CLIMB_DEMAND: f64 = 60.0;
/// Elevator per rad/s of pitch rate damping in [`elevator_for_altitude_hold`].
pub const PITCH_RATE_DAMPING: f64 = 0.3;

fn clamp1(v: f64) -> f64 {
    if v.is_nan() { 0.0 } else { v.clamp(-1.0, 1.0) }
}

/// The unit "up" at a world position: the radial from the planet's centre. Straight up (+Y) at
/// the centre itself, where there is no radial.
pub fn up_at(pos: Vec3, radius_m: f64) -> Vec3 {
    let r = Vec3::new(pos.x, pos.y + radius_m, pos.z);
    let n = r.length();
    if n > 1e-9 && n.is_finite() {
        r * (1.0 / n)
    } else {
        Vec3::Y
    }
}

/// Altitude above the sphere (MSL), m.
pub fn altitude(pos: Vec3, radius_m: f64) -> f64 {
    Vec3::new(pos.x, pos.y + radius_m, pos.z).length() - radius_m
}

/// (latitude °, longitude °, altitude m) of a world position: latitude = asin(up.y), longitude
/// = atan2(up.x, up.z), positive east (fl_flight::geodetic's convention).
pub fn geodetic(pos: Vec3, radius_m: f64) -> (f64, f64, f64) {
    let up = up_at(pos, radius_m);
    let lat = asin(up.y.clamp(-1.0, 1.0));
    let lon = atan2(up.x, up.z);
    (lat.to_degrees(), lon.to_degrees(), altitude(pos, radius_m))
}

/// The body +X (nose) axis in the world frame.
pub fn body_forward(q: Quat) -> Vec3 {
    q.rotate(Vec3::new(1.0, 0.0, 0.0))
}

fn horizontal(v: Vec3, up: Vec3) -> Vec3 {
    v - up * v.dot(up)
}

/// Signed horizontal angle (rad, −π…π) from the nose's heading to the bearing of `target`,
/// both projected on the local tangent plane at `own`; positive = target to the right. 0 when
/// the target is within 0.1 m horizontally or the nose points straight up or down.
pub fn heading_error(q: Quat, own: Vec3, target: Vec3, radius_m: f64) -> f64 {
    let up = up_at(own, radius_m);
    let f = horizontal(body_forward(q), up);
    let t = horizontal(target - own, up);
    if t.length() < 0.1 || f.length() < 1e-9 {
        return 0.0;
    }
    // (t × f)·up is positive when t lies clockwise (right) of f seen from above.
    atan2(t.cross(f).dot(up), f.dot(t))
}

/// Pitch attitude of the nose above the local horizon, rad (positive nose up).
pub fn pitch_of(q: Quat, own: Vec3, radius_m: f64) -> f64 {
    let up = up_at(own, radius_m);
    asin(body_forward(q).dot(up).clamp(-1.0, 1.0))
}

/// Bank about the nose relative to the local horizon, rad (positive right wing down).
pub fn bank_of(q: Quat, own: Vec3, radius_m: f64) -> f64 {
    let up = up_at(own, radius_m);
    let body_up = q.rotate(Vec3::Y);
    let body_right = q.rotate(Vec3::new(0.0, 0.0, 1.0));
    atan2(-body_right.dot(up), body_up.dot(up))
}

/// Pitch error (rad) to close an altitude gap of `alt_error_m` (target − current): the demanded
/// pitch `clamp(0.002 rad/m × alt_error_m, ±30°)` minus the current pitch over the local horizon.
pub fn pitch_error_from_alt(q: Quat, own: Vec3, alt_error_m: f64, radius_m: f64) -> f64 {
    let demand = (PITCH_PER_ALT_ERROR * alt_error_m).clamp(-MAX_PITCH_DEMAND, MAX_PITCH_DEMAND);
    let demand = if demand.is_nan() { 0.0 } else { demand };
    demand - pitch_of(q, own, radius_m)
}

/// Elevator for a pitch error: `clamp(2/π × error, −1, 1)` (90° of error → full deflection).
pub fn elevator_from_pitch_error(pitch_error_rad: f64) -> f64 {
    clamp1(FRAC_2_PI * pitch_error_rad)
}

/// Aileron for a heading error with no attitude feedback: `clamp(2/π × error, −1, 1)`.
pub fn bank_to_turn_aileron(heading_error_rad: f64) -> f64 {
    clamp1(FRAC_2_PI * heading_error_rad)
}

/// Aileron that flies the bank a heading error asks for and stops there: target bank =
/// `bank_to_turn_aileron(error) × max_bank`, aileron = `clamp(2 × (target − bank), −1, 1)`.
pub fn turn_aileron(
    q: Quat,
    own: Vec3,
    heading_error_rad: f64,
    radius_m: f64,
    max_bank_rad: f64,
) -> f64 {
    let target = bank_to_turn_aileron(heading_error_rad) * max_bank_rad.abs();
    clamp1(BANK_ERROR_AILERON_GAIN * (target - bank_of(q, own, radius_m)))
}

/// Rudder proportional to aileron: `clamp(0.3 × aileron, −1, 1)`.
pub fn coordinated_rudder(aileron: f64) -> f64 {
    clamp1(COORDINATED_RUDDER_GAIN * aileron)
}

/// Sideslip angle, rad: the angle of the velocity out of the body's plane of symmetry,
/// `atan2(v_body.z, √(v_body.x² + v_body.y²))`; positive = moving towards the right wing, i.e.
/// the air comes from the right. 0 below 0.5 m/s.
pub fn sideslip(q: Quat, vel: Vec3) -> f64 {
    if vel.length() < 0.5 {
        return 0.0;
    }
    let vb = q.inverse_rotate(vel);
    atan2(vb.z, sqrt(vb.x * vb.x + vb.y * vb.y))
}

/// Rudder that yaws the nose into the relative wind: `clamp(2 × sideslip, −1, 1)`.
pub fn rudder_to_coordinate(sideslip_rad: f64) -> f64 {
    clamp1(SIDESLIP_RUDDER_GAIN * sideslip_rad)
}

/// Optional arguments of [`elevator_for_altitude_hold`].
#[derive(Debug, Clone, Copy)]
pub struct AltHold {
    /// Planet radius, m.
    pub radius_m: f64,
    /// Bound on the nose above (or below) the flight path, rad.
    pub max_aoa_rad: f64,
    /// The pitch rate the script measured, rad/s (positive nose up), for damping.
    pub pitch_rate_rad_s: f64,
}

impl Default for AltHold {
    fn default() -> Self {
        Self {
            radius_m: EARTH_RADIUS_M,
            max_aoa_rad: DEFAULT_MAX_AOA,
            pitch_rate_rad_s: 0.0,
        }
    }
}

/// Altitude hold through climb rate: climb demand = `clamp(0.2/s × (target − altitude),
/// ±60 m/s)`; flight-path demand γ* = asin(demand / speed); nose target = γ + `clamp(3 × (γ* −
/// γ), ±max_aoa)`; elevator = `clamp(2/π × (nose target − pitch) − 0.3 × pitch_rate, −1, 1)`.
pub fn elevator_for_altitude_hold(
    q: Quat,
    own: Vec3,
    vel: Vec3,
    target_alt_m: f64,
    o: AltHold,
) -> f64 {
    let up = up_at(own, o.radius_m);
    let speed = vel.length().max(1.0);
    let climb = vel.dot(up);
    let demand = (CLIMB_PER_ALT_ERROR * (target_alt_m - altitude(own, o.radius_m)))
        .clamp(-MAX_CLIMB_DEMAND, MAX_CLIMB_DEMAND);
    let gamma_cmd = asin((demand / speed).clamp(-1.0, 1.0));
    let gamma = asin((climb / speed).clamp(-1.0, 1.0));
    let aoa = o.max_aoa_rad.abs();
    let nose = gamma + (3.0 * (gamma_cmd - gamma)).clamp(-aoa, aoa);
    clamp1(
        FRAC_2_PI * (nose - pitch_of(q, own, o.radius_m)) - PITCH_RATE_DAMPING * o.pitch_rate_rad_s,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: f64 = EARTH_RADIUS_M;

    fn yaw(deg: f64) -> Quat {
        // At the pole origin: body +X forward. Yaw about +Y by `deg` (right-handed: +Y rotation
        // turns +X towards −Z, i.e. to the left of a nose along +X with +Z right).
        Quat::from_axis_angle(Vec3::Y, deg.to_radians())
    }

    #[test]
    fn altitude_is_radial_not_y() {
        assert!((altitude(Vec3::new(0.0, 1000.0, 0.0), R) - 1000.0).abs() < 1e-6);
        let far = Vec3::new(3_000_000.0, -800_000.0, 0.0);
        assert!((altitude(far, R) - (Vec3::new(3e6, R - 8e5, 0.0).length() - R)).abs() < 1e-6);
        let (lat, lon, alt) = geodetic(Vec3::new(0.0, 500.0, 0.0), R);
        assert!((lat - 90.0).abs() < 1e-9 && lon.abs() < 1e-9 && (alt - 500.0).abs() < 1e-6);
    }

    #[test]
    fn heading_error_sign_is_right_positive() {
        let q = Quat::IDENTITY; // nose +X, right wing +Z
        let own = Vec3::ZERO;
        let right = heading_error(q, own, Vec3::new(100.0, 0.0, 100.0), R);
        assert!(
            (right - std::f64::consts::FRAC_PI_4).abs() < 1e-9,
            "{right}"
        );
        let left = heading_error(q, own, Vec3::new(100.0, 0.0, -100.0), R);
        assert!((left + std::f64::consts::FRAC_PI_4).abs() < 1e-9, "{left}");
        // Turning the nose left by 45° puts a target straight ahead 45° to the right.
        let e = heading_error(yaw(45.0), own, Vec3::new(100.0, 0.0, 0.0), R);
        assert!((e - std::f64::consts::FRAC_PI_4).abs() < 1e-9, "{e}");
        assert_eq!(heading_error(q, own, Vec3::new(0.05, 0.0, 0.0), R), 0.0);
    }

    #[test]
    fn bank_and_pitch_signs() {
        // Roll right 30° about the nose (+X): right wing (+Z) goes down.
        let q = Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), 30f64.to_radians());
        let b = bank_of(q, Vec3::ZERO, R);
        assert!((b - 30f64.to_radians()).abs() < 1e-9, "{b}");
        // Nose up 10° (rotation about +Z lifts +X towards +Y).
        let p = Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), 10f64.to_radians());
        assert!((pitch_of(p, Vec3::ZERO, R) - 10f64.to_radians()).abs() < 1e-9);
        // Below the target altitude and level: pull.
        assert!(pitch_error_from_alt(Quat::IDENTITY, Vec3::ZERO, 100.0, R) > 0.0);
        assert!(
            elevator_for_altitude_hold(
                Quat::IDENTITY,
                Vec3::ZERO,
                Vec3::new(200.0, 0.0, 0.0),
                500.0,
                AltHold::default()
            ) > 0.0
        );
        assert!(
            elevator_for_altitude_hold(
                Quat::IDENTITY,
                Vec3::new(0.0, 900.0, 0.0),
                Vec3::new(200.0, 0.0, 0.0),
                500.0,
                AltHold::default()
            ) < 0.0
        );
        // Wings level with the target to the right: roll right.
        assert!(turn_aileron(Quat::IDENTITY, Vec3::ZERO, 0.5, R, DEFAULT_MAX_BANK) > 0.0);
        // Already banked past the target bank: roll back.
        assert!(turn_aileron(q, Vec3::ZERO, 0.1, R, DEFAULT_MAX_BANK) < 0.0);
    }

    #[test]
    fn sideslip_positive_when_air_from_the_right() {
        // Moving forward and towards the right wing: the air comes from the right.
        let b = sideslip(Quat::IDENTITY, Vec3::new(100.0, 0.0, 10.0));
        assert!(b > 0.0 && (b - atan2(10.0, 100.0)).abs() < 1e-12);
        assert!(rudder_to_coordinate(b) > 0.0);
        assert_eq!(sideslip(Quat::IDENTITY, Vec3::ZERO), 0.0);
    }

    #[test]
    fn outputs_are_bounded_and_nan_free() {
        for v in [f64::NAN, f64::INFINITY, -1e300, 3.0] {
            for out in [
                elevator_from_pitch_error(v),
                bank_to_turn_aileron(v),
                coordinated_rudder(v),
                rudder_to_coordinate(v),
            ] {
                assert!((-1.0..=1.0).contains(&out), "{v} -> {out}");
            }
        }
    }
}

//! Guidance math as pure functions: geometry (heading, bank, flight path, intercepts) and the
//! single-axis control laws the autopilot composes (bank-to-turn aileron, coordinated rudder,
//! elevator from load error, throttle for speed).
//!
//! Owns: sign conventions for the AI. Commands follow `fl_flight::Controls`: `pitch > 0` is nose
//! up (more load factor), `roll > 0` rolls right, `yaw > 0` yaws the nose right. Angles: heading
//! error > 0 means "turn right"; bank > 0 is right wing down; flight path > 0 is climbing.
//! Must not: keep state, read clocks, or use platform transcendental functions (`libm` only, so
//! every machine computes the same bits).

use fl_flight::atmosphere::G0;
use fl_flight::math::{Quat, Vec3, asin, atan2};
use std::f64::consts::PI;

/// Wraps an angle into (−π, π].
#[inline]
pub fn wrap_pi(a: f64) -> f64 {
    if !a.is_finite() {
        return 0.0;
    }
    let mut x = a % (2.0 * PI);
    if x > PI {
        x -= 2.0 * PI;
    } else if x <= -PI {
        x += 2.0 * PI;
    }
    x
}

/// The component of `v` in the local horizontal plane (perpendicular to the unit `up`).
#[inline]
pub fn horizontal(v: Vec3, up: Vec3) -> Vec3 {
    v - up * v.dot(up)
}

/// Signed horizontal angle from direction `from` to direction `to`, measured in the plane
/// perpendicular to `up`: positive when `to` lies to the right (clockwise seen from above).
/// Zero when either horizontal projection is shorter than 1e-9 of its vector's length scale.
pub fn heading_error(from: Vec3, to: Vec3, up: Vec3) -> f64 {
    let a = horizontal(from, up);
    let b = horizontal(to, up);
    if a.dot(a) < 1e-18 || b.dot(b) < 1e-18 {
        return 0.0;
    }
    // Right of `a` is a × up; the angle is atan2(b·right, b·a).
    let right = a.cross(up);
    atan2(b.dot(right), b.dot(a))
}

/// Heading error from the entity's track (velocity, or the nose when nearly stationary) to the
/// point `target`, positive = turn right.
pub fn heading_error_to(position: Vec3, track: Vec3, up: Vec3, target: Vec3) -> f64 {
    heading_error(track, target - position, up)
}

/// Bank angle relative to the local horizon, rad: positive right wing down, ±π inverted.
pub fn bank_angle(orientation: Quat, up: Vec3) -> f64 {
    let right = orientation.rotate(Vec3::new(1.0, 0.0, 0.0));
    let body_up = orientation.rotate(Vec3::Y);
    atan2(-right.dot(up), body_up.dot(up))
}

/// Pitch attitude of the nose above the local horizon, rad.
pub fn pitch_angle(orientation: Quat, up: Vec3) -> f64 {
    let fwd = orientation.rotate(Vec3::new(0.0, 0.0, -1.0));
    asin(fwd.dot(up).clamp(-1.0, 1.0))
}

/// Flight-path angle of `velocity` above the local horizon, rad (0 when nearly stationary).
pub fn flight_path_angle(velocity: Vec3, up: Vec3) -> f64 {
    let v = velocity.length();
    if v < 1e-6 {
        return 0.0;
    }
    asin((velocity.dot(up) / v).clamp(-1.0, 1.0))
}

/// Gains of the altitude → flight-path loop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AltitudeGains {
    /// Climb rate per metre of altitude error, 1/s.
    pub k_alt: f64,
    /// Largest commanded climb or descent rate, m/s.
    pub max_vs_mps: f64,
    /// Largest commanded flight-path angle, rad.
    pub max_gamma_rad: f64,
}

impl Default for AltitudeGains {
    fn default() -> Self {
        Self {
            k_alt: 0.15,
            max_vs_mps: 40.0,
            max_gamma_rad: 20f64.to_radians(),
        }
    }
}

/// Flight-path (pitch) error that nulls an altitude error: the climb rate `k·Δh` (bounded) as a
/// flight-path angle at `speed`, minus the current flight path. Positive = nose up needed.
///
/// Closing on the flight path rather than on the nose attitude is deliberate: a banked, slow or
/// heavy aircraft holds its nose above the horizon while descending, and an attitude loop would
/// call that "on altitude" (the C++ original's loiter sank that way).
pub fn pitch_error_from_altitude(
    altitude_error_m: f64,
    flight_path_rad: f64,
    speed_mps: f64,
    gains: &AltitudeGains,
) -> f64 {
    let vs = (altitude_error_m * gains.k_alt).clamp(-gains.max_vs_mps, gains.max_vs_mps);
    let gamma_cmd = asin((vs / speed_mps.max(1.0)).clamp(-1.0, 1.0))
        .clamp(-gains.max_gamma_rad, gains.max_gamma_rad);
    gamma_cmd - flight_path_rad
}

/// Lateral acceleration (m/s², + = to the right) that turns the track by `heading_error_rad`:
/// a turn rate `k·error` plus the feed-forward `turn_rate_ff` (rad/s, + right), bounded by what
/// `max_bank_rad` of level bank provides.
pub fn lateral_accel_for_heading(
    heading_error_rad: f64,
    turn_rate_ff: f64,
    speed_mps: f64,
    k_heading: f64,
    max_bank_rad: f64,
) -> f64 {
    let a_max = G0 * libm::tan(max_bank_rad.clamp(0.0, 1.5));
    let omega = turn_rate_ff + k_heading * heading_error_rad;
    (speed_mps.max(0.0) * omega).clamp(-a_max, a_max)
}

/// Bank angle for a level, coordinated turn with lateral acceleration `a_lat` (+ right), rad.
#[inline]
pub fn bank_for_lateral_accel(a_lat: f64) -> f64 {
    atan2(a_lat, G0)
}

/// Gains of the roll axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RollGains {
    /// Roll rate commanded per radian of bank error, 1/s.
    pub k_bank: f64,
    /// Largest commanded roll rate, rad/s.
    pub max_roll_rate: f64,
    /// Feedback on the roll-rate error, in units of the command's feed-forward.
    pub k_rate: f64,
}

impl Default for RollGains {
    fn default() -> Self {
        Self {
            k_bank: 3.0,
            max_roll_rate: 2.5,
            k_rate: 1.0,
        }
    }
}

/// Aileron command (+ rolls right) that rolls through `bank_error_rad` (+ = roll right needed):
/// a roll-rate demand `k·error` (bounded), fed forward through the airframe's steady roll rate
/// per unit aileron `roll_rate_per_roll` (rad/s), plus feedback on the measured roll rate `p`.
pub fn bank_to_turn_aileron(
    bank_error_rad: f64,
    roll_rate_p: f64,
    roll_rate_per_roll: f64,
    gains: &RollGains,
) -> f64 {
    let authority = roll_rate_per_roll.max(0.05);
    let p_cmd = (gains.k_bank * bank_error_rad).clamp(-gains.max_roll_rate, gains.max_roll_rate);
    ((p_cmd + gains.k_rate * (p_cmd - roll_rate_p)) / authority).clamp(-1.0, 1.0)
}

/// Rudder command (+ nose right) coordinating a turn: proportional to the sideslip (β > 0, air
/// from the right, needs nose-right rudder) plus a fraction of the aileron against adverse yaw.
#[inline]
pub fn coordinated_rudder(aileron: f64, beta_rad: f64) -> f64 {
    (3.0 * beta_rad + 0.1 * aileron).clamp(-1.0, 1.0)
}

/// Gains of the load-factor loop, normalised by the airframe's pitch sensitivity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PitchGains {
    /// Share of the load demand fed forward through the estimated sensitivity (below 1, so an
    /// underestimated sensitivity undershoots instead of overshooting; feedback does the rest).
    pub kff: f64,
    /// Proportional gain on the load error, in units of the feed-forward (dimensionless).
    pub kp: f64,
    /// Integral rate on the load error, 1/s (same units).
    pub ki: f64,
    /// Pitch-rate damping, g per rad/s of pitch-rate error (same units).
    pub kq: f64,
}

impl Default for PitchGains {
    fn default() -> Self {
        Self {
            kff: 0.8,
            kp: 0.5,
            ki: 1.5,
            kq: 3.0,
        }
    }
}

/// Elevator (pitch) command for a load-factor demand: the feed-forward `kff·n_cmd / g_per_pitch` on
/// top of the learned offset `integral` (the pitch command at zero g, which the caller
/// integrates), plus proportional feedback on the load error and damping of the pitch-rate error
/// `q − q_ref`. `g_per_pitch` is the steady load factor one unit of pitch command produces at the
/// current dynamic pressure. Positive output is nose up.
pub fn elevator_from_load_error(
    n_cmd: f64,
    load_error_g: f64,
    pitch_rate_error: f64,
    integral: f64,
    g_per_pitch: f64,
    gains: &PitchGains,
) -> f64 {
    let s = g_per_pitch.max(0.5);
    (integral + (gains.kff * n_cmd + gains.kp * load_error_g - gains.kq * pitch_rate_error) / s)
        .clamp(-1.0, 1.0)
}

/// The pitch rate of a steady manoeuvre at load factor `n` when the canopy's component along the
/// local vertical is `body_up_dot_up` (cos bank × cos pitch): `g·(n − body_up·up)/V`.
#[inline]
pub fn steady_pitch_rate(n: f64, body_up_dot_up: f64, speed: f64) -> f64 {
    G0 * (n - body_up_dot_up) / speed.max(1.0)
}

/// Load factor needed to rotate the flight path by `pitch_error_rad` with time constant `tau_s`
/// while wings level, on top of the 1 g that holds it: `cos γ + V·Δγ/(g·τ)`.
#[inline]
pub fn load_for_pitch_error(
    pitch_error_rad: f64,
    flight_path_rad: f64,
    speed: f64,
    tau_s: f64,
) -> f64 {
    libm::cos(flight_path_rad) + speed * pitch_error_rad / (G0 * tau_s.max(0.1))
}

/// Throttle (0 … 1) holding `target_mps` around the trim `trim` with proportional gain `gain`
/// per m/s.
#[inline]
pub fn throttle_for_speed(speed_mps: f64, target_mps: f64, trim: f64, gain: f64) -> f64 {
    (trim + gain * (target_mps - speed_mps)).clamp(0.0, 1.0)
}

/// Time to intercept a target at relative position `rel` moving with `target_vel`, flying at
/// constant speed `own_speed` along the best straight line: the smallest positive root of
/// `|rel + v·t| = s·t`. `None` when no straight-line intercept exists.
pub fn intercept_time(rel: Vec3, target_vel: Vec3, own_speed: f64) -> Option<f64> {
    let a = target_vel.dot(target_vel) - own_speed * own_speed;
    let b = 2.0 * rel.dot(target_vel);
    let c = rel.dot(rel);
    if c <= 0.0 {
        return Some(0.0);
    }
    if a.abs() < 1e-9 {
        // Equal speeds: linear.
        if b < 0.0 {
            return Some(-c / b);
        }
        return None;
    }
    let disc = b * b - 4.0 * a * c;
    if disc < 0.0 {
        return None;
    }
    let sq = disc.sqrt();
    let t1 = (-b - sq) / (2.0 * a);
    let t2 = (-b + sq) / (2.0 * a);
    let (lo, hi) = if t1 < t2 { (t1, t2) } else { (t2, t1) };
    if lo > 0.0 {
        Some(lo)
    } else if hi > 0.0 {
        Some(hi)
    } else {
        None
    }
}

/// Range rate's negative: how fast the range closes (m/s, + = closing).
#[inline]
pub fn closing_speed(rel: Vec3, rel_vel: Vec3) -> f64 {
    let r = rel.length();
    if r < 1e-9 {
        return 0.0;
    }
    -rel.dot(rel_vel) / r
}

/// Time-to-go used by the lead and lag points: the straight-line intercept time when one exists,
/// else range over the closing speed (floored at 10 m/s), capped at `cap_s`.
pub fn time_to_go(rel: Vec3, own_vel: Vec3, target_vel: Vec3, cap_s: f64) -> f64 {
    let s = own_vel.length();
    let t = intercept_time(rel, target_vel, s).unwrap_or_else(|| {
        let closing = closing_speed(rel, target_vel - own_vel);
        rel.length() / closing.max(10.0)
    });
    t.clamp(0.0, cap_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NORTH: Vec3 = Vec3::new(0.0, 0.0, -1.0);
    const EAST: Vec3 = Vec3::new(1.0, 0.0, 0.0);

    #[test]
    fn heading_error_is_positive_to_the_right() {
        // Flying north, a target to the east is a right turn.
        let e = heading_error(NORTH, EAST, Vec3::Y);
        assert!((e - PI / 2.0).abs() < 1e-12, "{e}");
        let w = heading_error(NORTH, -EAST, Vec3::Y);
        assert!((w + PI / 2.0).abs() < 1e-12, "{w}");
        assert_eq!(heading_error(NORTH, Vec3::Y, Vec3::Y), 0.0);
        let behind = heading_error(NORTH, -NORTH, Vec3::Y);
        assert!((behind.abs() - PI).abs() < 1e-12);
    }

    #[test]
    fn heading_to_a_point_and_load_for_a_pitch_change() {
        // At the origin flying north: a point north-east is 45° right.
        let e = heading_error_to(Vec3::ZERO, NORTH, Vec3::Y, Vec3::new(1000.0, 0.0, -1000.0));
        assert!((e - PI / 4.0).abs() < 1e-12, "{e}");
        // Level: 1 g holds the path; a nose-up error asks for more, a nose-down one for less.
        assert!((load_for_pitch_error(0.0, 0.0, 200.0, 2.0) - 1.0).abs() < 1e-12);
        let up = load_for_pitch_error(0.1, 0.0, 200.0, 2.0);
        assert!(
            (up - (1.0 + 200.0 * 0.1 / (G0 * 2.0))).abs() < 1e-12,
            "{up}"
        );
        assert!(load_for_pitch_error(-0.1, 0.0, 200.0, 2.0) < 1.0);
        // Climbing at 30°, holding the path needs cos 30° g.
        let c = load_for_pitch_error(0.0, PI / 6.0, 200.0, 2.0);
        assert!((c - libm::cos(PI / 6.0)).abs() < 1e-12);
    }

    #[test]
    fn bank_and_pitch_signs() {
        // Heading north, rolled right by 30° about the nose: engine body Z is aft, so a right roll
        // is a rotation about +Z (aft) by −30°... check by construction instead.
        let roll_right = Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), -30f64.to_radians());
        let b = bank_angle(roll_right, Vec3::Y);
        assert!((b - 30f64.to_radians()).abs() < 1e-12, "{b}");
        let nose_up = Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), 10f64.to_radians());
        let p = pitch_angle(nose_up, Vec3::Y);
        assert!((p - 10f64.to_radians()).abs() < 1e-12, "{p}");
    }

    #[test]
    fn wrap_pi_range() {
        for a in [-10.0, -PI, -1.0, 0.0, 1.0, PI, 3.5, 10.0, 100.0] {
            let w = wrap_pi(a);
            assert!(w > -PI - 1e-12 && w <= PI + 1e-12, "{a} -> {w}");
            assert!((libm::sin(w) - libm::sin(a)).abs() < 1e-9);
        }
        assert_eq!(wrap_pi(f64::NAN), 0.0);
    }

    #[test]
    fn altitude_error_commands_the_right_way() {
        let g = AltitudeGains::default();
        assert!(pitch_error_from_altitude(500.0, 0.0, 200.0, &g) > 0.0);
        assert!(pitch_error_from_altitude(-500.0, 0.0, 200.0, &g) < 0.0);
        // On altitude but descending: nose up.
        assert!(pitch_error_from_altitude(0.0, -0.05, 200.0, &g) > 0.0);
        // Large errors are bounded by the climb-rate limit.
        let big = pitch_error_from_altitude(1.0e6, 0.0, 200.0, &g);
        assert!((big - asin(40.0 / 200.0)).abs() < 1e-12);
    }

    #[test]
    fn aileron_rudder_elevator_throttle_signs() {
        let rg = RollGains::default();
        assert!(bank_to_turn_aileron(0.3, 0.0, 3.0, &rg) > 0.0);
        assert!(bank_to_turn_aileron(-0.3, 0.0, 3.0, &rg) < 0.0);
        // Already rolling right faster than demanded: opposite aileron (damping).
        assert!(bank_to_turn_aileron(0.0, 1.0, 3.0, &rg) < 0.0);
        assert!(
            coordinated_rudder(0.0, 0.1) > 0.0,
            "air from the right needs nose-right"
        );
        assert!(
            coordinated_rudder(0.5, 0.0) > 0.0,
            "right roll gets right rudder"
        );
        let pg = PitchGains::default();
        assert!(elevator_from_load_error(1.0, 1.0, 0.0, 0.0, 10.0, &pg) > 0.1);
        assert!(elevator_from_load_error(1.0, -1.0, 0.0, 0.0, 10.0, &pg) < 0.1);
        assert!(elevator_from_load_error(0.0, 0.0, 0.5, 0.0, 10.0, &pg) < 0.0);
        assert!(elevator_from_load_error(0.0, 0.0, -0.5, 0.0, 10.0, &pg) > 0.0);
        assert!(elevator_from_load_error(100.0, 0.0, 0.0, 0.0, 10.0, &pg) == 1.0);
        // A level turn at 60° of bank pitches at g·(2 − 0.5)/V.
        let q = steady_pitch_rate(2.0, 0.5, 200.0);
        assert!((q - G0 * 1.5 / 200.0).abs() < 1e-12);
        assert!(throttle_for_speed(150.0, 200.0, 0.5, 0.01) > 0.5);
        assert_eq!(throttle_for_speed(150.0, 1000.0, 0.5, 0.01), 1.0);
        assert_eq!(throttle_for_speed(500.0, 100.0, 0.5, 0.01), 0.0);
        let a = lateral_accel_for_heading(1.0, 0.0, 200.0, 0.5, 60f64.to_radians());
        assert!(
            (a - G0 * libm::tan(60f64.to_radians())).abs() < 1e-9,
            "bounded: {a}"
        );
        assert!(bank_for_lateral_accel(G0) > 0.78 && bank_for_lateral_accel(G0) < 0.79);
    }

    #[test]
    fn intercept_time_solves_the_triangle() {
        // Target 1000 m east moving north at 100 m/s, own speed 200 m/s: |(1000, -100t)| = 200 t.
        let t = intercept_time(
            Vec3::new(1000.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, -100.0),
            200.0,
        )
        .expect("intercept exists");
        let miss = (Vec3::new(1000.0, 0.0, -100.0 * t)).length() - 200.0 * t;
        assert!(miss.abs() < 1e-6, "{t} {miss}");
        // A faster target running away cannot be intercepted.
        assert!(
            intercept_time(
                Vec3::new(0.0, 0.0, -1000.0),
                Vec3::new(0.0, 0.0, -300.0),
                200.0
            )
            .is_none()
        );
        // Time-to-go falls back to range/closure and respects the cap.
        let ttg = time_to_go(
            Vec3::new(0.0, 0.0, -1000.0),
            Vec3::new(0.0, 0.0, -200.0),
            Vec3::new(0.0, 0.0, -300.0),
            30.0,
        );
        assert_eq!(ttg, 30.0);
    }
}

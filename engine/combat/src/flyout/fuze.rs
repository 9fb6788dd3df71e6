//! The proximity fuze and the warhead: when a missile detonates, and what its blast does.
//!
//! - **Closest approach inside a tick**: both the missile and the target are taken to move in
//!   straight lines across one step, so their separation is `r(s) = r0 + s·(d_t − d_m)` for
//!   `s ∈ [0, 1]`; its minimum is found in closed form. A 600 m/s closure moves 10 m per 1/60 s
//!   tick — wider than most warheads — and this is what keeps such a pass from slipping between
//!   two ticks.
//! - **Fuzing**: once armed, the missile detonates at the closest approach of the tick when it
//!   lies within the blast radius *and* is a true minimum (the range is opening again by the end
//!   of the step). While still closing inside the radius it waits a tick: the closest point is
//!   ahead.
//! - **Damage falloff**: `damage · (1 − (d/R)²)` for a miss distance `d` within the radius `R`,
//!   0 beyond — full damage on a direct hit, three quarters at half the radius, nothing at the
//!   edge, smooth everywhere. Deterministic: no kill dice (the pack's `damage` numbers are
//!   gameplay values tuned for exactly this).
//!
//! Must not: decide who else the blast reaches (the server applies [`warhead_damage`] to every
//! entity near the detonation point).

use fl_flight::math::Vec3;

/// The closest approach of two straight segments traversed over the same step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClosestApproach {
    /// Fraction of the step at the closest approach, [0, 1].
    pub fraction: f64,
    /// Separation there, m.
    pub distance_m: f64,
    /// The first body's position there.
    pub point: Vec3,
}

/// Closest approach of a body moving `a0 → a1` and one moving `b0 → b1` over the same step.
pub fn closest_approach(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> ClosestApproach {
    let r0 = b0 - a0;
    let d = (b1 - b0) - (a1 - a0);
    let dd = d.dot(d);
    let s = if dd > 0.0 {
        (-r0.dot(d) / dd).clamp(0.0, 1.0)
    } else {
        0.0
    };
    // NaN input leaves `s` NaN; pin it so the fraction is always inside the step.
    let s = if s.is_nan() { 0.0 } else { s };
    ClosestApproach {
        fraction: s,
        distance_m: (r0 + d * s).length(),
        point: a0 + (a1 - a0) * s,
    }
}

/// Share of a warhead's damage at miss distance `distance_m` from a warhead of radius
/// `radius_m`: `1 − (d/R)²` inside, 0 outside (and 0 for a zero radius or NaN distance).
pub fn warhead_fraction(radius_m: f64, distance_m: f64) -> f64 {
    if !(radius_m > 0.0 && distance_m >= 0.0 && distance_m <= radius_m) {
        return 0.0;
    }
    let x = distance_m / radius_m;
    1.0 - x * x
}

/// Damage a warhead of `damage` and radius `radius_m` does at `distance_m`.
pub fn warhead_damage(damage: f64, radius_m: f64, distance_m: f64) -> f64 {
    damage * warhead_fraction(radius_m, distance_m)
}

/// A missile's detonation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detonation {
    /// Where it went off, m.
    pub point: Vec3,
    /// Distance to the target's centre at that moment, m.
    pub miss_distance_m: f64,
    /// Damage to the target.
    pub damage: f64,
    /// Flight time at detonation, s.
    pub time_s: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fast_head_on_pass_is_caught_between_ticks() {
        // 600 m/s closure, 1/60 s: the bodies pass each other mid-tick 3 m apart.
        let dt = 1.0 / 60.0;
        let a0 = Vec3::new(0.0, 0.0, 0.0);
        let a1 = Vec3::new(400.0 * dt, 0.0, 0.0);
        let b0 = Vec3::new(6.0, 3.0, 0.0);
        let b1 = Vec3::new(6.0 - 200.0 * dt, 3.0, 0.0);
        let ca = closest_approach(a0, a1, b0, b1);
        assert!((ca.distance_m - 3.0).abs() < 1e-9, "{ca:?}");
        assert!((ca.fraction - 0.6).abs() < 1e-9);
        // Neither end of the tick is within 4 m.
        assert!((b0 - a0).length() > 4.0 && (b1 - a1).length() > 4.0);
    }

    #[test]
    fn falloff_is_full_at_zero_and_none_at_the_edge() {
        assert_eq!(warhead_fraction(10.0, 0.0), 1.0);
        assert!((warhead_fraction(10.0, 5.0) - 0.75).abs() < 1e-12);
        assert_eq!(warhead_fraction(10.0, 10.0), 0.0);
        assert_eq!(warhead_fraction(10.0, 10.5), 0.0);
        assert_eq!(warhead_fraction(0.0, 0.0), 0.0);
        assert_eq!(warhead_fraction(10.0, f64::NAN), 0.0);
        assert_eq!(warhead_damage(60.0, 10.0, 5.0), 45.0);
    }

    #[test]
    fn still_bodies_and_nan_stay_inside_the_step() {
        let p = Vec3::new(1.0, 2.0, 3.0);
        let ca = closest_approach(p, p, p, p);
        assert_eq!(ca.fraction, 0.0);
        let n = Vec3::new(f64::NAN, 0.0, 0.0);
        let ca = closest_approach(p, n, p, p);
        assert!((0.0..=1.0).contains(&ca.fraction));
    }
}

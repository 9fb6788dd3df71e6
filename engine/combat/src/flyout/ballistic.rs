//! Unguided stores in flight — gun rounds, rockets and bombs — and the hit tests the server runs
//! on them.
//!
//! - **Release**: the round starts at the caller's muzzle point with the shooter's velocity plus
//!   `muzzle_speed` along the launch direction; the *whole* initial velocity is then turned by a
//!   seeded angle uniform over a cone of `dispersion_half_angle` (two draws,
//!   `Purpose::Dispersion`, index 0 and 1, subject = the round's number). Turning the whole
//!   velocity (the C++ original turned the bore for guns and the velocity for rockets) is the
//!   same for a gun and makes a bomb's CEP-derived cone mean something.
//! - **Flight**: gravity, parasitic drag on the velocity through the air (`−½ρk|v|v`, density
//!   from the standard atmosphere), and for a rocket a motor sized like a missile's (the speed
//!   climbs linearly to `max_speed` at burnout in level flight), then ballistic.
//! - **Endings**: the ground (at the interpolated crossing) or the time to live.
//! - **Hits**: [`segment_sphere_hit`] and [`swept_sphere_hit`] are standalone so the server can
//!   test a round's last step against lag-compensated target positions.
//!
//! Must not: decide what was hit (the server owns the entities and the rewind window).

use crate::draw::{DrawKey, Purpose};
use crate::flyout::aero;
use crate::flyout::env::{FlyoutEnv, ground_crossing, sane_dt};
use crate::flyout::spec::BallisticSpec;
use fl_flight::math::{Vec3, cos, sin, sqrt};

/// Where and how a store is released.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FireParams {
    /// Muzzle (or rack) position, m.
    pub position: Vec3,
    /// The shooter's velocity, m/s.
    pub velocity: Vec3,
    /// Launch direction: the gun's bore, the rocket's rail, the bomb's ejector (body down).
    pub direction: Vec3,
    /// The world's seed.
    pub seed: u64,
    /// The tick of the shot.
    pub tick: u64,
    /// The shooter's stable id.
    pub shooter: u64,
    /// The round's number in this tick's volley (distinct rounds, distinct draws).
    pub round: u32,
}

/// A store in flight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Round {
    /// World position, m.
    pub position: Vec3,
    /// Position at the start of the last step (the last step's segment is
    /// `previous_position → position`).
    pub previous_position: Vec3,
    /// World velocity, m/s.
    pub velocity: Vec3,
    /// Where it was released.
    pub origin: Vec3,
    /// Time since release, s.
    pub age_s: f64,
    /// Motor burn left, s.
    pub burn_left_s: f64,
    /// Thrust beyond drag while burning, m/s².
    pub thrust_gain_mps2: f64,
    /// Its warhead is live (past the arming distance).
    pub armed: bool,
    /// Still flying.
    pub alive: bool,
}

/// What one step did to a round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RoundEvent {
    /// Still flying.
    Flying,
    /// It hit the ground here.
    HitGround(Vec3),
    /// Its time to live ran out here.
    Expired(Vec3),
    /// It had already ended; nothing happened.
    Ended,
}

/// A unit vector perpendicular to unit `d`, chosen deterministically from `d` alone.
fn perpendicular(d: Vec3) -> Vec3 {
    let reference = if d.x.abs() < 0.9 {
        Vec3::new(1.0, 0.0, 0.0)
    } else {
        Vec3::new(0.0, 1.0, 0.0)
    };
    d.cross(reference).normalize_or_zero()
}

/// `v` turned by the seeded dispersion of `fp` within a cone of `half_angle_rad`.
fn disperse(v: Vec3, half_angle_rad: f64, fp: &FireParams) -> Vec3 {
    let speed = v.length();
    if half_angle_rad <= 0.0 || speed <= 0.0 {
        return v;
    }
    let d = v * (1.0 / speed);
    let key = |index| DrawKey {
        seed: fp.seed,
        tick: fp.tick,
        actor: fp.shooter,
        subject: u64::from(fp.round),
        purpose: Purpose::Dispersion,
        index,
    };
    // Uniform over the cone's cross-section: radius ∝ √u.
    let off = half_angle_rad * sqrt(key(0).unit());
    let phi = core::f64::consts::TAU * key(1).unit();
    let a = perpendicular(d);
    let b = d.cross(a);
    let side = a * cos(phi) + b * sin(phi);
    (d * cos(off) + side * sin(off)) * speed
}

/// Releases a store. Hostile numbers give a round that has already ended.
pub fn fire(spec: &BallisticSpec, fp: &FireParams) -> Round {
    let p = spec.params();
    let dir = fp.direction.normalize_or_zero();
    let v = disperse(
        fp.velocity + dir * p.muzzle_speed_mps,
        p.dispersion_half_angle_rad,
        fp,
    );
    let thrust_gain = if p.motor_burn_s > 0.0 {
        (p.max_speed_mps - v.length()).max(0.0) / p.motor_burn_s
    } else {
        0.0
    };
    let sane = fp.position.is_finite() && v.is_finite();
    Round {
        position: fp.position,
        previous_position: fp.position,
        velocity: v,
        origin: fp.position,
        age_s: 0.0,
        burn_left_s: p.motor_burn_s,
        thrust_gain_mps2: thrust_gain,
        armed: p.arming_distance_m <= 0.0,
        alive: sane,
    }
}

/// Advances a round by `dt`.
pub fn step_round(
    spec: &BallisticSpec,
    round: &mut Round,
    env: &FlyoutEnv<'_>,
    dt: f64,
) -> RoundEvent {
    if !round.alive {
        return RoundEvent::Ended;
    }
    let Some(dt) = sane_dt(dt) else {
        return RoundEvent::Flying;
    };
    let p = spec.params();
    let p0 = round.position;
    let v0 = round.velocity;
    let rho = aero::density(env.planet.altitude(p0));
    let v_air = v0 - env.wind;
    let drag = v_air * (-0.5 * rho * p.drag_k_m2_per_kg * v_air.length());
    let mut accel = drag + env.planet.gravity(p0);
    if round.burn_left_s > 0.0 {
        let share = (round.burn_left_s / dt).min(1.0);
        let along = (round.thrust_gain_mps2 + drag.length()) * share;
        accel += v0.normalize_or_zero() * along;
    }
    let v1 = v0 + accel * dt;
    let p1 = p0 + (v0 + v1) * (0.5 * dt);
    round.previous_position = p0;
    if !(p1.is_finite() && v1.is_finite()) {
        round.alive = false;
        return RoundEvent::Expired(p0);
    }
    round.position = p1;
    round.velocity = v1;
    round.age_s += dt;
    round.burn_left_s = (round.burn_left_s - dt).max(0.0);
    if !round.armed {
        let d = p1 - round.origin;
        round.armed = d.dot(d) >= p.arming_distance_m * p.arming_distance_m;
    }
    let h1 = env.height_above_ground(p1);
    if h1 <= 0.0 {
        let at = ground_crossing(p0, p1, env.height_above_ground(p0), h1);
        round.position = at;
        round.alive = false;
        return RoundEvent::HitGround(at);
    }
    if round.age_s >= p.time_to_live_s {
        round.alive = false;
        return RoundEvent::Expired(p1);
    }
    RoundEvent::Flying
}

/// Where a segment first touches a sphere.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentHit {
    /// Fraction along the segment, [0, 1] (0 when it starts inside).
    pub fraction: f64,
    /// The point on the segment there (for [`swept_sphere_hit`], the round's position).
    pub point: Vec3,
}

/// First contact of the segment `from → to` with the sphere of `radius_m` around `centre`, or
/// `None`. A segment that starts inside hits at fraction 0. NaN anywhere is a miss.
pub fn segment_sphere_hit(from: Vec3, to: Vec3, centre: Vec3, radius_m: f64) -> Option<SegmentHit> {
    let d = to - from;
    let m = from - centre;
    let c = m.dot(m) - radius_m * radius_m;
    if radius_m.is_nan() || radius_m < 0.0 || !c.is_finite() || !d.is_finite() {
        return None;
    }
    if c <= 0.0 {
        return Some(SegmentHit {
            fraction: 0.0,
            point: from,
        });
    }
    let a = d.dot(d);
    let b = m.dot(d);
    if a <= 0.0 || b >= 0.0 {
        // Not moving, or moving away from a sphere it starts outside.
        return None;
    }
    let disc = b * b - a * c;
    if disc < 0.0 {
        return None;
    }
    let t = (-b - sqrt(disc)) / a;
    (0.0..=1.0).contains(&t).then(|| SegmentHit {
        fraction: t,
        point: from + d * t,
    })
}

/// First contact of a round moving `round_from → round_to` with a sphere of `radius_m` whose
/// centre moves `target_from → target_to` over the same step (both in straight lines: the test
/// runs in the target's frame). For a lag-compensated shot, pass the target's rewound positions
/// at the start and end of the step.
pub fn swept_sphere_hit(
    round_from: Vec3,
    round_to: Vec3,
    target_from: Vec3,
    target_to: Vec3,
    radius_m: f64,
) -> Option<SegmentHit> {
    let rel_from = round_from - target_from;
    let rel_to = round_to - target_to;
    segment_sphere_hit(rel_from, rel_to, Vec3::ZERO, radius_m).map(|h| SegmentHit {
        fraction: h.fraction,
        point: round_from + (round_to - round_from) * h.fraction,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_enters_passes_and_misses() {
        let c = Vec3::new(50.0, 0.0, 0.0);
        let h = segment_sphere_hit(Vec3::ZERO, Vec3::new(100.0, 0.0, 0.0), c, 5.0).expect("hit");
        assert!((h.fraction - 0.45).abs() < 1e-12);
        assert!((h.point.x - 45.0).abs() < 1e-9);
        // Tangent-plus-a-hair misses; starts inside hits at 0; ends short misses.
        assert!(
            segment_sphere_hit(
                Vec3::new(0.0, 5.001, 0.0),
                Vec3::new(100.0, 5.001, 0.0),
                c,
                5.0
            )
            .is_none()
        );
        assert_eq!(
            segment_sphere_hit(c, Vec3::new(200.0, 0.0, 0.0), c, 5.0).map(|h| h.fraction),
            Some(0.0)
        );
        assert!(segment_sphere_hit(Vec3::ZERO, Vec3::new(44.0, 0.0, 0.0), c, 5.0).is_none());
        assert!(
            segment_sphere_hit(
                Vec3::new(100.0, 0.0, 0.0),
                Vec3::new(200.0, 0.0, 0.0),
                c,
                5.0
            )
            .is_none()
        );
        assert!(segment_sphere_hit(Vec3::ZERO, Vec3::new(f64::NAN, 0.0, 0.0), c, 5.0).is_none());
        assert!(segment_sphere_hit(Vec3::ZERO, Vec3::new(100.0, 0.0, 0.0), c, f64::NAN).is_none());
    }

    #[test]
    fn dispersion_stays_inside_its_cone_and_fills_it() {
        let fp = |round| FireParams {
            position: Vec3::ZERO,
            velocity: Vec3::ZERO,
            direction: Vec3::new(0.0, 0.0, -1.0),
            seed: 3,
            tick: 10,
            shooter: 5,
            round,
        };
        let cone = 0.012;
        let mut widest: f64 = 0.0;
        for r in 0..2000 {
            let v = disperse(Vec3::new(0.0, 0.0, -1000.0), cone, &fp(r));
            assert!((v.length() - 1000.0).abs() < 1e-6);
            let off = libm::acos((-v.z / 1000.0).min(1.0));
            assert!(off <= cone + 1e-9, "{off}");
            widest = widest.max(off);
        }
        assert!(widest > 0.95 * cone, "{widest}");
    }
}

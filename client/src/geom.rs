//! Interpolation maths shared by prediction and the render bridge: linear blends, quaternion
//! slerp (shortest arc) and cubic Hermite curves with end velocities.
//!
//! Pure functions of their arguments.

use fl_flight::math::{Quat, Vec3};

/// `a + (b − a)·t`.
pub fn lerp(a: Vec3, b: Vec3, t: f64) -> Vec3 {
    a + (b - a) * t
}

fn dot(a: Quat, b: Quat) -> f64 {
    a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z
}

/// Spherical interpolation from `a` (t = 0) to `b` (t = 1) along the shorter arc.
pub fn slerp(a: Quat, b: Quat, t: f64) -> Quat {
    let mut d = dot(a, b);
    let b = if d < 0.0 {
        d = -d;
        Quat {
            w: -b.w,
            x: -b.x,
            y: -b.y,
            z: -b.z,
        }
    } else {
        b
    };
    let (ka, kb) = if d > 0.9995 {
        // Nearly parallel: a normalised lerp is exact to rounding and avoids 0/0.
        (1.0 - t, t)
    } else {
        let theta = d.clamp(-1.0, 1.0).acos();
        let s = theta.sin();
        (((1.0 - t) * theta).sin() / s, (t * theta).sin() / s)
    };
    Quat {
        w: a.w * ka + b.w * kb,
        x: a.x * ka + b.x * kb,
        y: a.y * ka + b.y * kb,
        z: a.z * ka + b.z * kb,
    }
    .normalize()
}

/// The rotation angle of a unit quaternion, radians in `[0, π]`.
pub fn angle(q: Quat) -> f64 {
    2.0 * q.w.abs().clamp(0.0, 1.0).acos()
}

/// Cubic Hermite position at `s ∈ [0, 1]` between `p0` (velocity `v0`) and `p1` (velocity `v1`)
/// over a segment of `h` seconds.
pub fn hermite(p0: Vec3, v0: Vec3, p1: Vec3, v1: Vec3, h: f64, s: f64) -> Vec3 {
    let s2 = s * s;
    let s3 = s2 * s;
    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h10 = s3 - 2.0 * s2 + s;
    let h01 = -2.0 * s3 + 3.0 * s2;
    let h11 = s3 - s2;
    p0 * h00 + v0 * (h10 * h) + p1 * h01 + v1 * (h11 * h)
}

/// The derivative (velocity) of [`hermite`] at `s`.
pub fn hermite_velocity(p0: Vec3, v0: Vec3, p1: Vec3, v1: Vec3, h: f64, s: f64) -> Vec3 {
    if h <= 0.0 {
        return lerp(v0, v1, s);
    }
    let s2 = s * s;
    let d00 = 6.0 * s2 - 6.0 * s;
    let d10 = 3.0 * s2 - 4.0 * s + 1.0;
    let d01 = -6.0 * s2 + 6.0 * s;
    let d11 = 3.0 * s2 - 2.0 * s;
    (p0 * d00 + p1 * d01) * (1.0 / h) + v0 * d10 + v1 * d11
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hermite_reproduces_a_constant_velocity_and_a_parabola() {
        let v = Vec3::new(250.0, 0.0, -3.0);
        let p0 = Vec3::new(1.0, 2.0, 3.0);
        let p1 = p0 + v * 0.05;
        let mid = hermite(p0, v, p1, v, 0.05, 0.5);
        assert!((mid - (p0 + v * 0.025)).length() < 1e-9);
        // x = t², v = 2t on [0, 1]: cubic Hermite is exact for a quadratic.
        let q = hermite(
            Vec3::ZERO,
            Vec3::ZERO,
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
            1.0,
            0.3,
        );
        assert!((q.x - 0.09).abs() < 1e-12);
        let dv = hermite_velocity(
            Vec3::ZERO,
            Vec3::ZERO,
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
            1.0,
            0.3,
        );
        assert!((dv.x - 0.6).abs() < 1e-12);
    }

    #[test]
    fn slerp_takes_the_short_way_at_constant_rate() {
        let a = Quat::IDENTITY;
        let b = Quat::from_axis_angle(Vec3::Y, 1.0);
        let m = slerp(a, b, 0.25);
        assert!((angle(m) - 0.25).abs() < 1e-12);
        let neg_b = Quat {
            w: -b.w,
            x: -b.x,
            y: -b.y,
            z: -b.z,
        };
        let m2 = slerp(a, neg_b, 0.25);
        assert!((angle(m2) - 0.25).abs() < 1e-12, "same rotation, short arc");
        assert_eq!(slerp(a, b, 0.0), a.normalize());
    }
}

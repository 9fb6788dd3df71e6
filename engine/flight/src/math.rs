//! Minimal f64 vector and quaternion maths for the simulation.
//!
//! Owns: `Vec3`, `Quat` and the deterministic scalar functions (`libm`, pure Rust, so every
//! platform produces the same bits). Must not: use SIMD, fused multiply-add or the platform libm,
//! any of which would make a client's prediction differ from the server's truth.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// Sine, deterministic across platforms.
#[inline]
pub fn sin(x: f64) -> f64 {
    libm::sin(x)
}
/// Cosine, deterministic across platforms.
#[inline]
pub fn cos(x: f64) -> f64 {
    libm::cos(x)
}
/// Two-argument arctangent, deterministic across platforms.
#[inline]
pub fn atan2(y: f64, x: f64) -> f64 {
    libm::atan2(y, x)
}
/// Arcsine, deterministic across platforms.
#[inline]
pub fn asin(x: f64) -> f64 {
    libm::asin(x)
}
/// `e^x`, deterministic across platforms.
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}
/// `x^y`, deterministic across platforms.
#[inline]
pub fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}
/// Square root (IEEE 754 correctly rounded everywhere).
#[inline]
pub fn sqrt(x: f64) -> f64 {
    x.sqrt()
}

/// A 3-vector of f64.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec3 {
    /// X component.
    pub x: f64,
    /// Y component.
    pub y: f64,
    /// Z component.
    pub z: f64,
}

impl Vec3 {
    /// The zero vector.
    pub const ZERO: Vec3 = Vec3 {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };
    /// World up at the reference point (Y up).
    pub const Y: Vec3 = Vec3 {
        x: 0.0,
        y: 1.0,
        z: 0.0,
    };

    /// Builds a vector.
    #[inline]
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Self { x, y, z }
    }
    /// Dot product.
    #[inline]
    pub fn dot(self, o: Vec3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// Cross product (right-handed).
    #[inline]
    pub fn cross(self, o: Vec3) -> Vec3 {
        Vec3::new(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }
    /// Euclidean length.
    #[inline]
    pub fn length(self) -> f64 {
        sqrt(self.dot(self))
    }
    /// Unit vector, or zero for a (near-)zero vector.
    #[inline]
    pub fn normalize_or_zero(self) -> Vec3 {
        let l = self.length();
        if l > 1e-300 {
            self * (1.0 / l)
        } else {
            Vec3::ZERO
        }
    }
    /// True when every component is finite.
    #[inline]
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }
}

impl Add for Vec3 {
    type Output = Vec3;
    #[inline]
    fn add(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}
impl AddAssign for Vec3 {
    #[inline]
    fn add_assign(&mut self, o: Vec3) {
        *self = *self + o;
    }
}
impl Sub for Vec3 {
    type Output = Vec3;
    #[inline]
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}
impl SubAssign for Vec3 {
    #[inline]
    fn sub_assign(&mut self, o: Vec3) {
        *self = *self - o;
    }
}
impl Mul<f64> for Vec3 {
    type Output = Vec3;
    #[inline]
    fn mul(self, s: f64) -> Vec3 {
        Vec3::new(self.x * s, self.y * s, self.z * s)
    }
}
impl Neg for Vec3 {
    type Output = Vec3;
    #[inline]
    fn neg(self) -> Vec3 {
        Vec3::new(-self.x, -self.y, -self.z)
    }
}

/// A unit quaternion (w + xi + yj + zk) rotating body vectors into the world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quat {
    /// Scalar part.
    pub w: f64,
    /// i component.
    pub x: f64,
    /// j component.
    pub y: f64,
    /// k component.
    pub z: f64,
}

impl Default for Quat {
    fn default() -> Self {
        Quat::IDENTITY
    }
}

impl Quat {
    /// No rotation.
    pub const IDENTITY: Quat = Quat {
        w: 1.0,
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };

    /// Rotation of `angle` radians about a unit `axis`.
    pub fn from_axis_angle(axis: Vec3, angle: f64) -> Quat {
        let h = 0.5 * angle;
        let s = sin(h);
        Quat {
            w: cos(h),
            x: axis.x * s,
            y: axis.y * s,
            z: axis.z * s,
        }
    }

    /// Hamilton product `self * o`: the rotation that applies `o` first, then `self`.
    #[inline]
    pub fn then(self, o: Quat) -> Quat {
        Quat {
            w: self.w * o.w - self.x * o.x - self.y * o.y - self.z * o.z,
            x: self.w * o.x + self.x * o.w + self.y * o.z - self.z * o.y,
            y: self.w * o.y - self.x * o.z + self.y * o.w + self.z * o.x,
            z: self.w * o.z + self.x * o.y - self.y * o.x + self.z * o.w,
        }
    }

    /// Rotates a body-frame vector into the world frame.
    #[inline]
    pub fn rotate(self, v: Vec3) -> Vec3 {
        let u = Vec3::new(self.x, self.y, self.z);
        let t = u.cross(v) * 2.0;
        v + t * self.w + u.cross(t)
    }

    /// Rotates a world-frame vector into the body frame.
    #[inline]
    pub fn inverse_rotate(self, v: Vec3) -> Vec3 {
        self.conjugate().rotate(v)
    }

    /// The inverse rotation of a unit quaternion.
    #[inline]
    pub fn conjugate(self) -> Quat {
        Quat {
            w: self.w,
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }

    /// Renormalises to unit length (identity if degenerate).
    pub fn normalize(self) -> Quat {
        let n = sqrt(self.w * self.w + self.x * self.x + self.y * self.y + self.z * self.z);
        if n > 1e-300 && n.is_finite() {
            let k = 1.0 / n;
            Quat {
                w: self.w * k,
                x: self.x * k,
                y: self.y * k,
                z: self.z * k,
            }
        } else {
            Quat::IDENTITY
        }
    }

    /// The rotation by a body-frame rotation vector `theta` (exponential map), exact for any size.
    pub fn from_rotation_vector(theta: Vec3) -> Quat {
        let angle = theta.length();
        if angle < 1e-12 {
            // Second-order series; exact to rounding at this size.
            Quat {
                w: 1.0,
                x: 0.5 * theta.x,
                y: 0.5 * theta.y,
                z: 0.5 * theta.z,
            }
            .normalize()
        } else {
            Quat::from_axis_angle(theta * (1.0 / angle), angle)
        }
    }

    /// True when every component is finite.
    pub fn is_finite(self) -> bool {
        self.w.is_finite() && self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_matches_axis_angle() {
        let q = Quat::from_axis_angle(Vec3::Y, std::f64::consts::FRAC_PI_2);
        let v = q.rotate(Vec3::new(1.0, 0.0, 0.0));
        assert!((v.x).abs() < 1e-15 && (v.z + 1.0).abs() < 1e-15, "{v:?}");
        let back = q.inverse_rotate(v);
        assert!((back.x - 1.0).abs() < 1e-15);
    }

    #[test]
    fn composition_order() {
        let a = Quat::from_axis_angle(Vec3::Y, 0.3);
        let b = Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), 0.7);
        let v = Vec3::new(0.2, -0.4, 0.9);
        let composed = a.then(b).rotate(v);
        let stepwise = a.rotate(b.rotate(v));
        assert!((composed - stepwise).length() < 1e-14);
    }
}

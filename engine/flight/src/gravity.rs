//! The planet: a sphere of radius R centred at (0, −R, 0) with inverse-square central gravity.
//!
//! Owns: gravitational acceleration, geodetic altitude and the local vertical. Must not: model
//! planetary rotation, oblateness or anything that needs state.

use crate::atmosphere::G0;
use crate::math::Vec3;

/// Mean Earth radius, m (the sim's planet radius).
pub const EARTH_RADIUS_M: f64 = 6_371_000.0;

/// A spherical planet centred at (0, −R, 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Planet {
    /// Radius, m.
    pub radius_m: f64,
    /// Gravitational parameter μ = G·M, m³/s².
    pub mu: f64,
}

impl Default for Planet {
    fn default() -> Self {
        Planet::earth()
    }
}

impl Planet {
    /// The sim's Earth: radius 6,371 km and μ chosen so surface gravity is exactly standard g.
    pub fn earth() -> Self {
        Planet {
            radius_m: EARTH_RADIUS_M,
            mu: G0 * EARTH_RADIUS_M * EARTH_RADIUS_M,
        }
    }

    /// The planet's centre in world coordinates.
    #[inline]
    pub fn centre(&self) -> Vec3 {
        Vec3::new(0.0, -self.radius_m, 0.0)
    }

    /// Gravitational acceleration at a world position (points at the centre, |g| = μ/r²).
    #[inline]
    pub fn gravity(&self, p: Vec3) -> Vec3 {
        let r = p - self.centre();
        let r2 = r.dot(r);
        if r2 < 1.0 {
            return Vec3::ZERO;
        }
        let inv_r = 1.0 / r2.sqrt();
        r * (-self.mu * inv_r * inv_r * inv_r)
    }

    /// Gravitational potential energy per kg at a world position (−μ/r).
    pub fn potential(&self, p: Vec3) -> f64 {
        let r = (p - self.centre()).length();
        if r < 1.0 { -self.mu } else { -self.mu / r }
    }

    /// Geodetic altitude above the sphere, m.
    #[inline]
    pub fn altitude(&self, p: Vec3) -> f64 {
        (p - self.centre()).length() - self.radius_m
    }

    /// Local up (unit vector away from the centre).
    #[inline]
    pub fn up(&self, p: Vec3) -> Vec3 {
        let u = (p - self.centre()).normalize_or_zero();
        if u == Vec3::ZERO { Vec3::Y } else { u }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surface_gravity_is_standard() {
        let p = Planet::earth();
        let g = p.gravity(Vec3::ZERO);
        assert!((g.y + G0).abs() < 1e-12 && g.x == 0.0 && g.z == 0.0);
        assert_eq!(p.altitude(Vec3::ZERO), 0.0);
    }
}

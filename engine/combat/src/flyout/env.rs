//! The world a flyout needs besides the weapon: the planet (gravity, altitude), the steady wind
//! and the ground under a point.
//!
//! Owns: [`FlyoutEnv`], the [`Ground`] seam and [`FlatGround`]. Must not: hold terrain data
//! (the server hands in fl-terrain through [`Ground`]; tests hand in a flat floor).

use fl_flight::gravity::Planet;
use fl_flight::math::Vec3;

/// Longest step the flyout integrates in one call, s. A larger `dt` is cut to this; a
/// non-finite or non-positive one makes the step a no-op.
pub const MAX_DT_S: f64 = 0.1;

/// Height of the ground above the planet's sphere under a world point, m (fl-terrain's
/// `Terrain::height_at_world(planet.radius_m, p)`). A non-finite answer means "no ground here".
pub trait Ground {
    /// Ground height under `p`, m above the sphere.
    fn height_m(&self, p: Vec3) -> f64;
}

impl<F: Fn(Vec3) -> f64> Ground for F {
    fn height_m(&self, p: Vec3) -> f64 {
        self(p)
    }
}

/// Level ground at one height everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FlatGround {
    /// Height above the sphere, m.
    pub height_m: f64,
}

impl Ground for FlatGround {
    fn height_m(&self, _p: Vec3) -> f64 {
        self.height_m
    }
}

/// The world around a flyout.
#[derive(Clone, Copy)]
pub struct FlyoutEnv<'a> {
    /// Gravity and altitude.
    pub planet: Planet,
    /// Steady wind, world frame, m/s: drag acts on the velocity relative to the air.
    pub wind: Vec3,
    /// The ground, for impacts.
    pub ground: &'a dyn Ground,
}

impl std::fmt::Debug for FlyoutEnv<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlyoutEnv")
            .field("planet", &self.planet)
            .field("wind", &self.wind)
            .finish_non_exhaustive()
    }
}

impl<'a> FlyoutEnv<'a> {
    /// Earth, no wind, over `ground`.
    pub fn earth(ground: &'a dyn Ground) -> Self {
        FlyoutEnv {
            planet: Planet::earth(),
            wind: Vec3::ZERO,
            ground,
        }
    }

    /// Height above the ground at `p`, m (+∞ where the ground answers non-finite).
    pub fn height_above_ground(&self, p: Vec3) -> f64 {
        let g = self.ground.height_m(p);
        if g.is_finite() {
            self.planet.altitude(p) - g
        } else {
            f64::INFINITY
        }
    }
}

/// A usable step length: `None` for NaN, ±∞, zero or negative; else at most [`MAX_DT_S`].
pub(crate) fn sane_dt(dt: f64) -> Option<f64> {
    (dt.is_finite() && dt > 0.0).then(|| dt.min(MAX_DT_S))
}

/// Where a segment p0→p1 (heights h0 > 0 ≥ h1 above the ground) meets the ground, by linear
/// interpolation of the height inside the step.
pub(crate) fn ground_crossing(p0: Vec3, p1: Vec3, h0: f64, h1: f64) -> Vec3 {
    let denom = h0 - h1;
    let f = if denom > 0.0 && h0.is_finite() {
        (h0 / denom).clamp(0.0, 1.0)
    } else {
        1.0
    };
    p0 + (p1 - p0) * f
}

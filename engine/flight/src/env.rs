//! The world an aircraft flies through, other than gravity: wind, turbulence and the floor.
//!
//! Owns: the steady wind and altitude wind profile, turbulence as a pure function of
//! (entity index, tick, amplitude) so a client reproduces the server's gusts exactly, and the
//! floor callback (terrain height or a moving deck). Must not: keep mutable state — every query is
//! a pure function of its arguments.
//!
//! Wind vectors are written in the **level frame** of where they blow (x east, y up, z south; see
//! [`crate::geodetic`]): a westerly is +x everywhere, horizontal on the local horizon, and at the
//! world origin the level frame is the world's axes. [`WindField::world_at`] turns the wind at an
//! aircraft's position into the world vector the integrator subtracts.

use crate::geodetic::Enu;
use crate::gravity::Planet;
use crate::math::Vec3;

/// The floor under a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloorSample {
    /// Geodetic altitude of the surface under the query point, m.
    pub height_m: f64,
    /// Surface normal (world, unit).
    pub normal: Vec3,
    /// Surface velocity (world), m/s — non-zero for a moving deck.
    pub velocity: Vec3,
}

/// Terrain or deck height under a world position. Implementations must be pure functions of
/// their inputs (and of data that does not change during a step).
pub trait Floor {
    /// The floor under world position `p`.
    fn sample(&self, planet: &Planet, p: Vec3) -> FloorSample;

    /// Only the height of [`Floor::sample`] (a terrain computes it without the normal, which
    /// costs more); must equal `sample(planet, p).height_m` to the bit.
    fn height_m(&self, planet: &Planet, p: Vec3) -> f64 {
        self.sample(planet, p).height_m
    }
}

/// Flat ground at a fixed geodetic altitude (sea level by default).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FlatFloor {
    /// Surface altitude, m.
    pub height_m: f64,
}

impl Floor for FlatFloor {
    fn sample(&self, planet: &Planet, p: Vec3) -> FloorSample {
        FloorSample {
            height_m: self.height_m,
            normal: planet.up(p),
            velocity: Vec3::ZERO,
        }
    }
}

/// No floor at all (orbits, free-fall tests).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NoFloor;

impl Floor for NoFloor {
    fn sample(&self, planet: &Planet, p: Vec3) -> FloorSample {
        FloorSample {
            height_m: f64::NEG_INFINITY,
            normal: planet.up(p),
            velocity: Vec3::ZERO,
        }
    }
}

/// Wind: steady + altitude profile + deterministic turbulence, all in the local level frame
/// (x east, y up, z south) of the point where it blows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WindField {
    /// Steady wind everywhere (level frame, m/s; the air's velocity).
    pub steady: Vec3,
    /// (altitude m, wind m/s in the level frame) pairs, sorted by altitude; linearly interpolated
    /// and held beyond the ends, added to `steady`.
    pub profile: Vec<(f64, Vec3)>,
    /// RMS-scale turbulence amplitude, m/s (0 = calm).
    pub turbulence_m_s: f64,
}

impl WindField {
    /// Calm air.
    pub fn calm() -> Self {
        Self::default()
    }

    /// Mean wind (no turbulence) at an altitude.
    pub fn mean(&self, altitude_m: f64) -> Vec3 {
        let p = &self.profile;
        let prof = match p.len() {
            0 => Vec3::ZERO,
            1 => p[0].1,
            n => {
                if altitude_m <= p[0].0 {
                    p[0].1
                } else if altitude_m >= p[n - 1].0 {
                    p[n - 1].1
                } else {
                    let i = p
                        .partition_point(|(a, _)| *a <= altitude_m)
                        .saturating_sub(1)
                        .min(n - 2);
                    let (a0, w0) = p[i];
                    let (a1, w1) = p[i + 1];
                    let t = if a1 > a0 {
                        (altitude_m - a0) / (a1 - a0)
                    } else {
                        0.0
                    };
                    w0 + (w1 - w0) * t
                }
            }
        };
        self.steady + prof
    }

    /// Total wind (level frame) for entity `entity` at `tick` and altitude.
    pub fn at(&self, altitude_m: f64, entity: u32, tick: u64) -> Vec3 {
        self.mean(altitude_m) + turbulence(entity, tick, self.turbulence_m_s)
    }

    /// Total wind as a world vector for entity `entity` at `tick`, at world position `p` whose
    /// geodetic altitude is `altitude_m`: [`WindField::at`] turned from the level frame at `p`
    /// into the world. Calm air is exactly zero.
    pub fn world_at(
        &self,
        planet: &Planet,
        p: Vec3,
        altitude_m: f64,
        entity: u32,
        tick: u64,
    ) -> Vec3 {
        let local = self.at(altitude_m, entity, tick);
        if local == Vec3::ZERO {
            return Vec3::ZERO;
        }
        Enu::at(planet, p).level_to_world(local)
    }
}

#[inline]
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A hashed value in [−1, 1] for (entity, knot, axis, octave).
#[inline]
fn knot_value(entity: u32, knot: u64, axis: u64, octave: u64) -> f64 {
    let h = splitmix(
        knot ^ (u64::from(entity) << 40) ^ (axis << 36) ^ (octave << 34) ^ 0x5eed_f11e_u64,
    );
    (h >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
}

/// Smoothly interpolated value noise with knots every `period` ticks.
#[inline]
fn octave(entity: u32, tick: u64, axis: u64, octave_id: u64, period: u64) -> f64 {
    let k = tick / period;
    let t = (tick % period) as f64 / period as f64;
    let s = t * t * (3.0 - 2.0 * t);
    let a = knot_value(entity, k, axis, octave_id);
    let b = knot_value(entity, k + 1, axis, octave_id);
    a + (b - a) * s
}

/// Turbulence velocity (level frame, m/s) as a pure function of entity index, tick and amplitude:
/// two octaves of smoothed value noise (2 s and 0.5 s knots) per axis, vertical at half strength.
/// A client calling this with the server's arguments gets the server's gust to the last bit.
pub fn turbulence(entity: u32, tick: u64, amplitude_m_s: f64) -> Vec3 {
    if amplitude_m_s == 0.0 || !amplitude_m_s.is_finite() {
        return Vec3::ZERO;
    }
    let axis =
        |a: u64| 0.8 * octave(entity, tick, a, 0, 120) + 0.45 * octave(entity, tick, a, 1, 30);
    Vec3::new(axis(0), 0.5 * axis(1), axis(2)) * amplitude_m_s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turbulence_is_pure_and_bounded() {
        for tick in [0u64, 1, 59, 60, 12_345, u64::MAX - 1] {
            let a = turbulence(7, tick, 3.0);
            let b = turbulence(7, tick, 3.0);
            assert_eq!(a, b);
            assert!(a.x.abs() <= 3.0 * 1.25 + 1e-12 && a.y.abs() <= 1.5 * 1.25 + 1e-12);
        }
        assert_ne!(turbulence(7, 1000, 3.0), turbulence(8, 1000, 3.0));
        assert_eq!(turbulence(7, 1000, 0.0), Vec3::ZERO);
    }

    #[test]
    fn turbulence_is_smooth_between_ticks() {
        let mut prev = turbulence(3, 0, 5.0);
        for t in 1..2000 {
            let cur = turbulence(3, t, 5.0);
            assert!((cur - prev).length() < 0.6, "jump at tick {t}");
            prev = cur;
        }
    }

    #[test]
    fn profile_interpolates_and_holds() {
        let w = WindField {
            steady: Vec3::new(1.0, 0.0, 0.0),
            profile: vec![(0.0, Vec3::ZERO), (1000.0, Vec3::new(0.0, 0.0, 10.0))],
            turbulence_m_s: 0.0,
        };
        assert_eq!(w.mean(500.0), Vec3::new(1.0, 0.0, 5.0));
        assert_eq!(w.mean(5000.0), Vec3::new(1.0, 0.0, 10.0));
        assert_eq!(w.mean(-50.0), Vec3::new(1.0, 0.0, 0.0));
    }
}

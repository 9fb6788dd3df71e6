//! Where the moon is and how much of it is lit: a low-precision lunar ephemeris (the
//! Astronomical Almanac's truncated series, a few tenths of a degree from 1950 to 2050) from the
//! same J2000 day count as [`crate::sun`], turned into a world direction in the same planet frame.
//! Must not: know about the GPU; the sky shader draws the disc from [`moon_direction_at_days`]
//! and the sun's direction (the phase follows from the two).

use glam::DVec3;

/// The moon's position on the sky of the rotating Earth (geocentric).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LunarPosition {
    /// Right ascension, radians in [0, 2π).
    pub right_ascension: f64,
    /// Declination, radians.
    pub declination: f64,
    /// Greenwich hour angle, radians in [0, 2π) (the sub-lunar longitude is its negative).
    pub greenwich_hour_angle: f64,
}

/// The moon's apparent angular radius, radians (its mean: 0.259°).
pub const MOON_ANGULAR_RADIUS_RAD: f64 = 0.259 * std::f64::consts::PI / 180.0;

/// Irradiance of the full moon relative to the sun's (about 0.25 lx against 100 klx): the sky
/// shader scales the sun's top-of-atmosphere irradiance by this for the disc.
pub const FULL_MOON_IRRADIANCE_RATIO: f64 = 2.5e-6;

/// The moon at `n` days since J2000.0 (non-finite is treated as J2000.0).
pub fn lunar_position_at_days(n: f64) -> LunarPosition {
    let n = if n.is_finite() { n } else { 0.0 };
    let deg = std::f64::consts::PI / 180.0;
    let t = n / 36_525.0;
    let s = |a: f64, b: f64| ((a + b * t) * deg).sin();
    // Ecliptic longitude and latitude, degrees (the six and four largest terms).
    let lambda = 218.32 + 481_267.881 * t + 6.29 * s(135.0, 477_198.87)
        - 1.27 * s(259.3, -413_335.36)
        + 0.66 * s(235.7, 890_534.22)
        + 0.21 * s(269.9, 954_397.74)
        - 0.19 * s(357.5, 35_999.05)
        - 0.11 * s(186.5, 966_404.03);
    let beta = 5.13 * s(93.3, 483_202.02) + 0.28 * s(228.2, 960_400.89)
        - 0.28 * s(318.3, 6_003.15)
        - 0.17 * s(217.6, -407_332.21);
    let (lambda, beta) = (lambda.rem_euclid(360.0) * deg, beta * deg);
    let epsilon = (23.439 - 0.000_000_4 * n) * deg;
    // Ecliptic to equatorial.
    let x = beta.cos() * lambda.cos();
    let y = epsilon.cos() * beta.cos() * lambda.sin() - epsilon.sin() * beta.sin();
    let z = epsilon.sin() * beta.cos() * lambda.sin() + epsilon.cos() * beta.sin();
    let right_ascension = y.atan2(x).rem_euclid(std::f64::consts::TAU);
    let declination = z.clamp(-1.0, 1.0).asin();
    let gmst = (280.460_618_37 + 360.985_647_366_29 * n).rem_euclid(360.0) * deg;
    LunarPosition {
        right_ascension,
        declination,
        greenwich_hour_angle: (gmst - right_ascension).rem_euclid(std::f64::consts::TAU),
    }
}

/// World direction towards the moon at `n` days since J2000.0 (from the planet's centre; the
/// parallax of at most 1° seen from the surface is below what the sky draws).
pub fn moon_direction_at_days(n: f64) -> DVec3 {
    let p = lunar_position_at_days(n);
    crate::sun::geodetic_direction(p.declination, -p.greenwich_hour_angle)
}

/// The lit fraction of the moon's disc (0 new, 1 full) from the directions towards the sun and
/// the moon: half of one minus the cosine of their separation.
pub fn illuminated_fraction(sun_direction: DVec3, moon_direction: DVec3) -> f64 {
    let c = sun_direction
        .normalize_or(DVec3::Y)
        .dot(moon_direction.normalize_or(DVec3::Y));
    (0.5 * (1.0 - c)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sun::{UtcTime, sun_direction_at_days};

    fn days(t: UtcTime) -> f64 {
        t.days_since_j2000()
    }

    #[test]
    fn matches_meeus_worked_example_within_the_series_accuracy() {
        // Meeus, Astronomical Algorithms, example 47.a: 1992-04-12 0h TD,
        // α = 134.688470°, δ = 13.768368° (TD − UT ≈ 59 s there: far below the tolerance).
        let p = lunar_position_at_days(days(UtcTime::new(1992, 4, 12, 0, 0, 0.0)));
        let deg = 180.0 / std::f64::consts::PI;
        assert!(
            (p.right_ascension * deg - 134.688_470).abs() < 0.5,
            "{}",
            p.right_ascension * deg
        );
        assert!(
            (p.declination * deg - 13.768_368).abs() < 0.5,
            "{}",
            p.declination * deg
        );
    }

    #[test]
    fn phases_of_early_2026() {
        // Full moon 2026-01-03 10:03 UTC, new moon 2026-01-18 19:52 UTC, first quarter
        // 2026-01-26 04:47 UTC (published lunar phase tables).
        let phase = |t: UtcTime| {
            let n = days(t);
            illuminated_fraction(sun_direction_at_days(n), moon_direction_at_days(n))
        };
        assert!(phase(UtcTime::new(2026, 1, 3, 10, 3, 0.0)) > 0.98);
        assert!(phase(UtcTime::new(2026, 1, 18, 19, 52, 0.0)) < 0.02);
        let q = phase(UtcTime::new(2026, 1, 26, 4, 47, 0.0));
        assert!((q - 0.5).abs() < 0.06, "{q}");
    }

    #[test]
    fn hostile_time_is_j2000_and_directions_are_unit() {
        assert_eq!(
            lunar_position_at_days(f64::NAN),
            lunar_position_at_days(0.0)
        );
        for n in [-20_000.0, 0.0, 9_800.5, 30_000.0] {
            assert!((moon_direction_at_days(n).length() - 1.0).abs() < 1e-12);
        }
    }
}

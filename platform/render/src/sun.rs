//! Where the sun is: a small ephemeris (the low-precision solar coordinates of the Astronomical
//! Almanac, about 0.01° from 1950 to 2050) from a UTC date and time, and the planet frame that
//! turns latitude/longitude into world directions.
//!
//! Planet frame (that of the C++ original's geodetic code and of fl-terrain): the planet's centre
//! is at (0, −R, 0), so the world origin is the north pole; +Y is the polar axis,
//! `lat = asin(dir.y)`, `lon = atan2(dir.x, dir.z)` for `dir` the unit vector from the centre.
//! The planet does not rotate in world coordinates: the sun moves instead.

use glam::DVec3;

/// A UTC date and time (proleptic Gregorian calendar). No leap seconds: UT1 ≈ UTC is far
/// inside the ephemeris's accuracy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UtcTime {
    /// Year, e.g. 2026.
    pub year: i32,
    /// Month 1…12.
    pub month: u32,
    /// Day of month 1…31.
    pub day: u32,
    /// Hours since midnight, fractional (12.5 = 12:30:00).
    pub hours: f64,
}

impl UtcTime {
    /// A time from its calendar fields.
    pub fn new(year: i32, month: u32, day: u32, hour: u32, minute: u32, second: f64) -> Self {
        UtcTime {
            year,
            month,
            day,
            hours: f64::from(hour) + f64::from(minute) / 60.0 + second / 3600.0,
        }
    }

    /// Days since 2000-01-01 12:00 UTC (J2000.0).
    pub fn days_since_j2000(&self) -> f64 {
        // Days from the civil date (H. Hinnant's algorithm), exact for any year.
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(self.month.clamp(1, 12));
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days_since_1970 = era * 146_097 + doe - 719_468;
        // 2000-01-01 is day 10957 since 1970-01-01.
        (days_since_1970 - 10_957) as f64 + (self.hours - 12.0) / 24.0
    }
}

/// The sun's apparent position on the sky of the rotating Earth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolarPosition {
    /// Declination, radians (the latitude of the subsolar point).
    pub declination: f64,
    /// Greenwich hour angle, radians in [0, 2π) (the subsolar longitude is its negative).
    pub greenwich_hour_angle: f64,
}

/// The Julian Day of J2000.0 (2000-01-01 12:00 UTC).
pub const J2000_JULIAN_DAY: f64 = 2_451_545.0;

impl UtcTime {
    /// The Julian Day (what the weather message carries as `utcJulianDay`).
    pub fn julian_day(&self) -> f64 {
        self.days_since_j2000() + J2000_JULIAN_DAY
    }
}

/// The sun's declination and Greenwich hour angle at `t`.
pub fn solar_position(t: UtcTime) -> SolarPosition {
    solar_position_at_days(t.days_since_j2000())
}

/// The same at `n` days since J2000.0 (non-finite is treated as J2000.0).
pub fn solar_position_at_days(n: f64) -> SolarPosition {
    let n = if n.is_finite() { n } else { 0.0 };
    let deg = std::f64::consts::PI / 180.0;
    let l = (280.460 + 0.985_647_4 * n).rem_euclid(360.0);
    let g = ((357.528 + 0.985_600_3 * n).rem_euclid(360.0)) * deg;
    let lambda = (l + 1.915 * g.sin() + 0.020 * (2.0 * g).sin()) * deg;
    let epsilon = (23.439 - 0.000_000_4 * n) * deg;
    let ra = (epsilon.cos() * lambda.sin()).atan2(lambda.cos());
    let declination = (epsilon.sin() * lambda.sin()).asin();
    // Greenwich mean sidereal time, degrees.
    let gmst = (280.460_618_37 + 360.985_647_366_29 * n).rem_euclid(360.0) * deg;
    let gha = (gmst - ra).rem_euclid(std::f64::consts::TAU);
    SolarPosition {
        declination,
        greenwich_hour_angle: gha,
    }
}

/// Unit vector from the planet's centre through latitude/longitude (radians), world axes.
pub fn geodetic_direction(lat_rad: f64, lon_rad: f64) -> DVec3 {
    DVec3::new(
        lat_rad.cos() * lon_rad.sin(),
        lat_rad.sin(),
        lat_rad.cos() * lon_rad.cos(),
    )
}

/// Latitude and longitude (radians) of a world direction from the planet's centre.
pub fn direction_to_geodetic(dir: DVec3) -> (f64, f64) {
    let d = dir.normalize_or(DVec3::Y);
    (d.y.clamp(-1.0, 1.0).asin(), d.x.atan2(d.z))
}

/// World direction towards the sun at `t` (the same everywhere: the sun is far away).
pub fn sun_direction_world(t: UtcTime) -> DVec3 {
    sun_direction_at_days(t.days_since_j2000())
}

/// World direction towards the sun at `n` days since J2000.0.
pub fn sun_direction_at_days(n: f64) -> DVec3 {
    let p = solar_position_at_days(n);
    geodetic_direction(p.declination, -p.greenwich_hour_angle)
}

/// Local east, north and up at latitude/longitude (radians), world axes.
pub fn east_north_up(lat_rad: f64, lon_rad: f64) -> (DVec3, DVec3, DVec3) {
    let up = geodetic_direction(lat_rad, lon_rad);
    let east = DVec3::new(lon_rad.cos(), 0.0, -lon_rad.sin());
    let north = up.cross(east);
    (east, north, up)
}

/// The sun's elevation above the horizon and its azimuth (clockwise from north), radians, seen
/// from latitude/longitude (radians) at `t`.
pub fn sun_elevation_azimuth(t: UtcTime, lat_rad: f64, lon_rad: f64) -> (f64, f64) {
    let s = sun_direction_world(t);
    let (e, n, u) = east_north_up(lat_rad, lon_rad);
    let elevation = s.dot(u).clamp(-1.0, 1.0).asin();
    let azimuth = s.dot(e).atan2(s.dot(n)).rem_euclid(std::f64::consts::TAU);
    (elevation, azimuth)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEG: f64 = std::f64::consts::PI / 180.0;

    #[test]
    fn julian_days_match_the_calendar() {
        // 2026-06-21 00:00 UTC is JD 2461212.5 (USNO); the sun from either form is the same.
        let t = UtcTime::new(2026, 6, 21, 0, 0, 0.0);
        assert_eq!(t.julian_day(), 2_461_212.5);
        let jd = UtcTime::new(2026, 6, 21, 19, 42, 0.0).julian_day();
        let a = sun_direction_world(UtcTime::new(2026, 6, 21, 19, 42, 0.0));
        let b = sun_direction_at_days(jd - J2000_JULIAN_DAY);
        assert!((a - b).length() < 1e-9);
        assert!(sun_direction_at_days(f64::NAN).is_finite());
    }

    #[test]
    fn j2000_epoch_is_day_zero() {
        assert_eq!(UtcTime::new(2000, 1, 1, 12, 0, 0.0).days_since_j2000(), 0.0);
        assert_eq!(
            UtcTime::new(2000, 3, 1, 12, 0, 0.0).days_since_j2000(),
            60.0
        );
        assert_eq!(
            UtcTime::new(1999, 12, 31, 0, 0, 0.0).days_since_j2000(),
            -1.5
        );
    }

    #[test]
    fn declination_at_the_solstices_and_equinox() {
        // June solstice 2026-06-21 08:24 UTC: +23.44°; December 2026-12-21 20:50 UTC: −23.44°;
        // March equinox 2026-03-20 14:46 UTC: 0°.
        let june = solar_position(UtcTime::new(2026, 6, 21, 8, 24, 0.0)).declination / DEG;
        let dec = solar_position(UtcTime::new(2026, 12, 21, 20, 50, 0.0)).declination / DEG;
        let mar = solar_position(UtcTime::new(2026, 3, 20, 14, 46, 0.0)).declination / DEG;
        assert!((june - 23.436).abs() < 0.02, "{june}");
        assert!((dec + 23.436).abs() < 0.02, "{dec}");
        assert!(mar.abs() < 0.02, "{mar}");
    }

    #[test]
    fn noon_at_greenwich_follows_the_equation_of_time() {
        // Early November the sun transits Greenwich about 16.4 minutes before 12:00 UTC; mid
        // February about 14.2 minutes after.
        let transit = |y, m, d| {
            // Find the time the Greenwich hour angle crosses 0 by bisection over the day.
            let gha = |h: f64| {
                solar_position(UtcTime {
                    year: y,
                    month: m,
                    day: d,
                    hours: h,
                })
                .greenwich_hour_angle
            };
            let (mut lo, mut hi) = (11.0, 13.0);
            for _ in 0..50 {
                let mid = 0.5 * (lo + hi);
                if gha(mid) > std::f64::consts::PI {
                    lo = mid
                } else {
                    hi = mid
                }
            }
            (0.5 * (lo + hi) - 12.0) * 60.0
        };
        let nov = transit(2026, 11, 3);
        let feb = transit(2026, 2, 11);
        assert!((nov + 16.4).abs() < 0.3, "{nov}");
        assert!((feb - 14.2).abs() < 0.3, "{feb}");
    }

    #[test]
    fn nevada_sunset_and_noon() {
        // Las Vegas (36.17 N, 115.14 W) on 2026-06-21: solar noon ≈ 19:42 UTC with the sun
        // 77.3° up, due south; sunset ≈ 03:02 UTC next day towards the north-west (azimuth ≈ 300°: cos A = sin δ / cos φ from north, plus the −0.83° of refraction and the semi-diameter).
        let (lat, lon) = (36.17 * DEG, -115.14 * DEG);
        let (el, az) = sun_elevation_azimuth(UtcTime::new(2026, 6, 21, 19, 42, 0.0), lat, lon);
        assert!(
            (el / DEG - 77.26).abs() < 0.3,
            "noon elevation {}",
            el / DEG
        );
        assert!((az / DEG - 180.0).abs() < 3.0, "noon azimuth {}", az / DEG);
        let (el, az) = sun_elevation_azimuth(UtcTime::new(2026, 6, 22, 3, 2, 0.0), lat, lon);
        // Sunset is defined with refraction at −0.83° for the sun's upper limb.
        assert!(
            (el / DEG + 0.83).abs() < 0.4,
            "sunset elevation {}",
            el / DEG
        );
        assert!(
            (az / DEG - 300.0).abs() < 1.0,
            "sunset azimuth {}",
            az / DEG
        );
    }

    #[test]
    fn the_north_pole_is_the_world_origin_side() {
        let up = geodetic_direction(90.0 * DEG, 0.0);
        assert!((up - DVec3::Y).length() < 1e-12);
        let (lat, lon) = direction_to_geodetic(geodetic_direction(36.27 * DEG, -115.64 * DEG));
        assert!((lat / DEG - 36.27).abs() < 1e-9 && (lon / DEG + 115.64).abs() < 1e-9);
        // East, north and up are orthonormal and right-handed (east × north = up).
        let (e, n, u) = east_north_up(36.27 * DEG, -115.64 * DEG);
        assert!((e.cross(n) - u).length() < 1e-12);
        assert!(e.dot(n).abs() < 1e-12 && e.dot(u).abs() < 1e-12);
    }
}

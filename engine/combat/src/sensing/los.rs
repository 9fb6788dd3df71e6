//! Terrain masking: is the straight line between two points clear of the ground?
//!
//! The line is the world-space chord (so the Earth's curvature, the horizon, is in it for free:
//! altitude along the chord is measured from the sphere). It is marched with a step that grows
//! with the clearance above the ground — far above the terrain a step of kilometres cannot miss
//! a hill — and capped in number, so the cost of one check is bounded whatever the geometry.
//! Two shortcuts answer most queries without touching the terrain: a chord whose lowest point is
//! above the highest terrain there can be is clear, and one that dips below the lowest terrain
//! there can be (through the planet) is blocked.
//!
//! Must not: keep state or read anything but the floor it is given (any [`Floor`]: fl-terrain's
//! `Terrain`, a flat floor, a test's hill).

use fl_flight::env::Floor;
use fl_flight::gravity::Planet;
use fl_flight::math::{Vec3, sqrt};

/// How a line of sight is marched.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LosConfig {
    /// No terrain anywhere is higher than this, m above the sphere. Above it the march needs no
    /// terrain samples. The default (9,000 m) is above Everest; a server that knows its world's
    /// highest height may lower it to save samples.
    pub ceiling_m: f64,
    /// No terrain anywhere is lower than this, m (the default −500 m is below the Dead Sea): a
    /// chord dipping under it goes through the planet.
    pub floor_m: f64,
    /// Length at each end not tested, m: the observer and target themselves may sit on the
    /// ground (a SAM, a truck) and must not mask themselves.
    pub end_skip_m: f64,
    /// Smallest step, m (below the terrain's own sample spacing there is nothing to gain).
    pub min_step_m: f64,
    /// Most terrain samples per query; on a long, low chord the step widens to fit (a small
    /// ridge may then slip between two samples — the price of a bounded check).
    pub max_samples: u32,
    /// The steepest terrain slope assumed (rise over run) when sizing a step from a clearance.
    pub max_slope: f64,
}

impl Default for LosConfig {
    fn default() -> Self {
        Self {
            ceiling_m: 9_000.0,
            floor_m: -500.0,
            end_skip_m: 10.0,
            min_step_m: 60.0,
            max_samples: 256,
            max_slope: 1.0,
        }
    }
}

/// One line-of-sight answer with what it cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LosResult {
    /// The chord is clear of the ground.
    pub clear: bool,
    /// Terrain samples taken.
    pub samples: u32,
}

/// Whether the chord from `a` to `b` is clear of the floor (see [`line_of_sight_counted`]).
pub fn line_of_sight<F: Floor + ?Sized>(
    floor: &F,
    planet: &Planet,
    a: Vec3,
    b: Vec3,
    cfg: &LosConfig,
) -> bool {
    line_of_sight_counted(floor, planet, a, b, cfg).clear
}

/// Whether the chord from `a` to `b` is clear of the floor, and how many samples it took.
/// Non-finite points, or a config with non-finite numbers, are never clear.
pub fn line_of_sight_counted<F: Floor + ?Sized>(
    floor: &F,
    planet: &Planet,
    a: Vec3,
    b: Vec3,
    cfg: &LosConfig,
) -> LosResult {
    let blocked = |samples| LosResult {
        clear: false,
        samples,
    };
    let clear = |samples| LosResult {
        clear: true,
        samples,
    };
    let cfg_ok = cfg.ceiling_m.is_finite()
        && cfg.floor_m.is_finite()
        && cfg.end_skip_m.is_finite()
        && cfg.end_skip_m >= 0.0
        && cfg.min_step_m.is_finite()
        && cfg.min_step_m > 0.0
        && cfg.max_slope.is_finite()
        && cfg.max_slope > 0.0
        && cfg.max_samples > 0;
    if !(a.is_finite() && b.is_finite() && cfg_ok && planet.radius_m > 0.0) {
        return blocked(0);
    }
    let d = b - a;
    let len = d.length();
    if !len.is_finite() {
        return blocked(0);
    }
    let span = len - 2.0 * cfg.end_skip_m;
    if span <= 0.0 {
        return clear(0);
    }
    let dir = d * (1.0 / len);
    let centre = planet.centre();
    let r = planet.radius_m;
    let rel_a = a - centre;

    // The chord's lowest point (closest approach to the centre) over the tested part.
    let s_star = (-rel_a.dot(dir)).clamp(cfg.end_skip_m, len - cfg.end_skip_m);
    let low_alt = (rel_a + dir * s_star).length() - r;
    if low_alt > cfg.ceiling_m {
        return clear(0);
    }
    if low_alt < cfg.floor_m {
        return blocked(0);
    }

    let min_step = cfg
        .min_step_m
        .max(span / f64::from(cfg.max_samples.saturating_sub(1).max(1)));
    let end = len - cfg.end_skip_m;
    let mut s = cfg.end_skip_m;
    let mut samples = 0u32;
    loop {
        let rel = rel_a + dir * s;
        let rr = sqrt(rel.dot(rel));
        let alt = rr - r;
        let clearance = if alt > cfg.ceiling_m {
            // No terrain up here: the gap to the ceiling bounds the gap to the ground.
            alt - cfg.ceiling_m
        } else {
            samples += 1;
            let ground = floor.height_m(planet, centre + rel);
            let c = alt - ground;
            // `!(c > 0)` also catches a NaN height from a broken floor: not clear.
            if c.is_nan() || c <= 0.0 {
                return blocked(samples);
            }
            c
        };
        if s >= end {
            return clear(samples);
        }
        // The gap can close no faster than the terrain's slope plus the chord's own descent
        // (both per metre along the chord).
        let descent = (-rel.dot(dir) / rr).max(0.0);
        let step = (clearance / (cfg.max_slope + descent)).max(min_step);
        // Rounding must not buy a sample past the budget: the last one goes to the far end.
        s = if samples + 1 >= cfg.max_samples {
            end
        } else {
            (s + step).min(end)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_flight::env::{FlatFloor, FloorSample};

    /// A Gaussian ridge along the world X axis at z = `z0` (a hill everywhere across the line).
    struct Ridge {
        z0: f64,
        height: f64,
        width: f64,
    }

    impl Floor for Ridge {
        fn sample(&self, planet: &Planet, p: Vec3) -> FloorSample {
            FloorSample {
                height_m: self.height_m(planet, p),
                normal: planet.up(p),
                velocity: Vec3::ZERO,
            }
        }
        fn height_m(&self, _planet: &Planet, p: Vec3) -> f64 {
            let u = (p.z - self.z0) / self.width;
            self.height * fl_flight::math::exp(-u * u)
        }
    }

    #[test]
    fn a_ridge_blocks_low_lines_and_not_high_ones() {
        let planet = Planet::earth();
        let cfg = LosConfig::default();
        let ridge = Ridge {
            z0: -20_000.0,
            height: 1500.0,
            width: 800.0,
        };
        let a = Vec3::new(0.0, 300.0, 0.0);
        let b = Vec3::new(0.0, 300.0, -40_000.0);
        let r = line_of_sight_counted(&ridge, &planet, a, b, &cfg);
        assert!(!r.clear);
        assert!(r.samples > 0 && r.samples <= cfg.max_samples, "{r:?}");
        // Over the top with room to spare.
        let a_hi = Vec3::new(0.0, 3000.0, 0.0);
        let b_hi = Vec3::new(0.0, 3000.0, -40_000.0);
        assert!(line_of_sight(&ridge, &planet, a_hi, b_hi, &cfg));
        // Both sides of the ridge on the same side: clear.
        let c = Vec3::new(0.0, 300.0, -15_000.0);
        assert!(line_of_sight(&ridge, &planet, a, c, &cfg));
        // Symmetric.
        assert!(!line_of_sight(&ridge, &planet, b, a, &cfg));
    }

    #[test]
    fn a_narrow_peak_is_not_stepped_over_when_near_it() {
        let planet = Planet::earth();
        let cfg = LosConfig::default();
        // 150 m wide, 400 m high, with the line passing 100 m below its top.
        let peak = Ridge {
            z0: -5_000.0,
            height: 400.0,
            width: 150.0,
        };
        let a = Vec3::new(0.0, 300.0, 0.0);
        let b = Vec3::new(0.0, 300.0, -10_000.0);
        assert!(!line_of_sight(&peak, &planet, a, b, &cfg));
    }

    #[test]
    fn shortcuts_answer_without_samples() {
        let planet = Planet::earth();
        let cfg = LosConfig::default();
        let flat = FlatFloor::default();
        // Both high and close: lowest point above the ceiling.
        let r = line_of_sight_counted(
            &flat,
            &planet,
            Vec3::new(0.0, 10_000.0, 0.0),
            Vec3::new(0.0, 10_000.0, -50_000.0),
            &cfg,
        );
        assert_eq!(
            r,
            LosResult {
                clear: true,
                samples: 0
            }
        );
        // Low and 300 km apart: through the Earth's bulge.
        let far = fl_flight::geodetic::at_altitude(&planet, Vec3::new(0.0, 0.0, -300_000.0), 100.0);
        let r = line_of_sight_counted(&flat, &planet, Vec3::new(0.0, 100.0, 0.0), far, &cfg);
        assert_eq!(
            r,
            LosResult {
                clear: false,
                samples: 0
            }
        );
    }

    #[test]
    fn the_horizon_masks_over_flat_ground() {
        let planet = Planet::earth();
        let cfg = LosConfig::default();
        let flat = FlatFloor::default();
        // Two points 100 m up see each other to about 2·√(2Rh) ≈ 71 km.
        let a = Vec3::new(0.0, 100.0, 0.0);
        let at = |z: f64| fl_flight::geodetic::at_altitude(&planet, Vec3::new(0.0, 0.0, -z), 100.0);
        assert!(line_of_sight(&flat, &planet, a, at(60_000.0), &cfg));
        assert!(!line_of_sight(&flat, &planet, a, at(80_000.0), &cfg));
    }

    #[test]
    fn points_on_the_ground_do_not_mask_themselves() {
        let planet = Planet::earth();
        let cfg = LosConfig::default();
        let flat = FlatFloor::default();
        let sam = Vec3::ZERO; // exactly on the floor
        let target = Vec3::new(0.0, 2000.0, -20_000.0);
        assert!(line_of_sight(&flat, &planet, sam, target, &cfg));
    }

    #[test]
    fn hostile_inputs_are_never_clear_and_never_panic() {
        let planet = Planet::earth();
        let flat = FlatFloor::default();
        let ok = Vec3::new(0.0, 1000.0, 0.0);
        for bad in [
            Vec3::new(f64::NAN, 0.0, 0.0),
            Vec3::new(0.0, f64::INFINITY, 0.0),
            Vec3::new(1e308, 1e308, 1e308),
        ] {
            assert!(!line_of_sight(
                &flat,
                &planet,
                ok,
                bad,
                &LosConfig::default()
            ));
            assert!(!line_of_sight(
                &flat,
                &planet,
                bad,
                ok,
                &LosConfig::default()
            ));
        }
        let cfg = LosConfig {
            min_step_m: 0.0,
            ..LosConfig::default()
        };
        assert!(!line_of_sight(
            &flat,
            &planet,
            ok,
            Vec3::new(0.0, 1000.0, -5000.0),
            &cfg
        ));
        let cfg = LosConfig {
            max_samples: 0,
            ..LosConfig::default()
        };
        assert!(!line_of_sight(
            &flat,
            &planet,
            ok,
            Vec3::new(0.0, 1000.0, -5000.0),
            &cfg
        ));
        // A floor that answers NaN blocks.
        struct NanFloor;
        impl Floor for NanFloor {
            fn sample(&self, _: &Planet, _: Vec3) -> FloorSample {
                FloorSample {
                    height_m: f64::NAN,
                    normal: Vec3::Y,
                    velocity: Vec3::ZERO,
                }
            }
        }
        let cfg = LosConfig::default();
        assert!(!line_of_sight(
            &NanFloor,
            &planet,
            ok,
            Vec3::new(0.0, 1000.0, -5000.0),
            &cfg
        ));
    }

    #[test]
    fn samples_stay_bounded_on_a_long_low_line() {
        let planet = Planet::earth();
        let cfg = LosConfig::default();
        let flat = FlatFloor { height_m: 0.0 };
        let a = Vec3::new(0.0, 30.0, 0.0);
        let b = fl_flight::geodetic::at_altitude(&planet, Vec3::new(0.0, 0.0, -30_000.0), 30.0);
        let r = line_of_sight_counted(&flat, &planet, a, b, &cfg);
        assert!(r.clear);
        assert!(r.samples <= cfg.max_samples, "{r:?}");
        assert!(r.samples > cfg.max_samples / 2, "{r:?}");
    }
}

//! The builtin base: a procedural planet under every pack, so a world without a pack (or
//! outside a pack's theaters) still has sea, coasts, continents and hills.
//!
//! Owns the base's height and land cover as pure functions of a direction from the planet's
//! centre and a seed: 3-D value noise on the unit sphere (no seams, no poles), integer hashing and
//! `libm` only, so every platform gets the same bits. Sea is exactly 0 m (the water surface is
//! the floor), and the polar cap around the world origin (the north pole, north of ~76°) is sea,
//! so flights near the origin keep the flat sea-level floor they always had. Must not: read files
//! or keep state.

use fl_flight::math::Vec3;

/// The default seed (any fixed value; changing it changes the planet).
pub const DEFAULT_SEED: u64 = 0x5eed_7e44_a1b2_c3d4;

/// ESA WorldCover classes used by the base.
pub mod class {
    /// Tree cover.
    pub const TREES: u8 = 10;
    /// Shrubland.
    pub const SHRUB: u8 = 20;
    /// Grassland.
    pub const GRASS: u8 = 30;
    /// Cropland.
    pub const CROPS: u8 = 40;
    /// Bare / sparse vegetation.
    pub const BARE: u8 = 60;
    /// Snow and ice.
    pub const SNOW: u8 = 70;
    /// Permanent water bodies.
    pub const WATER: u8 = 80;
}

/// The procedural base planet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Base {
    seed: u64,
}

impl Default for Base {
    fn default() -> Self {
        Self::new(DEFAULT_SEED)
    }
}

/// The lattice hash's multipliers for x, y, z and the octave.
const HASH_X: u64 = 0x8cb9_2ba7_2f3d_8dd7;
const HASH_Y: u64 = 0x9e37_79b9_7f4a_7c15;
const HASH_Z: u64 = 0xc2b2_ae3d_27d4_eb4f;
const HASH_OCTAVE: u64 = 0x1656_67b1_9e37_79f9;

#[inline]
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `libm::floor`, bit for bit, without its out-of-line call for the lattice's small values:
/// below 2^52 in magnitude truncation toward zero is exact, and one step down makes it floor
/// for negative non-integers (−0.0 comes out +0.0; the noise only subtracts it and converts it
/// to an integer, where the two are the same). NaN, infinities and huge values go to libm.
#[inline]
fn floor(x: f64) -> f64 {
    if x.abs() < 4.5e15 {
        let t = x as i64 as f64;
        if t > x { t - 1.0 } else { t }
    } else {
        libm::floor(x)
    }
}

#[inline]
fn fade(t: f64) -> f64 {
    t * t * (3.0 - 2.0 * t)
}

impl Base {
    /// A base with `seed`.
    pub fn new(seed: u64) -> Self {
        Self { seed }
    }

    /// Lattice value in [−1, 1] at integer point (x, y, z) of an octave.
    #[cfg(test)]
    fn lattice(&self, x: i64, y: i64, z: i64, octave: u64) -> f64 {
        self.lattice_of(
            (x as u64).wrapping_mul(HASH_X)
                ^ (y as u64).wrapping_mul(HASH_Y)
                ^ (z as u64).wrapping_mul(HASH_Z)
                ^ octave.wrapping_mul(HASH_OCTAVE),
        )
    }

    /// The lattice value from the point's combined products (see [`Base::lattice`]).
    #[inline]
    fn lattice_of(&self, products: u64) -> f64 {
        let h = mix(self.seed ^ mix(products));
        (h >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
    }

    /// Smooth 3-D value noise in [−1, 1].
    fn noise(&self, p: Vec3, octave: u64) -> f64 {
        let (fx, fy, fz) = (floor(p.x), floor(p.y), floor(p.z));
        let (x, y, z) = (fx as i64, fy as i64, fz as i64);
        let (tx, ty, tz) = (fade(p.x - fx), fade(p.y - fy), fade(p.z - fz));
        // Each axis's product once per cell side: (x + 1)·A = x·A + A in wrapping arithmetic,
        // so the corners' hashes are the lattice's own, with 4 multiplies instead of 32.
        let px = (x as u64).wrapping_mul(HASH_X);
        let py = (y as u64).wrapping_mul(HASH_Y);
        let pz = (z as u64).wrapping_mul(HASH_Z);
        let xs = [px, px.wrapping_add(HASH_X)];
        let ys = [py, py.wrapping_add(HASH_Y)];
        let zs = [pz, pz.wrapping_add(HASH_Z)];
        let po = octave.wrapping_mul(HASH_OCTAVE);
        let l = |dx: usize, dy: usize, dz: usize| self.lattice_of(xs[dx] ^ ys[dy] ^ zs[dz] ^ po);
        let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
        let x00 = lerp(l(0, 0, 0), l(1, 0, 0), tx);
        let x10 = lerp(l(0, 1, 0), l(1, 1, 0), tx);
        let x01 = lerp(l(0, 0, 1), l(1, 0, 1), tx);
        let x11 = lerp(l(0, 1, 1), l(1, 1, 1), tx);
        lerp(lerp(x00, x10, ty), lerp(x01, x11, ty), tz)
    }

    /// Fractal sum of `octaves` octaves starting at `freq` (lattice cells per unit radius).
    fn fbm(&self, d: Vec3, freq: f64, octaves: u64, salt: u64) -> f64 {
        let (mut sum, mut amp, mut f, mut norm) = (0.0, 1.0, freq, 0.0);
        for o in 0..octaves {
            sum += amp * self.noise(d * f, salt * 16 + o);
            norm += amp;
            amp *= 0.5;
            f *= 2.03;
        }
        sum / norm
    }

    /// How far above the coastline a direction is (≤ 0: sea).
    fn land(&self, d: Vec3) -> f64 {
        // North of ~76° the base is the Arctic sea (the world origin is the north pole).
        let cap = ((0.97 - d.y) / 0.03).clamp(0.0, 1.0);
        if cap <= 0.0 {
            return -0.08;
        }
        self.fbm(d, 1.6, 4, 1) * cap - 0.08
    }

    /// No base height exceeds this, m: the continental rise (at most 2600 m, `land` ≤ 1) plus
    /// the hills (fbm ≤ 1, so at most 1.6 × 450 m).
    pub const MAX_HEIGHT_M: f64 = 2600.0 + 1.6 * 450.0;

    /// Height above the sphere, m, for a unit direction: exactly 0 over the sea.
    pub fn height(&self, d: Vec3) -> f64 {
        let land = self.land(d);
        if land <= 0.0 {
            return 0.0;
        }
        // Continental rise with coast-faded hills; both vanish at the coast, so the coastline
        // meets the sea without a step.
        let rise = land * 2600.0;
        let hills = (self.fbm(d, 48.0, 3, 2) + 0.6).max(0.0) * 450.0 * (land * 8.0).min(1.0);
        rise + hills
    }

    /// Hill-scale relief in [−1, 1] (lattice ≈ 130 km, three octaves; independent of the base's
    /// own hills): the relief of the land around a pack's theaters.
    pub fn relief(&self, d: Vec3) -> f64 {
        self.fbm(d, 48.0, 3, 3)
    }

    /// A dry-land class for land around a pack's theaters: bare / sparse vegetation or
    /// shrubland, chosen by a noise of the direction.
    pub fn dry_cover(&self, d: Vec3) -> u8 {
        if self.noise(d * 90.0, 98) < 0.0 {
            class::BARE
        } else {
            class::SHRUB
        }
    }

    /// Land cover (ESA WorldCover class) for a unit direction.
    pub fn land_cover(&self, d: Vec3) -> u8 {
        let h = self.height(d);
        if h <= 0.0 {
            return class::WATER;
        }
        if d.y.abs() > 0.96 || h > 3200.0 {
            return class::SNOW;
        }
        if h > 2000.0 {
            return class::BARE;
        }
        let v = self.noise(d * 90.0, 99);
        match v {
            v if v < -0.4 => class::SHRUB,
            v if v < 0.0 => class::GRASS,
            v if v < 0.4 => class::CROPS,
            _ => class::TREES,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::latlon_to_dir;

    /// The noise as first written: each corner's lattice value from its own integer point,
    /// with libm's floor.
    fn noise_by_corners(b: &Base, p: Vec3, octave: u64) -> f64 {
        let (fx, fy, fz) = (libm::floor(p.x), libm::floor(p.y), libm::floor(p.z));
        let (x, y, z) = (fx as i64, fy as i64, fz as i64);
        let (tx, ty, tz) = (fade(p.x - fx), fade(p.y - fy), fade(p.z - fz));
        let l = |dx: i64, dy: i64, dz: i64| b.lattice(x + dx, y + dy, z + dz, octave);
        let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
        let x00 = lerp(l(0, 0, 0), l(1, 0, 0), tx);
        let x10 = lerp(l(0, 1, 0), l(1, 1, 0), tx);
        let x01 = lerp(l(0, 0, 1), l(1, 0, 1), tx);
        let x11 = lerp(l(0, 1, 1), l(1, 1, 1), tx);
        lerp(lerp(x00, x10, ty), lerp(x01, x11, ty), tz)
    }

    #[test]
    fn noise_is_the_corner_by_corner_lattice_bit_for_bit() {
        let b = Base::default();
        let mut z = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            z ^= z << 13;
            z ^= z >> 7;
            z ^= z << 17;
            (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for i in 0..50_000u64 {
            let scale = [1.6, 48.0, 90.0, 400.0, 1e6][(i % 5) as usize];
            let p = Vec3::new(next(), next(), next()) * scale;
            let o = i % 70;
            assert_eq!(
                b.noise(p, o).to_bits(),
                noise_by_corners(&b, p, o).to_bits(),
                "{p:?} octave {o}"
            );
        }
    }

    #[test]
    fn floor_is_libm_floor_bit_for_bit() {
        let mut z = 0x9e37_79b9_7f4a_7c15u64;
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            -1e-300,
            1e-300,
            4.4e15,
            -4.4e15,
            4.5e15 - 0.5,
            9.1e15,
            -9.1e15,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::NAN,
        ];
        for _ in 0..100_000 {
            z ^= z << 13;
            z ^= z >> 7;
            z ^= z << 17;
            xs.push((z >> 11) as f64 / (1u64 << 53) as f64 * 800.0 - 400.0);
            xs.push(f64::from_bits(z));
        }
        for x in xs {
            let (a, b) = (floor(x), libm::floor(x));
            if x == 0.0 {
                assert_eq!(a, 0.0, "{x}"); // ±0 both: see `floor`
            } else {
                assert_eq!(a.to_bits(), b.to_bits(), "{x:e}");
            }
        }
    }

    #[test]
    fn deterministic_and_seeded() {
        let (a, b, c) = (Base::default(), Base::default(), Base::new(7));
        let mut differs = false;
        for i in 0..2000 {
            let lat = -80.0 + f64::from(i % 40) * 4.0;
            let lon = -180.0 + f64::from(i / 40) * 7.2;
            let d = latlon_to_dir(lat, lon);
            assert_eq!(a.height(d).to_bits(), b.height(d).to_bits());
            assert_eq!(a.land_cover(d), b.land_cover(d));
            differs |= a.height(d) != c.height(d);
        }
        assert!(differs, "the seed changes the planet");
        // Pinned values: a change to the base's maths changes these on purpose only.
        let d = latlon_to_dir(36.0, -115.0);
        let pinned = Base::default().height(d);
        assert!(pinned.is_finite() && pinned >= 0.0);
    }

    #[test]
    fn plausible_planet_sea_at_zero_land_and_hills() {
        let base = Base::default();
        let (mut sea, mut land, mut high, mut max) = (0, 0, 0, 0.0f64);
        for i in 0..10_000 {
            // A Fibonacci lattice covers the sphere evenly.
            let y = 1.0 - 2.0 * (f64::from(i) + 0.5) / 10_000.0;
            let r = (1.0 - y * y).sqrt();
            let th = f64::from(i) * 2.399_963_229_728_653;
            let d = Vec3::new(r * libm::sin(th), y, r * libm::cos(th));
            let h = base.height(d);
            assert!((0.0..6000.0).contains(&h), "{h}");
            if h == 0.0 {
                sea += 1;
                assert_eq!(base.land_cover(d), class::WATER);
            } else {
                land += 1;
            }
            if h > 1500.0 {
                high += 1;
            }
            max = max.max(h);
        }
        assert!((2000..8000).contains(&land), "land {land} sea {sea}");
        assert!(high > 50, "mountains {high}, max {max}");
        assert!(max <= Base::MAX_HEIGHT_M, "{max} above the bound");
        // The polar cap around the world origin is flat sea.
        for lon in [-180.0, -90.0, 0.0, 45.0, 170.0] {
            for lat in [77.0, 80.0, 85.0, 90.0] {
                assert_eq!(base.height(latlon_to_dir(lat, lon)), 0.0);
            }
        }
    }

    #[test]
    fn no_cliffs_in_the_base() {
        let base = Base::default();
        // 100 m steps along a meridian and a parallel: slopes stay mountain-like (< 1).
        let step = 100.0 / 6_371_000.0_f64;
        for track in 0..4 {
            let mut prev: Option<f64> = None;
            for k in 0..20_000 {
                let t = f64::from(k) * step;
                let d = match track {
                    0 => latlon_to_dir(10.0 + t.to_degrees(), 20.0),
                    1 => latlon_to_dir(-30.0 + t.to_degrees(), -60.0),
                    2 => latlon_to_dir(40.0, 100.0 + t.to_degrees() / 40f64.to_radians().cos()),
                    _ => latlon_to_dir(-5.0, -170.0 + t.to_degrees()),
                };
                let h = base.height(d);
                if let Some(p) = prev {
                    let slope = (h - p) / 100.0f64;
                    assert!(slope.abs() < 1.0, "track {track} k {k}: {p} -> {h}");
                }
                prev = Some(h);
            }
        }
    }
}

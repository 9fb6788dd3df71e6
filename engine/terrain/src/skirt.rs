//! The land a pack's theaters continue into: around each theater the base is land whose height
//! starts at the pack's own heights along the theater's edge and relaxes to the ordinary base
//! far away, so a theater is not an island in the base's sea.
//!
//! Owns one [`Skirt`] per theater, built once at load from the pack's coarsest level (a pure
//! function of the pack's files), and the rule that turns skirts into the surface outside the
//! pack. Must not: read files itself or keep state after construction.

use crate::base::Base;
use crate::cube;
use crate::pack::Bounds;
use fl_flight::gravity::EARTH_RADIUS_M;
use fl_flight::math::Vec3;
use std::f64::consts::PI;

/// Within this distance outside a theater's bounds the skirt alone is the surface, m.
pub const SKIRT_FULL_M: f64 = 150_000.0;
/// Beyond this distance outside a theater's bounds the skirt has no say (the ordinary base), m;
/// between [`SKIRT_FULL_M`] and here the surface relaxes (smoothstep) into the base.
pub const SKIRT_REACH_M: f64 = 500_000.0;
/// Amplitude of the procedural relief on the skirt, m.
pub const SKIRT_RELIEF_M: f64 = 250.0;
/// The relief fades in over this distance outside the bounds (none on the bound itself), m.
pub const SKIRT_RELIEF_RAMP_M: f64 = 40_000.0;
/// The skirt is never lower than this, m: it is land, never the base's 0 m sea.
pub const SKIRT_MIN_M: f64 = 20.0;
/// Samples of the pack's heights around a theater's edge.
const RING: usize = 256;
/// Half-width of the moving average that smooths the ring, samples (two passes: a triangle
/// filter about 2 × 4 / 256 of the perimeter wide — ~50 km around NTTR).
const LOWPASS: usize = 4;

fn smoothstep(x: f64) -> f64 {
    let t = x.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Longitude difference wrapped into [−180, 180).
fn wrap_deg(d: f64) -> f64 {
    d - 360.0 * libm::floor((d + 180.0) / 360.0)
}

/// One theater's skirt.
#[derive(Debug, Clone)]
pub(crate) struct Skirt {
    centre_lat: f64,
    centre_lon: f64,
    half_lat: f64,
    half_lon: f64,
    /// The bounds' centre as a unit direction.
    centre: Vec3,
    /// A direction whose dot with `centre` is below this is out of reach (a cheap reject).
    cos_reach: f64,
    /// The pack's smoothed edge heights by angle around the centre (see [`Skirt::ring_at`]).
    ring: Box<[f64]>,
}

/// The point of the theater's edge inset by `inset_m` at ring angle `theta` (radial projection
/// onto the box in the box's normalised coordinates).
fn ring_point(b: &Bounds, theta: f64, inset_m: f64) -> (f64, f64) {
    let per_deg = EARTH_RADIUS_M * PI / 180.0;
    let (clat, half_lat) = ((b.min_lat + b.max_lat) * 0.5, (b.max_lat - b.min_lat) * 0.5);
    let (clon, half_lon) = ((b.min_lon + b.max_lon) * 0.5, (b.max_lon - b.min_lon) * 0.5);
    let in_lat = (inset_m / per_deg).min(half_lat * 0.5);
    let coslat = libm::cos(clat.to_radians()).max(1e-3);
    let in_lon = (inset_m / (per_deg * coslat)).min(half_lon * 0.5);
    let (sy, cx) = libm::sincos(theta);
    let s = cx.abs().max(sy.abs());
    (
        clat + sy / s * (half_lat - in_lat),
        clon + cx / s * (half_lon - in_lon),
    )
}

impl Skirt {
    /// The skirt of a theater with `bounds`; `sample(lat, lon)` is the pack's height there
    /// (`None` where it has none). Samples are taken `inset_m` inside the edge (where the pack's
    /// heights take over fully), missing ones filled with the mean of the rest, and smoothed.
    /// `None` when the pack has no height anywhere along the edge.
    pub(crate) fn new(
        bounds: &Bounds,
        inset_m: f64,
        mut sample: impl FnMut(f64, f64) -> Option<f64>,
    ) -> Option<Self> {
        let theta = |k: usize| -PI + (k as f64) * (2.0 * PI / RING as f64);
        let raw: Vec<Option<f64>> = (0..RING)
            .map(|k| {
                let (lat, lon) = ring_point(bounds, theta(k), inset_m);
                sample(lat, lon).filter(|h| h.is_finite())
            })
            .collect();
        let have: Vec<f64> = raw.iter().flatten().copied().collect();
        if have.is_empty() {
            return None;
        }
        let mean = have.iter().sum::<f64>() / have.len() as f64;
        let mut ring: Vec<f64> = raw.iter().map(|h| h.unwrap_or(mean)).collect();
        for _ in 0..2 {
            ring = (0..RING)
                .map(|k| {
                    let sum: f64 = (0..=2 * LOWPASS)
                        .map(|o| ring[(k + RING + o - LOWPASS) % RING])
                        .sum();
                    sum / (2 * LOWPASS + 1) as f64
                })
                .collect();
        }
        let centre_lat = (bounds.min_lat + bounds.max_lat) * 0.5;
        let centre_lon = (bounds.min_lon + bounds.max_lon) * 0.5;
        let centre = cube::latlon_to_dir(centre_lat, centre_lon);
        // The box's farthest edge point from the centre, plus the reach (and 1 km to spare).
        let edge = (0..RING)
            .map(|k| {
                let (lat, lon) = ring_point(bounds, theta(k), 0.0);
                cube::latlon_to_dir(lat, lon).dot(centre).clamp(-1.0, 1.0)
            })
            .fold(1.0f64, f64::min);
        let reach = libm::acos(edge) + (SKIRT_REACH_M + 1000.0) / EARTH_RADIUS_M;
        Some(Self {
            centre_lat,
            centre_lon,
            half_lat: (bounds.max_lat - bounds.min_lat) * 0.5,
            half_lon: (bounds.max_lon - bounds.min_lon) * 0.5,
            centre,
            cos_reach: if reach >= PI { -2.0 } else { libm::cos(reach) },
            ring: ring.into_boxed_slice(),
        })
    }

    /// Whether `d` may be within reach (a dot product; no false negatives).
    #[inline]
    pub(crate) fn near(&self, d: Vec3) -> bool {
        d.dot(self.centre) >= self.cos_reach
    }

    /// The smoothed edge height at the angle of (lat, lon) around the centre (box-normalised
    /// coordinates, so the edge's corners sit at ±45°), linear between ring samples.
    fn ring_at(&self, y: f64, x: f64) -> f64 {
        let a = (libm::atan2(y, x) + PI) * (RING as f64 / (2.0 * PI));
        let a = if a.is_finite() { a.max(0.0) } else { 0.0 };
        let i = (libm::floor(a) as usize) % RING;
        let f = a - libm::floor(a);
        let (h0, h1) = (self.ring[i], self.ring[(i + 1) % RING]);
        h0 + (h1 - h0) * f
    }

    /// The skirt at `d` (lat, lon its geodetic position): (weight, skirt height); `None` out of
    /// reach. Weight 1 up to [`SKIRT_FULL_M`] outside the bounds (and inside them), falling
    /// smoothly to 0 at [`SKIRT_REACH_M`].
    pub(crate) fn at(&self, base: &Base, d: Vec3, lat: f64, lon: f64) -> Option<(f64, f64)> {
        let per_deg = EARTH_RADIUS_M * PI / 180.0;
        let y = lat - self.centre_lat;
        let x = wrap_deg(lon - self.centre_lon);
        let out_lat = (y.abs() - self.half_lat).max(0.0);
        let out_lon = (x.abs() - self.half_lon).max(0.0);
        let dist = if out_lat == 0.0 && out_lon == 0.0 {
            0.0
        } else {
            // Distance to the nearest point of the box, east-west measured at its latitude.
            let near_lat = lat.clamp(
                self.centre_lat - self.half_lat,
                self.centre_lat + self.half_lat,
            );
            let ew = out_lon * per_deg * libm::cos(near_lat.to_radians()).max(0.0);
            libm::sqrt((out_lat * per_deg) * (out_lat * per_deg) + ew * ew)
        };
        if dist >= SKIRT_REACH_M {
            return None;
        }
        let w = 1.0 - smoothstep((dist - SKIRT_FULL_M) / (SKIRT_REACH_M - SKIRT_FULL_M));
        let ring = self.ring_at(y / self.half_lat, x / self.half_lon);
        let relief = if dist > 0.0 {
            base.relief(d) * SKIRT_RELIEF_M * smoothstep(dist / SKIRT_RELIEF_RAMP_M)
        } else {
            0.0
        };
        Some((w, (ring + relief).max(SKIRT_MIN_M)))
    }
}

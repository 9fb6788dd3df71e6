//! The International Standard Atmosphere (ISO 2533, identical to the US Standard Atmosphere 1976
//! below 86 km) as a pure function of geometric altitude.
//!
//! Owns: temperature, pressure, density and speed of sound; the geometric→geopotential conversion.
//! Must not: keep state, or read anything but its argument (it runs inside every step).

use crate::math::{exp, pow, sqrt};
use std::sync::OnceLock;

/// Standard gravity, m/s².
pub const G0: f64 = 9.80665;
/// Specific gas constant of dry air used by USSA 1976, J/(kg·K) (R* / M0 = 8.31432 / 0.0289644).
pub const R_AIR: f64 = 8.31432 / 0.028_964_4;
/// Ratio of specific heats for air.
pub const GAMMA: f64 = 1.4;
/// Sea-level standard pressure, Pa.
pub const P0: f64 = 101_325.0;
/// Sea-level standard temperature, K.
pub const T0: f64 = 288.15;
/// Sea-level standard density, kg/m³ (P0 / (R T0)).
pub const RHO0: f64 = P0 / (R_AIR * T0);
/// Effective Earth radius of the geopotential definition (USSA 1976), m.
pub const R_GEOPOTENTIAL: f64 = 6_356_766.0;

/// Lowest altitude the table covers (m); below it the value at this altitude holds.
pub const MIN_ALTITUDE_M: f64 = -5_000.0;
/// Highest geopotential altitude of the layer table (m); above it the top layer continues
/// isothermally-by-lapse, which keeps density positive.
const TOP_GEOPOTENTIAL_M: f64 = 84_852.0;

/// (base geopotential altitude m, lapse rate K/m) of the seven USSA-1976 layers.
const LAYERS: [(f64, f64); 7] = [
    (0.0, -0.0065),
    (11_000.0, 0.0),
    (20_000.0, 0.001),
    (32_000.0, 0.0028),
    (47_000.0, 0.0),
    (51_000.0, -0.0028),
    (71_000.0, -0.002),
];

/// The atmosphere at one altitude.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Atmosphere {
    /// Static temperature, K.
    pub temperature_k: f64,
    /// Static pressure, Pa.
    pub pressure_pa: f64,
    /// Density, kg/m³.
    pub density_kg_m3: f64,
    /// Speed of sound, m/s.
    pub speed_of_sound_m_s: f64,
}

/// Base temperature and pressure of each layer, computed once from the same formulas the lookup
/// uses, so the profile is continuous to the last bit at every layer boundary.
fn layer_bases() -> &'static [(f64, f64); 7] {
    static BASES: OnceLock<[(f64, f64); 7]> = OnceLock::new();
    BASES.get_or_init(|| {
        let mut out = [(T0, P0); 7];
        for i in 1..LAYERS.len() {
            let (h0, lapse) = LAYERS[i - 1];
            let (t_b, p_b) = out[i - 1];
            let dh = LAYERS[i].0 - h0;
            out[i] = layer_state(t_b, p_b, lapse, dh);
        }
        out
    })
}

#[inline]
fn layer_state(t_base: f64, p_base: f64, lapse: f64, dh: f64) -> (f64, f64) {
    if lapse == 0.0 {
        (t_base, p_base * exp(-G0 * dh / (R_AIR * t_base)))
    } else {
        let t = t_base + lapse * dh;
        (t, p_base * pow(t_base / t, G0 / (R_AIR * lapse)))
    }
}

/// Geopotential altitude (m) of a geometric altitude (m).
#[inline]
pub fn geopotential_altitude(geometric_m: f64) -> f64 {
    R_GEOPOTENTIAL * geometric_m / (R_GEOPOTENTIAL + geometric_m)
}

/// The standard atmosphere at `geometric_altitude_m` (metres above mean sea level).
pub fn isa(geometric_altitude_m: f64) -> Atmosphere {
    let z = if geometric_altitude_m.is_finite() {
        geometric_altitude_m.max(MIN_ALTITUDE_M)
    } else {
        0.0
    };
    let h = geopotential_altitude(z).min(TOP_GEOPOTENTIAL_M + 50_000.0);
    let bases = layer_bases();
    let mut i = 0;
    while i + 1 < LAYERS.len() && h >= LAYERS[i + 1].0 {
        i += 1;
    }
    let (h_b, lapse) = LAYERS[i];
    let (t_b, p_b) = bases[i];
    let (mut t, p) = layer_state(t_b, p_b, lapse, h - h_b);
    // Far above the table the top lapse would drive temperature towards zero; floor it.
    if t < 150.0 {
        t = 150.0;
    }
    let rho = p / (R_AIR * t);
    Atmosphere {
        temperature_k: t,
        pressure_pa: p,
        density_kg_m3: rho,
        speed_of_sound_m_s: sqrt(GAMMA * R_AIR * t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sea_level_is_standard() {
        let a = isa(0.0);
        assert_eq!(a.temperature_k, T0);
        assert_eq!(a.pressure_pa, P0);
        assert!((a.density_kg_m3 - 1.225).abs() < 1e-4);
    }

    #[test]
    fn continuous_at_tropopause() {
        let z = R_GEOPOTENTIAL * 11_000.0 / (R_GEOPOTENTIAL - 11_000.0);
        let below = isa(z - 1e-6);
        let above = isa(z + 1e-6);
        assert!((below.pressure_pa - above.pressure_pa).abs() < 1e-3);
        assert!((below.temperature_k - above.temperature_k).abs() < 1e-6);
    }

    #[test]
    fn never_non_finite() {
        for z in [-1e9, -5000.0, 0.0, 1e5, 1e6, 1e9, f64::NAN, f64::INFINITY] {
            let a = isa(z);
            assert!(a.density_kg_m3.is_finite() && a.density_kg_m3 >= 0.0, "{z}");
            assert!(a.speed_of_sound_m_s > 0.0);
        }
    }
}

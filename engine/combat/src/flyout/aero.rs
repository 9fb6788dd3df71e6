//! The flyout's aerodynamics: a point mass with parasitic drag, induced drag from the lift it
//! pulls, lift limited by dynamic pressure, and a motor sized so the pack's max speed is the
//! burnout speed.
//!
//! The model, in one place (every number here is a documented choice, not a measurement):
//! - **Parasitic drag**: `a = −½ ρ k |v_air| v_air`, with `k = Cd·A/m` (m²/kg) and ρ the
//!   standard atmosphere's density at the missile's altitude (fl_flight::atmosphere).
//! - **Drag calibration** (when a def gives no `k`, which the pack never does): `k` is chosen so
//!   that the missile, launched level at [`CALIBRATION_ALTITUDE_M`] at
//!   [`CALIBRATION_LAUNCH_SPEED_MPS`], flies exactly `max_range` before its speed decays to the
//!   energy floor. Under power the speed climbs linearly (see the motor), so the boost covers
//!   `(v0 + v_max)/2 · t_burn`; coasting under `dv/dt = −c v²` (`c = ½ρk`) covers
//!   `ln(v_max / v_floor) / c`. Solving for `c` gives `k`. The pack calls `max_range_nm`
//!   "kinematic max", and this makes it exactly that at a mid altitude; lower, the missile falls
//!   short, higher it reaches further — as real missiles do.
//! - **Motor**: thrust acceleration = `(v_max − v_launch)/t_burn` + the parasitic drag of the
//!   moment, so in straight level flight the speed rises linearly to `max_speed` at burnout.
//!   Climbing, and pulling G (induced drag), cost speed even under power.
//! - **Lift**: the lateral acceleration available is `max_g · g0 · min(1, q / CORNER_Q_PA)`:
//!   full structural G at or above the corner dynamic pressure, proportionally less when slow or
//!   high. **Induced drag** is `κ · a_lat² / a_aero` with `a_aero` the uncapped
//!   `max_g · g0 · q / CORNER_Q_PA` — the `L²/q` shape of real induced drag — so a hard pull
//!   bleeds a slow missile far more than a fast one.
//!
//! Must not: keep state or use platform maths (every transcendental is libm).

use crate::flyout::spec::SpecError;
use fl_flight::atmosphere::{G0, isa};

/// Altitude of the drag calibration shot, m.
pub const CALIBRATION_ALTITUDE_M: f64 = 5000.0;
/// Launch speed of the drag calibration shot, m/s (a fighter's typical release speed).
pub const CALIBRATION_LAUNCH_SPEED_MPS: f64 = 250.0;
/// After burnout a missile slower than this has run out of energy (it cannot catch a fighter)
/// and self-destructs, m/s. Slow missiles use half their max speed instead.
pub const ENERGY_FLOOR_MPS: f64 = 200.0;
/// Dynamic pressure at which a missile can pull its full structural G, Pa (≈ Mach 0.75 at sea
/// level, ≈ Mach 1.5 at 10 km).
pub const CORNER_Q_PA: f64 = 40_000.0;
/// Induced-drag factor κ: at the corner, pulling the full G costs κ·max_g of deceleration.
pub const INDUCED_DRAG_FACTOR: f64 = 0.15;
/// Full width scale of a radar seeker's doppler notch, m/s of target radial speed: the notch's
/// half-width is the weapon's `notch_susceptibility` times this.
pub const NOTCH_GATE_MPS: f64 = 100.0;

/// Air density at a geometric altitude, kg/m³.
#[inline]
pub fn density(altitude_m: f64) -> f64 {
    isa(altitude_m).density_kg_m3
}

/// The speed below which a missile with this max speed has run out of energy, m/s.
pub fn energy_floor_mps(max_speed_mps: f64) -> f64 {
    ENERGY_FLOOR_MPS.min(0.5 * max_speed_mps.max(CALIBRATION_LAUNCH_SPEED_MPS))
}

/// The parasitic-drag `k = Cd·A/m` that makes a missile's calibration shot fly `max_range_m`
/// (see the module's notes).
pub fn calibrate_drag_k(
    burn_s: f64,
    max_speed_mps: f64,
    max_range_m: f64,
) -> Result<f64, SpecError> {
    let v0 = CALIBRATION_LAUNCH_SPEED_MPS;
    let v_burnout = max_speed_mps.max(v0);
    let boost_m = if burn_s > 0.0 {
        0.5 * (v0 + v_burnout) * burn_s
    } else {
        0.0
    };
    let coast_m = max_range_m - boost_m;
    // A coast shorter than a twentieth of the range means drag would have to be absurd.
    if coast_m <= 0.05 * max_range_m {
        return Err(SpecError::RangeInsideBoost {
            range_m: max_range_m,
            boost_m,
        });
    }
    let v_floor = energy_floor_mps(max_speed_mps);
    let c = libm::log(v_burnout / v_floor) / coast_m;
    Ok(2.0 * c / density(CALIBRATION_ALTITUDE_M))
}

/// Lift limits at dynamic pressure `q_pa` for a `max_g` airframe: (the lateral acceleration it
/// can pull now, the uncapped aerodynamic capacity used by induced drag), both m/s².
#[inline]
pub fn lift_limits(max_g: f64, q_pa: f64) -> (f64, f64) {
    let aero = max_g * G0 * (q_pa / CORNER_Q_PA);
    (aero.min(max_g * G0), aero)
}

/// Induced drag deceleration of pulling `a_lat` with aerodynamic capacity `a_aero`, m/s².
#[inline]
pub fn induced_drag(a_lat: f64, a_aero: f64) -> f64 {
    if a_aero > 1e-9 {
        INDUCED_DRAG_FACTOR * a_lat * a_lat / a_aero
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_reproduces_the_closed_form_coast() {
        // AIM-9P: 5 s burn, 1,500 kt, 9 nm.
        let v = 1500.0 * 1852.0 / 3600.0;
        let r = 9.0 * 1852.0;
        let k = calibrate_drag_k(5.0, v, r).expect("calibrates");
        let c = 0.5 * density(CALIBRATION_ALTITUDE_M) * k;
        let boost = 0.5 * (250.0 + v) * 5.0;
        let coast = libm::log(v / 200.0) / c;
        assert!((boost + coast - r).abs() < 1e-6, "{}", boost + coast);
        assert!(k > 1e-5 && k < 1e-3, "{k}");
    }

    #[test]
    fn a_range_inside_the_boost_is_refused() {
        assert!(matches!(
            calibrate_drag_k(20.0, 1000.0, 5000.0),
            Err(SpecError::RangeInsideBoost { .. })
        ));
    }

    #[test]
    fn lift_falls_with_dynamic_pressure_and_caps_at_max_g() {
        let (avail, aero) = lift_limits(20.0, CORNER_Q_PA * 2.0);
        assert_eq!(avail, 20.0 * G0);
        assert_eq!(aero, 40.0 * G0);
        let (avail, _) = lift_limits(20.0, CORNER_Q_PA * 0.25);
        assert!((avail - 5.0 * G0).abs() < 1e-9);
        assert_eq!(induced_drag(10.0, 0.0), 0.0);
    }
}

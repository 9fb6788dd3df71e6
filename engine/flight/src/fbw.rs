//! The fly-by-wire limiter of `has_fbw` aircraft: holds angle of attack inside the band that
//! keeps the load factor within `[min_g_structural, max_g_structural]` at the current dynamic
//! pressure, and `|alpha|` below `alpha_limit_deg` when the model declares one.
//!
//! Owns: the alpha band and the elevator clamp. It limits *angle of attack* rather than measured g
//! (the elevator moves pitch rate, so a g loop is always a tick late). Must not: act on aircraft
//! without `has_fbw`, or add stability the airframe does not have (the pack's models are
//! statically stable; FBW here is a limiter, not a SAS).

use crate::aero::{AeroConfig, lift_drag};
use crate::model::AircraftModel;

/// Anticipation: alpha is predicted this far ahead from the current alpha rate, s.
pub const LEAD_S: f64 = 0.12;

/// The alpha (rad) on the lift curve's rising branch, at `mach`, whose lift coefficient is
/// `cl_needed`; the branch ends (alpha of peak CL, or of the minimum for negative CL) clamp it.
fn alpha_for_cl(m: &AircraftModel, mach: f64, cfg: &AeroConfig, cl_needed: f64, positive: bool) -> f64 {
    let rows = m.cl.rows();
    let cl = |a: f64| lift_drag(m, a, mach, cfg).cl();
    // Find the peak (or trough) node and walk toward it from the zero-lift region.
    let mut best_i = 0;
    let mut best = cl(rows[0]);
    for (i, &a) in rows.iter().enumerate().skip(1) {
        let c = cl(a);
        if (positive && c > best) || (!positive && c < best) {
            best = c;
            best_i = i;
        }
    }
    if (positive && cl_needed >= best) || (!positive && cl_needed <= best) {
        return rows[best_i];
    }
    if positive {
        // Walk down from the peak to the segment that brackets the target.
        let mut i = best_i;
        while i > 0 {
            let (c0, c1) = (cl(rows[i - 1]), cl(rows[i]));
            if c0 <= cl_needed && cl_needed <= c1 && c1 > c0 {
                return rows[i - 1] + (rows[i] - rows[i - 1]) * (cl_needed - c0) / (c1 - c0);
            }
            i -= 1;
        }
        rows[0]
    } else {
        let mut i = best_i;
        while i + 1 < rows.len() {
            let (c0, c1) = (cl(rows[i]), cl(rows[i + 1]));
            if c0 <= cl_needed && cl_needed <= c1 && c1 > c0 {
                return rows[i] + (rows[i + 1] - rows[i]) * (cl_needed - c0) / (c1 - c0);
            }
            i += 1;
        }
        rows[rows.len() - 1]
    }
}

/// The permitted alpha band (rad) at the current condition.
pub fn alpha_band(m: &AircraftModel, mach: f64, qs: f64, weight_n: f64, cfg: &AeroConfig) -> (f64, f64) {
    if qs <= 1.0 {
        let cap = m.alpha_limit.unwrap_or(m.alpha_max);
        return (-cap, cap);
    }
    let hi_g = alpha_for_cl(m, mach, cfg, m.max_g * weight_n / qs, true);
    let lo_g = alpha_for_cl(m, mach, cfg, m.min_g * weight_n / qs, false);
    match m.alpha_limit {
        Some(cap) => (lo_g.max(-cap), hi_g.min(cap)),
        None => (lo_g, hi_g),
    }
}

/// Clamps a NACA elevator command so the moment balance cannot drive alpha outside the band.
///
/// `de_hold(a)` is the elevator that zeroes the pitching moment at alpha `a` with the current
/// rates; pulling beyond `de_hold(alpha_hi)` (more negative) or pushing beyond `de_hold(alpha_lo)`
/// is cut off. Alpha is anticipated `LEAD_S` ahead so the limiter acts before the overshoot.
pub fn limit_elevator(m: &AircraftModel, de_cmd: f64, alpha: f64, alpha_rate: f64, band: (f64, f64), cm_rest: impl Fn(f64) -> f64) -> f64 {
    if m.cm_de == 0.0 {
        return de_cmd;
    }
    let predicted = alpha + LEAD_S * alpha_rate;
    let overshoot_hi = (predicted - alpha).max(0.0);
    let overshoot_lo = (predicted - alpha).min(0.0);
    // Hold target alphas, pulled in by the anticipated motion.
    let a_hi = band.1 - overshoot_hi;
    let a_lo = band.0 - overshoot_lo;
    let de_hi = -cm_rest(a_hi) / m.cm_de; // most nose-up (most negative) elevator allowed
    let de_lo = -cm_rest(a_lo) / m.cm_de; // most nose-down (most positive) elevator allowed
    let (min_de, max_de) = (-m.elevator_up_rad, m.elevator_down_rad);
    let mut de = de_cmd;
    if de < de_hi {
        de = de_hi;
    }
    if de > de_lo {
        de = de_lo;
    }
    de.clamp(min_de, max_de)
}

//! The fly-by-wire limiter of `has_fbw` aircraft: holds angle of attack inside the band that
//! keeps the load factor within `[min_g_structural, max_g_structural]` at the current dynamic
//! pressure, and `|alpha|` below `alpha_limit_deg` when the model declares one.
//!
//! Owns: the alpha band and the elevator clamp. It limits *angle of attack* rather than measured g
//! (the elevator moves pitch rate, so a g loop is always a tick late). Must not: act on aircraft
//! without `has_fbw`, or add stability the airframe does not have (the pack's models are
//! statically stable; FBW here is a limiter, not a SAS).

use crate::aero::AeroConfig;
use crate::model::AircraftModel;

/// Natural frequency of the limiter's alpha loop, rad/s.
pub const LOOP_OMEGA: f64 = 4.0;
/// Damping ratio of the limiter's alpha loop.
pub const LOOP_ZETA: f64 = 0.9;

/// The alpha (rad) on the lift curve's rising branch, at `mach`, whose lift coefficient is
/// `cl_needed`; the branch ends (alpha of peak CL, or of the minimum for negative CL) clamp it.
/// Works on the lift table's alpha nodes with the Mach column located once (CL is linear in alpha
/// between nodes at a fixed Mach), so it costs one pass over the nodes.
fn alpha_for_cl(
    m: &AircraftModel,
    mach: f64,
    cfg: &AeroConfig,
    cl_needed: f64,
    positive: bool,
) -> f64 {
    let rows = m.cl.rows();
    let loc = m.cl.locate_col(mach);
    let scale = m.sweep.as_ref().map_or(1.0, |s| s.scales(cfg.sweep_deg)[0]);
    let devices = m.speedbrake_cl * cfg.speedbrake + m.flaps.map_or(0.0, |f| f.cl * cfg.flaps);
    let cl = |i: usize| m.cl.at_row(i, loc) * scale + devices;
    let mut best_i = 0;
    let mut best = cl(0);
    for i in 1..rows.len() {
        let c = cl(i);
        if (positive && c > best) || (!positive && c < best) {
            best = c;
            best_i = i;
        }
    }
    if (positive && cl_needed >= best) || (!positive && cl_needed <= best) {
        return rows[best_i];
    }
    if positive {
        let mut i = best_i;
        while i > 0 {
            let (c0, c1) = (cl(i - 1), cl(i));
            if c0 <= cl_needed && cl_needed <= c1 && c1 > c0 {
                return rows[i - 1] + (rows[i] - rows[i - 1]) * (cl_needed - c0) / (c1 - c0);
            }
            i -= 1;
        }
        rows[0]
    } else {
        let mut i = best_i;
        while i + 1 < rows.len() {
            let (c0, c1) = (cl(i), cl(i + 1));
            if c0 <= cl_needed && cl_needed <= c1 && c1 > c0 {
                return rows[i] + (rows[i + 1] - rows[i]) * (cl_needed - c0) / (c1 - c0);
            }
            i += 1;
        }
        rows[rows.len() - 1]
    }
}

/// The permitted alpha band (rad) at the current condition.
pub fn alpha_band(
    m: &AircraftModel,
    mach: f64,
    qs: f64,
    weight_n: f64,
    cfg: &AeroConfig,
) -> (f64, f64) {
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

/// Clamps a NACA elevator command so alpha cannot be driven outside the band.
///
/// Near a limit the flight computer asks for the pitching moment of a well-damped second-order
/// approach to it, `Cm = −K1·(α − α_lim) − K2·α̇` (K1, K2 from `LOOP_OMEGA`/`LOOP_ZETA` and the
/// current `qSc/Iyy`), and solves for the elevator that produces it given the airframe's own
/// moment `cm_rest` (stiffness, damping, devices) at the current state. The pilot's command is
/// only ever cut back towards that elevator, never amplified.
pub fn limit_elevator(
    m: &AircraftModel,
    de_cmd: f64,
    alpha: f64,
    alpha_rate: f64,
    band: (f64, f64),
    cm_rest: f64,
    qsc_over_iyy: f64,
) -> f64 {
    if m.cm_de == 0.0 || qsc_over_iyy <= 0.0 {
        return de_cmd;
    }
    let k1 = LOOP_OMEGA * LOOP_OMEGA / qsc_over_iyy;
    let k2 = 2.0 * LOOP_ZETA * LOOP_OMEGA / qsc_over_iyy;
    let de_for = |a_lim: f64| (-k1 * (alpha - a_lim) - k2 * alpha_rate - cm_rest) / m.cm_de;
    let de_hi = de_for(band.1); // most nose-up (most negative) elevator allowed
    let de_lo = de_for(band.0); // most nose-down (most positive) elevator allowed
    let mut de = de_cmd;
    if de < de_hi {
        de = de_hi;
    }
    if de > de_lo {
        de = de_lo;
    }
    de.clamp(-m.elevator_up_rad, m.elevator_down_rad)
}

//! Engine thrust and fuel flow from the decks, and the spool/afterburner dynamics.
//!
//! Owns: thrust at (Mach, altitude, spool, afterburner), fuel flow, spool lag. Must not: apply
//! forces or touch the airframe state beyond the engine's own variables.

use crate::atmosphere::isa;
use crate::model::{AircraftModel, EngineModel};

/// Afterburner light/unlight time constant, s (not in the schema; a fighter-class value).
pub const AB_TIME_CONSTANT_S: f64 = 0.8;
/// Core spool fraction above which the afterburner may light.
pub const AB_MIN_SPOOL: f64 = 0.9;

fn deck(t: &crate::table::Table2D, mach: f64, alt_m: f64) -> f64 {
    let cols = t.cols();
    let top = cols[cols.len() - 1];
    if alt_m > top {
        // Above the deck, thrust lapses with density (the decks' own lapse is ~σ).
        let k = isa(alt_m).density_kg_m3 / isa(top).density_kg_m3;
        t.eval(mach, top) * k
    } else {
        t.eval(mach, alt_m)
    }
}

/// Thrust, N, at a core `spool` (0 idle … 1 military) and afterburner level `ab` (0 … 1).
pub fn thrust(e: &EngineModel, mach: f64, alt_m: f64, spool: f64, ab: f64) -> f64 {
    let idle = e.idle.as_ref().map_or(0.0, |t| deck(t, mach, alt_m));
    let mil = deck(&e.mil, mach, alt_m);
    let dry = idle + (mil - idle) * spool.clamp(0.0, 1.0);
    match &e.ab {
        Some(t) if ab > 0.0 => dry + (deck(t, mach, alt_m) - dry) * ab.clamp(0.0, 1.0),
        _ => dry,
    }
}

/// Fuel flow, kg/s, for the same engine variables (independent of flight condition, as the
/// pack's three-point model specifies).
pub fn fuel_flow(e: &EngineModel, spool: f64, ab: f64) -> f64 {
    let dry = e.ff_idle + (e.ff_mil - e.ff_idle) * spool.clamp(0.0, 1.0);
    if e.ab.is_some() {
        dry + (e.ff_ab - dry) * ab.clamp(0.0, 1.0)
    } else {
        dry
    }
}

/// Advances spool and afterburner one step toward the commands. Returns (spool, ab).
pub fn spool_step(
    m: &AircraftModel,
    spool: f64,
    ab: f64,
    throttle: f64,
    ab_cmd: bool,
    has_fuel: bool,
    dt: f64,
) -> (f64, f64) {
    let e = &m.engine;
    let target = if has_fuel {
        throttle.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let k = if e.spool_time_s > dt {
        dt / e.spool_time_s
    } else {
        1.0
    };
    let spool = spool + (target - spool) * k;
    let ab_target = if has_fuel && ab_cmd && e.ab.is_some() && spool >= AB_MIN_SPOOL {
        1.0
    } else {
        0.0
    };
    let kab = dt / AB_TIME_CONSTANT_S;
    let ab = (ab + (ab_target - ab) * kab).clamp(0.0, 1.0);
    (
        spool.clamp(0.0, 1.0),
        if ab < 1e-6 && ab_target == 0.0 {
            0.0
        } else {
            ab
        },
    )
}

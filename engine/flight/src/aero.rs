//! Aerodynamic coefficients as named terms, built from the model's tables.
//!
//! Owns: CL/CD (with wave, gear, speedbrake, flap, payload and sweep terms), side force and the
//! NACA moment build-up `Cm`, `Cl`, `Cn`. Every consumer — the integrator, the FBW limiter and the
//! trim behind `fm-trim` — calls these same functions, so the tool and the sim cannot disagree
//! about what the aircraft's aerodynamics are. Must not: know about world frames, gravity, ground
//! or state; it maps (angles, Mach, rates, surfaces) to dimensionless coefficients and nothing else.
//!
//! Sign conventions (NACA, body axes x forward, y right, z down):
//! - `alpha` > 0 nose above the air-relative velocity; `beta` > 0 air coming from the right.
//! - Surface angles are NACA deflections: elevator `de` > 0 trailing edge down (nose-down moment,
//!   `cm_de` < 0); rudder `dr` > 0 trailing edge left (nose-left, `cn_dr` < 0). The aileron is
//!   carried in the pack's normalised sense: `da` > 0 rolls right (`cl_da` > 0, magnitude as
//!   published) and `cn_da` is authored to match.
//! - Moment coefficients: `Cm` > 0 nose up, `Cl` > 0 right wing down, `Cn` > 0 nose right.

use crate::model::AircraftModel;
use std::f64::consts::FRAC_PI_2;

/// Configuration that changes the aerodynamics but is not an angle or a rate.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AeroConfig {
    /// Gear position, 0 up … 1 down.
    pub gear: f64,
    /// Speedbrake position, 0 … 1.
    pub speedbrake: f64,
    /// Flap position, 0 … 1.
    pub flaps: f64,
    /// Current wing sweep, deg (ignored without a `[wing_sweep]` block).
    pub sweep_deg: f64,
    /// Stores' zero-lift drag increment.
    pub payload_cd0: f64,
}

/// Lift and drag coefficients in wind axes, with the terms that make them up.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LiftDrag {
    /// Wing lift from the table (after sweep scaling and the beyond-table fade).
    pub cl_wing: f64,
    /// Lift from flaps and speedbrake.
    pub cl_devices: f64,
    /// Clean drag: the table, or `cd0 + k·CL²`.
    pub cd_clean: f64,
    /// Transonic/supersonic wave drag.
    pub cd_wave: f64,
    /// Gear, speedbrake and flap drag.
    pub cd_devices: f64,
    /// Stores.
    pub cd_payload: f64,
}

impl LiftDrag {
    /// Total lift coefficient.
    #[inline]
    pub fn cl(&self) -> f64 {
        self.cl_wing + self.cl_devices
    }
    /// Total drag coefficient.
    #[inline]
    pub fn cd(&self) -> f64 {
        self.cd_clean + self.cd_wave + self.cd_devices + self.cd_payload
    }
}

/// Flat-plate drag coefficient at 90° used beyond the authored alpha range.
const CD_FLAT_PLATE: f64 = 1.2;

/// Lift and drag coefficients at `alpha` (rad) and `mach`.
///
/// Inside the table's alpha range the tables are used as authored (bilinear, Mach clamped at the
/// edges). Beyond it — post-stall tumbling, tail slides — the edge lift fades linearly to zero at
/// ±90° and drag never falls below a flat plate's `1.2·sin²α`, so the model stays physical and
/// bounded everywhere instead of holding the 45° lift while falling flat.
pub fn lift_drag(m: &AircraftModel, alpha: f64, mach: f64, cfg: &AeroConfig) -> LiftDrag {
    let (cl_scale, k_scale, cd0_delta) = match &m.sweep {
        Some(s) => {
            let v = s.scales(cfg.sweep_deg);
            (v[0], v[1], v[2])
        }
        None => (1.0, 1.0, 0.0),
    };
    let a_tab = alpha.clamp(m.alpha_min, m.alpha_max);
    let fade = if alpha > m.alpha_max {
        ((FRAC_PI_2 - alpha) / (FRAC_PI_2 - m.alpha_max).max(1e-6)).clamp(0.0, 1.0)
    } else if alpha < m.alpha_min {
        ((alpha + FRAC_PI_2) / (m.alpha_min + FRAC_PI_2).max(1e-6)).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let cl_wing = m.cl.eval(a_tab, mach) * cl_scale * fade;
    let mut cd_clean = match &m.cd_table {
        Some(t) => t.eval(a_tab, mach) + cd0_delta,
        None => m.cd0 + cd0_delta + m.k * k_scale * cl_wing * cl_wing,
    };
    if fade < 1.0 {
        let s = crate::math::sin(alpha);
        cd_clean = cd_clean.max(CD_FLAT_PLATE * s * s);
    }
    let cd_wave = m.cd_wave.as_ref().map_or(0.0, |t| t.eval(mach));
    let (fl_cl, fl_cd) = m
        .flaps
        .map_or((0.0, 0.0), |f| (f.cl * cfg.flaps, f.cd * cfg.flaps));
    LiftDrag {
        cl_wing,
        cl_devices: m.speedbrake_cl * cfg.speedbrake + fl_cl,
        cd_clean,
        cd_wave,
        cd_devices: m.gear_cd * cfg.gear + m.speedbrake_cd * cfg.speedbrake + fl_cd,
        cd_payload: cfg.payload_cd0,
    }
}

/// Inputs of the moment build-up.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MomentInput {
    /// Angle of attack, rad.
    pub alpha: f64,
    /// Sideslip, rad.
    pub beta: f64,
    /// Non-dimensional roll rate `p·b/2V`.
    pub p_hat: f64,
    /// Non-dimensional pitch rate `q·c/2V`.
    pub q_hat: f64,
    /// Non-dimensional yaw rate `r·b/2V`.
    pub r_hat: f64,
    /// Elevator, NACA (rad, + trailing edge down).
    pub de: f64,
    /// Aileron, rad, + rolls right.
    pub da: f64,
    /// Rudder, NACA (rad, + trailing edge left).
    pub dr: f64,
    /// Speedbrake position.
    pub speedbrake: f64,
    /// Flap position.
    pub flaps: f64,
}

/// Moment coefficients as named terms.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[allow(missing_docs)]
pub struct MomentTerms {
    pub cm_static: f64,
    pub cm_damping: f64,
    pub cm_control: f64,
    pub cl_static: f64,
    pub cl_damping: f64,
    pub cl_control: f64,
    pub cn_static: f64,
    pub cn_damping: f64,
    pub cn_control: f64,
}

impl MomentTerms {
    /// Pitch (nose up +).
    #[inline]
    pub fn cm(&self) -> f64 {
        self.cm_static + self.cm_damping + self.cm_control
    }
    /// Roll (right wing down +).
    #[inline]
    pub fn cl(&self) -> f64 {
        self.cl_static + self.cl_damping + self.cl_control
    }
    /// Yaw (nose right +).
    #[inline]
    pub fn cn(&self) -> f64 {
        self.cn_static + self.cn_damping + self.cn_control
    }
}

/// The moment build-up.
pub fn moments(m: &AircraftModel, i: &MomentInput) -> MomentTerms {
    let flaps_cm = m.flaps.map_or(0.0, |f| f.cm * i.flaps);
    MomentTerms {
        cm_static: m.cm0 + m.cm_alpha * i.alpha + m.cm_speedbrake * i.speedbrake + flaps_cm,
        cm_damping: m.cm_q.eval(i.alpha) * i.q_hat,
        cm_control: m.cm_de * i.de,
        cl_static: m.cl_beta * i.beta,
        cl_damping: m.cl_p.eval(i.alpha) * i.p_hat,
        cl_control: m.cl_da * i.da + m.cl_dr * i.dr,
        cn_static: m.cn_beta * i.beta,
        cn_damping: m.cn_r.eval(i.alpha) * i.r_hat,
        cn_control: m.cn_dr * i.dr + m.cn_da * i.da,
    }
}

/// NACA elevator deflection for a normalised pitch command (+1 full aft stick = nose up).
#[inline]
pub fn elevator_from_command(m: &AircraftModel, pitch: f64) -> f64 {
    let p = pitch.clamp(-1.0, 1.0);
    // Nose-up needs trailing edge UP, i.e. negative NACA deflection.
    if p >= 0.0 {
        -p * m.elevator_up_rad
    } else {
        -p * m.elevator_down_rad
    }
}

/// Aileron deflection (+ rolls right) for a normalised roll command.
#[inline]
pub fn aileron_from_command(m: &AircraftModel, roll: f64) -> f64 {
    roll.clamp(-1.0, 1.0) * m.aileron_rad
}

/// NACA rudder deflection for a normalised yaw command (+1 right pedal = nose right).
#[inline]
pub fn rudder_from_command(m: &AircraftModel, yaw: f64) -> f64 {
    -yaw.clamp(-1.0, 1.0) * m.rudder_rad
}

//! The compiled aircraft: a [`FlightModelDef`] converted once into SI units, radians and lookup
//! tables ready for the integrator and the trim.
//!
//! Owns: unit conversion, derived constants (inverse inertia, gear springs), defaults that depend
//! on geometry. Must not: hold per-flight state (that is `state::AircraftState`), or reject
//! content (that is the parser's and the validator's job) — it only refuses values that would make
//! the maths meaningless (non-positive mass, singular inertia).

use crate::atmosphere::G0;
use crate::schema::{FlightModelDef, PropRotation, Table1DDef, Table2DDef};
use crate::table::{Table1D, Table2D};

const DEG: f64 = std::f64::consts::PI / 180.0;
/// Knots to metres per second.
pub const KT_TO_MPS: f64 = 0.514_444_444_444_444_5;

/// Why a definition cannot be simulated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}: `{key}`: {problem}")]
pub struct ModelError {
    /// Source file.
    pub file: String,
    /// Offending key.
    pub key: String,
    /// What is wrong.
    pub problem: String,
}

/// Inertia tensor in NACA body axes and its inverse.
#[derive(Debug, Clone, PartialEq)]
pub struct Inertia {
    /// Ixx, kg·m².
    pub ixx: f64,
    /// Iyy, kg·m².
    pub iyy: f64,
    /// Izz, kg·m².
    pub izz: f64,
    /// Ixz (tensor entry is −Ixz), kg·m².
    pub ixz: f64,
    det_xz: f64,
}

impl Inertia {
    /// `I·ω` for ω = (p, q, r).
    #[inline]
    pub fn apply(&self, w: [f64; 3]) -> [f64; 3] {
        [
            self.ixx * w[0] - self.ixz * w[2],
            self.iyy * w[1],
            -self.ixz * w[0] + self.izz * w[2],
        ]
    }
    /// `I⁻¹·m`.
    #[inline]
    pub fn solve(&self, m: [f64; 3]) -> [f64; 3] {
        [
            (self.izz * m[0] + self.ixz * m[2]) / self.det_xz,
            m[1] / self.iyy,
            (self.ixz * m[0] + self.ixx * m[2]) / self.det_xz,
        ]
    }
}

/// One landing-gear wheel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wheel {
    /// Contact point with the strut fully extended, NACA body axes from the CG, m.
    pub point: [f64; 3],
    /// Spring stiffness, N/m.
    pub k: f64,
    /// Damping, N·s/m.
    pub c: f64,
    /// True for the steerable nose wheel.
    pub steerable: bool,
    /// True for braked (main) wheels.
    pub braked: bool,
}

/// Gear and airframe ground geometry.
#[derive(Debug, Clone, PartialEq)]
pub struct GearModel {
    /// Nose, left main, right main.
    pub wheels: [Wheel; 3],
    /// Airframe points that must never touch the floor (belly, nose, tail, wingtips), body axes.
    pub hard_points: [[f64; 3]; 5],
    /// Gear extension/retraction time, s.
    pub transit_time_s: f64,
    /// Max nosewheel steering, rad.
    pub max_steer_rad: f64,
    /// Touchdown sink rate that breaks the gear, m/s.
    pub max_sink_rate_m_s: f64,
    /// Static strut deflection, m.
    pub static_deflection_m: f64,
    /// Largest distance of any contact point from the CG, m (for the airborne early-out).
    pub reach_m: f64,
}

/// Variable-sweep data.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepModel {
    /// Reference sweep, deg.
    pub ref_deg: f64,
    /// Forward stop, deg.
    pub min_deg: f64,
    /// Aft stop, deg.
    pub max_deg: f64,
    /// Slew, deg/s.
    pub rate_deg_s: f64,
    /// Auto schedule over Mach (deg); absent ⇒ hold reference.
    pub schedule: Option<Table1D>,
    /// (cl_scale, k_scale, cd0_delta) at min and max sweep.
    pub spread: [f64; 3],
    /// As `spread`, fully aft.
    pub swept: [f64; 3],
}

impl SweepModel {
    /// (cl_scale, k_scale, cd0_delta) at `sweep_deg`.
    #[inline]
    pub fn scales(&self, sweep_deg: f64) -> [f64; 3] {
        let span = self.max_deg - self.min_deg;
        let t = if span > 0.0 {
            ((sweep_deg - self.min_deg) / span).clamp(0.0, 1.0)
        } else {
            0.0
        };
        [
            self.spread[0] + (self.swept[0] - self.spread[0]) * t,
            self.spread[1] + (self.swept[1] - self.spread[1]) * t,
            self.spread[2] + (self.swept[2] - self.spread[2]) * t,
        ]
    }
    /// Scheduled sweep at a Mach, deg.
    pub fn scheduled(&self, mach: f64) -> f64 {
        match &self.schedule {
            Some(t) => t.eval(mach).clamp(self.min_deg, self.max_deg),
            None => self.ref_deg,
        }
    }
}

/// Engine decks in SI: rows Mach, columns altitude in metres, values in newtons.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineModel {
    /// Military thrust, N.
    pub mil: Table2D,
    /// Afterburner thrust, N.
    pub ab: Option<Table2D>,
    /// Idle thrust, N (absent ⇒ zero).
    pub idle: Option<Table2D>,
    /// Fuel flows, kg/s.
    pub ff_idle: f64,
    /// Military fuel flow, kg/s.
    pub ff_mil: f64,
    /// Afterburner fuel flow, kg/s.
    pub ff_ab: f64,
    /// Spool time constant, s.
    pub spool_time_s: f64,
}

/// Thrust vectoring.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TvcModel {
    /// Nozzle limits, rad.
    pub min_rad: f64,
    /// Nozzle limits, rad.
    pub max_rad: f64,
    /// Slew, rad/s.
    pub rate_rad_s: f64,
    /// Nozzle arm behind the CG, m.
    pub arm_m: f64,
}

/// Propeller reaction terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PropModel {
    /// +1 for counter-clockwise reaction roll (cw prop), −1 for ccw, 0 contra.
    pub sense: f64,
    /// Reaction roll per N of thrust, m.
    pub torque_factor: f64,
    /// Gyroscopic yaw per N per rad/s, m·s.
    pub gyro_factor: f64,
}

/// Flap increments.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlapsModel {
    /// ΔCL fully down.
    pub cl: f64,
    /// ΔCD fully down.
    pub cd: f64,
    /// ΔCm fully down.
    pub cm: f64,
    /// Travel time, s.
    pub transit_time_s: f64,
}

/// A flight model ready to simulate. Angles in radians, forces in newtons.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct AircraftModel {
    pub name: String,
    pub has_fbw: bool,
    pub empty_mass_kg: f64,
    pub max_fuel_kg: f64,
    pub wing_area_m2: f64,
    pub span_m: f64,
    pub mac_m: f64,
    pub inertia: Inertia,
    /// Engine rotor angular momentum along body +x, N·m·s.
    pub engine_h: f64,
    /// CL over (alpha rad, Mach).
    pub cl: Table2D,
    /// Total clean CD over (alpha rad, Mach), if tabulated.
    pub cd_table: Option<Table2D>,
    /// Alpha range of the lift table, rad.
    pub alpha_min: f64,
    pub alpha_max: f64,
    pub cd0: f64,
    pub k: f64,
    pub speedbrake_cd: f64,
    pub speedbrake_cl: f64,
    pub gear_cd: f64,
    pub cd_wave: Option<Table1D>,
    pub cm0: f64,
    pub cm_alpha: f64,
    pub cm_q: Table1D,
    pub cm_de: f64,
    pub cm_speedbrake: f64,
    pub cl_beta: f64,
    pub cl_p: Table1D,
    pub cl_da: f64,
    pub cl_dr: f64,
    pub cn_beta: f64,
    pub cn_r: Table1D,
    pub cn_dr: f64,
    pub cn_da: f64,
    pub cy_beta: f64,
    pub alpha_stall: f64,
    pub alpha_limit: Option<f64>,
    pub max_g: f64,
    pub min_g: f64,
    pub max_mach: f64,
    /// Placard as equivalent airspeed, m/s.
    pub max_eas_mps: Option<f64>,
    pub elevator_up_rad: f64,
    pub elevator_down_rad: f64,
    pub aileron_rad: f64,
    pub rudder_rad: f64,
    pub engine: EngineModel,
    pub sweep: Option<SweepModel>,
    pub tvc: Option<TvcModel>,
    pub prop: Option<PropModel>,
    pub flaps: Option<FlapsModel>,
    pub speedbrake_time_s: f64,
    pub gear: GearModel,
}

fn t1(d: &Table1DDef, xk: f64) -> Table1D {
    Table1D::new(d.xs.iter().map(|x| x * xk).collect(), d.values.clone())
}
fn t2(d: &Table2DDef, rk: f64, ck: f64, vk: f64) -> Table2D {
    Table2D::new(
        d.rows.iter().map(|x| x * rk).collect(),
        d.cols.iter().map(|x| x * ck).collect(),
        d.values.iter().map(|v| v * vk).collect(),
    )
}

impl AircraftModel {
    /// Compiles a parsed definition.
    pub fn from_def(d: &FlightModelDef) -> Result<Self, ModelError> {
        let err = |key: &str, problem: &str| ModelError {
            file: d.file.display().to_string(),
            key: key.into(),
            problem: problem.into(),
        };
        let m = &d.mass;
        for (key, v) in [
            ("flight_model.mass_kg", m.mass_kg),
            ("flight_model.wing_area_m2", m.wing_area_m2),
            ("flight_model.wingspan_m", m.wingspan_m),
            ("flight_model.mac_m", m.mac_m),
            ("flight_model.ixx_kg_m2", m.ixx_kg_m2),
            ("flight_model.iyy_kg_m2", m.iyy_kg_m2),
            ("flight_model.izz_kg_m2", m.izz_kg_m2),
        ] {
            if v <= 0.0 {
                return Err(err(key, "must be positive to simulate"));
            }
        }
        if m.fuel_kg < 0.0 {
            return Err(err("flight_model.fuel_kg", "must not be negative"));
        }
        let det_xz = m.ixx_kg_m2 * m.izz_kg_m2 - m.ixz_kg_m2 * m.ixz_kg_m2;
        if det_xz <= 0.0 {
            return Err(err(
                "flight_model.ixz_kg_m2",
                "Ixz² must be below Ixx·Izz (the tensor is singular otherwise)",
            ));
        }
        let cl = t2(&d.cl_table, DEG, 1.0, 1.0);
        let alpha_min = d.cl_table.rows[0] * DEG;
        let alpha_max = d.cl_table.rows[d.cl_table.rows.len() - 1] * DEG;
        let mo = &d.moments;
        let damper = |t: &Option<Table1DDef>, scalar: f64| match t {
            Some(t) => t1(t, DEG),
            None => Table1D::constant(scalar),
        };
        let e = &d.engine;
        let deck = |t: &Table2DDef| t2(t, 1.0, 1000.0, 1000.0);
        let c = &d.controls;
        let mac = m.mac_m;
        let g = &d.gear;
        let nose_x = g.nose_x_m.unwrap_or(1.3 * mac).max(0.1);
        let main_x = g.main_x_m.unwrap_or(0.25 * mac).max(0.05);
        let track = g.main_track_m.unwrap_or(0.3 * m.wingspan_m).max(0.2);
        let cg_h = g.cg_height_m.unwrap_or(0.5 * mac).max(0.3);
        let s0 = 0.12;
        let w_ref = (m.mass_kg + m.fuel_kg) * G0;
        let f_nose = main_x / (nose_x + main_x);
        let mk = |share: f64, point: [f64; 3], steerable: bool, braked: bool| {
            let k = share * w_ref / s0;
            let mass_share = share * (m.mass_kg + m.fuel_kg);
            Wheel {
                point,
                k,
                c: 2.0 * 0.8 * (k * mass_share).sqrt(),
                steerable,
                braked,
            }
        };
        let z_ext = cg_h + s0;
        let gear = GearModel {
            wheels: [
                mk(f_nose, [nose_x, 0.0, z_ext], true, false),
                mk(
                    0.5 * (1.0 - f_nose),
                    [-main_x, -0.5 * track, z_ext],
                    false,
                    true,
                ),
                mk(
                    0.5 * (1.0 - f_nose),
                    [-main_x, 0.5 * track, z_ext],
                    false,
                    true,
                ),
            ],
            hard_points: [
                [0.0, 0.0, 0.45 * cg_h],
                [1.9 * mac, 0.0, 0.3 * cg_h],
                [-2.2 * mac, 0.0, 0.25 * cg_h],
                [0.0, -0.5 * m.wingspan_m, 0.15 * cg_h],
                [0.0, 0.5 * m.wingspan_m, 0.15 * cg_h],
            ],
            transit_time_s: g.transit_time_s.max(0.0),
            max_steer_rad: g.max_steer_deg * DEG,
            max_sink_rate_m_s: g.max_sink_rate_m_s,
            static_deflection_m: s0,
            reach_m: 0.0,
        };
        let mut gear = gear;
        let norm = |p: &[f64; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        gear.reach_m = gear
            .wheels
            .iter()
            .map(|w| norm(&w.point))
            .chain(gear.hard_points.iter().map(norm))
            .fold(0.0, f64::max);
        Ok(AircraftModel {
            name: d.aircraft.name.clone(),
            has_fbw: d.aircraft.has_fbw,
            empty_mass_kg: m.mass_kg,
            max_fuel_kg: m.fuel_kg,
            wing_area_m2: m.wing_area_m2,
            span_m: m.wingspan_m,
            mac_m: mac,
            inertia: Inertia {
                ixx: m.ixx_kg_m2,
                iyy: m.iyy_kg_m2,
                izz: m.izz_kg_m2,
                ixz: m.ixz_kg_m2,
                det_xz,
            },
            engine_h: m.engine_ang_momentum,
            cl,
            cd_table: d.cd_table.as_ref().map(|t| t2(t, DEG, 1.0, 1.0)),
            alpha_min,
            alpha_max,
            cd0: d.drag_polar.cd0,
            k: d.drag_polar.k,
            speedbrake_cd: d.drag_polar.speedbrake_cd,
            speedbrake_cl: d.drag_polar.speedbrake_cl,
            gear_cd: d.drag_polar.gear_cd,
            cd_wave: d.cd_wave.as_ref().map(|t| t1(t, 1.0)),
            cm0: mo.cm0,
            cm_alpha: mo.cm_alpha,
            cm_q: damper(&mo.cm_q_table, mo.cm_q),
            cm_de: mo.cm_de,
            cm_speedbrake: mo.cm_speedbrake,
            cl_beta: mo.cl_beta,
            cl_p: damper(&mo.cl_p_table, mo.cl_p),
            cl_da: mo.cl_da,
            cl_dr: mo.cl_dr,
            cn_beta: mo.cn_beta,
            cn_r: damper(&mo.cn_r_table, mo.cn_r),
            cn_dr: mo.cn_dr,
            cn_da: mo.cn_da,
            cy_beta: mo.cy_beta,
            alpha_stall: d.limits.alpha_stall_deg * DEG,
            alpha_limit: d.limits.alpha_limit_deg.map(|a| a * DEG),
            max_g: d.limits.max_g_structural,
            min_g: d.limits.min_g_structural,
            max_mach: d.limits.max_mach,
            max_eas_mps: d.limits.max_keas.map(|k| k * KT_TO_MPS),
            elevator_up_rad: c.max_elevator_deg.abs() * DEG,
            elevator_down_rad: c.max_elevator_neg_deg.unwrap_or(c.max_elevator_deg).abs() * DEG,
            aileron_rad: c.max_aileron_deg.abs() * DEG,
            rudder_rad: c.max_rudder_deg.abs() * DEG,
            engine: EngineModel {
                mil: deck(&e.mil_thrust),
                ab: e.ab_thrust.as_ref().map(deck),
                idle: e.idle_thrust.as_ref().map(deck),
                ff_idle: e.fuel_flow_idle_kg_s.max(0.0),
                ff_mil: e.fuel_flow_mil_kg_s.max(0.0),
                ff_ab: e.fuel_flow_ab_kg_s.max(0.0),
                spool_time_s: e.spool_time_s.max(0.0),
            },
            sweep: d.wing_sweep.as_ref().map(|w| SweepModel {
                ref_deg: w.ref_sweep_deg,
                min_deg: w.min_deg,
                max_deg: w.max_deg,
                rate_deg_s: w.slew_rate_deg_s.abs(),
                schedule: w.schedule.as_ref().map(|s| t1(s, 1.0)),
                spread: [w.spread.cl_scale, w.spread.k_scale, w.spread.cd0_delta],
                swept: [w.swept.cl_scale, w.swept.k_scale, w.swept.cd0_delta],
            }),
            tvc: d.tvc.as_ref().map(|t| TvcModel {
                min_rad: t.min_angle_deg.min(t.max_angle_deg) * DEG,
                max_rad: t.max_angle_deg.max(t.min_angle_deg) * DEG,
                rate_rad_s: t.slew_rate_deg_s.abs() * DEG,
                arm_m: t.arm_m.unwrap_or(mac),
            }),
            prop: d.prop.as_ref().map(|p| PropModel {
                sense: match p.rotation {
                    PropRotation::Cw => 1.0,
                    PropRotation::Ccw => -1.0,
                    PropRotation::Contra => 0.0,
                },
                torque_factor: p.torque_factor,
                gyro_factor: p.gyro_factor,
            }),
            flaps: d.flaps.as_ref().map(|f| FlapsModel {
                cl: f.cl_delta,
                cd: f.cd_delta,
                cm: f.cm_delta,
                transit_time_s: f.transit_time_s.max(0.0),
            }),
            speedbrake_time_s: d.speedbrake.transit_time_s.max(0.0),
            gear,
        })
    }

    /// Total mass for a fuel load and payload, kg.
    #[inline]
    pub fn mass(&self, fuel_kg: f64, payload_kg: f64) -> f64 {
        self.empty_mass_kg + fuel_kg.max(0.0) + payload_kg.max(0.0)
    }

    /// True when the model has an afterburner deck.
    pub fn has_afterburner(&self) -> bool {
        self.engine.ab.is_some()
    }
}

//! The authored flight-model schema: the data a pack's `aircraft/<name>/<name>.toml` carries, in the
//! units the file uses (degrees, kN, kg), plus the parser that reads it.
//!
//! Owns: the typed mirror of the TOML, defaults for optional keys, and parse errors/warnings with
//! file, key and line. Must not: convert units or precompute anything for the integrator (that is
//! `model`), or accept a structurally broken table.

mod parse;

pub use parse::{MAX_FILE_BYTES, parse_flight_model, read_flight_model};

/// Reading helpers shared with the expectation-file parser.
pub(crate) mod parse_support {
    pub(crate) use super::parse::{Ctx, Tbl, read_capped};
}

use std::fmt;
use std::path::PathBuf;

/// A schema problem that stops a file from loading.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The file could not be read.
    #[error("{file}: cannot read file")]
    Io {
        /// The file.
        file: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than any flight model has reason to be.
    #[error("{file}: file is {size} bytes; flight-model files are limited to {limit} bytes")]
    TooLarge {
        /// The file.
        file: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The text is not valid TOML.
    #[error("{file}:{line}: TOML syntax error: {message}")]
    Syntax {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A key is missing, has the wrong type, or holds a value the schema cannot accept.
    #[error("{file}:{line}: `{key}`: {problem}")]
    Invalid {
        /// The file.
        file: PathBuf,
        /// Dotted key path, e.g. `aero.cl_table.values`.
        key: String,
        /// 1-based line of the key (or of its table when the key is missing).
        line: usize,
        /// What is wrong.
        problem: String,
    },
}

/// A non-fatal finding: an unknown key (packs evolve) or a deprecated construct.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaWarning {
    /// The file.
    pub file: PathBuf,
    /// Dotted key path.
    pub key: String,
    /// 1-based line.
    pub line: usize,
    /// What was noticed.
    pub message: String,
}

impl fmt::Display for SchemaWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: `{}`: {}",
            self.file.display(),
            self.line,
            self.key,
            self.message
        )
    }
}

/// A parsed flight model and the warnings found while reading it.
#[derive(Debug, Clone)]
pub struct Parsed<T> {
    /// The value.
    pub value: T,
    /// Unknown keys and similar findings.
    pub warnings: Vec<SchemaWarning>,
}

/// Where a value came from, for validator messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Line(pub usize);

/// A 2-D table as authored: `rows` × `cols` with row-major `values`.
#[derive(Debug, Clone, PartialEq)]
pub struct Table2DDef {
    /// Row breakpoints (alpha in degrees, or Mach for thrust decks).
    pub rows: Vec<f64>,
    /// Column breakpoints (Mach, or altitude in km for thrust decks).
    pub cols: Vec<f64>,
    /// Row-major values.
    pub values: Vec<f64>,
    /// Line of the table header.
    pub line: Line,
}

/// A 1-D table as authored.
#[derive(Debug, Clone, PartialEq)]
pub struct Table1DDef {
    /// Breakpoints.
    pub xs: Vec<f64>,
    /// Values.
    pub values: Vec<f64>,
    /// Line of the table header.
    pub line: Line,
}

/// `[aircraft]`.
#[derive(Debug, Clone, PartialEq)]
pub struct AircraftMeta {
    /// Display name.
    pub name: String,
    /// Role (`fighter`, `trainer`, `bomber`, ...).
    pub role: String,
    /// `turbojet`, `turbofan`, `turboprop` or `piston`.
    pub engine_type: String,
    /// Fly-by-wire: enables the g and AoA limiter.
    pub has_fbw: bool,
    /// AI cruise altitude, m.
    pub cruise_alt_m: Option<f64>,
    /// Legacy mesh stem (ignored by the simulation).
    pub mesh: Option<String>,
    /// Legacy cockpit stem (ignored by the simulation).
    pub cockpit: Option<String>,
}

/// `[flight_model]`: mass, geometry and inertia.
#[derive(Debug, Clone, PartialEq)]
pub struct MassGeometry {
    /// Empty (no fuel) mass, kg.
    pub mass_kg: f64,
    /// Maximum internal fuel, kg.
    pub fuel_kg: f64,
    /// Reference wing area, m².
    pub wing_area_m2: f64,
    /// Span, m (roll/yaw reference length).
    pub wingspan_m: f64,
    /// Mean aerodynamic chord, m (pitch reference length).
    pub mac_m: f64,
    /// Roll inertia, kg·m².
    pub ixx_kg_m2: f64,
    /// Pitch inertia, kg·m².
    pub iyy_kg_m2: f64,
    /// Yaw inertia, kg·m².
    pub izz_kg_m2: f64,
    /// Roll–yaw product of inertia, kg·m² (NACA body axes, `I = [[Ixx,0,-Ixz],[0,Iyy,0],[-Ixz,0,Izz]]`).
    pub ixz_kg_m2: f64,
    /// Engine rotor angular momentum about body +x, N·m·s.
    pub engine_ang_momentum: f64,
}

/// `[aero.drag_polar]`.
#[derive(Debug, Clone, PartialEq)]
pub struct DragPolar {
    /// Zero-lift drag (superseded by `cd_table` when present).
    pub cd0: f64,
    /// Induced-drag factor (must be 0 with a `cd_table`).
    pub k: f64,
    /// Drag increment, speedbrake fully out.
    pub speedbrake_cd: f64,
    /// Drag increment, gear fully down.
    pub gear_cd: f64,
    /// Lift increment, speedbrake fully out.
    pub speedbrake_cl: f64,
}

/// `[aero.moments]`: NACA-convention derivatives, per radian.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct Moments {
    pub cm_alpha: f64,
    pub cm_q: f64,
    pub cm_de: f64,
    pub cl_beta: f64,
    pub cl_p: f64,
    pub cl_da: f64,
    pub cn_beta: f64,
    pub cn_r: f64,
    pub cn_dr: f64,
    pub cm0: f64,
    pub cn_da: f64,
    pub cl_dr: f64,
    pub cm_speedbrake: f64,
    /// Side-force slope, per radian (our extension; 0 when absent, as in the original engine).
    pub cy_beta: f64,
    /// Alpha-dependent pitch damping, overriding `cm_q`.
    pub cm_q_table: Option<Table1DDef>,
    /// Alpha-dependent roll damping, overriding `cl_p`.
    pub cl_p_table: Option<Table1DDef>,
    /// Alpha-dependent yaw damping, overriding `cn_r`.
    pub cn_r_table: Option<Table1DDef>,
}

/// `[aero.limits]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Aerodynamic stall AoA, deg.
    pub alpha_stall_deg: f64,
    /// FBW AoA cap, deg (0/absent = none).
    pub alpha_limit_deg: Option<f64>,
    /// Positive structural limit, g.
    pub max_g_structural: f64,
    /// Negative structural limit, g (negative number).
    pub min_g_structural: f64,
    /// Never-exceed Mach.
    pub max_mach: f64,
    /// Dynamic-pressure placard, knots equivalent airspeed.
    pub max_keas: Option<f64>,
}

/// `[aero.controls]`: surface travel, degrees.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlLimits {
    /// Nose-up travel.
    pub max_elevator_deg: f64,
    /// Nose-down travel (absent ⇒ symmetric).
    pub max_elevator_neg_deg: Option<f64>,
    /// Aileron travel either way.
    pub max_aileron_deg: f64,
    /// Rudder travel either way.
    pub max_rudder_deg: f64,
}

/// `[engine]` and its thrust decks (kN over Mach rows × altitude-km columns).
#[derive(Debug, Clone, PartialEq)]
pub struct EngineDef {
    /// Idle fuel flow, kg/s.
    pub fuel_flow_idle_kg_s: f64,
    /// Military-power fuel flow, kg/s.
    pub fuel_flow_mil_kg_s: f64,
    /// Full-afterburner fuel flow, kg/s.
    pub fuel_flow_ab_kg_s: f64,
    /// First-order spool time constant, s.
    pub spool_time_s: f64,
    /// Military thrust deck.
    pub mil_thrust: Table2DDef,
    /// Afterburner thrust deck.
    pub ab_thrust: Option<Table2DDef>,
    /// Idle thrust deck.
    pub idle_thrust: Option<Table2DDef>,
}

/// One end of the wing-sweep range.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepScales {
    /// Lift multiplier.
    pub cl_scale: f64,
    /// Induced-drag multiplier.
    pub k_scale: f64,
    /// Zero-lift drag increment.
    pub cd0_delta: f64,
}

/// `[wing_sweep]`.
#[derive(Debug, Clone, PartialEq)]
pub struct WingSweepDef {
    /// Sweep at which the base tables were measured, deg.
    pub ref_sweep_deg: f64,
    /// Fully forward, deg.
    pub min_deg: f64,
    /// Fully aft, deg.
    pub max_deg: f64,
    /// Actuator rate, deg/s.
    pub slew_rate_deg_s: f64,
    /// Automatic schedule: sweep (deg) over Mach.
    pub schedule: Option<Table1DDef>,
    /// Scales at `min_deg`.
    pub spread: SweepScales,
    /// Scales at `max_deg`.
    pub swept: SweepScales,
}

/// `[aero.tvc]`: pitch thrust vectoring.
#[derive(Debug, Clone, PartialEq)]
pub struct TvcDef {
    /// Most nose-down nozzle angle, deg (negative).
    pub min_angle_deg: f64,
    /// Most nose-up nozzle angle, deg.
    pub max_angle_deg: f64,
    /// Nozzle slew rate, deg/s.
    pub slew_rate_deg_s: f64,
    /// Nozzle distance behind the CG, m (our extension; default = MAC).
    pub arm_m: Option<f64>,
}

/// Propeller rotation sense.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropRotation {
    /// Clockwise seen from behind.
    Cw,
    /// Counter-clockwise seen from behind.
    Ccw,
    /// Contra-rotating (no net torque).
    Contra,
}

/// `[prop]`.
#[derive(Debug, Clone, PartialEq)]
pub struct PropDef {
    /// Rotation sense.
    pub rotation: PropRotation,
    /// Reaction roll moment per newton of thrust, m.
    pub torque_factor: f64,
    /// Gyroscopic yaw per newton of thrust per rad/s of pitch rate, m·s.
    pub gyro_factor: f64,
}

/// `[gear]` (our extension; every field has a default scaled from the aircraft's geometry).
#[derive(Debug, Clone, PartialEq)]
pub struct GearDef {
    /// Nose wheel distance ahead of the CG, m.
    pub nose_x_m: Option<f64>,
    /// Main wheels distance behind the CG, m.
    pub main_x_m: Option<f64>,
    /// Main track (distance between main wheels), m.
    pub main_track_m: Option<f64>,
    /// CG height above the ground with struts at static deflection, m.
    pub cg_height_m: Option<f64>,
    /// Time to extend or retract, s.
    pub transit_time_s: f64,
    /// Max nosewheel steering angle, deg.
    pub max_steer_deg: f64,
    /// Sink rate above which a touchdown breaks the gear, m/s.
    pub max_sink_rate_m_s: f64,
}

impl Default for GearDef {
    fn default() -> Self {
        Self {
            nose_x_m: None,
            main_x_m: None,
            main_track_m: None,
            cg_height_m: None,
            transit_time_s: 6.0,
            max_steer_deg: 30.0,
            max_sink_rate_m_s: 4.5,
        }
    }
}

/// `[flaps]` (our extension).
#[derive(Debug, Clone, PartialEq)]
pub struct FlapsDef {
    /// Lift increment fully down.
    pub cl_delta: f64,
    /// Drag increment fully down.
    pub cd_delta: f64,
    /// Pitch increment fully down.
    pub cm_delta: f64,
    /// Time to travel fully, s.
    pub transit_time_s: f64,
}

/// `[speedbrake]` (our extension).
#[derive(Debug, Clone, PartialEq)]
pub struct SpeedbrakeDef {
    /// Time to travel fully, s.
    pub transit_time_s: f64,
}

impl Default for SpeedbrakeDef {
    fn default() -> Self {
        Self {
            transit_time_s: 1.5,
        }
    }
}

/// Blocks the engine parses and stores without simulating (refueling, tanker, carrier).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Passive {
    /// `[refueling].type`.
    pub refueling_type: Option<String>,
    /// `[refueling].max_rate_kg_s`.
    pub refueling_max_rate_kg_s: Option<f64>,
    /// `[tanker]` present.
    pub tanker: bool,
    /// `[carrier]` present.
    pub carrier: bool,
}

/// A whole flight-model file.
#[derive(Debug, Clone, PartialEq)]
pub struct FlightModelDef {
    /// Source file (for messages).
    pub file: PathBuf,
    /// `[aircraft]`.
    pub aircraft: AircraftMeta,
    /// `[flight_model]`.
    pub mass: MassGeometry,
    /// `[aero.cl_table]`: CL over alpha (deg) rows × Mach columns.
    pub cl_table: Table2DDef,
    /// `[aero.cd_table]`: total clean CD over alpha × Mach.
    pub cd_table: Option<Table2DDef>,
    /// `[aero.drag_polar]`.
    pub drag_polar: DragPolar,
    /// `[aero.cd_wave]`: over Mach.
    pub cd_wave: Option<Table1DDef>,
    /// `[aero.moments]`.
    pub moments: Moments,
    /// `[aero.limits]`.
    pub limits: Limits,
    /// `[aero.controls]`.
    pub controls: ControlLimits,
    /// `[engine]`.
    pub engine: EngineDef,
    /// `[wing_sweep]`.
    pub wing_sweep: Option<WingSweepDef>,
    /// `[aero.tvc]`.
    pub tvc: Option<TvcDef>,
    /// `[prop]`.
    pub prop: Option<PropDef>,
    /// `[gear]`.
    pub gear: GearDef,
    /// `[flaps]`.
    pub flaps: Option<FlapsDef>,
    /// `[speedbrake]`.
    pub speedbrake: SpeedbrakeDef,
    /// Parsed-but-inert blocks.
    pub passive: Passive,
    /// Line numbers of scalar keys, for validator messages (dotted key → line).
    pub key_lines: Vec<(String, usize)>,
}

impl FlightModelDef {
    /// The line a dotted key was authored on (1 when unknown).
    pub fn line_of(&self, key: &str) -> usize {
        self.key_lines
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, l)| *l)
            .unwrap_or(1)
    }
}

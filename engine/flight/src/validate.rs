//! Structural and physical checks on a parsed flight model, in the spirit of the pack's
//! `flight-model-validate` CI job: ranges, signs, table shapes, stability derivatives, and the
//! consistency rules the schema documents (a `cd_table` requires `k = 0`; the lift table peaks at
//! the declared stall).
//!
//! Owns: the list of checks and their severity. Must not: stop at the first finding (authors want
//! the whole list), or change the model.

use crate::schema::{FlightModelDef, Table1DDef, Table2DDef};

pub use fl_toml::{Finding, Severity};

/// How far (deg) the lift table's peak may sit from `alpha_stall_deg`.
pub const STALL_PEAK_TOLERANCE_DEG: f64 = 2.0;

struct Out<'a> {
    d: &'a FlightModelDef,
    v: Vec<Finding>,
}

impl Out<'_> {
    fn push(&mut self, severity: Severity, key: &str, line: Option<usize>, message: String) {
        let line = line.unwrap_or_else(|| self.d.line_of(key));
        self.v.push(Finding {
            severity,
            file: self.d.file.clone(),
            line,
            key: key.into(),
            message,
        });
    }
    fn err(&mut self, key: &str, message: impl Into<String>) {
        self.push(Severity::Error, key, None, message.into());
    }
    fn warn(&mut self, key: &str, message: impl Into<String>) {
        self.push(Severity::Warning, key, None, message.into());
    }
    fn err_at(&mut self, key: &str, line: usize, message: impl Into<String>) {
        self.push(Severity::Error, key, Some(line), message.into());
    }
    fn warn_at(&mut self, key: &str, line: usize, message: impl Into<String>) {
        self.push(Severity::Warning, key, Some(line), message.into());
    }
    fn positive(&mut self, key: &str, v: f64) {
        if v <= 0.0 {
            self.err(key, format!("must be positive, is {v}"));
        }
    }
    fn sign(&mut self, key: &str, v: f64, negative: bool, why: &str) {
        if (negative && v >= 0.0) || (!negative && v <= 0.0) {
            self.err(
                key,
                format!(
                    "must be {} ({why}), is {v}",
                    if negative { "negative" } else { "positive" }
                ),
            );
        }
    }
}

fn check_damper(o: &mut Out<'_>, key: &str, t: &Option<Table1DDef>) {
    if let Some(t) = t
        && let Some((i, v)) = t.values.iter().enumerate().find(|(_, v)| **v >= 0.0)
    {
        o.err_at(
            &format!("{key}.values"),
            t.line.0,
            format!("entry {i} is {v}: a damping derivative must be negative at every alpha"),
        );
    }
}

fn nonneg_2d(o: &mut Out<'_>, key: &str, t: &Table2DDef, strictly: bool) {
    if let Some((i, v)) = t
        .values
        .iter()
        .enumerate()
        .find(|(_, v)| if strictly { **v <= 0.0 } else { **v < 0.0 })
    {
        o.err_at(
            &format!("{key}.values"),
            t.line.0,
            format!(
                "entry {i} is {v}; every value must be {}",
                if strictly { "positive" } else { "non-negative" }
            ),
        );
    }
}

/// Runs every check.
pub fn validate(d: &FlightModelDef) -> Vec<Finding> {
    let mut o = Out { d, v: Vec::new() };
    let m = &d.mass;
    o.positive("flight_model.mass_kg", m.mass_kg);
    if m.fuel_kg < 0.0 {
        o.err(
            "flight_model.fuel_kg",
            format!("must not be negative, is {}", m.fuel_kg),
        );
    }
    for (k, v) in [
        ("flight_model.wing_area_m2", m.wing_area_m2),
        ("flight_model.wingspan_m", m.wingspan_m),
        ("flight_model.mac_m", m.mac_m),
        ("flight_model.ixx_kg_m2", m.ixx_kg_m2),
        ("flight_model.iyy_kg_m2", m.iyy_kg_m2),
        ("flight_model.izz_kg_m2", m.izz_kg_m2),
    ] {
        o.positive(k, v);
    }
    if m.ixz_kg_m2 * m.ixz_kg_m2 >= m.ixx_kg_m2 * m.izz_kg_m2 {
        o.err(
            "flight_model.ixz_kg_m2",
            "Ixz² must be below Ixx·Izz (the inertia tensor is not positive definite)",
        );
    }
    if m.mac_m > m.wingspan_m && m.wingspan_m > 0.0 {
        o.warn(
            "flight_model.mac_m",
            "mean aerodynamic chord exceeds the span",
        );
    }
    if d.aircraft.role == "fighter" && m.wing_area_m2 > 0.0 {
        let wl = (m.mass_kg + m.fuel_kg) / m.wing_area_m2;
        if !(150.0..=800.0).contains(&wl) {
            o.warn(
                "flight_model.mass_kg",
                format!(
                    "wing loading {wl:.0} kg/m² is outside the fighter band 150–800 (a unit slip?)"
                ),
            );
        }
    }

    // Lift.
    let cl = &d.cl_table;
    if cl.rows.len() < 4 {
        o.err_at(
            "aero.cl_table.alpha",
            cl.line.0,
            format!("needs at least 4 alpha breakpoints, has {}", cl.rows.len()),
        );
    }
    if cl.cols.len() < 2 {
        o.warn_at(
            "aero.cl_table.mach",
            cl.line.0,
            "a single Mach column gives no compressibility",
        );
    }
    let ncol = cl.cols.len();
    let (mut peak_i, mut peak) = (0usize, f64::NEG_INFINITY);
    for (i, _) in cl.rows.iter().enumerate() {
        let v = cl.values[i * ncol];
        if v > peak {
            peak = v;
            peak_i = i;
        }
    }
    let peak_alpha = cl.rows[peak_i];
    if (peak_alpha - d.limits.alpha_stall_deg).abs() > STALL_PEAK_TOLERANCE_DEG {
        o.err(
            "aero.limits.alpha_stall_deg",
            format!(
                "is {} but the cl_table (Mach {} column) peaks at alpha {} — the table is the stall, they must agree within {} deg",
                d.limits.alpha_stall_deg, cl.cols[0], peak_alpha, STALL_PEAK_TOLERANCE_DEG
            ),
        );
    }
    if cl.rows.iter().all(|a| *a > 0.0) || cl.rows.iter().all(|a| *a < 0.0) {
        o.warn_at(
            "aero.cl_table.alpha",
            cl.line.0,
            "alpha range does not include 0 deg",
        );
    }

    // Drag.
    let dp = &d.drag_polar;
    if d.cd_table.is_some() && dp.k != 0.0 {
        o.err("aero.drag_polar.k", format!("is {} but a cd_table is authored: the table is total clean drag and k must be 0.0 (otherwise induced drag is counted twice)", dp.k));
    }
    if let Some(t) = &d.cd_table {
        nonneg_2d(&mut o, "aero.cd_table", t, true);
        if t.rows.len() < 4 {
            o.err_at(
                "aero.cd_table.alpha",
                t.line.0,
                "needs at least 4 alpha breakpoints",
            );
        }
    } else {
        o.positive("aero.drag_polar.cd0", dp.cd0);
        if dp.k < 0.0 {
            o.err("aero.drag_polar.k", "must not be negative");
        }
    }
    for (k, v) in [
        ("aero.drag_polar.speedbrake_cd", dp.speedbrake_cd),
        ("aero.drag_polar.gear_cd", dp.gear_cd),
    ] {
        if v < 0.0 {
            o.err(k, format!("must not be negative, is {v}"));
        }
    }
    if let Some(w) = &d.cd_wave {
        if let Some((i, v)) = w.values.iter().enumerate().find(|(_, v)| **v < 0.0) {
            o.err_at(
                "aero.cd_wave.values",
                w.line.0,
                format!("entry {i} is {v}; wave drag cannot be negative"),
            );
        }
        if let Some(x) = w.xs.first()
            && *x < 0.0
        {
            o.err_at(
                "aero.cd_wave.mach",
                w.line.0,
                "Mach breakpoints must not be negative",
            );
        }
    }

    // Moments: NACA signs.
    let mo = &d.moments;
    o.sign(
        "aero.moments.cm_alpha",
        mo.cm_alpha,
        true,
        "statically stable in pitch",
    );
    o.sign("aero.moments.cm_q", mo.cm_q, true, "pitch damping");
    o.sign(
        "aero.moments.cm_de",
        mo.cm_de,
        true,
        "NACA: trailing-edge-down elevator pitches the nose down",
    );
    o.sign("aero.moments.cl_p", mo.cl_p, true, "roll damping");
    o.sign(
        "aero.moments.cl_da",
        mo.cl_da,
        false,
        "positive aileron rolls right",
    );
    o.sign(
        "aero.moments.cn_beta",
        mo.cn_beta,
        false,
        "weathercock stability",
    );
    o.sign("aero.moments.cn_r", mo.cn_r, true, "yaw damping");
    o.sign(
        "aero.moments.cn_dr",
        mo.cn_dr,
        true,
        "NACA: trailing-edge-left rudder yaws the nose left",
    );
    if mo.cl_beta > 0.0 {
        o.warn(
            "aero.moments.cl_beta",
            format!(
                "is {} (anhedral effect); conventional aircraft have cl_beta < 0",
                mo.cl_beta
            ),
        );
    }
    if mo.cy_beta > 0.0 {
        o.err(
            "aero.moments.cy_beta",
            "side force must oppose sideslip (cy_beta < 0)",
        );
    }
    check_damper(&mut o, "aero.moments.cm_q_table", &mo.cm_q_table);
    check_damper(&mut o, "aero.moments.cl_p_table", &mo.cl_p_table);
    check_damper(&mut o, "aero.moments.cn_r_table", &mo.cn_r_table);
    // Dynamic check: the short-period stiffness must survive the damping (cm_alpha < 0 already), and
    // the Dutch roll needs cn_beta to outweigh... a negative cn_beta is caught above.

    // Limits.
    let l = &d.limits;
    o.positive("aero.limits.alpha_stall_deg", l.alpha_stall_deg);
    o.positive("aero.limits.max_g_structural", l.max_g_structural);
    o.sign(
        "aero.limits.min_g_structural",
        l.min_g_structural,
        true,
        "negative-g limit",
    );
    o.positive("aero.limits.max_mach", l.max_mach);
    if let Some(a) = l.alpha_limit_deg {
        if a >= l.alpha_stall_deg {
            o.warn(
                "aero.limits.alpha_limit_deg",
                format!(
                    "{a} deg is not below alpha_stall_deg {}; the cap never binds",
                    l.alpha_stall_deg
                ),
            );
        }
        if !d.aircraft.has_fbw {
            o.warn(
                "aero.limits.alpha_limit_deg",
                "declared on an aircraft without has_fbw; only FBW aircraft enforce it",
            );
        }
    }
    if let Some(k) = l.max_keas
        && k <= 0.0
    {
        o.err("aero.limits.max_keas", "must be positive");
    }

    // Controls.
    let c = &d.controls;
    o.positive("aero.controls.max_elevator_deg", c.max_elevator_deg);
    o.positive("aero.controls.max_aileron_deg", c.max_aileron_deg);
    o.positive("aero.controls.max_rudder_deg", c.max_rudder_deg);
    if let Some(n) = c.max_elevator_neg_deg {
        if n < 0.0 {
            o.err(
                "aero.controls.max_elevator_neg_deg",
                "is a travel magnitude and must not be negative",
            );
        } else if n > c.max_elevator_deg {
            o.warn(
                "aero.controls.max_elevator_neg_deg",
                "nose-down travel exceeds nose-up travel (a transcription slip?)",
            );
        }
    }
    for (k, v) in [
        ("aero.controls.max_elevator_deg", c.max_elevator_deg),
        ("aero.controls.max_aileron_deg", c.max_aileron_deg),
        ("aero.controls.max_rudder_deg", c.max_rudder_deg),
    ] {
        if v > 90.0 {
            o.err(k, format!("{v} deg is beyond any real surface travel"));
        }
    }

    // Engine.
    let e = &d.engine;
    for (k, v) in [
        ("engine.fuel_flow_idle_kg_s", e.fuel_flow_idle_kg_s),
        ("engine.fuel_flow_mil_kg_s", e.fuel_flow_mil_kg_s),
        ("engine.fuel_flow_ab_kg_s", e.fuel_flow_ab_kg_s),
        ("engine.spool_time_s", e.spool_time_s),
    ] {
        if v < 0.0 {
            o.err(k, format!("must not be negative, is {v}"));
        }
    }
    if e.fuel_flow_idle_kg_s > e.fuel_flow_mil_kg_s {
        o.warn(
            "engine.fuel_flow_idle_kg_s",
            "idle fuel flow exceeds military",
        );
    }
    if e.ab_thrust.is_some() && e.fuel_flow_ab_kg_s < e.fuel_flow_mil_kg_s {
        o.warn(
            "engine.fuel_flow_ab_kg_s",
            "afterburner fuel flow is below military",
        );
    }
    nonneg_2d(&mut o, "engine.mil_thrust", &e.mil_thrust, false);
    for (key, t) in [
        ("engine.mil_thrust", &e.mil_thrust),
        (
            "engine.ab_thrust",
            e.ab_thrust.as_ref().unwrap_or(&e.mil_thrust),
        ),
    ] {
        if t.rows.first().is_some_and(|x| *x < 0.0) {
            o.err_at(
                &format!("{key}.mach"),
                t.line.0,
                "Mach breakpoints must not be negative",
            );
        }
        if t.cols.first().is_some_and(|x| *x < -1.0) {
            o.err_at(
                &format!("{key}.alt_km"),
                t.line.0,
                "altitude breakpoints below -1 km are not meaningful",
            );
        }
    }
    if let Some(ab) = &e.ab_thrust {
        nonneg_2d(&mut o, "engine.ab_thrust", ab, false);
        if ab.rows == e.mil_thrust.rows
            && ab.cols == e.mil_thrust.cols
            && let Some(i) = ab
                .values
                .iter()
                .zip(&e.mil_thrust.values)
                .position(|(a, m)| a < m)
        {
            o.warn_at(
                "engine.ab_thrust.values",
                ab.line.0,
                format!("entry {i} is below military thrust"),
            );
        }
    }

    // Sweep.
    if let Some(w) = &d.wing_sweep {
        if w.min_deg > w.max_deg {
            o.err("wing_sweep.min_deg", "exceeds max_deg");
        }
        if w.slew_rate_deg_s <= 0.0 {
            o.err("wing_sweep.slew_rate_deg_s", "must be positive");
        }
    }
    if let Some(t) = &d.tvc
        && t.min_angle_deg > t.max_angle_deg
    {
        o.err("aero.tvc.min_angle_deg", "exceeds max_angle_deg");
    }
    o.v.sort_by(|a, b| a.line.cmp(&b.line).then(a.severity.cmp(&b.severity)));
    o.v
}

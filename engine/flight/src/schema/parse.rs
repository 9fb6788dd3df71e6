//! Reads a flight-model TOML into [`FlightModelDef`], with a line number on every error.
//!
//! Owns: the key vocabulary (known keys, required keys, types, table shapes) and unknown-key
//! warnings. Must not: panic on any input, allocate without bound (files are size-capped, tables
//! are shape-checked before they are copied), or interpret values physically beyond shape.

use super::*;
use std::path::Path;

/// Largest flight-model (or expectation) file accepted, bytes.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Largest number of breakpoints on one table axis.
const MAX_AXIS: usize = 1024;

/// Reads and parses a flight-model file.
pub fn read_flight_model(path: &Path) -> Result<Parsed<FlightModelDef>, SchemaError> {
    let text = read_capped(path)?;
    parse_flight_model(path, &text)
}

/// Reads a text file, refusing anything larger than [`MAX_FILE_BYTES`].
pub(crate) fn read_capped(path: &Path) -> Result<String, SchemaError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|source| SchemaError::Io {
        file: path.into(),
        source,
    })?;
    let mut buf = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|source| SchemaError::Io {
            file: path.into(),
            source,
        })?;
    if buf.len() as u64 > MAX_FILE_BYTES {
        return Err(SchemaError::TooLarge {
            file: path.into(),
            size: buf.len() as u64,
            limit: MAX_FILE_BYTES,
        });
    }
    String::from_utf8(buf).map_err(|e| SchemaError::Syntax {
        file: path.into(),
        line: 1,
        message: format!("file is not UTF-8 ({e})"),
    })
}

/// How flight-model and expectation files report reading problems.
#[derive(Debug)]
pub(crate) enum FlightDiagnostics {}

impl fl_toml::Diagnostics for FlightDiagnostics {
    type Error = SchemaError;
    type Warning = SchemaWarning;
    fn syntax(file: &Path, line: usize, message: String) -> SchemaError {
        SchemaError::Syntax {
            file: file.into(),
            line,
            message,
        }
    }
    fn invalid(file: &Path, line: usize, key: &str, problem: String) -> SchemaError {
        SchemaError::Invalid {
            file: file.into(),
            key: key.into(),
            line,
            problem,
        }
    }
    fn warning(file: &Path, line: usize, key: &str, message: String) -> SchemaWarning {
        SchemaWarning {
            file: file.into(),
            key: key.into(),
            line,
            message,
        }
    }
}

/// One file being read (name, line index, warnings, the line of every value read).
pub(crate) type Ctx<'s> = fl_toml::Source<'s, FlightDiagnostics>;
/// One table being read.
pub(crate) type Tbl<'a> = fl_toml::Table<'a>;

fn check_axis(
    ctx: &Ctx<'_>,
    key: &str,
    line: usize,
    xs: &[f64],
    min_len: usize,
) -> Result<(), SchemaError> {
    if xs.len() < min_len {
        return Err(ctx.err(
            key,
            line,
            format!("needs at least {min_len} breakpoints, has {}", xs.len()),
        ));
    }
    if let Some(i) = xs.windows(2).position(|w| w[1] <= w[0]) {
        return Err(ctx.err(
            key,
            line,
            format!("breakpoints must be strictly increasing; entry {} ({}) does not exceed entry {} ({})", i + 1, xs[i + 1], i, xs[i]),
        ));
    }
    Ok(())
}

/// Reads a 2-D table `{row_key, col_key, values}`.
pub(crate) fn table2d(
    ctx: &mut Ctx<'_>,
    mut t: Tbl<'_>,
    row_key: &str,
    col_key: &str,
) -> Result<Table2DDef, SchemaError> {
    let line = t.line();
    let path = t.path().to_owned();
    let rows = t.req_f64_array(ctx, row_key, MAX_AXIS)?.value;
    let cols = t.req_f64_array(ctx, col_key, MAX_AXIS)?.value;
    let rline = t.key_line(ctx, row_key);
    let cline = t.key_line(ctx, col_key);
    check_axis(ctx, &format!("{path}.{row_key}"), rline, &rows, 2)?;
    check_axis(ctx, &format!("{path}.{col_key}"), cline, &cols, 1)?;
    let values = t.req_f64_array(ctx, "values", MAX_AXIS * MAX_AXIS)?.value;
    let vline = t.key_line(ctx, "values");
    if values.len() != rows.len() * cols.len() {
        return Err(ctx.err(
            &format!("{path}.values"),
            vline,
            format!(
                "has {} values but {row_key} ({}) × {col_key} ({}) needs {}",
                values.len(),
                rows.len(),
                cols.len(),
                rows.len() * cols.len()
            ),
        ));
    }
    t.finish(ctx);
    Ok(Table2DDef {
        rows,
        cols,
        values,
        line: Line(line),
    })
}

/// Reads a 1-D table `{x_key, values_key}`.
pub(crate) fn table1d(
    ctx: &mut Ctx<'_>,
    mut t: Tbl<'_>,
    x_key: &str,
    v_key: &str,
) -> Result<Table1DDef, SchemaError> {
    let line = t.line();
    let path = t.path().to_owned();
    let xs = t.req_f64_array(ctx, x_key, MAX_AXIS)?.value;
    let xline = t.key_line(ctx, x_key);
    check_axis(ctx, &format!("{path}.{x_key}"), xline, &xs, 1)?;
    let values = t.req_f64_array(ctx, v_key, MAX_AXIS)?.value;
    let vline = t.key_line(ctx, v_key);
    if values.len() != xs.len() {
        return Err(ctx.err(
            &format!("{path}.{v_key}"),
            vline,
            format!(
                "has {} values but {x_key} has {} breakpoints",
                values.len(),
                xs.len()
            ),
        ));
    }
    t.finish(ctx);
    Ok(Table1DDef {
        xs,
        values,
        line: Line(line),
    })
}

/// Parses flight-model text; `file` is used only for messages.
pub fn parse_flight_model(file: &Path, text: &str) -> Result<Parsed<FlightModelDef>, SchemaError> {
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(SchemaError::TooLarge {
            file: file.into(),
            size: text.len() as u64,
            limit: MAX_FILE_BYTES,
        });
    }
    let mut ctx = Ctx::new(file, text);
    let doc = ctx.parse(text)?;
    let mut root = Tbl::root(doc.as_table());
    let c = &mut ctx;

    if let Some(item) = doc.as_table().get("expect") {
        let line = c.line(item.span()).max(1);
        return Err(c.err(
            "expect",
            line,
            "this is an expectation file (*.expect.toml), not a flight model",
        ));
    }

    // [aircraft]
    let mut t = root.req_table(c, "aircraft")?;
    let aircraft = AircraftMeta {
        name: {
            let l = t.line();
            t.str(c, "name")?
                .map(|s| s.value)
                .ok_or_else(|| c.err("aircraft.name", l, "required key is missing"))?
        },
        role: t
            .str(c, "type")?
            .map(|s| s.value)
            .unwrap_or_else(|| "fighter".into()),
        engine_type: t
            .str(c, "engine_type")?
            .map(|s| s.value)
            .unwrap_or_else(|| "turbofan".into()),
        has_fbw: t.bool(c, "has_fbw")?.map(|b| b.value).unwrap_or(false),
        cruise_alt_m: t.f64(c, "cruise_alt_m")?.map(|x| x.value),
        mesh: t.str(c, "mesh")?.map(|s| s.value),
        cockpit: t.str(c, "cockpit")?.map(|s| s.value),
    };
    t.finish(c);

    // [flight_model]
    let mut t = root.req_table(c, "flight_model")?;
    let mass = MassGeometry {
        mass_kg: t.req_f64(c, "mass_kg")?.value,
        fuel_kg: t.req_f64(c, "fuel_kg")?.value,
        wing_area_m2: t.req_f64(c, "wing_area_m2")?.value,
        wingspan_m: t.req_f64(c, "wingspan_m")?.value,
        mac_m: t.req_f64(c, "mac_m")?.value,
        ixx_kg_m2: t.req_f64(c, "ixx_kg_m2")?.value,
        iyy_kg_m2: t.req_f64(c, "iyy_kg_m2")?.value,
        izz_kg_m2: t.req_f64(c, "izz_kg_m2")?.value,
        ixz_kg_m2: t.f64_or(c, "ixz_kg_m2", 0.0)?,
        engine_ang_momentum: t.f64_or(c, "engine_ang_momentum", 0.0)?,
    };
    t.finish(c);
    if doc.as_table().get("hardpoints").is_some() {
        return Err(c.err(
            "hardpoints",
            1,
            "hardpoints belong in the entity definition, not the flight model",
        ));
    }

    // [aero.*]
    let mut aero = root.req_table(c, "aero")?;
    let cl = aero.req_table(c, "cl_table")?;
    let cl_table = table2d(c, cl, "alpha", "mach")?;
    let cd_table = match aero.table(c, "cd_table")? {
        Some(t) => Some(table2d(c, t, "alpha", "mach")?),
        None => None,
    };
    let cd_wave = match aero.table(c, "cd_wave")? {
        Some(t) => Some(table1d(c, t, "mach", "values")?),
        None => None,
    };
    let mut t = aero.req_table(c, "drag_polar")?;
    let drag_polar = DragPolar {
        cd0: t.req_f64(c, "cd0")?.value,
        k: t.req_f64(c, "k")?.value,
        speedbrake_cd: t.req_f64(c, "speedbrake_cd")?.value,
        gear_cd: t.req_f64(c, "gear_cd")?.value,
        speedbrake_cl: t.f64_or(c, "speedbrake_cl", 0.0)?,
    };
    t.finish(c);

    let mut t = aero.req_table(c, "moments")?;
    let cm_q_table = damper(&mut t, c, "cm_q_table")?;
    let cl_p_table = damper(&mut t, c, "cl_p_table")?;
    let cn_r_table = damper(&mut t, c, "cn_r_table")?;
    let moments = Moments {
        cm_alpha: t.req_f64(c, "cm_alpha")?.value,
        cm_q: t.req_f64(c, "cm_q")?.value,
        cm_de: t.req_f64(c, "cm_de")?.value,
        cl_beta: t.req_f64(c, "cl_beta")?.value,
        cl_p: t.req_f64(c, "cl_p")?.value,
        cl_da: t.req_f64(c, "cl_da")?.value,
        cn_beta: t.req_f64(c, "cn_beta")?.value,
        cn_r: t.req_f64(c, "cn_r")?.value,
        cn_dr: t.req_f64(c, "cn_dr")?.value,
        cm0: t.f64_or(c, "cm0", 0.0)?,
        cn_da: t.f64_or(c, "cn_da", 0.0)?,
        cl_dr: t.f64_or(c, "cl_dr", 0.0)?,
        cm_speedbrake: t.f64_or(c, "cm_speedbrake", 0.0)?,
        cy_beta: t.f64_or(c, "cy_beta", 0.0)?,
        cm_q_table,
        cl_p_table,
        cn_r_table,
    };
    t.finish(c);

    let mut t = aero.req_table(c, "limits")?;
    let limits = Limits {
        alpha_stall_deg: t.req_f64(c, "alpha_stall_deg")?.value,
        alpha_limit_deg: t
            .f64(c, "alpha_limit_deg")?
            .map(|x| x.value)
            .filter(|a| *a > 0.0),
        max_g_structural: t.req_f64(c, "max_g_structural")?.value,
        min_g_structural: t.req_f64(c, "min_g_structural")?.value,
        max_mach: t.req_f64(c, "max_mach")?.value,
        max_keas: t.f64(c, "max_keas")?.map(|x| x.value).filter(|k| *k > 0.0),
    };
    t.finish(c);

    let mut t = aero.req_table(c, "controls")?;
    let controls = ControlLimits {
        max_elevator_deg: t.req_f64(c, "max_elevator_deg")?.value,
        max_elevator_neg_deg: t.f64(c, "max_elevator_neg_deg")?.map(|x| x.value),
        max_aileron_deg: t.req_f64(c, "max_aileron_deg")?.value,
        max_rudder_deg: t.req_f64(c, "max_rudder_deg")?.value,
    };
    t.finish(c);

    let tvc = match aero.table(c, "tvc")? {
        Some(mut t) => {
            let v = TvcDef {
                min_angle_deg: t.req_f64(c, "min_angle_deg")?.value,
                max_angle_deg: t.req_f64(c, "max_angle_deg")?.value,
                slew_rate_deg_s: t.req_f64(c, "slew_rate_deg_s")?.value,
                arm_m: t.f64(c, "arm_m")?.map(|x| x.value),
            };
            t.finish(c);
            Some(v)
        }
        None => None,
    };
    aero.finish(c);

    // [engine]
    let mut t = root.req_table(c, "engine")?;
    let mil = t.req_table(c, "mil_thrust")?;
    let mil_thrust = table2d(c, mil, "mach", "alt_km")?;
    let ab_thrust = match t.table(c, "ab_thrust")? {
        Some(s) => Some(table2d(c, s, "mach", "alt_km")?),
        None => None,
    };
    let idle_thrust = match t.table(c, "idle_thrust")? {
        Some(s) => Some(table2d(c, s, "mach", "alt_km")?),
        None => None,
    };
    let fuel_flow_mil_kg_s = t.req_f64(c, "fuel_flow_mil_kg_s")?.value;
    let engine = EngineDef {
        fuel_flow_idle_kg_s: t.req_f64(c, "fuel_flow_idle_kg_s")?.value,
        fuel_flow_mil_kg_s,
        fuel_flow_ab_kg_s: t.f64_or(c, "fuel_flow_ab_kg_s", fuel_flow_mil_kg_s)?,
        spool_time_s: t.req_f64(c, "spool_time_s")?.value,
        mil_thrust,
        ab_thrust,
        idle_thrust,
    };
    t.finish(c);

    // [wing_sweep]
    let wing_sweep = match root.table(c, "wing_sweep")? {
        Some(mut t) => {
            let schedule = match t.table(c, "schedule")? {
                Some(s) => Some(table1d(c, s, "mach", "sweep")?),
                None => None,
            };
            let spread = scales(&mut t, c, "spread")?;
            let swept = scales(&mut t, c, "swept")?;
            let v = WingSweepDef {
                ref_sweep_deg: t.req_f64(c, "ref_sweep_deg")?.value,
                min_deg: t.req_f64(c, "min_deg")?.value,
                max_deg: t.req_f64(c, "max_deg")?.value,
                slew_rate_deg_s: t.req_f64(c, "slew_rate_deg_s")?.value,
                schedule,
                spread,
                swept,
            };
            let l = t.line();
            if !(v.min_deg <= v.ref_sweep_deg && v.ref_sweep_deg <= v.max_deg) {
                return Err(c.err(
                    "wing_sweep.ref_sweep_deg",
                    l,
                    "must satisfy min_deg <= ref_sweep_deg <= max_deg",
                ));
            }
            t.finish(c);
            Some(v)
        }
        None => None,
    };

    // [prop]
    let prop = match root.table(c, "prop")? {
        Some(mut t) => {
            let l = t.line();
            let rotation = match t.str(c, "rotation")?.map(|s| s.value).as_deref() {
                Some("cw") | None => PropRotation::Cw,
                Some("ccw") => PropRotation::Ccw,
                Some("contra") => PropRotation::Contra,
                Some(other) => {
                    return Err(c.err(
                        "prop.rotation",
                        l,
                        format!("must be \"cw\", \"ccw\" or \"contra\", not {other:?}"),
                    ));
                }
            };
            let v = PropDef {
                rotation,
                torque_factor: t.f64_or(c, "torque_factor", 0.0)?,
                gyro_factor: t.f64_or(c, "gyro_factor", 0.0)?,
            };
            t.finish(c);
            Some(v)
        }
        None => None,
    };

    // [gear], [flaps], [speedbrake] (extensions)
    let gear = match root.table(c, "gear")? {
        Some(mut t) => {
            let d = GearDef::default();
            let v = GearDef {
                nose_x_m: t.f64(c, "nose_x_m")?.map(|x| x.value),
                main_x_m: t.f64(c, "main_x_m")?.map(|x| x.value),
                main_track_m: t.f64(c, "main_track_m")?.map(|x| x.value),
                cg_height_m: t.f64(c, "cg_height_m")?.map(|x| x.value),
                transit_time_s: t.f64_or(c, "transit_time_s", d.transit_time_s)?,
                max_steer_deg: t.f64_or(c, "max_steer_deg", d.max_steer_deg)?,
                max_sink_rate_m_s: t.f64_or(c, "max_sink_rate_m_s", d.max_sink_rate_m_s)?,
            };
            t.finish(c);
            v
        }
        None => GearDef::default(),
    };
    let flaps = match root.table(c, "flaps")? {
        Some(mut t) => {
            let v = FlapsDef {
                cl_delta: t.f64_or(c, "cl_delta", 0.0)?,
                cd_delta: t.f64_or(c, "cd_delta", 0.0)?,
                cm_delta: t.f64_or(c, "cm_delta", 0.0)?,
                transit_time_s: t.f64_or(c, "transit_time_s", 4.0)?,
            };
            t.finish(c);
            Some(v)
        }
        None => None,
    };
    let speedbrake = match root.table(c, "speedbrake")? {
        Some(mut t) => {
            let v = SpeedbrakeDef {
                transit_time_s: t.f64_or(c, "transit_time_s", 1.5)?,
            };
            t.finish(c);
            v
        }
        None => SpeedbrakeDef::default(),
    };

    // Parsed-but-inert blocks.
    let mut passive = Passive::default();
    if let Some(mut t) = root.table(c, "refueling")? {
        passive.refueling_type = t.str(c, "type")?.map(|s| s.value);
        passive.refueling_max_rate_kg_s = t.f64(c, "max_rate_kg_s")?.map(|x| x.value);
        t.finish(c);
    }
    if let Some(mut t) = root.table(c, "tanker")? {
        passive.tanker = true;
        for k in ["type", "stations", "max_rate_kg_s", "offload_reserve"] {
            t.tolerate(k);
        }
        t.finish(c);
    }
    if let Some(mut t) = root.table(c, "carrier")? {
        passive.carrier = true;
        for k in [
            "approach_m_s",
            "approach_aoa_deg",
            "cat_min_m_s",
            "hook_length_m",
        ] {
            t.f64(c, k)?.map(|x| x.value);
        }
        t.finish(c);
    }
    root.finish(c);

    let key_lines = ctx.take_key_lines();
    let value = FlightModelDef {
        file: file.into(),
        aircraft,
        mass,
        cl_table,
        cd_table,
        drag_polar,
        cd_wave,
        moments,
        limits,
        controls,
        engine,
        wing_sweep,
        tvc,
        prop,
        gear,
        flaps,
        speedbrake,
        passive,
        key_lines,
    };
    Ok(Parsed {
        value,
        warnings: ctx.warnings,
    })
}

fn damper(t: &mut Tbl<'_>, c: &mut Ctx<'_>, key: &str) -> Result<Option<Table1DDef>, SchemaError> {
    match t.table(c, key)? {
        Some(sub) => Ok(Some(table1d(c, sub, "alpha", "values")?)),
        None => Ok(None),
    }
}

fn scales(t: &mut Tbl<'_>, c: &mut Ctx<'_>, key: &str) -> Result<SweepScales, SchemaError> {
    match t.table(c, key)? {
        Some(mut s) => {
            let v = SweepScales {
                cl_scale: s.f64_or(c, "cl_scale", 1.0)?,
                k_scale: s.f64_or(c, "k_scale", 1.0)?,
                cd0_delta: s.f64_or(c, "cd0_delta", 0.0)?,
            };
            s.finish(c);
            Ok(v)
        }
        None => Ok(SweepScales {
            cl_scale: 1.0,
            k_scale: 1.0,
            cd0_delta: 0.0,
        }),
    }
}

//! Reads a flight-model TOML into [`FlightModelDef`], with a line number on every error.
//!
//! Owns: the key vocabulary (known keys, required keys, types, table shapes) and unknown-key
//! warnings. Must not: panic on any input, allocate without bound (files are size-capped, tables
//! are shape-checked before they are copied), or interpret values physically beyond shape.

use super::*;
use std::collections::BTreeSet;
use std::path::Path;
use toml_edit::{Document, Item, TableLike, Value};

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

/// Shared reading context: file name, line index and collected warnings.
pub(crate) struct Ctx<'s> {
    pub(crate) file: &'s Path,
    line_starts: Vec<usize>,
    pub(crate) warnings: Vec<SchemaWarning>,
    pub(crate) key_lines: Vec<(String, usize)>,
}

impl<'s> Ctx<'s> {
    pub(crate) fn new(file: &'s Path, text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self {
            file,
            line_starts,
            warnings: Vec::new(),
            key_lines: Vec::new(),
        }
    }

    pub(crate) fn line(&self, offset: Option<std::ops::Range<usize>>) -> usize {
        match offset {
            Some(r) => self.line_starts.partition_point(|&s| s <= r.start).max(1),
            None => 0,
        }
    }

    pub(crate) fn err(&self, key: &str, line: usize, problem: impl Into<String>) -> SchemaError {
        SchemaError::Invalid {
            file: self.file.into(),
            key: key.into(),
            line: line.max(1),
            problem: problem.into(),
        }
    }

    pub(crate) fn parse_doc(&self, text: &str) -> Result<Document<String>, SchemaError> {
        Document::parse(text.to_owned()).map_err(|e| SchemaError::Syntax {
            file: self.file.into(),
            line: self.line(e.span()).max(1),
            message: e.message().trim().to_owned(),
        })
    }
}

/// One table being read: tracks which keys were consumed so the rest can be warned about.
pub(crate) struct Tbl<'a> {
    table: &'a dyn TableLike,
    path: String,
    line: usize,
    used: BTreeSet<String>,
}

impl<'a> Tbl<'a> {
    pub(crate) fn root(table: &'a dyn TableLike) -> Self {
        Self {
            table,
            path: String::new(),
            line: 1,
            used: BTreeSet::new(),
        }
    }

    pub(crate) fn with_path(table: &'a dyn TableLike, path: String, line: usize) -> Self {
        Self {
            table,
            path,
            line,
            used: BTreeSet::new(),
        }
    }

    fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    fn key_line(&self, ctx: &Ctx<'_>, key: &str) -> usize {
        let l = ctx.line(self.table.key(key).and_then(|k| k.span()));
        if l == 0 {
            let item_line = self.table.get(key).map(|i| ctx.line(i.span())).unwrap_or(0);
            if item_line == 0 { self.line } else { item_line }
        } else {
            l
        }
    }

    /// Marks a key as known without reading it.
    pub(crate) fn known(&mut self, key: &str) {
        self.used.insert(key.to_owned());
    }

    fn item(&mut self, key: &str) -> Option<&'a Item> {
        self.used.insert(key.to_owned());
        self.table.get(key)
    }

    /// A sub-table (`[a.b]` or an inline table).
    pub(crate) fn table(
        &mut self,
        ctx: &Ctx<'_>,
        key: &str,
    ) -> Result<Option<Tbl<'a>>, SchemaError> {
        let line = self.key_line(ctx, key);
        match self.item(key) {
            None => Ok(None),
            Some(item) => match item.as_table_like() {
                Some(t) => {
                    let own = ctx.line(item.span());
                    Ok(Some(Tbl {
                        table: t,
                        path: self.key_path(key),
                        line: if own == 0 { line.max(self.line) } else { own },
                        used: BTreeSet::new(),
                    }))
                }
                None => Err(ctx.err(
                    &self.key_path(key),
                    line,
                    format!("expected a table, found {}", item.type_name()),
                )),
            },
        }
    }

    /// A required sub-table.
    pub(crate) fn req_table(&mut self, ctx: &Ctx<'_>, key: &str) -> Result<Tbl<'a>, SchemaError> {
        let line = self.line;
        self.table(ctx, key)?
            .ok_or_else(|| ctx.err(&self.key_path(key), line, "required table is missing"))
    }

    fn value(
        &mut self,
        ctx: &Ctx<'_>,
        key: &str,
    ) -> Result<Option<(&'a Value, usize)>, SchemaError> {
        let line = self.key_line(ctx, key);
        match self.item(key) {
            None => Ok(None),
            Some(Item::Value(v)) => Ok(Some((v, line))),
            Some(other) => Err(ctx.err(
                &self.key_path(key),
                line,
                format!("expected a value, found {}", other.type_name()),
            )),
        }
    }

    /// An optional number (integer or float), which must be finite.
    pub(crate) fn opt_f64(
        &mut self,
        ctx: &mut Ctx<'_>,
        key: &str,
    ) -> Result<Option<f64>, SchemaError> {
        let Some((v, line)) = self.value(ctx, key)? else {
            return Ok(None);
        };
        ctx.key_lines.push((self.key_path(key), line));
        let x = number(v).ok_or_else(|| {
            ctx.err(
                &self.key_path(key),
                line,
                format!("expected a number, found {}", v.type_name()),
            )
        })?;
        if !x.is_finite() {
            return Err(ctx.err(&self.key_path(key), line, "must be a finite number"));
        }
        Ok(Some(x))
    }

    /// A required number.
    pub(crate) fn f64(&mut self, ctx: &mut Ctx<'_>, key: &str) -> Result<f64, SchemaError> {
        let line = self.line;
        self.opt_f64(ctx, key)?
            .ok_or_else(|| ctx.err(&self.key_path(key), line, "required key is missing"))
    }

    /// A number with a default.
    pub(crate) fn f64_or(
        &mut self,
        ctx: &mut Ctx<'_>,
        key: &str,
        default: f64,
    ) -> Result<f64, SchemaError> {
        Ok(self.opt_f64(ctx, key)?.unwrap_or(default))
    }

    /// An optional string.
    pub(crate) fn opt_str(
        &mut self,
        ctx: &mut Ctx<'_>,
        key: &str,
    ) -> Result<Option<String>, SchemaError> {
        let Some((v, line)) = self.value(ctx, key)? else {
            return Ok(None);
        };
        ctx.key_lines.push((self.key_path(key), line));
        match v.as_str() {
            Some(s) => Ok(Some(s.to_owned())),
            None => Err(ctx.err(
                &self.key_path(key),
                line,
                format!("expected a string, found {}", v.type_name()),
            )),
        }
    }

    /// An optional boolean.
    pub(crate) fn opt_bool(
        &mut self,
        ctx: &mut Ctx<'_>,
        key: &str,
    ) -> Result<Option<bool>, SchemaError> {
        let Some((v, line)) = self.value(ctx, key)? else {
            return Ok(None);
        };
        ctx.key_lines.push((self.key_path(key), line));
        match v.as_bool() {
            Some(b) => Ok(Some(b)),
            None => Err(ctx.err(
                &self.key_path(key),
                line,
                format!("expected true or false, found {}", v.type_name()),
            )),
        }
    }

    /// An array of finite numbers, at most `max` long.
    pub(crate) fn opt_array(
        &mut self,
        ctx: &mut Ctx<'_>,
        key: &str,
        max: usize,
    ) -> Result<Option<Vec<f64>>, SchemaError> {
        let Some((v, line)) = self.value(ctx, key)? else {
            return Ok(None);
        };
        let path = self.key_path(key);
        let arr = v.as_array().ok_or_else(|| {
            ctx.err(
                &path,
                line,
                format!("expected an array of numbers, found {}", v.type_name()),
            )
        })?;
        if arr.len() > max {
            return Err(ctx.err(
                &path,
                line,
                format!("has {} entries; at most {max} are accepted", arr.len()),
            ));
        }
        let mut out = Vec::with_capacity(arr.len());
        for (i, e) in arr.iter().enumerate() {
            let x = number(e).ok_or_else(|| {
                ctx.err(
                    &path,
                    ctx.line(e.span()).max(line),
                    format!("entry {i} is {}, expected a number", e.type_name()),
                )
            })?;
            if !x.is_finite() {
                return Err(ctx.err(
                    &path,
                    ctx.line(e.span()).max(line),
                    format!("entry {i} is not finite"),
                ));
            }
            out.push(x);
        }
        Ok(Some(out))
    }

    fn req_array(
        &mut self,
        ctx: &mut Ctx<'_>,
        key: &str,
        max: usize,
    ) -> Result<Vec<f64>, SchemaError> {
        let line = self.line;
        self.opt_array(ctx, key, max)?
            .ok_or_else(|| ctx.err(&self.key_path(key), line, "required key is missing"))
    }

    /// Warns about every key not consumed, then drops the table.
    pub(crate) fn finish(self, ctx: &mut Ctx<'_>) {
        for (k, item) in self.table.iter() {
            if !self.used.contains(k) {
                let l = ctx.line(self.table.key(k).and_then(|key| key.span()));
                let l = if l == 0 {
                    ctx.line(item.span()).max(self.line)
                } else {
                    l
                };
                ctx.warnings.push(SchemaWarning {
                    file: ctx.file.into(),
                    key: self.key_path(k),
                    line: l.max(1),
                    message: "unknown key (ignored)".into(),
                });
            }
        }
    }

    /// The dotted path of this table.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }
    /// The header line.
    pub(crate) fn line_no(&self) -> usize {
        self.line
    }
}

fn number(v: &Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

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
    let line = t.line_no();
    let path = t.path().to_owned();
    let rows = t.req_array(ctx, row_key, MAX_AXIS)?;
    let cols = t.req_array(ctx, col_key, MAX_AXIS)?;
    let rline = t.key_line(ctx, row_key);
    let cline = t.key_line(ctx, col_key);
    check_axis(ctx, &format!("{path}.{row_key}"), rline, &rows, 2)?;
    check_axis(ctx, &format!("{path}.{col_key}"), cline, &cols, 1)?;
    let values = t.req_array(ctx, "values", MAX_AXIS * MAX_AXIS)?;
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
    let line = t.line_no();
    let path = t.path().to_owned();
    let xs = t.req_array(ctx, x_key, MAX_AXIS)?;
    let xline = t.key_line(ctx, x_key);
    check_axis(ctx, &format!("{path}.{x_key}"), xline, &xs, 1)?;
    let values = t.req_array(ctx, v_key, MAX_AXIS)?;
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
    let doc = ctx.parse_doc(text)?;
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
            let l = t.line_no();
            t.opt_str(c, "name")?
                .ok_or_else(|| c.err("aircraft.name", l, "required key is missing"))?
        },
        role: t.opt_str(c, "type")?.unwrap_or_else(|| "fighter".into()),
        engine_type: t
            .opt_str(c, "engine_type")?
            .unwrap_or_else(|| "turbofan".into()),
        has_fbw: t.opt_bool(c, "has_fbw")?.unwrap_or(false),
        cruise_alt_m: t.opt_f64(c, "cruise_alt_m")?,
        mesh: t.opt_str(c, "mesh")?,
        cockpit: t.opt_str(c, "cockpit")?,
    };
    t.finish(c);

    // [flight_model]
    let mut t = root.req_table(c, "flight_model")?;
    let mass = MassGeometry {
        mass_kg: t.f64(c, "mass_kg")?,
        fuel_kg: t.f64(c, "fuel_kg")?,
        wing_area_m2: t.f64(c, "wing_area_m2")?,
        wingspan_m: t.f64(c, "wingspan_m")?,
        mac_m: t.f64(c, "mac_m")?,
        ixx_kg_m2: t.f64(c, "ixx_kg_m2")?,
        iyy_kg_m2: t.f64(c, "iyy_kg_m2")?,
        izz_kg_m2: t.f64(c, "izz_kg_m2")?,
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
        cd0: t.f64(c, "cd0")?,
        k: t.f64(c, "k")?,
        speedbrake_cd: t.f64(c, "speedbrake_cd")?,
        gear_cd: t.f64(c, "gear_cd")?,
        speedbrake_cl: t.f64_or(c, "speedbrake_cl", 0.0)?,
    };
    t.finish(c);

    let mut t = aero.req_table(c, "moments")?;
    let cm_q_table = damper(&mut t, c, "cm_q_table")?;
    let cl_p_table = damper(&mut t, c, "cl_p_table")?;
    let cn_r_table = damper(&mut t, c, "cn_r_table")?;
    let moments = Moments {
        cm_alpha: t.f64(c, "cm_alpha")?,
        cm_q: t.f64(c, "cm_q")?,
        cm_de: t.f64(c, "cm_de")?,
        cl_beta: t.f64(c, "cl_beta")?,
        cl_p: t.f64(c, "cl_p")?,
        cl_da: t.f64(c, "cl_da")?,
        cn_beta: t.f64(c, "cn_beta")?,
        cn_r: t.f64(c, "cn_r")?,
        cn_dr: t.f64(c, "cn_dr")?,
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
        alpha_stall_deg: t.f64(c, "alpha_stall_deg")?,
        alpha_limit_deg: t.opt_f64(c, "alpha_limit_deg")?.filter(|a| *a > 0.0),
        max_g_structural: t.f64(c, "max_g_structural")?,
        min_g_structural: t.f64(c, "min_g_structural")?,
        max_mach: t.f64(c, "max_mach")?,
        max_keas: t.opt_f64(c, "max_keas")?.filter(|k| *k > 0.0),
    };
    t.finish(c);

    let mut t = aero.req_table(c, "controls")?;
    let controls = ControlLimits {
        max_elevator_deg: t.f64(c, "max_elevator_deg")?,
        max_elevator_neg_deg: t.opt_f64(c, "max_elevator_neg_deg")?,
        max_aileron_deg: t.f64(c, "max_aileron_deg")?,
        max_rudder_deg: t.f64(c, "max_rudder_deg")?,
    };
    t.finish(c);

    let tvc = match aero.table(c, "tvc")? {
        Some(mut t) => {
            let v = TvcDef {
                min_angle_deg: t.f64(c, "min_angle_deg")?,
                max_angle_deg: t.f64(c, "max_angle_deg")?,
                slew_rate_deg_s: t.f64(c, "slew_rate_deg_s")?,
                arm_m: t.opt_f64(c, "arm_m")?,
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
    let fuel_flow_mil_kg_s = t.f64(c, "fuel_flow_mil_kg_s")?;
    let engine = EngineDef {
        fuel_flow_idle_kg_s: t.f64(c, "fuel_flow_idle_kg_s")?,
        fuel_flow_mil_kg_s,
        fuel_flow_ab_kg_s: t.f64_or(c, "fuel_flow_ab_kg_s", fuel_flow_mil_kg_s)?,
        spool_time_s: t.f64(c, "spool_time_s")?,
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
                ref_sweep_deg: t.f64(c, "ref_sweep_deg")?,
                min_deg: t.f64(c, "min_deg")?,
                max_deg: t.f64(c, "max_deg")?,
                slew_rate_deg_s: t.f64(c, "slew_rate_deg_s")?,
                schedule,
                spread,
                swept,
            };
            let l = t.line_no();
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
            let l = t.line_no();
            let rotation = match t.opt_str(c, "rotation")?.as_deref() {
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
                nose_x_m: t.opt_f64(c, "nose_x_m")?,
                main_x_m: t.opt_f64(c, "main_x_m")?,
                main_track_m: t.opt_f64(c, "main_track_m")?,
                cg_height_m: t.opt_f64(c, "cg_height_m")?,
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
        passive.refueling_type = t.opt_str(c, "type")?;
        passive.refueling_max_rate_kg_s = t.opt_f64(c, "max_rate_kg_s")?;
        t.finish(c);
    }
    if let Some(mut t) = root.table(c, "tanker")? {
        passive.tanker = true;
        for k in ["type", "stations", "max_rate_kg_s", "offload_reserve"] {
            t.known(k);
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
            t.opt_f64(c, k)?;
        }
        t.finish(c);
    }
    root.finish(c);

    let key_lines = std::mem::take(&mut ctx.key_lines);
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

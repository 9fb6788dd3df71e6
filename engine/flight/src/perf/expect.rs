//! Expectation files (`*.expect.toml`): parsing rows and judging a model against them.
//!
//! Owns: the row vocabulary (`metric`, `altitude_m`, `mass_kg`, `payload_kg`, `payload_cd0`,
//! `mach`, `load_factor`, `afterburner`, `expected`, `tolerance`), the metric dispatch, and the
//! pack's tolerance convention: fractional of |expected| everywhere except `ps_mps`, where it is
//! absolute in m/s. Must not: print (the tool renders), or special-case an aircraft.

use super::{Condition, Power, Trimmer};
use crate::model::AircraftModel;
use crate::schema::parse_support::{Ctx, Tbl};
use crate::schema::{SchemaError, SchemaWarning};
use std::path::Path;

/// Metrics this tool can compute.
pub const METRICS: [&str; 11] = [
    "max_level_mach",
    "stall_speed_1g_mps",
    "min_level_speed_mps",
    "ps_mps",
    "max_lift_g",
    "sustained_g",
    "sustained_turn_deg_s",
    "instant_turn_deg_s",
    "roc_mps",
    "corner_speed_mps",
    "specific_range_m_per_kg",
];

/// Default tolerance when a row names none (fractional).
pub const DEFAULT_TOLERANCE: f64 = 0.05;
/// Slack on the built-in `max_mach` check (the model may not exceed its own placard by more).
pub const MAX_MACH_SLACK: f64 = 1.05;

/// One `[[expect]]` row.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectRow {
    /// 1-based line of the row.
    pub line: usize,
    /// Metric name.
    pub metric: String,
    /// Altitude, m (default 0).
    pub altitude_m: f64,
    /// Mass, kg (default: empty + full fuel).
    pub mass_kg: Option<f64>,
    /// Stores mass added on top, kg.
    pub payload_kg: f64,
    /// Stores drag.
    pub payload_cd0: f64,
    /// Pinned Mach.
    pub mach: Option<f64>,
    /// Load factor (for `ps_mps`).
    pub load_factor: Option<f64>,
    /// Afterburner (default true).
    pub afterburner: bool,
    /// Expected value.
    pub expected: f64,
    /// Tolerance (see module docs).
    pub tolerance: f64,
}

/// A parsed expectation file.
#[derive(Debug, Clone)]
pub struct ExpectFile {
    /// Rows in file order.
    pub rows: Vec<ExpectRow>,
    /// Unknown keys etc.
    pub warnings: Vec<SchemaWarning>,
}

/// Parses expectation text. `file` is used for messages only.
pub fn parse_expect(file: &Path, text: &str) -> Result<ExpectFile, SchemaError> {
    let mut ctx = Ctx::new(file, text);
    let doc = ctx.parse(text)?;
    let root = doc.as_table();
    let Some(item) = root.get("expect") else {
        return Err(ctx.err("expect", 1, "expectation file has no [[expect]] rows"));
    };
    let Some(arr) = item.as_array_of_tables() else {
        return Err(ctx.err(
            "expect",
            ctx.line(item.span()),
            "`expect` must be an array of tables ([[expect]])",
        ));
    };
    let mut rows = Vec::new();
    for (i, t) in arr.iter().enumerate() {
        let line = ctx.line(t.span()).max(1);
        let mut tbl = Tbl::with_path(t, format!("expect[{i}]"), line);
        let c = &mut ctx;
        let metric = tbl
            .str(c, "metric")?
            .map(|s| s.value)
            .ok_or_else(|| c.err(&format!("expect[{i}].metric"), line, "row has no `metric`"))?;
        let expected = tbl.req_f64(c, "expected")?.value;
        let row = ExpectRow {
            line,
            metric,
            altitude_m: tbl.f64_or(c, "altitude_m", 0.0)?,
            mass_kg: tbl.f64(c, "mass_kg")?.map(|x| x.value).filter(|m| *m > 0.0),
            payload_kg: tbl.f64_or(c, "payload_kg", 0.0)?,
            payload_cd0: tbl.f64_or(c, "payload_cd0", 0.0)?,
            mach: tbl.f64(c, "mach")?.map(|x| x.value).filter(|m| *m > 0.0),
            load_factor: tbl.f64(c, "load_factor")?.map(|x| x.value),
            afterburner: tbl.bool(c, "afterburner")?.map(|b| b.value).unwrap_or(true),
            expected,
            tolerance: tbl.f64_or(c, "tolerance", DEFAULT_TOLERANCE)?,
        };
        if row.tolerance < 0.0 {
            return Err(c.err(
                &format!("expect[{i}].tolerance"),
                line,
                "must not be negative",
            ));
        }
        tbl.finish(c);
        rows.push(row);
    }
    for (k, it) in root.iter() {
        if k != "expect" {
            let l = ctx.line(it.span()).max(1);
            ctx.warnings.push(SchemaWarning {
                file: file.into(),
                key: k.into(),
                line: l,
                message: "unknown key (ignored)".into(),
            });
        }
    }
    Ok(ExpectFile {
        rows,
        warnings: ctx.warnings,
    })
}

/// Reads and parses an expectation file.
pub fn read_expect(path: &Path) -> Result<ExpectFile, SchemaError> {
    let text = crate::schema::parse_support::read_capped(path)?;
    parse_expect(path, &text)
}

/// The verdict on one row.
#[derive(Debug, Clone, PartialEq)]
pub struct RowResult {
    /// The row (built-in checks carry line 0).
    pub row: ExpectRow,
    /// Human-readable conditions.
    pub conditions: String,
    /// Computed value, if it could be computed.
    pub got: Option<f64>,
    /// The allowed absolute deviation.
    pub allowed: f64,
    /// Pass or fail.
    pub pass: bool,
    /// Why it could not be computed, or a note.
    pub note: Option<String>,
}

fn power(m: &AircraftModel, ab: bool) -> Power {
    if ab && m.has_afterburner() {
        Power::Afterburner
    } else {
        Power::Military
    }
}

/// Computes one metric for a row. Errors are row-level (bad row or unflyable condition).
pub fn compute(m: &AircraftModel, row: &ExpectRow) -> Result<f64, String> {
    let mass = row.mass_kg.unwrap_or(m.empty_mass_kg + m.max_fuel_kg) + row.payload_kg.max(0.0);
    let t = Trimmer::new(
        m,
        &Condition {
            altitude_m: row.altitude_m,
            mass_kg: mass,
            payload_cd0: row.payload_cd0,
        },
    );
    let p = power(m, row.afterburner);
    let a = t.atmosphere().speed_of_sound_m_s;
    let pinned = row.mach.map(|mach| mach * a);
    let need_mach =
        || pinned.ok_or_else(|| format!("metric '{}' requires a `mach` on the row", row.metric));
    let cannot = |what: &str| {
        format!(
            "the model cannot {what} at {:.0} m, {:.0} kg",
            row.altitude_m, mass
        )
    };
    // A turn metric at the row's Mach, or its best over the speed range when none is pinned.
    let turn = |f: &dyn Fn(f64) -> f64| match pinned {
        Some(v) => Ok(f(v)),
        None => t
            .best_over_speed(f)
            .map(|x| x.0)
            .ok_or_else(|| cannot("turn")),
    };
    match row.metric.as_str() {
        "max_level_mach" => t
            .max_level_mach(p)
            .ok_or_else(|| cannot("hold level flight")),
        "stall_speed_1g_mps" => t
            .stall_speed()
            .ok_or_else(|| cannot("carry its weight at any speed")),
        "min_level_speed_mps" => t
            .level_band(p)
            .map(|(lo, _)| lo)
            .ok_or_else(|| cannot("hold level flight")),
        "ps_mps" => {
            let v = need_mach()?;
            let n = row
                .load_factor
                .ok_or("metric 'ps_mps' requires a `load_factor` on the row")?;
            t.ps(v, n, p)
                .ok_or_else(|| format!("the wing cannot hold {n} g at Mach {:.3}", v / a))
        }
        "max_lift_g" => Ok(t.max_load(need_mach()?, p, None).0),
        "sustained_g" => turn(&|v| t.sustained_g(v, p)),
        "sustained_turn_deg_s" => turn(&|v| t.sustained_turn(v, p)),
        "instant_turn_deg_s" => turn(&|v| t.instant_turn(v, p)),
        "roc_mps" => match pinned {
            Some(v) => t.climb_rate(v, p).ok_or_else(|| cannot("hold the climb")),
            None => t.best_climb(p).map(|x| x.0).ok_or_else(|| cannot("climb")),
        },
        "corner_speed_mps" => t
            .corner_speed(p)
            .ok_or_else(|| cannot("reach its structural limit")),
        "specific_range_m_per_kg" => t
            .specific_range()
            .map(|x| x.0)
            .ok_or_else(|| cannot("cruise on dry power")),
        other => Err(format!(
            "unknown metric '{other}' (known: {})",
            METRICS.join(", ")
        )),
    }
}

fn conditions(m: &AircraftModel, r: &ExpectRow) -> String {
    let mass = r.mass_kg.unwrap_or(m.empty_mass_kg + m.max_fuel_kg);
    let mut s = format!("{:.0} m, {:.0} kg", r.altitude_m, mass);
    if r.payload_kg != 0.0 {
        s += &format!(" +{:.0} kg", r.payload_kg);
    }
    if r.payload_cd0 != 0.0 {
        s += &format!(", cd0+{}", r.payload_cd0);
    }
    if let Some(mach) = r.mach {
        s += &format!(", M{mach}");
    }
    if let Some(n) = r.load_factor {
        s += &format!(", n={n}");
    }
    // Stall speed is flown at idle whatever the row's afterburner flag says.
    s += if r.metric == "stall_speed_1g_mps" {
        ", idle"
    } else if r.afterburner {
        ", AB"
    } else {
        ", MIL"
    };
    s
}

/// Judges one row.
pub fn judge(m: &AircraftModel, row: &ExpectRow) -> RowResult {
    let allowed = if row.metric == "ps_mps" {
        row.tolerance
    } else {
        row.expected.abs() * row.tolerance
    };
    let cond = conditions(m, row);
    match compute(m, row) {
        Ok(got) => RowResult {
            row: row.clone(),
            conditions: cond,
            got: Some(got),
            allowed,
            pass: got.is_finite() && (got - row.expected).abs() <= allowed,
            note: vacuous_tolerance_note(row, got),
        },
        Err(e) => RowResult {
            row: row.clone(),
            conditions: cond,
            got: None,
            allowed,
            pass: false,
            note: Some(e),
        },
    }
}

/// A fractional tolerance of 100 % or more cannot fail a positive metric; the pack's own rows
/// sometimes mean an absolute value there (a comment saying "m/s"). Say so, with the miss the row
/// would show under the absolute reading, so a modder sees the gap instead of a silent PASS.
fn vacuous_tolerance_note(row: &ExpectRow, got: f64) -> Option<String> {
    if row.metric == "ps_mps" || row.tolerance < 1.0 {
        return None;
    }
    let miss = got - row.expected;
    let verdict = if miss.abs() <= row.tolerance {
        "would also pass"
    } else {
        "would FAIL"
    };
    Some(format!(
        "tolerance {} is fractional by the pack convention (±{:.0}%), so this row cannot fail; \
         read as an absolute ±{} it {verdict} (off by {miss:+.3})",
        row.tolerance,
        row.tolerance * 100.0,
        row.tolerance
    ))
}

/// The built-in placard check: the model must not reach more than `MAX_MACH_SLACK × max_mach` in
/// level flight at 11 km at full internal fuel (a model that outruns its own never-exceed Mach is
/// broken, not fast).
pub fn builtin_max_mach(m: &AircraftModel) -> RowResult {
    let row = ExpectRow {
        line: 0,
        metric: "max_level_mach".into(),
        altitude_m: 11_000.0,
        mass_kg: None,
        payload_kg: 0.0,
        payload_cd0: 0.0,
        mach: None,
        load_factor: None,
        afterburner: true,
        expected: m.max_mach,
        tolerance: MAX_MACH_SLACK - 1.0,
    };
    let mut r = judge(m, &row);
    // One-sided: only exceeding the placard fails; an unflyable condition is reported, not failed.
    r.pass = match r.got {
        Some(g) => g <= m.max_mach * MAX_MACH_SLACK,
        None => true,
    };
    r.conditions = format!("built-in: ≤ {MAX_MACH_SLACK}×max_mach; {}", r.conditions);
    r
}

/// Judges every row and appends the built-in placard check.
pub fn judge_all(m: &AircraftModel, file: &ExpectFile) -> Vec<RowResult> {
    let mut out: Vec<RowResult> = file.rows.iter().map(|r| judge(m, r)).collect();
    if m.max_mach > 0.0 {
        out.push(builtin_max_mach(m));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(metric: &str, expected: f64, tolerance: f64) -> ExpectRow {
        ExpectRow {
            line: 1,
            metric: metric.into(),
            altitude_m: 0.0,
            mass_kg: None,
            payload_kg: 0.0,
            payload_cd0: 0.0,
            mach: None,
            load_factor: None,
            afterburner: true,
            expected,
            tolerance,
        }
    }

    #[test]
    fn vacuous_fractional_tolerances_are_called_out() {
        let note = vacuous_tolerance_note(&row("stall_speed_1g_mps", 67.39, 2.1), 70.42)
            .expect("a 210 % tolerance is vacuous");
        assert!(note.contains("would FAIL"), "{note}");
        assert!(
            vacuous_tolerance_note(&row("stall_speed_1g_mps", 67.39, 2.1), 68.0)
                .expect("still vacuous")
                .contains("would also pass")
        );
        assert_eq!(
            vacuous_tolerance_note(&row("stall_speed_1g_mps", 67.39, 0.05), 70.0),
            None
        );
        // ps_mps tolerances are absolute m/s: never vacuous by this rule.
        assert_eq!(vacuous_tolerance_note(&row("ps_mps", 0.0, 12.0), 3.0), None);
    }
}

//! Library side of the flight tools: loading a model, running `fm-trim`,
//! `validate-flight-model`, `validate-pack` and `validate-mission`, and rendering their reports. The binaries are thin `main`s over this,
//! so tests drive the same code.
//!
//! Owns: command-line-facing orchestration and text/JSON rendering. Must not: contain flight
//! physics (that is `fl-flight`), or exit the process (the `main`s do).

use anyhow::Context;
use fl_flight::model::AircraftModel;
use fl_flight::perf::expect::{RowResult, judge_all, read_expect};
use fl_flight::perf::{Condition, Power, Trimmer};
use fl_flight::schema::read_flight_model;
use std::fmt::Write as _;
use std::path::Path;

/// Loads and compiles a model, logging schema warnings.
pub fn load_model(path: &Path) -> anyhow::Result<AircraftModel> {
    let parsed = read_flight_model(path)
        .with_context(|| format!("loading flight model {}", path.display()))?;
    for w in &parsed.warnings {
        tracing::warn!("{w}");
        eprintln!("warning: {w}");
    }
    AircraftModel::from_def(&parsed.value)
        .with_context(|| format!("compiling flight model {}", path.display()))
}

/// Result of `fm-trim --expect`.
#[derive(Debug, Clone)]
pub struct TrimReport {
    /// Aircraft name.
    pub aircraft: String,
    /// One entry per row, then the built-in check.
    pub rows: Vec<RowResult>,
}

impl TrimReport {
    /// Rows that passed.
    pub fn passed(&self) -> usize {
        self.rows.iter().filter(|r| r.pass).count()
    }
    /// Rows that failed.
    pub fn failed(&self) -> usize {
        self.rows.len() - self.passed()
    }
}

/// Runs every row of an expectation file against a model.
pub fn run_expect(model_path: &Path, expect_path: &Path) -> anyhow::Result<TrimReport> {
    let m = load_model(model_path)?;
    let file = read_expect(expect_path)
        .with_context(|| format!("loading expectations {}", expect_path.display()))?;
    for w in &file.warnings {
        eprintln!("warning: {w}");
    }
    Ok(TrimReport {
        aircraft: m.name.clone(),
        rows: judge_all(&m, &file),
    })
}

fn fmt_num(x: f64) -> String {
    if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    }
}

/// Renders the report as a text table.
pub fn render_table(r: &TrimReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "fm-trim: {}", r.aircraft);
    let _ = writeln!(
        s,
        "{:<5} {:<24} {:<48} {:>10} {:>10} {:>10} {:>8}  result",
        "line", "metric", "conditions", "expected", "got", "tolerance", "±allowed"
    );
    for row in &r.rows {
        let got = row.got.map_or_else(|| "—".to_string(), fmt_num);
        let tol = if row.row.metric == "ps_mps" && row.row.line != 0 {
            format!("{} m/s", row.row.tolerance)
        } else {
            format!("{:.1}%", row.row.tolerance * 100.0)
        };
        let line = if row.row.line == 0 {
            "-".to_string()
        } else {
            row.row.line.to_string()
        };
        let _ = writeln!(
            s,
            "{:<5} {:<24} {:<48} {:>10} {:>10} {:>10} {:>8}  {}",
            line,
            row.row.metric,
            row.conditions,
            fmt_num(row.row.expected),
            got,
            tol,
            fmt_num(row.allowed),
            if row.pass { "PASS" } else { "FAIL" }
        );
        if let Some(n) = &row.note {
            let _ = writeln!(s, "      note: {n}");
        }
    }
    let _ = writeln!(s, "{} passed, {} failed", r.passed(), r.failed());
    s
}

/// Renders the report as JSON.
pub fn render_json(r: &TrimReport) -> String {
    let rows: Vec<serde_json::Value> = r
        .rows
        .iter()
        .map(|row| {
            serde_json::json!({
                "line": row.row.line,
                "builtin": row.row.line == 0,
                "metric": row.row.metric,
                "conditions": row.conditions,
                "altitude_m": row.row.altitude_m,
                "mass_kg": row.row.mass_kg,
                "payload_kg": row.row.payload_kg,
                "payload_cd0": row.row.payload_cd0,
                "mach": row.row.mach,
                "load_factor": row.row.load_factor,
                "afterburner": row.row.afterburner,
                "expected": row.row.expected,
                "got": row.got,
                "tolerance": row.row.tolerance,
                "allowed": row.allowed,
                "pass": row.pass,
                "note": row.note,
            })
        })
        .collect();
    let v = serde_json::json!({
        "aircraft": r.aircraft,
        "passed": r.passed(),
        "failed": r.failed(),
        "rows": rows,
    });
    serde_json::to_string_pretty(&v).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// A performance summary without expectations (`fm-trim <model>`).
pub fn summary(model_path: &Path) -> anyhow::Result<String> {
    let m = load_model(model_path)?;
    let mut s = String::new();
    let mass = m.empty_mass_kg + m.max_fuel_kg;
    let _ = writeln!(
        s,
        "fm-trim: {} at {:.0} kg (empty + full internal fuel)",
        m.name, mass
    );
    let _ = writeln!(
        s,
        "{:>8} {:>9} {:>9} {:>9} {:>9} {:>10}",
        "alt_m", "Vs_mps", "Mmax_AB", "Mmax_MIL", "roc_AB", "sus_turn"
    );
    for alt in [0.0, 3000.0, 6000.0, 9000.0, 11000.0, 13000.0, 15000.0] {
        let t = Trimmer::new(
            &m,
            &Condition {
                altitude_m: alt,
                mass_kg: mass,
                payload_cd0: 0.0,
            },
        );
        let f = |x: Option<f64>| x.map_or_else(|| "—".into(), |v| format!("{v:.2}"));
        let ab = if m.has_afterburner() {
            Power::Afterburner
        } else {
            Power::Military
        };
        let _ = writeln!(
            s,
            "{:>8.0} {:>9} {:>9} {:>9} {:>9} {:>10}",
            alt,
            f(t.stall_speed()),
            f(t.max_level_mach(ab)),
            f(t.max_level_mach(Power::Military)),
            f(t.best_climb(ab).map(|x| x.0)),
            f(t.best_over_speed(|v| t.sustained_turn(v, ab)).map(|x| x.0)),
        );
    }
    Ok(s)
}

/// Outcome of validating one or more files.
#[derive(Debug, Clone, Default)]
pub struct ValidationReport {
    /// One line per problem, errors and warnings, in file order.
    pub lines: Vec<String>,
    /// Number of errors (a file that fails to parse counts as one).
    pub errors: usize,
    /// Number of warnings.
    pub warnings: usize,
    /// Files checked.
    pub files: usize,
}

impl ValidationReport {
    /// Prints the lines to standard output; the exit status the validators share: success
    /// without errors, failure with any (warnings alone do not fail).
    pub fn print(&self) -> std::process::ExitCode {
        for l in &self.lines {
            println!("{l}");
        }
        if self.errors == 0 {
            std::process::ExitCode::SUCCESS
        } else {
            std::process::ExitCode::FAILURE
        }
    }
}

/// Validates flight-model files: schema (parse errors, unknown keys) then physical checks.
pub fn validate_files(paths: &[std::path::PathBuf]) -> ValidationReport {
    use fl_flight::validate::{Severity, validate};
    let mut r = ValidationReport::default();
    for p in paths {
        r.files += 1;
        match read_flight_model(p) {
            Err(e) => {
                // The content system's one format, cause included.
                let e = fl_content::ContentError::FlightModelSchema {
                    asset: p.display().to_string(),
                    source: e,
                };
                r.lines.push(fl_content::Finding::from(&e).to_string());
                r.errors += 1;
            }
            Ok(parsed) => {
                for w in parsed.warnings {
                    let w = fl_content::ContentWarning::from(w);
                    r.lines.push(fl_content::Finding::from(&w).to_string());
                    r.warnings += 1;
                }
                for f in validate(&parsed.value) {
                    match f.severity {
                        Severity::Error => r.errors += 1,
                        Severity::Warning => r.warnings += 1,
                    }
                    r.lines.push(f.to_string());
                }
            }
        }
    }
    r
}

/// Validates content packs through the same stack as fl-server and the client
/// ([`fl_content::load_stack`]): one line per finding, one per pack listing what this build does
/// not use yet, then the summary line (counts and loaded types). `lines` is what
/// `validate-pack` prints.
pub fn validate_pack(
    packs: &[std::path::PathBuf],
    mods_dirs: &[std::path::PathBuf],
) -> ValidationReport {
    let load = fl_content::load_stack(&fl_content::StackSources {
        mods_dirs: mods_dirs.to_vec(),
        pack_dirs: packs.to_vec(),
    });
    let mut r = ValidationReport {
        errors: load.findings.errors(),
        warnings: load.findings.warnings(),
        files: packs.len(),
        ..ValidationReport::default()
    };
    r.lines = load
        .findings
        .items
        .iter()
        .map(ToString::to_string)
        .collect();
    if let Some(c) = &load.content {
        r.lines.extend(c.unused_assets_lines());
    }
    r.lines.push(format!(
        "validate-pack: {}",
        load.findings.summary(load.content.as_ref())
    ));
    r
}

/// Validates mission files of a pack as the game loads them: the builtin layer plus `pack` (and
/// the packs of `mods_dirs`) through [`fl_content::load_stack`], then each mission read and
/// checked against that content ([`fl_content::Content::check_mission_file`]), its `lua`
/// scripts looked up in `pack`'s own `ai/`. `lines`: the stack's errors, each mission's findings
/// (`file:line: error|warning: `key`: message`), a `<pack id>:<stem>: valid|refused` line per
/// mission, then the summary. `errors` counts refused missions' errors and the stack's errors.
pub fn validate_missions(
    pack: &Path,
    mods_dirs: &[std::path::PathBuf],
    missions: &[std::path::PathBuf],
) -> ValidationReport {
    let load = fl_content::load_stack(&fl_content::StackSources {
        mods_dirs: mods_dirs.to_vec(),
        pack_dirs: vec![pack.to_owned()],
    });
    let mut r = ValidationReport {
        files: missions.len(),
        ..ValidationReport::default()
    };
    // The stack's errors matter (a broken pack cannot run a mission); its warnings are
    // validate-pack's to report.
    for f in &load.findings.items {
        if f.severity == fl_content::Severity::Error {
            r.errors += 1;
            r.lines.push(f.to_string());
        }
    }
    let Some(content) = &load.content else {
        r.lines.push(format!(
            "validate-mission: the pack {} did not load; no mission checked",
            pack.display()
        ));
        r.errors = r.errors.max(1);
        return r;
    };
    let canonical = std::fs::canonicalize(pack).unwrap_or_else(|_| pack.to_owned());
    let pack_id = content
        .packs()
        .into_iter()
        .find(|p| p.root == canonical || p.root == pack)
        .map(|p| p.id);
    let mut refused = 0usize;
    for m in missions {
        let check = content.check_mission_file(pack_id.as_deref(), m);
        r.errors += check.errors();
        r.warnings += check.warnings();
        r.lines
            .extend(check.findings.iter().map(ToString::to_string));
        let stem = m
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let id = format!("{}:{stem}", pack_id.as_deref().unwrap_or("?"));
        if check.is_valid() {
            r.lines.push(format!("{id}: valid"));
        } else {
            refused += 1;
            r.lines.push(format!("{id}: refused"));
        }
    }
    r.lines.push(format!(
        "validate-mission: {} mission(s), {} valid, {refused} refused; {} error(s), {} warning(s)",
        missions.len(),
        missions.len() - refused,
        r.errors,
        r.warnings
    ));
    r
}

/// One `terrain-query` answer: `{"lat", "lon", "height_m", "level", "land_cover"}`, `level`
/// being the finest pack level sampled or `null` where the procedural base alone gives the
/// height (outside every theater).
pub fn terrain_point(t: &fl_terrain::Terrain, lat: f64, lon: f64) -> serde_json::Value {
    let info = t.info_at(lat, lon);
    serde_json::json!({
        "lat": lat,
        "lon": lon,
        "height_m": info.height_m,
        "level": info.level,
        "land_cover": t.land_cover_at(lat, lon),
    })
}

/// Reads `terrain-query`'s positional numbers as (lat, lon) pairs: an even count of finite
/// numbers, latitudes in [−90, 90], longitudes in [−180, 180].
pub fn terrain_points(numbers: &[f64]) -> anyhow::Result<Vec<(f64, f64)>> {
    if numbers.is_empty() || !numbers.len().is_multiple_of(2) {
        anyhow::bail!(
            "expected LAT LON pairs, got {} number(s); e.g. terrain-query --pack DIR 36.25 -115.03",
            numbers.len()
        );
    }
    numbers
        .chunks_exact(2)
        .map(|p| {
            let (lat, lon) = (p[0], p[1]);
            if !lat.is_finite() || !(-90.0..=90.0).contains(&lat) {
                anyhow::bail!("latitude {lat} is not in [-90, 90] degrees");
            }
            if !lon.is_finite() || !(-180.0..=180.0).contains(&lon) {
                anyhow::bail!("longitude {lon} is not in [-180, 180] degrees");
            }
            Ok((lat, lon))
        })
        .collect()
}

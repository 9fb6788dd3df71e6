//! Schema parsing: every pack model loads; broken files fail with file, key and line; unknown keys
//! warn; hostile input never panics. Plus the validator's verdicts.

mod common;

use fl_flight::schema::{SchemaError, parse_flight_model, read_flight_model};
use fl_flight::validate::{Severity, validate};
use std::path::Path;

fn jet_text() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/test_jet.toml"))
        .expect("test jet")
}

fn parse(
    text: &str,
) -> Result<fl_flight::schema::Parsed<fl_flight::schema::FlightModelDef>, SchemaError> {
    parse_flight_model(Path::new("mods/x/aircraft/jet/jet.toml"), text)
}

fn invalid(text: &str) -> (String, usize, String) {
    match parse(text) {
        Err(SchemaError::Invalid {
            key,
            line,
            problem,
            file,
        }) => {
            assert_eq!(file, Path::new("mods/x/aircraft/jet/jet.toml"));
            (key, line, problem)
        }
        other => panic!("expected an Invalid error, got {other:?}"),
    }
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle")
        + 1
}

#[test]
fn every_pack_model_parses_without_warnings_and_validates_clean() {
    let Some(pack) = common::pack() else { return };
    for a in common::PACK_AIRCRAFT {
        let p =
            read_flight_model(&common::pack_model_path(&pack, a)).unwrap_or_else(|e| panic!("{e}"));
        assert!(p.warnings.is_empty(), "{a}: {:?}", p.warnings);
        let errors: Vec<_> = validate(&p.value)
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{a}: {errors:?}");
    }
}

#[test]
fn the_f16a_reads_every_optional_block_it_authors() {
    let Some(pack) = common::pack() else { return };
    let d = read_flight_model(&common::pack_model_path(&pack, "f16a"))
        .expect("f16a")
        .value;
    assert_eq!(d.mass.ixz_kg_m2, 1331.0);
    assert_eq!(d.mass.engine_ang_momentum, 216.9);
    assert_eq!(d.moments.cm0, -0.0189);
    assert!(
        d.moments
            .cm_q_table
            .as_ref()
            .is_some_and(|t| t.xs.len() == 14)
    );
    assert_eq!(d.limits.alpha_limit_deg, Some(25.5));
    assert_eq!(d.engine.mil_thrust.rows.len(), 8);
    assert_eq!(d.engine.mil_thrust.cols.len(), 6);
    assert_eq!(d.passive.refueling_type.as_deref(), Some("boom"));
    let f5e = read_flight_model(&common::pack_model_path(&pack, "f5e"))
        .expect("f5e")
        .value;
    assert_eq!(f5e.controls.max_elevator_neg_deg, Some(5.0));
    let mig = read_flight_model(&common::pack_model_path(&pack, "mig21bis"))
        .expect("mig")
        .value;
    assert_eq!(mig.limits.max_keas, Some(702.0));
}

#[test]
fn missing_required_key_names_file_key_and_table_line() {
    let text = jet_text().replace("cm_alpha = -0.6\n", "");
    let (key, line, problem) = invalid(&text);
    assert_eq!(key, "aero.moments.cm_alpha");
    assert_eq!(line, line_of(&text, "[aero.moments]"));
    assert!(problem.contains("missing"), "{problem}");
}

#[test]
fn missing_required_table_is_an_error() {
    let text = jet_text().replace("[aero.limits]", "[aero.limitz]");
    let (key, _, problem) = invalid(&text);
    assert_eq!(key, "aero.limits");
    assert!(problem.contains("missing"));
}

#[test]
fn wrong_type_names_the_key_line() {
    let text = jet_text().replace("mass_kg      = 6000", "mass_kg      = \"heavy\"");
    let (key, line, problem) = invalid(&text);
    assert_eq!(key, "flight_model.mass_kg");
    assert_eq!(line, line_of(&text, "\"heavy\""));
    assert!(problem.contains("expected a number"), "{problem}");
}

#[test]
fn table_shape_mismatch_is_an_error() {
    let text = jet_text().replace(
        "   0.90,  0.82,  0.74,  0.62,\n]",
        "   0.90,  0.82,  0.74,\n]",
    );
    let (key, line, problem) = invalid(&text);
    assert_eq!(key, "aero.cl_table.values");
    assert_eq!(
        line,
        line_of(&text, "[aero.cl_table]") + 3,
        "the `values` key line"
    );
    assert!(
        problem.contains("35 values") && problem.contains("needs 36"),
        "{problem}"
    );
}

#[test]
fn unsorted_breakpoints_are_an_error() {
    let text = jet_text().replace(
        "mach   = [0.2, 0.8, 1.2, 2.0]",
        "mach   = [0.2, 1.2, 0.8, 2.0]",
    );
    let (key, line, problem) = invalid(&text);
    assert_eq!(key, "aero.cl_table.mach");
    assert_eq!(line, line_of(&text, "mach   = [0.2, 1.2, 0.8, 2.0]"));
    assert!(problem.contains("strictly increasing"), "{problem}");
}

#[test]
fn unknown_keys_warn_with_their_line() {
    let text = jet_text().replace("cm0      = -0.01\n", "cm0      = -0.01\ncm_future = 1.0\n")
        + "\n[brand_new_block]\nx = 1\n";
    let p = parse(&text).expect("unknown keys are not fatal");
    let keys: Vec<_> = p
        .warnings
        .iter()
        .map(|w| (w.key.as_str(), w.line))
        .collect();
    assert!(
        keys.contains(&("aero.moments.cm_future", line_of(&text, "cm_future"))),
        "{keys:?}"
    );
    assert!(
        keys.iter().any(|(k, _)| *k == "brand_new_block"),
        "{keys:?}"
    );
    assert!(p.warnings[0].to_string().contains("jet.toml"));
}

#[test]
fn syntax_errors_carry_a_line() {
    let text = jet_text().replace("cd0           = 0.020", "cd0           = = 0.020");
    match parse(&text) {
        Err(SchemaError::Syntax { line, .. }) => assert_eq!(line, line_of(&text, "= = 0.020")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_expectation_file_is_refused_as_a_model() {
    let (key, _, problem) = invalid("[[expect]]\nmetric = \"roc_mps\"\nexpected = 1.0\n");
    assert_eq!(key, "expect");
    assert!(problem.contains("expectation file"));
}

#[test]
fn hostile_input_never_panics() {
    let text = jet_text();
    // Every prefix, and every line deleted in turn.
    for cut in (0..text.len()).step_by(7) {
        if text.is_char_boundary(cut) {
            let _ = parse(&text[..cut]);
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    for i in 0..lines.len() {
        let mut l = lines.clone();
        l.remove(i);
        let _ = parse(&l.join("\n"));
    }
    for junk in [
        "",
        "\u{0}",
        "[[[",
        "a = [1, [2, [3]]]",
        "x = 1e999",
        "[aircraft]\nname = 5",
    ] {
        let _ = parse(junk);
    }
    // Non-finite numbers are refused, not propagated.
    let (key, _, problem) = invalid(&text.replace("cd0           = 0.020", "cd0           = nan"));
    assert_eq!(key, "aero.drag_polar.cd0");
    assert!(problem.contains("finite"));
}

#[test]
fn oversized_and_binary_files_are_refused() {
    let dir = std::env::temp_dir().join(format!("fl-flight-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let big = dir.join("big.toml");
    std::fs::write(
        &big,
        vec![b'#'; (fl_flight::schema::MAX_FILE_BYTES + 10) as usize],
    )
    .expect("write");
    assert!(matches!(
        read_flight_model(&big),
        Err(SchemaError::TooLarge { .. })
    ));
    let bin = dir.join("bin.toml");
    std::fs::write(&bin, [0xff, 0xfe, 0x00, 0x41]).expect("write");
    assert!(matches!(
        read_flight_model(&bin),
        Err(SchemaError::Syntax { .. })
    ));
    assert!(matches!(
        read_flight_model(&dir.join("absent.toml")),
        Err(SchemaError::Io { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

fn errors_for(text: &str) -> Vec<String> {
    let d = parse(text).expect("parses").value;
    validate(&d)
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| f.key)
        .collect()
}

#[test]
fn validator_accepts_the_test_jet_and_rejects_physical_mistakes() {
    let text = jet_text();
    assert!(errors_for(&text).is_empty());
    assert!(
        errors_for(&text.replace("cm_alpha = -0.6", "cm_alpha = 0.2"))
            .contains(&"aero.moments.cm_alpha".to_string())
    );
    assert!(
        errors_for(&text.replace("cn_beta  =  0.15", "cn_beta  = -0.15"))
            .contains(&"aero.moments.cn_beta".to_string())
    );
    assert!(
        errors_for(&text.replace("alpha_stall_deg  = 20.0", "alpha_stall_deg  = 25.0"))
            .contains(&"aero.limits.alpha_stall_deg".to_string())
    );
    assert!(
        errors_for(&text.replace("ixz_kg_m2    = 500", "ixz_kg_m2    = 50000"))
            .contains(&"flight_model.ixz_kg_m2".to_string())
    );
    let with_table = text.replace(
        "[aero.cd_wave]",
        "[aero.cd_table]\nalpha = [-10, 0, 10, 20]\nmach = [0.2, 2.0]\nvalues = [0.1, 0.1, 0.02, 0.02, 0.1, 0.1, 0.3, 0.3]\n\n[aero.cd_wave]",
    );
    assert!(errors_for(&with_table).contains(&"aero.drag_polar.k".to_string()));
    assert!(
        errors_for(&with_table.replace("k             = 0.12", "k             = 0.0")).is_empty()
    );
    // Findings carry the key's line.
    let bad = text.replace("cm_alpha = -0.6", "cm_alpha = 0.2");
    let d = parse(&bad).expect("parses").value;
    let f = validate(&d)
        .into_iter()
        .find(|f| f.key == "aero.moments.cm_alpha")
        .expect("finding");
    assert_eq!(f.line, line_of(&bad, "cm_alpha = 0.2"));
}

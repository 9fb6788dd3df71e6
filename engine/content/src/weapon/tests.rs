//! Unit tests of weapon definitions: SI conversion, the gun defaults, bounds (each absurd value
//! names file, line and key), the seeker/guidance and reach rules, and unknown-key warnings.

use super::*;

fn parse(text: &str) -> Result<(WeaponDef, Vec<crate::ContentWarning>), ContentError> {
    parse_weapon_text(Path::new("weapons/w.toml"), text, "p", "fl-base")
}

fn ok(text: &str) -> (WeaponDef, Vec<crate::ContentWarning>) {
    parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok((w, _)) => panic!("accepted {w:?}\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn keys(w: &[crate::ContentWarning]) -> Vec<&str> {
    w.iter().map(|w| w.key.as_str()).collect()
}

/// A full missile, one key per line (so a key's line is its index + 1).
const MISSILE: &str = "[weapon]\nid = \"fl-base:aim9p\"\nname = \"AIM-9P\"\ntype = \"missile\"\ncategory = \"air-to-air\"\n\
    [seeker]\ntype = \"ir\"\nsensor_id = \"fl-base:aim9p_seeker\"\nfire_and_forget = true\n\
    [performance]\nmax_range_nm = 9.0\nmin_range_nm = 0.3\nmax_speed_kts = 1500.0\nmotor_burn_time_s = 5.0\nmax_g = 20.0\n\
    [warhead]\nblast_radius_ft = 30.0\ndamage = 60.0\n\
    [countermeasures]\nflare_susceptibility = 0.6\nchaff_susceptibility = 0.0\nnotch_susceptibility = 0.25\n\
    [load]\nweight_lb = 190.0\ndrag_factor = 0.00048\n";

/// A gun with nothing but what the pack's M39A2 writes.
const GUN: &str = "[weapon]\nid = \"fl-base:g\"\nname = \"G\"\ntype = \"gun\"\n\
    [performance]\nmax_range_nm = 0.6\n[warhead]\nblast_radius_ft = 3.0\ndamage = 8.0\n[load]\nweight_lb = 300.0\n";

/// The 1-based line of the first `key =` in `text`.
fn line_of(text: &str, key: &str) -> usize {
    let prefix = format!("{key} =");
    text.lines()
        .position(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("{key} not in text"))
        + 1
}

/// `text` with `key`'s value replaced (the key must be present).
fn set(text: &str, key: &str, value: &str) -> String {
    let prefix = format!("{key} =");
    text.lines()
        .map(|l| {
            if l.starts_with(&prefix) {
                format!("{key} = {value}")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn reads_a_missile_in_si() {
    let (w, warn) = ok(MISSILE);
    assert!(warn.is_empty(), "{warn:?}");
    assert_eq!(
        (w.id.as_str(), w.kind),
        ("fl-base:aim9p", WeaponType::Missile)
    );
    assert!((w.mass_kg - 86.182_550_3).abs() < 1e-6);
    assert_eq!((w.drag_cd0, w.rounds), (0.00048, 1));
    assert!(w.gun.is_none());
    let s = w.seeker.as_ref().unwrap_or_else(|| panic!("no seeker"));
    assert_eq!(s.kind, SeekerType::Infrared);
    assert_eq!(s.table, GuidanceTable::Seeker);
    assert_eq!(s.sensor_id.as_deref(), Some("fl-base:aim9p_seeker"));
    assert!(s.fire_and_forget && !s.requires_designator);
    assert_eq!(
        (s.pitbull_range_m, s.loft_bias_rad, s.loft_range_m),
        (0.0, 0.0, 0.0)
    );
    assert_eq!(w.lines.seeker_sensor, line_of(MISSILE, "sensor_id"));
    let p = w.performance.unwrap_or_else(|| panic!("no performance"));
    assert_eq!(p.reach, Reach::Powered);
    assert!((p.max_range_m - 9.0 * 1852.0).abs() < 1e-9);
    assert!((p.min_range_m - 0.3 * 1852.0).abs() < 1e-9);
    assert!((p.max_speed_mps - 1500.0 * 1852.0 / 3600.0).abs() < 1e-9);
    assert_eq!((p.motor_burn_s, p.max_g, p.cep_m), (5.0, 20.0, 0.0));
    let h = w.warhead.unwrap_or_else(|| panic!("no warhead"));
    assert!((h.blast_radius_m - 30.0 * 0.3048).abs() < 1e-12);
    assert_eq!((h.damage, h.nuclear_yield_kt), (60.0, None));
    assert_eq!(
        w.countermeasures,
        Susceptibility {
            chaff: 0.0,
            flare: 0.6,
            notch: 0.25
        }
    );
}

#[test]
fn a_gun_that_omits_them_gets_the_originals_defaults() {
    let (w, warn) = ok(GUN);
    assert!(warn.is_empty(), "{warn:?}");
    assert_eq!(w.rounds, DEFAULT_GUN_ROUNDS);
    assert_eq!(DEFAULT_GUN_ROUNDS, 500);
    let g = w.gun.unwrap_or_else(|| panic!("a gun has gun parameters"));
    assert_eq!(g.rate_of_fire_rpm, 1200.0);
    assert_eq!(g.muzzle_velocity_mps, 1030.0);
    assert_eq!(g.dispersion_rad, 0.0);
    assert_eq!(
        g.defaulted,
        GunDefaulted {
            rate_of_fire: true,
            muzzle_velocity: true,
            dispersion: true,
            rounds: true
        }
    );
    assert!((g.interval_s() - 0.05).abs() < 1e-12);
    // 0 is the original's spelling of "the default" for the rate and the speed.
    let zeros = GUN.replace(
        "max_range_nm = 0.6\n",
        "max_range_nm = 0.6\nmax_speed_kts = 0\nrate_of_fire_rpm = 0\n",
    );
    let (z, warn) = ok(&zeros);
    assert!(warn.is_empty(), "{warn:?}");
    assert_eq!(z.gun, w.gun);
}

#[test]
fn a_gun_that_writes_them_gets_its_own() {
    let text = GUN.replace(
        "max_range_nm = 0.6\n",
        "max_range_nm = 0.6\nmax_speed_kts = 2000.0\nrate_of_fire_rpm = 6000.0\ndispersion_mrad = 4.5\n",
    ) + "rounds = 511\n";
    let (w, warn) = ok(&text);
    assert!(warn.is_empty(), "{warn:?}");
    assert_eq!(w.rounds, 511);
    let g = w.gun.unwrap_or_else(|| panic!("gun"));
    assert_eq!(g.rate_of_fire_rpm, 6000.0);
    assert!((g.muzzle_velocity_mps - 2000.0 * 1852.0 / 3600.0).abs() < 1e-9);
    assert!((g.dispersion_rad - 0.0045).abs() < 1e-15);
    assert_eq!(g.defaulted, GunDefaulted::default());
    assert!((g.interval_s() - 0.01).abs() < 1e-12);
}

#[test]
fn rounds_zero_means_the_default_and_says_so() {
    let (g, warn) = ok(&format!("{GUN}rounds = 0\n"));
    assert_eq!(g.rounds, 500);
    assert_eq!(keys(&warn), ["load.rounds"]);
    assert!(warn[0].message.contains("500"), "{}", warn[0]);
    assert!(g.gun.is_some_and(|g| g.defaulted.rounds));
    let (m, warn) = ok(&format!("{MISSILE}rounds = 0\n"));
    assert_eq!(m.rounds, 1);
    assert_eq!(keys(&warn), ["load.rounds"]);
}

#[test]
fn gun_keys_on_other_stores_warn_and_are_ignored() {
    let text = MISSILE.replace(
        "max_g = 20.0\n",
        "max_g = 20.0\nrate_of_fire_rpm = 100\ndispersion_mrad = 2\n",
    );
    let (w, warn) = ok(&text);
    assert!(w.gun.is_none());
    assert_eq!(
        keys(&warn),
        [
            "performance.rate_of_fire_rpm",
            "performance.dispersion_mrad"
        ]
    );
}

#[test]
fn absurd_numbers_are_errors_naming_file_line_and_key() {
    let gun = GUN.replace(
        "max_range_nm = 0.6\n",
        "max_range_nm = 0.6\nrate_of_fire_rpm = 1000\ndispersion_mrad = 1\n",
    ) + "rounds = 10\n";
    let ir = MISSILE.replace(
        "fire_and_forget = true\n",
        "fire_and_forget = true\nloft_bias_deg = 10\nloft_range_nm = 5\n",
    );
    let cases: &[(&str, &str, &str, &str)] = &[
        (MISSILE, "max_range_nm", "-1", "performance.max_range_nm"),
        (MISSILE, "max_range_nm", "0", "performance.max_range_nm"),
        (MISSILE, "max_range_nm", "1e9", "performance.max_range_nm"),
        (MISSILE, "max_range_nm", "nan", "performance.max_range_nm"),
        (MISSILE, "max_range_nm", "inf", "performance.max_range_nm"),
        (
            MISSILE,
            "max_range_nm",
            "\"far\"",
            "performance.max_range_nm",
        ),
        (MISSILE, "min_range_nm", "-0.1", "performance.min_range_nm"),
        (MISSILE, "min_range_nm", "10", "performance.min_range_nm"),
        (MISSILE, "max_speed_kts", "-5", "performance.max_speed_kts"),
        (MISSILE, "max_speed_kts", "1e7", "performance.max_speed_kts"),
        (
            MISSILE,
            "motor_burn_time_s",
            "-1",
            "performance.motor_burn_time_s",
        ),
        (
            MISSILE,
            "motor_burn_time_s",
            "1e6",
            "performance.motor_burn_time_s",
        ),
        (MISSILE, "max_g", "-1", "performance.max_g"),
        (MISSILE, "max_g", "1000", "performance.max_g"),
        (MISSILE, "blast_radius_ft", "-1", "warhead.blast_radius_ft"),
        (
            MISSILE,
            "blast_radius_ft",
            "1e12",
            "warhead.blast_radius_ft",
        ),
        (MISSILE, "damage", "-nan", "warhead.damage"),
        (MISSILE, "damage", "-3", "warhead.damage"),
        (
            MISSILE,
            "flare_susceptibility",
            "1.5",
            "countermeasures.flare_susceptibility",
        ),
        (
            MISSILE,
            "chaff_susceptibility",
            "-0.1",
            "countermeasures.chaff_susceptibility",
        ),
        (
            MISSILE,
            "notch_susceptibility",
            "2",
            "countermeasures.notch_susceptibility",
        ),
        (MISSILE, "weight_lb", "0", "load.weight_lb"),
        (MISSILE, "weight_lb", "1e12", "load.weight_lb"),
        (MISSILE, "drag_factor", "-0.1", "load.drag_factor"),
        (MISSILE, "fire_and_forget", "1", "seeker.fire_and_forget"),
        (&ir, "loft_bias_deg", "90", "seeker.loft_bias_deg"),
        (&ir, "loft_range_nm", "-5", "seeker.loft_range_nm"),
        (
            &gun,
            "rate_of_fire_rpm",
            "-1",
            "performance.rate_of_fire_rpm",
        ),
        (
            &gun,
            "rate_of_fire_rpm",
            "1e9",
            "performance.rate_of_fire_rpm",
        ),
        (&gun, "dispersion_mrad", "-1", "performance.dispersion_mrad"),
        (
            &gun,
            "dispersion_mrad",
            "1000",
            "performance.dispersion_mrad",
        ),
        (&gun, "rounds", "-1", "load.rounds"),
        (&gun, "rounds", "2000000", "load.rounds"),
        (&gun, "rounds", "1.5", "load.rounds"),
    ];
    for (base, key, value, path) in cases {
        let text = set(base, key, value);
        let e = err(&text);
        let want = format!("weapons/w.toml:{}: `{path}`", line_of(&text, key));
        assert!(e.starts_with(&want), "{key} = {value}: {e}\nwanted {want}");
    }
}

#[test]
fn reach_is_one_key_and_inert_stores_need_no_performance() {
    let both = MISSILE.replace("max_g = 20.0\n", "max_g = 20.0\nstandoff_range_ft = 100\n");
    assert!(err(&both).contains("exclusive"));
    let neither = set(MISSILE, "max_range_nm", "1").replace("max_range_nm = 1\n", "");
    assert!(
        err(&neither).contains("one of max_range_nm"),
        "{}",
        err(&neither)
    );
    let bomb = "[weapon]\nid = \"fl-base:b\"\nname = \"B\"\ntype = \"bomb\"\n\
        [performance]\nstandoff_range_ft = 2000.0\nCEP_ft = 150.0\n[warhead]\nblast_radius_ft = 120\ndamage = 200\n[load]\nweight_lb = 500\n";
    let (b, warn) = ok(bomb);
    assert!(warn.is_empty(), "{warn:?}");
    let p = b.performance.unwrap_or_else(|| panic!("perf"));
    assert_eq!(p.reach, Reach::Standoff);
    assert!((p.max_range_m - 609.6).abs() < 1e-9);
    assert!((p.cep_m - 45.72).abs() < 1e-9);
    assert!(b.seeker.is_none() && b.gun.is_none());
    // Everything that fires needs a reach and a warhead; a pod or a tank needs neither.
    assert!(err(&GUN.replace("[performance]\nmax_range_nm = 0.6\n", "")).contains("`performance`"));
    assert!(
        err(&GUN.replace("[warhead]\nblast_radius_ft = 3.0\ndamage = 8.0\n", ""))
            .contains("`warhead`")
    );
    for inert in ["pod", "fuel"] {
        let (t, warn) = ok(&format!(
            "[weapon]\nid = \"fl-base:t\"\nname = \"T\"\ntype = \"{inert}\"\n[load]\nweight_lb = 2000\ndrag_factor = 0.003\n"
        ));
        assert!(warn.is_empty() && t.kind.is_inert());
        assert!(t.performance.is_none() && t.warhead.is_none() && t.gun.is_none());
        assert_eq!(t.rounds, 1);
    }
}

#[test]
fn seeker_and_guidance_rules() {
    let both = format!("{MISSILE}[guidance]\ntype = \"laser\"\n");
    assert!(err(&both).contains("exclusive"));
    let lgb = "[weapon]\nid = \"fl-base:gbu12\"\nname = \"GBU-12\"\ntype = \"bomb\"\n\
        [guidance]\ntype = \"laser\"\nrequires_designator = true\n\
        [performance]\nstandoff_range_ft = 15000\n[warhead]\nblast_radius_ft = 100\ndamage = 180\n[load]\nweight_lb = 500\n";
    let (g, warn) = ok(lgb);
    assert!(warn.is_empty(), "{warn:?}");
    let s = g.seeker.unwrap_or_else(|| panic!("guidance"));
    assert_eq!(
        (s.kind, s.table),
        (SeekerType::Laser, GuidanceTable::Guidance)
    );
    assert!(s.requires_designator && s.sensor_id.is_none());

    let arh = MISSILE
        .replace("type = \"ir\"", "type = \"active-radar\"")
        .replace(
            "fire_and_forget = true\n",
            "fire_and_forget = true\npitbull_nm = 10\nloft_bias_deg = 20\nloft_range_nm = 15\n",
        );
    let (a, _) = ok(&arh);
    let s = a.seeker.unwrap_or_else(|| panic!("seeker"));
    assert_eq!(s.kind, SeekerType::ActiveRadar);
    assert!((s.pitbull_range_m - 18_520.0).abs() < 1e-9);
    assert!((s.loft_bias_rad - 20.0_f64.to_radians()).abs() < 1e-12);
    assert!((s.loft_range_m - 27_780.0).abs() < 1e-9);
    // Pitbull belongs to active radar; the misspelt key is named; the loft comes as a pair.
    let e = err(&arh.replace("active-radar", "semi-active-radar"));
    assert!(
        e.contains("seeker.pitbull_nm") && e.contains("active-radar"),
        "{e}"
    );
    let e = err(&arh.replace("pitbull_nm = 10", "pitbull_range_m = 18520"));
    assert!(
        e.contains("`seeker.pitbull_range_m`") && e.contains("pitbull_nm"),
        "{e}"
    );
    assert!(err(&arh.replace("loft_range_nm = 15\n", "")).contains("pair"));
    assert!(err(&MISSILE.replace("\"ir\"", "\"telepathy\"")).contains("telepathy"));
    assert!(err(&MISSILE.replace("type = \"ir\"\n", "")).contains("`seeker.type`"));

    // Variant spellings: `infrared` silently, underscores with a warning.
    let (i, warn) = ok(&MISSILE.replace("\"ir\"", "\"infrared\""));
    assert!(warn.is_empty());
    assert_eq!(i.seeker.map(|s| s.kind), Some(SeekerType::Infrared));
    let (_, warn) = ok(&MISSILE.replace("\"ir\"", "\"semi_active_radar\""));
    assert_eq!(keys(&warn), ["seeker.type"]);
    // A looking seeker without a head, and the deprecated ad-hoc lobe, warn.
    let (_, warn) = ok(&MISSILE.replace("sensor_id = \"fl-base:aim9p_seeker\"\n", ""));
    assert_eq!(keys(&warn), ["seeker.sensor_id"]);
    let (_, warn) = ok(&MISSILE.replace(
        "fire_and_forget = true\n",
        "fire_and_forget = true\nfov_deg = 30\nacquisition_nm = 5\n",
    ));
    assert_eq!(keys(&warn), ["seeker.fov_deg", "seeker.acquisition_nm"]);
    // A sensor id is a reference: prefix and case rules apply.
    let (r, warn) = ok(&MISSILE.replace("fl-base:aim9p_seeker", "AIM9P_Seeker"));
    assert_eq!(
        r.seeker.and_then(|s| s.sensor_id).as_deref(),
        Some("fl-base:aim9p_seeker")
    );
    assert_eq!(keys(&warn), ["seeker.sensor_id"]);
    assert!(err(&MISSILE.replace("fl-base:aim9p_seeker", "fl-base:../x")).contains("traversal"));
}

#[test]
fn nuclear_warheads_come_with_a_yield() {
    let nuke = MISSILE.replace(
        "damage = 60.0\n",
        "damage = 60.0\nnuclear = true\nyield_kt = 10\n",
    );
    let (n, _) = ok(&nuke);
    assert_eq!(n.warhead.and_then(|w| w.nuclear_yield_kt), Some(10.0));
    assert!(err(&nuke.replace("yield_kt = 10\n", "")).contains("yield_kt"));
    assert!(err(&nuke.replace("nuclear = true\n", "")).contains("nuclear = true"));
    assert!(err(&nuke.replace("yield_kt = 10", "yield_kt = 0")).contains("warhead.yield_kt"));
}

#[test]
fn unknown_keys_warn_where_they_are() {
    let text = MISSILE
        .replace("max_g = 20.0\n", "max_g = 20.0\nmach = 3\n")
        .replace("damage = 60.0\n", "damage = 60.0\nshrapnel = 2\n")
        + "[future]\nx = 1\n";
    let (_, warn) = ok(&text);
    assert_eq!(
        keys(&warn),
        ["performance.mach", "warhead.shrapnel", "future"]
    );
    assert_eq!(warn[0].line, line_of(&text, "mach"));
}

#[test]
fn refuses_bad_load_and_reserved_ids() {
    let base = "[weapon]\nid = \"fl-base:x\"\nname = \"X\"\ntype = \"pod\"\n";
    let e = |t: &str| match parse(t) {
        Ok(_) => panic!("accepted {t}"),
        Err(e) => e.to_string(),
    };
    assert!(e(base).contains("`load`: required table is missing"));
    assert!(e(&format!("{base}[load]\nweight_lb = 0\n")).contains("load.weight_lb"));
    assert!(e(&format!("{base}[load]\nweight_lb = \"heavy\"\n")).contains("expected a number"));
    let builtin = base.replace("fl-base:x", "builtin:cannon");
    assert!(e(&format!("{builtin}[load]\nweight_lb = 1\n")).contains("reserved"));
    let trav = base.replace("fl-base:x", "fl-base:../../x");
    assert!(e(&format!("{trav}[load]\nweight_lb = 1\n")).contains("traversal"));
    let ty = base.replace("\"pod\"", "\"laser-sword\"");
    assert!(e(&format!("{ty}[load]\nweight_lb = 1\n")).contains("laser-sword"));
}

#[test]
fn unprefixed_foreign_and_uppercase_ids_warn() {
    let (w, warn) = ok(
        "[weapon]\nid = \"Tank\"\nname = \"T\"\ntype = \"fuel\"\n[load]\nweight_lb = 1\nmystery = 2\n",
    );
    assert_eq!(w.id, "fl-base:tank");
    assert_eq!(keys(&warn), ["weapon.id", "load.mystery"]);
    let (w, warn) =
        ok("[weapon]\nid = \"other:tank\"\nname = \"T\"\ntype = \"fuel\"\n[load]\nweight_lb = 1\n");
    assert_eq!(w.id, "other:tank");
    assert_eq!(warn.len(), 1);
    assert!(warn[0].message.contains("namespace"));
}

#[test]
fn every_prefix_parses_or_fails_cleanly() {
    for text in [MISSILE, GUN] {
        for end in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
            let _ = parse(&text[..end]);
        }
    }
}

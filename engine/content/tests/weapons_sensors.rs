//! Weapons and sensors through a whole load: seeker heads resolve against the stack's sensor index
//! (an unknown head warns and is cleared, a head of the wrong channel warns), a higher pack's
//! sensor is the head a lower pack's missile looks through, an absurd number refuses the file
//! naming file, line and key, and the lookups the server uses match ids case-insensitively.

mod support;

use fl_content::{ContentError, ErrorPolicy, SeekerType, SensorType};
use support::{Mods, canon};

fn missile(id: &str, seeker_type: &str, head: &str) -> String {
    format!(
        "[weapon]\nid = \"{id}\"\nname = \"M\"\ntype = \"missile\"\n\
         [seeker]\ntype = \"{seeker_type}\"\nsensor_id = \"{head}\"\nfire_and_forget = true\n\
         [performance]\nmax_range_nm = 5\n[warhead]\nblast_radius_ft = 20\ndamage = 50\n[load]\nweight_lb = 100\n"
    )
}

fn sensor(id: &str, kind: &str, max_range_nm: f64) -> String {
    format!(
        "[sensor]\nid = \"{id}\"\nname = \"S\"\ntype = \"{kind}\"\nrole = \"seeker\"\n\
         [search]\naz_half_angle_deg = 20\nel_half_angle_deg = 20\nmax_range_nm = {max_range_nm:?}\npod = 0.5\n"
    )
}

#[test]
fn seeker_heads_resolve_against_the_sensor_index() {
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    m.write("p/sensors/ir.toml", &sensor("p:ir_head", "ir", 4.0));
    m.write("p/weapons/good.toml", &missile("p:good", "ir", "p:ir_head"));
    let lost = m.write("p/weapons/lost.toml", &missile("p:lost", "ir", "p:nowhere"));
    let wrong = m.write(
        "p/weapons/wrong.toml",
        &missile("p:wrong", "semi-active-radar", "p:ir_head"),
    );
    let c = m.ok();

    let good = c.weapon("P:GOOD").unwrap_or_else(|| panic!("good"));
    let head = c.seeker_sensor(good).unwrap_or_else(|| panic!("no head"));
    assert_eq!((head.id.as_str(), head.kind), ("p:ir_head", SensorType::Ir));
    assert!((head.search.max_range_m - 4.0 * 1852.0).abs() < 1e-9);
    assert_eq!(c.sensor("p:IR_head").map(|s| &s.id), Some(&head.id));

    // Unknown head: a warning at the key, and the weapon loads without one.
    let l = c.weapon("p:lost").unwrap_or_else(|| panic!("lost"));
    assert_eq!(
        l.seeker.as_ref().map(|s| s.kind),
        Some(SeekerType::Infrared)
    );
    assert_eq!(l.seeker.as_ref().and_then(|s| s.sensor_id.clone()), None);
    assert!(c.seeker_sensor(l).is_none());
    // A radar seeker looking through an IR head: kept, but said.
    let w = c.weapon("p:wrong").unwrap_or_else(|| panic!("wrong"));
    assert!(c.seeker_sensor(w).is_some());

    let found: Vec<(std::path::PathBuf, usize, &str)> = c
        .warnings()
        .iter()
        .filter(|w| w.key == "seeker.sensor_id")
        .map(|w| (w.file.clone(), w.line, w.message.as_str()))
        .collect();
    assert_eq!(found.len(), 2, "{:#?}", c.warnings());
    assert_eq!((found[0].0.clone(), found[0].1), (canon(&lost), 7));
    assert!(
        found[0].2.contains("unknown sensor \"p:nowhere\""),
        "{}",
        found[0].2
    );
    assert_eq!((found[1].0.clone(), found[1].1), (canon(&wrong), 7));
    assert!(found[1].2.contains("wrong signature"), "{}", found[1].2);
}

#[test]
fn a_higher_packs_sensor_is_the_head_a_lower_packs_missile_uses() {
    let m = Mods::new();
    m.pack("base", "base", 10, &[]);
    m.write("base/sensors/head.toml", &sensor("shared:head", "ir", 4.0));
    m.write(
        "base/weapons/m.toml",
        &missile("base:m", "ir", "shared:head"),
    );
    m.pack("theater", "theater", 20, &["base"]);
    m.write(
        "theater/sensors/head.toml",
        &sensor("shared:head", "ir", 6.0),
    );
    let c = m.ok();
    let w = c.weapon("base:m").unwrap_or_else(|| panic!("m"));
    let head = c.seeker_sensor(w).unwrap_or_else(|| panic!("head"));
    assert_eq!(head.pack, "theater");
    assert!((head.search.max_range_m - 6.0 * 1852.0).abs() < 1e-9);
    // One pack sensor (the higher pack's override), besides the builtin eyeball.
    assert_eq!(
        c.sensors()
            .filter(|s| !s.id.starts_with("builtin:"))
            .count(),
        1
    );
}

#[test]
fn an_absurd_number_refuses_the_file_naming_file_line_and_key() {
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    let bad_sensor = m.write(
        "p/sensors/bad.toml",
        &sensor("p:bad", "radar", 4.0).replace("pod = 0.5", "pod = 1.5"),
    );
    let bad_weapon = m.write(
        "p/weapons/bad.toml",
        &missile("p:bad", "ir", "p:ok").replace("max_range_nm = 5", "max_range_nm = -5"),
    );
    m.write("p/sensors/ok.toml", &sensor("p:ok", "ir", 4.0));
    m.write("p/weapons/ok.toml", &missile("p:ok", "ir", "p:ok"));

    let f = m.fail();
    let invalid: Vec<(std::path::PathBuf, usize, String)> = f
        .errors
        .iter()
        .filter_map(|e| match e {
            ContentError::Invalid {
                file, line, key, ..
            } => Some((file.clone(), *line, key.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        invalid,
        [
            (canon(&bad_sensor), 10, "search.pod".to_owned()),
            (
                canon(&bad_weapon),
                10,
                "performance.max_range_nm".to_owned()
            ),
        ],
        "{f}"
    );
    // Skipping reports the same errors and keeps the rest.
    let c = m
        .load(ErrorPolicy::SkipAndReport)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.report().errors.len(), 2);
    assert!(c.weapon("p:bad").is_none() && c.sensor("p:bad").is_none());
    assert!(
        c.weapon("p:ok")
            .is_some_and(|w| c.seeker_sensor(w).is_some())
    );
}

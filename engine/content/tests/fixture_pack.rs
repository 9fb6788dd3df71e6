//! The real community pack (`../shared/fixtures/fl-base-pack`) loads without errors, its entity
//! types resolve to flight models and assets, and the default loadouts cost what the weapon files
//! say. Without the fixture pack each test records an `FL-SKIP` (the workspace's one locator,
//! `fl-fixtures`) and returns; under `FL_REQUIRE_FIXTURES=1` it fails instead.

use fl_content::{
    AssetError, AssetKind, Category, Content, ErrorPolicy, LoadOptions, ResolvedAsset, TrustLevel,
    TypeSource,
};
use std::path::PathBuf;

const LB: f64 = 0.453_592_37;

/// fl-flight's own read and compile of a model file, bypassing fl-content.
fn flight_model_by_hand(path: &std::path::Path) -> fl_flight::model::AircraftModel {
    let parsed = fl_flight::schema::read_flight_model(path).unwrap_or_else(|e| panic!("{e}"));
    fl_flight::model::AircraftModel::from_def(&parsed.value).unwrap_or_else(|e| panic!("{e}"))
}

fn load(pack: PathBuf) -> Content {
    Content::load(&LoadOptions {
        pack_dirs: vec![pack],
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn loads_without_errors_and_reports_exactly_the_expected_warnings() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = load(pack.clone());
    let root = std::fs::canonicalize(&pack).unwrap_or(pack);
    assert!(c.report().errors.is_empty());
    assert!(c.report().overrides.is_empty());
    // The pack ships the `ai/` scripts its missions and entity types name, except `trainer`
    // (and the mission-only `bomber` and `strike_director`, which this loader does not read):
    // so exactly the T-38A's `ai_script = "trainer"` warns, and it spawns without a script.
    // Nothing else in the pack is suspicious to this loader.
    let got: Vec<(String, usize, String)> = c
        .warnings()
        .iter()
        .map(|w| {
            (
                w.file
                    .strip_prefix(&root)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                w.line,
                w.key.clone(),
            )
        })
        .collect();
    let want = vec![(
        "entities/t38a.toml".to_string(),
        26,
        "entity.ai_script".to_string(),
    )];
    assert_eq!(got, want, "{:#?}", c.warnings());
    assert!(
        c.warnings()[0].message.contains("ai/trainer.lua"),
        "{}",
        c.warnings()[0]
    );
    // The fighters' shared script resolves (it is what the F-16A, F-5E and MiG-21bis name).
    let fighter = c
        .read_asset(AssetKind::AiScript, "fighter")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!fighter.is_empty());
}

#[test]
fn pack_metadata_and_registry_order() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = load(pack);
    let packs = c.packs();
    assert_eq!(packs.len(), 1);
    let p = &packs[0];
    assert_eq!(p.id, "fl-base-pack");
    assert_eq!(p.namespace, "fl-base");
    assert_eq!(p.priority, 50);
    assert_eq!(p.trust, TrustLevel::Unsigned);
    assert!(!p.signed);
    let ids: Vec<&str> = c.types().iter().map(|t| t.id()).collect();
    assert_eq!(
        ids,
        [
            "builtin:debug-entity",
            "builtin:jet-trainer",
            "fl-base:f16a",
            "fl-base:f5e",
            "fl-base:fuel_depot",
            "fl-base:mig21bis",
            "fl-base:sa6_battery",
            "fl-base:t38a",
            "fl-base:ural375",
            "fl-base:zsu23_4",
        ]
    );
    for (i, t) in c.types().iter().enumerate() {
        assert_eq!(c.type_index(t.id()), Some(i as u32));
        let expect = if i < 2 {
            TypeSource::Builtin
        } else {
            TypeSource::Pack("fl-base-pack".into())
        };
        assert_eq!(t.source, expect);
    }
    assert_eq!(
        c.type_index("FL-BASE:F16A"),
        Some(2),
        "ids match case-insensitively"
    );
    assert_eq!(c.type_index("fl-base:f22"), None);
}

#[test]
fn default_loadouts_cost_what_the_weapon_files_say() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = load(pack);
    // (type, mass in lb summed by hand from weapons/*.toml [load].weight_lb, drag summed likewise)
    let cases = [
        // M61A1 296 + 2 × AIM-9P 190 + 2 × AIM-7M 510
        (
            "fl-base:f16a",
            296.0 + 2.0 * 190.0 + 2.0 * 510.0,
            2.0 * 0.00048 + 2.0 * 0.0030,
        ),
        // M39A2 300 + 2 × AIM-9P 190
        ("fl-base:f5e", 300.0 + 2.0 * 190.0, 2.0 * 0.00048),
        // GSh-23L 143 + 2 × R-60M 99
        ("fl-base:mig21bis", 143.0 + 2.0 * 99.0, 2.0 * 0.00043),
        // unarmed
        ("fl-base:t38a", 0.0, 0.0),
        // one 3M9M station (the store mass as authored, not multiplied by its 3 rounds)
        ("fl-base:sa6_battery", 1320.0, 0.0),
        ("fl-base:zsu23_4", 1984.0, 0.0),
        ("fl-base:ural375", 0.0, 0.0),
    ];
    for (id, lb, cd0) in cases {
        let t = c.entity_type(id).unwrap_or_else(|| panic!("{id} missing"));
        assert!(
            (t.payload.mass_kg - lb * LB).abs() < 1e-9,
            "{id}: {} kg",
            t.payload.mass_kg
        );
        assert!(
            (t.payload.cd0 - cd0).abs() < 1e-12,
            "{id}: cd0 {}",
            t.payload.cd0
        );
        let r = c
            .type_record(c.type_index(id).unwrap_or(u32::MAX))
            .unwrap_or_else(|| panic!("{id}"));
        assert_eq!(r.payload_mass_kg, (lb * LB) as f32);
        assert_eq!(r.payload_cd0, cd0 as f32);
    }
}

#[test]
fn wire_records_carry_the_entity_files_values() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = load(pack);
    let f16 = c.type_record(2).unwrap_or_else(|| panic!("no record 2"));
    assert_eq!(f16.type_index, 2);
    assert_eq!(f16.id, "fl-base:f16a");
    assert_eq!(f16.name, "F-16A Fighting Falcon (ADF)");
    assert_eq!(f16.mesh, "f16a/f16a");
    assert_eq!(
        f16.damage_mesh, "",
        "the damage state is a node inside the mesh"
    );
    assert_eq!(f16.flight_model, "f16a/f16a");
    assert_eq!(f16.category, 0);
    assert_eq!(f16.projectile_kind, 0);
    assert_eq!(
        (f16.deck_length_m, f16.deck_width_m, f16.deck_height_m),
        (0.0, 0.0, 0.0)
    );
    assert_eq!(f16.mesh_variant, "");
    let depot = c
        .entity_type("fl-base:fuel_depot")
        .unwrap_or_else(|| panic!("depot"));
    assert_eq!(depot.def.category, Category::Structure);
    assert_eq!(depot.def.collision_radius_m, 22.0);
    assert!(depot.flight_model.is_none());
    let truck = c.type_record(8).unwrap_or_else(|| panic!("truck"));
    assert_eq!(
        (
            truck.id.as_str(),
            truck.category,
            truck.flight_model.as_str()
        ),
        ("fl-base:ural375", 1, "")
    );
    // Defaults from the format: an air vehicle without a radius gets 8 m.
    let f5 = c
        .entity_type("fl-base:f5e")
        .unwrap_or_else(|| panic!("f5e"));
    assert_eq!(f5.def.collision_radius_m, 8.0);
    assert_eq!(f5.def.sensors, ["fl-base:apq159", "fl-base:eyeball_day"]);
    assert_eq!(f5.def.hardpoints.len(), 7);
    assert_eq!((f5.def.chaff_count, f5.def.flare_count), (30, 15));
    assert_eq!(f5.def.signatures.rcs, 0.55);
    assert_eq!(f5.def.ai.skill, 0.6);
    assert_eq!(f5.def.damage.subsystems.len(), 5);
    assert_eq!(c.type_records().len(), c.types().len());
}

#[test]
fn flight_models_resolve_through_the_asset_name_convention() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = load(pack.clone());
    for name in fl_fixtures::PACK_AIRCRAFT {
        let asset = format!("{name}/{name}");
        let via_content = c
            .flight_model(&asset)
            .unwrap_or_else(|| panic!("{asset} not loaded"));
        let direct = flight_model_by_hand(&fl_fixtures::pack_model_path(&pack, name));
        assert_eq!(
            **via_content, direct,
            "{asset}: differs from fl-flight's own load"
        );
        let t = c
            .entity_type(&format!("fl-base:{name}"))
            .unwrap_or_else(|| panic!("{name}"));
        assert!(
            t.flight_model
                .as_ref()
                .is_some_and(|m| std::sync::Arc::ptr_eq(m, via_content))
        );
    }
    // The documented mistake: a bare stem does not resolve.
    let e = c.load_flight_model("f16a").err().unwrap_or_default();
    assert!(
        e.iter()
            .any(|e| e.to_string().contains("aircraft/f16a.toml")),
        "{e:?}"
    );
}

#[test]
fn asset_bytes_by_name_and_kind() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = load(pack.clone());
    let glb = c
        .read_asset(AssetKind::Mesh, "f16a/f16a")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(
        glb.len() as u64,
        std::fs::metadata(pack.join("aircraft/f16a/f16a.glb"))
            .map(|m| m.len())
            .unwrap_or(0)
    );
    let ogg = c
        .read_asset(AssetKind::Audio, "music/menu_theme")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&ogg[..4], b"OggS");
    let sfx = c
        .read_asset(AssetKind::Audio, "sfx/gunfire")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&sfx[..4], b"OggS");
    let tile = c
        .read_asset(AssetKind::Terrain, "world/f1/l6/tile_14_58")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&tile[..8], b"\x89PNG\r\n\x1a\n");
    let playlist = c
        .read_asset(AssetKind::Config, "playlist")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(String::from_utf8_lossy(&playlist).contains("[crossfade]"));
    match c.resolve_asset(AssetKind::Mesh, "f5e/f5e_cockpit") {
        Ok(ResolvedAsset::File { pack, path }) => {
            assert_eq!(pack, "fl-base-pack");
            assert!(path.ends_with("aircraft/f5e/f5e_cockpit.glb"));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        c.read_asset(AssetKind::Mesh, "f5e"),
        Err(AssetError::NotFound { .. })
    ));
    assert!(matches!(
        c.read_asset(AssetKind::Mesh, "../fl-base-pack/aircraft/f5e/f5e"),
        Err(AssetError::BadName { .. })
    ));
    assert!(matches!(
        c.read_asset(AssetKind::Texture, "f5e/f5e"),
        Err(AssetError::NotFound { .. })
    ));
}

#[test]
fn loading_is_deterministic_and_a_pack_named_twice_loads_once() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let a = load(pack.clone());
    // The same pack found through a mods directory (a symlink to it) and named directly.
    let mods = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    #[cfg(unix)]
    std::os::unix::fs::symlink(&pack, mods.path().join("fl-base-pack"))
        .unwrap_or_else(|e| panic!("{e}"));
    let b = Content::load(&LoadOptions {
        mods_dirs: vec![mods.path().to_owned(), mods.path().join("absent")],
        pack_dirs: vec![pack.clone()],
        on_error: ErrorPolicy::Fail,
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.packs().len(), 1);
    assert_eq!(a.type_records(), b.type_records());
    assert_eq!(a.warnings(), b.warnings());
}

/// A number as the file writes it (`[table] key`), read with the TOML library directly.
fn authored(doc: &fl_toml::toml_edit::DocumentMut, table: &str, key: &str) -> Option<f64> {
    let v = doc.get(table)?.get(key)?;
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

fn raw(path: &std::path::Path) -> fl_toml::toml_edit::DocumentMut {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_weapon_reads_and_stores_what_its_file_says_in_si() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = load(pack);
    let (nm, kt, ft) = (1852.0, 1852.0 / 3600.0, 0.3048);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
    // The builtin layer's gun is compiled in, not a pack file.
    let weapons: Vec<_> = c
        .weapons()
        .filter(|w| !w.id.starts_with("builtin:"))
        .collect();
    assert_eq!(weapons.len(), 16, "the pack's weapons/ holds 16 files");
    assert!(c.weapon(fl_content::builtin::GUN_20MM).is_some());
    for w in weapons {
        let doc = raw(&w.file);
        let id = &w.id;
        assert!(
            close(
                w.mass_kg,
                authored(&doc, "load", "weight_lb").unwrap_or(f64::NAN) * LB
            ),
            "{id}"
        );
        match w.performance {
            None => assert!(
                w.kind.is_inert() && doc.get("performance").is_none(),
                "{id}"
            ),
            Some(p) => {
                let range = authored(&doc, "performance", "max_range_nm")
                    .map(|r| r * nm)
                    .or_else(|| authored(&doc, "performance", "standoff_range_ft").map(|r| r * ft));
                assert_eq!(
                    Some(p.max_range_m).map(|m| close(m, range.unwrap_or(-1.0))),
                    Some(true),
                    "{id}"
                );
                let or0 = |k: &str| authored(&doc, "performance", k).unwrap_or(0.0);
                assert!(close(p.min_range_m, or0("min_range_nm") * nm), "{id}");
                assert!(close(p.max_speed_mps, or0("max_speed_kts") * kt), "{id}");
                assert!(close(p.motor_burn_s, or0("motor_burn_time_s")), "{id}");
                assert!(close(p.max_g, or0("max_g")), "{id}");
                assert!(close(p.cep_m, or0("CEP_ft") * ft), "{id}");
            }
        }
        match w.warhead {
            None => assert!(w.kind.is_inert(), "{id}"),
            Some(h) => {
                assert!(
                    close(
                        h.blast_radius_m,
                        authored(&doc, "warhead", "blast_radius_ft").unwrap_or(-1.0) * ft
                    ),
                    "{id}"
                );
                assert!(
                    close(
                        h.damage,
                        authored(&doc, "warhead", "damage").unwrap_or(-1.0)
                    ),
                    "{id}"
                );
            }
        }
        let cm = |k: &str| authored(&doc, "countermeasures", k).unwrap_or(0.0);
        assert_eq!(w.countermeasures.chaff, cm("chaff_susceptibility"), "{id}");
        assert_eq!(w.countermeasures.flare, cm("flare_susceptibility"), "{id}");
        assert_eq!(w.countermeasures.notch, cm("notch_susceptibility"), "{id}");
        // Every seeker head the pack names is a loaded sensor of the seeker's channel.
        if let Some(s) = &w.seeker {
            let head = c
                .seeker_sensor(w)
                .unwrap_or_else(|| panic!("{id}: no head"));
            assert_eq!(s.kind.sensor_type(), Some(head.kind), "{id}");
            assert_eq!(head.role, fl_content::SensorRole::Seeker, "{id}");
        }
        assert_eq!(
            w.gun.is_some(),
            w.kind == fl_content::WeaponType::Gun,
            "{id}"
        );
    }
    // Seekers as the pack writes them.
    let seeker = |id: &str| {
        c.weapon(id)
            .and_then(|w| w.seeker.clone())
            .unwrap_or_else(|| panic!("{id}: no seeker"))
    };
    use fl_content::SeekerType::{Infrared, SemiActiveRadar};
    for (id, kind, ff) in [
        ("fl-base:aim9p", Infrared, true),
        ("fl-base:r60m", Infrared, true),
        ("fl-base:r73e", Infrared, true),
        ("fl-base:aim7m", SemiActiveRadar, false),
        ("fl-base:r27r1", SemiActiveRadar, false),
        ("fl-base:3m9m", SemiActiveRadar, false),
    ] {
        let s = seeker(id);
        assert_eq!((s.kind, s.fire_and_forget), (kind, ff), "{id}");
        assert_eq!(s.sensor_id, Some(format!("{id}_seeker")), "{id}");
    }
    let sa6 = c.weapon("fl-base:3m9m").unwrap_or_else(|| panic!("3m9m"));
    assert_eq!(sa6.rounds, 3, "three rails, one station");
    let mk82 = c.weapon("fl-base:mk82").and_then(|w| w.performance);
    assert_eq!(
        mk82.map(|p| p.reach),
        Some(fl_content::weapon::Reach::Standoff)
    );
    assert_eq!(c.weapon("fl-base:lau3").map(|w| w.rounds), Some(19));
}

#[test]
fn guns_get_their_files_values_or_the_originals_defaults() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = load(pack);
    let kt = 1852.0 / 3600.0;
    // (gun, rounds, rate of fire rpm, muzzle velocity as written in kts); `None` = not written.
    let cases = [
        // The F-5E's M39A2: its file says "560 rounds" in a comment and in weight_lb, but writes no
        // `rounds`, so it gets the original's gun default of 500 (and the default rate of fire).
        ("fl-base:m39a2", None, None, 1950.0),
        ("fl-base:m61a1", Some(511), Some(6000.0), 2000.0),
        ("fl-base:gsh23l", None, None, 1390.0),
        ("fl-base:gsh301", None, None, 1750.0),
        ("fl-base:azp23", Some(2000), Some(3400.0), 1885.0),
    ];
    for (id, rounds, rpm, kts) in cases {
        let w = c.weapon(id).unwrap_or_else(|| panic!("{id}"));
        let g = w.gun.unwrap_or_else(|| panic!("{id}: no gun parameters"));
        assert_eq!(w.rounds, rounds.unwrap_or(500), "{id}");
        assert_eq!(g.defaulted.rounds, rounds.is_none(), "{id}");
        assert_eq!(g.rate_of_fire_rpm, rpm.unwrap_or(1200.0), "{id}");
        assert_eq!(g.defaulted.rate_of_fire, rpm.is_none(), "{id}");
        assert!((g.muzzle_velocity_mps - kts * kt).abs() < 1e-9, "{id}");
        assert!(!g.defaulted.muzzle_velocity, "{id}");
        assert_eq!(
            (g.dispersion_rad, g.defaulted.dispersion),
            (0.0, true),
            "{id}"
        );
    }
    // The F-5E's gun station carries that M39A2.
    let f5 = c
        .entity_type("fl-base:f5e")
        .unwrap_or_else(|| panic!("f5e"));
    assert_eq!(
        f5.def.hardpoints[0].default.as_deref(),
        Some("fl-base:m39a2")
    );
    // Stores that are not guns keep one shot per station unless they say otherwise.
    for id in [
        "fl-base:aim9p",
        "fl-base:aim7m",
        "fl-base:mk82",
        "fl-base:tank_300gal",
    ] {
        assert_eq!(c.weapon(id).map(|w| w.rounds), Some(1), "{id}");
    }
}

#[test]
fn every_sensor_reads_and_stores_what_its_file_says_in_si() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = load(pack);
    let deg = std::f64::consts::PI / 180.0;
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
    // The builtin layer's own (the eyeball) are not the pack's.
    let sensors: Vec<_> = c
        .sensors()
        .filter(|s| !s.id.starts_with("builtin:"))
        .collect();
    assert_eq!(sensors.len(), 15, "the pack's sensors/ holds 15 files");
    for s in sensors {
        let doc = raw(&s.file);
        let id = &s.id;
        let lobes = [("search", Some(s.search)), ("track", s.track)];
        for (table, lobe) in lobes {
            let Some(l) = lobe else {
                assert!(doc.get(table).is_none(), "{id}: [{table}] not read");
                continue;
            };
            let n = |k: &str| authored(&doc, table, k);
            assert!(
                close(
                    l.az_half_angle_rad,
                    n("az_half_angle_deg").unwrap_or(-1.0) * deg
                ),
                "{id}"
            );
            assert!(
                close(
                    l.el_half_angle_rad,
                    n("el_half_angle_deg").unwrap_or(-1.0) * deg
                ),
                "{id}"
            );
            assert!(
                close(l.min_range_m, n("min_range_nm").unwrap_or(0.0) * 1852.0),
                "{id}"
            );
            assert!(
                close(l.max_range_m, n("max_range_nm").unwrap_or(-1.0) * 1852.0),
                "{id}"
            );
            assert_eq!(Some(l.pod), n("pod"), "{id}");
        }
        assert_eq!(
            s.lock_hold_s,
            authored(&doc, "track", "lock_hold_s").unwrap_or(0.0),
            "{id}"
        );
        assert_eq!(
            s.eccm,
            authored(&doc, "sensor", "eccm").unwrap_or(0.0),
            "{id}"
        );
        assert_eq!(s.doppler, None, "{id}: the pack writes no doppler key");
    }
    let get = |id: &str| c.sensor(id).unwrap_or_else(|| panic!("{id}"));
    use fl_content::SensorType::{Ir, Radar, Visual};
    assert_eq!(get("fl-base:apg66").kind, Radar);
    assert!(get("fl-base:apg66").emitter);
    assert_eq!(get("fl-base:oeps29").kind, Ir);
    assert!(!get("fl-base:oeps29").emitter);
    let eye = get("fl-base:eyeball_day");
    assert_eq!((eye.kind, eye.track.is_none()), (Visual, true));
    assert!(get("fl-base:1s91").omnidirectional && get("fl-base:rpk2").omnidirectional);
    assert_eq!(get("fl-base:1s91").eccm, 0.40);
}

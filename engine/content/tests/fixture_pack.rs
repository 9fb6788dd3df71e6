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

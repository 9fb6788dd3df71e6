//! Hostile and broken packs: traversal in ids and asset names, symlinks that escape, absurd files,
//! malformed TOML, missing and cyclic dependencies, duplicate packs and duplicate definitions
//! (override semantics). Every refusal must name the file (and the key and line where there is one),
//! and nothing may panic.

mod support;

use fl_content::builtin::{JET_TRAINER_FLIGHT_MODEL, JET_TRAINER_TOML};
use fl_content::{AssetError, AssetKind, ContentError, ErrorPolicy, LoadFailure, Override};
use support::{Mods, canon, entity, manifest, weapon};

fn only_error(f: &LoadFailure) -> &ContentError {
    assert_eq!(f.errors.len(), 1, "{f}");
    &f.errors[0]
}

#[test]
fn unsafe_pack_ids_are_refused_naming_file_key_and_line() {
    let long = "x".repeat(65);
    for bad in [
        "../evil",
        "..",
        "a/b",
        "a\\\\b",
        ".hidden",
        "CON",
        "nul.txt",
        "com1",
        "C:evil",
        "a\\u0000b",
        "a\\nb",
        "builtin",
        &long,
    ] {
        let m = Mods::new();
        let text = manifest("placeholder", 0, &[])
            .replace("id = \"placeholder\"", &format!("id = \"{bad}\""));
        let path = m.write("p/manifest.toml", &text);
        let f = m.fail();
        match only_error(&f) {
            ContentError::BadName {
                file, line, key, ..
            } => {
                assert_eq!(file, &canon(&path), "{bad}");
                assert_eq!((key.as_str(), *line), ("mod.id", 3), "{bad}");
            }
            other => panic!("{bad}: {other}"),
        }
        // The message carries all three.
        let msg = f.errors[0].to_string();
        assert!(msg.contains("manifest.toml:3: `mod.id`"), "{msg}");
    }
}

#[test]
fn unsafe_names_namespaces_and_dependencies_are_refused() {
    let cases = [
        ("name = \"Pack p\"", "name = \"../../etc\"", "mod.name"),
        ("name = \"Pack p\"", "name = \"PRN\"", "mod.name"),
        (
            "id = \"p\"",
            "id = \"p\"\nnamespace = \"../ns\"",
            "mod.namespace",
        ),
        (
            "id = \"p\"",
            "id = \"p\"\nnamespace = \"builtin\"",
            "mod.namespace",
        ),
        (
            "depends = []",
            "depends = [\"ok\", \"..\\\\evil\"]",
            "mod.depends[1]",
        ),
    ];
    for (from, to, key) in cases {
        let m = Mods::new();
        m.write("p/manifest.toml", &manifest("p", 0, &[]).replace(from, to));
        let f = m.fail();
        match only_error(&f) {
            ContentError::BadName { key: k, .. } => assert_eq!(k, key, "{to}"),
            other => panic!("{to}: {other}"),
        }
    }
}

#[test]
fn unsafe_definition_ids_and_asset_names_are_refused() {
    let cases = [
        (entity("p:../../x", "X", ""), "entity.id"),
        (entity("p:a/b", "X", ""), "entity.id"),
        (entity("builtin:debug-entity", "X", ""), "entity.id"),
        (
            entity("p:x", "X", "mesh = \"../../../../etc/passwd\""),
            "entity.mesh",
        ),
        (entity("p:x", "X", "mesh = \"/etc/passwd\""), "entity.mesh"),
        (
            entity("p:x", "X", "flight_model = \"x\\\\..\\\\..\\\\y\""),
            "entity.flight_model",
        ),
        (
            entity("p:x", "X", "cockpit = \"C:/windows/x\""),
            "entity.cockpit",
        ),
        (
            entity("p:x", "X", "ai_script = \"lpt1\""),
            "entity.ai_script",
        ),
        (
            entity("p:x", "X", "sensors = [\"p:../radar\"]"),
            "entity.sensors[0]",
        ),
    ];
    for (text, key) in cases {
        let m = Mods::new();
        m.pack("p", "p", 0, &[]);
        let path = m.write("p/entities/x.toml", &text);
        let f = m.fail();
        match only_error(&f) {
            ContentError::BadName { file, key: k, .. } => {
                assert_eq!(file, &canon(&path));
                assert_eq!(k, key, "{text}");
            }
            other => panic!("{text}: {other}"),
        }
    }
    // Asked for directly, traversal never reaches the filesystem.
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    let c = m.ok();
    for bad in [
        "../p/manifest",
        "/etc/passwd",
        "a\\b",
        "C:/x",
        "x/../../y",
        "x//y",
        "",
        "a/.git/config",
    ] {
        assert!(
            matches!(
                c.read_asset(AssetKind::Config, bad),
                Err(AssetError::BadName { .. })
            ),
            "{bad:?}"
        );
    }
}

#[cfg(unix)]
#[test]
fn symlinks_that_escape_the_pack_are_refused() {
    use std::os::unix::fs::symlink;
    let m = Mods::new();
    let out = m.outside();
    std::fs::write(out.join("secret.glb"), b"glTF secret").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(out.join("model.toml"), JET_TRAINER_TOML).unwrap_or_else(|e| panic!("{e}"));
    let p = m.pack("p", "p", 0, &[]);
    m.write("p/aircraft/inside/inside.glb", "glTF inside");
    std::fs::create_dir_all(p.join("aircraft/evil")).unwrap_or_else(|e| panic!("{e}"));
    symlink(out.join("secret.glb"), p.join("aircraft/evil/evil.glb"))
        .unwrap_or_else(|e| panic!("{e}"));
    symlink(
        p.join("aircraft/inside/inside.glb"),
        p.join("aircraft/evil/alias.glb"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    symlink(&out, p.join("aircraft/outdir")).unwrap_or_else(|e| panic!("{e}"));
    symlink(
        out.join("missing.glb"),
        p.join("aircraft/evil/dangling.glb"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let c = m.ok();
    // A file symlink out of the pack.
    match c.read_asset(AssetKind::Mesh, "evil/evil") {
        Err(AssetError::Escapes { resolved, root, .. }) => {
            assert_eq!(resolved, canon(&out.join("secret.glb")));
            assert_eq!(root, canon(&p));
        }
        other => panic!("{other:?}"),
    }
    // A directory symlink out of the pack.
    assert!(matches!(
        c.read_asset(AssetKind::Mesh, "outdir/secret"),
        Err(AssetError::Escapes { .. })
    ));
    // A symlink that stays inside is fine; a dangling one is simply absent.
    assert_eq!(
        c.read_asset(AssetKind::Mesh, "evil/alias")
            .unwrap_or_default(),
        b"glTF inside"
    );
    assert!(matches!(
        c.read_asset(AssetKind::Mesh, "evil/dangling"),
        Err(AssetError::NotFound { .. })
    ));

    // An escaping flight model stops its entity: the server never loads a model from outside.
    let m = Mods::new();
    let out = m.outside();
    std::fs::write(out.join("model.toml"), JET_TRAINER_TOML).unwrap_or_else(|e| panic!("{e}"));
    let p = m.pack("p", "p", 0, &[]);
    std::fs::create_dir_all(p.join("aircraft/jet")).unwrap_or_else(|e| panic!("{e}"));
    symlink(out.join("model.toml"), p.join("aircraft/jet/jet.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    m.write(
        "p/entities/jet.toml",
        &entity("p:jet", "Jet", "flight_model = \"jet/jet\""),
    );
    let f = m.fail();
    assert!(
        matches!(
            only_error(&f),
            ContentError::Asset(AssetError::Escapes { .. })
        ),
        "{f}"
    );

    // An escaping definition directory, and an escaping manifest.
    let m = Mods::new();
    let out = m.outside();
    std::fs::write(out.join("x.toml"), entity("p:x", "X", "")).unwrap_or_else(|e| panic!("{e}"));
    let p = m.pack("p", "p", 0, &[]);
    symlink(&out, p.join("entities")).unwrap_or_else(|e| panic!("{e}"));
    let f = m.fail();
    assert!(
        matches!(
            only_error(&f),
            ContentError::Asset(AssetError::Escapes { .. })
        ),
        "{f}"
    );
    let m = Mods::new();
    let out = m.outside();
    std::fs::write(out.join("manifest.toml"), manifest("p", 0, &[]))
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(m.dir().join("p")).unwrap_or_else(|e| panic!("{e}"));
    symlink(out.join("manifest.toml"), m.dir().join("p/manifest.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let f = m.fail();
    assert!(
        matches!(
            only_error(&f),
            ContentError::Asset(AssetError::Escapes { .. })
        ),
        "{f}"
    );
}

#[test]
fn absurd_files_are_refused_before_they_are_read() {
    let sparse = |path: &std::path::Path, len: u64| {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        let f = std::fs::File::create(path).unwrap_or_else(|e| panic!("{e}"));
        f.set_len(len).unwrap_or_else(|e| panic!("{e}"));
    };
    // A 65 MiB mesh (the limit is 64 MiB): refused from its size, not read.
    let m = Mods::new();
    let p = m.pack("p", "p", 0, &[]);
    sparse(&p.join("aircraft/big/big.glb"), 65 * 1024 * 1024);
    let c = m.ok();
    match c.read_asset(AssetKind::Mesh, "big/big") {
        Err(AssetError::TooLarge { size, limit, .. }) => {
            assert_eq!(size, 65 * 1024 * 1024);
            assert_eq!(limit, 64 * 1024 * 1024);
        }
        other => panic!("{other:?}"),
    }
    // A 2 MiB manifest and a 2 MiB entity file (definitions are limited to 1 MiB).
    let m = Mods::new();
    sparse(&m.dir().join("p/manifest.toml"), 2 * 1024 * 1024);
    let f = m.fail();
    assert!(
        matches!(
            only_error(&f),
            ContentError::Asset(AssetError::TooLarge { .. })
        ),
        "{f}"
    );
    let m = Mods::new();
    let p = m.pack("p", "p", 0, &[]);
    sparse(&p.join("entities/huge.toml"), 2 * 1024 * 1024);
    let f = m.fail();
    assert!(f.errors[0].to_string().contains("huge.toml"), "{f}");
    // A 5 MiB flight model (fl-flight's limit is 4 MiB).
    let m = Mods::new();
    let p = m.pack("p", "p", 0, &[]);
    sparse(&p.join("aircraft/jet/jet.toml"), 5 * 1024 * 1024);
    m.write(
        "p/entities/jet.toml",
        &entity("p:jet", "Jet", "flight_model = \"jet/jet\""),
    );
    let f = m.fail();
    assert!(
        matches!(
            only_error(&f),
            ContentError::Asset(AssetError::TooLarge { .. })
        ),
        "{f}"
    );
    // A global cap lowers every limit (for small servers).
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    m.write("p/audio/sfx/boom.ogg", &"x".repeat(2048));
    let c = fl_content::Content::load(&fl_content::LoadOptions {
        mods_dirs: vec![m.dir()],
        limits: fl_content::AssetLimits {
            global_cap: Some(1024),
        },
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        c.read_asset(AssetKind::Audio, "sfx/boom"),
        Err(AssetError::TooLarge { limit: 1024, .. })
    ));
}

#[test]
fn directories_and_special_files_are_not_assets() {
    let m = Mods::new();
    let p = m.pack("p", "p", 0, &[]);
    std::fs::create_dir_all(p.join("aircraft/dir/dir.glb")).unwrap_or_else(|e| panic!("{e}"));
    let c = m.ok();
    assert!(matches!(
        c.read_asset(AssetKind::Mesh, "dir/dir"),
        Err(AssetError::NotAFile { .. })
    ));
    #[cfg(unix)]
    {
        // A FIFO would block a naive reader forever.
        let fifo = p.join("audio/pipe.ogg");
        std::fs::create_dir_all(p.join("audio")).unwrap_or_else(|e| panic!("{e}"));
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            assert!(matches!(
                c.read_asset(AssetKind::Audio, "pipe"),
                Err(AssetError::NotAFile { .. })
            ));
        } else {
            fl_fixtures::skip("mkfifo unavailable: the FIFO case was not exercised");
        }
    }
}

#[test]
fn malformed_toml_names_the_file_and_line() {
    let m = Mods::new();
    let path = m.write(
        "p/manifest.toml",
        "[mod]\nname = \"P\"\nid = \"p\nversion = \"1\"\n",
    );
    match only_error(&m.fail()) {
        ContentError::Syntax { file, line, .. } => {
            assert_eq!(file, &canon(&path));
            assert_eq!(*line, 3);
        }
        other => panic!("{other}"),
    }
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    let path = m.write(
        "p/entities/bad.toml",
        "[entity]\nid = \"p:x\"\nname = \"X\"\ncategory = \"air_vehicle\"\nmax_hp = [1, 2\n",
    );
    match only_error(&m.fail()) {
        ContentError::Syntax { file, line, .. } => {
            assert_eq!(file, &canon(&path));
            assert!(*line >= 5, "line {line}");
        }
        other => panic!("{other}"),
    }
    // Wrong types are typed errors with key and line.
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    m.write(
        "p/entities/bad.toml",
        "[entity]\nid = \"p:x\"\nname = \"X\"\ncategory = \"air_vehicle\"\nmax_hp = \"lots\"\n",
    );
    let f = m.fail();
    assert!(
        f.errors[0]
            .to_string()
            .ends_with("bad.toml:5: `entity.max_hp`: expected a number, found string"),
        "{f}"
    );
    // Not UTF-8.
    let m = Mods::new();
    let p = m.pack("p", "p", 0, &[]);
    std::fs::create_dir_all(p.join("weapons")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(p.join("weapons/bin.toml"), [0xff, 0xfe, 0x00, 0x9c])
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        only_error(&m.fail()),
        ContentError::Syntax { line: 1, .. }
    ));
}

#[test]
fn truncated_definitions_never_panic() {
    // Every prefix of a rich entity file parses or fails cleanly.
    let text = format!(
        "{}[signatures]\nrcs = 0.5\n[ai]\nskill = 0.3\n[[hardpoints]]\nslot = 0\nallowed = [\"p:gun\"]\ndefault = \"p:gun\"\n\
         [damage.light]\nhp_fraction = 0.7\nvisual_effect = \"smoke\"\n[damage.subsystems.engine]\nhp = 10\nweight = 2\n[deck]\nlength_m = 10\n",
        entity(
            "p:x",
            "X",
            "mesh = \"x/x\"\nsensors = [\"p:eye\"]\nchaff_count = 3"
        )
    );
    for end in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
        let _ = fl_content::entity::parse_entity_text(
            std::path::Path::new("e.toml"),
            &text[..end],
            "p",
            "p",
        );
        let _ = fl_content::defs::parse_weapon_text(
            std::path::Path::new("w.toml"),
            &text[..end],
            "p",
            "p",
        );
        let _ = fl_content::manifest::parse_manifest(std::path::Path::new("m.toml"), &text[..end]);
    }
}

#[test]
fn missing_and_cyclic_dependencies() {
    let m = Mods::new();
    let needy = m.pack("needy", "needy", 0, &["absent-pack"]);
    m.pack("good", "good", 0, &[]);
    m.write("good/entities/g.toml", &entity("good:g", "G", ""));
    let f = m.fail();
    match only_error(&f) {
        ContentError::MissingDependency {
            file,
            pack,
            missing,
        } => {
            assert_eq!(file, &canon(&needy.join("manifest.toml")));
            assert_eq!((pack.as_str(), missing.as_str()), ("needy", "absent-pack"));
        }
        other => panic!("{other}"),
    }
    // With the skip policy, the rest loads and the error is reported.
    let c = m
        .load(ErrorPolicy::SkipAndReport)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        c.packs().iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        ["good"]
    );
    assert_eq!(c.report().errors.len(), 1);
    assert!(c.type_index("good:g").is_some());

    // a -> b -> a is a cycle; c needs a, so it goes too (transitively); d is fine.
    let m = Mods::new();
    m.pack("a", "a", 0, &["b"]);
    m.pack("b", "b", 0, &["a"]);
    m.pack("c", "c", 0, &["a"]);
    m.pack("d", "d", 0, &[]);
    let f = m.fail();
    assert_eq!(f.errors.len(), 2, "{f}");
    match &f.errors[0] {
        ContentError::DependencyCycle { cycle, .. } => assert_eq!(cycle, &["a", "b", "a"]),
        other => panic!("{other}"),
    }
    assert!(
        matches!(&f.errors[1], ContentError::MissingDependency { pack, missing, .. } if pack == "c" && missing == "a")
    );
    let c = m
        .load(ErrorPolicy::SkipAndReport)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        c.packs().iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        ["d"]
    );
    // A satisfied chain loads.
    let m = Mods::new();
    m.pack("base", "base", 0, &[]);
    m.pack("mid", "mid", 5, &["base"]);
    m.pack("top", "top", 9, &["mid", "base"]);
    assert_eq!(m.ok().packs().len(), 3);
}

#[test]
fn duplicate_pack_ids_keep_the_first_in_discovery_order() {
    let m = Mods::new();
    let first = m.pack("a-dir", "same", 0, &[]);
    let second = m.pack("b-dir", "same", 99, &[]);
    let f = m.fail();
    match only_error(&f) {
        ContentError::DuplicatePack {
            id,
            first: f1,
            second: f2,
        } => {
            assert_eq!(id, "same");
            assert_eq!(f1, &canon(&first.join("manifest.toml")));
            assert_eq!(f2, &canon(&second.join("manifest.toml")));
        }
        other => panic!("{other}"),
    }
    let c = m
        .load(ErrorPolicy::SkipAndReport)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.packs()[0].priority, 0);
    // The directory names differ from the id: both warn.
    assert!(
        c.warnings()
            .iter()
            .any(|w| w.message.contains("differs from its directory name"))
    );
}

#[test]
fn higher_priority_packs_override_definitions_whole() {
    let m = Mods::new();
    m.pack("base", "base", 10, &[]);
    m.write("base/weapons/gun.toml", &weapon("shared:gun", 100.0, 0.001));
    m.write("base/weapons/rack.toml", &weapon("base:rack", 10.0, 0.0));
    m.write(
        "base/entities/jet.toml",
        &format!(
            "{}[[hardpoints]]\nslot = 0\nallowed = [\"shared:gun\"]\ndefault = \"shared:gun\"\n[[hardpoints]]\nslot = 1\nallowed = [\"base:rack\"]\ndefault = \"base:rack\"\n",
            entity("shared:jet", "Base Jet", "mesh = \"jet/jet\"")
        ),
    );
    m.write(
        "base/entities/other.toml",
        &entity(
            "base:other",
            "Other",
            "[[hardpoints]]\nslot = 0\nallowed = [\"shared:gun\"]\ndefault = \"shared:gun\"",
        ),
    );
    m.write("base/aircraft/jet/jet.glb", "glTF base");
    m.pack("theater", "theater", 20, &["base"]);
    m.write(
        "theater/weapons/gun.toml",
        &weapon("shared:gun", 200.0, 0.002),
    );
    m.write(
        "theater/entities/jet.toml",
        &entity("shared:jet", "Theater Jet", "mesh = \"jet/jet\""),
    );
    m.write("theater/aircraft/jet/jet.glb", "glTF theater");
    let c = m.ok();
    let packs: Vec<String> = c.packs().iter().map(|p| p.id.clone()).collect();
    assert_eq!(
        packs,
        ["theater", "base"],
        "stack order: priority descending"
    );
    // The whole definition is replaced (no merge): the theater jet has no hardpoints.
    let jet = c.entity_type("shared:jet").unwrap_or_else(|| panic!("jet"));
    assert_eq!(jet.def.name, "Theater Jet");
    assert!(jet.def.hardpoints.is_empty());
    // A lower pack's entity uses the winning weapon: the weapon index is stack-wide.
    let other = c
        .entity_type("base:other")
        .unwrap_or_else(|| panic!("other"));
    assert!((other.payload.mass_kg - 200.0 * 0.453_592_37).abs() < 1e-9);
    assert_eq!(other.payload.cd0, 0.002);
    // Assets resolve through the stack, highest first.
    assert_eq!(
        c.read_asset(AssetKind::Mesh, "jet/jet").unwrap_or_default(),
        b"glTF theater"
    );
    let mut o = c.report().overrides.clone();
    o.sort();
    assert_eq!(
        o,
        [
            Override {
                kind: "entity",
                id: "shared:jet".into(),
                winner: "theater".into(),
                hidden: "base".into()
            },
            Override {
                kind: "weapon",
                id: "shared:gun".into(),
                winner: "theater".into(),
                hidden: "base".into()
            },
        ]
    );
}

#[test]
fn priority_ties_are_broken_by_pack_id_whatever_the_directory_order() {
    for (dir_a, dir_b) in [("1-first", "2-second"), ("2-second", "1-first")] {
        let m = Mods::new();
        m.pack(dir_a, "zulu", 5, &[]);
        m.pack(dir_b, "alpha", 5, &[]);
        m.write(
            &format!("{dir_a}/entities/x.toml"),
            &entity("shared:x", "From zulu", ""),
        );
        m.write(
            &format!("{dir_b}/entities/x.toml"),
            &entity("shared:x", "From alpha", ""),
        );
        let c = m.load(ErrorPolicy::Fail).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            c.packs().iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
            ["alpha", "zulu"]
        );
        assert_eq!(
            c.entity_type("shared:x").map(|t| t.def.name.as_str()),
            Some("From alpha")
        );
    }
}

#[test]
fn duplicate_ids_inside_one_pack_are_errors() {
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    m.write("p/entities/a.toml", &entity("p:x", "A", ""));
    let second = m.write("p/entities/b.toml", &entity("P:X", "B", ""));
    let f = m.fail();
    match only_error(&f) {
        ContentError::DuplicateDef {
            kind,
            id,
            second: s,
            ..
        } => {
            assert_eq!((*kind, id.as_str()), ("entity", "p:x"));
            assert_eq!(s, &canon(&second));
        }
        other => panic!("{other}"),
    }
}

#[test]
fn builtin_content_cannot_be_overridden() {
    let m = Mods::new();
    m.pack("p", "p", 1000, &[]);
    m.write(
        "p/aircraft/builtin/jet-trainer.toml",
        "[aircraft]\nname = \"hijacked\"\n",
    );
    let c = m.ok();
    assert_eq!(
        c.read_asset(AssetKind::FlightModel, JET_TRAINER_FLIGHT_MODEL)
            .unwrap_or_default(),
        JET_TRAINER_TOML.as_bytes()
    );
    m.write("p/weapons/w.toml", &weapon("builtin:cannon", 1.0, 0.0));
    let f = m.fail();
    assert!(f.errors[0].to_string().contains("reserved"), "{f}");
}

#[test]
fn references_are_checked() {
    // A missing flight model is an error naming the entity file, key and line.
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    let path = m.write(
        "p/entities/jet.toml",
        &entity("p:jet", "Jet", "flight_model = \"jet\""),
    );
    match only_error(&m.fail()) {
        ContentError::FlightModelMissing { file, line, asset } => {
            assert_eq!((file, *line, asset.as_str()), (&canon(&path), 6, "jet"));
        }
        other => panic!("{other}"),
    }
    // A broken flight model: schema errors and validator errors both stop the entity.
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    m.write(
        "p/aircraft/jet/jet.toml",
        &JET_TRAINER_TOML.replace("mass_kg      = 3300.0", "mass_kg = \"heavy\""),
    );
    m.write(
        "p/entities/jet.toml",
        &entity("p:jet", "Jet", "flight_model = \"jet/jet\""),
    );
    let f = m.fail();
    assert!(
        matches!(only_error(&f), ContentError::FlightModelSchema { .. }),
        "{f}"
    );
    assert!(f.to_string().contains("flight_model.mass_kg"), "{f}");
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    m.write(
        "p/aircraft/jet/jet.toml",
        &JET_TRAINER_TOML.replace("cm_alpha = -0.70", "cm_alpha = 0.70"),
    );
    m.write(
        "p/entities/jet.toml",
        &entity("p:jet", "Jet", "flight_model = \"jet/jet\""),
    );
    m.write(
        "p/entities/jet2.toml",
        &entity("p:jet2", "Jet 2", "flight_model = \"jet/jet\""),
    );
    let f = m.fail();
    assert_eq!(
        f.errors.len(),
        2,
        "one for the model, one for the second entity using it: {f}"
    );
    assert!(
        matches!(&f.errors[0], ContentError::FlightModelInvalid { key, .. } if key == "aero.moments.cm_alpha"),
        "{f}"
    );
    // A pack may fly its own entity on the builtin model.
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    m.write(
        "p/entities/jet.toml",
        &entity(
            "p:jet",
            "Reskinned trainer",
            &format!("flight_model = \"{JET_TRAINER_FLIGHT_MODEL}\""),
        ),
    );
    let c = m.ok();
    assert!(
        c.entity_type("p:jet")
            .is_some_and(|t| t.flight_model.is_some())
    );
    // An unknown default store is an error (the payload would be wrong); unknown allowed stores
    // and unknown sensors warn.
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    m.write("p/weapons/gun.toml", &weapon("p:gun", 50.0, 0.0));
    m.write(
        "p/entities/x.toml",
        &format!(
            "{}[[hardpoints]]\nslot = 0\nallowed = [\"p:gun\", \"p:laser\"]\ndefault = \"p:gun\"\n",
            entity("p:x", "X", "sensors = [\"p:radar\"]")
        ),
    );
    m.write(
        "p/entities/y.toml",
        &format!(
            "{}[[hardpoints]]\nslot = 0\nallowed = [\"p:ghost\"]\ndefault = \"p:ghost\"\n",
            entity("p:y", "Y", "")
        ),
    );
    let f = m.fail();
    assert!(
        matches!(only_error(&f), ContentError::UnknownDefaultWeapon { weapon, key, .. } if weapon == "p:ghost" && key == "hardpoints[0].default")
    );
    let c = m
        .load(ErrorPolicy::SkipAndReport)
        .unwrap_or_else(|e| panic!("{e}"));
    let keys: Vec<&str> = c.warnings().iter().map(|w| w.key.as_str()).collect();
    assert!(
        keys.contains(&"entity.sensors[0]") && keys.contains(&"hardpoints[0].allowed[1]"),
        "{keys:?}"
    );
    let x = c.entity_type("p:x").unwrap_or_else(|| panic!("x"));
    assert!(x.def.sensors.is_empty());
    assert!((x.payload.mass_kg - 50.0 * 0.453_592_37).abs() < 1e-9);
    assert!(c.entity_type("p:y").is_none());
}

#[test]
fn engine_api_and_discovery_rules() {
    let m = Mods::new();
    m.write(
        "p/manifest.toml",
        &manifest("p", 0, &[]).replace("\"1.0\"", "\"2.0\""),
    );
    assert!(matches!(
        only_error(&m.fail()),
        ContentError::EngineApi { supported: 1, .. }
    ));
    // Hidden directories, directories without a manifest and plain files are not packs; a native
    // plugin is never loaded (warned about).
    let m = Mods::new();
    m.write(".git/manifest.toml", "not even toml [");
    m.write("notes/readme.txt", "hello");
    m.write("stray.toml", "[mod]");
    m.pack("p", "p", 0, &[]);
    m.write("p/libp.so", "\x7fELF");
    let c = m.ok();
    assert_eq!(c.packs().len(), 1);
    assert!(
        c.warnings().iter().any(|w| w.message.contains("native")),
        "{:?}",
        c.warnings()
    );
    // An explicit pack directory that does not exist is an error; an absent mods dir is not.
    let f = fl_content::Content::load(&fl_content::LoadOptions {
        mods_dirs: vec![m.dir().join("nowhere")],
        pack_dirs: vec![m.dir().join("nowhere-pack")],
        ..Default::default()
    });
    assert!(
        matches!(f, Err(LoadFailure { ref errors, .. }) if matches!(errors[..], [ContentError::Io { .. }]))
    );
    // Badly named definition files are skipped with a warning.
    let m = Mods::new();
    m.pack("p", "p", 0, &[]);
    m.write("p/entities/CON.toml", &entity("p:con", "Con", ""));
    m.write(
        "p/entities/with space.toml",
        &entity("p:space", "Space", ""),
    );
    let c = m.ok();
    assert_eq!(c.types().len(), 2, "only the builtins");
    assert_eq!(c.warnings().len(), 2, "{:?}", c.warnings());
}

#[test]
fn too_many_definition_files_are_refused() {
    let m = Mods::new();
    let p = m.pack("p", "p", 0, &[]);
    std::fs::create_dir_all(p.join("sensors")).unwrap_or_else(|e| panic!("{e}"));
    for i in 0..=fl_content::assets::MAX_DIR_ENTRIES {
        std::fs::write(p.join(format!("sensors/s{i}.toml")), "").unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(matches!(
        only_error(&m.fail()),
        ContentError::TooManyFiles { .. }
    ));
}

#[test]
fn deeply_nested_toml_is_a_syntax_error_not_a_stack_overflow() {
    let deep = format!(
        "[mod]\nname = {}{}\n",
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    let m = Mods::new();
    m.write("p/manifest.toml", &deep);
    assert!(matches!(only_error(&m.fail()), ContentError::Syntax { .. }));
    let inline = format!(
        "[entity]\nid = {}1{}\n",
        "{a=".repeat(100_000),
        "}".repeat(100_000)
    );
    let r =
        fl_content::entity::parse_entity_text(std::path::Path::new("e.toml"), &inline, "p", "p");
    assert!(r.is_err());
}

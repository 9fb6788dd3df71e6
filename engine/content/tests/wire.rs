//! The registry's records fit `MsgEntityTypeDef` exactly: ordinals agree with fl-protocol's enums
//! (fl-content does not depend on the wire crate; this test is the bridge) and no string is cut.

use fl_content::{Category, Content, LoadOptions, ProjectileKind, TypeRecord};
use fl_protocol::enums::{ObjectCategory, ProjectileKind as WireProjectileKind};
use fl_protocol::field::FixedStr;

#[test]
fn category_and_projectile_ordinals_match_the_wire_enums() {
    assert_eq!(Category::ALL.len(), ObjectCategory::ALL.len());
    for c in Category::ALL {
        let wire = ObjectCategory::from_u8(c.ordinal()).unwrap_or_else(|| panic!("{c:?}"));
        assert_eq!(format!("{c:?}"), wire.name());
    }
    assert_eq!(ProjectileKind::ALL.len(), WireProjectileKind::ALL.len());
    for k in ProjectileKind::ALL {
        let wire = WireProjectileKind::from_u8(k.ordinal()).unwrap_or_else(|| panic!("{k:?}"));
        assert_eq!(format!("{k:?}"), wire.name());
    }
}

fn fits(r: &TypeRecord) {
    for (field, s) in [
        ("id", &r.id),
        ("mesh", &r.mesh),
        ("damage_mesh", &r.damage_mesh),
        ("flight_model", &r.flight_model),
        ("name", &r.name),
    ] {
        assert_eq!(
            FixedStr::<64>::new(s).as_str(),
            s,
            "{}: {field} would be cut",
            r.id
        );
    }
    assert_eq!(
        FixedStr::<32>::new(&r.mesh_variant).as_str(),
        r.mesh_variant
    );
    assert!(ObjectCategory::from_u8(r.category).is_some());
    assert!(WireProjectileKind::from_u8(r.projectile_kind).is_some());
    assert!(r.payload_mass_kg.is_finite() && r.payload_cd0.is_finite());
}

#[test]
fn every_record_fits_the_wire_without_truncation() {
    let builtin = Content::builtin().unwrap_or_else(|e| panic!("{e}"));
    for r in builtin.type_records() {
        fits(&r);
    }
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let c = Content::load(&LoadOptions {
        pack_dirs: vec![pack],
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let records = c.type_records();
    assert_eq!(records.len(), 10);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.type_index as usize, i);
        fits(r);
    }
}

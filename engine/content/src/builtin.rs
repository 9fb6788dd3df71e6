//! The builtin layer: content compiled into every binary, so a server with no pack still has
//! types to spawn and an aircraft worth flying.
//!
//! Owns: the embedded files under the repository's `assets/builtin/` (two entity definitions,
//! the jet trainer's flight model and its performance gates, the trainer's gun, the eyeball) and the `builtin` asset-name prefix.
//! Must not: be overridden by a pack (the `builtin` namespace and the `builtin/` asset prefix are
//! reserved), or read anything from disk.

use crate::assets::AssetKind;

/// The placeholder entity of the connection flow (no mesh, no flight model).
pub const DEBUG_ENTITY: &str = "builtin:debug-entity";
/// The builtin aircraft.
pub const JET_TRAINER: &str = "builtin:jet-trainer";
/// The builtin aircraft's gun.
pub const GUN_20MM: &str = "builtin:gun-20mm";
/// The eyeball every aircraft that declares no sensors gets (a pilot always looks out).
pub const EYEBALL: &str = "builtin:eyeball";
/// The builtin aircraft's flight-model asset name.
pub const JET_TRAINER_FLIGHT_MODEL: &str = "builtin/jet-trainer";
/// The type a pilot gets when nothing else is configured or requested: the builtin aircraft.
pub const DEFAULT_PLAYER_TYPE: &str = JET_TRAINER;
/// The first component of every builtin asset name.
pub const ASSET_PREFIX: &str = "builtin";

/// The builtin aircraft's flight model (TOML, the pack schema).
pub const JET_TRAINER_TOML: &str =
    include_str!("../../../assets/builtin/aircraft/jet-trainer.toml");
/// Its performance gates (an `fm-trim --expect` file).
pub const JET_TRAINER_EXPECT_TOML: &str =
    include_str!("../../../assets/builtin/aircraft/jet-trainer.expect.toml");

/// An embedded file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinFile {
    /// Its kind.
    pub kind: AssetKind,
    /// Its asset name (`builtin/<stem>`).
    pub name: &'static str,
    /// Its repository path, for messages.
    pub path: &'static str,
    /// Its contents.
    pub text: &'static str,
}

/// Every embedded file. Entity definitions are listed in registry order.
pub const FILES: [BuiltinFile; 5] = [
    BuiltinFile {
        kind: AssetKind::EntityDef,
        name: "builtin/debug-entity",
        path: "assets/builtin/entities/debug-entity.toml",
        text: include_str!("../../../assets/builtin/entities/debug-entity.toml"),
    },
    BuiltinFile {
        kind: AssetKind::EntityDef,
        name: "builtin/jet-trainer",
        path: "assets/builtin/entities/jet-trainer.toml",
        text: include_str!("../../../assets/builtin/entities/jet-trainer.toml"),
    },
    BuiltinFile {
        kind: AssetKind::FlightModel,
        name: JET_TRAINER_FLIGHT_MODEL,
        path: "assets/builtin/aircraft/jet-trainer.toml",
        text: JET_TRAINER_TOML,
    },
    BuiltinFile {
        kind: AssetKind::WeaponDef,
        name: "builtin/gun-20mm",
        path: "assets/builtin/weapons/gun-20mm.toml",
        text: include_str!("../../../assets/builtin/weapons/gun-20mm.toml"),
    },
    BuiltinFile {
        kind: AssetKind::SensorDef,
        name: "builtin/eyeball",
        path: "assets/builtin/sensors/eyeball.toml",
        text: include_str!("../../../assets/builtin/sensors/eyeball.toml"),
    },
];

/// Whether an asset name is in the reserved builtin space.
pub fn is_builtin_asset(name: &str) -> bool {
    name.split('/').next() == Some(ASSET_PREFIX) && name.contains('/')
}

/// Finds an embedded asset.
pub fn find(kind: AssetKind, name: &str) -> Option<&'static BuiltinFile> {
    FILES.iter().find(|f| f.kind == kind && f.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_names_are_reserved_and_found() {
        assert!(is_builtin_asset("builtin/jet-trainer"));
        assert!(!is_builtin_asset("builtin"));
        assert!(!is_builtin_asset("builtinx/jet"));
        assert!(find(AssetKind::FlightModel, JET_TRAINER_FLIGHT_MODEL).is_some());
        assert!(find(AssetKind::Mesh, JET_TRAINER_FLIGHT_MODEL).is_none());
        for f in FILES {
            assert!(crate::names::check_asset_name(f.name).is_ok(), "{}", f.name);
            assert!(f.name.len() <= crate::names::MAX_WIRE_STR);
        }
    }
}

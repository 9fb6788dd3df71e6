//! The loaded content the server and client query: the stack, the type registry and its wire
//! records, flight models, definitions and asset lookup.
//!
//! Owns: the public shape of a loaded [`Content`] (types, records, packs, reports) and asset
//! resolution through the builtin layer and the stack. Must not: load anything itself beyond an
//! asked-for asset or flight model (loading the stack is `load`'s), or let a hash-map order reach
//! any output.

use crate::assets::{AssetKind, AssetLimits, PackRoot};
use crate::builtin;
use crate::entity::{Category, Deck, EntityDef, ProjectileKind};
use crate::error::{AssetError, ContentError, ContentWarning};
use crate::load::{LoadReport, load_flight_model};
use crate::manifest::{Manifest, TrustLevel};
use crate::names::{MAX_WIRE_STR, check_asset_name};
use crate::sensor::SensorDef;
use crate::weapon::WeaponDef;
use fl_flight::model::AircraftModel;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// A loaded pack, as the rest of the program may see it.
#[derive(Debug, Clone, PartialEq)]
pub struct PackInfo {
    /// Pack id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Definition-id namespace.
    pub namespace: String,
    /// Version.
    pub version: String,
    /// Declared engine API.
    pub engine_api: String,
    /// Priority.
    pub priority: i32,
    /// Dependencies.
    pub depends: Vec<String>,
    /// Declared trust tier (signatures are not verified).
    pub trust: TrustLevel,
    /// Whether a signature was declared (it is not verified).
    pub signed: bool,
    /// Canonical pack root.
    pub root: PathBuf,
}

/// The default loadout's aggregate cost to the airframe (what `MsgEntityTypeDef` carries).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Payload {
    /// Total store mass, kg.
    pub mass_kg: f64,
    /// Total parasite-drag increment.
    pub cd0: f64,
}

/// Where a type came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeSource {
    /// Compiled in.
    Builtin,
    /// A pack (its id).
    Pack(String),
}

/// A registered entity type: its definition with every reference resolved.
#[derive(Debug, Clone)]
pub struct EntityType {
    /// The definition (sensors pruned to the ones that resolved).
    pub def: EntityDef,
    /// The default loadout's cost.
    pub payload: Payload,
    /// The compiled flight model (`None` for types that do not fly).
    pub flight_model: Option<Arc<AircraftModel>>,
    /// Where it came from.
    pub source: TypeSource,
}

impl EntityType {
    /// The type id.
    pub fn id(&self) -> &str {
        &self.def.id
    }
}

/// Everything one `MsgEntityTypeDef` carries, as plain data (strings are at most 63 bytes;
/// `mesh_variant` at most 31).
#[derive(Debug, Clone, PartialEq)]
pub struct TypeRecord {
    /// Index in the registry.
    pub type_index: u32,
    /// Type id.
    pub id: String,
    /// Mesh asset name (empty = builtin placeholder).
    pub mesh: String,
    /// Damage mesh asset name (empty = none).
    pub damage_mesh: String,
    /// Flight-model asset name (empty = the type does not fly).
    pub flight_model: String,
    /// Default-loadout store mass, kg.
    pub payload_mass_kg: f32,
    /// Default-loadout parasite-drag delta.
    pub payload_cd0: f32,
    /// Display name (shortened to 63 bytes at a character boundary).
    pub name: String,
    /// `ObjectCategory` ordinal.
    pub category: u8,
    /// `ProjectileKind` ordinal.
    pub projectile_kind: u8,
    /// Flight-deck length, m (0 = no deck).
    pub deck_length_m: f32,
    /// Flight-deck width, m.
    pub deck_width_m: f32,
    /// Deck height above the ship origin, m.
    pub deck_height_m: f32,
    /// Mesh variant (empty = the untagged node set).
    pub mesh_variant: String,
}

/// Where an asset was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolvedAsset {
    /// Compiled in.
    Builtin(&'static builtin::BuiltinFile),
    /// In a pack.
    File {
        /// The pack id.
        pack: String,
        /// The canonical path (inside the pack root).
        path: PathBuf,
    },
}

#[derive(Debug, Clone)]
pub(crate) struct Pack {
    pub(crate) manifest: Manifest,
    pub(crate) root: PackRoot,
}

/// The loaded content: the stack, the definitions and the type registry.
#[derive(Debug)]
pub struct Content {
    pub(crate) packs: Vec<Pack>,
    pub(crate) types: Vec<EntityType>,
    pub(crate) index: BTreeMap<String, u32>,
    pub(crate) weapons: BTreeMap<String, WeaponDef>,
    pub(crate) sensors: BTreeMap<String, SensorDef>,
    pub(crate) flight_models: BTreeMap<String, Arc<AircraftModel>>,
    pub(crate) limits: AssetLimits,
    pub(crate) report: LoadReport,
}

/// Shortens `s` to at most `max` bytes at a character boundary.
fn shorten(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

/// Resolves an asset through the builtin layer and the stack.
pub(crate) fn resolve_in(
    packs: &[Pack],
    kind: AssetKind,
    name: &str,
) -> Result<ResolvedAsset, AssetError> {
    check_asset_name(name).map_err(|problem| AssetError::BadName {
        name: name.to_owned(),
        problem,
    })?;
    if builtin::is_builtin_asset(name) {
        return builtin::find(kind, name)
            .map(ResolvedAsset::Builtin)
            .ok_or_else(|| AssetError::NotFound {
                name: name.to_owned(),
                kind,
                looked_for: "the builtin layer".into(),
            });
    }
    for p in packs {
        if let Some(path) = p.root.find(kind, name)? {
            return Ok(ResolvedAsset::File {
                pack: p.manifest.id.clone(),
                path,
            });
        }
    }
    Err(AssetError::NotFound {
        name: name.to_owned(),
        kind,
        looked_for: kind.candidates(name).join(" or "),
    })
}

pub(crate) fn read_resolved(
    packs: &[Pack],
    limits: AssetLimits,
    kind: AssetKind,
    r: &ResolvedAsset,
) -> Result<Vec<u8>, AssetError> {
    match r {
        ResolvedAsset::Builtin(f) => Ok(f.text.as_bytes().to_vec()),
        ResolvedAsset::File { pack, path } => {
            let root = packs
                .iter()
                .find(|p| &p.manifest.id == pack)
                .map(|p| &p.root)
                .ok_or_else(|| AssetError::NotFound {
                    name: path.display().to_string(),
                    kind,
                    looked_for: format!("pack {pack}"),
                })?;
            root.read(path, kind, limits.limit(kind))
        }
    }
}

impl Content {
    /// Every registered type, in registry order: the index of a type is its `typeIndex`. Builtin
    /// types come first (`builtin:debug-entity` = 0, `builtin:jet-trainer` = 1), then pack types
    /// sorted by id. The order depends only on the loaded definitions, never on discovery order.
    pub fn types(&self) -> &[EntityType] {
        &self.types
    }

    /// The registry index of a type id (ids are matched case-insensitively).
    pub fn type_index(&self, id: &str) -> Option<u32> {
        self.index.get(&id.to_ascii_lowercase()).copied()
    }

    /// A type by id.
    pub fn entity_type(&self, id: &str) -> Option<&EntityType> {
        self.type_index(id).and_then(|i| self.types.get(i as usize))
    }

    /// The wire record of the type at `index`.
    pub fn type_record(&self, index: u32) -> Option<TypeRecord> {
        let t = self.types.get(index as usize)?;
        let d = &t.def;
        let deck = d.deck.unwrap_or(Deck::default());
        Some(TypeRecord {
            type_index: index,
            id: d.id.clone(),
            mesh: d.mesh.clone().unwrap_or_default(),
            damage_mesh: d.damage_mesh.clone().unwrap_or_default(),
            flight_model: d.flight_model.clone().unwrap_or_default(),
            payload_mass_kg: t.payload.mass_kg as f32,
            payload_cd0: t.payload.cd0 as f32,
            name: shorten(&d.name, MAX_WIRE_STR),
            category: d.category.ordinal(),
            projectile_kind: if d.category == Category::Projectile {
                d.projectile_kind.ordinal()
            } else {
                ProjectileKind::None.ordinal()
            },
            deck_length_m: deck.length_m as f32,
            deck_width_m: deck.width_m as f32,
            deck_height_m: deck.height_m as f32,
            mesh_variant: d.mesh_variant.clone().unwrap_or_default(),
        })
    }

    /// Every type's wire record, in registry order.
    pub fn type_records(&self) -> Vec<TypeRecord> {
        (0..self.types.len() as u32)
            .filter_map(|i| self.type_record(i))
            .collect()
    }

    /// A loaded flight model by asset name (every model a registered type uses is loaded).
    pub fn flight_model(&self, asset: &str) -> Option<&Arc<AircraftModel>> {
        self.flight_models.get(asset)
    }

    /// Loads a flight model by asset name through the stack, whether or not a type uses it (the
    /// client resolves the names the server sends). Warnings are returned beside it.
    pub fn load_flight_model(
        &self,
        asset: &str,
    ) -> Result<(Arc<AircraftModel>, Vec<ContentWarning>), Vec<ContentError>> {
        if let Some(m) = self.flight_models.get(asset) {
            return Ok((m.clone(), Vec::new()));
        }
        load_flight_model(&self.packs, self.limits, asset)
    }

    /// A weapon definition by id (ids are matched case-insensitively). Every number is SI.
    pub fn weapon(&self, id: &str) -> Option<&WeaponDef> {
        self.weapons.get(&id.to_ascii_lowercase())
    }

    /// Every weapon, in id order.
    pub fn weapons(&self) -> impl Iterator<Item = &WeaponDef> {
        self.weapons.values()
    }

    /// A sensor definition by id (ids are matched case-insensitively). Every number is SI.
    pub fn sensor(&self, id: &str) -> Option<&SensorDef> {
        self.sensors.get(&id.to_ascii_lowercase())
    }

    /// Every sensor, in id order.
    pub fn sensors(&self) -> impl Iterator<Item = &SensorDef> {
        self.sensors.values()
    }

    /// The sensor a weapon's seeker looks through (`None`: unguided, or no head). After a load
    /// every named head is in the stack, so this is `Some` whenever `sensor_id` is.
    pub fn seeker_sensor(&self, weapon: &WeaponDef) -> Option<&SensorDef> {
        let id = weapon.seeker.as_ref()?.sensor_id.as_deref()?;
        self.sensor(id)
    }

    /// Finds an asset: the builtin layer for `builtin/...` names, else the highest-priority pack
    /// that has it.
    pub fn resolve_asset(&self, kind: AssetKind, name: &str) -> Result<ResolvedAsset, AssetError> {
        resolve_in(&self.packs, kind, name)
    }

    /// An asset's bytes (meshes, textures, sounds, ...), path-safe and size-bounded.
    pub fn read_asset(&self, kind: AssetKind, name: &str) -> Result<Vec<u8>, AssetError> {
        let r = self.resolve_asset(kind, name)?;
        read_resolved(&self.packs, self.limits, kind, &r)
    }

    /// The mounted packs, in stack order (highest priority first).
    pub fn packs(&self) -> Vec<PackInfo> {
        self.packs
            .iter()
            .map(|p| PackInfo {
                id: p.manifest.id.clone(),
                name: p.manifest.name.clone(),
                namespace: p.manifest.namespace.clone(),
                version: p.manifest.version.clone(),
                engine_api: p.manifest.engine_api.clone(),
                priority: p.manifest.priority,
                depends: p.manifest.depends.clone(),
                trust: p.manifest.trust,
                signed: p.manifest.signature.is_some(),
                root: p.root.path().to_owned(),
            })
            .collect()
    }

    /// Warnings, skipped errors and overrides found while loading.
    pub fn report(&self) -> &LoadReport {
        &self.report
    }

    /// The warnings found while loading.
    pub fn warnings(&self) -> &[ContentWarning] {
        &self.report.warnings
    }
}

/// Compile-time guard: the server shares one `Content` between threads.
#[allow(dead_code)]
fn content_is_send_and_sync() {
    fn is<T: Send + Sync>() {}
    is::<Content>();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_cuts_at_a_character_boundary() {
        assert_eq!(shorten("abc", 63), "abc");
        let s = "é".repeat(40); // 80 bytes
        let cut = shorten(&s, 63);
        assert_eq!(cut.len(), 62);
        assert!(s.starts_with(&cut));
        assert_eq!(shorten(&"a".repeat(70), 63).len(), 63);
    }
}

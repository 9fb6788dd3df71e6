//! The entity-type registry the server hands out: fl-content's deterministic registry, plus
//! what the server needs per type at spawn time (the compiled flight model and the AI's flight
//! limits) and the `MsgEntityTypeDef` records sent after every `MsgConnectAck`.
//!
//! Owns no loading (fl-content does that); a registry is immutable once built, and its
//! generation tells peers whether the table they hold is still current.

use crate::combat::stores::{CombatType, WeaponSpec, WeaponTable};
use fl_ai::FlightLimits;
use fl_content::Content;
use fl_flight::AircraftModel;
use fl_protocol::FixedStr;
use fl_protocol::enums::{ObjectCategory, ProjectileKind};
use fl_protocol::msg::handshake::EntityTypeDef;
use std::sync::Arc;

/// One registered type.
#[derive(Debug, Clone)]
pub struct ServerType {
    pub id: String,
    pub wire: EntityTypeDef,
    pub model: Option<Arc<AircraftModel>>,
    pub limits: FlightLimits,
    pub payload_mass_kg: f64,
    pub payload_cd0: f64,
    /// Collision sphere radius, m (fl-content's `collision_radius_m`, the category default
    /// when the def gives none): what a hitscan ray is tested against.
    pub collision_radius_m: f64,
    /// The pack the type comes from (`None`: builtin). A client flying it needs that pack.
    pub pack: Option<String>,
    /// The type's own default Lua script (`ai_script`, a name in a pack's `ai/` folder): what
    /// flies a mission object of this type that has no `ai:` (the mission runner looks it up in
    /// [`fl_content::CheckedMission::scripts`]).
    pub ai_script: Option<String>,
    /// Hit points, stations and default loadout, expendables, damage tiers (`None`: a type that
    /// takes no damage — the weapons' projectile types).
    pub combat: Option<Arc<CombatType>>,
}

/// The registry.
#[derive(Debug, Clone)]
pub struct TypeRegistry {
    types: Vec<ServerType>,
    generation: u64,
    weapons: Arc<WeaponTable>,
}

impl TypeRegistry {
    /// Builds the registry from loaded content; `generation` distinguishes rebuilt tables. After
    /// the content's entity types come one projectile type per missile, rocket and bomb (category
    /// `Projectile`, the weapon's mesh or the client's builtin placeholder), so a projectile in a
    /// snapshot resolves like any entity.
    pub fn from_content(content: &Content, generation: u64) -> Self {
        let weapons = WeaponTable::from_content(content, content.types().len() as u32);
        let mut types: Vec<ServerType> = content
            .types()
            .iter()
            .zip(content.type_records())
            .map(|(t, r)| {
                let wire = EntityTypeDef {
                    type_index: r.type_index,
                    id: FixedStr::new(&r.id),
                    mesh: FixedStr::new(&r.mesh),
                    dmg_mesh: FixedStr::new(&r.damage_mesh),
                    flight_model: FixedStr::new(&r.flight_model),
                    payload_mass_kg: r.payload_mass_kg,
                    payload_cd0: r.payload_cd0,
                    name: FixedStr::new(&r.name),
                    category: ObjectCategory::from_u8(r.category)
                        .unwrap_or(ObjectCategory::AirVehicle),
                    projectile_kind: ProjectileKind::from_u8(r.projectile_kind)
                        .unwrap_or(ProjectileKind::None),
                    deck_length_m: r.deck_length_m,
                    deck_width_m: r.deck_width_m,
                    deck_height_m: r.deck_height_m,
                    mesh_variant: FixedStr::new(&r.mesh_variant),
                };
                let limits = t
                    .flight_model
                    .as_deref()
                    .map(FlightLimits::from_model)
                    .unwrap_or_default();
                ServerType {
                    id: r.id,
                    wire,
                    model: t.flight_model.clone(),
                    limits,
                    payload_mass_kg: t.payload.mass_kg,
                    payload_cd0: t.payload.cd0,
                    collision_radius_m: t.def.collision_radius_m,
                    pack: match &t.source {
                        fl_content::TypeSource::Builtin => None,
                        fl_content::TypeSource::Pack(p) => Some(p.clone()),
                    },
                    ai_script: t.def.ai_script.clone(),
                    combat: Some(Arc::new(
                        CombatType::from_def(&t.def, &weapons).with_sensors(&t.def, content),
                    )),
                }
            })
            .collect();
        for (index, w, kind, mesh) in weapons.projectile_types() {
            types.push(ServerType {
                id: w.id.clone(),
                wire: EntityTypeDef {
                    type_index: *index,
                    id: FixedStr::new(&w.id),
                    mesh: FixedStr::new(mesh),
                    name: FixedStr::new(&w.name),
                    category: ObjectCategory::Projectile,
                    projectile_kind: *kind,
                    ..EntityTypeDef::default()
                },
                model: None,
                limits: FlightLimits::default(),
                payload_mass_kg: 0.0,
                payload_cd0: 0.0,
                // Guns do not shoot down missiles or bombs: their rays pass through.
                collision_radius_m: 0.0,
                pack: None,
                ai_script: None,
                combat: None,
            });
        }
        Self {
            types,
            generation,
            weapons: Arc::new(weapons),
        }
    }

    /// A weapon the registry's content defines, ready to fly (loadout changes, tests).
    pub fn weapon(&self, id: &str) -> Option<&Arc<WeaponSpec>> {
        self.weapons.get(id)
    }

    /// The builtin registry (no packs): the debug entity and the builtin jet trainer.
    pub fn builtin() -> Result<Self, fl_content::LoadFailure> {
        Ok(Self::from_content(&Content::builtin()?, 1))
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn len(&self) -> usize {
        self.types.len()
    }

    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    pub fn get(&self, index: u32) -> Option<&ServerType> {
        self.types.get(index as usize)
    }

    pub fn index_of(&self, id: &str) -> Option<u32> {
        self.types.iter().position(|t| t.id == id).map(|i| i as u32)
    }

    /// The collision radius of type `index`, m (0 for an unknown type: not a target).
    pub fn collision_radius_m(&self, index: u32) -> f64 {
        self.get(index).map_or(0.0, |t| t.collision_radius_m)
    }

    /// The largest collision radius of any type, m (bounds a hitscan broadphase).
    pub fn max_collision_radius_m(&self) -> f64 {
        self.types
            .iter()
            .map(|t| t.collision_radius_m)
            .fold(0.0, f64::max)
    }

    /// Every type's wire record, in index order.
    pub fn wire_defs(&self) -> Vec<EntityTypeDef> {
        self.types.iter().map(|t| t.wire.clone()).collect()
    }

    /// The same registry with every flight model removed (a server that cannot spawn pilots;
    /// used to test the `NoAirframe` refusal).
    pub fn without_flight_models(mut self) -> Self {
        for t in &mut self.types {
            t.model = None;
        }
        self
    }

    /// The type a pilot asking for `requested` gets: that type if it flies, else `default`,
    /// else the first type that flies (`None` when no type can be flown).
    pub fn pilot_type(&self, requested: &str, default: &str) -> Option<u32> {
        let flies = |i: u32| self.get(i).is_some_and(|t| t.model.is_some());
        [requested, default]
            .iter()
            .filter(|id| !id.is_empty())
            .filter_map(|id| self.index_of(id))
            .find(|&i| flies(i))
            .or_else(|| (0..self.types.len() as u32).find(|&i| flies(i)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_registry_has_a_flyable_aircraft_and_the_debug_entity() {
        let reg = TypeRegistry::builtin().expect("builtin content loads");
        let debug = reg.index_of("builtin:debug-entity").expect("debug entity");
        assert!(reg.get(debug).expect("exists").model.is_none());
        let pilot = reg
            .pilot_type("", "builtin:jet-trainer")
            .expect("a flyable type");
        assert_eq!(reg.get(pilot).expect("exists").id, "builtin:jet-trainer");
        // An unknown or unflyable request is clamped to a flyable type.
        assert_eq!(reg.pilot_type("builtin:debug-entity", "nope"), Some(pilot));
        // Aircraft collide as spheres of the category default (no def gives a radius).
        let jet = reg.get(pilot).expect("exists");
        assert_eq!(reg.collision_radius_m(pilot), jet.collision_radius_m);
        assert!(reg.collision_radius_m(pilot) > 0.0);
        assert_eq!(reg.collision_radius_m(u32::MAX), 0.0);
        assert!(reg.max_collision_radius_m() >= reg.collision_radius_m(pilot));
        let defs = reg.wire_defs();
        assert_eq!(defs.len(), reg.len());
        for (i, d) in defs.iter().enumerate() {
            assert_eq!(d.type_index as usize, i);
        }
    }
}

//! `fl-content`: the content system the server spawns from and the client resolves against.
//!
//! Owns: pack discovery (`mods/*/manifest.toml` and explicit pack directories), manifest
//! validation, the content stack (priority order, dependencies, overrides), entity, weapon and
//! sensor definitions (every number in SI, see `docs/weapons.md`), flight-model resolution through `fl-flight`, path-safe and size-bounded
//! asset reads, the builtin types, the deterministic entity-type registry with the data each
//! `MsgEntityTypeDef` carries, and the missions' headers for the game's list
//! ([`mission_header`]). Must not: depend on the wire crate (records are plain data), run Lua or
//! run missions ([`mission`] reads and validates them; the server runs them), or let hash-map order reach any output.
//!
//! Both programs load through [`load_stack`] and report with [`findings`] (one format for
//! every finding). The server's entry points: [`Content::load`] (or [`Content::builtin`]), then
//! [`Content::types`] / [`Content::type_records`] for the registry, [`EntityType::flight_model`] to
//! spawn, and [`Content::read_asset`] for bytes. See `docs/content.md`.

pub mod assets;
pub mod builtin;
mod content;
pub mod defs;
pub mod entity;
pub mod error;
pub mod example;
pub mod findings;
mod load;
pub mod manifest;
pub mod mission;
pub mod mission_header;
pub mod names;
pub mod sensor;
pub mod stack;
mod toml_read;
pub mod weapon;

pub use assets::{AssetKind, AssetLimits, PackRoot};
pub use content::{Content, EntityType, PackInfo, Payload, ResolvedAsset, TypeRecord, TypeSource};
pub use entity::{Category, EntityDef, Hardpoint, ProjectileKind};
pub use error::{AssetError, ContentError, ContentWarning};
pub use findings::{Finding, Findings, Severity, log_loaded};
pub use load::{ErrorPolicy, LoadFailure, LoadOptions, LoadReport, MANIFEST, MAX_PACKS, Override};
pub use manifest::{Manifest, TrustLevel};
pub use mission::{CheckedMission, Mission, MissionCheck, MissionRefused};
pub use mission_header::{MissionHeader, MissionHeaderError, MissionListing};
pub use sensor::{Lobe, SensorDef, SensorRole, SensorType};
pub use stack::{AircraftChoiceError, StackLoad, StackSources, UnusedAssets, load_stack};
pub use weapon::{
    GunParams, Performance, Seeker, SeekerType, Susceptibility, Warhead, WeaponDef, WeaponType,
};

//! Entity definitions (`entities/*.toml`): what an entity type is.
//!
//! Owns: the typed `[entity]` keys the server needs (identity, category, hit points, collision
//! radius, asset names, sensors, expendables, projectile kind, mesh variant), `[signatures]`,
//! `[ai]`, `[[hardpoints]]`, the damage tiers and subsystem pools, `[classic]` and our `[deck]`;
//! tolerance (with warnings) for everything else. Must not: resolve references (assets, weapons,
//! sensors, flight models — that is `load`, which sees the whole stack) or touch the filesystem.

use crate::defs::{asset_ref, declared_id, reference};
use crate::error::ContentError;
use crate::names::{MAX_MESH_VARIANT, NameProblem, check_display_name};
use crate::toml_read::bad_name;
use crate::toml_read::{At, Src, Tbl};
use std::path::PathBuf;

/// Most hardpoints on one entity.
pub const MAX_HARDPOINTS: usize = 64;
/// Most sensors on one entity.
pub const MAX_SENSORS: usize = 32;
/// Most stores a hardpoint may allow.
pub const MAX_ALLOWED: usize = 64;
/// Largest chaff or flare count.
pub const MAX_EXPENDABLES: i64 = 10_000;

/// What kind of object an entity is. The ordinals are the wire's `ObjectCategory`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// `air_vehicle`.
    AirVehicle,
    /// `ground_vehicle`.
    GroundVehicle,
    /// `naval_vehicle`.
    NavalVehicle,
    /// `projectile`.
    Projectile,
    /// `effect`.
    Effect,
    /// `player`.
    Player,
    /// `structure`.
    Structure,
}

impl Category {
    /// Every category, in ordinal order.
    pub const ALL: [Category; 7] = [
        Self::AirVehicle,
        Self::GroundVehicle,
        Self::NavalVehicle,
        Self::Projectile,
        Self::Effect,
        Self::Player,
        Self::Structure,
    ];

    /// Parses the authored spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "air_vehicle" => Self::AirVehicle,
            "ground_vehicle" => Self::GroundVehicle,
            "naval_vehicle" => Self::NavalVehicle,
            "projectile" => Self::Projectile,
            "effect" => Self::Effect,
            "player" => Self::Player,
            "structure" => Self::Structure,
            _ => return None,
        })
    }

    /// The wire ordinal (`MsgEntityTypeDef::category`).
    pub fn ordinal(self) -> u8 {
        match self {
            Self::AirVehicle => 0,
            Self::GroundVehicle => 1,
            Self::NavalVehicle => 2,
            Self::Projectile => 3,
            Self::Effect => 4,
            Self::Player => 5,
            Self::Structure => 6,
        }
    }

    /// Collision radius used when a definition gives none (or 0), m.
    pub fn default_collision_radius_m(self) -> f64 {
        match self {
            Self::AirVehicle | Self::Player => 8.0,
            Self::GroundVehicle | Self::NavalVehicle | Self::Structure => 15.0,
            // Projectiles fuze on their own path; effects never collide.
            Self::Projectile | Self::Effect => 0.0,
        }
    }
}

/// The placeholder silhouette of a projectile type. The ordinals are the wire's `ProjectileKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum ProjectileKind {
    /// Not a projectile.
    #[default]
    None,
    /// Missile.
    Missile,
    /// Bomb.
    Bomb,
    /// Rocket.
    Rocket,
}

impl ProjectileKind {
    /// Every kind, in ordinal order.
    pub const ALL: [ProjectileKind; 4] = [Self::None, Self::Missile, Self::Bomb, Self::Rocket];

    /// The wire ordinal (`MsgEntityTypeDef::projectileKind`).
    pub fn ordinal(self) -> u8 {
        match self {
            Self::None => 0,
            Self::Missile => 1,
            Self::Bomb => 2,
            Self::Rocket => 3,
        }
    }
}

/// `[signatures]`: unitless multipliers against a baseline fighter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signatures {
    /// Radar.
    pub rcs: f64,
    /// Infrared.
    pub ir: f64,
    /// Visual.
    pub visual: f64,
    /// Laser.
    pub laser: f64,
}

impl Default for Signatures {
    fn default() -> Self {
        Self {
            rcs: 1.0,
            ir: 1.0,
            visual: 1.0,
            laser: 1.0,
        }
    }
}

/// `[ai]`: crew quality.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AiTuning {
    /// Spotting skill in [0, 1].
    pub skill: f64,
    /// Reaction slowness in [0, 1] (higher is slower).
    pub reaction: f64,
}

impl Default for AiTuning {
    fn default() -> Self {
        Self {
            skill: 0.5,
            reaction: 0.5,
        }
    }
}

/// One `[[hardpoints]]` station.
#[derive(Debug, Clone, PartialEq)]
pub struct Hardpoint {
    /// Station number, unique within the entity.
    pub slot: u32,
    /// Weapon ids the station accepts.
    pub allowed: Vec<String>,
    /// The store it spawns with (`None` = empty).
    pub default: Option<String>,
    /// Line of `default` (or of the station), for later messages.
    pub default_line: usize,
}

/// One damage tier (`[damage.light]`, `[damage.heavy]`, `[damage.critical]`).
#[derive(Debug, Clone, PartialEq)]
pub struct DamageTier {
    /// HP fraction at or below which the tier applies.
    pub hp_fraction: f64,
    /// Effect name (free text).
    pub visual_effect: String,
    /// Thrust multiplier.
    pub thrust_factor: f64,
    /// Control-authority multiplier.
    pub control_factor: f64,
    /// Whether the sensor suite is stripped to the eyeball.
    pub avionics_failure: bool,
}

/// The closed subsystem vocabulary of `[damage.subsystems.*]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subsystem {
    /// Left engine of a twin.
    EngineLeft,
    /// Right engine of a twin.
    EngineRight,
    /// Single centreline engine.
    Engine,
    /// Flight controls.
    Controls,
    /// Hydraulics.
    Hydraulics,
    /// Avionics (sensors).
    Avionics,
    /// Fuel system.
    Fuel,
}

impl Subsystem {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "engine_left" => Self::EngineLeft,
            "engine_right" => Self::EngineRight,
            "engine" => Self::Engine,
            "controls" => Self::Controls,
            "hydraulics" => Self::Hydraulics,
            "avionics" => Self::Avionics,
            "fuel" => Self::Fuel,
            _ => return None,
        })
    }
}

/// A subsystem's hit-point pool.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubsystemPool {
    /// Hit points.
    pub hp: f64,
    /// Relative weight of an undirected hit.
    pub weight: f64,
}

/// `[damage]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DamageModel {
    /// Light tier.
    pub light: Option<DamageTier>,
    /// Heavy tier.
    pub heavy: Option<DamageTier>,
    /// Critical tier.
    pub critical: Option<DamageTier>,
    /// Subsystem pools, sorted by subsystem.
    pub subsystems: Vec<(Subsystem, SubsystemPool)>,
}

/// A flight-deck footprint (our `[deck]` block; carriers only).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Deck {
    /// Along the keel, m.
    pub length_m: f64,
    /// Abeam, m.
    pub width_m: f64,
    /// Deck plane above the ship origin, m.
    pub height_m: f64,
}

/// A parsed entity definition (references not yet resolved).
#[derive(Debug, Clone, PartialEq)]
pub struct EntityDef {
    /// Namespaced id, lowercase.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Category.
    pub category: Category,
    /// Hit points.
    pub max_hp: f64,
    /// Collision sphere radius, m (the category default when not authored).
    pub collision_radius_m: f64,
    /// Mesh asset name (`None` = builtin placeholder).
    pub mesh: Option<String>,
    /// Cockpit mesh asset name.
    pub cockpit: Option<String>,
    /// Damage mesh asset name (`[classic].damage_mesh`, or the legacy `[entity].damage_mesh`).
    pub damage_mesh: Option<String>,
    /// Variant node-set selector of a shared family mesh.
    pub mesh_variant: Option<String>,
    /// Flight-model asset name (`None` = the entity does not fly).
    pub flight_model: Option<String>,
    /// AI script asset name.
    pub ai_script: Option<String>,
    /// Manual asset name.
    pub manual: Option<String>,
    /// Sensor ids.
    pub sensors: Vec<String>,
    /// Projectile kind (`None` unless the category is `projectile`).
    pub projectile_kind: ProjectileKind,
    /// Chaff count.
    pub chaff_count: u32,
    /// Flare count.
    pub flare_count: u32,
    /// Signatures.
    pub signatures: Signatures,
    /// Crew quality.
    pub ai: AiTuning,
    /// Weapon stations, in file order.
    pub hardpoints: Vec<Hardpoint>,
    /// Damage model.
    pub damage: DamageModel,
    /// Flight-deck footprint.
    pub deck: Option<Deck>,
    /// Source file.
    pub file: PathBuf,
    /// Pack id that provided it.
    pub pack: String,
    /// Lines of reference keys, for messages after resolution.
    pub lines: RefLines,
}

/// Where the reference keys were written.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RefLines {
    /// `mesh`.
    pub mesh: usize,
    /// `cockpit`.
    pub cockpit: usize,
    /// `damage_mesh`.
    pub damage_mesh: usize,
    /// `flight_model`.
    pub flight_model: usize,
    /// `ai_script`.
    pub ai_script: usize,
    /// `manual`.
    pub manual: usize,
    /// Each `sensors` entry.
    pub sensors: Vec<usize>,
    /// Each hardpoint's `allowed` entries.
    pub allowed: Vec<Vec<usize>>,
}

fn ranged(
    src: &Src<'_>,
    t: &mut Tbl<'_>,
    key: &str,
    lo: f64,
    hi: f64,
    lo_open: bool,
    default: f64,
) -> Result<f64, ContentError> {
    let path = t.key_path(key);
    match t.f64(src, key)? {
        None => Ok(default),
        Some(At { value, line }) => {
            let ok = if lo_open { value > lo } else { value >= lo } && value <= hi;
            if ok {
                Ok(value)
            } else {
                let open = if lo_open { "(" } else { "[" };
                Err(src.err(&path, line, format!("{value} is outside {open}{lo}, {hi}]")))
            }
        }
    }
}

fn take(
    src: &mut Src<'_>,
    t: &mut Tbl<'_>,
    key: &str,
    wire: bool,
    line: &mut usize,
) -> Result<Option<String>, ContentError> {
    Ok(asset_ref(src, t, key, wire)?.map(|a| {
        *line = a.line;
        a.value
    }))
}

fn count(src: &Src<'_>, t: &mut Tbl<'_>, key: &str) -> Result<u32, ContentError> {
    let path = t.key_path(key);
    match t.int(src, key)? {
        None => Ok(0),
        Some(At { value, .. }) if (0..=MAX_EXPENDABLES).contains(&value) => Ok(value as u32),
        Some(At { value, line }) => Err(src.err(
            &path,
            line,
            format!("{value} is not in 0..={MAX_EXPENDABLES}"),
        )),
    }
}

fn tier(src: &mut Src<'_>, mut t: Tbl<'_>) -> Result<DamageTier, ContentError> {
    let hp_fraction = ranged(src, &mut t, "hp_fraction", 0.0, 1.0, true, f64::NAN)?;
    if hp_fraction.is_nan() {
        return Err(src.err(
            &t.key_path("hp_fraction"),
            t.line(),
            "required key is missing",
        ));
    }
    let visual_effect = t
        .str(src, "visual_effect")?
        .map(|s| s.value)
        .unwrap_or_default();
    let thrust_factor = ranged(src, &mut t, "thrust_factor", 0.0, 1.0, false, 1.0)?;
    let control_factor = ranged(src, &mut t, "control_factor", 0.0, 1.0, false, 1.0)?;
    let avionics_failure = t.bool(src, "avionics_failure")?.is_some_and(|b| b.value);
    t.finish(src);
    Ok(DamageTier {
        hp_fraction,
        visual_effect,
        thrust_factor,
        control_factor,
        avionics_failure,
    })
}

fn damage(src: &mut Src<'_>, mut d: Tbl<'_>) -> Result<DamageModel, ContentError> {
    let mut out = DamageModel::default();
    for (key, slot) in [("light", 0), ("heavy", 1), ("critical", 2)] {
        if let Some(t) = d.table(src, key)? {
            let tier = tier(src, t)?;
            match slot {
                0 => out.light = Some(tier),
                1 => out.heavy = Some(tier),
                _ => out.critical = Some(tier),
            }
        }
    }
    let fractions: Vec<f64> = [&out.light, &out.heavy, &out.critical]
        .iter()
        .filter_map(|t| t.as_ref().map(|t| t.hp_fraction))
        .collect();
    if fractions.windows(2).any(|w| w[1] >= w[0]) {
        let line = d.line();
        src.warn(
            d.path(),
            line,
            "tier hp_fraction values should decrease from light to heavy to critical",
        );
    }
    if let Some(mut subs) = d.table(src, "subsystems")? {
        for key in subs.keys() {
            let Some(mut t) = subs.table(src, &key)? else {
                continue;
            };
            let Some(which) = Subsystem::parse(&key) else {
                let line = t.line();
                src.warn(
                    t.path(),
                    line,
                    "unknown subsystem (ignored); the vocabulary is engine_left, engine_right, engine, controls, hydraulics, avionics, fuel",
                );
                continue;
            };
            let hp = ranged(src, &mut t, "hp", 0.0, 1e9, true, f64::NAN)?;
            if hp.is_nan() {
                return Err(src.err(&t.key_path("hp"), t.line(), "required key is missing"));
            }
            let weight = ranged(src, &mut t, "weight", 0.0, 1e6, true, 1.0)?;
            t.finish(src);
            out.subsystems.push((which, SubsystemPool { hp, weight }));
        }
        out.subsystems.sort_by_key(|(s, _)| *s);
        let has = |s| out.subsystems.iter().any(|(x, _)| *x == s);
        if has(Subsystem::Engine) && (has(Subsystem::EngineLeft) || has(Subsystem::EngineRight)) {
            let line = subs.line();
            src.warn(
                subs.path(),
                line,
                "mixes the single `engine` pool with `engine_left`/`engine_right`; use one or the other",
            );
        }
        subs.finish(src);
    }
    d.finish(src);
    Ok(out)
}

fn hardpoints(
    src: &mut Src<'_>,
    root: &mut Tbl<'_>,
    namespace: &str,
) -> Result<(Vec<Hardpoint>, Vec<Vec<usize>>), ContentError> {
    let mut out: Vec<Hardpoint> = Vec::new();
    let mut lines = Vec::new();
    for mut h in root.tables(src, "hardpoints", MAX_HARDPOINTS)? {
        let slot_path = h.key_path("slot");
        let slot = match h.int(src, "slot")? {
            Some(At { value, line }) => {
                let s = u32::try_from(value)
                    .ok()
                    .filter(|s| *s < 256)
                    .ok_or_else(|| {
                        src.err(
                            &slot_path,
                            line,
                            format!("{value} is not a station number in 0..=255"),
                        )
                    })?;
                if out.iter().any(|o| o.slot == s) {
                    return Err(src.err(
                        &slot_path,
                        line,
                        format!("station {s} is declared twice"),
                    ));
                }
                s
            }
            None => return Err(src.err(&slot_path, h.line(), "required key is missing")),
        };
        let allowed_path = h.key_path("allowed");
        let allowed_at = h
            .str_array(src, "allowed", MAX_ALLOWED)?
            .ok_or_else(|| src.err(&allowed_path, h.line(), "required key is missing"))?;
        if allowed_at.value.is_empty() {
            return Err(src.err(
                &allowed_path,
                allowed_at.line,
                "must list at least one weapon id",
            ));
        }
        let mut allowed = Vec::with_capacity(allowed_at.value.len());
        let mut allowed_lines = Vec::with_capacity(allowed_at.value.len());
        for (i, a) in allowed_at.value.iter().enumerate() {
            let id = reference(src, a, &format!("{allowed_path}[{i}]"), namespace)?;
            if !allowed.contains(&id) {
                allowed.push(id);
                allowed_lines.push(a.line);
            }
        }
        let default_path = h.key_path("default");
        let (default, default_line) = match h.str(src, "default")? {
            Some(d) if d.value.is_empty() => (None, d.line),
            Some(d) => {
                let id = reference(src, &d, &default_path, namespace)?;
                if !allowed.contains(&id) {
                    return Err(src.err(
                        &default_path,
                        d.line,
                        format!("{id:?} is not in this station's `allowed` list"),
                    ));
                }
                (Some(id), d.line)
            }
            None => (None, h.line()),
        };
        // The single-kind `type` of older packs is accepted and ignored: `allowed` is the kind.
        h.tolerate("type");
        h.finish(src);
        out.push(Hardpoint {
            slot,
            allowed,
            default,
            default_line,
        });
        lines.push(allowed_lines);
    }
    Ok((out, lines))
}

/// Parses an entity file.
pub(crate) fn parse_entity(
    src: &mut Src<'_>,
    text: &str,
    pack: &str,
    namespace: &str,
) -> Result<EntityDef, ContentError> {
    let doc = src.parse(text)?;
    let mut root = Tbl::root(doc.as_table());
    let mut e = root.req_table(src, "entity")?;
    let mut lines = RefLines::default();

    let id_at = e.req_str(src, "id")?;
    let id = declared_id(src, &id_at, "entity.id", namespace)?;
    let name = e.req_str(src, "name")?;
    check_display_name(&name.value)
        .map_err(|p| bad_name(src, "entity.name", name.line, &name.value, p))?;
    if name.value.len() > crate::names::MAX_WIRE_STR {
        src.warn(
            "entity.name",
            name.line,
            format!(
                "is {} bytes; the wire carries {} (it will be shortened)",
                name.value.len(),
                crate::names::MAX_WIRE_STR
            ),
        );
    }
    let cat = e.req_str(src, "category")?;
    let category = Category::parse(&cat.value).ok_or_else(|| {
        src.err(
            "entity.category",
            cat.line,
            format!(
                "{:?} is not one of air_vehicle, ground_vehicle, naval_vehicle, projectile, effect, player, structure",
                cat.value
            ),
        )
    })?;
    let max_hp = ranged(src, &mut e, "max_hp", 0.0, 1e9, true, f64::NAN)?;
    if max_hp.is_nan() {
        return Err(src.err("entity.max_hp", e.line(), "required key is missing"));
    }
    let radius = ranged(src, &mut e, "collision_radius_m", 0.0, 10_000.0, false, 0.0)?;
    let collision_radius_m = if radius > 0.0 {
        radius
    } else {
        category.default_collision_radius_m()
    };

    let mesh = take(src, &mut e, "mesh", true, &mut lines.mesh)?;
    let cockpit = take(src, &mut e, "cockpit", false, &mut lines.cockpit)?;
    let flight_model = take(src, &mut e, "flight_model", true, &mut lines.flight_model)?;
    let ai_script = take(src, &mut e, "ai_script", false, &mut lines.ai_script)?;
    let manual = take(src, &mut e, "manual", false, &mut lines.manual)?;
    let legacy_damage_mesh = take(src, &mut e, "damage_mesh", true, &mut lines.damage_mesh)?;

    let mesh_variant = match e.str(src, "mesh_variant")? {
        Some(v) if v.value.is_empty() => None,
        Some(v) => {
            crate::names::check_asset_name(&v.value)
                .map_err(|p| bad_name(src, "entity.mesh_variant", v.line, &v.value, p))?;
            if v.value.len() > MAX_MESH_VARIANT || v.value.contains('/') {
                return Err(bad_name(
                    src,
                    "entity.mesh_variant",
                    v.line,
                    &v.value,
                    NameProblem::TooLong {
                        len: v.value.len(),
                        max: MAX_MESH_VARIANT,
                    },
                ));
            }
            Some(v.value)
        }
        None => None,
    };

    let mut sensors = Vec::new();
    if let Some(list) = e.str_array(src, "sensors", MAX_SENSORS)? {
        for (i, s) in list.value.iter().enumerate() {
            let id = reference(src, s, &format!("entity.sensors[{i}]"), namespace)?;
            if sensors.contains(&id) {
                src.warn(
                    &format!("entity.sensors[{i}]"),
                    s.line,
                    format!("{id:?} is listed twice"),
                );
                continue;
            }
            sensors.push(id);
            lines.sensors.push(s.line);
        }
    }

    let projectile_kind = match e.str(src, "projectile_kind")? {
        Some(k) if category != Category::Projectile => {
            return Err(src.err(
                "entity.projectile_kind",
                k.line,
                "only a `projectile` category entity has a projectile kind",
            ));
        }
        Some(k) => match k.value.as_str() {
            "missile" => ProjectileKind::Missile,
            "bomb" => ProjectileKind::Bomb,
            "rocket" => ProjectileKind::Rocket,
            other => {
                return Err(src.err(
                    "entity.projectile_kind",
                    k.line,
                    format!("{other:?} is not one of missile, bomb, rocket"),
                ));
            }
        },
        None if category == Category::Projectile => ProjectileKind::Missile,
        None => ProjectileKind::None,
    };
    let chaff_count = count(src, &mut e, "chaff_count")?;
    let flare_count = count(src, &mut e, "flare_count")?;
    e.finish(src);

    let signatures = match root.table(src, "signatures")? {
        Some(mut t) => {
            let s = Signatures {
                rcs: ranged(src, &mut t, "rcs", 0.0, 100.0, true, 1.0)?,
                ir: ranged(src, &mut t, "ir", 0.0, 100.0, true, 1.0)?,
                visual: ranged(src, &mut t, "visual", 0.0, 100.0, true, 1.0)?,
                laser: ranged(src, &mut t, "laser", 0.0, 100.0, true, 1.0)?,
            };
            t.finish(src);
            s
        }
        None => Signatures::default(),
    };
    let ai = match root.table(src, "ai")? {
        Some(mut t) => {
            let a = AiTuning {
                skill: ranged(src, &mut t, "skill", 0.0, 1.0, false, 0.5)?,
                reaction: ranged(src, &mut t, "reaction", 0.0, 1.0, false, 0.5)?,
            };
            t.finish(src);
            a
        }
        None => AiTuning::default(),
    };
    let (hardpoints, allowed_lines) = hardpoints(src, &mut root, namespace)?;
    lines.allowed = allowed_lines;
    let damage = match root.table(src, "damage")? {
        Some(t) => damage(src, t)?,
        None => DamageModel::default(),
    };
    let mut damage_mesh = legacy_damage_mesh;
    if let Some(mut c) = root.table(src, "classic")? {
        let mut l = 0;
        if let Some(dm) = take(src, &mut c, "damage_mesh", true, &mut l)? {
            if damage_mesh.is_some() {
                src.warn(
                    "classic.damage_mesh",
                    l,
                    "also set as `entity.damage_mesh`; this one is used",
                );
            }
            damage_mesh = Some(dm);
            lines.damage_mesh = l;
        }
        c.finish(src);
    }
    let deck = match root.table(src, "deck")? {
        Some(mut t) => {
            let d = Deck {
                length_m: ranged(src, &mut t, "length_m", 0.0, 2000.0, false, 0.0)?,
                width_m: ranged(src, &mut t, "width_m", 0.0, 500.0, false, 0.0)?,
                height_m: ranged(src, &mut t, "height_m", -100.0, 200.0, false, 0.0)?,
            };
            if category != Category::NavalVehicle {
                let line = t.line();
                src.warn(
                    "deck",
                    line,
                    "a flight deck on a non-naval entity (kept, but unusual)",
                );
            }
            t.finish(src);
            Some(d)
        }
        None => None,
    };
    // Multi-crew seats and turrets are documented and owned by a later issue: tolerated.
    root.tolerate("crew");
    root.tolerate("turrets");
    root.finish(src);

    Ok(EntityDef {
        id,
        name: name.value,
        category,
        max_hp,
        collision_radius_m,
        mesh,
        cockpit,
        damage_mesh,
        mesh_variant,
        flight_model,
        ai_script,
        manual,
        sensors,
        projectile_kind,
        chaff_count,
        flare_count,
        signatures,
        ai,
        hardpoints,
        damage,
        deck,
        file: src.file.into(),
        pack: pack.into(),
        lines,
    })
}

/// Parses an entity from text (for tests and tools); `file` is only used in messages.
pub fn parse_entity_text(
    file: &std::path::Path,
    text: &str,
    pack: &str,
    namespace: &str,
) -> Result<(EntityDef, Vec<crate::ContentWarning>), ContentError> {
    let mut src = Src::new(file, text);
    let e = parse_entity(&mut src, text, pack, namespace)?;
    Ok((e, src.warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn parse(text: &str) -> Result<(EntityDef, Vec<crate::ContentWarning>), ContentError> {
        parse_entity_text(Path::new("entities/e.toml"), text, "p", "ns")
    }

    fn err(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        }
    }

    const HEAD: &str =
        "[entity]\nid = \"ns:jet\"\nname = \"Jet\"\ncategory = \"air_vehicle\"\nmax_hp = 100\n";

    #[test]
    fn minimal_entity_gets_documented_defaults() {
        let (e, w) = parse(HEAD).unwrap_or_else(|e| panic!("{e}"));
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(e.id, "ns:jet");
        assert_eq!(e.category, Category::AirVehicle);
        assert_eq!(e.collision_radius_m, 8.0);
        assert_eq!(e.signatures, Signatures::default());
        assert_eq!(e.ai, AiTuning::default());
        assert_eq!(e.projectile_kind, ProjectileKind::None);
        assert!(e.hardpoints.is_empty() && e.flight_model.is_none() && e.mesh.is_none());
    }

    #[test]
    fn hardpoints_are_checked() {
        let hp = |body: &str| format!("{HEAD}[[hardpoints]]\n{body}\n");
        let (e, w) = parse(&hp(
            "slot = 1\ntype = \"gun\"\nallowed = [\"ns:a\", \"ns:b\"]\ndefault = \"ns:b\"",
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(e.hardpoints[0].default.as_deref(), Some("ns:b"));
        assert_eq!(e.hardpoints[0].default_line, 10);
        let (e, _) = parse(&hp("slot = 1\nallowed = [\"ns:a\"]\ndefault = \"\""))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(e.hardpoints[0].default, None);
        assert!(
            err(&hp("slot = 1\nallowed = [\"ns:a\"]\ndefault = \"ns:z\""))
                .contains("not in this station's")
        );
        assert!(err(&hp("slot = 1\nallowed = []")).contains("at least one"));
        assert!(err(&hp("slot = -1\nallowed = [\"ns:a\"]")).contains("station number"));
        assert!(err(&hp("allowed = [\"ns:a\"]")).contains("`hardpoints[0].slot`: required"));
        let twice = format!(
            "{HEAD}[[hardpoints]]\nslot = 2\nallowed = [\"ns:a\"]\n[[hardpoints]]\nslot = 2\nallowed = [\"ns:a\"]\n"
        );
        let e = err(&twice);
        assert!(
            e.contains("entities/e.toml:10: `hardpoints[1].slot`: station 2 is declared twice"),
            "{e}"
        );
        assert!(err(&hp("slot = 1\nallowed = [\"../../x\"]")).contains("traversal"));
    }

    #[test]
    fn typed_keys_refuse_bad_values() {
        assert!(err(&HEAD.replace("air_vehicle", "spaceship")).contains("spaceship"));
        assert!(err(&HEAD.replace("max_hp = 100", "max_hp = 0")).contains("max_hp"));
        assert!(err(&HEAD.replace("max_hp = 100\n", "")).contains("`entity.max_hp`: required"));
        assert!(err(&format!("{HEAD}mesh = \"../../../etc/passwd\"")).contains("traversal"));
        assert!(err(&format!("{HEAD}mesh = \"fl-base:f5e\"")).contains("colon"));
        assert!(
            err(&format!("{HEAD}flight_model = \"/abs/path\"")).contains("empty path component")
        );
        assert!(err(&format!("{HEAD}projectile_kind = \"bomb\"")).contains("only a `projectile`"));
        assert!(err(&format!("{HEAD}[signatures]\nrcs = 0\n")).contains("(0, 100]"));
        assert!(err(&format!("{HEAD}[ai]\nskill = 2\n")).contains("[0, 1]"));
        assert!(err(&format!("{HEAD}chaff_count = -1\n")).contains("chaff_count"));
        assert!(
            err(&format!("{HEAD}mesh_variant = \"{}\"\n", "v".repeat(40))).contains("mesh_variant")
        );
        assert!(err(&HEAD.replace("ns:jet", "builtin:jet")).contains("reserved"));
        let long = format!("{HEAD}mesh = \"{}/{}\"\n", "a".repeat(40), "b".repeat(40));
        assert!(err(&long).contains("at most 63"));
    }

    #[test]
    fn tolerated_and_unknown_keys() {
        let text = format!(
            "{HEAD}colour = \"red\"\nmesh = \"aircraft/jet/jet\"\n[[crew]]\nrole = \"pilot\"\n[damage.light]\nhp_fraction = 0.7\nsmell = 1\n\
             [damage.heavy]\nhp_fraction = 0.8\n[damage.subsystems.engine]\nhp = 5\n[damage.subsystems.engine_left]\nhp = 5\n\
             [damage.subsystems.warp_core]\nhp = 1\n[future]\nx = 1\n"
        );
        let (e, w) = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        let keys: Vec<&str> = w.iter().map(|w| w.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "entity.mesh",
                "entity.colour",
                "damage.light.smell",
                "damage",
                "damage.subsystems.warp_core",
                "damage.subsystems",
                "future"
            ],
            "{w:#?}"
        );
        assert_eq!(e.damage.subsystems.len(), 2);
        assert_eq!(e.damage.light.as_ref().map(|t| t.thrust_factor), Some(1.0));
    }

    #[test]
    fn projectile_and_deck() {
        let text = HEAD.replace("air_vehicle", "projectile");
        let (e, _) = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(e.projectile_kind, ProjectileKind::Missile);
        assert_eq!(e.collision_radius_m, 0.0);
        let (e, _) = parse(&format!("{text}projectile_kind = \"rocket\"\n"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(e.projectile_kind.ordinal(), 3);
        let ship = format!(
            "{}[deck]\nlength_m = 250\nwidth_m = 60\nheight_m = 18\n",
            HEAD.replace("air_vehicle", "naval_vehicle")
        );
        let (e, w) = parse(&ship).unwrap_or_else(|e| panic!("{e}"));
        assert!(w.is_empty());
        assert_eq!(e.deck.map(|d| d.length_m), Some(250.0));
        assert_eq!(e.collision_radius_m, 15.0);
    }
}

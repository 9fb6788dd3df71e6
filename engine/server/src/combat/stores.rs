//! Stores: the weapons a server can fly (each weapon def converted once into a [`WeaponSpec`]
//! fl-combat trusts), what each entity type carries ([`CombatType`]: stations, default loadout,
//! expendables, hit points, damage tiers, signatures) and the live [`Loadout`] of one entity
//! (rounds left per station, chaff and flares, the stores' mass and drag for the flight model).
//!
//! Stations are the entity def's `[[hardpoints]]` sorted by `slot`; `MsgClientInput`'s
//! `selectedStation` is an index into that order. A gun's magazine is its station's `rounds`;
//! its `[load] weight_lb` is the full magazine, so the gun's mass falls round by round.
//!
//! Must not: fire anything (that is `weapons`), or read files (fl-content has done that; a def
//! fl-combat refuses is carried as an inert store and reported once, never flown).

use fl_combat::flyout::spec::{
    BallisticKind, BallisticParams, BallisticSpec, DEFAULT_GUN_DISPERSION_RAD,
    DEFAULT_TIME_OF_FLIGHT_S, MissileParams, MissileSpec, SeekerKind, SeekerLobe, SeekerParams,
};
use fl_content::weapon::{SeekerType, WeaponDef, WeaponType as DefType};
use fl_content::{Content, EntityDef};
use fl_protocol::enums::WeaponType;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One round in the gun's rate accumulator (fl-combat's, shared with the client's prediction).
pub use fl_combat::own::ROUND_UNITS;

/// A gun as the server resolves it: hitscan rays at a fixed rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GunSpec {
    /// Rate of fire in thousandths of a round per minute (exact integer accumulation).
    pub rate_milli_rpm: u64,
    /// Reach of a round, m (`performance.max_range_nm`).
    pub range_m: f64,
    /// Cone half-angle of the seeded dispersion, rad.
    pub dispersion_rad: f64,
    /// Damage per round that hits.
    pub damage: f64,
}

/// How a weapon leaves the aircraft.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery {
    /// Hitscan gun.
    Gun(GunSpec),
    /// Guided missile (a projectile entity flown by fl-combat's missile flyout).
    Missile(MissileSpec),
    /// Rocket or bomb (a projectile entity flown ballistically).
    Ballistic(BallisticSpec),
    /// Carried for its mass and drag (pods, tanks, and defs fl-combat refused); released only by
    /// jettison or a store release, and then it simply falls away.
    Inert,
}

/// A weapon def ready to fly.
#[derive(Debug, Clone, PartialEq)]
pub struct WeaponSpec {
    /// Definition id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Wire class (`WeaponType` ordinal) for effects and kill records.
    pub class: WeaponType,
    /// Store mass per station, full, kg.
    pub mass_kg: f64,
    /// Parasite-drag increment per station.
    pub drag_cd0: f64,
    /// Rounds per station.
    pub rounds: u32,
    /// How it is delivered.
    pub delivery: Delivery,
    /// The registry index of its projectile entity type (missiles, rockets, bombs).
    pub projectile_type: Option<u32>,
    /// Warhead radius, m (0 for inert stores).
    pub blast_radius_m: f64,
    /// Warhead damage (per round for a gun).
    pub damage: f64,
}

impl WeaponSpec {
    /// True for stores a release press lets go (everything but guns).
    pub fn is_releasable(&self) -> bool {
        !matches!(self.delivery, Delivery::Gun(_))
    }

    /// Mass of one round, kg (a gun's magazine empties round by round).
    pub fn mass_per_round_kg(&self) -> f64 {
        self.mass_kg / f64::from(self.rounds.max(1))
    }
}

fn wire_class(t: DefType) -> WeaponType {
    match t {
        DefType::Missile => WeaponType::Missile,
        DefType::Bomb => WeaponType::Bomb,
        DefType::Rocket => WeaponType::Rocket,
        DefType::Gun => WeaponType::Gun,
        DefType::Pod => WeaponType::Pod,
        DefType::Fuel => WeaponType::Fuel,
    }
}

fn lobe(l: &fl_content::Lobe) -> SeekerLobe {
    SeekerLobe {
        az_half_angle_rad: l.az_half_angle_rad,
        el_half_angle_rad: l.el_half_angle_rad,
        min_range_m: l.min_range_m,
        max_range_m: l.max_range_m,
        pod: l.pod,
    }
}

/// Converts one weapon def; `Err` says why it cannot be flown (it is then carried inert).
fn delivery(content: &Content, w: &WeaponDef) -> Result<Delivery, String> {
    if w.kind.is_inert() {
        return Ok(Delivery::Inert);
    }
    let perf = w
        .performance
        .ok_or("it has no [performance] block".to_owned())?;
    let warhead = w.warhead.ok_or("it has no [warhead] block".to_owned())?;
    match w.kind {
        DefType::Gun => {
            let gun = w.gun.ok_or("a gun without gun parameters".to_owned())?;
            // The original resolves a round as a ray with a 0.012 rad cone (kGunDispersionRad);
            // a def that authors `dispersion_mrad` gets its own.
            let dispersion = if gun.defaulted.dispersion {
                DEFAULT_GUN_DISPERSION_RAD
            } else {
                gun.dispersion_rad
            };
            let rate = (gun.rate_of_fire_rpm * 1000.0).round();
            if !(rate >= 1.0 && rate.is_finite()) {
                return Err(format!(
                    "rate of fire {} rpm cannot fire",
                    gun.rate_of_fire_rpm
                ));
            }
            Ok(Delivery::Gun(GunSpec {
                rate_milli_rpm: rate as u64,
                range_m: perf.max_range_m,
                dispersion_rad: dispersion,
                damage: warhead.damage,
            }))
        }
        DefType::Missile => {
            let guided = w.seeker.as_ref().filter(|s| s.kind != SeekerType::Unguided);
            let Some(seeker) = guided else {
                // An unguided "missile" is a rocket.
                return rocket(w, &perf, &warhead);
            };
            let kind = match seeker.kind {
                SeekerType::Infrared => SeekerKind::Infrared,
                SeekerType::SemiActiveRadar => SeekerKind::SemiActiveRadar,
                SeekerType::ActiveRadar => SeekerKind::ActiveRadar,
                other => return Err(format!("{other:?} seekers are not flown yet")),
            };
            let head = content
                .seeker_sensor(w)
                .ok_or("its seeker names no sensor the stack has".to_owned())?;
            let search = lobe(&head.search);
            let track = head.track.as_ref().map_or(search, lobe);
            let params = MissileParams {
                motor_burn_s: perf.motor_burn_s,
                max_speed_mps: perf.max_speed_mps,
                max_g: perf.max_g,
                max_range_m: perf.max_range_m,
                min_range_m: perf.min_range_m,
                time_of_flight_s: DEFAULT_TIME_OF_FLIGHT_S,
                blast_radius_m: warhead.blast_radius_m,
                damage: warhead.damage,
                flare_susceptibility: w.countermeasures.flare,
                chaff_susceptibility: w.countermeasures.chaff,
                notch_susceptibility: w.countermeasures.notch,
                seeker: SeekerParams {
                    kind,
                    fire_and_forget: seeker.fire_and_forget,
                    search,
                    track,
                    lock_hold_s: head.lock_hold_s,
                },
                drag_k_m2_per_kg: None,
            };
            MissileSpec::new(params)
                .map(Delivery::Missile)
                .map_err(|e| e.to_string())
        }
        DefType::Rocket => rocket(w, &perf, &warhead),
        DefType::Bomb => {
            let mut p = BallisticParams::bomb(warhead.blast_radius_m, warhead.damage);
            // The CEP over the reach as the cone's half-angle: an unguided bomb lands about
            // that far from the aim point at its release range.
            if perf.cep_m > 0.0 && perf.max_range_m > 0.0 {
                p.dispersion_half_angle_rad = (perf.cep_m / perf.max_range_m).min(0.5);
            }
            BallisticSpec::new(p)
                .map(Delivery::Ballistic)
                .map_err(|e| e.to_string())
        }
        DefType::Pod | DefType::Fuel => Ok(Delivery::Inert),
    }
}

fn rocket(
    _w: &WeaponDef,
    perf: &fl_content::weapon::Performance,
    warhead: &fl_content::weapon::Warhead,
) -> Result<Delivery, String> {
    let p = BallisticParams::rocket(
        perf.motor_burn_s,
        perf.max_speed_mps,
        perf.min_range_m,
        warhead.blast_radius_m,
        warhead.damage,
    );
    BallisticSpec::new(p)
        .map(Delivery::Ballistic)
        .map_err(|e| e.to_string())
}

/// Every weapon of a content stack, converted, in id order; projectile entity types are
/// numbered from the index given at build.
#[derive(Debug, Clone, Default)]
pub struct WeaponTable {
    weapons: BTreeMap<String, Arc<WeaponSpec>>,
    /// (registry index, weapon) of each projectile type, ascending.
    projectiles: Vec<(
        u32,
        Arc<WeaponSpec>,
        fl_protocol::enums::ProjectileKind,
        String,
    )>,
}

impl WeaponTable {
    /// Converts every weapon of `content`; projectile types get indices from `first_type`.
    /// A weapon fl-combat refuses is kept inert and reported with `tracing::warn!`.
    pub fn from_content(content: &Content, first_type: u32) -> Self {
        use fl_protocol::enums::ProjectileKind as Pk;
        let mut table = WeaponTable::default();
        let mut next = first_type;
        for w in content.weapons() {
            let delivery = match delivery(content, w) {
                Ok(d) => d,
                Err(why) => {
                    tracing::warn!(weapon = %w.id, "carried inert, not flown: {why}");
                    Delivery::Inert
                }
            };
            let kind = match (&delivery, w.kind) {
                (Delivery::Missile(_), _) => Some(Pk::Missile),
                (Delivery::Ballistic(b), _) => Some(match b.params().kind {
                    BallisticKind::Bomb => Pk::Bomb,
                    _ => Pk::Rocket,
                }),
                _ => None,
            };
            let projectile_type = kind.map(|_| {
                let i = next;
                next += 1;
                i
            });
            let (blast, damage) = w
                .warhead
                .map_or((0.0, 0.0), |h| (h.blast_radius_m, h.damage));
            let spec = Arc::new(WeaponSpec {
                id: w.id.clone(),
                name: w.name.clone(),
                class: wire_class(w.kind),
                mass_kg: w.mass_kg,
                drag_cd0: w.drag_cd0,
                rounds: w.rounds.max(1),
                delivery,
                projectile_type,
                blast_radius_m: blast,
                damage,
            });
            if let (Some(i), Some(k)) = (projectile_type, kind) {
                table
                    .projectiles
                    .push((i, spec.clone(), k, w.mesh.clone().unwrap_or_default()));
            }
            table.weapons.insert(w.id.clone(), spec);
        }
        table
    }

    /// A weapon by id (ids are lowercase, as fl-content stores them).
    pub fn get(&self, id: &str) -> Option<&Arc<WeaponSpec>> {
        self.weapons.get(&id.to_ascii_lowercase())
    }

    /// Every weapon, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<WeaponSpec>> {
        self.weapons.values()
    }

    /// The projectile entity types: (registry index, weapon, kind, mesh asset name or "").
    pub fn projectile_types(
        &self,
    ) -> &[(
        u32,
        Arc<WeaponSpec>,
        fl_protocol::enums::ProjectileKind,
        String,
    )] {
        &self.projectiles
    }
}

/// One damage tier of a type (`[damage.light|heavy|critical]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tier {
    /// Hit-point fraction at or below which it applies.
    pub hp_fraction: f64,
    /// Thrust multiplier.
    pub thrust_factor: f64,
    /// Control-authority multiplier.
    pub control_factor: f64,
    /// Sensors stripped to the eyeball.
    pub avionics_failure: bool,
}

/// A type's damage tiers; with none authored the damage level follows hit-point quarters and
/// nothing degrades.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tiers {
    pub light: Option<Tier>,
    pub heavy: Option<Tier>,
    pub critical: Option<Tier>,
}

/// One station of a type.
#[derive(Debug, Clone, PartialEq)]
pub struct StationDef {
    /// The def's `slot`.
    pub slot: u32,
    /// Weapon ids it accepts.
    pub allowed: Vec<String>,
    /// What it spawns with.
    pub default: Option<Arc<WeaponSpec>>,
}

/// What an entity type brings to a fight.
#[derive(Debug, Clone, PartialEq)]
pub struct CombatType {
    /// Hit points.
    pub max_hp: f64,
    /// Radius of its hit sphere, m.
    pub collision_radius_m: f64,
    /// Chaff at spawn.
    pub chaff: u32,
    /// Flares at spawn.
    pub flares: u32,
    /// Stations sorted by slot.
    pub stations: Vec<StationDef>,
    /// Damage tiers.
    pub tiers: Tiers,
    /// Subsystem hit-point pools (`[damage.subsystems.*]`, sorted by subsystem; see
    /// `damage::Systems`).
    pub subsystems: Vec<(
        fl_content::entity::Subsystem,
        fl_content::entity::SubsystemPool,
    )>,
    /// IR signature (range scale of IR seekers against it).
    pub ir_signature: f64,
    /// Radar cross-section multiplier (radar range scales with its square root).
    pub rcs: f64,
    /// Its sensors (empty: it senses nothing; see [`CombatType::with_sensors`]).
    pub sensors: crate::combat::sensors::SensorSuite,
    /// What it presents to others' sensors (the def's `[signatures]`).
    pub signatures: fl_combat::sensing::Signatures,
    /// Crew skill for the probability of detection (`[ai] skill`, 0.5 leaves it as authored).
    pub skill: f64,
}

impl Default for CombatType {
    fn default() -> Self {
        Self {
            max_hp: 100.0,
            collision_radius_m: 8.0,
            chaff: 0,
            flares: 0,
            stations: Vec::new(),
            tiers: Tiers::default(),
            subsystems: Vec::new(),
            ir_signature: 1.0,
            rcs: 1.0,
            sensors: crate::combat::sensors::SensorSuite {
                specs: Vec::new(),
                reach_m: 0.0,
            },
            signatures: fl_combat::sensing::Signatures {
                rcs: 1.0,
                ir: 1.0,
                visual: 1.0,
                laser: 1.0,
            },
            skill: 0.5,
        }
    }
}

impl CombatType {
    /// The combat side of an entity def, its stores resolved in `weapons`.
    pub fn from_def(def: &EntityDef, weapons: &WeaponTable) -> Self {
        let tier = |t: &Option<fl_content::entity::DamageTier>| {
            t.as_ref().map(|t| Tier {
                hp_fraction: t.hp_fraction,
                thrust_factor: t.thrust_factor,
                control_factor: t.control_factor,
                avionics_failure: t.avionics_failure,
            })
        };
        let mut stations: Vec<StationDef> = def
            .hardpoints
            .iter()
            .map(|h| StationDef {
                slot: h.slot,
                allowed: h.allowed.clone(),
                default: h.default.as_deref().and_then(|d| weapons.get(d).cloned()),
            })
            .collect();
        stations.sort_by_key(|s| s.slot);
        let finite_or = |v: f64, d: f64| if v.is_finite() && v > 0.0 { v } else { d };
        Self {
            max_hp: finite_or(def.max_hp, 1.0),
            collision_radius_m: finite_or(def.collision_radius_m, 1.0),
            chaff: def.chaff_count,
            flares: def.flare_count,
            stations,
            tiers: Tiers {
                light: tier(&def.damage.light),
                heavy: tier(&def.damage.heavy),
                critical: tier(&def.damage.critical),
            },
            subsystems: def.damage.subsystems.clone(),
            ir_signature: finite_or(def.signatures.ir, 1.0),
            rcs: finite_or(def.signatures.rcs, 1.0),
            signatures: crate::combat::sensors::signatures_from_def(&def.signatures),
            skill: if def.ai.skill.is_finite() {
                def.ai.skill.clamp(0.0, 1.0)
            } else {
                0.5
            },
            ..Self::default()
        }
    }

    /// The same type with its def's sensors, resolved in `content` (docs/sensing.md).
    pub fn with_sensors(mut self, def: &EntityDef, content: &Content) -> Self {
        self.sensors = crate::combat::sensors::SensorSuite::from_def(def, content);
        self
    }
}

/// A store on a station.
#[derive(Debug, Clone, PartialEq)]
pub struct Store {
    pub weapon: Arc<WeaponSpec>,
    /// Rounds (or stores) left.
    pub rounds: u32,
    /// A gun's rate accumulator, in [`ROUND_UNITS`] per round (always below one round between
    /// ticks, so no input pattern fires faster than the rate).
    pub gun_units: u64,
}

/// Why a store cannot go on a station.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("station {0} does not exist")]
    NoStation(usize),
    #[error("station {station} does not accept {weapon}")]
    NotAllowed { station: usize, weapon: String },
}

/// One entity's live stores and expendables.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Loadout {
    /// One entry per station of the type, in station order.
    pub stations: Vec<Option<Store>>,
    pub chaff: u32,
    pub flares: u32,
}

impl Loadout {
    /// The default loadout of `kit`: every station's default store with its full rounds, the
    /// gun's accumulator primed so the first press fires at once.
    pub fn default_for(kit: &CombatType) -> Self {
        Self {
            stations: kit
                .stations
                .iter()
                .map(|s| {
                    s.default.as_ref().map(|w| Store {
                        weapon: w.clone(),
                        rounds: w.rounds,
                        gun_units: ROUND_UNITS - 1,
                    })
                })
                .collect(),
            chaff: kit.chaff,
            flares: kit.flares,
        }
    }

    /// Puts `weapon` (full) on station `station` when the type's station accepts it.
    pub fn load(
        &mut self,
        kit: &CombatType,
        station: usize,
        weapon: &Arc<WeaponSpec>,
    ) -> Result<(), LoadError> {
        let def = kit
            .stations
            .get(station)
            .ok_or(LoadError::NoStation(station))?;
        if !def
            .allowed
            .iter()
            .any(|a| a.eq_ignore_ascii_case(&weapon.id))
        {
            return Err(LoadError::NotAllowed {
                station,
                weapon: weapon.id.clone(),
            });
        }
        if let Some(slot) = self.stations.get_mut(station) {
            *slot = Some(Store {
                weapon: weapon.clone(),
                rounds: weapon.rounds,
                gun_units: ROUND_UNITS - 1,
            });
        }
        Ok(())
    }

    /// The stores' mass (kg) and drag increment, summed in station order.
    pub fn payload(&self) -> (f64, f64) {
        // fl-combat's sum: the client's prediction of its own stores adds them the same way.
        fl_combat::own::payload_sum(self.stations.iter().flatten().map(|s| {
            (
                s.weapon.mass_kg,
                s.weapon.rounds,
                s.rounds,
                s.weapon.drag_cd0,
            )
        }))
    }

    /// Drops every external store (everything but guns); returns how many were let go.
    pub fn jettison(&mut self) -> u32 {
        let mut n = 0;
        for slot in &mut self.stations {
            if let Some(s) = slot
                && s.weapon.is_releasable()
                && s.rounds > 0
            {
                n += s.rounds;
                *slot = None;
            }
        }
        n
    }

    /// The station a fresh aircraft has selected: the first releasable store, else the first
    /// station with anything on it.
    pub fn default_selection(&self) -> Option<usize> {
        let live = |s: &Option<Store>| s.as_ref().is_some_and(|s| s.rounds > 0);
        self.stations
            .iter()
            .position(|s| live(s) && s.as_ref().is_some_and(|s| s.weapon.is_releasable()))
            .or_else(|| self.stations.iter().position(live))
    }
}

//! Sensing on the server: the pack's sensor defs converted once into fl-combat's
//! [`SensorSpec`]s, one [`Sensing`] per sensor-carrying entity checked at 10 Hz (staggered by
//! entity index over the six 60 Hz ticks), the datalink's team picture and RWR per peer, and the
//! read-only [`contacts_of`] the AI and seekers use. The model itself (lobes, dice, masking,
//! modes, fusion) is fl-combat's (docs/sensing.md); this module only feeds it the world.
//!
//! Order and determinism: observers are visited in entity index order; each check writes only
//! its own `Sensing` (taken out of the entity while the checks run, in parallel on the world's
//! workers when it has them) and every die is keyed by (seed, tick, observer, target), so the
//! contacts are the same bits on any worker count. Candidates come from a spatial query bounded
//! by the observer's longest lobe times the largest signature scale in the world, so nobody the
//! suite could see is left out.
//!
//! Must not: read files (fl-content did), read the wall clock, hand any consumer a target's
//! true state (contacts are last-known fixes), or talk to peers (`server::combat_comms` sends
//! what [`datalink_for`] builds).

use crate::combat::CombatSystem;
use crate::combat::stores::CombatType;
use crate::pool::EntityId;
use crate::spatial::SpatialIndex;
use crate::world::{Entity, World};
use fl_combat::flyout::spec::SeekerKind;
use fl_combat::sensing::{
    self as sn, CheckTime, Contact, Emitter, Environment, Launch, MAX_DATALINK_THREATS,
    MAX_DATALINK_TRACKS, MAX_SENSORS, Observer, Relation, Sensing, SensingWorld, SensorKind,
    SensorSpec, Target,
};
use fl_content::{Content, EntityDef};
use fl_flight::math::{Vec3, sqrt};
use fl_protocol::enums::{ContactState as WireState, Identification, SensorType, ThreatLevel};
use fl_protocol::msg::combat::{Datalink, DatalinkThreat, DatalinkTrack};
use rayon::prelude::*;
use std::sync::Arc;

/// Ticks between two checks of one observer (10 Hz at the 60 Hz tick, the PoD's reference).
pub const CHECK_EVERY_TICKS: u64 = 6;
/// Ticks between two datalink messages to one peer (~6 Hz).
pub const DATALINK_EVERY_TICKS: u64 = 10;
/// Cell of the candidates' spatial hash, m.
const CELL_M: f64 = 10_000.0;

// The conversion of fl-content's defs is fl-combat's (one copy for the server and the tests).
pub use fl_combat::sensing::from_content::{signatures_from_def, spec_from_def};

/// What an entity type brings to sensing: its sensor suite (slot = index), what it presents to
/// others, and its crew's skill.
#[derive(Debug, Clone, PartialEq)]
pub struct SensorSuite {
    /// The def's sensors that convert and validate, in the def's order (at most
    /// [`MAX_SENSORS`]).
    pub specs: Vec<SensorSpec>,
    /// The longest lobe of the suite, m (the spatial query's base radius).
    pub reach_m: f64,
}

impl SensorSuite {
    /// The suite of `def`, its sensor ids resolved in `content`. A sensor the stack does not
    /// have, or whose numbers fl-combat refuses, is left out and reported once.
    pub fn from_def(def: &EntityDef, content: &Content) -> Self {
        let mut specs = Vec::new();
        // An aircraft that declares no sensors still has a pilot looking out: the builtin eyeball
        // (the pack's formats say the engine gives one; docs/sensing.md "Who carries what").
        let builtin_eyeball = [fl_content::builtin::EYEBALL.to_string()];
        let ids: &[String] = if def.sensors.is_empty() && def.flight_model.is_some() {
            &builtin_eyeball
        } else {
            &def.sensors
        };
        for id in ids {
            let Some(d) = content.sensor(id) else {
                tracing::warn!(entity = %def.id, sensor = %id, "sensor not in the stack; left out");
                continue;
            };
            let spec = spec_from_def(d);
            match spec.validate() {
                Ok(()) if specs.len() < MAX_SENSORS => specs.push(spec),
                Ok(()) => {
                    tracing::warn!(entity = %def.id, sensor = %id, "more than {MAX_SENSORS} sensors; left out");
                }
                Err(e) => tracing::warn!(entity = %def.id, sensor = %id, "sensor left out: {e}"),
            }
        }
        let reach_m = specs
            .iter()
            .flat_map(|s| std::iter::once(s.search).chain(s.track))
            .map(|l| l.max_range_m)
            .fold(0.0, f64::max);
        Self { specs, reach_m }
    }

    /// True when the suite has no sensor.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }
    /// The suite with failed avionics: only the eyes still see. Every other sensor keeps its
    /// slot (contacts are kept per slot) but reaches nowhere, so what it held coasts and drops.
    pub fn stripped_to_eyeball(&self) -> Self {
        let mut specs = self.specs.clone();
        for s in specs.iter_mut().filter(|s| s.kind != SensorKind::Visual) {
            s.search.max_range_m = 0.0;
            if let Some(t) = &mut s.track {
                t.max_range_m = 0.0;
            }
        }
        let reach_m = specs
            .iter()
            .flat_map(|s| std::iter::once(s.search).chain(s.track))
            .map(|l| l.max_range_m)
            .fold(0.0, f64::max);
        Self { specs, reach_m }
    }
}

/// fl-combat's identity of a pool entity.
pub fn sensing_id(id: EntityId) -> sn::EntityId {
    sn::EntityId::new(id.index, id.generation as u16)
}

/// The pool entity a sensing id names, if it is still the one in that slot.
pub fn world_id(world: &World, id: sn::EntityId) -> Option<EntityId> {
    let (e, _) = world.by_index(id.index())?;
    (sensing_id(e) == id).then_some(e)
}

/// The contacts `entity`'s sensors hold, sorted by target (empty for an entity without sensors
/// or not in the world). Positions are last-known fixes, never the truth: this is all an AI or
/// a seeker may know of the world. `Contact::target` is fl-combat's id; [`world_id`] resolves it.
pub fn contacts_of(world: &World, entity: EntityId) -> &[Contact] {
    world
        .get(entity)
        .and_then(|e| e.combat.sensing.as_deref())
        .map_or(&[], Sensing::contacts)
}

/// An entity that can be sensed (and sense): in the fight, not a projectile.
fn in_fight(e: &Entity) -> bool {
    e.combat.projectile.is_none()
        && e.crashed_at.is_none()
        && !e.combat.is_out()
        && e.combat.kit.is_some()
}

fn nose(e: &Entity) -> Vec3 {
    e.transform().orientation.rotate(Vec3::new(0.0, 0.0, -1.0))
}

struct Job {
    id: EntityId,
    sensing: Box<Sensing>,
    kit: Arc<CombatType>,
    observer: Observer,
    candidates: Vec<Target>,
}

impl CombatSystem {
    /// Sets the line-of-sight ceiling from the world's terrain (its highest height bound, m):
    /// rays above it need no terrain samples. The server sets it at start and in
    /// `Server::set_terrain`; whoever swaps a server's terrain another way must set it too (a
    /// ceiling below the real terrain would let rays pass through peaks above it). Unset, the
    /// checks use fl-combat's default (9,000 m, above any terrain).
    pub fn set_los_ceiling(&mut self, ceiling_m: f64) {
        if ceiling_m.is_finite() {
            self.los_ceiling_m = Some(ceiling_m + 1.0);
        }
    }

    /// The line-of-sight settings the checks use.
    pub fn los_config(&self) -> sn::LosConfig {
        sn::LosConfig {
            ceiling_m: self
                .los_ceiling_m
                .unwrap_or(sn::LosConfig::default().ceiling_m),
            ..sn::LosConfig::default()
        }
    }

    /// Runs the checks due this tick: every sensor-carrying entity in the fight whose index is
    /// `tick` modulo [`CHECK_EVERY_TICKS`], in index order.
    pub(crate) fn sense(&mut self, world: &mut World, tick: u64) {
        let due: Vec<EntityId> = world
            .iter()
            .filter(|(id, e)| {
                u64::from(id.index) % CHECK_EVERY_TICKS == tick % CHECK_EVERY_TICKS
                    && e.combat.sensing.is_some()
                    && in_fight(e)
            })
            .map(|(id, _)| id)
            .collect();
        if due.is_empty() {
            return;
        }
        // Everyone who can be seen, and the largest range scale any of them gives a sensor.
        let mut targets: Vec<Target> = Vec::new();
        let mut slot_of: Vec<u32> = Vec::new();
        let mut index = SpatialIndex::new(CELL_M);
        let mut scale: f64 = 1.0;
        for (id, e) in world.iter().filter(|(_, e)| in_fight(e)) {
            let Some(kit) = e.combat.kit.as_deref() else {
                continue;
            };
            let s = kit.signatures;
            for k in [sqrt(s.rcs.max(0.0)), s.ir, s.visual, s.laser] {
                if k.is_finite() {
                    scale = scale.max(k);
                }
            }
            let p = e.position();
            let i = id.index as usize;
            if slot_of.len() <= i {
                slot_of.resize(i + 1, u32::MAX);
            }
            slot_of[i] = targets.len() as u32;
            index.insert(id.index, [p.x, p.y, p.z]);
            targets.push(Target {
                id: sensing_id(id),
                position: p,
                velocity: e.velocity(),
                forward: nose(e),
                signatures: s,
                ground_m: None,
            });
        }
        let mut jobs: Vec<Job> = Vec::with_capacity(due.len());
        let mut found = Vec::new();
        for id in due {
            let Some(e) = world.get_mut(id) else { continue };
            let (Some(kit), Some(sensing)) = (e.combat.kit.clone(), e.combat.sensing.take()) else {
                continue;
            };
            let kit = if e.combat.avionics_failed() {
                Arc::new(CombatType {
                    sensors: kit.sensors.stripped_to_eyeball(),
                    ..(*kit).clone()
                })
            } else {
                kit
            };
            let t = e.transform();
            let radius = kit.sensors.reach_m * scale;
            found.clear();
            index.query(
                [t.position.x, t.position.y, t.position.z],
                radius,
                &mut found,
            );
            let candidates = found
                .iter()
                .filter_map(|&i| slot_of.get(i as usize))
                .filter(|&&s| s != u32::MAX)
                .map(|&s| targets[s as usize])
                .collect();
            jobs.push(Job {
                id,
                sensing,
                observer: Observer {
                    id: sensing_id(id),
                    position: t.position,
                    orientation: t.orientation,
                    skill: kit.skill,
                },
                kit,
                candidates,
            });
        }
        let sworld = SensingWorld {
            planet: *world.planet(),
            floor: world.floor(),
            los: self.los_config(),
            env: Environment::default(),
            seed: self.seed,
        };
        let time = CheckTime {
            tick,
            interval_s: CHECK_EVERY_TICKS as f64 / 60.0,
        };
        let run = |j: &mut Job| {
            j.sensing.check(
                &j.kit.sensors.specs,
                &j.observer,
                &j.candidates,
                &sworld,
                &time,
            );
        };
        match world.workers() {
            Some(pool) if jobs.len() > 1 => pool.install(|| jobs.par_iter_mut().for_each(run)),
            _ => jobs.iter_mut().for_each(run),
        }
        self.totals.sensing_checks += jobs.len() as u64;
        for j in jobs {
            if let Some(e) = world.get_mut(j.id) {
                e.combat.sensing = Some(j.sensing);
            }
        }
    }
}

/// The team relation between two factions (fl-combat's fallback rule: 0 is neutral to all).
fn relation(a: u16, b: u16) -> Relation {
    sn::affiliation(a, b)
}

/// Radar-guided missiles guiding now (the RWR's launch strobes): a semi-active shot whose
/// launcher illuminates the target (it holds its STT lock on it), or an active one's own head.
pub fn launches(world: &World) -> Vec<Launch> {
    let mut out = Vec::new();
    for (id, e) in world.iter() {
        let Some(p) = e.combat.projectile.as_deref() else {
            continue;
        };
        let crate::combat::missiles::Flight::Missile { spec, target, .. } = &p.flight else {
            continue;
        };
        let Some(target) = *target else { continue };
        match spec.params().seeker.kind {
            SeekerKind::SemiActiveRadar => {
                if crate::combat::missiles::supports(world, p.shooter.id, target)
                    && let Some(l) = world.get(p.shooter.id)
                {
                    out.push(Launch {
                        emitter: sensing_id(p.shooter.id),
                        emitter_position: l.position(),
                        target: sensing_id(target),
                    });
                }
            }
            SeekerKind::ActiveRadar => out.push(Launch {
                emitter: sensing_id(id),
                emitter_position: e.position(),
                target: sensing_id(target),
            }),
            _ => {}
        }
    }
    out
}

/// What the datalink needs of one tick's world, built once for every peer.
#[derive(Debug)]
pub struct DatalinkFrame {
    /// Per faction: the fused picture of every teammate's contacts.
    teams: std::collections::BTreeMap<u16, Vec<sn::FusedTrack>>,
    strobes: Vec<sn::Strobe>,
    /// (index → (generation, type, faction)) of everything in the world.
    who: std::collections::BTreeMap<u32, (u32, u32, u16)>,
}

impl DatalinkFrame {
    /// Fuses every team's contacts and inverts every emission of `world` now.
    pub fn build(world: &World) -> Self {
        let mut who = std::collections::BTreeMap::new();
        let mut members: std::collections::BTreeMap<u16, Vec<&[Contact]>> = Default::default();
        let mut emitters = Vec::new();
        for (id, e) in world.iter() {
            who.insert(id.index, (id.generation, e.type_index, e.faction));
            let Some(s) = e.combat.sensing.as_deref() else {
                continue;
            };
            if !in_fight(e) {
                continue;
            }
            if e.faction != 0 {
                members.entry(e.faction).or_default().push(s.contacts());
            }
            emitters.push(Emitter {
                id: sensing_id(id),
                position: e.position(),
                contacts: s.contacts(),
            });
        }
        let faction_of = |t: sn::EntityId| {
            who.get(&t.index())
                .filter(|w| w.0 as u16 == t.generation())
                .map(|w| w.2)
        };
        let teams = members
            .into_iter()
            .map(|(f, tables)| {
                let fused = sn::fuse_team(tables, |t| {
                    faction_of(t).map_or(Relation::Neutral, |g| relation(f, g))
                });
                (f, fused)
            })
            .collect();
        let strobes = sn::invert_emissions(emitters, &launches(world));
        Self {
            teams,
            strobes,
            who,
        }
    }

    fn lookup(&self, t: sn::EntityId) -> Option<(u32, u16)> {
        self.who
            .get(&t.index())
            .filter(|w| w.0 as u16 == t.generation())
            .map(|w| (w.1, w.2))
    }
}

/// The `MsgDatalink` for the peer flying `entity` on `tick`: its team's fused picture (its own
/// contacts only for a faction-0 peer), at most [`MAX_DATALINK_TRACKS`], and what its RWR
/// hears, at most [`MAX_DATALINK_THREATS`]; positions relative to its aircraft. `None` when
/// the entity is not in the world.
pub fn datalink_for(
    world: &World,
    frame: &DatalinkFrame,
    entity: EntityId,
    tick: u64,
) -> Option<Datalink> {
    let e = world.get(entity)?;
    let origin = e.position();
    let me = sensing_id(entity);
    let own: &[Contact] = e.combat.sensing.as_deref().map_or(&[], Sensing::contacts);
    let solo;
    let fused: &[sn::FusedTrack] = match frame.teams.get(&e.faction) {
        Some(f) if e.faction != 0 => f,
        _ => {
            solo = sn::fuse_team([own], |t| {
                frame
                    .lookup(t)
                    .map_or(Relation::Neutral, |(_, g)| relation(e.faction, g))
            });
            &solo
        }
    };
    let picture = sn::picture_for(me, own, fused, origin, MAX_DATALINK_TRACKS);
    let f32v = |v: Vec3| [v.x as f32, v.y as f32, v.z as f32];
    let tracks = picture
        .iter()
        .map(|t| {
            let (type_index, faction) = frame.lookup(t.target).unwrap_or((0, 0));
            DatalinkTrack {
                target_idx: t.target.index(),
                type_index,
                target_gen: t.target.generation(),
                faction_index: faction,
                state: WireState::from_u8(t.state as u8).unwrap_or(WireState::Lost),
                ident: Identification::from_u8(t.ident as u8).unwrap_or(Identification::Unknown),
                sensor_type_mask: t.kinds,
                flags: t.flags(),
                rel_pos: f32v(t.position - origin),
                rel_vel: f32v(t.velocity),
            }
        })
        .collect();
    let rwr = sn::rwr_for(
        me,
        origin,
        &frame.strobes,
        |em| {
            frame
                .lookup(em)
                .map_or(Relation::Neutral, |(_, g)| relation(e.faction, g))
        },
        MAX_DATALINK_THREATS,
    );
    let threats = rwr
        .iter()
        .map(|s| {
            let (type_index, faction) = frame.lookup(s.emitter).unwrap_or((0, 0));
            DatalinkThreat {
                emitter_idx: s.emitter.index(),
                emitter_type_index: type_index,
                emitter_gen: s.emitter.generation(),
                emitter_faction_index: faction,
                channel: SensorType::from_u8(s.channel as u8).unwrap_or(SensorType::Radar),
                level: ThreatLevel::from_u8(s.level as u8).unwrap_or(ThreatLevel::Search),
                ident: Identification::from_u8(s.ident as u8).unwrap_or(Identification::Unknown),
                flags: 0,
                rel_pos: f32v(s.position - origin),
            }
        })
        .collect();
    Some(Datalink {
        tick_index: tick,
        origin: [origin.x, origin.y, origin.z],
        tracks,
        threats,
        ..Datalink::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_pack_index_and_generation() {
        let id = EntityId {
            index: 7,
            generation: 3,
        };
        let s = sensing_id(id);
        assert_eq!((s.index(), s.generation()), (7, 3));
    }
}

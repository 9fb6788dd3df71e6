//! Projectiles on the server: missiles, rockets and bombs as entities of the world (so they are
//! in every snapshot, typed by their weapon's projectile entity type), flown each tick by
//! fl-combat's flyout over the world's terrain, and what their endings do — blast on every
//! entity within the warhead's radius; plus the chaff and flares in the air.
//!
//! - A missile's target is fixed at launch ([`launch_target`]): the launcher's firing-quality
//!   (STT) lock from its sensing when it holds one — the missile leaves locked when its seeker
//!   would lock that target from the rail, else searching with the lock as its cue
//!   (lock-on-after-launch, fl-combat's seeker acquires in flight); with no STT lock a
//!   fire-and-forget seeker (IR) acquires by itself from the rail ([`seeker_acquisition`]:
//!   the nearest non-friendly target its search lobe would lock, terrain included), and a
//!   semi-active shot has nothing to guide on and flies unguided.
//! - A shot that needs the launcher's support (semi-active) is supported while the launcher,
//!   in the fight, holds its STT lock on the missile's target ([`supports`]); when the lock
//!   drops, the seeker coasts its `lock_hold_s` and goes dumb.
//! - Rockets and bombs fly ballistically; once armed they detonate on the first entity their
//!   last step sweeps through (never their launcher: a store separating slowly from its rack
//!   stays inside the launcher's hit sphere for a second or more) or on the ground.
//! - Blast: `fl_combat::flyout::fuze::warhead_damage` over the distance from the detonation to
//!   each entity's hit sphere (0 inside it); for a missile's designated target, the fuze's miss
//!   distance.
//! - Decoys: dispensed with the aircraft's velocity plus a push off its belly, slowed by drag
//!   (`k|v|v`, [`DECOY_DRAG_PER_M`]) and gravity, gone after `DECOY_BURN_S`.
//!
//! Must not: decide what a pilot may fire (weapons does), or send anything.

use crate::combat::damage::Credit;
use crate::combat::sensors::{sensing_id, world_id};
use crate::combat::stores::WeaponSpec;
use crate::combat::weapons::Shooter;
use crate::combat::{CombatSystem, Combatant};
use crate::pool::EntityId;
use crate::world::{Body, Entity, Pilot, World};
use fl_combat::flyout::ballistic::{self, FireParams, Round, RoundEvent};
use fl_combat::flyout::countermeasures::Decoy;
use fl_combat::flyout::env::FlyoutEnv;
use fl_combat::flyout::fuze::warhead_damage;
use fl_combat::flyout::missile::{self, LaunchParams, MissileEvent, MissileInputs, MissileState};
use fl_combat::flyout::seeker::TargetView;
use fl_combat::flyout::spec::{BallisticKind, BallisticSpec, MissileSpec};
use fl_flight::Controls;
use fl_flight::env::WindField;
use fl_flight::geodetic::Enu;
use fl_flight::gravity::Planet;
use fl_flight::math::{Quat, Vec3, atan2, sqrt};
use fl_protocol::enums::EffectType;
use std::sync::Arc;

/// The simulation step, s.
pub const DT: f64 = 1.0 / 60.0;
/// Drag of a flare or chaff cloud, per metre (`a = −k|v|v`): one dispensed at 250 m/s through
/// the air is down to half that speed after 1.3 s, as light expendables are.
pub const DECOY_DRAG_PER_M: f64 = 0.003;

/// How a projectile flies.
// A projectile's whole state is boxed in its entity's `Combatant`; boxing the variant too would
// only add a pointer chase per step.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Flight {
    /// A guided missile and its designated target.
    Missile {
        spec: MissileSpec,
        state: MissileState,
        target: Option<EntityId>,
    },
    /// A rocket or bomb.
    Ballistic { spec: BallisticSpec, round: Round },
}

/// A projectile entity's flight and who answers for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Projectile {
    pub weapon: Arc<WeaponSpec>,
    /// Who fired it (credited with what it does).
    pub shooter: Shooter,
    pub flight: Flight,
}

impl Projectile {
    /// Bits of its flight state (determinism tests).
    pub fn hash_bits(&self) -> u64 {
        let (p, v) = match &self.flight {
            Flight::Missile { state, .. } => (state.position, state.velocity),
            Flight::Ballistic { round, .. } => (round.position, round.velocity),
        };
        [p.x, p.y, p.z, v.x, v.y, v.z]
            .iter()
            .fold(0x9e37_79b9_7f4a_7c15u64, |h, x| {
                (h ^ x.to_bits()).wrapping_mul(0x0000_0100_0000_01b3)
            })
    }
}

/// A flare or chaff cloud in the air.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiveDecoy {
    /// A flare (IR); else chaff (radar).
    pub flare: bool,
    pub decoy: Decoy,
}

impl LiveDecoy {
    pub(crate) fn new(flare: bool, id: u64, position: Vec3, velocity: Vec3) -> Self {
        Self {
            flare,
            decoy: Decoy {
                id,
                position,
                velocity,
                age_s: 0.0,
            },
        }
    }
}

/// Moves and ages the decoys; burnt-out ones are dropped.
pub(crate) fn step_decoys(decoys: &mut Vec<LiveDecoy>, planet: &Planet) {
    for d in decoys.iter_mut() {
        let v = d.decoy.velocity;
        let a = planet.gravity(d.decoy.position) - v * (DECOY_DRAG_PER_M * v.length());
        let v1 = v + a * DT;
        d.decoy.position += (v + v1) * (0.5 * DT);
        d.decoy.velocity = v1;
        d.decoy.age_s += DT;
    }
    decoys.retain(|d| d.decoy.is_live());
}

/// The orientation (engine body: −Z forward) of something pointing along `nose`.
pub fn orientation_along(nose: Vec3) -> Quat {
    let a = Vec3::new(0.0, 0.0, -1.0);
    let n = nose.normalize_or_zero();
    if n == Vec3::ZERO {
        return Quat::IDENTITY;
    }
    let axis = a.cross(n);
    let s = axis.length();
    let c = a.dot(n);
    if s < 1e-12 {
        return if c > 0.0 {
            Quat::IDENTITY
        } else {
            Quat::from_axis_angle(Vec3::Y, core::f64::consts::PI)
        };
    }
    Quat::from_axis_angle(axis * (1.0 / s), atan2(s, c))
}

/// The view a seeker of `spec` gets of entity `e`: its IR signature for an IR head, the square
/// root of its radar cross-section for a radar head (the pack's scaling rules).
fn target_view(spec: &MissileSpec, e: &Entity) -> TargetView {
    let (ir, rcs) = e
        .combat
        .kit
        .as_deref()
        .map_or((1.0, 1.0), |k| (k.ir_signature, k.rcs));
    let signature = if spec.params().seeker.kind.is_radar() {
        sqrt(rcs)
    } else {
        ir
    };
    TargetView {
        position: e.position(),
        velocity: e.velocity(),
        signature,
        line_of_sight: true,
    }
}

/// An entity a weapon may strike: it takes damage and is still in the fight.
fn strikable(e: &Entity) -> bool {
    e.combat.kit.is_some()
        && e.combat.projectile.is_none()
        && !e.combat.is_out()
        && e.crashed_at.is_none()
}

fn ground_of(world: &World) -> impl Fn(Vec3) -> f64 + '_ {
    let radius = world.planet().radius_m;
    let floor = world.floor();
    move |p: Vec3| floor.height_at_world(radius, p)
}

/// Does `launcher`, still in the fight, hold a firing-quality (STT) lock on `target` now? What
/// a semi-active missile needs to keep guiding (the launcher illuminates the target).
pub fn supports(world: &World, launcher: EntityId, target: EntityId) -> bool {
    world
        .get(launcher)
        .filter(|l| !l.combat.is_out() && l.crashed_at.is_none())
        .and_then(|l| l.combat.sensing.as_deref())
        .and_then(|s| s.contact(sensing_id(target)))
        .is_some_and(|c| c.firing_quality)
}

/// The launcher's firing-quality lock, when it names an entity a weapon may strike.
fn locked_target(world: &World, shooter: EntityId) -> Option<EntityId> {
    let lock = world
        .get(shooter)?
        .combat
        .sensing
        .as_deref()?
        .firing_quality_lock()?;
    let id = world_id(world, lock.target)?;
    world.get(id).filter(|e| strikable(e)).map(|_| id)
}

/// A fire-and-forget seeker's own lock from the launcher's rail: the nearest entity of another
/// faction in the fight that the head's search lobe would lock right now (signature-scaled
/// range, the notch, and the terrain between them).
pub fn seeker_acquisition(
    world: &World,
    shooter: &Shooter,
    spec: &MissileSpec,
    los: &fl_combat::sensing::LosConfig,
) -> Option<EntityId> {
    let ground = ground_of(world);
    let env = FlyoutEnv {
        planet: *world.planet(),
        wind: Vec3::ZERO,
        ground: &ground,
    };
    let mut best: Option<(f64, EntityId)> = None;
    for (id, e) in world.iter() {
        if id == shooter.id || e.faction == shooter.faction || !strikable(e) {
            continue;
        }
        let view = target_view(spec, e);
        if !missile::would_lock(spec, &env, shooter.position, shooter.forward, &view, false) {
            continue;
        }
        let d = (view.position - shooter.position).length();
        if best.as_ref().is_some_and(|b| d >= b.0) {
            continue;
        }
        let clear = fl_combat::sensing::line_of_sight(
            world.floor(),
            world.planet(),
            shooter.position,
            view.position,
            los,
        );
        if clear {
            best = Some((d, id));
        }
    }
    best.map(|(_, id)| id)
}

/// What a missile launched now guides on, and whether the launcher holds a lock on it (see the
/// module doc).
pub fn launch_target(
    world: &World,
    shooter: &Shooter,
    spec: &MissileSpec,
    los: &fl_combat::sensing::LosConfig,
) -> Option<(EntityId, bool)> {
    if let Some(t) = locked_target(world, shooter.id) {
        return Some((t, true));
    }
    if spec.params().seeker.fire_and_forget {
        return seeker_acquisition(world, shooter, spec, los).map(|t| (t, false));
    }
    None
}

fn projectile_entity(
    weapon: &Arc<WeaponSpec>,
    shooter: &Shooter,
    flight: Flight,
    position: Vec3,
    velocity: Vec3,
) -> Entity {
    Entity {
        type_index: weapon.projectile_type.unwrap_or(0),
        faction: shooter.faction,
        body: Body::Projectile {
            position,
            velocity,
            orientation: orientation_along(velocity),
        },
        pilot: Pilot::None,
        controls: Controls::default(),
        hp_fraction: 1.0,
        crashed_at: None,
        combat: Combatant {
            projectile: Some(Box::new(Projectile {
                weapon: weapon.clone(),
                shooter: *shooter,
                flight,
            })),
            ..Combatant::default()
        },
    }
}

/// Launches a missile from `shooter`; false when the world has no room for it.
pub(crate) fn launch_missile(
    sys: &mut CombatSystem,
    world: &mut World,
    shooter: &Shooter,
    weapon: &Arc<WeaponSpec>,
    spec: &MissileSpec,
    tick: u64,
) -> bool {
    if !world.has_room() || weapon.projectile_type.is_none() {
        return false;
    }
    let target = launch_target(world, shooter, spec, &sys.los_config())
        .and_then(|(t, lock)| world.get(t).map(|e| (t, target_view(spec, e), lock)));
    let state = {
        let ground = ground_of(world);
        let env = FlyoutEnv {
            planet: *world.planet(),
            wind: Vec3::ZERO,
            ground: &ground,
        };
        missile::launch(
            spec,
            &env,
            &LaunchParams {
                id: 0,
                position: shooter.position,
                velocity: shooter.velocity,
                nose: shooter.forward,
                target: target.map(|t| t.1),
                launcher_lock: target.is_some_and(|t| t.2),
            },
        )
    };
    let flight = Flight::Missile {
        spec: *spec,
        state,
        target: target.map(|t| t.0),
    };
    let entity = projectile_entity(weapon, shooter, flight, state.position, state.velocity);
    let Ok(id) = world.spawn(entity) else {
        return false;
    };
    // The missile's stable id keys its decoy draws.
    if let Some(e) = world.get_mut(id)
        && let Some(p) = e.combat.projectile.as_deref_mut()
        && let Flight::Missile { state, .. } = &mut p.flight
    {
        state.id = (u64::from(id.index) << 32) | u64::from(id.generation);
    }
    tracing::debug!(shooter = ?shooter.id, missile = ?id, target = ?target.map(|t| t.0), weapon = %weapon.id, "missile launched");
    sys.effects.push(
        EffectType::MissileLaunch,
        Some(weapon.class),
        shooter.id.index,
        target.map(|t| t.0.index),
        shooter.position,
    );
    let _ = tick;
    true
}

/// Releases a rocket (along the nose) or a bomb (off the rack, downwards); false when the world
/// has no room for it. `round` numbers it for its dispersion draws.
pub(crate) fn release_ballistic(
    sys: &mut CombatSystem,
    world: &mut World,
    shooter: &Shooter,
    weapon: &Arc<WeaponSpec>,
    spec: &BallisticSpec,
    round: u32,
    tick: u64,
) -> bool {
    if !world.has_room() || weapon.projectile_type.is_none() {
        return false;
    }
    let bomb = spec.params().kind == BallisticKind::Bomb;
    let direction = if bomb { -shooter.up } else { shooter.forward };
    let r = ballistic::fire(
        spec,
        &FireParams {
            position: shooter.position,
            velocity: shooter.velocity,
            direction,
            seed: sys.seed,
            tick,
            shooter: shooter.key(),
            round,
        },
    );
    let flight = Flight::Ballistic {
        spec: *spec,
        round: r,
    };
    let entity = projectile_entity(weapon, shooter, flight, r.position, r.velocity);
    if world.spawn(entity).is_err() {
        return false;
    }
    sys.effects.push(
        if bomb {
            EffectType::WeaponFired
        } else {
            EffectType::MissileLaunch
        },
        Some(weapon.class),
        shooter.id.index,
        None,
        shooter.position,
    );
    true
}

/// How a projectile's flight ended this tick.
enum Ending {
    /// Warhead goes off at a point; the designated or struck entity and its miss distance.
    Detonate(Vec3, Option<(EntityId, f64)>),
    /// Gone without a bang (time to live, or a dud that hit the ground unarmed).
    Vanish(Option<Vec3>),
}

/// Flies every projectile one tick, in index order, and resolves their endings.
pub(crate) fn step_projectiles(
    sys: &mut CombatSystem,
    world: &mut World,
    tick: u64,
    wind: &WindField,
) {
    let ids: Vec<EntityId> = world
        .iter()
        .filter(|(_, e)| e.combat.projectile.is_some())
        .map(|(id, _)| id)
        .collect();
    if ids.is_empty() {
        return;
    }
    let flares: Vec<Decoy> = sys
        .decoys
        .iter()
        .filter(|d| d.flare)
        .map(|d| d.decoy)
        .collect();
    let chaff: Vec<Decoy> = sys
        .decoys
        .iter()
        .filter(|d| !d.flare)
        .map(|d| d.decoy)
        .collect();
    for id in ids {
        let Some(mut p) = world.get_mut(id).and_then(|e| e.combat.projectile.take()) else {
            continue;
        };
        let ending = fly(sys.seed, world, id, &mut p, wind, &flares, &chaff);
        match ending {
            None => {
                let (pos, vel) = match &p.flight {
                    Flight::Missile { state, .. } => (state.position, state.velocity),
                    Flight::Ballistic { round, .. } => (round.position, round.velocity),
                };
                if let Some(e) = world.get_mut(id) {
                    e.body = Body::Projectile {
                        position: pos,
                        velocity: vel,
                        orientation: orientation_along(vel),
                    };
                    e.combat.projectile = Some(p);
                }
            }
            Some(Ending::Detonate(point, direct)) => {
                world.despawn(id);
                sys.totals.detonations += 1;
                let credit = p.shooter.credit(p.weapon.class, tick);
                let hits = blast(sys, world, &p.weapon, point, direct, credit);
                sys.count_shot(p.shooter.owner, 0, u64::from(hits > 0), tick);
                sys.effects.push(
                    if p.weapon.damage > 0.0 {
                        EffectType::Detonation
                    } else {
                        EffectType::Impact
                    },
                    Some(p.weapon.class),
                    p.shooter.id.index,
                    direct.map(|d| d.0.index),
                    point,
                );
            }
            Some(Ending::Vanish(at)) => {
                world.despawn(id);
                if let Some(at) = at {
                    sys.effects.push(
                        EffectType::Impact,
                        Some(p.weapon.class),
                        p.shooter.id.index,
                        None,
                        at,
                    );
                }
            }
        }
    }
}

/// One step of one projectile (taken out of its entity); `Some` when its flight ended.
fn fly(
    seed: u64,
    world: &World,
    id: EntityId,
    p: &mut Projectile,
    wind: &WindField,
    flares: &[Decoy],
    chaff: &[Decoy],
) -> Option<Ending> {
    let planet = *world.planet();
    let ground = ground_of(world);
    let here = match &p.flight {
        Flight::Missile { state, .. } => state.position,
        Flight::Ballistic { round, .. } => round.position,
    };
    let steady = Enu::at(&planet, here).level_to_world(wind.mean(planet.altitude(here)));
    let env = FlyoutEnv {
        planet,
        wind: if steady.is_finite() {
            steady
        } else {
            Vec3::ZERO
        },
        ground: &ground,
    };
    let shooter = p.shooter;
    match &mut p.flight {
        Flight::Missile {
            spec,
            state,
            target,
        } => {
            let tgt = target.and_then(|t| world.get(t).filter(|e| strikable(e)).map(|e| (t, e)));
            let view = tgt.map(|(_, e)| target_view(spec, e));
            // Support: the launcher still holds its STT lock on the target (sensing).
            let launcher_lock = tgt.is_some_and(|(t, _)| supports(world, shooter.id, t));
            let inputs = MissileInputs {
                seed,
                target: view,
                launcher_lock,
                flares,
                chaff,
            };
            let r = tgt.map(|(_, e)| e.combat.kit.as_ref().map_or(0.0, |k| k.collision_radius_m));
            match missile::step(spec, state, &inputs, &env, DT) {
                MissileEvent::Flying => None,
                MissileEvent::Detonated(det) => Some(Ending::Detonate(
                    det.point,
                    target
                        .zip(r)
                        .map(|(t, r)| (t, (det.miss_distance_m - r).max(0.0))),
                )),
                MissileEvent::HitGround(at) | MissileEvent::SelfDestructed(at, _) => {
                    Some(Ending::Detonate(at, None))
                }
                MissileEvent::Ended => Some(Ending::Vanish(None)),
            }
        }
        Flight::Ballistic { spec, round } => {
            let ev = ballistic::step_round(spec, round, &env, DT);
            if round.armed {
                // The first entity the last step swept through (targets moved straight).
                let mut best: Option<(f64, EntityId, Vec3)> = None;
                for (eid, e) in world.iter() {
                    if eid == id || eid == shooter.id || !strikable(e) {
                        continue;
                    }
                    let r = e.combat.kit.as_ref().map_or(0.0, |k| k.collision_radius_m);
                    let now = e.position();
                    let then = now - e.velocity() * DT;
                    if let Some(h) = ballistic::swept_sphere_hit(
                        round.previous_position,
                        round.position,
                        then,
                        now,
                        r,
                    ) && best.as_ref().is_none_or(|b| h.fraction < b.0)
                    {
                        best = Some((h.fraction, eid, h.point));
                    }
                }
                if let Some((_, eid, point)) = best {
                    return Some(Ending::Detonate(point, Some((eid, 0.0))));
                }
            }
            match ev {
                RoundEvent::Flying => None,
                RoundEvent::HitGround(at) if round.armed => Some(Ending::Detonate(at, None)),
                RoundEvent::HitGround(at) => Some(Ending::Vanish(Some(at))),
                RoundEvent::Expired(_) | RoundEvent::Ended => Some(Ending::Vanish(None)),
            }
        }
    }
}

/// Applies a warhead at `point` to every strikable entity within its radius, in index order;
/// `direct` gives the designated or struck entity with its miss distance. Returns how many were
/// damaged.
fn blast(
    sys: &mut CombatSystem,
    world: &mut World,
    weapon: &WeaponSpec,
    point: Vec3,
    direct: Option<(EntityId, f64)>,
    credit: Credit,
) -> u32 {
    let radius = weapon.blast_radius_m;
    // NaN counts as no warhead.
    if radius.is_nan() || radius <= 0.0 || weapon.damage.is_nan() || weapon.damage <= 0.0 {
        return 0;
    }
    let victims: Vec<(EntityId, f64)> = world
        .iter()
        .filter(|(_, e)| strikable(e))
        .filter_map(|(id, e)| {
            let r = e.combat.kit.as_ref().map_or(0.0, |k| k.collision_radius_m);
            let centre = (e.position() - point).length();
            let mut d = (centre - r).max(0.0);
            if let Some((t, miss)) = direct
                && t == id
            {
                d = d.min(miss);
            }
            (d <= radius).then_some((id, d))
        })
        .collect();
    let mut hits = 0;
    for (id, d) in victims {
        let amount = warhead_damage(weapon.damage, radius, d);
        if sys.damage(world, id, amount, credit) {
            hits += 1;
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_combat::flyout::countermeasures::DECOY_BURN_S;

    #[test]
    fn orientation_points_the_engine_nose_along_the_velocity() {
        for v in [
            Vec3::new(0.0, 0.0, -5.0),
            Vec3::new(3.0, -1.0, 2.0),
            Vec3::new(0.0, 0.0, 9.0),
            Vec3::new(0.0, -1.0, 0.0),
        ] {
            let q = orientation_along(v);
            let nose = q.rotate(Vec3::new(0.0, 0.0, -1.0));
            let n = v.normalize_or_zero();
            assert!((nose - n).length() < 1e-12, "{v:?} -> {nose:?}");
        }
        assert_eq!(orientation_along(Vec3::ZERO), Quat::IDENTITY);
    }

    #[test]
    fn decoys_slow_fall_and_burn_out() {
        let planet = Planet::earth();
        let mut d = vec![LiveDecoy::new(
            true,
            1,
            Vec3::new(0.0, 3000.0, 0.0),
            Vec3::new(250.0, 0.0, 0.0),
        )];
        for _ in 0..60 {
            step_decoys(&mut d, &planet);
        }
        assert_eq!(d.len(), 1);
        assert!(d[0].decoy.velocity.x < 150.0, "{:?}", d[0].decoy.velocity);
        assert!(d[0].decoy.velocity.y < 0.0);
        for _ in 0..(DECOY_BURN_S * 60.0) as usize {
            step_decoys(&mut d, &planet);
        }
        assert!(d.is_empty());
    }
}

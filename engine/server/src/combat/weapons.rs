//! Fire control: a pilot's intents (`MsgClientInput` buttons, `selectedStation`, `radarMode`)
//! validated and turned into gun rounds, store releases, jettison, countermeasures and ejection.
//!
//! Rules (docs/combat.md):
//! - **Gun** (bit 0, level): every gun station with rounds fires at its def's rate. Rounds are
//!   counted exactly: each held tick adds the rate (thousandths of a round per minute) to an
//!   integer accumulator and a round costs [`ROUND_UNITS`](crate::combat::stores::ROUND_UNITS); idle, the accumulator refills but
//!   stays below one round, so the first press fires at once and no pattern of presses ever
//!   fires faster than the rate. A press that finds the gun still cycling is refused (`rate`).
//!   Each round is a hitscan ray from the aircraft's CG along its nose, turned by a seeded
//!   dispersion ([`fl_combat::draw`]), out to the gun's range ([`gun_ray_hit`]).
//! - **Store release** (bit 2, edge): one store from the selected station — a missile, rocket or
//!   bomb becomes a projectile entity; an inert store falls away. At most one release per
//!   [`RELEASE_INTERVAL_TICKS`]. A station emptied by a release hands the selection to the next
//!   station carrying the same weapon. With [`JETTISON_STATION`] selected, the release drops every
//!   external store instead.
//! - **Chaff/flare** (bit 3, edge): one chaff cloud and one flare, each while any is left.
//! - **Eject** (bit 5, edge, peer-flown aircraft): the pilot leaves; the aircraft is lost (a
//!   crash's credit rule) and flies on with nobody at the stick.
//! - Anything impossible — a station the aircraft does not have, an empty station, a gun with no
//!   rounds, expendables with none left, a radar mode outside 0..=3 — is refused without effect
//!   and counted in [`Refusals`].
//!
//! Must not: move projectiles (missiles) or apply blast (missiles, via the system's damage).

use crate::combat::damage::Credit;
use crate::combat::missiles::{self, LiveDecoy};
use crate::combat::stores::Delivery;
use crate::combat::{CombatSystem, JETTISON_STATION, KEEP, PilotInput, Refusals};
use crate::lagcomp::Ray;
use crate::pool::EntityId;
use crate::world::{Body, World};
use fl_combat::draw::{DrawKey, Purpose};
use fl_flight::math::{Vec3, cos, sin, sqrt};
use fl_protocol::enums::{EffectType, WeaponType, buttons};

/// Least time between two store releases of one aircraft, ticks (0.25 s; fl-combat's, shared
/// with the client's prediction).
pub use fl_combat::own::RELEASE_INTERVAL_TICKS;
/// A chaff cloud or flare leaves the dispenser this fast, away from the aircraft's belly, m/s.
pub const DISPENSE_SPEED_MPS: f64 = 15.0;

/// What combat needs of a shooter, copied out of the world before anything is changed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shooter {
    pub id: EntityId,
    pub position: Vec3,
    pub velocity: Vec3,
    /// Nose direction (unit).
    pub forward: Vec3,
    /// Body up (unit).
    pub up: Vec3,
    pub faction: u16,
    pub owner: Option<u32>,
}

impl Shooter {
    /// The shooter as the world holds it now.
    pub fn of(world: &World, id: EntityId) -> Option<Shooter> {
        let e = world.get(id)?;
        let (forward, up) = match &e.body {
            Body::Aircraft { state, .. } => (
                state.forward(),
                state.orientation.rotate(Vec3::new(0.0, 1.0, 0.0)),
            ),
            Body::Static { orientation, .. } | Body::Projectile { orientation, .. } => (
                orientation.rotate(Vec3::new(0.0, 0.0, -1.0)),
                orientation.rotate(Vec3::new(0.0, 1.0, 0.0)),
            ),
        };
        Some(Shooter {
            id,
            position: e.position(),
            velocity: e.velocity(),
            forward,
            up,
            faction: e.faction,
            owner: e.owner(),
        })
    }

    /// The kill credit of a hit by this shooter with `weapon` at `tick`.
    pub fn credit(&self, weapon: WeaponType, tick: u64) -> Credit {
        Credit {
            by: self.id,
            owner: self.owner,
            faction: self.faction,
            weapon,
            tick,
        }
    }

    /// A stable 64-bit id for draw keys.
    pub fn key(&self) -> u64 {
        (u64::from(self.id.index) << 32) | u64::from(self.id.generation)
    }
}

/// What a gun round's ray struck.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    pub entity: EntityId,
    /// Distance along the ray, m.
    pub distance_m: f64,
    /// Where the ray passes the entity, m.
    pub point: Vec3,
}

/// The nearest entity a gun round fired by `shooter` from `origin` along `dir` (unit) hits
/// within `range_m`: the hitscan of the spec's lag compensation. Targets are tested where they
/// were `rewind_ticks` ago (what the shooter saw, [`crate::lagcomp`]; 0 for an AI), with their
/// kit's collision radius; the shooter, projectiles, wrecks and entities that take no damage are
/// never hit. Damage then applies to the entity as it is now.
pub fn gun_ray_hit(
    world: &World,
    shooter: EntityId,
    ray: &Ray,
    rewind_ticks: f64,
    max_radius_m: f64,
) -> Option<RayHit> {
    let hit = world.ray_hits(ray, rewind_ticks, shooter, max_radius_m, |_, e| {
        if e.combat.projectile.is_some() || e.combat.is_out() || e.crashed_at.is_some() {
            return 0.0;
        }
        e.combat
            .kit
            .as_deref()
            .map_or(0.0, |k| k.collision_radius_m)
    })?;
    Some(RayHit {
        entity: hit.entity,
        distance_m: hit.distance_m,
        point: hit.point,
    })
}

/// `forward` turned by a seeded angle uniform over the cone of `half_angle` (two draws).
fn disperse(forward: Vec3, up: Vec3, half_angle: f64, key: DrawKey) -> Vec3 {
    if half_angle.is_nan() || half_angle <= 0.0 {
        return forward;
    }
    let off = half_angle * sqrt(key.unit());
    let phi = core::f64::consts::TAU * DrawKey { index: 1, ..key }.unit();
    let right = forward.cross(up).normalize_or_zero();
    let up = right.cross(forward).normalize_or_zero();
    let side = right * cos(phi) + up * sin(phi);
    (forward * cos(off) + side * sin(off)).normalize_or_zero()
}

/// Runs every pilot's intents of this tick, in index order.
pub(crate) fn fire_control(sys: &mut CombatSystem, world: &mut World, tick: u64) {
    let ids: Vec<EntityId> = world
        .iter()
        .filter(|(_, e)| e.combat.input.is_some() || e.combat.kit.is_some())
        .map(|(id, _)| id)
        .collect();
    for id in ids {
        fire_one(sys, world, id, tick);
    }
}

fn fire_one(sys: &mut CombatSystem, world: &mut World, id: EntityId, tick: u64) {
    // A designation names a pool index: the entity in that slot now (its generation included).
    let designee = world
        .get(id)
        .and_then(|e| e.combat.input.as_ref())
        .and_then(|i| i.designate)
        .filter(|&d| d != fl_protocol::tlv::DESIGNATE_NONE)
        .map(|d| {
            world
                .by_index(d)
                .map(|(w, _)| crate::combat::sensors::sensing_id(w))
        });
    let Some(e) = world.get_mut(id) else { return };
    let input = e.combat.input.take();
    let Some(input) = input else {
        // No pilot input this tick: the guns rest (their accumulators refill).
        rest_guns(e);
        return;
    };
    let prev = std::mem::replace(&mut e.combat.held, input.buttons);
    let pressed = |bit: u8| input.buttons & bit != 0 && prev & bit == 0;
    let out = e.combat.is_out() || e.crashed_at.is_some() || e.combat.kit.is_none();
    if out {
        if input.buttons & buttons::GUN != 0 && prev & buttons::GUN == 0
            || pressed(buttons::FIRE_STORE)
            || pressed(buttons::CHAFF_FLARE)
        {
            sys.refused.out_of_fight += 1;
        }
        return;
    }
    let station_ok = select(&mut sys.refused, e, &input);
    if let Some(d) = input.designate {
        designate(
            &mut sys.refused,
            e,
            d,
            input.designate_retry,
            designee.flatten(),
        );
    }
    if pressed(buttons::EJECT) && e.owner().is_some() && matches!(e.body, Body::Aircraft { .. }) {
        tracing::info!(entity = ?id, "ejected");
        sys.lose(world, id, tick);
        return;
    }
    if input.buttons & buttons::GUN != 0 {
        fire_guns(sys, world, id, prev & buttons::GUN == 0, tick);
    } else if let Some(e) = world.get_mut(id) {
        rest_guns(e);
    }
    if pressed(buttons::FIRE_STORE) {
        if !station_ok {
            // Already counted as a station the aircraft does not have; nothing is released.
        } else if input.selected_station == JETTISON_STATION {
            jettison(sys, world, id);
        } else {
            release(sys, world, id, tick);
        }
    }
    if pressed(buttons::CHAFF_FLARE) {
        dispense(sys, world, id, tick);
    }
}

/// Applies the radar mode and station selection; false when the input named a station the
/// aircraft does not have (refused, counted).
fn select(refused: &mut Refusals, e: &mut crate::world::Entity, input: &PilotInput) -> bool {
    // The mode goes through the sensing's own check (0–3 set, 255 keeps, else refused); an
    // aircraft without sensors keeps the byte for its record all the same.
    let m = input.radar_mode;
    let ok = match e.combat.sensing.as_deref_mut() {
        Some(s) => s.apply_mode_byte(m).is_ok(),
        None => m == KEEP || fl_combat::sensing::RadarMode::from_wire(m).is_some(),
    };
    if !ok {
        refused.bad_radar_mode += 1;
    } else if m != KEEP {
        e.combat.radar_mode = m;
    }
    match input.selected_station {
        KEEP | JETTISON_STATION => true,
        s if usize::from(s) < e.combat.loadout.stations.len() => {
            e.combat.selected = Some(usize::from(s));
            true
        }
        _ => {
            refused.no_such_station += 1;
            false
        }
    }
}

/// Applies a designation (`InputDesignate`): clearing always works; a target is designated only
/// when the aircraft's sensors hold a contact on it (`target` is the entity in the named slot),
/// else refused without effect — counted unless it is a `retry` of one refused before.
fn designate(
    refused: &mut Refusals,
    e: &mut crate::world::Entity,
    wire: u32,
    retry: bool,
    target: Option<fl_combat::sensing::EntityId>,
) {
    let mut refuse = || {
        if !retry {
            refused.bad_designation += 1;
        }
    };
    let Some(s) = e.combat.sensing.as_deref_mut() else {
        refuse();
        return;
    };
    if wire == fl_protocol::tlv::DESIGNATE_NONE {
        s.designate(None);
        return;
    }
    match target.filter(|t| s.contact(*t).is_some_and(|c| c.state.held())) {
        Some(t) => s.designate(Some(t)),
        None => refuse(),
    }
}

fn rest_guns(e: &mut crate::world::Entity) {
    for s in e.combat.loadout.stations.iter_mut().flatten() {
        if let Delivery::Gun(g) = &s.weapon.delivery {
            s.gun_units = fl_combat::own::gun_rest(s.gun_units, g.rate_milli_rpm);
        }
    }
}

fn fire_guns(sys: &mut CombatSystem, world: &mut World, id: EntityId, press: bool, tick: u64) {
    let Some(shooter) = Shooter::of(world, id) else {
        return;
    };
    // Work out the rounds of every gun station first (the accumulators), then resolve them.
    let mut volleys = Vec::new();
    let mut any_gun = false;
    if let Some(e) = world.get_mut(id) {
        for (station, slot) in e.combat.loadout.stations.iter_mut().enumerate() {
            let Some(s) = slot else { continue };
            let Delivery::Gun(g) = s.weapon.delivery.clone() else {
                continue;
            };
            if s.rounds == 0 {
                continue;
            }
            any_gun = true;
            // fl-combat's accumulator: the client's prediction counts its rounds the same way.
            let first = s.rounds;
            let (units, rounds, due) =
                fl_combat::own::gun_fire(s.gun_units, s.rounds, g.rate_milli_rpm);
            s.gun_units = units;
            s.rounds = rounds;
            if due > 0 {
                volleys.push((station, g, s.weapon.class, first, due));
            }
        }
        if !volleys.is_empty() {
            e.combat.payload_dirty = true;
        }
    }
    if !any_gun {
        if press {
            sys.refused.no_ammo += 1;
        }
        return;
    }
    if volleys.is_empty() {
        if press {
            // A press while the gun is still cycling: the rate holds.
            sys.refused.rate += 1;
        }
        return;
    }
    for (station, gun, class, first, count) in volleys {
        sys.effects.push(
            EffectType::WeaponFired,
            Some(class),
            id.index,
            None,
            shooter.position,
        );
        let mut hits = 0;
        for k in 0..count {
            // Each round has its own number (rounds left before it was fired), so its draws
            // are its own whatever the tick's volley size.
            let round = first - k;
            let key = DrawKey {
                seed: sys.seed,
                tick,
                actor: shooter.key(),
                subject: ((station as u64) << 32) | u64::from(round),
                purpose: Purpose::Dispersion,
                index: 0,
            };
            let dir = disperse(shooter.forward, shooter.up, gun.dispersion_rad, key);
            sys.totals.rounds_fired += 1;
            let ray = Ray {
                origin: shooter.position,
                dir,
                range_m: gun.range_m,
            };
            let Some(hit) = gun_ray_hit(world, id, &ray, sys.rewind_of(id), sys.max_radius_m)
            else {
                continue;
            };
            if sys.damage(world, hit.entity, gun.damage, shooter.credit(class, tick)) {
                hits += 1;
                sys.totals.rounds_hit += 1;
                sys.effects.push(
                    EffectType::Impact,
                    Some(class),
                    id.index,
                    Some(hit.entity.index),
                    hit.point,
                );
            }
        }
        sys.count_shot(shooter.owner, u64::from(count), hits, tick);
    }
}

fn release(sys: &mut CombatSystem, world: &mut World, id: EntityId, tick: u64) {
    let Some(shooter) = Shooter::of(world, id) else {
        return;
    };
    let Some(e) = world.get_mut(id) else { return };
    let Some(station) = e.combat.selected else {
        sys.refused.empty_station += 1;
        return;
    };
    let Some(store) = e
        .combat
        .loadout
        .stations
        .get(station)
        .and_then(|s| s.as_ref())
        .filter(|s| s.rounds > 0)
        .cloned()
    else {
        sys.refused.empty_station += 1;
        return;
    };
    if !store.weapon.is_releasable() {
        sys.refused.not_releasable += 1;
        return;
    }
    if tick < e.combat.next_release_tick {
        sys.refused.rate += 1;
        return;
    }
    let weapon = store.weapon.clone();
    let released = match &weapon.delivery {
        Delivery::Missile(spec) => {
            missiles::launch_missile(sys, world, &shooter, &weapon, spec, tick)
        }
        Delivery::Ballistic(spec) => {
            missiles::release_ballistic(sys, world, &shooter, &weapon, spec, store.rounds, tick)
        }
        Delivery::Inert => true,
        Delivery::Gun(_) => false,
    };
    if !released {
        // The world had no room for the projectile: the store stays on its station.
        return;
    }
    sys.totals.stores_released += 1;
    sys.count_shot(shooter.owner, 1, 0, tick);
    let Some(e) = world.get_mut(id) else { return };
    e.combat.next_release_tick = tick + RELEASE_INTERVAL_TICKS;
    e.combat.payload_dirty = true;
    let stations = &mut e.combat.loadout.stations;
    let mut emptied = false;
    if let Some(Some(s)) = stations.get_mut(station) {
        s.rounds -= 1;
        emptied = s.rounds == 0;
    }
    if emptied {
        stations[station] = None;
        // The next station carrying the same weapon, in order after this one.
        let n = stations.len();
        let next = (1..n).map(|k| (station + k) % n).find(|&i| {
            stations[i]
                .as_ref()
                .is_some_and(|s| s.rounds > 0 && s.weapon.id == weapon.id)
        });
        if let Some(next) = next {
            e.combat.selected = Some(next);
        }
    }
}

fn jettison(sys: &mut CombatSystem, world: &mut World, id: EntityId) {
    let Some(e) = world.get_mut(id) else { return };
    let n = e.combat.loadout.jettison();
    if n == 0 {
        sys.refused.empty_station += 1;
        return;
    }
    e.combat.payload_dirty = true;
    sys.totals.jettisoned += u64::from(n);
    tracing::debug!(entity = ?id, stores = n, "jettisoned");
}

fn dispense(sys: &mut CombatSystem, world: &mut World, id: EntityId, tick: u64) {
    let Some(shooter) = Shooter::of(world, id) else {
        return;
    };
    let Some(e) = world.get_mut(id) else { return };
    let l = &mut e.combat.loadout;
    if l.chaff == 0 && l.flares == 0 {
        sys.refused.no_countermeasures += 1;
        return;
    }
    let mut kinds = Vec::with_capacity(2);
    if l.chaff > 0 {
        l.chaff -= 1;
        kinds.push(false);
    }
    if l.flares > 0 {
        l.flares -= 1;
        kinds.push(true);
    }
    let velocity = shooter.velocity - shooter.up * DISPENSE_SPEED_MPS;
    for flare in kinds {
        let decoy_id = sys.next_decoy();
        sys.decoys
            .push(LiveDecoy::new(flare, decoy_id, shooter.position, velocity));
        sys.totals.decoys += 1;
    }
    sys.effects.push(
        EffectType::CountermeasureRelease,
        None,
        id.index,
        None,
        shooter.position,
    );
    let _ = tick;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispersion_stays_inside_its_cone_and_is_seeded() {
        let f = Vec3::new(0.0, 0.0, -1.0);
        let up = Vec3::new(0.0, 1.0, 0.0);
        let half = 0.012;
        let mut spread = 0.0f64;
        for i in 0..2000u64 {
            let key = DrawKey {
                seed: 9,
                tick: i,
                actor: 1,
                subject: i,
                purpose: Purpose::Dispersion,
                index: 0,
            };
            let d = disperse(f, up, half, key);
            let a = fl_flight::math::atan2(d.cross(f).length(), d.dot(f));
            assert!(a <= half + 1e-12, "{a}");
            spread = spread.max(a);
            assert_eq!(d, disperse(f, up, half, key), "same key, same round");
        }
        assert!(spread > 0.9 * half, "the cone is used: {spread}");
        assert_eq!(
            disperse(
                f,
                up,
                0.0,
                DrawKey {
                    seed: 1,
                    tick: 1,
                    actor: 1,
                    subject: 1,
                    purpose: Purpose::Dispersion,
                    index: 0,
                }
            ),
            f
        );
    }
}

//! What a controller may read: its own entity ([`EntityView`]) and a read-only [`WorldView`] of
//! everyone else, plus the deterministic queries built on them (hostility, nearest threat, target
//! resolution).
//!
//! Owns: the data contract between the server's AI pass and the controllers. Must not: mutate the
//! world or depend on the order in which a world visits entities — every reduction here breaks
//! ties by entity index, so a spatial hash may return candidates in any order.

use crate::weapons::{ContactView, StationView};
use fl_flight::atmosphere::G0;
use fl_flight::gravity::Planet;
use fl_flight::integrator::{StepEnv, air_data};
use fl_flight::math::Vec3;
use fl_flight::model::AircraftModel;
use fl_flight::state::AircraftState;

/// A generational entity handle: the pool slot and the generation that occupied it when the
/// handle was taken. A handle whose generation no longer matches refers to a dead entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntityId {
    /// Pool slot.
    pub index: u32,
    /// Generation of the slot's occupant.
    pub generation: u32,
}

impl EntityId {
    /// Builds a handle.
    pub const fn new(index: u32, generation: u32) -> Self {
        Self { index, generation }
    }
}

impl std::fmt::Display for EntityId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.index, self.generation)
    }
}

/// Faction index; 0 is neutral (hostile to nobody, nobody's threat).
pub type Faction = u16;

/// True when `a` and `b` are enemies: both non-neutral and different.
#[inline]
pub fn is_hostile(a: Faction, b: Faction) -> bool {
    a != 0 && b != 0 && a != b
}

/// Per-airframe numbers the inner loops need: structural and aerodynamic limits and the control
/// sensitivities that scale the gains. Controllers never see the flight model itself, so the same
/// controller flies any aircraft whose view carries its limits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlightLimits {
    /// Positive structural load limit, g.
    pub max_g: f64,
    /// Negative structural load limit, g (a negative number).
    pub min_g: f64,
    /// Angle of attack the autopilot will not exceed, rad.
    pub alpha_max_rad: f64,
    /// Steady load factor change per unit pitch command per pascal of dynamic pressure, g/Pa.
    pub g_per_pitch_per_pa: f64,
    /// Steady roll rate per unit roll command per m/s of airspeed, (rad/s)/(m/s).
    pub roll_rate_per_roll_per_mps: f64,
}

impl Default for FlightLimits {
    /// A generic fighter: 7.5 g, 16° of alpha, ~14 g per full stick at 18 kPa, ~3.9 rad/s of roll
    /// per full stick at 200 m/s.
    fn default() -> Self {
        Self {
            max_g: 7.5,
            min_g: -3.0,
            alpha_max_rad: 16f64.to_radians(),
            g_per_pitch_per_pa: 14.0 / 18_000.0,
            roll_rate_per_roll_per_mps: 3.9 / 200.0,
        }
    }
}

impl FlightLimits {
    /// Derives the limits from a compiled flight model (at half fuel, Mach 0.5, low alpha).
    ///
    /// * alpha: 85 % of the stall alpha, or 90 % of the FBW alpha limit when that is lower;
    /// * pitch sensitivity: `S·CLα·(|cm_de|·δe_up/|cm_α|)/W`;
    /// * roll sensitivity: `2·cl_da·δa_max/(|cl_p|·b)`.
    ///
    /// Degenerate derivatives fall back to [`FlightLimits::default`]'s values.
    pub fn from_model(m: &AircraftModel) -> Self {
        let d = Self::default();
        // Lift slope at Mach 0.5 (clamped to the table): typical of manoeuvring speeds, where
        // compressibility has already steepened it over the low-speed column.
        let mach = 0.5;
        let a0 = 0.0;
        let a1 = 4f64.to_radians();
        let cl_alpha = (m.cl.eval(a1, mach) - m.cl.eval(a0, mach)) / (a1 - a0);
        let weight = m.mass(0.5 * m.max_fuel_kg, 0.0) * G0;
        let alpha_per_pitch = (m.cm_de.abs() * m.elevator_up_rad) / m.cm_alpha.abs().max(1e-6);
        let g_pp = m.wing_area_m2 * cl_alpha * alpha_per_pitch / weight;
        let cl_p = m.cl_p.eval(0.0).abs();
        let roll = 2.0 * m.cl_da.abs() * m.aileron_rad / (cl_p.max(1e-6) * m.span_m);
        let mut alpha_max = 0.85 * m.alpha_stall;
        if let Some(lim) = m.alpha_limit {
            alpha_max = alpha_max.min(0.9 * lim);
        }
        let pick = |v: f64, fallback: f64| {
            if v.is_finite() && v > 0.0 {
                v
            } else {
                fallback
            }
        };
        Self {
            max_g: pick(m.max_g, d.max_g),
            min_g: if m.min_g.is_finite() && m.min_g < 0.0 {
                m.min_g
            } else {
                d.min_g
            },
            alpha_max_rad: pick(alpha_max, d.alpha_max_rad),
            g_per_pitch_per_pa: pick(g_pp, d.g_per_pitch_per_pa),
            roll_rate_per_roll_per_mps: pick(roll, d.roll_rate_per_roll_per_mps),
        }
    }
}

/// One entity as the AI pass sees it: a read-only copy of the facts a controller may use.
/// Vectors are world frame (right-handed, Y up, metres, f64) unless stated otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntityView {
    /// Handle (pool slot and generation).
    pub id: EntityId,
    /// Faction (0 = neutral).
    pub faction: Faction,
    /// False once the entity is destroyed; dead entities are never targets or threats.
    pub alive: bool,
    /// Hit points as a fraction of the maximum, 0 … 1 (1 for entities without hit points).
    pub hp_fraction: f64,
    /// Position of the CG, m.
    pub position: Vec3,
    /// Inertial velocity, m/s.
    pub velocity: Vec3,
    /// Engine-body → world rotation (body X right wing, Y up, Z aft).
    pub orientation: fl_flight::math::Quat,
    /// Body rates (p, q, r) in NACA axes (p + rolls right, q + pitches up, r + yaws right), rad/s.
    pub body_rates: Vec3,
    /// Local vertical (unit, away from the planet's centre).
    pub up: Vec3,
    /// Geodetic altitude, m.
    pub altitude_m: f64,
    /// Height above the floor (terrain or deck) below, m; very large over no floor.
    pub height_agl_m: f64,
    /// True airspeed, m/s.
    pub airspeed_mps: f64,
    /// Dynamic pressure, Pa.
    pub dynamic_pressure_pa: f64,
    /// Angle of attack, rad.
    pub alpha_rad: f64,
    /// Sideslip, rad (+ = air from the right, nose left of the airflow).
    pub beta_rad: f64,
    /// Normal load factor from the last step's accelerometer, g.
    pub load_factor: f64,
    /// Engine core, 0 idle … 1 military (the spooled throttle).
    pub spool: f64,
    /// The pitch command equivalent to the elevator applied last step (−1 … +1), so an autopilot
    /// that takes over starts from the current trim instead of from neutral.
    pub pitch_trim: f64,
    /// Airframe limits and control sensitivities.
    pub limits: FlightLimits,
}

/// Height reported over no floor at all.
pub const NO_FLOOR_AGL_M: f64 = 1.0e9;

impl EntityView {
    /// A point entity (no attitude, no air data) on the sim's Earth: see [`EntityView::point_on`].
    pub fn point(id: EntityId, faction: Faction, position: Vec3, velocity: Vec3) -> Self {
        Self::point_on(&Planet::earth(), id, faction, position, velocity)
    }

    /// A point entity (no attitude, no air data): a ground vehicle, a waypoint marker, a test
    /// target. Airspeed is the inertial speed; `up` is the local vertical and `altitude_m` the
    /// geodetic altitude on `planet` (world Y only at the origin); AGL equals the altitude.
    pub fn point_on(
        planet: &Planet,
        id: EntityId,
        faction: Faction,
        position: Vec3,
        velocity: Vec3,
    ) -> Self {
        let altitude_m = planet.altitude(position);
        Self {
            id,
            faction,
            alive: true,
            hp_fraction: 1.0,
            position,
            velocity,
            orientation: fl_flight::math::Quat::IDENTITY,
            body_rates: Vec3::ZERO,
            up: planet.up(position),
            altitude_m,
            height_agl_m: altitude_m,
            airspeed_mps: velocity.length(),
            dynamic_pressure_pa: 0.0,
            alpha_rad: 0.0,
            beta_rad: 0.0,
            load_factor: 1.0,
            spool: 0.0,
            pitch_trim: 0.0,
            limits: FlightLimits::default(),
        }
    }

    /// The view of an aircraft, computed from its flight state in the environment it is stepped
    /// in (air data through the same function the integrator uses, so wind and turbulence agree).
    /// `limits` is usually [`FlightLimits::from_model`] cached per aircraft type.
    pub fn from_flight(
        id: EntityId,
        faction: Faction,
        model: &AircraftModel,
        limits: FlightLimits,
        state: &AircraftState,
        env: &StepEnv<'_>,
    ) -> Self {
        let ad = air_data(state, env);
        let floor = env.floor.height_m(env.planet, state.position);
        let agl = if floor.is_finite() {
            ad.altitude_m - floor
        } else {
            NO_FLOOR_AGL_M
        };
        let de = state.surfaces.x;
        let pitch_trim = if de <= 0.0 {
            -de / model.elevator_up_rad.max(1e-9)
        } else {
            -de / model.elevator_down_rad.max(1e-9)
        };
        Self {
            id,
            faction,
            alive: state.crashed.is_none(),
            hp_fraction: 1.0,
            position: state.position,
            velocity: state.velocity,
            orientation: state.orientation,
            body_rates: state.body_rates,
            up: env.planet.up(state.position),
            altitude_m: ad.altitude_m,
            height_agl_m: agl.min(NO_FLOOR_AGL_M),
            airspeed_mps: ad.tas,
            dynamic_pressure_pa: ad.qbar,
            alpha_rad: ad.alpha,
            beta_rad: ad.beta,
            load_factor: -state.specific_force.z / G0,
            spool: state.spool,
            pitch_trim: pitch_trim.clamp(-1.0, 1.0),
            limits,
        }
    }

    /// Nose direction (world, unit).
    #[inline]
    pub fn forward(&self) -> Vec3 {
        self.orientation.rotate(Vec3::new(0.0, 0.0, -1.0))
    }

    /// Right-wing direction (world, unit).
    #[inline]
    pub fn right(&self) -> Vec3 {
        self.orientation.rotate(Vec3::new(1.0, 0.0, 0.0))
    }

    /// Canopy direction, the way lift points at zero sideslip (world, unit).
    #[inline]
    pub fn body_up(&self) -> Vec3 {
        self.orientation.rotate(Vec3::Y)
    }

    /// Inertial speed, m/s.
    #[inline]
    pub fn speed(&self) -> f64 {
        self.velocity.length()
    }

    /// Squared 3-D distance to another position, m².
    #[inline]
    pub fn distance_sq(&self, p: Vec3) -> f64 {
        let d = p - self.position;
        d.dot(d)
    }
}

/// The read-only world a controller samples against. The server implements it over its entity
/// pool and a uniform XZ spatial hash; [`crate::GridWorld`] is a ready-made implementation.
///
/// Contract (what determinism rests on):
/// * the world does not change while the AI pass runs;
/// * [`WorldView::entity`] returns the current occupant of a slot (any generation, dead or
///   alive), or `None` for an empty slot;
/// * [`WorldView::for_each_near`] visits every entity whose 3-D distance from `centre` is at most
///   `radius_m`, each exactly once, in any order; it may also visit entities farther away (a
///   hash cell is coarse) and the querying entity itself. Callers filter exactly.
pub trait WorldView: Sync {
    /// The entity in pool slot `index`.
    fn entity(&self, index: u32) -> Option<EntityView>;
    /// Visits candidates within `radius_m` of `centre` (see the trait's contract).
    fn for_each_near(&self, centre: Vec3, radius_m: f64, visit: &mut dyn FnMut(&EntityView));

    /// Visits the contacts `observer`'s sensors hold (each once, any order): the only thing a
    /// firing decision may read about others. The default holds none (a world without sensing:
    /// the AI never fires).
    fn contacts(&self, observer: EntityId, visit: &mut dyn FnMut(&ContactView)) {
        let _ = (observer, visit);
    }

    /// Visits the stations of `me`'s own aircraft (any order). The default has none.
    fn stores(&self, me: EntityId, visit: &mut dyn FnMut(&StationView)) {
        let _ = (me, visit);
    }

    /// `me`'s radar mode (`weapons::radar`), `None` when unknown.
    fn radar_mode(&self, me: EntityId) -> Option<u8> {
        let _ = me;
        None
    }

    /// True when the entity in pool slot `index` is flown by a player (ground truth, for mission
    /// directors and instructors). The default knows of none.
    fn player_owned(&self, index: u32) -> bool {
        let _ = index;
        false
    }
}

/// The live entity behind a handle: `None` when the slot is empty, reused by a later generation,
/// or holds a dead entity.
pub fn live_entity(world: &dyn WorldView, id: EntityId) -> Option<EntityView> {
    world.entity(id.index).filter(|e| e.id == id && e.alive)
}

/// Order-independent "closest wins, lower index breaks ties" key.
#[inline]
fn closer(a: (f64, u32), b: (f64, u32)) -> bool {
    match a.0.total_cmp(&b.0) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => a.1 < b.1,
    }
}

/// The nearest live entity hostile to `me` within `radius_m` (3-D), ties broken by the lower
/// entity index. `None` for a neutral `me` (faction 0 has no enemies).
pub fn nearest_threat(me: &EntityView, world: &dyn WorldView, radius_m: f64) -> Option<EntityView> {
    nearest_matching(me, world, radius_m, |e| is_hostile(me.faction, e.faction))
}

/// The nearest live entity other than `me` within `radius_m` that satisfies `keep`; ties broken
/// by the lower entity index, so the answer never depends on the world's visiting order.
pub fn nearest_matching(
    me: &EntityView,
    world: &dyn WorldView,
    radius_m: f64,
    keep: impl Fn(&EntityView) -> bool,
) -> Option<EntityView> {
    if radius_m.is_nan() || radius_m < 0.0 {
        return None;
    }
    let r2 = radius_m * radius_m;
    let mut best: Option<(f64, EntityView)> = None;
    world.for_each_near(me.position, radius_m, &mut |e| {
        if e.id.index == me.id.index || !e.alive || !keep(e) {
            return;
        }
        let d2 = me.distance_sq(e.position);
        if d2.is_nan() || d2 > r2 {
            return;
        }
        let better = match &best {
            None => true,
            Some((bd, be)) => closer((d2, e.id.index), (*bd, be.id.index)),
        };
        if better {
            best = Some((d2, *e));
        }
    });
    best.map(|(_, e)| e)
}

/// True when any live entity other than `me` (any faction) is within `radius_m` (3-D).
pub fn any_entity_within(me: &EntityView, world: &dyn WorldView, radius_m: f64) -> bool {
    nearest_matching(me, world, radius_m, |_| true).is_some()
}

/// Which entity a target-based controller flies against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// One specific entity; when it dies or its slot is reused the controller has no target.
    Entity(EntityId),
    /// The nearest hostile within the radius (m). Once acquired, a threat stays locked while it
    /// lives and remains inside the radius; then the nearest is chosen again.
    NearestThreat {
        /// Acquisition radius, m.
        radius_m: f64,
    },
}

/// Default acquisition radius for [`Target::NearestThreat`], m.
pub const DEFAULT_THREAT_RADIUS_M: f64 = 20_000.0;

/// Resolves a [`Target`] each tick, remembering a locked threat. Deterministic: the lock depends
/// only on this controller's own history and on the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TargetTracker {
    /// What to track.
    pub target: Target,
    locked: Option<EntityId>,
}

impl TargetTracker {
    /// A tracker for `target`, nothing locked yet.
    pub fn new(target: Target) -> Self {
        Self {
            target,
            locked: None,
        }
    }

    /// Forgets a locked threat.
    pub fn reset(&mut self) {
        self.locked = None;
    }

    /// The target's current view, or `None` when there is none.
    pub fn resolve(&mut self, me: &EntityView, world: &dyn WorldView) -> Option<EntityView> {
        match self.target {
            Target::Entity(id) => live_entity(world, id).filter(|e| e.id.index != me.id.index),
            Target::NearestThreat { radius_m } => {
                if let Some(e) = self.locked.and_then(|id| live_entity(world, id))
                    && is_hostile(me.faction, e.faction)
                    && me.distance_sq(e.position) <= radius_m * radius_m
                {
                    return Some(e);
                }
                let found = nearest_threat(me, world, radius_m);
                self.locked = found.map(|e| e.id);
                found
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::GridWorld;

    fn at(index: u32, generation: u32, faction: Faction, x: f64) -> EntityView {
        EntityView::point(
            EntityId::new(index, generation),
            faction,
            Vec3::new(x, 1000.0, 0.0),
            Vec3::ZERO,
        )
    }

    #[test]
    fn hostility_is_symmetric_and_neutral_has_no_enemies() {
        assert!(is_hostile(1, 2) && is_hostile(2, 1));
        assert!(!is_hostile(1, 1));
        assert!(!is_hostile(0, 2) && !is_hostile(2, 0) && !is_hostile(0, 0));
    }

    #[test]
    fn nearest_threat_skips_friends_neutrals_the_dead_and_self_and_breaks_ties_by_index() {
        let me = at(5, 1, 1, 0.0);
        let mut dead = at(1, 1, 2, 10.0);
        dead.alive = false;
        let world = GridWorld::from_entities(
            500.0,
            [
                me,
                dead,
                at(2, 1, 1, 20.0),   // friend
                at(3, 1, 0, 30.0),   // neutral
                at(9, 1, 2, 400.0),  // hostile, tie with 7
                at(7, 1, 3, -400.0), // hostile, tie with 9
                at(8, 1, 2, 900.0),
            ],
        );
        let t = nearest_threat(&me, &world, 1000.0).expect("threat");
        assert_eq!(t.id.index, 7);
        assert!(nearest_threat(&me, &world, 399.0).is_none());
        assert!(nearest_threat(&me, &world, -1.0).is_none());
        assert!(nearest_threat(&me, &world, f64::NAN).is_none());
        assert!(any_entity_within(&me, &world, 20.0));
        assert!(!any_entity_within(&me, &world, 19.0));
    }

    #[test]
    fn live_entity_checks_generation_and_life() {
        let mut dead = at(1, 3, 2, 0.0);
        dead.alive = false;
        let world = GridWorld::from_entities(500.0, [at(0, 4, 1, 0.0), dead]);
        assert!(live_entity(&world, EntityId::new(0, 4)).is_some());
        assert!(live_entity(&world, EntityId::new(0, 3)).is_none());
        assert!(live_entity(&world, EntityId::new(1, 3)).is_none());
        assert!(live_entity(&world, EntityId::new(2, 1)).is_none());
    }

    #[test]
    fn a_locked_threat_is_kept_until_it_leaves_or_dies() {
        let me = at(0, 1, 1, 0.0);
        let mut tracker = TargetTracker::new(Target::NearestThreat { radius_m: 5000.0 });
        let w1 = GridWorld::from_entities(500.0, [me, at(1, 1, 2, 1000.0), at(2, 1, 2, 2000.0)]);
        assert_eq!(tracker.resolve(&me, &w1).map(|e| e.id.index), Some(1));
        // Slot 2 comes closer: the lock on 1 holds.
        let w2 = GridWorld::from_entities(500.0, [me, at(1, 1, 2, 1000.0), at(2, 1, 2, 500.0)]);
        assert_eq!(tracker.resolve(&me, &w2).map(|e| e.id.index), Some(1));
        // 1 leaves the radius: re-acquire the nearest.
        let w3 = GridWorld::from_entities(500.0, [me, at(1, 1, 2, 6000.0), at(2, 1, 2, 500.0)]);
        assert_eq!(tracker.resolve(&me, &w3).map(|e| e.id.index), Some(2));
        // 2's slot is reused by another generation: the lock is gone.
        let w4 = GridWorld::from_entities(500.0, [me, at(2, 2, 2, 3000.0)]);
        assert_eq!(
            tracker.resolve(&me, &w4).map(|e| e.id),
            Some(EntityId::new(2, 2))
        );
        tracker.reset();
        let empty = GridWorld::from_entities(500.0, [me]);
        assert!(tracker.resolve(&me, &empty).is_none());
        // A specific target is never `me`, and must match its generation.
        let mut fixed = TargetTracker::new(Target::Entity(EntityId::new(0, 1)));
        assert!(fixed.resolve(&me, &w1).is_none());
        let mut fixed = TargetTracker::new(Target::Entity(EntityId::new(1, 1)));
        assert!(fixed.resolve(&me, &w1).is_some());
        assert!(fixed.resolve(&me, &w4).is_none());
    }

    #[test]
    fn default_limits_are_sane() {
        let l = FlightLimits::default();
        assert!(l.max_g > 1.0 && l.min_g < 0.0 && l.alpha_max_rad > 0.0);
        assert!(l.g_per_pitch_per_pa > 0.0 && l.roll_rate_per_roll_per_mps > 0.0);
    }
}

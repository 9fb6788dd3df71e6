//! The authoritative world: every entity (aircraft or static object), who flies it (a peer, an
//! AI controller, nobody), and the fixed 60 Hz step — AI controllers sampled in parallel on a
//! read-only view of the pre-step world, every aircraft integrated in parallel (each writes only
//! itself), then the serial phase (crashes, removals). Worker count never changes a bit of the
//! result: no cross-entity writes in a parallel region, visits in index order, no reductions.
//!
//! The step records every entity's post-integration transform in the lag-compensation history
//! (`lagcomp`), labelled with the tick its snapshot carries, before the serial phase; hitscan
//! queries ([`World::ray_hits`]) read it.
//!
//! Owns entity state and the step. Knows nothing of peers' sockets, snapshots or admission.

use crate::combat::Combatant;
use crate::lagcomp::{Hit, Ray, Transform, TransformHistory};
use crate::pool::{EntityId, Pool, PoolFull};
use crate::snapshot::SnapshotEntity;
use fl_ai::{Controller, EntityView, FlightLimits, GridWorld};
use fl_flight::env::WindField;
use fl_flight::gravity::Planet;
use fl_flight::math::{Quat, Vec3};
use fl_flight::{AircraftModel, AircraftState, Controls, StepEnv, StepEvents};
use fl_protocol::snapshot::EntityState;
use fl_terrain::Terrain;
use rayon::prelude::*;
use std::sync::Arc;

/// Who flies an entity.
#[derive(Debug)]
pub enum Pilot {
    /// A connected peer (its inputs arrive through the jitter buffer).
    Peer(u32),
    /// A server-side controller.
    Ai(Box<dyn Controller>),
    /// Nobody (static objects, abandoned aircraft).
    None,
}

/// The physical side of an entity.
// Aircraft are nearly every entity; boxing their state would cost a pointer chase per step.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Body {
    Aircraft {
        model: Arc<AircraftModel>,
        limits: FlightLimits,
        state: AircraftState,
    },
    /// Does not move (placeholders, structures).
    Static { position: Vec3, orientation: Quat },
    /// A missile, rocket or bomb in flight: combat flies it (`combat::missiles`) and writes its
    /// pose here each tick.
    Projectile {
        position: Vec3,
        velocity: Vec3,
        orientation: Quat,
    },
}

/// One entity.
#[derive(Debug)]
pub struct Entity {
    pub type_index: u32,
    pub faction: u16,
    pub body: Body,
    pub pilot: Pilot,
    /// The controls applied on the last step (AI output or the drained peer input).
    pub controls: Controls,
    /// Hit points as a fraction (kept equal to `combat.hp_fraction()`; 0 once crashed).
    pub hp_fraction: f64,
    /// Tick it crashed, if it did.
    pub crashed_at: Option<u64>,
    /// Hit points, stores, fire control, damage credit; a projectile's flight.
    pub combat: Combatant,
}

impl Entity {
    /// World position.
    pub fn position(&self) -> Vec3 {
        match &self.body {
            Body::Aircraft { state, .. } => state.position,
            Body::Static { position, .. } | Body::Projectile { position, .. } => *position,
        }
    }

    /// World velocity.
    pub fn velocity(&self) -> Vec3 {
        match &self.body {
            Body::Aircraft { state, .. } => state.velocity,
            Body::Static { .. } => Vec3::ZERO,
            Body::Projectile { velocity, .. } => *velocity,
        }
    }

    /// Position, orientation and velocity (what the lag-compensation history keeps).
    pub fn transform(&self) -> Transform {
        match &self.body {
            Body::Aircraft { state, .. } => Transform {
                position: state.position,
                orientation: state.orientation,
                velocity: state.velocity,
            },
            Body::Static {
                position,
                orientation,
            } => Transform {
                position: *position,
                orientation: *orientation,
                velocity: Vec3::ZERO,
            },
            Body::Projectile {
                position,
                velocity,
                orientation,
            } => Transform {
                position: *position,
                orientation: *orientation,
                velocity: *velocity,
            },
        }
    }

    /// The aircraft state, if this is an aircraft.
    pub fn aircraft_state(&self) -> Option<&AircraftState> {
        match &self.body {
            Body::Aircraft { state, .. } => Some(state),
            Body::Static { .. } | Body::Projectile { .. } => None,
        }
    }

    /// The peer flying it.
    pub fn owner(&self) -> Option<u32> {
        match self.pilot {
            Pilot::Peer(p) => Some(p),
            _ => None,
        }
    }
}

/// World settings.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldConfig {
    pub planet_radius_m: f64,
    /// Most live entities (`entity_soft_cap`).
    pub entity_cap: usize,
    /// Worker threads for the parallel passes (1 = serial).
    pub sim_workers: usize,
    /// Ticks a crashed aircraft stays in the world before it is removed.
    pub wreck_ticks: u64,
}

impl Default for WorldConfig {
    fn default() -> Self {
        Self {
            planet_radius_m: 6_371_000.0,
            entity_cap: 5000,
            sim_workers: 1,
            wreck_ticks: 180,
        }
    }
}

/// What one step did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepReport {
    /// Entities that crashed this tick.
    pub crashed: Vec<EntityId>,
    /// Entities removed this tick (wrecks expired, despawns).
    pub removed: Vec<EntityId>,
}

/// The world.
#[derive(Debug)]
pub struct World {
    cfg: WorldConfig,
    pool: Pool<Entity>,
    planet: Planet,
    /// The ground every aircraft touches (the base planet until [`World::set_terrain`]).
    floor: Terrain,
    tick: u64,
    workers: Option<rayon::ThreadPool>,
    removed: Vec<EntityId>,
    /// The AI pass's flight views, kept across ticks so the pass does not allocate them anew.
    ai_views: Vec<(EntityId, EntityView)>,
    /// Scratch of the AI pass: the player-flown entities' pool indices.
    ai_players: Vec<u32>,
    /// Every entity's transform over the last 32 ticks, for hitscan rewinds.
    history: TransformHistory,
}

/// Orientation on the wire: the spec's entity body has +X forward, Y up; fl-flight's engine
/// body has X right, Y up, Z aft. `q_wire = q_engine · R`, R = +90° about Y (wire X → engine −Z).
pub fn wire_orientation(q: Quat) -> [f64; 4] {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let r = Quat {
        w: h,
        x: 0.0,
        y: h,
        z: 0.0,
    };
    let w = q.then(r);
    [w.x, w.y, w.z, w.w]
}

/// The engine-body orientation a wire orientation stands for (inverse of [`wire_orientation`]).
pub fn engine_orientation(wire: [f64; 4]) -> Quat {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let r_inv = Quat {
        w: h,
        x: 0.0,
        y: -h,
        z: 0.0,
    };
    Quat {
        w: wire[3],
        x: wire[0],
        y: wire[1],
        z: wire[2],
    }
    .then(r_inv)
}

impl World {
    pub fn new(cfg: WorldConfig) -> Self {
        let workers = (cfg.sim_workers > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(cfg.sim_workers)
                    .thread_name(|i| format!("fl-sim-{i}"))
                    .build()
                    .ok()
            })
            .flatten();
        let planet = Planet {
            radius_m: if cfg.planet_radius_m.is_finite() && cfg.planet_radius_m > 1000.0 {
                cfg.planet_radius_m
            } else {
                Planet::earth().radius_m
            },
            ..Planet::earth()
        };
        Self {
            floor: Terrain::default(),
            pool: Pool::with_capacity(cfg.entity_cap),
            planet,
            tick: 0,
            workers,
            removed: Vec::new(),
            ai_views: Vec::new(),
            ai_players: Vec::new(),
            history: TransformHistory::new(cfg.entity_cap),
            cfg,
        }
    }

    pub fn planet(&self) -> &Planet {
        &self.planet
    }

    /// The worker pool of the parallel passes (`None` = serial), for other per-tick work.
    pub fn workers(&self) -> Option<&rayon::ThreadPool> {
        self.workers.as_ref()
    }

    /// The terrain the aircraft stand on (ground contact, AGL).
    pub fn floor(&self) -> &Terrain {
        &self.floor
    }

    /// Uses `terrain` (built from the server's content stack) as the ground from the next step.
    pub fn set_terrain(&mut self, terrain: Terrain) {
        self.floor = terrain;
    }

    /// The current tick (the next step advances it).
    pub fn tick(&self) -> u64 {
        self.tick
    }

    pub fn len(&self) -> usize {
        self.pool.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pool.is_empty()
    }

    /// Whether another entity fits.
    pub fn has_room(&self) -> bool {
        self.pool.len() < self.pool.capacity()
    }

    pub fn get(&self, id: EntityId) -> Option<&Entity> {
        self.pool.get(id)
    }

    pub fn get_mut(&mut self, id: EntityId) -> Option<&mut Entity> {
        self.pool.get_mut(id)
    }

    /// The live entity in pool slot `index`, with its full id (sensing and designations name
    /// entities by index).
    pub fn by_index(&self, index: u32) -> Option<(EntityId, &Entity)> {
        self.pool.by_index(index)
    }

    /// Live entities in index order.
    pub fn iter(&self) -> impl Iterator<Item = (EntityId, &Entity)> {
        self.pool.iter()
    }

    /// Adds an entity (it has no history yet: hitscan tests it where it is).
    pub fn spawn(&mut self, entity: Entity) -> Result<EntityId, PoolFull> {
        let position = entity.position();
        let id = self.pool.insert(entity)?;
        self.history.note_spawn(id, position);
        Ok(id)
    }

    /// The lag-compensation history (newest record: the current positions, labelled
    /// [`World::tick`] between steps).
    pub fn history(&self) -> &TransformHistory {
        &self.history
    }

    /// The nearest entity `ray` hits, every target rewound `rewind_ticks` (fractional; clamped
    /// to the 31-tick window) before the current positions — 0 for AI shooters and for
    /// projectiles, which never rewind. `radius_of` gives an entity's collision radius (≤ 0: not
    /// a target), capped at `max_radius_m`; the shooter is never hit. See
    /// [`TransformHistory::ray_hits`].
    pub fn ray_hits(
        &self,
        ray: &Ray,
        rewind_ticks: f64,
        shooter: EntityId,
        max_radius_m: f64,
        radius_of: impl Fn(EntityId, &Entity) -> f64,
    ) -> Option<Hit> {
        self.history.ray_hits(
            ray,
            rewind_ticks,
            shooter,
            max_radius_m,
            |index| self.pool.by_index(index).map(|(id, e)| (id, e.position())),
            |id| self.pool.get(id).map_or(0.0, |e| radius_of(id, e)),
        )
    }

    /// Removes an entity now (it appears in the next report's `removed`).
    pub fn despawn(&mut self, id: EntityId) -> Option<Entity> {
        let e = self.pool.remove(id)?;
        self.removed.push(id);
        Some(e)
    }

    /// Sets the controls a peer-flown entity applies on the next step.
    pub fn set_controls(&mut self, id: EntityId, controls: Controls) {
        if let Some(e) = self.pool.get_mut(id) {
            e.controls = controls;
        }
    }

    fn env<'a>(&'a self, wind: &'a WindField, entity: u32) -> StepEnv<'a> {
        StepEnv {
            planet: &self.planet,
            wind,
            floor: &self.floor,
            tick: self.tick,
            entity,
            aero: true,
        }
    }

    /// The AI view of one entity.
    fn view(&self, id: EntityId, e: &Entity, wind: &WindField) -> EntityView {
        let aid = fl_ai::EntityId::new(id.index, id.generation);
        let mut v = match &e.body {
            Body::Aircraft {
                model,
                limits,
                state,
            } => EntityView::from_flight(
                aid,
                e.faction,
                model,
                *limits,
                state,
                &self.env(wind, id.index),
            ),
            Body::Static {
                position,
                orientation,
            } => {
                // A ground site's orientation is where its launcher or gun points (slewed by
                // its AI's aim): fire control reads the nose from it.
                let mut v =
                    EntityView::point_on(&self.planet, aid, e.faction, *position, Vec3::ZERO);
                v.orientation = *orientation;
                v
            }
            Body::Projectile { position, .. } => {
                EntityView::point_on(&self.planet, aid, e.faction, *position, e.velocity())
            }
        };
        v.hp_fraction = e.hp_fraction;
        v.alive = v.alive && e.crashed_at.is_none() && !e.combat.is_out();
        v
    }

    /// Advances the world one tick with `wind`.
    pub fn step(&mut self, wind: &WindField) -> StepReport {
        // AI pass: sample every AI pilot against the pre-step world.
        let has_ai = self
            .pool
            .iter()
            .any(|(_, e)| matches!(e.pilot, Pilot::Ai(_)));
        if has_ai {
            // Projectiles are not aircraft to the AI (sensing will show it missiles later).
            // The views buffer is kept across ticks (taken out while the pass borrows the pool).
            let mut views = std::mem::take(&mut self.ai_views);
            views.clear();
            views.extend(
                self.pool
                    .iter()
                    .filter(|(_, e)| e.combat.projectile.is_none())
                    .map(|(id, e)| (id, self.view(id, e, wind))),
            );
            let grid = GridWorld::from_entities(10_000.0, views.iter().map(|(_, v)| *v));
            // Who flies what, for scripts' ground truth (`player_owned`): ascending indices.
            let mut players = std::mem::take(&mut self.ai_players);
            players.clear();
            players.extend(
                self.pool
                    .iter()
                    .filter(|(_, e)| matches!(e.pilot, Pilot::Peer(_)))
                    .map(|(id, _)| id.index),
            );
            players.sort_unstable();
            let players_ref = &players;
            let tick = self.tick;
            let planet = self.planet;
            let mut entities = self.pool.values_mut();
            let sample = |(id, e): &mut (EntityId, &mut Entity)| {
                if let Pilot::Ai(ctrl) = &mut e.pilot
                    && let Ok(pos) = views.binary_search_by_key(&id.index, |(i, _)| i.index)
                {
                    // Its own cockpit: contacts, stores, radar mode (crate::ai_glue); its weapons
                    // intent goes to combat as a pilot's input would.
                    let me = &views[pos].1;
                    // The buffers are this worker thread's, reused across AIs and ticks.
                    let (controls, intent) = crate::ai_glue::with_scratch(|scratch| {
                        crate::ai_glue::stations_into(&e.combat.loadout, &mut scratch.stations);
                        crate::ai_glue::contact_views_into(
                            e.combat.sensing.as_deref(),
                            &views,
                            me,
                            tick,
                            &mut scratch.contacts,
                        );
                        let world = crate::ai_glue::AiWorld {
                            grid: &grid,
                            me,
                            contacts: &scratch.contacts,
                            stations: &scratch.stations,
                            radar_mode: e.combat.radar_mode,
                            players: players_ref,
                        };
                        let controls = ctrl.sample(me, &world, tick);
                        (controls, ctrl.weapons(me, &world, tick))
                    });
                    e.controls = controls;
                    e.combat.input = Some(crate::ai_glue::pilot_input(&intent));
                    // A ground site points its launcher or gun by turning itself, at a bounded
                    // rate, before fire control reads its nose this tick.
                    if let (
                        Body::Static {
                            position,
                            orientation,
                        },
                        Some(aim),
                    ) = (&mut e.body, intent.aim)
                        && e.crashed_at.is_none()
                        && !e.combat.is_out()
                    {
                        *orientation = crate::ai_glue::slew_toward(
                            *orientation,
                            aim,
                            planet.up(*position),
                            crate::ai_glue::GROUND_SLEW_RATE_RAD_S * fl_flight::DT,
                        );
                    }
                }
            };
            match &self.workers {
                Some(pool) => pool.install(|| entities.par_iter_mut().for_each(sample)),
                None => entities.iter_mut().for_each(sample),
            }
            self.ai_views = views;
            self.ai_players = players;
        }

        // Integrate pass.
        let planet = &self.planet;
        let floor = &self.floor;
        let tick = self.tick;
        let mut entities = self.pool.values_mut();
        let integrate = |(id, e): &mut (EntityId, &mut Entity)| -> Option<(EntityId, StepEvents)> {
            if e.crashed_at.is_some() {
                return None;
            }
            let Body::Aircraft { model, state, .. } = &mut e.body else {
                return None;
            };
            let env = StepEnv {
                planet,
                wind,
                floor,
                tick,
                entity: id.index,
                aero: true,
            };
            let controls = if matches!(e.pilot, Pilot::None) {
                Controls::default()
            } else {
                e.controls
            };
            // Damage degrades what the pilot commands (nobody flies a destroyed aircraft).
            let controls = e.combat.effective_controls(controls);
            // A punctured tank leaks before the step (the client's prediction does the same).
            state.fuel_kg = e.combat.leak_fuel(state.fuel_kg);
            Some((*id, fl_flight::step(model, state, &controls, &env)))
        };
        let events: Vec<(EntityId, StepEvents)> = match &self.workers {
            Some(pool) => pool.install(|| entities.par_iter_mut().filter_map(integrate).collect()),
            None => entities.iter_mut().filter_map(integrate).collect(),
        };
        drop(entities);
        // The post-integration transforms, labelled with the tick their snapshot will carry.
        self.history.record(
            self.tick + 1,
            self.pool.iter().map(|(id, e)| (id, e.transform())),
        );

        // Serial phase.
        let mut report = StepReport::default();
        for (id, ev) in events {
            if ev.crashed.is_some() {
                if let Some(e) = self.pool.get_mut(id) {
                    e.crashed_at = Some(self.tick);
                    e.hp_fraction = 0.0;
                }
                report.crashed.push(id);
            }
        }
        let expired: Vec<EntityId> = self
            .pool
            .iter()
            .filter(|(_, e)| {
                e.crashed_at
                    .is_some_and(|t| self.tick.saturating_sub(t) >= self.cfg.wreck_ticks)
            })
            .map(|(id, _)| id)
            .collect();
        for id in expired {
            self.despawn(id);
        }
        report.removed = std::mem::take(&mut self.removed);
        self.tick += 1;
        report
    }

    /// Every entity as the snapshot pipeline encodes it, in index order.
    pub fn snapshot_entities(&self) -> Vec<SnapshotEntity> {
        self.pool
            .iter()
            .map(|(id, e)| SnapshotEntity {
                id,
                state: entity_state(id, e),
                owner: e.owner(),
            })
            .collect()
    }

    /// A hash of every entity's full state (determinism tests).
    pub fn state_hash(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |x: u64| {
            for b in x.to_le_bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        for (id, e) in self.pool.iter() {
            eat(u64::from(id.index));
            eat(u64::from(id.generation));
            match &e.body {
                Body::Aircraft { state, .. } => eat(state.hash_bits()),
                Body::Static { position, .. } | Body::Projectile { position, .. } => {
                    eat(position.x.to_bits());
                    eat(position.y.to_bits());
                    eat(position.z.to_bits());
                }
            }
            eat(e.combat.hash_bits());
        }
        h
    }
}

/// The snapshot fields of one entity.
pub fn entity_state(id: EntityId, e: &Entity) -> EntityState {
    let damage = if e.crashed_at.is_some() {
        fl_protocol::enums::DamageLevel::Destroyed
    } else {
        e.combat.level()
    };
    let base = EntityState {
        idx: id.index,
        generation: id.generation,
        type_index: e.type_index,
        faction_index: e.faction,
        damage_level: damage.to_u8(),
        engine_fail_flags: e.combat.engine_fail_flags(),
        player_owned: e.owner().is_some(),
        ..EntityState::default()
    };
    match &e.body {
        Body::Aircraft { model, state, .. } => EntityState {
            position: [state.position.x, state.position.y, state.position.z],
            orientation: wire_orientation(state.orientation),
            velocity: [state.velocity.x, state.velocity.y, state.velocity.z],
            omega: [state.body_rates.x, state.body_rates.y, state.body_rates.z],
            throttle_pct: pct(e.controls.throttle),
            fuel_pct: pct(if model.max_fuel_kg > 0.0 {
                state.fuel_kg / model.max_fuel_kg
            } else {
                0.0
            }),
            ab_engaged: state.afterburner > 0.5,
            ..base
        },
        Body::Static {
            position,
            orientation,
        } => EntityState {
            position: [position.x, position.y, position.z],
            orientation: wire_orientation(*orientation),
            ..base
        },
        Body::Projectile {
            position,
            velocity,
            orientation,
        } => EntityState {
            position: [position.x, position.y, position.z],
            orientation: wire_orientation(*orientation),
            velocity: [velocity.x, velocity.y, velocity.z],
            ..base
        },
    }
}

fn pct(fraction: f64) -> u8 {
    if fraction.is_finite() {
        (fraction.clamp(0.0, 1.0) * 100.0).round() as u8
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_orientation_puts_body_x_forward() {
        // Identity engine orientation: the nose points along world −Z.
        let w = wire_orientation(Quat::IDENTITY);
        let q = Quat {
            w: w[3],
            x: w[0],
            y: w[1],
            z: w[2],
        };
        let fwd = q.rotate(Vec3::new(1.0, 0.0, 0.0));
        assert!(
            (fwd.z + 1.0).abs() < 1e-12 && fwd.x.abs() < 1e-12,
            "{fwd:?}"
        );
        let back = engine_orientation(w);
        assert!((back.w - 1.0).abs() < 1e-12 && back.y.abs() < 1e-12);
    }
}

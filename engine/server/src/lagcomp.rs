//! Lag compensation (the spec's "Server-Side Lag Compensation"): a [`TransformHistory`] of
//! every live entity's post-step transform for the last [`HISTORY_TICKS`] ticks, the view tick a
//! shooter's screen showed ([`view_tick`], [`rewind_ticks`]), and the hitscan query that tests a
//! ray against targets rewound to that tick ([`TransformHistory::ray_hits`]).
//!
//! The history is a ring per pool slot, indexed by tick modulo [`HISTORY_TICKS`]: each entry
//! stores its tick and its entity's generation, so a lookup is exact (an old tick or a recycled
//! slot's previous occupant never answers) and recording allocates nothing once every slot has
//! been seen. The number of slots is bounded by the pool's capacity. The broadphase is the
//! workspace's spatial grid over the newest record (plus entities spawned since), searched with
//! a radius inflated by the largest distance any entity actually moved since the rewound tick.
//!
//! Owns the history and the geometry of the query. Must not: decide who may fire or what a hit
//! does (the gun system), read the wall clock, or rewind further than [`MAX_REWIND_TICKS`]
//! (the spec's bounded unfairness) — and it never rewinds projectiles: the caller asks for a
//! rewind of 0 for missiles, rockets, bombs and AI shooters.

use crate::pool::EntityId;
use crate::spatial::SpatialIndex;
use fl_flight::math::{Quat, Vec3, sqrt};

/// Ticks of history kept (≈533 ms at 60 Hz).
pub const HISTORY_TICKS: usize = 32;
/// The furthest a hit test is rewound, in ticks: `HISTORY_TICKS − 1`, so the rewound tick and
/// the one after it (a fractional view tick interpolates between them) are both still held.
pub const MAX_REWIND_TICKS: f64 = (HISTORY_TICKS - 1) as f64;
/// The largest interpolation delay a peer's report is taken at, in ticks (one second; the
/// protocol refuses more, see `fl_protocol::tlv::MAX_VIEW_DELAY_MILLITICKS`).
pub const MAX_VIEW_DELAY_TICKS: f64 = 60.0;
/// Cell size of the broadphase grid: gun ranges are 1–2 km, so a ray's search sphere spans a
/// few cells.
pub const BROADPHASE_CELL_M: f64 = 1000.0;
/// The largest collision radius a query takes (fl-content's bound on `collision_radius_m`).
pub const MAX_COLLISION_RADIUS_M: f64 = 10_000.0;

/// An entity's pose at one tick.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Transform {
    pub position: Vec3,
    /// Engine body → world.
    pub orientation: Quat,
    pub velocity: Vec3,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    tick: u64,
    /// 0 = empty (pool generations start at 1).
    generation: u32,
    transform: Transform,
}

const EMPTY: Entry = Entry {
    tick: 0,
    generation: 0,
    transform: Transform {
        position: Vec3::ZERO,
        orientation: Quat {
            w: 1.0,
            x: 0.0,
            y: 0.0,
            z: 0.0,
        },
        velocity: Vec3::ZERO,
    },
};

/// A hitscan ray: from `origin` along `dir` for `range_m`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    pub origin: Vec3,
    /// Direction (normalised by the query; a zero or non-finite one hits nothing).
    pub dir: Vec3,
    pub range_m: f64,
}

/// The nearest entity a ray hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The entity hit, as it is now (apply damage to this handle).
    pub entity: EntityId,
    /// Distance from the ray's origin to the hit, m.
    pub distance_m: f64,
    /// Where the ray entered the target's sphere (in the rewound world).
    pub point: Vec3,
    /// The centre the sphere was tested at: the rewound position, or the current one for an
    /// entity that did not exist at the rewound tick.
    pub centre: Vec3,
    /// Whether `centre` came from the history (false: the current position).
    pub rewound: bool,
}

/// What a peer's screen showed with the input the server applied last (per peer, updated as
/// each input is drained; the gun system rewinds that peer's shots by it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ShooterView {
    /// The sequence number of the input applied last (a repeat keeps its input's).
    pub applied_seq: Option<u32>,
    /// The server tick (fractional) the peer's screen showed for it ([`view_tick`]); a
    /// repeated input (the real one was lost or late) stands for a screen one tick later.
    pub view_tick: Option<f64>,
}

/// The server tick a shooter's screen showed when it sampled an input: the newest snapshot it
/// had (`ack_tick`, the input's `tickIndex`) minus the interpolation delay it reported
/// (`InputViewDelay`, ticks; absent, negative or NaN counts as 0, and at most
/// [`MAX_VIEW_DELAY_TICKS`] is taken).
pub fn view_tick(ack_tick: u64, view_delay_ticks: Option<f64>) -> f64 {
    let d = view_delay_ticks
        .filter(|d| d.is_finite())
        .unwrap_or(0.0)
        .clamp(0.0, MAX_VIEW_DELAY_TICKS);
    ack_tick as f64 - d
}

/// The view tick of an input that arrived `back` inputs before the message carrying it (0: the
/// message's own; an `InputRedundancy` copy otherwise), from that message's ack tick and its
/// `InputViewDelay` values in ticks (`delays[back]`). A copy the message gives no value for is
/// taken as the message's own view moved back one tick per input (the screen advances about a
/// tick per input).
pub fn view_tick_of(ack_tick: u64, delays: &[f64], back: u32) -> f64 {
    match delays.get(back as usize) {
        Some(&d) => view_tick(ack_tick, Some(d)),
        None => view_tick(ack_tick, delays.first().copied()) - f64::from(back),
    }
}

/// How far to rewind at `now` (the tick of the current positions) for a shooter whose screen
/// showed `view_tick`: `now − view_tick` — the spec's `estimatedDelayTicks` measured when the
/// input is applied, plus the reported interpolation delay — clamped to
/// `0..=MAX_REWIND_TICKS`. A view in the future or a NaN rewinds 0.
pub fn rewind_ticks(now: u64, view_tick: f64) -> f64 {
    let r = now as f64 - view_tick;
    if r.is_nan() {
        0.0
    } else {
        r.clamp(0.0, MAX_REWIND_TICKS)
    }
}

/// The rolling transform history and its broadphase grid.
#[derive(Debug)]
pub struct TransformHistory {
    /// One ring per pool slot (slot = index − 1), grown as indices appear, never shrunk.
    slots: Vec<[Entry; HISTORY_TICKS]>,
    /// Most slots ever held (the pool's capacity): bounds the memory whatever happens.
    max_slots: usize,
    newest: Option<u64>,
    /// First tick of the unbroken run of records that ends at `newest` (a rewind never reaches
    /// across a gap: the drift bound would not cover it).
    run_start: u64,
    /// Per tick (by tick modulo the ring): the largest distance any entity moved since the
    /// previous tick's record, m.
    max_step: [(u64, f64); HISTORY_TICKS],
    /// Positions of the newest record plus entities spawned since.
    grid: SpatialIndex,
}

impl TransformHistory {
    /// An empty history for a pool of at most `max_slots` slots.
    pub fn new(max_slots: usize) -> Self {
        Self {
            slots: Vec::new(),
            max_slots,
            newest: None,
            run_start: 0,
            max_step: [(u64::MAX, 0.0); HISTORY_TICKS],
            grid: SpatialIndex::new(BROADPHASE_CELL_M),
        }
    }

    /// The tick of the newest record.
    pub fn newest_tick(&self) -> Option<u64> {
        self.newest
    }

    /// The oldest tick a query may rewind to.
    pub fn oldest_tick(&self) -> Option<u64> {
        let n = self.newest?;
        Some(
            n.saturating_sub(MAX_REWIND_TICKS as u64)
                .max(self.run_start),
        )
    }

    /// Pool slots with a ring (memory: this × 32 entries).
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    fn ring(index: u32) -> Option<usize> {
        (index as usize).checked_sub(1)
    }

    /// Records every live entity's post-step transform as tick `tick` (the label the snapshot
    /// of the same state carries). Ticks must rise by one per record to keep a run; any other
    /// tick starts a new run (nothing before it is rewound to). Allocation-free once every
    /// slot has been seen.
    pub fn record(&mut self, tick: u64, entities: impl IntoIterator<Item = (EntityId, Transform)>) {
        let prev = tick.checked_sub(1);
        if self.newest.is_none() || self.newest != prev {
            self.run_start = tick;
        }
        let at = tick as usize % HISTORY_TICKS;
        let before = prev.map(|p| p as usize % HISTORY_TICKS);
        self.grid.clear();
        let mut max_step: f64 = 0.0;
        for (id, t) in entities {
            let Some(slot) = Self::ring(id.index) else {
                continue;
            };
            if slot >= self.max_slots {
                continue;
            }
            if slot >= self.slots.len() {
                self.slots.resize(slot + 1, [EMPTY; HISTORY_TICKS]);
            }
            let ring = &mut self.slots[slot];
            if let (Some(p), Some(b)) = (prev, before) {
                let e = &ring[b];
                if e.tick == p && e.generation == id.generation {
                    let step = (t.position - e.transform.position).length();
                    // A diverged (non-finite) entity must not poison the bound; it is never a
                    // target anyway (`position_at` and the sphere test refuse non-finite
                    // positions).
                    if step.is_finite() {
                        max_step = max_step.max(step);
                    }
                }
            }
            ring[at] = Entry {
                tick,
                generation: id.generation,
                transform: t,
            };
            self.grid.insert(id.index, arr(t.position));
        }
        self.max_step[at] = (tick, max_step);
        self.newest = Some(tick);
    }

    /// Adds an entity spawned after the newest record to the broadphase (it has no history and
    /// is tested at its current position until the next record).
    pub fn note_spawn(&mut self, id: EntityId, position: Vec3) {
        self.grid.insert(id.index, arr(position));
    }

    /// The recorded transform of `id` at `tick` (exactly that generation at exactly that tick).
    pub fn transform_at(&self, id: EntityId, tick: u64) -> Option<Transform> {
        let ring = self.slots.get(Self::ring(id.index)?)?;
        let e = &ring[tick as usize % HISTORY_TICKS];
        (e.generation != 0 && e.generation == id.generation && e.tick == tick)
            .then_some(e.transform)
    }

    /// The position of `id` at a fractional tick, on the chord between the two records around
    /// it (within millimetres of the flown arc for any aircraft turn at 60 Hz). `None` when
    /// either record is missing or not finite (the entity did not exist then).
    pub fn position_at(&self, id: EntityId, tick: f64) -> Option<Vec3> {
        if !tick.is_finite() || tick < 0.0 {
            return None;
        }
        let lo = libm::floor(tick);
        let frac = tick - lo;
        let lo = lo as u64;
        let a = self.transform_at(id, lo)?.position;
        let p = if frac > 0.0 {
            let b = self.transform_at(id, lo + 1)?.position;
            a + (b - a) * frac
        } else {
            a
        };
        p.is_finite().then_some(p)
    }

    /// The largest distance any entity with a record at tick `from` can have moved between it
    /// and the newest record: the sum of the per-tick largest steps after `from`.
    pub fn max_drift_m(&self, from: u64) -> f64 {
        let Some(newest) = self.newest else {
            return 0.0;
        };
        (from.saturating_add(1)..=newest)
            .map(|t| {
                let (tick, step) = self.max_step[t as usize % HISTORY_TICKS];
                if tick == t { step } else { 0.0 }
            })
            .sum()
    }

    /// The nearest entity `ray` hits with every target rewound `rewind_ticks` (fractional,
    /// clamped to `0..=MAX_REWIND_TICKS` and to the history held) before the newest record.
    ///
    /// - `current(index)` is the live entity at a pool index and its current position (`None`
    ///   for a free slot). The history's generation must match it, so a recycled slot is never
    ///   hit through its previous occupant's history; an entity without history at the rewound
    ///   tick (it did not exist then) is tested at its current position.
    /// - `radius_of(id)` is its collision radius (≤ 0 or NaN: not a target); radii are capped at
    ///   `max_radius_m`, which bounds the broadphase.
    /// - `shooter` is never hit.
    ///
    /// Call between the record and the next step (the world does: it records right after
    /// integrating), so that current positions are the newest record's.
    pub fn ray_hits(
        &self,
        ray: &Ray,
        rewind_ticks: f64,
        shooter: EntityId,
        max_radius_m: f64,
        current: impl Fn(u32) -> Option<(EntityId, Vec3)>,
        radius_of: impl Fn(EntityId) -> f64,
    ) -> Option<Hit> {
        let dir = ray.dir.normalize_or_zero();
        if !ray.origin.is_finite()
            || dir == Vec3::ZERO
            || !dir.is_finite()
            || ray.range_m.is_nan()
            || ray.range_m <= 0.0
            || !ray.range_m.is_finite()
        {
            return None;
        }
        let max_r = if max_radius_m.is_finite() {
            max_radius_m.clamp(0.0, MAX_COLLISION_RADIUS_M)
        } else {
            MAX_COLLISION_RADIUS_M
        };
        // The rewound tick, never before the oldest record a rewind may use.
        let rewind = if rewind_ticks.is_finite() {
            rewind_ticks.clamp(0.0, MAX_REWIND_TICKS)
        } else {
            0.0
        };
        let target = match (self.newest, self.oldest_tick()) {
            (Some(n), Some(oldest)) if rewind > 0.0 => Some((n as f64 - rewind).max(oldest as f64)),
            _ => None,
        };
        let drift = target.map_or(0.0, |t| self.max_drift_m(libm::floor(t) as u64));
        let half = ray.range_m * 0.5;
        let mid = ray.origin + dir * half;
        let mut best: Option<Hit> = None;
        self.grid
            .for_each_within(arr(mid), half + max_r + drift, |index| {
                let Some((id, now_pos)) = current(index) else {
                    return;
                };
                if id == shooter {
                    return;
                }
                // NaN or not positive: not a target (checked before the cap: `min` would turn
                // a NaN into the cap).
                let r = radius_of(id);
                if r.is_nan() || r <= 0.0 {
                    return;
                }
                let r = r.min(max_r);
                let rewound = target.and_then(|t| self.position_at(id, t));
                let centre = rewound.unwrap_or(now_pos);
                let Some(d) = ray_sphere(ray.origin, dir, ray.range_m, centre, r) else {
                    return;
                };
                // Nearest wins; a tie keeps the first visited (a pure function of the inserts).
                if best.is_none_or(|b| d < b.distance_m) {
                    best = Some(Hit {
                        entity: id,
                        distance_m: d,
                        point: ray.origin + dir * d,
                        centre,
                        rewound: rewound.is_some(),
                    });
                }
            });
        best
    }
}

fn arr(v: Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// Distance along a unit-direction ray to where it enters a sphere, within `range`; 0 when the
/// origin is inside it.
fn ray_sphere(origin: Vec3, dir: Vec3, range: f64, centre: Vec3, r: f64) -> Option<f64> {
    let m = origin - centre;
    let b = m.dot(dir);
    let c = m.dot(m) - r * r;
    if c > 0.0 && b > 0.0 {
        return None;
    }
    let disc = b * b - c;
    if disc.is_nan() || disc < 0.0 {
        return None;
    }
    let t = (-b - sqrt(disc)).max(0.0);
    (t <= range).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn id(index: u32, generation: u32) -> EntityId {
        EntityId { index, generation }
    }

    fn at(p: Vec3) -> Transform {
        Transform {
            position: p,
            ..Transform::default()
        }
    }

    /// A stand-in world: the live entity per index and its current position.
    #[derive(Default)]
    struct Live(BTreeMap<u32, (EntityId, Vec3)>);

    impl Live {
        fn set(&mut self, e: EntityId, p: Vec3) {
            self.0.insert(e.index, (e, p));
        }
        fn record(&self, h: &mut TransformHistory, tick: u64) {
            h.record(tick, self.0.values().map(|&(e, p)| (e, at(p))));
        }
        fn hit(
            &self,
            h: &TransformHistory,
            ray: &Ray,
            rewind: f64,
            shooter: EntityId,
        ) -> Option<Hit> {
            h.ray_hits(
                ray,
                rewind,
                shooter,
                10.0,
                |i| self.0.get(&i).copied(),
                |_| 5.0,
            )
        }
    }

    /// A ray from 1 km south of `p` (+Z), pointing at it.
    fn shot_at(p: Vec3) -> Ray {
        Ray {
            origin: p + Vec3::new(0.0, 0.0, 1000.0),
            dir: Vec3::new(0.0, 0.0, -1.0),
            range_m: 1500.0,
        }
    }

    const SHOOTER: EntityId = EntityId {
        index: 9,
        generation: 1,
    };

    #[test]
    fn entries_are_exact_by_tick_and_generation() {
        let mut h = TransformHistory::new(16);
        let a = id(1, 1);
        for t in 0..40u64 {
            h.record(t, [(a, at(Vec3::new(t as f64, 0.0, 0.0)))]);
        }
        assert_eq!(h.newest_tick(), Some(39));
        assert_eq!(h.oldest_tick(), Some(8));
        assert_eq!(h.transform_at(a, 39).map(|t| t.position.x), Some(39.0));
        assert_eq!(h.transform_at(a, 8).map(|t| t.position.x), Some(8.0));
        // Overwritten by tick 39 − 32 + … : tick 7 shares its entry with tick 39.
        assert_eq!(h.transform_at(a, 7), None);
        // Another generation in the same slot never answers.
        assert_eq!(h.transform_at(id(1, 2), 39), None);
        assert_eq!(h.transform_at(id(2, 1), 39), None);
        assert_eq!(h.transform_at(id(0, 0), 39), None);
        let p = h.position_at(a, 20.25).expect("held");
        assert!((p.x - 20.25).abs() < 1e-12);
        assert_eq!(h.position_at(a, 39.5), None, "no record after the newest");
        assert_eq!(h.position_at(a, f64::NAN), None);
        // Each tick moved it 1 m: the drift from tick 30 to 39 is 9 m.
        assert!((h.max_drift_m(30) - 9.0).abs() < 1e-12);
        // Slots beyond the pool's capacity are not recorded (bounded memory).
        h.record(40, [(id(17, 1), at(Vec3::ZERO))]);
        assert_eq!(h.slots(), 1);
    }

    #[test]
    fn a_gap_in_the_records_starts_a_new_run() {
        let mut h = TransformHistory::new(4);
        let a = id(1, 1);
        for t in 0..10u64 {
            h.record(t, [(a, at(Vec3::ZERO))]);
        }
        h.record(20, [(a, at(Vec3::ZERO))]);
        assert_eq!(h.oldest_tick(), Some(20));
    }

    #[test]
    fn view_and_rewind_are_clamped_to_the_window() {
        // The spec's window: 32 ticks held, at most 31 rewound (≈517 ms).
        assert_eq!(HISTORY_TICKS, 32);
        assert_eq!(MAX_REWIND_TICKS, 31.0);
        assert_eq!(view_tick(100, Some(2.5)), 97.5);
        assert_eq!(view_tick(100, None), 100.0);
        assert_eq!(view_tick(100, Some(-3.0)), 100.0);
        assert_eq!(view_tick(100, Some(f64::NAN)), 100.0);
        assert_eq!(view_tick(100, Some(1e9)), 100.0 - MAX_VIEW_DELAY_TICKS);
        // Copies: their own value when the message carries one, else a tick per input back.
        assert_eq!(view_tick_of(100, &[2.5, 3.25], 1), 96.75);
        assert_eq!(view_tick_of(100, &[2.5, 3.25], 3), 94.5);
        assert_eq!(view_tick_of(100, &[], 2), 98.0);
        assert_eq!(rewind_ticks(110, 97.5), 12.5);
        assert_eq!(rewind_ticks(1000, 97.5), MAX_REWIND_TICKS);
        assert_eq!(rewind_ticks(90, 97.5), 0.0, "a view in the future");
        assert_eq!(rewind_ticks(90, f64::NAN), 0.0);
    }

    #[test]
    fn the_ray_hits_the_target_where_the_shooter_saw_it() {
        let mut h = TransformHistory::new(64);
        let mut w = Live::default();
        let target = id(1, 1);
        w.set(SHOOTER, Vec3::new(0.0, 0.0, 5000.0));
        // Crossing at 250 m/s along +X.
        let pos = |t: u64| Vec3::new(250.0 / 60.0 * t as f64, 1000.0, 0.0);
        for t in 0..=60 {
            w.set(target, pos(t));
            w.record(&mut h, t);
        }
        // The shooter saw tick 48.5 (11.5 ticks ago).
        let seen = (pos(48) + pos(49)) * 0.5;
        let hit = w.hit(&h, &shot_at(seen), 11.5, SHOOTER).expect("hit");
        assert_eq!(hit.entity, target);
        assert!(hit.rewound);
        assert!((hit.centre - seen).length() < 1e-9);
        assert!((hit.distance_m - 995.0).abs() < 1e-9, "{}", hit.distance_m);
        // Without the rewind the target is 48 m further on: a miss.
        assert_eq!(w.hit(&h, &shot_at(seen), 0.0, SHOOTER), None);
        // A shot off by a metre lands a metre off the centre.
        let off = w
            .hit(&h, &shot_at(seen + Vec3::new(1.0, 0.0, 0.0)), 11.5, SHOOTER)
            .expect("hit");
        assert!(((off.point - off.centre).x - 1.0).abs() < 1e-9);
    }

    #[test]
    fn never_further_back_than_the_window() {
        let mut h = TransformHistory::new(64);
        let mut w = Live::default();
        let target = id(1, 1);
        w.set(SHOOTER, Vec3::new(0.0, 0.0, 5000.0));
        let a = Vec3::new(0.0, 1000.0, 0.0);
        // At A until tick 10, then 1 km away for good.
        for t in 0..=80 {
            w.set(
                target,
                if t <= 10 {
                    a
                } else {
                    Vec3::new(1000.0, 1000.0, 0.0)
                },
            );
            w.record(&mut h, t);
            // Shooting at A with the view it would have had of tick 10.
            let hit = w.hit(&h, &shot_at(a), t as f64 - 10.0, SHOOTER);
            if t <= 10 + MAX_REWIND_TICKS as u64 {
                assert_eq!(hit.map(|h| h.entity), Some(target), "tick {t}");
            } else {
                assert_eq!(
                    hit,
                    None,
                    "tick {t}: the target left A {} ticks ago",
                    t - 10
                );
            }
        }
    }

    #[test]
    fn a_recycled_slot_is_not_hit_through_history_and_a_newcomer_is_tested_where_it_is() {
        let mut h = TransformHistory::new(64);
        let mut w = Live::default();
        let old = id(1, 1);
        let a = Vec3::new(0.0, 1000.0, 0.0);
        let b = Vec3::new(500.0, 1000.0, 0.0);
        for t in 0..=20 {
            w.set(old, a);
            w.record(&mut h, t);
        }
        // The slot is recycled at tick 21: a new generation, somewhere else.
        let new = id(1, 2);
        for t in 21..=30 {
            w.set(new, b);
            w.record(&mut h, t);
        }
        // A shooter who saw tick 15 aims at A: the old occupant's history must not answer
        // for the new one, which did not exist then and is tested where it is now.
        assert_eq!(w.hit(&h, &shot_at(a), 15.0, SHOOTER), None);
        let hit = w.hit(&h, &shot_at(b), 15.0, SHOOTER).expect("tested now");
        assert_eq!(hit.entity, new);
        assert!(!hit.rewound);
        // An entity spawned after the newest record is found too.
        let late = id(2, 1);
        let c = Vec3::new(-500.0, 1000.0, 0.0);
        w.set(late, c);
        h.note_spawn(late, c);
        assert_eq!(
            w.hit(&h, &shot_at(c), 15.0, SHOOTER).map(|h| h.entity),
            Some(late)
        );
    }

    #[test]
    fn the_broadphase_reaches_a_fast_target_where_it_was() {
        let mut h = TransformHistory::new(64);
        let mut w = Live::default();
        let target = id(3, 1);
        // 2000 m/s (the codec's cap): 33 m per tick, over 1 km in 31 ticks.
        let pos = |t: u64| Vec3::new(2000.0 / 60.0 * t as f64, 1000.0, 0.0);
        for t in 0..=40 {
            w.set(target, pos(t));
            w.record(&mut h, t);
        }
        let ray = Ray {
            origin: pos(10) + Vec3::new(0.0, 0.0, 300.0),
            dir: Vec3::new(0.0, 0.0, -1.0),
            range_m: 400.0,
        };
        let hit = w
            .hit(&h, &ray, 30.0, SHOOTER)
            .expect("found through the drift");
        assert_eq!(hit.entity, target);
    }

    #[test]
    fn the_shooter_never_hits_itself_and_the_nearest_target_wins() {
        let mut h = TransformHistory::new(64);
        let mut w = Live::default();
        let near = id(1, 1);
        let far = id(2, 1);
        let origin = Vec3::new(0.0, 1000.0, 1000.0);
        w.set(SHOOTER, origin);
        w.set(far, Vec3::new(0.0, 1000.0, 0.0));
        w.set(near, Vec3::new(0.0, 1000.0, 500.0));
        w.record(&mut h, 0);
        let ray = Ray {
            origin,
            dir: Vec3::new(0.0, 0.0, -1.0),
            range_m: 2000.0,
        };
        let hit = w.hit(&h, &ray, 0.0, SHOOTER).expect("hit");
        assert_eq!(hit.entity, near);
        // Out of range.
        let short = Ray {
            range_m: 400.0,
            ..ray
        };
        assert_eq!(w.hit(&h, &short, 0.0, SHOOTER), None);
        // Hostile rays hit nothing.
        for bad in [
            Ray {
                dir: Vec3::ZERO,
                ..ray
            },
            Ray {
                origin: Vec3::new(f64::NAN, 0.0, 0.0),
                ..ray
            },
            Ray {
                range_m: f64::INFINITY,
                ..ray
            },
            Ray {
                range_m: -1.0,
                ..ray
            },
        ] {
            assert_eq!(w.hit(&h, &bad, 0.0, SHOOTER), None, "{bad:?}");
        }
        // A radius of 0 or NaN is not a target.
        for r in [0.0, -1.0, f64::NAN] {
            let none = h.ray_hits(&ray, 0.0, SHOOTER, 10.0, |i| w.0.get(&i).copied(), |_| r);
            assert_eq!(none, None, "radius {r}");
        }
    }
}

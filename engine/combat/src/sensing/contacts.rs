//! Contacts: what one observer believes is out there, kept between checks.
//!
//! [`Sensing`] is the small per-entity state the server keeps; each check it runs `detect` for
//! every (sensor, target) pair and advances one `track` state machine per pair (dice gate
//! acquisition, geometry maintains), then merges them per target into [`Contact`]s.
//!
//! Cost: a target out of every sensor's reach is skipped on a squared distance; terrain is
//! marched once per target per check, only where it can matter (a held target, or one whose
//! acquisition die just passed), and a held target's clear verdict and a lost target's blocked
//! verdict are kept for [`SensingLimits::los_recheck_checks`] checks.
//!
//! Radar modes (the wire's `MsgClientInput::radarMode`) govern emitting radars only; passive
//! sensors (IRST, eyeball) and receivers (SARH seekers) are unaffected:
//! * **Silent** — nothing radiates (lasers included); emitting sensors' tracks drop at once.
//! * **Search** — bearing and range (Detected), never a lock; locks fall back to Detected.
//! * **TWS** — search plus soft locks on up to [`SensingLimits::tws_max_locks`] targets; not
//!   firing-quality. The mode a radar boots in.
//! * **STT** — the radar looks only at the designated target and holds a firing-quality lock on
//!   it; other radar contacts coast out. Without a designation it scans like Search and designates
//!   the nearest radar contact it holds, which the next check tries to lock; when the radar loses
//!   the designated target's track the designation clears (break-lock). A target designated from
//!   the datalink that the radar has not found yet stays designated until the caller changes it.
//!
//! Must not: read the clock, iterate a hash map, or see any target the caller did not hand it.
//! Output order is by target id, whatever order the targets came in.

use super::detect::{
    CheckTime, EntityId, Gates, Observer, SensingWorld, SlotView, Target, detection_roll, prepare,
    visible,
};
use super::spec::{SensorKind, SensorSpec, Signatures};
use super::track::{
    BadRadarMode, ContactState, Observation, RADAR_MODE_KEEP, RadarMode, SlotTrack, step_track,
};
use fl_flight::math::Vec3;

/// Most sensors one observer's suite may have (slots beyond are ignored).
pub const MAX_SENSORS: usize = 16;

/// What one observer holds on one target, merged over its sensors. Positions are last-known:
/// where the target was when last seen, not where it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// The target.
    pub target: EntityId,
    /// The strongest state any sensor holds it in.
    pub state: ContactState,
    /// Kinds of sensor holding it (`1 << SensorKind`), coasting ones included.
    pub kinds: u8,
    /// Kinds of *emitting* sensor that saw it this check (Detected or Locked): what its radar
    /// warning receiver hears from this observer. 0 for passive sensing.
    pub painting: u8,
    /// A firing-quality lock (STT on this target).
    pub firing_quality: bool,
    /// Last-known world position, m.
    pub position: Vec3,
    /// Last-known world velocity, m/s.
    pub velocity: Vec3,
    /// Range when last seen, m.
    pub range_m: f64,
    /// Tick of first detection (the earliest over its sensors).
    pub first_detected_tick: u64,
    /// Tick it was last seen.
    pub last_seen_tick: u64,
}

/// Bounds on one observer's picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SensingLimits {
    /// Most targets held at once; beyond, the weakest and farthest are dropped (a designated
    /// target never is).
    pub max_contacts: usize,
    /// Most targets a TWS radar soft-locks at once.
    pub tws_max_locks: usize,
    /// A held, seen target's line of sight is marched on one check in this many and reused on
    /// the others (1: every check). Terrain is most of a check's cost; at 3 and a 10 Hz cadence a
    /// held target that slips behind a ridge starts its coast within 0.3 s. A target no sensor
    /// saw on the previous check is always marched (so is every acquisition of a new target).
    pub los_recheck_checks: u8,
}

impl Default for SensingLimits {
    fn default() -> Self {
        Self {
            max_contacts: 32,
            tws_max_locks: 10,
            los_recheck_checks: 3,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    target: EntityId,
    slot: u8,
    track: SlotTrack,
    position: Vec3,
    velocity: Vec3,
    range_m: f64,
    visited: bool,
    /// Checks left on which a held target's last clear line of sight is reused (see
    /// [`SensingLimits::los_recheck_checks`]).
    los_skip: u8,
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    target: EntityId,
    slot: u8,
    /// Index into `tracks` (existing entry) or `None` (new).
    entry: Option<usize>,
    obs: Observation,
    position: Vec3,
    velocity: Vec3,
    range_m: f64,
    los_skip: u8,
}

#[derive(Debug, Clone, Copy)]
struct SlotGate {
    view: SlotView,
    gates: Gates,
    /// STT: the only target this radar looks at.
    only: Option<EntityId>,
    /// Silent: this sensor's tracks drop at once.
    dark: bool,
    /// TWS lock capacity applies.
    capped: bool,
    coast_s: f64,
    /// Squared reach against a baseline target (before signature): the per-target pre-gate.
    reach2: f64,
    kind: SensorKind,
}

/// One observer's sensing state: radar mode, designation, tracks and the merged contacts.
#[derive(Debug, Clone)]
pub struct Sensing {
    mode: RadarMode,
    designated: Option<EntityId>,
    notch_factor: f64,
    limits: SensingLimits,
    /// Sorted by (target, slot).
    tracks: Vec<Entry>,
    /// Sorted by target.
    contacts: Vec<Contact>,
    pending: Vec<Pending>,
    fresh: Vec<Entry>,
    /// (range, target, slot, pending index) of would-be TWS locks.
    candidates: Vec<(f64, EntityId, u8, usize)>,
    /// The targets of `tracks`, in order: a compact copy for the per-target search.
    keys: Vec<EntityId>,
    /// Targets not seen last check whose line of sight was found blocked, with the checks left
    /// on which that verdict stands (sorted by target; see `los_recheck_checks`).
    masked: Vec<(EntityId, u8)>,
    masked_next: Vec<(EntityId, u8)>,
    /// When the picture is full, the farthest contact's range: a target not yet held beyond it
    /// would be dropped by the cap at once, so it is not looked for (no die, no march).
    saturated_beyond_m: f64,
}

impl Default for Sensing {
    fn default() -> Self {
        Self::new(SensingLimits::default())
    }
}

impl Sensing {
    /// An observer with nothing held, its radar in TWS (the mode a radar boots in).
    pub fn new(limits: SensingLimits) -> Self {
        Self {
            mode: RadarMode::Tws,
            designated: None,
            notch_factor: 1.0,
            limits,
            tracks: Vec::new(),
            contacts: Vec::new(),
            pending: Vec::new(),
            fresh: Vec::new(),
            candidates: Vec::new(),
            keys: Vec::new(),
            masked: Vec::new(),
            masked_next: Vec::new(),
            saturated_beyond_m: f64::INFINITY,
        }
    }

    /// The radar mode.
    pub fn mode(&self) -> RadarMode {
        self.mode
    }

    /// Sets the radar mode; takes effect at the next check.
    pub fn set_mode(&mut self, mode: RadarMode) {
        self.mode = mode;
    }

    /// Applies a `MsgClientInput::radarMode` byte: 0–3 set the mode, 255 keeps it; anything else
    /// is refused without effect.
    pub fn apply_mode_byte(&mut self, v: u8) -> Result<(), BadRadarMode> {
        if v == RADAR_MODE_KEEP {
            return Ok(());
        }
        let mode = RadarMode::from_wire(v).ok_or(BadRadarMode(v))?;
        self.mode = mode;
        Ok(())
    }

    /// The STT target (may name a contact in other modes too, for a HUD).
    pub fn designated(&self) -> Option<EntityId> {
        self.designated
    }

    /// Designates the STT target (a contact the player or AI chose; `None` clears).
    pub fn designate(&mut self, target: Option<EntityId>) {
        self.designated = target;
    }

    /// Scales every pulse-doppler notch of this observer's sensors (a seeker's
    /// `notch_susceptibility`; 1 for aircraft and ground sensors).
    pub fn set_notch_factor(&mut self, f: f64) {
        self.notch_factor = f;
    }

    /// The merged contacts, sorted by target.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// The contact on one target.
    pub fn contact(&self, target: EntityId) -> Option<&Contact> {
        self.contacts
            .binary_search_by_key(&target, |c| c.target)
            .ok()
            .map(|i| &self.contacts[i])
    }

    /// The firing-quality lock, if any (what a SARH shot needs from its launcher).
    pub fn firing_quality_lock(&self) -> Option<&Contact> {
        self.contacts.iter().find(|c| c.firing_quality)
    }

    /// One sensor's track on a target (for seekers and tests).
    pub fn track(&self, target: EntityId, slot: u8) -> Option<SlotTrack> {
        self.find(target, slot).ok().map(|i| self.tracks[i].track)
    }

    /// Drops everything held (the suite changed, avionics failed): re-acquisition is honest.
    pub fn clear(&mut self) {
        self.tracks.clear();
        self.contacts.clear();
        self.masked.clear();
        self.saturated_beyond_m = f64::INFINITY;
        self.designated = None;
    }

    /// Forgets a target that left the world.
    pub fn forget(&mut self, target: EntityId) {
        self.tracks.retain(|e| e.target != target);
        self.contacts.retain(|c| c.target != target);
        self.masked.retain(|m| m.0 != target);
        if self.designated == Some(target) {
            self.designated = None;
        }
    }

    fn find(&self, target: EntityId, slot: u8) -> Result<usize, usize> {
        self.tracks
            .binary_search_by(|e| (e.target, e.slot).cmp(&(target, slot)))
    }

    /// Runs one check: every sensor of `sensors` (slot = index) against every target of `targets`
    /// (the observer itself and duplicates are skipped). Targets held but not handed in this time
    /// are treated as unseen (they coast). Deterministic whatever the order of `targets`.
    pub fn check(
        &mut self,
        sensors: &[SensorSpec],
        observer: &Observer,
        targets: &[Target],
        world: &SensingWorld<'_>,
        time: &CheckTime,
    ) {
        let dt = if time.interval_s.is_finite() {
            time.interval_s.max(0.0)
        } else {
            0.0
        };
        let sensors = &sensors[..sensors.len().min(MAX_SENSORS)];
        let stt_target = match self.mode {
            RadarMode::Stt => self.designated,
            _ => None,
        };
        let mut gates_buf = [None; MAX_SENSORS];
        for (g, spec) in gates_buf.iter_mut().zip(sensors) {
            let governed = spec.mode_governed();
            let emitting = !spec.emitter || self.mode.emits();
            let track_allowed = !governed
                || match self.mode {
                    RadarMode::Tws => true,
                    RadarMode::Stt => stt_target.is_some(),
                    RadarMode::Silent | RadarMode::Search => false,
                };
            let view = SlotView::new(spec, observer, world);
            let mut reach = view.reach_m;
            if spec.kind == SensorKind::Radar {
                let f = world.env.radar_range_fraction;
                reach *= if f.is_nan() { 1.0 } else { f.clamp(0.0, 1.0) };
            }
            *g = Some(SlotGate {
                view,
                gates: Gates {
                    emitting,
                    track_allowed,
                    notch_factor: self.notch_factor,
                },
                only: if governed { stt_target } else { None },
                dark: spec.emitter && !emitting,
                capped: governed && self.mode == RadarMode::Tws,
                coast_s: spec.coast_s(),
                reach2: reach * reach,
                kind: spec.kind,
            });
        }
        let gates = &gates_buf[..sensors.len()];
        // The per-target pre-gate's inputs, compact (a gate is a few hundred bytes).
        let mut reach = [(0.0, SensorKind::Visual); MAX_SENSORS];
        for (r, g) in reach.iter_mut().zip(gates.iter().flatten()) {
            *r = (g.reach2, g.kind);
        }

        let radar_held_before = self
            .designated
            .is_some_and(|d| self.radar_holds(sensors, d));
        for e in &mut self.tracks {
            e.visited = false;
        }
        self.keys.clear();
        self.keys.extend(self.tracks.iter().map(|e| e.target));
        self.masked_next.clear();
        self.pending.clear();
        self.fresh.clear();

        // Phase 1: observe (no track changes, so the order of `targets` cannot matter).
        let recheck = self.limits.los_recheck_checks.max(1);
        for t in targets {
            if t.id == observer.id {
                continue;
            }
            // Out of every sensor's reach (or not a finite distance): nothing to look at. A held
            // target skipped here is stepped as unseen with the ones not handed in.
            let d = t.position - observer.position;
            let d2 = d.dot(d);
            if !reach[..sensors.len()]
                .iter()
                .any(|&(r2, kind)| within_reach(r2, kind, d2, &t.signatures))
            {
                continue;
            }
            // This target's entries (one per slot holding it) are contiguous.
            let lo = self.keys.partition_point(|k| *k < t.id);
            let hi = lo + self.keys[lo..].iter().take_while(|k| **k == t.id).count();
            if self.tracks[lo..hi].iter().any(|e| e.visited) {
                continue; // a duplicate target in the list: its first listing counts
            }
            let mut reuse = false;
            let mut seen_last = false;
            for e in &mut self.tracks[lo..hi] {
                e.visited = true;
                let seen = matches!(e.track.state, ContactState::Detected | ContactState::Locked);
                seen_last |= seen;
                reuse |= seen && e.los_skip > 0;
            }
            // A recent "blocked" for a target not seen last check stands for a few checks too.
            let blocked_left = if seen_last {
                0
            } else {
                self.masked
                    .binary_search_by_key(&t.id, |m| m.0)
                    .map_or(0, |i| self.masked[i].1)
            };
            // One terrain march per target per check, shared by the suite's sensors.
            let mut los = if reuse {
                Some(true)
            } else if blocked_left > 0 {
                Some(false)
            } else {
                None
            };
            // A full picture does not look for new targets beyond its farthest contact (they
            // would be capped away at once) — except the one designated for STT.
            let saturated = if hi > lo || self.designated == Some(t.id) {
                f64::INFINITY
            } else {
                self.saturated_beyond_m
            };
            let first_pending = self.pending.len();
            for (slot, (spec, gate)) in sensors.iter().zip(gates).enumerate() {
                let Some(gate) = gate else { continue };
                let slot = slot as u8;
                let entry = (lo..hi).find(|&i| self.tracks[i].slot == slot);
                let held = entry.is_some_and(|i| self.tracks[i].track.state.held());
                let obs = if gate.dark || gate.only.is_some_and(|only| only != t.id) {
                    None
                } else {
                    observe(
                        spec, gate, slot, held, saturated, observer, t, world, time, &mut los,
                    )
                };
                let (obs, range_m) = match obs {
                    Some(o) => o,
                    None if entry.is_some() => (Observation::default(), f64::NAN),
                    None => continue,
                };
                self.pending.push(Pending {
                    target: t.id,
                    slot,
                    entry,
                    obs,
                    position: t.position,
                    velocity: t.velocity,
                    range_m,
                    los_skip: 0,
                });
            }
            let skip = match (reuse, los) {
                (true, _) => self.tracks[lo..hi]
                    .iter()
                    .map(|e| e.los_skip)
                    .max()
                    .unwrap_or(0)
                    .saturating_sub(1),
                (false, Some(true)) => recheck - 1,
                (false, _) => 0,
            };
            if blocked_left > 1 {
                self.masked_next.push((t.id, blocked_left - 1));
            } else if blocked_left == 0 && los == Some(false) && !seen_last && recheck > 1 {
                self.masked_next.push((t.id, recheck - 1));
            }
            for e in &mut self.tracks[lo..hi] {
                e.los_skip = skip;
            }
            for p in &mut self.pending[first_pending..] {
                p.los_skip = skip;
            }
        }

        // Phase 2a: TWS capacity. New soft locks are granted nearest first (ties by target), so
        // who gets one does not depend on the order targets came in; everything else below is
        // per-track and order-free.
        let room = self
            .limits
            .tws_max_locks
            .saturating_sub(count_capped_locks(&self.tracks, gates));
        self.candidates.clear();
        for (k, p) in self.pending.iter().enumerate() {
            let Some(gate) = gates[usize::from(p.slot)] else {
                continue;
            };
            let prev = p.entry.map_or(SlotTrack::LOST, |i| self.tracks[i].track);
            if gate.capped && !gate.dark && !lock_held(&prev) {
                let mut obs = p.obs;
                obs.may_lock = true;
                if step_track(prev, &obs, gate.coast_s, dt, time.tick).state == ContactState::Locked
                {
                    self.candidates.push((p.range_m, p.target, p.slot, k));
                }
            }
        }
        self.candidates.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then(a.1.cmp(&b.1))
                .then(a.2.cmp(&b.2))
                .then(a.3.cmp(&b.3))
        });
        // A target listed twice must not spend the capacity twice.
        self.candidates.dedup_by(|b, a| (a.1, a.2) == (b.1, b.2));
        for &(_, _, _, k) in self.candidates.iter().take(room) {
            self.pending[k].obs.may_lock = true;
        }
        // Phase 2b: apply.
        for p in &self.pending {
            let Some(gate) = gates[usize::from(p.slot)] else {
                continue;
            };
            let prev = p.entry.map_or(SlotTrack::LOST, |i| self.tracks[i].track);
            let mut obs = p.obs;
            // Capped sensors lock only where 2a granted it; keeping a lock needs no grant.
            obs.may_lock |= !gate.capped;
            let next = if gate.dark {
                SlotTrack::LOST
            } else {
                step_track(prev, &obs, gate.coast_s, dt, time.tick)
            };
            let seen =
                next.last_seen_tick == time.tick && next.state.held() && p.range_m.is_finite();
            match p.entry {
                Some(i) => {
                    let e = &mut self.tracks[i];
                    e.track = next;
                    if seen {
                        e.position = p.position;
                        e.velocity = p.velocity;
                        e.range_m = p.range_m;
                    }
                }
                None if next.state.held() => self.fresh.push(Entry {
                    target: p.target,
                    slot: p.slot,
                    track: next,
                    position: p.position,
                    velocity: p.velocity,
                    range_m: p.range_m,
                    visited: true,
                    los_skip: p.los_skip,
                }),
                None => {}
            }
        }

        // Held but not handed in, or a slot that no longer exists: unseen.
        for e in &mut self.tracks {
            if e.visited {
                continue;
            }
            match gates.get(usize::from(e.slot)).copied().flatten() {
                Some(g) if !g.dark => {
                    e.track =
                        step_track(e.track, &Observation::default(), g.coast_s, dt, time.tick);
                }
                _ => e.track = SlotTrack::LOST,
            }
        }
        self.tracks.retain(|e| e.track.state.held());
        self.tracks.append(&mut self.fresh);
        self.tracks.sort_by_key(|e| (e.target, e.slot));
        // Belt and braces: one entry per (target, slot) whatever came in.
        self.tracks
            .dedup_by(|a, b| (a.target, a.slot) == (b.target, b.slot));

        self.masked_next.sort_by_key(|m| m.0);
        self.masked_next.dedup_by_key(|m| m.0);
        std::mem::swap(&mut self.masked, &mut self.masked_next);

        self.maintain_designation(sensors, radar_held_before, time.tick);
        self.rebuild_contacts(sensors, gates);
    }

    /// Whether an emitting radar of the suite holds `target`.
    fn radar_holds(&self, sensors: &[SensorSpec], target: EntityId) -> bool {
        self.tracks.iter().any(|e| {
            e.target == target
                && sensors
                    .get(usize::from(e.slot))
                    .is_some_and(SensorSpec::mode_governed)
        })
    }

    /// STT bookkeeping after a check: a designated target the radar held before this check and
    /// no longer holds is released (break-lock; a target designated from the datalink that the
    /// radar has not found yet stays designated); STT without a designation picks the nearest
    /// radar contact seen this check.
    fn maintain_designation(&mut self, sensors: &[SensorSpec], held_before: bool, tick: u64) {
        let radar_held = |e: &Entry| {
            sensors
                .get(usize::from(e.slot))
                .is_some_and(SensorSpec::mode_governed)
        };
        if let Some(d) = self.designated
            && self.mode == RadarMode::Stt
            && held_before
            && !self.radar_holds(sensors, d)
        {
            self.designated = None;
        }
        if self.mode == RadarMode::Stt && self.designated.is_none() {
            self.designated = self
                .tracks
                .iter()
                .filter(|e| radar_held(e) && e.track.last_seen_tick == tick)
                .min_by(|a, b| {
                    a.range_m
                        .total_cmp(&b.range_m)
                        .then(a.target.cmp(&b.target))
                })
                .map(|e| e.target);
        }
    }

    fn rebuild_contacts(&mut self, sensors: &[SensorSpec], gates: &[Option<SlotGate>]) {
        self.contacts.clear();
        let stt = match self.mode {
            RadarMode::Stt => self.designated,
            _ => None,
        };
        for e in &self.tracks {
            let Some(spec) = sensors.get(usize::from(e.slot)) else {
                continue;
            };
            let emitting = gates
                .get(usize::from(e.slot))
                .copied()
                .flatten()
                .is_some_and(|g| spec.emitter && g.gates.emitting);
            let observed = matches!(e.track.state, ContactState::Detected | ContactState::Locked);
            let fq = spec.mode_governed()
                && e.track.state == ContactState::Locked
                && stt == Some(e.target);
            let fresh_fix = e.track.last_seen_tick;
            match self.contacts.last_mut() {
                Some(c) if c.target == e.target => {
                    if e.track.state.rank() > c.state.rank() {
                        c.state = e.track.state;
                    }
                    c.kinds |= spec.kind.bit();
                    if emitting && observed {
                        c.painting |= spec.kind.bit();
                    }
                    c.firing_quality |= fq;
                    c.first_detected_tick = c.first_detected_tick.min(e.track.first_detected_tick);
                    if fresh_fix > c.last_seen_tick {
                        c.last_seen_tick = fresh_fix;
                        c.position = e.position;
                        c.velocity = e.velocity;
                        c.range_m = e.range_m;
                    }
                }
                _ => self.contacts.push(Contact {
                    target: e.target,
                    state: e.track.state,
                    kinds: spec.kind.bit(),
                    painting: if emitting && observed {
                        spec.kind.bit()
                    } else {
                        0
                    },
                    firing_quality: fq,
                    position: e.position,
                    velocity: e.velocity,
                    range_m: e.range_m,
                    first_detected_tick: e.track.first_detected_tick,
                    last_seen_tick: fresh_fix,
                }),
            }
        }
        let max = self.limits.max_contacts;
        if self.contacts.len() > max {
            // Keep the designated target, then the strongest, nearest; ties by id.
            let designated = self.designated;
            let mut order: Vec<(bool, u8, f64, EntityId)> = self
                .contacts
                .iter()
                .map(|c| {
                    (
                        Some(c.target) == designated,
                        c.state.rank(),
                        c.range_m,
                        c.target,
                    )
                })
                .collect();
            order.sort_by(|a, b| {
                b.0.cmp(&a.0)
                    .then(b.1.cmp(&a.1))
                    .then(a.2.total_cmp(&b.2))
                    .then(a.3.cmp(&b.3))
            });
            let mut keep: Vec<EntityId> = order.iter().take(max).map(|o| o.3).collect();
            keep.sort();
            self.contacts
                .retain(|c| keep.binary_search(&c.target).is_ok());
            self.tracks
                .retain(|e| keep.binary_search(&e.target).is_ok());
        }
        self.saturated_beyond_m = if self.contacts.len() >= max {
            self.contacts
                .iter()
                .map(|c| c.range_m)
                .filter(|r| r.is_finite())
                .fold(0.0, f64::max)
        } else {
            f64::INFINITY
        };
    }
}

/// Whether a target at squared distance `d2` with these signatures can be within a sensor's
/// reach (√rcs for radar, so its square is rcs itself: no root per target). NaN is never.
#[inline]
fn within_reach(reach2: f64, kind: SensorKind, d2: f64, sig: &Signatures) -> bool {
    let s = sig.for_kind(kind);
    if !(s > 0.0 && s.is_finite()) {
        return false;
    }
    let scale2 = if kind == SensorKind::Radar { s } else { s * s };
    d2 <= reach2 * scale2
}

/// Whether a track holds (or is coasting on) a lock.
fn lock_held(t: &SlotTrack) -> bool {
    t.state == ContactState::Locked || (t.state == ContactState::Coasting && t.coast_from_lock)
}

/// TWS soft locks held now, coasting ones included (distinct targets), by capped sensors.
fn count_capped_locks(tracks: &[Entry], gates: &[Option<SlotGate>]) -> usize {
    let mut n = 0;
    let mut last = None;
    for e in tracks {
        let capped = gates
            .get(usize::from(e.slot))
            .copied()
            .flatten()
            .is_some_and(|g| g.capped);
        if capped && lock_held(&e.track) && last != Some(e.target) {
            n += 1;
            last = Some(e.target);
        }
    }
    n
}

/// One sensor's observation of one target, with terrain sampled only where it can matter: a
/// target not yet held is only marched to when its acquisition die has already passed.
/// `None`: not in any lobe (or not visible at all).
#[allow(clippy::too_many_arguments)]
fn observe(
    spec: &SensorSpec,
    gate: &SlotGate,
    slot: u8,
    held: bool,
    saturated_beyond_m: f64,
    observer: &Observer,
    target: &Target,
    world: &SensingWorld<'_>,
    time: &CheckTime,
    los: &mut Option<bool>,
) -> Option<(Observation, f64)> {
    let p = prepare(
        spec,
        &gate.view,
        observer,
        target,
        world,
        &gate.gates,
        time.interval_s,
    )
    .ok()?;
    if !held && p.range_m > saturated_beyond_m {
        return None;
    }
    let roll = |track: bool, pod: f64| {
        detection_roll(
            world.seed,
            time.tick,
            observer.id,
            target.id,
            slot,
            track,
            pod,
        )
    };
    let search_roll = p.search_in && roll(false, p.search_pod);
    let track_roll = p.track_in && roll(true, p.track_pod);
    if !held && !search_roll {
        // Acquisition failed: whatever the terrain, nothing changes.
        return None;
    }
    if !*los.get_or_insert_with(|| visible(world, observer.position, target.position)) {
        return None;
    }
    Some((
        Observation {
            search_seen: p.search_in,
            track_seen: p.track_in,
            search_roll,
            track_roll,
            // Granted per sensor by the check (TWS capacity).
            may_lock: false,
        },
        p.range_m,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_bytes() {
        let mut s = Sensing::default();
        assert_eq!(s.mode(), RadarMode::Tws);
        assert_eq!(s.apply_mode_byte(3), Ok(()));
        assert_eq!(s.mode(), RadarMode::Stt);
        assert_eq!(s.apply_mode_byte(255), Ok(()));
        assert_eq!(s.mode(), RadarMode::Stt);
        assert_eq!(s.apply_mode_byte(4), Err(BadRadarMode(4)));
        assert_eq!(s.apply_mode_byte(254), Err(BadRadarMode(254)));
        assert_eq!(s.mode(), RadarMode::Stt, "refused without effect");
        assert_eq!(s.apply_mode_byte(0), Ok(()));
        assert!(!s.mode().emits());
    }
}

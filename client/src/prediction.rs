//! `ClientPrediction`: the own aircraft, integrated locally with the very `fl-flight` step and
//! flight model the server uses, so the controls answer in the same frame whatever the ping.
//!
//! Ticks: a state "at tick N" is what a snapshot of `tickIndex` N carries — the state after
//! server step N − 1. Input `seq` is applied by server step `seq + offset`; a snapshot of tick N
//! that acknowledges input `a` (`SnapshotLastAckedSeqNum`) says input `a` was applied by step
//! N − 1, so `offset = N − 1 − a`, and every later input follows one step apart.
//!
//! On each snapshot: reset to the server's exact state (`SnapshotOwnState`; the quantized record
//! only when it is absent), replay exactly the inputs whose seqNum is newer than the acked one
//! at their server ticks, with the wind and turbulence of the weather window the server used on
//! each tick (the delay-ticks window is only the fallback when the ack TLV is absent). The state
//! the history predicted for the acked input is compared bit for bit with the server's: that is
//! the correction. The latest predicted pose moves by the replay; a visual offset absorbs that
//! jump and decays exponentially with a configurable half-life (frame-rate independent). Only a
//! teleport (a jump beyond `snap_distance_m`) or a new own entity snaps.
//!
//! Owns the history ring (at least 128 inputs), the predicted states and the visual offset.
//! Deterministic: no clock, no hash maps, no randomness; the same inputs give the same bits.

use crate::geom::{angle, lerp, slerp};
use crate::session::{OwnEntity, OwnSnapshot};
use crate::stats::Samples;
use crate::weather::WeatherTimeline;
use fl_combat::own::{Intent, OwnCombat};
use fl_flight::env::WindField;
use fl_flight::gravity::Planet;
use fl_flight::math::{Quat, Vec3};
use fl_flight::{AircraftModel, AircraftState, Controls, StepEnv};
use fl_protocol::ack::seq32_newer;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

/// The smallest history ring allowed.
pub const MIN_HISTORY: usize = 128;

/// Tuning.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionConfig {
    /// Inputs kept (at least [`MIN_HISTORY`]).
    pub history_ticks: usize,
    /// Half-life of the visual correction offset.
    pub visual_half_life: Duration,
    /// A correction that moves the predicted aircraft further than this is a teleport: snap.
    pub snap_distance_m: f64,
    /// After a (re)spawn the server's input buffer settles (priming, depth adaptation) and may
    /// move the input timeline; corrections this early are part of the spawn and snap.
    pub spawn_settle: Duration,
    /// The visual offset shrinks at most this fast (m/s): a large correction (after an outage)
    /// glides in at a speed an aircraft could fly instead of crossing the sky in a few frames.
    pub max_correction_speed_mps: f64,
    /// After an outage, corrections up to this far are blended (at most
    /// `max_correction_speed_mps`) instead of snapping at `snap_distance_m`.
    pub outage_blend_distance_m: f64,
    /// How long after an outage (in snapshot time, from the first reconcile after it) the
    /// stream may still be catching up (late snapshots queued during the outage, then the
    /// fresh ones): corrections in that window blend as the first one does.
    pub outage_recovery: Duration,
    /// A reconcile that moves the input → server-step mapping (the server's jitter buffer
    /// shifted its timeline) moves the newest predicted pose by whole ticks of flight although
    /// the aircraft, along server time, did not move: the drawn pose keeps its place and
    /// catches up at this fraction of the own speed (at least [`MIN_TIMELINE_CATCH_UP_MPS`]),
    /// like the input clock running 1.5 % fast, instead of gliding at the correction speed.
    pub timeline_catch_up: f64,
    /// Predict the own stores, expendables and damage from `SnapshotOwnState`'s combat words
    /// (off: fly the commanded controls with the snapshot's payload, as before format 2 — kept
    /// to measure what that costs).
    pub predict_combat: bool,
}

/// The slowest a timeline-shift offset is absorbed (a slow or parked aircraft), m/s.
pub const MIN_TIMELINE_CATCH_UP_MPS: f64 = 0.5;

/// A frame catches up at most this much time's worth of a timeline-shift offset: the catch-up
/// has no deadline, so a stalled frame (a busy machine) does not lump it into one visible
/// step; at 120 frames/s and faster nothing changes.
pub const TIMELINE_CATCH_UP_FRAME_CAP: Duration = Duration::from_nanos(1_000_000_000 / 120);

impl Default for PredictionConfig {
    fn default() -> Self {
        Self {
            history_ticks: 256,
            visual_half_life: Duration::from_millis(100),
            snap_distance_m: 25.0,
            spawn_settle: Duration::from_secs(1),
            max_correction_speed_mps: 60.0,
            outage_blend_distance_m: 2000.0,
            outage_recovery: Duration::from_secs(2),
            timeline_catch_up: 0.015,
            predict_combat: true,
        }
    }
}

#[derive(Debug, Clone)]
struct Entry {
    seq: u32,
    controls: Controls,
    /// What the input asked of fire control (the own stores' consumption).
    intent: Intent,
    /// The server step it is predicted to be applied by.
    step: Option<u64>,
    /// The predicted state after that step.
    after: Option<AircraftState>,
    /// Predicted from an exact server state with the server's wind on every step since.
    exact: bool,
}

/// What one reconciliation found and did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ReconcileReport {
    pub tick: u64,
    /// A prediction for the acknowledged input existed and was compared.
    pub compared: bool,
    /// That prediction was made from an exact server state with known wind.
    pub exact_basis: bool,
    /// It equalled the server's state bit for bit.
    pub bit_exact: bool,
    /// Which parts of the state differed and by how much.
    pub diff: StateDiff,
    /// The server's state is exactly the previous input flown once more in the acked input's
    /// slot: the server concealed that input (lost, or late for its slot) with a repeat.
    pub repeat_explained: bool,
    /// Position error of that prediction, m.
    pub error_m: f64,
    /// How far the latest predicted position moved (absorbed by the visual offset), m.
    pub jump_m: f64,
    pub replayed: usize,
    /// No `SnapshotLastAckedSeqNum`: the delay-ticks window was replayed.
    pub fallback: bool,
    /// How far this reconcile moved the input → server-step mapping, ticks (0: not at all).
    pub shift_ticks: i64,
    /// The server state came from the quantized record (no usable `SnapshotOwnState`).
    pub quantized: bool,
    pub snapped: bool,
    /// Within the spawn-settle window (not counted in the correction statistics).
    pub settling: bool,
    /// The first reconcile after an outage (its jump is blended, not snapped).
    pub after_outage: bool,
}

/// Counters and distributions.
#[derive(Debug, Clone, Default)]
pub struct PredictionStats {
    pub reconciles: u64,
    /// Compares made while the spawn settled (excluded from everything below).
    pub settle_compares: u64,
    /// Predictions for an acknowledged input compared with the server's state.
    pub compared: u64,
    pub exact_basis_compares: u64,
    /// Compared predictions that differed from the server in any bit.
    pub corrections: u64,
    /// Of those, the ones whose prediction had an exact basis.
    pub exact_basis_corrections: u64,
    /// Position error of every compared prediction, m.
    pub correction_m: Samples,
    /// The corrections split by what differed (one correction may count in several parts).
    pub pose: PartCorrections,
    pub velocity: PartCorrections,
    pub other: PartCorrections,
    /// Corrections whose server state is exactly the previous input repeated in the acked
    /// input's slot (the server concealed a lost or late input): the prediction was right for
    /// the input sent, the server flew another.
    pub repeat_corrections: u64,
    /// Per state word (`AircraftState::to_words` order, see [`WORD_NAMES`]): how many
    /// corrections it differed in.
    pub word_corrections: [u64; AircraftState::WORDS],
    /// Latest-pose jump per reconcile, m.
    pub jump_m: Samples,
    /// Inputs replayed per reconcile.
    pub replayed: Samples,
    pub fallback_reconciles: u64,
    pub quantized_resets: u64,
    /// Snaps for a teleport or a new own entity.
    pub snaps: u64,
    /// Corrections snapped while the spawn settled.
    pub settle_snaps: u64,
    pub inputs: u64,
    /// Reconciles that moved the input → server-step mapping (a repeat or skip on the server).
    pub timeline_shifts: u64,
    /// The sum of those shifts in ticks (positive: inputs land later).
    pub timeline_shift_ticks: i64,
    /// Reconciles after an outage, and the largest jump they blended, m.
    pub outage_reconciles: u64,
    pub outage_jump_max_m: f64,
}

/// The own aircraft's pose for rendering.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OwnPose {
    pub position: Vec3,
    /// Engine-body → world.
    pub orientation: Quat,
    pub velocity: Vec3,
    /// Fractional server tick the pose stands for (state-tick convention).
    pub render_tick: f64,
    /// The visual offset included in `position`.
    pub visual_offset: Vec3,
}

/// The predictor.
#[derive(Debug)]
pub struct ClientPrediction {
    cfg: PredictionConfig,
    planet: Planet,
    /// The ground, from the client's content stack (the same files as the server's: a join
    /// with other terrain is refused), so ground contact predicts to the bit.
    floor: fl_terrain::Terrain,
    model: Option<Arc<AircraftModel>>,
    entity: Option<OwnEntity>,
    history: VecDeque<Entry>,
    offset: Option<i64>,
    current: Option<AircraftState>,
    /// The own combat state predicted alongside `current` (stores, damage), from the last
    /// format-2 `SnapshotOwnState`; `None`: fly the commanded controls, payload unchanged.
    combat: Option<OwnCombat>,
    /// State tick of `current`.
    current_tick: Option<u64>,
    previous: Option<AircraftState>,
    chain_exact: bool,
    /// Snapshot tick of the first reconcile of this entity.
    first_tick: Option<u64>,
    visual_pos: Vec3,
    visual_rot: Quat,
    /// The part of the position offset that a timeline shift made (see
    /// `PredictionConfig::timeline_catch_up`); drawn with `visual_pos`, absorbed slower.
    shift_pos: Vec3,
    /// Its rotation, absorbed with the same fraction per frame as `shift_pos`.
    shift_rot: Quat,
    /// The server's state of the last reconcile and the input it acked.
    last_base: Option<(u32, AircraftState)>,
    /// The slot last found served by a repeat, and the controls repeated (a run of late inputs
    /// repeats the same last input in every slot).
    last_repeat: Option<(u32, Controls)>,
    /// The prediction stands on the server's timeline (a reconcile with the server's ack of
    /// one of our inputs): before that the input → step mapping is a guess and nothing is drawn.
    anchored: bool,
    /// The next reconcile follows an outage: blend its jump whatever its size (up to
    /// `outage_blend_distance_m`).
    after_outage: bool,
    /// Reconciles of snapshot ticks before this one are still recovering from an outage.
    recovering_until: Option<u64>,
    pub stats: PredictionStats,
}

/// The name of each word of `AircraftState::to_words`, in order (summaries and logs).
pub const WORD_NAMES: [&str; AircraftState::WORDS] = [
    "position.x",
    "position.y",
    "position.z",
    "velocity.x",
    "velocity.y",
    "velocity.z",
    "body_rates.x",
    "body_rates.y",
    "body_rates.z",
    "orientation.w",
    "orientation.x",
    "orientation.y",
    "orientation.z",
    "fuel_kg",
    "payload_kg",
    "payload_cd0",
    "spool",
    "afterburner",
    "gear",
    "speedbrake",
    "flaps",
    "sweep_deg",
    "nozzle_rad",
    "surfaces.x",
    "surfaces.y",
    "surfaces.z",
    "specific_force.x",
    "specific_force.y",
    "specific_force.z",
    "wheels_on_ground",
    "belly_contact",
    "crashed",
];

/// Words of the pose: position (0–2) and orientation (9–12).
fn is_pose_word(i: usize) -> bool {
    i < 3 || (9..13).contains(&i)
}

/// Words of the velocities: linear (3–5) and angular (6–8).
fn is_velocity_word(i: usize) -> bool {
    (3..9).contains(&i)
}

/// How a predicted state differed from the server's, split into the pose, the velocities and
/// the rest of the flight state (fuel, engine, actuators, surfaces, specific force, contact).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StateDiff {
    /// Bit mask of the differing words (`1 << word index`).
    pub words: u64,
    /// Position error, m.
    pub position_m: f64,
    /// Orientation error, rad.
    pub orientation_rad: f64,
    /// Linear velocity error, m/s.
    pub velocity_mps: f64,
    /// Angular velocity (body rates) error, rad/s.
    pub body_rates_rps: f64,
    /// The largest absolute difference among the other words (each in its own unit).
    pub other_max: f64,
    /// The word with that largest difference.
    pub other_word: Option<usize>,
}

impl StateDiff {
    /// Compares every word bit for bit.
    pub fn between(predicted: &AircraftState, server: &AircraftState) -> Self {
        let (a, b) = (predicted.to_words(), server.to_words());
        let mut d = StateDiff {
            position_m: (predicted.position - server.position).length(),
            orientation_rad: angle(predicted.orientation.then(server.orientation.conjugate())),
            velocity_mps: (predicted.velocity - server.velocity).length(),
            body_rates_rps: (predicted.body_rates - server.body_rates).length(),
            ..StateDiff::default()
        };
        for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
            if x.to_bits() == y.to_bits() {
                continue;
            }
            d.words |= 1 << i;
            if !is_pose_word(i) && !is_velocity_word(i) {
                let size = (x - y).abs();
                if d.other_word.is_none() || size > d.other_max || size.is_nan() {
                    d.other_max = size;
                    d.other_word = Some(i);
                }
            }
        }
        d
    }

    pub fn is_exact(&self) -> bool {
        self.words == 0
    }

    pub fn pose(&self) -> bool {
        (0..AircraftState::WORDS).any(|i| is_pose_word(i) && self.words & (1 << i) != 0)
    }

    pub fn velocity(&self) -> bool {
        (0..AircraftState::WORDS).any(|i| is_velocity_word(i) && self.words & (1 << i) != 0)
    }

    pub fn other(&self) -> bool {
        (0..AircraftState::WORDS)
            .any(|i| !is_pose_word(i) && !is_velocity_word(i) && self.words & (1 << i) != 0)
    }

    /// Names of the differing words.
    pub fn word_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        (0..AircraftState::WORDS)
            .filter(|i| self.words & (1 << i) != 0)
            .map(|i| WORD_NAMES[i])
    }
}

/// Corrections in one part of the state and their size.
#[derive(Debug, Clone, Default)]
pub struct PartCorrections {
    /// Compares in which some word of this part differed.
    pub count: u64,
    /// Pose: position error, m; velocity: linear velocity error, m/s; other: the largest word
    /// difference (each word in its own unit).
    pub size: Samples,
    /// Pose: orientation error, rad; velocity: body-rate error, rad/s; other: unused.
    pub size2: Samples,
}

impl ClientPrediction {
    /// A predictor on a planet of `planet_radius_m` (from `MsgConnectAck`).
    pub fn new(cfg: PredictionConfig, planet_radius_m: f64) -> Self {
        let mut cfg = cfg;
        cfg.history_ticks = cfg.history_ticks.max(MIN_HISTORY);
        Self {
            floor: fl_terrain::Terrain::default(),
            planet: planet_for(planet_radius_m),
            cfg,
            model: None,
            entity: None,
            history: VecDeque::new(),
            offset: None,
            current: None,
            combat: None,
            current_tick: None,
            previous: None,
            chain_exact: false,
            first_tick: None,
            visual_pos: Vec3::ZERO,
            visual_rot: Quat::IDENTITY,
            shift_pos: Vec3::ZERO,
            shift_rot: Quat::IDENTITY,
            last_base: None,
            last_repeat: None,
            anchored: false,
            after_outage: false,
            recovering_until: None,
            stats: PredictionStats::default(),
        }
    }

    pub fn config(&self) -> &PredictionConfig {
        &self.cfg
    }

    /// New tuning for a running predictor (the player's network settings): the smoothing and
    /// snapping read it from the next frame and reconcile on; the history and the offsets
    /// already there are kept, so nothing jumps.
    pub fn set_config(&mut self, cfg: PredictionConfig) {
        let mut cfg = cfg;
        cfg.history_ticks = cfg.history_ticks.max(MIN_HISTORY);
        self.cfg = cfg;
    }

    /// Uses `terrain` as the ground (built from the client's content stack).
    pub fn set_terrain(&mut self, terrain: fl_terrain::Terrain) {
        self.floor = terrain;
    }

    /// The ground prediction steps on.
    pub fn terrain(&self) -> &fl_terrain::Terrain {
        &self.floor
    }

    /// Uses the planet the server announced (the same radius rule as the server's world).
    pub fn set_planet_radius(&mut self, radius_m: f64) {
        self.planet = planet_for(radius_m);
    }

    /// The flight model of the own entity's type.
    pub fn set_model(&mut self, model: Option<Arc<AircraftModel>>) {
        let same = match (&self.model, &model) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.model = model;
            self.forget_states();
        }
    }

    pub fn has_model(&self) -> bool {
        self.model.is_some()
    }

    /// A new own entity (spawn, respawn, seat change): predicted states are dropped and the
    /// render snaps; the recorded inputs stay (they are still what the player did).
    pub fn reset_entity(&mut self, entity: Option<OwnEntity>) {
        if self.entity != entity {
            self.entity = entity;
            self.forget_states();
            self.offset = None;
        }
    }

    fn forget_states(&mut self) {
        if self.current.is_some() {
            self.stats.snaps += 1;
        }
        self.current = None;
        self.combat = None;
        self.previous = None;
        self.current_tick = None;
        self.chain_exact = false;
        self.first_tick = None;
        for e in &mut self.history {
            e.after = None;
            e.step = None;
            e.exact = false;
        }
        self.visual_pos = Vec3::ZERO;
        self.visual_rot = Quat::IDENTITY;
        self.shift_pos = Vec3::ZERO;
        self.shift_rot = Quat::IDENTITY;
        self.last_base = None;
        self.last_repeat = None;
        self.anchored = false;
        self.after_outage = false;
        self.recovering_until = None;
    }

    /// Whether the prediction stands on the server's timeline: a reconcile acknowledged one of
    /// our inputs (or, from a server that never acknowledges, the spawn has settled). Before
    /// that, the input → step mapping is a guess and [`ClientPrediction::render_pose`] is
    /// `None`, so the first pose drawn is a real prediction, not a guess to be snapped away.
    pub fn anchored(&self) -> bool {
        self.anchored
    }

    /// The link was out (nothing heard for a while): the server concealed the inputs it
    /// missed, so the next reconcile may move the aircraft far; it is blended at most at
    /// `max_correction_speed_mps` instead of snapping (up to `outage_blend_distance_m`).
    pub fn on_outage(&mut self) {
        self.after_outage = true;
    }

    pub fn entity(&self) -> Option<OwnEntity> {
        self.entity
    }

    /// The planet the prediction flies on.
    pub fn planet(&self) -> &Planet {
        &self.planet
    }

    /// The newest predicted state.
    pub fn state(&self) -> Option<&AircraftState> {
        self.current.as_ref()
    }

    /// State tick of the newest predicted state.
    pub fn current_tick(&self) -> Option<u64> {
        self.current_tick
    }

    /// `server step = seq + offset`, once known.
    pub fn offset(&self) -> Option<i64> {
        self.offset
    }

    /// Inputs in the ring.
    pub fn history_len(&self) -> usize {
        self.history.len()
    }

    /// The state predicted after input `seq`, if it is still in the ring.
    pub fn predicted_after(&self, seq: u32) -> Option<&AircraftState> {
        self.history
            .iter()
            .rev()
            .find(|e| e.seq == seq)
            .and_then(|e| e.after.as_ref())
    }

    /// Every input still in the ring with a prediction: (seq, server step, state after, exact).
    pub fn predictions(&self) -> impl Iterator<Item = (u32, u64, &AircraftState, bool)> {
        self.history
            .iter()
            .filter_map(|e| Some((e.seq, e.step?, e.after.as_ref()?, e.exact)))
    }

    /// The cockpit instruments' reading of the newest predicted state, in the wind of the
    /// weather timeline at that tick (`None` before the own aircraft is predicted).
    pub fn reading(&self, weather: &WeatherTimeline) -> Option<crate::instruments::Reading> {
        let (model, state) = (self.model.as_ref()?, self.current.as_ref()?);
        let tick = self.current_tick.unwrap_or(0);
        let calm = WindField::calm();
        let env = StepEnv {
            planet: &self.planet,
            wind: weather.wind_at(tick).unwrap_or(&calm),
            floor: &self.floor,
            tick,
            entity: self.entity.map_or(0, |e| e.idx),
            aero: true,
        };
        Some(crate::instruments::read(model, state, &env))
    }

    /// The visual offset currently added to the rendered position.
    pub fn visual_offset(&self) -> (Vec3, Quat) {
        (
            self.visual_pos + self.shift_pos,
            self.visual_rot.then(self.shift_rot).normalize(),
        )
    }

    fn step_once(
        &self,
        model: &AircraftModel,
        state: &mut AircraftState,
        controls: &Controls,
        step: u64,
        weather: &WeatherTimeline,
    ) {
        let calm = WindField::calm();
        let env = StepEnv {
            planet: &self.planet,
            wind: weather.wind_at(step).unwrap_or(&calm),
            floor: &self.floor,
            tick: step,
            entity: self.entity.map_or(0, |e| e.idx),
            aero: true,
        };
        fl_flight::step(model, state, controls, &env);
    }

    /// One predicted server tick of the own aircraft as the server runs it: the flight step with
    /// the controls damage leaves (fl-combat's `effective_controls`, as the server's world
    /// step), then fire control's consumption of `intent` and the payload it leaves (as the
    /// server's combat step, after the flight step).
    #[allow(clippy::too_many_arguments)]
    fn step_tick(
        &self,
        model: &AircraftModel,
        state: &mut AircraftState,
        combat: &mut Option<OwnCombat>,
        controls: &Controls,
        intent: Intent,
        step: u64,
        weather: &WeatherTimeline,
    ) {
        let Some(c) = combat else {
            self.step_once(model, state, controls, step, weather);
            return;
        };
        let flown = c.effective_controls(*controls);
        // A damaged tank leaks before the step, as the server's world step does.
        state.fuel_kg = c.leak(state.fuel_kg);
        self.step_once(model, state, &flown, step, weather);
        c.apply(intent, step);
        if std::mem::take(&mut c.payload_dirty) {
            (state.payload_kg, state.payload_cd0) = c.payload();
        }
    }

    /// The own combat state predicted with the latest input (stores left, expendables, damage).
    pub fn combat(&self) -> Option<&OwnCombat> {
        self.combat.as_ref()
    }

    /// Records input `seq` (sent this tick) and predicts one step with it.
    pub fn push_input(&mut self, seq: u32, controls: Controls, weather: &WeatherTimeline) {
        self.push_input_intent(seq, controls, Intent::default(), weather);
    }

    /// [`ClientPrediction::push_input`] with the input's fire-control intent (buttons, selected
    /// station), which the own stores' prediction consumes.
    pub fn push_input_intent(
        &mut self,
        seq: u32,
        controls: Controls,
        intent: Intent,
        weather: &WeatherTimeline,
    ) {
        self.stats.inputs += 1;
        if self.history.len() >= self.cfg.history_ticks {
            self.history.pop_front();
        }
        let mut entry = Entry {
            seq,
            controls,
            intent,
            step: None,
            after: None,
            exact: false,
        };
        if let (Some(model), Some(state), Some(tick)) =
            (self.model.clone(), self.current, self.current_tick)
        {
            let (step, guessed) = match self.offset {
                Some(o) => ((i64::from(seq) + o).max(0) as u64, false),
                None => {
                    // No ack yet: assume the next server step. Only a guess — the server holds
                    // a joining pilot's first input until its buffer primes — so nothing
                    // predicted from it is exact-basis until an ack gives the mapping.
                    self.offset = Some(tick as i64 - i64::from(seq));
                    (tick, true)
                }
            };
            let mut next = state;
            let mut combat = self.combat.clone();
            self.step_tick(
                &model,
                &mut next,
                &mut combat,
                &controls,
                intent,
                step,
                weather,
            );
            self.combat = combat;
            let exact = !guessed && self.chain_exact && step == tick && weather.is_exact_at(step);
            self.previous = Some(state);
            self.current = Some(next);
            self.current_tick = Some(step + 1);
            self.chain_exact = exact;
            entry.step = Some(step);
            entry.after = Some(next);
            entry.exact = exact;
        }
        self.history.push_back(entry);
    }

    /// Resets to the server's state of snapshot tick `tick` and replays the unacknowledged
    /// inputs. `own` must be for the current entity (the caller resets the entity first).
    pub fn reconcile(
        &mut self,
        tick: u64,
        own: &OwnSnapshot,
        weather: &WeatherTimeline,
    ) -> ReconcileReport {
        let mut report = ReconcileReport {
            tick,
            ..ReconcileReport::default()
        };
        if self.entity != Some(own.entity) {
            self.reset_entity(Some(own.entity));
        }
        let Some(model) = self.model.clone() else {
            return report;
        };
        self.stats.reconciles += 1;
        let (base, exact_base) = match own.exact {
            Some(s) => (s, true),
            None => {
                report.quantized = true;
                self.stats.quantized_resets += 1;
                (state_from_record(own, self.current.as_ref(), &model), false)
            }
        };
        if !base.is_finite() {
            return report;
        }
        let old_latest = self.current;
        let old_latest_seq = self.history.back().map(|e| e.seq);

        // Which inputs the server has not applied yet, and when it will.
        let first_replay = match own.acked_seq {
            Some(acked) => {
                let offset = tick as i64 - 1 - i64::from(acked);
                if let Some(old) = self.offset
                    && old != offset
                    && self.current.is_some()
                {
                    self.stats.timeline_shifts += 1;
                    self.stats.timeline_shift_ticks += offset - old;
                    report.shift_ticks = offset - old;
                }
                self.offset = Some(offset);
                if let Some(k) = self.history.iter().rposition(|e| e.seq == acked)
                    && let Some(pred) = &self.history[k].after
                {
                    report.compared = true;
                    report.exact_basis = self.history[k].exact;
                    report.diff = StateDiff::between(pred, &base);
                    report.bit_exact = report.diff.is_exact();
                    report.error_m = report.diff.position_m;
                    if !report.bit_exact {
                        let repeated = self.explained_by_repeat(&model, k, &base, weather);
                        report.repeat_explained = repeated.is_some();
                        self.last_repeat = repeated.map(|c| (acked, c));
                    }
                }
                self.history
                    .iter()
                    .position(|e| seq32_newer(e.seq, acked))
                    .unwrap_or(self.history.len())
            }
            None => {
                report.fallback = true;
                self.stats.fallback_reconciles += 1;
                let d = usize::from(own.delay_ticks.unwrap_or(0)).min(self.history.len());
                let first = self.history.len() - d;
                if let Some(e) = self.history.get(first) {
                    let offset = tick as i64 - i64::from(e.seq);
                    report.shift_ticks = self.offset.map_or(0, |old| offset - old);
                    self.offset = Some(offset);
                }
                first
            }
        };

        self.last_base = own.acked_seq.map(|a| (a, base));
        let first = *self.first_tick.get_or_insert(tick);
        let since_first_s = tick.saturating_sub(first) as f64 * crate::TICK_S;
        let was_anchored = self.anchored;
        if own
            .acked_seq
            .is_some_and(|a| self.history.iter().any(|e| e.seq == a))
            || since_first_s >= 2.0 * self.cfg.spawn_settle.as_secs_f64()
        {
            self.anchored = true;
        }

        // Reset and replay.
        let offset = self.offset.unwrap_or(0);
        let mut state = base;
        let mut combat = if exact_base && self.cfg.predict_combat {
            own.combat.clone()
        } else {
            None
        };
        let mut state_tick = tick;
        let mut previous = None;
        // Without an acknowledged input the input → step mapping is a guess (the delay ticks):
        // nothing replayed from it is exact-basis.
        let mut exact = exact_base && own.acked_seq.is_some();
        for i in first_replay..self.history.len() {
            let (seq, controls, intent) = {
                let e = &self.history[i];
                (e.seq, e.controls, e.intent)
            };
            let step = (i64::from(seq) + offset).max(0) as u64;
            previous = Some(state);
            self.step_tick(
                &model,
                &mut state,
                &mut combat,
                &controls,
                intent,
                step,
                weather,
            );
            exact = exact && step == state_tick && weather.is_exact_at(step);
            state_tick = step + 1;
            let e = &mut self.history[i];
            e.step = Some(step);
            e.after = Some(state);
            e.exact = exact;
            report.replayed += 1;
        }
        self.previous = previous.or_else(|| {
            first_replay
                .checked_sub(2)
                .and_then(|i| self.history.get(i))
                .and_then(|e| e.after)
        });
        self.current = Some(state);
        self.combat = combat;
        self.current_tick = Some(state_tick);
        self.chain_exact = exact;

        // The jump of the latest pose (same newest input before and after) goes into the
        // visual offset, unless it is a teleport.
        let settling = since_first_s < self.cfg.spawn_settle.as_secs_f64();
        if std::mem::take(&mut self.after_outage) {
            let window = (self.cfg.outage_recovery.as_secs_f64() / crate::TICK_S).ceil() as u64;
            self.recovering_until = Some(tick + window);
        }
        let after_outage = self.recovering_until.is_some_and(|t| tick < t);
        report.after_outage = after_outage;
        if let (Some(old), Some(_)) = (old_latest, old_latest_seq) {
            let jump = old.position - state.position;
            report.jump_m = jump.length();
            let rotated = angle(old.orientation.then(state.orientation.conjugate()));
            let visible = report.jump_m > 1e-9 || rotated > 1e-12;
            let snap_at = if after_outage {
                self.cfg
                    .outage_blend_distance_m
                    .max(self.cfg.snap_distance_m)
            } else {
                self.cfg.snap_distance_m
            };
            if after_outage {
                self.stats.outage_reconciles += 1;
                self.stats.outage_jump_max_m = self.stats.outage_jump_max_m.max(report.jump_m);
            }
            let teleport = report.jump_m > snap_at || !report.jump_m.is_finite();
            // Before the first anchored reconcile nothing was drawn: that one snaps unseen.
            // Once drawn, a settling correction blends like any other.
            if teleport || (!was_anchored && visible) {
                report.snapped = true;
                if teleport {
                    self.stats.snaps += 1;
                } else {
                    self.stats.settle_snaps += 1;
                }
                self.visual_pos = Vec3::ZERO;
                self.visual_rot = Quat::IDENTITY;
                self.shift_pos = Vec3::ZERO;
                self.shift_rot = Quat::IDENTITY;
            } else {
                // A timeline shift acknowledged by the server moved the newest input's step,
                // not the aircraft: its jump (whole ticks of flight, plus whatever a repeat in
                // the shifted slot changed) is caught up slowly. Outage recovery keeps its own
                // blending.
                if report.shift_ticks != 0 && !report.fallback && !after_outage {
                    self.shift_pos += jump;
                    self.shift_rot = self
                        .shift_rot
                        .then(old.orientation)
                        .then(state.orientation.conjugate())
                        .normalize();
                } else {
                    self.visual_pos += jump;
                    self.visual_rot = self
                        .visual_rot
                        .then(old.orientation)
                        .then(state.orientation.conjugate())
                        .normalize();
                }
            }
        }

        report.settling = settling;
        self.stats.replayed.push(report.replayed as f64);
        self.stats.jump_m.push(report.jump_m);
        if report.compared && (settling || !was_anchored) {
            self.stats.settle_compares += 1;
        } else if report.compared {
            self.stats.compared += 1;
            self.stats.correction_m.push(report.error_m);
            if report.exact_basis {
                self.stats.exact_basis_compares += 1;
            }
            if !report.bit_exact {
                self.stats.corrections += 1;
                if report.exact_basis {
                    self.stats.exact_basis_corrections += 1;
                }
                self.count_parts(&report.diff);
                if report.repeat_explained {
                    self.stats.repeat_corrections += 1;
                }
            }
        }
        report
    }

    /// The controls the server flew `history[k]`'s step with, when `server` is a repeat: the
    /// input before it (or the one a run of repeats already stood in with) flown once more from
    /// the state before that step.
    fn explained_by_repeat(
        &self,
        model: &AircraftModel,
        k: usize,
        server: &AircraftState,
        weather: &WeatherTimeline,
    ) -> Option<Controls> {
        let prev = k.checked_sub(1).and_then(|i| self.history.get(i))?;
        // The state the server flew the slot from: its own for the previous input when the
        // last reconcile acked that one, else the prediction for it.
        let before = match self.last_base {
            Some((seq, state)) if seq == prev.seq => Some(state),
            _ => prev.after,
        };
        let (before, step) = (before?, self.history[k].step?);
        let run = match self.last_repeat {
            Some((slot, c)) if slot == prev.seq => Some(c),
            _ => None,
        };
        [Some(prev.controls), run].into_iter().flatten().find(|c| {
            let mut state = before;
            self.step_once(model, &mut state, c, step, weather);
            StateDiff::between(&state, server).is_exact()
        })
    }

    fn count_parts(&mut self, d: &StateDiff) {
        let s = &mut self.stats;
        if d.pose() {
            s.pose.count += 1;
            s.pose.size.push(d.position_m);
            s.pose.size2.push(d.orientation_rad);
        }
        if d.velocity() {
            s.velocity.count += 1;
            s.velocity.size.push(d.velocity_mps);
            s.velocity.size2.push(d.body_rates_rps);
        }
        if d.other() {
            s.other.count += 1;
            s.other.size.push(d.other_max);
        }
        for (i, n) in s.word_corrections.iter_mut().enumerate() {
            if d.words & (1 << i) != 0 {
                *n += 1;
            }
        }
        tracing::debug!(
            pose = d.pose(),
            velocity = d.velocity(),
            other = d.other(),
            position_m = d.position_m,
            words = ?d.word_names().collect::<Vec<_>>(),
            "own-state correction"
        );
    }

    /// Lets the visual offset decay over a frame of `dt` (half-life from the configuration).
    pub fn decay(&mut self, dt: Duration) {
        let h = self.cfg.visual_half_life.as_secs_f64();
        let k = if h > 0.0 {
            0.5f64.powf(dt.as_secs_f64() / h)
        } else {
            0.0
        };
        // Exponential, but never faster than an aircraft could move the pose.
        let len = self.visual_pos.length();
        let cap = self.cfg.max_correction_speed_mps * dt.as_secs_f64();
        let shrink = (len * (1.0 - k)).min(cap.max(0.0));
        self.visual_pos = if len > 0.0 {
            self.visual_pos * ((len - shrink) / len)
        } else {
            self.visual_pos
        };
        if self.visual_pos.length() < 1e-9 {
            self.visual_pos = Vec3::ZERO;
        }
        // A timeline shift's offset: linearly, at a small fraction of the own speed — the
        // drawn aircraft flies 1.5 % fast until it is back on the newest input.
        let len = self.shift_pos.length();
        if len > 0.0 {
            let speed = self.current.map_or(0.0, |s| s.velocity.length());
            let rate = (self.cfg.timeline_catch_up * speed).max(MIN_TIMELINE_CATCH_UP_MPS);
            let frame = dt.min(TIMELINE_CATCH_UP_FRAME_CAP).as_secs_f64();
            let shrink = (rate * frame).min(len);
            let keep = if len - shrink < 1e-9 {
                0.0
            } else {
                (len - shrink) / len
            };
            self.shift_pos = self.shift_pos * keep;
            self.shift_rot = slerp(Quat::IDENTITY, self.shift_rot, keep);
        } else {
            // A shift without a position change (a parked aircraft): the rotation alone.
            self.shift_rot = slerp(Quat::IDENTITY, self.shift_rot, k);
        }
        if angle(self.shift_rot) < 1e-12 {
            self.shift_rot = Quat::IDENTITY;
        }
        self.visual_rot = slerp(Quat::IDENTITY, self.visual_rot, k);
        if angle(self.visual_rot) < 1e-12 {
            self.visual_rot = Quat::IDENTITY;
        }
    }

    /// The pose to draw: between the last two predicted states at `alpha` (the input clock's
    /// fraction of the current tick), plus the visual offset.
    pub fn render_pose(&self, alpha: f64) -> Option<OwnPose> {
        if !self.anchored {
            return None;
        }
        let cur = self.current?;
        let tick = self.current_tick?;
        let prev = self.previous.unwrap_or(cur);
        let a = alpha.clamp(0.0, 1.0);
        let base = lerp(prev.position, cur.position, a);
        Some(OwnPose {
            position: base + self.visual_pos + self.shift_pos,
            orientation: self
                .visual_rot
                .then(self.shift_rot)
                .then(slerp(prev.orientation, cur.orientation, a))
                .normalize(),
            velocity: lerp(prev.velocity, cur.velocity, a),
            render_tick: tick as f64 - 1.0 + a,
            visual_offset: self.visual_pos + self.shift_pos,
        })
    }
}

/// The planet the server's world uses for a radius (its own sanity rule, Earth's μ).
pub fn planet_for(radius_m: f64) -> Planet {
    Planet {
        radius_m: if radius_m.is_finite() && radius_m > 1000.0 {
            radius_m
        } else {
            Planet::earth().radius_m
        },
        ..Planet::earth()
    }
}

/// A state rebuilt from the quantized record, keeping what the record does not carry (spool,
/// actuators, surfaces…) from the latest prediction.
fn state_from_record(
    own: &OwnSnapshot,
    template: Option<&AircraftState>,
    model: &AircraftModel,
) -> AircraftState {
    let r = &own.record;
    let fuel = f64::from(r.fuel_pct) / 100.0 * model.max_fuel_kg;
    let mut s = template
        .copied()
        .unwrap_or_else(|| AircraftState::flying(r.position, 0.0, 0.0, fuel));
    s.position = r.position;
    s.velocity = r.velocity;
    s.orientation = r.orientation;
    if let Some(w) = r.omega {
        s.body_rates = w;
    }
    if (s.fuel_kg - fuel).abs() > 0.01 * model.max_fuel_kg {
        s.fuel_kg = fuel;
    }
    if (s.afterburner > 0.5) != r.ab_engaged {
        s.afterburner = if r.ab_engaged { 1.0 } else { 0.0 };
    }
    s
}

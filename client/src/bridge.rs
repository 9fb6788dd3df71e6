//! The render bridge: one consistent render list per frame — the own aircraft from prediction,
//! every other entity interpolated from a snapshot buffer at `now − delay`.
//!
//! The snapshot clock maps local time to server ticks from the arrival times of snapshots (a
//! smoothed offset). The interpolation delay is what the measured stream needs, not a worst
//! case: `send_interval_ratio ×` the smoothed interval between received snapshot ticks (loss and
//! server decimation widen it) plus a high percentile (`jitter_percentile`) of how late recent
//! arrivals were against the smoothed offset, clamped to `[min_delay, max_delay]`. The render
//! time follows its target at +5 % / −20 % speed (it slews, never steps), so motion never
//! stutters when the delay adapts. After an outage (no snapshot for `outage_gap`) the clock and
//! the jitter window are re-anchored on the new stream, and a sample after such a gap is never
//! interpolated into (the remote aircraft extrapolates a bounded time, holds, then resumes at
//! the new samples instead of sliding through the void).
//!
//! Between two samples the position is a cubic Hermite curve through both positions with both
//! velocities and the orientation is slerped; past the newest sample it is extrapolated with the
//! last velocity for at most `max_extrapolation`, then held. A new generation (respawn, slot
//! reuse) clears an entity's buffer and a sample that cannot be reached from the previous one
//! with the velocities given (a teleport) is never interpolated into. No pose that is not finite
//! reaches the render list: such a sample is dropped, and a non-finite prediction falls back to
//! the snapshots.
//!
//! Owns the per-entity buffers and the render clock; reads the session's entity table.

use crate::TICK_S;
use crate::entities::{Articulation, EntityTable, Upsert};
use crate::geom::{hermite, hermite_velocity, slerp};
use crate::prediction::OwnPose;
use crate::session::{OwnEntity, SnapshotUpdate};
use crate::stats::{Ewma, Samples};
use fl_flight::math::{Quat, Vec3};
use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

/// Tuning.
#[derive(Debug, Clone, PartialEq)]
pub struct InterpolationConfig {
    /// Delay in measured snapshot intervals (lightyear's default ratio is 1.7).
    pub send_interval_ratio: f64,
    /// Multiplier of the lateness percentile (1 = exactly the percentile).
    pub jitter_multiplier: f64,
    pub min_delay: Duration,
    pub max_delay: Duration,
    /// Longest extrapolation past the newest sample before holding.
    pub max_extrapolation: Duration,
    /// A sample this far from where the previous one's motion leads is a teleport.
    pub teleport_distance_m: f64,
    /// Samples kept per entity.
    pub max_samples: usize,
    /// How fast the render clock may run fast to follow its target (fraction).
    pub clock_rate_limit: f64,
    /// How fast it may run slow when it is ahead of its target (running out of samples is
    /// worse than a little more delay).
    pub clock_slowdown_limit: f64,
    /// Weight of a new quantized position against the position carried forward from the
    /// previous sample with the (much finer) velocities; 1 = raw positions.
    pub position_blend: f64,
    /// A sample further than this from the carried-forward position restarts the smoothing.
    pub smoothing_reset_m: f64,
    /// Arrivals remembered for the jitter percentile.
    pub jitter_window: usize,
    /// The percentile of arrival lateness the delay covers (0.95: one snapshot in twenty may
    /// come after its render time and is bridged by a short extrapolation).
    pub jitter_percentile: f64,
    /// No snapshot for this long is an outage: the next arrival re-anchors the clock and a
    /// sample after such a gap is never interpolated into.
    pub outage_gap: Duration,
}

impl Default for InterpolationConfig {
    fn default() -> Self {
        Self {
            send_interval_ratio: 1.7,
            jitter_multiplier: 1.0,
            min_delay: Duration::from_millis(17),
            max_delay: Duration::from_millis(500),
            max_extrapolation: Duration::from_millis(200),
            teleport_distance_m: 50.0,
            max_samples: 90,
            clock_rate_limit: 0.05,
            clock_slowdown_limit: 0.2,
            position_blend: 0.15,
            smoothing_reset_m: 1.0,
            jitter_window: 180,
            jitter_percentile: 0.95,
            outage_gap: Duration::from_millis(500),
        }
    }
}

/// Where an entity's pose came from this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoseSource {
    /// The own aircraft from prediction.
    Predicted,
    /// Between two snapshot samples.
    Interpolated,
    /// Past the newest sample, within the extrapolation cap.
    Extrapolated,
    /// Held: before the first sample, or past the extrapolation cap.
    Held,
}

/// One entity to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderEntity {
    pub idx: u32,
    pub generation: u16,
    pub type_index: u32,
    pub faction: u16,
    pub own: bool,
    pub position: Vec3,
    /// Engine-body → world (glTF convention: X right, Y up, Z aft).
    pub orientation: Quat,
    pub velocity: Vec3,
    pub articulation: Articulation,
    pub damage_level: u8,
    pub throttle_pct: u8,
    pub ab_engaged: bool,
    pub source: PoseSource,
}

/// Everything the renderer and HUD read for one frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenderFrame {
    pub now: Duration,
    /// The (fractional) server tick remote entities are drawn at.
    pub render_tick: Option<f64>,
    pub delay: Duration,
    pub entities: Vec<RenderEntity>,
}

impl RenderFrame {
    /// The entity with pool index `idx`.
    pub fn entity(&self, idx: u32) -> Option<&RenderEntity> {
        self.entities.iter().find(|e| e.idx == idx)
    }

    /// The own aircraft.
    pub fn own(&self) -> Option<&RenderEntity> {
        self.entities.iter().find(|e| e.own)
    }
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    tick: u64,
    position: Vec3,
    velocity: Vec3,
    orientation: Quat,
    /// Not reachable from the previous sample (a teleport, or a gap longer than an outage):
    /// never interpolate into it.
    teleport: bool,
}

#[derive(Debug, Clone)]
struct Track {
    generation: u16,
    type_index: u32,
    faction: u16,
    damage_level: u8,
    throttle_pct: u8,
    ab_engaged: bool,
    articulation: Articulation,
    samples: VecDeque<Sample>,
}

/// Counters.
#[derive(Debug, Clone, Default)]
pub struct BridgeStats {
    pub snapshots: u64,
    /// Wall time between consecutive snapshot arrivals, ms.
    pub arrival_interval_ms: Samples,
    pub teleports: u64,
    pub clock_snaps: u64,
    /// Re-anchors of the render clock after an outage.
    pub clock_reanchors: u64,
    /// The interpolation delay, every frame, ms.
    pub delay_ms: Samples,
    pub extrapolated_poses: u64,
    pub held_poses: u64,
    pub interpolated_poses: u64,
    /// Poses (predicted or sampled) kept out of the render list because they were not finite.
    pub non_finite_poses: u64,
}

/// The bridge.
#[derive(Debug)]
pub struct RenderBridge {
    cfg: InterpolationConfig,
    tracks: BTreeMap<u32, Track>,
    /// Smoothed `server time − local time` of arrivals, s.
    offset_s: Ewma,
    /// Ticks between consecutive received snapshots.
    tick_interval: Ewma,
    /// How late each recent arrival was against the smoothed offset, s (negative: early).
    lateness_s: VecDeque<f64>,
    /// The delay the lateness window and interval call for, s (updated per arrival).
    target_delay_s: Option<f64>,
    /// The next frame re-anchors the render clock (the first arrival after an outage).
    reanchor: bool,
    /// The tick of the first snapshot after the latest outage.
    resumed_at_tick: Option<u64>,
    /// The own entity has a flight model but no prediction anchored on the server's timeline
    /// yet: it is not drawn (neither from snapshots nor from a guessed prediction), so its
    /// first rendered pose is the first real prediction.
    own_pending: bool,
    /// RFC 3550 interarrival jitter, s.
    rfc_jitter_s: f64,
    /// Each recent arrival's transit (local arrival time − the snapshot's server time, s):
    /// its spread is the link's delay jitter as the net graph shows it.
    transit_s: VecDeque<f64>,
    last_arrival: Option<(Duration, u64)>,
    render_tick: Option<f64>,
    last_frame: Option<Duration>,
    frame: RenderFrame,
    pub stats: BridgeStats,
}

/// Arrivals the delay spread covers (ten seconds of 60 Hz snapshots): long enough to see the
/// whole range of a wandering delay, short enough to follow a changed path.
pub const TRANSIT_WINDOW: usize = 600;

impl RenderBridge {
    pub fn new(cfg: InterpolationConfig) -> Self {
        Self {
            cfg,
            tracks: BTreeMap::new(),
            offset_s: Ewma::new(32.0),
            tick_interval: Ewma::new(16.0),
            lateness_s: VecDeque::new(),
            target_delay_s: None,
            reanchor: false,
            resumed_at_tick: None,
            own_pending: false,
            rfc_jitter_s: 0.0,
            transit_s: VecDeque::new(),
            last_arrival: None,
            render_tick: None,
            last_frame: None,
            frame: RenderFrame::default(),
            stats: BridgeStats::default(),
        }
    }

    pub fn config(&self) -> &InterpolationConfig {
        &self.cfg
    }

    /// New tuning for a running bridge (the player's network settings). The samples are kept;
    /// the new delay is aimed at from the next arrival and the render clock slews to it at its
    /// usual rate limits, so the picture does not jump.
    pub fn set_config(&mut self, cfg: InterpolationConfig) {
        self.cfg = cfg;
    }

    /// The snapshot interval the delay is built on, in ticks: the smoothed gap between
    /// received snapshots (a lost snapshot or a decimating server widens it; a single lost one
    /// is bridged by a short extrapolation, not by a worst-case delay).
    pub fn interval_estimate_ticks(&self) -> f64 {
        self.tick_interval.get().unwrap_or(1.0).max(1.0)
    }

    /// The arrival lateness the delay covers: the configured percentile of how late recent
    /// arrivals were against the smoothed offset, s (0 before any arrival).
    pub fn jitter_allowance_s(&self) -> f64 {
        if self.lateness_s.is_empty() {
            return 0.0;
        }
        let mut v: Vec<f64> = self.lateness_s.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        let q = self.cfg.jitter_percentile.clamp(0.0, 1.0);
        let i = ((v.len() - 1) as f64 * q).round() as usize;
        v[i.min(v.len() - 1)].max(0.0)
    }

    fn compute_delay_s(&self) -> f64 {
        let interval = self.interval_estimate_ticks() * TICK_S;
        let d = self.cfg.send_interval_ratio * interval
            + self.cfg.jitter_multiplier * self.jitter_allowance_s();
        let lo = self.cfg.min_delay.as_secs_f64();
        d.clamp(lo, self.cfg.max_delay.as_secs_f64().max(lo))
    }

    /// The current interpolation delay: `ratio × interval + k × lateness percentile`, clamped.
    pub fn delay(&self) -> Duration {
        Duration::from_secs_f64(
            self.target_delay_s
                .unwrap_or_else(|| self.compute_delay_s()),
        )
    }

    /// Measured ticks between received snapshots.
    pub fn snapshot_interval_ticks(&self) -> Option<f64> {
        self.tick_interval.get()
    }

    /// RFC 3550 interarrival jitter of snapshots.
    pub fn jitter(&self) -> Duration {
        Duration::from_secs_f64(self.rfc_jitter_s.max(0.0))
    }

    /// The spread (standard deviation) of the snapshots' one-way delay over the last
    /// [`TRANSIT_WINDOW`] arrivals: the jitter of the path, comparable with the spread of the
    /// delays a network (or the impairment relay) applied. The clocks' constant offset cancels;
    /// drift between two machines' clocks over ten seconds is far below a millisecond.
    pub fn delay_spread(&self) -> Duration {
        let n = self.transit_s.len();
        if n < 2 {
            return Duration::ZERO;
        }
        let mean = self.transit_s.iter().sum::<f64>() / n as f64;
        let var = self
            .transit_s
            .iter()
            .map(|t| (t - mean) * (t - mean))
            .sum::<f64>()
            / n as f64;
        Duration::from_secs_f64(var.sqrt())
    }

    /// The fractional server tick remote entities were last drawn at.
    pub fn render_tick(&self) -> Option<f64> {
        self.render_tick
    }

    /// The last frame built.
    pub fn frame(&self) -> &RenderFrame {
        &self.frame
    }

    /// Entities with a buffer.
    pub fn tracked(&self) -> usize {
        self.tracks.len()
    }

    /// Whether the own entity waits for its prediction (see `own_pending`).
    pub fn set_own_pending(&mut self, pending: bool) {
        self.own_pending = pending;
    }

    /// Forgets everything (a new session).
    pub fn clear(&mut self) {
        *self = Self::new(self.cfg.clone());
    }

    /// Takes one applied snapshot (after the session updated `table`).
    pub fn on_snapshot(&mut self, update: &SnapshotUpdate, table: &EntityTable) {
        self.stats.snapshots += 1;
        let t = update.received_at.as_secs_f64();
        let server_s = update.tick as f64 * TICK_S;
        let o = server_s - t;
        let outage = self
            .last_arrival
            .is_some_and(|(at, _)| update.received_at.saturating_sub(at) >= self.cfg.outage_gap);
        if outage {
            // A new stream after an outage: what the old one measured says nothing about the
            // first snapshots (a burst of queued ones may come late); start the offset and the
            // lateness window afresh and let the next frame re-anchor the render clock.
            self.offset_s = Ewma::new(32.0);
            self.lateness_s.clear();
            self.transit_s.clear();
            self.reanchor = true;
            self.resumed_at_tick = Some(update.tick);
        }
        if let Some(mean) = self.offset_s.get() {
            // Positive: this snapshot came later than the smoothed offset says.
            self.lateness_s.push_back(mean - o);
            while self.lateness_s.len() > self.cfg.jitter_window.max(1) {
                self.lateness_s.pop_front();
            }
        }
        self.offset_s.push(o);
        self.transit_s.push_back(-o);
        if self.transit_s.len() > TRANSIT_WINDOW {
            self.transit_s.pop_front();
        }
        if let Some((at, tick)) = self.last_arrival
            && update.tick > tick
        {
            let arrival = update.received_at.saturating_sub(at).as_secs_f64();
            let d = arrival - (update.tick - tick) as f64 * TICK_S;
            self.rfc_jitter_s += (d.abs() - self.rfc_jitter_s) / 16.0;
            if !outage {
                self.tick_interval.push((update.tick - tick) as f64);
            }
            self.stats.arrival_interval_ms.push(arrival * 1000.0);
        }
        self.last_arrival = Some((update.received_at, update.tick));
        self.target_delay_s = Some(self.compute_delay_s());
        let max_gap_ticks = (self.cfg.outage_gap.as_secs_f64() / TICK_S).ceil() as u64;

        for idx in &update.removed {
            self.tracks.remove(idx);
        }
        for &(idx, kind) in &update.changes {
            let Some(e) = table.get(idx) else { continue };
            let track = self.tracks.entry(idx).or_insert_with(|| Track {
                generation: e.generation,
                type_index: e.type_index,
                faction: e.faction,
                damage_level: 0,
                throttle_pct: 0,
                ab_engaged: false,
                articulation: Articulation::default(),
                samples: VecDeque::new(),
            });
            if kind == Upsert::Replaced || track.generation != e.generation {
                // Another entity in this slot: never interpolate from the old one.
                track.samples.clear();
            }
            track.generation = e.generation;
            track.type_index = e.type_index;
            track.faction = e.faction;
            track.damage_level = e.damage_level;
            track.throttle_pct = e.throttle_pct;
            track.ab_engaged = e.ab_engaged;
            track.articulation = e.articulation;
            if track.samples.back().is_some_and(|s| s.tick >= e.last_tick) {
                continue;
            }
            if !(e.position.is_finite() && e.velocity.is_finite() && e.orientation.is_finite()) {
                self.stats.non_finite_poses += 1;
                continue;
            }
            // The server integrates x += v·dt with the velocity after each step, so a position
            // carried forward with the sampled velocities is exact for constant acceleration
            // and far finer than the 0.125 m position grid: blend the quantized position in.
            let mut position = e.position;
            let mut teleport = false;
            if let Some(s) = track.samples.back() {
                let h = (e.last_tick - s.tick) as f64;
                let carried = s.position
                    + (s.velocity * h + e.velocity * h + (e.velocity - s.velocity))
                        * (0.5 * TICK_S);
                let miss = (e.position - carried).length();
                // Across an outage the motion in between is unknown: resume at the new
                // samples instead of sliding through the void.
                let across_outage = self.resumed_at_tick.is_some_and(|r| {
                    s.tick < r && e.last_tick >= r && e.last_tick - s.tick > max_gap_ticks
                });
                teleport = miss > self.cfg.teleport_distance_m || across_outage;
                if !teleport && miss <= self.cfg.smoothing_reset_m {
                    let w = self.cfg.position_blend.clamp(0.0, 1.0);
                    position = carried + (e.position - carried) * w;
                }
            }
            self.stats.teleports += u64::from(teleport);
            track.samples.push_back(Sample {
                tick: e.last_tick,
                position,
                velocity: e.velocity,
                orientation: e.orientation,
                teleport,
            });
            while track.samples.len() > self.cfg.max_samples.max(2) {
                track.samples.pop_front();
            }
        }
    }

    fn advance_clock(&mut self, now: Duration) -> Option<f64> {
        let offset = self.offset_s.get()?;
        let target = (now.as_secs_f64() + offset - self.delay().as_secs_f64()) / TICK_S;
        let frame_ticks = self
            .last_frame
            .map_or(0.0, |l| now.saturating_sub(l).as_secs_f64() / TICK_S);
        let rt = match self.render_tick {
            None => target,
            Some(_) if std::mem::take(&mut self.reanchor) => {
                // After an outage the remote aircraft were held; the new stream is where they
                // are now.
                self.stats.clock_reanchors += 1;
                target
            }
            Some(rt) => {
                let rt = rt + frame_ticks;
                let err = target - rt;
                if err.abs() > 30.0 {
                    self.stats.clock_snaps += 1;
                    target
                } else {
                    let up = self.cfg.clock_rate_limit * frame_ticks;
                    let down = self.cfg.clock_slowdown_limit * frame_ticks;
                    rt + (err * 0.1).clamp(-down, up)
                }
            }
        };
        self.render_tick = Some(rt);
        Some(rt)
    }

    /// Builds the frame for `now`; `own` is the predicted own pose (when prediction runs) and
    /// `own_entity` identifies the own aircraft.
    pub fn build_frame(
        &mut self,
        now: Duration,
        own: Option<&OwnPose>,
        own_entity: Option<OwnEntity>,
    ) -> &RenderFrame {
        let rt = self.advance_clock(now);
        self.last_frame = Some(now);
        let mut entities = std::mem::take(&mut self.frame.entities);
        entities.clear();
        let max_extra = self.cfg.max_extrapolation.as_secs_f64();
        for (&idx, track) in &self.tracks {
            let is_own = own_entity.is_some_and(|o| o.matches_wire(idx, track.generation));
            if is_own && self.own_pending {
                continue;
            }
            // A non-finite prediction (a diverged model) falls back to the snapshots.
            let predicted = own.filter(|p| {
                let finite = pose_is_finite(p.position, p.orientation, p.velocity);
                if is_own && !finite {
                    self.stats.non_finite_poses += 1;
                }
                finite
            });
            let pose = match (is_own, predicted, rt) {
                (true, Some(p), _) => {
                    Some((p.position, p.orientation, p.velocity, PoseSource::Predicted))
                }
                (_, _, Some(rt)) => sample_track(track, rt, max_extra),
                _ => None,
            };
            let Some((position, orientation, velocity, source)) = pose else {
                continue;
            };
            if !pose_is_finite(position, orientation, velocity) {
                self.stats.non_finite_poses += 1;
                continue;
            }
            match source {
                PoseSource::Interpolated => self.stats.interpolated_poses += 1,
                PoseSource::Extrapolated => self.stats.extrapolated_poses += 1,
                PoseSource::Held => self.stats.held_poses += 1,
                PoseSource::Predicted => {}
            }
            entities.push(RenderEntity {
                idx,
                generation: track.generation,
                type_index: track.type_index,
                faction: track.faction,
                own: is_own,
                position,
                orientation,
                velocity,
                articulation: track.articulation,
                damage_level: track.damage_level,
                throttle_pct: track.throttle_pct,
                ab_engaged: track.ab_engaged,
                source,
            });
        }
        let delay = self.delay();
        if rt.is_some() {
            self.stats.delay_ms.push(delay.as_secs_f64() * 1000.0);
        }
        self.frame = RenderFrame {
            now,
            render_tick: rt,
            delay,
            entities,
        };
        &self.frame
    }
}

/// Whether a pose can be drawn (the renderer must never see a NaN or an infinity).
fn pose_is_finite(position: Vec3, orientation: Quat, velocity: Vec3) -> bool {
    position.is_finite() && orientation.is_finite() && velocity.is_finite()
}

/// The pose of a track at fractional tick `rt`.
fn sample_track(
    track: &Track,
    rt: f64,
    max_extra_s: f64,
) -> Option<(Vec3, Quat, Vec3, PoseSource)> {
    let s = &track.samples;
    let first = s.front()?;
    let last = s.back()?;
    if rt < first.tick as f64 {
        return Some((
            first.position,
            first.orientation,
            first.velocity,
            PoseSource::Held,
        ));
    }
    if rt >= last.tick as f64 {
        return Some(extrapolate(last, rt, max_extra_s));
    }
    // The segment [a, b] with a.tick ≤ rt < b.tick.
    let i = s.partition_point(|x| (x.tick as f64) <= rt);
    let (a, b) = (&s[i - 1], &s[i]);
    if b.teleport {
        return Some(extrapolate(a, rt, max_extra_s));
    }
    let h = (b.tick - a.tick) as f64 * TICK_S;
    let u = (rt - a.tick as f64) / (b.tick - a.tick) as f64;
    Some((
        hermite(a.position, a.velocity, b.position, b.velocity, h, u),
        slerp(a.orientation, b.orientation, u),
        hermite_velocity(a.position, a.velocity, b.position, b.velocity, h, u),
        PoseSource::Interpolated,
    ))
}

fn extrapolate(s: &Sample, rt: f64, max_extra_s: f64) -> (Vec3, Quat, Vec3, PoseSource) {
    let over = ((rt - s.tick as f64) * TICK_S).max(0.0);
    if over <= max_extra_s {
        let source = if over > 0.0 {
            PoseSource::Extrapolated
        } else {
            PoseSource::Interpolated
        };
        (
            s.position + s.velocity * over,
            s.orientation,
            s.velocity,
            source,
        )
    } else {
        (
            s.position + s.velocity * max_extra_s,
            s.orientation,
            Vec3::ZERO,
            PoseSource::Held,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::snapshot::{EntityState, RecordKind, SnapshotRecord, origin_for};

    fn update_with(
        table: &mut EntityTable,
        tick: u64,
        at: Duration,
        x: f64,
        generation: u32,
    ) -> SnapshotUpdate {
        let state = EntityState {
            idx: 9,
            generation,
            type_index: 1,
            position: [x, 2000.0, 0.0],
            orientation: [0.0, 0.0, 0.0, 1.0],
            velocity: [250.0, 0.0, 0.0],
            ..EntityState::default()
        };
        let origin = origin_for(state.position);
        let rec = SnapshotRecord::quantize(&state, 0, origin, RecordKind::FULL);
        let kind = table.apply_record(&rec, origin, tick).expect("applied");
        SnapshotUpdate {
            tick,
            received_at: at,
            bytes: 0,
            own: None,
            changes: vec![(9, kind)],
            removed: Vec::new(),
            effects: Vec::new(),
        }
    }

    fn tick_time(t: u64) -> Duration {
        Duration::from_secs_f64(t as f64 * TICK_S + 0.05)
    }

    #[test]
    fn the_delay_spread_is_the_standard_deviation_of_the_transit() {
        let mut table = EntityTable::new();
        let mut b = RenderBridge::new(InterpolationConfig::default());
        assert_eq!(b.delay_spread(), Duration::ZERO);
        // Alternately 40 and 60 ms on the way (plus a constant clock offset): 10 ms spread.
        for t in 100..100 + 2 * TRANSIT_WINDOW as u64 {
            let extra = if t % 2 == 0 { 0.040 } else { 0.060 };
            let at = Duration::from_secs_f64(7.0 + t as f64 * TICK_S + extra);
            let u = update_with(&mut table, t, at, 1000.0 + t as f64 * 4.0, 1);
            b.on_snapshot(&u, &table);
        }
        let spread = b.delay_spread().as_secs_f64();
        assert!((spread - 0.010).abs() < 1e-6, "spread {spread}");
    }

    #[test]
    fn a_steady_target_is_interpolated_smoothly_behind_now() {
        let mut table = EntityTable::new();
        let mut b = RenderBridge::new(InterpolationConfig::default());
        let mut last_x: Option<f64> = None;
        for t in 100..400u64 {
            let x = 1000.0 + (t - 100) as f64 * 250.0 * TICK_S;
            let u = update_with(&mut table, t, tick_time(t), x, 1);
            b.on_snapshot(&u, &table);
            // Three frames per tick (180 fps).
            for f in 0..3 {
                let now = tick_time(t) + Duration::from_secs_f64(f as f64 * TICK_S / 3.0);
                let frame = b.build_frame(now, None, None);
                let e = frame.entity(9).expect("drawn");
                if t > 130 {
                    assert_eq!(e.source, PoseSource::Interpolated, "tick {t}");
                    let rt = frame.render_tick.expect("clock");
                    let truth = 1000.0 + (rt - 100.0) * 250.0 * TICK_S;
                    assert!(
                        (e.position.x - truth).abs() < 0.1,
                        "{} vs {truth}",
                        e.position.x
                    );
                    let step = e.position.x - last_x.expect("previous frame");
                    assert!((step - 250.0 * TICK_S / 3.0).abs() < 0.2, "step {step}");
                }
                last_x = Some(e.position.x);
            }
        }
        let d = b.delay().as_secs_f64();
        assert!((d - 1.7 * TICK_S).abs() < 0.002, "delay {d}");
    }

    #[test]
    fn gaps_extrapolate_briefly_then_hold_and_respawns_do_not_blend() {
        let mut table = EntityTable::new();
        let mut b = RenderBridge::new(InterpolationConfig::default());
        for t in 0..60u64 {
            let u = update_with(&mut table, t, tick_time(t), t as f64 * 250.0 * TICK_S, 1);
            b.on_snapshot(&u, &table);
            b.build_frame(tick_time(t), None, None);
        }
        // Nothing for a second.
        let mut sources = Vec::new();
        for f in 60..120u64 {
            let frame = b.build_frame(tick_time(f), None, None);
            sources.push(frame.entity(9).expect("kept").source);
        }
        assert!(sources.contains(&PoseSource::Extrapolated));
        assert_eq!(sources.last(), Some(&PoseSource::Held));
        // A respawn far away: the buffer restarts, no blend from the old position.
        let u = update_with(&mut table, 120, tick_time(120), 90_000.0, 2);
        b.on_snapshot(&u, &table);
        let frame = b.build_frame(tick_time(121), None, None);
        let e = frame.entity(9).expect("drawn");
        assert_eq!(e.generation, 2);
        assert!((e.position.x - 90_000.0).abs() < 200.0, "{}", e.position.x);
    }

    #[test]
    fn a_non_finite_own_pose_never_reaches_the_render_list() {
        let mut table = EntityTable::new();
        let mut b = RenderBridge::new(InterpolationConfig::default());
        for t in 0..30u64 {
            let u = update_with(&mut table, t, tick_time(t), t as f64, 1);
            b.on_snapshot(&u, &table);
        }
        let own = Some(OwnEntity {
            idx: 9,
            generation: 1,
        });
        for bad in [f64::NAN, f64::INFINITY] {
            let pose = OwnPose {
                position: Vec3::new(bad, 0.0, 0.0),
                orientation: Quat::IDENTITY,
                velocity: Vec3::ZERO,
                render_tick: 29.0,
                visual_offset: Vec3::ZERO,
            };
            let frame = b.build_frame(tick_time(30), Some(&pose), own);
            let e = frame.entity(9).expect("still drawn from its snapshots");
            assert_ne!(e.source, PoseSource::Predicted);
            assert!(e.position.is_finite() && e.velocity.is_finite(), "{e:?}");
        }
        let mut pose = OwnPose {
            position: Vec3::new(1.0, 2.0, 3.0),
            orientation: Quat::IDENTITY,
            velocity: Vec3::new(f64::NAN, 0.0, 0.0),
            render_tick: 29.0,
            visual_offset: Vec3::ZERO,
        };
        let frame = b.build_frame(tick_time(31), Some(&pose), own);
        assert_ne!(
            frame.entity(9).expect("drawn").source,
            PoseSource::Predicted
        );
        pose.velocity = Vec3::ZERO;
        let frame = b.build_frame(tick_time(32), Some(&pose), own);
        assert_eq!(
            frame.entity(9).expect("drawn").source,
            PoseSource::Predicted
        );
        assert_eq!(b.stats.non_finite_poses, 3);
    }

    #[test]
    fn a_teleport_is_never_interpolated_into() {
        let mut table = EntityTable::new();
        let mut b = RenderBridge::new(InterpolationConfig::default());
        for t in 0..40u64 {
            let x = if t < 20 { t as f64 } else { 50_000.0 };
            let u = update_with(&mut table, t, tick_time(t), x, 1);
            b.on_snapshot(&u, &table);
        }
        assert_eq!(b.stats.teleports, 1);
        let track = b.tracks.get(&9).expect("track");
        let p = sample_track(track, 19.5, 0.2).expect("pose");
        assert!(
            p.0.x < 100.0,
            "no blend towards the teleport target: {}",
            p.0.x
        );
    }

    #[test]
    fn an_outage_is_never_interpolated_across() {
        let mut table = EntityTable::new();
        let mut b = RenderBridge::new(InterpolationConfig::default());
        let x = |t: u64| 1000.0 + t as f64 * 250.0 * TICK_S;
        for t in 0..120u64 {
            let u = update_with(&mut table, t, tick_time(t), x(t), 1);
            b.on_snapshot(&u, &table);
            b.build_frame(tick_time(t), None, None);
        }
        // Three seconds of nothing, then the stream resumes where the target is now.
        for t in 120..300u64 {
            b.build_frame(tick_time(t), None, None);
        }
        let mut interpolated_in_gap = 0;
        for t in 300..360u64 {
            let u = update_with(&mut table, t, tick_time(t), x(t), 1);
            b.on_snapshot(&u, &table);
            for f in 0..3 {
                let now = tick_time(t) + Duration::from_secs_f64(f as f64 * TICK_S / 3.0);
                let frame = b.build_frame(now, None, None);
                let rt = frame.render_tick.expect("clock");
                let e = frame.entity(9).expect("drawn");
                if rt < 300.0 && e.source == PoseSource::Interpolated {
                    interpolated_in_gap += 1;
                }
                if rt >= 300.0 {
                    // On the new samples: where the target is.
                    assert!((e.position.x - x(0) - (rt * 250.0 * TICK_S)).abs() < 0.5);
                }
            }
        }
        assert_eq!(interpolated_in_gap, 0, "no slide through the void");
    }
}

//! One sensor against one target at one check: is it in a lobe, hidden by terrain, notched or
//! lost in clutter, and does the acquisition die come up — as pure functions.
//!
//! The rule of the design record (2026-07-13) is kept by the caller (`contacts`): the dice here
//! gate *acquisition* only; a contact already held is maintained by geometry without a roll.
//! Every die is a [`DrawKey`] with [`Purpose::Detection`], keyed by (seed, tick, observer,
//! target, sensor slot and lobe), so the same world gives the same contacts on any thread count.
//! Must not: keep state, read the clock, or see anything but what it is handed.

use super::geometry::{
    Cone, LookFrame, aspect_factor, ground_radial_speed, looks_down, signature_range_scale,
};
use super::los::{LosConfig, line_of_sight};
use super::spec::{Doppler, REFERENCE_CHECK_HZ, SensorKind, SensorSpec, Signatures};
use crate::draw::{DrawKey, Purpose};
use fl_flight::env::Floor;
use fl_flight::gravity::Planet;
use fl_flight::math::{Quat, Vec3, pow};

/// Night costs the visual channel this share of its probability of detection (entities/f5e.toml:
/// "the engine owns the dark and scales the visual channel's PoD to 25% after hours").
pub const NIGHT_VISUAL_POD_SCALE: f64 = 0.25;

/// No weather takes a channel below this share of its PoD: a target is slow to find in a storm,
/// never mathematically invisible.
pub const MIN_ENVIRONMENT_POD_SCALE: f64 = 0.05;

/// A stable entity identity: the server's pool index and generation, packed. Contacts, fusion and
/// dice are keyed by it, so a reused pool slot is a different target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct EntityId(pub u64);

impl EntityId {
    /// From a pool index and its generation.
    pub const fn new(index: u32, generation: u16) -> Self {
        Self(((generation as u64) << 32) | index as u64)
    }

    /// The pool index (the wire's `targetIdx`).
    pub const fn index(self) -> u32 {
        self.0 as u32
    }

    /// The generation (the wire's `targetGen`).
    pub const fn generation(self) -> u16 {
        (self.0 >> 32) as u16
    }
}

/// The entity that looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observer {
    /// Its identity.
    pub id: EntityId,
    /// World position, m.
    pub position: Vec3,
    /// Engine-body → world orientation (fl-flight's; the nose is body −Z).
    pub orientation: Quat,
    /// Crew skill in [0, 1] (entity `[ai] skill`; 0.5, the default, leaves the PoD as authored).
    pub skill: f64,
}

/// An entity that may be seen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    /// Its identity.
    pub id: EntityId,
    /// World position, m.
    pub position: Vec3,
    /// World velocity, m/s (the notch compares its radial part).
    pub velocity: Vec3,
    /// Its nose direction in the world (IR aspect); zero when unknown (no aspect term).
    pub forward: Vec3,
    /// What it presents to each kind of sensor.
    pub signatures: Signatures,
    /// Height of the ground under it, m above the sphere, when the caller already knows it (the
    /// flight model's floor sample); `None`: sampled from the floor when clutter needs it.
    pub ground_m: Option<f64>,
}

/// Weather and light, and the server's difficulty knob.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Environment {
    /// After hours (the visual channel drops to [`NIGHT_VISUAL_POD_SCALE`]).
    pub night: bool,
    /// Cloud cover, [0, 1].
    pub cloud: f64,
    /// Fog density, [0, 1].
    pub fog: f64,
    /// Share of radar range kept (a difficulty setting; 1 = as authored), [0, 1].
    pub radar_range_fraction: f64,
}

impl Default for Environment {
    /// Clear day: costs nothing, so an authored PoD means what it says.
    fn default() -> Self {
        Self {
            night: false,
            cloud: 0.0,
            fog: 0.0,
            radar_range_fraction: 1.0,
        }
    }
}

/// The world a check runs in.
#[derive(Clone, Copy)]
pub struct SensingWorld<'a> {
    /// The planet (centre at (0, −R, 0)).
    pub planet: Planet,
    /// The ground: fl-terrain's `Terrain`, or a flat floor where there is none.
    pub floor: &'a (dyn Floor + Sync),
    /// How lines of sight are marched.
    pub los: LosConfig,
    /// Weather and light.
    pub env: Environment,
    /// The world's seed for the detection dice.
    pub seed: u64,
}

impl std::fmt::Debug for SensingWorld<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SensingWorld")
            .field("planet", &self.planet)
            .field("los", &self.los)
            .field("env", &self.env)
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

/// When a check happens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckTime {
    /// The simulation tick (keys the dice).
    pub tick: u64,
    /// Seconds since this observer's previous check (its cadence: 0.1 at the reference 10 Hz).
    /// Converts the reference PoD to this cadence and runs down coasts.
    pub interval_s: f64,
}

/// What the caller allows a sensor this check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gates {
    /// The observer's emitter is radiating. An emitting sensor (radar, laser) sees nothing
    /// while silent; passive sensors and receivers ignore this.
    pub emitting: bool,
    /// The track lobe may be evaluated (radar Search mode offers no firing solution).
    pub track_allowed: bool,
    /// Scales a pulse-doppler notch's width, [0, 1]: 1 for a sensor's own processing, a
    /// missile's `notch_susceptibility` for its seeker (0: it cannot be notched).
    pub notch_factor: f64,
}

impl Default for Gates {
    fn default() -> Self {
        Self {
            emitting: true,
            track_allowed: true,
            notch_factor: 1.0,
        }
    }
}

/// Why a target was not seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Miss {
    /// The spec has out-of-range numbers: it sees nothing.
    Unusable,
    /// An emitter that is not radiating.
    Silent,
    /// No bearing (a non-finite position, or the target on top of the observer).
    NoBearing,
    /// Outside every lobe (angle or range band, after signature, aspect and clutter scaling).
    OutOfLobe,
    /// A pulse-doppler radar looking down at a target beaming it: filtered with the ground.
    Notched,
    /// Terrain (or the Earth's bulge) is in the way.
    Masked,
}

/// One sensor's view of one target at one check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// In the search lobe and visible (not masked, not notched).
    pub search_seen: bool,
    /// In the track lobe and visible (false when the track lobe is not allowed or absent).
    pub track_seen: bool,
    /// The search lobe's acquisition die passed (only rolled when `search_seen`).
    pub search_roll: bool,
    /// The track lobe's acquisition die passed (only rolled when `track_seen`).
    pub track_roll: bool,
    /// Why it was not seen, when it was not.
    pub miss: Option<Miss>,
    /// The range, m (NaN without a bearing).
    pub range_m: f64,
}

impl Evaluation {
    fn missed(miss: Miss, range_m: f64) -> Self {
        Self {
            search_seen: false,
            track_seen: false,
            search_roll: false,
            track_roll: false,
            miss: Some(miss),
            range_m,
        }
    }
}

/// Crew skill's factor on PoD: `0.5 + skill`, so the default 0.5 is exactly 1 and the pack's
/// "skill scales probability of detection UP" holds. Out-of-range skill is clamped; NaN is 0.5.
#[inline]
pub fn skill_pod_scale(skill: f64) -> f64 {
    if skill.is_nan() {
        1.0
    } else {
        0.5 + skill.clamp(0.0, 1.0)
    }
}

/// How much the weather and the dark cost a kind of sensor, a factor on PoD in
/// [[`MIN_ENVIRONMENT_POD_SCALE`], 1]; exactly 1 in clear daylight. Visual suffers most and is the
/// only channel the dark touches; IR is dimmed by moisture; radar barely notices; laser shares
/// the eye's line-of-sight problem but not its need for light. The weights are estimates.
pub fn environment_pod_scale(kind: SensorKind, env: &Environment) -> f64 {
    let unit = |x: f64| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    let (cloud_w, fog_w, night) = match kind {
        SensorKind::Visual => (0.7, 0.8, NIGHT_VISUAL_POD_SCALE),
        SensorKind::Ir => (0.4, 0.5, 1.0),
        SensorKind::Radar => (0.15, 0.1, 1.0),
        SensorKind::Laser => (0.7, 0.8, 1.0),
    };
    let s = (1.0 - cloud_w * unit(env.cloud))
        * (1.0 - fog_w * unit(env.fog))
        * if env.night { night } else { 1.0 };
    s.clamp(MIN_ENVIRONMENT_POD_SCALE, 1.0)
}

/// The PoD per reference check after skill and environment, clamped to [0, 1] (NaN is 0).
pub fn effective_pod(pod: f64, kind: SensorKind, skill: f64, env: &Environment) -> f64 {
    let p = pod * skill_pod_scale(skill) * environment_pod_scale(kind, env);
    if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) }
}

/// A per-check probability quoted at [`REFERENCE_CHECK_HZ`] converted to checks at `check_hz`,
/// so the chance of finding a target within a given time is the same at any cadence:
/// `p' = 1 − (1 − p)^(rate_ref / rate)`. Non-positive or NaN rates and probabilities give 0.
pub fn pod_at_rate(pod_ref: f64, check_hz: f64) -> f64 {
    if check_hz.is_nan() || check_hz <= 0.0 {
        return 0.0;
    }
    pod_for_interval(pod_ref, 1.0 / check_hz)
}

/// [`pod_at_rate`] for checks `interval_s` apart.
pub fn pod_for_interval(pod_ref: f64, interval_s: f64) -> f64 {
    if pod_ref.is_nan() || pod_ref <= 0.0 || interval_s.is_nan() || interval_s <= 0.0 {
        return 0.0;
    }
    if pod_ref >= 1.0 {
        return 1.0;
    }
    let e = interval_s * REFERENCE_CHECK_HZ;
    if e == 1.0 {
        return pod_ref;
    }
    if !e.is_finite() {
        return 1.0;
    }
    (1.0 - pow(1.0 - pod_ref, e)).clamp(0.0, 1.0)
}

/// The acquisition die for one (observer, target, sensor slot, lobe) at one tick.
#[inline]
pub fn detection_roll(
    seed: u64,
    tick: u64,
    observer: EntityId,
    target: EntityId,
    slot: u8,
    track_lobe: bool,
    p: f64,
) -> bool {
    DrawKey {
        seed,
        tick,
        actor: observer.0,
        subject: target.0,
        purpose: Purpose::Detection,
        index: (u32::from(slot) << 1) | u32::from(track_lobe),
    }
    .chance(p)
}

/// The geometry-and-clutter part of an evaluation, before terrain and dice.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prepared {
    pub search_in: bool,
    pub track_in: bool,
    /// Per-check probabilities at this check's cadence (skill, environment, clutter applied).
    pub search_pod: f64,
    pub track_pod: f64,
    pub range_m: f64,
}

/// What stays the same for one sensor over all targets of one check.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SlotView {
    pub frame: LookFrame,
    /// The search and track lobes' reach against a baseline target (the range gate).
    pub reach_m: f64,
    pub search: Cone,
    pub track: Option<Cone>,
    pub usable: bool,
}

impl SlotView {
    pub fn new(spec: &SensorSpec, observer: &Observer, world: &SensingWorld<'_>) -> Self {
        let reach_m = spec.track.map_or(spec.search.max_range_m, |t| {
            t.max_range_m.max(spec.search.max_range_m)
        });
        Self {
            frame: LookFrame::for_sensor(
                spec.omnidirectional,
                &world.planet,
                observer.position,
                observer.orientation,
            ),
            reach_m,
            search: Cone::new(&spec.search),
            track: spec.track.as_ref().map(Cone::new),
            usable: spec.usable()
                && observer.position.is_finite()
                && observer.orientation.is_finite(),
        }
    }
}

/// Lobes, signature, aspect, clutter and notch for one target; `Err` says why it is not seen.
pub(crate) fn prepare(
    spec: &SensorSpec,
    view: &SlotView,
    observer: &Observer,
    target: &Target,
    world: &SensingWorld<'_>,
    gates: &Gates,
    interval_s: f64,
) -> Result<Prepared, (Miss, f64)> {
    if !view.usable {
        return Err((Miss::Unusable, f64::NAN));
    }
    if spec.emitter && !gates.emitting {
        return Err((Miss::Silent, f64::NAN));
    }
    let d = target.position - observer.position;
    let range_m = d.length();
    if !range_m.is_finite() || range_m < 1e-6 {
        return Err((Miss::NoBearing, f64::NAN));
    }
    let mut scale = signature_range_scale(spec.kind, &target.signatures);
    if spec.kind == SensorKind::Radar {
        let f = world.env.radar_range_fraction;
        scale *= if f.is_nan() { 1.0 } else { f.clamp(0.0, 1.0) };
    }
    // Range gate before anything costs: no scaling below can lengthen a lobe further.
    if range_m > view.reach_m * scale {
        return Err((Miss::OutOfLobe, range_m));
    }
    let los = d * (1.0 / range_m);
    if spec.head_on_factor < 1.0 {
        scale *= aspect_factor(spec.head_on_factor, target.forward, los);
    }
    let omni = spec.omnidirectional;
    let track = spec.track.filter(|_| gates.track_allowed);
    let lobes = |scale: f64| {
        let search_in = view.search.contains(
            &view.frame,
            los,
            range_m,
            spec.search.max_range_m * scale,
            omni,
        );
        let track_in = match (track, view.track) {
            (Some(t), Some(cone)) => {
                cone.contains(&view.frame, los, range_m, t.max_range_m * scale, omni)
            }
            _ => false,
        };
        (search_in, track_in)
    };
    let (mut search_in, mut track_in) = lobes(scale);
    if !(search_in || track_in) {
        return Err((Miss::OutOfLobe, range_m));
    }
    // Clutter needs the ground behind and under the target (asked only for a target in a lobe:
    // the floor may be a terrain query).
    let needs_ground = spec.doppler != Doppler::None || spec.low_clutter.is_some();
    let (look_down, agl) = if needs_ground {
        let ground = match target.ground_m {
            Some(g) if g.is_finite() => g,
            _ => world.floor.height_m(&world.planet, target.position),
        };
        let agl = world.planet.altitude(target.position) - ground;
        (looks_down(&world.planet, target.position, los, ground), agl)
    } else {
        (false, f64::INFINITY)
    };
    if let Doppler::Pulse {
        look_down_range_factor,
    } = spec.doppler
        && look_down
    {
        (search_in, track_in) = lobes(scale * look_down_range_factor);
        if !(search_in || track_in) {
            return Err((Miss::OutOfLobe, range_m));
        }
    }
    if let Doppler::PulseDoppler {
        notch_half_width_mps,
    } = spec.doppler
        && look_down
    {
        let f = gates.notch_factor;
        let f = if f.is_nan() { 1.0 } else { f.clamp(0.0, 1.0) };
        if ground_radial_speed(target.velocity, los).abs() < notch_half_width_mps * f {
            return Err((Miss::Notched, range_m));
        }
    }
    let mut clutter = 1.0;
    if let Some(c) = spec.low_clutter
        && agl < c.below_agl_m
    {
        clutter = c.pod_factor;
    }
    let pod = |p: f64| {
        pod_for_interval(
            effective_pod(p, spec.kind, observer.skill, &world.env) * clutter,
            interval_s,
        )
    };
    Ok(Prepared {
        search_in,
        track_in,
        search_pod: if search_in { pod(spec.search.pod) } else { 0.0 },
        track_pod: match track {
            Some(t) if track_in => pod(t.pod),
            _ => 0.0,
        },
        range_m,
    })
}

/// Terrain masking between an observer and a target.
#[inline]
pub(crate) fn visible(world: &SensingWorld<'_>, from: Vec3, to: Vec3) -> bool {
    line_of_sight(world.floor, &world.planet, from, to, &world.los)
}

/// Evaluates one sensor (in `slot` of the observer's suite) against one target: lobes, signature
/// and aspect, clutter and notch, terrain, and both acquisition dice. Everything is computed (no
/// shortcut for a held contact); this is what a seeker or a test calls. The per-observer pass
/// (`Sensing::check`) uses the same parts and skips terrain where the dice make it moot.
pub fn evaluate_sensor(
    spec: &SensorSpec,
    slot: u8,
    observer: &Observer,
    target: &Target,
    world: &SensingWorld<'_>,
    time: &CheckTime,
    gates: &Gates,
) -> Evaluation {
    let view = SlotView::new(spec, observer, world);
    let p = match prepare(spec, &view, observer, target, world, gates, time.interval_s) {
        Ok(p) => p,
        Err((miss, range_m)) => return Evaluation::missed(miss, range_m),
    };
    if !visible(world, observer.position, target.position) {
        return Evaluation::missed(Miss::Masked, p.range_m);
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
    Evaluation {
        search_seen: p.search_in,
        track_seen: p.track_in,
        search_roll: p.search_in && roll(false, p.search_pod),
        track_roll: p.track_in && roll(true, p.track_pod),
        miss: None,
        range_m: p.range_m,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_conversion_keeps_the_chance_per_second() {
        let p = 0.35;
        assert_eq!(pod_at_rate(p, 10.0), p);
        // Two checks at 20 Hz find as often as one at 10 Hz.
        let p20 = pod_at_rate(p, 20.0);
        assert!(((1.0 - (1.0 - p20) * (1.0 - p20)) - p).abs() < 1e-12);
        // One check at 5 Hz equals two at 10 Hz.
        let p5 = pod_at_rate(p, 5.0);
        assert!((p5 - (1.0 - 0.65 * 0.65)).abs() < 1e-12);
        assert_eq!(pod_at_rate(p, 0.0), 0.0);
        assert_eq!(pod_at_rate(p, -1.0), 0.0);
        assert_eq!(pod_at_rate(p, f64::NAN), 0.0);
        assert_eq!(pod_at_rate(f64::NAN, 10.0), 0.0);
        assert_eq!(pod_at_rate(1.0, 60.0), 1.0);
        assert_eq!(pod_at_rate(0.0, 60.0), 0.0);
        assert_eq!(pod_for_interval(0.5, f64::INFINITY), 1.0);
    }

    #[test]
    fn skill_and_environment_scale_pod() {
        let clear = Environment::default();
        assert_eq!(effective_pod(0.3, SensorKind::Radar, 0.5, &clear), 0.3);
        assert!((effective_pod(0.3, SensorKind::Radar, 1.0, &clear) - 0.45).abs() < 1e-15);
        assert_eq!(effective_pod(0.9, SensorKind::Radar, 1.0, &clear), 1.0);
        assert_eq!(effective_pod(0.3, SensorKind::Radar, f64::NAN, &clear), 0.3);
        let night = Environment {
            night: true,
            ..clear
        };
        assert_eq!(effective_pod(0.4, SensorKind::Visual, 0.5, &night), 0.1);
        assert_eq!(effective_pod(0.4, SensorKind::Ir, 0.5, &night), 0.4);
        let storm = Environment {
            cloud: 1.0,
            fog: 1.0,
            night: true,
            ..clear
        };
        let v = environment_pod_scale(SensorKind::Visual, &storm);
        assert_eq!(v, MIN_ENVIRONMENT_POD_SCALE);
        assert!(environment_pod_scale(SensorKind::Radar, &storm) > 0.7);
        let junk = Environment {
            cloud: f64::NAN,
            fog: -3.0,
            ..clear
        };
        assert_eq!(environment_pod_scale(SensorKind::Visual, &junk), 1.0);
    }

    #[test]
    fn entity_ids_pack_index_and_generation() {
        let id = EntityId::new(0xdead_beef, 0x1234);
        assert_eq!(id.index(), 0xdead_beef);
        assert_eq!(id.generation(), 0x1234);
        assert_ne!(EntityId::new(5, 1), EntityId::new(5, 2));
    }

    #[test]
    fn dice_are_independent_per_lobe_and_slot() {
        let o = EntityId::new(1, 1);
        let t = EntityId::new(2, 1);
        let n = 20_000u64;
        let mut both = 0;
        let mut s = 0;
        let mut k = 0;
        for tick in 0..n {
            let a = detection_roll(9, tick, o, t, 0, false, 0.5);
            let b = detection_roll(9, tick, o, t, 0, true, 0.5);
            let c = detection_roll(9, tick, o, t, 1, false, 0.5);
            s += u32::from(a);
            k += u32::from(c);
            both += u32::from(a && b);
        }
        let f = |x: u32| f64::from(x) / n as f64;
        assert!((f(s) - 0.5).abs() < 0.02 && (f(k) - 0.5).abs() < 0.02);
        assert!((f(both) - 0.25).abs() < 0.02, "{}", f(both));
    }
}

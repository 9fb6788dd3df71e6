//! A missile's seeker as a sensor: what it can see of its target through its lobes, and the
//! lock it holds.
//!
//! The lock's life (documented choices):
//! - **Visibility**: the target is seen by a lobe when it is inside the lobe's az/el half-angles
//!   around the boresight (the missile is a point mass, so the boresight is its velocity, with
//!   elevation measured against local up), inside its range band (max range scaled by the
//!   target's signature, linearly as the pack's sensor files say), the caller reports line of
//!   sight (terrain masking is the sensing module's job), a radar seeker does not have it in the
//!   doppler notch, and — for a shot that needs support (semi-active radar, or any
//!   `fire_and_forget = false`) — the launcher holds its lock. A semi-active head's own range
//!   band is not applied: it homes on the launcher's illumination, and the pack says the
//!   launcher's lock, not the head, is what limits that shot.
//! - **Acquisition** (searching, never locked — lock-on-after-launch, or a semi-active shot
//!   launched before its launcher locked): the target must stay inside the *search* lobe for
//!   `0.1 s / pod` in a row — the mean time to the first success of the pack's per-check PoD at
//!   its 10 Hz reference cadence. Deterministic: no dice for acquisition. Meanwhile the missile
//!   steers on the launcher's cue, extrapolated.
//! - **Locked**: held while the target is inside the *track* lobe. Decoys seen while locked are
//!   drawn for (see [`crate::flyout::countermeasures`]); one that wins takes the lock (Decoyed)
//!   and the seeker follows it until it burns out or leaves the track lobe.
//! - **Coasting**: when the target drops out (or the decoy is gone), the seeker extrapolates its
//!   last track in a straight line for `lock_hold_s`. It relocks at once if the target
//!   reappears inside the track lobe *and* within [`DECOY_EFFECT_RADIUS_M`] of where the seeker
//!   is looking (the extrapolated track): a head pulled onto a decoy is looking at the decoy's
//!   patch of sky, and a target hundreds of metres away is not in its picture.
//! - **Lost**: the hold ran out; the missile goes dumb (no guidance, a ballistic arc) for the rest
//!   of its flight, as the pack's weapon files describe ("a support drop coasts the seeker's
//!   lock_hold_s, then it goes dumb").
//!
//! Must not: read the world's truth on its own — the caller hands in what there is to see.

use crate::draw::Purpose;
use crate::flyout::countermeasures::{self, DECOY_EFFECT_RADIUS_M, Decoy, DecoyMemory};
use crate::flyout::spec::{MissileSpec, SeekerKind, SeekerLobe};
use fl_flight::math::{Vec3, atan2, sqrt};

/// Reference cadence of the pack's per-check probabilities of detection, s (10 Hz).
pub const POD_CHECK_S: f64 = 0.1;

/// The designated target as the world offers it to the seeker and the fuze this tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TargetView {
    /// World position, m.
    pub position: Vec3,
    /// World velocity, m/s.
    pub velocity: Vec3,
    /// Range scale of the seeker's lobes against this target (IR signature or radar return;
    /// 1.0 = the baseline the sensor files quote).
    pub signature: f64,
    /// False when terrain (or anything else the sensing module knows) hides it.
    pub line_of_sight: bool,
}

impl TargetView {
    /// A baseline target in clear line of sight.
    pub fn new(position: Vec3, velocity: Vec3) -> Self {
        TargetView {
            position,
            velocity,
            signature: 1.0,
            line_of_sight: true,
        }
    }

    /// Finite everywhere (a hostile view is treated as no target at all).
    pub fn is_sane(&self) -> bool {
        self.position.is_finite() && self.velocity.is_finite() && self.signature.is_finite()
    }
}

/// Where the seeker believes its quarry is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Track {
    /// Position when last observed, m.
    pub position: Vec3,
    /// Velocity when last observed, m/s.
    pub velocity: Vec3,
    /// Flight time of that observation, s.
    pub time_s: f64,
}

impl Track {
    /// Straight-line extrapolation to flight time `time_s`.
    pub fn predict(&self, time_s: f64) -> Vec3 {
        self.position + self.velocity * (time_s - self.time_s).max(0.0)
    }
}

/// The seeker's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockState {
    /// No lock yet; steering on the launcher's cue, if any.
    Searching,
    /// Holding the target.
    Locked,
    /// Lost sight; flying the last track for the hold time.
    Coasting,
    /// Hold time ran out; no guidance for the rest of the flight.
    Lost,
    /// A decoy holds the lock.
    Decoyed,
}

/// A seeker's memory between ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seeker {
    /// Lock state.
    pub state: LockState,
    /// The track steered on (the target's, the decoy's, or the launcher's cue).
    pub track: Option<Track>,
    /// Time left to coast, s.
    pub coast_left_s: f64,
    /// Time the target has stayed in the search lobe while acquiring, s.
    pub dwell_s: f64,
    /// The decoy holding the lock (Decoyed).
    pub decoy: Option<u64>,
    /// Decoys already drawn for.
    pub drawn: DecoyMemory,
}

impl Seeker {
    /// A seeker locked on `track`.
    pub fn locked(track: Track) -> Self {
        Seeker {
            state: LockState::Locked,
            track: Some(track),
            coast_left_s: 0.0,
            dwell_s: 0.0,
            decoy: None,
            drawn: DecoyMemory::default(),
        }
    }

    /// A seeker searching, steering on `cue` meanwhile.
    pub fn searching(cue: Option<Track>) -> Self {
        Seeker {
            state: LockState::Searching,
            track: cue,
            coast_left_s: 0.0,
            dwell_s: 0.0,
            decoy: None,
            drawn: DecoyMemory::default(),
        }
    }

    /// The track guidance steers on now, or `None` to fly ballistically.
    pub fn steering_track(&self) -> Option<&Track> {
        match self.state {
            LockState::Lost => None,
            _ => self.track.as_ref(),
        }
    }
}

/// Where the seeker sits and looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeekerPose {
    /// Its position, m.
    pub position: Vec3,
    /// Its boresight (need not be unit length; zero sees nothing).
    pub boresight: Vec3,
    /// Local up, for elevation.
    pub up: Vec3,
}

/// Geometry only: is `to` inside `lobe` seen from `pose`, with the max range scaled by
/// `range_scale` (`check_range = false` skips the range band)?
pub fn in_lobe(
    lobe: &SeekerLobe,
    pose: &SeekerPose,
    to: Vec3,
    range_scale: f64,
    check_range: bool,
) -> bool {
    let r = to - pose.position;
    if check_range {
        let d = r.length();
        if !(d >= lobe.min_range_m && d <= lobe.max_range_m * range_scale.max(0.0)) {
            return false;
        }
    }
    let f = pose.boresight.normalize_or_zero();
    if f == Vec3::ZERO {
        return false;
    }
    let mut right = f.cross(pose.up).normalize_or_zero();
    if right == Vec3::ZERO {
        // Looking straight up or down: any horizontal reference will do.
        right = f.cross(Vec3::new(1.0, 0.0, 0.0)).normalize_or_zero();
        if right == Vec3::ZERO {
            right = f.cross(Vec3::new(0.0, 0.0, 1.0)).normalize_or_zero();
        }
    }
    let up = right.cross(f);
    let (x, y, z) = (r.dot(f), r.dot(right), r.dot(up));
    let az = atan2(y, x);
    let el = atan2(z, sqrt(x * x + y * y));
    az.abs() <= lobe.az_half_angle_rad && el.abs() <= lobe.el_half_angle_rad
}

/// Which lobe a visibility check uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lobe {
    /// Acquisition.
    Search,
    /// Holding.
    Track,
}

/// Does the seeker of `spec` at `pose` see `target` through `lobe`, given whether the launcher
/// holds its lock? (Every rule of the module's "Visibility".)
pub fn sees(
    spec: &MissileSpec,
    pose: &SeekerPose,
    target: &TargetView,
    launcher_lock: bool,
    lobe: Lobe,
) -> bool {
    let p = spec.params();
    let s = &p.seeker;
    if !target.is_sane() || !target.line_of_sight {
        return false;
    }
    if s.needs_support() && !launcher_lock {
        return false;
    }
    let l = match lobe {
        Lobe::Search => &s.search,
        Lobe::Track => &s.track,
    };
    let check_range = s.kind != SeekerKind::SemiActiveRadar;
    if !in_lobe(l, pose, target.position, target.signature, check_range) {
        return false;
    }
    !(s.kind.is_radar()
        && countermeasures::notched(
            pose.position,
            target.position,
            target.velocity,
            p.notch_susceptibility,
        ))
}

/// What the seeker has to look at this tick.
#[derive(Debug, Clone, Copy)]
pub struct SeekerScene<'a> {
    /// The designated target (`None`: gone).
    pub target: Option<&'a TargetView>,
    /// The launcher holds its lock on the target.
    pub launcher_lock: bool,
    /// Flares in the air.
    pub flares: &'a [Decoy],
    /// Chaff in the air.
    pub chaff: &'a [Decoy],
    /// The world's seed (decoy draws).
    pub seed: u64,
    /// The missile's stable id (decoy draws).
    pub missile_id: u64,
}

fn observe(t: &TargetView, time_s: f64) -> Track {
    Track {
        position: t.position,
        velocity: t.velocity,
        time_s,
    }
}

fn decoy_track(d: &Decoy, time_s: f64) -> Track {
    Track {
        position: d.position,
        velocity: d.velocity,
        time_s,
    }
}

/// Advances the seeker by `dt` to flight time `time_s`, looking from `pose`.
pub fn update(
    spec: &MissileSpec,
    seeker: &mut Seeker,
    pose: &SeekerPose,
    scene: &SeekerScene<'_>,
    time_s: f64,
    dt: f64,
) {
    let p = spec.params();
    let sp = &p.seeker;
    let target = scene.target.filter(|t| t.is_sane());
    let sees_with = |lobe| target.is_some_and(|t| sees(spec, pose, t, scene.launcher_lock, lobe));
    let start_coast = |s: &mut Seeker| {
        s.state = LockState::Coasting;
        s.coast_left_s = sp.lock_hold_s;
        s.decoy = None;
    };
    match seeker.state {
        LockState::Locked => {
            let Some(t) = target.filter(|_| sees_with(Lobe::Track)) else {
                start_coast(seeker);
                return;
            };
            let (decoys, purpose, susceptibility) = if sp.kind.is_radar() {
                (scene.chaff, Purpose::ChaffDecoy, p.chaff_susceptibility)
            } else {
                (scene.flares, Purpose::FlareDecoy, p.flare_susceptibility)
            };
            let r2 = DECOY_EFFECT_RADIUS_M * DECOY_EFFECT_RADIUS_M;
            let seen = |d: &Decoy| {
                let off = d.position - t.position;
                off.dot(off) <= r2 && in_lobe(&sp.track, pose, d.position, 1.0, true)
            };
            let won = countermeasures::draw_decoys(
                decoys,
                &mut seeker.drawn,
                scene.seed,
                scene.missile_id,
                purpose,
                susceptibility,
                seen,
            );
            if let Some(d) = won {
                seeker.state = LockState::Decoyed;
                seeker.decoy = Some(d.id);
                seeker.track = Some(decoy_track(d, time_s));
            } else {
                seeker.track = Some(observe(t, time_s));
            }
        }
        LockState::Decoyed => {
            let decoys = if sp.kind.is_radar() {
                scene.chaff
            } else {
                scene.flares
            };
            let held = seeker.decoy.and_then(|id| {
                decoys.iter().find(|d| {
                    d.id == id && d.is_live() && in_lobe(&sp.track, pose, d.position, 1.0, true)
                })
            });
            match held {
                Some(d) => seeker.track = Some(decoy_track(d, time_s)),
                None => start_coast(seeker),
            }
        }
        LockState::Coasting => {
            let looking_at = seeker.track.map(|tr| tr.predict(time_s));
            let r2 = DECOY_EFFECT_RADIUS_M * DECOY_EFFECT_RADIUS_M;
            let in_picture = |t: &TargetView| {
                looking_at.is_some_and(|at| {
                    let off = t.position - at;
                    off.dot(off) <= r2
                })
            };
            if let Some(t) = target.filter(|t| in_picture(t) && sees_with(Lobe::Track)) {
                seeker.state = LockState::Locked;
                seeker.track = Some(observe(t, time_s));
                return;
            }
            seeker.coast_left_s -= dt;
            // A hair of slack: 1.5 s of 1/60 s ticks must end on the 90th, not the 91st.
            if seeker.coast_left_s <= 1e-9 {
                seeker.state = LockState::Lost;
                seeker.coast_left_s = 0.0;
            }
        }
        LockState::Lost => {}
        LockState::Searching => {
            if sp.search.pod <= 0.0 {
                return;
            }
            match target.filter(|_| sees_with(Lobe::Search)) {
                Some(t) => {
                    seeker.dwell_s += dt;
                    // Compare with a hair of slack so 0.1 s / 1.0 acquires on the sixth 1/60 s tick.
                    if seeker.dwell_s + 1e-9 >= POD_CHECK_S / sp.search.pod {
                        seeker.state = LockState::Locked;
                        seeker.track = Some(observe(t, time_s));
                        seeker.dwell_s = 0.0;
                    }
                }
                None => seeker.dwell_s = 0.0,
            }
        }
    }
}

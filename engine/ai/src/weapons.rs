//! Firing decisions: what an AI may know of its own stores ([`StationView`]) and of the others
//! ([`ContactView`], the contacts its sensors hold — the same ones a player's cockpit shows), the
//! intent it hands the server ([`WeaponIntent`], the same buttons, station and radar mode a
//! player's `MsgClientInput` carries) and the fire-control rules that produce it ([`FireControl`]).
//!
//! Owns: the gun and missile firing rules (docs/ai.md "Weapons"). Must not: read the world's
//! truth for a firing decision (only contacts), decide whether a shot is allowed (the server's
//! fire control refuses impossible or too-fast intents exactly as it does a player's), or keep
//! anything but its own small deterministic state (tick counters, the last target shot at).

use crate::view::{EntityId, EntityView, WorldView};
use fl_flight::DT;
use fl_flight::math::{Vec3, atan2};

/// What a station's store is, as far as firing decisions go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StoreKind {
    /// A gun: fired while the trigger is held.
    Gun {
        /// Effective range, m (beyond it the trigger is not pressed).
        range_m: f64,
        /// Muzzle velocity, m/s, for the time of flight of the lead; `f64::INFINITY` for a gun the
        /// server resolves as a hitscan ray (no lead: aim at the target).
        muzzle_velocity_mps: f64,
    },
    /// A guided missile: one released per store-release press.
    Missile {
        /// The seeker's kind.
        seeker: SeekerClass,
        /// Least launch range (fuze arming), m.
        min_range_m: f64,
        /// Kinematic range, m.
        max_range_m: f64,
        /// Half-angle of the seeker's lobe, rad (largest off-boresight angle at launch).
        seeker_half_angle_rad: f64,
        /// Nominal time of flight, s (the "look" of shoot-look-shoot).
        time_of_flight_s: f64,
    },
    /// Anything the AI does not fire (bombs, rockets, tanks, pods).
    Other,
}

/// A missile seeker's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekerClass {
    /// Infrared: needs a locked contact.
    Infrared,
    /// Radar (semi-active or active): needs a locked contact with the radar in STT.
    Radar,
}

/// One station of the AI's own aircraft.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StationView {
    /// Station index (what `MsgClientInput::selectedStation` names).
    pub station: u8,
    /// What it holds.
    pub kind: StoreKind,
    /// Rounds (gun) or stores (missiles) left.
    pub rounds: u32,
}

/// One contact as the observer's sensors hold it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactView {
    /// The entity the contact is of.
    pub target: EntityId,
    /// True when the contact is identified as an enemy (the AI never fires at anything else).
    pub hostile: bool,
    /// Estimated position, m.
    pub position: Vec3,
    /// Estimated velocity, m/s.
    pub velocity: Vec3,
    /// True when a lock (radar STT or a seeker's track) holds it.
    pub locked: bool,
    /// Seconds since the contact was last refreshed.
    pub age_s: f64,
}

/// `radarMode` values (docs/protocol.md).
pub mod radar {
    /// Radar off.
    pub const SILENT: u8 = 0;
    /// Search.
    pub const SEARCH: u8 = 1;
    /// Track while scan.
    pub const TWS: u8 = 2;
    /// Single target track (what a radar missile needs).
    pub const STT: u8 = 3;
}

/// What an AI asks of its weapons this tick: the same intents a player's input carries.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WeaponIntent {
    /// Gun trigger held (level).
    pub trigger: bool,
    /// Store-release button held (the server fires on the press: hold it one tick, then let go).
    pub release: bool,
    /// Station to select (`None`: keep the current one).
    pub station: Option<u8>,
    /// Radar mode to set (`None`: keep the current one).
    pub radar_mode: Option<u8>,
    /// The contact to designate for STT (`InputDesignate`; `None`: keep the designation). The
    /// server designates it only when the sensors hold a contact on it, as for a player.
    pub designate: Option<EntityId>,
    /// Where a ground site wants its launcher or gun pointed (world direction, unit; `None`:
    /// hold). An aircraft points with its controls; the server slews a static site's
    /// orientation toward this at a bounded rate (docs/combat.md "Ground sites").
    pub aim: Option<Vec3>,
}

/// The fire-control rules' numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FireParams {
    /// The gun is never fired beyond this, m (whatever the gun's own range).
    pub gun_max_range_m: f64,
    /// Half-size of the target the gun aims at, m: the trigger is pressed when the aim point is
    /// within `atan(gun_target_radius_m / range)` of the nose (clamped to the next two).
    pub gun_target_radius_m: f64,
    /// Least and largest gun cone, rad.
    pub gun_cone_min_rad: f64,
    pub gun_cone_max_rad: f64,
    /// A missile is launched only inside this fraction of its kinematic range.
    pub missile_range_fraction: f64,
    /// ... and within this fraction of its seeker's half-angle off the nose.
    pub missile_lobe_fraction: f64,
    /// Least time between two launches, s.
    pub launch_interval_s: f64,
    /// Shoot-look-shoot: no second launch at the same target before this fraction of the first
    /// missile's time of flight has passed (capped at `look_max_s`).
    pub look_fraction: f64,
    pub look_max_s: f64,
    /// Contacts older than this are not fired at, s.
    pub max_contact_age_s: f64,
}

impl Default for FireParams {
    fn default() -> Self {
        Self {
            gun_max_range_m: 1000.0,
            gun_target_radius_m: 8.0,
            gun_cone_min_rad: 0.6f64.to_radians(),
            gun_cone_max_rad: 4f64.to_radians(),
            missile_range_fraction: 0.6,
            missile_lobe_fraction: 0.8,
            launch_interval_s: 4.0,
            look_fraction: 0.8,
            look_max_s: 20.0,
            max_contact_age_s: 2.0,
        }
    }
}

/// The gun's aim point against a contact: where the target will be after the rounds' time of
/// flight (relative motion; straight-line, no gravity drop — inside 1 km a 20 mm round drops
/// about a metre). A hitscan gun (`muzzle_velocity_mps` infinite) aims at the target itself.
pub fn gun_aim_point(me: &EntityView, target: Vec3, target_vel: Vec3, muzzle_mps: f64) -> Vec3 {
    if !muzzle_mps.is_finite() || muzzle_mps <= 0.0 {
        return target;
    }
    let rel_v = target_vel - me.velocity;
    // Two fixed-point passes of t = |P + V·t| / u converge well within a degree inside 1 km.
    let mut t = (target - me.position).length() / muzzle_mps;
    for _ in 0..2 {
        t = ((target - me.position) + rel_v * t).length() / muzzle_mps;
    }
    target + rel_v * t
}

/// Angle between the nose and the direction to `point`, rad (π when `point` is on the observer).
pub fn off_nose(me: &EntityView, point: Vec3) -> f64 {
    let d = point - me.position;
    let len = d.length();
    if len <= 0.0 || !len.is_finite() {
        return core::f64::consts::PI;
    }
    let f = me.forward();
    let c = f.dot(d) / len;
    let s = f.cross(d).length() / len;
    atan2(s, c)
}

/// The contact of `target` the observer holds, if any.
pub fn contact_of(world: &dyn WorldView, me: EntityId, target: EntityId) -> Option<ContactView> {
    let mut found = None;
    world.contacts(me, &mut |c| {
        if c.target == target {
            found = Some(*c);
        }
    });
    found
}

/// The nearest hostile, fresh contact (ties to the lower entity index).
pub fn nearest_hostile_contact(
    world: &dyn WorldView,
    me: &EntityView,
    max_age_s: f64,
) -> Option<ContactView> {
    nearest_hostile_where(world, me, max_age_s, |_, _| true)
}

/// The nearest hostile, fresh contact that `accept` takes (given the contact and its squared
/// distance, m²; ties to the lower entity index): the one target choice of fire control and the
/// ground sites, which narrow it to their range and arc.
pub(crate) fn nearest_hostile_where(
    world: &dyn WorldView,
    me: &EntityView,
    max_age_s: f64,
    mut accept: impl FnMut(&ContactView, f64) -> bool,
) -> Option<ContactView> {
    let mut best: Option<(f64, ContactView)> = None;
    world.contacts(me.id, &mut |c| {
        if !c.hostile || c.target == me.id || c.age_s.is_nan() || c.age_s > max_age_s {
            return;
        }
        let d = me.distance_sq(c.position);
        if !accept(c, d) {
            return;
        }
        let better = match &best {
            None => true,
            Some((bd, b)) => d < *bd || (d == *bd && c.target.index < b.target.index),
        };
        if better {
            best = Some((d, *c));
        }
    });
    best.map(|(_, c)| c)
}

/// The fire-control state of one AI: launch timing and the target last shot at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FireControl {
    params: FireParams,
    /// Tick of the last launch.
    last_launch: Option<u64>,
    /// The target of the last launch and the tick the look ends.
    looking_at: Option<(EntityId, u64)>,
    /// The release button was held last tick (the server acts on the press). True at the
    /// start: an aircraft's buttons count as held when it spawns, so the first press must
    /// follow a tick of letting go.
    release_held: bool,
    /// The last launch's station and the stores it held before: a launch the server did not
    /// make (refused, or the press not seen) is forgotten once the count has not fallen.
    pending: Option<(u8, u32, u64)>,
    /// Shots decided so far (trigger ticks and launches), for status lines and tests.
    pub trigger_ticks: u64,
    pub launches: u64,
}

impl Default for FireControl {
    fn default() -> Self {
        Self::new(FireParams::default())
    }
}

impl FireControl {
    /// Fire control with `params`.
    pub fn new(params: FireParams) -> Self {
        Self {
            params,
            last_launch: None,
            looking_at: None,
            release_held: true,
            pending: None,
            trigger_ticks: 0,
            launches: 0,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &FireParams {
        &self.params
    }

    /// Forgets launch timing and the last target (a restarted behaviour).
    pub fn reset(&mut self) {
        let (t, l) = (self.trigger_ticks, self.launches);
        *self = Self::new(self.params);
        self.trigger_ticks = t;
        self.launches = l;
    }

    /// The gun's aim point against `c` with the first gun that has rounds, if any (what the
    /// pursuer steers the nose onto inside gun range).
    pub fn gun_solution(
        &self,
        me: &EntityView,
        world: &dyn WorldView,
        c: &ContactView,
    ) -> Option<Vec3> {
        let (range_m, muzzle) = first_gun(world, me.id)?;
        let range = (c.position - me.position).length();
        if range > range_m.min(self.params.gun_max_range_m) * 1.5 {
            return None;
        }
        Some(gun_aim_point(me, c.position, c.velocity, muzzle))
    }

    /// This tick's intent against the contact `target` (the one the behaviour attacks; `None`:
    /// nothing to shoot at). Reads only `me`, `target` (a contact) and the own stores.
    pub fn decide(
        &mut self,
        me: &EntityView,
        world: &dyn WorldView,
        target: Option<&ContactView>,
        tick: u64,
    ) -> WeaponIntent {
        let mut intent = WeaponIntent::default();
        // A press lasts one tick: let go before anything else.
        if self.release_held {
            self.release_held = false;
            return intent;
        }
        if !me.alive {
            return intent;
        }
        let Some(c) = target.filter(|c| c.hostile && c.age_s <= self.params.max_contact_age_s)
        else {
            return intent;
        };
        let range = (c.position - me.position).length();
        if !range.is_finite() {
            return intent;
        }
        let mut stations: Vec<StationView> = Vec::new();
        world.stores(me.id, &mut |s| stations.push(*s));
        stations.sort_by_key(|s| s.station);
        // Did the last launch happen? Two ticks after the press the station must hold less.
        if let Some((station, before, at)) = self.pending
            && tick >= at + 2
        {
            self.pending = None;
            let now = stations
                .iter()
                .find(|s| s.station == station)
                .map_or(0, |s| s.rounds);
            if now >= before {
                // Not launched: nothing to look at, but the interval still spaces the presses.
                self.looking_at = None;
                self.launches = self.launches.saturating_sub(1);
            }
        }

        // Gun.
        if let Some(s) = stations
            .iter()
            .find(|s| s.rounds > 0 && matches!(s.kind, StoreKind::Gun { .. }))
            && let StoreKind::Gun {
                range_m,
                muzzle_velocity_mps,
            } = s.kind
            && range <= range_m.min(self.params.gun_max_range_m)
        {
            let aim = gun_aim_point(me, c.position, c.velocity, muzzle_velocity_mps);
            let cone = atan2(self.params.gun_target_radius_m, range)
                .clamp(self.params.gun_cone_min_rad, self.params.gun_cone_max_rad);
            let ahead = (c.position - me.position).dot(me.forward()) > 0.0;
            if ahead && off_nose(me, aim) <= cone {
                intent.trigger = true;
                self.trigger_ticks += 1;
            }
        }

        // Missiles: the first station (lowest index) whose envelope holds the contact.
        let since_launch = self
            .last_launch
            .map_or(f64::INFINITY, |t| tick.saturating_sub(t) as f64 * DT);
        let looking = self
            .looking_at
            .is_some_and(|(id, until)| id == c.target && tick < until);
        let off = off_nose(me, c.position);
        let mut want_stt = false;
        for s in &stations {
            let StoreKind::Missile {
                seeker,
                min_range_m,
                max_range_m,
                seeker_half_angle_rad,
                time_of_flight_s,
            } = s.kind
            else {
                continue;
            };
            if s.rounds == 0 {
                continue;
            }
            let in_envelope = range >= min_range_m
                && range <= self.params.missile_range_fraction * max_range_m
                && off <= self.params.missile_lobe_fraction * seeker_half_angle_rad;
            if !in_envelope || !c.locked {
                continue;
            }
            let radar_ready = match seeker {
                SeekerClass::Infrared => true,
                SeekerClass::Radar => {
                    want_stt = true;
                    world.radar_mode(me.id) == Some(radar::STT)
                }
            };
            if !radar_ready || since_launch < self.params.launch_interval_s || looking {
                // Select it now so the press finds it selected.
                intent.station = Some(s.station);
                break;
            }
            intent.station = Some(s.station);
            intent.release = true;
            self.release_held = true;
            self.pending = Some((s.station, s.rounds, tick));
            self.last_launch = Some(tick);
            let look_s = (self.params.look_fraction * time_of_flight_s).min(self.params.look_max_s);
            self.looking_at = Some((c.target, tick + (look_s / DT) as u64));
            self.launches += 1;
            break;
        }
        if want_stt {
            intent.radar_mode = Some(radar::STT);
        }
        intent
    }
}

/// The first gun with rounds left: (effective range, muzzle velocity).
fn first_gun(world: &dyn WorldView, me: EntityId) -> Option<(f64, f64)> {
    let mut best: Option<(u8, f64, f64)> = None;
    world.stores(me, &mut |s| {
        if let StoreKind::Gun {
            range_m,
            muzzle_velocity_mps,
        } = s.kind
            && s.rounds > 0
            && best.is_none_or(|(b, _, _)| s.station < b)
        {
            best = Some((s.station, range_m, muzzle_velocity_mps));
        }
    });
    best.map(|(_, r, m)| (r, m))
}

//! Ground air defence: the `sam` and `aaa` behaviours the pack's missions give their SAM and AAA
//! sites. A site does not fly — its controls stay idle — and fights only through its weapons
//! intent: the radar mode, the designation, the launcher's or gun's aim and the buttons.
//!
//! Owns: the sites' engagement rules (docs/ai.md "Ground air defence"): which contact to engage,
//! when to emit, when to lock, where to point, when to shoot. Must not: read the world's truth
//! (only the site's own contacts and stores, like every firing decision), or point anywhere but
//! inside the emplacement's traverse arc (its facing at the first sample, ± `cone_half_deg`).

use crate::controller::{Controller, ParamError, check_range, idle_controls};
use crate::view::{EntityId, EntityView, WorldView};
use crate::weapons::{
    ContactView, FireControl, FireParams, StationView, StoreKind, WeaponIntent, gun_aim_point,
    nearest_hostile_where, radar,
};
use fl_flight::math::Vec3;
use fl_flight::{Controls, DT};

/// A `sam` site's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamParams {
    /// Engagement range, m: a hostile contact is locked and shot at only inside it.
    pub range_m: f64,
    /// Half-width of the launcher's traverse arc about the emplacement's facing, deg.
    pub cone_half_deg: f64,
    /// Least time between two launches, s.
    pub interval_s: f64,
}

impl Default for SamParams {
    fn default() -> Self {
        Self {
            range_m: 15_000.0,
            // The pack's documented default (entities/sa6_battery.toml: ±90° about body forward).
            cone_half_deg: 90.0,
            interval_s: 5.0,
        }
    }
}

impl SamParams {
    /// Checks every parameter's range.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_range("range", self.range_m, 500.0, 200_000.0)?;
        check_range("cone_half_deg", self.cone_half_deg, 1.0, 180.0)?;
        check_range("interval", self.interval_s, 0.5, 600.0)?;
        Ok(())
    }
}

/// An `aaa` site's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AaaParams {
    /// Firing range, m (`None`: the gun's own effective range from its def).
    pub range_m: Option<f64>,
    /// Half-width of the gun's traverse arc about the emplacement's facing, deg.
    pub cone_half_deg: f64,
}

impl Default for AaaParams {
    fn default() -> Self {
        Self {
            range_m: None,
            // A gun turret traverses through a full circle.
            cone_half_deg: 180.0,
        }
    }
}

impl AaaParams {
    /// Checks every parameter's range.
    pub fn validate(&self) -> Result<(), ParamError> {
        if let Some(r) = self.range_m {
            check_range("range", r, 50.0, 20_000.0)?;
        }
        check_range("cone_half_deg", self.cone_half_deg, 1.0, 180.0)?;
        Ok(())
    }
}

/// The emplacement's facing (captured at the first sample) and its traverse arc.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Arc {
    home: Option<Vec3>,
    cos_half: f64,
    full: bool,
}

impl Arc {
    fn new(cone_half_deg: f64) -> Self {
        Self {
            home: None,
            cos_half: fl_flight::math::cos(cone_half_deg.to_radians()),
            full: cone_half_deg >= 180.0,
        }
    }

    fn capture(&mut self, me: &EntityView) {
        if self.home.is_none() {
            self.home = Some(level(me.forward(), me.up));
        }
    }

    /// True when `point` lies inside the arc (compared level, in the site's horizontal plane).
    fn holds(&self, me: &EntityView, point: Vec3) -> bool {
        if self.full {
            return true;
        }
        let Some(home) = self.home else { return false };
        let d = level(point - me.position, me.up);
        if d == Vec3::ZERO || home == Vec3::ZERO {
            // Straight overhead (or a site with no facing): any arc reaches it.
            return true;
        }
        home.dot(d) >= self.cos_half
    }
}

/// `v` projected onto the plane normal to `up`, unit (zero when `v` is along `up`).
fn level(v: Vec3, up: Vec3) -> Vec3 {
    (v - up * v.dot(up)).normalize_or_zero()
}

/// The site's stations, index order.
fn stations(world: &dyn WorldView, me: EntityId) -> Vec<StationView> {
    let mut s = Vec::new();
    world.stores(me, &mut |v| s.push(*v));
    s.sort_by_key(|v| v.station);
    s
}

/// The nearest hostile, fresh contact within `range_m` and inside the arc (ties to the lower
/// entity index).
fn nearest_in(
    world: &dyn WorldView,
    me: &EntityView,
    arc: &Arc,
    range_m: f64,
    max_age_s: f64,
) -> Option<ContactView> {
    nearest_hostile_where(world, me, max_age_s, |c, d2| {
        !d2.is_nan() && d2 <= range_m * range_m && arc.holds(me, c.position)
    })
}

/// The contact on `target`, if the site still holds a fresh hostile one.
fn contact_on(
    world: &dyn WorldView,
    me: &EntityView,
    target: EntityId,
    max_age_s: f64,
) -> Option<ContactView> {
    let mut found = None;
    world.contacts(me.id, &mut |c| {
        if c.target == target && c.hostile && c.age_s <= max_age_s {
            found = Some(*c);
        }
    });
    found
}

/// How far above the line of sight a SAM launcher is laid, rad (10°): a missile leaving the rail
/// at walking speed sinks until its motor has given it the speed to manoeuvre, and one laid on
/// the line of sight to a low target flies into the ground. Inside the launch gate (fire control
/// launches within 0.8 of the seeker's half-angle off the nose, 16° for the 3M9M).
pub const SAM_LOFT_RAD: f64 = 10.0 * core::f64::consts::PI / 180.0;

/// The longest a SAM site takes one of its missiles to fly, s: the shoot-look-shoot look and
/// how long STT is held after a launch (the 3M9M burns 22 s and coasts a few more to its reach).
pub const SAM_LOOK_MAX_S: f64 = 30.0;

/// How close to its aim a launcher must be laid to fire, rad (2°).
const LAID_RAD: f64 = 2.0 * core::f64::consts::PI / 180.0;

/// `d` (unit) raised toward `up` by `loft` rad, never past the vertical.
fn lofted(d: Vec3, up: Vec3, loft: f64) -> Vec3 {
    let vertical = up * d.dot(up);
    let horizontal = (d - vertical).normalize_or_zero();
    if horizontal == Vec3::ZERO {
        return d;
    }
    let elevation = fl_flight::math::atan2(d.dot(up), (d - vertical).length());
    let e = (elevation + loft).min(core::f64::consts::FRAC_PI_2 - 0.01);
    (horizontal * fl_flight::math::cos(e) + up * fl_flight::math::sin(e)).normalize_or_zero()
}

/// Unit direction from the site to `point` (`None` on the site itself).
fn towards(me: &EntityView, point: Vec3) -> Option<Vec3> {
    let d = (point - me.position).normalize_or_zero();
    (d != Vec3::ZERO && d.is_finite()).then_some(d)
}

/// A surface-to-air missile site: searches, locks (STT) the nearest hostile contact inside its
/// engagement range and arc, points its launcher at it and launches once the lock is
/// firing-quality and the target is in the missile's envelope; one missile at a time per target
/// (shoot-look-shoot), STT held while that missile flies, back to search when the target dies or
/// leaves.
#[derive(Debug, Clone)]
pub struct Sam {
    params: SamParams,
    arc: Arc,
    fire: FireControl,
    /// The contact engaged, and the tick its last missile's flight ends (STT is held until then
    /// even outside the range: a semi-active missile needs the launcher's lock).
    engaged: Option<(EntityId, u64)>,
    /// The launches counted by fire control at the last tick (a new one starts a flight).
    launches_seen: u64,
}

impl Sam {
    /// A site with `params` (checked).
    pub fn new(params: SamParams) -> Result<Self, ParamError> {
        params.validate()?;
        let fire = FireControl::new(FireParams {
            // The site's own range bounds the shot (the contact passed in is inside it); the
            // missile's kinematic range bounds it again in fire control.
            missile_range_fraction: 1.0,
            missile_lobe_fraction: 0.8,
            launch_interval_s: params.interval_s,
            // One missile in flight per target: the site cannot see its missile, so it takes a
            // flight to last the missile's time of flight, at most `SAM_LOOK_MAX_S`.
            look_fraction: 1.0,
            look_max_s: SAM_LOOK_MAX_S,
            ..FireParams::default()
        });
        Ok(Self {
            params,
            arc: Arc::new(params.cone_half_deg),
            fire,
            engaged: None,
            launches_seen: 0,
        })
    }

    /// Missiles launched so far.
    pub fn launches(&self) -> u64 {
        self.fire.launches
    }

    /// The longest time of flight of the site's missiles, s (how long STT is held after a shot).
    fn flight_s(stations: &[StationView]) -> f64 {
        stations
            .iter()
            .filter_map(|s| match s.kind {
                StoreKind::Missile {
                    time_of_flight_s, ..
                } => Some(time_of_flight_s),
                _ => None,
            })
            .fold(0.0, f64::max)
            .clamp(1.0, SAM_LOOK_MAX_S)
    }
}

impl Controller for Sam {
    fn sample(&mut self, me: &EntityView, _world: &dyn WorldView, _tick: u64) -> Controls {
        self.arc.capture(me);
        idle_controls()
    }

    fn weapons(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> WeaponIntent {
        self.arc.capture(me);
        let max_age = self.fire.params().max_contact_age_s;
        let stations = stations(world, me.id);
        // Keep the engaged contact while it is held and inside the range, or while a missile
        // fired at it still flies; else engage the nearest one inside range and arc.
        let kept = self.engaged.and_then(|(id, flying_until)| {
            let c = contact_on(world, me, id, max_age)?;
            let inside = me.distance_sq(c.position) <= self.params.range_m * self.params.range_m
                && self.arc.holds(me, c.position);
            (inside || tick < flying_until).then_some(c)
        });
        let target =
            kept.or_else(|| nearest_in(world, me, &self.arc, self.params.range_m, max_age));
        let Some(c) = target else {
            if self.engaged.take().is_some() {
                self.fire.reset();
            }
            // Nothing to engage: the surveillance radar searches.
            let mut intent = self.fire.decide(me, world, None, tick);
            intent.radar_mode = Some(radar::SEARCH);
            return intent;
        };
        if self.engaged.is_none_or(|(id, _)| id != c.target) {
            self.engaged = Some((c.target, 0));
        }
        let inside = me.distance_sq(c.position) <= self.params.range_m * self.params.range_m;
        let aim = towards(me, c.position).map(|d| lofted(d, me.up, SAM_LOFT_RAD));
        // The launcher fires only once laid on its aim (not while still slewing through the
        // launch gate's edge: the missile would leave pointing off to the side).
        let laid = aim.is_some_and(|a| {
            let f = me.forward();
            fl_flight::math::atan2(f.cross(a).length(), f.dot(a)) <= LAID_RAD
        });
        let mut intent = self
            .fire
            .decide(me, world, (inside && laid).then_some(&c), tick);
        if self.fire.launches > self.launches_seen
            && let Some((_, until)) = &mut self.engaged
        {
            *until = tick + (Self::flight_s(&stations) / DT) as u64;
        }
        self.launches_seen = self.fire.launches;
        intent.radar_mode = Some(radar::STT);
        intent.designate = Some(c.target);
        intent.aim = aim;
        intent
    }

    fn reset(&mut self) {
        self.fire.reset();
        self.engaged = None;
    }

    fn behaviour(&self) -> &'static str {
        "sam"
    }

    fn status(&self) -> Option<String> {
        Some(match self.engaged {
            Some((id, _)) => format!("engaging {}:{}", id.index, id.generation),
            None => "search".to_string(),
        })
    }
}

/// An anti-aircraft gun site: points its gun at the lead point of the nearest hostile contact
/// and holds the trigger while that point is inside the gun's cone and the contact inside its
/// firing range (the gun's effective range from its def unless the line names one).
#[derive(Debug, Clone)]
pub struct Aaa {
    params: AaaParams,
    arc: Arc,
    fire: FireControl,
    target: Option<EntityId>,
}

impl Aaa {
    /// A site with `params` (checked).
    pub fn new(params: AaaParams) -> Result<Self, ParamError> {
        params.validate()?;
        let fire = FireControl::new(FireParams {
            gun_max_range_m: params.range_m.unwrap_or(f64::INFINITY),
            ..FireParams::default()
        });
        Ok(Self {
            params,
            arc: Arc::new(params.cone_half_deg),
            fire,
            target: None,
        })
    }

    /// Ticks the trigger was held.
    pub fn trigger_ticks(&self) -> u64 {
        self.fire.trigger_ticks
    }
}

impl Controller for Aaa {
    fn sample(&mut self, me: &EntityView, _world: &dyn WorldView, _tick: u64) -> Controls {
        self.arc.capture(me);
        idle_controls()
    }

    fn weapons(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> WeaponIntent {
        self.arc.capture(me);
        let max_age = self.fire.params().max_contact_age_s;
        let gun = stations(world, me.id)
            .into_iter()
            .find_map(|s| match s.kind {
                StoreKind::Gun {
                    range_m,
                    muzzle_velocity_mps,
                } if s.rounds > 0 => Some((range_m, muzzle_velocity_mps)),
                _ => None,
            });
        let Some((gun_range, muzzle)) = gun else {
            self.target = None;
            return self.fire.decide(me, world, None, tick);
        };
        let range = self.params.range_m.unwrap_or(gun_range).min(gun_range);
        // The gun is laid on anything hostile within 1.5× its range, so it is already pointing
        // when the target arrives; the trigger waits for the range (fire control's rule).
        let c = nearest_in(world, me, &self.arc, 1.5 * range, max_age);
        self.target = c.map(|c| c.target);
        let mut intent = self.fire.decide(me, world, c.as_ref(), tick);
        if let Some(c) = c {
            let aim = gun_aim_point(me, c.position, c.velocity, muzzle);
            intent.aim = towards(me, aim);
        }
        intent
    }

    fn reset(&mut self) {
        self.fire.reset();
        self.target = None;
    }

    fn behaviour(&self) -> &'static str {
        "aaa"
    }

    fn status(&self) -> Option<String> {
        Some(match self.target {
            Some(id) => format!("tracking {}:{}", id.index, id.generation),
            None => "search".to_string(),
        })
    }
}

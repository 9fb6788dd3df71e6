//! Helpers that place an aircraft in a consistent starting state: trimmed in level flight, or
//! parked on its gear, wings level in the local horizontal plane of where it is placed.
//!
//! Owns: initial conditions. Must not: be called inside a step (servers call it at spawn time).
//!
//! Headings are compass headings (0 north, π/2 east) of a *reference frame*: the local frame of
//! a geodetic position for [`trim_level_at`] / [`parked_at`], the world origin's frame (X east,
//! −Z north) for the older origin-relative [`trim_level`] / [`parked`]. A heading of a reference
//! frame is carried into the local horizontal plane of the actual position (see
//! [`level_orientation`]), so a line of aircraft near the origin keeps one heading even though the
//! local frame turns fast around the pole there.

use crate::aero::{AeroConfig, lift_drag};
use crate::env::Floor;
use crate::geodetic::{self, Enu, Geodetic};
use crate::gravity::Planet;
use crate::math::{Quat, Vec3, cos, sin};
use crate::model::AircraftModel;
use crate::perf::{Condition, Power, Trimmer};
use crate::state::{AircraftState, Controls};

/// A level-flight trim: the state and the controls that hold it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelTrim {
    /// The trimmed state (wings level, flight path horizontal).
    pub state: AircraftState,
    /// Pitch command and throttle that hold it.
    pub controls: Controls,
    /// Trim angle of attack, rad.
    pub alpha: f64,
}

/// Trims `m` in level flight at `altitude_m` and true airspeed `tas` with `fuel_kg` aboard, heading
/// `heading_rad`, positioned above the world origin. `None` when the condition cannot be held on
/// military power or the elevator cannot balance it.
pub fn trim_level(
    m: &AircraftModel,
    planet: &Planet,
    altitude_m: f64,
    tas: f64,
    fuel_kg: f64,
    heading_rad: f64,
) -> Option<LevelTrim> {
    let mass = m.mass(fuel_kg, 0.0);
    let cond = Condition {
        altitude_m,
        mass_kg: mass,
        payload_cd0: 0.0,
    };
    let t = Trimmer::new(m, &cond);
    // Iterate: alpha depends on thrust's normal component, which depends on the throttle.
    let mut throttle = 0.5;
    let mut alpha = 0.0;
    for _ in 0..30 {
        let thrust_at = |th: f64| {
            let mach = t.mach(tas);
            crate::propulsion::thrust(&m.engine, mach, altitude_m, th, 0.0)
        };
        let tn = thrust_at(throttle);
        let atm = t.atmosphere();
        let qs = 0.5 * atm.density_kg_m3 * tas * tas * m.wing_area_m2;
        let mach = t.mach(tas);
        let cfg = AeroConfig {
            sweep_deg: m.sweep.as_ref().map_or(0.0, |s| s.scheduled(mach)),
            ..AeroConfig::default()
        };
        // Solve normal balance for alpha at this thrust by bisection on the rising branch.
        let (lo0, hi0) = (m.alpha_min, t.max_load(tas, Power::Military, None).1);
        let normal = |a: f64| lift_drag(m, a, mach, &cfg).cl() * qs + tn * sin(a) - t.weight();
        if normal(hi0) < 0.0 {
            return None;
        }
        let (mut lo, mut hi) = (lo0, hi0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if normal(mid) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        alpha = 0.5 * (lo + hi);
        let drag = lift_drag(m, alpha, mach, &cfg).cd() * qs;
        let t_idle = thrust_at(0.0);
        let t_mil = thrust_at(1.0);
        let need = drag / cos(alpha);
        if t_mil <= t_idle {
            return None;
        }
        let th = (need - t_idle) / (t_mil - t_idle);
        if !(0.0..=1.0).contains(&th) {
            return None;
        }
        if (th - throttle).abs() < 1e-14 {
            throttle = th;
            break;
        }
        throttle = th;
    }
    let de = -(m.cm0 + m.cm_alpha * alpha) / m.cm_de;
    let pitch = if de <= 0.0 {
        -de / m.elevator_up_rad
    } else {
        -de / m.elevator_down_rad
    };
    if !(-1.0..=1.0).contains(&pitch) {
        return None;
    }
    let pos = Vec3::new(0.0, altitude_m, 0.0);
    let mut s = AircraftState::flying(pos, heading_rad, tas, fuel_kg);
    // Pitch the nose up by alpha about the body's right (engine +X) axis; velocity stays level.
    s.orientation = s
        .orientation
        .then(Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), alpha));
    s.spool = throttle;
    let _ = planet;
    let controls = Controls {
        pitch,
        throttle,
        ..Controls::default()
    };
    Some(LevelTrim {
        state: s,
        controls,
        alpha,
    })
}

/// The orientation at `position` of an aircraft whose nose points along compass heading
/// `heading_rad` of the reference frame `frame`, carried into the local horizontal plane at
/// `position`, pitched up by `pitch_rad`, wings level. With `frame` the local frame of `position`
/// the heading is exactly the local compass heading.
pub fn level_orientation(
    planet: &Planet,
    position: Vec3,
    frame: &Enu,
    heading_rad: f64,
    pitch_rad: f64,
) -> Quat {
    let local = Enu::at(planet, position);
    let dir = frame.horizontal_direction(heading_rad);
    let h = dir - local.up * dir.dot(local.up);
    let local_heading = if h.dot(h) > 1e-12 {
        local.heading_of(h)
    } else {
        heading_rad
    };
    geodetic::orientation(&local, local_heading, pitch_rad, 0.0)
}

/// Like [`trim_level`], at a geodetic position: latitude and longitude of `at`, geodetic altitude
/// `at.alt_m`, nose on compass heading `heading_rad` of the local frame there, velocity level.
pub fn trim_level_at(
    m: &AircraftModel,
    planet: &Planet,
    at: Geodetic,
    tas: f64,
    fuel_kg: f64,
    heading_rad: f64,
) -> Option<LevelTrim> {
    let position = geodetic::to_world(planet, at);
    let frame = Enu::at(planet, position);
    trim_level_placed(
        m,
        planet,
        position,
        &frame,
        at.alt_m,
        tas,
        fuel_kg,
        heading_rad,
    )
}

/// Like [`trim_level`], at world `position` (its geodetic altitude is the trim's), heading
/// `heading_rad` of the reference frame `frame` (see [`level_orientation`]).
#[allow(clippy::too_many_arguments)]
pub fn trim_level_placed(
    m: &AircraftModel,
    planet: &Planet,
    position: Vec3,
    frame: &Enu,
    altitude_m: f64,
    tas: f64,
    fuel_kg: f64,
    heading_rad: f64,
) -> Option<LevelTrim> {
    let mut trim = trim_level(m, planet, altitude_m, tas, fuel_kg, heading_rad)?;
    let position = geodetic::at_altitude(planet, position, altitude_m);
    let level = level_orientation(planet, position, frame, heading_rad, 0.0);
    let s = &mut trim.state;
    s.position = position;
    s.velocity = level.rotate(Vec3::new(0.0, 0.0, -1.0)) * tas;
    s.orientation = level
        .then(Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), trim.alpha))
        .normalize();
    Some(trim)
}

/// An aircraft at rest on its gear on the floor under `(x, z)` (world, near the origin), heading
/// `heading_rad` of the origin's frame (0 along −Z, π/2 along +X), wings level on the local
/// horizontal, engine at idle, struts at static deflection.
pub fn parked(
    m: &AircraftModel,
    planet: &Planet,
    floor: &dyn Floor,
    x: f64,
    z: f64,
    heading_rad: f64,
    fuel_kg: f64,
) -> AircraftState {
    let probe = Vec3::new(x, 0.0, z);
    let origin = Enu::at(planet, Vec3::ZERO);
    parked_placed(m, planet, floor, probe, &origin, heading_rad, fuel_kg)
}

/// An aircraft at rest on its gear on the floor under latitude/longitude `at` (its altitude is
/// ignored: the floor decides), nose on compass heading `heading_rad` of the local frame there.
pub fn parked_at(
    m: &AircraftModel,
    planet: &Planet,
    floor: &dyn Floor,
    at: Geodetic,
    heading_rad: f64,
    fuel_kg: f64,
) -> AircraftState {
    let probe = geodetic::to_world(planet, Geodetic { alt_m: 0.0, ..at });
    let frame = Enu::at(planet, probe);
    parked_placed(m, planet, floor, probe, &frame, heading_rad, fuel_kg)
}

/// [`parked_at`] at a world point `probe` (any altitude: the aircraft is put on the floor under
/// it) with the level frame `frame` its heading is measured in.
pub fn parked_placed(
    m: &AircraftModel,
    planet: &Planet,
    floor: &dyn Floor,
    probe: Vec3,
    frame: &Enu,
    heading_rad: f64,
    fuel_kg: f64,
) -> AircraftState {
    let f = floor.sample(planet, probe);
    let ground = if f.height_m.is_finite() {
        f.height_m
    } else {
        0.0
    };
    let cg_h = m.gear.wheels[0].point[2] - m.gear.static_deflection_m;
    let up = planet.up(probe);
    let pos = probe + up * (ground - planet.altitude(probe) + cg_h);
    let mut s = AircraftState::flying(pos, heading_rad, 0.0, fuel_kg);
    s.orientation = level_orientation(planet, pos, frame, heading_rad, 0.0);
    s.gear = 1.0;
    s.wheels_on_ground = 0b111;
    s
}

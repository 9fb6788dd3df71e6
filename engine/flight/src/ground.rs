//! Ground contact: gear struts, tyres, brakes, nosewheel steering, airframe skids, and the
//! touchdown/crash judgement.
//!
//! Owns: the force and moment the floor applies to the airframe and the classification of a
//! contact (touchdown, belly landing, gear collapse, impact). Must not: integrate anything or keep
//! state of its own; it reads the state it is given and returns forces.

use crate::env::{Floor, FloorSample};
use crate::gravity::Planet;
use crate::math::Vec3;
use crate::model::AircraftModel;
use crate::state::{AircraftState, Controls, CrashKind};

/// Tyre rolling-resistance coefficient.
pub const MU_ROLL: f64 = 0.02;
/// Full-brake friction coefficient.
pub const MU_BRAKE: f64 = 0.5;
/// Tyre side-force friction coefficient.
pub const MU_SIDE: f64 = 0.7;
/// Airframe skid friction coefficient (belly, tail, wingtips on the floor).
pub const MU_SKID: f64 = 0.45;
/// Natural frequency of an airframe skid contact, rad/s.
const SKID_OMEGA: f64 = 12.0;
/// Damping ratio of an airframe skid contact.
const SKID_ZETA: f64 = 0.7;
/// Share of a contact point's sliding velocity that friction may cancel per step, measured with
/// the point's effective mass along the sliding direction (lever arms included) and divided among
/// the points that may act together. Keeps the otherwise infinitely stiff friction from
/// overshooting into a tick-to-tick oscillation at 60 Hz.
const FRICTION_CANCEL: f64 = 0.8;
/// Sink rate, m/s, above which an airframe (non-wheel) contact is an impact.
pub const SKID_MAX_SINK_M_S: f64 = 3.0;
/// Speed, m/s, above which a belly contact is an impact rather than a belly landing.
pub const BELLY_MAX_SPEED_M_S: f64 = 130.0;

/// Forces and findings from one contact evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Contact {
    /// Force on the airframe, NACA body axes, N.
    pub force: Vec3,
    /// Moment about the CG, NACA body axes, N·m.
    pub moment: Vec3,
    /// Bitmask of wheels touching.
    pub wheels: u8,
    /// Highest sink rate among wheels touching this step, m/s.
    pub wheel_sink_m_s: f64,
    /// An airframe point touched.
    pub skid: bool,
    /// Highest sink rate among airframe points touching, m/s.
    pub skid_sink_m_s: f64,
    /// Largest speed along the floor among airframe points touching, m/s.
    pub skid_speed_m_s: f64,
}

struct Point<'a> {
    r: Vec3,
    k: f64,
    c: f64,
    mass_share: f64,
    /// (total mass, Ixx, Iyy, Izz, simultaneous contact points).
    body: (f64, f64, f64, f64, f64),
    wheel: Option<(&'a crate::model::Wheel, f64)>,
}

fn point_force(
    p: &Point<'_>,
    s: &AircraftState,
    floor: &dyn Floor,
    planet: &Planet,
    brake: f64,
    dt: f64,
) -> Option<(Vec3, Vec3, f64, f64)> {
    let world = s.position + s.naca_to_world(p.r);
    let f: FloorSample = floor.sample(planet, world);
    let pen = f.height_m - planet.altitude(world);
    if pen.is_nan() || pen <= 0.0 {
        return None;
    }
    let n = s.world_to_naca(f.normal).normalize_or_zero();
    let v = s.world_to_naca(s.velocity - f.velocity) + s.body_rates.cross(p.r);
    let vn = v.dot(n);
    let fn_ = (p.k * pen - p.c * vn).max(0.0);
    let vt = v - n * vn;
    let (fwd, mu_long, mu_side) = match p.wheel {
        Some((w, steer)) => {
            let dir = if w.steerable {
                Vec3::new(crate::math::cos(steer), crate::math::sin(steer), 0.0)
            } else {
                Vec3::new(1.0, 0.0, 0.0)
            };
            let mu_long = MU_ROLL + if w.braked { MU_BRAKE * brake } else { 0.0 };
            ((dir - n * dir.dot(n)).normalize_or_zero(), mu_long, MU_SIDE)
        }
        None => ((vt).normalize_or_zero(), MU_SKID, MU_SKID),
    };
    let side = fwd.cross(n);
    let (mass, ixx, iyy, izz, points) = p.body;
    let m_eff = |d: Vec3| {
        let a = p.r.cross(d);
        let inv = 1.0 / mass + a.x * a.x / ixx + a.y * a.y / iyy + a.z * a.z / izz;
        (1.0 / inv / points).min(p.mass_share)
    };
    let limit = |v: f64, mu: f64, d: Vec3| {
        let cancel = FRICTION_CANCEL * m_eff(d) * v.abs() / dt;
        -v.signum() * (mu * fn_).min(cancel)
    };
    let f_long = limit(vt.dot(fwd), mu_long, fwd);
    let f_side = limit(vt.dot(side), mu_side, side);
    let force = n * fn_ + fwd * f_long + side * f_side;
    let speed = vt.length();
    Some((force, p.r.cross(force), -vn, speed))
}

/// Evaluates every contact point against the floor.
pub fn contact(
    m: &AircraftModel,
    s: &AircraftState,
    c: &Controls,
    floor: &dyn Floor,
    planet: &Planet,
    mass: f64,
    dt: f64,
) -> Contact {
    let mut out = Contact::default();
    let g = &m.gear;
    // Airborne early-out: no contact point can reach the floor this tick.
    let clearance = planet.altitude(s.position) - floor.height_m(planet, s.position);
    if clearance.is_nan() || clearance > g.reach_m + 1.0 {
        return out;
    }
    let ground_speed = s.velocity.length();
    // Nosewheel authority fades with speed: full below 15 m/s, 20% above 50 m/s.
    let fade = if ground_speed <= 15.0 {
        1.0
    } else {
        (1.0 - 0.8 * (ground_speed - 15.0) / 35.0).max(0.2)
    };
    let steer = c.yaw * g.max_steer_rad * fade;
    let k_total: f64 = g.wheels.iter().map(|w| w.k).sum();
    if s.gear >= 0.99 {
        for (i, w) in g.wheels.iter().enumerate() {
            let p = Point {
                r: Vec3::new(w.point[0], w.point[1], w.point[2]),
                k: w.k,
                c: w.c,
                mass_share: mass * w.k / k_total.max(1e-9),
                body: (mass, m.inertia.ixx, m.inertia.iyy, m.inertia.izz, 3.0),
                wheel: Some((w, steer)),
            };
            if let Some((f, mo, sink, _)) = point_force(&p, s, floor, planet, c.wheel_brake, dt) {
                out.force += f;
                out.moment += mo;
                out.wheels |= 1 << i;
                out.wheel_sink_m_s = out.wheel_sink_m_s.max(sink);
            }
        }
    }
    // Airframe skids: a spring-damper tuned to the point's effective mass (the mass the floor
    // "feels" there, lever arms included), so a nose or wingtip contact stays stable at 60 Hz.
    for hp in &g.hard_points {
        let m_eff =
            1.0 / (1.0 / mass + hp[1] * hp[1] / m.inertia.ixx + hp[0] * hp[0] / m.inertia.iyy);
        let k = m_eff * SKID_OMEGA * SKID_OMEGA;
        let p = Point {
            r: Vec3::new(hp[0], hp[1], hp[2]),
            k,
            c: 2.0 * SKID_ZETA * (k * m_eff).sqrt(),
            mass_share: m_eff,
            body: (mass, m.inertia.ixx, m.inertia.iyy, m.inertia.izz, 1.0),
            wheel: None,
        };
        if let Some((f, mo, sink, speed)) = point_force(&p, s, floor, planet, 0.0, dt) {
            out.force += f;
            out.moment += mo;
            out.skid = true;
            out.skid_sink_m_s = out.skid_sink_m_s.max(sink);
            out.skid_speed_m_s = out.skid_speed_m_s.max(speed);
        }
    }
    out
}

/// Judges a contact: `Some(kind)` when it destroys the aircraft.
pub fn judge(m: &AircraftModel, contact: &Contact, was_on_wheels: bool) -> Option<CrashKind> {
    if contact.wheels != 0 && !was_on_wheels && contact.wheel_sink_m_s > m.gear.max_sink_rate_m_s {
        return Some(CrashKind::GearCollapse);
    }
    if contact.skid
        && (contact.skid_sink_m_s > SKID_MAX_SINK_M_S
            || contact.skid_speed_m_s > BELLY_MAX_SPEED_M_S)
    {
        return Some(CrashKind::Impact);
    }
    None
}

/// True when the CG itself is below the floor (the airframe is buried: always an impact).
pub fn buried(s: &AircraftState, floor: &dyn Floor, planet: &Planet) -> Option<FloorSample> {
    let f = floor.sample(planet, s.position);
    if planet.altitude(s.position) < f.height_m {
        Some(f)
    } else {
        None
    }
}

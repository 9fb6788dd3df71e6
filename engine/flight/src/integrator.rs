//! The fixed-step 6-DoF integrator: one call advances one aircraft by 1/60 s.
//!
//! Owns: the order of a tick (actuators → engine → air data → FBW → forces → ground → semi-implicit
//! Euler for translation and rotation → contact judgement), the rigid-body equations with the full
//! inertia tensor and engine gyroscopic momentum, and the derived outputs (alpha, Mach, IAS/CAS/EAS/
//! TAS, load factor, ...). Must not: read clocks, allocate, keep hidden state, or consult anything
//! but its arguments — same state + same controls + same environment ⇒ bit-identical result.
//!
//! Scheme (see docs/flight-model.md): semi-implicit (symplectic) Euler. Velocities are advanced
//! with forces evaluated at the start of the tick; positions and the attitude then advance with the
//! *new* velocities (the attitude by the exact exponential map of the body rate). One force
//! evaluation per tick keeps the step cheap; the scheme is symplectic for the conservative part
//! (orbital energy stays bounded instead of drifting) and its stability limit, |λ|·dt < 2 for the
//! fastest damped mode, is checked in the tests for every pack aircraft across the envelope.

use crate::aero::{
    AeroConfig, MomentInput, aileron_from_command, elevator_from_command, lift_drag, moments,
    rudder_from_command,
};
use crate::atmosphere::{G0, P0, isa};
use crate::env::{Floor, WindField};
use crate::fbw;
use crate::gravity::Planet;
use crate::ground;
use crate::math::{Quat, Vec3, asin, atan2};
use crate::model::AircraftModel;
use crate::propulsion::{fuel_flow, spool_step, thrust};
use crate::state::{AircraftState, Controls, CrashKind, from_naca};

/// The fixed time step, s.
pub const DT: f64 = 1.0 / 60.0;
/// Below this airspeed (m/s) rate derivatives and angles are not defined; they read zero.
pub const MIN_AIRSPEED: f64 = 1.0;

/// Everything outside the aircraft that a step reads.
#[derive(Clone, Copy)]
pub struct StepEnv<'a> {
    /// The planet (gravity, altitude).
    pub planet: &'a Planet,
    /// Wind and turbulence.
    pub wind: &'a WindField,
    /// Terrain or deck.
    pub floor: &'a dyn Floor,
    /// Simulation tick (drives turbulence).
    pub tick: u64,
    /// Entity index (decorrelates turbulence between aircraft).
    pub entity: u32,
    /// Aerodynamics and thrust on (tests switch them off to check pure dynamics).
    pub aero: bool,
}

impl std::fmt::Debug for StepEnv<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepEnv")
            .field("tick", &self.tick)
            .field("entity", &self.entity)
            .field("aero", &self.aero)
            .finish()
    }
}

/// Calm air over flat sea-level ground on Earth, owning what a [`StepEnv`] borrows: for tools,
/// tests and benchmarks that fly one aircraft outside a server.
#[derive(Debug, Clone)]
pub struct CalmWorld {
    /// The planet.
    pub planet: Planet,
    /// Calm wind, no turbulence.
    pub wind: WindField,
    /// Flat ground at sea level.
    pub floor: crate::env::FlatFloor,
}

impl Default for CalmWorld {
    fn default() -> Self {
        Self {
            planet: Planet::earth(),
            wind: WindField::calm(),
            floor: crate::env::FlatFloor::default(),
        }
    }
}

impl CalmWorld {
    /// The step environment at `tick` for entity 0, aerodynamics on.
    pub fn env(&self, tick: u64) -> StepEnv<'_> {
        StepEnv {
            planet: &self.planet,
            wind: &self.wind,
            floor: &self.floor,
            tick,
            entity: 0,
            aero: true,
        }
    }
}

/// What happened during a step (the persistent facts also live in the state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepEvents {
    /// Wheels touched the floor this tick after being airborne.
    pub touchdown: bool,
    /// The last wheel left the floor this tick.
    pub liftoff: bool,
    /// The belly touched down wheels-up and the aircraft is sliding (not destroyed).
    pub belly_landing: bool,
    /// The aircraft was destroyed this tick.
    pub crashed: Option<CrashKind>,
}

/// Air data at the current state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AirData {
    /// Air-relative velocity, NACA body axes, m/s.
    pub v_air: Vec3,
    /// True airspeed, m/s.
    pub tas: f64,
    /// Angle of attack, rad.
    pub alpha: f64,
    /// Sideslip, rad.
    pub beta: f64,
    /// Mach number.
    pub mach: f64,
    /// Dynamic pressure, Pa.
    pub qbar: f64,
    /// Geodetic altitude, m.
    pub altitude_m: f64,
    /// Static pressure, Pa.
    pub pressure_pa: f64,
    /// Density, kg/m³.
    pub density: f64,
    /// Speed of sound, m/s.
    pub sound: f64,
}

/// Air data for a state in an environment.
pub fn air_data(s: &AircraftState, env: &StepEnv<'_>) -> AirData {
    let alt = env.planet.altitude(s.position);
    let atm = isa(alt);
    let wind = env
        .wind
        .world_at(env.planet, s.position, alt, env.entity, env.tick);
    let v_air = s.world_to_naca(s.velocity - wind);
    let tas = v_air.length();
    let (alpha, beta) = if tas > 1e-6 {
        (
            atan2(v_air.z, v_air.x),
            asin((v_air.y / tas).clamp(-1.0, 1.0)),
        )
    } else {
        (0.0, 0.0)
    };
    AirData {
        v_air,
        tas,
        alpha,
        beta,
        mach: tas / atm.speed_of_sound_m_s,
        qbar: 0.5 * atm.density_kg_m3 * tas * tas,
        altitude_m: alt,
        pressure_pa: atm.pressure_pa,
        density: atm.density_kg_m3,
        sound: atm.speed_of_sound_m_s,
    }
}

#[inline]
fn slew(x: f64, target: f64, max_delta: f64) -> f64 {
    if target > x {
        (x + max_delta).min(target)
    } else {
        (x - max_delta).max(target)
    }
}

#[inline]
fn rate_for(time_s: f64) -> f64 {
    if time_s > 0.0 { DT / time_s } else { 1.0 }
}

/// Advances `s` by one tick of [`DT`] under `controls`.
pub fn step(
    m: &AircraftModel,
    s: &mut AircraftState,
    controls: &Controls,
    env: &StepEnv<'_>,
) -> StepEvents {
    let mut ev = StepEvents::default();
    let c = controls.sanitized();
    if s.crashed.is_some() {
        let f = env.floor.sample(env.planet, s.position);
        s.velocity = if f.velocity.is_finite() {
            f.velocity
        } else {
            Vec3::ZERO
        };
        s.position += s.velocity * DT;
        s.body_rates = Vec3::ZERO;
        s.spool = 0.0;
        s.afterburner = 0.0;
        return ev;
    }

    // ── Actuators ──────────────────────────────────────────────────────────────────────────
    s.gear = slew(
        s.gear,
        if c.gear_down { 1.0 } else { 0.0 },
        rate_for(m.gear.transit_time_s),
    );
    s.speedbrake = slew(s.speedbrake, c.speedbrake, rate_for(m.speedbrake_time_s));
    s.flaps = match m.flaps {
        Some(f) => slew(s.flaps, c.flaps, rate_for(f.transit_time_s)),
        None => 0.0,
    };

    // ── Air data ───────────────────────────────────────────────────────────────────────────
    let ad = air_data(s, env);
    if let Some(sw) = &m.sweep {
        let target = c
            .sweep_deg
            .unwrap_or_else(|| sw.scheduled(ad.mach))
            .clamp(sw.min_deg, sw.max_deg);
        s.sweep_deg = slew(
            s.sweep_deg.clamp(sw.min_deg, sw.max_deg),
            target,
            sw.rate_deg_s * DT,
        );
    }

    // ── Engine ─────────────────────────────────────────────────────────────────────────────
    let has_fuel = s.fuel_kg > 0.0;
    let (spool, ab) = spool_step(
        m,
        s.spool,
        s.afterburner,
        c.throttle,
        c.afterburner,
        has_fuel,
        DT,
    );
    s.spool = spool;
    s.afterburner = ab;
    let burn = if has_fuel {
        fuel_flow(&m.engine, spool, ab) * DT
    } else {
        0.0
    };
    s.fuel_kg = (s.fuel_kg - burn).max(0.0);
    let t_n = if env.aero && has_fuel {
        thrust(&m.engine, ad.mach, ad.altitude_m, spool, ab)
    } else {
        0.0
    };
    let mass = m.mass(s.fuel_kg, s.payload_kg);

    // ── Surfaces and FBW ───────────────────────────────────────────────────────────────────
    let rates_ok = ad.tas > MIN_AIRSPEED;
    let inv2v = if rates_ok { 0.5 / ad.tas } else { 0.0 };
    let (p, q, r) = (s.body_rates.x, s.body_rates.y, s.body_rates.z);
    let cfg = AeroConfig {
        gear: s.gear,
        speedbrake: s.speedbrake,
        flaps: s.flaps,
        sweep_deg: s.sweep_deg,
        payload_cd0: s.payload_cd0,
    };
    let q_hat = q * m.mac_m * inv2v;
    let mut de = elevator_from_command(m, c.pitch);
    if m.has_fbw && rates_ok && env.aero {
        let qs = ad.qbar * m.wing_area_m2;
        let band = fbw::alpha_band(m, ad.mach, qs, mass * G0, &cfg);
        let g_body = s.world_to_naca(env.planet.gravity(s.position));
        let alpha_rate = q + (s.specific_force.z + g_body.z) / ad.tas.max(MIN_AIRSPEED);
        let flaps_cm = m.flaps.map_or(0.0, |f| f.cm * s.flaps);
        let a = ad.alpha;
        let rest = m.cm0
            + m.cm_alpha * a
            + m.cm_q.eval(a) * q_hat
            + m.cm_speedbrake * s.speedbrake
            + flaps_cm;
        let kappa = qs * m.mac_m / m.inertia.iyy;
        de = fbw::limit_elevator(m, de, a, alpha_rate, band, rest, kappa);
    }
    let da = aileron_from_command(m, c.roll);
    let dr = rudder_from_command(m, c.yaw);
    s.surfaces = Vec3::new(de, da, dr);
    if let Some(tvc) = &m.tvc {
        let target = if c.pitch >= 0.0 {
            c.pitch * tvc.max_rad
        } else {
            -c.pitch * tvc.min_rad
        };
        s.nozzle_rad = slew(s.nozzle_rad, target, tvc.rate_rad_s * DT);
    }

    // ── Forces and moments (NACA body axes) ────────────────────────────────────────────────
    let mut force = Vec3::ZERO;
    let mut moment = Vec3::ZERO;
    if env.aero {
        let qs = ad.qbar * m.wing_area_m2;
        if ad.tas > 1e-6 {
            let ld = lift_drag(m, ad.alpha, ad.mach, &cfg);
            let vhat = ad.v_air * (1.0 / ad.tas);
            let y = Vec3::new(0.0, 1.0, 0.0);
            let lift_dir = y.cross(vhat).normalize_or_zero();
            let side_dir = (y - vhat * y.dot(vhat)).normalize_or_zero();
            let cy = m.cy_beta * ad.beta;
            force += (lift_dir * ld.cl() - vhat * ld.cd() + side_dir * cy) * qs;
            let mt = moments(
                m,
                &MomentInput {
                    alpha: ad.alpha,
                    beta: ad.beta,
                    p_hat: p * m.span_m * inv2v,
                    q_hat,
                    r_hat: r * m.span_m * inv2v,
                    de,
                    da,
                    dr,
                    speedbrake: s.speedbrake,
                    flaps: s.flaps,
                },
            );
            moment += Vec3::new(
                mt.cl() * qs * m.span_m,
                mt.cm() * qs * m.mac_m,
                mt.cn() * qs * m.span_m,
            );
        }
        let (sn, cn) = (
            crate::math::sin(s.nozzle_rad),
            crate::math::cos(s.nozzle_rad),
        );
        force += Vec3::new(t_n * cn, 0.0, t_n * sn);
        if let Some(tvc) = &m.tvc {
            moment.y += tvc.arm_m * t_n * sn;
        }
        if let Some(pr) = &m.prop {
            moment.x -= pr.sense * pr.torque_factor * t_n;
            moment.z += pr.sense * pr.gyro_factor * t_n * q;
        }
    }
    let was_on_wheels = s.wheels_on_ground != 0;
    let contact = ground::contact(m, s, &c, env.floor, env.planet, mass, DT);
    force += contact.force;
    moment += contact.moment;

    // ── Integrate (semi-implicit Euler) ────────────────────────────────────────────────────
    s.specific_force = force * (1.0 / mass);
    let accel = s.naca_to_world(s.specific_force) + env.planet.gravity(s.position);
    s.velocity += accel * DT;
    s.position += s.velocity * DT;

    let w = [p, q, r];
    let iw = m.inertia.apply(w);
    let h = Vec3::new(iw[0] + m.engine_h, iw[1], iw[2]);
    let gyro = s.body_rates.cross(h);
    let wdot = m
        .inertia
        .solve([moment.x - gyro.x, moment.y - gyro.y, moment.z - gyro.z]);
    s.body_rates += Vec3::new(wdot[0], wdot[1], wdot[2]) * DT;
    let dq = Quat::from_rotation_vector(from_naca(s.body_rates * DT));
    s.orientation = s.orientation.then(dq).normalize();

    // ── Contact judgement ──────────────────────────────────────────────────────────────────
    s.wheels_on_ground = contact.wheels;
    if contact.wheels != 0 && !was_on_wheels {
        ev.touchdown = true;
    }
    if contact.wheels == 0 && was_on_wheels {
        ev.liftoff = true;
    }
    if contact.skid && !s.belly_contact && s.gear < 0.99 && contact.wheels == 0 {
        ev.belly_landing = true;
    }
    s.belly_contact = contact.skid;
    let mut crash = ground::judge(m, &contact, was_on_wheels);
    if crash.is_none() && ground::buried(s, env.floor, env.planet).is_some() {
        crash = Some(CrashKind::Impact);
    }
    if !(s.is_finite()) {
        // Never let a non-finite value escape a step: treat it as the loss of the aircraft.
        crash = Some(CrashKind::Impact);
        s.position = if s.position.is_finite() {
            s.position
        } else {
            Vec3::ZERO
        };
        s.orientation = if s.orientation.is_finite() {
            s.orientation
        } else {
            Quat::IDENTITY
        };
    }
    if let Some(k) = crash {
        let f = env.floor.sample(env.planet, s.position);
        if f.height_m.is_finite() {
            let up = env.planet.up(s.position);
            let alt = env.planet.altitude(s.position);
            s.position += up * (f.height_m - alt);
        }
        s.velocity = if f.velocity.is_finite() {
            f.velocity
        } else {
            Vec3::ZERO
        };
        s.body_rates = Vec3::ZERO;
        s.crashed = Some(k);
        ev.crashed = Some(k);
        ev.belly_landing = false;
    }
    ev
}

/// What the server and HUD read off an aircraft.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlightOutputs {
    /// Angle of attack, deg.
    pub alpha_deg: f64,
    /// Sideslip, deg.
    pub beta_deg: f64,
    /// Mach number.
    pub mach: f64,
    /// True airspeed, m/s.
    pub tas_mps: f64,
    /// Equivalent airspeed, m/s.
    pub eas_mps: f64,
    /// Calibrated airspeed, m/s.
    pub cas_mps: f64,
    /// Indicated airspeed, m/s (= CAS: no instrument or position error is modelled).
    pub ias_mps: f64,
    /// Normal load factor (accelerometer, body −z), g.
    pub load_factor: f64,
    /// Geodetic altitude, m.
    pub altitude_m: f64,
    /// Rate of climb along the local vertical, m/s.
    pub vertical_speed_mps: f64,
    /// Fuel, kg.
    pub fuel_kg: f64,
    /// Engine core (spooled throttle), 0 … 1.
    pub throttle: f64,
    /// Afterburner level, 0 … 1.
    pub afterburner: f64,
    /// Afterburner lit (level above one half).
    pub afterburner_lit: bool,
    /// Gear, speedbrake, flaps positions 0 … 1.
    pub gear: f64,
    /// Speedbrake position.
    pub speedbrake: f64,
    /// Flap position.
    pub flaps: f64,
    /// Wing sweep, deg.
    pub sweep_deg: f64,
    /// Surfaces (NACA elevator, aileron, NACA rudder), deg.
    pub surfaces_deg: Vec3,
    /// |alpha| beyond `alpha_stall_deg`.
    pub stalled: bool,
    /// Load factor outside the structural limits.
    pub over_g: bool,
    /// Above `max_mach` or the `max_keas` placard.
    pub overspeed: bool,
    /// Any wheel on the floor.
    pub on_ground: bool,
    /// Destroyed.
    pub crashed: bool,
}

/// Calibrated airspeed from Mach and static pressure (subsonic isentropic and supersonic Rayleigh
/// pitot relations, referred to sea-level standard), m/s.
pub fn calibrated_airspeed(mach: f64, pressure_pa: f64) -> f64 {
    let a0 = isa(0.0).speed_of_sound_m_s;
    let qc = if mach < 1.0 {
        pressure_pa * (crate::math::pow(1.0 + 0.2 * mach * mach, 3.5) - 1.0)
    } else {
        pressure_pa
            * (166.921_58 * crate::math::pow(mach, 7.0)
                / crate::math::pow(7.0 * mach * mach - 1.0, 2.5)
                - 1.0)
    };
    let ratio = qc / P0;
    let sub = a0
        * (5.0 * (crate::math::pow(ratio + 1.0, 2.0 / 7.0) - 1.0))
            .max(0.0)
            .sqrt();
    if sub <= a0 {
        return sub;
    }
    // Supersonic relative to sea-level sound speed: invert the Rayleigh relation by bisection.
    let f = |m: f64| {
        166.921_58 * crate::math::pow(m, 7.0) / crate::math::pow(7.0 * m * m - 1.0, 2.5)
            - 1.0
            - ratio
    };
    let (mut lo, mut hi) = (1.0, 20.0);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    a0 * 0.5 * (lo + hi)
}

/// Derived outputs for a state.
pub fn outputs(m: &AircraftModel, s: &AircraftState, env: &StepEnv<'_>) -> FlightOutputs {
    let ad = air_data(s, env);
    let eas = ad.tas * (ad.density / crate::atmosphere::RHO0).sqrt();
    let cas = calibrated_airspeed(ad.mach, ad.pressure_pa);
    let n = -s.specific_force.z / G0;
    FlightOutputs {
        alpha_deg: ad.alpha.to_degrees(),
        beta_deg: ad.beta.to_degrees(),
        mach: ad.mach,
        tas_mps: ad.tas,
        eas_mps: eas,
        cas_mps: cas,
        ias_mps: cas,
        load_factor: n,
        altitude_m: ad.altitude_m,
        vertical_speed_mps: s.velocity.dot(env.planet.up(s.position)),
        fuel_kg: s.fuel_kg,
        throttle: s.spool,
        afterburner: s.afterburner,
        afterburner_lit: s.afterburner > 0.5,
        gear: s.gear,
        speedbrake: s.speedbrake,
        flaps: s.flaps,
        sweep_deg: s.sweep_deg,
        surfaces_deg: s.surfaces * (180.0 / std::f64::consts::PI),
        stalled: ad.alpha.abs() > m.alpha_stall,
        over_g: n > m.max_g || n < m.min_g,
        overspeed: (m.max_mach > 0.0 && ad.mach > m.max_mach)
            || m.max_eas_mps.is_some_and(|v| eas > v),
        on_ground: s.wheels_on_ground != 0,
        crashed: s.crashed.is_some(),
    }
}

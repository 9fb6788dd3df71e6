//! What the cockpit's instruments read from one aircraft: the flight model's air data
//! (`fl_flight::outputs`: IAS from the atmosphere, Mach, AoA, G, vertical speed), the attitude in
//! the local east-north-up frame, radar altitude over the terrain, the flight-path marker, ground
//! speed and track, and the warnings a pilot acts on.
//!
//! Owns: turning a state into numbers and flags. Must not: draw (the HUD does), keep history
//! (max G and the like belong to the flight's record), or read anything but its arguments — the
//! same state always gives the same reading.

use fl_flight::geodetic::{self, Enu};
use fl_flight::math::Vec3;
use fl_flight::state::to_naca;
use fl_flight::{AircraftModel, AircraftState, StepEnv};

/// Highest radar altitude shown, m (5,000 ft, the usual range of a fighter's radar altimeter).
pub const RADAR_ALTITUDE_MAX_M: f64 = 1_524.0;
/// Bank or pitch beyond which the radar altimeter's beam leaves the ground below, rad (60°).
pub const RADAR_ALTITUDE_MAX_TILT_RAD: f64 = std::f64::consts::FRAC_PI_3;
/// Stall warning from this fraction of the stall angle of attack.
pub const STALL_WARNING_FRACTION: f64 = 0.9;
/// Below this airspeed the angle of attack means nothing (taxiing, parked), m/s.
pub const AOA_VALID_MIN_TAS_MPS: f64 = 15.0;

/// One reading of every instrument.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Reading {
    /// Indicated (calibrated) airspeed, m/s.
    pub ias_mps: f64,
    /// True airspeed, m/s.
    pub tas_mps: f64,
    /// Mach number.
    pub mach: f64,
    /// Speed over the ground (horizontal), m/s.
    pub ground_speed_mps: f64,
    /// Barometric altitude (above the sphere, which is mean sea level), m.
    pub altitude_m: f64,
    /// Height above the terrain below; `None` out of the radar altimeter's range or tilt.
    pub radar_altitude_m: Option<f64>,
    /// Climb rate along the local vertical, m/s.
    pub vertical_speed_mps: f64,
    /// Normal load factor, g.
    pub g: f64,
    /// Angle of attack, rad; `None` below [`AOA_VALID_MIN_TAS_MPS`].
    pub aoa_rad: Option<f64>,
    /// Angle of attack as a fraction of the stall angle (1 = stall), for the AoA colour.
    pub stall_fraction: f64,
    /// Compass heading of the nose, rad in [0, 2π).
    pub heading_rad: f64,
    /// Nose above the horizon, rad.
    pub pitch_rad: f64,
    /// Bank, rad, positive right wing down.
    pub roll_rad: f64,
    /// Compass direction of the ground track, rad in [0, 2π) (the nose's heading when still).
    pub track_rad: f64,
    /// Flight-path marker: the velocity's angle right of and above the nose, rad, in the
    /// aircraft's own axes (what a HUD fixed to the airframe draws); `None` when still.
    pub flight_path_rad: Option<(f64, f64)>,
    /// Internal fuel, kg, and as a fraction of the tanks.
    pub fuel_kg: f64,
    /// Fuel as a fraction of the internal tanks (0 … 1).
    pub fuel_fraction: f64,
    /// Engine core, 0 idle … 1 military.
    pub throttle: f64,
    /// Afterburner lit.
    pub afterburner: bool,
    /// Gear, flaps, speedbrake positions 0 … 1.
    pub gear: f64,
    /// Flap position.
    pub flaps: f64,
    /// Speedbrake position.
    pub speedbrake: f64,
    /// Any wheel on the ground.
    pub on_ground: bool,
    /// Angle of attack at or above [`STALL_WARNING_FRACTION`] of the stall angle, in the air.
    pub stall_warning: bool,
    /// Above the aircraft's Mach or airspeed limit.
    pub overspeed: bool,
    /// Load factor outside the structural limits.
    pub over_g: bool,
}

/// Reads every instrument of `state` flying `model` in `env` (the same environment the
/// simulation steps in: its floor gives the radar altitude, its wind the airspeed).
pub fn read(model: &AircraftModel, state: &AircraftState, env: &StepEnv<'_>) -> Reading {
    let out = fl_flight::outputs(model, state, env);
    let enu = Enu::at(env.planet, state.position);
    let att = geodetic::attitude(&enu, state.orientation);

    let tilt_ok = att.roll_rad.abs() <= RADAR_ALTITUDE_MAX_TILT_RAD
        && att.pitch_rad.abs() <= RADAR_ALTITUDE_MAX_TILT_RAD;
    let height_agl = out.altitude_m - env.floor.height_m(env.planet, state.position);
    let radar_altitude_m =
        (tilt_ok && height_agl <= RADAR_ALTITUDE_MAX_M).then_some(height_agl.max(0.0));

    let level = enu.from_world(state.velocity);
    let ground_speed_mps = (level.x * level.x + level.y * level.y).sqrt();
    let track_rad = if ground_speed_mps > 0.1 {
        enu.heading_of(state.velocity)
    } else {
        att.heading_rad
    };

    // The inertial velocity in NACA body axes (x forward, y right, z down).
    let v_body = to_naca(state.orientation.inverse_rotate(state.velocity));
    let flight_path_rad = (v_body.length() > 1.0).then(|| {
        let right = v_body.y.atan2(v_body.x);
        let up = (-v_body.z).atan2((v_body.x * v_body.x + v_body.y * v_body.y).sqrt());
        (right, up)
    });

    let aoa_valid = out.tas_mps >= AOA_VALID_MIN_TAS_MPS;
    let aoa_rad = aoa_valid.then(|| out.alpha_deg.to_radians());
    let stall_fraction = match aoa_rad {
        Some(a) if model.alpha_stall > 0.0 => a / model.alpha_stall,
        _ => 0.0,
    };
    Reading {
        ias_mps: out.ias_mps,
        tas_mps: out.tas_mps,
        mach: out.mach,
        ground_speed_mps,
        altitude_m: out.altitude_m,
        radar_altitude_m,
        vertical_speed_mps: out.vertical_speed_mps,
        g: out.load_factor,
        aoa_rad,
        stall_fraction,
        heading_rad: att.heading_rad,
        pitch_rad: att.pitch_rad,
        roll_rad: att.roll_rad,
        track_rad,
        flight_path_rad,
        fuel_kg: out.fuel_kg,
        fuel_fraction: if model.max_fuel_kg > 0.0 {
            (out.fuel_kg / model.max_fuel_kg).clamp(0.0, 1.0)
        } else {
            0.0
        },
        throttle: out.throttle,
        afterburner: out.afterburner_lit,
        gear: out.gear,
        flaps: out.flaps,
        speedbrake: out.speedbrake,
        on_ground: out.on_ground,
        stall_warning: !out.on_ground && stall_fraction >= STALL_WARNING_FRACTION,
        overspeed: out.overspeed,
        over_g: out.over_g,
    }
}

/// The velocity direction a reading's flight-path marker stands for, as an engine-body unit
/// vector (X right, Y up, Z aft): what a HUD projects through its own camera.
pub fn flight_path_body(right_rad: f64, up_rad: f64) -> Vec3 {
    let (sr, cr) = (right_rad.sin(), right_rad.cos());
    let (su, cu) = (up_rad.sin(), up_rad.cos());
    Vec3::new(cu * sr, su, -cu * cr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_flight::env::{FlatFloor, WindField};
    use fl_flight::geodetic::{Geodetic, orientation, to_world};
    use fl_flight::gravity::Planet;

    const DEG: f64 = std::f64::consts::PI / 180.0;

    fn model() -> AircraftModel {
        let content = fl_content::Content::builtin().expect("builtin content");
        let (m, _) = content
            .load_flight_model(fl_content::builtin::JET_TRAINER_FLIGHT_MODEL)
            .expect("builtin trainer");
        (*m).clone()
    }

    /// A state at 36° N, 115° W, `alt_m` up, nose on `heading`, `pitch`, `roll` (degrees),
    /// moving at `speed` m/s along a path `climb` degrees above the horizon on the same heading.
    fn state_at(
        planet: &Planet,
        alt_m: f64,
        (heading, pitch, roll): (f64, f64, f64),
        speed: f64,
        climb: f64,
    ) -> AircraftState {
        let pos = to_world(planet, Geodetic::from_degrees(36.0, -115.0, alt_m));
        let enu = Enu::at(planet, pos);
        let dir = enu.horizontal_direction(heading * DEG) * (climb * DEG).cos()
            + enu.up * (climb * DEG).sin();
        let m = model();
        let mut s = AircraftState::flying(pos, 0.0, 0.0, m.max_fuel_kg * 0.5);
        s.orientation = orientation(&enu, heading * DEG, pitch * DEG, roll * DEG);
        s.velocity = dir * speed;
        s
    }

    fn env<'a>(planet: &'a Planet, wind: &'a WindField, floor: &'a FlatFloor) -> StepEnv<'a> {
        StepEnv {
            planet,
            wind,
            floor,
            tick: 0,
            entity: 0,
            aero: true,
        }
    }

    #[test]
    fn level_flight_at_36_north_reads_its_attitude_and_air_data() {
        let planet = Planet::default();
        let (wind, floor) = (WindField::default(), FlatFloor::default());
        let s = state_at(&planet, 3_000.0, (270.0, 3.0, 0.0), 150.0, 0.0);
        let r = read(&model(), &s, &env(&planet, &wind, &floor));
        assert!((r.heading_rad - 270.0 * DEG).abs() < 1e-9, "{r:?}");
        assert!((r.pitch_rad - 3.0 * DEG).abs() < 1e-9);
        assert!(r.roll_rad.abs() < 1e-9);
        assert!((r.track_rad - 270.0 * DEG).abs() < 1e-9);
        assert!((r.ground_speed_mps - 150.0).abs() < 1e-6);
        assert!(r.vertical_speed_mps.abs() < 1e-6);
        assert!((r.altitude_m - 3_000.0).abs() < 1e-6);
        // IAS is below TAS at altitude (ISA at 3 km: density ratio 0.742).
        assert!(
            r.ias_mps < r.tas_mps && r.ias_mps > 0.8 * r.tas_mps,
            "{r:?}"
        );
        // Nose 3° above a level path: AoA 3°, the marker 3° below the nose.
        let aoa = r.aoa_rad.expect("flying");
        assert!((aoa - 3.0 * DEG).abs() < 1e-9, "aoa {}", aoa / DEG);
        let (right, up) = r.flight_path_rad.expect("moving");
        assert!(right.abs() < 1e-9 && (up + 3.0 * DEG).abs() < 1e-9);
        assert_eq!(
            r.radar_altitude_m, None,
            "3 km is above the radar altimeter"
        );
        assert!((r.fuel_fraction - 0.5).abs() < 1e-12);
    }

    #[test]
    fn radar_altitude_reads_the_floor_within_range_and_tilt() {
        let planet = Planet::default();
        let wind = WindField::default();
        let floor = FlatFloor { height_m: 600.0 };
        let s = state_at(&planet, 900.0, (90.0, 0.0, 0.0), 120.0, 0.0);
        let r = read(&model(), &s, &env(&planet, &wind, &floor));
        let ra = r.radar_altitude_m.expect("in range");
        assert!((ra - 300.0).abs() < 1e-6, "{ra}");
        // 70° of bank: the beam no longer points at the ground below.
        let s = state_at(&planet, 900.0, (90.0, 0.0, 70.0), 120.0, 0.0);
        let r = read(&model(), &s, &env(&planet, &wind, &floor));
        assert_eq!(r.radar_altitude_m, None);
        assert!((r.roll_rad - 70.0 * DEG).abs() < 1e-9);
    }

    #[test]
    fn high_aoa_warns_of_the_stall_and_the_marker_follows_the_path() {
        let planet = Planet::default();
        let (wind, floor) = (WindField::default(), FlatFloor::default());
        let m = model();
        let stall_deg = m.alpha_stall / DEG;
        // A 10° climb with the nose at 10° + 95 % of the stall angle.
        let s = state_at(
            &planet,
            2_000.0,
            (0.0, 10.0 + 0.95 * stall_deg, 0.0),
            80.0,
            10.0,
        );
        let r = read(&m, &s, &env(&planet, &wind, &floor));
        assert!(r.stall_warning, "{r:?}");
        assert!((r.stall_fraction - 0.95).abs() < 1e-9);
        assert!((r.vertical_speed_mps - 80.0 * (10.0 * DEG).sin()).abs() < 1e-6);
        let (_, up) = r.flight_path_rad.expect("moving");
        assert!((up + 0.95 * stall_deg * DEG).abs() < 1e-9);
        // The same attitude at 85 % is no warning.
        let s = state_at(
            &planet,
            2_000.0,
            (0.0, 10.0 + 0.85 * stall_deg, 0.0),
            80.0,
            10.0,
        );
        assert!(!read(&m, &s, &env(&planet, &wind, &floor)).stall_warning);
    }

    #[test]
    fn a_parked_aircraft_has_no_aoa_marker_or_stall() {
        let planet = Planet::default();
        let (wind, floor) = (WindField::default(), FlatFloor::default());
        let mut s = state_at(&planet, 0.0, (45.0, 0.0, 0.0), 0.0, 0.0);
        s.wheels_on_ground = 0b111;
        let r = read(&model(), &s, &env(&planet, &wind, &floor));
        assert_eq!(r.aoa_rad, None);
        assert_eq!(r.flight_path_rad, None);
        assert!(!r.stall_warning);
        assert!(
            (r.track_rad - 45.0 * DEG).abs() < 1e-9,
            "still: the nose's heading"
        );
        assert_eq!(r.radar_altitude_m, Some(0.0));
    }

    #[test]
    fn the_marker_direction_round_trips_through_the_body_vector() {
        for (r, u) in [(0.0, 0.0), (0.1, -0.05), (-0.3, 0.2)] {
            let v = flight_path_body(r, u);
            let n = to_naca(v);
            assert!((n.y.atan2(n.x) - r).abs() < 1e-12);
            assert!(((-n.z).atan2((n.x * n.x + n.y * n.y).sqrt()) - u).abs() < 1e-12);
        }
    }
}

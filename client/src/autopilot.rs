//! Scripted pilots for the headless client and the proofs: `level` (wings level, holds
//! altitude), `orbit` (a steady banked turn) and `aerobatics` (loops, rolls, barrel rolls,
//! high-g turns, split-S, rudder work, afterburner, gear, flaps and speed-brake cycles, with a
//! ground guard that recovers before the floor).
//!
//! Each is a pure function of the predicted own state and the input tick, so a run is
//! reproducible bit for bit.

use crate::client::{Pilot, PilotView};
use crate::input_clock::PilotInput;
use fl_flight::AircraftState;
use fl_flight::gravity::Planet;
use fl_flight::math::Vec3;

/// The names `--autopilot` accepts.
pub const AUTOPILOTS: &[&str] = &["aerobatics", "level", "orbit", "idle"];

/// Builds a scripted pilot by name.
pub fn by_name(name: &str) -> Option<Box<dyn Pilot + Send>> {
    match name {
        "aerobatics" => Some(Box::new(Aerobatics::default())),
        "level" => Some(Box::new(Level)),
        "orbit" => Some(Box::new(Orbit)),
        "idle" => Some(Box::new(Idle)),
        _ => None,
    }
}

/// Attitude facts the scripts use.
#[derive(Debug, Clone, Copy)]
struct Attitude {
    altitude_m: f64,
    climb_mps: f64,
    /// Bank, rad (right wing down positive).
    bank: f64,
    /// Pitch of the nose above the horizon, rad.
    pitch: f64,
    speed: f64,
}

fn attitude(s: &AircraftState, radius_m: f64) -> Attitude {
    let planet = Planet {
        radius_m,
        ..Planet::earth()
    };
    let up = planet.up(s.position);
    let fwd = s.forward();
    let right = s.orientation.rotate(Vec3::new(1.0, 0.0, 0.0));
    let roof = s.orientation.rotate(Vec3::new(0.0, 1.0, 0.0));
    Attitude {
        altitude_m: planet.altitude(s.position),
        climb_mps: s.velocity.dot(up),
        bank: (-right.dot(up)).atan2(roof.dot(up)),
        pitch: fwd.dot(up).clamp(-1.0, 1.0).asin(),
        speed: s.velocity.length(),
    }
}

fn level_controls(a: &Attitude, target_alt: f64) -> PilotInput {
    let want_climb = ((target_alt - a.altitude_m) * 0.05).clamp(-20.0, 20.0);
    PilotInput {
        throttle: 0.8,
        roll: (-a.bank * 1.5).clamp(-1.0, 1.0) as f32,
        pitch: ((want_climb - a.climb_mps) * 0.04 - a.pitch * 0.2).clamp(-0.6, 0.6) as f32,
        ..PilotInput::default()
    }
}

/// Engine at 80 %, stick centred.
#[derive(Debug, Clone, Copy, Default)]
pub struct Idle;

impl Pilot for Idle {
    fn command(&mut self, _: &PilotView<'_>) -> PilotInput {
        PilotInput {
            throttle: 0.8,
            ..PilotInput::default()
        }
    }
}

/// Wings level at the current altitude (or 3000 m before the state is known).
#[derive(Debug, Clone, Copy, Default)]
pub struct Level;

impl Pilot for Level {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        match view.state {
            Some(s) => level_controls(&attitude(s, view.planet_radius_m), 3000.0),
            None => Idle.command(view),
        }
    }
}

/// A steady 45° banked turn.
#[derive(Debug, Clone, Copy, Default)]
pub struct Orbit;

impl Pilot for Orbit {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        let Some(s) = view.state else {
            return Idle.command(view);
        };
        let a = attitude(s, view.planet_radius_m);
        let mut c = level_controls(&a, 3000.0);
        c.roll = ((45f64.to_radians() - a.bank) * 1.5).clamp(-1.0, 1.0) as f32;
        c.pitch = (c.pitch + 0.15).clamp(-1.0, 1.0);
        c
    }
}

/// A repeating aerobatic routine with a ground guard.
#[derive(Debug, Clone, Copy, Default)]
pub struct Aerobatics {
    recovering: bool,
}

/// One figure: its length in seconds.
const FIGURES: [(f64, &str); 12] = [
    (6.0, "level"),
    (9.0, "loop"),
    (4.0, "aileron roll"),
    (6.0, "level"),
    (8.0, "barrel roll"),
    (8.0, "hard turn"),
    (5.0, "split-s"),
    (8.0, "level"),
    (6.0, "rudder"),
    (10.0, "slow config"),
    (5.0, "reversal"),
    (6.0, "climb"),
];

impl Aerobatics {
    /// The figure flown at `t` seconds into the routine.
    pub fn figure_at(t: f64) -> &'static str {
        let total: f64 = FIGURES.iter().map(|f| f.0).sum();
        let mut x = t.rem_euclid(total);
        for (len, name) in FIGURES {
            if x < len {
                return name;
            }
            x -= len;
        }
        "level"
    }
}

impl Pilot for Aerobatics {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        let Some(s) = view.state else {
            return Idle.command(view);
        };
        let a = attitude(s, view.planet_radius_m);
        let t = view.ticks as f64 / 60.0;
        // Ground guard: below 1500 m and sinking (or below 900 m at all) → wings level and pull
        // until climbing above 2000 m.
        if a.altitude_m < 900.0 || (a.altitude_m < 1500.0 && a.climb_mps < -5.0) {
            self.recovering = true;
        }
        if self.recovering {
            if a.altitude_m > 2000.0 && a.climb_mps > 0.0 {
                self.recovering = false;
            } else {
                let upright = a.bank.abs() < 0.5;
                return PilotInput {
                    throttle: 1.0,
                    afterburner: true,
                    roll: (-a.bank * 2.0).clamp(-1.0, 1.0) as f32,
                    pitch: if upright { 0.9 } else { 0.1 },
                    ..PilotInput::default()
                };
            }
        }
        let phase = (t * 7.3).sin() as f32;
        let mut c = level_controls(&a, 3000.0);
        // Energy guard: too slow for a figure → wings level, nose a little low, full power.
        if a.speed < 120.0 {
            c.throttle = 1.0;
            c.afterburner = true;
            c.roll = (-a.bank * 1.5).clamp(-1.0, 1.0) as f32;
            c.pitch = ((-0.15 - a.pitch) * 1.5).clamp(-0.5, 0.5) as f32;
            return c;
        }
        match Self::figure_at(t) {
            "loop" if a.speed > 170.0 || a.pitch > 0.2 => {
                c.throttle = 1.0;
                c.afterburner = true;
                c.roll = (-a.bank * 0.5).clamp(-0.3, 0.3) as f32 * (a.pitch.cos() as f32);
                c.pitch = 0.85;
            }
            "aileron roll" => {
                c.roll = 1.0;
                c.pitch = 0.1;
            }
            "barrel roll" => {
                c.roll = 0.55;
                c.pitch = 0.6;
                c.throttle = 0.95;
            }
            "hard turn" => {
                c.roll = ((1.3 - a.bank) * 2.0).clamp(-1.0, 1.0) as f32;
                c.pitch = 1.0;
                c.afterburner = true;
                c.throttle = 1.0;
            }
            "split-s" if a.altitude_m > 2200.0 => {
                c.roll = ((std::f64::consts::PI - a.bank.abs()) * 2.0).clamp(-1.0, 1.0) as f32;
                c.pitch = if a.bank.abs() > 2.6 { 0.9 } else { 0.0 };
            }
            "rudder" => {
                c.yaw = 0.6 * phase;
                c.roll = (c.roll - 0.2 * phase).clamp(-1.0, 1.0);
            }
            "slow config" => {
                c.throttle = 0.45;
                c.speedbrake = if a.speed > 140.0 { 1.0 } else { 0.0 };
                c.flaps = if a.speed < 160.0 { 1.0 } else { 0.5 };
                c.gear_down = a.speed < 150.0;
                c.wheel_brake = false;
            }
            "reversal" => {
                c.roll = -((1.0 + a.bank) * 2.0).clamp(-1.0, 1.0) as f32;
                c.pitch = 0.7;
                c.yaw = (-0.2 * c.roll + 0.05 * phase).clamp(-1.0, 1.0);
            }
            "climb" => {
                c.throttle = 1.0;
                c.afterburner = true;
                c.pitch = ((0.35 - a.pitch) * 1.5).clamp(-1.0, 1.0) as f32;
            }
            _ => {}
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_builds_and_the_routine_cycles() {
        for n in AUTOPILOTS {
            assert!(by_name(n).is_some(), "{n}");
        }
        assert!(by_name("nope").is_none());
        assert_eq!(Aerobatics::figure_at(0.0), "level");
        assert_eq!(Aerobatics::figure_at(7.0), "loop");
        let total: f64 = FIGURES.iter().map(|f| f.0).sum();
        assert_eq!(Aerobatics::figure_at(total + 7.0), "loop");
    }

    #[test]
    fn in_nevada_the_attitude_is_read_on_the_local_horizon() {
        // 36.25° N 115° W: world Y is 53.75° from up there.
        use fl_flight::geodetic::{self, Enu, Geodetic};
        let planet = Planet::earth();
        let pos = geodetic::to_world(&planet, Geodetic::from_degrees(36.25, -115.0, 3000.0));
        let enu = Enu::at(&planet, pos);
        let mut s = AircraftState::flying(pos, 0.0, 200.0, 1000.0);
        s.velocity = enu.east * 200.0;
        let view = |s: &AircraftState| {
            Level.command(&PilotView {
                seq: 1,
                ticks: 60,
                state: Some(s),
                planet_radius_m: fl_flight::gravity::EARTH_RADIUS_M,
            })
        };
        s.orientation = geodetic::orientation(&enu, 90f64.to_radians(), 0.0, 0.0);
        let c = view(&s);
        assert!(c.roll.abs() < 1e-6 && c.pitch.abs() < 0.01, "{c:?}");
        s.orientation = geodetic::orientation(&enu, 90f64.to_radians(), 0.0, 30f64.to_radians());
        assert!(view(&s).roll < -0.5, "banked right: roll back left");
        s.velocity = (enu.east * 0.97 - enu.up * 0.24) * 200.0;
        assert!(view(&s).pitch > 0.3, "sinking below 3,000 m: pull");
    }

    #[test]
    fn the_guard_pulls_up_near_the_ground() {
        let mut s = AircraftState::flying(Vec3::new(0.0, 800.0, 0.0), 0.0, 200.0, 1000.0);
        s.velocity = Vec3::new(0.0, -30.0, -200.0);
        let mut p = Aerobatics::default();
        let c = p.command(&PilotView {
            seq: 1,
            ticks: 7 * 60,
            state: Some(&s),
            planet_radius_m: fl_flight::gravity::EARTH_RADIUS_M,
        });
        assert!(c.pitch > 0.5 && c.afterburner, "{c:?}");
    }
}

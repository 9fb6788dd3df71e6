//! Scripted pilots for the headless client and the proofs: `level` (wings level, holds
//! altitude), `orbit` (a steady banked turn), `aerobatics` (loops, rolls, barrel rolls,
//! high-g turns, split-S, rudder work, afterburner, gear, flaps and speed-brake cycles, with a
//! ground guard that recovers before the floor) and `attack` (pursues the nearest hostile the
//! screen shows, fires the gun and launches missiles: [`Attack`]).
//!
//! Each is a pure function of the predicted own state, what the screen showed and the input
//! tick, so a run is reproducible bit for bit.

use crate::client::{Pilot, PilotView};
use crate::input_clock::PilotInput;
use fl_flight::AircraftState;
use fl_flight::gravity::Planet;
use fl_flight::math::{Vec3, atan2, cos, sin};

/// The names `--autopilot` accepts.
pub const AUTOPILOTS: &[&str] = &["aerobatics", "level", "orbit", "idle", "attack", "dive"];

/// Builds a scripted pilot by name.
pub fn by_name(name: &str) -> Option<Box<dyn Pilot + Send>> {
    match name {
        "aerobatics" => Some(Box::new(Aerobatics::default())),
        "level" => Some(Box::new(Level)),
        "orbit" => Some(Box::new(Orbit)),
        "idle" => Some(Box::new(Idle)),
        "attack" => Some(Box::new(Attack::default())),
        "dive" => Some(Box::new(Dive)),
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

/// Engine at 80 %, stick centred, the gear left as the aircraft has it. An aircraft parked
/// with its gear down (a ground start) stays parked: throttle idle, wheel brakes on.
#[derive(Debug, Clone, Copy, Default)]
pub struct Idle;

/// Below this ground speed with the gear down, [`Idle`] treats the aircraft as parked, m/s.
const PARKED_MAX_MPS: f64 = 30.0;

impl Pilot for Idle {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        let gear_down = view.state.is_some_and(|s| s.gear > 0.5);
        let parked = view
            .state
            .is_some_and(|s| gear_down && s.velocity.length() < PARKED_MAX_MPS);
        PilotInput {
            throttle: if parked { 0.0 } else { 0.8 },
            wheel_brake: parked,
            gear_down,
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

/// Flies into the ground: wings level, full throttle, the nose held [`Dive::PITCH_DEG`] below
/// the horizon until impact (tests of a mission's "player crashed" failure).
#[derive(Debug, Clone, Copy, Default)]
pub struct Dive;

impl Dive {
    /// The dive angle held, degrees below the horizon.
    pub const PITCH_DEG: f64 = 50.0;
}

impl Pilot for Dive {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        let Some(s) = view.state else {
            return Idle.command(view);
        };
        let a = attitude(s, view.planet_radius_m);
        PilotInput {
            throttle: 1.0,
            roll: (-a.bank * 1.5).clamp(-1.0, 1.0) as f32,
            pitch: ((-Self::PITCH_DEG.to_radians() - a.pitch) * 2.0).clamp(-1.0, 1.0) as f32,
            ..PilotInput::default()
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

/// Gun range the `attack` pilot fires inside, m.
pub const ATTACK_GUN_RANGE_M: f64 = 900.0;
/// Missile launch window: range, m, and largest angle off the nose, rad (10°).
pub const ATTACK_MISSILE_MIN_M: f64 = 1_000.0;
pub const ATTACK_MISSILE_MAX_M: f64 = 5_000.0;
pub const ATTACK_MISSILE_CONE_RAD: f64 = 0.174_532_925_199_432_95;
/// Least time between two launches, ticks (6 s).
pub const ATTACK_LAUNCH_INTERVAL_TICKS: u64 = 360;
/// `damageLevel` of a destroyed entity (never a target).
const DESTROYED: u8 = fl_protocol::enums::DamageLevel::Destroyed as u8;

/// Pursues the nearest hostile entity the screen shows (a faction other than ours, both
/// non-neutral, not destroyed) and fights it the way a player would: lead pursuit while far
/// (fl-ai's inner loops fly the stick), the nose on the target inside gun range, the trigger
/// held when the target is within [`ATTACK_GUN_RANGE_M`] and inside a small cone of the nose
/// (the server's gun is a lag-compensated hitscan, so the aim point is the target as drawn), and
/// a missile from the own type's missile stations when the target is within the launch window.
/// With no target it flies level at 3,000 m.
#[derive(Debug, Default)]
pub struct Attack {
    target: Option<u32>,
    autopilot: fl_ai::Autopilot,
    last_launch: Option<u64>,
    launches: u64,
    release_held: bool,
}

/// The own aircraft as fl-ai's inner loops read it (calm air, the sea as the floor: the
/// ground guard still works from the altitude).
fn own_view(s: &AircraftState, radius_m: f64, faction: u16) -> fl_ai::EntityView {
    let planet = Planet {
        radius_m,
        ..Planet::earth()
    };
    let calm = fl_flight::integrator::CalmWorld::default();
    let env = fl_flight::StepEnv {
        planet: &planet,
        wind: &calm.wind,
        floor: &calm.floor,
        tick: 0,
        entity: 0,
        aero: true,
    };
    let ad = fl_flight::integrator::air_data(s, &env);
    let mut v = fl_ai::EntityView::point_on(
        &planet,
        fl_ai::EntityId::new(0, 0),
        faction,
        s.position,
        s.velocity,
    );
    v.orientation = s.orientation;
    v.body_rates = s.body_rates;
    v.airspeed_mps = ad.tas;
    v.dynamic_pressure_pa = ad.qbar;
    v.alpha_rad = ad.alpha;
    v.beta_rad = ad.beta;
    v.load_factor = -s.specific_force.z / fl_flight::atmosphere::G0;
    v.spool = s.spool;
    v.alive = s.crashed.is_none();
    v
}

impl Attack {
    /// The target: the one held while it stays drawn and alive, else the nearest hostile.
    fn pick<'a>(
        &mut self,
        view: &'a PilotView<'_>,
        me: Vec3,
    ) -> Option<&'a crate::bridge::RenderEntity> {
        let faction = view
            .faction
            .filter(|f| *f != 0)
            .or_else(|| view.seen.iter().find(|e| e.own).map(|e| e.faction))?;
        let hostile = |e: &&crate::bridge::RenderEntity| {
            !e.own
                && e.faction != 0
                && e.faction != faction
                && e.damage_level < DESTROYED
                && e.position.is_finite()
        };
        if let Some(t) = self
            .target
            .and_then(|idx| view.seen.iter().filter(hostile).find(|e| e.idx == idx))
        {
            return Some(t);
        }
        let best = view.seen.iter().filter(hostile).min_by(|a, b| {
            let (da, db) = ((a.position - me).length(), (b.position - me).length());
            da.total_cmp(&db).then(a.idx.cmp(&b.idx))
        });
        self.target = best.map(|e| e.idx);
        best
    }
}

impl Pilot for Attack {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        let Some(s) = view.state else {
            return Idle.command(view);
        };
        if self.release_held {
            // The server acts on the press; let go for a tick before anything else.
            self.release_held = false;
        }
        let Some(t) = self.pick(view, s.position) else {
            return level_controls(&attitude(s, view.planet_radius_m), 3000.0);
        };
        let (t_pos, t_vel) = (t.position, t.velocity);
        let me = own_view(s, view.planet_radius_m, t.faction.wrapping_add(1));
        let rel = t_pos - s.position;
        let range = rel.length();
        // Steering: lead pursuit (intercept at the own speed) while far; inside 1.2 km the nose,
        // alpha above the velocity, onto the target itself (the hitscan gun's aim point).
        let accel = if range > 1_200.0 {
            let t_go = fl_ai::guidance::time_to_go(rel, s.velocity, t_vel, 30.0);
            fl_ai::autopilot::pursue_accel(&me, t_pos + t_vel * t_go, 0.8)
        } else {
            let alpha = if me.alpha_rad.is_finite() {
                me.alpha_rad.clamp(-0.3, 0.3)
            } else {
                0.0
            };
            let point = t_pos - me.body_up() * (range * sin(alpha) / cos(alpha));
            // Tracking: a tighter gain and the line of sight's turn rate fed forward (as fl-ai's
            // pursuit tracks with the gun), so a turning target leaves no steady lag.
            let a = fl_ai::autopilot::pursue_accel(
                &me,
                point,
                fl_ai::controllers::pursuit::GUN_TRACK_GAIN,
            );
            let omega = rel.cross(t_vel - s.velocity) * (1.0 / (range * range).max(1.0));
            let ff = omega.cross(s.velocity);
            if ff.is_finite() { a + ff } else { a }
        };
        let power = fl_ai::Power::Throttle {
            throttle: 1.0,
            afterburner: range > 3_000.0,
        };
        let c = self.autopilot.fly(&me, accel, 0.8 * me.limits.max_g, power);
        let off = fl_ai::weapons::off_nose(&me, t_pos);
        let cone = atan2(8.0, range.max(1.0)).clamp(0.5f64.to_radians(), 3f64.to_radians());
        let gun = range < ATTACK_GUN_RANGE_M && rel.dot(s.forward()) > 0.0 && off <= cone;
        let mut input = PilotInput {
            throttle: c.throttle as f32,
            pitch: c.pitch as f32,
            roll: c.roll as f32,
            yaw: c.yaw as f32,
            afterburner: c.afterburner,
            gun,
            ..PilotInput::default()
        };
        let since = self
            .last_launch
            .map_or(u64::MAX, |l| view.ticks.saturating_sub(l));
        if !view.missile_stations.is_empty()
            && !self.release_held
            && since >= ATTACK_LAUNCH_INTERVAL_TICKS
            && (ATTACK_MISSILE_MIN_M..=ATTACK_MISSILE_MAX_M).contains(&range)
            && off <= ATTACK_MISSILE_CONE_RAD
        {
            let n = view.missile_stations.len() as u64;
            input.station = Some(view.missile_stations[(self.launches % n) as usize]);
            input.fire_store = true;
            self.release_held = true;
            self.last_launch = Some(view.ticks);
            self.launches += 1;
        }
        input
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
                seen: &[],
                faction: None,
                missile_stations: &[],
                datalink: None,
                own: None,
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
            seen: &[],
            faction: None,
            missile_stations: &[],
            datalink: None,
            own: None,
        });
        assert!(c.pitch > 0.5 && c.afterburner, "{c:?}");
    }

    fn seen(idx: u32, faction: u16, own: bool, position: Vec3) -> crate::bridge::RenderEntity {
        crate::bridge::RenderEntity {
            idx,
            generation: 1,
            type_index: 1,
            faction,
            own,
            position,
            orientation: fl_flight::math::Quat::IDENTITY,
            velocity: Vec3::new(0.0, 0.0, -200.0),
            articulation: Default::default(),
            damage_level: 0,
            throttle_pct: 80,
            ab_engaged: false,
            source: crate::bridge::PoseSource::Interpolated,
        }
    }

    #[test]
    fn attack_fires_at_a_hostile_on_the_nose_never_at_a_friend_and_launches_when_it_can() {
        // Level at 3 km flying world −Z (a fresh state's nose) at 200 m/s.
        let s = AircraftState::flying(Vec3::new(0.0, 3000.0, 0.0), 0.0, 200.0, 1000.0);
        let ahead = |d: f64| s.position + s.forward() * d;
        let cmd = |p: &mut Attack, others: &[crate::bridge::RenderEntity], stations: &[u8]| {
            p.command(&PilotView {
                seq: 1,
                ticks: 600,
                state: Some(&s),
                planet_radius_m: fl_flight::gravity::EARTH_RADIUS_M,
                seen: others,
                faction: Some(1),
                missile_stations: stations,
                datalink: None,
                own: None,
            })
        };
        let own = seen(0, 1, true, s.position);
        let hostile = [own.clone(), seen(3, 2, false, ahead(500.0))];
        assert!(cmd(&mut Attack::default(), &hostile, &[]).gun);
        let friend = [own.clone(), seen(3, 1, false, ahead(500.0))];
        assert!(!cmd(&mut Attack::default(), &friend, &[]).gun);
        let far = [own.clone(), seen(3, 2, false, ahead(2500.0))];
        let mut p = Attack::default();
        let c = cmd(&mut p, &far, &[1, 2]);
        assert!(!c.gun && c.fire_store && c.station == Some(1), "{c:?}");
        // The press lasts one tick, and the next launch waits its interval.
        assert!(!cmd(&mut p, &far, &[1, 2]).fire_store);
        let mut dead = seen(3, 2, false, ahead(500.0));
        dead.damage_level = DESTROYED;
        assert!(!cmd(&mut Attack::default(), &[own, dead], &[]).gun);
    }
}

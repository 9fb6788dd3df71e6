//! A guided missile in flight: launch, one fixed step, and how the flight ends.
//!
//! Each step (the order matters and is fixed):
//! 1. **Guidance** from the seeker's track as it stood at the start of the step: proportional
//!    navigation at the track extrapolated to now, plus gravity compensation (the lift that
//!    holds the missile's path against gravity), clamped to the lift available at this dynamic
//!    pressure ([`crate::flyout::aero`]). No track (Lost) means no lift: a ballistic arc.
//! 2. **Integration**: thrust while the motor burns, parasitic and induced drag, lift, gravity;
//!    `v += a·dt`, `p += (v_old + v_new)/2 · dt`.
//! 3. **Fuze** (armed once `min_range` from the launch point): the closest approach to the target
//!    inside the step ([`crate::flyout::fuze`]).
//! 4. **Ground**: the first step that ends at or below the ground hits it, at the interpolated
//!    crossing.
//! 5. **Self-destruct**: past its time of flight, out of energy (below its energy floor after
//!    burnout), or past 1.5× max range from the launch point (the C++ original's overrange).
//! 6. **Seeker** update at the new position against the target as the caller passed it (the
//!    target's state at the end of this step: the server steps aircraft before combat).
//!
//! Must not: touch the server's entities; everything arrives in the arguments and leaves in the
//! returned [`MissileEvent`].

use crate::flyout::aero;
use crate::flyout::countermeasures::Decoy;
use crate::flyout::env::{FlyoutEnv, ground_crossing, sane_dt};
use crate::flyout::fuze::{Detonation, closest_approach, warhead_damage};
use crate::flyout::guidance::pn_command;
use crate::flyout::seeker::{self, Lobe, Seeker, SeekerPose, SeekerScene, TargetView, Track};
use crate::flyout::spec::MissileSpec;
use fl_flight::math::Vec3;

/// Launch push along the nose, m/s (the C++ original's separation push).
pub const SEPARATION_SPEED_MPS: f64 = 15.0;
/// The missile leaves this far ahead of the launcher, m (clear of its own airframe).
pub const SEPARATION_DISTANCE_M: f64 = 12.0;
/// The overrange self-destruct, as a multiple of max range from the launch point.
pub const OVERRANGE_FACTOR: f64 = 1.5;

/// How a launch happens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaunchParams {
    /// The missile's stable id (the server's entity id): keys its decoy draws.
    pub id: u64,
    /// Launcher position, m.
    pub position: Vec3,
    /// Launcher velocity, m/s.
    pub velocity: Vec3,
    /// Launch direction (the airframe's nose or a launcher's rail), any length.
    pub nose: Vec3,
    /// The designated target as the launcher knows it: the lock's first track, or the cue a
    /// lock-on-after-launch shot steers on while its seeker searches.
    pub target: Option<TargetView>,
    /// The launcher holds a lock on that target (a semi-active shot needs it to leave locked).
    pub launcher_lock: bool,
}

/// Why a missile blew itself up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelfDestruct {
    /// Time of flight ran out.
    TimeOfFlight,
    /// Too slow after burnout to catch anything.
    Energy,
    /// Past 1.5× max range from the launch point.
    Overrange,
}

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MissileEvent {
    /// Still flying.
    Flying,
    /// The proximity fuze fired.
    Detonated(Detonation),
    /// It hit the ground at this point.
    HitGround(Vec3),
    /// It blew itself up here.
    SelfDestructed(Vec3, SelfDestruct),
    /// The flight had already ended; nothing happened.
    Ended,
}

/// A missile in flight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MissileState {
    /// Stable id (keys the decoy draws).
    pub id: u64,
    /// World position, m.
    pub position: Vec3,
    /// World velocity, m/s.
    pub velocity: Vec3,
    /// Unit direction it points (its velocity's, kept when it is nearly stopped).
    pub nose: Vec3,
    /// Flight time, s.
    pub time_s: f64,
    /// Motor burn left, s.
    pub burn_left_s: f64,
    /// Thrust beyond drag while burning, m/s² (sized at launch to reach max speed at burnout).
    pub thrust_gain_mps2: f64,
    /// Where it was launched.
    pub launch_position: Vec3,
    /// The fuze is live.
    pub armed: bool,
    /// The seeker.
    pub seeker: Seeker,
    /// Lateral acceleration applied last step, m/s² (telemetry: gravity compensation included).
    pub lateral_accel: Vec3,
    /// The flight is over.
    pub ended: bool,
}

/// What the world offers the missile this step.
#[derive(Debug, Clone, Copy)]
pub struct MissileInputs<'a> {
    /// The world's seed (decoy draws).
    pub seed: u64,
    /// The designated target at the end of this step (`None`: it is gone).
    pub target: Option<TargetView>,
    /// The launcher holds its lock on the target (semi-active support).
    pub launcher_lock: bool,
    /// Flares in the air.
    pub flares: &'a [Decoy],
    /// Chaff in the air.
    pub chaff: &'a [Decoy],
}

impl<'a> MissileInputs<'a> {
    /// A target and nothing else: no decoys, the launcher's lock as given.
    pub fn without_decoys(seed: u64, target: Option<TargetView>, launcher_lock: bool) -> Self {
        MissileInputs {
            seed,
            target,
            launcher_lock,
            flares: &[],
            chaff: &[],
        }
    }
}

fn unit_or(v: Vec3, fallback: Vec3) -> Vec3 {
    let u = v.normalize_or_zero();
    if u == Vec3::ZERO { fallback } else { u }
}

/// Would this missile's seeker lock `target` from a launcher at `position` looking along
/// `boresight` right now? The pre-launch question (the HUD's lock tone, the server's launch
/// gate): the search lobe's geometry, line of sight, the notch, and the launcher's lock for a
/// shot that needs support.
pub fn would_lock(
    spec: &MissileSpec,
    env: &FlyoutEnv<'_>,
    position: Vec3,
    boresight: Vec3,
    target: &TargetView,
    launcher_lock: bool,
) -> bool {
    let pose = SeekerPose {
        position,
        boresight,
        up: env.planet.up(position),
    };
    seeker::sees(spec, &pose, target, launcher_lock, Lobe::Search)
}

/// Launches a missile: it leaves [`SEPARATION_DISTANCE_M`] ahead along `nose` with the
/// launcher's velocity plus [`SEPARATION_SPEED_MPS`], locked when [`would_lock`] says so from
/// its own pose, else searching with the designated target as its cue (lock-on-after-launch).
/// Hostile launch numbers (NaN, infinity) give a missile that has already ended.
pub fn launch(spec: &MissileSpec, env: &FlyoutEnv<'_>, lp: &LaunchParams) -> MissileState {
    let p = spec.params();
    let nose = unit_or(lp.nose, unit_or(lp.velocity, Vec3::new(1.0, 0.0, 0.0)));
    let position = lp.position + nose * SEPARATION_DISTANCE_M;
    let velocity = lp.velocity + nose * SEPARATION_SPEED_MPS;
    let launch_speed = velocity.length();
    let thrust_gain = if p.motor_burn_s > 0.0 {
        (p.max_speed_mps - launch_speed).max(0.0) / p.motor_burn_s
    } else {
        0.0
    };
    let target = lp.target.filter(TargetView::is_sane);
    let seeker = match target {
        Some(t) if would_lock(spec, env, position, nose, &t, lp.launcher_lock) => {
            Seeker::locked(Track {
                position: t.position,
                velocity: t.velocity,
                time_s: 0.0,
            })
        }
        Some(t) => Seeker::searching(Some(Track {
            position: t.position,
            velocity: t.velocity,
            time_s: 0.0,
        })),
        None => Seeker::searching(None),
    };
    let sane = position.is_finite() && velocity.is_finite();
    MissileState {
        id: lp.id,
        position,
        velocity,
        nose,
        time_s: 0.0,
        burn_left_s: p.motor_burn_s,
        thrust_gain_mps2: thrust_gain,
        launch_position: position,
        armed: p.min_range_m <= 0.0,
        seeker,
        lateral_accel: Vec3::ZERO,
        ended: !sane,
    }
}

/// Advances a missile by `dt` (the server's fixed 1/60 s; see [`crate::flyout::env::MAX_DT_S`]).
pub fn step(
    spec: &MissileSpec,
    state: &mut MissileState,
    inputs: &MissileInputs<'_>,
    env: &FlyoutEnv<'_>,
    dt: f64,
) -> MissileEvent {
    if state.ended {
        return MissileEvent::Ended;
    }
    let Some(dt) = sane_dt(dt) else {
        return MissileEvent::Flying;
    };
    let p = spec.params();
    let p0 = state.position;
    let v0 = state.velocity;
    let v_hat = unit_or(v0, state.nose);
    let gravity = env.planet.gravity(p0);

    // Air: parasitic drag on the velocity through the air, dynamic pressure for lift.
    let altitude = env.planet.altitude(p0);
    let rho = aero::density(altitude);
    let v_air = v0 - env.wind;
    let airspeed = v_air.length();
    let q = 0.5 * rho * airspeed * airspeed;
    let drag = v_air * (-0.5 * rho * spec.drag_k() * airspeed);
    let (lift_now, lift_aero) = aero::lift_limits(p.max_g, q);

    // 1. Guidance.
    let lateral = match state.seeker.steering_track() {
        Some(track) if p.max_g > 0.0 => {
            let aim = track.predict(state.time_s);
            let pn = pn_command(p0, v0, aim, track.velocity);
            let g_normal = gravity - v_hat * gravity.dot(v_hat);
            let mut cmd = pn - g_normal;
            cmd -= v_hat * cmd.dot(v_hat);
            let mag = cmd.length();
            if mag > lift_now && mag > 0.0 {
                cmd = cmd * (lift_now / mag);
            }
            if cmd.is_finite() { cmd } else { Vec3::ZERO }
        }
        _ => Vec3::ZERO,
    };
    let induced = v_hat * -aero::induced_drag(lateral.length(), lift_aero);

    // 2. Integration.
    let mut thrust = Vec3::ZERO;
    if state.burn_left_s > 0.0 {
        // Thrust covers parasitic drag plus the gain that reaches max speed at burnout; the last
        // partial tick of the burn gets its share only.
        let share = (state.burn_left_s / dt).min(1.0);
        let along = state.thrust_gain_mps2 + drag.length();
        thrust = v_hat * (along * share);
    }
    let accel = thrust + drag + induced + lateral + gravity;
    let v1 = v0 + accel * dt;
    let p1 = p0 + (v0 + v1) * (0.5 * dt);
    if !(p1.is_finite() && v1.is_finite()) {
        state.ended = true;
        return MissileEvent::SelfDestructed(p0, SelfDestruct::Energy);
    }
    state.position = p1;
    state.velocity = v1;
    state.nose = unit_or(v1, v_hat);
    state.time_s += dt;
    state.burn_left_s = (state.burn_left_s - dt).max(0.0);
    state.lateral_accel = lateral;
    let from_launch = (p1 - state.launch_position).length();
    if !state.armed && from_launch >= p.min_range_m {
        state.armed = true;
    }

    // 3. Fuze.
    let target = inputs.target.filter(TargetView::is_sane);
    if let (true, Some(t)) = (state.armed, target.as_ref()) {
        let t1 = t.position;
        let t0 = t1 - t.velocity * dt;
        let ca = closest_approach(p0, p1, t0, t1);
        if ca.distance_m <= p.blast_radius_m && ca.fraction < 1.0 {
            state.ended = true;
            state.position = ca.point;
            return MissileEvent::Detonated(Detonation {
                point: ca.point,
                miss_distance_m: ca.distance_m,
                damage: warhead_damage(p.damage, p.blast_radius_m, ca.distance_m),
                time_s: state.time_s - dt * (1.0 - ca.fraction),
            });
        }
    }

    // 4. Ground.
    let h1 = env.height_above_ground(p1);
    if h1 <= 0.0 {
        let h0 = env.height_above_ground(p0);
        let at = ground_crossing(p0, p1, h0, h1);
        state.ended = true;
        state.position = at;
        return MissileEvent::HitGround(at);
    }

    // 5. Self-destruct.
    let cause = if state.time_s >= p.time_of_flight_s {
        Some(SelfDestruct::TimeOfFlight)
    } else if state.burn_left_s <= 0.0 && v1.length() < spec.energy_floor_mps() {
        Some(SelfDestruct::Energy)
    } else if from_launch > OVERRANGE_FACTOR * p.max_range_m {
        Some(SelfDestruct::Overrange)
    } else {
        None
    };
    if let Some(c) = cause {
        state.ended = true;
        return MissileEvent::SelfDestructed(p1, c);
    }

    // 6. Seeker.
    let pose = SeekerPose {
        position: p1,
        boresight: state.nose,
        up: env.planet.up(p1),
    };
    let scene = SeekerScene {
        target: target.as_ref(),
        launcher_lock: inputs.launcher_lock,
        flares: inputs.flares,
        chaff: inputs.chaff,
        seed: inputs.seed,
        missile_id: state.id,
    };
    seeker::update(spec, &mut state.seeker, &pose, &scene, state.time_s, dt);
    MissileEvent::Flying
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flyout::env::FlatGround;
    use crate::flyout::seeker::LockState;
    use crate::flyout::spec::{MissileParams, SeekerKind, SeekerLobe, SeekerParams};

    const DT: f64 = 1.0 / 60.0;

    fn params() -> MissileParams {
        let lobe = SeekerLobe {
            az_half_angle_rad: 0.4,
            el_half_angle_rad: 0.4,
            min_range_m: 0.0,
            max_range_m: 50_000.0,
            pod: 0.5,
        };
        MissileParams {
            motor_burn_s: 5.0,
            max_speed_mps: 800.0,
            max_g: 20.0,
            max_range_m: 16_000.0,
            min_range_m: 500.0,
            time_of_flight_s: 90.0,
            blast_radius_m: 9.0,
            damage: 60.0,
            flare_susceptibility: 0.5,
            chaff_susceptibility: 0.0,
            notch_susceptibility: 0.0,
            seeker: SeekerParams {
                kind: SeekerKind::Infrared,
                fire_and_forget: true,
                search: lobe,
                track: lobe,
                lock_hold_s: 1.0,
            },
            drag_k_m2_per_kg: None,
        }
    }

    fn fire_at(
        spec: &MissileSpec,
        env: &FlyoutEnv<'_>,
        alt: f64,
        speed: f64,
        target: Option<TargetView>,
    ) -> MissileState {
        launch(
            spec,
            env,
            &LaunchParams {
                id: 1,
                position: Vec3::new(0.0, alt, 0.0),
                velocity: Vec3::new(speed, 0.0, 0.0),
                nose: Vec3::new(1.0, 0.0, 0.0),
                target,
                launcher_lock: false,
            },
        )
    }

    #[test]
    fn the_motor_reaches_max_speed_at_burnout_in_level_flight() {
        let spec = MissileSpec::new(params()).expect("valid");
        let ground = FlatGround::default();
        let env = FlyoutEnv::earth(&ground);
        // A target far ahead at the same altitude: the missile holds level flight.
        let far = TargetView::new(Vec3::new(40_000.0, 5000.0, 0.0), Vec3::new(250.0, 0.0, 0.0));
        let mut m = fire_at(&spec, &env, 5000.0, 250.0, Some(far));
        assert_eq!(m.seeker.state, LockState::Locked);
        let inputs = MissileInputs::without_decoys(0, Some(far), false);
        let mut peak: f64 = 0.0;
        for tick in 0..(10 * 60) {
            assert_eq!(step(&spec, &mut m, &inputs, &env, DT), MissileEvent::Flying);
            peak = peak.max(m.velocity.length());
            if tick == 5 * 60 - 1 {
                let v = m.velocity.length();
                assert!((v - 800.0).abs() < 4.0, "burnout speed {v}");
            }
        }
        // After burnout, drag only: slower every second.
        assert!(m.velocity.length() < peak - 20.0);
        assert!(
            (m.position.y - 5000.0).abs() < 5.0,
            "level: {}",
            m.position.y
        );
    }

    #[test]
    fn lift_falls_away_when_slow_and_high() {
        let spec = MissileSpec::new(params()).expect("valid");
        let ground = FlatGround::default();
        let env = FlyoutEnv::earth(&ground);
        // A target 60° off the nose demands everything the airframe has.
        let side = TargetView::new(Vec3::new(1000.0, 0.0, 1700.0), Vec3::ZERO);
        let pulled = |alt: f64, speed: f64| {
            let mut t = side;
            t.position.y = alt;
            let mut m = fire_at(&spec, &env, alt, speed, Some(t));
            m.seeker = Seeker::locked(Track {
                position: t.position,
                velocity: Vec3::ZERO,
                time_s: 0.0,
            });
            step(
                &spec,
                &mut m,
                &MissileInputs::without_decoys(0, Some(t), false),
                &env,
                DT,
            );
            m.lateral_accel.length() / G
        };
        const G: f64 = fl_flight::atmosphere::G0;
        let low_fast = pulled(1000.0, 600.0);
        let high_slow = pulled(15_000.0, 250.0);
        assert!((low_fast - 20.0).abs() < 1e-6, "{low_fast}");
        let rho = aero::density(15_000.0);
        let q = 0.5 * rho * 265.0 * 265.0;
        assert!(
            high_slow < 20.0 * q / aero::CORNER_Q_PA + 0.1,
            "{high_slow}"
        );
        assert!(high_slow < 4.0, "{high_slow}");
    }

    #[test]
    fn the_fuze_catches_a_fast_pass_between_ticks() {
        // A dumb missile (lost lock) flying straight past a head-on target 5 m off its path at
        // 1,400 m/s closure: 23 m per tick, wider than the 9 m warhead, yet it detonates at the
        // 5 m closest approach.
        let mut p = params();
        p.min_range_m = 0.0;
        let spec = MissileSpec::new(p).expect("valid");
        let ground = FlatGround::default();
        let env = FlyoutEnv::earth(&ground);
        let mut m = fire_at(&spec, &env, 5000.0, 785.0, None);
        m.seeker.state = LockState::Lost;
        m.burn_left_s = 0.0;
        // Close enough that the dumb missile's ballistic sag (~1 m) hardly matters.
        let mut target = Vec3::new(600.3, 5000.0, 5.0);
        let vt = Vec3::new(-600.0, 0.0, 0.0);
        for _ in 0..200 {
            target += vt * DT;
            let view = TargetView::new(target, vt);
            match step(
                &spec,
                &mut m,
                &MissileInputs::without_decoys(0, Some(view), false),
                &env,
                DT,
            ) {
                MissileEvent::Flying => {}
                MissileEvent::Detonated(d) => {
                    assert!((d.miss_distance_m - 5.0).abs() < 0.2, "{d:?}");
                    assert!(d.damage > 0.0 && d.damage < 60.0);
                    return;
                }
                other => panic!("{other:?}"),
            }
        }
        panic!("no detonation");
    }

    #[test]
    fn an_ended_missile_stays_ended() {
        let spec = MissileSpec::new(params()).expect("valid");
        let ground = FlatGround { height_m: 4999.0 };
        let env = FlyoutEnv::earth(&ground);
        let mut m = fire_at(&spec, &env, 5000.0, 250.0, None);
        let mut ended = None;
        for _ in 0..600 {
            match step(
                &spec,
                &mut m,
                &MissileInputs::without_decoys(0, None, false),
                &env,
                DT,
            ) {
                MissileEvent::Flying => {}
                e => {
                    ended = Some(e);
                    break;
                }
            }
        }
        assert!(
            matches!(ended, Some(MissileEvent::HitGround(_))),
            "{ended:?}"
        );
        let before = m;
        assert_eq!(
            step(
                &spec,
                &mut m,
                &MissileInputs::without_decoys(0, None, false),
                &env,
                DT
            ),
            MissileEvent::Ended
        );
        assert_eq!(m, before);
    }
}

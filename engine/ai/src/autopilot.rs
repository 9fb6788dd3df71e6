//! The inner loops every controller flies through: an acceleration demand becomes a lift-vector
//! roll, a load-factor pull and a coordinated rudder; a speed demand becomes throttle.
//!
//! Owns: the "put the lift vector where the turn needs it and pull the right g" law, the elevator
//! and throttle integrators (initialised bumplessly from the entity's current trim and spool),
//! the alpha limiter and the ground guard. Must not: know about targets or missions — outer loops
//! (the controllers) only say which acceleration and which power they want.
//!
//! The law: the specific force the airframe must produce is `f = a_cmd + g·up` (gravity
//! compensated), less its component along the velocity (thrust and drag handle that). Its
//! direction is where the lift vector (the canopy) must point; its size over `g` is the load
//! factor. The roll loop rotates the canopy onto that direction about the nose; the pitch loop
//! pulls the load factor, scaled down by `cos(roll error)` so the aircraft does not pull while the
//! lift vector still points the wrong way.

use crate::guidance::{
    AltitudeGains, PitchGains, RollGains, bank_to_turn_aileron, coordinated_rudder,
    elevator_from_load_error, flight_path_angle, heading_error, horizontal,
    lateral_accel_for_heading, pitch_error_from_altitude, steady_pitch_rate, throttle_for_speed,
    wrap_pi,
};
use crate::view::EntityView;
use fl_flight::atmosphere::G0;
use fl_flight::math::{Vec3, atan2};
use fl_flight::{Controls, DT};

/// How the engine is driven.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Power {
    /// A fixed throttle (0 … 1) and afterburner request.
    Throttle {
        /// Throttle, 0 idle … 1 military.
        throttle: f64,
        /// Request the afterburner.
        afterburner: bool,
    },
    /// Hold a true airspeed; the afterburner may be used when military power is not enough.
    Speed {
        /// Target true airspeed, m/s.
        mps: f64,
        /// Allow the afterburner.
        afterburner: bool,
    },
}

/// Tunables of the inner loops (defaults suit fighter-class aircraft; the airframe-specific
/// scaling comes from [`crate::FlightLimits`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AutopilotConfig {
    /// Roll axis gains.
    pub roll: RollGains,
    /// Load-factor loop gains.
    pub pitch: PitchGains,
    /// Height above the floor below which the ground guard takes over, m.
    pub floor_guard_m: f64,
    /// Reaction allowance: the guard adds this many seconds of the current sink rate to the
    /// height a pull-out needs, s.
    pub floor_reaction_s: f64,
    /// Load factor the ground guard pulls, g (capped at 90 % of the airframe's limit).
    pub recovery_g: f64,
    /// How far ahead the pitch loop predicts alpha and load from the alpha rate, s.
    pub pitch_lead_s: f64,
    /// Extra push-back per g (or per 20 g/rad of alpha) beyond the load cap or alpha limit, in
    /// units of the pitch sensitivity.
    pub limiter_gain: f64,
    /// Fastest increase of the commanded load factor, g/s.
    pub g_onset_rate: f64,
    /// Fastest decrease of the commanded load factor, g/s.
    pub g_offset_rate: f64,
    /// Speed-hold proportional gain, throttle per m/s.
    pub speed_kp: f64,
    /// Speed-hold integral gain, throttle per m/s per s.
    pub speed_ki: f64,
}

impl Default for AutopilotConfig {
    fn default() -> Self {
        Self {
            roll: RollGains::default(),
            pitch: PitchGains::default(),
            floor_guard_m: 200.0,
            floor_reaction_s: 2.0,
            recovery_g: 5.0,
            pitch_lead_s: 0.3,
            limiter_gain: 2.0,
            g_onset_rate: 6.0,
            g_offset_rate: 10.0,
            speed_kp: 0.05,
            speed_ki: 0.005,
        }
    }
}

/// Inner-loop state of one aircraft. Keep one per controller; [`Autopilot::reset`] makes the next
/// [`Autopilot::fly`] pick up the entity's current trim again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Autopilot {
    /// Tunables.
    pub config: AutopilotConfig,
    pitch_integral: f64,
    throttle_integral: f64,
    initialised: bool,
    last_roll_error: f64,
    guarding: bool,
    last_n_cmd: f64,
}

impl Default for Autopilot {
    fn default() -> Self {
        Self::new(AutopilotConfig::default())
    }
}

/// Unit vector of `v`, or `fallback` when `v` is (nearly) zero.
#[inline]
fn unit_or(v: Vec3, fallback: Vec3) -> Vec3 {
    let l = v.length();
    if l > 1e-9 { v * (1.0 / l) } else { fallback }
}

/// Steady load factor per unit pitch command at the entity's dynamic pressure, g (at least 0.5).
#[inline]
fn g_per_pitch(me: &EntityView) -> f64 {
    (me.limits.g_per_pitch_per_pa * me.dynamic_pressure_pa).max(0.5)
}

/// Lift direction (unit, world) and load factor (g) that produce the kinematic acceleration
/// `accel` perpendicular to the track, gravity compensated.
pub fn lift_for_accel(me: &EntityView, accel: Vec3) -> (Vec3, f64) {
    let v_hat = track(me);
    let f = accel + me.up * G0;
    let f_perp = f - v_hat * f.dot(v_hat);
    let n_req = f_perp.length() / G0;
    let dir = if n_req > 0.05 {
        f_perp * (1.0 / (n_req * G0))
    } else {
        me.body_up()
    };
    (dir, n_req)
}

/// The entity's direction of travel: its velocity, or its nose when nearly stationary.
#[inline]
pub fn track(me: &EntityView) -> Vec3 {
    if me.speed() > 1.0 {
        me.velocity * (1.0 / me.speed())
    } else {
        me.forward()
    }
}

impl Autopilot {
    /// An autopilot with `config`, not yet initialised.
    pub fn new(config: AutopilotConfig) -> Self {
        Self {
            config,
            pitch_integral: 0.0,
            throttle_integral: 0.0,
            initialised: false,
            last_roll_error: 0.0,
            guarding: false,
            last_n_cmd: 1.0,
        }
    }

    /// Forgets the integrators; the next [`Autopilot::fly`] starts from the entity's trim.
    pub fn reset(&mut self) {
        *self = Self::new(self.config);
    }

    /// Roll error (rad) between the canopy and the demanded lift direction at the last
    /// [`Autopilot::fly`].
    pub fn last_roll_error(&self) -> f64 {
        self.last_roll_error
    }

    /// True when the last [`Autopilot::fly`] was overridden by the ground guard.
    pub fn ground_guard_active(&self) -> bool {
        self.guarding
    }

    fn initialise(&mut self, me: &EntityView) {
        if !self.initialised {
            // Bumpless take-over: the zero-g offset that makes this tick's feed-forward equal
            // the elevator the aircraft is flying with.
            self.pitch_integral = (me.pitch_trim
                - self.config.pitch.kff * me.load_factor / g_per_pitch(me))
            .clamp(-2.0, 2.0);
            self.throttle_integral = me.spool.clamp(0.0, 1.0);
            self.last_n_cmd = if me.load_factor.is_finite() {
                me.load_factor
            } else {
                1.0
            };
            self.initialised = true;
        }
    }

    /// The ground guard: `Some(recovery)` while the floor is closer than the height a wings-level
    /// pull at the recovery load needs (plus a reaction allowance and the guard height). Once
    /// triggered it holds until the aircraft climbs above the guard height.
    fn guard(&mut self, me: &EntityView, power: Power) -> Option<(Vec3, f64, Power)> {
        let cfg = self.config;
        let up = me.up;
        let vs = me.velocity.dot(up);
        let agl = me.height_agl_m;
        let n_rec = cfg.recovery_g.min(0.9 * me.limits.max_g).max(1.5);
        let gamma = flight_path_angle(me.velocity, up);
        let v = me.speed();
        let pull_loss = if gamma < 0.0 {
            v * v / (G0 * (n_rec - 1.0)) * (1.0 - libm::cos(gamma))
        } else {
            0.0
        };
        // Reaction allowance: the fixed delay plus the time to roll the canopy upright (at about
        // 1.5 rad/s), during all of which the aircraft keeps sinking.
        let bank = crate::guidance::bank_angle(me.orientation, up).abs();
        let react = (-vs).max(0.0) * (cfg.floor_reaction_s + bank / 1.5);
        let trigger = agl < cfg.floor_guard_m + pull_loss + react;
        let hold = self.guarding && !(vs > 0.0 && agl > cfg.floor_guard_m);
        self.guarding = trigger || hold;
        if !self.guarding {
            return None;
        }
        let afterburner = matches!(
            power,
            Power::Throttle {
                afterburner: true,
                ..
            } | Power::Speed {
                afterburner: true,
                ..
            }
        );
        Some((
            up * ((n_rec - 1.0) * G0),
            n_rec,
            Power::Throttle {
                throttle: 1.0,
                afterburner,
            },
        ))
    }

    /// One tick of the inner loops: fly the kinematic acceleration `accel` (world, m/s², without
    /// gravity; its component along the velocity is ignored) with the load factor capped at
    /// `max_g` (further capped at 90 % of the airframe's structural limit), driving the engine by
    /// `power`. The ground guard overrides the demand when the floor is near.
    pub fn fly(&mut self, me: &EntityView, accel: Vec3, max_g: f64, power: Power) -> Controls {
        self.initialise(me);
        let (accel, max_g, power) = match self.guard(me, power) {
            Some(g) => g,
            None => (
                if accel.is_finite() { accel } else { Vec3::ZERO },
                max_g,
                power,
            ),
        };
        let (lift_dir, n_req) = lift_for_accel(me, accel);
        self.inner(me, lift_dir, n_req, max_g, power)
    }

    /// Cruise: steer level toward the horizontal direction `want` at `altitude_m` and hold
    /// `speed_mps` without the afterburner, within the airframe's own g limit (the heading hold
    /// and the waypoint leg fly exactly this).
    pub fn cruise(
        &mut self,
        me: &EntityView,
        steer: &LevelSteer,
        want: Vec3,
        altitude_m: f64,
        speed_mps: f64,
    ) -> Controls {
        let accel = steer.accel(me, want, 0.0, altitude_m);
        self.fly(
            me,
            accel,
            me.limits.max_g,
            Power::Speed {
                mps: speed_mps,
                afterburner: false,
            },
        )
    }

    /// One tick of the inner loops with an explicit lift direction (world, need not be unit) and
    /// load factor `n_cmd`, g (capped at 90 % of the structural limit). The ground guard still
    /// overrides.
    pub fn fly_lift(
        &mut self,
        me: &EntityView,
        lift_dir: Vec3,
        n_cmd: f64,
        power: Power,
    ) -> Controls {
        self.initialise(me);
        if let Some((accel, max_g, power)) = self.guard(me, power) {
            let (dir, n) = lift_for_accel(me, accel);
            return self.inner(me, dir, n, max_g, power);
        }
        let dir = unit_or(
            if lift_dir.is_finite() {
                lift_dir
            } else {
                Vec3::ZERO
            },
            me.body_up(),
        );
        let n = if n_cmd.is_finite() { n_cmd } else { 1.0 };
        self.inner(me, dir, n, n, power)
    }

    fn inner(
        &mut self,
        me: &EntityView,
        lift_dir: Vec3,
        n_req: f64,
        max_g: f64,
        power: Power,
    ) -> Controls {
        let cfg = self.config;
        let lim = me.limits;
        let n_cap = max_g.min(0.9 * lim.max_g).max(1.0);

        // ── Roll error between the canopy and the lift direction ───────────────────────────
        let fwd = me.forward();
        let body_up = me.body_up();
        let right = me.right();
        let lp = lift_dir - fwd * lift_dir.dot(fwd);
        let mut roll_err = atan2(lp.dot(right), lp.dot(body_up));
        let mut n_cmd = n_req;
        // Small demands pointing away from the canopy are pushed, not rolled inverted for.
        if roll_err.abs() > 100f64.to_radians() && n_req < 1.0 {
            roll_err = wrap_pi(roll_err - std::f64::consts::PI);
            n_cmd = -n_req;
        }
        // Barely loaded: the direction hardly matters, so do not roll hard for it.
        if n_req.abs() < 0.3 {
            roll_err *= n_req.abs() / 0.3;
        }
        self.last_roll_error = roll_err;
        let c = libm::cos(roll_err).max(0.0);
        if n_cmd > 0.0 {
            n_cmd = (n_cmd * c).max(0.5 * n_cmd.min(1.0));
        }
        let n_floor = (0.5 * lim.min_g).max(-1.0);
        n_cmd = n_cmd.clamp(n_floor, n_cap);
        // Onset limit: slow airframes overshoot a load step badly (the MiG-21 by 2.8 g).
        n_cmd = n_cmd.clamp(
            self.last_n_cmd - cfg.g_offset_rate * DT,
            self.last_n_cmd + cfg.g_onset_rate * DT,
        );
        self.last_n_cmd = n_cmd;

        // ── Pitch: load factor with the alpha limiter ──────────────────────────────────────
        // Alpha rate is the body pitch rate less the flight path's rotation; alpha and load are
        // predicted `lead_s` ahead with it, so a slow, lightly damped airframe is checked before
        // it overshoots rather than after.
        let speed = me.speed().max(1.0);
        let n_meas = me.load_factor;
        let up_along_lift = body_up.dot(me.up);
        let alpha_rate = me.body_rates.y - steady_pitch_rate(n_meas, up_along_lift, speed);
        let lead = cfg.pitch_lead_s;
        let alpha_pred = me.alpha_rad + alpha_rate * lead;
        let n_pred = n_meas + n_meas / me.alpha_rad.abs().max(0.02) * alpha_rate * lead;
        // Near the alpha limit the demand itself is cut back, feed-forward included.
        let alpha_gain = 20.0; // g of allowed demand per radian of alpha margin
        n_cmd = n_cmd.min(n_meas + alpha_gain * (lim.alpha_max_rad - alpha_pred));
        n_cmd = n_cmd.max(n_meas + alpha_gain * (-0.6 * lim.alpha_max_rad - alpha_pred));
        let err = n_cmd - n_meas;
        let err_lead = n_cmd - n_pred;
        let gpp = g_per_pitch(me);
        let q_ref = steady_pitch_rate(n_cmd, up_along_lift, speed);
        let q_err = me.body_rates.y - q_ref;
        // Limiter: beyond the load cap or the alpha limit (predicted), push back hard on top of
        // the loop, the way a g-limiter does; the loop alone reacts too slowly when its
        // sensitivity estimate is low and the dynamic pressure is falling in a hard turn.
        let over = (n_pred - n_cap).max(0.0)
            + alpha_gain * (alpha_pred - lim.alpha_max_rad).max(0.0)
            - alpha_gain * (-0.6 * lim.alpha_max_rad - alpha_pred).max(0.0);
        let pitch = (elevator_from_load_error(
            n_cmd,
            err_lead,
            q_err,
            self.pitch_integral,
            gpp,
            &cfg.pitch,
        ) - cfg.limiter_gain * over / gpp)
            .clamp(-1.0, 1.0);
        let saturated = (pitch >= 1.0 && err > 0.0) || (pitch <= -1.0 && err < 0.0);
        if !saturated {
            self.pitch_integral =
                (self.pitch_integral + cfg.pitch.ki * err * DT / gpp).clamp(-2.0, 2.0);
        }

        // ── Roll and yaw ───────────────────────────────────────────────────────────────────
        let roll_authority = lim.roll_rate_per_roll_per_mps * me.airspeed_mps;
        // Roll gently under load: a fast roll at high g and alpha couples into pitch and yaw
        // (a MiG-21 departs from a 5 g roll reversal at full rate).
        let roll_gains = RollGains {
            max_roll_rate: cfg.roll.max_roll_rate / (0.5 * n_meas).max(1.0),
            ..cfg.roll
        };
        let roll = bank_to_turn_aileron(roll_err, me.body_rates.x, roll_authority, &roll_gains);
        let yaw = coordinated_rudder(roll, me.beta_rad);

        // ── Power ──────────────────────────────────────────────────────────────────────────
        let (throttle, afterburner) = match power {
            Power::Throttle {
                throttle,
                afterburner,
            } => (
                if throttle.is_finite() {
                    throttle.clamp(0.0, 1.0)
                } else {
                    0.0
                },
                afterburner,
            ),
            Power::Speed { mps, afterburner } => {
                let target = if mps.is_finite() {
                    mps
                } else {
                    me.airspeed_mps
                };
                let e = target - me.airspeed_mps;
                let t = throttle_for_speed(
                    me.airspeed_mps,
                    target,
                    self.throttle_integral,
                    cfg.speed_kp,
                );
                let sat = (t >= 1.0 && e > 0.0) || (t <= 0.0 && e < 0.0);
                if !sat {
                    self.throttle_integral =
                        (self.throttle_integral + cfg.speed_ki * e * DT).clamp(0.0, 1.0);
                }
                (t, afterburner && t >= 1.0 && e > 10.0)
            }
        };
        // A non-finite view (a corrupt state upstream) must not poison the loops for good.
        for x in [
            &mut self.pitch_integral,
            &mut self.throttle_integral,
            &mut self.last_n_cmd,
        ] {
            if !x.is_finite() {
                *x = 0.0;
            }
        }
        let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
        Controls {
            pitch: finite(pitch),
            roll: finite(roll),
            yaw: finite(yaw),
            throttle: finite(throttle),
            afterburner,
            ..Controls::default()
        }
    }
}

/// Acceleration demand for flying a horizontal direction while holding an altitude.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelSteer {
    /// Heading-error gain, turn rate per radian, 1/s.
    pub k_heading: f64,
    /// Bank limit, rad.
    pub max_bank_rad: f64,
    /// Altitude loop.
    pub altitude: AltitudeGains,
    /// Flight-path time constant, s.
    pub gamma_tau_s: f64,
}

impl Default for LevelSteer {
    fn default() -> Self {
        Self {
            k_heading: 0.35,
            max_bank_rad: 60f64.to_radians(),
            altitude: AltitudeGains::default(),
            gamma_tau_s: 2.0,
        }
    }
}

impl LevelSteer {
    /// World acceleration that turns the track toward the horizontal direction `want` (with an
    /// extra feed-forward turn rate `turn_rate_ff`, rad/s, + right) and flies toward
    /// `altitude_m`.
    pub fn accel(&self, me: &EntityView, want: Vec3, turn_rate_ff: f64, altitude_m: f64) -> Vec3 {
        let up = me.up;
        let trk = track(me);
        let h = unit_or(
            horizontal(trk, up),
            unit_or(horizontal(me.forward(), up), want),
        );
        let right = h.cross(up);
        let speed = me.speed().max(1.0);
        let err = heading_error(h, want, up);
        let a_lat =
            lateral_accel_for_heading(err, turn_rate_ff, speed, self.k_heading, self.max_bank_rad);
        let gamma = flight_path_angle(me.velocity, up);
        let d_gamma =
            pitch_error_from_altitude(altitude_m - me.altitude_m, gamma, speed, &self.altitude);
        let a_vert = (speed * d_gamma / self.gamma_tau_s).clamp(-0.5 * G0, 2.0 * G0);
        right * a_lat + up * a_vert
    }
}

/// Acceleration that swings the velocity toward the point `aim` in 3-D: a turn rate `k·θ` about
/// the axis between the velocity and the line of sight, θ the angle between them. When the point
/// is dead astern the turn continues in the canopy's plane.
pub fn pursue_accel(me: &EntityView, aim: Vec3, k: f64) -> Vec3 {
    let v_hat = track(me);
    let los = unit_or(aim - me.position, v_hat);
    let cos_t = los.dot(v_hat).clamp(-1.0, 1.0);
    let perp = los - v_hat * cos_t;
    let sin_t = perp.length();
    let theta = atan2(sin_t, cos_t);
    if theta < 1e-6 {
        return Vec3::ZERO;
    }
    let dir = if sin_t > 1e-6 {
        perp * (1.0 / sin_t)
    } else {
        let bu = me.body_up();
        unit_or(bu - v_hat * bu.dot(v_hat), me.up)
    };
    let speed = me.speed().max(1.0);
    let a = dir * (speed * k * theta);
    limit_flight_path(me, a, dive_limit(me), 60f64.to_radians())
}

/// Steepest dive a manoeuvring controller may enter: 40° with 2.5 km or more below, shrinking
/// linearly to level at 300 m above the floor, so a chase toward a low target flattens out well
/// before the ground guard has to step in.
pub fn dive_limit(me: &EntityView) -> f64 {
    let room = ((me.height_agl_m - 300.0) / 2200.0).clamp(0.0, 1.0);
    40f64.to_radians() * room
}

/// Keeps a demand from steepening the flight path beyond `max_dive_rad` down or `max_climb_rad`
/// up: past a limit the vertical part of `accel` that would steepen further is replaced by one
/// that brings the path back (time constant 2 s).
pub fn limit_flight_path(
    me: &EntityView,
    accel: Vec3,
    max_dive_rad: f64,
    max_climb_rad: f64,
) -> Vec3 {
    let up = me.up;
    let gamma = flight_path_angle(me.velocity, up);
    let a_up = accel.dot(up);
    let speed = me.speed().max(1.0);
    let horizontal_part = accel - up * a_up;
    if gamma < -max_dive_rad && a_up < 0.0 {
        horizontal_part + up * (speed * (-max_dive_rad - gamma) / 2.0)
    } else if gamma > max_climb_rad && a_up > 0.0 {
        horizontal_part + up * (speed * (max_climb_rad - gamma) / 2.0)
    } else {
        accel
    }
}

/// Straight and level on the course and altitude captured when the hold began: what a
/// target-based controller flies while it has no target.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HoldCourse {
    captured: Option<(Vec3, f64)>,
}

impl HoldCourse {
    /// Releases the captured course; the next hold captures afresh.
    pub fn release(&mut self) {
        self.captured = None;
    }

    /// Acceleration holding the captured course and altitude (capturing them on first use).
    pub fn accel(&mut self, me: &EntityView, steer: &LevelSteer) -> Vec3 {
        let (dir, alt) = *self.captured.get_or_insert_with(|| {
            // Local north when there is no track to hold (at the origin: world −Z, as before).
            let north = fl_flight::geodetic::Enu::from_up(me.up).north;
            let h = unit_or(horizontal(track(me), me.up), north);
            (h, me.altitude_m)
        });
        steer.accel(me, dir, 0.0, alt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::EntityId;

    fn view() -> EntityView {
        let mut v = EntityView::point(
            EntityId::new(0, 1),
            1,
            Vec3::new(0.0, 3000.0, 0.0),
            Vec3::new(0.0, 0.0, -200.0),
        );
        v.dynamic_pressure_pa = 18_000.0;
        v.height_agl_m = 3000.0;
        v
    }

    #[test]
    fn level_demand_flies_wings_level_at_one_g() {
        let mut ap = Autopilot::default();
        let c = ap.fly(
            &view(),
            Vec3::ZERO,
            5.0,
            Power::Throttle {
                throttle: 0.7,
                afterburner: false,
            },
        );
        assert!(ap.last_roll_error().abs() < 1e-12);
        assert!(c.roll.abs() < 1e-12 && c.yaw.abs() < 1e-12);
        assert_eq!(c.throttle, 0.7);
        assert!(!ap.ground_guard_active());
    }

    #[test]
    fn a_right_turn_demand_rolls_right_and_a_pull_up_pitches_up() {
        let mut ap = Autopilot::default();
        let me = view();
        let power = Power::Throttle {
            throttle: 1.0,
            afterburner: false,
        };
        let c = ap.fly(&me, Vec3::new(20.0, 0.0, 0.0), 5.0, power);
        assert!(ap.last_roll_error() > 1.0 && c.roll > 0.0, "{c:?}");
        let mut ap = Autopilot::default();
        let c = ap.fly(&me, Vec3::new(0.0, 20.0, 0.0), 5.0, power);
        assert!(c.pitch > 0.0 && c.roll.abs() < 1e-12, "{c:?}");
    }

    #[test]
    fn the_ground_guard_takes_over_in_a_low_dive() {
        let mut me = view();
        // 27° dive at 224 m/s: the pull-out needs 135 m, the reaction 200 m, the guard 200 m.
        me.velocity = Vec3::new(0.0, -100.0, -200.0);
        me.height_agl_m = 560.0;
        let mut ap = Autopilot::default();
        let c = ap.fly(
            &me,
            Vec3::ZERO,
            5.0,
            Power::Throttle {
                throttle: 0.2,
                afterburner: false,
            },
        );
        assert!(!ap.ground_guard_active() && c.throttle == 0.2);
        me.height_agl_m = 500.0;
        let mut ap = Autopilot::default();
        let c = ap.fly(
            &me,
            Vec3::new(0.0, -30.0, 0.0),
            5.0,
            Power::Throttle {
                throttle: 0.2,
                afterburner: false,
            },
        );
        assert!(ap.ground_guard_active());
        assert!(c.pitch > 0.0 && c.throttle == 1.0, "{c:?}");
    }

    #[test]
    fn a_corrupt_view_does_not_poison_the_loops() {
        let mut ap = Autopilot::default();
        let power = Power::Speed {
            mps: 200.0,
            afterburner: true,
        };
        let mut bad = view();
        bad.load_factor = f64::NAN;
        bad.airspeed_mps = f64::NAN;
        bad.dynamic_pressure_pa = f64::INFINITY;
        let c = ap.fly(&bad, Vec3::new(f64::NAN, 0.0, 0.0), 5.0, power);
        assert!(c.pitch.is_finite() && c.roll.is_finite() && c.throttle.is_finite());
        let c = ap.fly(&view(), Vec3::ZERO, 5.0, power);
        assert!(c.pitch.is_finite() && c.throttle.is_finite(), "{c:?}");
    }

    #[test]
    fn the_dive_limit_shrinks_near_the_floor() {
        let mut me = view();
        me.height_agl_m = 5000.0;
        assert!((dive_limit(&me) - 40f64.to_radians()).abs() < 1e-12);
        me.height_agl_m = 300.0;
        assert_eq!(dive_limit(&me), 0.0);
        // Already diving 30° with a demand to dive more: the downward part is replaced by a
        // pull back toward the limit.
        me.height_agl_m = 1400.0; // limit 20°
        me.velocity = Vec3::new(0.0, -100.0, -173.2);
        let a = limit_flight_path(&me, Vec3::new(5.0, -50.0, 0.0), dive_limit(&me), 1.0);
        assert!(a.y > 0.0 && a.x == 5.0, "{a:?}");
    }
}

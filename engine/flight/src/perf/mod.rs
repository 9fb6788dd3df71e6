//! Steady-state performance from a model: the maths behind `fm-trim`.
//!
//! Owns: level-flight trim (the alpha that carries n·W), and the metrics the pack's expectation
//! files name (max level Mach, stall speed, Ps, max-lift g, sustained g/turn, instantaneous turn,
//! rate of climb, corner speed, min level speed, specific range). Every force comes from
//! [`crate::aero`] and [`crate::propulsion`], the functions the integrator steps with.
//! Must not: carry aircraft-specific constants, or step the integrator (a trim is an algebraic
//! balance, not a simulation).
//!
//! Axes: in level flight the velocity is along the wind x axis. With thrust along body x at angle
//! of attack α, the force normal to the path is `N = L + T·sin α` and along it `A = T·cos α − D`.
//! The load factor is `n = N / W`; specific excess power is `Ps = V·A / W`.

pub mod expect;

use crate::aero::{AeroConfig, lift_drag};
use crate::atmosphere::{Atmosphere, G0, RHO0, isa};
use crate::model::AircraftModel;
use crate::propulsion::thrust;

/// Engine setting for a trim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Power {
    /// Throttle at idle, no afterburner.
    Idle,
    /// Full military throttle.
    Military,
    /// Full afterburner (military if the aircraft has none).
    Afterburner,
}

/// A flight condition to trim at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Condition {
    /// Geometric altitude, m.
    pub altitude_m: f64,
    /// Total mass (airframe, fuel and stores), kg.
    pub mass_kg: f64,
    /// Stores' drag increment.
    pub payload_cd0: f64,
}

/// Trim solver bound to one aircraft and one condition.
#[derive(Debug, Clone)]
pub struct Trimmer<'a> {
    m: &'a AircraftModel,
    atm: Atmosphere,
    alt: f64,
    weight: f64,
    payload_cd0: f64,
}

/// Lowest speed any search considers, m/s.
const V_MIN: f64 = 5.0;
/// Highest speed any search considers, m/s (about Mach 4.5 at altitude).
const V_MAX: f64 = 1400.0;

impl<'a> Trimmer<'a> {
    /// Prepares a trim at `c`.
    pub fn new(m: &'a AircraftModel, c: &Condition) -> Self {
        Self {
            m,
            atm: isa(c.altitude_m),
            alt: c.altitude_m,
            weight: c.mass_kg.max(1e-9) * G0,
            payload_cd0: c.payload_cd0,
        }
    }

    /// The atmosphere at the condition.
    pub fn atmosphere(&self) -> Atmosphere {
        self.atm
    }

    /// Weight, N.
    pub fn weight(&self) -> f64 {
        self.weight
    }

    /// Mach at a true airspeed.
    #[inline]
    pub fn mach(&self, v: f64) -> f64 {
        v / self.atm.speed_of_sound_m_s
    }

    fn config(&self, mach: f64) -> AeroConfig {
        AeroConfig {
            sweep_deg: self.m.sweep.as_ref().map_or(0.0, |s| s.scheduled(mach)),
            payload_cd0: self.payload_cd0,
            ..AeroConfig::default()
        }
    }

    /// Thrust, N, at a speed and power setting.
    pub fn thrust(&self, v: f64, power: Power) -> f64 {
        let mach = self.mach(v);
        let e = &self.m.engine;
        match power {
            Power::Idle => thrust(e, mach, self.alt, 0.0, 0.0),
            Power::Military => thrust(e, mach, self.alt, 1.0, 0.0),
            Power::Afterburner => thrust(e, mach, self.alt, 1.0, 1.0),
        }
    }

    /// (normal force N, along-path force A), newtons, at `alpha` (rad), speed and power.
    pub fn forces(&self, alpha: f64, v: f64, power: Power) -> (f64, f64) {
        let mach = self.mach(v);
        let qs = 0.5 * self.atm.density_kg_m3 * v * v * self.m.wing_area_m2;
        let ld = lift_drag(self.m, alpha, mach, &self.config(mach));
        let t = self.thrust(v, power);
        let (s, c) = (crate::math::sin(alpha), crate::math::cos(alpha));
        (ld.cl() * qs + t * s, t * c - ld.cd() * qs)
    }

    /// Maximum normal force over the authored alpha range, as (load factor, alpha), optionally
    /// capped at `alpha_cap`.
    pub fn max_load(&self, v: f64, power: Power, alpha_cap: Option<f64>) -> (f64, f64) {
        let m = self.m;
        let hi = alpha_cap.map_or(m.alpha_max, |c| c.min(m.alpha_max));
        let mut best = (f64::NEG_INFINITY, m.alpha_min);
        let mut consider = |a: f64| {
            let (n, _) = self.forces(a, v, power);
            if n > best.0 {
                best = (n, a);
            }
        };
        let rows = m.cl.rows();
        let t = self.thrust(v, power);
        let mach = self.mach(v);
        let qs = 0.5 * self.atm.density_kg_m3 * v * v * m.wing_area_m2;
        for w in rows.windows(2) {
            let (a0, a1) = (w[0], w[1].min(hi));
            if a0 > hi {
                break;
            }
            consider(a0);
            consider(a1);
            // CL is linear in alpha inside a segment at fixed Mach; with thrust the normal force
            // N = (c0 + s·α)·qS + T·sin α peaks inside the segment where cos α = −s·qS/T.
            if t > 0.0 && a1 > a0 {
                let cfg = self.config(mach);
                let s = (lift_drag(m, a1, mach, &cfg).cl() - lift_drag(m, a0, mach, &cfg).cl())
                    / (a1 - a0);
                let ca = -s * qs / t;
                if (-1.0..=1.0).contains(&ca) {
                    let a = crate::math::atan2((1.0 - ca * ca).sqrt(), ca);
                    if a > a0 && a < a1 {
                        consider(a);
                    }
                }
            }
        }
        consider(hi);
        (best.0 / self.weight, best.1)
    }

    /// The smallest alpha (on the rising branch) whose normal force carries `n·W`, if the wing can.
    pub fn alpha_for_load(
        &self,
        v: f64,
        n: f64,
        power: Power,
        alpha_cap: Option<f64>,
    ) -> Option<f64> {
        let (n_max, a_max) = self.max_load(v, power, alpha_cap);
        if n_max < n {
            return None;
        }
        let need = n * self.weight;
        let mut lo = self.m.alpha_min;
        if self.forces(lo, v, power).0 > need {
            return Some(lo);
        }
        let mut hi = a_max;
        for _ in 0..64 {
            let mid = 0.5 * (lo + hi);
            if self.forces(mid, v, power).0 < need {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(0.5 * (lo + hi))
    }

    /// FBW alpha cap for manoeuvre metrics (the flight computer holds the aircraft below it).
    pub fn fbw_alpha_cap(&self) -> Option<f64> {
        if self.m.has_fbw {
            self.m.alpha_limit
        } else {
            None
        }
    }

    /// Specific excess power, m/s, at `n` g: `V·(T·cos α − D)/W`. `None` if the wing cannot hold n.
    pub fn ps(&self, v: f64, n: f64, power: Power) -> Option<f64> {
        let a = self.alpha_for_load(v, n, power, None)?;
        Some(v * self.forces(a, v, power).1 / self.weight)
    }

    /// 1-g stall speed (true airspeed, m/s) at idle power: the lowest speed at which the
    /// aerodynamic maximum normal force carries the weight.
    pub fn stall_speed(&self) -> Option<f64> {
        let flies = |v: f64| self.max_load(v, Power::Idle, None).0 >= 1.0;
        let mut v = V_MIN;
        while v <= V_MAX {
            if flies(v) {
                return Some(self.bisect(v - 1.0, v, flies));
            }
            v += 1.0;
        }
        None
    }

    /// Refines the boundary in `[lo, hi]` where `ok` switches from false (at lo) to true (at hi).
    fn bisect(&self, mut lo: f64, mut hi: f64, ok: impl Fn(f64) -> bool) -> f64 {
        lo = lo.max(0.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if ok(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    /// Level-flight along-path force at speed `v` (negative or `None` when level flight fails).
    fn level_excess(&self, v: f64, power: Power) -> Option<f64> {
        let a = self.alpha_for_load(v, 1.0, power, None)?;
        Some(self.forces(a, v, power).1)
    }

    /// The speed range over which level flight is sustainable, as the first connected band found
    /// accelerating from the stall: (lowest, highest) true airspeed, m/s.
    pub fn level_band(&self, power: Power) -> Option<(f64, f64)> {
        let ok = |v: f64| self.level_excess(v, power).is_some_and(|a| a >= 0.0);
        let mut v = V_MIN;
        let mut low = None;
        while v <= V_MAX {
            if ok(v) {
                low = Some(v);
                break;
            }
            v += 1.0;
        }
        let low_edge = low?;
        let lo = if low_edge > V_MIN {
            self.bisect(low_edge - 1.0, low_edge, ok)
        } else {
            low_edge
        };
        let mut v = low_edge;
        while v + 1.0 <= V_MAX && ok(v + 1.0) {
            v += 1.0;
        }
        // Refine the upper edge: ok at v, not ok at v + 1.
        let (mut a, mut b) = (v, (v + 1.0).min(V_MAX));
        for _ in 0..60 {
            let mid = 0.5 * (a + b);
            if ok(mid) {
                a = mid;
            } else {
                b = mid;
            }
        }
        Some((lo, a))
    }

    /// Placard speed (true airspeed) from `max_keas`, m/s.
    pub fn placard_speed(&self) -> Option<f64> {
        self.m
            .max_eas_mps
            .map(|eas| eas / (self.atm.density_kg_m3 / RHO0).sqrt())
    }

    /// Maximum level-flight Mach: the top of the sustainable band reached by accelerating from
    /// the stall, capped by the `max_keas` placard when the model declares one.
    pub fn max_level_mach(&self, power: Power) -> Option<f64> {
        let (_, v) = self.level_band(power)?;
        let v = self.placard_speed().map_or(v, |p| v.min(p));
        Some(self.mach(v))
    }

    /// Steady climb at constant true airspeed `v`: returns the rate of climb, m/s. Lift carries
    /// `W·cos γ`, thrust minus drag carries `W·sin γ`.
    pub fn climb_rate(&self, v: f64, power: Power) -> Option<f64> {
        let mut sin_g: f64 = 0.0;
        for _ in 0..40 {
            let n = (1.0 - sin_g * sin_g).max(0.0).sqrt();
            let a = self.alpha_for_load(v, n, power, None)?;
            let next = (self.forces(a, v, power).1 / self.weight).clamp(-1.0, 1.0);
            if (next - sin_g).abs() < 1e-13 {
                sin_g = next;
                break;
            }
            sin_g = next;
        }
        Some(v * sin_g)
    }

    /// Best steady rate of climb over speed (or at the pinned speed), m/s.
    pub fn best_climb(&self, power: Power) -> Option<(f64, f64)> {
        self.maximise(|v| self.climb_rate(v, power))
    }

    /// Maximises `f(v)` over flyable speeds: a 2 m/s scan, then golden-section refinement around
    /// the best sample. Returns (value, speed).
    fn maximise(&self, f: impl Fn(f64) -> Option<f64>) -> Option<(f64, f64)> {
        let mut best: Option<(f64, f64)> = None;
        let mut v = V_MIN;
        while v <= V_MAX {
            if let Some(y) = f(v)
                && best.is_none_or(|(b, _)| y > b)
            {
                best = Some((y, v));
            }
            v += 2.0;
        }
        let (mut by, bv) = best?;
        let (mut a, mut b) = ((bv - 2.0).max(V_MIN), (bv + 2.0).min(V_MAX));
        let g = 0.618_033_988_749_894_9;
        let mut bvv = bv;
        for _ in 0..60 {
            let x1 = b - g * (b - a);
            let x2 = a + g * (b - a);
            let f1 = f(x1).unwrap_or(f64::NEG_INFINITY);
            let f2 = f(x2).unwrap_or(f64::NEG_INFINITY);
            if f1 > by {
                by = f1;
                bvv = x1;
            }
            if f2 > by {
                by = f2;
                bvv = x2;
            }
            if f1 < f2 {
                a = x1;
            } else {
                b = x2;
            }
        }
        Some((by, bvv))
    }

    /// Load-factor ceiling for manoeuvres at `v`: the wing (within any FBW alpha cap) and the
    /// structure, whichever is lower.
    pub fn manoeuvre_cap(&self, v: f64, power: Power) -> f64 {
        let (n_aero, _) = self.max_load(v, power, self.fbw_alpha_cap());
        n_aero.min(self.m.max_g)
    }

    /// Sustained load factor at `v`: the largest n (up to the manoeuvre cap) with `Ps ≥ 0`.
    pub fn sustained_g(&self, v: f64, power: Power) -> f64 {
        let cap = self.manoeuvre_cap(v, power);
        let ps = |n: f64| self.ps(v, n, power).unwrap_or(f64::NEG_INFINITY);
        if cap <= 0.0 || ps(0.0) < 0.0 {
            return 0.0;
        }
        if ps(cap) >= 0.0 {
            return cap;
        }
        let (mut lo, mut hi) = (0.0, cap);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if ps(mid) >= 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Level turn rate, deg/s, at load factor `n` and speed `v`: `g·√(n²−1)/V`.
    pub fn turn_rate_deg_s(n: f64, v: f64) -> f64 {
        if n <= 1.0 || v <= 0.0 {
            0.0
        } else {
            (G0 * (n * n - 1.0).sqrt() / v).to_degrees()
        }
    }

    /// Instantaneous load factor at `v`.
    pub fn instant_g(&self, v: f64, power: Power) -> f64 {
        self.manoeuvre_cap(v, power)
    }

    /// Sustained turn rate at `v`, deg/s.
    pub fn sustained_turn(&self, v: f64, power: Power) -> f64 {
        Self::turn_rate_deg_s(self.sustained_g(v, power), v)
    }

    /// Instantaneous turn rate at `v`, deg/s.
    pub fn instant_turn(&self, v: f64, power: Power) -> f64 {
        Self::turn_rate_deg_s(self.instant_g(v, power), v)
    }

    /// Best over speed of a per-speed metric (value, speed).
    pub fn best_over_speed(&self, f: impl Fn(f64) -> f64) -> Option<(f64, f64)> {
        self.maximise(|v| {
            let y = f(v);
            if y.is_finite() { Some(y) } else { None }
        })
    }

    /// Corner speed: the lowest speed at which the wing reaches the structural limit, m/s.
    pub fn corner_speed(&self, power: Power) -> Option<f64> {
        let reaches = |v: f64| self.max_load(v, power, self.fbw_alpha_cap()).0 >= self.m.max_g;
        let mut v = V_MIN;
        while v <= V_MAX {
            if reaches(v) {
                return Some(self.bisect(v - 1.0, v, reaches));
            }
            v += 1.0;
        }
        None
    }

    /// Best specific range on dry power, metres per kg of fuel.
    pub fn specific_range(&self) -> Option<(f64, f64)> {
        let e = &self.m.engine;
        self.maximise(|v| {
            let a = self.alpha_for_load(v, 1.0, Power::Military, None)?;
            let (_, a_mil) = self.forces(a, v, Power::Military);
            let (_, a_idle) = self.forces(a, v, Power::Idle);
            // Along-path force is linear in throttle between idle and military.
            let span = a_mil - a_idle;
            if span <= 0.0 {
                return None;
            }
            let throttle = -a_idle / span;
            if !(0.0..=1.0).contains(&throttle) {
                return None;
            }
            let ff = crate::propulsion::fuel_flow(e, throttle, 0.0);
            if ff <= 0.0 { None } else { Some(v / ff) }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::parse_flight_model;

    fn jet() -> AircraftModel {
        let text = include_str!("../../tests/data/test_jet.toml");
        let d = parse_flight_model(std::path::Path::new("test_jet.toml"), text)
            .expect("parses")
            .value;
        AircraftModel::from_def(&d).expect("compiles")
    }

    fn trimmer(m: &AircraftModel, alt: f64) -> Trimmer<'_> {
        Trimmer::new(
            m,
            &Condition {
                altitude_m: alt,
                mass_kg: 7000.0,
                payload_cd0: 0.0,
            },
        )
    }

    #[test]
    fn trim_alpha_balances_the_normal_force() {
        let m = jet();
        let t = trimmer(&m, 4000.0);
        for n in [0.5, 1.0, 3.0, 6.0] {
            let a = t
                .alpha_for_load(220.0, n, Power::Military, None)
                .expect("flies");
            let (normal, _) = t.forces(a, 220.0, Power::Military);
            assert!(
                (normal / t.weight() - n).abs() < 1e-9,
                "n {n}: {}",
                normal / t.weight()
            );
        }
        let (n_max, _) = t.max_load(220.0, Power::Military, None);
        assert!(
            t.alpha_for_load(220.0, n_max * 1.01, Power::Military, None)
                .is_none()
        );
    }

    #[test]
    fn stall_speed_is_where_max_lift_equals_weight() {
        let m = jet();
        let t = trimmer(&m, 0.0);
        let vs = t.stall_speed().expect("stall");
        assert!((t.max_load(vs, Power::Idle, None).0 - 1.0).abs() < 1e-6);
        assert!(t.max_load(vs - 0.5, Power::Idle, None).0 < 1.0);
    }

    #[test]
    fn sustained_g_is_the_zero_of_ps() {
        let m = jet();
        let t = trimmer(&m, 5000.0);
        let v = 0.7 * t.atmosphere().speed_of_sound_m_s;
        let n = t.sustained_g(v, Power::Afterburner);
        assert!(n > 1.0 && n < t.manoeuvre_cap(v, Power::Afterburner));
        assert!(t.ps(v, n, Power::Afterburner).expect("ps").abs() < 1e-6);
        assert!(t.ps(v, n + 0.05, Power::Afterburner).expect("ps") < 0.0);
    }

    #[test]
    fn max_level_mach_is_where_thrust_meets_drag() {
        let m = jet();
        let t = trimmer(&m, 9000.0);
        let mach = t.max_level_mach(Power::Afterburner).expect("flies");
        let v = mach * t.atmosphere().speed_of_sound_m_s;
        let ps = t.ps(v, 1.0, Power::Afterburner).expect("level");
        assert!(ps.abs() < 1e-3, "Ps at the top speed {ps}");
        assert!(t.ps(v + 2.0, 1.0, Power::Afterburner).expect("level") < 0.0);
    }

    #[test]
    fn shallow_climb_rate_approaches_one_g_ps() {
        let m = jet();
        let t = trimmer(&m, 8000.0);
        let v = 200.0;
        let roc = t.climb_rate(v, Power::Military).expect("climb");
        let ps1 = t.ps(v, 1.0, Power::Military).expect("ps");
        // Lift carries W·cos γ in the climb, so induced drag is lower and the climb slightly
        // exceeds the 1 g Ps; for a shallow climb the two agree closely.
        assert!(
            roc >= ps1 - 1e-9 && roc < ps1 * 1.05 + 0.1,
            "roc {roc} ps1 {ps1}"
        );
    }

    #[test]
    fn placard_caps_max_level_mach() {
        let mut m = jet();
        let free = trimmer(&m, 0.0)
            .max_level_mach(Power::Afterburner)
            .expect("flies");
        m.max_eas_mps = Some(0.8 * free * 340.294);
        let capped = trimmer(&m, 0.0)
            .max_level_mach(Power::Afterburner)
            .expect("flies");
        assert!(
            (capped - 0.8 * free).abs() < 1e-3,
            "{capped} vs {}",
            0.8 * free
        );
    }
}

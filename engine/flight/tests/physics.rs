//! Atmosphere against the US Standard Atmosphere 1976, gravity against the inverse-square law,
//! and energy conservation of the integrator with aerodynamics off.

mod common;

use fl_flight::atmosphere::isa;
use fl_flight::env::{NoFloor, WindField};
use fl_flight::gravity::Planet;
use fl_flight::integrator::{StepEnv, step};
use fl_flight::math::Vec3;
use fl_flight::state::{AircraftState, Controls};

/// USSA-1976 tabulated values at geometric altitude: (z m, T K, p Pa, rho kg/m³, a m/s).
const USSA76: [(f64, f64, f64, f64, f64); 5] = [
    (0.0, 288.150, 101_325.0, 1.2250, 340.294),
    (1_000.0, 281.651, 89_874.6, 1.111_64, 336.435),
    (5_000.0, 255.676, 54_048.3, 0.736_429, 320.545),
    (11_000.0, 216.774, 22_699.9, 0.364_801, 295.154),
    (20_000.0, 216.650, 5_529.31, 0.088_909_1, 295.069),
];

#[test]
fn isa_matches_us_standard_atmosphere_1976() {
    for (z, t, p, rho, a) in USSA76 {
        let s = isa(z);
        assert!(
            (s.temperature_k - t).abs() < 0.01,
            "T at {z}: {} vs {t}",
            s.temperature_k
        );
        assert!(
            (s.pressure_pa - p).abs() / p < 2e-5,
            "p at {z}: {} vs {p}",
            s.pressure_pa
        );
        assert!(
            (s.density_kg_m3 - rho).abs() / rho < 2e-5,
            "rho at {z}: {} vs {rho}",
            s.density_kg_m3
        );
        assert!(
            (s.speed_of_sound_m_s - a).abs() < 0.005,
            "a at {z}: {} vs {a}",
            s.speed_of_sound_m_s
        );
    }
}

#[test]
fn gravity_follows_the_inverse_square_law() {
    let planet = Planet::earth();
    let g0 = planet.gravity(Vec3::ZERO).length();
    for h in [1_000.0, 10_000.0, 100_000.0, 6_371_000.0, 35_786_000.0] {
        let p = Vec3::new(0.0, h, 0.0);
        let g = planet.gravity(p);
        let expect = g0 * (planet.radius_m / (planet.radius_m + h)).powi(2);
        assert!(
            (g.length() - expect).abs() / expect < 1e-12,
            "at {h} m: {} vs {expect}",
            g.length()
        );
        // Points at the centre.
        let dir = (planet.centre() - p).normalize_or_zero();
        assert!((g.normalize_or_zero() - dir).length() < 1e-12);
    }
    // Off-axis point: same magnitude at the same radius.
    let r = planet.radius_m + 5_000.0;
    let p = planet.centre() + Vec3::new(r * 0.6, r * 0.0, r * 0.8);
    let expect = g0 * (planet.radius_m / r).powi(2);
    assert!((planet.gravity(p).length() - expect).abs() / expect < 1e-12);
}

fn energy(planet: &Planet, s: &AircraftState) -> f64 {
    0.5 * s.velocity.dot(s.velocity) + planet.potential(s.position)
}

#[test]
fn free_fall_conserves_energy_with_aero_off() {
    let m = common::test_jet();
    let planet = Planet::earth();
    let wind = WindField::calm();
    let mut s = AircraftState::flying(Vec3::new(0.0, 20_000.0, 0.0), 0.0, 0.0, 0.0);
    let e0 = energy(&planet, &s);
    let mut worst: f64 = 0.0;
    for t in 0..3_000 {
        step(
            &m,
            &mut s,
            &Controls::default(),
            &StepEnv {
                planet: &planet,
                wind: &wind,
                floor: &NoFloor,
                tick: t,
                entity: 0,
                aero: false,
            },
        );
        worst = worst.max((energy(&planet, &s) - e0).abs());
    }
    // 50 s of fall, ~12 km: the semi-implicit scheme's error is bounded by g·v·dt/2 per unit mass,
    // 9.81·490/120 ≈ 40 J/kg, against ~196 kJ/kg of exchanged energy (0.02%).
    let fallen = 20_000.0 - planet.altitude(s.position);
    assert!(fallen > 11_000.0, "fell only {fallen} m");
    assert!(worst < 45.0, "energy error {worst} J/kg");
    assert!(
        worst / (fallen * 9.8) < 5e-4,
        "relative energy error {}",
        worst / (fallen * 9.8)
    );
}

#[test]
fn circular_orbit_conserves_energy_and_radius_with_aero_off() {
    let m = common::test_jet();
    let planet = Planet::earth();
    let wind = WindField::calm();
    let r = planet.radius_m + 400_000.0;
    let v = (planet.mu / r).sqrt();
    let mut s = AircraftState::flying(planet.centre() + Vec3::new(0.0, r, 0.0), 0.0, 0.0, 0.0);
    s.velocity = Vec3::new(v, 0.0, 0.0);
    let e0 = energy(&planet, &s);
    let period = 2.0 * std::f64::consts::PI * r / v;
    let ticks = (period * 60.0) as u64;
    let mut worst_e: f64 = 0.0;
    let mut worst_r: f64 = 0.0;
    for t in 0..ticks {
        step(
            &m,
            &mut s,
            &Controls::default(),
            &StepEnv {
                planet: &planet,
                wind: &wind,
                floor: &NoFloor,
                tick: t,
                entity: 0,
                aero: false,
            },
        );
        worst_e = worst_e.max(((energy(&planet, &s) - e0) / e0).abs());
        worst_r = worst_r.max(((s.position - planet.centre()).length() - r).abs());
    }
    // Symplectic Euler keeps the energy error bounded (it oscillates, it does not drift).
    assert!(
        worst_e < 1e-6,
        "relative energy error over one orbit {worst_e}"
    );
    // The scheme is first order: the orbit it traces is a slightly eccentric neighbour of the true
    // one (bounded, not growing). 1.5e-5 of the radius is ~100 m here.
    assert!(worst_r < 1.5e-5 * r, "radius wandered {worst_r} m");
}

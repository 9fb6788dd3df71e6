//! Proportional navigation: the steering law that flies a collision course by nulling the
//! line-of-sight rate.
//!
//! The law (documented choice): **true PN with the command applied normal to the missile's
//! velocity** — `a = N · Vc · (Ω × v̂)`, with `Ω = (r × v_rel) / |r|²` the line-of-sight rate,
//! `Vc = −r̂ · v_rel` the closing speed (floored at [`MIN_CLOSING_MPS`] so an opening target
//! still gets a finite turn towards the line of sight), and `N =` [`NAV_GAIN`] = 3.5, the C++
//! original's constant. The command is normal to the velocity because lift is: a point-mass
//! missile cannot push along its path with its fins. Not augmented: the seeker reports position
//! and velocity only, and the target's acceleration is not estimated. The missile adds gravity
//! compensation and clamps to the lift it has ([`crate::flyout::missile`]).
//!
//! Must not: read anything but its arguments.

use fl_flight::math::Vec3;

/// The navigation constant N.
pub const NAV_GAIN: f64 = 3.5;
/// Closing-speed floor, m/s.
pub const MIN_CLOSING_MPS: f64 = 10.0;

/// The PN lateral acceleration command (m/s², normal to `missile_velocity`) towards a target at
/// `target_position` moving at `target_velocity`. Zero when the geometry is degenerate (target
/// within a metre, or the missile nearly stopped).
pub fn pn_command(
    missile_position: Vec3,
    missile_velocity: Vec3,
    target_position: Vec3,
    target_velocity: Vec3,
) -> Vec3 {
    let r = target_position - missile_position;
    let r2 = r.dot(r);
    let speed = missile_velocity.length();
    if !(r2 >= 1.0 && speed >= 1.0) {
        return Vec3::ZERO;
    }
    let v_rel = target_velocity - missile_velocity;
    let omega = r.cross(v_rel) * (1.0 / r2);
    let closing = (-r.dot(v_rel) / r2.sqrt()).max(MIN_CLOSING_MPS);
    let v_hat = missile_velocity * (1.0 / speed);
    omega.cross(v_hat) * (NAV_GAIN * closing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_towards_a_target_off_the_nose_and_normal_to_the_velocity() {
        let v = Vec3::new(600.0, 0.0, 0.0);
        let a = pn_command(Vec3::ZERO, v, Vec3::new(5000.0, 500.0, 0.0), Vec3::ZERO);
        assert!(a.y > 0.0, "{a:?}");
        assert!(a.dot(v).abs() < 1e-9 * a.length() * 600.0);
    }

    #[test]
    fn a_collision_course_needs_no_command() {
        // Target crossing at 200 m/s, missile already on the lead-collision heading.
        let t0 = Vec3::new(6000.0, 0.0, 0.0);
        let vt = Vec3::new(0.0, 0.0, 200.0);
        let tgo = 10.0;
        let vm = (t0 + vt * tgo) * (1.0 / tgo);
        let a = pn_command(Vec3::ZERO, vm, t0, vt);
        assert!(a.length() < 1e-9, "{a:?}");
    }

    #[test]
    fn degenerate_geometry_gives_zero() {
        assert_eq!(
            pn_command(Vec3::ZERO, Vec3::ZERO, Vec3::new(1e4, 0.0, 0.0), Vec3::ZERO),
            Vec3::ZERO
        );
        assert_eq!(
            pn_command(
                Vec3::ZERO,
                Vec3::new(500.0, 0.0, 0.0),
                Vec3::new(0.5, 0.0, 0.0),
                Vec3::ZERO
            ),
            Vec3::ZERO
        );
        let nan = pn_command(
            Vec3::ZERO,
            Vec3::new(500.0, 0.0, 0.0),
            Vec3::new(f64::NAN, 0.0, 0.0),
            Vec3::ZERO,
        );
        assert_eq!(nan, Vec3::ZERO);
    }
}
